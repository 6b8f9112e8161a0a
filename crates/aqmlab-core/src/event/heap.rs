//! The event set's min-heap: four-ary (Johnson 1975), its keys apart from its events and
//! each node's children in one cache line (LaMarca and Ladner 1996), with Floyd's pop
//! (Knuth TAOCP vol. 3, 5.2.3 ex. 18), in place of `std`'s `BinaryHeap`.
//!
//! At 10 000 flows some 5 000 lane heads and other events wait in the main heap (and
//! 22 000 timers in theirs). A pop walks the hole from the root to the bottom, and each
//! level's loads wait for the comparison of the level above: with a binary heap of 32-byte
//! entries that chain was a fifth of the 10 000-flow run (`perf annotate`, issue 15). Here
//! the (time, sequence) keys are one `u128` each, in an array of their own where node i's
//! four children fill one 64-byte line (node i at slot i + 3, so children 4i+1..4i+4 sit
//! at slots 4(i+1)..4(i+1)+3): a level is one line and three comparisons, the tree is half
//! as deep, and on a large heap each level asks for the four lines of the next before it
//! compares. The events (16 bytes) move in a parallel array, off the comparison chain.
//!
//! Any correct min-heap of distinct keys pops them in the same order, so the engine's
//! (time, sequence) order does not depend on which heap holds it.

use super::{Entry, Event};
use crate::mem::prefetch;

/// Four keys: the children of one node.
#[derive(Clone, Copy, Default)]
#[repr(C, align(64))]
struct Line([u128; 4]);

/// Slot of node i in the key array (see the module doc).
const SHIFT: usize = 3;

#[derive(Default)]
pub(super) struct Heap {
    /// Node i's key at slot i + SHIFT of these lines, read as one `u128` array.
    keys: Vec<Line>,
    events: Vec<Event>,
}

/// An entry's place in the order: time, then sequence (keys are unique). One 128-bit
/// comparison is a compare and a subtract-with-borrow, where a tuple's is two branches.
#[inline(always)]
pub(super) fn rank(e: &Entry) -> u128 {
    (e.time as u128) << 64 | e.key as u128
}

#[inline(always)]
fn entry(k: u128, event: Event) -> Entry {
    Entry {
        time: (k >> 64) as u64,
        key: k as u64,
        event,
    }
}

/// From this many entries (a 64 KB key array, beyond L1) each level prefetches the next:
/// below it the heap stays in cache and the prefetches cost more instructions than they
/// hide.
const PREFETCH_FROM: usize = 4096;

impl Heap {
    #[inline]
    pub fn len(&self) -> usize {
        self.events.len()
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.events.is_empty()
    }

    #[inline(always)]
    fn k(&self) -> *mut u128 {
        // SAFETY (for every use): `Line` is `repr(C)` over `[u128; 4]`, so the lines are
        // one contiguous `u128` array of 4 · keys.len() slots.
        self.keys.as_ptr() as *mut u128
    }

    #[inline]
    pub fn peek(&self) -> Option<Entry> {
        let e = *self.events.first()?;
        // SAFETY: the heap is not empty, so slot SHIFT holds the root's key.
        Some(entry(unsafe { *self.k().add(SHIFT) }, e))
    }

    /// The root's key alone.
    #[inline]
    pub fn peek_rank(&self) -> Option<u128> {
        // SAFETY: slot SHIFT holds the root's key when the heap is not empty.
        (!self.is_empty()).then(|| unsafe { *self.k().add(SHIFT) })
    }

    pub fn iter(&self) -> impl Iterator<Item = Entry> + '_ {
        // SAFETY: node i < len has its key at slot i + SHIFT.
        (self.events.iter().enumerate())
            .map(|(i, &e)| entry(unsafe { *self.k().add(i + SHIFT) }, e))
    }

    #[inline]
    pub fn push(&mut self, x: Entry) {
        let mut i = self.events.len();
        if (i + SHIFT) / 4 >= self.keys.len() {
            self.keys.push(Line::default());
        }
        self.events.push(x.event);
        let xk = rank(&x);
        let (k, ev) = (self.k(), self.events.as_mut_ptr());
        // SAFETY: i < len after the push, its slot i + SHIFT is within the lines just
        // ensured, and every parent index (i - 1) / 4 < i.
        unsafe {
            while i > 0 {
                let p = (i - 1) / 4;
                let pk = *k.add(p + SHIFT);
                if xk >= pk {
                    break;
                }
                *k.add(i + SHIFT) = pk;
                *ev.add(i) = *ev.add(p);
                i = p;
            }
            *k.add(i + SHIFT) = xk;
            *ev.add(i) = x.event;
        }
    }

    #[inline]
    pub fn pop(&mut self) -> Option<Entry> {
        let n = self.events.len();
        let last = entry(
            // SAFETY: read only when the heap is not empty: node n - 1 exists.
            unsafe { *self.k().add((n.checked_sub(1)?) + SHIFT) },
            self.events.pop()?,
        );
        if self.events.is_empty() {
            return Some(last);
        }
        Some(self.replace_top(last))
    }

    /// Returns the earliest entry and puts `x` in its place (one sift instead of a pop and
    /// a push).
    #[inline]
    pub fn replace_top(&mut self, x: Entry) -> Entry {
        let n = self.events.len();
        assert!(n > 0, "replace_top on an empty heap");
        let xk = rank(&x);
        let prefetching = n >= PREFETCH_FROM;
        let (k, ev) = (self.k(), self.events.as_mut_ptr());
        let slots = 4 * self.keys.len();
        // SAFETY: every node read or written is below n (a full group c..c + 4 is read only
        // when c + 3 < n, a partial one up to n - 1), its key slot below 4 · keys.len()
        // (push keeps a line for slot n - 1 + SHIFT); the lines prefetched end at slot
        // 4(c + 4) + SHIFT at most, checked against the slots allocated.
        unsafe {
            let top = entry(*k.add(SHIFT), *ev);
            // Floyd: the hole goes to the bottom along the smallest children, then `x` rises
            // from there (it came from the bottom or from a lane's next arrival, so it rarely
            // rises far).
            let mut i = 0;
            loop {
                let c = 4 * i + 1;
                if c + 3 < n {
                    if prefetching && 4 * (c + 4) + SHIFT <= slots {
                        // Whichever child wins, its children are the line at slot
                        // 4(c + j + 1) for its j: ask for all four.
                        let g = k.add(4 * (c + 1) + SHIFT);
                        prefetch(&*g);
                        prefetch(&*g.add(4));
                        prefetch(&*g.add(8));
                        prefetch(&*g.add(12));
                    }
                    let s = k.add(c + SHIFT);
                    let (a, b, d, e) = (*s, *s.add(1), *s.add(2), *s.add(3));
                    let (ab, iab) = if b < a { (b, 1) } else { (a, 0) };
                    let (de, ide) = if e < d { (e, 3) } else { (d, 2) };
                    let (m, j) = if de < ab { (de, ide) } else { (ab, iab) };
                    *k.add(i + SHIFT) = m;
                    *ev.add(i) = *ev.add(c + j);
                    i = c + j;
                } else {
                    if c < n {
                        let mut j = c;
                        for t in c + 1..n {
                            if *k.add(t + SHIFT) < *k.add(j + SHIFT) {
                                j = t;
                            }
                        }
                        *k.add(i + SHIFT) = *k.add(j + SHIFT);
                        *ev.add(i) = *ev.add(j);
                        i = j;
                    }
                    break;
                }
            }
            while i > 0 {
                let p = (i - 1) / 4;
                let pk = *k.add(p + SHIFT);
                if xk >= pk {
                    break;
                }
                *k.add(i + SHIFT) = pk;
                *ev.add(i) = *ev.add(p);
                i = p;
            }
            *k.add(i + SHIFT) = xk;
            *ev.add(i) = x.event;
            top
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::Event;
    use proptest::prelude::*;

    fn entry(time: u64, key: u64) -> Entry {
        Entry {
            time,
            key,
            event: Event::Sample,
        }
    }

    proptest! {
        /// Pushes, pops and top replacements interleaved: every pop returns what a sorted
        /// list of the same (time, key) pairs would, times drawn from a small range so that
        /// ties on time are common and the key decides.
        #[test]
        fn pops_in_time_then_key_order(
            ops in proptest::collection::vec((0u8..3, 0u64..40), 0..500)
        ) {
            let mut h = Heap::default();
            let mut model: Vec<(u64, u64)> = vec![];
            for (key, (op, time)) in ops.into_iter().enumerate() {
                let key = key as u64;
                model.sort_unstable_by(|a, b| b.cmp(a));
                match op {
                    0 => {
                        h.push(entry(time, key));
                        model.push((time, key));
                    }
                    1 => {
                        let got = h.pop().map(|e| (e.time, e.key));
                        prop_assert_eq!(got, model.pop());
                    }
                    _ if !model.is_empty() => {
                        let got = h.replace_top(entry(time, key));
                        prop_assert_eq!((got.time, got.key), model.pop().unwrap());
                        model.push((time, key));
                    }
                    _ => {}
                }
                prop_assert_eq!(h.len(), model.len());
                model.sort_unstable_by(|a, b| b.cmp(a));
                prop_assert_eq!(h.peek().map(|e| (e.time, e.key)), model.last().copied());
            }
        }
    }

    /// Past `PREFETCH_FROM` entries the pop prefetches: 20 000 entries pushed in a scrambled
    /// order, with a pop and a replacement after every fifth push, each checked against an
    /// ordered set of the same keys.
    #[test]
    fn a_large_heap_pops_in_order() {
        let mut h = Heap::default();
        let mut model = std::collections::BTreeSet::new();
        let mut x: u64 = 1;
        let mut largest = 0;
        for key in 0..20_000u64 {
            // A full-period LCG's high bits: times spread and often tied (0..4096).
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            h.push(entry(x >> 52, key));
            model.insert((x >> 52, key));
            if key % 5 == 4 {
                let e = h.pop().unwrap();
                assert_eq!(Some((e.time, e.key)), model.pop_first());
                let e = h.replace_top(entry(x >> 54, key + 1_000_000));
                assert_eq!(Some((e.time, e.key)), model.pop_first());
                model.insert((x >> 54, key + 1_000_000));
            }
            largest = largest.max(h.len());
        }
        assert!(largest > 2 * PREFETCH_FROM);
        while let Some(e) = h.pop() {
            assert_eq!(Some((e.time, e.key)), model.pop_first());
        }
        assert!(model.is_empty());
    }
}
