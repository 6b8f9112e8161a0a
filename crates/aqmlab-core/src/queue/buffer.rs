//! A port's buffer, the closed set: one FIFO with any AQM (`crate::aqm`), or a buffer of
//! several sub-queues that chooses the departing packet itself: flow queueing (FQ-CoDel,
//! `super::fq_codel`), classes (`super::classful`) and the dual queue of L4S (DualPI2,
//! `super::dualpi2`).
//!
//! The scenario names all of them in the queue's `aqm` table by its `type`: the FIFO AQMs'
//! tags are `crate::aqm::AQM_TYPES`, then `BUFFER_TYPES`. `BufferSpec` reads the tag once
//! and hands the table to the one that owns it, so a message lists every type in that
//! order and a FIFO AQM's fields are checked by its own spec as before.
//!
//! A multi-queue buffer reports its sub-queues in the `subqueues` table (`super::counters`): one row per class
//! (or per queue of the dual queue), with what arrived, was dropped, marked and sent and
//! the sojourn times of the packets it sent, over the measurement window.

use super::classful::{Classful, ClassfulSpec};
use super::dualpi2::{DualPi2, DualPi2Spec, C, L};
use super::fq_codel::{FqCodel, FqCodelSpec, FQ_CODEL_METRICS};
use super::{subqueue_table, SubCounters};
use crate::aqm::{AnyAqm, AqmSpec, Limit, QueueCtx, Verdict, AQM_TYPES};
use crate::check::{inner, tagged_table, Problems};
use crate::packet::{Packet, PacketArena};
use crate::rng::Rng;
use crate::table::Table;
use crate::units::Time;
use serde::{Deserialize, Deserializer, Serialize};

/// The `type`s of the buffers that are more than one FIFO, after the FIFO AQMs'.
pub const BUFFER_TYPES: &[&str] = &["fq_codel", "classful", "dualpi2"];

/// The queue's `aqm` table: a FIFO's AQM or a multi-queue buffer.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum BufferSpec {
    Fifo(AqmSpec),
    Multi(MultiSpec),
}

/// The multi-queue buffers, tagged by `type`.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "type")]
pub enum MultiSpec {
    #[serde(rename = "fq_codel")]
    FqCodel(FqCodelSpec),
    #[serde(rename = "classful")]
    Classful(ClassfulSpec),
    #[serde(rename = "dualpi2")]
    DualPi2(DualPi2Spec),
}

impl Default for BufferSpec {
    fn default() -> Self {
        BufferSpec::Fifo(AqmSpec::default())
    }
}

impl<'de> Deserialize<'de> for BufferSpec {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let all: Vec<&str> = AQM_TYPES.iter().chain(BUFFER_TYPES).copied().collect();
        let (ty, mut rest) = tagged_table::<D>(d, &all)?;
        match ty.as_str() {
            "fq_codel" => inner(rest).map(|s| BufferSpec::Multi(MultiSpec::FqCodel(s))),
            "classful" => inner(rest).map(|s| BufferSpec::Multi(MultiSpec::Classful(s))),
            "dualpi2" => inner(rest).map(|s| BufferSpec::Multi(MultiSpec::DualPi2(s))),
            _ => {
                rest.insert("type".into(), toml::Value::String(ty));
                inner(rest).map(BufferSpec::Fifo)
            }
        }
    }
}

/// What a spec builds for a port.
pub enum Discipline {
    Fifo(AnyAqm),
    Buffer(AnyBuffer),
}

impl BufferSpec {
    /// Whether the buffer is one FIFO.
    pub fn is_fifo(&self) -> bool {
        matches!(self, BufferSpec::Fifo(_))
    }

    /// The `type` tag.
    pub fn kind(&self) -> &'static str {
        match self {
            BufferSpec::Fifo(a) => a.kind(),
            BufferSpec::Multi(MultiSpec::FqCodel(_)) => "fq_codel",
            BufferSpec::Multi(MultiSpec::Classful(_)) => "classful",
            BufferSpec::Multi(MultiSpec::DualPi2(_)) => "dualpi2",
        }
    }

    /// Reports every problem of the table's fields under the path `a`.
    pub fn validate(&self, a: &str, q: &QueueCtx, p: &mut Problems) {
        match self {
            BufferSpec::Fifo(s) => s.validate(a, q, p),
            BufferSpec::Multi(MultiSpec::FqCodel(s)) => s.validate(a, q, p),
            BufferSpec::Multi(MultiSpec::Classful(s)) => s.validate(a, q, p),
            BufferSpec::Multi(MultiSpec::DualPi2(s)) => s.validate(a, p),
        }
    }

    /// Builds the validated spec for a port of capacity `limit`. Flow queueing draws from
    /// the port's random stream first (its hash salt); nothing else draws at build.
    pub fn build(&self, q: &QueueCtx, limit: Limit, rng: &mut Rng) -> Discipline {
        match self {
            BufferSpec::Fifo(s) => Discipline::Fifo(s.build(q)),
            BufferSpec::Multi(MultiSpec::FqCodel(s)) => {
                Discipline::Buffer(AnyBuffer::Flows(s.build(q, rng)))
            }
            BufferSpec::Multi(MultiSpec::Classful(s)) => {
                Discipline::Buffer(AnyBuffer::Classes(s.build(q, limit)))
            }
            BufferSpec::Multi(MultiSpec::DualPi2(s)) => {
                Discipline::Buffer(AnyBuffer::Dual(Box::new(Dual::new(s.build()))))
            }
        }
    }
}

/// A multi-queue buffer, as a port holds it.
pub enum AnyBuffer {
    Flows(FqCodel),
    Classes(Classful),
    /// Boxed: its two queues and configuration are four times a classful buffer's size.
    Dual(Box<Dual>),
}

/// DualPI2 with the counts of its two queues (`subqueues` rows "L" and "C").
pub struct Dual {
    pub q: DualPi2,
    counters: [SubCounters; 2],
    /// The queue of the arrival being decided.
    pending: usize,
}

impl Dual {
    pub fn new(q: DualPi2) -> Dual {
        Dual {
            q,
            counters: Default::default(),
            pending: C,
        }
    }

    fn on_arrival(&mut self, p: &Packet, now: Time, rng: &mut Rng) -> Verdict {
        self.pending = if DualPi2::is_l4s(p) { L } else { C };
        self.counters[self.pending].arrive(p.size);
        self.q.on_arrival(p, now, rng)
    }

    fn push(&mut self, idx: u32, p: &Packet, marked: bool) {
        let k = &mut self.counters[self.pending];
        k.enqueued += 1;
        k.marked += marked as u64;
        self.q.push(idx, p, p.enqueued);
    }

    fn next(&mut self, pkts: &PacketArena, now: Time, rng: &mut Rng) -> Option<(u32, Verdict)> {
        let (idx, v, sub) = self.q.next(now, rng)?;
        let p = pkts.get(idx);
        let k = &mut self.counters[sub];
        if v.drops(p.ecn) {
            k.dropped += 1;
        } else {
            k.depart(p, now, v.marks(p.ecn));
        }
        Some((idx, v))
    }

    fn tables(&self) -> Vec<Table> {
        let rows = [
            ("L", "dualpi2", &self.counters[L]),
            ("C", "dualpi2", &self.counters[C]),
        ];
        vec![subqueue_table(&rows)]
    }
}

impl AnyBuffer {
    pub fn kind(&self) -> &'static str {
        match self {
            AnyBuffer::Flows(_) => "fq_codel",
            AnyBuffer::Classes(_) => "classful",
            AnyBuffer::Dual(_) => "dualpi2",
        }
    }

    /// Whether the buffer takes every arrival and then drops from inside itself to get
    /// back within the port's limit (FQ-CoDel), rather than refusing the arrival.
    #[inline]
    pub fn evicts(&self) -> bool {
        matches!(self, AnyBuffer::Flows(_))
    }

    /// The decision on an arrival before the port's shared limit is checked.
    #[inline]
    pub fn on_arrival(&mut self, p: &Packet, now: Time, rng: &mut Rng) -> Verdict {
        match self {
            AnyBuffer::Flows(_) => Verdict::Pass,
            AnyBuffer::Classes(c) => c.on_arrival(p, now, rng),
            AnyBuffer::Dual(d) => d.on_arrival(p, now, rng),
        }
    }

    /// The arrival `on_arrival` saw was dropped (`port_full`: by the port's limit).
    pub fn refused(&mut self, port_full: bool, now: Time) {
        match self {
            AnyBuffer::Flows(_) => {}
            AnyBuffer::Classes(c) => c.refused(port_full, now),
            AnyBuffer::Dual(d) => d.counters[d.pending].dropped += 1,
        }
    }

    /// Takes the arrival `on_arrival` saw.
    #[inline]
    pub fn push(&mut self, idx: u32, pkts: &mut PacketArena, marked: bool) {
        match self {
            AnyBuffer::Flows(f) => f.push(idx, pkts.get(idx)),
            AnyBuffer::Classes(c) => c.push(idx, pkts, marked),
            AnyBuffer::Dual(d) => d.push(idx, pkts.get(idx), marked),
        }
    }

    /// The next packet removed and the verdict on it; after a drop the port asks again.
    #[inline]
    pub fn next(
        &mut self,
        pkts: &mut PacketArena,
        now: Time,
        rng: &mut Rng,
    ) -> Option<(u32, Verdict)> {
        match self {
            AnyBuffer::Flows(f) => f.next(pkts, now),
            AnyBuffer::Classes(c) => c.next(pkts, now, rng).map(|(i, v, _)| (i, v)),
            AnyBuffer::Dual(d) => d.next(pkts, now, rng),
        }
    }

    pub fn on_idle(&mut self, since: Time) {
        if let AnyBuffer::Classes(c) = self {
            c.on_idle(since);
        }
    }

    pub fn first_timer(&mut self, now: Time) -> Option<Time> {
        match self {
            AnyBuffer::Flows(_) => None,
            AnyBuffer::Classes(c) => c.first_timer(now),
            AnyBuffer::Dual(d) => d.q.first_timer(now),
        }
    }

    pub fn on_timer(&mut self, now: Time) -> Option<Time> {
        match self {
            AnyBuffer::Flows(_) => None,
            AnyBuffer::Classes(c) => c.on_timer(now),
            AnyBuffer::Dual(d) => d.q.on_timer(now),
        }
    }

    pub fn metric_names(&self) -> &'static [&'static str] {
        match self {
            AnyBuffer::Flows(_) => FQ_CODEL_METRICS,
            AnyBuffer::Classes(c) => c.metric_names(),
            AnyBuffer::Dual(_) => DualPi2::metric_names(),
        }
    }

    pub fn metrics(&self, now: Time, out: &mut [f64]) {
        match self {
            AnyBuffer::Flows(f) => f.metrics(out),
            AnyBuffer::Classes(c) => c.metrics(out),
            AnyBuffer::Dual(d) => d.q.metrics(now, out),
        }
    }

    /// The `subqueues` table and any of the sub-queues' AQMs (flow queueing: none).
    pub fn tables(&self) -> Vec<Table> {
        match self {
            AnyBuffer::Flows(_) => vec![],
            AnyBuffer::Classes(c) => c.tables(),
            AnyBuffer::Dual(d) => d.tables(),
        }
    }

    pub fn restart_measurement(&mut self) {
        match self {
            AnyBuffer::Flows(_) => {}
            AnyBuffer::Classes(c) => c.restart_measurement(),
            AnyBuffer::Dual(d) => d.counters = Default::default(),
        }
    }

    pub fn waiting<'a>(&'a self, pkts: &'a PacketArena) -> Box<dyn Iterator<Item = u32> + 'a> {
        match self {
            AnyBuffer::Flows(f) => Box::new(f.waiting().copied()),
            AnyBuffer::Classes(c) => Box::new(c.waiting(pkts)),
            AnyBuffer::Dual(d) => Box::new(d.q.waiting()),
        }
    }
}
