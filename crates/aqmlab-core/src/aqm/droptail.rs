//! DropTail (tail drop): accept every arrival while the buffer has room.
//!
//! There is no decision logic: the output queue's capacity check (packets or bytes, see
//! `crate::aqm::Limit`) is the whole algorithm, and its drops carry `Reason::Overflow`.
//!
//! Buffer convention (documented in docs/queue.md and tested in `crate::queue`): the limit
//! counts packets *waiting* in the buffer and excludes the one being transmitted, as ns-2's
//! `Queue` does (ns2:queue/queue.cc); so a limit of L packets gives an M/M/1/K system with
//! K = L + 1. ns-2's `DropTail` itself drops when `len + 1 >= limit` and so holds only L − 1
//! waiting packets (ns-2.35 `queue/queue.cc`; docs/queue.md); we do not copy that off-by-one: `limit_pkts = L`
//! holds L. A scenario reproducing an ns-2 DropTail of `limit_ = N` uses `limit_pkts = N - 1`.

use super::{Aqm, QueueCtx, QueueView, Verdict};
use crate::check::Problems;
use crate::packet::Packet;
use crate::rng::Rng;
use crate::units::Time;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Default)]
pub struct DropTail;

impl Aqm for DropTail {
    #[inline]
    fn on_arrival(&mut self, _q: &QueueView, _p: &Packet, _now: Time, _rng: &mut Rng) -> Verdict {
        Verdict::Pass
    }

    fn watches_departures(&self) -> bool {
        false
    }

    fn watches_idle(&self) -> bool {
        false
    }

    fn passive(&self) -> bool {
        true
    }
}

/// DropTail has no fields: `{ type = "droptail" }`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DropTailSpec {}

impl DropTailSpec {
    pub fn validate(&self, _a: &str, _q: &QueueCtx, _p: &mut Problems) {}

    pub fn build(&self, _q: &QueueCtx) -> DropTail {
        DropTail
    }
}
