//! The timers' event set: a timing wheel (Varghese & Lauck 1987, "Hashed and hierarchical
//! timing wheels") in front of a small binary heap, so that the (time, sequence) order of
//! one heap of every timer is kept exactly.
//!
//! Why: at 10 000 flows some 20 000 timers are pending (a retransmission timeout and a
//! delayed ACK per flow), most of them a timeout ahead. In one binary heap of 32-byte
//! entries (640 KB, out of L1 and sharing L2 with the flows) a pop walked 14 levels, a
//! cache miss at most of them: 822 cycles per timer pop against 127 at 100 flows
//! (BENCHMARKS.md, "2026-11-27 (night)").
//!
//! How: time is cut into buckets of `2^SHIFT` ns. `near`, a binary heap, holds every entry
//! due before the start of bucket `cur`; the wheel's `N` buckets hold, unsorted, the
//! entries of the buckets `cur .. cur + N` (bucket b at index b mod N, so one bucket each);
//! `far`, another heap, holds the entries due later still (a timeout backed off for
//! seconds). Every entry in a bucket or in `far` is due no earlier than every entry in
//! `near`, so `near`'s top is the earliest of all. When `near` is empty, the earliest is
//! the least of the next bucket that holds entries (found in a bitmap); the pop that takes
//! it makes that bucket the new `near` (its entries pushed onto it), moves `cur`
//! past it, and brings `far`'s entries that now fall within the wheel onto it. Inside
//! `near` the order is the heap's (time, sequence): ties and everything else come out
//! exactly as from one heap. A push is O(1) for an entry a bucket or more ahead, a heap
//! push otherwise. The earliest entry's key is kept up to date (`first`): the simulator
//! peeks the timers at every event.
//!
//! Measured (BENCHMARKS.md, "2026-11-27 (timer wheel)"): in the hold model of
//! `benches/event_queue.rs`, 10^4 to 10^6 timers pending, a pop and a push cost 34 -> 60 ns
//! with the wheel against 55 -> 454 ns with one heap. In the engine, the 10 000-flow
//! dumbbell's timer pops took 763 -> 153 cycles and its pushes 55 -> 461 (a bucket's last
//! line is seldom in cache): timers are 0.5% of its events, and the run was 0-2% faster.
//! Below `SPREAD_FROM` pending timers there is no wheel, only `near`.

use super::heap::{rank, Heap};
use super::Entry;
use crate::units::Time;

/// A bucket spans 2^20 ns (1.05 ms): at 10 000 flows some 60 timers fall due in one, a
/// `near` heap of six levels, in L1.
const SHIFT: u32 = 20;
/// Buckets on the wheel: 1 024 of 1.05 ms, 1.07 s ahead, beyond the usual retransmission
/// timeouts (ns-2's minimum 0.2 s; 1 s in RFC 6298) and delayed-ACK timers (0.1-0.2 s).
const N: usize = 1024;
const MASK: u64 = N as u64 - 1;
/// Below this many pending timers the wheel is not used: `near` holds them all, a heap of
/// at most 32 KB, in L1. There a pop costs little, and a wheel would spread a few hundred
/// timers over as many buckets, each a block of its own: the 100-flow runs were 2% slower
/// with it (BENCHMARKS.md). Past it, `spread` starts the wheel, for the rest of the run.
const SPREAD_FROM: usize = 1024;
/// `cur` before the wheel starts: every entry is due before it, so in `near`.
const UNSPREAD: u64 = u64::MAX;
const WORDS: usize = N / 64;

pub(super) struct Wheel {
    /// Entries due before bucket `cur` begins, in (time, sequence) order.
    near: Heap,
    /// The first bucket not in `near`, counted from time 0: one past the bucket of the
    /// last entry popped, so never more than a bucket ahead of the clock; `UNSPREAD`
    /// until the wheel starts.
    cur: u64,
    /// Bucket b (cur <= b < cur + N) at index b mod N, unsorted.
    buckets: Vec<Vec<Entry>>,
    /// Bit i: bucket index i holds entries.
    occupied: [u64; WORDS],
    /// Entries due from bucket cur + N on.
    far: Heap,
    len: usize,
    /// `SPREAD_FROM`, or less in tests, which start the wheel at once.
    spread_from: usize,
    /// The earliest entry's rank (see `Heap::peek_rank`), wherever it waits: the simulator
    /// asks at every event.
    first: Option<u128>,
}

impl Default for Wheel {
    fn default() -> Self {
        Wheel {
            near: Heap::default(),
            cur: UNSPREAD,
            buckets: (0..N).map(|_| Vec::new()).collect(),
            occupied: [0; WORDS],
            far: Heap::default(),
            len: 0,
            spread_from: SPREAD_FROM,
            first: None,
        }
    }
}

#[inline(always)]
fn bucket_of(e: &Entry) -> u64 {
    e.time >> SHIFT
}

impl Wheel {
    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The earliest entry's key (see `Heap::peek_rank`).
    #[inline]
    pub fn peek_rank(&self) -> Option<u128> {
        self.first
    }

    pub fn iter(&self) -> impl Iterator<Item = Entry> + '_ {
        let buckets = self.buckets.iter().flat_map(|b| b.iter().copied());
        self.near.iter().chain(buckets).chain(self.far.iter())
    }

    /// Adds `e`, due no earlier than `now`, the simulator's clock.
    #[inline]
    pub fn push(&mut self, e: Entry, now: Time) {
        self.len += 1;
        let r = rank(&e);
        if self.first.is_none_or(|f| r < f) {
            self.first = Some(r);
        }
        let b = bucket_of(&e);
        if b < self.cur {
            self.near.push(e);
            if self.cur == UNSPREAD && self.near.len() > self.spread_from {
                self.spread(now);
            }
        } else {
            self.place(e, b);
        }
    }

    #[inline]
    pub fn pop(&mut self) -> Option<Entry> {
        if self.near.is_empty() {
            if self.len == 0 {
                return None;
            }
            self.take_next_bucket();
        }
        let e = self.near.pop()?;
        self.len -= 1;
        self.first = self.near.peek_rank().or_else(|| self.first_beyond_near());
        Some(e)
    }

    /// Starts the wheel: `cur` goes one past the clock's bucket, and every entry due from
    /// there on leaves `near` for its bucket (or `far`). Not past the earliest entry's
    /// bucket: that can be seconds ahead (flows that start together arm their first
    /// timeouts together), and every timer armed before it would go to `near`.
    #[cold]
    fn spread(&mut self, now: Time) {
        self.cur = (now >> SHIFT) + 1;
        let mut all = Vec::new();
        self.near.drain_into(&mut all);
        let mut keep = Vec::with_capacity(all.len());
        for e in all {
            let b = bucket_of(&e);
            if b < self.cur {
                keep.push(e);
            } else {
                self.place(e, b);
            }
        }
        self.near.fill_from(&mut keep);
    }

    /// Puts `e`, due in bucket `b` >= `cur`, on the wheel or in `far`.
    #[inline]
    fn place(&mut self, e: Entry, b: u64) {
        debug_assert!(b >= self.cur);
        if b - self.cur < N as u64 {
            let i = (b & MASK) as usize;
            self.buckets[i].push(e);
            self.occupied[i / 64] |= 1 << (i % 64);
        } else {
            self.far.push(e);
        }
    }

    /// Makes the next bucket that holds entries the new `near` (which is empty) and moves
    /// `cur` past it. Only a pop does this, of that bucket's first entry: so `cur` follows
    /// the clock. (Moving it on as soon as `near` empties would take it to the next
    /// pending timer, which can be seconds ahead while others are armed before it: they
    /// would all go to `near`, a plain heap again.)
    #[cold]
    fn take_next_bucket(&mut self) {
        debug_assert!(self.near.is_empty() && self.len > 0);
        let b = match self.next_occupied() {
            Some(b) => b,
            None => {
                // The wheel is empty: move it on to `far`'s first bucket.
                let first = self.far.peek().expect("entries pending beyond the wheel");
                self.advance(bucket_of(&first));
                self.next_occupied().expect("far's first is on the wheel")
            }
        };
        let i = (b & MASK) as usize;
        self.occupied[i / 64] &= !(1 << (i % 64));
        self.near.fill_from(&mut self.buckets[i]);
        self.advance(b + 1);
    }

    /// The earliest entry when `near` is empty: the least of the next bucket that holds
    /// entries (read, not taken), or `far`'s first.
    fn first_beyond_near(&self) -> Option<u128> {
        if self.len == 0 {
            return None;
        }
        match self.next_occupied() {
            Some(b) => self.buckets[(b & MASK) as usize].iter().map(rank).min(),
            None => self.far.peek_rank(),
        }
    }

    /// Moves `cur` on to `to` (every bucket before `to` empty or taken) and brings
    /// `far`'s entries that now fall within the wheel onto it.
    fn advance(&mut self, to: u64) {
        debug_assert!(to >= self.cur);
        self.cur = to;
        while let Some(e) = self.far.peek() {
            let b = bucket_of(&e);
            if b - self.cur >= N as u64 {
                break;
            }
            self.far.pop();
            self.place(e, b);
        }
    }

    /// The first bucket from `cur` on that holds entries, if any: a scan of the bitmap
    /// from `cur`'s index round the wheel.
    fn next_occupied(&self) -> Option<u64> {
        let start = (self.cur & MASK) as usize;
        let (w0, bit0) = (start / 64, start % 64);
        // The first word from `start`'s bit on, then the others in turn, then the first
        // word's bits before `start` (the wheel's far end).
        let first = self.occupied[w0] & (!0u64 << bit0);
        let found = if first != 0 {
            Some(w0 * 64 + first.trailing_zeros() as usize)
        } else {
            (1..=WORDS).find_map(|k| {
                let w = (w0 + k) % WORDS;
                let mut bits = self.occupied[w];
                if k == WORDS {
                    bits &= (1u64 << bit0).wrapping_sub(1);
                }
                (bits != 0).then(|| w * 64 + bits.trailing_zeros() as usize)
            })
        }?;
        Some(self.cur + ((found as u64).wrapping_sub(start as u64) & MASK))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::heap::tests::entry;
    use proptest::prelude::*;

    /// Pushes and pops interleaved, against a sorted model of the same (time, key) pairs.
    /// `now` follows the pops, and pushes come at `now + dt` as the simulator's timers do,
    /// with delays from a sub-bucket instant to several turns of the wheel (`far`), and
    /// times drawn so that ties on time are common.
    fn check(spread_from: usize, ops: Vec<(bool, u64)>) -> Result<(), TestCaseError> {
        let mut w = Wheel {
            spread_from,
            ..Wheel::default()
        };
        let mut model = std::collections::BTreeSet::new();
        let mut now = 0;
        for (key, (push, dt)) in ops.into_iter().enumerate() {
            if push {
                let e = entry(now + dt, key as u64);
                w.push(e, now);
                model.insert((e.time, e.key));
            } else {
                let got = w.pop().map(|e| (e.time, e.key));
                prop_assert_eq!(got, model.pop_first());
                if let Some((t, _)) = got {
                    now = t;
                }
            }
            prop_assert_eq!(w.len(), model.len());
            prop_assert_eq!(w.iter().count(), model.len());
            let first = model.first().map(|&(t, k)| (t as u128) << 64 | k as u128);
            prop_assert_eq!(w.peek_rank(), first);
        }
        while let Some((t, k)) = model.pop_first() {
            prop_assert_eq!(w.pop().map(|e| (e.time, e.key)), Some((t, k)));
        }
        prop_assert!(w.pop().is_none());
        Ok(())
    }

    /// A delay: within a bucket, a few buckets, round the wheel, or far beyond it; rounded
    /// to a coarse grid half the time so that equal times are frequent.
    fn delay() -> impl Strategy<Value = u64> {
        let bucket = 1u64 << SHIFT;
        let turn = bucket * N as u64;
        prop_oneof![
            0..bucket,
            0..8 * bucket,
            (0..4u64).prop_map(move |k| k * bucket / 2),
            turn - 2 * bucket..turn + 2 * bucket,
            0..5 * turn,
            (0..12u64).prop_map(move |k| k * turn / 3),
        ]
    }

    proptest! {
        #[test]
        fn pops_in_the_order_of_one_heap(
            spread_from in prop_oneof![0..20usize, Just(SPREAD_FROM)],
            ops in proptest::collection::vec((proptest::bool::weighted(0.6), delay()), 0..800)
        ) {
            check(spread_from, ops)?;
        }
    }

    /// A few hundred timers stay in `near`, a plain heap; past `SPREAD_FROM` the wheel
    /// starts and the order stays that of a sorted set, through to the last pop.
    #[test]
    fn the_wheel_starts_past_spread_from_and_keeps_the_order() {
        let mut w = Wheel::default();
        let mut model = std::collections::BTreeSet::new();
        let (mut x, mut now, mut most) = (1u64, 0u64, 0);
        for key in 0..3 * SPREAD_FROM as u64 {
            // Retransmission-timeout-like delays, 200-400 ms, on a coarse grid (ties).
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let t = now + 200_000_000 + (x >> 40) % 200 * 1_000_000;
            w.push(entry(t, key), now);
            model.insert((t, key));
            most = most.max(w.len());
            assert_eq!(w.cur == UNSPREAD, most <= SPREAD_FROM);
            if key % 4 == 3 {
                let e = w.pop().unwrap();
                assert_eq!(Some((e.time, e.key)), model.pop_first());
                now = e.time;
            }
        }
        assert!(w.near.len() < SPREAD_FROM / 4, "near holds a bucket or so");
        while let Some(e) = w.pop() {
            assert_eq!(Some((e.time, e.key)), model.pop_first());
        }
        assert!(model.is_empty());
    }

    /// Entries only in `far`, far apart: the wheel jumps to `far`'s first and keeps order
    /// across the jump (a timeout backed off to a minute, then others due sooner).
    #[test]
    fn a_jump_to_far_keeps_the_order() {
        let turn = (1u64 << SHIFT) * N as u64;
        let times = [
            60 * turn + 5,
            3 * turn,
            60 * turn + 5,
            3 * turn + 1,
            7 * turn,
        ];
        let mut w = Wheel {
            spread_from: 0,
            ..Wheel::default()
        };
        for (k, &t) in times.iter().enumerate() {
            w.push(entry(t, k as u64), 0);
        }
        // Scheduled after the first pop, 1 ns past it: due before everything but that one.
        let first = w.pop().unwrap();
        assert_eq!((first.time, first.key), (3 * turn, 1));
        w.push(entry(first.time + 1, 9), first.time);
        let rest: Vec<(u64, u64)> =
            std::iter::from_fn(|| w.pop().map(|e| (e.time, e.key))).collect();
        assert_eq!(
            rest,
            [
                (3 * turn + 1, 3),
                (3 * turn + 1, 9),
                (7 * turn, 4),
                (60 * turn + 5, 0),
                (60 * turn + 5, 2)
            ]
        );
        assert!(w.is_empty());
    }
}
