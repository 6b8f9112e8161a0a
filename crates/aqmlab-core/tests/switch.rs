//! CIOQ switches end to end: the links fabric's rates, speedup n as an output-queued
//! router, ν = 0 CIOQ-RED as RED packet for packet, per-VOQ conservation, the tables.

mod common;

use aqmlab_core::sim::RunResults;
use aqmlab_core::table::{Column, Table};

/// Hosts h0..h{n-1}, each on its own 1 Mb/s, 1 ms port of node `sw` (a switch with the
/// given `switch` table body, or a router when it is None); every port's output queue is
/// `out_queue`. `flows` is TOML.
fn star(n: usize, switch: Option<&str>, out_queue: &str, flows: &str, sim: &str) -> String {
    let mut s = format!("schema_version = 1\n[simulation]\n{sim}\n");
    match switch {
        Some(body) => {
            s += &format!("[[nodes]]\nname = \"sw\"\ntype = \"switch\"\n[nodes.switch]\n{body}\n")
        }
        None => s += "[[nodes]]\nname = \"sw\"\ntype = \"router\"\n",
    }
    for i in 0..n {
        s += &format!(
            "[[nodes]]\nname = \"h{i}\"\ntype = \"host\"\n\
             [[links]]\na = \"h{i}\"\nb = \"sw\"\nbandwidth = \"1Mbps\"\ndelay = \"1ms\"\n\
             queue = {{ limit_pkts = 1000 }}\nreverse_queue = {out_queue}\n"
        );
    }
    s + flows
}

fn udp(kind: &str, name: &str, src: usize, dst: usize, rate: &str) -> String {
    format!(
        "[[flows]]\nname = \"{name}\"\ntype = \"{kind}\"\nsrc = \"h{src}\"\ndst = \"h{dst}\"\n\
         packet_size = 1000\nrate = \"{rate}\"\n"
    )
}

fn table(r: &RunResults, name: &str) -> Table {
    r.tables()
        .into_iter()
        .find(|t| t.name == name)
        .unwrap_or_else(|| panic!("no table {name}"))
}

fn u64s(t: &Table, c: &str) -> Vec<u64> {
    match t.column(c) {
        Some(Column::U64(v)) => v.clone(),
        other => panic!("{c}: {other:?}"),
    }
}

fn f64s(t: &Table, c: &str) -> Vec<f64> {
    match t.column(c) {
        Some(Column::F64(v)) => v.clone(),
        other => panic!("{c}: {other:?}"),
    }
}

fn links(s: f64, extra: &str) -> String {
    format!(
        "speedup = {s}\ninput_queue = {{ limit_pkts = 20 }}\nfabric = {{ type = \"links\" }}\n{extra}"
    )
}

/// Limitation 1 of docs/switch/switch.md ("What the model does not preserve"): one busy VOQ gets s·R/n, whatever the output
/// could take. 4 ports, s = 2: a CBR flow at the full line rate R = 1 Mb/s crosses at
/// R/2; the rest overflows its 20-packet VOQ.
#[test]
fn one_busy_voq_crosses_at_s_r_over_n() {
    if common::skip_in_debug("one_busy_voq_crosses_at_s_r_over_n") {
        return;
    }
    let text = star(
        4,
        Some(&links(2.0, "")),
        "{ limit_pkts = 20 }",
        &udp("cbr", "f", 0, 1, "1Mbps"),
        "duration = \"60s\"\nwarmup = \"5s\"",
    );
    let r = common::run(&text);
    let out = common::queue(&r, "sw->h1");
    // 0.5 Mb/s of 1000-byte packets is 62.5 packets/s; over the 55 s window the counts
    // are exact to a packet at each edge: 1% holds them with a wide margin.
    let thr = out.throughput_bps;
    assert!((thr - 500_000.0).abs() < 5_000.0, "throughput {thr}");
    assert_eq!(out.dropped.iter().sum::<u64>(), 0, "the output never fills");
    let fab = table(&r, "switch_fabric");
    let util = f64s(&fab, "utilization");
    // Output 1's fabric capacity is s·R = 2 Mb/s over four paths; one path is always busy.
    assert!((util[1] - 0.25).abs() < 0.005, "{util:?}");
    let ports = table(&r, "switch_ports");
    let drops = u64s(&ports, "input_dropped");
    let arrivals = u64s(&ports, "input_arrivals");
    // Half the arrivals overflow the VOQ (it drains at half the arrival rate).
    let frac = drops[0] as f64 / arrivals[0] as f64;
    assert!((frac - 0.5).abs() < 0.01, "input drop fraction {frac}");
    assert!((f64s(&ports, "input_mean_queue_pkts")[0] - 20.0).abs() < 0.1);
}

/// Degeneracy: with speedup s = n each path runs at the line rate, so a VOQ drains as fast
/// as its input fills (equal-size packets): no packet waits in a VOQ for a positive time,
/// nothing is dropped at the inputs, and each output queue sees the arrivals of an
/// output-queued router delayed by one packet time (8 ms). Poisson traffic at 0.9 load on
/// one output and 0.6 on another.
#[test]
fn speedup_n_is_an_output_queued_router() {
    if common::skip_in_debug("speedup_n_is_an_output_queued_router") {
        return;
    }
    let flows = [
        udp("poisson", "a", 0, 3, "300kbps"),
        udp("poisson", "b", 1, 3, "300kbps"),
        udp("poisson", "c", 2, 3, "300kbps"),
        udp("poisson", "d", 3, 0, "300kbps"),
        udp("poisson", "e", 1, 0, "300kbps"),
    ]
    .concat();
    let sim = "duration = \"400s\"\nwarmup = \"10s\"\nseed = 3";
    let texts = [
        star(4, Some(&links(4.0, "")), "{ limit_pkts = 30 }", &flows, sim),
        star(4, None, "{ limit_pkts = 30 }", &flows, sim),
    ];
    let r = common::run_all(&texts);
    let voqs = table(&r[0], "switch_voqs");
    assert!(u64s(&voqs, "max_queue_pkts").iter().all(|&m| m == 0));
    assert!(u64s(&voqs, "dropped").iter().all(|&d| d == 0));
    assert!(f64s(&voqs, "mean_queue_pkts").iter().all(|&m| m == 0.0));
    for q in ["sw->h3", "sw->h0"] {
        let (a, b) = (common::queue(&r[0], q), common::queue(&r[1], q));
        // The same arrival process shifted by 8 ms: the counts differ only by the packets
        // crossing the window's two edges (a few at 0.9 packets per 8 ms), the means by
        // those edge effects over ~34 000 packets.
        let close = |x: u64, y: u64| x.abs_diff(y) <= 3;
        assert!(
            close(a.arrivals, b.arrivals),
            "{q}: {} vs {}",
            a.arrivals,
            b.arrivals
        );
        assert!(close(a.dequeued, b.dequeued), "{q}");
        let (da, db): (u64, u64) = (a.dropped.iter().sum(), b.dropped.iter().sum());
        assert!(close(da, db), "{q}: drops {da} vs {db}");
        let rel = (a.mean_queue_pkts - b.mean_queue_pkts).abs() / b.mean_queue_pkts;
        assert!(
            rel < 0.01,
            "{q}: mean {} vs {}",
            a.mean_queue_pkts,
            b.mean_queue_pkts
        );
    }
    assert!(
        common::queue(&r[1], "sw->h3").mean_queue_pkts > 3.0,
        "loaded enough to matter"
    );
    assert!(common::queue(&r[1], "sw->h0").mean_queue_pkts > 0.1);
}

/// A 4×4 switch at speedup 1.1 with TCP traffic between random pairs, RED or CIOQ-RED at
/// the outputs, DropTail at the inputs (the CIOQ paper's setting, smaller).
fn tcp_switch(aqm: &str, inputs: &str) -> String {
    let mut flows = String::new();
    for k in 0..12 {
        let (src, dst) = (k % 4, (k + 1 + k / 4) % 4);
        flows += &format!(
            "[[flows]]\nname = \"t{k}\"\ntype = \"tcp\"\nsrc = \"h{src}\"\ndst = \"h{dst}\"\n\
             packet_size = 1000\nstart = \"{}ms\"\n",
            100 * k
        );
    }
    star(
        4,
        Some(&links(1.1, inputs)),
        &format!("{{ limit_pkts = 20, aqm = {aqm} }}"),
        &flows,
        "duration = \"60s\"\nwarmup = \"5s\"\nseed = 5",
    )
}

/// CIOQ-RED with ν = 0 is RED packet for packet (same thresholds, same random stream);
/// with ν = 0.5 the inputs, which hold packets at s = 1.1, change its decisions.
#[test]
fn cioq_red_with_nu_zero_is_red_packet_for_packet() {
    if common::skip_in_debug("cioq_red_with_nu_zero_is_red_packet_for_packet") {
        return;
    }
    let red = "{ type = \"red\", min_th = 5, max_th = 15, w_q = 0.004, max_p = 0.1 }";
    let cioq = |nu: f64| {
        format!("{{ type = \"cioq_red\", nu = {nu}, min_th = 5, max_th = 15, w_q = 0.004, max_p = 0.1 }}")
    };
    let r = common::run_all(&[
        tcp_switch(red, ""),
        tcp_switch(&cioq(0.0), ""),
        tcp_switch(&cioq(0.5), ""),
    ]);
    assert_eq!(r[0].flows, r[1].flows);
    for (x, y) in r[0].queues.iter().zip(&r[1].queues) {
        let mut y = y.clone();
        y.aqm = x.aqm.clone();
        assert_eq!(*x, y, "queue {}", x.name);
    }
    let dbg = |r: &RunResults| format!("{:?}", table(r, "switch_voqs"));
    assert_eq!(
        dbg(&r[0]),
        dbg(&r[1]),
        "NaN-aware: empty VOQs have no sojourn"
    );
    let inputs: f64 = f64s(&table(&r[0], "switch_ports"), "input_mean_queue_pkts")
        .iter()
        .sum();
    assert!(inputs > 1.0, "the inputs hold packets at s = 1.1: {inputs}");
    assert_ne!(r[0].flows, r[2].flows, "nu = 0.5 changes the run");
    // The measure includes the inputs: CIOQ-RED keeps its output queues shorter.
    let out = |r: &RunResults| -> f64 {
        (0..4)
            .map(|i| common::queue(r, &format!("sw->h{i}")).mean_queue_pkts)
            .sum()
    };
    assert!(out(&r[2]) < out(&r[0]), "{} vs {}", out(&r[2]), out(&r[0]));
}

/// Per-VOQ (and per FIFO input) bookkeeping under TCP load with small shared buffers:
/// the engine checks each input queue's identities and the switch's backlog counts at the
/// end of the run (a failure fails the run); the tables add up the same way.
#[test]
fn input_queues_conserve_packets_in_every_mode() {
    if common::skip_in_debug("input_queues_conserve_packets_in_every_mode") {
        return;
    }
    let dt = "{ type = \"droptail\" }";
    let texts = [
        tcp_switch(dt, ""),
        tcp_switch(dt, "inputs = \"fifo\"\n"),
        tcp_switch(dt, "input_buffer = \"per_port\"\n"),
        tcp_switch("{ type = \"codel\" }", "inputs = \"fifo\"\n"),
    ];
    for (k, r) in common::run_all(&texts).iter().enumerate() {
        let ports = table(r, "switch_ports");
        let (a, e, d) = (
            u64s(&ports, "input_arrivals"),
            u64s(&ports, "input_enqueued"),
            u64s(&ports, "input_dropped"),
        );
        for i in 0..4 {
            // DropTail and CoDel at the inputs drop before enqueue only as overflow.
            assert_eq!(
                a[i],
                e[i] + u64s(&ports, "input_dropped_overflow")[i],
                "case {k}"
            );
            assert!(d[i] >= u64s(&ports, "input_dropped_overflow")[i]);
        }
        assert!(a.iter().sum::<u64>() > 1000, "case {k}: traffic crossed");
        let names: Vec<String> = r.queues.iter().map(|q| q.name.clone()).collect();
        match ports.column("output_queue") {
            Some(Column::Str(v)) => assert!(v.iter().all(|x| names.contains(x))),
            other => panic!("{other:?}"),
        }
    }
}

fn crossbar(s: f64, inputs: &str, scheduler: &str) -> String {
    format!(
        "speedup = {s}\ninputs = \"{inputs}\"\ninput_queue = {{ limit_pkts = 50 }}\n\
         fabric = {{ type = \"crossbar\", cell = 125, scheduler = {scheduler} }}\n"
    )
}

/// Saturated uniform traffic through a 2×2 crossbar at speedup 1 with fixed 125-byte
/// packets, one cell each: a phase is a cell slot, and packet mode is the cell model.
/// Each host sends two Poisson flows (one per output, 0.6 Mb/s each, 1.2× the line
/// rate): its access queue stays full, so the switch input receives back to back at R,
/// each packet's output i.i.d. uniform (merged Poisson streams). FIFO inputs under PIM
/// (random HOL contention) give Karol, Hluchyj and Morgan's exact N = 2 saturation
/// throughput 0.75; VOQs under one-iteration iSLIP reach ≈ 1 (McKeown 1999).
#[test]
fn crossbar_matches_cell_switch_theory_with_one_cell_packets() {
    if common::skip_in_debug("crossbar_matches_cell_switch_theory_with_one_cell_packets") {
        return;
    }
    let mut flows = String::new();
    for i in 0..2 {
        for j in 0..2 {
            // Each host also sends to itself's partner output: route h_i -> h_j via sw.
            let dst = 2 + j;
            flows += &format!(
                "[[flows]]\nname = \"f{i}{j}\"\ntype = \"poisson\"\nsrc = \"h{i}\"\n\
                 dst = \"h{dst}\"\npacket_size = 125\nrate = \"600kbps\"\n"
            );
        }
    }
    let sim = "duration = \"210s\"\nwarmup = \"10s\"\nseed = 9";
    // Four hosts: h0, h1 send (input ports 0, 1), h2, h3 receive (output ports 2, 3).
    let texts = [
        star(
            4,
            Some(&crossbar(1.0, "fifo", "{ type = \"pim\" }")),
            "{ limit_pkts = 50 }",
            &flows,
            sim,
        ),
        star(
            4,
            Some(&crossbar(1.0, "voq", "{ type = \"islip\" }")),
            "{ limit_pkts = 50 }",
            &flows,
            sim,
        ),
    ];
    let r = common::run_all(&texts);
    let thr = |r: &RunResults| -> f64 {
        let fab = table(r, "switch_fabric");
        let t = f64s(&fab, "throughput_bps");
        (t[2] + t[3]) / 2.0 / 1e6
    };
    // 200 s of 1000 slots/s per output: the throughput's standard error is a few 1e-3
    // (HOL blocking periods are short, correlated over a few slots); 0.01 is ~3 of them.
    let fifo = thr(&r[0]);
    eprintln!("FIFO + PIM {fifo:.4}, VOQ + iSLIP {:.4}", thr(&r[1]));
    assert!((fifo - 0.75).abs() < 0.01, "FIFO + PIM: {fifo}");
    let voq = thr(&r[1]);
    assert!(voq > 0.98, "VOQ + iSLIP: {voq}");
    let fab = table(&r[1], "switch_fabric");
    assert!(u64s(&fab, "phases")[2] > 100_000);
    let size = f64s(&fab, "mean_match_size")[2];
    assert!(size > 1.0 && size <= 2.0, "{size}");
}

/// `trace_inputs`: the per-VOQ time series. Two independent paths must agree: at every
/// sample, the VOQs for output j summed over the inputs equal CIOQ-RED's q_input(j) on
/// that output's queue (kept by the switch's own backlog counts). Tracing only observes:
/// the run is the same with and without it. FIFO inputs give one series per input.
#[test]
fn traced_voqs_add_up_to_cioq_red_input_backlog() {
    if common::skip_in_debug("traced_voqs_add_up_to_cioq_red_input_backlog") {
        return;
    }
    let cioq =
        "{ type = \"cioq_red\", nu = 0.5, min_th = 5, max_th = 15, w_q = 0.004, max_p = 0.1 }";
    let r = common::run_all(&[
        tcp_switch(cioq, ""),
        tcp_switch(cioq, "trace_inputs = true\n"),
        tcp_switch(cioq, "trace_inputs = true\ninputs = \"fifo\"\n"),
    ]);
    assert_eq!(r[0].flows, r[1].flows);
    assert_eq!(r[0].queues, r[1].queues);
    assert!(r[0]
        .tables()
        .iter()
        .all(|t| t.name != "switch_input_timeseries"));
    let v = table(&r[1], "switch_input_timeseries");
    let times = &r[1].timeseries.time_s;
    assert_eq!(v.len(), 16 * times.len(), "4 x 4 VOQs, one row per sample");
    let (from, to) = match (v.column("from"), v.column("to")) {
        (Some(Column::Str(a)), Some(Column::Str(b))) => (a.clone(), b.clone()),
        other => panic!("{other:?}"),
    };
    let qlen = f64s(&v, "qlen_pkts");
    let mut busy_samples = 0;
    for j in 0..4 {
        let out = format!("sw->h{j}");
        let q_input = r[1]
            .timeseries
            .series()
            .find(|s| s.name == out && s.metric == "q_input")
            .expect("cioq_red records q_input");
        for (t, want) in q_input.values.iter().enumerate() {
            let sum: f64 = (0..v.len())
                .filter(|&row| to[row] == format!("h{j}") && row % times.len() == t)
                .map(|row| qlen[row])
                .sum();
            assert_eq!(sum, *want, "output {j}, sample {t}");
            busy_samples += usize::from(sum > 0.0);
        }
    }
    assert!(
        busy_samples > 100,
        "the inputs hold packets: {busy_samples}"
    );
    assert!((0..v.len()).all(|row| from[row] != to[row] || qlen[row] == 0.0));
    // Cumulative counters: arrivals never fall.
    let arrivals = f64s(&v, "arrivals");
    for k in 0..16 {
        let s = &arrivals[k * times.len()..(k + 1) * times.len()];
        assert!(s.windows(2).all(|w| w[0] <= w[1]), "VOQ {k}");
    }
    let f = table(&r[2], "switch_input_timeseries");
    assert_eq!(f.len(), 4 * r[2].timeseries.time_s.len());
    match f.column("to") {
        Some(Column::Str(v)) => assert!(v.iter().all(|x| x == "*")),
        other => panic!("{other:?}"),
    }
}
