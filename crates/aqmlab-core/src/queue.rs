//! An output queue: the buffer plumbing around one AQM, with reason-coded counters.
//!
//! # Buffer convention
//!
//! The buffer holds packets *waiting* for the link; the packet being transmitted has left it
//! (ns-2 `Queue::recv`/`resume`; docs/queue.md). Queue lengths seen by AQMs and reported
//! in statistics exclude it. A `Limit::Packets(L)` buffer holds at most L waiting packets, so
//! together with the one on the wire the port is an M/M/1/K system with **K = L + 1**. A
//! `Limit::Bytes(B)` buffer accepts an arrival iff the waiting bytes plus its size are at
//! most B: a packet that fits exactly is accepted, one byte more is dropped.
//!
//! # Order of decisions on arrival
//!
//! 1. The AQM sees the arrival and the current buffer, and returns a verdict.
//! 2. `Drop(r)` drops with reason r; `Mark(r)` on a Not-ECT packet also drops with reason r.
//! 3. Otherwise, if the buffer has no room, the packet is dropped with `Reason::Overflow`,
//!    even if the AQM wanted to mark it (RFC 3168 §7), and the AQM is told (`on_overflow`).
//! 4. Otherwise a `Mark` sets CE on an ECT packet (a CE packet passes unchanged), and the
//!    packet is enqueued.
//!
//! # Buffers
//!
//! The buffer is one FIFO, or a buffer of several sub-queues (`buffer::AnyBuffer`): the
//! per-flow sub-queues of FQ-CoDel (`fq_codel`) or the classes of a classful buffer
//! (`classful`), which choose the departing packet and decide on it with their own AQMs;
//! the port's `aqm` is then DropTail. The port keeps the totals, the limit and the counters
//! by reason for all of them; the sub-queues keep their own counts (`buffer::SubCounters`).
//! A classful buffer decides on an arrival in its class first (its AQM, its own limit),
//! then the port's shared limit applies, as for a FIFO. A flow-queue buffer never refuses
//! an arrival: it enqueues it, and if the buffer is then over its limit it drops from the
//! head of its fattest flow until it fits (RFC 8290 §4.1). Those packets were enqueued, so
//! they count as overflow drops *after* enqueue, and the caller frees them from `evicted`.
//! Occupancy peaks are recorded after those drops: no event can observe the transient.

use crate::aqm::{
    AnyAqm, Aqm, Backlog, DropTail, QueueView, Reason, Verdict, NUM_COLOURS, NUM_REASONS,
};
use crate::packet::{Colour, Ecn, PacketArena, PacketList};
use crate::record::{LogHistogram, TimeWeighted};
use crate::rng::Rng;
use crate::table::Table;
use crate::units::{Time, NS_PER_SEC};

pub use crate::aqm::Limit;
pub use counters::{subqueue_table, ColourCounters, QueueCounters, SubCounters};

pub mod buffer;
pub mod classful;
mod counters;
pub mod dualpi2;
pub mod fq_codel;
pub mod sched;

use buffer::AnyBuffer;
use fq_codel::FqCodel;

/// One port's buffer, AQM and measurements.
///
/// Laid out by hand (issue 15). At 10 000 flows the access links' queues (two per host)
/// are far out of cache, and nearly every packet that crosses one finds it idle: arrival,
/// admission, departure at once. Such a passage touches three cache lines and the AQM's
/// tag (`packet_touches_few_lines` checks it), where an order chosen by the compiler spread
/// it over a dozen: the lengths and limit (the start of `v`, line 0); the counters every
/// packet moves (the end of `counters`) and zero sojourns; the buffer's ends, the peaks and
/// busy time, the level's clock and idle time (the start of `level`), the last two groups
/// in the two lines of one aligned 128-byte pair, which the processor fetches together
/// (what `v`'s 104 bytes, `rng`, `evicted`, `_pair` and `counters`' first 80 bytes put at
/// byte 256). Then what busier ports and the AQM use, then the warm-up copy, read once or
/// twice a run.
#[repr(C, align(64))]
pub struct OutputQueue {
    /// What the AQM sees, kept up to date in place (the waiting packets in total and by
    /// precedence, beside the buffer so that reading them needs no dispatch; the limit; the
    /// link rate; the upstream backlog), so that no hook call copies it.
    v: QueueView,
    pub rng: Rng,
    /// Packets dropped from inside a flow-queue buffer by an arrival, for the caller to free.
    pub evicted: Vec<u32>,
    /// Puts the per-packet counters at the start of a line pair (`packet_touches_few_lines`).
    _pair: [u64; 2],
    pub counters: QueueCounters,
    /// Packets that left the instant they arrived (they found the link idle): counted
    /// here, beside the rest of an idle port's packet, and handed to `sojourn` by `finish`.
    zero_sojourns: u64,
    /// The waiting packets of a FIFO port, threaded through their slots.
    fifo: PacketList,
    /// The sub-queues and scheduler of a multi-queue port (then `fifo` stays empty). Two
    /// fields rather than an enum: the FIFO path tests one pointer and touches its list
    /// directly.
    multi: Option<Box<AnyBuffer>>,
    /// `aqm.passive()`, kept beside the buffer: the port calls none of the AQM's hooks,
    /// and so does not load the AQM's line (an access link's, cold at scale) per packet.
    passive: bool,
    /// Whether the AQM or flow scheduler has sampled variables (`metric_names`), kept in
    /// the hot line for the periodic sample, which then leaves the AQM's line alone.
    has_metrics: bool,
    /// Whether any packet was dropped or marked here yet: until one is, a sample knows the
    /// drop and mark counters (two lines of their own) are zero without reading them.
    dropped_or_marked: bool,
    /// Largest instantaneous occupancy over the whole run (warm-up included), for the
    /// capacity check at the end of the run.
    peak_pkts: u32,
    peak_bytes: u64,
    /// Nanoseconds the link spent transmitting inside the measurement window.
    pub busy_ns: u64,
    pub level: TimeWeighted,
    /// Sojourn times other than 0 until `finish`, then all of them (read it then). Beside
    /// `level`, which ends on a line's end: a packet that waited reads both.
    sojourn: LogHistogram,
    /// Private: `passive` follows it (`set_aqm`).
    aqm: AnyAqm,
    pub at_warmup: QueueCounters,
}

/// A queue's identity: its index among the simulator's queues. Today each channel has one
/// output queue; a switch's virtual output queues will have ids of their own, with no
/// channel of their own to be named after.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct QueueId(pub u32);

impl QueueId {
    #[inline]
    pub fn ix(self) -> usize {
        self.0 as usize
    }
}

/// What became of an arriving packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Admission {
    Enqueued,
    Dropped(Reason),
}

impl OutputQueue {
    /// Asks for the lines a packet's passage reads (see `packet_touches_few_lines`): each
    /// of them, the pair's two included, since a software prefetch loads its own line only.
    #[inline]
    pub fn prefetch_hot(&self) {
        crate::mem::prefetch(&self.v);
        crate::mem::prefetch(&self.counters.arrivals);
        crate::mem::prefetch(&self.level);
    }

    /// Asks for the AQM's line, which a passive port does not read.
    #[inline]
    pub fn prefetch_aqm(&self) {
        crate::mem::prefetch(&self.aqm);
    }

    /// Whether the port calls none of its AQM's hooks (see `passive`).
    pub fn is_passive(&self) -> bool {
        self.passive
    }

    /// See `has_metrics`.
    #[inline]
    pub fn has_metrics(&self) -> bool {
        self.has_metrics
    }

    /// See `dropped_or_marked`.
    #[inline]
    pub fn dropped_or_marked(&self) -> bool {
        self.dropped_or_marked
    }

    /// The port's AQM.
    pub fn aqm(&self) -> &AnyAqm {
        &self.aqm
    }

    /// Replaces the AQM (tests script the port's decisions this way).
    #[cfg(test)]
    pub(crate) fn set_aqm(&mut self, aqm: AnyAqm) {
        self.passive = aqm.passive();
        self.aqm = aqm;
        self.has_metrics = !self.metric_names().is_empty();
    }

    /// The AQM's first timer, asked for once when the run starts.
    pub fn first_timer(&mut self, now: Time) -> Option<Time> {
        match &mut self.multi {
            None => self.aqm.first_timer(now),
            Some(b) => b.first_timer(now),
        }
    }

    /// Runs the AQM's timer; returns when it wants the next one.
    pub fn on_timer(&mut self, now: Time) -> Option<Time> {
        match &mut self.multi {
            None => self.aqm.on_timer(&self.v, now),
            Some(b) => b.on_timer(now),
        }
    }

    /// Tells the AQM that the link went idle at `since` with the buffer empty.
    #[inline]
    pub fn on_idle(&mut self, since: Time) {
        if !self.passive {
            self.aqm.on_idle(since);
        }
        if let Some(b) = &mut self.multi {
            b.on_idle(since);
        }
    }

    pub fn new(limit: Limit, link_bps: u64, aqm: AnyAqm, rng: Rng) -> Self {
        Self::with_buffer(None, limit, link_bps, aqm, rng)
    }

    /// A port whose buffer is FQ-CoDel's per-flow sub-queues.
    pub fn with_flows(limit: Limit, link_bps: u64, fq: FqCodel, rng: Rng) -> Self {
        Self::with_multi(limit, link_bps, AnyBuffer::Flows(fq), rng)
    }

    /// A port whose buffer has several sub-queues.
    pub fn with_multi(limit: Limit, link_bps: u64, b: AnyBuffer, rng: Rng) -> Self {
        let aqm = AnyAqm::DropTail(DropTail);
        Self::with_buffer(Some(Box::new(b)), limit, link_bps, aqm, rng)
    }

    fn with_buffer(
        multi: Option<Box<AnyBuffer>>,
        limit: Limit,
        link_bps: u64,
        aqm: AnyAqm,
        rng: Rng,
    ) -> Self {
        let mut q = OutputQueue {
            v: QueueView::new(0, 0, limit, link_bps),
            counters: QueueCounters::default(),
            zero_sojourns: 0,
            fifo: PacketList::default(),
            multi,
            passive: aqm.passive(),
            has_metrics: false,
            dropped_or_marked: false,
            peak_pkts: 0,
            peak_bytes: 0,
            busy_ns: 0,
            level: TimeWeighted::default(),
            aqm,
            sojourn: LogHistogram::default(),
            rng,
            at_warmup: QueueCounters::default(),
            evicted: Vec::new(),
            _pair: [0; 2],
        };
        q.has_metrics = !q.metric_names().is_empty();
        q
    }

    #[inline]
    pub fn len_pkts(&self) -> u32 {
        self.v.len_pkts
    }
    #[inline]
    pub fn len_bytes(&self) -> u64 {
        self.v.len_bytes
    }
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len_pkts() == 0
    }

    /// The flow scheduler, if the buffer is one.
    pub fn flows(&self) -> Option<&FqCodel> {
        match self.multi.as_deref() {
            Some(AnyBuffer::Flows(f)) => Some(f),
            _ => None,
        }
    }

    /// The multi-queue buffer, if the port has one.
    pub fn multi(&self) -> Option<&AnyBuffer> {
        self.multi.as_deref()
    }

    /// The scenario `type` of this port's queue discipline, for result tables.
    pub fn kind(&self) -> &'static str {
        match &self.multi {
            None => self.aqm.kind(),
            Some(b) => b.kind(),
        }
    }

    /// Names of the values `metrics` writes, in order.
    pub fn metric_names(&self) -> &'static [&'static str] {
        match &self.multi {
            None => self.aqm.metric_names(),
            Some(b) => b.metric_names(),
        }
    }

    /// Writes the internal state of the AQM or multi-queue buffer.
    pub fn metrics(&self, now: Time, out: &mut [f64]) {
        match &self.multi {
            None => self.aqm.metrics(&self.v, now, out),
            Some(b) => b.metrics(now, out),
        }
    }

    /// The tables the AQM or buffer adds at the end of the run.
    pub fn tables(&self) -> Vec<Table> {
        match &self.multi {
            None => self.aqm.tables(),
            Some(b) => b.tables(),
        }
    }

    #[inline]
    pub fn view(&self) -> &QueueView {
        &self.v
    }

    /// Sets what waits upstream for this port (see `QueueView::upstream`).
    pub fn set_upstream(&mut self, b: Backlog) {
        self.v.upstream = b;
    }

    /// The waiting packets of one drop precedence.
    #[inline]
    pub fn backlog(&self, colour: Colour) -> Backlog {
        self.v.backlog(colour)
    }

    /// Enqueues into the lengths, and counts a yellow or red packet as such.
    #[inline]
    fn push_backlog(&mut self, c: usize, size: u32) {
        self.v.enter(c, size);
        self.counters.enqueued += 1;
        if c != 0 {
            self.counters.not_green_mut(c).enqueued += 1;
        }
    }

    #[inline]
    fn pop_backlog(&mut self, c: usize, size: u32) {
        self.v.leave(c, size);
    }

    #[inline]
    fn has_room(&self, size: u32) -> bool {
        self.v.has_room(size)
    }

    fn over_limit(&self) -> bool {
        match self.v.limit {
            Limit::Packets(l) => self.len_pkts() as u64 > l as u64,
            Limit::Bytes(l) => self.v.len_bytes > l,
        }
    }

    /// Admits or drops an arriving packet (see the module doc for the order of decisions).
    /// A dropped packet is still in the arena: the caller frees it and charges its flow.
    // Always: with the multi-queue branch's arguments LLVM stopped inlining it into the
    // router's path (+3.3% instructions in engine_bench, measured).
    #[inline(always)]
    pub fn arrive(&mut self, idx: u32, pkts: &mut PacketArena, now: Time) -> Admission {
        self.admit(idx, pkts, now, None)
    }

    /// `arrive` at a queue whose capacity is a buffer shared with other queues (a switch
    /// input's VOQs, `input_buffer = "per_port"`): `room` says whether the shared buffer
    /// holds the packet, and replaces this queue's own capacity check.
    pub fn arrive_shared(
        &mut self,
        idx: u32,
        pkts: &mut PacketArena,
        now: Time,
        room: bool,
    ) -> Admission {
        self.admit(idx, pkts, now, Some(room))
    }

    /// Whether an arrival dropped packets from inside the buffer (`evicted`). Only a
    /// flow-queue buffer does: asking `multi`, in the hot line, first keeps a FIFO port's
    /// passage off `evicted`'s line, a cold one at scale.
    #[inline]
    pub fn has_evicted(&self) -> bool {
        self.multi.is_some() && !self.evicted.is_empty()
    }

    /// The packet at the head of a FIFO buffer (None for a multi-queue buffer).
    pub fn head(&self) -> Option<u32> {
        self.fifo.front()
    }

    #[inline(always)]
    fn admit(
        &mut self,
        idx: u32,
        pkts: &mut PacketArena,
        now: Time,
        room: Option<bool>,
    ) -> Admission {
        let (size, c) = (pkts.get(idx).size, pkts.get(idx).colour as usize);
        self.counters.arrivals += 1;
        self.counters.arrival_bytes += size as u64;
        self.counters.queue_at_arrivals += self.v.len_pkts as u64;
        if c != 0 {
            let k = self.counters.not_green_mut(c);
            k.arrivals += 1;
            k.arrival_bytes += size as u64;
        }
        if self.multi.is_some() {
            return self.arrive_multi(idx, size, c, pkts, now, room);
        }
        let verdict = if self.passive {
            Verdict::Pass
        } else {
            self.aqm
                .on_arrival(&self.v, pkts.get(idx), now, &mut self.rng)
        };
        let ecn = pkts.get(idx).ecn;
        let mark = match verdict {
            Verdict::Drop(r) => return self.drop_arrival(r, c),
            Verdict::Mark(r) if ecn == Ecn::NotEct => return self.drop_arrival(r, c),
            Verdict::Mark(r) if ecn.is_ect() => Some(r),
            Verdict::Mark(_) | Verdict::Pass => None,
        };
        if !room.unwrap_or_else(|| self.has_room(size)) {
            if !self.passive {
                self.aqm.on_overflow(&self.v, now);
            }
            return self.drop_arrival(Reason::Overflow, c);
        }
        let p = pkts.get_mut(idx);
        if let Some(r) = mark {
            p.ecn = Ecn::Ce;
            self.count_mark(r);
            if c != 0 {
                self.counters.not_green_mut(c).marked[r as usize] += 1;
            }
        }
        if ecn.is_ect() {
            self.counters.ect_enqueued += 1;
        }
        p.enqueued = now;
        self.level.touch(now, self.v.len_pkts, self.v.len_bytes);
        self.fifo.push_back(idx, pkts);
        self.push_backlog(c, size);
        self.peak_pkts = self.peak_pkts.max(self.v.len_pkts);
        self.peak_bytes = self.peak_bytes.max(self.v.len_bytes);
        Admission::Enqueued
    }

    /// Arrival at a multi-queue buffer: its own decision first (a class's AQM and limit;
    /// FQ-CoDel has none, its CoDels act at dequeue), then the port's shared limit, except
    /// that a flow-queue buffer takes every arrival and the fattest flow pays for any
    /// excess (see the module doc). `room` is a shared input buffer's answer (`arrive_shared`).
    #[inline(never)]
    fn arrive_multi(
        &mut self,
        idx: u32,
        size: u32,
        c: usize,
        pkts: &mut PacketArena,
        now: Time,
        room: Option<bool>,
    ) -> Admission {
        let Some(b) = self.multi.as_mut() else {
            unreachable!("called for a multi-queue buffer")
        };
        let ecn = pkts.get(idx).ecn;
        let mark = match b.on_arrival(pkts.get(idx), now, &mut self.rng) {
            Verdict::Drop(r) => {
                b.refused(false, now);
                return self.drop_arrival(r, c);
            }
            Verdict::Mark(r) if ecn == Ecn::NotEct => {
                b.refused(false, now);
                return self.drop_arrival(r, c);
            }
            Verdict::Mark(r) if ecn.is_ect() => Some(r),
            Verdict::Mark(_) | Verdict::Pass => None,
        };
        let evicts = b.evicts();
        let full = !room.unwrap_or_else(|| self.has_room(size));
        if full && !evicts {
            if let Some(b) = self.multi.as_mut() {
                b.refused(true, now);
            }
            return self.drop_arrival(Reason::Overflow, c);
        }
        let p = pkts.get_mut(idx);
        if let Some(r) = mark {
            p.ecn = Ecn::Ce;
            self.count_mark(r);
            if c != 0 {
                self.counters.not_green_mut(c).marked[r as usize] += 1;
            }
        }
        if ecn.is_ect() {
            self.counters.ect_enqueued += 1;
        }
        p.enqueued = now;
        self.level.touch(now, self.v.len_pkts, self.v.len_bytes);
        if let Some(b) = self.multi.as_mut() {
            b.push(idx, pkts, mark.is_some());
        }
        self.push_backlog(c, size);
        if full {
            self.evict(pkts);
        }
        self.peak_pkts = self.peak_pkts.max(self.v.len_pkts);
        self.peak_bytes = self.peak_bytes.max(self.v.len_bytes);
        Admission::Enqueued
    }

    /// Drops from the fattest flow of a flow-queue buffer until it is within its limit.
    #[cold]
    fn evict(&mut self, pkts: &PacketArena) {
        let Some(AnyBuffer::Flows(f)) = self.multi.as_deref_mut() else {
            unreachable!("only a flow-queue buffer enqueues beyond its limit")
        };
        while match self.v.limit {
            Limit::Packets(l) => f.len_pkts() as u64 > l as u64,
            Limit::Bytes(l) => self.v.len_bytes > l,
        } {
            let from = self.evicted.len();
            self.v.len_bytes -= f.drop_from_fattest(pkts, &mut self.evicted);
            self.v.len_pkts = f.len_pkts();
            let n = (self.evicted.len() - from) as u64;
            // `count_drop`'s two writes, by field: `f` holds `self.multi`.
            self.counters.dropped[Reason::Overflow as usize] += n;
            self.dropped_or_marked = true;
            self.counters.dropped_after_enqueue += n;
            for &i in &self.evicted[from..] {
                let p = pkts.get(i);
                let c = p.colour as usize;
                if c == 0 {
                    continue;
                }
                self.v.not_green[c].pkts -= 1;
                self.v.not_green[c].bytes -= p.size as u64;
                let k = self.counters.not_green_mut(c);
                k.dropped[Reason::Overflow as usize] += 1;
                k.dropped_after_enqueue += 1;
            }
        }
        debug_assert!(!self.over_limit());
    }

    /// Counts a drop for reason `r`, and notes that the drop counters are no longer zero.
    #[inline]
    fn count_drop(&mut self, r: Reason) {
        self.counters.dropped[r as usize] += 1;
        self.dropped_or_marked = true;
    }

    /// Counts an ECN mark for reason `r` (see `count_drop`).
    #[inline]
    fn count_mark(&mut self, r: Reason) {
        self.counters.marked[r as usize] += 1;
        self.dropped_or_marked = true;
    }

    #[inline]
    fn drop_arrival(&mut self, r: Reason, c: usize) -> Admission {
        self.count_drop(r);
        if c != 0 {
            self.counters.not_green_mut(c).dropped[r as usize] += 1;
        }
        Admission::Dropped(r)
    }

    /// Takes the next packet for the wire. Packets the AQM drops at dequeue are pushed on
    /// `dropped` for the caller to free and charge.
    // Always, as for `AnyAqm::on_arrival`: the switch is a second caller.
    #[inline(always)]
    pub fn dequeue(
        &mut self,
        pkts: &mut PacketArena,
        now: Time,
        dropped: &mut Vec<u32>,
    ) -> Option<u32> {
        if self.multi.is_some() {
            return self.dequeue_multi(pkts, now, dropped);
        }
        loop {
            let idx = self.fifo.pop_front(pkts)?;
            // The packet behind it leaves one serialisation from now and was last touched
            // when it arrived, a queueing delay ago: start loading it.
            if let Some(next) = self.fifo.front() {
                crate::mem::prefetch(pkts.get(next));
            }
            let (size, c) = (pkts.get(idx).size, pkts.get(idx).colour as usize);
            self.level.touch(now, self.v.len_pkts, self.v.len_bytes);
            self.pop_backlog(c, size);
            let verdict = if self.passive {
                Verdict::Pass
            } else {
                self.aqm
                    .on_departure(&self.v, pkts.get(idx), now, &mut self.rng)
            };
            if self.settle(idx, size, verdict, pkts, now, dropped) {
                return Some(idx);
            }
        }
    }

    /// Departure from a multi-queue buffer: its scheduler picks the packet and the AQM of
    /// its sub-queue decides on it.
    #[inline(never)]
    fn dequeue_multi(
        &mut self,
        pkts: &mut PacketArena,
        now: Time,
        dropped: &mut Vec<u32>,
    ) -> Option<u32> {
        loop {
            let Some(b) = self.multi.as_mut() else {
                unreachable!("called for a multi-queue buffer")
            };
            self.level.touch(now, self.v.len_pkts, self.v.len_bytes);
            let (idx, verdict) = b.next(pkts, now, &mut self.rng)?;
            let (size, c) = (pkts.get(idx).size, pkts.get(idx).colour as usize);
            self.pop_backlog(c, size);
            // FQ-CoDel's CoDels mark only ECN-capable packets: a mark is never turned into
            // a drop behind the scheduler's back (its deficit was charged). A classful
            // buffer counts a mark on a Not-ECT packet as the drop `settle` makes of it.
            debug_assert!(
                !matches!(verdict, Verdict::Mark(_))
                    || pkts.get(idx).ecn != Ecn::NotEct
                    || !matches!(self.multi.as_deref(), Some(AnyBuffer::Flows(_)))
            );
            if self.settle(idx, size, verdict, pkts, now, dropped) {
                return Some(idx);
            }
        }
    }

    /// Applies a departure verdict; true if the packet goes to the wire.
    #[inline(always)]
    fn settle(
        &mut self,
        idx: u32,
        size: u32,
        verdict: Verdict,
        pkts: &mut PacketArena,
        now: Time,
        dropped: &mut Vec<u32>,
    ) -> bool {
        let p = pkts.get_mut(idx);
        let c = p.colour as usize;
        match verdict {
            Verdict::Drop(r) => {
                self.drop_after_enqueue(r, c);
                dropped.push(idx);
                return false;
            }
            Verdict::Mark(r) if p.ecn == Ecn::NotEct => {
                self.drop_after_enqueue(r, c);
                dropped.push(idx);
                return false;
            }
            Verdict::Mark(r) if p.ecn.is_ect() => {
                p.ecn = Ecn::Ce;
                self.count_mark(r);
                if c != 0 {
                    self.counters.not_green_mut(c).marked[r as usize] += 1;
                }
            }
            Verdict::Mark(_) | Verdict::Pass => {}
        }
        self.counters.dequeued += 1;
        self.counters.dequeued_bytes += size as u64;
        if c != 0 {
            let k = self.counters.not_green_mut(c);
            k.dequeued += 1;
            k.dequeued_bytes += size as u64;
        }
        match now - p.enqueued {
            0 => self.zero_sojourns += 1,
            s => self.sojourn.record(s),
        }
        true
    }

    #[inline]
    fn drop_after_enqueue(&mut self, r: Reason, c: usize) {
        self.count_drop(r);
        self.counters.dropped_after_enqueue += 1;
        if c != 0 {
            let k = self.counters.not_green_mut(c);
            k.dropped[r as usize] += 1;
            k.dropped_after_enqueue += 1;
        }
    }

    /// Restarts every measurement at the end of the warm-up.
    pub fn restart_measurement(&mut self, now: Time) {
        self.level.touch(now, self.len_pkts(), self.v.len_bytes);
        self.level.restart(now);
        self.sojourn = LogHistogram::default();
        self.zero_sojourns = 0;
        self.at_warmup.clone_from(&self.counters);
        if let Some(b) = &mut self.multi {
            b.restart_measurement();
        }
    }

    /// ∫₀^now (packets waiting) dt in packet·seconds: the difference between two samples
    /// over their time gap is the exact time-weighted mean queue in between.
    pub fn area_pkt_s(&self, now: Time) -> f64 {
        let open = self.len_pkts() as u128 * (now - self.level.last) as u128;
        (self.level.sum_pkts_before + self.level.sum_pkts + open) as f64 / NS_PER_SEC as f64
    }

    /// Closes the time integrals at the end of the run.
    pub fn finish(&mut self, now: Time) {
        self.level.touch(now, self.len_pkts(), self.v.len_bytes);
        self.sojourn
            .record_zeros(std::mem::take(&mut self.zero_sojourns));
        self.sojourn.settle();
    }

    /// The sojourn times of the measurement window, complete once `finish` has run.
    pub fn sojourn(&self) -> &LogHistogram {
        debug_assert_eq!(self.zero_sojourns, 0, "read after finish");
        &self.sojourn
    }

    /// Packet indices still waiting (for conservation checks).
    pub fn waiting<'a>(&'a self, pkts: &'a PacketArena) -> Box<dyn Iterator<Item = u32> + 'a> {
        match &self.multi {
            None => Box::new(self.fifo.iter(pkts)),
            Some(b) => b.waiting(pkts),
        }
    }

    /// The conservation identities of ns-3's QueueDisc, on the run's totals. Differences are
    /// checked, not assumed: a broken counter is reported, never a wrap-around.
    pub fn check_conservation(&self, pkts: &PacketArena) -> Result<(), String> {
        let c = &self.counters;
        let dropped_before = c
            .total_dropped()
            .checked_sub(c.dropped_after_enqueue)
            .ok_or_else(|| {
                format!(
                    "dropped after enqueue {} > all drops {}",
                    c.dropped_after_enqueue,
                    c.total_dropped()
                )
            })?;
        if c.arrivals != c.enqueued + dropped_before {
            return Err(format!(
                "arrivals {} != enqueued {} + dropped before enqueue {}",
                c.arrivals, c.enqueued, dropped_before
            ));
        }
        let backlog = c.enqueued.checked_sub(c.dequeued + c.dropped_after_enqueue);
        let waiting = self.waiting(pkts).count() as u64;
        if backlog != Some(waiting) {
            return Err(format!(
                "enqueued {} - dequeued {} - dropped after enqueue {} != buffer length {}",
                c.enqueued, c.dequeued, c.dropped_after_enqueue, waiting
            ));
        }
        if self.v.len_pkts as u64 != waiting {
            return Err(format!(
                "queue length {} != packets in the buffer {waiting}",
                self.v.len_pkts
            ));
        }
        if c.total_marked() > c.ect_enqueued {
            return Err(format!(
                "marks {} > ECN-capable enqueued {}",
                c.total_marked(),
                c.ect_enqueued
            ));
        }
        let over = match self.v.limit {
            Limit::Packets(l) => self.peak_pkts as u64 > l as u64,
            Limit::Bytes(l) => self.peak_bytes > l,
        };
        if over {
            return Err(format!(
                "buffer exceeded its limit {:?}: peak {} packets, {} bytes",
                self.v.limit, self.peak_pkts, self.peak_bytes
            ));
        }
        self.check_colours()
    }

    /// Yellow and red each conserve their packets, and together stay within the totals
    /// (green, the rest, then conserves its own by the total identities).
    fn check_colours(&self) -> Result<(), String> {
        let c = &self.counters;
        let mut sum = ColourCounters::default();
        let mut waiting = Backlog::default();
        for i in 0..NUM_COLOURS {
            let k = &c.not_green(i);
            let dropped: u64 = k.dropped.iter().sum();
            let dropped_before = dropped.checked_sub(k.dropped_after_enqueue);
            let backlog = k.enqueued.checked_sub(k.dequeued + k.dropped_after_enqueue);
            let b = self.v.not_green[i];
            if dropped_before.map(|d| k.enqueued + d) != Some(k.arrivals)
                || backlog != Some(b.pkts as u64)
                || (i == 0 && (*k != ColourCounters::default() || b != Backlog::default()))
            {
                return Err(format!(
                    "colour {i}: {k:?} does not add up with {} packets waiting",
                    b.pkts
                ));
            }
            sum.arrivals += k.arrivals;
            sum.arrival_bytes += k.arrival_bytes;
            sum.enqueued += k.enqueued;
            sum.dropped_after_enqueue += k.dropped_after_enqueue;
            sum.dequeued += k.dequeued;
            sum.dequeued_bytes += k.dequeued_bytes;
            for r in 0..NUM_REASONS {
                sum.dropped[r] += k.dropped[r];
                sum.marked[r] += k.marked[r];
            }
            waiting.pkts += b.pkts;
            waiting.bytes += b.bytes;
        }
        let within = sum.arrivals <= c.arrivals
            && sum.arrival_bytes <= c.arrival_bytes
            && sum.enqueued <= c.enqueued
            && sum.dropped_after_enqueue <= c.dropped_after_enqueue
            && sum.dequeued <= c.dequeued
            && sum.dequeued_bytes <= c.dequeued_bytes
            && (0..NUM_REASONS)
                .all(|r| sum.dropped[r] <= c.dropped[r] && sum.marked[r] <= c.marked[r])
            && waiting.pkts <= self.v.len_pkts
            && waiting.bytes <= self.v.len_bytes;
        if !within {
            return Err(format!(
                "yellow and red {sum:?} (waiting {waiting:?}) exceed the totals {c:?}"
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests;
