//! PIE's unit tests (a child module of `aqm/pie.rs`, so that file stays under 900 lines).

use super::*;
use crate::aqm::AnyAqm;
use crate::packet::PacketArena;
use crate::queue::{Limit, OutputQueue};

const MS: Time = 1_000_000;

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-12 * b.abs().max(1e-300)
}

/// A PIE whose timestamp estimate is `qdelay` and previous one `old`.
fn at(p: f64, qdelay: Time, old: Time) -> Pie {
    let mut x = Pie::new(PieConfig::default());
    x.p = p;
    x.qdelay = qdelay;
    x.qdelay_old = old;
    x
}

#[test]
fn first_update_from_zero_is_scaled_down_by_2048() {
    // Δp = 0.125·(0.020 − 0.015) + 1.25·(0.020 − 0) = 0.025625; p < 1e-6 → /2048.
    let mut x = at(0.0, 20 * MS, 0);
    x.update(100_000);
    assert!(close(x.p, 0.025625 / 2048.0), "{}", x.p);
    assert_eq!(x.qdelay_old, 20 * MS);
}

#[test]
fn auto_tuning_divides_by_the_magnitude_of_p() {
    // Same Δp = 0.125·0.015 + 1.25·0.010 = 0.014375 at each p, divided by the RFC's
    // factor for that p.
    for (p, div) in [
        (5e-7, 2048.0),
        (5e-6, 512.0),
        (5e-5, 128.0),
        (5e-4, 32.0),
        (5e-3, 8.0),
        (0.05, 2.0),
    ] {
        let mut x = at(p, 30 * MS, 20 * MS);
        x.update(100_000);
        assert!(close(x.p, p + 0.014375 / div), "p={p}: {}", x.p);
    }
    // At 10% and above: no scaling, but a rise is capped at 2 points per update.
    let mut x = at(0.2, 100 * MS, 50 * MS);
    x.update(100_000);
    assert!(close(x.p, 0.22), "{}", x.p);
    // A fall is never capped: 0.125·(0.010 − 0.015) + 1.25·(0.010 − 0.050) = −0.050625.
    let mut x = at(0.3, 10 * MS, 50 * MS);
    x.update(100_000);
    assert!(close(x.p, 0.3 - 0.050625), "{}", x.p);
}

#[test]
fn a_delay_above_250ms_adds_two_points_after_the_cap() {
    // Δp = 0.125·0.285 = 0.035625 → capped to 0.02, then +0.02.
    let mut x = at(0.2, 300 * MS, 300 * MS);
    x.update(1_000_000);
    assert!(close(x.p, 0.24), "{}", x.p);
}

#[test]
fn two_zero_delays_decay_p_by_two_percent() {
    // Δp = 0.125·(−0.015) = −0.001875, then ×0.98 with an empty queue.
    let mut x = at(0.5, 0, 0);
    x.update(0);
    assert!(close(x.p, (0.5 - 0.001875) * 0.98), "{}", x.p);
    // Not with packets waiting (a zero estimate then means "not measured").
    let mut x = at(0.5, 0, 0);
    x.update(3000);
    assert!(close(x.p, 0.5 - 0.001875), "{}", x.p);
}

#[test]
fn p_stays_a_probability() {
    let mut x = at(0.995, 400 * MS, 400 * MS);
    x.update(1_000_000);
    assert_eq!(x.p, 1.0);
    let mut x = at(0.001, 0, 100 * MS);
    x.update(1_000_000);
    assert_eq!(x.p, 0.0);
}

fn view(len_bytes: u64) -> QueueView {
    QueueView::new(
        (len_bytes / 1500) as u32,
        len_bytes,
        Limit::Packets(1000),
        10_000_000,
    )
}

/// Signals among `n` arrivals of `size`-byte `ecn` packets at a fixed p (and no burst
/// allowance): (marks, drops).
fn signals(mut x: Pie, n: usize, size: u32, ecn: Ecn, backlog: u64) -> (usize, usize) {
    let mut rng = Rng::for_component(5, 0, "pie-test");
    let pkt = Packet {
        size,
        ecn,
        ..Default::default()
    };
    let (mut m, mut d) = (0, 0);
    for _ in 0..n {
        match x.on_arrival(&view(backlog), &pkt, 0, &mut rng) {
            Verdict::Mark(_) => m += 1,
            Verdict::Drop(_) => d += 1,
            Verdict::Pass => {}
        }
    }
    (m, d)
}

fn busy(p: f64, cfg: PieConfig) -> Pie {
    let mut x = Pie::new(cfg);
    x.p = p;
    x.qdelay_old = 100 * MS;
    x.burst_allowance = 0;
    x
}

#[test]
fn burst_allowance_lets_everything_in_until_it_runs_out() {
    let mut x = Pie::new(PieConfig::default());
    assert_eq!(x.burst_allowance, 150 * MS);
    x.p = 1.0;
    x.qdelay_old = 100 * MS;
    assert_eq!(signals(x.clone(), 1000, 1500, Ecn::NotEct, 100_000), (0, 0));
    // Ten updates of 15 ms under heavy delay use it up.
    for k in 1..=10 {
        x.qdelay = 100 * MS;
        x.update(100_000);
        assert_eq!(x.burst_allowance, 150 * MS - k * 15 * MS);
    }
    let (_, d) = signals(x, 1000, 1500, Ecn::NotEct, 100_000);
    assert!(d > 900, "{d}");
}

#[test]
fn burst_allowance_is_refilled_when_p_is_zero_and_delay_low_twice() {
    let mut x = at(0.0, MS, MS);
    x.burst_allowance = 0;
    x.update(0);
    assert_eq!(x.burst_allowance, 150 * MS);
    // A previous delay at target/2 is not "low": no refill.
    let mut x = at(0.0, MS, 7_500_000);
    x.burst_allowance = 0;
    x.update(0);
    assert_eq!(x.burst_allowance, 0);
}

#[test]
fn no_early_signal_below_half_target_while_p_is_under_20_percent() {
    let cfg = PieConfig {
        derandomize: false,
        ..PieConfig::default()
    };
    let mut x = busy(0.19, cfg.clone());
    x.qdelay_old = 7_499_999;
    assert_eq!(signals(x.clone(), 2000, 1500, Ecn::NotEct, 100_000), (0, 0));
    // At p = 20% the rule no longer protects: about 20% are dropped.
    x.p = 0.2;
    let (_, d) = signals(x.clone(), 20_000, 1500, Ecn::NotEct, 100_000);
    // Binomial(20000, 0.2): sd 57; 5 sd.
    assert!((d as f64 - 4000.0).abs() < 285.0, "{d}");
    // Nor with fewer than two MTUs waiting, whatever p.
    x.p = 1.0;
    assert_eq!(signals(x, 1000, 1500, Ecn::NotEct, 3027), (0, 0));
}

#[test]
fn ecn_marks_up_to_mark_ecn_th_and_drops_above() {
    let cfg = PieConfig {
        ecn: true,
        derandomize: false,
        ..PieConfig::default()
    };
    let (m, d) = signals(busy(0.1, cfg.clone()), 20_000, 1500, Ecn::Ect0, 100_000);
    assert!(m > 1700 && d == 0, "{m} {d}");
    let (m, d) = signals(busy(0.11, cfg.clone()), 20_000, 1500, Ecn::Ect0, 100_000);
    assert!(m == 0 && d > 1900, "{m} {d}");
    // Not-ECT packets are dropped even at low p.
    let (m, d) = signals(busy(0.1, cfg.clone()), 20_000, 1500, Ecn::NotEct, 100_000);
    assert!(m == 0 && d > 1700, "{m} {d}");
    // A lower threshold is observable.
    let low = PieConfig {
        mark_ecn_th: 0.05,
        ..cfg
    };
    let (m, _) = signals(busy(0.1, low), 20_000, 1500, Ecn::Ect0, 100_000);
    assert_eq!(m, 0);
}

#[test]
fn byte_mode_scales_p_by_size_over_mtu() {
    let cfg = PieConfig {
        byte_mode: true,
        derandomize: false,
        ..PieConfig::default()
    };
    let n = 40_000;
    for size in [500u32, 1500] {
        let (_, d) = signals(busy(0.3, cfg.clone()), n, size, Ecn::NotEct, 100_000);
        let want = 0.3 * size as f64 / 1514.0;
        let sd = (want * (1.0 - want) / n as f64).sqrt();
        let got = d as f64 / n as f64;
        assert!((got - want).abs() < 5.0 * sd, "{size}: {got} vs {want}");
    }
}

#[test]
fn derandomisation_spaces_signals_between_085_and_85_over_p() {
    // p = 0.05: no signal before 17 arrivals (0.85/0.05), always one by 170.
    let mut x = busy(0.05, PieConfig::default());
    let mut rng = Rng::for_component(5, 0, "pie-derand");
    let pkt = Packet {
        size: 1500,
        ..Default::default()
    };
    let mut gaps = vec![];
    let mut since = 0;
    for _ in 0..100_000 {
        since += 1;
        if x.on_arrival(&view(100_000), &pkt, 0, &mut rng) != Verdict::Pass {
            gaps.push(since);
            since = 0;
        }
    }
    // (One more arrival is allowed at each end for the rounding of 17 × 0.05.)
    assert!(gaps.iter().all(|&g| (17..=171).contains(&g)), "{gaps:?}");
    assert!(gaps.len() > 1000);
    // Without it, gaps are geometric: many are shorter than 17.
    let mut y = busy(
        0.05,
        PieConfig {
            derandomize: false,
            ..PieConfig::default()
        },
    );
    let (mut short, mut since) = (0, 0);
    for _ in 0..100_000 {
        since += 1;
        if y.on_arrival(&view(100_000), &pkt, 0, &mut rng) != Verdict::Pass {
            short += (since < 17) as u32;
            since = 0;
        }
    }
    assert!(short > 1000, "{short}");
}

#[test]
fn timestamp_estimate_is_the_last_sojourn_and_zero_when_the_queue_empties() {
    for limit in [Limit::Packets(100), Limit::Bytes(150_000)] {
        let mut a = PacketArena::default();
        let mut q = OutputQueue::new(
            limit,
            10_000_000,
            AnyAqm::Pie(Pie::new(PieConfig::default())),
            Rng::for_component(1, 0, "pie"),
        );
        for t in [0, MS] {
            let i = a.alloc(Packet {
                size: 1500,
                ..Default::default()
            });
            q.arrive(i, &mut a, t);
        }
        let qd = |q: &OutputQueue| match q.aqm() {
            AnyAqm::Pie(p) => p.qdelay,
            _ => unreachable!(),
        };
        q.dequeue(&mut a, 12 * MS, &mut vec![]);
        assert_eq!(qd(&q), 12 * MS);
        q.dequeue(&mut a, 20 * MS, &mut vec![]);
        assert_eq!(qd(&q), 0);
        q.check_conservation(&a).unwrap();
    }
}

#[test]
fn departure_rate_estimate_gives_littles_law_delay() {
    let cfg = PieConfig {
        dq_rate: Some(16_384),
        ..PieConfig::default()
    };
    let mut x = Pie::new(cfg);
    // 1500-byte packets leave every 1.2 ms (10 Mb/s) with 60 000 bytes waiting.
    let pkt = Packet {
        size: 1500,
        ..Default::default()
    };
    let mut rng = Rng::for_component(1, 0, "x");
    for k in 0..200u64 {
        x.on_departure(&view(60_000), &pkt, k * 1_200_000, &mut rng);
    }
    assert!((x.avg_dq_rate - 1.25e6).abs() < 1.0, "{}", x.avg_dq_rate);
    x.update(60_000);
    // 60 000 B at 1.25 MB/s = 48 ms.
    assert!((x.qdelay as i64 - 48_000_000).abs() <= 1, "{}", x.qdelay);
}

// ---------------------------------------------------------------------------------------
// L4S mode (ns-3's UseL4s)
// ---------------------------------------------------------------------------------------

fn l4s(ecn: bool) -> PieConfig {
    PieConfig {
        ecn,
        derandomize: false,
        l4s: Some(MS),
        ..PieConfig::default()
    }
}

#[test]
fn l4s_packets_bypass_the_early_drop_and_classic_ones_follow_p() {
    // p = 0.3, no burst allowance, qdelay_old 100 ms, 100 000 B waiting: every early-drop
    // gate is open. ECT(1) and CE arrivals: no signal at all, even at p = 1. Classic
    // arrivals under the same state: Binomial(20000, 0.3) drops, mean 6000, sd 64.8; 5 sd.
    for ecn in [false, true] {
        for codepoint in [Ecn::Ect1, Ecn::Ce] {
            let s = signals(busy(1.0, l4s(ecn)), 5000, 1500, codepoint, 100_000);
            assert_eq!(s, (0, 0), "ecn={ecn} {codepoint:?}");
        }
        let (m, d) = signals(busy(0.3, l4s(ecn)), 20_000, 1500, Ecn::NotEct, 100_000);
        assert!(m == 0 && (d as f64 - 6000.0).abs() < 324.0, "{m} {d}");
    }
    // ECT(0) is classic: with ecn = false dropped at PIE's rate, with ecn = true marked
    // (p = 0.1 ≤ mark_ecn_th): Binomial(20000, 0.1), mean 2000, sd 42.4; 5 sd.
    let (m, d) = signals(busy(0.1, l4s(false)), 20_000, 1500, Ecn::Ect0, 100_000);
    assert!(m == 0 && (d as f64 - 2000.0).abs() < 212.0, "{m} {d}");
    let (m, d) = signals(busy(0.1, l4s(true)), 20_000, 1500, Ecn::Ect0, 100_000);
    assert!(d == 0 && (m as f64 - 2000.0).abs() < 212.0, "{m} {d}");
    // Without the mode ECT(1) is ECT(0) (RFC 9331 §5): dropped at p = 1.
    let cfg = PieConfig {
        derandomize: false,
        ..PieConfig::default()
    };
    assert_eq!(
        signals(busy(1.0, cfg), 1000, 1500, Ecn::Ect1, 100_000),
        (0, 1000)
    );
}

#[test]
fn l4s_arrivals_leave_the_classic_signals_exactly_as_they_were() {
    // With derandomisation at p = 0.05: classic arrivals alone, and the same classic
    // arrivals each followed by an ECT(1) one, give the same classic verdicts one for one
    // (an L4S arrival takes no draw and adds nothing to the accumulated probability).
    let cfg = PieConfig {
        l4s: Some(MS),
        ..PieConfig::default()
    };
    let classic = Packet {
        size: 1500,
        ..Default::default()
    };
    let scalable = Packet {
        size: 1500,
        ecn: Ecn::Ect1,
        ..Default::default()
    };
    let run = |interleave: bool| {
        let mut x = busy(0.05, cfg.clone());
        let mut rng = Rng::for_component(5, 0, "pie-l4s");
        let mut v = vec![];
        for _ in 0..20_000 {
            v.push(x.on_arrival(&view(100_000), &classic, 0, &mut rng));
            if interleave {
                let before = x.accu_prob;
                assert_eq!(
                    x.on_arrival(&view(100_000), &scalable, 0, &mut rng),
                    Verdict::Pass
                );
                assert_eq!(x.accu_prob, before);
            }
        }
        v
    };
    let alone = run(false);
    assert!(alone.iter().filter(|&&v| v != Verdict::Pass).count() > 100);
    assert_eq!(alone, run(true));
}

#[test]
fn l4s_marks_an_ect1_packet_whose_sojourn_exceeds_ce_threshold() {
    // ce_threshold 1 ms, packet enqueued at 0: leaving at 1 ms + 1 ns is above (marked,
    // Reason::Dequeue), at exactly 1 ms not (ns-3's strict >). ECT(0) and Not-ECT are
    // never step-marked; CE stays CE (Pass); without the mode ECT(1) is not either.
    let mut rng = Rng::for_component(1, 0, "x");
    let pkt = |ecn| Packet {
        size: 1500,
        ecn,
        ..Default::default()
    };
    let dep = |cfg: PieConfig, ecn, now| {
        let mut x = Pie::new(cfg);
        x.on_departure(&view(3000), &pkt(ecn), now, &mut rng.clone())
    };
    let mark = Verdict::Mark(Reason::Dequeue);
    assert_eq!(dep(l4s(false), Ecn::Ect1, MS + 1), mark);
    assert_eq!(dep(l4s(true), Ecn::Ect1, MS + 1), mark);
    assert_eq!(dep(l4s(false), Ecn::Ect1, MS), Verdict::Pass);
    for ecn in [Ecn::Ect0, Ecn::NotEct, Ecn::Ce] {
        assert_eq!(dep(l4s(true), ecn, 100 * MS), Verdict::Pass, "{ecn:?}");
    }
    assert_eq!(
        dep(PieConfig::default(), Ecn::Ect1, 100 * MS),
        Verdict::Pass
    );
    // A larger threshold is observable: 5 ms leaves a 2 ms sojourn unmarked.
    let five = PieConfig {
        l4s: Some(5 * MS),
        ..l4s(false)
    };
    assert_eq!(dep(five.clone(), Ecn::Ect1, 2 * MS), Verdict::Pass);
    assert_eq!(dep(five, Ecn::Ect1, 5 * MS + 1), mark);
    // The departing L4S packet still feeds the delay estimate (ns-3 skips it): 12 ms.
    let mut x = Pie::new(l4s(false));
    x.on_departure(&view(3000), &pkt(Ecn::Ect1), 12 * MS, &mut rng);
    assert_eq!(x.qdelay, 12 * MS);
}

#[test]
fn l4s_step_marks_go_through_the_queue_as_dequeue_marks() {
    // Through an output queue: an ECT(1) and an ECT(0) packet enqueued at 0 leave at 2 ms
    // and 3 ms (sojourns above 1 ms): the first leaves CE, counted as one Dequeue mark; the
    // second keeps ECT(0). Burst allowance (150 ms) keeps PIE's own arrivals quiet.
    for limit in [Limit::Packets(100), Limit::Bytes(150_000)] {
        let mut a = PacketArena::default();
        let mut q = OutputQueue::new(
            limit,
            10_000_000,
            AnyAqm::Pie(Pie::new(l4s(true))),
            Rng::for_component(1, 0, "pie"),
        );
        let mut ids = vec![];
        for ecn in [Ecn::Ect1, Ecn::Ect0] {
            let i = a.alloc(Packet {
                size: 1500,
                ecn,
                ..Default::default()
            });
            q.arrive(i, &mut a, 0);
            ids.push(i);
        }
        assert_eq!(q.dequeue(&mut a, 2 * MS, &mut vec![]), Some(ids[0]));
        assert_eq!(q.dequeue(&mut a, 3 * MS, &mut vec![]), Some(ids[1]));
        assert_eq!(a.get(ids[0]).ecn, Ecn::Ce);
        assert_eq!(a.get(ids[1]).ecn, Ecn::Ect0);
        assert_eq!(q.counters.marked[Reason::Dequeue as usize], 1);
        assert_eq!(q.counters.marked[Reason::Early as usize], 0);
        q.check_conservation(&a).unwrap();
    }
}

fn ctx() -> QueueCtx<'static> {
    QueueCtx {
        limit_pkts: Some(100),
        limit_bytes: None,
        link_bps: 10_000_000,
        nodes: &[],
        hosts: &[],
    }
}

fn problems(text: &str) -> Vec<(String, String)> {
    let spec: PieSpec = toml::from_str(text).unwrap();
    let mut p = Problems::default();
    spec.validate("aqm", &ctx(), &mut p);
    p.errors.into_iter().map(|e| (e.path, e.value)).collect()
}

#[test]
fn l4s_spec_defaults_and_checks() {
    let on: PieSpec = toml::from_str("l4s = true").unwrap();
    assert_eq!(on.build(&ctx()).cfg.l4s, Some(MS));
    let given: PieSpec = toml::from_str("l4s = true\nce_threshold = \"2ms\"").unwrap();
    assert_eq!(given.build(&ctx()).cfg.l4s, Some(2 * MS));
    let off: PieSpec = toml::from_str("").unwrap();
    assert_eq!(off.build(&ctx()).cfg.l4s, None);
    // Off is not echoed (canonical forms unchanged); on is.
    assert!(!toml::to_string(&off).unwrap().contains("l4s"));
    assert!(toml::to_string(&on).unwrap().contains("l4s = true"));
    assert!(problems("l4s = true\necn = false").is_empty());
    assert_eq!(
        problems("ce_threshold = \"1ms\""),
        [("aqm.ce_threshold".into(), "\"1ms\"".into())]
    );
    assert_eq!(
        problems("l4s = true\nce_threshold = \"0ns\""),
        [("aqm.ce_threshold".into(), "\"0ns\"".into())]
    );
}
