//! BLUE and SFB in the engine: TCP flows through one bottleneck, each AQM against DropTail
//! with the same buffer, in packet mode and in byte mode (docs/validation.md: every AQM test
//! runs in both).
//!
//! Release only (`cargo test --release -p aqmlab-core --test aqm_blue_sfb -- --nocapture`
//! prints every figure): a few seconds on a 2-core machine. A debug build skips the runs.

mod common;

use aqmlab_core::sim::{QueueSummary, RunResults};
use common::{run_all, skip_in_debug};

fn bottleneck(r: &RunResults) -> &QueueSummary {
    common::queue(r, "r->dst")
}

/// `n` NewReno flows (staggered by 100 ms) from their own hosts through r -> dst at
/// 10 Mb/s, 20 ms; 1000-byte packets; optionally one CBR flow of `cbr` from its own host.
/// `limit` is the bottleneck queue's limit field, `aqm` its AQM table.
fn dumbbell(
    bw: &str,
    n: usize,
    ecn: bool,
    cbr: Option<&str>,
    limit: &str,
    aqm: &str,
    secs: u64,
) -> String {
    let mut s = common::dumbbell(
        &format!("duration = \"{secs}s\"\nwarmup = \"10s\"\nseed = 11"),
        bw,
        "20ms",
        &format!("{{ {limit}, aqm = {aqm} }}"),
    );
    for i in 0..n {
        s.sender(&format!("s{i}"), "1ms", 100_000);
    }
    if cbr.is_some() {
        s.sender("u", "1ms", 100_000);
    }
    for i in 0..n {
        s.toml(&format!(
            r#"
[[flows]]
name = "tcp{i}"
type = "tcp"
variant = "newreno"
src = "s{i}"
dst = "dst"
packet_size = 1000
ecn = {ecn}
start = "{}ms"
"#,
            100 * i
        ));
    }
    if let Some(rate) = cbr {
        s.toml(&format!(
            r#"
[[flows]]
name = "cbr"
type = "cbr"
src = "u"
dst = "dst"
packet_size = 1000
rate = "{rate}"
"#
        ));
    }
    s.text()
}

/// Overflow drops as a fraction of the bottleneck's arrivals in the measurement window.
fn overflow_fraction(q: &QueueSummary) -> f64 {
    q.dropped[0] as f64 / q.arrivals as f64
}

/// The BLUE paper's headline: with ECN, BLUE learns a marking rate that keeps a small
/// buffer from overflowing. 100 ECN NewReno flows on 100 Mb/s (RTT ≈ 42 ms, BDP ≈ 525
/// packets) with a 50-packet (50 000-byte) buffer, defaults of the ns-3 port (δ1 0.0025,
/// δ2 0.00025, freeze 100 ms). Over 30 s after a 10 s warm-up, BLUE's overflow loss must
/// be under 0.5% of arrivals and under a fifth of DropTail's, with the link at least 95%
/// busy and busier than with DropTail. Measured (packet and byte mode alike, all packets
/// being 1000 B): BLUE 0.088% loss, utilisation 0.975, p_m ≈ 0.04; DropTail 2.98% loss,
/// utilisation 0.887.
#[test]
fn blue_with_ecn_avoids_overflow_loss_with_many_flows_and_a_small_buffer() {
    if skip_in_debug("blue_with_ecn_avoids_overflow_loss") {
        return;
    }
    let blue_pkts = r#"{ type = "blue", ecn = true }"#;
    let blue_bytes = r#"{ type = "blue", ecn = true, byte_mode = true }"#;
    let dt = r#"{ type = "droptail" }"#;
    let texts = [
        dumbbell("100Mbps", 100, true, None, "limit_pkts = 50", blue_pkts, 40),
        dumbbell(
            "100Mbps",
            100,
            true,
            None,
            r#"limit_bytes = "50000B""#,
            blue_bytes,
            40,
        ),
        dumbbell("100Mbps", 100, true, None, "limit_pkts = 50", dt, 40),
    ];
    let rs = run_all(&texts);
    let dt_loss = overflow_fraction(bottleneck(&rs[2]));
    let dt_util = bottleneck(&rs[2]).utilization;
    for (label, r) in [("packet", &rs[0]), ("byte", &rs[1])] {
        let q = bottleneck(r);
        let loss = overflow_fraction(q);
        let marks: u64 = q.marked.iter().sum();
        let p_m = r
            .timeseries
            .series()
            .find(|s| s.name == "r->dst" && s.metric == "p_m")
            .expect("p_m series");
        let p_end = *p_m.values.last().unwrap();
        println!(
            "BLUE {label} mode: overflow loss {:.4}% (DropTail {:.4}%), early drops {}, \
             marks {marks} of {} arrivals, p_m at the end {p_end:.4}, utilisation {:.4} \
             (DropTail {dt_util:.4}), mean queue {:.1} packets",
            100.0 * loss,
            100.0 * dt_loss,
            q.dropped[1],
            q.arrivals,
            q.utilization,
            q.mean_queue_pkts
        );
        assert!(loss < 0.005, "{label}: overflow loss {loss}");
        assert!(
            loss < dt_loss / 5.0,
            "{label}: {loss} vs DropTail {dt_loss}"
        );
        assert!(marks > 0 && p_end > 0.0);
        assert!(q.utilization >= 0.95, "{label}: {}", q.utilization);
        assert!(
            q.utilization > dt_util,
            "{label}: {} vs {dt_util}",
            q.utilization
        );
    }
}

/// SFB's purpose: a CBR flow at 2× the link rate (20 Mb/s on 10 Mb/s) against 4 ECN
/// NewReno flows, 200-packet buffer, 30 s after a 10 s warm-up. With DropTail the CBR
/// takes the whole link (TCP share measured 0.000; required < 0.25). SFB (Linux defaults)
/// confines the CBR to its bins, whose p settles near 1 without reaching it (so the penalty
/// bucket stays idle, see docs/aqm/sfb.md): the TCP flows together must get at least 60%
/// of the link and the CBR at most 40%. Measured 0.659 and 0.332 in packet and byte mode
/// (identical: every packet through the bottleneck is 1000 B).
#[test]
fn sfb_protects_tcp_flows_from_a_cbr_flow_at_twice_capacity() {
    if skip_in_debug("sfb_protects_tcp_flows") {
        return;
    }
    let texts = [
        dumbbell(
            "10Mbps",
            4,
            true,
            Some("20Mbps"),
            "limit_pkts = 200",
            r#"{ type = "sfb" }"#,
            40,
        ),
        dumbbell(
            "10Mbps",
            4,
            true,
            Some("20Mbps"),
            r#"limit_bytes = "200000B""#,
            r#"{ type = "sfb", byte_mode = true }"#,
            40,
        ),
        dumbbell(
            "10Mbps",
            4,
            true,
            Some("20Mbps"),
            "limit_pkts = 200",
            r#"{ type = "droptail" }"#,
            40,
        ),
    ];
    let rs = run_all(&texts);
    let share = |r: &RunResults| {
        let tcp: f64 = r
            .flows
            .iter()
            .filter(|f| f.kind == "tcp")
            .map(|f| f.goodput_bps)
            .sum();
        let cbr: f64 = r
            .flows
            .iter()
            .filter(|f| f.kind != "tcp")
            .map(|f| f.goodput_bps)
            .sum();
        (tcp / 10e6, cbr / 10e6)
    };
    let (dt_tcp, dt_cbr) = share(&rs[2]);
    println!("DropTail: TCP share {dt_tcp:.3}, CBR share {dt_cbr:.3}");
    assert!(dt_tcp < 0.25, "DropTail TCP share {dt_tcp}");
    for (label, r) in [("packet", &rs[0]), ("byte", &rs[1])] {
        let (tcp, cbr) = share(r);
        let q = bottleneck(r);
        let last = |m: &str| {
            *r.timeseries
                .series()
                .find(|s| s.name == "r->dst" && s.metric == m)
                .unwrap_or_else(|| panic!("{m} series"))
                .values
                .last()
                .unwrap()
        };
        println!(
            "SFB {label} mode: TCP share {tcp:.3}, CBR share {cbr:.3}; drops early {} \
             forced {} overflow {}, marks {}; p_max {:.4}, penalised {}, penalty drops {}, \
             bucket drops {}",
            q.dropped[1],
            q.dropped[2],
            q.dropped[0],
            q.marked.iter().sum::<u64>(),
            last("p_max"),
            last("penalised"),
            last("penalty_drops"),
            last("bucket_drops"),
        );
        assert!(tcp >= 0.6, "{label}: TCP share {tcp}");
        assert!(cbr <= 0.4, "{label}: CBR share {cbr}");
        assert!(q.utilization >= 0.95, "{label}: {}", q.utilization);
    }
}
