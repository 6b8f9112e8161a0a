//! Congestion control: the window decisions of a TCP sender behind one small trait,
//! dispatched by a closed enum (smoltcp's `socket/tcp/congestion`, quinn-proto's
//! `congestion`; the AQMs' layout in `crate::aqm`).
//!
//! The sender (`super::sender`) keeps RFC 5681's state variables cwnd and ssthresh, detects
//! loss and runs recovery (fast retransmit, Reno and NewReno recovery with window
//! inflation, RFC 6675's pipe, PRR, RFC 6298's timer), and asks its controller at the
//! events where a congestion-control algorithm decides, as Linux's `tcp_congestion_ops`
//! (`cong_avoid`, `ssthresh`) are asked by `tcp_input.c`:
//!
//! | hook | called when | returns |
//! |---|---|---|
//! | `on_ack` | a new cumulative ACK outside recovery (or the one ending ns-2's NewReno recovery) | cwnd after it |
//! | `on_congestion` | a fast retransmit, an ECN reaction, a retransmission timeout | ssthresh and the un-inflated cwnd |
//! | `on_recovery_end` | fast recovery ends (the sender sets the exit window) | nothing |
//! | `pacing_rate` | the sender may pace | segments per second, None: ACK-clocked |
//! | `metric_names`, `metrics` | a time-series sample is taken | its own state (none for Reno) |
//!
//! Adding an algorithm: one file with its spec, validation, state, pure decisions and tests,
//! and one line in `AnyController` and in `controllers!` below.

pub mod reno;

use super::sender::SenderConfig;
use crate::units::Time;
pub use reno::{DupackResponse, Halving, Reno, RenoConfig};

/// A new cumulative acknowledgement, as the controller sees it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Acked {
    /// Segments newly acknowledged (the advance of snd.una).
    pub segments: u64,
    /// The RTT measured by this ACK, if it ended a measurement.
    pub rtt: Option<Time>,
    /// The ACK carries ECE (RFC 3168; segment-granular, so a CE count of 0 or 1).
    pub ece: bool,
}

/// Why the window is reduced.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Congestion {
    /// A fast retransmit; `flight` is FlightSize without the data sent by limited transmit
    /// (RFC 5681 §3.2 step 2).
    Loss { flight: u64 },
    /// An ECN-Echo answered (RFC 3168 §6.1.2), at most once per window.
    Ecn { flight: u64 },
    /// The retransmission timer expired. `base` is the window without the inflation when
    /// the timer fired during Reno/NewReno recovery (ns-2's `cwnd_`), `repeated` that this
    /// segment was already resent by the timer (RFC 5681 §3.1), `in_mark_window` that the
    /// data outstanding at the last ECN reaction is not yet all acked.
    Rto {
        flight: u64,
        base: Option<f64>,
        repeated: bool,
        in_mark_window: bool,
    },
}

/// The controller's answer to a congestion event: the new ssthresh and the window without
/// any recovery inflation (the sender inflates it, or replaces it under PRR or SACK).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Reduction {
    pub ssthresh: f64,
    pub cwnd: f64,
}

pub trait Controller {
    /// cwnd after a new ACK that opens the window (`ssthresh` as the sender holds it).
    fn on_ack(&mut self, cwnd: f64, ssthresh: f64, ack: &Acked) -> f64;
    /// ssthresh and the un-inflated cwnd after a congestion event.
    fn on_congestion(&mut self, event: Congestion, cwnd: f64, ssthresh: f64) -> Reduction;
    /// Fast recovery ended (the sender has set cwnd by its recovery's exit rule).
    fn on_recovery_end(&mut self) {}
    /// A pacing rate in segments per second; None: send as the ACKs clock it.
    fn pacing_rate(&self) -> Option<f64> {
        None
    }
    fn metric_names(&self) -> &'static [&'static str] {
        &[]
    }
    fn metrics(&self, _out: &mut [f64]) {}
}

/// Every controller, one variant each: a match, not a `Box<dyn>`, on the per-ACK path.
#[derive(Clone, Debug)]
pub enum AnyController {
    Reno(Reno),
}

impl AnyController {
    /// The sender's controller from its configuration (today always Reno: the scenario's
    /// Reno, NewReno and SACK differ in loss recovery only).
    pub fn new(cfg: &SenderConfig) -> AnyController {
        AnyController::Reno(Reno::new(RenoConfig {
            dupack_response: cfg.dupack_response,
            halving: cfg.halving,
            ecn_backoff: cfg.ecn_backoff,
            max_window: cfg.max_window,
        }))
    }
}

macro_rules! controllers {
    ($($v:ident),*) => {
        impl Controller for AnyController {
            #[inline]
            fn on_ack(&mut self, cwnd: f64, ssthresh: f64, ack: &Acked) -> f64 {
                match self { $(AnyController::$v(c) => c.on_ack(cwnd, ssthresh, ack)),* }
            }
            #[inline]
            fn on_congestion(&mut self, event: Congestion, cwnd: f64, ssthresh: f64) -> Reduction {
                match self { $(AnyController::$v(c) => c.on_congestion(event, cwnd, ssthresh)),* }
            }
            fn on_recovery_end(&mut self) {
                match self { $(AnyController::$v(c) => c.on_recovery_end()),* }
            }
            fn pacing_rate(&self) -> Option<f64> {
                match self { $(AnyController::$v(c) => c.pacing_rate()),* }
            }
            fn metric_names(&self) -> &'static [&'static str] {
                match self { $(AnyController::$v(c) => c.metric_names()),* }
            }
            fn metrics(&self, out: &mut [f64]) {
                match self { $(AnyController::$v(c) => c.metrics(out)),* }
            }
        }
    };
}

controllers!(Reno);
