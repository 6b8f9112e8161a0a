//! A TCP flow's `congestion` table (`tcp::congestion`'s registry): invalid tables rejected
//! before the run with the field path, the value and what is allowed (the conventions of
//! invalid_scenarios.rs), the canonical echo round-tripping the table, and CUBIC (RFC 9438)
//! end to end on a dumbbell: it fills the link, and its window is not Reno's (a reduction
//! to β = 0.7 and concave growth back towards W_max); DCTCP (RFC 8257) with its receiver's
//! echo and RED as a step marker; Prague (draft-briscoe-iccrg-prague-congestion-control)
//! through CoDel's 1 ms CE threshold.

mod common;

use aqmlab_core::{load, ScenarioErrors};
use common::{flow_series, queue, run};

/// Two hosts and a router; flow 0 TCP (the line `congestion` edits target), flow 1 CBR.
const BASE: &str = r#"
schema_version = 1

[simulation]
duration = "2s"
seed = 7

[[nodes]]
name = "h1"
type = "host"

[[nodes]]
name = "r1"
type = "router"

[[nodes]]
name = "h2"
type = "host"

[[links]]
a = "h1"
b = "r1"
bandwidth = "100Mbps"
delay = "1ms"
queue = { limit_pkts = 100 }

[[links]]
a = "r1"
b = "h2"
bandwidth = "10Mbps"
delay = "20ms"
queue = { limit_pkts = 100 }

[[flows]]
name = "t1"
type = "tcp"
src = "h1"
dst = "h2"
packet_size = 1000
#TCP

[[flows]]
name = "c1"
type = "cbr"
src = "h1"
dst = "h2"
packet_size = 500
rate = "1Mbps"
#CBR
"#;

/// BASE with `tcp` lines in the TCP flow's table and `cbr` in the CBR flow's.
fn with(tcp: &str, cbr: &str) -> String {
    BASE.replace("#TCP", tcp).replace("#CBR", cbr)
}

fn errors(text: &str) -> ScenarioErrors {
    match load(text) {
        Ok(_) => panic!("loaded without error:\n{text}"),
        Err(e) => e,
    }
}

/// (case, tcp lines, cbr lines, path, value, message fragment): each the only problem.
#[rustfmt::skip]
const CASES: &[(&str, &str, &str, &str, &str, &str)] = &[
    ("unknown type", r#"congestion = { type = "vegas" }"#, "",
        "flows[0].congestion.type", "\"vegas\"", "unknown type; expected one of \"reno\", \"cubic\""),
    ("missing type", "congestion = { c = 0.4 }", "",
        "flows[0].congestion", "", "missing field `type`; expected one of \"reno\", \"cubic\""),
    ("not a table", r#"congestion = "cubic""#, "",
        "flows[0].congestion", "", "invalid type"),
    ("cubic c zero", r#"congestion = { type = "cubic", c = 0.0 }"#, "",
        "flows[0].congestion.c", "0", "must be a finite number > 0"),
    ("cubic c negative", r#"congestion = { type = "cubic", c = -0.4 }"#, "",
        "flows[0].congestion.c", "-0.4", "must be a finite number > 0"),
    ("cubic beta one", r#"congestion = { type = "cubic", beta = 1.0 }"#, "",
        "flows[0].congestion.beta", "1", "must be in (0, 1)"),
    ("cubic beta zero", r#"congestion = { type = "cubic", beta = 0.0 }"#, "",
        "flows[0].congestion.beta", "0", "must be in (0, 1)"),
    ("cubic beta nan", r#"congestion = { type = "cubic", beta = nan }"#, "",
        "flows[0].congestion.beta", "NaN", "must be in (0, 1)"),
    ("cubic c a string", r#"congestion = { type = "cubic", c = "big" }"#, "",
        "flows[0].congestion.c", "", "invalid type"),
    ("cubic unknown field", r#"congestion = { type = "cubic", hystart_delay = "4ms" }"#, "",
        "flows[0].congestion.hystart_delay", "", "unknown field `hystart_delay`, expected one of `c`, `beta`, `fast_convergence`, `reno_friendly_alpha`, `hystart`"),
    ("cubic alpha rule unknown", r#"congestion = { type = "cubic", reno_friendly_alpha = "linux" }"#, "",
        "flows[0].congestion.reno_friendly_alpha", "", "unknown variant `linux`, expected `rfc9438` or `rfc8312`"),
    ("cubic hystart a string", r#"congestion = { type = "cubic", hystart = "on" }"#, "",
        "flows[0].congestion.hystart", "", "invalid type"),
    ("reno has no c", r#"congestion = { type = "reno", c = 0.4 }"#, "",
        "flows[0].congestion.c", "", "unknown field `c`, there are no fields"),
    ("cubic with retransmit_only", "dupack_response = \"retransmit_only\"\ncongestion = { type = \"cubic\" }", "",
        "flows[0].dupack_response", "\"retransmit_only\"", "only used with congestion type = \"reno\""),
    ("dctcp without ecn", r#"congestion = { type = "dctcp" }"#, "",
        "flows[0].ecn", "false", "congestion type = \"dctcp\" needs ecn = true"),
    ("dctcp ecn_retransmits false", "ecn = true\necn_retransmits = false\ncongestion = { type = \"dctcp\" }", "",
        "flows[0].ecn_retransmits", "false", "DCTCP sends every segment ECT(0)"),
    ("dctcp g zero", "ecn = true\ncongestion = { type = \"dctcp\", g = 0.0 }", "",
        "flows[0].congestion.g", "0", "must be in (0, 1]"),
    ("dctcp g above one", "ecn = true\ncongestion = { type = \"dctcp\", g = 1.5 }", "",
        "flows[0].congestion.g", "1.5", "must be in (0, 1]"),
    ("dctcp alpha negative", "ecn = true\ncongestion = { type = \"dctcp\", initial_alpha = -0.1 }", "",
        "flows[0].congestion.initial_alpha", "-0.1", "must be in [0, 1]"),
    ("dctcp unknown field", "ecn = true\ncongestion = { type = \"dctcp\", k = 40 }", "",
        "flows[0].congestion.k", "", "unknown field `k`, expected `g` or `initial_alpha`"),
    ("prague without ecn", r#"congestion = { type = "prague" }"#, "",
        "flows[0].ecn", "false", "congestion type = \"prague\" needs ecn = true and ect = \"ect1\""),
    ("prague without ect", "ecn = true\ncongestion = { type = \"prague\" }", "",
        "flows[0].ect", "", "congestion type = \"prague\" needs ect = \"ect1\""),
    ("prague with ect0", "ecn = true\nect = \"ect0\"\ncongestion = { type = \"prague\" }", "",
        "flows[0].ect", "\"ect0\"", "congestion type = \"prague\" needs ect = \"ect1\""),
    ("prague unpaced", "ecn = true\nect = \"ect1\"\npacing = false\ncongestion = { type = \"prague\" }", "",
        "flows[0].pacing", "false", "Prague always paces"),
    ("prague ecn_retransmits false", "ecn = true\nect = \"ect1\"\necn_retransmits = false\ncongestion = { type = \"prague\" }", "",
        "flows[0].ecn_retransmits", "false", "Prague sends every segment ECT(1)"),
    ("prague g zero", "ecn = true\nect = \"ect1\"\ncongestion = { type = \"prague\", g = 0.0 }", "",
        "flows[0].congestion.g", "0", "must be in (0, 1]"),
    ("prague rtt_target zero", "ecn = true\nect = \"ect1\"\ncongestion = { type = \"prague\", rtt_target = \"0ms\" }", "",
        "flows[0].congestion.rtt_target", "\"0ns\"", "must be > 0"),
    ("prague pacing ratio zero", "ecn = true\nect = \"ect1\"\ncongestion = { type = \"prague\", pacing_ca_ratio = 0.0 }", "",
        "flows[0].congestion.pacing_ca_ratio", "0", "must be in (0, 10]"),
    ("prague rtt scaling unknown", "ecn = true\nect = \"ect1\"\ncongestion = { type = \"prague\", rtt_scaling = \"scalable\" }", "",
        "flows[0].congestion.rtt_scaling", "", "unknown variant `scalable`, expected `none` or `rate`"),
    ("prague fallback unknown", "ecn = true\nect = \"ect1\"\ncongestion = { type = \"prague\", classic_ecn_fallback = true }", "",
        "flows[0].congestion.classic_ecn_fallback", "", "invalid type"),
    ("congestion on a cbr flow", "", r#"congestion = { type = "cubic" }"#,
        "flows[1].congestion", "", "not a field of type = \"cbr\""),
];

#[test]
fn invalid_congestion_tables_report_path_value_and_message() {
    let mut failures = vec![];
    for (name, tcp, cbr, path, value, fragment) in CASES {
        let errs = errors(&with(tcp, cbr));
        let hit = errs.0.len() == 1
            && errs.0[0].path == *path
            && errs.0[0].value == *value
            && errs.0[0].message.contains(fragment);
        if !hit {
            failures.push(format!(
                "- {name} (want {path} = {value:?}: ..{fragment}..): got\n{errs}\n{:#?}",
                errs.0
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn valid_congestion_tables_load_and_echo_round_trips() {
    for tcp in [
        "",
        r#"congestion = { type = "reno" }"#,
        r#"congestion = { type = "cubic" }"#,
        r#"congestion = { type = "cubic", c = 0.8, beta = 0.5, fast_convergence = false }"#,
        r#"congestion = { type = "cubic", hystart = true }"#,
        r#"congestion = { type = "cubic", reno_friendly_alpha = "rfc8312" }"#,
        "ecn = true\ncongestion = { type = \"dctcp\", g = 0.125 }",
        "ecn = true\nect = \"ect1\"\ncongestion = { type = \"prague\", rtt_scaling = \"none\" }",
    ] {
        let s = load(&with(tcp, "")).unwrap_or_else(|e| panic!("{tcp}: {e}"));
        let echo = s.to_toml();
        assert_eq!(load(&echo).expect("echo loads"), s, "{tcp}:\n{echo}");
        match tcp {
            "" => assert!(!echo.contains("congestion"), "absent stays absent:\n{echo}"),
            t if t.contains("cubic") => {
                assert!(echo.contains("type = \"cubic\""), "{echo}");
                // Defaults written out (RFC 9438: C = 0.4, β = 0.7, fast convergence on).
                let c = if t.contains("0.8") {
                    "c = 0.8"
                } else {
                    "c = 0.4"
                };
                assert!(echo.contains(c), "{echo}");
            }
            t if t.contains("prague") => {
                // The given field kept, the defaults written out (Linux L4STeam's).
                for field in [
                    "rtt_scaling = \"none\"",
                    "g = 0.0625",
                    "alpha_mode = \"halve_at_first_mark\"",
                    "rtt_target = \"25ms\"",
                    "rtt_transition = 4",
                    "pacing_ss_ratio = 2.0",
                    "pacing_ca_ratio = 1.0",
                    "classic_ecn_fallback = \"off\"",
                ] {
                    assert!(echo.contains(field), "{field}:\n{echo}");
                }
            }
            t if t.contains("dctcp") => {
                // α's initial value written out (RFC 8257: 1).
                assert!(echo.contains("g = 0.125") && echo.contains("initial_alpha = 1.0"));
            }
            _ => assert!(echo.contains("type = \"reno\""), "{echo}"),
        }
    }
    // An explicit Reno table runs as no table at all.
    let plain = run(&with("", ""));
    let reno = run(&with(r#"congestion = { type = "reno" }"#, ""));
    assert_eq!(plain.flows, reno.flows);
}

// ---------------------------------------------------------------------------------------
// CUBIC end to end
// ---------------------------------------------------------------------------------------

/// One bulk TCP flow over a 10 Mb/s, 100 ms RTT dumbbell (BDP 125 packets of 1000 B)
/// with a buffer of 125 packets, traced every 10 ms; `congestion` lines in its table.
fn dumbbell(congestion: &str) -> String {
    let mut s = common::dumbbell(
        "duration = \"70s\"\nwarmup = \"10s\"\nseed = 1\nsample_interval = \"10ms\"",
        "10Mbps",
        "49ms",
        "{ limit_pkts = 125 }",
    );
    s.sender("s0", "1ms", 100_000).toml(&format!(
        "[[flows]]\nname = \"f0\"\ntype = \"tcp\"\nsrc = \"s0\"\ndst = \"dst\"\n\
         packet_size = 1000\nvariant = \"sack\"\ntrace = true\n{congestion}\n"
    ));
    s.text()
}

/// The traced window without recovery's inflation, and the sample times.
fn trace(r: &aqmlab_core::sim::RunResults) -> (Vec<f64>, Vec<f64>) {
    let w = flow_series(r, "f0", "cwnd_base").to_vec();
    (r.timeseries.time_s.clone(), w)
}

/// The sawtooth's cycles after the warm-up: (index of the sample before a reduction,
/// index of the sample after it).
fn reductions(w: &[f64]) -> Vec<(usize, usize)> {
    let mut out = vec![];
    let mut i = 1;
    while i < w.len() {
        if w[i] < 0.9 * w[i - 1] {
            // The reduction may span a few samples (recovery): find its bottom.
            let mut j = i;
            while j + 1 < w.len() && w[j + 1] < w[j] {
                j += 1;
            }
            out.push((i - 1, j));
            i = j + 1;
        } else {
            i += 1;
        }
    }
    out
}

#[test]
fn cubic_fills_the_link_and_its_window_is_not_renos() {
    let cubic = run(&dumbbell(r#"congestion = { type = "cubic" }"#));
    let reno = run(&dumbbell(""));
    let q = queue(&cubic, "r->dst");
    println!(
        "CUBIC: utilization {:.4}, fast recoveries {}, timeouts {}; Reno: utilization {:.4}, \
         fast recoveries {}",
        q.utilization,
        cubic.flows[0].fast_recoveries,
        cubic.flows[0].timeouts,
        queue(&reno, "r->dst").utilization,
        reno.flows[0].fast_recoveries
    );
    let (t, w) = trace(&cubic);
    let (_, wr) = trace(&reno);
    let after_warmup = |&(a, _): &(usize, usize)| t[a] >= 10.0;
    let cuts: Vec<_> = reductions(&w).into_iter().filter(after_warmup).collect();
    let reno_cuts: Vec<_> = reductions(&wr).into_iter().filter(after_warmup).collect();
    assert!(cuts.len() >= 4, "{} CUBIC reductions", cuts.len());
    assert!(reno_cuts.len() >= 2, "{} Reno reductions", reno_cuts.len());
    // β: CUBIC's window falls to about 0.7 of its peak, Reno's to about 0.5.
    let ratio = |w: &[f64], (a, b): (usize, usize)| w[b] / w[a];
    for &c in &cuts {
        let r = ratio(&w, c);
        assert!(
            (0.6..0.8).contains(&r),
            "CUBIC reduction {r} at {} s",
            t[c.0]
        );
    }
    for &c in &reno_cuts {
        let r = ratio(&wr, c);
        assert!(
            (0.4..0.6).contains(&r),
            "Reno reduction {r} at {} s",
            t[c.0]
        );
    }
    // Concave growth back to W_max: between two reductions, the window gains more in the
    // first third of the cycle than in the second (Reno's linear growth gains the same),
    // and more in the first second (recovery's last RTT included) than Reno's one segment
    // per RTT of at least 100 ms (10 per second), which the Reno run checks.
    let gain = |w: &[f64], i: usize| w[(i + 100).min(w.len() - 1)] - w[i];
    for &(_, b) in &reno_cuts {
        assert!(
            gain(&wr, b) <= 10.5,
            "Reno gained {} in a second at {} s",
            gain(&wr, b),
            t[b]
        );
    }
    let mut concave = 0;
    for pair in cuts.windows(2) {
        let (start, end) = (pair[0].1, pair[1].0);
        let n = end - start;
        if n < 150 {
            continue; // a cycle shorter than 1.5 s: a loss in the probing
        }
        let (a, b, c) = (w[start], w[start + n / 3], w[start + 2 * n / 3]);
        assert!(b - a > c - b, "not concave at {} s: {a} {b} {c}", t[start]);
        let first_second = gain(&w, start);
        assert!(
            first_second > 12.0,
            "gained {first_second} segments in the first second at {} s",
            t[start]
        );
        concave += 1;
    }
    assert!(concave >= 2, "only {concave} full cycles");
    assert!(q.utilization >= 0.9, "utilization {} < 0.9", q.utilization);
}

// ---------------------------------------------------------------------------------------
// DCTCP's step marker and receiver end to end
// ---------------------------------------------------------------------------------------

/// RED as a step (min_th = max_th) loads only without gentle mode's ramp.
#[test]
fn a_red_step_loads_without_gentle_and_is_refused_with_it() {
    let step = |gentle: bool| {
        BASE.replace(
            "bandwidth = \"10Mbps\"\ndelay = \"20ms\"\nqueue = { limit_pkts = 100 }",
            &format!(
                "bandwidth = \"10Mbps\"\ndelay = \"20ms\"\nqueue = {{ limit_pkts = 100, aqm = \
                 {{ type = \"red\", min_th = 20, max_th = 20, w_q = 1.0, gentle = {gentle}, \
                 ecn = true, mark_above_max_th = true }} }}"
            ),
        )
        .replace("#TCP", "ecn = true\ncongestion = { type = \"dctcp\" }")
        .replace("#CBR", "")
    };
    let r = run(&step(false));
    let q = queue(&r, "r1->h2");
    // Marks, and drops of the CBR flow's packets only (not ECN-capable): the step holds
    // the mean queue below the step, far below the buffer.
    assert!(q.marked.iter().sum::<u64>() > 100, "{q:?}");
    assert_eq!(r.flows[0].dropped_pkts, 0, "{:?}", r.flows[0]);
    assert_eq!(q.dropped.iter().sum::<u64>(), r.flows[1].dropped_pkts);
    println!(
        "step at 20: mean queue {:.1}, max {}",
        q.mean_queue_pkts, q.max_queue_pkts
    );
    assert!(q.mean_queue_pkts < 25.0, "{q:?}");
    let errs = errors(&step(true));
    assert_eq!(errs.0.len(), 1, "{errs}");
    assert_eq!(errs.0[0].path, "links[1].queue.aqm.gentle");
}

/// With delayed ACKs, DCTCP's receiver sends more ACKs than one per two segments (each
/// CE-state change acknowledges at once), and the sender's cut follows α: through a step
/// at K = 5, below this path's C·RTT/7 = 7.5 packets, both leave the link idle at times,
/// Reno (halving at every mark) more than DCTCP (RFC 8257 §1's motivation).
#[test]
fn dctcp_with_delayed_acks_echoes_state_changes_and_keeps_the_link_busy() {
    let text = |cc: &str| {
        BASE.replace(
            "bandwidth = \"10Mbps\"\ndelay = \"20ms\"\nqueue = { limit_pkts = 100 }",
            "bandwidth = \"10Mbps\"\ndelay = \"20ms\"\nqueue = { limit_pkts = 100, aqm = \
             { type = \"red\", min_th = 5, max_th = 5, w_q = 1.0, ecn = true, \
             mark_above_max_th = true } }",
        )
        .replace(
            "#TCP",
            &format!("ecn = true\ndelayed_ack = true\ncongestion = {{ type = \"{cc}\" }}"),
        )
        .replace("#CBR", "")
    };
    let (dctcp, reno) = (run(&text("dctcp")), run(&text("reno")));
    let tcp = |r: &aqmlab_core::sim::RunResults| r.flows[0].clone();
    let (d, n) = (tcp(&dctcp), tcp(&reno));
    let acks = |r: &aqmlab_core::sim::RunResults| {
        let f = &r.flows[0];
        (f.acks_sent as f64, f.received_pkts as f64)
    };
    let (da, dr) = acks(&dctcp);
    let (na, nr) = acks(&reno);
    println!(
        "ACKs per data segment: dctcp {:.3}, reno {:.3}; goodput dctcp {:.2} reno {:.2} Mb/s",
        da / dr,
        na / nr,
        d.goodput_bps / 1e6,
        n.goodput_bps / 1e6
    );
    // Reno's receiver acks every second segment (0.5 up to the few immediate ones);
    // DCTCP's adds one ACK at each CE-state change that finds an ACK pending.
    assert!(na / nr < 0.56, "reno {}", na / nr);
    assert!(da / dr > na / nr, "dctcp {} reno {}", da / dr, na / nr);
    assert!(d.goodput_bps > 1.1 * n.goodput_bps, "{d:?}\n{n:?}");
    let util = |r: &aqmlab_core::sim::RunResults| queue(r, "r1->h2").utilization;
    assert!(
        util(&dctcp) > util(&reno),
        "{} {}",
        util(&dctcp),
        util(&reno)
    );
}

/// Linux sends a DCTCP socket's pure ACKs ECT(0) (`tcp_ecn_send`), so a step marker on a
/// congested reverse path marks them; Reno's Not-ECT ACKs are dropped there. The reverse
/// queue h2 -> r1 is a step at 5 packets, held there by a CBR flow from h2 at 12 Mb/s
/// into the 10 Mb/s link (its Not-ECT packets dropped at the step).
#[test]
fn dctcp_acks_are_ect_and_marked_not_dropped_at_a_step() {
    let text = |cc: &str| {
        BASE.replace(
            "bandwidth = \"10Mbps\"\ndelay = \"20ms\"\nqueue = { limit_pkts = 100 }",
            "bandwidth = \"10Mbps\"\ndelay = \"20ms\"\nqueue = { limit_pkts = 100 }\n\
             reverse_queue = { limit_pkts = 100, aqm = { type = \"red\", min_th = 5, \
             max_th = 5, w_q = 1.0, ecn = true, mark_above_max_th = true } }",
        )
        .replace(
            "src = \"h1\"\ndst = \"h2\"\npacket_size = 500\nrate = \"1Mbps\"",
            "src = \"h2\"\ndst = \"h1\"\npacket_size = 500\nrate = \"12Mbps\"",
        )
        .replace(
            "#TCP",
            &format!("ecn = true\ncongestion = {{ type = \"{cc}\" }}"),
        )
        .replace("#CBR", "")
    };
    let (d, n) = (run(&text("dctcp")), run(&text("reno")));
    let acks = |r: &aqmlab_core::sim::RunResults| (r.flows[0].acks_sent, r.flows[0].acks_lost);
    let marked = |r: &aqmlab_core::sim::RunResults| queue(r, "h2->r1").marked.iter().sum::<u64>();
    println!(
        "reverse step: dctcp acks sent/lost {:?}, marked {}; reno acks sent/lost {:?}, marked {}",
        acks(&d),
        marked(&d),
        acks(&n),
        marked(&n)
    );
    // DCTCP: no ACK lost (some marked); Reno: its ACKs dropped, the flow stalls in
    // timeouts (measured: 1 655 ACKs, 0 lost, 90 marked; Reno 2 sent, 2 lost).
    assert_eq!(acks(&d).1, 0);
    assert!(marked(&d) > 0);
    assert!(acks(&n).1 > 0);
    assert!(d.flows[0].received_pkts > 100 * n.flows[0].received_pkts.max(1));
    assert_eq!(marked(&n), 0);
}

// ---------------------------------------------------------------------------------------
// CUBIC's HyStart++ (RFC 9406) end to end
// ---------------------------------------------------------------------------------------

/// One bulk SACK CUBIC flow over 10 Mb/s with a 40 ms RTT (BDP 50 packets of 1000 B) and
/// a DropTail buffer of `buffer` packets, traced every 10 ms for `duration`.
fn slow_start(buffer: u64, hystart: bool, duration: &str) -> aqmlab_core::sim::RunResults {
    let mut s = common::dumbbell(
        &format!("duration = \"{duration}\"\nseed = 1\nsample_interval = \"10ms\""),
        "10Mbps",
        "19ms",
        &format!("{{ limit_pkts = {buffer} }}"),
    );
    s.sender("s0", "1ms", 100_000).toml(&format!(
        "[[flows]]\nname = \"f0\"\ntype = \"tcp\"\nsrc = \"s0\"\ndst = \"dst\"\n\
         packet_size = 1000\nvariant = \"sack\"\ntrace = true\n\
         congestion = {{ type = \"cubic\", hystart = {hystart} }}\n"
    ));
    run(&s.text())
}

/// The first sample time at which `f` holds for the sample index, if any.
fn first_time(r: &aqmlab_core::sim::RunResults, f: impl Fn(usize) -> bool) -> Option<f64> {
    (0..r.timeseries.time_s.len())
        .find(|&i| f(i))
        .map(|i| r.timeseries.time_s[i])
}

/// HyStart++ against the slow-start overshoot. Expectations set before the runs: the
/// delay rise of RttThresh = 40 ms / 8 = 5 ms is a few packets of standing queue, so CSS
/// begins long before a 200-packet buffer fills; CSS then grows the window by a quarter
/// per round, so it may still overflow 200 packets in its five rounds but far later and
/// more gently than slow start's doubling, which overshoots to about twice BDP + buffer:
/// with a buffer of 200, fewer than a quarter of the drops of plain slow start in 10 s,
/// and the CSS entry traced before plain slow start's first drop (and before HyStart++'s
/// own, if any). With a buffer of 400 (BDP + buffer 450), no drop in a 3 s run, and the
/// exit to congestion avoidance with ssthresh = cwnd: the traced ssthresh at most the
/// window and within one segment of it (CUBIC's first epoch starts at K = 0, a slow start
/// of the cubic curve), unchanged to the end.
///
/// Measured (seed 1): buffer 200, 846 drops without HyStart++ (the first traced at
/// 0.40 s), 70 with it (8 %; CSS traced at 0.31 s with cwnd 137.8, one saturated round
/// after the link filled; its first drop at 0.68 s, during CSS, and the loss
/// ends HyStart++ at 0.88 s). Buffer 400: CSS at 0.31 s, the exit traced at 1.16 s with
/// cwnd = ssthresh = 403.0, no drop (in a 10 s run CUBIC's growth past 450 packets drops
/// from 6.2 s on).
#[test]
fn hystart_leaves_slow_start_before_the_buffer_overflows() {
    let (plain, hy) = (slow_start(200, false, "10s"), slow_start(200, true, "10s"));
    let drops = |r: &aqmlab_core::sim::RunResults| queue(r, "r->dst").dropped.iter().sum::<u64>();
    let dropped = |r: &aqmlab_core::sim::RunResults| {
        let d = r
            .timeseries
            .series()
            .find(|s| s.name == "r->dst" && s.metric == "dropped")
            .expect("the bottleneck's drop series")
            .values;
        first_time(r, |i| d[i] > 0.0)
    };
    let phase = flow_series(&hy, "f0", "hystart");
    let css_at = first_time(&hy, |i| phase[i] >= 1.0).expect("HyStart++ entered CSS");
    let first_drop = dropped(&plain).expect("plain slow start overflows 200 packets");
    println!(
        "buffer 200: drops {} without HyStart++, {} with; CSS at {css_at} s, first drop \
         without at {first_drop} s, with at {:?} s",
        drops(&plain),
        drops(&hy),
        dropped(&hy)
    );
    assert!(
        (drops(&hy) as f64) < 0.25 * drops(&plain) as f64,
        "{} vs {}",
        drops(&hy),
        drops(&plain)
    );
    assert!(
        css_at < first_drop,
        "CSS at {css_at} s, drop at {first_drop} s"
    );
    if let Some(t) = dropped(&hy) {
        assert!(css_at < t, "CSS at {css_at} s, drop at {t} s");
    }
    assert!(
        !plain
            .timeseries
            .flow_series()
            .any(|s| s.metric == "hystart"),
        "plain CUBIC traces no hystart column"
    );

    let big = slow_start(400, true, "3s");
    assert_eq!(drops(&big), 0, "{:?}", queue(&big, "r->dst"));
    let (phase, cwnd, ssthresh) = (
        flow_series(&big, "f0", "hystart"),
        flow_series(&big, "f0", "cwnd"),
        flow_series(&big, "f0", "ssthresh"),
    );
    let i = (0..phase.len())
        .find(|&i| phase[i] == 2.0)
        .expect("HyStart++ exits to congestion avoidance");
    println!(
        "buffer 400: exit at {} s, cwnd {} ssthresh {}, final cwnd {}",
        big.timeseries.time_s[i],
        cwnd[i],
        ssthresh[i],
        cwnd[cwnd.len() - 1]
    );
    assert!(
        ssthresh[i] <= cwnd[i] && cwnd[i] - ssthresh[i] < 1.0,
        "cwnd {} ssthresh {}",
        cwnd[i],
        ssthresh[i]
    );
    assert!(phase[i..].iter().all(|&p| p == 2.0));
    assert!(ssthresh[i..].iter().all(|&s| s == ssthresh[i]));
}

// ---------------------------------------------------------------------------------------
// Prague through a shallow step end to end
// ---------------------------------------------------------------------------------------

/// One bulk Prague flow (ECT(1), SACK, packets of 1500 B) over 40 Mb/s with a base RTT of
/// 2·(1 + 14) ms + 0.3 ms of serialisation = 30.3 ms, through CoDel marking every ECT packet
/// whose sojourn exceeds 1 ms (`ce_threshold`, the L4S step of Linux's fq_codel and
/// DualPI2), with a buffer of 1000 packets.
///
/// Expected, from DCTCP's analysis (Alizadeh et al. 2010 §3.3, N = 1) before the run:
/// C = 3333.3 packets/s, C·RTT = 101 packets, the step K = 1 ms·C = 3.33 packets, so
/// W* = C·RTT + K = 104.3, α ≈ √(2/W*) = 0.139 and the cut A = (W* + 1)·α/2 = 7.3 packets
/// from a peak queue Q_max = K + N = 4.33. The RTT is above Prague's 25 ms target, so it
/// grows by one segment per round as DCTCP (the RTT scaling is 1), and unlike DCTCP it
/// also grows in the round after a cut, which the analysis (growth 1/RTT throughout)
/// assumes anyway. The window then falls to W* + 1 − A = 98.0, 3 packets below C·RTT: the
/// link idles until it has grown back, 3 rounds of a 7.3-round cycle at a mean deficit of
/// 1.5 packets, 1.5·3/(7.3·101) = 0.6% of the capacity: utilisation 0.994. Asserted:
/// utilisation ≥ 0.97 (the analysis' 0.994 less 2.4% for what it leaves out: pacing, CoDel
/// marking at dequeue, α measured a round late); the queue at most Q_max on average
/// (4.33 packets; the model's mean is about 1.3: 0 for 3 rounds, then a ramp to 4.33) and
/// the 99th percentile of the sojourn below 2 ms (Q_max is 1.3 ms, plus two packets of
/// 0.3 ms for the discreteness of arrivals and of the marking); marks but no drop, no
/// retransmission and no timeout after the 5 s warm-up, slow start included in the run
/// (its overshoot, about one window, fits the 1000-packet buffer). α, traced, averaged over
/// the last 15 s: within 15% of the analysis' 0.139 (the tolerance of
/// tests/tcp_validation/dctcp.rs; this assertion was added after the first run, which
/// measured: utilisation 0.9902, mean queue 1.14 packets, p99 sojourn 1.237 ms, 11 660 marks
/// and 110 reductions (one per 7.6 rounds, the analysis' cycle 7.3), no drop, α 0.141).
fn prague_through_a_step(congestion: &str) -> aqmlab_core::sim::RunResults {
    let mut s = common::dumbbell(
        "duration = \"30s\"\nwarmup = \"5s\"\nseed = 1\nsample_interval = \"10ms\"",
        "40Mbps",
        "14ms",
        "{ limit_pkts = 1000, aqm = { type = \"codel\", ecn = true, ce_threshold = \"1ms\" } }",
    );
    s.sender("s0", "1ms", 100_000).toml(&format!(
        "[[flows]]\nname = \"f0\"\ntype = \"tcp\"\nsrc = \"s0\"\ndst = \"dst\"\n\
         packet_size = 1500\necn = true\nect = \"ect1\"\nvariant = \"sack\"\ntrace = true\n\
         congestion = {congestion}\n"
    ));
    run(&s.text())
}

#[test]
fn prague_keeps_a_shallow_step_queue_short_and_the_link_full() {
    if common::skip_in_debug("prague_keeps_a_shallow_step_queue_short_and_the_link_full") {
        return;
    }
    let r = prague_through_a_step("{ type = \"prague\" }");
    let q = queue(&r, "r->dst");
    let f = &r.flows[0];
    let alpha = flow_series(&r, "f0", "alpha");
    let tail = &alpha[alpha.len() / 2..];
    println!(
        "Prague: utilisation {:.4}, mean queue {:.2} pkts (max {}), sojourn mean {:.3} ms \
         p99 {:.3} ms, marks {:?}, drops {:?}; flow: ecn reactions {}, retransmits {}, \
         timeouts {}, goodput {:.2} Mb/s; mean alpha over the last 15 s {:.3}",
        q.utilization,
        q.mean_queue_pkts,
        q.max_queue_pkts,
        q.mean_sojourn_s * 1e3,
        q.p99_sojourn_s * 1e3,
        q.marked,
        q.dropped,
        f.ecn_reactions,
        f.retransmits,
        f.timeouts,
        f.goodput_bps / 1e6,
        tail.iter().sum::<f64>() / tail.len() as f64
    );
    assert!(q.utilization >= 0.97, "utilisation {}", q.utilization);
    let mean_alpha = tail.iter().sum::<f64>() / tail.len() as f64;
    assert!(
        (mean_alpha / 0.139 - 1.0).abs() < 0.15,
        "alpha {mean_alpha} against the analysis' 0.139"
    );
    assert!(
        q.mean_queue_pkts <= 4.33,
        "mean queue {}",
        q.mean_queue_pkts
    );
    assert!(q.p99_sojourn_s < 2e-3, "p99 sojourn {} s", q.p99_sojourn_s);
    assert!(
        q.marked.iter().sum::<u64>() > 0 && f.ecn_reactions > 0,
        "{q:?}"
    );
    assert_eq!(q.dropped.iter().sum::<u64>(), 0, "{q:?}");
    assert_eq!(
        (f.dropped_pkts, f.retransmits, f.timeouts),
        (0, 0, 0),
        "{f:?}"
    );
}

/// Two Prague flows through the same 1 ms step, base RTTs 5 ms and 20 ms (access delays
/// 1.5 and 9 ms, bottleneck 1 ms), 40 Mb/s, 60 s after a 10 s warm-up. With cuts in step
/// and each flow's α·(cuts per second) alike, a flow's rate settles where its rate growth
/// balances its cuts: rate_i ∝ (growth of cwnd/RTT per second) = s_i/RTT_i². Unscaled
/// (s = 1) that is 1/RTT²: the 5 ms flow 16 times the 20 ms flow's rate (less where it
/// takes the link); with "rate" s_i = (RTT_i/25 ms)² and both grow as at 25 ms: ratio 1.
/// Asserted: without scaling a ratio above 4 (a strong RTT bias), with it within a factor
/// of 2 of equal rates; both fill the link (≥ 0.97, as the one-flow case). These bounds
/// were set after an exploratory run of the same scenario, which measured: none
/// 34.98 against 4.93 Mb/s (7.09), rate 25.21 against 14.80 (1.70). The remaining bias
/// comes from the step's on/off marking, which the short flow's quicker cut escapes (the
/// reason Linux v0.7 dithers its pacing rate by ±3%, not modelled), and from the window's
/// rounding down where Linux rounds its fractional window up (docs/congestion/prague.md).
#[test]
fn prague_rtt_scaling_narrows_the_rate_gap_between_rtts() {
    if common::skip_in_debug("prague_rtt_scaling_narrows_the_rate_gap_between_rtts") {
        return;
    }
    let ratio = |scaling: &str| {
        let mut s = common::dumbbell(
            "duration = \"60s\"\nwarmup = \"10s\"\nseed = 1",
            "40Mbps",
            "1ms",
            "{ limit_pkts = 1000, aqm = { type = \"codel\", ecn = true, ce_threshold = \"1ms\" } }",
        );
        s.sender("s0", "1500us", 100_000)
            .sender("s1", "9ms", 100_000);
        for (i, src) in ["s0", "s1"].iter().enumerate() {
            s.toml(&format!(
                "[[flows]]\nname = \"f{i}\"\ntype = \"tcp\"\nsrc = \"{src}\"\ndst = \"dst\"\n\
                 packet_size = 1500\necn = true\nect = \"ect1\"\nvariant = \"sack\"\n\
                 congestion = {{ type = \"prague\", rtt_scaling = \"{scaling}\" }}\n"
            ));
        }
        let r = run(&s.text());
        let (short, long) = (r.flows[0].goodput_bps, r.flows[1].goodput_bps);
        let util = queue(&r, "r->dst").utilization;
        println!(
            "{scaling}: 5 ms {:.2} Mb/s, 20 ms {:.2} Mb/s, ratio {:.2}, utilisation {util:.4}",
            short / 1e6,
            long / 1e6,
            short / long
        );
        assert!(util >= 0.97, "{scaling}: utilisation {util}");
        short / long
    };
    let (none, rate) = (ratio("none"), ratio("rate"));
    assert!(none > 4.0, "unscaled ratio {none}");
    assert!((0.5..=2.0).contains(&rate), "scaled ratio {rate}");
}
