//! FQ-CoDel, "The Flow Queue CoDel Packet Scheduler and Active Queue Management Algorithm"
//! (Hoeiland-Joergensen, McKenney, Taht, Gettys, Dumazet, RFC 8290, 2018; Linux
//! `net/sched/sch_fq_codel.c`).
//!
//! Packets are hashed by flow into `flows` (1024) sub-queues, each with its own CoDel state
//! (`codel::CodelState`), served by deficit round robin with a byte `quantum` (1514):
//! - A flow that becomes backlogged while not scheduled joins the **new** list with a full
//!   quantum: sparse flows (a DNS query, a TCP handshake, a VoIP stream) are served before
//!   the bulk flows, which is what makes FQ-CoDel's latency for them near zero (RFC 8290
//!   §4.1, "sparse flow optimisation").
//! - The scheduler takes the head of the new list, else of the old list. A flow whose
//!   deficit is exhausted gets another quantum and goes to the tail of the old list. Otherwise
//!   its CoDel dequeues one packet (dropping at the head as CoDel decides) and the packet's
//!   size is taken from the deficit: over each round every backlogged flow sends one
//!   quantum of bytes, whatever its packet sizes (DRR, Shreedhar & Varghese 1996).
//! - A flow found empty leaves the scheduler, except that an emptied *new* flow goes to the
//!   old list when the old list is not empty, so that a flow cannot stay "new" for ever by
//!   sending one packet per round and starve the old flows (RFC 8290 §4.2).
//! - The buffer limit is shared. When an arrival takes the buffer over its limit, packets
//!   are dropped from the **head of the fattest flow** (largest byte backlog): up to
//!   `drop_batch` (64) packets, stopping once half of that flow's backlog is gone, as Linux
//!   `fq_codel_drop` (one linear search over the flows per batch instead of per packet).
//!   The fat flow's CoDel count grows by the number dropped (Linux: "tell codel to
//!   increase its signal strength"). With a byte limit, batches repeat until the buffer
//!   fits. These drops count as `Reason::Overflow` drops after enqueue.
//!
//! The flow hash mixes `Packet.flow` with a salt drawn once from the port's random stream
//! (Linux's per-qdisc `perturbation`), so which flows collide differs between runs and
//! seeds but is reproducible for one (seed, run).
//!
//! CoDel in each flow sees the *total* backlog for its one-MTU rule, as Linux passes the
//! qdisc's backlog to `codel_dequeue`.
//!
//! L4S: `ce_threshold` with `ce_threshold_ecn = "ect1"`
//! step-marks only ECT(1) packets, Linux's `ce_threshold 1ms ce_threshold_selector 0x1/0x3`
//! (see `codel` for the selector's model); classic flows keep CoDel's 5 ms target.

use crate::aqm::codel::{
    default_codel_interval, default_codel_target, CeThresholdEcn, CodelConfig, CodelSpec,
    CodelState,
};
use crate::aqm::{QueueCtx, Verdict};
use crate::check::{default_mtu, default_true, Problems};
use crate::packet::{Packet, PacketArena};
use crate::rng::Rng;
use crate::units::Time;
use crate::units::{Bytes, Duration};
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

#[derive(Clone, Debug, PartialEq)]
pub struct FqCodelConfig {
    /// Number of sub-queues.
    pub flows: u32,
    /// DRR quantum in bytes.
    pub quantum: u32,
    /// Most packets dropped from the fattest flow per overflow.
    pub drop_batch: u32,
    pub codel: CodelConfig,
}

impl Default for FqCodelConfig {
    fn default() -> Self {
        FqCodelConfig {
            flows: 1024,
            quantum: 1514,
            drop_batch: 64,
            codel: CodelConfig {
                ecn: true,
                ..CodelConfig::default()
            },
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum List {
    Idle,
    New,
    Old,
}

#[derive(Clone, Debug)]
struct Flow {
    q: VecDeque<u32>,
    backlog: u64,
    deficit: i64,
    codel: CodelState,
    list: List,
}

pub const FQ_CODEL_METRICS: &[&str] = &["active_flows", "new_flows", "old_flows"];

/// The per-flow buffers and the scheduler of one FQ-CoDel port.
#[derive(Clone, Debug)]
pub struct FqCodel {
    pub cfg: FqCodelConfig,
    salt: u64,
    flows: Vec<Flow>,
    new: VecDeque<u32>,
    old: VecDeque<u32>,
    len_pkts: u32,
    len_bytes: u64,
    /// Flows with packets waiting.
    active: u32,
    /// The flow whose CoDel dropped the last packet: its loop continues with its next head.
    current: Option<u32>,
}

fn mix(mut z: u64) -> u64 {
    // splitmix64's finaliser: every input bit affects every output bit.
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

impl FqCodel {
    pub fn new(cfg: FqCodelConfig, salt: u64) -> FqCodel {
        let flows = (0..cfg.flows)
            .map(|_| Flow {
                q: VecDeque::new(),
                backlog: 0,
                deficit: 0,
                codel: CodelState::default(),
                list: List::Idle,
            })
            .collect();
        FqCodel {
            cfg,
            salt,
            flows,
            new: VecDeque::new(),
            old: VecDeque::new(),
            len_pkts: 0,
            len_bytes: 0,
            active: 0,
            current: None,
        }
    }

    /// The sub-queue of a flow id (multiply-shift reduction of the salted hash, as Linux's
    /// `reciprocal_scale`).
    #[inline]
    pub fn classify(&self, flow: u32) -> u32 {
        let h = mix(flow as u64 ^ self.salt) >> 32;
        ((h * self.cfg.flows as u64) >> 32) as u32
    }

    #[inline]
    pub fn len_pkts(&self) -> u32 {
        self.len_pkts
    }

    /// Appends a packet to its flow; a flow not scheduled joins the new list.
    pub fn push(&mut self, idx: u32, pkt: &Packet) {
        let f = self.classify(pkt.flow);
        let quantum = self.cfg.quantum as i64;
        let fl = &mut self.flows[f as usize];
        if fl.q.is_empty() {
            self.active += 1;
        }
        fl.q.push_back(idx);
        fl.backlog += pkt.size as u64;
        if fl.list == List::Idle {
            fl.list = List::New;
            fl.deficit = quantum;
            self.new.push_back(f);
        }
        self.len_pkts += 1;
        self.len_bytes += pkt.size as u64;
    }

    /// Drops up to `drop_batch` packets from the head of the fattest flow, stopping once
    /// half of its backlog is gone; pushes them on `out`. Returns the bytes dropped.
    pub fn drop_from_fattest(&mut self, pkts: &PacketArena, out: &mut Vec<u32>) -> u64 {
        // First maximum in index order: deterministic ties.
        let mut fat = 0;
        for (i, f) in self.flows.iter().enumerate() {
            if f.backlog > self.flows[fat].backlog {
                fat = i;
            }
        }
        let fl = &mut self.flows[fat];
        let threshold = fl.backlog / 2;
        let (mut bytes, mut n) = (0u64, 0u32);
        while let Some(idx) = fl.q.pop_front() {
            let size = pkts.get(idx).size as u64;
            bytes += size;
            n += 1;
            out.push(idx);
            if n >= self.cfg.drop_batch || bytes >= threshold {
                break;
            }
        }
        fl.backlog -= bytes;
        fl.codel.count = fl.codel.count.saturating_add(n);
        if fl.q.is_empty() && n > 0 {
            self.active -= 1;
        }
        self.len_pkts -= n;
        self.len_bytes -= bytes;
        bytes
    }

    /// Takes the flow at the front of its list out of the scheduler (it was found empty).
    fn retire(&mut self, f: u32) {
        let fl = &mut self.flows[f as usize];
        fl.codel.on_empty();
        match fl.list {
            List::New => {
                self.new.pop_front();
                if self.old.is_empty() {
                    fl.list = List::Idle;
                } else {
                    fl.list = List::Old;
                    self.old.push_back(f);
                }
            }
            List::Old => {
                self.old.pop_front();
                fl.list = List::Idle;
            }
            List::Idle => unreachable!("a scheduled flow is on a list"),
        }
    }

    /// The next packet removed from the buffer and CoDel's verdict on it; after a `Drop`,
    /// the next call continues with the same flow. None when every flow is empty.
    pub fn next(&mut self, pkts: &PacketArena, now: Time) -> Option<(u32, Verdict)> {
        loop {
            let f = match self.current.take() {
                Some(f) => f,
                None => {
                    let f = *self.new.front().or_else(|| self.old.front())?;
                    let fl = &mut self.flows[f as usize];
                    if fl.deficit <= 0 {
                        fl.deficit += self.cfg.quantum as i64;
                        match fl.list {
                            List::New => self.new.pop_front(),
                            _ => self.old.pop_front(),
                        };
                        fl.list = List::Old;
                        self.old.push_back(f);
                        continue;
                    }
                    f
                }
            };
            let fl = &mut self.flows[f as usize];
            let Some(idx) = fl.q.pop_front() else {
                self.retire(f);
                continue;
            };
            let pkt = pkts.get(idx);
            let size = pkt.size as u64;
            fl.backlog -= size;
            if fl.q.is_empty() {
                self.active -= 1;
            }
            self.len_pkts -= 1;
            self.len_bytes -= size;
            let v = fl
                .codel
                .on_dequeue(&self.cfg.codel, pkt, self.len_bytes, now);
            match v {
                Verdict::Drop(_) => self.current = Some(f),
                // CodelState marks only ECN-capable packets, so a mark is a send.
                Verdict::Mark(_) | Verdict::Pass => fl.deficit -= size as i64,
            }
            return Some((idx, v));
        }
    }

    /// Packet indices waiting, flow by flow.
    pub fn waiting(&self) -> impl Iterator<Item = &u32> {
        self.flows.iter().flat_map(|f| f.q.iter())
    }

    /// active_flows (with packets), new_flows, old_flows (list lengths).
    pub fn metrics(&self, out: &mut [f64]) {
        out[0] = self.active as f64;
        out[1] = self.new.len() as f64;
        out[2] = self.old.len() as f64;
    }

    /// Bytes waiting in the sub-queue of a flow id (tests, diagnostics).
    pub fn flow_backlog(&self, flow: u32) -> u64 {
        self.flows[self.classify(flow) as usize].backlog
    }
}

// ---------------------------------------------------------------------------------------
// Spec: the scenario's fields, defaults and checks
// ---------------------------------------------------------------------------------------

/// FQ-CoDel parameters (docs/aqm/fq_codel.md; RFC 8290 and Linux defaults). The queue's
/// limit is shared by all flows.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FqCodelSpec {
    #[serde(default = "default_fq_flows")]
    pub flows: u32,
    #[serde(default = "default_mtu")]
    pub quantum: Bytes,
    #[serde(default = "default_drop_batch")]
    pub drop_batch: u32,
    #[serde(default = "default_codel_target")]
    pub target: Duration,
    #[serde(default = "default_codel_interval")]
    pub interval: Duration,
    #[serde(default = "default_mtu")]
    pub mtu: Bytes,
    #[serde(default = "default_true")]
    pub ecn: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ce_threshold: Option<Duration>,
    /// Which codepoints `ce_threshold` marks, as CoDel's (Linux `ce_threshold_selector`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ce_threshold_ecn: Option<CeThresholdEcn>,
}

impl FqCodelSpec {
    /// The CoDel of each flow: validated and built as CoDel's fields.
    pub fn codel(&self) -> CodelSpec {
        CodelSpec {
            target: self.target,
            interval: self.interval,
            mtu: self.mtu,
            ecn: self.ecn,
            ce_threshold: self.ce_threshold,
            ce_threshold_ecn: self.ce_threshold_ecn,
        }
    }

    pub fn validate(&self, a: &str, q: &QueueCtx, p: &mut Problems) {
        if !(1..=65_536).contains(&self.flows) {
            p.err(format!("{a}.flows"), self.flows, "must be in [1, 65536]");
        }
        if self.quantum.0 == 0 || self.quantum.0 > 1 << 20 {
            p.err(
                format!("{a}.quantum"),
                self.quantum.0,
                "must be in [1, 1048576] bytes",
            );
        }
        if !(1..=65_535).contains(&self.drop_batch) {
            p.err(
                format!("{a}.drop_batch"),
                self.drop_batch,
                "must be in [1, 65535] packets",
            );
        }
        self.codel().validate(a, q, p);
    }

    /// The per-run hash salt is the first draw from the port's own stream.
    pub fn build(&self, _q: &QueueCtx, rng: &mut Rng) -> FqCodel {
        let cfg = FqCodelConfig {
            flows: self.flows,
            quantum: self.quantum.0 as u32,
            drop_batch: self.drop_batch,
            codel: self.codel().config(),
        };
        FqCodel::new(cfg, rng.next_u64())
    }
}

fn default_fq_flows() -> u32 {
    1024
}

fn default_drop_batch() -> u32 {
    64
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::aqm::Reason;
    use crate::packet::Ecn;
    use crate::queue::{Limit, OutputQueue};
    use crate::rng::Rng;

    fn queue(limit: Limit, cfg: FqCodelConfig) -> OutputQueue {
        let mut rng = Rng::for_component(1, 0, "fq");
        let salt = rng.next_u64();
        OutputQueue::with_flows(limit, 10_000_000, FqCodel::new(cfg, salt), rng)
    }

    fn send(q: &mut OutputQueue, a: &mut PacketArena, flow: u32, size: u32, t: Time) -> u32 {
        let i = a.alloc(Packet {
            flow,
            size,
            ecn: Ecn::NotEct,
            ..Default::default()
        });
        q.arrive(i, a, t);
        i
    }

    fn fq(q: &OutputQueue) -> &FqCodel {
        q.flows().expect("an FQ-CoDel queue")
    }

    /// Two flow ids that hash to different sub-queues.
    fn two_flows(q: &OutputQueue) -> (u32, u32) {
        let f = fq(q);
        let b = (1..).find(|&b| f.classify(b) != f.classify(0)).unwrap();
        (0, b)
    }

    #[test]
    fn drr_shares_bytes_fairly_between_flows_of_different_packet_sizes() {
        for limit in [Limit::Packets(100_000), Limit::Bytes(100_000_000)] {
            let mut a = PacketArena::default();
            let mut q = queue(limit, FqCodelConfig::default());
            let (x, y) = two_flows(&q);
            for _ in 0..3000 {
                send(&mut q, &mut a, x, 1500, 0);
            }
            for _ in 0..9000 {
                send(&mut q, &mut a, y, 500, 0);
            }
            // Sojourn 0 (dequeued at time 0): CoDel never acts; only DRR shares.
            let mut sent = [0u64; 2];
            for k in 1..=4000 {
                let i = q.dequeue(&mut a, 0, &mut vec![]).unwrap();
                let p = a.get(i);
                sent[(p.flow == y) as usize] += p.size as u64;
                if k % 100 == 0 {
                    // Both backlogged: bytes sent differ by at most one quantum + one packet.
                    let gap = sent[0].abs_diff(sent[1]);
                    assert!(gap <= 1514 + 1500, "{limit:?} after {k}: {sent:?}");
                }
            }
            q.check_conservation(&a).unwrap();
        }
    }

    #[test]
    fn a_new_flow_is_served_before_the_backlogged_old_flows() {
        for limit in [Limit::Packets(1000), Limit::Bytes(1_000_000)] {
            let mut a = PacketArena::default();
            let mut q = queue(limit, FqCodelConfig::default());
            let (x, y) = two_flows(&q);
            for _ in 0..100 {
                send(&mut q, &mut a, x, 1500, 0);
            }
            // x spends its first quantum (one 1500 B packet leaves 14 B), then moves to old.
            for _ in 0..3 {
                let i = q.dequeue(&mut a, 0, &mut vec![]).unwrap();
                assert_eq!(a.get(i).flow, x);
            }
            assert_eq!(fq(&q).new.len(), 0);
            let j = send(&mut q, &mut a, y, 100, 0);
            assert_eq!(fq(&q).new.len(), 1);
            // The sparse packet goes next, ahead of 97 waiting packets of x.
            assert_eq!(q.dequeue(&mut a, 0, &mut vec![]), Some(j));
            q.check_conservation(&a).unwrap();
        }
    }

    #[test]
    fn overflow_drops_half_of_the_fattest_flow_from_its_head() {
        let mut a = PacketArena::default();
        let mut q = queue(Limit::Packets(10), FqCodelConfig::default());
        let (x, y) = two_flows(&q);
        let xs: Vec<u32> = (0..8).map(|_| send(&mut q, &mut a, x, 1500, 0)).collect();
        send(&mut q, &mut a, y, 1500, 0);
        send(&mut q, &mut a, y, 1500, 0);
        // The 11th packet (of y) is enqueued, then half of x's 12 000 B go: 4 packets, from
        // the head; y keeps all three.
        let adm = send(&mut q, &mut a, y, 1500, 0);
        assert_eq!(q.len_pkts(), 7);
        assert_eq!(q.evicted, xs[..4].to_vec());
        assert_eq!(fq(&q).flow_backlog(x), 4 * 1500);
        assert_eq!(fq(&q).flow_backlog(y), 3 * 1500);
        assert_eq!(q.counters.dropped[Reason::Overflow as usize], 4);
        assert_eq!(q.counters.dropped_after_enqueue, 4);
        assert_eq!(q.counters.enqueued, 11);
        assert!(a.get(adm).flow == y);
        q.check_conservation(&a).unwrap();
    }

    /// Packets dropped from inside the buffer leave their own precedence's backlog.
    #[test]
    fn overflow_from_the_fattest_flow_charges_its_colours() {
        use crate::aqm::Backlog;
        use crate::packet::Colour;
        let mut a = PacketArena::default();
        let mut q = queue(Limit::Packets(10), FqCodelConfig::default());
        let (x, y) = two_flows(&q);
        // x: 8 packets alternating yellow and red; y: 3 green.
        for k in 0..8 {
            let colour = if k % 2 == 0 {
                Colour::Yellow
            } else {
                Colour::Red
            };
            let i = a.alloc(Packet {
                flow: x,
                size: 1500,
                colour,
                ..Default::default()
            });
            q.arrive(i, &mut a, 0);
        }
        for _ in 0..3 {
            send(&mut q, &mut a, y, 1500, 0);
        }
        // Four of x go from its head: two yellow, two red.
        let b = |pkts: u32| Backlog {
            pkts,
            bytes: pkts as u64 * 1500,
        };
        assert_eq!(q.view().by_colour(), [b(3), b(2), b(2)]);
        let k = &q.counters.by_colour();
        assert_eq!(k[1].dropped[Reason::Overflow as usize], 2);
        assert_eq!(k[2].dropped[Reason::Overflow as usize], 2);
        assert_eq!(k[2].dropped_after_enqueue, 2);
        assert_eq!(k[0].dropped, [0; crate::aqm::NUM_REASONS]);
        q.check_conservation(&a).unwrap();
    }

    #[test]
    fn byte_limit_overflow_drops_until_the_buffer_fits_and_never_exceeds_it() {
        let mut a = PacketArena::default();
        let cfg = FqCodelConfig {
            drop_batch: 1,
            ..FqCodelConfig::default()
        };
        let mut q = queue(Limit::Bytes(10_000), cfg);
        let (x, y) = two_flows(&q);
        for _ in 0..6 {
            send(&mut q, &mut a, x, 1500, 0);
        }
        // 9000 B waiting; a 4000 B packet of y needs three 1500 B drops from x with a
        // batch of one: 13 000 → 11 500 → 10 000.
        send(&mut q, &mut a, y, 4000, 0);
        assert_eq!(q.len_bytes(), 10_000);
        assert_eq!(q.evicted.len(), 2);
        assert_eq!(fq(&q).flow_backlog(x), 6000);
        q.check_conservation(&a).unwrap();
    }

    #[test]
    fn ce_threshold_ecn_ect1_step_marks_the_ect1_flow_only() {
        // Flow x sends ECT(0), flow y ECT(1), two 1500 B packets each at t = 0; all four
        // leave at 2 ms: sojourn 2 ms > ce_threshold = 1 ms but < target = 5 ms, so CoDel's
        // law never acts and every mark is the step's. "ect1": y's two packets leave CE and
        // x's stay ECT(0) (2 marks); the default "ect": all four CE (4 marks).
        for (sel, marks) in [(CeThresholdEcn::Ect1, 2u64), (CeThresholdEcn::Ect, 4)] {
            for limit in [Limit::Packets(100), Limit::Bytes(100_000)] {
                let mut cfg = FqCodelConfig::default();
                cfg.codel.ce_threshold = Some(1_000_000);
                cfg.codel.ce_threshold_ecn = sel;
                let mut a = PacketArena::default();
                let mut q = queue(limit, cfg);
                let (x, y) = two_flows(&q);
                for (flow, ecn) in [
                    (x, Ecn::Ect0),
                    (y, Ecn::Ect1),
                    (x, Ecn::Ect0),
                    (y, Ecn::Ect1),
                ] {
                    let i = a.alloc(Packet {
                        flow,
                        size: 1500,
                        ecn,
                        ..Default::default()
                    });
                    q.arrive(i, &mut a, 0);
                }
                let mut out = vec![];
                while let Some(i) = q.dequeue(&mut a, 2_000_000, &mut vec![]) {
                    out.push((a.get(i).flow, a.get(i).ecn));
                }
                assert_eq!(out.len(), 4);
                for (flow, ecn) in out {
                    let want = match (flow == y, sel) {
                        (true, _) | (false, CeThresholdEcn::Ect) => Ecn::Ce,
                        (false, CeThresholdEcn::Ect1) => Ecn::Ect0,
                    };
                    assert_eq!(ecn, want, "{sel:?} {limit:?} flow {flow}");
                }
                assert_eq!(q.counters.marked[Reason::Early as usize], marks);
                assert_eq!(q.counters.marked[Reason::Dequeue as usize], 0);
                q.check_conservation(&a).unwrap();
            }
        }
    }

    #[test]
    fn the_spec_hands_ce_threshold_ecn_to_every_flows_codel() {
        let spec: FqCodelSpec =
            toml::from_str("ce_threshold = \"1ms\"\nce_threshold_ecn = \"ect1\"").unwrap();
        let c = spec.codel().config();
        assert_eq!(c.ce_threshold, Some(1_000_000));
        assert_eq!(c.ce_threshold_ecn, CeThresholdEcn::Ect1);
        let plain: FqCodelSpec = toml::from_str("").unwrap();
        assert_eq!(plain.codel().config().ce_threshold_ecn, CeThresholdEcn::Ect);
    }

    #[test]
    fn each_flow_runs_its_own_codel() {
        let mut a = PacketArena::default();
        let mut q = queue(Limit::Packets(100_000), FqCodelConfig::default());
        let (x, y) = two_flows(&q);
        // x: a standing queue of old packets; y: one fresh packet per dequeue round.
        for _ in 0..20_000 {
            send(&mut q, &mut a, x, 1500, 0);
        }
        let ms = 1_000_000;
        let mut dropped = vec![];
        let mut t = 0;
        while t < 500 * ms {
            t += ms;
            send(&mut q, &mut a, y, 100, t);
            q.dequeue(&mut a, t, &mut dropped);
            q.dequeue(&mut a, t, &mut dropped);
        }
        assert!(!dropped.is_empty());
        assert!(dropped.iter().all(|&i| a.get(i).flow == x));
        q.check_conservation(&a).unwrap();
    }
}
