//! The `type = "probe"` flow's own fields: a latency probe that sends one small timestamped
//! UDP echo request every `interval` (the ping of Flent's RRUL test); the destination host
//! answers each with an echo reply of the same size, and the source records the round trip
//! of every request (the run's `probes` table, `sim/probe.rs`).

use crate::check::Problems;
use crate::units::Duration;
use serde::{Deserialize, Serialize};

/// The default gap between two requests: Flent's `STEP_SIZE` (0.2 s), at which its ICMP
/// ping runs (`ping -i 0.2`).
pub const DEFAULT_INTERVAL_NS: u64 = 200_000_000;

/// A probe's own fields (beside those every flow has).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProbeSpec {
    /// Gap between two requests; default 200 ms.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interval: Option<Duration>,
    /// DiffServ precedence (the class selector, DSCP >> 3) that requests and replies carry:
    /// 0 for best effort, 1 for CS1 (BK), 5 for EF and CS5; default 0.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub precedence: Option<u8>,
}

impl ProbeSpec {
    pub const FIELDS: &'static [&'static str] = &["interval", "precedence"];

    pub fn interval_ns(&self) -> u64 {
        self.interval.map_or(DEFAULT_INTERVAL_NS, |d| d.0)
    }

    pub(crate) fn check(&self, p: &str, pr: &mut Problems) {
        if let Some(d) = self.interval {
            if d.0 == 0 {
                pr.err(format!("{p}.interval"), "\"0ns\"", "must be > 0");
            }
            pr.time_at_most(format!("{p}.interval"), d);
        }
        if let Some(c) = self.precedence {
            if c > 7 {
                pr.err(
                    format!("{p}.precedence"),
                    c,
                    "must be a precedence in [0, 7] (the DSCP's class selector bits)",
                );
            }
        }
    }
}
