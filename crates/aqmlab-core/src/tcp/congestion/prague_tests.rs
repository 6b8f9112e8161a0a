//! Prague's decisions against values derived by hand from the rules in `prague.rs`.

use super::*;
use crate::tcp::congestion::{CongestionSpec, TEST_ACK};

const MS: Time = 1_000_000;
const ACK: Acked = TEST_ACK;

fn prague(rtt_scaling: RttScaling, alpha_mode: AlphaMode) -> Prague {
    Prague::new(
        PragueConfig {
            rtt_scaling,
            alpha_mode,
            ..PragueConfig::default()
        },
        2.0,
        1000,
    )
}

fn delivery(segments: u64, ece: bool, una: u64, high: u64, now: Time) -> Delivery {
    Delivery {
        segments,
        ece,
        una,
        high,
        rtt: None,
        now,
    }
}

/// An ECN reaction on `cwnd` in slow start (ssthresh 1000).
fn ecn(p: &mut Prague, cwnd: f64) -> Reduction {
    ecn_at(p, cwnd, 1e3)
}

fn ecn_at(p: &mut Prague, cwnd: f64, ssthresh: f64) -> Reduction {
    p.on_congestion(Congestion::Ecn { flight: 40 }, cwnd, ssthresh)
}

/// A controller past the transition and out of slow start (RTT-independent with "rate").
fn in_avoidance(mut p: Prague) -> Prague {
    p.round = DEFAULT_RTT_TRANSITION;
    p.slow_start = false;
    p.first_cut_pending = false;
    p
}

/// Windows [1, 11) with F = 5/10 = 0.5, then [11, 21) with F = 0, g = 1/16. From α = 0
/// (Linux v0.7): 0 → 0.5/16 = 1/32 → (15/16)/32 = 15/512. From α = 1 (v0.6): held at 1
/// while no mark was seen (DCTCP would fall to 15/16 after the first, unmarked window),
/// then 15/16 + 1/32 = 31/32 → (15/16)(31/32) = 465/512. All exact in binary.
#[test]
fn alpha_is_the_ewma_of_f_once_per_window_from_the_first_mark_on() {
    for (mode, start, after_half, after_zero) in [
        (AlphaMode::HalveAtFirstMark, 0.0, 1.0 / 32.0, 15.0 / 512.0),
        (AlphaMode::StartAtOne, 1.0, 31.0 / 32.0, 465.0 / 512.0),
    ] {
        let mut p = prague(RttScaling::None, mode);
        // The first ACK ends the empty initial window; no mark seen: no update.
        p.on_delivery(&delivery(1, false, 1, 11, 0));
        assert_eq!(p.alpha(), start, "{mode:?}");
        for una in 2..=11 {
            p.on_delivery(&delivery(1, una >= 7, una, 21, una * MS));
            if una < 11 {
                assert_eq!(p.alpha(), start, "{mode:?}: no update inside the window");
            }
        }
        assert_eq!((p.alpha(), p.f), (after_half, 0.5), "{mode:?}");
        for una in 12..=21 {
            p.on_delivery(&delivery(1, false, una, 31, una * MS));
        }
        assert_eq!((p.alpha(), p.f), (after_zero, 0.0), "{mode:?}");
    }
}

/// RTT-independent (rate scaling, past the transition), a window also lasts `rtt_target`:
/// the window [.., 10) ends at 5 ms after the last update, too soon, so it runs on; the
/// next ACK at 30 ms closes both: F = 10 marked / 20 acked = 1/2, α = 1/32. Without the
/// scaling the first would close alone with F = 1: α = 1/16.
#[test]
fn an_rtt_independent_window_lasts_the_target() {
    for (scaling, alpha_at_5ms, alpha_at_30ms) in [
        (RttScaling::Rate, 0.0, 1.0 / 32.0),
        (RttScaling::None, 1.0 / 16.0, 15.0 / 256.0),
    ] {
        let mut p = in_avoidance(prague(scaling, AlphaMode::HalveAtFirstMark));
        p.window_end = 10;
        p.on_delivery(&delivery(10, true, 10, 20, 5 * MS));
        assert_eq!(p.alpha(), alpha_at_5ms, "{scaling:?}");
        p.on_delivery(&delivery(10, false, 20, 30, 30 * MS));
        // None: the second window [10, 20) has F = 0: (15/16)/16 = 15/256.
        assert_eq!(p.alpha(), alpha_at_30ms, "{scaling:?}");
    }
}

/// The first mark halves (α = 0 then, Linux v0.7's mode 0); later marks cut by α/2:
/// α = 1/2 takes 40 to 30; α = 1 (v0.6's start) halves; the floor is 2.
#[test]
fn a_mark_cuts_by_half_alpha_after_the_first_which_halves() {
    let mut p = prague(RttScaling::None, AlphaMode::HalveAtFirstMark);
    let r = ecn(&mut p, 40.0);
    assert_eq!((r.ssthresh, r.cwnd), (20.0, 20.0));
    let r = ecn(&mut p, 40.0);
    assert_eq!(
        (r.ssthresh, r.cwnd),
        (40.0, 40.0),
        "α = 0: no cut, slow start ends"
    );
    p.alpha = 0.5;
    assert_eq!(ecn(&mut p, 40.0).cwnd, 30.0);
    p.alpha = 1.0;
    assert_eq!(ecn(&mut p, 3.0).cwnd, 2.0);
    let mut one = prague(RttScaling::None, AlphaMode::StartAtOne);
    assert_eq!(ecn(&mut one, 40.0).cwnd, 20.0);
    assert_eq!(
        ecn(&mut one, 40.0).cwnd,
        20.0,
        "no extra halving: α = 1 each time"
    );
}

/// RTT-independent, a reduction less than the 25 ms target after the last is skipped
/// (Linux `prague_enter_cwr`): at 100 ms 40 → 30 (α = 1/2), at 110 ms nothing, at 125 ms
/// 30 → 22.5. Before the transition (round 3) the one at 110 ms cuts.
#[test]
fn rtt_independent_reductions_are_a_target_apart() {
    let mut p = in_avoidance(prague(RttScaling::Rate, AlphaMode::HalveAtFirstMark));
    p.alpha = 0.5;
    p.now = 100 * MS;
    assert_eq!(ecn_at(&mut p, 40.0, 40.0).cwnd, 30.0);
    p.now = 110 * MS;
    let r = ecn_at(&mut p, 30.0, 30.0);
    assert_eq!(
        (r.ssthresh, r.cwnd),
        (30.0, 30.0),
        "skipped: the sender's values back"
    );
    assert!(p.rtt_independent());
    p.now = 125 * MS;
    assert_eq!(ecn_at(&mut p, 30.0, 30.0).cwnd, 22.5);
    p.round = DEFAULT_RTT_TRANSITION - 1;
    p.now = 130 * MS;
    assert_eq!(ecn_at(&mut p, 30.0, 30.0).cwnd, 22.5);
}

/// Per unmarked segment n/cwnd in avoidance: a stretch ACK of 10 on cwnd 10 adds exactly 1
/// (one segment per round), 4 on 8 adds 1/2; ten single ACKs from 10 add Σ 1/c_i with every
/// c_i in [10, 11): between 10/11 and 1. A marked ACK adds nothing, in slow start too;
/// slow start counts segments to ssthresh and the rest grows as avoidance: 4 + 3 with
/// ssthresh 6 gives 6 + 1/6. After a cut the next unmarked ACK grows (DCTCP holds a round).
#[test]
fn unmarked_segments_grow_the_window_one_per_round() {
    let mut p = prague(RttScaling::None, AlphaMode::HalveAtFirstMark);
    let acked = |segments, ece| Acked {
        segments,
        ece,
        srtt_s: 0.05,
        ..ACK
    };
    assert_eq!(p.on_ack(10.0, 5.0, &acked(10, false)), 11.0);
    assert_eq!(p.on_ack(8.0, 5.0, &acked(4, false)), 8.5);
    assert_eq!(p.on_ack(10.0, 5.0, &acked(10, true)), 10.0);
    assert_eq!(p.on_ack(4.0, 6.0, &acked(3, true)), 4.0);
    assert_eq!(p.on_ack(4.0, 6.0, &acked(3, false)), 6.0 + 1.0 / 6.0);
    let mut w = 10.0;
    for _ in 0..10 {
        w = p.on_ack(w, 5.0, &acked(1, false));
    }
    assert!(w - 10.0 > 10.0 / 11.0 && w - 10.0 < 1.0, "{w}");
    let cut = ecn(&mut p, 40.0).cwnd;
    assert_eq!(p.on_ack(cut, cut, &acked(1, false)), 20.0 + 1.0 / 20.0);
}

/// Rate scaling below the 25 ms target, past the transition: s = (R/25 ms)², so a round
/// (a stretch ACK of cwnd = 10 segments) adds s: 0.04 at 5 ms (25 times less per ACK and
/// per round than unscaled), 0.25 at 12.5 ms, 1 at 30 ms (above the target), 1 before the
/// transition or with "none". The rate cwnd/R then grows by s/R per round of R, s/R² per
/// second: 0.04/0.005² = 1600 segments/s², as a flow at the target, 1/0.025² = 1600.
#[test]
fn below_the_target_rtt_the_rate_grows_as_at_the_target() {
    let acked = |srtt_s| Acked {
        segments: 10,
        srtt_s,
        ..ACK
    };
    let mut p = in_avoidance(prague(RttScaling::Rate, AlphaMode::HalveAtFirstMark));
    let gain = |p: &mut Prague, srtt_s| p.on_ack(10.0, 5.0, &acked(srtt_s)) - 10.0;
    let g5 = gain(&mut p, 0.005);
    assert!((g5 - 0.04).abs() < 1e-12, "{g5}");
    assert!((gain(&mut p, 0.0125) - 0.25).abs() < 1e-12);
    assert_eq!(gain(&mut p, 0.030), 1.0);
    let g25 = gain(&mut p, 0.025);
    assert_eq!(g25, 1.0);
    let (r5, r25) = (g5 / 0.005 / 0.005, g25 / 0.025 / 0.025);
    assert!(
        (r5 - 1600.0).abs() < 1e-6 && (r25 - 1600.0).abs() < 1e-6,
        "{r5} {r25}"
    );
    let mut m = [0.0; 3];
    p.on_ack(10.0, 5.0, &acked(0.005));
    p.metrics(&mut m);
    assert!((m[2] - 0.04).abs() < 1e-12, "ai_scale traced: {m:?}");
    p.round = DEFAULT_RTT_TRANSITION - 1;
    assert_eq!(gain(&mut p, 0.005), 1.0);
    let mut none = in_avoidance(prague(RttScaling::None, AlphaMode::HalveAtFirstMark));
    assert_eq!(gain(&mut none, 0.005), 1.0);
}

/// A loss halves the window (not FlightSize: Linux `prague_enter_loss`), floor 2; a
/// timeout is Reno's: cwnd 1, ssthresh min(FlightSize, cwnd)/2 = min(30, 20)/2 = 10.
#[test]
fn a_loss_halves_the_window_and_a_timeout_is_renos() {
    let mut p = prague(RttScaling::Rate, AlphaMode::HalveAtFirstMark);
    let loss = |flight| Congestion::Loss { flight };
    let r = p.on_congestion(loss(30), 40.0, 1e3);
    assert_eq!((r.ssthresh, r.cwnd), (20.0, 20.0));
    let r = p.on_congestion(loss(3), 3.0, 1e3);
    assert_eq!((r.ssthresh, r.cwnd), (2.0, 2.0));
    let rto = Congestion::Rto {
        flight: 30,
        base: None,
        repeated: false,
        in_mark_window: false,
    };
    let r = p.on_congestion(rto, 20.0, 20.0);
    assert_eq!((r.ssthresh, r.cwnd), (10.0, 1.0));
}

/// ratio·cwnd/SRTT at SRTT 100 ms: 2·10/0.1 = 200 segments/s below ssthresh/2 = 50,
/// 1·60/0.1 = 600 at or above it (1·50/0.1 = 500 exactly at it), 1.2·60/0.1 = 720 with
/// Linux's default ratio; none before an RTT sample.
#[test]
fn pacing_is_twice_the_window_per_rtt_in_slow_start_and_once_after() {
    let mut p = prague(RttScaling::Rate, AlphaMode::HalveAtFirstMark);
    assert_eq!(p.pacing_rate(), None);
    p.srtt_s = 0.1;
    let close = |r: Option<f64>, want: f64| r.is_some_and(|r| (r - want).abs() < 1e-9);
    for (cwnd, want) in [(10.0, 200.0), (60.0, 600.0), (50.0, 500.0)] {
        p.note(cwnd, 100.0);
        assert!(
            close(p.pacing_rate(), want),
            "{cwnd}: {:?}",
            p.pacing_rate()
        );
    }
    p.cfg.pacing_ca_ratio = 1.2;
    p.note(60.0, 100.0);
    assert!(close(p.pacing_rate(), 720.0), "{:?}", p.pacing_rate());
}

/// Through a sender: a window of ECE ACKs is one reduction, the next window's another
/// with α. Segments 0..=9 out; ACK 1 (ECE) ends the initial window with F = 1/1:
/// α = 1/16, and the first reaction halves: cwnd 10 → 5. ACKs 2..=10 (ECE, up to the
/// guard at 10): no reaction, no growth; ACK 10 closes [1, 10) with F = 9/9:
/// α = (15/16)/16 + 1/16 = 31/256. ACK 11 (ECE): 5·(1 − 31/512) = 4.697265625.
#[test]
fn through_the_sender_marks_cut_once_per_window() {
    use crate::tcp::receiver::Ack;
    use crate::tcp::sender::{Sender, SenderConfig};
    use crate::tcp::Variant;
    let mut s = Sender::new(SenderConfig {
        ecn: true,
        initial_cwnd: 10.0,
        congestion: CongestionSpec::Prague(PragueSpec {
            rtt_scaling: RttScaling::None,
            ..PragueSpec::default()
        }),
        ..crate::tcp::sender::tests::cfg(Variant::Sack)
    });
    let mut out = vec![];
    s.start(0, &mut out);
    assert_eq!(out.len(), 10);
    let ece = |n| Ack {
        ack: n,
        ece: true,
        ..Default::default()
    };
    let alpha = |s: &Sender| {
        let mut m = [0.0; 3];
        s.controller_metrics(&mut m);
        m[0]
    };
    s.on_ack(&ece(1), 100 * MS, &mut out);
    assert_eq!((s.cwnd, s.ssthresh, s.stats.ecn_reactions), (5.0, 5.0, 1));
    assert_eq!(alpha(&s), 1.0 / 16.0);
    for n in 2..=10 {
        s.on_ack(&ece(n), (100 + n) * MS, &mut out);
    }
    assert_eq!((s.cwnd, s.stats.ecn_reactions), (5.0, 1));
    assert_eq!(alpha(&s), 31.0 / 256.0);
    s.on_ack(&ece(11), 111 * MS, &mut out);
    assert_eq!((s.cwnd, s.stats.ecn_reactions), (4.697265625, 2));
}

/// The detector's estimator: the first sample sets SRTT (10 ms) and σ = 1 µs; with
/// ssthresh 4 the shift is ⌊lg 4⌋ + 1 + 1 = 4, so 12 ms moves SRTT by 2 ms/16 to
/// 10.125 ms and σ by (2 ms − 1 µs)/32 to 63.46875 µs. Shifts: ssthresh 1000 gives
/// 9 + 4 + 1 = 14; 10⁹ gives 29 + 14 + 1 = 44, capped at 18; below 1, lg 1 = 0: 1.
#[test]
fn the_detector_smooths_rtt_with_gains_from_ssthresh() {
    let mut d = ClassicEcn::default();
    assert_eq!(d.shift, 18);
    d.sample(10 * MS);
    assert_eq!((d.srtt, d.mdev), (10e6, 1e3));
    d.set_gain(4.0);
    assert_eq!(d.shift, 4);
    d.sample(12 * MS);
    assert_eq!(
        (d.srtt, d.mdev, d.min_rtt),
        (10_125_000.0, 63_468.75, 10 * MS)
    );
    for (ssthresh, shift) in [(1000.0, 14), (1e9, 18), (0.5, 1)] {
        d.set_gain(ssthresh);
        assert_eq!(d.shift, shift, "{ssthresh}");
    }
}

/// The score per window: σ = 3 ms and a queue of SRTT − min = 14 − 10 = 4 ms give
/// ½·lg(3000/750) + ½·lg(4000/2000) = 1 + ½ = 1.5: classic (9) after 6 windows, capped at
/// 17 after 12. σ = 375 µs with 1 ms of queue (below D0: no term) gives −½: 17 → 16.5,
/// and from 9 to 8.5, where α's floor is 0.625·0.5 = 0.3125. An L4S queue (σ 100 µs,
/// 0.5 ms) takes ½·lg(100/750) = −1.45 a window, held at 0.
#[test]
fn the_detector_scores_deep_variable_queues_as_classic() {
    let mut d = ClassicEcn {
        srtt: 14e6,
        mdev: 3e6,
        min_rtt: 10 * MS,
        ..ClassicEcn::default()
    };
    for k in 1..=5 {
        d.round();
        assert_eq!(d.score(), 1.5 * k as f64);
    }
    assert_eq!(d.alpha_floor(), 0.0);
    d.round();
    assert_eq!((d.score(), d.alpha_floor()), (9.0, 0.625));
    for _ in 0..6 {
        d.round();
    }
    assert_eq!(d.score(), 17.0);
    (d.srtt, d.mdev) = (11e6, 375e3);
    d.round();
    assert_eq!(d.score(), 16.5);
    d.score = 9.0;
    d.round();
    assert_eq!((d.score(), d.alpha_floor()), (8.5, 0.3125));
    let mut l4s = ClassicEcn {
        srtt: 10.5e6,
        mdev: 100e3,
        min_rtt: 10 * MS,
        ..ClassicEcn::default()
    };
    l4s.round();
    assert_eq!(l4s.score(), 0.0);
    // No sample yet: nothing to score.
    let mut fresh = ClassicEcn::default();
    fresh.round();
    assert_eq!(fresh.score(), 0.0);
}

/// With "fallback" a classic verdict (9) floors α = 0.1 at 0.625: 40·(1 − 0.3125) = 27.5;
/// with "detect" the same score leaves the cut at 40·(1 − 0.05) = 38. Only these modes
/// ask for per-ACK RTT samples and trace the score.
#[test]
fn the_fallback_floors_alpha_only_when_asked() {
    let with = |mode| {
        let mut p = Prague::new(
            PragueConfig {
                classic_ecn_fallback: mode,
                rtt_scaling: RttScaling::None,
                ..PragueConfig::default()
            },
            2.0,
            1000,
        );
        p.first_cut_pending = false;
        p.alpha = 0.1;
        p
    };
    let mut fb = with(ClassicEcnFallback::Fallback);
    fb.detector.as_mut().expect("a detector").score = 9.0;
    assert_eq!(ecn(&mut fb, 40.0).cwnd, 27.5);
    let mut detect = with(ClassicEcnFallback::Detect);
    detect.detector.as_mut().expect("a detector").score = 9.0;
    assert_eq!(ecn(&mut detect, 40.0).cwnd, 38.0);
    assert!(fb.wants_ack_rtt() && detect.wants_ack_rtt());
    assert_eq!(fb.metric_names()[3], "classic_ecn");
    let mut m = [0.0; 4];
    detect.metrics(&mut m);
    assert_eq!(m[3], 9.0);
    let off = with(ClassicEcnFallback::Off);
    assert!(!off.wants_ack_rtt());
    assert_eq!(off.metric_names().len(), 3);
}

#[test]
fn invalid_fields_are_refused_with_their_paths() {
    let mut p = Problems::default();
    PragueSpec {
        g: 0.0,
        rtt_target: Duration(0),
        pacing_ss_ratio: f64::NAN,
        pacing_ca_ratio: 11.0,
        ..PragueSpec::default()
    }
    .validate("flows[0].congestion", &mut p);
    let text = format!("{p:?}");
    for field in ["g", "rtt_target", "pacing_ss_ratio", "pacing_ca_ratio"] {
        assert!(
            text.contains(&format!("flows[0].congestion.{field}")),
            "{field}: {text}"
        );
    }
    let mut ok = Problems::default();
    PragueSpec::default().validate("c", &mut ok);
    assert_eq!(format!("{ok:?}"), format!("{:?}", Problems::default()));
}
