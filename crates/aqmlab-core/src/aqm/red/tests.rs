use super::*;
use crate::aqm::Limit;

fn cfg(rule: CountRule) -> RedConfig {
    RedConfig {
        min_th: 5.0,
        max_th: 15.0,
        max_p: 0.2,
        w_q: Some(0.0), // frozen average: the marked fraction depends on the rule only
        gentle: false,
        count_rule: rule,
        byte_mode: false,
        mean_pktsize: 1000,
        ecn: false,
        mark_above_max_th: false,
        ns2_qlen_guard: false,
    }
}

fn view(len: u32) -> QueueView {
    QueueView::new(len, len as u64 * 1000, Limit::Packets(100), 10_000_000)
}

fn pkt() -> Packet {
    Packet {
        size: 1000,
        ..Default::default()
    }
}

/// docs/validation.md: the marked fraction at a frozen p_b, for each spacing rule, within four
/// standard deviations of a renewal process with the rule's gap distribution (gaps
/// uniform on an interval of 1/p_b integers: variance ((1/p_b)² − 1)/12).
#[test]
fn count_rules_give_the_tabulated_marked_fractions() {
    let n = 1_000_000u64;
    for (rule, fraction) in [
        (
            CountRule::Uniform,
            (|p: f64| 2.0 * p / (1.0 + p)) as fn(f64) -> f64,
        ),
        (CountRule::Ns2, |p| 2.0 * p),
        // dsRED: P(gap > n) = (1 − (n+1)p_b)/(1 − p_b), a uniform gap on 1..1/p_b − 1.
        (CountRule::Dsred, |p| 2.0 * p),
        (CountRule::Ns2Wait, |p| 2.0 * p / (3.0 - p)),
        (CountRule::Independent, |p| p),
    ] {
        for p_b in [0.02, 0.05, 0.1] {
            let mut red = Red::new(cfg(rule), 10_000_000);
            red.est.avg = 5.0 + p_b / 0.2 * 10.0;
            let mut rng = Rng::for_component(1, 0, "red-test");
            let marks = (0..n)
                .filter(|_| red.on_arrival(&view(10), &pkt(), 0, &mut rng) != Verdict::Pass)
                .count() as f64;
            let expect = fraction(p_b);
            let mean_gap = 1.0 / expect;
            let var_gap = if rule == CountRule::Independent {
                (1.0 - p_b) / (p_b * p_b)
            } else {
                ((1.0 / p_b).powi(2) - 1.0) / 12.0
            };
            let sd = (var_gap / (mean_gap.powi(3) * n as f64)).sqrt();
            let got = marks / n as f64;
            assert!(
                (got - expect).abs() < 4.0 * sd,
                "{rule:?} p_b={p_b}: {got} vs {expect} (sd {sd:.2e})"
            );
        }
    }
}

#[test]
fn the_table_values_are_the_formulas() {
    let table: [(f64, f64, f64, f64); 3] = [
        (0.02, 0.039216, 0.04, 0.013423),
        (0.05, 0.095238, 0.1, 0.033898),
        (0.1, 0.181818, 0.2, 0.068966),
    ];
    for (p, fj, ns2, wait) in table {
        assert!((2.0 * p / (1.0 + p) - fj).abs() < 5e-7);
        assert!((2.0 * p - ns2).abs() < 5e-7);
        assert!((2.0 * p / (3.0 - p) - wait).abs() < 5e-7);
    }
}

/// docs/validation.md, "Regressions": 1000 s idle on a 10 Gb/s link decays avg in O(1), exactly
/// avg0·(1 − w_q)^m with m = idle × C.
#[test]
fn long_idle_period_decays_the_average_in_constant_time() {
    let mut c = cfg(CountRule::Uniform);
    c.w_q = Some(0.002);
    let mut red = Red::new(c, 10_000_000_000);
    red.est.avg = 100.0;
    red.on_idle(0);
    let mut rng = Rng::for_component(1, 0, "t");
    let t0 = 1000 * NS_PER_SEC;
    red.on_arrival(&view(0), &pkt(), t0, &mut rng);
    let m = 1000.0 * 10e9 / 8000.0;
    assert_eq!(red.est.avg, 100.0 * libm::pow(0.998, m));
    // A short idle decays by the exact power too.
    red.est.avg = 50.0;
    red.on_idle(t0);
    red.on_arrival(&view(0), &pkt(), t0 + 8_000, &mut rng); // 8 µs = 10 packet times
    assert_eq!(red.est.avg, 50.0 * libm::pow(0.998, 10.0));
}

/// The arrival path's shortcuts (no floor or `pow` for an idle gap under one packet
/// time, no decision call below min_th) leave avg bit for bit what the paper's formula
/// gives, evaluated as before they existed: an EWMA step at each busy arrival and
/// avg·(1 − w_q)^floor(gap·C) after each idle gap, whole packet times 0, 1 or more.
#[test]
fn idle_gaps_under_and_over_one_packet_time_decay_avg_bit_for_bit() {
    let mut c = cfg(CountRule::Ns2Wait);
    c.w_q = Some(0.002);
    let mut red = Red::new(c, 10_000_000); // C = 1250 packets/s: a packet time is 800 µs
    let mut rng = Rng::for_component(1, 0, "t");
    let (w_q, ptc) = (0.002, 10_000_000.0 / 8000.0);
    let mut expect: f64 = 0.0;
    let mut now = 0;
    let gaps = [
        0, 1, 100_000, 799_999, 800_000, 800_001, 1_700_000, 40_000_000,
    ];
    for i in 0..400u64 {
        let len = (i % 9 + 1) as u32;
        red.on_arrival(&view(len), &pkt(), now, &mut rng);
        expect = (1.0 - w_q) * expect + w_q * len as f64;
        red.on_idle(now);
        let gap = gaps[i as usize % gaps.len()];
        now += gap;
        red.on_arrival(&view(0), &pkt(), now, &mut rng);
        expect *= libm::pow(1.0 - w_q, libm::floor(gap as f64 * ptc / NS_PER_SEC as f64));
        assert_eq!(
            red.est.avg.to_bits(),
            expect.to_bits(),
            "arrival {i}, gap {gap} ns"
        );
        now += 1_000;
    }
    // The instant the decay reached: the idle start under one packet time, else the last
    // whole packet time (what a drop at the idle link carries on from).
    red.on_idle(now);
    assert_eq!(red.est.update(&red.params, 0.0, now + 799_999), Some(now));
    red.on_idle(now);
    assert_eq!(
        red.est.update(&red.params, 0.0, now + 1_700_000),
        Some(now + 1_600_000)
    );
}

/// A port skips the departure hook of an AQM that says it does not watch departures
/// (`AnyAqm::on_departure`): RED's must then pass every packet and change nothing, in
/// every region (below min_th, between the thresholds, above max_th), as DropTail's both
/// hooks must.
#[test]
fn the_hooks_red_and_droptail_say_they_skip_are_no_ops() {
    use crate::aqm::DropTail;
    let mut c = cfg(CountRule::Ns2Wait);
    c.w_q = Some(0.5);
    let mut red = Red::new(c, 10_000_000);
    let mut rng = Rng::for_component(1, 0, "t");
    // The departures' own stream: untouched if its first draw is still the first one.
    let mut departures = Rng::for_component(2, 0, "d");
    assert!(!red.watches_departures() && red.watches_idle());
    let mut regions = vec![];
    for (i, len) in [0u32, 3, 8, 12, 30, 40, 9, 2, 0].into_iter().enumerate() {
        let now = i as Time * 1_000_000;
        regions.push(red.on_arrival(&view(len), &pkt(), now, &mut rng));
        let before = format!("{red:?}");
        let v = red.on_departure(&view(len), &pkt(), now, &mut departures);
        assert_eq!(v, Verdict::Pass);
        assert_eq!(format!("{red:?}"), before, "queue of {len}");
    }
    // The arrivals did cross the regions: passes, and forced drops above max_th.
    assert!(regions.contains(&Verdict::Pass));
    assert!(regions.contains(&Verdict::Drop(Reason::Forced)));
    let mut dt = DropTail;
    assert!(!dt.watches_departures() && !dt.watches_idle());
    assert_eq!(
        dt.on_departure(&view(3), &pkt(), 0, &mut departures),
        Verdict::Pass
    );
    let first = Rng::for_component(2, 0, "d").uniform();
    assert_eq!(departures.uniform(), first, "no random number drawn");
}

/// Regression (found by the 1.25× CBR overload test): arrivals faster than the link,
/// each dropped at the idle link, must still decay avg by one power per whole packet
/// time elapsed; restarting the idle clock at each of them rounded every decay to 0
/// and locked the queue out for good.
#[test]
fn dropped_arrivals_faster_than_the_link_still_decay_an_idle_average() {
    let mut c = cfg(CountRule::Ns2);
    c.w_q = Some(0.002);
    let mut red = Red::new(c, 10_000_000); // one packet time = 800 µs
    red.est.avg = 100.0;
    red.on_idle(0);
    let mut rng = Rng::for_component(1, 0, "t");
    for k in 1..=10u64 {
        let v = red.on_arrival(&view(0), &pkt(), k * 480_000, &mut rng);
        assert_eq!(v, Verdict::Drop(Reason::Forced));
    }
    // 10 × 0.6 = 6 packet times.
    let expect = 100.0 * libm::pow(0.998, 6.0);
    assert!(
        (red.est.avg - expect).abs() < 1e-12 * expect,
        "{} vs {expect}",
        red.est.avg
    );
}

#[test]
fn above_max_th_drops_and_resets_the_count_and_ecn_marks_only_early() {
    let mut c = cfg(CountRule::Ns2);
    c.ecn = true;
    let mut red = Red::new(c.clone(), 10_000_000);
    let mut rng = Rng::for_component(1, 0, "t");
    red.est.avg = 20.0;
    red.marker.count = 7;
    assert_eq!(
        red.on_arrival(&view(10), &pkt(), 0, &mut rng),
        Verdict::Drop(Reason::Forced)
    );
    assert_eq!(red.marker.count, 0);
    c.mark_above_max_th = true;
    let mut red = Red::new(c, 10_000_000);
    red.est.avg = 20.0;
    assert_eq!(
        red.on_arrival(&view(10), &pkt(), 0, &mut rng),
        Verdict::Mark(Reason::Forced)
    );
    // Early decisions are marks when ECN is on.
    red.est.avg = 14.9;
    red.marker.count = 1;
    let v = (0..50)
        .map(|_| red.on_arrival(&view(10), &pkt(), 0, &mut rng))
        .find(|v| *v != Verdict::Pass);
    assert_eq!(v, Some(Verdict::Mark(Reason::Early)));
}

/// Arrivals dropped at an idle link keep the idle period going: avg keeps decaying with
/// time, so a RED above max_th recovers instead of locking out.
#[test]
fn dropped_arrivals_at_an_idle_link_do_not_stop_the_idle_decay() {
    let mut c = cfg(CountRule::Ns2);
    c.w_q = Some(0.002);
    let mut red = Red::new(c, 10_000_000); // C = 1250 packets/s
    let mut rng = Rng::for_component(1, 0, "t");
    red.est.avg = 40.0;
    red.on_idle(0);
    let ms = 1_000_000;
    let v = red.on_arrival(&view(0), &pkt(), 100 * ms, &mut rng);
    assert_eq!(v, Verdict::Drop(Reason::Forced));
    let after_first = red.est.avg;
    assert_eq!(after_first, 40.0 * libm::pow(0.998, 125.0));
    // 0.9 s later, still idle: a further 1125 packet times of decay.
    red.on_arrival(&view(0), &pkt(), 1000 * ms, &mut rng);
    assert!((red.est.avg - after_first * libm::pow(0.998, 1125.0)).abs() < 1e-12);
    assert!(red.est.avg < 5.0);
}

#[test]
fn gentle_mode_ramps_from_max_p_to_one_between_max_th_and_twice_max_th() {
    let mut c = cfg(CountRule::Independent);
    c.gentle = true;
    let mut red = Red::new(c, 10_000_000);
    for (avg, p) in [(15.0, 0.2), (22.5, 0.6), (29.99, 0.2 + 0.8 * 14.99 / 15.0)] {
        red.est.avg = avg;
        assert!(
            (red.params.p_b(red.est.avg).unwrap() - p).abs() < 1e-12,
            "avg {avg}"
        );
    }
    red.est.avg = 30.0;
    assert_eq!(red.params.p_b(red.est.avg), None);
}

#[test]
fn below_min_th_nothing_is_dropped_and_the_count_is_reset() {
    let mut red = Red::new(cfg(CountRule::Ns2Wait), 10_000_000);
    let mut rng = Rng::for_component(1, 0, "t");
    red.est.avg = 4.9;
    red.marker.count = 12;
    for _ in 0..1000 {
        assert_eq!(
            red.on_arrival(&view(10), &pkt(), 0, &mut rng),
            Verdict::Pass
        );
    }
    assert_eq!(red.marker.count, -1);
}

#[test]
fn automatic_w_q_matches_the_ared_table() {
    assert!((auto_w_q(10_000_000, 1000) - 7.996801e-4).abs() < 5e-10);
    assert!((auto_w_q(100_000_000, 1000) - 7.999680e-5).abs() < 5e-11);
}

#[test]
fn byte_mode_scales_thresholds_and_probability_by_packet_size() {
    let mut c = cfg(CountRule::Independent);
    c.byte_mode = true;
    c.mean_pktsize = 500;
    let red = Red::new(c, 10_000_000);
    assert_eq!(red.thresholds(), (2500.0, 7500.0));
    assert!((red.marker.p_a(&red.params, 0.1, 1000) - 0.2).abs() < 1e-12);
    assert!((red.marker.p_a(&red.params, 0.1, 250) - 0.05).abs() < 1e-12);
}

/// The GRED shape: the parts fed a backlog and an average from outside decide exactly
/// as `Red` fed the whole queue (same random draws, same verdicts), and two averages
/// kept beside one parameter set move independently (RIO's per-precedence averages).
#[test]
fn the_parts_decide_as_red_from_a_backlog_and_an_average_passed_in() {
    let mut c = cfg(CountRule::Ns2Wait);
    c.w_q = Some(0.02);
    let mut red = Red::new(c.clone(), 10_000_000);
    let params = RedParams::new(c, 10_000_000);
    let (mut est, mut marker) = (RedAvg::default(), RedMarker::default());
    let (mut r1, mut r2) = (
        Rng::for_component(7, 0, "gred"),
        Rng::for_component(7, 0, "gred"),
    );
    let mut marks = 0;
    for i in 0..20_000u64 {
        let len = (i % 40) as u32;
        let now = i * 1_000;
        let whole = red.on_arrival(&view(len), &pkt(), now, &mut r1);
        est.update(&params, len as f64, now);
        let parts = params.verdict(marker.decide(&params, est.avg, 1000, &mut r2));
        assert_eq!(whole, parts, "arrival {i}");
        assert_eq!(red.est.avg, est.avg);
        marks += (parts != Verdict::Pass) as u32;
    }
    assert!(
        marks > 100,
        "the run reached the marking region ({marks} marks)"
    );
    // Two classes' averages under one parameter set: fed 0 and 30, they part.
    let (mut low, mut high) = (RedAvg::default(), RedAvg::default());
    for i in 0..500 {
        low.update(&params, 0.0, i);
        high.update(&params, 30.0, i);
    }
    assert_eq!(low.avg, 0.0);
    let expect = 30.0 * (1.0 - libm::pow(0.98, 500.0));
    assert!((high.avg - expect).abs() < 1e-9 * expect, "{}", high.avg);
}

/// A fixed-seed run through every region (idle, below min_th, early, forced, gentle),
/// with queues of 0 and 1 packets among others: a fingerprint of the verdict sequence
/// and the number of early and forced decisions.
fn fingerprint(c: RedConfig) -> (u64, u32, u32) {
    // The guard's unit is avg's: in byte mode one waiting packet is 1000 bytes > 1.
    let spared = if c.ns2_qlen_guard {
        if c.byte_mode {
            0
        } else {
            1
        }
    } else {
        -1
    };
    let mut red = Red::new(c, 10_000_000);
    let mut rng = Rng::for_component(11, 0, "red-seq");
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let (mut early, mut forced) = (0, 0);
    for i in 0..60_000u64 {
        let phase = (i / 5) % 60;
        let len = if phase < 30 { phase } else { 60 - phase } as u32;
        // From 150 µs on, so that the first idle period (150 µs before the first arrival)
        // starts at a time ≥ 0: it began at -150 µs, which wrapped in release builds and
        // overflowed in debug ones. RED reads only differences of times, so the recorded
        // fingerprints hold.
        let now = 150_000 + i * 200_000;
        if len == 0 {
            red.on_idle(now - 150_000);
        }
        let v = red.on_arrival(&view(len), &pkt(), now, &mut rng);
        if (len as i64) <= spared {
            assert_eq!(v, Verdict::Pass, "arrival {i} at a queue of {len}");
        }
        let code = match v {
            Verdict::Pass => 1,
            Verdict::Drop(Reason::Early) => 2,
            Verdict::Drop(Reason::Forced) => 3,
            Verdict::Mark(Reason::Early) => 4,
            Verdict::Mark(Reason::Forced) => 5,
            _ => 6,
        };
        early += (code == 2 || code == 4) as u32;
        forced += (code == 3 || code == 5) as u32;
        h = (h ^ code).wrapping_mul(0x0000_0100_0000_01b3);
    }
    (h, early, forced)
}

fn fingerprint_cases() -> Vec<RedConfig> {
    let mut out = vec![];
    for (rule, gentle, ecn, byte_mode) in [
        (CountRule::Ns2Wait, false, false, false),
        (CountRule::Ns2, true, true, false),
        (CountRule::Uniform, false, false, true),
    ] {
        let mut c = cfg(rule);
        c.w_q = Some(0.02);
        c.gentle = gentle;
        c.ecn = ecn;
        c.byte_mode = byte_mode;
        out.push(c);
    }
    out
}

/// Issue 11: with `ns2_qlen_guard` off, the decisions of a fixed-seed run are those of
/// the code before the option existed (values recorded from commit aad77f3).
#[test]
fn without_the_guard_a_fixed_seed_decision_sequence_is_unchanged() {
    let before = [
        (16277055355877602091, 1914, 29995),
        (6865891506483791958, 31331, 0),
        (13778812366343660896, 5227, 29995),
    ];
    for (c, expect) in fingerprint_cases().into_iter().zip(before) {
        assert_eq!(fingerprint(c), expect);
    }
    // With the guard the same runs decide less, and never at a queue of 0 or 1 (0 in
    // byte mode) (asserted inside `fingerprint`).
    for (mut c, (_, early, forced)) in fingerprint_cases().into_iter().zip(before) {
        c.ns2_qlen_guard = true;
        let (_, e, f) = fingerprint(c);
        assert!(e + f < early + forced && e + f > 0, "{e} + {f}");
    }
}

/// Issue 11 acceptance: with ns-2's guard, an arrival that finds one packet (or none)
/// waiting is never dropped or marked by RED, even with avg far above max_th; without
/// it the same arrival is force-dropped. Two waiting packets pass the guard.
#[test]
fn the_ns2_guard_spares_arrivals_at_a_queue_of_one_or_none() {
    for gentle in [false, true] {
        for ecn in [false, true] {
            let mut c = cfg(CountRule::Ns2Wait);
            (c.gentle, c.ecn, c.mark_above_max_th) = (gentle, ecn, ecn);
            let mut rng = Rng::for_component(3, 0, "guard");
            for len in [0, 1] {
                let mut off = Red::new(c.clone(), 10_000_000);
                off.est.avg = 100.0;
                let v = off.on_arrival(&view(len), &pkt(), 0, &mut rng);
                assert_ne!(v, Verdict::Pass, "guard off, queue {len}");
                let mut on_cfg = c.clone();
                on_cfg.ns2_qlen_guard = true;
                let mut on = Red::new(on_cfg, 10_000_000);
                on.est.avg = 100.0;
                on.marker.count = 40;
                for _ in 0..1000 {
                    let v = on.on_arrival(&view(len), &pkt(), 0, &mut rng);
                    assert_eq!(v, Verdict::Pass, "guard on, queue {len}");
                    on.est.avg = 100.0; // keep it far above max_th
                }
                // ns-2's `else` branch: the decision state is reset as below min_th.
                assert_eq!(on.marker.count, -1);
                assert_eq!(on.marker.last_p(), (0.0, 0.0));
                // Two waiting packets: the forced decision is back.
                assert_ne!(on.on_arrival(&view(2), &pkt(), 0, &mut rng), Verdict::Pass);
            }
        }
    }
    // In the early region too: p_b = 0.2 − ε and a count that forces p_a = 1.
    let mut c = cfg(CountRule::Ns2);
    c.ns2_qlen_guard = true;
    let mut red = Red::new(c, 10_000_000);
    let mut rng = Rng::for_component(3, 0, "guard");
    red.est.avg = 14.99;
    red.marker.count = 100;
    assert_eq!(red.on_arrival(&view(1), &pkt(), 0, &mut rng), Verdict::Pass);
    // The next arrival that passes the guard is the "first" in the region (ns-2
    // `old = 0` → count := 1, no drop), then decisions resume.
    assert_eq!(red.on_arrival(&view(2), &pkt(), 0, &mut rng), Verdict::Pass);
    assert_eq!(red.marker.count, 1);
    red.marker.count = 100;
    assert_eq!(
        red.on_arrival(&view(2), &pkt(), 0, &mut rng),
        Verdict::Drop(Reason::Early)
    );
}

/// The guard draws no random number when it suppresses a decision (ns-2 does not call
/// `drop_early`), and compares bytes with one in byte mode, as ns-2 with `qib_`.
#[test]
fn the_ns2_guard_draws_nothing_and_counts_bytes_in_byte_mode() {
    let mut c = cfg(CountRule::Independent);
    c.ns2_qlen_guard = true;
    let mut red = Red::new(c.clone(), 10_000_000);
    red.est.avg = 10.0;
    let mut rng = Rng::for_component(5, 0, "guard");
    let mut fresh = Rng::for_component(5, 0, "guard");
    red.on_arrival(&view(1), &pkt(), 0, &mut rng);
    assert_eq!(rng.uniform(), fresh.uniform());
    // Byte mode: one waiting packet is 1000 bytes > 1, so the guard lets it through.
    c.byte_mode = true;
    let red = Red::new(c, 10_000_000);
    assert!(red.params.guard_allows(red.params.backlog(&view(1))));
    assert!(!red.params.guard_allows(red.params.backlog(&view(0))));
}
