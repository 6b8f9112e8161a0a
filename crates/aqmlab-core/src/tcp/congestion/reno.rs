//! Reno congestion control: RFC 5681 §3.1 (slow start, congestion avoidance, the timeout's
//! reduction) and §3.2 step 2 (the fast retransmit's), RFC 3168 §6.1.2 (the ECN reaction),
//! with ns-2's profile variants. Windows count segments (cwnd a float), so:
//!
//! - slow start, cwnd < ssthresh: cwnd += 1 per new ACK; congestion avoidance:
//!   cwnd += 1/cwnd per new ACK (RFC 5681 eq. 2 and 3 without byte counting, ns-2's
//!   `opencwnd`). An ACK carrying ECE never opens the window (RFC 3168 §6.1.2, ns-2 too).
//! - A fast retransmit or a mark: ssthresh = max(FlightSize / 2, 2) (RFC 5681 eq. 4),
//!   `Halving::Rfc5681`. `Ns2_35` and `Ns2_2001` are ns-2's `slowdown`: half of
//!   w = min(cwnd, window_) (ns-2's `cwnd_`, without the inflation, during recovery),
//!   ssthresh its integer part (at least 2) and, on a fast retransmit, cwnd that half (not
//!   floored: ns-2.35's `precisionReduce_` true), or with w and the half both integers
//!   (`precisionReduce_` false, ns-2 before 2006-01-24). `DupackResponse::RetransmitOnly`
//!   (the REM paper's wireless NewReno) keeps the window on a fast retransmit:
//!   ssthresh = cwnd = max(cwnd, 2).
//! - `ecn_backoff` (ns-2 `TcpAgent::ecn` + `slowdown(CLOSE_CWND_HALF | CLOSE_SSTHRESH_HALF)`):
//!   a mark halves the integer window, ⌊⌊min(cwnd, window_)⌋ / 2⌋, to 1 or even 0 (the
//!   sender then waits for its timer), ssthresh at least 2. This lets marks alone hold many
//!   flows whose fair window is below 2, where a floor of 2 segments per flow overflows the
//!   buffer. Without it a mark sets cwnd = ssthresh = max(FlightSize / 2, 2), as Linux and
//!   ns-3.
//! - A timeout: cwnd = 1 (RFC 5681 eq. 5) and ssthresh = max(min(FlightSize, w) / 2, 2),
//!   where w is cwnd, or during Reno/NewReno recovery the un-inflated window ssthresh:
//!   RFC 5681 eq. 4 only caps ssthresh at FlightSize/2 ("no more than"), and after a long
//!   NewReno recovery FlightSize includes everything sent under window inflation (often
//!   twice the real window); halving it would restart slow start above the path's capacity,
//!   overshoot, lose a window and time out again, a cycle ns-2 and Linux avoid by halving
//!   the congestion window itself. A segment already resent by the timer holds ssthresh
//!   (RFC 5681 §3.1). ns-2 halves its `cwnd_` instead and does not hold ssthresh on a
//!   repeated timeout (a second one halves a window of 1: ssthresh 2); with `ecn_backoff`
//!   it keeps ssthresh when the timer fires during the reduction from a mark
//!   (`last_cwnd_action_ == CWND_ACTION_ECN`: `slowdown(CLOSE_CWND_ONE)`).

use super::{Acked, Congestion, Controller, Reduction};

/// A flow's `dupack_response`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DupackResponse {
    /// Halve (ssthresh = FlightSize/2) and retransmit: standard TCP.
    Halve,
    /// Retransmit without reducing the window (the REM paper's wireless NewReno).
    RetransmitOnly,
}

/// How a loss halves the window (see the module doc); a flow's `halving`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Halving {
    #[serde(rename = "rfc5681")]
    Rfc5681,
    #[serde(rename = "ns2.35")]
    Ns2_35,
    #[serde(rename = "ns2-2001")]
    Ns2_2001,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RenoConfig {
    pub dupack_response: DupackResponse,
    pub halving: Halving,
    /// ns-2's ECN response (see the module doc).
    pub ecn_backoff: bool,
    /// ns-2's `window_`, which caps the window ns-2 halves.
    pub max_window: u32,
}

#[derive(Clone, Debug)]
pub struct Reno {
    cfg: RenoConfig,
    /// The last reduction was for a mark (ns-2 `last_cwnd_action_ == ECN`).
    ecn_last: bool,
}

impl Reno {
    pub fn new(cfg: RenoConfig) -> Reno {
        Reno {
            cfg,
            ecn_last: false,
        }
    }

    /// ns-2's `slowdown(CLOSE_SSTHRESH_HALF | CLOSE_CWND_HALF)` of the window `cwnd`
    /// (capped by window_): (ssthresh_, cwnd_).
    fn ns2_halves(&self, cwnd: f64) -> (f64, f64) {
        let w = cwnd.min(self.cfg.max_window as f64);
        let half = match self.cfg.halving {
            Halving::Ns2_2001 => (w.floor() / 2.0).floor(),
            _ => w / 2.0,
        };
        (half.floor().max(2.0), half)
    }
}

impl Controller for Reno {
    #[inline]
    fn on_ack(&mut self, cwnd: f64, ssthresh: f64, ack: &Acked) -> f64 {
        if ack.ece {
            cwnd
        } else if cwnd < ssthresh {
            cwnd + 1.0
        } else {
            cwnd + 1.0 / cwnd
        }
    }

    fn on_congestion(&mut self, event: Congestion, cwnd: f64, ssthresh: f64) -> Reduction {
        match event {
            Congestion::Loss { flight } => {
                self.ecn_last = false;
                let (ssthresh, cwnd) = match (self.cfg.dupack_response, self.cfg.halving) {
                    (DupackResponse::RetransmitOnly, _) => (cwnd.max(2.0), cwnd.max(2.0)),
                    (DupackResponse::Halve, Halving::Rfc5681) => {
                        let s = (flight as f64 / 2.0).max(2.0);
                        (s, s)
                    }
                    (DupackResponse::Halve, _) => self.ns2_halves(cwnd),
                };
                Reduction { ssthresh, cwnd }
            }
            Congestion::Ecn { flight } => {
                if self.cfg.ecn_backoff {
                    self.ecn_last = true;
                    let half = (cwnd.min(self.cfg.max_window as f64).floor() / 2.0).floor();
                    Reduction {
                        ssthresh: half.max(2.0),
                        cwnd: half,
                    }
                } else {
                    let s = (flight as f64 / 2.0).max(2.0);
                    Reduction {
                        ssthresh: s,
                        cwnd: s,
                    }
                }
            }
            Congestion::Rto {
                flight,
                base,
                repeated,
                in_mark_window,
            } => {
                let after_mark = self.cfg.ecn_backoff && self.ecn_last && in_mark_window;
                self.ecn_last = false;
                let ssthresh = if after_mark {
                    ssthresh
                } else if self.cfg.halving != Halving::Rfc5681 {
                    // ns-2 `RenoTcpAgent::timeout`: dupwnd_ = 0, then cwnd_ is halved.
                    self.ns2_halves(base.unwrap_or(cwnd)).0
                } else if !repeated {
                    let window = if base.is_some() { ssthresh } else { cwnd };
                    ((flight as f64).min(window) / 2.0).max(2.0)
                } else {
                    ssthresh
                };
                Reduction {
                    ssthresh,
                    cwnd: 1.0,
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reno(halving: Halving, ecn_backoff: bool) -> Reno {
        Reno::new(RenoConfig {
            dupack_response: DupackResponse::Halve,
            halving,
            ecn_backoff,
            max_window: 20,
        })
    }
    const ACK: Acked = super::super::TEST_ACK;
    fn rto(flight: u64, base: Option<f64>, repeated: bool) -> Congestion {
        Congestion::Rto {
            flight,
            base,
            repeated,
            in_mark_window: true,
        }
    }
    fn loss(flight: u64) -> Congestion {
        Congestion::Loss { flight }
    }
    fn ecn(flight: u64) -> Congestion {
        Congestion::Ecn { flight }
    }
    fn r(ssthresh: f64, cwnd: f64) -> Reduction {
        Reduction { ssthresh, cwnd }
    }

    #[test]
    fn slow_start_adds_one_avoidance_one_over_cwnd_and_ece_nothing() {
        let mut c = reno(Halving::Rfc5681, false);
        assert_eq!(c.on_ack(2.0, 8.0, &ACK), 3.0);
        assert_eq!(c.on_ack(8.0, 8.0, &ACK), 8.125);
        let ece = Acked { ece: true, ..ACK };
        assert_eq!(c.on_ack(2.0, 8.0, &ece), 2.0);
    }

    #[test]
    fn a_fast_retransmit_halves_flightsize_with_a_floor_of_two() {
        let mut c = reno(Halving::Rfc5681, false);
        assert_eq!(c.on_congestion(loss(11), 30.0, 1e3), r(5.5, 5.5));
        assert_eq!(c.on_congestion(loss(3), 3.0, 1e3), r(2.0, 2.0));
        let mut keep = Reno::new(RenoConfig {
            dupack_response: DupackResponse::RetransmitOnly,
            ..c.cfg
        });
        let eleven = loss(11);
        assert_eq!(keep.on_congestion(eleven, 11.5, 1e3), r(11.5, 11.5));
        assert_eq!(keep.on_congestion(eleven, 1.0, 1e3), r(2.0, 2.0));
    }

    #[test]
    fn ns2_halves_the_window_capped_by_window_() {
        // ns-2.35: w = min(11.5, 20), half 5.75; ssthresh 5, cwnd 5.75.
        let mut c = reno(Halving::Ns2_35, false);
        assert_eq!(c.on_congestion(loss(99), 11.5, 1e3), r(5.0, 5.75));
        // Capped by window_ 20: half 10.
        assert_eq!(c.on_congestion(loss(99), 31.0, 1e3), r(10.0, 10.0));
        // ns-2 before 2006: ⌊⌊11.5⌋ / 2⌋ = 5.
        let mut old = reno(Halving::Ns2_2001, false);
        assert_eq!(old.on_congestion(loss(99), 11.5, 1e3), r(5.0, 5.0));
    }

    #[test]
    fn a_mark_halves_flightsize_or_with_ecn_backoff_the_integer_window_to_zero() {
        let mut c = reno(Halving::Rfc5681, false);
        assert_eq!(c.on_congestion(ecn(7), 7.0, 1e3), r(3.5, 3.5));
        let mut b = reno(Halving::Rfc5681, true);
        assert_eq!(b.on_congestion(ecn(7), 7.9, 1e3), r(3.0, 3.0));
        assert_eq!(b.on_congestion(ecn(1), 1.0, 1e3), r(2.0, 0.0));
    }

    #[test]
    fn a_timeout_collapses_to_one_and_halves_the_smaller_of_flightsize_and_the_window() {
        let mut c = reno(Halving::Rfc5681, false);
        assert_eq!(c.on_congestion(rto(11, None, false), 8.0, 1e3), r(4.0, 1.0));
        assert_eq!(c.on_congestion(rto(6, None, false), 8.0, 1e3), r(3.0, 1.0));
        // During recovery the window is ssthresh, not the inflated cwnd.
        assert_eq!(
            c.on_congestion(rto(20, Some(5.0), false), 18.0, 5.0),
            r(2.5, 1.0)
        );
        // A repeated timeout holds ssthresh.
        assert_eq!(c.on_congestion(rto(20, None, true), 1.0, 5.0), r(5.0, 1.0));
        // ns-2 halves cwnd_ (the base during recovery), repeated or not.
        let mut n = reno(Halving::Ns2_35, false);
        assert_eq!(
            n.on_congestion(rto(20, Some(7.0), false), 18.0, 5.0),
            r(3.0, 1.0)
        );
        assert_eq!(n.on_congestion(rto(20, None, true), 1.0, 5.0), r(2.0, 1.0));
    }

    #[test]
    fn with_ecn_backoff_a_timeout_during_a_marks_reduction_keeps_ssthresh() {
        let mut b = reno(Halving::Ns2_35, true);
        b.on_congestion(ecn(8), 8.0, 1e3);
        assert_eq!(b.on_congestion(rto(8, None, false), 4.0, 4.0), r(4.0, 1.0));
        // Once: the timeout was the last action, so the next one halves.
        assert_eq!(b.on_congestion(rto(8, None, false), 4.0, 4.0), r(2.0, 1.0));
        // Not once the mark's data is acked, nor after a fast retransmit.
        b.on_congestion(ecn(8), 8.0, 1e3);
        let acked = Congestion::Rto {
            flight: 8,
            base: None,
            repeated: false,
            in_mark_window: false,
        };
        assert_eq!(b.on_congestion(acked, 4.0, 4.0), r(2.0, 1.0));
        b.on_congestion(ecn(8), 8.0, 1e3);
        b.on_congestion(loss(8), 4.0, 4.0);
        assert_eq!(b.on_congestion(rto(8, None, false), 4.0, 4.0), r(2.0, 1.0));
    }
}
