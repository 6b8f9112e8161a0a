//! Class schedulers of a classful buffer: which class's head packet a port sends next.
//!
//! - **Strict priority**: the lowest-numbered backlogged class (class 0 first), as Linux
//!   `sch_prio` and DiffServ's EF PHB (RFC 3246) by priority queueing.
//! - **Deficit round robin** (M. Shreedhar and G. Varghese, "Efficient Fair Queuing Using
//!   Deficit Round-Robin", IEEE/ACM Transactions on Networking 4(3):375-385, 1996): the
//!   backlogged classes in a round-robin list; a class at the front with head packet of L
//!   bytes sends it if L ≤ its deficit (and the deficit falls by L), else its deficit grows
//!   by its quantum Q_i and it moves to the back. A class joins the back of the list when it
//!   becomes backlogged, with a deficit of one quantum, and leaves it when it empties, as
//!   Linux `sch_drr` (`drr_enqueue`, `drr_dequeue`). With Q_i ≥ the largest packet, every
//!   class at the front sends at least one packet per turn, and over any interval in which
//!   classes i and j stay backlogged, |sent_i/Q_i − sent_j/Q_j|·Q ≤ Max + 2Q (the paper's
//!   Theorem 2, with f_i = Q_i/Q, Q the smallest quantum and Max the largest packet).
//! - **Weighted round robin**: the same list, a class sending up to w_i packets per turn
//!   (packets, not bytes: with equal sizes the shares are w_i/Σw exactly).
//!
//! Pure decisions on the classes' head sizes: the buffer keeps the packets, tells the
//! scheduler when a class becomes backlogged (`backlogged`) and, after each dequeue the
//! scheduler chose, whether the class emptied (`sent`).

use crate::check::Problems;
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// How a classful buffer orders its classes: a table tagged by `type`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum ClassSchedulerSpec {
    /// Class 0 first, then class 1, ...
    StrictPriority,
    /// Deficit round robin with one quantum per class, in bytes.
    Drr { quanta: Vec<u32> },
    /// Weighted round robin with one weight per class, in packets per turn.
    Wrr { weights: Vec<u32> },
}

impl ClassSchedulerSpec {
    /// Every problem of this spec for `classes` classes whose packets are at most `mtu`
    /// bytes, under the path `path`.
    pub fn validate(&self, path: &str, classes: usize, mtu: u32, p: &mut Problems) {
        let (field, values) = match self {
            ClassSchedulerSpec::StrictPriority => return,
            ClassSchedulerSpec::Drr { quanta } => ("quanta", quanta),
            ClassSchedulerSpec::Wrr { weights } => ("weights", weights),
        };
        if values.len() != classes {
            p.err(
                format!("{path}.{field}"),
                format!("{} values", values.len()),
                format!("needs one per class: {classes}"),
            );
        }
        for (k, &v) in values.iter().enumerate() {
            let least = if field == "quanta" { mtu } else { 1 };
            if v < least {
                p.err(
                    format!("{path}.{field}[{k}]"),
                    v,
                    if field == "quanta" {
                        format!(
                            "must be at least the largest packet, {mtu} bytes (each turn \
                             then sends a packet: Shreedhar and Varghese's condition)"
                        )
                    } else {
                        "must be at least 1 packet per turn".to_string()
                    },
                );
            }
        }
    }

    pub fn build(&self, classes: usize) -> ClassScheduler {
        let (kind, credit) = match self {
            ClassSchedulerSpec::StrictPriority => (Kind::StrictPriority, vec![]),
            ClassSchedulerSpec::Drr { quanta } => (Kind::Drr, quanta.clone()),
            ClassSchedulerSpec::Wrr { weights } => (Kind::Wrr, weights.clone()),
        };
        ClassScheduler {
            kind,
            credit,
            left: vec![0; classes],
            backlogged: vec![false; classes],
            active: VecDeque::with_capacity(classes),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    StrictPriority,
    Drr,
    Wrr,
}

/// A scheduler's state: the round-robin list of backlogged classes and each class's
/// deficit (DRR, bytes) or packets left in its turn (WRR).
#[derive(Clone, Debug)]
pub struct ClassScheduler {
    kind: Kind,
    /// Q_i (DRR) or w_i (WRR).
    credit: Vec<u32>,
    left: Vec<u64>,
    backlogged: Vec<bool>,
    active: VecDeque<usize>,
}

impl ClassScheduler {
    /// Class `c` had no packet and now has one.
    pub fn backlogged(&mut self, c: usize) {
        debug_assert!(!self.backlogged[c], "class {c} was backlogged already");
        self.backlogged[c] = true;
        if self.kind != Kind::StrictPriority {
            self.active.push_back(c);
            self.left[c] = u64::from(self.credit[c]);
        }
    }

    /// The class whose head packet goes next, given each backlogged class's head size in
    /// bytes; None when no class is backlogged. The caller dequeues that head and then
    /// calls [`sent`](Self::sent).
    pub fn next(&mut self, head_bytes: impl Fn(usize) -> u32) -> Option<usize> {
        match self.kind {
            Kind::StrictPriority => self.backlogged.iter().position(|&b| b),
            Kind::Drr => loop {
                let c = *self.active.front()?;
                let size = u64::from(head_bytes(c));
                if size <= self.left[c] {
                    self.left[c] -= size;
                    return Some(c);
                }
                self.left[c] += u64::from(self.credit[c]);
                self.active.rotate_left(1);
            },
            Kind::Wrr => loop {
                let c = *self.active.front()?;
                if self.left[c] > 0 {
                    self.left[c] -= 1;
                    return Some(c);
                }
                self.left[c] = u64::from(self.credit[c]);
                self.active.rotate_left(1);
            },
        }
    }

    /// The head of class `c`, chosen by [`next`](Self::next), was sent; `emptied`: it was
    /// the class's last packet.
    pub fn sent(&mut self, c: usize, emptied: bool) {
        if !emptied {
            return;
        }
        self.backlogged[c] = false;
        if self.kind != Kind::StrictPriority {
            debug_assert_eq!(
                self.active.front(),
                Some(&c),
                "the class sent is at the front"
            );
            self.active.pop_front();
            self.left[c] = 0;
        }
    }
}

#[cfg(test)]
#[path = "sched_tests.rs"]
mod tests;
