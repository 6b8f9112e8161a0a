//! The AQM interface: decision logic only, behind one small trait, dispatched by a closed enum.
//!
//! An AQM owns no buffer, no event queue and no clock (the Linux `include/net/red.h`,
//! `codel.h`, `pie.h` split; smoltcp's `Controller`/`AnyController`). The output queue
//! (`crate::queue`) owns the packets, enforces the capacity, applies the verdicts, counts
//! every drop and mark by reason, and calls these hooks at the real events of a router port:
//!
//! | hook | called when | returns |
//! |---|---|---|
//! | `on_arrival` | a packet reaches the port, before the capacity check | pass, mark or drop it early |
//! | `on_departure` | a packet leaves the buffer for the wire (head of line) | pass, mark or drop it (CoDel) |
//! | `on_overflow` | an arrival the AQM passed was dropped because the buffer was full | nothing (BLUE raises p) |
//! | `on_idle` | the link finished its last packet and the buffer is empty (idle start time) | nothing (RED's idle decay) |
//! | `on_timer` | the timer this AQM asked for expires | the next timer, if any (REM, PIE, ARED) |
//! | `metrics` | a time-series sample is taken | its internal state (avg, p, max_p, price, ...) |
//! | `tables` | the run ends | tables of its own (SFB: `sfb_bins`), none by default |
//!
//! `watches_departures` and `watches_idle` say whether the two hooks called at every
//! departure and every idle start do anything; a port skips the call when they say no
//! (DropTail: neither; RED: departures).
//!
//! Marks: a `Mark` verdict on a Not-ECT packet becomes a drop with the same reason; a CE
//! packet is passed unchanged (RFC 3168 §5 and §7; it is never dropped for being CE). A full
//! buffer always drops, even an ECN-capable packet the AQM wanted to mark (RFC 3168 §7).

/// The `Aqm` impl of a RED whose max_p a periodic controller moves (ARED, PSAND): RED's
/// hooks unchanged; a timer every `cfg.interval` that calls the controller's `on_period`
/// (which decays an idle average first, then adapts); RED's metrics followed by the
/// controller's. The optional `arrival` block runs before RED's own arrival hook, while avg
/// still holds the value it had since the previous update (PSAND's interval mean).
macro_rules! periodic_max_p_controller {
    ($ty:ty, [$($name:literal),*], |$s:ident, $out:ident| $extra:block) => {
        periodic_max_p_controller!($ty, [$($name),*], |$s, $out| $extra, arrival: |_s, _now| {});
    };
    (
        $ty:ty, [$($name:literal),*], |$s:ident, $out:ident| $extra:block,
        arrival: |$a:ident, $now:ident| $arr:block
    ) => {
        impl $crate::aqm::Aqm for $ty {
            fn on_arrival(
                &mut self,
                q: &$crate::aqm::QueueView,
                pkt: &$crate::packet::Packet,
                now: $crate::units::Time,
                rng: &mut $crate::rng::Rng,
            ) -> $crate::aqm::Verdict {
                {
                    let $a = &mut *self;
                    let $now = now;
                    $arr
                }
                self.red.on_arrival(q, pkt, now, rng)
            }
            fn on_overflow(&mut self, q: &$crate::aqm::QueueView, now: $crate::units::Time) {
                self.red.on_overflow(q, now)
            }
            fn on_idle(&mut self, since: $crate::units::Time) {
                self.red.on_idle(since)
            }
            fn first_timer(&self, now: $crate::units::Time) -> Option<$crate::units::Time> {
                Some(now + self.cfg.interval)
            }
            fn on_timer(
                &mut self,
                q: &$crate::aqm::QueueView,
                now: $crate::units::Time,
            ) -> Option<$crate::units::Time> {
                self.on_period(q, now);
                Some(now + self.cfg.interval)
            }
            fn metric_names(&self) -> &'static [&'static str] {
                &["avg", "p_b", "p_a", "count", $($name),*]
            }
            fn metrics(
                &self,
                q: &$crate::aqm::QueueView,
                now: $crate::units::Time,
                out: &mut [f64],
            ) {
                self.red.metrics(q, now, &mut out[..4]);
                let $s = self;
                let $out = &mut out[4..];
                $extra
            }
        }
    };
}

pub mod aggregates;
pub mod ared;
pub mod bio;
pub mod blue;
pub mod cioq_red;
pub mod codel;
pub mod drio;
pub mod droptail;
pub mod feng;
pub mod pi;
pub mod pie;
pub mod psand;
pub mod red;
pub mod rem;
pub mod rio;
pub mod sfb;
pub mod urio;

use crate::check::{inner, tagged_table, Problems};
use crate::packet::{Colour, Ecn, Packet};
use crate::rng::Rng;
use crate::table::Table;
use crate::units::{Bytes, Time};
use serde::{Deserialize, Deserializer, Serialize};

pub use ared::{Ared, AredSpec};
pub use bio::{Bio, BioSpec};
pub use blue::{Blue, BlueSpec};
pub use cioq_red::{CioqRed, CioqRedSpec};
pub use codel::{Codel, CodelSpec};
pub use drio::{Drio, DrioSpec};
pub use droptail::{DropTail, DropTailSpec};
pub use feng::{FengRed, FengRedSpec};
pub use pi::{Pi, PiSpec};
pub use pie::{Pie, PieSpec};
pub use psand::{Psand, PsandSpec};
pub use red::{Red, RedSpec};
pub use rem::{Rem, RemSpec};
pub use rio::{Rio, RioSpec};
pub use sfb::{Sfb, SfbSpec};
pub use urio::{Urio, UrioSpec};

/// A test AQM that answers fixed verdicts, to exercise the queue plumbing on every branch.
#[cfg(test)]
#[derive(Clone, Debug)]
pub struct Scripted {
    pub arrival: Verdict,
    pub departure: Verdict,
    pub overflows: u32,
}

#[cfg(test)]
impl Aqm for Scripted {
    fn on_arrival(&mut self, _q: &QueueView, _p: &Packet, _now: Time, _rng: &mut Rng) -> Verdict {
        self.arrival
    }
    fn on_departure(&mut self, _q: &QueueView, _p: &Packet, _now: Time, _rng: &mut Rng) -> Verdict {
        self.departure
    }
    fn on_overflow(&mut self, _q: &QueueView, _now: Time) {
        self.overflows += 1;
    }
}

/// Why a packet was dropped or marked. Every drop and mark carries one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Reason {
    /// The buffer was full (packets or bytes).
    Overflow = 0,
    /// Probabilistic early drop/mark by the AQM (RED between thresholds, REM, BLUE...).
    Early = 1,
    /// Forced by the AQM's control variable (RED average above max_th).
    Forced = 2,
    /// Dropped or marked at dequeue (CoDel-style sojourn control).
    Dequeue = 3,
}

pub const NUM_REASONS: usize = 4;

impl Reason {
    pub const ALL: [Reason; NUM_REASONS] = [
        Reason::Overflow,
        Reason::Early,
        Reason::Forced,
        Reason::Dequeue,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Reason::Overflow => "overflow",
            Reason::Early => "early",
            Reason::Forced => "forced",
            Reason::Dequeue => "dequeue",
        }
    }
}

/// What an AQM decides for one packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    Pass,
    Mark(Reason),
    Drop(Reason),
}

impl Verdict {
    /// Whether a packet of codepoint `ecn` given this verdict is dropped: a drop, or a
    /// mark on a Not-ECT packet (RFC 3168 §5).
    #[inline]
    pub fn drops(self, ecn: Ecn) -> bool {
        match self {
            Verdict::Drop(_) => true,
            Verdict::Mark(_) => ecn == Ecn::NotEct,
            Verdict::Pass => false,
        }
    }

    /// Whether it sets CE: a mark on an ECT packet (a CE packet passes unchanged).
    #[inline]
    pub fn marks(self, ecn: Ecn) -> bool {
        matches!(self, Verdict::Mark(_)) && ecn.is_ect()
    }
}

/// Packets and bytes waiting.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Backlog {
    pub pkts: u32,
    pub bytes: u64,
}

/// Drop precedences a queue keeps apart: the colours of `crate::packet::Colour`, green
/// (IN, lowest drop precedence), yellow, red.
pub const NUM_COLOURS: usize = 3;

/// The drop precedence level of a colour in an AQM with `levels` levels (RIO, WRED, BIO):
/// green 0, yellow 1, red 2 with three; green 0 (IN), yellow and red 1 (OUT) with two,
/// RFC 2597 §3's rule for a node that supports two drop precedences; all 0 with one.
#[inline]
pub fn drop_level(c: Colour, levels: usize) -> usize {
    (c as usize).min(levels - 1)
}

/// What an AQM may read of its port. Lengths exclude the packet being transmitted
/// (see `crate::queue` for the buffer convention).
///
/// The lengths and the limit come first: with `repr(C)` they share a cache line that every
/// packet's admission reads (see `crate::queue::OutputQueue`'s layout).
#[derive(Clone, Copy, Debug)]
#[repr(C)]
pub struct QueueView {
    pub len_pkts: u32,
    pub len_bytes: u64,
    pub limit: Limit,
    pub link_bps: u64,
    /// The waiting yellow and red packets (by `Colour as usize`; entry 0 stays zero: green
    /// is the rest of the backlog, so a run without markers pays one predictable branch per
    /// packet for precedences). Read through `backlog` and `by_colour`.
    pub(crate) not_green: [Backlog; NUM_COLOURS],
    /// Packets bound for this port but still waiting upstream of it, which an AQM may add to
    /// its own backlog: a CIOQ switch fills it with the input VOQs for this output. Zero
    /// where nothing waits upstream.
    pub upstream: Backlog,
}

impl QueueView {
    /// A port whose waiting packets are all green and with nothing upstream (unit tests,
    /// and callers that keep no precedences).
    pub fn new(len_pkts: u32, len_bytes: u64, limit: Limit, link_bps: u64) -> QueueView {
        QueueView {
            len_pkts,
            len_bytes,
            limit,
            link_bps,
            not_green: [Backlog::default(); NUM_COLOURS],
            upstream: Backlog::default(),
        }
    }

    /// The waiting packets of one drop precedence: RIO averages the green backlog for IN
    /// packets and the whole one for OUT packets (Clark and Fang 1998); WRED and GRED keep
    /// one average per precedence.
    #[inline]
    pub fn backlog(&self, c: Colour) -> Backlog {
        match c {
            Colour::Green => {
                let [_, y, r] = self.not_green;
                Backlog {
                    pkts: self.len_pkts - y.pkts - r.pkts,
                    bytes: self.len_bytes - y.bytes - r.bytes,
                }
            }
            _ => self.not_green[c as usize],
        }
    }

    /// A packet of colour index `c` and `size` bytes joins the backlog.
    #[inline]
    pub(crate) fn enter(&mut self, c: usize, size: u32) {
        self.len_pkts += 1;
        self.len_bytes += size as u64;
        if c != 0 {
            self.not_green[c].pkts += 1;
            self.not_green[c].bytes += size as u64;
        }
    }

    /// A packet of colour index `c` and `size` bytes leaves the backlog.
    #[inline]
    pub(crate) fn leave(&mut self, c: usize, size: u32) {
        self.len_pkts -= 1;
        self.len_bytes -= size as u64;
        if c != 0 {
            self.not_green[c].pkts -= 1;
            self.not_green[c].bytes -= size as u64;
        }
    }

    /// Whether an arrival of `size` bytes fits the limit (see `crate::queue`'s buffer
    /// convention: the packet on the wire is not counted).
    #[inline]
    pub fn has_room(&self, size: u32) -> bool {
        match self.limit {
            Limit::Packets(l) => self.len_pkts < l,
            Limit::Bytes(l) => self.len_bytes + size as u64 <= l,
        }
    }

    /// The backlog of every precedence; they sum to `len_pkts` and `len_bytes`.
    pub fn by_colour(&self) -> [Backlog; NUM_COLOURS] {
        Colour::ALL.map(|c| self.backlog(c))
    }
}

/// The hooks of one AQM. Implementations are pure: time and randomness are arguments.
pub trait Aqm {
    /// Decides on an arriving packet before the buffer capacity is checked.
    fn on_arrival(&mut self, q: &QueueView, pkt: &Packet, now: Time, rng: &mut Rng) -> Verdict;

    /// Decides on the head packet as it leaves the buffer for the wire (CoDel; REM and
    /// PI in ns-2's mark mode mark departing packets, hence the random stream).
    fn on_departure(
        &mut self,
        _q: &QueueView,
        _pkt: &Packet,
        _now: Time,
        _rng: &mut Rng,
    ) -> Verdict {
        Verdict::Pass
    }

    /// Learns that a packet it passed was dropped because the buffer was full.
    fn on_overflow(&mut self, _q: &QueueView, _now: Time) {}

    /// Learns that the link went idle at `since` with an empty buffer.
    fn on_idle(&mut self, _since: Time) {}

    /// Whether `on_departure` may do anything but return `Pass`. False (only for an AQM
    /// that keeps the default `on_departure`) lets a port skip the call on each departure.
    fn watches_departures(&self) -> bool {
        true
    }

    /// Whether `on_idle` may do anything. False (only for an AQM that keeps the default
    /// `on_idle`) lets a port skip the call each time its link goes idle.
    fn watches_idle(&self) -> bool {
        true
    }

    /// Whether no hook does anything: `on_arrival` and `on_departure` always pass, and
    /// `on_overflow` and `on_idle` keep their defaults. True lets a port skip every call,
    /// and so never load the AQM (DropTail).
    fn passive(&self) -> bool {
        false
    }

    /// Asks for the first timer; called once when the run starts.
    fn first_timer(&self, _now: Time) -> Option<Time> {
        None
    }

    /// Handles its timer and returns when it wants the next one.
    fn on_timer(&mut self, _q: &QueueView, _now: Time) -> Option<Time> {
        None
    }

    /// Names of the values `metrics` writes, in order.
    fn metric_names(&self) -> &'static [&'static str] {
        &[]
    }

    /// Writes its internal state, one value per name of `metric_names`.
    fn metrics(&self, _q: &QueueView, _now: Time, _out: &mut [f64]) {}

    /// Tables of its own, taken once at the end of the run (SFB: its bins). They reach
    /// Python under their names with no binding code: the simulator puts a `queue` column
    /// first and joins the tables of one name from every queue.
    fn tables(&self) -> Vec<Table> {
        vec![]
    }
}

/// Matches an `AnyAqm` over the registered variants (and the test-only `Scripted`).
macro_rules! dispatch_all {
    ([$($V:ident),*], $self:ident, $a:ident => $e:expr) => {
        match $self {
            $(AnyAqm::$V($a) => $e,)*
            #[cfg(test)]
            AnyAqm::Scripted($a) => $e,
        }
    };
}

/// The registry: from ONE list of `"tag" => Variant(Spec, Algorithm)` lines it makes the
/// scenario's tagged `AqmSpec` (serde both ways, tags in this order in messages), the tag
/// list `AQM_TYPES`, the dispatch enum `AnyAqm` with its `Aqm` impl and `kind()`, and the
/// spec's `validate` and `build`. The buffers that are more than one FIFO (flow queueing,
/// the dual queue, classes) are `crate::queue::buffer`'s, whose `BufferSpec` reads the same
/// `type` tag.
macro_rules! registry {
    (
        fifo { $($tag:literal => $V:ident($Spec:ty, $Algo:ty),)* }
    ) => {
        /// The AQM of a queue: a table tagged by `type`.
        #[derive(Clone, Debug, PartialEq, Serialize)]
        #[serde(tag = "type")]
        pub enum AqmSpec {
            $(#[serde(rename = $tag)] $V($Spec),)*
        }

        /// Every `type` of a FIFO's AQM, in registry order.
        pub const AQM_TYPES: &[&str] = &[$($tag,)*];

        impl<'de> Deserialize<'de> for AqmSpec {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let (ty, rest) = tagged_table::<D>(d, AQM_TYPES)?;
                match ty.as_str() {
                    $($tag => inner::<$Spec, D::Error>(rest).map(AqmSpec::$V),)*
                    _ => unreachable!("tagged_table checked the type"),
                }
            }
        }

        impl AqmSpec {
            /// Reports every problem of this AQM's fields under the path `a`.
            pub fn validate(&self, a: &str, q: &QueueCtx, p: &mut Problems) {
                match self {
                    $(AqmSpec::$V(s) => s.validate(a, q, p),)*
                }
            }

            /// The `type` tag.
            pub fn kind(&self) -> &'static str {
                match self {
                    $(AqmSpec::$V(_) => $tag,)*
                }
            }

            /// Builds the validated spec for a port.
            pub fn build(&self, q: &QueueCtx) -> AnyAqm {
                match self {
                    $(AqmSpec::$V(s) => AnyAqm::$V(From::from(s.build(q))),)*
                }
            }
        }

        /// The closed set of FIFO AQMs: static dispatch. The four largest (PSAND, SFB,
        /// DRIO, URIO: 232-336 bytes) are boxed in the registry below: every port holds an
        /// `AnyAqm`, most of them a DropTail of no bytes at all, and those four inline made
        /// the enum 144 bytes larger and every port 128 (5.1 MB at 10 000 flows, written
        /// when the simulator is built). They are bottleneck AQMs in their papers, where the box stays in
        /// cache (`any_aqm_is_small`).
        pub enum AnyAqm {
            $($V($Algo),)*
            #[cfg(test)]
            Scripted(Scripted),
        }

        impl AnyAqm {
            /// The scenario `type` tag of this AQM, for result tables.
            pub fn kind(&self) -> &'static str {
                match self {
                    $(AnyAqm::$V(_) => $tag,)*
                    #[cfg(test)]
                    AnyAqm::Scripted(_) => "scripted",
                }
            }

            #[inline(never)]
            fn departure_hook(&mut self, q: &QueueView, pkt: &Packet, now: Time, rng: &mut Rng) -> Verdict {
                dispatch_all!([$($V),*], self, a => a.on_departure(q, pkt, now, rng))
            }

            #[inline(never)]
            fn idle_hook(&mut self, since: Time) {
                dispatch_all!([$($V),*], self, a => a.on_idle(since))
            }
        }

        impl Aqm for AnyAqm {
            // Always: a switch's input queues are a second caller, and with two callers
            // LLVM stops inlining this match into the router's path (+2% instructions
            // in engine_bench, measured).
            #[inline(always)]
            fn on_arrival(&mut self, q: &QueueView, pkt: &Packet, now: Time, rng: &mut Rng) -> Verdict {
                dispatch_all!([$($V),*], self, a => a.on_arrival(q, pkt, now, rng))
            }
            // The two hooks most ports' AQMs (DropTail, RED) leave empty, called on every
            // departure and every idle start: a test of the variant inline, the call only
            // for an AQM that watches (-2.1% instructions in the run of the 160-flow RED dumbbell, -2.4% DropTail).
            #[inline(always)]
            fn on_departure(&mut self, q: &QueueView, pkt: &Packet, now: Time, rng: &mut Rng) -> Verdict {
                if !self.watches_departures() {
                    return Verdict::Pass;
                }
                self.departure_hook(q, pkt, now, rng)
            }
            fn on_overflow(&mut self, q: &QueueView, now: Time) {
                dispatch_all!([$($V),*], self, a => a.on_overflow(q, now))
            }
            #[inline(always)]
            fn on_idle(&mut self, since: Time) {
                if self.watches_idle() {
                    self.idle_hook(since);
                }
            }
            #[inline(always)]
            fn watches_departures(&self) -> bool {
                dispatch_all!([$($V),*], self, a => a.watches_departures())
            }
            #[inline(always)]
            fn watches_idle(&self) -> bool {
                dispatch_all!([$($V),*], self, a => a.watches_idle())
            }
            fn passive(&self) -> bool {
                dispatch_all!([$($V),*], self, a => a.passive())
            }
            fn first_timer(&self, now: Time) -> Option<Time> {
                dispatch_all!([$($V),*], self, a => a.first_timer(now))
            }
            fn on_timer(&mut self, q: &QueueView, now: Time) -> Option<Time> {
                dispatch_all!([$($V),*], self, a => a.on_timer(q, now))
            }
            fn metric_names(&self) -> &'static [&'static str] {
                dispatch_all!([$($V),*], self, a => a.metric_names())
            }
            fn metrics(&self, q: &QueueView, now: Time, out: &mut [f64]) {
                dispatch_all!([$($V),*], self, a => a.metrics(q, now, out))
            }
            fn tables(&self) -> Vec<Table> {
                dispatch_all!([$($V),*], self, a => a.tables())
            }
        }
    };
}

registry! {
    fifo {
        "droptail" => DropTail(DropTailSpec, DropTail),
        "red" => Red(RedSpec, Red),
        "ared" => Ared(AredSpec, Ared),
        "rem" => Rem(RemSpec, Rem),
        "feng_red" => FengRed(FengRedSpec, FengRed),
        "psand" => Psand(PsandSpec, Box<Psand>),
        "pi" => Pi(PiSpec, Pi),
        "blue" => Blue(BlueSpec, Blue),
        "sfb" => Sfb(SfbSpec, Box<Sfb>),
        "codel" => Codel(CodelSpec, Codel),
        "pie" => Pie(PieSpec, Pie),
        "rio" => Rio(RioSpec, Rio),
        "drio" => Drio(DrioSpec, Box<Drio>),
        "urio" => Urio(UrioSpec, Box<Urio>),
        "bio" => Bio(BioSpec, Bio),
        "cioq_red" => CioqRed(CioqRedSpec, CioqRed),
    }
}

impl Default for AqmSpec {
    fn default() -> Self {
        AqmSpec::DropTail(DropTailSpec {})
    }
}

/// What an AQM's spec may know of its port, to check and build itself: the configured
/// limits (not yet checked when `validate` runs), the link rate, and the scenario's names
/// (DRIO and URIO classify packets into aggregates by host patterns).
#[derive(Clone, Copy, Debug)]
pub struct QueueCtx<'a> {
    pub limit_pkts: Option<u32>,
    pub limit_bytes: Option<Bytes>,
    pub link_bps: u64,
    /// Every node's name, by node index (what a packet's `src` and `dst` hold).
    pub nodes: &'a [&'a str],
    /// The hosts' names: what a host pattern may match.
    pub hosts: &'a [&'a str],
}

/// Capacity of the buffer, excluding the packet on the wire.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Limit {
    Packets(u32),
    Bytes(u64),
}

/// Queue states and packets for the multi-precedence AQMs' unit tests (RIO, BIO).
#[cfg(test)]
pub(crate) mod test_support {
    use super::{Backlog, Limit, QueueView};
    use crate::packet::{Colour, Packet};

    /// A 10 Mb/s port of 1000 packets holding `[green, yellow, red]` 1000-byte packets.
    pub fn view([g, y, r]: [u32; 3]) -> QueueView {
        let n = g + y + r;
        let mut v = QueueView::new(n, n as u64 * 1000, Limit::Packets(1000), 10_000_000);
        for (c, k) in [(1, y), (2, r)] {
            v.not_green[c] = Backlog {
                pkts: k,
                bytes: k as u64 * 1000,
            };
        }
        v
    }

    /// A 1000-byte packet of one colour.
    pub fn pkt(colour: Colour) -> Packet {
        Packet {
            size: 1000,
            colour,
            ..Default::default()
        }
    }
}

#[cfg(test)]
mod size_tests {
    use super::*;
    use std::mem::size_of;

    /// Every port holds an `AnyAqm`, so its size is that of its largest inline variant:
    /// ARED's and Feng's RED (184 bytes) and the tag. An AQM grown past that (or one of the
    /// four boxed ones unboxed) makes all 40 002 ports of a 10 000-flow run larger; box it
    /// in the registry instead.
    #[test]
    fn any_aqm_is_small() {
        assert!(size_of::<AnyAqm>() <= 192, "{}", size_of::<AnyAqm>());
        for (name, size) in [
            ("psand", size_of::<Psand>()),
            ("sfb", size_of::<Sfb>()),
            ("drio", size_of::<Drio>()),
            ("urio", size_of::<Urio>()),
        ] {
            assert!(size > 192, "{name} ({size} bytes) is small enough to unbox");
        }
    }
}
