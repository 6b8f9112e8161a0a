//! DualPI2, the Dual-Queue Coupled AQM with a PI2 base AQM: K. De Schepper, B. Briscoe
//! (Ed.), G. White, "Dual-Queue Coupled Active Queue Management (AQM) for Low Latency, Low
//! Loss, and Scalable Throughput (L4S)", RFC 9332, January 2023 (§2.1 the coupling, §2.4
//! the structure, §2.5 the requirements, §4.2 overload, Appendix A the DualPI2 pseudocode:
//! A.1 the core, A.2 the edge cases); the PI2 controller of K. De Schepper, O. Bondarenko,
//! I.-J. Tsang, B. Briscoe, "PI²: A Linearized AQM for both Classic and Scalable TCP", ACM
//! CoNEXT 2016; and Linux `net/sched/sch_dualpi2.c` (mainline 2025) for what the RFC
//! leaves open.
//!
//! A pure buffer and decision struct: two FIFOs, L (index 0) and C (index 1), that keep
//! per packet its arena index, size, enqueue time and codepoint, so that sojourns are read
//! without the arena. The port that owns it checks the shared limit before `push`,
//! applies the verdicts and counts them.
//!
//! - **Classifier** (RFC 9332 §2.3, RFC 9331 §5.1): ECT(1) and CE to L, Not-ECT and ECT(0)
//!   to C (Linux's default `l4s_ect` mask).
//! - **PI2 controller**, every `tupdate` (RFC 9332 App. A.1, Fig. 2 and the update):
//!   p' ← p' + α·(qdelay − target) + β·(qdelay − qdelay_prev), delays in seconds and α, β
//!   in Hz, so the increment is a probability. The RFC derives α = 0.1·Tupdate/RTT_max²,
//!   so the update interval is already folded into α: nothing else multiplies by Tupdate
//!   (Linux does the same in fixed point: 41/256 Hz and 819/256 Hz). p' stays in [0, 1];
//!   without `drop_overload` it stays at most 1/k (Linux). `qdelay` is the C head's sojourn
//!   (`QDelay::Classic`, RFC App. A.1's `cq.time()`, the default) or the larger of the two
//!   heads' sojourns (`QDelay::Max`, Linux; RFC App. A.2's overload pass), 0 for an empty
//!   queue.
//! - **Coupling** (§2.1): p_C = p'² for C, p_CL = min(k·p', 1) for L. One draw against p'²
//!   is the RFC's "two random numbers" (and Linux's two rolls) in distribution.
//! - **Native L AQM**: a step at `l_step` on the departing L packet's sojourn (marks when
//!   sojourn > l_step, Linux's `step_thresh` and its strict comparison), or with
//!   `l_range` > 0 the RFC's ramp from l_step to l_step + l_range (App. A.1's minTh and
//!   range). Only packets that arrived with at least `min_qlen_step` L packets waiting may
//!   be step-marked (Linux; default 0, always). L's probability is p_L = max(p'_L, p_CL),
//!   the RFC's combining function, decided with one draw (a mark below p_CL is the
//!   coupled one, `Reason::Early`; the rest is the native AQM's, `Reason::Dequeue`).
//! - **Small backlog**: no PI2 signal (coupled or classic) while fewer than `min_backlog`
//!   bytes wait in both queues besides the packet (Linux: 2 MTU; the step is not gated).
//! - **Overload** (§2.5.1.1, §4.2.3, Linux `drop_overload`): when p' > 1/k (p_CL would
//!   exceed 1, p_C exceeds p_Cmax = 1/k²), ECN no longer protects: a C packet signalled
//!   with p_C is dropped whatever its codepoint, an L packet is dropped with p_C and every
//!   other L packet is marked (`Reason::Forced` for all of them).
//! - **When**: at dequeue (RFC; Linux's default) or, with `drop_early`, the PI2 part at
//!   arrival (`on_arrival`, Linux's `drop_enqueue`); the native L AQM always at dequeue.
//! - **Scheduler**: Linux's WRR with classic protection (default), whose credit, started at
//!   mtu·(wc − wl), grows by wc·size for an L packet sent while C waits and falls by
//!   wl·size for a C packet sent while L waits (wc = `c_protection` percent, wl = 100 − wc;
//!   L goes while credit ≤ 0); dropped packets do not count, and the credit restarts when
//!   the buffer empties. Under saturation C gets wc% of the bytes. Or the RFC's
//!   time-shifted FIFO: L's head goes first iff its sojourn + `tshift` ≥ C's head's.
//!
//! Where this differs from Linux: no GSO splitting (aqmlab has no aggregates), no tc
//! filters or LLLL class, no `any_ect` mask, the step only in time (not in packets), f64
//! arithmetic rather than 32-bit fixed point, one draw for p'² rather than two, the credit
//! restarted when a removal empties the buffer (Linux: when a dequeue finds it empty).
//! From RFC 9332 App. A: draws are random, where the pseudocode's `recur` marks L packets
//! at deterministic spacing; the 2-MTU rule and `min_qlen_step` are Linux's (the RFC has
//! Th_len, a minimum L queue in packets for the ramp).

use crate::aqm::{Reason, Verdict};
use crate::check::{default_mtu, default_true, Problems};
use crate::packet::{Ecn, Packet};
use crate::rng::Rng;
use crate::units::{secs, Bytes, Duration, Time, NS_PER_SEC};
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// The L (low-latency) queue's index.
pub const L: usize = 0;
/// The C (classic) queue's index.
pub const C: usize = 1;

/// The delay the PI2 controller is fed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum QDelay {
    /// The C head's sojourn (RFC 9332 App. A.1, `curq = cq.time()`).
    #[default]
    Classic,
    /// The larger of the L and C heads' sojourns (Linux `calculate_probability`).
    Max,
}

/// Which scheduler a spec names (its parameters are separate fields).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SchedulerKind {
    /// Linux's WRR with classic protection.
    #[default]
    Wrr,
    /// RFC 9332 App. A's time-shifted FIFO.
    TimeShift,
}

/// The scheduler between L and C, resolved.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scheduler {
    /// Linux's WRR credit; `c_protection` is C's weight wc in percent (0..=100).
    Wrr { c_protection: u32 },
    /// L's head goes first iff its sojourn + `tshift` ≥ C's head's.
    TimeShift { tshift: Time },
}

/// DualPI2's resolved parameters (times in ns, α and β in Hz).
#[derive(Clone, Debug, PartialEq)]
pub struct DualPi2Config {
    pub target: Time,
    pub tupdate: Time,
    pub alpha: f64,
    pub beta: f64,
    /// The coupling factor k.
    pub k: f64,
    pub qdelay: QDelay,
    /// The native L AQM's threshold: a step (l_range = 0) or the ramp's start (minTh).
    pub l_step: Time,
    /// The ramp's width; 0 for a step.
    pub l_range: Time,
    /// L packets that must already wait when a packet arrives for it to be step-marked.
    pub min_qlen_step: u32,
    /// Bytes: no PI2 signal while fewer wait besides the packet.
    pub min_backlog: u64,
    /// Bytes: the WRR credit's unit (Linux `psched_mtu`).
    pub mtu: u32,
    pub drop_overload: bool,
    pub drop_early: bool,
    pub scheduler: Scheduler,
}

impl Default for DualPi2Config {
    fn default() -> Self {
        DualPi2Config {
            target: 15_000_000,
            tupdate: 16_000_000,
            alpha: 0.16,
            beta: 3.2,
            k: 2.0,
            qdelay: QDelay::Classic,
            l_step: 1_000_000,
            l_range: 0,
            min_qlen_step: 0,
            min_backlog: 2 * 1514,
            mtu: 1514,
            drop_overload: true,
            drop_early: false,
            scheduler: Scheduler::Wrr { c_protection: 10 },
        }
    }
}

/// One waiting packet.
#[derive(Clone, Copy, Debug)]
struct Entry {
    idx: u32,
    size: u32,
    enqueued: Time,
    ecn: Ecn,
    /// It arrived with at least `min_qlen_step` L packets waiting.
    step: bool,
}

/// The two queues, the PI2 controller and the scheduler of one port.
#[derive(Clone, Debug)]
pub struct DualPi2 {
    pub cfg: DualPi2Config,
    q: [VecDeque<Entry>; 2],
    bytes: [u64; 2],
    /// The base probability p'.
    p_prime: f64,
    /// The controller's input at the last update (`prevq`).
    qdelay_prev: Time,
    /// WRR credit in byte·percent: L goes while it is ≤ 0.
    credit: i64,
    credit_init: i64,
    /// max(p'_L, p_CL) of the last L packet dequeued.
    p_l: f64,
}

impl DualPi2 {
    pub fn new(cfg: DualPi2Config) -> DualPi2 {
        let credit_init = match cfg.scheduler {
            Scheduler::Wrr { c_protection: wc } => {
                i64::from(cfg.mtu) * (i64::from(wc) - (100 - i64::from(wc)))
            }
            Scheduler::TimeShift { .. } => 0,
        };
        DualPi2 {
            cfg,
            q: [VecDeque::new(), VecDeque::new()],
            bytes: [0, 0],
            p_prime: 0.0,
            qdelay_prev: 0,
            credit: credit_init,
            credit_init,
            p_l: 0.0,
        }
    }

    /// ECT(1) and CE go to L (RFC 9331 §5.1, RFC 9332 §2.3).
    #[inline]
    pub fn is_l4s(pkt: &Packet) -> bool {
        matches!(pkt.ecn, Ecn::Ect1 | Ecn::Ce)
    }

    /// The base probability p'.
    pub fn p_prime(&self) -> f64 {
        self.p_prime
    }

    /// p_C = p'².
    pub fn p_c(&self) -> f64 {
        self.p_prime * self.p_prime
    }

    /// p_CL = min(k·p', 1).
    pub fn p_cl(&self) -> f64 {
        (self.cfg.k * self.p_prime).min(1.0)
    }

    /// The WRR credit (0 under the time-shifted FIFO).
    pub fn credit(&self) -> i64 {
        self.credit
    }

    /// k·p' > 1, said as p' > 1/k so that a p' capped at 1/k is never overloaded.
    #[inline]
    fn overloaded(&self) -> bool {
        self.p_prime > 1.0 / self.cfg.k
    }

    /// Enqueue-time decision (only with drop_early; else Verdict::Pass).
    pub fn on_arrival(&mut self, pkt: &Packet, _now: Time, rng: &mut Rng) -> Verdict {
        if !self.cfg.drop_early || self.len_bytes() < self.cfg.min_backlog {
            return Verdict::Pass;
        }
        if Self::is_l4s(pkt) {
            self.coupled(rng)
        } else {
            self.classic(pkt.ecn, rng)
        }
    }

    /// Appends the packet to its queue; the caller has checked the limit.
    pub fn push(&mut self, idx: u32, pkt: &Packet, now: Time) {
        let sub = if Self::is_l4s(pkt) { L } else { C };
        let step = sub == L && self.q[L].len() as u64 >= u64::from(self.cfg.min_qlen_step);
        self.q[sub].push_back(Entry {
            idx,
            size: pkt.size,
            enqueued: now,
            ecn: pkt.ecn,
            step,
        });
        self.bytes[sub] += u64::from(pkt.size);
    }

    /// Next packet removed and the verdict on it (Drop/Mark/Pass); after a Drop the port
    /// calls again. The third value is the subqueue it came from (0 = L, 1 = C).
    pub fn next(&mut self, now: Time, rng: &mut Rng) -> Option<(u32, Verdict, usize)> {
        let Some(sub) = self.pick() else {
            self.credit = self.credit_init;
            return None;
        };
        let e = self.q[sub].pop_front()?;
        self.bytes[sub] -= u64::from(e.size);
        let verdict = self.on_dequeue(sub, &e, now, rng);
        if !matches!(verdict, Verdict::Drop(_)) {
            self.charge(sub, e.size);
        }
        if self.q[L].is_empty() && self.q[C].is_empty() {
            self.credit = self.credit_init;
        }
        Some((e.idx, verdict, sub))
    }

    /// Which queue's head goes next.
    fn pick(&self) -> Option<usize> {
        match (self.q[L].front(), self.q[C].front()) {
            (None, None) => None,
            (Some(_), None) => Some(L),
            (None, Some(_)) => Some(C),
            (Some(l), Some(c)) => {
                let l_first = match self.cfg.scheduler {
                    Scheduler::Wrr { .. } => self.credit <= 0,
                    // sojourn_L + tshift ≥ sojourn_C, on enqueue times (no clock needed).
                    Scheduler::TimeShift { tshift } => {
                        l.enqueued <= c.enqueued.saturating_add(tshift)
                    }
                };
                Some(if l_first { L } else { C })
            }
        }
    }

    /// Moves the WRR credit for a packet of `sub` that was sent while the other queue
    /// waited (Linux `dequeue_packet`'s credit_change, applied only when it is not dropped).
    fn charge(&mut self, sub: usize, size: u32) {
        let Scheduler::Wrr { c_protection: wc } = self.cfg.scheduler else {
            return;
        };
        if self.q[1 - sub].is_empty() {
            return;
        }
        let size = i64::from(size);
        if sub == L {
            self.credit += i64::from(wc) * size;
        } else {
            self.credit -= (100 - i64::from(wc)) * size;
        }
    }

    /// The verdict on a packet just removed from `sub`.
    fn on_dequeue(&mut self, sub: usize, e: &Entry, now: Time, rng: &mut Rng) -> Verdict {
        let pi2 = !self.cfg.drop_early && self.len_bytes() >= self.cfg.min_backlog;
        if sub == C {
            return if pi2 {
                self.classic(e.ecn, rng)
            } else {
                Verdict::Pass
            };
        }
        let p_native = if e.step {
            self.laqm(now.saturating_sub(e.enqueued))
        } else {
            0.0
        };
        self.p_l = self.p_cl().max(p_native);
        if pi2 && self.overloaded() {
            return self.overload_l(rng);
        }
        let p_cl = if pi2 { self.p_cl() } else { 0.0 };
        // One draw decides p_L = max(p'_L, p_CL) and whose mark it is; none is needed when
        // both probabilities are 0 or 1.
        let u = if (0.0 < p_cl && p_cl < 1.0) || (0.0 < p_native && p_native < 1.0) {
            rng.uniform()
        } else {
            0.0
        };
        if u < p_cl {
            Verdict::Mark(Reason::Early)
        } else if u < p_native {
            Verdict::Mark(Reason::Dequeue)
        } else {
            Verdict::Pass
        }
    }

    /// The native L AQM's probability for a sojourn: Linux's step, or RFC 9332's ramp.
    fn laqm(&self, sojourn: Time) -> f64 {
        if self.cfg.l_range == 0 {
            return if sojourn > self.cfg.l_step { 1.0 } else { 0.0 };
        }
        let over = sojourn as f64 - self.cfg.l_step as f64;
        (over / self.cfg.l_range as f64).clamp(0.0, 1.0)
    }

    /// The classic signal with p_C = p'²: a mark on ECT(0), a drop on Not-ECT; under
    /// overload a drop whatever the codepoint.
    fn classic(&self, ecn: Ecn, rng: &mut Rng) -> Verdict {
        let p_c = self.p_c();
        if p_c == 0.0 || rng.uniform() >= p_c {
            return Verdict::Pass;
        }
        if self.overloaded() {
            Verdict::Drop(Reason::Forced)
        } else if ecn == Ecn::NotEct {
            Verdict::Drop(Reason::Early)
        } else {
            Verdict::Mark(Reason::Early)
        }
    }

    /// The coupled L signal alone (drop_early: the native AQM waits for the dequeue).
    fn coupled(&self, rng: &mut Rng) -> Verdict {
        if self.overloaded() {
            return self.overload_l(rng);
        }
        let p_cl = self.p_cl();
        if p_cl > 0.0 && (p_cl >= 1.0 || rng.uniform() < p_cl) {
            Verdict::Mark(Reason::Early)
        } else {
            Verdict::Pass
        }
    }

    /// An L packet under overload: dropped with p_C when `drop_overload`, else marked
    /// (p_CL is saturated, so every other L packet is marked).
    fn overload_l(&self, rng: &mut Rng) -> Verdict {
        if self.cfg.drop_overload && rng.uniform() < self.p_c() {
            Verdict::Drop(Reason::Forced)
        } else {
            Verdict::Mark(Reason::Forced)
        }
    }

    pub fn first_timer(&self, now: Time) -> Option<Time> {
        Some(now + self.cfg.tupdate)
    }

    pub fn on_timer(&mut self, now: Time) -> Option<Time> {
        self.update(now);
        Some(now + self.cfg.tupdate)
    }

    /// The sojourn of `sub`'s head at `now`, 0 when it is empty.
    fn head_delay(&self, sub: usize, now: Time) -> Time {
        self.q[sub]
            .front()
            .map_or(0, |e| now.saturating_sub(e.enqueued))
    }

    /// The controller's input at `now`.
    pub fn qdelay(&self, now: Time) -> Time {
        match self.cfg.qdelay {
            QDelay::Classic => self.head_delay(C, now),
            QDelay::Max => self.head_delay(L, now).max(self.head_delay(C, now)),
        }
    }

    /// One PI2 update of p' (RFC 9332 App. A.1).
    pub fn update(&mut self, now: Time) {
        let cfg = &self.cfg;
        let qdelay = self.qdelay(now);
        // Differences in integer ns first: 25 ms − 15 ms is then exactly 0.010 s.
        let diff = |a: Time, b: Time| (i128::from(a) - i128::from(b)) as f64 / NS_PER_SEC as f64;
        let delta =
            cfg.alpha * diff(qdelay, cfg.target) + cfg.beta * diff(qdelay, self.qdelay_prev);
        let mut p = (self.p_prime + delta).clamp(0.0, 1.0);
        if !cfg.drop_overload {
            // Linux: without overload drops, keep p_CL ≤ 1 so that L is never overloaded.
            p = p.min(1.0 / cfg.k);
        }
        self.p_prime = p;
        self.qdelay_prev = qdelay;
    }

    pub fn len_pkts(&self) -> u32 {
        (self.q[L].len() + self.q[C].len()) as u32
    }

    pub fn len_bytes(&self) -> u64 {
        self.bytes[L] + self.bytes[C]
    }

    pub fn sub_len_pkts(&self, sub: usize) -> u32 {
        self.q[sub].len() as u32
    }

    pub fn sub_len_bytes(&self, sub: usize) -> u64 {
        self.bytes[sub]
    }

    /// The arena indices of every waiting packet, L's first.
    pub fn waiting(&self) -> impl Iterator<Item = u32> + '_ {
        self.q[L].iter().chain(self.q[C].iter()).map(|e| e.idx)
    }

    pub fn metric_names() -> &'static [&'static str] {
        &[
            "p_prime", "p_c", "p_cl", "p_l", "qdelay", "l_pkts", "c_pkts", "l_delay", "c_delay",
            "credit",
        ]
    }

    /// One value per `metric_names`: probabilities, the controller's input and the heads'
    /// sojourns at `now` in seconds, the queues in packets, the credit in byte·percent.
    pub fn metrics(&self, now: Time, out: &mut [f64]) {
        out[0] = self.p_prime;
        out[1] = self.p_c();
        out[2] = self.p_cl();
        out[3] = self.p_l;
        out[4] = secs(self.qdelay(now));
        out[5] = self.q[L].len() as f64;
        out[6] = self.q[C].len() as f64;
        out[7] = secs(self.head_delay(L, now));
        out[8] = secs(self.head_delay(C, now));
        out[9] = self.credit as f64;
    }
}

// ---------------------------------------------------------------------------------------
// Spec: the scenario's fields, defaults and checks
// ---------------------------------------------------------------------------------------

/// DualPI2 parameters (docs/aqm/dualpi2.md; Linux `dualpi2_reset_default` and RFC 9332
/// App. A).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DualPi2Spec {
    /// PI2's delay target (RFC 9332 App. A.1 and Linux: 15 ms).
    #[serde(default = "default_target")]
    pub target: Duration,
    /// The update interval (Linux: 16 ms; the RFC's min(target, RTT_max/3) = 15 ms).
    #[serde(default = "default_tupdate")]
    pub tupdate: Duration,
    /// Hz: the integral gain, per update (Linux 41/256 ≈ 0.16).
    #[serde(default = "default_alpha")]
    pub alpha: f64,
    /// Hz: the proportional gain, per update (Linux 819/256 ≈ 3.2).
    #[serde(default = "default_beta")]
    pub beta: f64,
    /// The coupling factor (RFC 9332 §2.1 and Linux: 2).
    #[serde(default = "default_k")]
    pub k: f64,
    /// The controller's input (RFC 9332 App. A.1: the C head's sojourn).
    #[serde(default)]
    pub qdelay: QDelay,
    /// The native L AQM's step (Linux `step_thresh`: 1 ms), or its ramp's start.
    #[serde(default = "default_l_step")]
    pub l_step: Duration,
    /// The ramp's width, 0 for a step (Linux: a step; RFC 9332 App. A.1: 400 µs from
    /// minTh = 800 µs).
    #[serde(default = "zero_duration")]
    pub l_range: Duration,
    /// Packets: an L packet arriving behind fewer is never step-marked (Linux: 0).
    #[serde(default)]
    pub min_qlen_step: u32,
    /// Bytes: no PI2 signal while fewer wait besides the packet (Linux: 2·mtu).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_backlog: Option<Bytes>,
    /// Bytes: the MTU of the WRR credit and of min_backlog's default (Linux
    /// `psched_mtu` of Ethernet: 1514).
    #[serde(default = "default_mtu")]
    pub mtu: Bytes,
    /// Drop instead of mark once p' > 1/k (Linux `drop_on_overload`, RFC 9332 §2.5.1.1).
    #[serde(default = "default_true")]
    pub drop_overload: bool,
    /// Decide the PI2 signal at arrival (Linux `drop_enqueue`; RFC and Linux default: at
    /// dequeue).
    #[serde(default)]
    pub drop_early: bool,
    /// `"wrr"` (Linux, default) or `"time_shift"` (RFC 9332 App. A).
    #[serde(default)]
    pub scheduler: SchedulerKind,
    /// Percent: C's WRR weight (Linux `classic_protection`: 10); only with wrr.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub c_protection: Option<u32>,
    /// The time-shifted FIFO's shift (default 2·target); only with time_shift.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tshift: Option<Duration>,
}

fn default_target() -> Duration {
    Duration(15_000_000)
}
fn default_tupdate() -> Duration {
    Duration(16_000_000)
}
fn default_alpha() -> f64 {
    0.16
}
fn default_beta() -> f64 {
    3.2
}
fn default_k() -> f64 {
    2.0
}
fn default_l_step() -> Duration {
    Duration(1_000_000)
}
fn zero_duration() -> Duration {
    Duration(0)
}

impl Default for DualPi2Spec {
    fn default() -> Self {
        DualPi2Spec {
            target: default_target(),
            tupdate: default_tupdate(),
            alpha: default_alpha(),
            beta: default_beta(),
            k: default_k(),
            qdelay: QDelay::default(),
            l_step: default_l_step(),
            l_range: zero_duration(),
            min_qlen_step: 0,
            min_backlog: None,
            mtu: default_mtu(),
            drop_overload: true,
            drop_early: false,
            scheduler: SchedulerKind::default(),
            c_protection: None,
            tshift: None,
        }
    }
}

impl DualPi2Spec {
    /// Reports every problem of these fields under the path `a`.
    pub fn validate(&self, a: &str, p: &mut Problems) {
        p.positive_time(format!("{a}.target"), self.target);
        p.positive_time(format!("{a}.tupdate"), self.tupdate);
        for (field, v, zero_ok, what) in [
            ("alpha", self.alpha, false, "the integral gain, in Hz"),
            ("beta", self.beta, true, "the proportional gain, in Hz"),
        ] {
            if !(v.is_finite() && (v > 0.0 || (zero_ok && v == 0.0))) {
                let range = if zero_ok { ">= 0" } else { "> 0" };
                p.err(
                    format!("{a}.{field}"),
                    v,
                    format!("must be finite and {range} ({what}; RFC 9332 App. A.1)"),
                );
            }
        }
        if !(self.k.is_finite() && self.k > 0.0) {
            p.err(
                format!("{a}.k"),
                self.k,
                "must be finite and > 0 (the coupling factor; RFC 9332 §2.1 and Linux: 2)",
            );
        }
        p.time_at_most(format!("{a}.l_step"), self.l_step);
        p.time_at_most(format!("{a}.l_range"), self.l_range);
        p.packet_size(a, "mtu", self.mtu);
        match self.scheduler {
            SchedulerKind::Wrr => {
                if let Some(t) = self.tshift {
                    p.err(
                        format!("{a}.tshift"),
                        format!("\"{}\"", crate::units::format_time(t.0)),
                        "only meaningful with scheduler = \"time_shift\"",
                    );
                }
                if let Some(wc) = self.c_protection.filter(|&wc| wc > 100) {
                    p.err(
                        format!("{a}.c_protection"),
                        wc,
                        "must be a percentage in [0, 100] (C's share of a saturated link)",
                    );
                }
            }
            SchedulerKind::TimeShift => {
                if let Some(wc) = self.c_protection {
                    p.err(
                        format!("{a}.c_protection"),
                        wc,
                        "only meaningful with scheduler = \"wrr\"",
                    );
                }
                if let Some(t) = self.tshift {
                    p.time_at_most(format!("{a}.tshift"), t);
                }
            }
        }
    }

    pub fn config(&self) -> DualPi2Config {
        let mtu = self.mtu.0 as u32;
        DualPi2Config {
            target: self.target.0,
            tupdate: self.tupdate.0,
            alpha: self.alpha,
            beta: self.beta,
            k: self.k,
            qdelay: self.qdelay,
            l_step: self.l_step.0,
            l_range: self.l_range.0,
            min_qlen_step: self.min_qlen_step,
            min_backlog: self.min_backlog.map_or(2 * u64::from(mtu), |b| b.0),
            mtu,
            drop_overload: self.drop_overload,
            drop_early: self.drop_early,
            scheduler: match self.scheduler {
                SchedulerKind::Wrr => Scheduler::Wrr {
                    c_protection: self.c_protection.unwrap_or(10),
                },
                SchedulerKind::TimeShift => Scheduler::TimeShift {
                    tshift: self.tshift.map_or(self.target.0.saturating_mul(2), |t| t.0),
                },
            },
        }
    }

    pub fn build(&self) -> DualPi2 {
        DualPi2::new(self.config())
    }
}

#[cfg(test)]
#[path = "dualpi2_tests.rs"]
mod tests;
