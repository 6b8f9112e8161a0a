//! A FIFO of packet indices whose first few entries live inside the queue itself.
//!
//! At scale most ports are quiet (a host's access link among thousands holds zero, one or
//! two packets), and a `VecDeque` keeps even one packet in a buffer of its own: one more
//! cache line to miss per enqueue and dequeue. Here up to `INLINE` packets wait in the
//! struct; beyond that they wait in a `VecDeque` behind them. Every packet in the inline
//! ring precedes every packet in the spill (a push goes inline only while the spill is
//! empty), so the order is the one of a single deque.

use std::collections::VecDeque;

const INLINE: usize = 4;

#[derive(Default)]
pub struct Fifo {
    ring: [u32; INLINE],
    /// Index in `ring` of the first inline packet, and how many there are.
    head: u8,
    len: u8,
    /// Packets that arrived while the ring was full, or behind earlier spilled ones.
    spill: VecDeque<u32>,
}

impl Fifo {
    #[inline]
    pub fn push_back(&mut self, idx: u32) {
        if self.spill.is_empty() && (self.len as usize) < INLINE {
            self.ring[(self.head as usize + self.len as usize) % INLINE] = idx;
            self.len += 1;
        } else {
            self.spill.push_back(idx);
        }
    }

    #[inline]
    pub fn pop_front(&mut self) -> Option<u32> {
        if self.len == 0 {
            return self.spill.pop_front();
        }
        let idx = self.ring[self.head as usize];
        self.head = ((self.head as usize + 1) % INLINE) as u8;
        self.len -= 1;
        Some(idx)
    }

    #[inline]
    pub fn front(&self) -> Option<u32> {
        if self.len == 0 {
            self.spill.front().copied()
        } else {
            Some(self.ring[self.head as usize])
        }
    }

    /// The packets in order, first to last.
    pub fn iter(&self) -> impl Iterator<Item = u32> + '_ {
        (0..self.len as usize)
            .map(|i| self.ring[(self.head as usize + i) % INLINE])
            .chain(self.spill.iter().copied())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// Any sequence of pushes and pops gives what a `VecDeque` gives, the oracle.
        #[test]
        fn behaves_as_a_deque(ops in proptest::collection::vec(proptest::option::of(0u32..1000), 0..300)) {
            let (mut f, mut oracle) = (Fifo::default(), VecDeque::new());
            for op in ops {
                match op {
                    Some(x) => {
                        f.push_back(x);
                        oracle.push_back(x);
                    }
                    None => proptest::prop_assert_eq!(f.pop_front(), oracle.pop_front()),
                }
                proptest::prop_assert_eq!(f.front(), oracle.front().copied());
                proptest::prop_assert!(f.iter().eq(oracle.iter().copied()));
            }
        }
    }
}
