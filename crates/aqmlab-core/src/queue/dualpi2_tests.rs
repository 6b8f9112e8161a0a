use super::*;

const MS: Time = 1_000_000;
const US: Time = 1_000;

fn pkt(ecn: Ecn, size: u32) -> Packet {
    Packet {
        ecn,
        size,
        ..Default::default()
    }
}

fn rng() -> Rng {
    Rng::for_component(7, 0, "queue/dualpi2/tests")
}

fn with(f: impl FnOnce(&mut DualPi2Config)) -> DualPi2 {
    let mut cfg = DualPi2Config::default();
    f(&mut cfg);
    DualPi2::new(cfg)
}

/// Empties C and leaves one 1500-byte classic packet there, enqueued `sojourn` before `t`.
fn set_c_head(q: &mut DualPi2, t: Time, sojourn: Option<Time>) {
    q.q[C].clear();
    q.bytes[C] = 0;
    if let Some(d) = sojourn {
        q.push(0, &pkt(Ecn::NotEct, 1500), t - d);
    }
}

fn close(a: f64, b: f64) {
    assert!((a - b).abs() < 1e-12, "{a} != {b}");
}

/// |count − n·p| ≤ 4 standard deviations of a binomial(n, p).
fn within_4_sigma(count: u64, n: u64, p: f64) {
    let (mean, sd) = (n as f64 * p, (n as f64 * p * (1.0 - p)).sqrt());
    assert!(
        (count as f64 - mean).abs() <= 4.0 * sd,
        "{count} of {n}: expected {mean} ± {}",
        4.0 * sd
    );
}

#[test]
fn classifier_sends_ect1_and_ce_to_l() {
    for (ecn, l4s) in [
        (Ecn::NotEct, false),
        (Ecn::Ect0, false),
        (Ecn::Ect1, true),
        (Ecn::Ce, true),
    ] {
        assert_eq!(DualPi2::is_l4s(&pkt(ecn, 100)), l4s, "{ecn:?}");
    }
    let mut q = DualPi2::new(DualPi2Config::default());
    for (i, ecn) in [Ecn::NotEct, Ecn::Ect1, Ecn::Ect0, Ecn::Ce]
        .into_iter()
        .enumerate()
    {
        q.push(i as u32, &pkt(ecn, 100 * (i as u32 + 1)), 0);
    }
    assert_eq!((q.sub_len_pkts(L), q.sub_len_pkts(C)), (2, 2));
    assert_eq!(
        (q.sub_len_bytes(L), q.sub_len_bytes(C)),
        (200 + 400, 100 + 300)
    );
    assert_eq!((q.len_pkts(), q.len_bytes()), (4, 1000));
    assert_eq!(q.waiting().collect::<Vec<_>>(), vec![1, 3, 0, 2]);
}

/// RFC 9332 App. A.1's update with α = 0.16 Hz, β = 3.2 Hz, target 15 ms, prevq = 0 at
/// first, one update every 16 ms; the C head's sojourn at each update:
///
/// | update | qdelay | Δp' = 0.16·(q − 0.015) + 3.2·(q − prev) | p' |
/// |---|---|---|---|
/// | 1 | 25 ms | 0.0016 + 0.08 = 0.0816 | 0.0816 |
/// | 2-5 | 25 ms | 0.0016 + 0 | 0.0832, 0.0848, 0.0864, 0.0880 |
/// | 6 | 5 ms | −0.0016 − 0.064 = −0.0656 | 0.0224 |
/// | 7 | empty (0) | −0.0024 − 0.016 = −0.0184 | 0.0040 |
/// | 8 | empty | −0.0024 | 0.0016 |
/// | 9 | empty | −0.0024 | 0 (clamped from −0.0008) |
///
/// After update 5: p_C = 0.088² = 0.007744, p_CL = 2·0.088 = 0.176.
#[test]
fn pi2_update_follows_the_rfc_step_by_step() {
    let mut q = DualPi2::new(DualPi2Config::default());
    assert_eq!(q.first_timer(0), Some(16 * MS));
    let script = [
        (Some(25 * MS), 0.0816),
        (Some(25 * MS), 0.0832),
        (Some(25 * MS), 0.0848),
        (Some(25 * MS), 0.0864),
        (Some(25 * MS), 0.0880),
        (Some(5 * MS), 0.0224),
        (None, 0.0040),
        (None, 0.0016),
        (None, 0.0),
    ];
    let mut out = [0.0; 10];
    for (n, (sojourn, expected)) in script.into_iter().enumerate() {
        let t = 100 * MS + 16 * MS * n as Time;
        set_c_head(&mut q, t, sojourn);
        assert_eq!(q.on_timer(t), Some(t + 16 * MS));
        close(q.p_prime(), expected);
        if n == 4 {
            q.metrics(t, &mut out);
            close(out[1], 0.007744);
            close(out[2], 0.176);
            close(out[4], 0.025);
            close(out[8], 0.025);
        }
    }
}

/// L head 40 ms, C head 10 ms, first update (p' = 0, prevq = 0):
/// - classic (RFC): q = 10 ms: 0.16·(−0.005) + 3.2·0.010 = −0.0008 + 0.032 = 0.0312;
/// - max (Linux): q = 40 ms: 0.16·0.025 + 3.2·0.040 = 0.004 + 0.128 = 0.132.
///
/// With only L waiting (40 ms), classic sees 0: 0.16·(−0.015) = −0.0024, clamped to 0;
/// max still 0.132.
#[test]
fn qdelay_is_the_classic_head_or_the_larger_head() {
    for (mode, both, l_only) in [(QDelay::Classic, 0.0312, 0.0), (QDelay::Max, 0.132, 0.132)] {
        let t = 100 * MS;
        let mut q = with(|c| c.qdelay = mode);
        q.push(1, &pkt(Ecn::Ect1, 1500), t - 40 * MS);
        q.push(2, &pkt(Ecn::NotEct, 1500), t - 10 * MS);
        q.update(t);
        close(q.p_prime(), both);
        let mut q = with(|c| c.qdelay = mode);
        q.push(1, &pkt(Ecn::Ect1, 1500), t - 40 * MS);
        q.update(t);
        close(q.p_prime(), l_only);
    }
}

/// A 1 s head: Δp' = 0.16·0.985 + 3.2·1 = 3.3576, clamped to 1; without drop_overload
/// capped at 1/k: 0.5 with k = 2, 0.25 with k = 4.
#[test]
fn p_prime_is_clamped_to_one_and_capped_at_one_over_k_without_overload_drops() {
    for (drop_overload, k, expected) in [(true, 2.0, 1.0), (false, 2.0, 0.5), (false, 4.0, 0.25)] {
        let mut q = with(|c| {
            c.drop_overload = drop_overload;
            c.k = k;
        });
        set_c_head(&mut q, 2000 * MS, Some(1000 * MS));
        q.update(2000 * MS);
        close(q.p_prime(), expected);
    }
}

#[test]
fn coupling_is_p_prime_squared_and_k_p_prime() {
    let mut q = DualPi2::new(DualPi2Config::default());
    for (p, p_c, p_cl) in [(0.3, 0.09, 0.6), (0.7, 0.49, 1.0)] {
        q.p_prime = p;
        close(q.p_c(), p_c);
        close(q.p_cl(), p_cl);
    }
    let mut q = with(|c| c.k = 4.0);
    q.p_prime = 0.1;
    close(q.p_cl(), 0.4);
    close(q.p_c(), 0.01);
}

/// With p' = 0 (p_CL = 0) the L packet is marked by the 1 ms step only: 0.9 ms and exactly
/// 1.0 ms pass (Linux marks when sojourn > step), 1.1 ms is marked, CE too.
#[test]
fn the_one_millisecond_step_marks_only_above_it() {
    let mut r = rng();
    for (ecn, sojourn, verdict) in [
        (Ecn::Ect1, 900 * US, Verdict::Pass),
        (Ecn::Ect1, 1000 * US, Verdict::Pass),
        (Ecn::Ect1, 1100 * US, Verdict::Mark(Reason::Dequeue)),
        (Ecn::Ce, 1100 * US, Verdict::Mark(Reason::Dequeue)),
    ] {
        let mut q = DualPi2::new(DualPi2Config::default());
        q.push(9, &pkt(ecn, 1500), 10 * MS);
        assert_eq!(q.next(10 * MS + sojourn, &mut r), Some((9, verdict, L)));
        assert_eq!(q.next(10 * MS + sojourn, &mut r), None);
    }
}

/// min_qlen_step = 2: of three L packets arriving together, only the third found two
/// waiting, so only it is step-marked at 5 ms; with Linux's 0 all three are.
#[test]
fn min_qlen_step_exempts_packets_that_arrived_at_a_short_queue() {
    let mut r = rng();
    for (min_qlen_step, marked) in [(2, [false, false, true]), (0, [true, true, true])] {
        let mut q = with(|c| c.min_qlen_step = min_qlen_step);
        for i in 0..3 {
            q.push(i, &pkt(Ecn::Ect1, 1500), 0);
        }
        for (i, m) in marked.into_iter().enumerate() {
            let v = if m {
                Verdict::Mark(Reason::Dequeue)
            } else {
                Verdict::Pass
            };
            assert_eq!(q.next(5 * MS, &mut r), Some((i as u32, v, L)));
        }
    }
}

/// RFC 9332 App. A.1's ramp, minTh = 800 µs, range = 400 µs: a 1 ms sojourn gives
/// p'_L = (1000 − 800)/400 = 0.5; 20 000 packets: 10 000 ± 4·70.7 marks. 700 µs: none;
/// 1.3 ms: all.
#[test]
fn the_rfc_ramp_marks_linearly_between_min_th_and_min_th_plus_range() {
    let mut r = rng();
    for (sojourn, p) in [(1000 * US, 0.5), (700 * US, 0.0), (1300 * US, 1.0)] {
        let mut q = with(|c| {
            c.l_step = 800 * US;
            c.l_range = 400 * US;
        });
        let n = 20_000u64;
        let mut marks = 0;
        for i in 0..n {
            let t = i * 2 * MS;
            q.push(i as u32, &pkt(Ecn::Ect1, 1500), t);
            let (_, v, _) = q.next(t + sojourn, &mut r).unwrap();
            marks += (v == Verdict::Mark(Reason::Dequeue)) as u64;
        }
        within_4_sigma(marks, n, p);
    }
}

/// p' = 0.2: p_CL = 0.4 on L packets of no sojourn (no step), 20 000 of them:
/// 8000 ± 4·69.3 coupled marks; with min_backlog 0 so that each is judged alone.
#[test]
fn l_packets_are_marked_with_k_times_p_prime() {
    let mut r = rng();
    let mut q = with(|c| c.min_backlog = 0);
    q.p_prime = 0.2;
    let n = 20_000u64;
    let mut marks = 0;
    for i in 0..n {
        q.push(i as u32, &pkt(Ecn::Ect1, 1500), i * MS);
        let (_, v, _) = q.next(i * MS, &mut r).unwrap();
        assert!(
            matches!(v, Verdict::Pass | Verdict::Mark(Reason::Early)),
            "{v:?}"
        );
        marks += (v != Verdict::Pass) as u64;
    }
    within_4_sigma(marks, n, 0.4);
    close(q.p_l, 0.4);
}

/// p' = 0.3: p_C = 0.09. 25 000 Not-ECT and 25 000 ECT(0) C packets: each kind signalled
/// 2250 ± 4·45.2 times; Not-ECT only dropped, ECT(0) only marked (Reason::Early).
#[test]
fn classic_packets_are_dropped_or_marked_with_p_prime_squared() {
    let mut r = rng();
    let mut q = with(|c| c.min_backlog = 0);
    q.p_prime = 0.3;
    let n = 25_000u64;
    let (mut drops, mut marks) = (0, 0);
    for i in 0..2 * n {
        let ecn = if i % 2 == 0 { Ecn::NotEct } else { Ecn::Ect0 };
        q.push(i as u32, &pkt(ecn, 1500), i * MS);
        match q.next(i * MS, &mut r).unwrap() {
            (_, Verdict::Pass, C) => {}
            (_, Verdict::Drop(Reason::Early), C) if ecn == Ecn::NotEct => drops += 1,
            (_, Verdict::Mark(Reason::Early), C) if ecn == Ecn::Ect0 => marks += 1,
            other => panic!("{ecn:?}: {other:?}"),
        }
    }
    within_4_sigma(drops, n, 0.09);
    within_4_sigma(marks, n, 0.09);
}

/// Linux's rule: no PI2 signal while fewer than 2·1514 = 3028 bytes wait besides the
/// packet. At p' = 1 (overload: every C packet is dropped when signalled) three
/// 1514-byte C packets: the first leaves 3028 behind and is dropped, the second leaves
/// 1514 and passes, the third 0 and passes. Three 1000-byte packets: 2000 < 3028, all
/// pass. The step is not gated: a lone L packet of 2 ms is marked.
#[test]
fn no_pi2_signal_below_two_mtus_of_backlog() {
    let mut r = rng();
    let mut q = DualPi2::new(DualPi2Config::default());
    q.p_prime = 1.0;
    for i in 0..3 {
        q.push(i, &pkt(Ecn::NotEct, 1514), 0);
    }
    assert_eq!(
        q.next(0, &mut r),
        Some((0, Verdict::Drop(Reason::Forced), C))
    );
    assert_eq!(q.next(0, &mut r), Some((1, Verdict::Pass, C)));
    assert_eq!(q.next(0, &mut r), Some((2, Verdict::Pass, C)));
    for i in 0..3 {
        q.push(i, &pkt(Ecn::NotEct, 1000), 0);
    }
    for i in 0..3 {
        assert_eq!(q.next(0, &mut r), Some((i, Verdict::Pass, C)));
    }
    q.p_prime = 0.0;
    q.push(5, &pkt(Ecn::Ect1, 1000), 0);
    assert_eq!(
        q.next(2 * MS, &mut r),
        Some((5, Verdict::Mark(Reason::Dequeue), L))
    );
}

/// Overload at p' = 0.8 > 1/k = 0.5 (k·p' = 1.6, p_C = 0.64 > p_Cmax = 0.25):
/// - ECT(0) C packets are dropped with 0.64, never marked: 12 800 ± 4·67.9 of 20 000;
/// - ECT(1) L packets are dropped with 0.64 and every other one is marked.
///
/// At p' = 0.5 exactly (not overload): ECT(0) marked with 0.25, never dropped; every L
/// packet marked (p_CL = 1) as a coupled mark.
#[test]
fn overload_disables_ecn_in_both_queues() {
    let mut r = rng();
    let n = 20_000u64;
    for (p, sub_drop, c_mark, l_drop) in [(0.8, 0.64, 0.0, 0.64), (0.5, 0.0, 0.25, 0.0)] {
        let mut q = with(|c| c.min_backlog = 0);
        q.p_prime = p;
        let (mut c_drops, mut c_marks, mut l_drops, mut l_marks) = (0, 0, 0, 0);
        for i in 0..n {
            q.push(0, &pkt(Ecn::Ect0, 1500), i * MS);
            match q.next(i * MS, &mut r).unwrap().1 {
                Verdict::Drop(Reason::Forced) => c_drops += 1,
                Verdict::Mark(Reason::Early) => c_marks += 1,
                Verdict::Pass => {}
                v => panic!("C: {v:?}"),
            }
            q.push(0, &pkt(Ecn::Ect1, 1500), i * MS);
            match q.next(i * MS, &mut r).unwrap().1 {
                Verdict::Drop(Reason::Forced) => l_drops += 1,
                Verdict::Mark(Reason::Forced | Reason::Early) => l_marks += 1,
                v => panic!("L: {v:?}"),
            }
        }
        within_4_sigma(c_drops, n, sub_drop);
        within_4_sigma(c_marks, n, c_mark);
        within_4_sigma(l_drops, n, l_drop);
        assert_eq!(
            l_drops + l_marks,
            n,
            "p' = {p}: every L packet is signalled"
        );
    }
}

/// Without drop_overload p' never exceeds 1/k (see the clamp test), and at p' = 1/k there
/// is no overload, so ECN survives; a p' forced above it (the only way) marks L instead of
/// dropping.
#[test]
fn without_overload_drops_l_packets_are_only_marked() {
    let mut r = rng();
    let mut q = with(|c| {
        c.drop_overload = false;
        c.min_backlog = 0;
    });
    q.p_prime = 1.0;
    for i in 0..1000 {
        q.push(i, &pkt(Ecn::Ect1, 1500), 0);
        assert_eq!(
            q.next(0, &mut r),
            Some((i, Verdict::Mark(Reason::Forced), L))
        );
    }
}

/// drop_early: the PI2 decision moves to the arrival. At p' = 0.3, 20 000 Not-ECT
/// arrivals: 1800 ± 4·40.5 early drops and none at dequeue; without it no arrival is
/// dropped and 1800 ± 4·40.5 are dropped at dequeue.
#[test]
fn drop_early_decides_at_arrival() {
    let mut r = rng();
    let n = 20_000u64;
    for drop_early in [true, false] {
        let mut q = with(|c| {
            c.drop_early = drop_early;
            c.min_backlog = 0;
        });
        q.p_prime = 0.3;
        let (mut early, mut late) = (0, 0);
        for i in 0..n {
            let p = pkt(Ecn::NotEct, 1500);
            match q.on_arrival(&p, i * MS, &mut r) {
                Verdict::Pass => {
                    q.push(i as u32, &p, i * MS);
                    match q.next(i * MS, &mut r).unwrap().1 {
                        Verdict::Pass => {}
                        Verdict::Drop(Reason::Early) => late += 1,
                        v => panic!("{v:?}"),
                    }
                }
                Verdict::Drop(Reason::Early) => early += 1,
                v => panic!("{v:?}"),
            }
        }
        let (at_arrival, at_dequeue) = if drop_early { (0.09, 0.0) } else { (0.0, 0.09) };
        within_4_sigma(early, n, at_arrival);
        // Of the arrivals that passed (all of them without drop_early).
        within_4_sigma(late, n - early, at_dequeue);
    }
}

/// Both queues hold 1514-byte packets, c_protection 10: the credit starts at
/// 1514·(10 − 90) = −121 120; each L packet adds 10·1514 = 15 140, so after 8 it is 0
/// (still ≤ 0) and after the 9th 15 140 > 0; one C packet then takes 90·1514 = 136 260
/// and brings it back to −121 120. The period is 9 L then 1 C: exactly 1000 C packets in
/// 10 000 dequeues.
#[test]
fn wrr_gives_classic_its_protection_share() {
    let mut r = rng();
    let mut q = DualPi2::new(DualPi2Config::default());
    assert_eq!(q.credit(), -121_120);
    for i in 0..10_000 {
        q.push(i, &pkt(Ecn::Ect1, 1514), 0);
        q.push(i, &pkt(Ecn::NotEct, 1514), 0);
    }
    let subs: Vec<usize> = (0..10_000).map(|_| q.next(0, &mut r).unwrap().2).collect();
    assert_eq!(subs[..10], [L, L, L, L, L, L, L, L, L, C]);
    assert_eq!(subs.iter().filter(|&&s| s == C).count(), 1000);
    assert_eq!(q.credit(), -121_120);
}

/// L packets of 1000 B, C packets of 1500 B, both saturated, 20 000 dequeues. While both
/// wait, every L byte adds 10 and every C byte takes 90, so credit_end − credit_start =
/// 10·B_L − 90·B_C exactly, i.e. B_C/B = 0.1 − Δ/(100·B). The credit stays in
/// (−90·1500, 10·1000], so |Δ| < 145 000 and with B > 2·10⁷ the share is within 10⁻⁴ of
/// 10%.
#[test]
fn wrr_shares_bytes_whatever_the_sizes() {
    let mut r = rng();
    let mut q = DualPi2::new(DualPi2Config::default());
    for i in 0..20_000 {
        q.push(i, &pkt(Ecn::Ect1, 1000), 0);
        q.push(i, &pkt(Ecn::NotEct, 1500), 0);
    }
    let start = q.credit();
    let (mut b_l, mut b_c) = (0i64, 0i64);
    for _ in 0..20_000 {
        match q.next(0, &mut r).unwrap().2 {
            L => b_l += 1000,
            _ => b_c += 1500,
        }
        assert!(
            q.credit() > -135_000 && q.credit() <= 10_000,
            "{}",
            q.credit()
        );
    }
    assert_eq!(q.credit() - start, 10 * b_l - 90 * b_c);
    let share = b_c as f64 / (b_l + b_c) as f64;
    assert!((share - 0.1).abs() < 1e-4, "{share}");
}

/// c_protection 50: credit starts at 0, L (+50·S), C (−50·S), ...: strict alternation.
/// 0: C never gains credit back, L has priority; 100: C has priority.
#[test]
fn wrr_weights_at_the_extremes() {
    let mut r = rng();
    for (wc, first_six) in [
        (50, [L, C, L, C, L, C]),
        (0, [L, L, L, L, L, L]),
        (100, [C, C, C, C, C, C]),
    ] {
        let mut q = with(|c| c.scheduler = Scheduler::Wrr { c_protection: wc });
        for i in 0..10 {
            q.push(i, &pkt(Ecn::Ect1, 1514), 0);
            q.push(i, &pkt(Ecn::NotEct, 1514), 0);
        }
        let subs: Vec<usize> = (0..6).map(|_| q.next(0, &mut r).unwrap().2).collect();
        assert_eq!(subs, first_six, "c_protection {wc}");
    }
}

/// Dropped packets do not move the credit (Linux applies credit_change only to a packet
/// it returns), and the credit restarts when the buffer empties. At p' = 1 with
/// drop_overload every packet is dropped (p_C = 1) while 3028 bytes wait behind it.
#[test]
fn wrr_credit_ignores_drops_and_restarts_when_empty() {
    let mut r = rng();
    let mut q = DualPi2::new(DualPi2Config::default());
    q.p_prime = 1.0;
    for i in 0..6 {
        q.push(i, &pkt(Ecn::Ect1, 1514), 0);
    }
    for i in 0..4 {
        q.push(10 + i, &pkt(Ecn::NotEct, 1514), 0);
    }
    // L goes first (credit ≤ 0); its first 4 packets leave ≥ 6·1514 behind: dropped.
    for i in 0..4 {
        assert_eq!(
            q.next(0, &mut r),
            Some((i, Verdict::Drop(Reason::Forced), L))
        );
        assert_eq!(q.credit(), -121_120);
    }
    q.p_prime = 0.0;
    for (i, credit) in [(4, -121_120 + 15_140), (5, -121_120 + 30_280)] {
        assert_eq!(q.next(0, &mut r), Some((i, Verdict::Pass, L)));
        assert_eq!(q.credit(), credit);
    }
    // C alone: no charge while L is empty; the last removal restarts the credit.
    for i in 0..4 {
        assert_eq!(q.next(0, &mut r), Some((10 + i, Verdict::Pass, C)));
        let credit = if i < 3 { -121_120 + 30_280 } else { -121_120 };
        assert_eq!(q.credit(), credit);
    }
    assert_eq!(q.next(0, &mut r), None);
}

/// Time-shifted FIFO, tshift = 30 ms: one L and one C packet enqueued at each k ms,
/// k = 0..99, all served at 200 ms. L's head goes first iff e_L − 30 ms ≤ e_C: the
/// L packets of k = 0..29 (shifted keys −30..−1) precede every C packet, then L k+30 and
/// C k alternate for k = 0..69 (L first on equal keys), then C 70..99. When L k+30 leaves,
/// C's head (k) has waited exactly 30 ms longer.
#[test]
fn time_shifted_fifo_serves_by_shifted_arrival_time() {
    let mut r = rng();
    let mut q = with(|c| c.scheduler = Scheduler::TimeShift { tshift: 30 * MS });
    assert_eq!(q.credit(), 0);
    for k in 0..100 {
        q.push(k as u32, &pkt(Ecn::Ect1, 1500), k * MS);
        q.push(1000 + k as u32, &pkt(Ecn::NotEct, 1500), k * MS);
    }
    let mut expected: Vec<(u32, usize)> = (0..30).map(|k| (k, L)).collect();
    for k in 0..70 {
        expected.push((k + 30, L));
        expected.push((1000 + k, C));
    }
    expected.extend((70..100).map(|k| (1000 + k, C)));
    let mut out = [0.0; 10];
    let mut got = vec![];
    while let Some((idx, _, sub)) = q.next(200 * MS, &mut r) {
        got.push((idx, sub));
        if got.len() == 31 {
            // After 30 L packets and L 30 left: heads L 31 (169 ms) and C 0 (200 ms).
            q.metrics(200 * MS, &mut out);
            close(out[8] - out[7], 0.031);
        }
    }
    assert_eq!(got, expected);
}

/// Both queues saturated under the time-shifted FIFO, tshift = 20 ms: 50 packets waiting
/// in each, then at every ms one L and one C arrival and two departures (at k and
/// k + 0.5 ms). After the pushes at k, 102 packets wait; once the heads carry the same
/// shifted key θ (e_L − 20 ms = e_C = θ), L holds keys θ..k−20 and C keys θ..k, so
/// (k − 20 − θ + 1) + (k − θ + 1) = 102 and θ = k − 60 ms. L goes first on the tie and has
/// waited k − (θ + 20) = 40 ms; C goes half a ms later and has waited 60.5 ms: classic
/// waits tshift (+ the half-ms departure spacing) longer, and each gets half the link.
#[test]
fn time_shifted_fifo_keeps_classic_tshift_behind() {
    let mut r = rng();
    let mut q = with(|c| c.scheduler = Scheduler::TimeShift { tshift: 20 * MS });
    for k in 0..50 {
        q.push(0, &pkt(Ecn::Ect1, 1500), k * MS);
        q.push(0, &pkt(Ecn::NotEct, 1500), k * MS);
    }
    for k in 50..2050u64 {
        q.push(0, &pkt(Ecn::Ect1, 1500), k * MS);
        q.push(0, &pkt(Ecn::NotEct, 1500), k * MS);
        for half in 0..2 {
            let now = k * MS + half * MS / 2;
            let (dl, dc) = (q.head_delay(L, now), q.head_delay(C, now));
            let (_, _, sub) = q.next(now, &mut r).unwrap();
            if k >= 1050 {
                // Steady state long since (the initial backlog drains in 60 ms).
                let expected = if half == 0 {
                    (L, 40 * MS)
                } else {
                    (C, 60 * MS + MS / 2)
                };
                let waited = if sub == L { dl } else { dc };
                assert_eq!((sub, waited), expected, "k = {k}");
            }
        }
    }
}

#[test]
fn spec_defaults_are_linux_and_rfc_and_resolve() {
    let spec: DualPi2Spec = toml::from_str("").unwrap();
    assert_eq!(spec, DualPi2Spec::default());
    assert_eq!(spec.config(), DualPi2Config::default());
    let mut p = Problems::default();
    spec.validate("q", &mut p);
    assert!(p.is_empty(), "{:?}", p.errors);
    let spec: DualPi2Spec = toml::from_str(
        r#"scheduler = "time_shift"
           qdelay = "max"
           mtu = 1000
           l_range = "400us""#,
    )
    .unwrap();
    let cfg = spec.config();
    assert_eq!(cfg.scheduler, Scheduler::TimeShift { tshift: 30 * MS });
    assert_eq!(
        (cfg.qdelay, cfg.min_backlog, cfg.l_range),
        (QDelay::Max, 2000, 400 * US)
    );
    assert_eq!(spec.build().credit(), 0);
    let spec: DualPi2Spec = toml::from_str("c_protection = 25\nmin_backlog = 0").unwrap();
    assert_eq!(spec.config().scheduler, Scheduler::Wrr { c_protection: 25 });
    assert_eq!(spec.build().credit(), 1514 * (25 - 75));
    assert_eq!(spec.config().min_backlog, 0);
}

#[test]
fn spec_refuses_bad_values_with_their_paths() {
    let err = toml::from_str::<DualPi2Spec>(r#"qdelay = "median""#).unwrap_err();
    assert!(
        err.to_string()
            .contains("unknown variant `median`, expected `classic` or `max`"),
        "{err}"
    );
    assert!(toml::from_str::<DualPi2Spec>("tupdat = \"16ms\"").is_err());
    let cases: [(&str, &str); 8] = [
        ("target = \"0ns\"", "q.target"),
        ("alpha = 0.0", "q.alpha"),
        ("beta = -1.0", "q.beta"),
        ("k = 0.0", "q.k"),
        ("c_protection = 101", "q.c_protection"),
        ("tshift = \"30ms\"", "q.tshift"),
        (
            "scheduler = \"time_shift\"\nc_protection = 10",
            "q.c_protection",
        ),
        ("mtu = 0", "q.mtu"),
    ];
    for (text, path) in cases {
        let spec: DualPi2Spec = toml::from_str(text).unwrap();
        let mut p = Problems::default();
        spec.validate("q", &mut p);
        assert_eq!(p.errors.len(), 1, "{text}: {:?}", p.errors);
        assert_eq!(p.errors[0].path, path, "{text}");
    }
    let spec: DualPi2Spec = toml::from_str("beta = 0.0").unwrap();
    let mut p = Problems::default();
    spec.validate("q", &mut p);
    assert!(p.is_empty(), "beta = 0 is a pure integral controller");
}

#[test]
fn metric_names_match_the_values() {
    let q = DualPi2::new(DualPi2Config::default());
    let mut out = vec![f64::NAN; DualPi2::metric_names().len()];
    q.metrics(0, &mut out);
    assert!(out.iter().all(|v| v.is_finite()));
    assert_eq!(out[9], -121_120.0);
}
