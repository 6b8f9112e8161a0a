//! The TCP receiver (sink): cumulative ACKs, SACK blocks (RFC 2018), optional delayed ACKs
//! (RFC 1122 / RFC 5681 §4.2) and the ECN echo (RFC 3168 §6.1.3).
//!
//! Sequence numbers count segments (packets), as in ns-2's one-way TCP; the ACK number is
//! the next segment expected (RFC convention, not ns-2's "highest received").

use crate::units::Time;
use std::collections::BTreeSet;

/// Up to three SACK blocks [start, end) in segments; the first holds the latest arrival.
pub const MAX_SACK_BLOCKS: usize = 3;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Ack {
    /// Next segment expected.
    pub ack: u64,
    /// ECN-Echo: a CE mark was seen and no CWR since.
    pub ece: bool,
    pub sack: [(u64, u64); MAX_SACK_BLOCKS],
    pub nsack: u8,
}

impl Ack {
    pub fn sack_blocks(&self) -> &[(u64, u64)] {
        &self.sack[..self.nsack as usize]
    }
}

#[derive(Clone, Debug)]
pub struct Receiver {
    next: u64,
    above: BTreeSet<u64>,
    sack: bool,
    delayed_ack: Option<Time>,
    ece: bool,
    /// In-order segments received but not yet acknowledged (delayed ACKs).
    pending: u32,
    /// When the delayed-ACK timer expires, if armed.
    pub delack_deadline: Option<Time>,
    /// Unique segments delivered in order, and all data segments received.
    pub delivered: u64,
    pub received: u64,
    pub ce_received: u64,
}

impl Receiver {
    /// `delayed_ack`: the delayed-ACK timeout, or None to ACK every segment.
    pub fn new(sack: bool, delayed_ack: Option<Time>) -> Receiver {
        Receiver {
            next: 0,
            above: BTreeSet::new(),
            sack,
            delayed_ack,
            ece: false,
            pending: 0,
            delack_deadline: None,
            delivered: 0,
            received: 0,
            ce_received: 0,
        }
    }

    pub fn next_expected(&self) -> u64 {
        self.next
    }

    /// A data segment arrives; returns the ACK to send now, if any.
    pub fn on_data(&mut self, seq: u64, ce: bool, cwr: bool, now: Time) -> Option<Ack> {
        self.received += 1;
        // CWR ends the echo of earlier marks; a CE on this same packet starts a new one.
        if cwr {
            self.ece = false;
        }
        if ce {
            self.ce_received += 1;
            self.ece = true;
        }
        let had_gap = !self.above.is_empty();
        let immediate = if seq == self.next {
            self.next += 1;
            self.delivered += 1;
            while self.above.remove(&self.next) {
                self.next += 1;
                self.delivered += 1;
            }
            // A segment that fills (part of) a hole is acknowledged at once (RFC 5681 §4.2).
            had_gap
        } else {
            if seq > self.next {
                self.above.insert(seq);
            }
            true // out of order or duplicate: immediate duplicate ACK
        };
        match self.delayed_ack {
            Some(timeout) if !immediate => {
                self.pending += 1;
                if self.pending >= 2 {
                    Some(self.ack(seq))
                } else {
                    self.delack_deadline.get_or_insert(now + timeout);
                    None
                }
            }
            _ => Some(self.ack(seq)),
        }
    }

    /// The delayed-ACK timer fired.
    pub fn on_delack_timer(&mut self, now: Time) -> Option<Ack> {
        match self.delack_deadline {
            Some(d) if d <= now && self.pending > 0 => Some(self.ack(self.next.saturating_sub(1))),
            _ => None,
        }
    }

    fn ack(&mut self, latest: u64) -> Ack {
        self.pending = 0;
        self.delack_deadline = None;
        let mut a = Ack {
            ack: self.next,
            ece: self.ece,
            ..Default::default()
        };
        if self.sack && !self.above.is_empty() {
            // Contiguous runs of out-of-order segments; the one holding `latest` goes first,
            // then the others from the highest down (the most recently useful to the sender).
            let mut runs: Vec<(u64, u64)> = vec![];
            for &s in &self.above {
                match runs.last_mut() {
                    Some(r) if r.1 == s => r.1 = s + 1,
                    _ => runs.push((s, s + 1)),
                }
            }
            if let Some(i) = runs.iter().position(|r| r.0 <= latest && latest < r.1) {
                let r = runs.remove(i);
                runs.push(r);
            }
            for r in runs.iter().rev().take(MAX_SACK_BLOCKS) {
                a.sack[a.nsack as usize] = *r;
                a.nsack += 1;
            }
        }
        a
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn in_order_segments_advance_the_cumulative_ack() {
        let mut r = Receiver::new(false, None);
        assert_eq!(r.on_data(0, false, false, 0).unwrap().ack, 1);
        assert_eq!(r.on_data(1, false, false, 0).unwrap().ack, 2);
        assert_eq!(r.delivered, 2);
    }

    #[test]
    fn a_hole_gives_duplicate_acks_with_sack_blocks_latest_first() {
        let mut r = Receiver::new(true, None);
        r.on_data(0, false, false, 0);
        let a = r.on_data(2, false, false, 0).unwrap();
        assert_eq!((a.ack, a.sack_blocks()), (1, &[(2, 3)][..]));
        let a = r.on_data(5, false, false, 0).unwrap();
        assert_eq!(a.sack_blocks(), &[(5, 6), (2, 3)]);
        let a = r.on_data(3, false, false, 0).unwrap();
        assert_eq!(a.sack_blocks(), &[(2, 4), (5, 6)]);
        let a = r.on_data(1, false, false, 0).unwrap();
        assert_eq!((a.ack, a.sack_blocks()), (4, &[(5, 6)][..]));
        assert_eq!(r.delivered, 4);
    }

    #[test]
    fn delayed_acks_every_second_segment_or_on_timeout() {
        let mut r = Receiver::new(false, Some(100));
        assert_eq!(r.on_data(0, false, false, 10), None);
        assert_eq!(r.delack_deadline, Some(110));
        assert_eq!(r.on_data(1, false, false, 20).unwrap().ack, 2);
        assert_eq!(r.on_data(2, false, false, 30), None);
        assert_eq!(r.on_delack_timer(129), None);
        assert_eq!(r.on_delack_timer(130).unwrap().ack, 3);
        // Out of order: immediate.
        assert_eq!(r.on_data(5, false, false, 40).unwrap().ack, 3);
    }

    #[test]
    fn ece_is_echoed_until_cwr() {
        let mut r = Receiver::new(false, None);
        assert!(!r.on_data(0, false, false, 0).unwrap().ece);
        assert!(r.on_data(1, true, false, 0).unwrap().ece);
        assert!(r.on_data(2, false, false, 0).unwrap().ece);
        assert!(!r.on_data(3, false, true, 0).unwrap().ece);
        // CWR and CE on one packet: the new mark is echoed.
        assert!(r.on_data(4, true, true, 0).unwrap().ece);
    }
}
