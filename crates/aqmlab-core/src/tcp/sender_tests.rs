use super::*;
use crate::units::NS_PER_SEC as S;

const MS: Time = S / 1000;

/// A Reno sender of 2 initial segments, no ECN, RFC 5681 and 6298 throughout (the
/// controllers' sender tests start from it too).
pub(crate) fn cfg(variant: Variant) -> SenderConfig {
    SenderConfig {
        variant,
        ecn: false,
        ecn_backoff: false,
        dupack_response: DupackResponse::Halve,
        recovery: Recovery::Classic,
        partial_ack: PartialAck::Rfc6582,
        halving: Halving::Rfc5681,
        fr_timer: FrTimer::Keep,
        recover_guard: RecoverGuard::Rfc6582,
        max_window: 1000,
        initial_cwnd: 2.0,
        initial_ssthresh: 1000.0,
        dupthresh: 3,
        // These unit tests count segments exactly as RFC 5681 alone would send them.
        limited_transmit: false,
        min_rto: 200 * MS,
        initial_rto: S,
        max_rto: 60 * S,
        granularity: 10 * MS,
        rtt_rule: RttRule::Rfc6298,
        clock_phase: 0,
        segments: None,
        congestion: Default::default(),
        pacing: false,
        segment_bytes: 1000,
        congestion_seed: 0,
    }
}

fn ack(n: u64) -> Ack {
    Ack {
        ack: n,
        ..Default::default()
    }
}

fn ece(n: u64) -> Ack {
    Ack {
        ack: n,
        ece: true,
        ..Default::default()
    }
}

fn seqs(out: &[Segment]) -> Vec<u64> {
    out.iter().map(|s| s.seq).collect()
}

/// Starts with `initial_cwnd = 10` (segments 0..=9 out), then acks segment 0: slow start
/// gives cwnd = 11 and segments 10 and 11 go out, so FlightSize = 12 - 1 = 11.
fn sender_with_flight_11(c: SenderConfig) -> Sender {
    let mut s = Sender::new(SenderConfig {
        initial_cwnd: 10.0,
        ..c
    });
    let mut out = vec![];
    s.start(0, &mut out);
    assert_eq!(seqs(&out), (0..10).collect::<Vec<_>>());
    out.clear();
    s.on_ack(&ack(1), 100 * MS, &mut out);
    assert_eq!(seqs(&out), vec![10, 11]);
    assert_eq!((s.cwnd, s.flight()), (11.0, 11));
    s
}

fn timeouts_by_state(s: &Sender) -> [u64; 4] {
    let t = &s.stats;
    [
        t.timeouts_open,
        t.timeouts_disorder,
        t.timeouts_recovery,
        t.timeouts_loss,
    ]
}

fn expire(s: &mut Sender, out: &mut Vec<Segment>) -> Time {
    let d = s.rto_deadline.expect("armed while data is outstanding");
    s.on_timeout(d, out);
    d
}

/// Each timeout is counted once more by the state the timer found it in: `open` (no
/// duplicate ACK: the whole window was lost), `disorder` (duplicate ACKs but no fast
/// retransmit), `recovery`, and `loss` (after an earlier timeout, until the cumulative
/// ACK passes one past the highest segment sent at that timeout).
#[test]
fn timeouts_are_classified_by_the_state_at_expiry() {
    let mut out = vec![];
    // Segments 1..=11 outstanding (12 = one past the highest sent), no duplicate ACK.
    let mut s = sender_with_flight_11(cfg(Variant::NewReno));
    expire(&mut s, &mut out);
    assert_eq!(timeouts_by_state(&s), [1, 0, 0, 0]);
    // The timer's copy of segment 1 is lost as well.
    let t = expire(&mut s, &mut out);
    assert_eq!(timeouts_by_state(&s), [1, 0, 0, 1]);
    // An ACK below 12 keeps the loss state; the next expiry is a loss timeout again.
    s.on_ack(&ack(5), t + 100 * MS, &mut out);
    let t = expire(&mut s, &mut out);
    assert_eq!(timeouts_by_state(&s), [1, 0, 0, 2]);
    // An ACK of everything outstanding at the timeouts ends it: open again.
    s.on_ack(&ack(12), t + 100 * MS, &mut out);
    assert!(s.rto_deadline.is_some(), "new data went out");
    expire(&mut s, &mut out);
    assert_eq!(timeouts_by_state(&s), [2, 0, 0, 2]);
    assert_eq!(s.stats.timeouts, 4);

    // One or two duplicate ACKs, no fast retransmit: disorder.
    for dupacks in [1, 2] {
        let mut s = sender_with_flight_11(cfg(Variant::NewReno));
        for k in 0..dupacks {
            s.on_ack(&ack(1), 200 * MS + k, &mut out);
        }
        expire(&mut s, &mut out);
        assert_eq!(timeouts_by_state(&s), [0, 1, 0, 0], "{dupacks} dupacks");
    }

    // During fast recovery (the fast retransmission was lost): recovery, for every
    // variant.
    for v in [Variant::Reno, Variant::NewReno, Variant::Sack] {
        let mut s = sender_with_flight_11(cfg(v));
        for k in 0..3 {
            let a = Ack {
                ack: 1,
                sack: [(2 + k, 3 + k), (0, 0), (0, 0)],
                nsack: 1,
                ..Default::default()
            };
            s.on_ack(&a, 200 * MS + k, &mut out);
        }
        assert!(s.in_recovery(), "{v:?}");
        expire(&mut s, &mut out);
        assert_eq!(timeouts_by_state(&s), [0, 0, 1, 0], "{v:?}");
        assert_eq!(s.stats.timeouts, 1);
    }
}

/// RFC 5681 §3.1: the first timeout sets ssthresh to half the window in flight
/// (min(FlightSize, cwnd) = 11 → 5.5); a timeout of the same, already resent segment
/// holds it instead of halving the restarted window of 1.
#[test]
fn repeated_timeout_of_one_segment_holds_ssthresh() {
    let mut s = sender_with_flight_11(cfg(Variant::NewReno));
    let mut out = vec![];
    for _ in 0..3 {
        let d = s.rto_deadline.unwrap();
        s.on_timeout(d, &mut out);
        assert_eq!((s.ssthresh, s.cwnd), (5.5, 1.0));
    }
    assert_eq!(s.stats.timeouts, 3);
}

/// RFC 6298 §5.5: each expiry doubles the RTO (ns-2: backoff up to 64), capped at
/// max_rto. Without an RTT sample the base RTO is initial_rto, so the deadlines after
/// start are 1, 1+2, 1+2+4, ... seconds.
#[test]
fn rto_backoff_doubles_up_to_max_rto() {
    for (max_rto, gaps) in [
        (10 * S, vec![1, 2, 4, 8, 10, 10, 10]),
        (1000 * S, vec![1, 2, 4, 8, 16, 32, 64, 64, 64]),
    ] {
        let mut s = Sender::new(SenderConfig {
            max_rto,
            ..cfg(Variant::NewReno)
        });
        let mut out = vec![];
        s.start(0, &mut out);
        assert_eq!(seqs(&out), vec![0, 1]);
        let mut now = 0;
        for (k, gap) in gaps.iter().enumerate() {
            let deadline = s.rto_deadline.expect("armed while data is outstanding");
            assert_eq!(deadline - now, gap * S, "gap before expiry {}", k + 1);
            // Early calls are ignored: the timer has not expired.
            out.clear();
            s.on_timeout(deadline - 1, &mut out);
            assert!(out.is_empty());
            assert_eq!(s.stats.timeouts, k as u64);
            now = deadline;
            s.on_timeout(now, &mut out);
            assert_eq!(
                out,
                vec![Segment {
                    seq: 0,
                    retransmit: true,
                    cwr: false
                }]
            );
            assert_eq!(s.stats.timeouts, k as u64 + 1);
            // ssthresh = max(FlightSize/2, 2) with FlightSize = 2; cwnd = 1.
            assert_eq!((s.cwnd, s.ssthresh), (1.0, 2.0));
        }
    }
}

/// A valid RTT sample (never from a retransmitted segment, Karn) ends the backoff.
#[test]
fn a_fresh_rtt_sample_ends_the_backoff() {
    let mut s = Sender::new(cfg(Variant::NewReno));
    let mut out = vec![];
    s.start(0, &mut out);
    for t in [S, 3 * S, 7 * S] {
        s.on_timeout(t, &mut out);
    }
    assert_eq!(s.current_rto(), 8 * S);
    // The ACK of the retransmitted segment 0 (and of the original 1) is no sample.
    out.clear();
    s.on_ack(&ack(2), 7 * S + 100 * MS, &mut out);
    assert_eq!(s.stats.rtt_samples, 0);
    assert_eq!(s.current_rto(), 8 * S);
    assert_eq!(seqs(&out), vec![2, 3]);
    // Segment 2 is new, hence timed: R = 100 ms, SRTT = R, RTTVAR = R/2,
    // RTO = SRTT + max(G, 4 RTTVAR) = 300 ms, backoff back to 1.
    s.on_ack(&ack(3), 7 * S + 200 * MS, &mut out);
    assert_eq!(s.stats.rtt_samples, 1);
    assert_eq!(s.current_rto(), 300 * MS);
}

/// RFC 3168 §6.1.2: on ECE, ssthresh = cwnd = max(FlightSize/2, 2), no retransmission,
/// no window increase for ACKs carrying ECE, CWR on the next new segment only, and at
/// most one reaction per window of data.
#[test]
fn ecn_echo_halves_once_per_window_and_sets_cwr_on_the_next_new_segment() {
    let mut s = sender_with_flight_11(SenderConfig {
        ecn: true,
        ..cfg(Variant::NewReno)
    });
    let mut out = vec![];
    s.on_ack(&ece(2), 200 * MS, &mut out);
    assert_eq!(s.stats.ecn_reactions, 1);
    assert_eq!((s.cwnd, s.ssthresh), (5.5, 5.5), "max(11/2, 2)");
    assert!(out.is_empty(), "10 in flight > cwnd: nothing to send");
    // More ECE ACKs from the same window (until the CWR reaches the receiver): no new
    // reaction and no growth. FlightSize falls to 5 at ack 7; the first new segment
    // goes out when ack 8 opens the window to 8 + 5 = 13.
    for a in 3..=8 {
        s.on_ack(&ece(a), 200 * MS + a * MS, &mut out);
    }
    assert_eq!(s.stats.ecn_reactions, 1);
    assert_eq!((s.cwnd, s.ssthresh), (5.5, 5.5));
    assert_eq!(
        out,
        vec![Segment {
            seq: 12,
            retransmit: false,
            cwr: true
        }]
    );
    // Without ECE the window grows again (congestion avoidance) and CWR is not repeated.
    out.clear();
    s.on_ack(&ack(9), 210 * MS, &mut out);
    assert_eq!(s.cwnd, 5.5 + 1.0 / 5.5);
    assert_eq!(seqs(&out), vec![13]);
    assert!(!out[0].cwr);
    assert_eq!(s.stats.retransmits, 0);
    // A mark on data sent after the reaction (ack 13 > 12, the highest sent then) is a
    // new window: a second reaction. FlightSize is taken when the ACK arrives, before
    // it is applied: 14 - 9 = 5, so max(5/2, 2) = 2.5.
    out.clear();
    s.on_ack(&ece(13), 300 * MS, &mut out);
    assert_eq!(s.stats.ecn_reactions, 2);
    assert_eq!(s.stats.retransmits, 0);
    assert_eq!((s.cwnd, s.ssthresh), (2.5, 2.5));
    assert_eq!(seqs(&out), vec![14]);
    assert!(out[0].cwr);
    // FlightSize 2 (segments 0 and 1): the floor of 2 segments applies.
    let mut s = Sender::new(SenderConfig {
        ecn: true,
        ..cfg(Variant::NewReno)
    });
    s.start(0, &mut out);
    s.on_ack(&ece(1), 100 * MS, &mut out);
    assert_eq!(s.stats.ecn_reactions, 1);
    assert_eq!((s.cwnd, s.ssthresh), (2.0, 2.0));
}

/// A loss and a mark in the same window are one congestion event (RFC 3168 §6.1.2): after
/// a fast retransmit the sender sets CWR on its next new segment, and ECE for data sent
/// before the reduction does not halve again (here Reno, which leaves recovery on the
/// partial ACK while such ECE ACKs are still arriving).
#[test]
fn a_mark_in_the_window_of_a_fast_retransmit_is_not_a_second_reduction() {
    let mut s = sender_with_flight_11(SenderConfig {
        ecn: true,
        ..cfg(Variant::Reno)
    });
    let mut out = vec![];
    for k in 0..3 {
        s.on_ack(&ack(1), 200 * MS + k, &mut out);
    }
    assert_eq!(s.stats.fast_recoveries, 1);
    assert_eq!((s.ssthresh, s.cwnd), (5.5, 8.5));
    assert_eq!(
        out,
        vec![Segment {
            seq: 1,
            retransmit: true,
            cwr: false
        }]
    );
    // Four more dupacks inflate cwnd to 12.5: segment 12 goes out, with CWR.
    out.clear();
    for k in 3..7 {
        s.on_ack(&ece(1), 200 * MS + k, &mut out);
    }
    assert_eq!(
        out,
        vec![Segment {
            seq: 12,
            retransmit: false,
            cwr: true
        }]
    );
    // Partial ACK (Reno leaves recovery, cwnd = ssthresh), then more ECE for data of
    // the same window: no ECN reaction.
    s.on_ack(&ece(5), 300 * MS, &mut out);
    s.on_ack(&ece(5), 301 * MS, &mut out);
    s.on_ack(&ece(6), 302 * MS, &mut out);
    assert_eq!(s.stats.ecn_reactions, 0);
    assert_eq!(s.ssthresh, 5.5);
}

/// RFC 3168 §6.1.2: CWR follows any window reduction, a timeout included (ns-2 sets
/// `cong_action_` in `slowdown`); the go-back-N retransmissions do not carry it, the
/// first new segment does.
#[test]
fn a_timeout_sets_cwr_on_the_next_new_segment() {
    let mut s = Sender::new(SenderConfig {
        ecn: true,
        ..cfg(Variant::NewReno)
    });
    let mut out = vec![];
    s.start(0, &mut out);
    out.clear();
    s.on_timeout(S, &mut out);
    assert_eq!(
        out,
        vec![Segment {
            seq: 0,
            retransmit: true,
            cwr: false
        }]
    );
    out.clear();
    s.on_ack(&ack(1), S + 100 * MS, &mut out);
    s.on_ack(&ack(2), S + 101 * MS, &mut out);
    let flags: Vec<(u64, bool, bool)> = out.iter().map(|s| (s.seq, s.retransmit, s.cwr)).collect();
    assert_eq!(flags[0], (1, true, false));
    assert_eq!(flags[1], (2, false, true));
    assert!(flags[2..].iter().all(|f| !f.2), "{flags:?}");
}

/// RFC 6582 §3.2 step 1 ("Careful" variant, ns-2 `highest_ack_ > recover_`): after a
/// timeout, duplicate ACKs start a fast retransmit only if the cumulative ACK covers
/// data sent after the timeout. Go-back-N resends segments the receiver already holds,
/// whose duplicate ACKs acknowledge exactly what was sent before the timeout.
#[test]
fn dupacks_acking_exactly_the_data_sent_before_a_timeout_do_not_fast_retransmit() {
    let mut s = Sender::new(SenderConfig {
        initial_cwnd: 4.0,
        ..cfg(Variant::NewReno)
    });
    let mut out = vec![];
    s.start(0, &mut out);
    s.on_timeout(S, &mut out);
    assert_eq!(s.stats.timeouts, 1);
    out.clear();
    s.on_ack(&ack(4), S + 100 * MS, &mut out);
    assert_eq!(seqs(&out), vec![4, 5]);
    out.clear();
    for k in 0..5 {
        s.on_ack(&ack(4), S + 101 * MS + k, &mut out);
    }
    assert_eq!(s.stats.fast_recoveries, 0);
    assert_eq!(s.stats.retransmits, 1);
    // An ACK above the data of the timeout re-enables fast retransmit.
    s.on_ack(&ack(5), S + 200 * MS, &mut out);
    out.clear();
    for k in 0..3 {
        s.on_ack(&ack(5), S + 201 * MS + k, &mut out);
    }
    assert_eq!(s.stats.fast_recoveries, 1);
    assert_eq!(
        out[0],
        Segment {
            seq: 5,
            retransmit: true,
            cwr: false
        }
    );
}

/// `recover_guard = "ns3.44"` (ns-3.44's `m_highRxAckMark >= m_recover`): duplicate ACKs
/// that acknowledge exactly the data sent before the timeout do start a fast retransmit.
#[test]
fn ns3_guard_fast_retransmits_at_the_recovery_point() {
    for variant in [Variant::NewReno, Variant::Sack] {
        let mut s = Sender::new(SenderConfig {
            initial_cwnd: 4.0,
            recover_guard: RecoverGuard::Ns3_44,
            ..cfg(variant)
        });
        let mut out = vec![];
        s.start(0, &mut out);
        s.on_timeout(S, &mut out);
        s.on_ack(&ack(4), S + 100 * MS, &mut out);
        out.clear();
        for k in 0..3 {
            s.on_ack(&ack(4), S + 101 * MS + k, &mut out);
        }
        assert_eq!(s.stats.fast_recoveries, 1, "{variant:?}");
        assert_eq!((out[0].seq, out[0].retransmit), (4, true), "{variant:?}");
    }
}

/// The REM paper's wireless NewReno: a loss found by duplicate ACKs is retransmitted
/// without reducing ssthresh; standard TCP halves (max(FlightSize/2, 2)). A timeout
/// gets the normal response in both.
#[test]
fn retransmit_only_keeps_ssthresh_on_dupacks_but_not_on_timeouts() {
    for (resp, ssthresh, after_timeout) in [
        (DupackResponse::Halve, 5.5, 2.75),
        (DupackResponse::RetransmitOnly, 11.0, 5.5),
    ] {
        let mut s = sender_with_flight_11(SenderConfig {
            dupack_response: resp,
            ecn: true,
            ..cfg(Variant::NewReno)
        });
        let mut out = vec![];
        for k in 0..3 {
            s.on_ack(&ack(1), 200 * MS + k, &mut out);
        }
        assert_eq!(s.stats.fast_recoveries, 1, "{resp:?}");
        assert!(out[0].retransmit && out[0].seq == 1);
        assert_eq!((s.ssthresh, s.cwnd), (ssthresh, ssthresh + 3.0), "{resp:?}");
        // The window (1 + cwnd) holds segments below 9 (halve) or 15 (retransmit
        // only), so the latter sends 12, 13 and 14 as well.
        let new: Vec<u64> = out[1..].iter().map(|s| s.seq).collect();
        let expect: Vec<u64> = (12..(1 + ssthresh as u64 + 3)).collect();
        assert_eq!(new, expect, "{resp:?}");
        // Not a window reduction, so no CWR: marks in this window still get the ECN
        // response once recovery is over.
        assert!(out.iter().all(|s| !s.cwr));
        let deadline = s.rto_deadline.unwrap();
        s.on_timeout(deadline, &mut out);
        // A timeout during recovery halves min(FlightSize, un-inflated window):
        // FlightSize = 12 - 1 or 15 - 1, window = ssthresh = 5.5 or 11.
        assert_eq!((s.ssthresh, s.cwnd), (after_timeout, 1.0), "{resp:?}");
    }
}

fn sack_ack(n: u64, blocks: &[(u64, u64)]) -> Ack {
    let mut a = ack(n);
    for (i, &b) in blocks.iter().enumerate() {
        a.sack[i] = b;
    }
    a.nsack = blocks.len() as u8;
    a
}

/// `ecn_backoff` (ns-2's `TcpAgent::ecn`): a mark at a window of 1 halves it to 0, so
/// nothing is sent until the retransmission timer fires, which sends one segment without
/// counting a timeout; a second mark at a window of 1 doubles the timer's backoff, and a
/// marked ACK's RTT sample does not end that backoff. Timer values from RFC 6298 with
/// 100 ms samples: the first gives RTO = 100 + 4·50 = 300 ms, the second (RTTVAR 37.5 ms)
/// 250 ms, doubled to 500 ms.
#[test]
fn ecn_backoff_takes_a_window_of_one_to_zero_and_waits_for_the_timer() {
    let mut s = Sender::new(SenderConfig {
        ecn: true,
        ecn_backoff: true,
        initial_cwnd: 1.0,
        ..cfg(Variant::NewReno)
    });
    let mut out = vec![];
    s.start(0, &mut out);
    assert_eq!(seqs(&out), vec![0]);
    out.clear();
    s.on_ack(&ece(1), 100 * MS, &mut out);
    assert_eq!((s.cwnd, s.ssthresh), (0.0, 2.0));
    assert!(out.is_empty(), "a window of 0 sends nothing: {out:?}");
    assert_eq!(s.rto_deadline, Some(400 * MS));
    s.on_timeout(400 * MS, &mut out);
    assert_eq!(seqs(&out), vec![1]);
    assert_eq!((s.cwnd, s.stats.timeouts), (1.0, 0));
    out.clear();
    // The second mark at a window of 1: backoff 2, kept through the marked ACK's sample.
    s.on_ack(&ece(2), 500 * MS, &mut out);
    assert_eq!((s.cwnd, s.ssthresh, s.stats.ecn_reactions), (0.0, 2.0, 2));
    assert_eq!(s.current_rto(), 500 * MS);
    assert_eq!(s.rto_deadline, Some(1000 * MS));
    s.on_timeout(1000 * MS, &mut out);
    assert_eq!(seqs(&out), vec![2]);
    out.clear();
    // An unmarked ACK ends it: slow start to 2 and the sample resets the backoff.
    s.on_ack(&ack(3), 1100 * MS, &mut out);
    assert_eq!(s.cwnd, 2.0);
    assert_eq!(seqs(&out), vec![3, 4]);
    assert_eq!(s.rtt.backoff(), 1);
}

/// ns-2 halves the integer window (⌊11/2⌋ = 5, not FlightSize/2 = 5.5) and, when the timer
/// fires before the marked window is acked, keeps ssthresh (`slowdown(CLOSE_CWND_ONE)`);
/// the default response halves FlightSize and the timeout halves again.
#[test]
fn ecn_backoff_halves_the_integer_window_and_a_timeout_after_a_mark_keeps_ssthresh() {
    for (backoff, after_mark, after_timeout) in [(true, 5.0, 5.0), (false, 5.5, 2.75)] {
        let mut s = sender_with_flight_11(SenderConfig {
            ecn: true,
            ecn_backoff: backoff,
            ..cfg(Variant::NewReno)
        });
        let mut out = vec![];
        s.on_ack(&ece(2), 200 * MS, &mut out);
        assert_eq!(s.ssthresh, after_mark, "ecn_backoff = {backoff}");
        expire(&mut s, &mut out);
        assert_eq!(
            (s.ssthresh, s.cwnd),
            (after_timeout, 1.0),
            "ecn_backoff = {backoff}"
        );
    }
}

/// NewReno's partial ACKs under the three rule sets. From 1..=11 outstanding, three
/// duplicate ACKs retransmit 1 (ssthresh 5.5, cwnd 8.5) and two more inflate cwnd to 10.5.
/// RFC 6582 and ns-2.35 deflate each partial ACK's window by the newly acknowledged less
/// one and restart the timer on the first partial ACK only; ns-2 of 2001 (tcp-newreno.cc
/// with `partial_window_deflation_` and `newreno_changes1_` 0) goes back to ssthresh and
/// restarts the timer on each. The ACK that ends recovery leaves, in both ns-2s, `cwnd_`
/// (here ssthresh) plus one congestion-avoidance step (`opencwnd` on that new ACK).
#[test]
fn newreno_partial_acks_by_rfc6582_and_by_ns2() {
    for rule in [
        PartialAck::Rfc6582,
        PartialAck::Ns2_35,
        PartialAck::Ns2_2001,
    ] {
        let mut out = vec![];
        let mut s = sender_with_flight_11(SenderConfig {
            partial_ack: rule,
            ..cfg(Variant::NewReno)
        });
        for k in 0..5 {
            s.on_ack(&ack(1), 200 * MS + k, &mut out);
        }
        assert!(s.in_recovery);
        assert_eq!((s.ssthresh, s.cwnd), (5.5, 10.5));
        out.clear();
        s.on_ack(&ack(4), 300 * MS, &mut out);
        assert_eq!(seqs(&out)[0], 4, "the next hole is retransmitted");
        let first = s.rto_deadline.expect("armed");
        assert_eq!(first, 300 * MS + s.current_rto());
        s.on_ack(&ack(6), 400 * MS, &mut out);
        let second = s.rto_deadline.expect("armed");
        if rule == PartialAck::Ns2_2001 {
            assert_eq!(s.cwnd, 5.5);
            assert_eq!(second, 400 * MS + s.current_rto());
        } else {
            assert_eq!(s.cwnd, 10.5 - 3.0 + 1.0 - 2.0 + 1.0);
            assert_eq!(
                second, first,
                "the timer restarts on the first partial ACK only"
            );
        }
        s.on_ack(&ack(s.recover), 500 * MS, &mut out);
        assert!(!s.in_recovery);
        if rule == PartialAck::Rfc6582 {
            assert!(s.cwnd <= 5.5);
        } else {
            assert_eq!(s.cwnd, 5.5 + 1.0 / 5.5);
        }
    }
}

/// ns-2.35's partial deflation when it takes more than the inflation: the excess comes
/// out of `cwnd_` (ns-2 `partialnewack`, `dupwnd_` left at 1), and the ACK that ends
/// recovery leaves that reduced `cwnd_`, below ssthresh, so it grows by slow start.
#[test]
fn ns2_35_deflation_beyond_the_inflation_lowers_the_exit_window() {
    let mut out = vec![];
    let mut s = sender_with_flight_11(SenderConfig {
        partial_ack: PartialAck::Ns2_35,
        ..cfg(Variant::NewReno)
    });
    for k in 0..3 {
        s.on_ack(&ack(1), 200 * MS + k, &mut out);
    }
    assert_eq!((s.ssthresh, s.cwnd), (5.5, 8.5));
    // 6 newly acknowledged against an inflation of 3: cwnd_ 5.5 - 3 = 2.5, window 3.5.
    s.on_ack(&ack(7), 300 * MS, &mut out);
    assert!(s.in_recovery);
    assert_eq!(s.cwnd, 3.5);
    s.on_ack(&ack(s.recover), 400 * MS, &mut out);
    assert_eq!(s.cwnd, 2.5 + 1.0);
}

/// How a loss halves a window of 11 (FlightSize 11): RFC 5681 takes FlightSize / 2 = 5.5
/// for ssthresh and the window; ns-2.35 (`precisionReduce_` true) ssthresh 5 and cwnd_
/// 5.5; ns-2 of 2001 both 5. A timeout halves the same way, and a second one at a window
/// of 1 holds ssthresh in RFC 5681 (§3.1) but leaves ns-2's at its floor of 2.
#[test]
fn halving_by_rfc5681_and_by_ns2() {
    for (rule, ssthresh, cwnd) in [
        (Halving::Rfc5681, 5.5, 8.5),
        (Halving::Ns2_35, 5.0, 8.5),
        (Halving::Ns2_2001, 5.0, 8.0),
    ] {
        let mut out = vec![];
        let c = SenderConfig {
            halving: rule,
            ..cfg(Variant::NewReno)
        };
        let mut s = sender_with_flight_11(c.clone());
        for k in 0..3 {
            s.on_ack(&ack(1), 200 * MS + k, &mut out);
        }
        assert_eq!((s.ssthresh, s.cwnd), (ssthresh, cwnd), "{rule:?}");

        let mut s = sender_with_flight_11(c);
        expire(&mut s, &mut out);
        assert_eq!((s.ssthresh, s.cwnd), (ssthresh, 1.0), "{rule:?}");
        expire(&mut s, &mut out);
        let held = if rule == Halving::Rfc5681 { 5.5 } else { 2.0 };
        assert_eq!(s.ssthresh, held, "{rule:?}");
    }
}

/// The fast retransmit leaves the running timer alone (RFC 6298 §5.1), or restarts it and
/// abandons the RTT measurement, as ns-2's `dupack_action` does (`reset_rtx_timer(1, 0)`).
#[test]
fn a_fast_retransmit_restarts_the_timer_only_as_ns2() {
    for restart in [false, true] {
        let mut out = vec![];
        let mut s = sender_with_flight_11(SenderConfig {
            fr_timer: if restart {
                FrTimer::Restart
            } else {
                FrTimer::Keep
            },
            ..cfg(Variant::NewReno)
        });
        let armed = s.rto_deadline.expect("armed");
        for k in 0..3 {
            s.on_ack(&ack(1), 200 * MS + k, &mut out);
        }
        assert!(s.in_recovery);
        if restart {
            assert_eq!(s.rto_deadline, Some(200 * MS + 2 + s.current_rto()));
            assert_eq!(s.timed, None);
        } else {
            assert_eq!(s.rto_deadline, Some(armed));
        }
    }
}

/// ns-2 times a segment across a retransmission of a lower one (it abandons a measurement
/// only at a timeout or a fast retransmit); Karn's rule, as RFC 6298 applies it, does not.
/// Segment 12, sent during NewReno's recovery, is timed; the partial ACK's retransmission
/// of segment 4 voids that measurement under RFC 6298 only, and ns-2 samples 12's ACK.
#[test]
fn ns2_times_a_segment_across_a_retransmission_below_it() {
    for (rule, samples) in [(RttRule::Rfc6298, 1), (RttRule::Ns2_35, 2)] {
        let mut out = vec![];
        let mut s = sender_with_flight_11(SenderConfig {
            rtt_rule: rule,
            fr_timer: FrTimer::Restart,
            ..cfg(Variant::NewReno)
        });
        for k in 0..7 {
            s.on_ack(&ack(1), 200 * MS + k, &mut out);
        }
        assert_eq!(
            seqs(&out),
            vec![1, 12],
            "the fast retransmit, then one new segment"
        );
        out.clear();
        s.on_ack(&ack(4), 300 * MS, &mut out);
        assert_eq!(seqs(&out)[0], 4);
        s.on_ack(&ack(12), 400 * MS, &mut out);
        assert!(!s.in_recovery);
        s.on_ack(&ack(13), 450 * MS, &mut out);
        assert_eq!(s.stats.rtt_samples, samples, "{rule:?}");
    }
}

/// The traced window without the inflation (ns-2's `cwnd_`): during NewReno's recovery it
/// is the halved window while cwnd grows by one per duplicate ACK; outside, cwnd itself.
#[test]
fn cwnd_base_is_the_window_without_the_inflation() {
    let mut out = vec![];
    let mut s = sender_with_flight_11(cfg(Variant::NewReno));
    assert_eq!(s.cwnd_base(), s.cwnd);
    for k in 0..5 {
        s.on_ack(&ack(1), 200 * MS + k, &mut out);
    }
    assert!(s.in_recovery);
    assert_eq!((s.cwnd, s.cwnd_base()), (10.5, 5.5));
    s.on_ack(&ack(s.recover), 300 * MS, &mut out);
    assert!(!s.in_recovery);
    assert_eq!(s.cwnd_base(), s.cwnd);
}

/// `pacing = true` on NewReno: Linux's default rate. Before an RTT sample nothing is paced
/// (the initial window leaves at once); the ACK at 100 ms gives SRTT 0.1 s and cwnd 11 in
/// slow start (11 < ssthresh/2), so the rate is 2·11/0.1 = 220 segments/s: segment 10
/// leaves now, 11 waits 1/220 s (4 545 455 ns), and only the pacing timer sends it.
#[test]
fn pacing_spaces_segments_at_linuxs_default_rate() {
    let mut s = Sender::new(SenderConfig {
        initial_cwnd: 10.0,
        pacing: true,
        ..cfg(Variant::NewReno)
    });
    let mut out = vec![];
    s.start(0, &mut out);
    assert_eq!(seqs(&out), (0..10).collect::<Vec<_>>());
    assert_eq!(s.pace_deadline(), None);
    out.clear();
    s.on_ack(&ack(1), 100 * MS, &mut out);
    assert_eq!(seqs(&out), vec![10]);
    let due = 100 * MS + 4_545_455;
    assert_eq!(s.pace_deadline(), Some(due));
    out.clear();
    s.on_pace_timer(due - 1, &mut out);
    assert!(out.is_empty(), "a stale wakeup sends nothing");
    s.on_pace_timer(due, &mut out);
    assert_eq!(seqs(&out), vec![11]);
    assert_eq!(
        s.pace_deadline(),
        None,
        "the window, not pacing, holds the rest"
    );
}

/// Per-ACK RTT samples (`Delivery::rtt`) only for a controller that asks (CUBIC with
/// HyStart++): the newest segment an ACK covers gives the sample, and none when any it
/// covers was retransmitted (Karn). Probed on clones, as `on_ack` takes the same entries.
#[test]
fn per_ack_rtt_samples_only_when_asked_and_never_for_a_retransmission() {
    use crate::tcp::congestion::CubicSpec;
    let plain = sender_with_flight_11(cfg(Variant::NewReno));
    assert!(plain.sent_at.is_none());
    let hystart = CongestionSpec::Cubic(CubicSpec {
        hystart: true,
        ..CubicSpec::default()
    });
    let mut s = sender_with_flight_11(SenderConfig {
        congestion: hystart,
        ..cfg(Variant::NewReno)
    });
    // Segments 1..=9 left at 0, 10 and 11 at 100 ms.
    assert_eq!(s.sent_at.as_deref().map(VecDeque::len), Some(11));
    let mut t = s.clone();
    assert_eq!(t.ack_rtt(3, 150 * MS), Some(150 * MS));
    assert_eq!(t.ack_rtt(12, 230 * MS), Some(130 * MS));
    let mut out = vec![];
    let now = expire(&mut s, &mut out);
    assert_eq!(seqs(&out), vec![1], "go back N from snd.una");
    let mut t = s.clone();
    assert_eq!(t.ack_rtt(2, now + 10 * MS), None, "segment 1 was resent");
    assert_eq!(
        s.clone().ack_rtt(3, now + 10 * MS),
        None,
        "1 among those covered"
    );
}

#[path = "sender_prr_tests.rs"]
mod prr;
