//! The TCP receiver (sink): cumulative ACKs, SACK blocks (RFC 2018), optional delayed ACKs
//! (RFC 1122 / RFC 5681 §4.2) and the ECN echo: RFC 3168 §6.1.3's (ECE latched from a CE
//! mark until the sender's CWR) or DCTCP's (RFC 8257 §3.2: ECE on each ACK says whether
//! the segments it acknowledges carried CE; see `Echo`).
//!
//! Sequence numbers count segments (packets), as in ns-2's one-way TCP; the ACK number is
//! the next segment expected (RFC convention, not ns-2's "highest received").

use crate::units::Time;
use smallvec::SmallVec;

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

/// How the receiver echoes CE marks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Echo {
    /// RFC 3168 §6.1.3: ECE on every ACK from a CE mark until a segment with CWR.
    Rfc3168,
    /// RFC 8257 §3.2, DCTCP's two-state machine: ECE is the CE state of the latest
    /// segment, and CWR is ignored. When the state changes with a delayed ACK pending, the
    /// segments already received are acknowledged at once with the old state (so that each
    /// ACK's ECE covers segments of one kind: the sender counts marked data from it), and
    /// the arrival that changed it is acknowledged at once with the new state (Linux
    /// `dctcp_ece_ack_update`: the pending ACK for `prior_rcv_nxt`, then `ICSK_ACK_NOW`).
    Dctcp,
}

#[derive(Clone, Debug)]
pub struct Receiver {
    next: u64,
    /// The segments received above `next`, as sorted runs [start, end) with a gap between
    /// any two (so `next` is never in one). A loss leaves every later segment of its window
    /// here until the retransmission comes: 41% of the data arrivals at 10 000 flows
    /// (BENCHMARKS.md, 2026-11-27 night). Runs are what an ACK's SACK blocks are made of,
    /// and the first few live inside the receiver, in a line it reads anyway, where a
    /// `BTreeSet` of segments cost a node or two of cold lines per out-of-order arrival.
    above: SmallVec<[(u64, u64); INLINE_RUNS]>,
    sack: bool,
    delayed_ack: Option<Time>,
    echo: Echo,
    ece: bool,
    /// DCTCP's flush: the ACK of the segments received before a CE-state change, sent
    /// before the ACK `on_data` returns (`take_flush`).
    flush: Option<Ack>,
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
    pub fn new(sack: bool, delayed_ack: Option<Time>, echo: Echo) -> Receiver {
        Receiver {
            next: 0,
            above: SmallVec::new(),
            sack,
            delayed_ack,
            echo,
            ece: false,
            flush: None,
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

    /// A data segment arrives; returns the ACK to send now, if any (after the one
    /// `take_flush` gives, under DCTCP's echo).
    pub fn on_data(&mut self, seq: u64, ce: bool, cwr: bool, now: Time) -> Option<Ack> {
        self.received += 1;
        self.ce_received += ce as u64;
        let mut changed = false;
        match self.echo {
            Echo::Rfc3168 => {
                // CWR ends the echo of earlier marks; a CE on this same packet starts a new one.
                if cwr {
                    self.ece = false;
                }
                if ce {
                    self.ece = true;
                }
            }
            Echo::Dctcp if ce != self.ece => {
                if self.pending > 0 {
                    self.flush = Some(self.ack(self.next.saturating_sub(1)));
                }
                self.ece = ce;
                changed = true;
            }
            Echo::Dctcp => {}
        }
        let had_gap = !self.above.is_empty();
        let disorder = if seq == self.next {
            self.next += 1;
            self.delivered += 1;
            // Runs are apart, so at most the first one joins up.
            if let Some(&(start, end)) = self.above.first() {
                if start == self.next {
                    self.delivered += end - start;
                    self.next = end;
                    self.above.remove(0);
                }
            }
            // A segment that fills (part of) a hole is acknowledged at once (RFC 5681 §4.2).
            had_gap
        } else {
            if seq > self.next {
                insert(&mut self.above, seq);
            }
            true // out of order or duplicate: immediate duplicate ACK
        };
        let immediate = disorder || changed;
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

    /// The ACK to send before the one `on_data` returned (DCTCP's echo), if any.
    #[inline]
    pub fn take_flush(&mut self) -> Option<Ack> {
        self.flush.take()
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
            // The run holding `latest` goes first, then the others from the highest down
            // (the most recently useful to the sender).
            let runs = &self.above;
            let holding = runs.iter().position(|r| r.0 <= latest && latest < r.1);
            let rest = (0..runs.len()).rev().filter(|&i| Some(i) != holding);
            for i in holding.into_iter().chain(rest).take(MAX_SACK_BLOCKS) {
                a.sack[a.nsack as usize] = runs[i];
                a.nsack += 1;
            }
        }
        a
    }
}

/// Runs kept inside the receiver before they spill to the heap: a window with three holes.
const INLINE_RUNS: usize = 3;

/// Adds segment `s` to the runs (nothing if it is in one already).
fn insert(runs: &mut SmallVec<[(u64, u64); INLINE_RUNS]>, s: u64) {
    // The first run that ends at or after s: it holds s, ends just below it, or lies above.
    let i = runs.partition_point(|r| r.1 < s);
    match runs.get(i).copied() {
        Some((_, end)) if end == s => {
            runs[i].1 = s + 1;
            if runs.get(i + 1).is_some_and(|r| r.0 == s + 1) {
                runs[i].1 = runs[i + 1].1;
                runs.remove(i + 1);
            }
        }
        Some((start, _)) if start <= s => {}
        Some((start, _)) if start == s + 1 => runs[i].0 = s,
        _ => runs.insert(i, (s, s + 1)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::BTreeSet;

    /// The receiver's set of segments above `next` as a plain set, and an ACK's SACK
    /// blocks built from it as the receiver built them before it kept runs.
    struct Oracle {
        next: u64,
        above: BTreeSet<u64>,
    }

    impl Oracle {
        fn on_data(&mut self, seq: u64, latest: u64) -> (u64, Vec<(u64, u64)>) {
            if seq == self.next {
                self.next += 1;
                while self.above.remove(&self.next) {
                    self.next += 1;
                }
            } else if seq > self.next {
                self.above.insert(seq);
            }
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
            let blocks = runs.iter().rev().take(MAX_SACK_BLOCKS).copied().collect();
            (self.next, blocks)
        }
    }

    proptest! {
        /// Arrivals in any order, with duplicates and segments below the cumulative ACK:
        /// the same ACKs, SACK blocks and deliveries as a set of segments gives, through
        /// runs that spill past the inline ones (up to ~20 holes).
        #[test]
        fn runs_ack_as_a_set_of_segments_does(segs in prop::collection::vec(0u64..48, 1..120)) {
            let mut r = Receiver::new(true, None, Echo::Rfc3168);
            let mut o = Oracle { next: 0, above: BTreeSet::new() };
            for &seq in &segs {
                let a = r.on_data(seq, false, false, 0).unwrap();
                let (ack, blocks) = o.on_data(seq, seq);
                prop_assert_eq!(a.ack, ack);
                prop_assert_eq!(a.sack_blocks(), &blocks[..]);
                prop_assert_eq!(r.delivered, ack);
                let runs = &r.above;
                prop_assert!(runs.iter().all(|x| x.0 > r.next && x.0 < x.1));
                prop_assert!(runs.windows(2).all(|w| w[0].1 < w[1].0));
            }
        }
    }

    #[test]
    fn in_order_segments_advance_the_cumulative_ack() {
        let mut r = Receiver::new(false, None, Echo::Rfc3168);
        assert_eq!(r.on_data(0, false, false, 0).unwrap().ack, 1);
        assert_eq!(r.on_data(1, false, false, 0).unwrap().ack, 2);
        assert_eq!(r.delivered, 2);
    }

    #[test]
    fn a_hole_gives_duplicate_acks_with_sack_blocks_latest_first() {
        let mut r = Receiver::new(true, None, Echo::Rfc3168);
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
        let mut r = Receiver::new(false, Some(100), Echo::Rfc3168);
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
        let mut r = Receiver::new(false, None, Echo::Rfc3168);
        assert!(!r.on_data(0, false, false, 0).unwrap().ece);
        assert!(r.on_data(1, true, false, 0).unwrap().ece);
        assert!(r.on_data(2, false, false, 0).unwrap().ece);
        assert!(!r.on_data(3, false, true, 0).unwrap().ece);
        // CWR and CE on one packet: the new mark is echoed.
        assert!(r.on_data(4, true, true, 0).unwrap().ece);
    }

    #[test]
    fn dctcp_echo_follows_each_segment_and_ignores_cwr() {
        let mut r = Receiver::new(false, None, Echo::Dctcp);
        let eces: Vec<bool> = [(false, false), (true, false), (false, true), (true, true)]
            .iter()
            .enumerate()
            .map(|(i, &(ce, cwr))| r.on_data(i as u64, ce, cwr, 0).unwrap().ece)
            .collect();
        assert_eq!(eces, [false, true, false, true]);
        assert_eq!(r.take_flush(), None);
    }

    /// RFC 8257 §3.2 with delayed ACKs: a CE-state change acknowledges the pending segment
    /// at once with the old state, then the arrival itself with the new one; while the
    /// state holds, ACKs go every second segment as usual.
    #[test]
    fn dctcp_state_change_flushes_the_pending_ack_with_the_old_state() {
        let mut r = Receiver::new(false, Some(100), Echo::Dctcp);
        assert_eq!(r.on_data(0, false, false, 0), None);
        let a = r.on_data(1, true, false, 1).unwrap();
        assert_eq!((a.ack, a.ece), (2, true));
        let flush = r.take_flush().unwrap();
        assert_eq!((flush.ack, flush.ece), (1, false));
        // CE holds: delayed ACK, ECE set.
        assert_eq!(r.on_data(2, true, false, 2), None);
        let a = r.on_data(3, true, false, 3).unwrap();
        assert_eq!((a.ack, a.ece, r.take_flush()), (4, true, None));
        // A change with nothing pending: one immediate ACK with the new state.
        let a = r.on_data(4, false, false, 4).unwrap();
        assert_eq!((a.ack, a.ece, r.take_flush()), (5, false, None));
        assert_eq!(r.delack_deadline, None);
        assert_eq!(r.ce_received, 3);
    }
}
