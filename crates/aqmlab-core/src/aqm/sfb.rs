//! Stochastic Fair Blue (Feng, Kandlur, Saha, Shin, "Stochastic Fair Blue: A Queue
//! Management Algorithm for Enforcing Fairness", INFOCOM 2001; ToN 2002 §4), with the
//! behaviour of Linux `net/sched/sch_sfb.c` (docs/aqm/sfb.md).
//!
//! L levels of N bins. A flow hashes (independent hash per level, salted) to one bin per
//! level; each bin b keeps qlen_b, the packets (or bytes) of its flows in the buffer, and a
//! BLUE probability p_b. On each arrival, per level:
//!   qlen_b = 0 → p_b ← p_b − δ2;   qlen_b ≥ bin_size → p_b ← p_b + δ1   (p_b kept in [0, 1]).
//! The flow's probability is p_min = min over its L bins: a responsive flow shares at least
//! one bin with only responsive flows, so only a flow whose every bin is overloaded —
//! with high probability the flow itself — sees a high p_min. Then:
//!   min qlen_b ≥ max → drop (the flow's share of the buffer is full);
//!   p_min = 1 → the flow is non-responsive: it is rate-limited by the penalty token bucket
//!     (penalty_rate packets/s, penalty_burst packets) instead of being marked;
//!   else mark with probability p_min; above p_min = 1/2 a part 2(p_min − 1/2) of arrivals
//!     is dropped even if ECN-capable (Linux: "either unresponsive or badly congested").
//! Linux has no freeze time: the bins move per packet (δ1 = 1/1000, δ2 = 1/6000 per
//! arrival), which is why its steps are small.
//!
//! Moving hash functions (paper §4.4, Linux): every `rehash_interval` the hash salt changes
//! so flows colliding with a non-responsive one are not punished forever. For the last
//! `warmup_time` before a change, a second set of bins with the next salt is warmed up: as
//! in the paper and Linux, only packets of flows found non-responsive are hashed into it, so
//! the penalty box survives the change. Choice: a set of bins that gets a new salt also has
//! its p_b reset to 0 (Linux keeps the previous epoch's p_b, which then belongs to
//! unrelated flows); its qlen_b are kept, because they count packets still queued.
//!
//! Accounting is exact: a packet is counted in the bins it was hashed to when it is
//! accepted, and the same bins are decremented when it departs, whatever the salt is by
//! then. The hashes of queued packets are kept in a FIFO beside the buffer (Linux keeps
//! them in the packet's control block). If the buffer overflows on an accepted arrival
//! (`on_overflow`, right after that arrival) the count is undone. As in Linux, an arrival
//! that finds the buffer full is dropped before touching the bins.
//!
//! Choices: the penalty bucket is a continuous token bucket (Linux refills only when empty
//! and from the time of the last refill attempt, so a flow arriving faster than
//! penalty_rate passes nothing after its first burst). Byte mode counts bins in bytes,
//! bin_size and max in units of mean_pktsize; probabilities are not scaled by size.
//! Drops by `max` and by the penalty bucket are `Reason::Forced`, by p_min `Reason::Early`.

use super::QueueCtx;
use super::{Aqm, QueueView, Reason, Verdict};
use crate::aqm::Limit;
use crate::check::{Problems, MAX_PPS};
use crate::packet::{Ecn, Packet};
use crate::rng::Rng;
use crate::table::Table;
use crate::units::Duration;
use crate::units::{Time, NS_PER_SEC};
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

#[derive(Clone, Debug)]
pub struct SfbConfig {
    pub levels: usize,
    pub bins: usize,
    /// Per-bin queue (packets, × mean_pktsize in byte mode) above which p_b rises.
    pub bin_size: u32,
    /// Per-flow (minimum bin) queue at which arrivals are dropped.
    pub max: u32,
    /// δ1 and δ2, per arrival.
    pub increment: f64,
    pub decrement: f64,
    /// Packets per second and packets.
    pub penalty_rate: f64,
    pub penalty_burst: u32,
    /// 0 disables rehashing.
    pub rehash_interval: Time,
    pub warmup_time: Time,
    pub byte_mode: bool,
    pub mean_pktsize: u32,
    pub ecn: bool,
}

#[derive(Clone, Copy, Debug, Default)]
struct Bin {
    qlen: u64,
    p: f64,
}

#[derive(Clone, Debug)]
struct BinSet {
    salt: u64,
    bins: Vec<Bin>,
}

/// The bins one queued packet was counted in: its hash per set (0 = not counted there).
#[derive(Clone, Copy, Debug)]
struct Entry {
    /// The packet's flow and sequence number: what the departure's check compares.
    flow: u32,
    seq: u64,
    hash: [u64; 2],
    amount: u64,
}

#[derive(Clone, Debug)]
pub struct Sfb {
    cfg: SfbConfig,
    sets: [BinSet; 2],
    /// The set used for decisions; the other one warms up while `double_buffering`.
    cur: usize,
    double_buffering: bool,
    rehash_time: Time,
    salted: bool,
    queued: VecDeque<Entry>,
    /// The last arrival was counted in the bins (undone by an overflow).
    last_counted: bool,
    bin_size: u64,
    max: u64,
    tokens: f64,
    token_time: Time,
    /// Arrivals with p_min = 1, and drops by the penalty bucket and by `max`.
    pub penalised: u64,
    pub penalty_drops: u64,
    pub bucket_drops: u64,
    /// Hash changes so far.
    pub rehashes: u64,
}

/// The splitmix64 finaliser: a bijective 64-bit mixer.
fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

impl Sfb {
    pub fn new(cfg: SfbConfig) -> Sfb {
        let n = cfg.levels * cfg.bins;
        let unit = if cfg.byte_mode {
            cfg.mean_pktsize as u64
        } else {
            1
        };
        let set = BinSet {
            salt: 0,
            bins: vec![Bin::default(); n],
        };
        Sfb {
            sets: [set.clone(), set],
            cur: 0,
            double_buffering: false,
            rehash_time: 0,
            salted: false,
            queued: VecDeque::new(),
            last_counted: false,
            bin_size: cfg.bin_size as u64 * unit,
            max: cfg.max as u64 * unit,
            tokens: cfg.penalty_burst as f64,
            token_time: 0,
            penalised: 0,
            penalty_drops: 0,
            bucket_drops: 0,
            rehashes: 0,
            cfg,
        }
    }

    /// A non-zero hash of `flow` under set `s`'s salt.
    fn hash(&self, s: usize, flow: u32) -> u64 {
        mix(flow as u64 ^ self.sets[s].salt).max(1)
    }

    /// Index in `bins` of level `l`'s bin for `hash`.
    fn bin_index(&self, hash: u64, l: usize) -> usize {
        let h = mix(hash ^ (l as u64 + 1).wrapping_mul(0xD6E8_FEB8_6659_FD93));
        l * self.cfg.bins + (h % self.cfg.bins as u64) as usize
    }

    /// BLUE's step for each of the flow's bins in set `s`; returns (min qlen, min p).
    fn update_bins(&mut self, s: usize, hash: u64) -> (u64, f64) {
        let (mut q_min, mut p_min) = (u64::MAX, f64::INFINITY);
        for l in 0..self.cfg.levels {
            let i = self.bin_index(hash, l);
            let (inc, dec, bin_size) = (self.cfg.increment, self.cfg.decrement, self.bin_size);
            let b = &mut self.sets[s].bins[i];
            if b.qlen == 0 {
                b.p = (b.p - dec).max(0.0);
            } else if b.qlen >= bin_size {
                b.p = (b.p + inc).min(1.0);
            }
            q_min = q_min.min(b.qlen);
            p_min = p_min.min(b.p);
        }
        (q_min, p_min)
    }

    fn count(&mut self, e: &Entry, up: bool) {
        for s in 0..2 {
            if e.hash[s] == 0 {
                continue;
            }
            for l in 0..self.cfg.levels {
                let i = self.bin_index(e.hash[s], l);
                let b = &mut self.sets[s].bins[i];
                if up {
                    b.qlen += e.amount;
                } else {
                    debug_assert!(b.qlen >= e.amount, "bin count below its packets");
                    b.qlen -= e.amount;
                }
            }
        }
    }

    /// Takes a token of the penalty bucket if there is one.
    fn penalty_pass(&mut self, now: Time) -> bool {
        let dt = now.saturating_sub(self.token_time) as f64 / NS_PER_SEC as f64;
        self.tokens = (self.tokens + dt * self.cfg.penalty_rate).min(self.cfg.penalty_burst as f64);
        self.token_time = now;
        if self.tokens >= 1.0 {
            self.tokens -= 1.0;
            true
        } else {
            false
        }
    }

    /// A new salt for set `s`, and p_b = 0 there (the bins now belong to other flows).
    fn resalt(&mut self, s: usize, rng: &mut Rng) {
        self.sets[s].salt = rng.next_u64();
        for b in &mut self.sets[s].bins {
            b.p = 0.0;
        }
    }

    fn rehash(&mut self, now: Time, rng: &mut Rng) {
        if self.cfg.rehash_interval == 0 {
            return;
        }
        let at = self.rehash_time + self.cfg.rehash_interval;
        if now > at {
            self.resalt(self.cur, rng);
            self.cur ^= 1;
            self.double_buffering = false;
            self.rehash_time = now;
            self.rehashes += 1;
        } else if !self.double_buffering
            && self.cfg.warmup_time > 0
            && now > at - self.cfg.warmup_time
        {
            self.double_buffering = true;
        }
    }

    /// The flow's probability in the decision set (min over its bins), for tests and traces.
    pub fn flow_p(&self, flow: u32) -> f64 {
        let h = self.hash(self.cur, flow);
        (0..self.cfg.levels)
            .map(|l| self.sets[self.cur].bins[self.bin_index(h, l)].p)
            .fold(f64::INFINITY, f64::min)
    }

    /// Sum of qlen over level `l` of set `s` (each queued packet counted there is in
    /// exactly one bin per level).
    #[cfg(test)]
    fn level_total(&self, s: usize, l: usize) -> u64 {
        let n = self.cfg.bins;
        self.sets[s].bins[l * n..(l + 1) * n]
            .iter()
            .map(|b| b.qlen)
            .sum()
    }
}

impl Aqm for Sfb {
    fn on_arrival(&mut self, q: &QueueView, pkt: &Packet, now: Time, rng: &mut Rng) -> Verdict {
        self.last_counted = false;
        if !self.salted {
            // Drawn lazily from the port's stream: deterministic per (seed, run, port).
            self.sets[0].salt = rng.next_u64();
            self.sets[1].salt = rng.next_u64();
            self.salted = true;
        }
        let room = match q.limit {
            Limit::Packets(l) => q.len_pkts < l,
            Limit::Bytes(l) => q.len_bytes + pkt.size as u64 <= l,
        };
        if !room {
            return Verdict::Pass; // the queue drops it for overflow
        }
        self.rehash(now, rng);
        let cur = self.cur;
        let mut hash = [0u64; 2];
        hash[cur] = self.hash(cur, pkt.flow);
        let (q_min, p_min) = self.update_bins(cur, hash[cur]);
        if q_min >= self.max {
            self.bucket_drops += 1;
            return Verdict::Drop(Reason::Forced);
        }
        let mut verdict = Verdict::Pass;
        if p_min >= 1.0 {
            self.penalised += 1;
            if self.double_buffering {
                let other = cur ^ 1;
                hash[other] = self.hash(other, pkt.flow);
                self.update_bins(other, hash[other]);
            }
            if !self.penalty_pass(now) {
                self.penalty_drops += 1;
                return Verdict::Drop(Reason::Forced);
            }
        } else {
            let r = rng.uniform();
            if r < p_min {
                if p_min > 0.5 && r < 2.0 * (p_min - 0.5) {
                    return Verdict::Drop(Reason::Early);
                }
                if !self.cfg.ecn || pkt.ecn == Ecn::NotEct {
                    return Verdict::Drop(Reason::Early);
                }
                // A CE packet passes unchanged (the queue leaves it alone).
                verdict = Verdict::Mark(Reason::Early);
            }
        }
        let amount = if self.cfg.byte_mode {
            pkt.size as u64
        } else {
            1
        };
        let e = Entry {
            flow: pkt.flow,
            seq: pkt.seq,
            hash,
            amount,
        };
        self.count(&e, true);
        self.queued.push_back(e);
        self.last_counted = true;
        verdict
    }

    fn on_overflow(&mut self, _q: &QueueView, _now: Time) {
        if std::mem::take(&mut self.last_counted) {
            let e = self.queued.pop_back().expect("counted arrival is queued");
            self.count(&e, false);
        }
    }

    fn on_departure(
        &mut self,
        _q: &QueueView,
        pkt: &Packet,
        _now: Time,
        _rng: &mut Rng,
    ) -> Verdict {
        self.last_counted = false;
        if let Some(e) = self.queued.pop_front() {
            debug_assert_eq!(
                (e.flow, e.seq),
                (pkt.flow, pkt.seq),
                "departures leave in arrival order"
            );
            self.count(&e, false);
        }
        Verdict::Pass
    }

    fn metric_names(&self) -> &'static [&'static str] {
        &[
            "p_min",
            "p_max",
            "p_mean",
            "max_bin_qlen",
            "penalised",
            "penalty_drops",
            "bucket_drops",
        ]
    }

    /// `sfb_bins`: the decision set's bins at the end of the run, one row per (level, bin):
    /// its marking probability `p` and its `qlen` (packets, bytes in byte mode, of the
    /// flows hashed there that are still queued). Bins whose p stayed high hold the
    /// non-responsive flows.
    fn tables(&self) -> Vec<Table> {
        let n = self.cfg.bins;
        let bins: Vec<(usize, Bin)> = self.sets[self.cur]
            .bins
            .iter()
            .copied()
            .enumerate()
            .collect();
        let mut t = Table::new("sfb_bins");
        t.column_of("level", &bins, |(i, _)| (i / n) as u64)
            .column_of("bin", &bins, |(i, _)| (i % n) as u64)
            .column_of("p", &bins, |(_, b)| b.p)
            .column_of("qlen", &bins, |(_, b)| b.qlen);
        vec![t]
    }

    fn metrics(&self, _q: &QueueView, _now: Time, out: &mut [f64]) {
        let bins = &self.sets[self.cur].bins;
        let (mut lo, mut hi, mut sum, mut qmax) = (f64::INFINITY, 0.0f64, 0.0, 0u64);
        for b in bins {
            lo = lo.min(b.p);
            hi = hi.max(b.p);
            sum += b.p;
            qmax = qmax.max(b.qlen);
        }
        out[0] = lo;
        out[1] = hi;
        out[2] = sum / bins.len() as f64;
        out[3] = qmax as f64;
        out[4] = self.penalised as f64;
        out[5] = self.penalty_drops as f64;
        out[6] = self.bucket_drops as f64;
    }
}

// ---------------------------------------------------------------------------------------
// Spec: the scenario's fields, defaults and checks
// ---------------------------------------------------------------------------------------

crate::check::packet_spec! {
defaults(
    mean_pktsize = "crate::check::default_mean_pktsize",
    ecn = "crate::check::default_true"
)
/// Stochastic Fair Blue parameters (docs/aqm/sfb.md). Defaults: Linux `sch_sfb.c`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SfbSpec {
    #[serde(default = "default_sfb_levels")]
    pub levels: u32,
    #[serde(default = "default_sfb_bins")]
    pub bins: u32,
    /// Packets (× mean_pktsize in byte mode) in a bin above which its p rises.
    #[serde(default = "default_sfb_bin_size")]
    pub bin_size: u32,
    /// Packets (× mean_pktsize in byte mode) in a flow's least loaded bin at which its
    /// arrivals are dropped.
    #[serde(default = "default_sfb_max")]
    pub max: u32,
    #[serde(default = "default_sfb_increment")]
    pub increment: f64,
    #[serde(default = "default_sfb_decrement")]
    pub decrement: f64,
    /// Packets per second admitted from flows at p = 1.
    #[serde(default = "default_sfb_penalty_rate")]
    pub penalty_rate: f64,
    #[serde(default = "default_sfb_penalty_burst")]
    pub penalty_burst: u32,
    /// "0s" disables rehashing.
    #[serde(default = "default_sfb_rehash")]
    pub rehash_interval: Duration,
    #[serde(default = "default_sfb_warmup")]
    pub warmup_time: Duration,
}
}

fn default_sfb_levels() -> u32 {
    8
}

fn default_sfb_bins() -> u32 {
    16
}

fn default_sfb_bin_size() -> u32 {
    20
}

fn default_sfb_max() -> u32 {
    25
}

fn default_sfb_increment() -> f64 {
    0.001
}

fn default_sfb_decrement() -> f64 {
    0.000167
}

fn default_sfb_penalty_rate() -> f64 {
    10.0
}

fn default_sfb_penalty_burst() -> u32 {
    20
}

fn default_sfb_rehash() -> Duration {
    Duration(600 * crate::units::NS_PER_SEC)
}

fn default_sfb_warmup() -> Duration {
    Duration(60 * crate::units::NS_PER_SEC)
}

/// Bounds on SFB's bin array (two sets of levels × bins are allocated per port).
pub const SFB_MAX_LEVELS: u32 = 32;

pub const SFB_MAX_BINS: u32 = 1024;

impl SfbSpec {
    pub fn validate(&self, a: &str, _q: &QueueCtx, p: &mut Problems) {
        if self.levels == 0 || self.levels > SFB_MAX_LEVELS {
            p.err(
                format!("{a}.levels"),
                self.levels,
                format!("must be in [1, {SFB_MAX_LEVELS}]"),
            );
        }
        if self.bins == 0 || self.bins > SFB_MAX_BINS {
            p.err(
                format!("{a}.bins"),
                self.bins,
                format!("must be in [1, {SFB_MAX_BINS}]"),
            );
        }
        if self.max == 0 {
            p.err(format!("{a}.max"), 0, "must be at least 1 (packets)");
        }
        if self.bin_size == 0 {
            p.err(format!("{a}.bin_size"), 0, "must be at least 1 (packets)");
        } else if self.bin_size > self.max {
            p.err(
                format!("{a}.bin_size"),
                self.bin_size,
                format!("must be <= max = {}", self.max),
            );
        }
        p.unit_interval(format!("{a}.increment"), self.increment);
        p.unit_interval(format!("{a}.decrement"), self.decrement);
        if !(self.penalty_rate.is_finite() && (0.0..=MAX_PPS).contains(&self.penalty_rate)) {
            p.err(
                format!("{a}.penalty_rate"),
                self.penalty_rate,
                format!("must be in [0, {MAX_PPS:e}] (packets per second)"),
            );
        }
        p.time_at_most(format!("{a}.rehash_interval"), self.rehash_interval);
        let fmt = |d: Duration| format!("\"{}\"", crate::units::format_time(d.0));
        if self.rehash_interval.0 == 0 && self.warmup_time.0 > 0 {
            p.err(
                format!("{a}.warmup_time"),
                fmt(self.warmup_time),
                "needs rehash_interval > 0 (there is no next hash to warm up); set \
                 warmup_time = \"0s\" too",
            );
        } else if self.rehash_interval.0 > 0 && self.warmup_time.0 >= self.rehash_interval.0 {
            p.err(
                format!("{a}.warmup_time"),
                fmt(self.warmup_time),
                format!("must be < rehash_interval = {}", fmt(self.rehash_interval)),
            );
        }
        p.mean_pktsize(a, self.mean_pktsize);
    }

    pub fn build(&self, _q: &QueueCtx) -> Sfb {
        Sfb::new(SfbConfig {
            levels: self.levels as usize,
            bins: self.bins as usize,
            bin_size: self.bin_size,
            max: self.max,
            increment: self.increment,
            decrement: self.decrement,
            penalty_rate: self.penalty_rate,
            penalty_burst: self.penalty_burst,
            rehash_interval: self.rehash_interval.0,
            warmup_time: self.warmup_time.0,
            byte_mode: self.byte_mode,
            mean_pktsize: self.mean_pktsize.0 as u32,
            ecn: self.ecn,
        })
    }
}

#[cfg(test)]
mod tests;
