//! The event set's binary min-heap (Williams 1964; Floyd's pop, Knuth TAOCP vol. 3, 5.2.3
//! ex. 18), in place of `std`'s `BinaryHeap`, for large pending sets.
//!
//! At 10 000 flows some 10^5 events were pending in one heap before the lanes and the
//! timers' own set took most of them away: 3 MB of entries, out of L2. A pop walks the hole
//! from the root to the bottom, and each level's load waits for the comparison of the
//! level above: `perf annotate` put a quarter of the 10 000-flow run on that chain with
//! `std`'s heap (issue 15). Here, on a heap larger than
//! `PREFETCH_FROM`, each level asks for the grandchildren's cache lines before comparing
//! the children (whichever child wins, its children are among the four entries after index
//! 2c), and the (time, sequence) key is compared as one 128-bit number. A lane's next
//! arrival, which replaces the top on most pops and is often due first, sinks from the root
//! with an early stop instead (`replace_top`: -2.4% instructions on the 100-flow run). On a small heap, in
//! cache, it runs fewer instructions than `std`'s (callgrind, BENCHMARKS.md). A four-ary
//! heap with its keys apart, a node's children in one line, was faster while the heap held
//! thousands of entries, and 6% more instructions and a few % slower at every size once
//! the class lanes left it a few hundred (BENCHMARKS.md).
//!
//! Any correct min-heap of distinct keys pops them in the same order, so the engine's
//! (time, sequence) order does not depend on which heap holds it.

use super::Entry;
use crate::mem::prefetch;

#[derive(Default)]
pub(super) struct Heap {
    v: Vec<Entry>,
}

/// An entry's place in the order: time, then sequence (keys are unique). One 128-bit
/// comparison is a compare and a subtract-with-borrow, where a tuple's is two branches.
#[inline(always)]
pub(super) fn rank(e: &Entry) -> u128 {
    (e.time as u128) << 64 | e.key as u128
}

/// Below this many entries (64 KB) the heap stays in L1/L2 and prefetching costs more
/// instructions than it hides.
const PREFETCH_FROM: usize = 2048;

impl Heap {
    #[inline]
    pub fn len(&self) -> usize {
        self.v.len()
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.v.is_empty()
    }

    #[inline]
    pub fn peek(&self) -> Option<Entry> {
        self.v.first().copied()
    }

    /// The root's key alone.
    #[inline]
    pub fn peek_rank(&self) -> Option<u128> {
        self.v.first().map(rank)
    }

    pub fn iter(&self) -> impl Iterator<Item = Entry> + '_ {
        self.v.iter().copied()
    }

    #[inline]
    pub fn push(&mut self, x: Entry) {
        let mut i = self.v.len();
        self.v.push(x);
        let xk = rank(&x);
        let v = self.v.as_mut_ptr();
        // SAFETY: i < len after the push, and every parent index (i - 1) / 2 < i.
        unsafe {
            while i > 0 {
                let p = (i - 1) / 2;
                if xk >= rank(&*v.add(p)) {
                    break;
                }
                *v.add(i) = *v.add(p);
                i = p;
            }
            *v.add(i) = x;
        }
    }

    #[inline]
    pub fn pop(&mut self) -> Option<Entry> {
        let last = self.v.pop()?;
        if self.v.is_empty() {
            return Some(last);
        }
        Some(self.replace_top_from_bottom(last))
    }

    /// Returns the earliest entry and puts `x`, a lane's next arrival, in its place (one
    /// sift instead of a pop and a push). Such an entry is often due before every other:
    /// the next arrival on a fast wire (0.8 µs on the 10 000-flow dumbbell's bottleneck)
    /// beats the access links' transmissions (8 µs). So it sinks from the root and stops
    /// where it is no later than both children, often at once; Floyd's walk
    /// (`replace_top_from_bottom`) would take it to the bottom and back up.
    #[inline]
    pub fn replace_top(&mut self, x: Entry) -> Entry {
        let n = self.v.len();
        assert!(n > 0, "replace_top on an empty heap");
        let xk = rank(&x);
        let v = self.v.as_mut_ptr();
        // SAFETY: every index read or written is checked against n first (c < n before
        // reading c, c + 1 < n before reading c + 1; `prefetch_below` checks its own);
        // i is 0 or a former c.
        unsafe {
            let top = *v;
            let mut i = 0;
            let mut c = 1;
            while c < n {
                prefetch_below(v, c, n);
                if c + 1 < n {
                    c += (rank(&*v.add(c + 1)) < rank(&*v.add(c))) as usize;
                }
                if xk < rank(&*v.add(c)) {
                    break;
                }
                *v.add(i) = *v.add(c);
                i = c;
                c = 2 * i + 1;
            }
            *v.add(i) = x;
            top
        }
    }

    /// Makes the heap, which must be empty, hold the entries of `v`, leaving `v` empty
    /// with its capacity: a timer wheel's bucket enters the heap at once. Pushed one by
    /// one: a bucket is a few dozen entries in no order, and most stay where they land.
    pub fn fill_from(&mut self, v: &mut Vec<Entry>) {
        assert!(self.v.is_empty(), "fill_from on a heap that holds entries");
        self.v.reserve(v.len());
        for e in v.drain(..) {
            self.push(e);
        }
    }

    /// Moves every entry, in no particular order, to the end of `v`.
    pub fn drain_into(&mut self, v: &mut Vec<Entry>) {
        v.append(&mut self.v);
    }

    /// `replace_top` for an entry from the heap's bottom (a pop's last), which belongs near
    /// the bottom again: Floyd's walk.
    #[inline]
    fn replace_top_from_bottom(&mut self, x: Entry) -> Entry {
        let n = self.v.len();
        assert!(n > 0, "replace_top on an empty heap");
        let xk = rank(&x);
        let v = self.v.as_mut_ptr();
        // SAFETY: every index read or written is checked against n first (c + 1 < n before
        // reading c and c + 1; `prefetch_below` checks its own); i is 0 or a former c, and a
        // parent index is below its child's.
        unsafe {
            let top = *v;
            // Floyd: the hole goes to the bottom along the smaller children (one comparison
            // per level), then `x` rises from there (it came from the bottom or from a lane's
            // next arrival, so it rarely rises far).
            let mut i = 0;
            let mut c = 1;
            while c + 1 < n {
                prefetch_below(v, c, n);
                c += (rank(&*v.add(c + 1)) < rank(&*v.add(c))) as usize;
                *v.add(i) = *v.add(c);
                i = c;
                c = 2 * i + 1;
            }
            if c < n {
                *v.add(i) = *v.add(c);
                i = c;
            }
            while i > 0 {
                let p = (i - 1) / 2;
                if xk >= rank(&*v.add(p)) {
                    break;
                }
                *v.add(i) = *v.add(p);
                i = p;
            }
            *v.add(i) = x;
            top
        }
    }
}

/// On a heap of `n` ≥ `PREFETCH_FROM` entries at `v`, asks for the four grandchildren below
/// child `c` and its sibling (whichever child wins, its children are among them): 128
/// bytes, three lines when not aligned.
///
/// # Safety
/// `v` points to `n` entries.
#[inline(always)]
unsafe fn prefetch_below(v: *const Entry, c: usize, n: usize) {
    let g = 2 * c + 1;
    if n >= PREFETCH_FROM && g + 3 < n {
        // SAFETY: g + 3 < n.
        unsafe {
            prefetch(&*v.add(g));
            prefetch(&*v.add(g + 2));
            prefetch(&*v.add(g + 3));
        }
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::event::Event;
    use proptest::prelude::*;

    /// An entry of (time, key) for the tests of the heap and the wheel.
    pub(in crate::event) fn entry(time: u64, key: u64) -> Entry {
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

    proptest! {
        /// A heap filled from a vector at once pops its entries in (time, key) order, and
        /// leaves the vector empty.
        #[test]
        fn a_filled_heap_pops_in_order(times in proptest::collection::vec(0u64..30, 0..300)) {
            let mut h = Heap::default();
            let mut v: Vec<Entry> =
                times.iter().enumerate().map(|(k, &t)| entry(t, k as u64)).collect();
            let mut model: Vec<(u64, u64)> = v.iter().map(|e| (e.time, e.key)).collect();
            model.sort_unstable();
            h.fill_from(&mut v);
            prop_assert!(v.is_empty());
            prop_assert_eq!(h.len(), model.len());
            let got: Vec<(u64, u64)> =
                std::iter::from_fn(|| h.pop().map(|e| (e.time, e.key))).collect();
            prop_assert_eq!(got, model);
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
