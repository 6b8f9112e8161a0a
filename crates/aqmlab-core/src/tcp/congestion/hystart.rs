//! HyStart++ (RFC 9406 §4), the slow-start exit of `congestion::cubic` when its spec has
//! `hystart = true`: a delay-increase detector that leaves standard slow start for
//! Conservative Slow Start (CSS) before the queue overflows, and CSS for congestion
//! avoidance after CSS_ROUNDS rounds. The symbols are RFC 9406's.
//!
//! - Rounds are windows of data: windowEnd is one past the highest segment sent when the
//!   round began (`Delivery::high`, SND.NXT in segments), and the round ends at the ACK
//!   that acknowledges windowEnd itself, the first segment sent after the round began
//!   (snd.una > windowEnd, as Linux's `after(snd_una, end_seq)`). That ACK, and its RTT
//!   sample, open the next round (RFC 9406: "at the start of each round").
//! - RTT samples are per ACK (`Delivery::rtt`: the newest segment it acknowledges, none
//!   when it acknowledges a retransmission). currentRoundMinRTT is the minimum of all the
//!   round's samples, and the delay checks run on every ACK from the N_RTT_SAMPLE-th
//!   sample of the round on (Linux's `hystart_update` stops updating its round minimum
//!   after the 8th sample and compares it with the connection's minimum instead).
//! - Standard slow start: cwnd += min(N, L) per ACK, N the segments newly acked;
//!   L = 8 unpaced, unbounded when the flow paces (§4.2). Enter CSS when
//!   currentRoundMinRTT ≥ lastRoundMinRTT + RttThresh, RttThresh =
//!   clamp(lastRoundMinRTT / MIN_RTT_DIVISOR, MIN_RTT_THRESH, MAX_RTT_THRESH), with
//!   cssBaselineMinRtt = currentRoundMinRTT.
//! - CSS: cwnd += min(N, L) / CSS_GROWTH_DIVISOR. Back to standard slow start (HyStart++
//!   continuing) when a round's minimum, from its N_RTT_SAMPLE-th sample, falls below
//!   cssBaselineMinRtt. After CSS_ROUNDS rounds in CSS (the partial round of the entry
//!   counts, §4.2), congestion avoidance with ssthresh = cwnd.
//! - A congestion event (a loss, an ECN reaction, a timeout) during slow start or CSS ends
//!   slow start by the controller's usual reduction, and HyStart++ for good: RFC 9406
//!   §4.3's SHOULD, HyStart++ in the initial slow start only (later slow starts stop at the
//!   ssthresh the event set). A slow start that reaches a configured ssthresh first ends
//!   it the same way.

use super::Delivery;
use crate::units::Time;

const NS_PER_MS: Time = 1_000_000;

/// RFC 9406 §4.3: RTT samples a round needs before its minimum is compared.
pub const N_RTT_SAMPLE: u32 = 8;
/// RFC 9406 §4.3: the bounds of RttThresh (4 ms, 16 ms) and lastRoundMinRTT's divisor.
pub const MIN_RTT_THRESH: Time = 4 * NS_PER_MS;
pub const MAX_RTT_THRESH: Time = 16 * NS_PER_MS;
pub const MIN_RTT_DIVISOR: Time = 8;
/// RFC 9406 §4.3: CSS grows at a quarter of slow start's rate, for at most 5 rounds.
pub const CSS_GROWTH_DIVISOR: f64 = 4.0;
pub const CSS_ROUNDS: u32 = 5;
/// RFC 9406 §4.3: segments one ACK may add to the window when the flow is not paced.
pub const L_UNPACED: f64 = 8.0;

/// Where HyStart++ is; `as f64` is the trace metric `hystart`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    SlowStart = 0,
    Css = 1,
    /// CSS_ROUNDS rounds of CSS completed: congestion avoidance from ssthresh = cwnd.
    Exited = 2,
    /// A congestion event, or a configured ssthresh, ended slow start: HyStart++ is over.
    Ended = 3,
}

#[derive(Clone, Debug)]
pub struct HyStart {
    phase: Phase,
    l: f64,
    /// One past the highest segment sent at the round's start; None before the first ACK.
    window_end: Option<u64>,
    /// None: infinity (no sample yet).
    last_round_min_rtt: Option<Time>,
    current_round_min_rtt: Option<Time>,
    rtt_sample_count: u32,
    css_baseline_min_rtt: Option<Time>,
    /// Rounds of CSS begun, the current one included.
    css_rounds: u32,
    /// CSS_ROUNDS completed at the last ACK; the controller sets ssthresh = cwnd once.
    exit_pending: bool,
}

impl HyStart {
    /// `paced`: the sender paces its segments (L unbounded).
    pub fn new(paced: bool) -> HyStart {
        HyStart {
            phase: Phase::SlowStart,
            l: if paced { f64::INFINITY } else { L_UNPACED },
            window_end: None,
            last_round_min_rtt: None,
            current_round_min_rtt: None,
            rtt_sample_count: 0,
            css_baseline_min_rtt: None,
            css_rounds: 0,
            exit_pending: false,
        }
    }

    pub fn phase(&self) -> Phase {
        self.phase
    }

    /// RttThresh for the current lastRoundMinRTT (None while it is infinity).
    pub fn rtt_thresh(&self) -> Option<Time> {
        self.last_round_min_rtt
            .map(|m| (m / MIN_RTT_DIVISOR).clamp(MIN_RTT_THRESH, MAX_RTT_THRESH))
    }

    fn active(&self) -> bool {
        matches!(self.phase, Phase::SlowStart | Phase::Css)
    }

    /// An ACK that advances snd.una: rounds, RTT samples and the phase transitions.
    pub fn on_delivery(&mut self, d: &Delivery) {
        if !self.active() {
            return;
        }
        if self.window_end.is_none_or(|end| d.una > end) {
            self.start_round(d.high);
            if self.phase == Phase::Css {
                if self.css_rounds >= CSS_ROUNDS {
                    self.phase = Phase::Exited;
                    self.exit_pending = true;
                    return;
                }
                self.css_rounds += 1;
            }
        }
        let Some(rtt) = d.rtt else { return };
        let current = self.current_round_min_rtt.map_or(rtt, |m| m.min(rtt));
        self.current_round_min_rtt = Some(current);
        self.rtt_sample_count += 1;
        if self.rtt_sample_count < N_RTT_SAMPLE {
            return;
        }
        match self.phase {
            Phase::SlowStart => {
                if let (Some(last), Some(thresh)) = (self.last_round_min_rtt, self.rtt_thresh()) {
                    if current >= last + thresh {
                        self.css_baseline_min_rtt = Some(current);
                        self.phase = Phase::Css;
                        self.css_rounds = 1;
                    }
                }
            }
            Phase::Css => {
                if self.css_baseline_min_rtt.is_some_and(|b| current < b) {
                    // The delay rise was spurious (RFC 9406 §4.2): slow start again.
                    self.css_baseline_min_rtt = None;
                    self.phase = Phase::SlowStart;
                    self.css_rounds = 0;
                }
            }
            Phase::Exited | Phase::Ended => {}
        }
    }

    fn start_round(&mut self, high: u64) {
        self.window_end = Some(high);
        self.last_round_min_rtt = self.current_round_min_rtt;
        self.current_round_min_rtt = None;
        self.rtt_sample_count = 0;
    }

    /// The window's growth for an ACK of `segments` in slow start or CSS; None when
    /// HyStart++ is not running (the controller's own slow start applies).
    pub fn growth(&self, segments: u64) -> Option<f64> {
        let n = (segments as f64).min(self.l);
        match self.phase {
            Phase::SlowStart => Some(n),
            Phase::Css => Some(n / CSS_GROWTH_DIVISOR),
            Phase::Exited | Phase::Ended => None,
        }
    }

    /// True once, at the ACK after CSS_ROUNDS rounds of CSS: set ssthresh = cwnd.
    pub fn take_exit(&mut self) -> bool {
        std::mem::take(&mut self.exit_pending)
    }

    /// Slow start ended otherwise (a congestion event, or cwnd reached ssthresh).
    pub fn end(&mut self) {
        if self.active() {
            self.phase = Phase::Ended;
        }
        self.exit_pending = false;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Time = NS_PER_MS;

    /// Drives whole rounds: each round acks the `cwnd` segments of the previous one, one
    /// ACK per segment, each with RTT `rtt(round, i)`, and sends two per ACK (slow start's
    /// doubling) or what `grow` says.
    struct Flow {
        h: HyStart,
        una: u64,
        high: u64,
        cwnd: f64,
    }

    impl Flow {
        fn new(paced: bool) -> Flow {
            Flow {
                h: HyStart::new(paced),
                una: 0,
                high: 10,
                cwnd: 10.0,
            }
        }

        /// One round of ACKs, all with RTT `rtt` ms; returns the phase after it.
        fn round(&mut self, rtt: Time) -> Phase {
            let n = self.high - self.una;
            for _ in 0..n {
                self.una += 1;
                self.h.on_delivery(&Delivery {
                    segments: 1,
                    ece: false,
                    una: self.una,
                    high: self.high,
                    rtt: Some(rtt * MS),
                    now: 0,
                });
                if self.h.take_exit() {
                    return self.h.phase();
                }
                self.cwnd += self.h.growth(1).unwrap_or(0.0);
                self.high = self.una + self.cwnd as u64;
            }
            self.h.phase()
        }
    }

    #[test]
    fn no_exit_while_the_rtt_is_flat() {
        let mut f = Flow::new(false);
        for _ in 0..12 {
            assert_eq!(f.round(40), Phase::SlowStart);
        }
        assert!(f.cwnd > 1000.0, "slow start doubled on: {}", f.cwnd);
    }

    /// lastRoundMinRTT 40 ms: RttThresh = 40/8 = 5 ms, inside the clamp; 10 ms: 1.25 ms,
    /// clamped up to 4 ms; 400 ms: 50 ms, clamped down to 16 ms. A rise 1 ms short of the
    /// threshold stays in slow start, one at it enters CSS with its baseline.
    #[test]
    fn css_entry_on_an_rtt_rise_with_the_threshold_clamped() {
        for (base, thresh) in [(40, 5), (10, 4), (400, 16)] {
            for (rise, want) in [(thresh - 1, Phase::SlowStart), (thresh, Phase::Css)] {
                let mut f = Flow::new(false);
                f.round(base);
                f.round(base);
                assert_eq!(f.h.rtt_thresh(), Some(thresh * MS), "base {base} ms");
                assert_eq!(f.round(base + rise), want, "base {base} ms, rise {rise} ms");
                let baseline = (want == Phase::Css).then_some((base + rise) * MS);
                assert_eq!(f.h.css_baseline_min_rtt, baseline);
            }
        }
    }

    /// The rise is only tested from the 8th sample of a round: seven high samples then a
    /// low one never enter CSS.
    #[test]
    fn fewer_than_n_rtt_sample_samples_are_not_tested() {
        let mut h = HyStart::new(false);
        let ack = |una, high, rtt| Delivery {
            segments: 1,
            ece: false,
            una,
            high,
            rtt: Some(rtt * MS),
            now: 0,
        };
        for una in 1..=10 {
            h.on_delivery(&ack(una, 10, 40));
        }
        // Round 2 (ends at 20): seven samples at 100 ms then one at 40 ms.
        for una in 11..=17 {
            h.on_delivery(&ack(una, 20, 100));
            assert_eq!(h.phase(), Phase::SlowStart);
        }
        h.on_delivery(&ack(18, 20, 40));
        assert_eq!(h.phase(), Phase::SlowStart);
    }

    #[test]
    fn css_returns_to_slow_start_when_the_rtt_falls() {
        let mut f = Flow::new(false);
        f.round(40);
        f.round(40);
        assert_eq!(f.round(50), Phase::Css);
        assert_eq!(f.round(50), Phase::Css, "RTT at the baseline: CSS holds");
        assert_eq!(f.round(45), Phase::SlowStart, "below the baseline of 50 ms");
        assert_eq!(f.h.css_baseline_min_rtt, None);
        // HyStart++ goes on: the next rise enters CSS again.
        assert_eq!(f.round(60), Phase::Css);
    }

    /// The entry round counts as the first of CSS_ROUNDS = 5; the ACK that ends the fifth
    /// asks for ssthresh = cwnd once; growth in CSS is a quarter of slow start's.
    #[test]
    fn exit_to_ca_after_five_css_rounds_and_css_grows_at_a_quarter() {
        let mut f = Flow::new(false);
        f.round(40);
        f.round(40);
        assert_eq!(f.round(50), Phase::Css);
        for r in 2..=CSS_ROUNDS {
            let before = f.cwnd;
            let acks = (f.high - f.una) as f64;
            assert_eq!(f.round(50), Phase::Css, "CSS round {r}");
            assert_eq!(f.cwnd - before, acks / CSS_GROWTH_DIVISOR, "round {r}");
        }
        let cwnd = f.cwnd;
        assert_eq!(f.round(50), Phase::Exited);
        assert_eq!(f.cwnd, cwnd, "the exit ACK does not grow the window");
        assert!(!f.h.take_exit(), "asked once");
        assert_eq!(f.h.growth(1), None);
        assert_eq!(HyStart::new(false).growth(1), Some(1.0));
    }

    /// An ACK of 20 segments adds L = 8 unpaced (2 in CSS), all 20 when paced.
    #[test]
    fn the_l_cap() {
        let h = HyStart::new(false);
        assert_eq!(h.growth(3), Some(3.0));
        assert_eq!(h.growth(20), Some(8.0));
        assert_eq!(HyStart::new(true).growth(20), Some(20.0));
        let mut f = Flow::new(false);
        f.round(40);
        f.round(40);
        f.round(50);
        assert_eq!(f.h.growth(20), Some(2.0));
    }

    #[test]
    fn a_congestion_event_ends_hystart_for_good() {
        for css in [false, true] {
            let mut f = Flow::new(false);
            f.round(40);
            f.round(40);
            if css {
                assert_eq!(f.round(50), Phase::Css);
            }
            f.h.end();
            assert_eq!(f.h.phase(), Phase::Ended);
            assert_eq!(f.h.growth(1), None);
            // Rises and falls no longer move it.
            for rtt in [40, 100, 20, 100] {
                assert_eq!(f.round(rtt), Phase::Ended);
            }
            assert!(!f.h.take_exit());
        }
    }
}
