use super::*;
use crate::units::NS_PER_SEC;

const MS: Time = NS_PER_SEC / 1000;

fn bbr() -> Bbr {
    Bbr::new(BbrConfig::default(), Rng::for_component(1, 0, "bbr"))
}

/// An ACK of a steady pipe: `bw` segments/s over RTT `rtt`, with `inflight` in flight,
/// one segment delivered, each ACK the start of a new round when `round` is set.
fn sample(now: Time, delivered: u64, bw: f64, rtt: Time, inflight: u64) -> Acked {
    let interval = rtt;
    let over = libm::round(bw * secs(interval)) as u64;
    Acked {
        segments: 1,
        rtt: Some(rtt),
        ece: false,
        now,
        srtt_s: secs(rtt),
        rate: Some(RateSample {
            delivered: over,
            interval: Some(interval),
            prior_delivered: delivered.saturating_sub(over),
            is_app_limited: false,
            acked_sacked: 1,
            losses: 0,
            rtt: Some(rtt),
            prior_in_flight: inflight,
            in_flight: inflight,
            total_delivered: delivered,
            delivered_time: now,
            state: CaState::Open,
        }),
    }
}

/// The filter keeps the maximum of the last `window` rounds: a peak at round 1 holds
/// through round 11 (dt = 10 is not beyond the window) and ages out at 12, replaced by
/// the best later sample (the second best kept), then the third.
#[test]
fn the_max_filter_forgets_after_its_window() {
    let mut f = MaxFilter::default();
    assert_eq!(f.update(10, 1, 100.0), 100.0);
    assert_eq!(f.update(10, 4, 80.0), 100.0);
    assert_eq!(f.update(10, 7, 60.0), 100.0);
    assert_eq!(f.update(10, 11, 50.0), 100.0);
    // Round 12: 100 (round 1) is 11 rounds old; 80 (round 4) becomes the maximum.
    assert_eq!(f.update(10, 12, 40.0), 80.0);
    // Round 15: 80 (round 4) is 11 old; the third sample was replaced by the fresher 60 or
    // later, none above 60.
    assert!(f.update(10, 15, 30.0) <= 60.0);
    // A new maximum resets the three.
    assert_eq!(f.update(10, 16, 200.0), 200.0);
    assert_eq!(f.s, [(16, 200.0); 3]);
    // A gap longer than the window resets to the new sample.
    assert_eq!(f.update(10, 40, 5.0), 5.0);
}

/// Startup paces at 2/ln 2 and grows the window by the ACKed segments; three rounds
/// without 25% bandwidth growth fill the pipe; Drain paces at ln 2/2 until inflight is
/// down to BDP + budget; ProbeBW starts in a phase other than 0.75.
#[test]
fn startup_drain_probe_bw() {
    let mut b = bbr();
    assert_eq!(b.mode(), Mode::Startup);
    assert!((b.pacing_gain() - 2.885390081777927).abs() < 1e-12);
    let rtt = 40 * MS;
    // Bandwidth 1000/s, rounds ending at every ACK (prior_delivered ≥ next round's start).
    let mut delivered = 100;
    let mut now = NS_PER_SEC;
    b.cwnd = 10.0;
    let mut cwnd = 10.0;
    for round in 1..=4 {
        let ack = sample(now, delivered, 1000.0, rtt, 60);
        let before = b.cwnd;
        cwnd = b.on_ack(cwnd, 1e9, &ack);
        assert_eq!(b.round_count(), round);
        if round < 4 {
            assert_eq!(b.mode(), Mode::Startup, "round {round}");
            assert_eq!(cwnd, before + 1.0, "slow start adds the acked segment");
        }
        delivered += 50;
        now += rtt;
    }
    // Round 1 set full_bw = 1000; rounds 2, 3, 4 did not grow it by 25%: full at round 4.
    assert!(b.filled_pipe());
    assert_eq!(b.mode(), Mode::Drain);
    assert!((b.pacing_gain() - 1.0 / HIGH_GAIN).abs() < 1e-12);
    assert_eq!(b.cwnd_gain(), HIGH_GAIN);
    // BDP = 1000/s × 40 ms = 40; the budget: 3 × 2 (rate > 1.2 Mb/s at 1500 B) = 46, even.
    assert_eq!(b.bdp(1.0), 40.0);
    assert_eq!(b.inflight_target(1.0), 46.0);
    // Still 47 in flight: Drain; 46: ProbeBW.
    b.on_ack(cwnd, 1e9, &sample(now, delivered, 1000.0, rtt, 47));
    assert_eq!(b.mode(), Mode::Drain);
    b.on_ack(cwnd, 1e9, &sample(now + MS, delivered + 1, 1000.0, rtt, 46));
    assert_eq!(b.mode(), Mode::ProbeBw);
    assert_ne!(b.cycle_index(), 1);
    assert_eq!(b.pacing_gain(), b.cycle_gain(b.cycle_index()));
    assert_eq!(b.cwnd_gain(), 2.0);
}

/// Over many entries into ProbeBW the start phase is uniform over the seven phases other
/// than 0.75's (Linux's `CYCLE_LEN − 1 − rand(7)`, then one advance).
#[test]
fn probe_bw_starts_anywhere_but_the_drain_phase() {
    let mut b = bbr();
    let mut seen = [0u32; CYCLE_LEN];
    for _ in 0..7000 {
        b.enter_probe_bw(0);
        seen[b.cycle_index()] += 1;
    }
    assert_eq!(seen[1], 0);
    for (i, &n) in seen.iter().enumerate().filter(|&(i, _)| i != 1) {
        // 1000 expected, binomial sd ≈ 29: ±150 is over 5 sd.
        assert!((850..=1150).contains(&n), "phase {i}: {n}");
    }
}

/// The gain-1 phases last RTprop; the 1.25 phase also until inflight reaches BDP(1.25) +
/// budget; the 0.75 phase ends early once inflight is down to BDP + budget.
#[test]
fn gain_cycle_phases_end_as_the_draft_says() {
    let mut b = bbr();
    let rtt = 40 * MS;
    b.min_rtt = Some(rtt);
    b.btl_bw.reset(0, 1000.0);
    b.filled_pipe = true;
    // The send quantum follows the pacing rate: 990/s (1000 less 1%) gives 2 segments.
    b.pacing_rate = 990.0;
    b.mode = Mode::ProbeBw;
    b.cycle_index = 0;
    b.cycle_stamp = 0;
    b.update_gains();
    let rs = |t: Time, inflight: u64| RateSample {
        prior_in_flight: inflight,
        delivered_time: t,
        ..RateSample::default()
    };
    // BDP(1.25) = 50, budget 6, even, +2 in phase 0: 58.
    assert_eq!(b.inflight_target(1.25), 58.0);
    assert!(
        !b.is_next_cycle_phase(&rs(rtt + 1, 57)),
        "inflight below the target"
    );
    assert!(!b.is_next_cycle_phase(&rs(rtt, 58)), "not yet RTprop");
    assert!(b.is_next_cycle_phase(&rs(rtt + 1, 58)));
    b.advance_cycle(rtt + 1);
    b.update_gains();
    assert_eq!(b.pacing_gain(), 0.75);
    let t1 = rtt + 1;
    assert!(!b.is_next_cycle_phase(&rs(t1 + MS, 47)));
    assert!(
        b.is_next_cycle_phase(&rs(t1 + MS, 46)),
        "drained to BDP + budget"
    );
    b.advance_cycle(t1 + MS);
    b.update_gains();
    assert_eq!(b.pacing_gain(), 1.0);
    assert!(!b.is_next_cycle_phase(&rs(t1 + MS + rtt, 0)));
    assert!(b.is_next_cycle_phase(&rs(t1 + MS + rtt + 1, 0)));
}

/// ProbeRTT: entered when RTprop is older than 10 s (the window saved), cwnd ≤ 4 until
/// inflight is down to 4, then for 200 ms and a round; at its end RTprop's stamp is now,
/// the window is restored and ProbeBW resumes.
#[test]
fn probe_rtt_holds_four_segments_for_200_ms_and_a_round() {
    let mut b = bbr();
    let rtt = 40 * MS;
    b.min_rtt = Some(rtt);
    b.min_rtt_stamp = 0;
    b.btl_bw.reset(0, 1000.0);
    b.filled_pipe = true;
    b.mode = Mode::ProbeBw;
    b.cycle_index = 3;
    b.update_gains();
    b.cwnd = 90.0;
    // A larger RTT at 10 s + 1 ns: the filter expired, so it is taken, and ProbeRTT begins.
    let t0 = 10 * NS_PER_SEC + 1;
    let mut d = 10_000;
    let cwnd = b.on_ack(90.0, 1e9, &sample(t0, d, 1000.0, 45 * MS, 60));
    assert_eq!(b.mode(), Mode::ProbeRtt);
    assert_eq!(b.min_rtt(), Some(45 * MS));
    assert_eq!(cwnd, 4.0);
    assert_eq!(b.prior_cwnd, 90.0);
    assert!(b.app_limited());
    // Inflight reaches 4 at t0 + 50 ms: done no earlier than 200 ms later. Each later ACK
    // delivers 50, more than a sample's 40 (1000/s over 40 ms): each starts a round.
    d += 50;
    b.on_ack(4.0, 1e9, &sample(t0 + 50 * MS, d, 1000.0, 45 * MS, 4));
    assert_eq!(b.probe_rtt_done, Some(t0 + 250 * MS));
    let mut t = t0 + 50 * MS;
    while t <= t0 + 250 * MS {
        t += 10 * MS;
        d += 50;
        let c = b.on_ack(4.0, 1e9, &sample(t, d, 1000.0, 45 * MS, 4));
        if t <= t0 + 250 * MS {
            assert_eq!((b.mode(), c), (Mode::ProbeRtt, 4.0), "t {t}");
        }
    }
    // t = t0 + 260 ms, after the deadline and a round (every ACK here starts one).
    assert_eq!(b.mode(), Mode::ProbeBw);
    assert_eq!(b.min_rtt_stamp, t);
    assert_eq!(b.cwnd, 91.0, "restored to 90, then one acked segment");
}

/// Recovery: the first ACK sets cwnd = inflight + acked and keeps packet conservation for
/// a round; losses come off the window; the exit restores the saved window. A timeout:
/// cwnd 1, ssthresh unchanged, the saved window back when the loss state ends.
#[test]
fn recovery_and_timeout_follow_linux() {
    let mut b = bbr();
    let rtt = 40 * MS;
    b.min_rtt = Some(rtt);
    b.min_rtt_stamp = 5 * NS_PER_SEC;
    b.btl_bw.reset(0, 1000.0);
    b.filled_pipe = true;
    b.mode = Mode::ProbeBw;
    b.cycle_index = 3;
    b.update_gains();
    b.cwnd = 80.0;
    let r = b.on_congestion(Congestion::Loss { flight: 80 }, 83.0, 1e9);
    assert_eq!(
        r,
        Reduction {
            ssthresh: 1e9,
            cwnd: 80.0
        }
    );
    assert_eq!(b.prior_cwnd, 80.0);
    let now = 6 * NS_PER_SEC;
    let with = |a: Acked, state, losses, prior_delivered| {
        let mut rs = a.rate.unwrap();
        rs.state = state;
        rs.losses = losses;
        rs.prior_delivered = prior_delivered;
        Acked {
            rate: Some(rs),
            ..a
        }
    };
    // Entering recovery with 60 in flight, one segment lost: 60 + 1.
    let a = with(sample(now, 1000, 1000.0, rtt, 60), CaState::Recovery, 1, 0);
    assert_eq!(b.on_ack(0.0, 0.0, &a), 61.0);
    // Same round (prior_delivered below the round's start): max(cwnd − losses, inflight + 1).
    let a = with(
        sample(now + MS, 1001, 1000.0, rtt, 58),
        CaState::Recovery,
        2,
        10,
    );
    assert_eq!(b.on_ack(0.0, 0.0, &a), 59.0);
    // Recovery ends: max(cwnd, 80), then growth toward the target (80 + 1).
    let a = with(
        sample(now + 2 * MS, 1002, 1000.0, rtt, 58),
        CaState::Open,
        0,
        1001,
    );
    assert_eq!(b.on_ack(0.0, 0.0, &a), 81.0);
    // A timeout: cwnd 1, ssthresh kept; in the loss state growth by acked; restore at exit.
    let rto = Congestion::Rto {
        flight: 58,
        base: None,
        repeated: false,
        in_mark_window: false,
    };
    let r = b.on_congestion(rto, 81.0, 1e9);
    assert_eq!(r.cwnd, 1.0);
    assert_eq!(r.ssthresh, 1e9);
    assert_eq!(b.prior_cwnd, 81.0);
    let a = with(
        sample(now + 300 * MS, 1003, 1000.0, rtt, 1),
        CaState::Loss,
        0,
        1003,
    );
    assert_eq!(b.on_ack(0.0, 0.0, &a), 4.0, "1 + 1, at least min_cwnd");
    let a = with(
        sample(now + 340 * MS, 1004, 1000.0, rtt, 2),
        CaState::Open,
        0,
        1004,
    );
    assert_eq!(b.on_ack(0.0, 0.0, &a), 82.0, "max(4, 81) + 1");
}

#[test]
fn spec_checks() {
    let mut p = Problems::default();
    BbrSpec::default().validate("f.congestion", &mut p);
    assert!(p.is_empty());
    BbrSpec {
        high_gain: 1.0,
        drain_gain: Some(1.5),
        cwnd_gain: 0.0,
        probe_bw_up: 0.9,
        probe_bw_down: 1.1,
        min_cwnd: 0.0,
        probe_rtt_interval: Duration(0),
        probe_rtt_duration: Duration(0),
        bw_filter_rounds: 0,
        full_bw_threshold: f64::NAN,
        full_bw_rounds: 0,
        pacing_margin: -0.1,
    }
    .validate("f.congestion", &mut p);
    let paths: Vec<&str> = p.errors.iter().map(|e| e.path.as_str()).collect();
    assert_eq!(
        paths,
        [
            "f.congestion.high_gain",
            "f.congestion.drain_gain",
            "f.congestion.cwnd_gain",
            "f.congestion.probe_bw_up",
            "f.congestion.probe_bw_down",
            "f.congestion.full_bw_threshold",
            "f.congestion.pacing_margin",
            "f.congestion.min_cwnd",
            "f.congestion.probe_rtt_interval",
            "f.congestion.probe_rtt_duration",
            "f.congestion.probe_rtt_duration",
            "f.congestion.bw_filter_rounds",
            "f.congestion.full_bw_rounds",
        ]
    );
}
