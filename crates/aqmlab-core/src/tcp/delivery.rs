//! Delivery-rate estimation: draft-cheng-iccrg-delivery-rate-estimation-02 (Cheng,
//! Cardwell, Hassas Yeganeh, Jacobson 2022), as Linux's `net/ipv4/tcp_rate.c` implements
//! it. Segment-granular: sequence numbers and counts are segments, times nanoseconds.
//!
//! - Per connection (the draft's C.*): `delivered`, the segments delivered so far (the
//!   sum of every ACK's DeliveredData, so a non-SACK duplicate ACK counts one, and the
//!   cumulative ACK after it counts less, as Linux's Reno SACK emulation); `delivered_time`,
//!   when the last of them was delivered; `first_sent_time`, the send time of the packet
//!   that began the current sampling interval; `app_limited`, 0 or the value of
//!   `delivered` at which the current application-limited phase ends.
//! - Per segment when it is (re)sent (P.*, `Stamp`): the four above and its send time. A
//!   segment sent with nothing in flight restarts the interval: first_sent_time =
//!   delivered_time = now (the draft's §3.2, "SND.NXT == SND.UNA").
//! - When an ACK delivers segments (cumulatively or by SACK, each counted once), the most
//!   recently sent of them is P (ties to the higher sequence), and C.first_sent_time takes
//!   P's send time.
//! - The sample (§3.3): delivered = C.delivered − P.delivered over
//!   interval = max(send_elapsed, ack_elapsed), send_elapsed = P.sent − P.first_sent_time,
//!   ack_elapsed = C.delivered_time − P.delivered_time; invalid when no segment was newly
//!   delivered (a duplicate ACK without SACK: its DeliveredData still counts), or the
//!   interval is 0 or below the connection's minimum RTT (tcp_rate.c's guard against
//!   ACK compression making a rate above the link's).
//! - App-limited (§3.4): the sender marks it when it has window to send but no data; the
//!   mark ends once `delivered` passes delivered + in flight at marking. A sample is
//!   app-limited if P was sent during the mark.
//! - The RTT of the sample: now − send time of the most recently sent segment delivered that
//!   was never retransmitted (Karn; Linux's `ca_rtt_us`, per ACK rather than per timed
//!   segment).

use crate::units::{secs, Time};
use std::collections::VecDeque;

/// The sender's loss-recovery state when an ACK has been processed (Linux's `ca_state`
/// without CWR and Disorder, which BBR v1 does not distinguish from Open).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub enum CaState {
    #[default]
    Open,
    /// Fast recovery.
    Recovery,
    /// After a retransmission timeout, until the data outstanding at it is acked.
    Loss,
}

/// One ACK's delivery-rate sample and the counts a rate-based controller reads with it.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct RateSample {
    /// Segments delivered over `interval` (C.delivered − P.delivered).
    pub delivered: u64,
    /// The sample's interval; None: no valid rate in this ACK.
    pub interval: Option<Time>,
    /// P.delivered: C.delivered when P was sent (a round ends when it reaches the value
    /// C.delivered had at the round's start).
    pub prior_delivered: u64,
    pub is_app_limited: bool,
    /// This ACK's DeliveredData (Linux's `acked_sacked`).
    pub acked_sacked: u64,
    /// Segments newly marked lost while processing this ACK.
    pub losses: u64,
    /// The ACK's RTT sample (see the module doc).
    pub rtt: Option<Time>,
    /// Segments in flight (RFC 6675 pipe) before and after the ACK.
    pub prior_in_flight: u64,
    pub in_flight: u64,
    /// C.delivered and C.delivered_time after the ACK.
    pub total_delivered: u64,
    pub delivered_time: Time,
    pub state: CaState,
}

impl RateSample {
    /// The delivery rate in segments per second, if the sample is valid.
    pub fn rate(&self) -> Option<f64> {
        self.interval.map(|i| self.delivered as f64 / secs(i))
    }
}

#[derive(Clone, Copy, Debug, Default)]
struct Stamp {
    sent: Time,
    first_sent: Time,
    delivered: u64,
    delivered_time: Time,
    app_limited: bool,
    retransmitted: bool,
    /// Delivered already (SACKed before the cumulative ACK reached it).
    counted: bool,
}

/// The estimator's state (one per connection whose controller wants rate samples).
#[derive(Clone, Debug, Default)]
pub struct DeliveryRate {
    delivered: u64,
    delivered_time: Time,
    first_sent_time: Time,
    app_limited: u64,
    /// The sequence number of `stamps[0]` (snd.una as the estimator last saw it).
    base: u64,
    stamps: VecDeque<Stamp>,
    /// P of the ACK being processed, and the RTT candidate.
    p: Option<Stamp>,
    rtt: Option<(Time, Time)>,
    /// The smallest RTT sample seen (the interval guard's minimum RTT).
    min_rtt: Option<Time>,
}

impl DeliveryRate {
    pub fn new() -> DeliveryRate {
        DeliveryRate::default()
    }

    pub fn delivered(&self) -> u64 {
        self.delivered
    }

    /// Segment `seq` is put on the wire at `now`; `idle`: nothing was in flight.
    pub fn on_sent(&mut self, seq: u64, now: Time, idle: bool) {
        if idle {
            self.first_sent_time = now;
            self.delivered_time = now;
        }
        let i = (seq - self.base) as usize;
        let retransmitted = i < self.stamps.len();
        let stamp = Stamp {
            sent: now,
            first_sent: self.first_sent_time,
            delivered: self.delivered,
            delivered_time: self.delivered_time,
            app_limited: self.app_limited != 0,
            retransmitted,
            counted: false,
        };
        if retransmitted {
            // A retransmission restamps the segment (tcp_rate_skb_sent on every send); a
            // SACKed one is never resent.
            self.stamps[i] = stamp;
        } else {
            debug_assert_eq!(i, self.stamps.len(), "new data is sent in order");
            self.stamps.push_back(stamp);
        }
    }

    fn deliver(&mut self, s: Stamp, now: Time) {
        if self.p.is_none_or(|p| s.sent >= p.sent) {
            self.p = Some(s);
            self.first_sent_time = s.sent;
        }
        if !s.retransmitted && self.rtt.is_none_or(|(sent, _)| s.sent >= sent) {
            self.rtt = Some((s.sent, now - s.sent));
        }
    }

    /// The cumulative ACK reached `una`: every segment below it not yet counted is
    /// delivered.
    pub fn acked_to(&mut self, una: u64, now: Time) {
        while self.base < una {
            let s = self.stamps.pop_front().expect("acked data was sent");
            self.base += 1;
            if !s.counted {
                self.deliver(s, now);
            }
        }
    }

    /// Segment `seq` is newly SACKed.
    pub fn sacked(&mut self, seq: u64, now: Time) {
        let i = (seq - self.base) as usize;
        let s = self.stamps[i];
        if !s.counted {
            self.stamps[i].counted = true;
            self.deliver(s, now);
        }
    }

    /// The sender has window but no data: the samples until the data in flight now is
    /// delivered are app-limited.
    pub fn mark_app_limited(&mut self, in_flight: u64) {
        self.app_limited = (self.delivered + in_flight).max(1);
    }

    /// The sample of the ACK just processed, whose DeliveredData is `acked_sacked`.
    pub fn generate(
        &mut self,
        now: Time,
        acked_sacked: u64,
        losses: u64,
        in_flight: [u64; 2],
        state: CaState,
    ) -> RateSample {
        self.delivered += acked_sacked;
        if self.app_limited != 0 && self.delivered > self.app_limited {
            self.app_limited = 0;
        }
        if acked_sacked > 0 {
            self.delivered_time = now;
        }
        let rtt = self.rtt.take().map(|(_, r)| r);
        if let Some(r) = rtt {
            self.min_rtt = Some(self.min_rtt.map_or(r, |m| m.min(r)));
        }
        let mut rs = RateSample {
            acked_sacked,
            losses,
            rtt,
            prior_in_flight: in_flight[0],
            in_flight: in_flight[1],
            total_delivered: self.delivered,
            delivered_time: self.delivered_time,
            state,
            ..RateSample::default()
        };
        if let Some(p) = self.p.take() {
            rs.prior_delivered = p.delivered;
            rs.is_app_limited = p.app_limited;
            rs.delivered = self.delivered - p.delivered;
            let send_elapsed = p.sent - p.first_sent;
            let ack_elapsed = self.delivered_time - p.delivered_time;
            let interval = send_elapsed.max(ack_elapsed);
            if interval > 0 && self.min_rtt.is_none_or(|m| interval >= m) {
                rs.interval = Some(interval);
            }
        }
        rs
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Time = 1_000_000;

    /// A steady pipe: one segment sent every 1 ms, each acked 10 ms later, with 10 in
    /// flight. Every ACK's sample is 10 segments over 10 ms (send_elapsed = ack_elapsed =
    /// 10 ms), i.e. 1000 segments/s, with an RTT of 10 ms.
    #[test]
    fn a_steady_pipe_samples_its_rate() {
        let mut d = DeliveryRate::new();
        let mut last = None;
        for t in 0..200u64 {
            let now = t * MS;
            if t >= 10 {
                d.acked_to(t - 9, now);
                let rs = d.generate(now, 1, 0, [10, 9], CaState::Open);
                last = Some(rs);
                if t >= 30 {
                    assert_eq!(rs.delivered, 10, "t {t}");
                    assert_eq!(rs.interval, Some(10 * MS));
                    assert_eq!(rs.rate(), Some(1000.0));
                    assert_eq!(rs.rtt, Some(10 * MS));
                    assert_eq!(rs.prior_delivered, t - 19);
                }
            }
            // Segment t is sent at t ms.
            d.on_sent(t, now, t == d.base);
        }
        assert_eq!(last.unwrap().total_delivered, 190);
    }

    /// The interval is the longer of the send and the ACK phases: a burst of 10 segments
    /// sent at once (send_elapsed 0) is not an infinite rate. Sent from idle, every stamp's
    /// delivered_time is the restart at 0, so the last ACK (at 30 ms) gives 10 segments over
    /// 30 ms: the draft's conservative answer (at most the real rate).
    #[test]
    fn a_burst_is_measured_over_its_acks() {
        let mut d = DeliveryRate::new();
        for s in 0..10 {
            d.on_sent(s, 0, s == 0);
        }
        let mut rs = RateSample::default();
        for k in 1..=10u64 {
            let now = 20 * MS + k * MS;
            d.acked_to(k, now);
            rs = d.generate(now, 1, 0, [11 - k, 10 - k], CaState::Open);
        }
        // P.delivered_time is the idle restart at 0; the first ACK's RTT (21 ms) is the
        // minimum, so the 30 ms interval is valid.
        assert_eq!(rs.delivered, 10);
        assert_eq!(rs.interval, Some(30 * MS));
        assert_eq!(rs.rtt, Some(30 * MS));
    }

    /// SACKed segments count once: the cumulative ACK that later covers them adds only the
    /// hole; a non-SACK duplicate ACK's DeliveredData counts but gives no rate.
    #[test]
    fn sacked_segments_count_once_and_dupacks_give_no_rate() {
        let mut d = DeliveryRate::new();
        for s in 0..4 {
            d.on_sent(s, 0, s == 0);
        }
        d.sacked(1, 10 * MS);
        d.sacked(2, 10 * MS);
        let rs = d.generate(10 * MS, 2, 0, [4, 2], CaState::Open);
        assert_eq!((rs.delivered, rs.total_delivered), (2, 2));
        assert!(rs.interval.is_some());
        d.on_sent(0, 11 * MS, false); // the retransmission of the hole
        d.acked_to(3, 21 * MS);
        let rs = d.generate(21 * MS, 1, 0, [2, 1], CaState::Recovery);
        assert_eq!(rs.total_delivered, 3);
        assert_eq!(rs.rtt, None, "a retransmission gives no RTT (Karn)");
        let rs = d.generate(22 * MS, 1, 0, [1, 1], CaState::Open);
        assert_eq!((rs.interval, rs.total_delivered), (None, 4));
    }

    /// The app-limited mark: samples of segments sent during it are app-limited, and it
    /// ends when delivered passes delivered + in flight at marking.
    #[test]
    fn app_limited_marks_end_when_their_data_is_delivered() {
        let mut d = DeliveryRate::new();
        d.on_sent(0, 0, true);
        d.on_sent(1, 0, false);
        d.mark_app_limited(2);
        d.on_sent(2, MS, false);
        d.acked_to(1, 10 * MS);
        assert!(
            !d.generate(10 * MS, 1, 0, [3, 2], CaState::Open)
                .is_app_limited
        );
        d.acked_to(3, 12 * MS);
        let rs = d.generate(12 * MS, 2, 0, [2, 0], CaState::Open);
        assert!(rs.is_app_limited);
        assert_eq!(d.app_limited, 0, "3 delivered > 0 + 2 at marking");
    }
}
