//! A classful buffer: N classes, each a FIFO with its own AQM and optional limit, a
//! classifier that sends each arrival to one class, and a class scheduler (`super::sched`)
//! that chooses which class's head goes to the wire: Linux's `prio`, `drr` and `ets`
//! qdiscs with a child qdisc per class, ns-3's `PrioQueueDisc`, and the DiffServ PHBs of
//! RFC 2475 §2.3.3 (EF by strict priority, RFC 3246; AF classes by WRR or DRR with RIO in
//! each, RFC 2597).
//!
//! - **Classifier.** Classes are tried in order; a class takes a packet when any of its
//!   `match` rules matches, every field a rule names agreeing: `precedence` (the DiffServ
//!   precedence edge conditioners write, 0-7), `ecn` (its ECN codepoint: RFC 9331's L4S
//!   identifier is `ect1` and `ce`), `src`/`dst` host patterns (globs, as the DiffServ
//!   multi-field classifier's), `udp`. Exactly one class has no rule: it takes the rest.
//! - **Admission.** The class's AQM decides first on the class's own backlog (its
//!   `QueueView` holds only the class's packets, its limit the class's own or else the
//!   port's). A class with its own limit refuses an arrival that does not fit it (an
//!   overflow drop, its AQM told as a FIFO's is); the port's limit is shared and checked
//!   after (`crate::queue`'s order of decisions, class by class).
//! - **Departure.** The scheduler picks a class from the classes' head sizes; the class's
//!   AQM decides on the head as it leaves (CoDel in a class drops at the head). A head its
//!   AQM drops is not charged to the class (DRR's deficit, WRR's turn): Linux's `drr`
//!   dequeues its child, whose own dequeue drops inside it, and charges what it returns.
//! - **Idle.** A class's AQM learns its class went idle when the port next looks for a
//!   packet (the next departure of another class, or the port's own idle start), as a
//!   Linux child qdisc learns it when its parent dequeues it and finds it empty. With one
//!   class this is exactly a FIFO port's idle start.
//! - **Timers.** Each class's AQM keeps its own timer; the port's timer is the earliest.
//!
//! What classes do not see: a CIOQ switch's upstream backlog (`QueueView::upstream`) stays
//! zero in a class's view, so `cioq_red` in a class acts as RED.

use super::sched::{ClassScheduler, ClassSchedulerSpec};
use super::{subqueue_table, SubCounters};
use crate::aqm::{AnyAqm, Aqm, AqmSpec, Limit, QueueCtx, QueueView, Reason, Verdict};
use crate::check::Problems;
use crate::diffserv::classifier::glob_match;
use crate::packet::{Ecn, Packet, PacketArena, PacketList};
use crate::rng::Rng;
use crate::table::Table;
use crate::units::{Bytes, Time};
use serde::{Deserialize, Serialize};

/// Most classes a classful buffer may have (Linux `prio` allows 16 bands; DiffServ needs
/// six: EF, four AF classes, best effort).
pub const MAX_CLASSES: usize = 8;

/// The time-series values of a classful port: the packets waiting in each class.
const CLASS_METRICS: [&str; MAX_CLASSES] = [
    "class0_pkts",
    "class1_pkts",
    "class2_pkts",
    "class3_pkts",
    "class4_pkts",
    "class5_pkts",
    "class6_pkts",
    "class7_pkts",
];

/// An ECN codepoint a rule may match.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EcnName {
    NotEct,
    Ect0,
    Ect1,
    Ce,
}

impl EcnName {
    fn ecn(self) -> Ecn {
        match self {
            EcnName::NotEct => Ecn::NotEct,
            EcnName::Ect0 => Ecn::Ect0,
            EcnName::Ect1 => Ecn::Ect1,
            EcnName::Ce => Ecn::Ce,
        }
    }
}

/// One rule of a class: every field it names must agree.
#[derive(Clone, Debug, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClassMatch {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub precedence: Option<Vec<u8>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ecn: Option<Vec<EcnName>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub src: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dst: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub udp: Option<bool>,
}

/// One class: its rules, its limit and its AQM.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClassSpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// No rule: the default class.
    #[serde(default, rename = "match", skip_serializing_if = "Vec::is_empty")]
    pub matches: Vec<ClassMatch>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit_pkts: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit_bytes: Option<Bytes>,
    #[serde(default)]
    pub aqm: AqmSpec,
}

/// A classful buffer (docs/queue.md, "Classful buffers").
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClassfulSpec {
    pub scheduler: ClassSchedulerSpec,
    pub classes: Vec<ClassSpec>,
    /// The largest packet, for DRR's condition on its quanta (1514 bytes by default, Ethernet
    /// with its header, as FQ-CoDel's quantum).
    #[serde(default = "crate::check::default_mtu")]
    pub mtu: Bytes,
}

impl ClassSpec {
    fn limit(&self) -> Option<Limit> {
        match (self.limit_pkts, self.limit_bytes) {
            (Some(p), _) => Some(Limit::Packets(p)),
            (None, Some(b)) => Some(Limit::Bytes(b.0)),
            (None, None) => None,
        }
    }

    fn label(&self, k: usize) -> String {
        self.name.clone().unwrap_or_else(|| format!("class{k}"))
    }

    /// The port as this class's AQM sees it: the class's own limit, else the port's.
    fn ctx<'a>(&self, q: &QueueCtx<'a>) -> QueueCtx<'a> {
        match self.limit() {
            None => *q,
            Some(_) => QueueCtx {
                limit_pkts: self.limit_pkts,
                limit_bytes: self.limit_bytes,
                ..*q
            },
        }
    }
}

impl ClassfulSpec {
    pub fn validate(&self, a: &str, q: &QueueCtx, p: &mut Problems) {
        let n = self.classes.len();
        if !(1..=MAX_CLASSES).contains(&n) {
            p.err(
                format!("{a}.classes"),
                format!("{n} classes"),
                format!("needs 1 to {MAX_CLASSES} classes"),
            );
        }
        if !(64..=65_535).contains(&self.mtu.0) {
            p.err(
                format!("{a}.mtu"),
                self.mtu.0,
                "must be in [64, 65535] bytes",
            );
        }
        self.scheduler
            .validate(&format!("{a}.scheduler"), n, self.mtu.0 as u32, p);
        let defaults: Vec<usize> = (0..n)
            .filter(|&k| self.classes[k].matches.is_empty())
            .collect();
        if defaults.len() != 1 {
            p.err(
                format!("{a}.classes"),
                format!("{} classes without `match`", defaults.len()),
                "exactly one class has no `match` rule: it takes every packet no rule matches",
            );
        }
        for (k, c) in self.classes.iter().enumerate() {
            let path = format!("{a}.classes[{k}]");
            match (c.limit_pkts, c.limit_bytes) {
                (Some(_), Some(_)) => p.err(
                    format!("{path}.limit_bytes"),
                    "",
                    "limit_pkts and limit_bytes are mutually exclusive; give at most one",
                ),
                (Some(0), None) => p.err(format!("{path}.limit_pkts"), 0, "must be at least 1"),
                (None, Some(b)) if b.0 == 0 => {
                    p.err(format!("{path}.limit_bytes"), 0, "must be at least 1")
                }
                _ => {}
            }
            for (j, m) in c.matches.iter().enumerate() {
                let mp = format!("{path}.match[{j}]");
                if *m == ClassMatch::default() {
                    p.err(
                        mp.clone(),
                        "{}",
                        "names no field (precedence, ecn, src, dst, udp); omit `match` for the default class",
                    );
                }
                for &v in m.precedence.iter().flatten() {
                    if v > 7 {
                        p.err(format!("{mp}.precedence"), v, "must be in [0, 7]");
                    }
                }
                if m.precedence.as_ref().is_some_and(|v| v.is_empty()) {
                    p.err(
                        format!("{mp}.precedence"),
                        "[]",
                        "must list at least one precedence",
                    );
                }
                if m.ecn.as_ref().is_some_and(|v| v.is_empty()) {
                    p.err(
                        format!("{mp}.ecn"),
                        "[]",
                        "must list at least one codepoint",
                    );
                }
                for (field, pat) in [("src", &m.src), ("dst", &m.dst)] {
                    if let Some(pat) = pat {
                        if !q.hosts.iter().any(|h| glob_match(pat, h)) {
                            p.err(
                                format!("{mp}.{field}"),
                                format!("\"{pat}\""),
                                "matches no host of the scenario ('*' matches any run of \
                                 characters, '?' one)",
                            );
                        }
                    }
                }
            }
            c.aqm.validate(&format!("{path}.aqm"), &c.ctx(q), p);
        }
    }

    /// Builds the validated spec for a port whose own limit is `limit`.
    pub fn build(&self, q: &QueueCtx, limit: Limit) -> Classful {
        let classes = self
            .classes
            .iter()
            .enumerate()
            .map(|(k, c)| {
                let aqm = c.aqm.build(&c.ctx(q));
                Class {
                    name: c.label(k),
                    own_limit: c.limit().is_some(),
                    v: QueueView::new(0, 0, c.limit().unwrap_or(limit), q.link_bps),
                    fifo: PacketList::default(),
                    passive: aqm.passive(),
                    aqm,
                    timer: None,
                    counters: SubCounters::default(),
                }
            })
            .collect::<Vec<_>>();
        let mut rules = vec![];
        for (k, c) in self.classes.iter().enumerate() {
            for m in &c.matches {
                let nodes = |pat: &Option<String>| {
                    pat.as_ref()
                        .map(|pat| q.nodes.iter().map(|n| glob_match(pat, n)).collect())
                };
                rules.push(Rule {
                    class: k,
                    precedence: m
                        .precedence
                        .as_ref()
                        .map(|v| v.iter().fold(0u8, |bits, &p| bits | 1 << p)),
                    ecn: m
                        .ecn
                        .as_ref()
                        .map(|v| v.iter().fold(0u8, |bits, &e| bits | 1 << e.ecn() as u8)),
                    src: nodes(&m.src),
                    dst: nodes(&m.dst),
                    udp: m.udp,
                });
            }
        }
        Classful {
            default: self
                .classes
                .iter()
                .position(|c| c.matches.is_empty())
                .unwrap_or(0),
            sched: self.scheduler.build(classes.len()),
            classes,
            rules,
            pending: 0,
            idle_untold: 0,
        }
    }
}

/// A rule resolved for the run: bit sets and one flag per node.
#[derive(Clone, Debug)]
struct Rule {
    class: usize,
    precedence: Option<u8>,
    ecn: Option<u8>,
    src: Option<Vec<bool>>,
    dst: Option<Vec<bool>>,
    udp: Option<bool>,
}

impl Rule {
    fn matches(&self, p: &Packet) -> bool {
        let node = |flags: &Option<Vec<bool>>, n: u32| {
            flags
                .as_ref()
                .is_none_or(|f| f.get(n as usize).copied().unwrap_or(false))
        };
        self.precedence
            .is_none_or(|bits| p.precedence < 8 && bits & 1 << p.precedence != 0)
            && self.ecn.is_none_or(|bits| bits & 1 << p.ecn as u8 != 0)
            && self.udp.is_none_or(|u| u == p.udp)
            && node(&self.src, p.src)
            && node(&self.dst, p.dst)
    }
}

struct Class {
    name: String,
    own_limit: bool,
    /// The class's own backlog, limit and link, as its AQM sees them.
    v: QueueView,
    fifo: PacketList,
    aqm: AnyAqm,
    passive: bool,
    timer: Option<Time>,
    counters: SubCounters,
}

/// The classes, classifier and scheduler of one port.
pub struct Classful {
    classes: Vec<Class>,
    rules: Vec<Rule>,
    default: usize,
    sched: ClassScheduler,
    /// The class of the arrival being decided (`on_arrival` to `push` or `refused`).
    pending: usize,
    /// Classes emptied whose AQM has not yet been told it is idle, one bit each.
    idle_untold: u8,
}

impl Classful {
    /// The class an arriving packet belongs to.
    pub fn classify(&self, p: &Packet) -> usize {
        self.rules
            .iter()
            .find(|r| r.matches(p))
            .map_or(self.default, |r| r.class)
    }

    /// The class AQM's decision on an arrival, then the class's own limit.
    pub fn on_arrival(&mut self, p: &Packet, now: Time, rng: &mut Rng) -> Verdict {
        let k = self.classify(p);
        self.pending = k;
        let c = &mut self.classes[k];
        c.counters.arrive(p.size);
        let v = if c.passive {
            Verdict::Pass
        } else {
            c.aqm.on_arrival(&c.v, p, now, rng)
        };
        match v {
            _ if v.drops(p.ecn) => v,
            _ if c.own_limit && !c.v.has_room(p.size) => {
                if !c.passive {
                    c.aqm.on_overflow(&c.v, now);
                }
                Verdict::Drop(Reason::Overflow)
            }
            _ => v,
        }
    }

    /// The pending arrival was dropped; `port_full`: by the port's shared limit, after its
    /// class admitted it (its AQM is then told of the overflow).
    pub fn refused(&mut self, port_full: bool, now: Time) {
        let c = &mut self.classes[self.pending];
        c.counters.dropped += 1;
        if port_full && !c.passive {
            c.aqm.on_overflow(&c.v, now);
        }
    }

    /// Appends the pending arrival to its class (marked CE already if `marked`).
    pub fn push(&mut self, idx: u32, pkts: &mut PacketArena, marked: bool) {
        let k = self.pending;
        let p = pkts.get(idx);
        let (size, colour) = (p.size, p.colour as usize);
        let c = &mut self.classes[k];
        let was_empty = c.v.len_pkts == 0;
        c.v.enter(colour, size);
        c.counters.enqueued += 1;
        c.counters.marked += marked as u64;
        c.fifo.push_back(idx, pkts);
        self.idle_untold &= !(1 << k);
        if was_empty {
            self.sched.backlogged(k);
        }
    }

    /// Tells the AQM of each emptied class that it is idle, since `since`.
    fn tell_idle(&mut self, since: Time) {
        while self.idle_untold != 0 {
            let k = self.idle_untold.trailing_zeros() as usize;
            self.idle_untold &= !(1 << k);
            let c = &mut self.classes[k];
            if !c.passive {
                c.aqm.on_idle(since);
            }
        }
    }

    /// The port went idle at `since`.
    pub fn on_idle(&mut self, since: Time) {
        self.tell_idle(since);
    }

    /// The next head the scheduler chooses and its class AQM's verdict on it.
    pub fn next(
        &mut self,
        pkts: &mut PacketArena,
        now: Time,
        rng: &mut Rng,
    ) -> Option<(u32, Verdict, usize)> {
        self.tell_idle(now);
        let classes = &self.classes;
        let head = |k: usize| classes[k].fifo.front().map_or(0, |i| pkts.get(i).size);
        let k = self.sched.next(head)?;
        let c = &mut self.classes[k];
        let Some(idx) = c.fifo.pop_front(pkts) else {
            unreachable!("the scheduler chose a backlogged class")
        };
        let p = pkts.get(idx);
        c.v.leave(p.colour as usize, p.size);
        let v = if c.passive {
            Verdict::Pass
        } else {
            c.aqm.on_departure(&c.v, p, now, rng)
        };
        let emptied = c.v.len_pkts == 0;
        if v.drops(p.ecn) {
            c.counters.dropped += 1;
            self.sched.refund(k, p.size);
        } else {
            c.counters.depart(p, now, v.marks(p.ecn));
        }
        self.sched.sent(k, emptied);
        if emptied {
            self.idle_untold |= 1 << k;
        }
        Some((idx, v, k))
    }

    pub fn first_timer(&mut self, now: Time) -> Option<Time> {
        for c in &mut self.classes {
            c.timer = c.aqm.first_timer(now);
        }
        self.classes.iter().filter_map(|c| c.timer).min()
    }

    /// Runs every class timer that is due; returns the earliest one left.
    pub fn on_timer(&mut self, now: Time) -> Option<Time> {
        for c in &mut self.classes {
            if c.timer.is_some_and(|t| t <= now) {
                c.timer = c.aqm.on_timer(&c.v, now);
            }
        }
        self.classes.iter().filter_map(|c| c.timer).min()
    }

    pub fn metric_names(&self) -> &'static [&'static str] {
        &CLASS_METRICS[..self.classes.len()]
    }

    pub fn metrics(&self, out: &mut [f64]) {
        for (o, c) in out.iter_mut().zip(&self.classes) {
            *o = c.v.len_pkts as f64;
        }
    }

    pub fn restart_measurement(&mut self) {
        for c in &mut self.classes {
            c.counters = SubCounters::default();
        }
    }

    /// One row per class (`super::subqueue_table`), then the class AQMs' own tables.
    pub fn tables(&self) -> Vec<Table> {
        let rows: Vec<(&str, &str, &SubCounters)> = self
            .classes
            .iter()
            .map(|c| (c.name.as_str(), c.aqm.kind(), &c.counters))
            .collect();
        let mut out = vec![subqueue_table(&rows)];
        out.extend(self.classes.iter().flat_map(|c| c.aqm.tables()));
        out
    }

    pub fn waiting<'a>(&'a self, pkts: &'a PacketArena) -> impl Iterator<Item = u32> + 'a {
        self.classes.iter().flat_map(move |c| c.fifo.iter(pkts))
    }
}

#[cfg(test)]
#[path = "classful_tests.rs"]
mod tests;
