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
//! | `on_delivery` | every ACK that advances snd.una, before the ECN reaction (DCTCP's α) | nothing |
//! | `on_ack` | a new cumulative ACK outside recovery (or the one ending ns-2's NewReno recovery) | cwnd after it |
//! | `take_ssthresh` | after each `on_ack` | Some: the new ssthresh (CUBIC's HyStart++ exit to congestion avoidance) |
//! | `on_congestion` | a fast retransmit, an ECN reaction, a retransmission timeout | ssthresh and the un-inflated cwnd |
//! | `on_recovery_end` | fast recovery ends (the sender sets the exit window) | nothing |
//! | `pacing_rate` | the sender may pace | segments per second, None: ACK-clocked |
//! | `wants_rate` | at the sender's start | true: a delivery-rate sample (`Acked::rate`) on every ACK, and the controller sets the window on each, in recovery too |
//! | `app_limited` | after each such ACK | true: mark the samples app-limited (BBR's ProbeRTT) |
//! | `wants_ack_rtt` | at the sender's start | true: an RTT sample on every ACK that can give one (`Delivery::rtt`; HyStart++) |
//! | `metric_names`, `metrics` | a time-series sample is taken | its own state (none for Reno) |
//!
//! Adding an algorithm: one file with its spec, validation, state, pure decisions and tests,
//! and one line in `registry!` below (the flow's `congestion` table, `CongestionSpec`).

pub mod bbr;
pub mod cubic;
pub mod dctcp;
pub mod hystart;
pub mod prague;
pub mod reno;

use super::delivery::RateSample;
use crate::check::{inner, tagged_table, Problems};
use crate::units::Time;
pub use bbr::{Bbr, BbrConfig, BbrSpec};
pub use cubic::{Cubic, CubicConfig, CubicSpec, RenoFriendlyAlpha};
pub use dctcp::{Dctcp, DctcpSpec};
pub use prague::{Prague, PragueSpec};
pub use reno::{DupackResponse, Halving, Reno, RenoConfig};
use serde::{Deserialize, Deserializer, Serialize};

/// A new cumulative acknowledgement, as the controller sees it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Acked {
    /// Segments newly acknowledged (the advance of snd.una).
    pub segments: u64,
    /// The RTT measured by this ACK, if it ended a measurement.
    pub rtt: Option<Time>,
    /// The ACK carries ECE (RFC 3168; segment-granular, so a CE count of 0 or 1).
    pub ece: bool,
    /// When the ACK arrived.
    pub now: Time,
    /// The sender's smoothed RTT in seconds after this ACK's sample (NaN before the first).
    pub srtt_s: f64,
    /// The delivery-rate sample (`crate::tcp::delivery`), only for a controller that
    /// `wants_rate`; then every ACK is given, duplicates and recovery included.
    pub rate: Option<RateSample>,
}

/// One segment newly acknowledged at time 0, no RTT sample, no ECE: the controllers' unit
/// tests start from it.
#[cfg(test)]
pub(crate) const TEST_ACK: Acked = Acked {
    segments: 1,
    rtt: None,
    ece: false,
    now: 0,
    srtt_s: f64::NAN,
    rate: None,
};

/// An ACK that advances snd.una, seen before any window decision (in recovery too).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Delivery {
    /// Segments newly acknowledged.
    pub segments: u64,
    /// The ACK carries ECE (with DCTCP's echo: those segments carried CE).
    pub ece: bool,
    /// snd.una after the ACK, and one past the highest segment sent.
    pub una: u64,
    pub high: u64,
    /// The RTT of the newest segment this ACK acknowledges, only for a controller that
    /// `wants_ack_rtt`; None when any segment it acknowledges was retransmitted (Karn).
    pub rtt: Option<Time>,
    /// When the ACK arrived (Prague's observation windows and reductions last at least its
    /// RTT target).
    pub now: Time,
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
    /// Every ACK that advances snd.una, before the sender's ECN reaction and window
    /// decision (its observations: DCTCP's marked fraction).
    fn on_delivery(&mut self, _d: &Delivery) {}
    /// cwnd after a new ACK that opens the window (`ssthresh` as the sender holds it).
    fn on_ack(&mut self, cwnd: f64, ssthresh: f64, ack: &Acked) -> f64;
    /// ssthresh and the un-inflated cwnd after a congestion event.
    fn on_congestion(&mut self, event: Congestion, cwnd: f64, ssthresh: f64) -> Reduction;
    /// Fast recovery ended (the sender has set cwnd by its recovery's exit rule).
    fn on_recovery_end(&mut self) {}
    /// A new ssthresh decided at the last `on_ack`, given once (HyStart++ leaving slow
    /// start without a congestion event).
    fn take_ssthresh(&mut self) -> Option<f64> {
        None
    }
    /// Per-ACK RTT samples in `Delivery::rtt` (the sender then stamps every new segment's
    /// send time: only CUBIC with HyStart++ asks).
    fn wants_ack_rtt(&self) -> bool {
        false
    }
    /// A pacing rate in segments per second; None: send as the ACKs clock it.
    fn pacing_rate(&self) -> Option<f64> {
        None
    }
    /// Rate samples on every ACK (costly: only BBR asks).
    fn wants_rate(&self) -> bool {
        false
    }
    /// The samples from now on are app-limited (asked after each rate-sampled ACK).
    fn app_limited(&self) -> bool {
        false
    }
    fn metric_names(&self) -> &'static [&'static str] {
        &[]
    }
    fn metrics(&self, _out: &mut [f64]) {}
}

/// Reno has no fields of its own: `{ type = "reno" }` (its ns-2 variants are the flow's
/// `halving`, `dupack_response` and `ecn_backoff`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RenoSpec {}

impl RenoSpec {
    pub fn validate(&self, _a: &str, _p: &mut Problems) {}

    pub fn build(&self, cfg: &SenderSide) -> Reno {
        Reno::new(RenoConfig {
            dupack_response: cfg.dupack_response,
            halving: cfg.halving,
            ecn_backoff: cfg.ecn_backoff,
            max_window: cfg.max_window,
        })
    }
}

/// What a controller is built from besides its own table: the sender's fields it reads
/// (the sender fills it in from its `SenderConfig`, so this layer names nothing of the
/// sender's).
#[derive(Clone, Copy, Debug)]
pub struct SenderSide {
    pub dupack_response: DupackResponse,
    pub halving: Halving,
    pub ecn_backoff: bool,
    pub max_window: u32,
    pub initial_cwnd: f64,
    pub segment_bytes: u32,
    /// The flow's seed for the controller's own stream (BBR's cycle phase).
    pub congestion_seed: u64,
    pub pacing: bool,
}

/// The registry: from ONE list of `"tag" => Variant(Spec, Controller)` lines it makes the
/// flow's tagged `CongestionSpec` (serde both ways, tags in this order in messages), the
/// tag list `CONGESTION_TYPES`, the dispatch enum `AnyController` with its `Controller` impl
/// and `kind()`, and the spec's `validate` and `build` (as `crate::aqm`'s registry).
macro_rules! registry {
    ($($tag:literal => $V:ident($Spec:ty, $Algo:ty),)*) => {
        /// A TCP flow's congestion control: a table tagged by `type`.
        #[derive(Clone, Debug, PartialEq, Serialize)]
        #[serde(tag = "type")]
        pub enum CongestionSpec {
            $(#[serde(rename = $tag)] $V($Spec),)*
        }

        /// Every `type` a congestion table may have, in registry order.
        pub const CONGESTION_TYPES: &[&str] = &[$($tag,)*];

        impl<'de> Deserialize<'de> for CongestionSpec {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let (ty, rest) = tagged_table::<D>(d, CONGESTION_TYPES)?;
                match ty.as_str() {
                    $($tag => inner::<$Spec, D::Error>(rest).map(CongestionSpec::$V),)*
                    _ => unreachable!("tagged_table checked the type"),
                }
            }
        }

        impl CongestionSpec {
            /// Reports every problem of this table's fields under the path `a`.
            pub fn validate(&self, a: &str, p: &mut Problems) {
                match self {
                    $(CongestionSpec::$V(s) => s.validate(a, p),)*
                }
            }

            /// The `type` tag.
            pub fn kind(&self) -> &'static str {
                match self {
                    $(CongestionSpec::$V(_) => $tag,)*
                }
            }
        }

        /// Every controller, one variant each: a match, not a `Box<dyn>`, on the per-ACK path.
        #[derive(Clone, Debug)]
        pub enum AnyController {
            $($V($Algo),)*
        }

        impl AnyController {
            /// The sender's controller: its table `spec` and the sender's side of it.
            pub fn new(spec: &CongestionSpec, cfg: &SenderSide) -> AnyController {
                match spec {
                    $(CongestionSpec::$V(s) => AnyController::$V(s.build(cfg)),)*
                }
            }

            /// The scenario `type` tag of this controller.
            pub fn kind(&self) -> &'static str {
                match self {
                    $(AnyController::$V(_) => $tag,)*
                }
            }
        }

        controllers!($($V),*);
    };
}

impl Default for CongestionSpec {
    /// Reno: a flow without a `congestion` table.
    fn default() -> Self {
        CongestionSpec::Reno(RenoSpec {})
    }
}

macro_rules! controllers {
    ($($v:ident),*) => {
        impl Controller for AnyController {
            #[inline]
            fn on_delivery(&mut self, d: &Delivery) {
                match self { $(AnyController::$v(c) => c.on_delivery(d)),* }
            }
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
            #[inline]
            fn take_ssthresh(&mut self) -> Option<f64> {
                match self { $(AnyController::$v(c) => c.take_ssthresh()),* }
            }
            fn wants_ack_rtt(&self) -> bool {
                match self { $(AnyController::$v(c) => c.wants_ack_rtt()),* }
            }
            fn pacing_rate(&self) -> Option<f64> {
                match self { $(AnyController::$v(c) => c.pacing_rate()),* }
            }
            fn wants_rate(&self) -> bool {
                match self { $(AnyController::$v(c) => c.wants_rate()),* }
            }
            fn app_limited(&self) -> bool {
                match self { $(AnyController::$v(c) => c.app_limited()),* }
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

registry! {
    "reno" => Reno(RenoSpec, Reno),
    "cubic" => Cubic(CubicSpec, Cubic),
    "dctcp" => Dctcp(DctcpSpec, Dctcp),
    "bbr" => Bbr(BbrSpec, Box<Bbr>),
    "prague" => Prague(PragueSpec, Prague),
}
