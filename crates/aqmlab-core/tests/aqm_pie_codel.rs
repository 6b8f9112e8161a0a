//! CoDel, PIE and FQ-CoDel in closed loop with TCP (docs/aqm/codel.md, pie.md, fq_codel.md).
//!
//! A dumbbell: each flow's host reaches router `r` over its own 1 Gb/s access link (whose
//! delay sets the flow's RTT), and `r` reaches `dst` over the 10 Mb/s, 10 ms bottleneck
//! whose output queue `r->dst` runs the AQM under test. The buffer is large (2000 packets
//! of 1000 B, 1.6 s at 10 Mb/s) or its byte equivalent, so DropTail would sit near it while
//! a delay-controlling AQM holds the sojourn near its target. Every test runs with a packet
//! limit and with a byte limit (docs/validation.md: every AQM test runs in both modes).
//!
//! Release only: about 2 s of wall time on a 2-core machine; a debug build skips the runs.

mod common;

use aqmlab_core::sim::{QueueSummary, RunResults};
use common::{run, skip_in_debug};

const BOTTLENECK: &str = "r->dst";
const LIMITS: [&str; 2] = ["limit_pkts = 2000", "limit_bytes = \"2000000B\""];

/// One flow of the dumbbell: its access-link delay (ms) and its traffic table body.
struct Flow {
    access_ms: u64,
    body: String,
}

fn tcp(access_ms: u64) -> Flow {
    Flow {
        access_ms,
        body: "type = \"tcp\"\nvariant = \"newreno\"\npacket_size = 1000\n".into(),
    }
}

fn cbr(access_ms: u64, rate: &str) -> Flow {
    Flow {
        access_ms,
        body: format!("type = \"cbr\"\nrate = \"{rate}\"\npacket_size = 1000\n"),
    }
}

fn dumbbell(limit: &str, aqm: &str, flows: &[Flow], duration_s: u64, warmup_s: u64) -> String {
    let mut s = common::dumbbell(
        &format!("duration = \"{duration_s}s\"\nwarmup = \"{warmup_s}s\"\nseed = 3"),
        "10Mbps",
        "10ms",
        &format!("{{ {limit}, aqm = {aqm} }}"),
    );
    s.reverse_queue("{ limit_pkts = 100000 }");
    for (i, f) in flows.iter().enumerate() {
        s.sender(&format!("s{i}"), &format!("{}ms", f.access_ms), 100_000)
            .toml(&format!(
                "[[flows]]\nname = \"f{i}\"\nsrc = \"s{i}\"\ndst = \"dst\"\nstart = \"{}ms\"\n{}",
                i * 100,
                f.body
            ));
    }
    s.text()
}

fn bottleneck(r: &RunResults) -> &QueueSummary {
    r.queues.iter().find(|q| q.name == BOTTLENECK).unwrap()
}

fn jain(x: &[f64]) -> f64 {
    let s: f64 = x.iter().sum();
    let s2: f64 = x.iter().map(|v| v * v).sum();
    s * s / (x.len() as f64 * s2)
}

/// Five TCP flows with base RTTs from 24 to 64 ms.
fn five_tcp() -> Vec<Flow> {
    [2, 7, 12, 17, 22].into_iter().map(tcp).collect()
}

#[test]
fn droptail_sits_near_its_buffer_where_codel_holds_the_sojourn_near_target() {
    if skip_in_debug("codel") {
        return;
    }
    for limit in LIMITS {
        let dt = run(&dumbbell(
            limit,
            "{ type = \"droptail\" }",
            &five_tcp(),
            40,
            10,
        ));
        let dt = bottleneck(&dt);
        let cd = run(&dumbbell(
            limit,
            "{ type = \"codel\" }",
            &five_tcp(),
            40,
            10,
        ));
        let cd = bottleneck(&cd);
        eprintln!(
            "{limit}: droptail mean sojourn {:.4} s, codel {:.4} s (p99 {:.4}), utilisation {:.4}, dequeue drops {}",
            dt.mean_sojourn_s, cd.mean_sojourn_s, cd.p99_sojourn_s, cd.utilization, cd.dropped[3]
        );
        // DropTail: a standing queue of a large part of the 1.6 s buffer.
        assert!(dt.mean_sojourn_s > 0.5, "{limit}: {}", dt.mean_sojourn_s);
        // CoDel: mean sojourn within [0.5, 3] × target (5 ms), link still busy.
        assert!(
            (0.0025..0.015).contains(&cd.mean_sojourn_s),
            "{limit}: codel mean sojourn {}",
            cd.mean_sojourn_s
        );
        assert!(cd.utilization > 0.9, "{limit}: {}", cd.utilization);
        assert!(cd.dropped[3] > 0 && cd.dropped[0] == 0);
    }
}

#[test]
fn pie_holds_the_mean_sojourn_near_its_target_with_either_delay_estimator() {
    if skip_in_debug("pie") {
        return;
    }
    for limit in LIMITS {
        for aqm in [
            "{ type = \"pie\" }",
            "{ type = \"pie\", dq_rate_estimator = true }",
        ] {
            let r = run(&dumbbell(limit, aqm, &five_tcp(), 40, 10));
            let q = bottleneck(&r);
            let p = r
                .timeseries
                .series()
                .find(|s| s.name == BOTTLENECK && s.metric == "p")
                .unwrap();
            let p_mean = p.values.iter().sum::<f64>() / p.values.len() as f64;
            eprintln!(
                "{limit} {aqm}: mean sojourn {:.4} s (p99 {:.4}), utilisation {:.4}, early drops {}, overflow {}, mean p {:.4}",
                q.mean_sojourn_s, q.p99_sojourn_s, q.utilization, q.dropped[1], q.dropped[0], p_mean
            );
            // Target 15 ms: mean sojourn within [0.5, 2] × target, link busy, no overflow.
            assert!(
                (0.0075..0.030).contains(&q.mean_sojourn_s),
                "{limit} {aqm}: mean sojourn {}",
                q.mean_sojourn_s
            );
            assert!(q.utilization > 0.9, "{limit} {aqm}: {}", q.utilization);
            assert!(q.dropped[1] > 0 && q.dropped[0] == 0);
        }
    }
}

#[test]
fn fq_codel_isolates_a_tcp_flow_from_an_unresponsive_flow_at_twice_capacity() {
    if skip_in_debug("fq_codel isolation") {
        return;
    }
    for limit in LIMITS {
        let flows = [tcp(12), cbr(2, "20Mbps")];
        let dt = run(&dumbbell(limit, "{ type = \"droptail\" }", &flows, 30, 5));
        let fq = run(&dumbbell(limit, "{ type = \"fq_codel\" }", &flows, 30, 5));
        let q = bottleneck(&fq);
        eprintln!(
            "{limit}: TCP goodput droptail {:.3} Mb/s, fq_codel {:.3} Mb/s (mean delay {:.4} s); \
             CBR {:.3} Mb/s; bottleneck overflow drops {}, codel drops {}, utilisation {:.4}",
            dt.flows[0].goodput_bps / 1e6,
            fq.flows[0].goodput_bps / 1e6,
            fq.flows[0].mean_delay_s,
            fq.flows[1].throughput_bps / 1e6,
            q.dropped[0],
            q.dropped[3],
            q.utilization
        );
        assert_eq!(q.aqm, "fq_codel");
        // DropTail: the CBR flow takes nearly everything.
        assert!(dt.flows[0].goodput_bps < 1e6);
        // FQ-CoDel: the TCP flow gets most of its half of 10 Mb/s (> 3.5 Mb/s; a lone Reno
        // flow under CoDel leaves part of its share to the other flow after each halving,
        // which the work-conserving scheduler gives to the CBR flow) and the link stays busy.
        assert!(fq.flows[0].goodput_bps > 3.5e6, "{limit}");
        assert!(q.utilization > 0.99, "{limit}");
    }
}

#[test]
fn fq_codel_shares_fairly_between_tcp_flows_of_different_rtts() {
    if skip_in_debug("fq_codel fairness") {
        return;
    }
    for limit in LIMITS {
        // Base RTTs 24, 64, 104, 144 ms.
        let flows: Vec<Flow> = [2, 12, 22, 32].into_iter().map(tcp).collect();
        let mut out = vec![];
        for aqm in ["{ type = \"droptail\" }", "{ type = \"fq_codel\" }"] {
            let r = run(&dumbbell(limit, aqm, &flows, 60, 10));
            let g: Vec<f64> = r.flows.iter().map(|f| f.goodput_bps).collect();
            eprintln!("{limit} {aqm}: goodputs {g:.0?}, Jain {:.4}", jain(&g));
            out.push((jain(&g), bottleneck(&r).mean_sojourn_s));
        }
        let (fq_jain, fq_sojourn) = out[1];
        assert!(fq_jain > 0.99, "{limit}: {fq_jain}");
        // And with a short queue: per-flow CoDel keeps the mean sojourn under 3 × target.
        assert!(fq_sojourn < 0.015, "{limit}: {fq_sojourn}");
    }
}
