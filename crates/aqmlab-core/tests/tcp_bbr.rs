//! BBR v1 (`tcp::congestion::bbr`) on the simulator: issue 48's acceptance case (one flow
//! over 10 Mb/s, 40 ms, a 5-BDP buffer: utilisation, inflight in ProbeBW, the gain cycle
//! and ProbeRTT in the flow trace), BBR against CUBIC in a deep and a shallow buffer, and
//! the scenario checks of the `bbr` table and the `pacing` field.
//!
//! Release builds only for the engine runs (`cargo test --profile ci`), as tcp_validation.

mod common;

use aqmlab_core::scenario::load;
use common::{flow_series as series, queue, run, run_all, skip_in_debug};

const BOTTLENECK_BPS: f64 = 10e6;
const PACKET_BYTES: u64 = 1500;
const ACK_BYTES: u64 = 40;
const SEED: u64 = 48;

fn tx_s(bytes: u64, bps: f64) -> f64 {
    bytes as f64 * 8.0 / bps
}

/// The path's base RTT: 2 × (1 ms access + 19 ms bottleneck) propagation, plus one data
/// and one ACK transmission on each link (1 Gb/s access): 41.26 ms.
fn base_rtt() -> f64 {
    2.0 * 0.020
        + tx_s(PACKET_BYTES, BOTTLENECK_BPS)
        + tx_s(PACKET_BYTES, 1e9)
        + tx_s(ACK_BYTES, BOTTLENECK_BPS)
        + tx_s(ACK_BYTES, 1e9)
}

/// Packets per BDP at the base RTT (34.4).
fn bdp() -> f64 {
    BOTTLENECK_BPS / (PACKET_BYTES as f64 * 8.0) * base_rtt()
}

/// `flows`: (name, congestion table) pairs, each from its own sender host; SACK, an ACK
/// per segment, every flow traced every `sample_ms`.
fn dumbbell(flows: &[(&str, &str)], buffer: u32, duration_s: u64, warmup_s: u64) -> String {
    dumbbell_sampled(flows, buffer, duration_s, warmup_s, 10)
}

fn dumbbell_sampled(
    flows: &[(&str, &str)],
    buffer: u32,
    duration_s: u64,
    warmup_s: u64,
    sample_ms: u64,
) -> String {
    let mut s = common::dumbbell(
        &format!(
            "duration = \"{duration_s}s\"\nwarmup = \"{warmup_s}s\"\nseed = {SEED}\n\
             sample_interval = \"{sample_ms}ms\""
        ),
        "10Mbps",
        "19ms",
        &format!("{{ limit_pkts = {buffer} }}"),
    );
    for (name, cc) in flows {
        s.sender(&format!("h_{name}"), "1ms", 100_000)
            .toml(&format!(
                r#"
[[flows]]
name = "{name}"
type = "tcp"
variant = "sack"
delayed_ack = false
src = "h_{name}"
dst = "dst"
packet_size = {PACKET_BYTES}
trace = true
congestion = {cc}
"#
            ));
    }
    s.text()
}

/// Runs of consecutive samples where `pred` holds: (first index, last index).
fn runs(values: &[f64], pred: impl Fn(usize, f64) -> bool) -> Vec<(usize, usize)> {
    let mut out = vec![];
    let mut start = None;
    for (k, &v) in values.iter().enumerate() {
        match (pred(k, v), start) {
            (true, None) => start = Some(k),
            (false, Some(s0)) => {
                out.push((s0, k - 1));
                start = None;
            }
            _ => {}
        }
    }
    if let Some(s0) = start {
        out.push((s0, values.len() - 1));
    }
    out
}

const PROBE_BW: f64 = 2.0;
const PROBE_RTT: f64 = 3.0;

/// Issue 48's acceptance case: one BBR flow (SACK, an ACK per segment) over 10 Mb/s with a
/// 41.3 ms base RTT (BDP 34.4 packets) and a DropTail buffer of 5 BDP (172 packets), 61 s,
/// the first 5 s (Startup, Drain) not measured, the flow traced every 10 ms.
///
/// - Utilisation ≥ 0.95: BBR paces at 0.99·BtlBw on average (the 1% margin) and gives up
///   about 0.88·(200 ms + a round) of the link at each ProbeRTT (cwnd 4 of 34.4): ≈ 2.3%
///   per 10 s, so about 0.977 if nothing else is lost; the issue's 0.95 leaves room for
///   the phases' sampling. Measured 0.9803.
/// - Inflight ≤ 2 BDP in ProbeBW: cwnd is 2·BDP + 6 (quanta) + 2 at most, but pacing keeps
///   inflight near BDP + the 1.25 phase's quarter BDP. Measured at most 51 packets (1.48 BDP).
/// - The gain cycle in the trace: every ProbeBW 1.25 run is followed by a 0.75 run, and the
///   1.25 phases recur every 8 phases: the mean spacing is between 7 and 9 RTprop. Each
///   phase lasts at least RTprop (to the first ACK after it), the 1.25 phase until inflight
///   also reaches BDP(1.25) + budget, the 0.75 phase possibly less (it ends once inflight
///   is down to BDP + budget): measured 354.7 ms = 8.60 RTprop.
/// - ProbeRTT every ~10 s: 5 of them in 61 s, each with cwnd ≤ 4 throughout and lasting at
///   least 200 ms (the 10 ms sampling may miss one sample at either end: ≥ 190 ms seen);
///   successive starts 10 s + the ProbeRTT's length apart (the RTprop stamp is renewed when
///   ProbeRTT ends): within [10.0, 10.6] s.
#[test]
fn one_bbr_flow_fills_the_link_with_the_gain_cycle_and_probe_rtt() {
    if skip_in_debug("one_bbr_flow_fills_the_link_with_the_gain_cycle_and_probe_rtt") {
        return;
    }
    let bdp = bdp();
    let buffer = (5.0 * bdp).round() as u32;
    let r = run(&dumbbell(&[("bbr", "{ type = \"bbr\" }")], buffer, 61, 5));
    let q = queue(&r, "r->dst");
    let f = &r.flows[0];
    let t = &r.timeseries.time_s;
    let state = series(&r, "bbr", "bbr_state");
    let gain = series(&r, "bbr", "pacing_gain");
    let cwnd = series(&r, "bbr", "cwnd");
    let inflight = series(&r, "bbr", "inflight_pkts");
    let min_rtt = series(&r, "bbr", "min_rtt_s");
    let measured = |k: usize| t[k] >= 5.0;
    let max_inflight = (0..t.len())
        .filter(|&k| measured(k) && state[k] == PROBE_BW)
        .map(|k| inflight[k])
        .fold(0.0, f64::max);
    let ups = runs(gain, |k, g| {
        state[k] == PROBE_BW && g == 1.25 && measured(k)
    });
    let spacings: Vec<f64> = ups.windows(2).map(|w| t[w[1].0] - t[w[0].0]).collect();
    // Spacings across a ProbeRTT are not one cycle.
    let cycle: Vec<f64> = spacings.iter().copied().filter(|&d| d < 0.6).collect();
    let mean_cycle = cycle.iter().sum::<f64>() / cycle.len() as f64;
    let rtprop = min_rtt[t.len() - 1];
    let down_follows = ups
        .iter()
        .filter(|&&(_, e)| e + 1 < t.len() && gain[e + 1] == 0.75)
        .count();
    let probe_rtts = runs(state, |_, s| s == PROBE_RTT);
    println!(
        "BBR, 10 Mb/s, base RTT {:.2} ms, BDP {bdp:.1} packets, buffer {buffer}: utilisation \
         {:.4}, goodput {:.3} Mb/s, mean queue {:.1} packets (max {}), drops {}, \
         retransmits {}; ProbeBW inflight max {max_inflight} packets = {:.2} BDP; {} gain-1.25 \
         phases ({} followed by 0.75), mean cycle {:.1} ms = {:.2} RTprop (RTprop {:.2} ms)",
        base_rtt() * 1e3,
        q.utilization,
        f.goodput_bps / 1e6,
        q.mean_queue_pkts,
        q.max_queue_pkts,
        q.dropped.iter().sum::<u64>(),
        f.retransmits,
        max_inflight / bdp,
        ups.len(),
        down_follows,
        mean_cycle * 1e3,
        mean_cycle / rtprop,
        rtprop * 1e3,
    );
    for &(a, b) in &probe_rtts {
        let cw_max = cwnd[a..=b].iter().copied().fold(0.0, f64::max);
        println!(
            "  ProbeRTT {:.2}-{:.2} s: {:.0} ms seen, cwnd <= {cw_max}",
            t[a],
            t[b],
            (t[b] - t[a]) * 1e3 + 10.0
        );
        assert!(cw_max <= 4.0, "cwnd {cw_max} in ProbeRTT");
        assert!(t[b] - t[a] + 0.01 >= 0.19, "ProbeRTT {:.3} s", t[b] - t[a]);
    }
    assert!(q.utilization >= 0.95, "utilisation {}", q.utilization);
    assert!(max_inflight <= 2.0 * bdp, "inflight {max_inflight}");
    assert!(ups.len() >= 100, "{} gain-1.25 phases", ups.len());
    assert_eq!(
        down_follows,
        ups.len(),
        "each 1.25 phase is followed by 0.75"
    );
    assert!(
        (7.0..=9.0).contains(&(mean_cycle / rtprop)),
        "cycle {mean_cycle} s vs 8 × {rtprop}"
    );
    assert_eq!(probe_rtts.len(), 5, "ProbeRTTs at {probe_rtts:?}");
    for w in probe_rtts.windows(2) {
        let d = t[w[1].0] - t[w[0].0];
        assert!((10.0..=10.6).contains(&d), "ProbeRTT spacing {d} s");
    }
}

/// BBR against CUBIC, one flow each, started together, in a deep (5 BDP = 172 packets)
/// and a shallow (0.5 BDP = 17 packets) DropTail buffer; 130 s, the first 10 s not
/// measured. Printed for the doc page (docs/congestion/bbr.md) and asserted only where
/// the literature agrees on the direction (Hock, Bless, Zitterbart, ICNP 2017; Cardwell et
/// al., IETF 97-100 slides): in the shallow buffer BBR takes most of the link (its rate
/// model ignores the loss rate that keeps CUBIC's window small: asserted share > 0.6),
/// and the link stays busy in both (≥ 0.95). In the deep buffer the split is
/// asserted only to leave each flow at least 5% (the measured shares are in the table).
#[test]
fn bbr_against_cubic_in_deep_and_shallow_buffers() {
    if skip_in_debug("bbr_against_cubic_in_deep_and_shallow_buffers") {
        return;
    }
    let bdp = bdp();
    let cases = [("deep, 5 BDP", 5.0), ("shallow, 0.5 BDP", 0.5)];
    let flows = [
        ("bbr", "{ type = \"bbr\" }"),
        ("cubic", "{ type = \"cubic\" }"),
    ];
    let texts: Vec<String> = cases
        .iter()
        .map(|&(_, b)| dumbbell_sampled(&flows, (b * bdp).round() as u32, 130, 10, 100))
        .collect();
    let results = run_all(&texts);
    println!(
        "| buffer | BBR share | BBR Mb/s | CUBIC Mb/s | utilisation | mean queue (pkts) | \
         queue delay (ms) | drops | BBR rtx | CUBIC rtx | CUBIC timeouts |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|");
    for ((label, _), r) in cases.iter().zip(&results) {
        let q = queue(r, "r->dst");
        let (b, c) = (&r.flows[0], &r.flows[1]);
        let share = b.goodput_bps / (b.goodput_bps + c.goodput_bps);
        println!(
            "| {label} | {share:.3} | {:.2} | {:.2} | {:.4} | {:.1} | {:.1} | {} | {} | {} | {} |",
            b.goodput_bps / 1e6,
            c.goodput_bps / 1e6,
            q.utilization,
            q.mean_queue_pkts,
            q.mean_queue_pkts * tx_s(PACKET_BYTES, BOTTLENECK_BPS) * 1e3,
            q.dropped.iter().sum::<u64>(),
            b.retransmits,
            c.retransmits,
            c.timeouts,
        );
        assert!(
            q.utilization >= 0.95,
            "{label}: utilisation {}",
            q.utilization
        );
        assert!((0.05..=0.95).contains(&share), "{label}: BBR share {share}");
    }
    let shallow = &results[1];
    let share = shallow.flows[0].goodput_bps
        / (shallow.flows[0].goodput_bps + shallow.flows[1].goodput_bps);
    assert!(share > 0.6, "shallow buffer: BBR share {share}");
}

/// The `bbr` table's fields and the flow's `pacing`: defaults load; each bad value is
/// reported with its path; `pacing = false` and PRR are refused with BBR; `pacing` is
/// refused on a UDP flow.
#[test]
fn bbr_tables_are_checked() {
    let with = |cc: &str, extra: &str| {
        dumbbell(&[("f", cc)], 100, 1, 0).replace("trace = true", &format!("trace = true\n{extra}"))
    };
    assert!(load(&with("{ type = \"bbr\" }", "")).is_ok());
    assert!(load(&with(
        "{ type = \"bbr\", high_gain = 2.5, probe_rtt_interval = \"5s\" }",
        "pacing = true"
    ))
    .is_ok());
    assert!(load(&with("{ type = \"cubic\" }", "pacing = true")).is_ok());
    let bad = [
        ("{ type = \"bbr\", gain = 2.0 }", "", "unknown field `gain`"),
        (
            "{ type = \"bbr\", high_gain = 0.5 }",
            "",
            "flows[0].congestion.high_gain",
        ),
        (
            "{ type = \"bbr\", cwnd_gain = -1.0 }",
            "",
            "flows[0].congestion.cwnd_gain",
        ),
        (
            "{ type = \"bbr\", probe_bw_down = 1.5 }",
            "",
            "flows[0].congestion.probe_bw_down",
        ),
        (
            "{ type = \"bbr\", pacing_margin = 1.0 }",
            "",
            "flows[0].congestion.pacing_margin",
        ),
        (
            "{ type = \"bbr\", min_cwnd = 0.5 }",
            "",
            "flows[0].congestion.min_cwnd",
        ),
        (
            "{ type = \"bbr\", bw_filter_rounds = 0 }",
            "",
            "flows[0].congestion.bw_filter_rounds",
        ),
        (
            "{ type = \"bbr\", probe_rtt_duration = \"20s\" }",
            "",
            "flows[0].congestion.probe_rtt_duration",
        ),
        (
            "{ type = \"bbr\", probe_rtt_interval = 10 }",
            "",
            "a bare number is ambiguous",
        ),
        ("{ type = \"bbr\" }", "pacing = false", "flows[0].pacing"),
        (
            "{ type = \"bbr\" }",
            "recovery = \"prr_ssrb\"",
            "flows[0].recovery",
        ),
    ];
    for (cc, extra, want) in bad {
        let e = load(&with(cc, extra)).expect_err(cc).to_string();
        assert!(e.contains(want), "{cc} {extra}: {e}");
    }
    let udp = "schema_version = 1\n[simulation]\nduration = \"1s\"\n\
        [[nodes]]\nname = \"a\"\ntype = \"host\"\n[[nodes]]\nname = \"b\"\ntype = \"host\"\n\
        [[links]]\na = \"a\"\nb = \"b\"\nbandwidth = \"1Mbps\"\ndelay = \"1ms\"\n\
        queue = { limit_pkts = 10 }\n\
        [[flows]]\nname = \"u\"\ntype = \"cbr\"\nsrc = \"a\"\ndst = \"b\"\n\
        packet_size = 100\nrate = \"1kbps\"\npacing = true\n";
    let e = load(udp).expect_err("pacing on cbr").to_string();
    assert!(
        e.contains("flows[0].pacing") && e.contains("not a field"),
        "{e}"
    );
}
