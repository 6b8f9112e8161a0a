//! DCTCP congestion control: RFC 8257 (Bensley, Thaler, Balasubramanian, Eggert, Judd
//! 2017) and Alizadeh et al., "Data Center TCP (DCTCP)", SIGCOMM 2010. Windows count
//! segments (cwnd a float, as Reno's). What is implemented:
//!
//! - The receiver's echo (§3.2) is `receiver::Echo::Dctcp`: each ACK's ECE says whether the
//!   segments it acknowledges carried CE, so the sender can count marked data.
//! - §3.3, once per observation window (one window of data): the sender counts the
//!   segments acknowledged, M_acked, and those acknowledged by ACKs with ECE, M_marked; when
//!   an ACK covers the whole window (snd.una ≥ WindowEnd, the highest segment sent when
//!   the window began, as Linux `dctcp_update_alpha` and ns-3 `TcpDctcp`; the RFC's
//!   "greater than" is in bytes, one past the window here), F = M_marked / M_acked and
//!   α ← (1 − g)·α + g·F (Eq. in §3.3 step 6, the paper's Eq. 1), g = 1/16, α starting at 1.
//! - The reaction to ECE (§3.3 step 9, the paper's Eq. 2), at most once per window (the
//!   sender's RFC 3168 guard): ssthresh = cwnd = max(cwnd·(1 − α/2), 2) (Linux
//!   `dctcp_ssthresh`). The window is then held until the data outstanding at the reaction
//!   is acknowledged, as Linux and ns-3 hold it in their CWR state (which reduce it to
//!   ssthresh gradually, by PRR, over that round; here at once).
//! - Growth outside that round, a loss (§3.4: "as conventional TCP") and a timeout are
//!   Reno's (`congestion::reno`, RFC 5681: slow start, +1/cwnd per ACK, FlightSize/2; an
//!   ACK with ECE does not open the window). Linux halves cwnd rather than FlightSize on a
//!   loss (`dctcp_react_to_loss`).
//! - Counting is by the advance of the cumulative ACK (Linux counts SACKed data as
//!   delivered as it arrives; the difference is confined to windows with losses).

use super::reno::{DupackResponse, Halving, Reno, RenoConfig};
use super::{Acked, Congestion, Controller, Delivery, Reduction};
use crate::check::Problems;
use serde::{Deserialize, Serialize};

/// RFC 8257 §4.2: g = 1/16 (Linux `dctcp_shift_g` 4).
pub const DEFAULT_G: f64 = 1.0 / 16.0;
/// RFC 8257 §3.3: α starts at 1 (Linux `dctcp_alpha_on_init` 1024/1024, ns-3 1.0).
pub const DEFAULT_INITIAL_ALPHA: f64 = 1.0;

#[derive(Clone, Debug)]
pub struct Dctcp {
    g: f64,
    alpha: f64,
    /// The marked fraction F of the last completed observation window.
    f: f64,
    acked: u64,
    marked: u64,
    /// The observation window ends when snd.una reaches this.
    window_end: u64,
    /// snd.una and one past the highest segment sent, at the latest delivery.
    una: u64,
    high: u64,
    /// No growth while snd.una is below this: the round after an ECE reaction.
    cwr_end: u64,
    reno: Reno,
}

impl Dctcp {
    pub fn new(g: f64, initial_alpha: f64, max_window: u32) -> Dctcp {
        Dctcp {
            g,
            alpha: initial_alpha,
            f: 0.0,
            acked: 0,
            marked: 0,
            window_end: 0,
            una: 0,
            high: 0,
            cwr_end: 0,
            reno: Reno::new(RenoConfig {
                dupack_response: DupackResponse::Halve,
                halving: Halving::Rfc5681,
                ecn_backoff: false,
                max_window,
            }),
        }
    }

    pub fn alpha(&self) -> f64 {
        self.alpha
    }
}

impl Controller for Dctcp {
    fn on_delivery(&mut self, d: &Delivery) {
        self.acked += d.segments;
        if d.ece {
            self.marked += d.segments;
        }
        (self.una, self.high) = (d.una, d.high);
        if d.una >= self.window_end {
            if self.acked > 0 {
                self.f = self.marked as f64 / self.acked as f64;
                self.alpha = (1.0 - self.g) * self.alpha + self.g * self.f;
            }
            (self.acked, self.marked) = (0, 0);
            self.window_end = d.high;
        }
    }

    fn on_ack(&mut self, cwnd: f64, ssthresh: f64, ack: &Acked) -> f64 {
        if self.una < self.cwr_end {
            return cwnd;
        }
        self.reno.on_ack(cwnd, ssthresh, ack)
    }

    fn on_congestion(&mut self, event: Congestion, cwnd: f64, ssthresh: f64) -> Reduction {
        match event {
            Congestion::Ecn { .. } => {
                self.cwr_end = self.high;
                let w = (cwnd * (1.0 - self.alpha / 2.0)).max(2.0);
                Reduction {
                    ssthresh: w,
                    cwnd: w,
                }
            }
            _ => {
                self.cwr_end = 0;
                self.reno.on_congestion(event, cwnd, ssthresh)
            }
        }
    }

    fn metric_names(&self) -> &'static [&'static str] {
        &["alpha", "marked_fraction"]
    }

    fn metrics(&self, out: &mut [f64]) {
        out[0] = self.alpha;
        out[1] = self.f;
    }
}

// ---------------------------------------------------------------------------------------
// Spec: the scenario's fields, defaults and checks
// ---------------------------------------------------------------------------------------

/// `congestion = { type = "dctcp", g, initial_alpha }` (RFC 8257's defaults). The flow
/// needs `ecn = true`; its receiver then echoes CE per segment (RFC 8257 §3.2).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DctcpSpec {
    /// The EWMA gain of α (RFC 8257 §4.2: 1/16).
    #[serde(default = "default_g")]
    pub g: f64,
    /// α before the first observation window ends (RFC 8257 §3.3: 1).
    #[serde(default = "default_initial_alpha")]
    pub initial_alpha: f64,
}

fn default_g() -> f64 {
    DEFAULT_G
}
fn default_initial_alpha() -> f64 {
    DEFAULT_INITIAL_ALPHA
}

impl Default for DctcpSpec {
    fn default() -> Self {
        DctcpSpec {
            g: DEFAULT_G,
            initial_alpha: DEFAULT_INITIAL_ALPHA,
        }
    }
}

impl DctcpSpec {
    pub fn validate(&self, a: &str, p: &mut Problems) {
        if !(self.g.is_finite() && self.g > 0.0 && self.g <= 1.0) {
            p.err(
                format!("{a}.g"),
                self.g,
                "must be in (0, 1] (the EWMA gain of alpha; RFC 8257: 1/16 = 0.0625)",
            );
        }
        if !(self.initial_alpha.is_finite() && (0.0..=1.0).contains(&self.initial_alpha)) {
            p.err(
                format!("{a}.initial_alpha"),
                self.initial_alpha,
                "must be in [0, 1] (a fraction of marked data; RFC 8257: 1)",
            );
        }
    }

    pub fn build(&self, cfg: &super::SenderSide) -> Dctcp {
        Dctcp::new(self.g, self.initial_alpha, cfg.max_window)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn delivery(segments: u64, ece: bool, una: u64, high: u64) -> Delivery {
        Delivery {
            segments,
            ece,
            una,
            high,
            rtt: None,
            now: 0,
        }
    }
    const ACK: Acked = super::super::TEST_ACK;

    /// α after windows with F = 1/4, 1 and 0 from α₀ = 1, g = 1/16: the EWMA exactly.
    #[test]
    fn alpha_is_the_ewma_of_the_marked_fraction_once_per_window() {
        let mut d = Dctcp::new(DEFAULT_G, 1.0, 1000);
        // The first ACK ends the empty initial window: F = 0 of that one ACK.
        d.on_delivery(&delivery(1, false, 1, 10));
        let mut alpha = 15.0 / 16.0;
        assert_eq!(d.alpha(), alpha);
        // Window [1, 10): 9 segments, the last 3 marked... then one more to cross 10.
        for una in 2..=9 {
            d.on_delivery(&delivery(1, una >= 8, una, 20));
            assert_eq!(d.alpha(), alpha, "no update inside the window");
        }
        d.on_delivery(&delivery(1, false, 10, 20));
        // 9 acked, 2 marked (una 8 and 9).
        alpha = (15.0 / 16.0) * alpha + (2.0 / 9.0) / 16.0;
        assert!((d.alpha() - alpha).abs() < 1e-15);
        // Window [10, 20) fully marked, in one stretch ACK.
        d.on_delivery(&delivery(10, true, 20, 30));
        alpha = (15.0 / 16.0) * alpha + 1.0 / 16.0;
        assert!((d.alpha() - alpha).abs() < 1e-15);
        let mut m = [0.0; 2];
        d.metrics(&mut m);
        assert_eq!(m[1], 1.0);
    }

    /// ECE: cwnd·(1 − α/2) with a floor of 2, and the window held until the data
    /// outstanding at the reaction is acknowledged; Reno's growth after it.
    #[test]
    fn a_mark_cuts_by_half_alpha_and_holds_the_window_for_a_round() {
        let mut d = Dctcp::new(DEFAULT_G, 0.5, 1000);
        d.window_end = 1_000; // keep α at 0.5
        d.on_delivery(&delivery(1, true, 100, 140));
        let ecn = Congestion::Ecn { flight: 40 };
        let r = d.on_congestion(ecn, 40.0, 1e3);
        assert_eq!((r.ssthresh, r.cwnd), (30.0, 30.0));
        d.on_delivery(&delivery(1, false, 139, 170));
        assert_eq!(d.on_ack(30.0, 30.0, &ACK), 30.0);
        d.on_delivery(&delivery(1, false, 140, 171));
        assert_eq!(d.on_ack(30.0, 30.0, &ACK), 30.0 + 1.0 / 30.0);
        // α = 1 (the start) halves; the floor is 2.
        let mut one = Dctcp::new(DEFAULT_G, 1.0, 1000);
        assert_eq!(one.on_congestion(ecn, 40.0, 1e3).cwnd, 20.0);
        assert_eq!(one.on_congestion(ecn, 3.0, 1e3).cwnd, 2.0);
    }

    #[test]
    fn a_loss_or_a_timeout_is_renos() {
        let mut d = Dctcp::new(DEFAULT_G, 0.1, 1000);
        let r = d.on_congestion(Congestion::Loss { flight: 40 }, 40.0, 1e3);
        assert_eq!((r.ssthresh, r.cwnd), (20.0, 20.0));
        let rto = Congestion::Rto {
            flight: 30,
            base: None,
            repeated: false,
            in_mark_window: false,
        };
        let r = d.on_congestion(rto, 20.0, 20.0);
        assert_eq!((r.ssthresh, r.cwnd), (10.0, 1.0));
    }

    #[test]
    fn invalid_fields_are_refused_with_their_paths() {
        let mut p = Problems::default();
        DctcpSpec {
            g: 0.0,
            initial_alpha: 1.5,
        }
        .validate("flows[0].congestion", &mut p);
        let text = format!("{p:?}");
        assert!(text.contains("flows[0].congestion.g"), "{text}");
        assert!(text.contains("flows[0].congestion.initial_alpha"), "{text}");
    }
}
