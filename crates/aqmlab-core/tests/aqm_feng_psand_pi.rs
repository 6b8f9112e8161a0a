//! Engine-level behaviour of self-configuring RED (Feng), PSAND and PI with TCP flows
//! through one bottleneck (docs/aqm/feng.md, psand.md, pi.md). The unit tests next to each
//! AQM check its equations exactly; these check that, wired into the engine with real
//! congestion control, each one does what it is for. Every case runs in packet and byte
//! mode (docs/validation.md): all packets have the AQM's mean_pktsize, so byte mode must give
//! the same run up to float rounding, which each test asserts. Seeded, so the numbers are
//! reproducible; the tolerances are stated with each assertion.

mod common;

use aqmlab_core::sim::{RunResults, Series};
use common::run;

/// `n` NewReno flows s_i → r → dst, the i-th starting at `start(i)` ms; bottleneck r→dst
/// of `bw` with a `limit`-packet buffer (byte mode: limit × 1000 bytes) and the given AQM
/// table; 1000-byte segments; RTT ≈ 2·(1 + `delay_ms`) ms plus queueing.
#[allow(clippy::too_many_arguments)]
fn dumbbell(
    n: usize,
    start: impl Fn(usize) -> u64,
    bw: &str,
    delay_ms: u32,
    limit: u32,
    aqm: &str,
    duration_s: u32,
    byte_mode: bool,
) -> String {
    let queue = if byte_mode {
        format!("limit_bytes = {}", limit as u64 * 1000)
    } else {
        format!("limit_pkts = {limit}")
    };
    let mut s = common::dumbbell(
        &format!(
            "duration = \"{duration_s}s\"\nwarmup = \"0s\"\nseed = 11\nsample_interval = \"100ms\""
        ),
        bw,
        &format!("{delay_ms}ms"),
        &format!("{{ {queue}, aqm = {aqm} }}"),
    );
    s.reverse_queue("{ limit_pkts = 10000 }");
    for i in 0..n {
        // Slightly different RTTs break phase locking.
        s.sender(
            &format!("s{i}"),
            &format!("{}us", 1000 + 37 * i as u64),
            10_000,
        )
        .toml(&format!(
            r#"
[[flows]]
name = "f{i}"
type = "tcp"
variant = "newreno"
src = "s{i}"
dst = "dst"
packet_size = 1000
start = "{}ms"
"#,
            start(i)
        ));
    }
    s.text()
}

fn series<'a>(r: &'a RunResults, metric: &str) -> Series<'a> {
    r.timeseries
        .series()
        .find(|s| s.name == "r->dst" && s.metric == metric)
        .unwrap_or_else(|| {
            let names: Vec<_> = r.timeseries.series().map(|s| (s.name, s.metric)).collect();
            panic!("no series r->dst {metric}; have {names:?}")
        })
}

/// Mean of a sampled series over [from_s, to_s).
fn mean_over(r: &RunResults, metric: &str, from_s: f64, to_s: f64) -> f64 {
    let s = series(r, metric);
    let v: Vec<f64> = r
        .timeseries
        .time_s
        .iter()
        .zip(s.values)
        .filter(|(t, _)| **t >= from_s && **t < to_s)
        .map(|(_, v)| *v)
        .collect();
    assert!(!v.is_empty());
    v.iter().sum::<f64>() / v.len() as f64
}

/// Packet mode's numbers are kept; byte mode's must equal them up to float rounding
/// (relative 1e-9: an average kept in bytes rounds differently from one in packets).
fn same_in_both_modes(first: &mut Option<[f64; 3]>, now: [f64; 3]) {
    match first {
        None => *first = Some(now),
        Some(f) => {
            for (a, b) in f.iter().zip(now) {
                assert!(
                    (a - b).abs() <= 1e-9 * a.abs().max(1e-12),
                    "byte mode differs from packet mode: {f:?} vs {now:?}"
                );
            }
        }
    }
}

/// In byte mode the RED average is in bytes; the tests compare packets.
fn pkts(byte_mode: bool) -> f64 {
    if byte_mode {
        1000.0
    } else {
        1.0
    }
}

/// 5 flows for 15 s, then 45 more: each excursion above max_th doubles max_p, so max_p
/// after the crowd arrives must be well above its level with 5 flows (it can only change
/// by the factors 2 and 1/3, so "well above" means at least one net doubling).
#[test]
fn feng_max_p_rises_when_many_flows_start() {
    let mut first = None;
    for byte_mode in [false, true] {
        let aqm =
            format!(r#"{{ type = "feng_red", byte_mode = {byte_mode}, mean_pktsize = 1000 }}"#);
        let r = run(&dumbbell(
            50,
            |i| if i < 5 { 0 } else { 15_000 + 10 * i as u64 },
            "10Mbps",
            20,
            100,
            &aqm,
            30,
            byte_mode,
        ));
        let few = mean_over(&r, "max_p", 10.0, 15.0);
        let many = mean_over(&r, "max_p", 25.0, 30.0);
        let avg_many = mean_over(&r, "avg", 25.0, 30.0) / pkts(byte_mode);
        let status: Vec<f64> = series(&r, "status").values.to_vec();
        println!(
            "feng byte_mode={byte_mode}: mean max_p 5 flows {few:.4}, 50 flows {many:.4}; \
             avg with 50 flows {avg_many:.2} packets; status values seen {:?}",
            {
                let mut s = status.clone();
                s.sort_by(f64::total_cmp);
                s.dedup();
                s
            }
        );
        assert!(many >= 2.0 * few, "max_p {few} -> {many}");
        same_in_both_modes(&mut first, [few, many, avg_many]);
        assert!(status.iter().all(|s| [-1.0, 0.0, 1.0].contains(s)));
    }
}

/// PSAND with the paper's parameters (K_T = 10, coef 1.75, γ 1.5, thresholds 0/20 from
/// B = 100): once adapted, β ≈ 1 needs K_cur/K_T ≈ (1/coef)^(1/γ) = 0.689, so the mean
/// average queue over the last 20 s must lie in the region below the target, [4, 10]
/// packets (the fixed point 6.9 ± the oscillation of a 0.5 s controller), and max_p must
/// be inside its bounds, not pinned at one of them.
#[test]
fn psand_average_settles_below_the_target_near_the_fixed_point() {
    let mut first = None;
    for byte_mode in [false, true] {
        let aqm = format!(r#"{{ type = "psand", byte_mode = {byte_mode} }}"#);
        let r = run(&dumbbell(
            20,
            |i| 50 * i as u64,
            "10Mbps",
            20,
            100,
            &aqm,
            30,
            byte_mode,
        ));
        let avg = mean_over(&r, "avg", 10.0, 30.0) / pkts(byte_mode);
        let max_p = mean_over(&r, "max_p", 10.0, 30.0);
        let q = r.queues.iter().find(|q| q.name == "r->dst").unwrap();
        println!(
            "psand byte_mode={byte_mode}: mean avg {avg:.2} packets (fixed point 6.89), \
             mean max_p {max_p:.4}, mean queue {:.2} packets, utilization {:.4}",
            q.mean_queue_pkts, q.utilization
        );
        assert!((4.0..=10.0).contains(&avg), "avg {avg}");
        same_in_both_modes(&mut first, [avg, max_p, q.mean_queue_pkts]);
        assert!(max_p > 0.01 && max_p < 0.75, "max_p {max_p}");
    }
}

/// PI with ns-2's default gains and q_ref = 50 near the paper's design point: C = 3750
/// packets/s (30 Mb/s of 1000-byte packets), 60 flows, RTT ≈ 0.244 s + queueing (design:
/// R⁺ = 0.246 s), buffer 200 packets. The integral term
/// removes the steady-state error, so the mean sampled queue over the last 20 s must be within
/// 20% of q_ref (the queue oscillates by tens of packets around it). The first 20 s are
/// the integrator's wind-up from the slow-start overshoot.
#[test]
fn pi_holds_the_mean_queue_near_q_ref() {
    let mut first = None;
    for byte_mode in [false, true] {
        let aqm = format!(r#"{{ type = "pi", byte_mode = {byte_mode}, mean_pktsize = 1000 }}"#);
        let r = run(&dumbbell(
            60,
            |i| 20 * i as u64,
            "30Mbps",
            120,
            200,
            &aqm,
            40,
            byte_mode,
        ));
        let q = r.queues.iter().find(|q| q.name == "r->dst").unwrap();
        let p = mean_over(&r, "p", 20.0, 40.0);
        let q_s = mean_over(&r, "q_old", 20.0, 40.0);
        println!(
            "pi byte_mode={byte_mode}: mean queue {:.2} packets (q_ref 50), sampled q {q_s:.2}, \
             mean p {p:.4}, utilization {:.4}",
            q.mean_queue_pkts, q.utilization
        );
        assert!((q_s - 50.0).abs() < 10.0, "sampled queue {q_s}");
        assert!(p > 0.0 && p < 1.0);
        same_in_both_modes(&mut first, [p, q_s, q.mean_queue_pkts]);
    }
}
