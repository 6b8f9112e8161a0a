//! Pacing owned by the sender, as Linux's fq qdisc or TCP's internal pacing (EDT) do it:
//! after each segment the next may leave 1/rate later (rate in segments per second),
//! counted from the later of the previous send time and now, so an idle or window-limited
//! sender earns no burst. A sender with window but not yet the time asks for a wakeup
//! (`deadline`), which the simulator turns into a timer (`sim/tcp.rs`).
//!
//! The rate is the controller's (`Controller::pacing_rate`: BBR), or, for a controller
//! without one on a flow with `pacing = true`, Linux's default (`tcp_update_pacing_rate`,
//! sysctls `tcp_pacing_ss_ratio` 200 and `tcp_pacing_ca_ratio` 120):
//! rate = ratio · max(cwnd, in flight) / SRTT, ratio 2 while cwnd < ssthresh/2 (slow start,
//! so that the window can double per RTT) and 1.2 after. Before the first RTT sample there
//! is no rate and segments go out as the ACKs clock them.

use crate::units::{Time, NS_PER_SEC};

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Pacer {
    /// The earliest time the next segment may be sent.
    next_send: Time,
    /// Set when a segment was held back: the sender wants to be woken then.
    deadline: Option<Time>,
}

impl Pacer {
    /// May a segment leave at `now`? If not, the deadline is set to when it may.
    #[inline]
    pub fn allows(&mut self, now: Time) -> bool {
        if now >= self.next_send {
            return true;
        }
        self.deadline = Some(self.next_send);
        false
    }

    /// A segment left at `now` at `rate` segments per second (None: unpaced).
    #[inline]
    pub fn sent(&mut self, now: Time, rate: Option<f64>) {
        if let Some(r) = rate.filter(|r| r.is_finite() && *r > 0.0) {
            let gap = libm::round(NS_PER_SEC as f64 / r) as Time;
            self.next_send = self.next_send.max(now) + gap;
        }
    }

    pub fn deadline(&self) -> Option<Time> {
        self.deadline
    }

    pub fn clear_deadline(&mut self) {
        self.deadline = None;
    }

    /// The wakeup at `now` is the one asked for (not an earlier, stale timer).
    pub fn due(&self, now: Time) -> bool {
        self.deadline.is_some_and(|d| d <= now)
    }
}

/// Linux's default pacing rate in segments per second (see the module doc); None before
/// an RTT sample.
pub fn linux_default_rate(cwnd: f64, ssthresh: f64, in_flight: u64, srtt_s: f64) -> Option<f64> {
    if !(srtt_s.is_finite() && srtt_s > 0.0) {
        return None;
    }
    let ratio = if cwnd < ssthresh / 2.0 { 2.0 } else { 1.2 };
    Some(ratio * cwnd.max(in_flight as f64) / srtt_s)
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Time = NS_PER_SEC / 1000;

    /// At 1000 segments/s the gap is 1 ms; a sender that waited earns no credit.
    #[test]
    fn gaps_follow_the_rate_without_credit() {
        let mut p = Pacer::default();
        assert!(p.allows(0));
        p.sent(0, Some(1000.0));
        assert!(!p.allows(MS / 2));
        assert_eq!(p.deadline(), Some(MS));
        assert!(p.due(MS) && !p.due(MS - 1));
        assert!(p.allows(MS));
        p.sent(MS, Some(1000.0));
        // Idle for 10 ms: the next segment may go now, the one after 1 ms later.
        assert!(p.allows(12 * MS));
        p.sent(12 * MS, Some(1000.0));
        assert!(!p.allows(12 * MS + 1));
        assert_eq!(p.deadline(), Some(13 * MS));
        p.sent(20 * MS, None);
        assert!(p.allows(20 * MS));
    }

    /// 2·cwnd/SRTT below ssthresh/2, 1.2·cwnd/SRTT from there; none without an SRTT.
    #[test]
    fn linux_default_ratios() {
        assert_eq!(linux_default_rate(10.0, 100.0, 0, 0.1), Some(200.0));
        assert_eq!(linux_default_rate(60.0, 100.0, 0, 0.1), Some(720.0));
        assert_eq!(linux_default_rate(60.0, 100.0, 70, 0.1), Some(840.0));
        assert_eq!(linux_default_rate(10.0, 100.0, 0, f64::NAN), None);
    }
}
