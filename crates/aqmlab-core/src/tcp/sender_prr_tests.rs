//! Proportional Rate Reduction (RFC 6937) in the sender: RFC 6937's single-loss example,
//! ns-3.44's accounting, and the reduction bounds.

use super::*;

/// RFC 6937's single-loss example (its §6; RFC 9937 §8 repeats it): 20 segments in
/// flight, segment 0 lost, limited transmit, ssthresh = 20/2 = 10, RecoverFS = 20.
/// Worked from RFC 6937 §3 (SSRB): ACKs 1 and 2 send the limited-transmit segments 20
/// and 21; ACK 3 enters recovery with prr_delivered = 1 and sends the fast retransmit
/// (ceil(1·10/20) = 1 = prr_out); from then on ACK k has prr_delivered = k − 2, so an odd
/// ACK sends one new segment (ceil((k−2)/2) − prr_out = 1) and an even one none: one
/// segment per two delivered, while pipe > ssthresh (pipe after ACK k = 1 + (19 − k) + 2 +
/// the new segments sent before it). At ACK 19 pipe = 10 = ssthresh, and the reduction
/// bound lets ACKs 20 and 21 each send ssthresh − pipe = 1. The cumulative ACK 22 ends
/// recovery with cwnd = ssthresh = 10 and 9 segments in flight, so one more goes out.
/// (RFC 9937's figure sends at ACK 19 rather than 20: it tests pipe before the ACK; the
/// counts are the same.) Without SACK, RFC 6937's estimate (one segment per duplicate ACK)
/// gives the same pipe and the same pattern.
#[test]
fn prr_sends_one_segment_per_two_acks_and_ends_at_ssthresh() {
    for variant in [Variant::Sack, Variant::NewReno] {
        let mut s = Sender::new(SenderConfig {
            initial_cwnd: 20.0,
            limited_transmit: true,
            recovery: Recovery::PrrSsrb,
            ..cfg(variant)
        });
        let mut out = vec![];
        s.start(0, &mut out);
        assert_eq!(seqs(&out), (0..20).collect::<Vec<_>>());
        let mut sent = vec![];
        let mut cwnd = vec![];
        for k in 1..=22u64 {
            out.clear();
            let a = match (k, variant) {
                (22, _) => ack(22),
                (_, Variant::Sack) => sack_ack(0, &[(1, k + 1)]),
                _ => ack(0),
            };
            s.on_ack(&a, k * MS, &mut out);
            sent.push(seqs(&out));
            cwnd.push(s.cwnd);
        }
        let mut want: Vec<Vec<u64>> = vec![vec![20], vec![21], vec![0], vec![]];
        for (i, k) in (5..=18).enumerate() {
            want.push(if k % 2 == 1 {
                vec![22 + i as u64 / 2]
            } else {
                vec![]
            });
        }
        want.extend([vec![], vec![29], vec![30], vec![31]]);
        assert_eq!(sent, want, "{variant:?}");
        let mut want_cwnd = vec![20.0, 20.0, 19.0];
        for k in 4..=18 {
            want_cwnd.push((18 - (k - 4) / 2) as f64);
        }
        want_cwnd.extend([10.0, 10.0, 10.0, 10.0]);
        assert_eq!(cwnd, want_cwnd, "{variant:?}");
        assert_eq!((s.ssthresh, s.in_recovery()), (10.0, false), "{variant:?}");
    }
}

/// ns-3.44's PRR accounting (`prr_ns3.44`) on RFC 6937's single-loss example above, with
/// SACK. At ACK 3 the pipe is 22 − 3 SACKed − 1 lost = 18: ssthresh = 18/2 = 9 and
/// RecoverFS = 18 (RFC 6937: 10 and 20). Every duplicate ACK delivers its SACKed segment
/// plus ns-3's extra one while prr_delivered < RecoverFS, so ACK k has prr_delivered =
/// 2(k − 2) up to ACK 11 and sends ceil(2(k − 2)·9/18) − prr_out = 1: one segment per
/// ACK (22..29 on ACKs 4-11, where RFC 6937 sends one per two). From ACK 12 prr_delivered
/// grows by one, so one segment per two ACKs (30 on 12, 31 on 14, ... 34 on 20); pipe stays
/// above ssthresh (14 at ACK 21). ACK 22 ends recovery with cwnd = ssthresh = 9 and 13
/// segments out: nothing more is sent.
#[test]
fn prr_ns3_44_counts_sacked_dupacks_twice_and_starts_from_the_pipe() {
    let mut s = Sender::new(SenderConfig {
        initial_cwnd: 20.0,
        limited_transmit: true,
        recovery: Recovery::PrrNs3_44,
        ..cfg(Variant::Sack)
    });
    let mut out = vec![];
    s.start(0, &mut out);
    let mut sent = vec![];
    for k in 1..=22u64 {
        out.clear();
        let a = if k == 22 {
            ack(22)
        } else {
            sack_ack(0, &[(1, k + 1)])
        };
        s.on_ack(&a, k * MS, &mut out);
        sent.push(seqs(&out));
        if k == 3 {
            assert_eq!(
                (s.ssthresh, s.prr.recover_fs, s.prr.delivered),
                (9.0, 18, 2)
            );
        }
    }
    let mut want: Vec<Vec<u64>> = vec![vec![20], vec![21], vec![0]];
    want.extend((22..=29).map(|q| vec![q]));
    for k in 12..=21u64 {
        want.push(if k % 2 == 0 {
            vec![30 + (k - 12) / 2]
        } else {
            vec![]
        });
    }
    want.push(vec![]);
    assert_eq!(sent, want);
    assert_eq!((s.cwnd, s.in_recovery(), s.flight()), (9.0, false, 13));
}

/// The three reduction bounds once pipe <= ssthresh (RFC 6937 §3; ns-3.44's rule). State
/// without SACK: FlightSize 20, 14 duplicate ACKs counted, so pipe = 6 and ssthresh −
/// pipe = 4; prr_delivered 4 + this ACK's 1 = 5, prr_out 2, so prr_delivered − prr_out = 3.
/// SSRB: min(4, max(3, 1) + 1) = 4; CRB: min(4, 3) = 3; ns-3's: 3, or 4 when the ACK
/// acknowledges a retransmission.
#[test]
fn prr_reduction_bounds() {
    for (bound, safe, want) in [
        (Recovery::PrrSsrb, false, 4),
        (Recovery::PrrCrb, false, 3),
        (Recovery::PrrSafeAck, false, 3),
        (Recovery::PrrSafeAck, true, 4),
    ] {
        let mut s = Sender::new(SenderConfig {
            initial_cwnd: 20.0,
            recovery: bound,
            ..cfg(Variant::NewReno)
        });
        s.start(0, &mut vec![]);
        s.in_recovery = true;
        s.ssthresh = 10.0;
        s.prr = PrrState {
            delivered: 4,
            out: 2,
            recover_fs: 20,
            dup_credit: 14,
            sndcnt: 0,
        };
        s.prr_update(1, safe);
        assert_eq!(
            (s.prr.sndcnt, s.cwnd),
            (want, 6.0 + want as f64),
            "{bound:?} {safe}"
        );
    }
}
