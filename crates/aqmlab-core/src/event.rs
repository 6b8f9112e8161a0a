//! The event queue: binary min-heaps (event/heap.rs) ordered by (time, sequence), so
//! events at the same nanosecond run in the order they were scheduled (FIFO ties, as in
//! ns-2 and ns-3).
//!
//! Packets on a wire are most of the pending events (a 10 Gb/s link with 38 ms of delay
//! carries ~47 000 of them). A packet's arrival is scheduled when its transmission starts,
//! due a constant delay later (its serialisation and the wire's delay), and the instant
//! it is scheduled, now, never goes back: so the arrivals of one such delay, over every
//! wire, are scheduled in (time, sequence) order. They wait in a FIFO *class lane* of
//! that delay, and only the lane's first is in the heap, with the sequence number it was
//! given when scheduled. The order of events is exactly the one a heap of every event
//! gives: a lane's events are in (time, sequence) order, so its first is the earliest of
//! them, and popping it exposes the next with its own key. A run has a few such delays
//! (packet sizes × link rates and delays): at 10 000 flows the ~5 000 packets and ACKs
//! out on access links, which were heap entries, wait in two lanes, and the heap a pop
//! walks holds a few hundred entries (BENCHMARKS.md).
//!
//! Beyond `MAX_CLASSES` delays, an arrival takes its channel's own lane when the channel
//! sends back to back (packets still wait in its queue) or that lane already holds some
//! (a channel's arrivals are in order too); a bit per channel, which stays in cache, says
//! which lanes do; other arrivals are ordinary heap entries. Which arrivals take which lane
//! changes speed, never order (any mix is exact).
//!
//! Timers wait apart, in a timing wheel (event/wheel.rs) once more than a thousand are
//! pending. At 10 000 flows they were 22 000 of the 27 000 entries of a single heap (the
//! rest: quiet wires' arrivals and lanes' first arrivals), most of them a retransmission
//! timeout ahead, at the bottom, where every pop's walk ends. Apart, the heap that most
//! events go through is a fifth of the size (three levels fewer to walk); a pop takes the
//! earlier of the two firsts, so the order is still that of one heap.
//!
//! In a large run (`set_large`, chosen by the simulator from the size of the ports' and
//! flows' state) the ends of transmission wait apart too, in a heap of their own, and a pop
//! takes the earliest of three firsts. At 10 000 flows, once every flow has started, the
//! heap held the four class lanes' firsts, a sample, and 2 to 19 ends of transmission (the
//! 10 Gb/s bottleneck feeds the 1 Gb/s access links in bursts, so many of them are busy):
//! the lanes' 9.2 M pops sifted through those ends. The end popped last is left at the top
//! of its heap until the next push of an end, which usually follows in the same event (the
//! channel's next packet starts; 2.3 M of 3.1 M ends), takes its place: one sift instead
//! of two. The class lanes' firsts leave the heap too: the earliest of them is kept beside
//! it, found again by a scan of the few lanes (four at 10 000 flows) after each pop from
//! one, so a pop takes the earliest of four firsts and the lanes' pops sift no heap (-1.5%
//! at 10 000 flows, BENCHMARKS.md). The simulator's loop is compiled once for large runs
//! and once for others (`pop_as`), so small runs keep the two-way pop, cheaper where the
//! heap is a few entries.
//!
//! Events are small `Copy` values that name what happens by index; packets never travel in
//! the heap by value. Timers are cancellable by generation: a cancelled or re-armed timer
//! leaves its old heap entry behind, which is skipped when popped (lazy deletion is cheaper
//! than searching the heap; TCP re-arms only when a deadline moves earlier, sim/tcp.rs).

mod heap;
mod wheel;

use crate::queue::QueueId;
use crate::units::Time;
use heap::Heap;
use std::cmp::Ordering;
use std::collections::VecDeque;
use wheel::Wheel;

/// What happens at an instant. Indices refer to the simulator's tables.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// A traffic source emits its next packet.
    Send { source: u32 },
    /// A channel finished serialising its packet and may start the next one.
    TxEnd { channel: u32 },
    /// A packet reaches `node`, the far end of `channel` (serialisation + propagation);
    /// the channel is the node's input port. The node is carried, not looked up: the event
    /// is 16 bytes either way, and the heap entry stays 32.
    Arrive {
        node: u32,
        channel: u32,
        packet: u32,
    },
    /// A switch's fabric finishes moving `packet` over its internal path `path` (input ·
    /// n + output), or, with `packet` = `NO_PACKET`, a crossbar's scheduling phase.
    Fabric { switch: u32, path: u32, packet: u32 },
    /// A cancellable timer fires (slot, generation).
    Timer { slot: u32, generation: u32 },
    /// A flow's application stops producing data (TCP; UDP sources know their stop time).
    FlowStop { flow: u32 },
    /// Periodic time-series sample.
    Sample,
    /// End of the warm-up: statistics restart from here.
    WarmupEnd,
}

/// `Event::Fabric`'s packet when the event carries none.
pub const NO_PACKET: u32 = u32::MAX;

#[derive(Clone, Copy, Debug)]
struct Entry {
    time: Time,
    /// The sequence number, shifted left `TAG_BITS`; the low bits say where the entry
    /// waits: 0 in the heap alone, `LANED` in its channel's lane, `CLASS0 + j` in class
    /// lane j. Sequence numbers are unique, so the tag never decides an order.
    key: u64,
    event: Event,
}

const TAG_BITS: u32 = 8;
const TAG: u64 = (1 << TAG_BITS) - 1;
const LANED: u64 = 1;
const CLASS0: u64 = 2;

/// Class lanes kept at most (see `EventQueue::class_of`); an arrival whose delay has none
/// goes to its channel's lane or the heap.
const MAX_CLASSES: usize = 32;

/// How far ahead in a lane to prefetch: 16 entries (512 bytes), some 16 pops of the lane,
/// each of which is a packet's serialisation apart.
const LANE_AHEAD: usize = 16;

/// How far on in its lane an arrival is when the simulator starts loading what it will
/// touch: its packet at `FAR`, then, that packet in cache, the lines its hop will read
/// at `NEAR` (see `Simulator::prefetch_hop`).
const FAR: usize = 8;
const NEAR: usize = 4;

impl PartialEq for Entry {
    fn eq(&self, o: &Self) -> bool {
        self.time == o.time && self.key == o.key
    }
}
impl Eq for Entry {}
impl PartialOrd for Entry {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Entry {
    // Reversed, for `std`'s max-heap (the tests' oracle): the earliest (time, seq) first.
    #[inline]
    fn cmp(&self, o: &Self) -> Ordering {
        (o.time, o.key).cmp(&(self.time, self.key))
    }
}

#[derive(Default)]
pub struct EventQueue {
    heap: Heap,
    /// `Event::Timer`s only.
    timers: Wheel,
    /// `Event::TxEnd`s in a large run (see `set_large`).
    ends: Heap,
    /// The last pop took `ends`' first, which is still there: the push of the next end of
    /// transmission, which usually follows, takes its place (one sift, not two).
    ends_taken: bool,
    seq: u64,
    /// By channel: its laned arrivals in order; the first is also in the heap.
    lanes: Vec<VecDeque<Entry>>,
    /// Bit c: channel c's lane is not empty.
    in_lane: Vec<u64>,
    /// Arrivals by their delay after the instant they were scheduled (`offsets[j]` for
    /// `classes[j]`), in order; the first of each is also in the heap, but in a large run.
    offsets: Vec<Time>,
    classes: Vec<VecDeque<Entry>>,
    /// In a large run, `classes[j]`'s first waits in no heap: `fronts[j]` is its rank
    /// (`u128::MAX` while the lane is empty; see `set_large`).
    fronts: Vec<u128>,
    /// The least of `fronts`, found again after each pop from a class lane.
    first_class: FirstClass,
    /// The time of the last event popped: the simulator's clock.
    now: Time,
    /// A large run: ends of transmission wait apart and pops note the arrivals further on
    /// in their lane (see `set_large`).
    large: bool,
    /// The arrivals `NEAR` and `FAR` places on in the lane of the last pop, if it came from
    /// a lane in a large run.
    ahead: Ahead,
}

/// The least rank among the class lanes' firsts; `u128::MAX` (no event's rank) while every
/// class lane is empty. A rank's tag names its lane.
#[derive(Clone, Copy, Debug)]
struct FirstClass(u128);

impl Default for FirstClass {
    fn default() -> Self {
        FirstClass(u128::MAX)
    }
}

impl FirstClass {
    /// The lane (meaningless while every class lane is empty).
    #[inline]
    fn lane(self) -> usize {
        ((self.0 as u64 & TAG).wrapping_sub(CLASS0)) as usize
    }
}

/// After a pop from `lane`. A busy lane is a long ring (a 10 Gb/s wire holds ~25 000
/// arrivals), read in order but last written a wire's delay ago, among misses elsewhere
/// that hide the stream from the hardware prefetcher: ask for the entries `LANE_AHEAD`
/// ahead.
#[inline]
fn prefetch_ahead(lane: &VecDeque<Entry>) {
    if let Some(ahead) = lane.get(LANE_AHEAD) {
        crate::mem::prefetch(ahead);
    }
}

/// What the lookahead needs of the arrivals `NEAR` and `FAR` places on in a lane: their
/// packets, and the node the nearer one reaches; `NO_PACKET` where there is none. Plain
/// indices, not the events: the simulator reads them at every pop.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ahead {
    pub near_packet: u32,
    pub near_node: u32,
    /// The channel the near arrival comes in on.
    pub near_channel: u32,
    pub far_packet: u32,
}

impl Ahead {
    pub const NONE: Ahead = Ahead {
        near_packet: NO_PACKET,
        near_node: 0,
        near_channel: 0,
        far_packet: NO_PACKET,
    };

    #[inline]
    fn of(near: Option<&Entry>, far: Option<&Entry>) -> Ahead {
        let mut a = Ahead::NONE;
        if let Some(&Entry {
            event:
                Event::Arrive {
                    node,
                    channel,
                    packet,
                },
            ..
        }) = near
        {
            (a.near_packet, a.near_node, a.near_channel) = (packet, node, channel);
        }
        if let Some(&Entry {
            event: Event::Arrive { packet, .. },
            ..
        }) = far
        {
            a.far_packet = packet;
        }
        a
    }
}

impl Default for Ahead {
    fn default() -> Self {
        Ahead::NONE
    }
}

impl EventQueue {
    pub fn new() -> Self {
        Self::default()
    }

    #[inline]
    fn next_key(&mut self) -> u64 {
        let seq = self.seq;
        self.seq += 1;
        seq << TAG_BITS
    }

    /// The class lane of arrivals due `offset` after now, if there is or can be one.
    #[inline]
    fn class_of(&mut self, offset: Time) -> Option<usize> {
        match self.offsets.iter().position(|&o| o == offset) {
            Some(j) => Some(j),
            None if self.offsets.len() < MAX_CLASSES => {
                self.offsets.push(offset);
                self.classes.push(VecDeque::new());
                self.fronts.push(u128::MAX);
                Some(self.offsets.len() - 1)
            }
            None => None,
        }
    }

    /// Schedules `event` at `time`.
    #[inline]
    pub fn schedule(&mut self, time: Time, event: Event) {
        let key = self.next_key();
        let e = Entry { time, key, event };
        match event {
            Event::Timer { .. } => self.timers.push(e, self.now),
            Event::TxEnd { .. } if self.large => self.push_end(e),
            _ => self.heap.push(e),
        }
    }

    /// An end of transmission in a large run. Not inlined: the simulator's sites that
    /// schedule ends serve small runs too, which this would only lengthen.
    #[inline(never)]
    fn push_end(&mut self, e: Entry) {
        if std::mem::take(&mut self.ends_taken) {
            self.ends.replace_top(e);
        } else {
            self.ends.push(e);
        }
    }

    /// Schedules the arrival of `packet` at `node` over `channel`. A channel's arrivals
    /// must be scheduled in nondecreasing time (the simulator's wires are FIFO with a
    /// constant delay). `back_to_back`: the channel has more packets to send right after
    /// this one (see the module comment).
    #[inline]
    pub fn schedule_arrival(
        &mut self,
        time: Time,
        node: u32,
        channel: u32,
        packet: u32,
        back_to_back: bool,
    ) {
        let key = self.next_key();
        let event = Event::Arrive {
            node,
            channel,
            packet,
        };
        // An arrival is due a constant delay after now (the packet's serialisation, which
        // starts as it is scheduled, and the wire's delay), and now never goes back: the
        // arrivals of one such delay, over every wire, come in (time, sequence) order.
        if let Some(j) = self.class_of(time - self.now) {
            let e = Entry {
                time,
                key: key | (CLASS0 + j as u64),
                event,
            };
            let lane = &mut self.classes[j];
            debug_assert!(lane.back().is_none_or(|b| b.time <= time));
            lane.push_back(e);
            if lane.len() == 1 {
                if self.large {
                    let r = heap::rank(&e);
                    self.fronts[j] = r;
                    if r < self.first_class.0 {
                        self.first_class = FirstClass(r);
                    }
                } else {
                    self.heap.push(e);
                }
            }
            return;
        }
        let (c, word, bit) = (channel as usize, channel as usize / 64, 1 << (channel % 64));
        let queued = self.in_lane.get(word).is_some_and(|w| w & bit != 0);
        if !(back_to_back || queued) {
            self.heap.push(Entry { time, key, event });
            return;
        }
        let e = Entry {
            time,
            key: key | LANED,
            event,
        };
        if c >= self.lanes.len() {
            self.lanes.resize_with(c + 1, VecDeque::new);
            self.in_lane.resize(c / 64 + 1, 0);
        }
        let lane = &mut self.lanes[c];
        debug_assert!(lane.back().is_none_or(|b| b.time <= time));
        lane.push_back(e);
        if !queued {
            self.in_lane[word] |= bit;
            self.heap.push(e);
        }
    }

    /// The next event, the earliest by (time, sequence).
    #[inline]
    pub fn pop(&mut self) -> Option<(Time, Event)> {
        if self.large {
            self.pop_as::<true>()
        } else {
            self.pop_as::<false>()
        }
    }

    /// `pop`, for a run that is `LARGE` or not (`set_large`): the simulator's loop is
    /// compiled once for each, so that neither pays for the other's branches.
    #[inline]
    pub fn pop_as<const LARGE: bool>(&mut self) -> Option<(Time, Event)> {
        debug_assert_eq!(LARGE, self.large);
        if LARGE {
            return self.pop_large();
        }
        if let Some(t) = self.timers.peek_rank() {
            if self.heap.peek_rank().is_none_or(|e| t < e) {
                let t = self.timers.pop()?;
                self.now = t.time;
                return Some((t.time, t.event));
            }
        }
        self.pop_heap::<false>()
    }

    /// `pop` in a large run: the earliest of the heap's, the ends' and the timers' firsts.
    #[inline]
    fn pop_large(&mut self) -> Option<(Time, Event)> {
        if std::mem::take(&mut self.ends_taken) {
            self.ends.pop();
        }
        // An empty set ranks last (no event is due at 2^64 - 1 ns with the largest key).
        let h = self.heap.peek_rank().unwrap_or(u128::MAX);
        let d = self.ends.peek_rank().unwrap_or(u128::MAX);
        let t = self.timers.peek_rank().unwrap_or(u128::MAX);
        let l = self.first_class;
        if l.0 < h && l.0 < d && l.0 < t {
            return Some(self.pop_class(l.lane()));
        }
        if h < d && h < t {
            return self.pop_heap::<true>();
        }
        if d < t {
            // Left in place: see `ends_taken`.
            let e = self.ends.peek()?;
            self.ends_taken = true;
            self.now = e.time;
            return Some((e.time, e.event));
        }
        let t = self.timers.pop()?;
        self.now = t.time;
        Some((t.time, t.event))
    }

    /// Pops class lane `j`'s first, in a large run (where it is in no heap).
    #[inline]
    fn pop_class(&mut self, j: usize) -> (Time, Event) {
        let lane = &mut self.classes[j];
        let e = lane.pop_front().expect("a class lane with a front");
        self.now = e.time;
        prefetch_ahead(lane);
        self.ahead = Ahead::of(lane.get(NEAR), lane.get(FAR));
        self.fronts[j] = lane.front().map_or(u128::MAX, heap::rank);
        // A minimum, not a search for the lane (whose branches the lanes' turns, which vary
        // from pop to pop, would mispredict): the rank's tag names the lane.
        let first = self.fronts.iter().copied().min();
        self.first_class = FirstClass(first.unwrap_or(u128::MAX));
        (e.time, e.event)
    }

    /// Pops the heap's first, which is the earliest event.
    #[inline]
    fn pop_heap<const LARGE: bool>(&mut self) -> Option<(Time, Event)> {
        let e = self.heap.peek()?;
        self.now = e.time;
        let tag = e.key & TAG;
        if tag != 0 {
            let Event::Arrive { channel, .. } = e.event else {
                unreachable!("only arrivals take a lane")
            };
            let c = channel as usize;
            let lane = match tag {
                LANED => &mut self.lanes[c],
                _ => &mut self.classes[(tag - CLASS0) as usize],
            };
            lane.pop_front();
            prefetch_ahead(lane);
            if LARGE {
                self.ahead = Ahead::of(lane.get(NEAR), lane.get(FAR));
            }
            if let Some(&next) = lane.front() {
                // Replacing the top sifts it down once: cheaper than a pop and a push.
                self.heap.replace_top(next);
                return Some((e.time, e.event));
            }
            if tag == LANED {
                self.in_lane[c / 64] &= !(1 << (c % 64));
            }
        }
        self.heap.pop();
        Some((e.time, e.event))
    }

    /// Makes a large run (before the first event is scheduled):
    /// - pops note the arrivals `NEAR` and `FAR` places further on in their lane, for
    ///   `lane_ahead`. Worth it only when what arrivals touch is out of cache: noting them
    ///   and acting on them costs some 120 instructions an event;
    /// - ends of transmission wait in a heap of their own. At 10 000 flows the access links,
    ///   fed in bursts by the 10 Gb/s bottleneck, kept 2 to 19 ends in the heap beside the
    ///   lanes' four firsts, and the lanes' 9.2 M pops sifted through them; apart, the heap
    ///   holds the lanes' firsts and little else. A pop then compares three firsts instead
    ///   of two, which costs more than it saves where few ends are pending (100 flows);
    /// - the class lanes' firsts wait in no heap: the earliest of them (`first_class`) is
    ///   the fourth first a pop compares.
    pub fn set_large(&mut self, on: bool) {
        debug_assert!(self.is_empty(), "set_large after scheduling");
        self.large = on;
    }

    #[inline]
    pub fn large(&self) -> bool {
        self.large
    }

    /// The arrivals `NEAR` and `FAR` places further on in the lane the last pop came from
    /// (none after a pop of the heap alone, or outside a large run): a lane is known
    /// well ahead of its pops.
    #[inline]
    pub fn lane_ahead(&mut self) -> Ahead {
        std::mem::replace(&mut self.ahead, Ahead::NONE)
    }

    /// The heap's next event, timers aside: what the simulator prefetches for (a timer
    /// is seldom next, and then the guess only loads a line early).
    #[inline]
    pub fn peek_heap(&self) -> Option<Event> {
        self.heap.peek().map(|e| e.event)
    }

    /// `peek_heap`, with the class lanes' firsts in a large run (where they are in no heap).
    #[inline]
    pub fn peek_as<const LARGE: bool>(&self) -> Option<Event> {
        if LARGE {
            let l = self.first_class;
            if self.heap.peek_rank().is_none_or(|h| l.0 < h) {
                // None while every class lane is empty (`lane` names none then).
                return self
                    .classes
                    .get(l.lane())
                    .and_then(|c| c.front())
                    .map(|e| e.event);
            }
        }
        self.peek_heap()
    }

    /// Puts back an event just popped, for the census at the end of a run only: the lanes
    /// are not kept in order afterwards.
    pub fn put_back(&mut self, time: Time, event: Event) {
        self.schedule(time, event);
    }

    /// Counts pending events matching `f` (for end-of-run census; O(n)).
    pub fn count(&self, f: impl Fn(&Event) -> bool) -> usize {
        // A lane's first is in the heap too, but for a class lane's in a large run.
        let firsts_apart = usize::from(!self.large);
        let lanes: usize = (self.lanes.iter().flat_map(|l| l.iter().skip(1)))
            .chain(
                self.classes
                    .iter()
                    .flat_map(|l| l.iter().skip(firsts_apart)),
            )
            .filter(|e| f(&e.event))
            .count();
        // A taken end is the first of `ends` and already popped.
        let ends = self.ends.iter().skip(self.ends_taken as usize);
        let heaps = (self.heap.iter().chain(ends)).chain(self.timers.iter());
        lanes + heaps.filter(|e| f(&e.event)).count()
    }

    pub fn len(&self) -> usize {
        self.heap.len()
            + (self.ends.len() - self.ends_taken as usize)
            + self.timers.len()
            + (self.lanes.iter())
                .map(|l| l.len().saturating_sub(1))
                .sum::<usize>()
            + (self.classes.iter())
                .map(|l| l.len().saturating_sub(usize::from(!self.large)))
                .sum::<usize>()
    }

    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
            && self.ends.len() == self.ends_taken as usize
            && self.timers.is_empty()
            && self.first_class.0 == u128::MAX
    }
}

/// The timers' event set and the binary heap it replaced, side by side for the
/// `event_queue` benchmark's `timers/*` groups (not part of the engine's interface).
#[doc(hidden)]
pub mod timer_sets {
    use super::{Entry, Event, Heap, Time, Wheel, TAG_BITS};

    /// A set of timers: `push` numbers them in order, as `EventQueue::schedule` does.
    pub trait TimerSet: Default {
        fn push(&mut self, time: Time, event: Event);
        fn pop(&mut self) -> Option<(Time, Event)>;
    }

    #[derive(Default)]
    pub struct HeapTimers(Heap, u64);

    /// The wheel, and the time of its last pop (the clock).
    #[derive(Default)]
    pub struct WheelTimers(Wheel, u64, Time);

    fn entry(seq: &mut u64, time: Time, event: Event) -> Entry {
        *seq += 1;
        Entry {
            time,
            key: *seq << TAG_BITS,
            event,
        }
    }

    impl TimerSet for HeapTimers {
        fn push(&mut self, time: Time, event: Event) {
            self.0.push(entry(&mut self.1, time, event));
        }
        fn pop(&mut self) -> Option<(Time, Event)> {
            self.0.pop().map(|e| (e.time, e.event))
        }
    }

    impl TimerSet for WheelTimers {
        fn push(&mut self, time: Time, event: Event) {
            self.0.push(entry(&mut self.1, time, event), self.2);
        }
        fn pop(&mut self) -> Option<(Time, Event)> {
            let e = self.0.pop()?;
            self.2 = e.time;
            Some((e.time, e.event))
        }
    }
}

/// Who a timer belongs to; the simulator routes a fired timer to its owner.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimerOwner {
    /// The AQM of a queue.
    Queue(QueueId),
    /// A TCP flow's retransmission timer and its receiver's delayed-ACK timer (flow index).
    TcpRto(u32),
    TcpDelAck(u32),
    /// A paced TCP sender's next send time (`tcp::pacing`).
    TcpPace(u32),
}

/// A handle to an armed timer; stale after it fires or is cancelled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimerHandle {
    slot: u32,
    generation: u32,
}

/// Slots for cancellable timers. A slot's generation changes whenever its timer fires or is
/// cancelled, which invalidates every heap entry that still names the old generation.
#[derive(Default)]
pub struct Timers {
    slots: Vec<(u32, Option<TimerOwner>)>,
    free: Vec<u32>,
}

impl Timers {
    pub fn arm(&mut self, q: &mut EventQueue, at: Time, owner: TimerOwner) -> TimerHandle {
        let slot = self.free.pop().unwrap_or_else(|| {
            self.slots.push((0, None));
            (self.slots.len() - 1) as u32
        });
        let entry = &mut self.slots[slot as usize];
        entry.1 = Some(owner);
        let generation = entry.0;
        q.schedule(at, Event::Timer { slot, generation });
        TimerHandle { slot, generation }
    }

    /// Cancels a timer; a no-op if it already fired or was cancelled.
    pub fn cancel(&mut self, h: TimerHandle) {
        let entry = &mut self.slots[h.slot as usize];
        if entry.0 == h.generation && entry.1.is_some() {
            entry.0 = entry.0.wrapping_add(1);
            entry.1 = None;
            self.free.push(h.slot);
        }
    }

    /// Resolves a popped timer event: the owner if it is still live, None if stale.
    pub fn fire(&mut self, slot: u32, generation: u32) -> Option<TimerOwner> {
        let entry = &mut self.slots[slot as usize];
        if entry.0 != generation {
            return None;
        }
        let owner = entry.1.take();
        entry.0 = entry.0.wrapping_add(1);
        self.free.push(slot);
        owner
    }

    pub fn is_armed(&self, h: TimerHandle) -> bool {
        let entry = &self.slots[h.slot as usize];
        entry.0 == h.generation && entry.1.is_some()
    }
}

#[cfg(test)]
mod tests;
