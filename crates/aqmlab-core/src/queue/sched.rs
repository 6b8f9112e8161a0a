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
//! - **Enhanced transmission selection** (Linux `sch_ets`, after IEEE 802.1Qaz): the first
//!   `strict` classes by strict priority, and only when none of them is backlogged, the
//!   others by DRR with their quanta. DiffServ's EF over AF classes is this shape: EF by
//!   priority (RFC 3246 §2.2), the AF classes sharing what is left by weight (RFC 2597 §2).
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
    /// The first `strict` classes by priority, then DRR over the others with one
    /// quantum each, in bytes.
    Ets { strict: u32, quanta: Vec<u32> },
}

impl ClassSchedulerSpec {
    /// Every problem of this spec for `classes` classes whose packets are at most `mtu`
    /// bytes, under the path `path`.
    pub fn validate(&self, path: &str, classes: usize, mtu: u32, p: &mut Problems) {
        let (field, values, want) = match self {
            ClassSchedulerSpec::StrictPriority => return,
            ClassSchedulerSpec::Drr { quanta } => ("quanta", quanta, classes),
            ClassSchedulerSpec::Wrr { weights } => ("weights", weights, classes),
            ClassSchedulerSpec::Ets { strict, quanta } => {
                if *strict as usize > classes {
                    p.err(
                        format!("{path}.strict"),
                        strict,
                        format!("must be at most the number of classes, {classes}"),
                    );
                }
                ("quanta", quanta, classes.saturating_sub(*strict as usize))
            }
        };
        if values.len() != want {
            let per = if want == classes {
                format!("needs one per class: {classes}")
            } else {
                format!(
                    "needs one per class after the {} strict ones: {want}",
                    classes - want
                )
            };
            p.err(
                format!("{path}.{field}"),
                format!("{} values", values.len()),
                per,
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
        let (kind, credit, strict) = match self {
            ClassSchedulerSpec::StrictPriority => (Kind::StrictPriority, vec![], classes),
            ClassSchedulerSpec::Drr { quanta } => (Kind::Drr, quanta.clone(), 0),
            ClassSchedulerSpec::Wrr { weights } => (Kind::Wrr, weights.clone(), 0),
            ClassSchedulerSpec::Ets { strict, quanta } => {
                // Credits indexed by class: the strict classes have none.
                let s = *strict as usize;
                let credit = (0..classes)
                    .map(|c| if c < s { 0 } else { quanta[c - s] })
                    .collect();
                (Kind::Drr, credit, s)
            }
        };
        ClassScheduler {
            kind,
            strict,
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
    /// How the classes from `strict` on share: DRR or WRR (none for strict priority).
    kind: Kind,
    /// Classes below this are served first, by priority (all of them for strict
    /// priority, none for plain DRR and WRR).
    strict: usize,
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
        if c >= self.strict {
            self.active.push_back(c);
            self.left[c] = u64::from(self.credit[c]);
        }
    }

    /// The class whose head packet goes next, given each backlogged class's head size in
    /// bytes; None when no class is backlogged. The caller dequeues that head and then
    /// calls [`sent`](Self::sent).
    pub fn next(&mut self, head_bytes: impl Fn(usize) -> u32) -> Option<usize> {
        if let Some(c) = self.backlogged[..self.strict].iter().position(|&b| b) {
            return Some(c);
        }
        match self.kind {
            Kind::StrictPriority => None,
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

    /// The head of class `c`, chosen by [`next`](Self::next), was dropped by its class's
    /// AQM rather than sent: the charge `next` took for it is returned (then call `sent`).
    pub fn refund(&mut self, c: usize, bytes: u32) {
        match self.kind {
            _ if c < self.strict => {}
            Kind::StrictPriority => {}
            Kind::Drr => self.left[c] += u64::from(bytes),
            Kind::Wrr => self.left[c] += 1,
        }
    }

    /// The head of class `c`, chosen by [`next`](Self::next), was sent; `emptied`: it was
    /// the class's last packet.
    pub fn sent(&mut self, c: usize, emptied: bool) {
        if !emptied {
            return;
        }
        self.backlogged[c] = false;
        if c >= self.strict {
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
