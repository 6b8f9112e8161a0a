//! CoDel, "Controlled Delay" (Nichols, Jacobson, McGregor, Iyengar, RFC 8289, 2018; Linux
//! `include/net/codel.h` and `codel_impl.h` for the details the RFC leaves open).
//!
//! CoDel controls the *sojourn time* of the packet at the head of the queue, measured as it
//! leaves (`now − enqueued`), not the queue length, so it needs no knowledge of the link
//! rate. State machine, one decision per departing packet:
//!
//! - **Above target.** A departure is "above" when sojourn ≥ `target` (5 ms) and more than
//!   one MTU is still waiting (RFC 8289 §5.4: never drop the last full packet of a queue, or
//!   a slow link could be starved). The first such departure arms
//!   `first_above_time = now + interval`; any departure below target disarms it.
//! - **Entering the dropping state.** A departure still above target at or after
//!   `first_above_time` is dropped (or marked) and the state becomes *dropping*: the
//!   standing queue has persisted for a whole `interval` (100 ms, about a worst-case RTT),
//!   so it is not a burst that would drain by itself.
//! - **Control law.** While dropping, the next signal is due at
//!   `drop_next = drop_next + interval / √count`, count counting the signals of this
//!   dropping period: the spacing shrinks as 1/√count, which makes the drop *rate* grow
//!   linearly in time, the inverse of TCP's throughput ∝ 1/√p (RFC 8289 §5.5). The state
//!   is left as soon as a departure is below target.
//! - **Count restart.** Re-entering the dropping state soon after leaving it
//!   (`now − drop_next < 16·interval`) resumes at `count − lastcount` instead of 1, where
//!   `lastcount` is the count at the previous entry (RFC 8289 §5.6 and Linux; the original
//!   ACM Queue pseudo-code used `count − 2`): the drop rate that controlled the queue last
//!   time is likely still about right.
//!
//! Choices (documented in docs/aqm/codel.md):
//! - The control law is Linux's (`codel_Newton_step`, `codel_control_law`; ns-3's
//!   `CoDelQueueDisc` has the same arithmetic): 1/√count is kept as a 16-bit fixed-point
//!   reciprocal refined by one Newton step per change of count, and the spacing is
//!   interval × reciprocal. The first steps are coarse (count 2 gives 50.0 ms, not
//!   100/√2 = 70.7 ms), later ones within 0.4% from count 10; RFC 8289's pseudo-code
//!   takes an exact sqrt. A count raised without a step (FQ-CoDel's overflow drops) is
//!   refined from the stale reciprocal at the next signal, as in Linux.
//! - After the drop that enters the dropping state, the next packet is sent whatever its
//!   sojourn (Linux `codel_dequeue`: the entry branch drops one packet only).
//! - A drop inside the dropping state continues with the next head at the same instant,
//!   exactly as Linux's `while (dropping && now >= drop_next)` loop: the output queue calls
//!   `on_departure` for the next head after a `Drop`, and `Pending` remembers where in the
//!   loop we are. A queue that runs dry resets `dropping` and `first_above_time` (Linux's
//!   dequeue of an empty queue): `on_empty`, called through `on_idle` for the FIFO case.
//! - With `ecn`, an ECN-capable packet (ECT or already CE) is marked instead of dropped and
//!   the loop ends with it, as `INET_ECN_set_ce` succeeding in Linux; a Not-ECT packet is
//!   dropped. `ce_threshold` (Linux, for DCTCP-style step marking) marks every ECT packet
//!   whose sojourn exceeds it, independently of the control law, with `Reason::Early` so
//!   that these marks are told apart from the control law's (`Reason::Dequeue`).
//! - `ce_threshold_ecn` chooses which packets the step applies to: `ect` (default: ECT(0)
//!   and ECT(1), Linux without a selector) or `ect1` (ECT(1) only: the L4S use, RFC 9331
//!   §5.1, Linux's `ce_threshold_selector 0x1/0x3`). Linux's selector is a value/mask pair
//!   over the whole DS byte (fq_codel since Linux 5.16, commit dfcb63ce1de6, Høiland-
//!   Jørgensen 2021; `sch_codel` has no such option); aqmlab's packets carry no DSCP, so
//!   only the ECN codepoints are selectable. A selector 0x1/0x1 would also take CE packets,
//!   whose marking changes nothing (a CE packet passes unchanged and uncounted), so 0x1/0x1
//!   and 0x1/0x3 are the same run here. Selected packets still go through the control law,
//!   as in Linux; ns-3's `UseL4s` instead exempts ECT(1) and CE packets from it
//!   (docs/aqm/codel.md).

use super::QueueCtx;
use super::{Aqm, QueueView, Reason, Verdict};
use crate::check::{default_mtu, Problems};
use crate::packet::{Ecn, Packet};
use crate::rng::Rng;
use crate::units::{secs, Time};
use crate::units::{Bytes, Duration};
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq)]
pub struct CodelConfig {
    /// Acceptable standing sojourn time.
    pub target: Time,
    /// Window over which the sojourn must stay above target before acting; also the base
    /// of the control law.
    pub interval: Time,
    /// Bytes: no signal while the backlog left behind is at most this (one MTU).
    pub mtu: u32,
    /// Mark ECN-capable packets instead of dropping them.
    pub ecn: bool,
    /// Step-mark ECT packets whose sojourn exceeds this.
    pub ce_threshold: Option<Time>,
    /// Which packets the step applies to.
    pub ce_threshold_ecn: CeThresholdEcn,
}

/// The ECN codepoints `ce_threshold` applies to: a model of Linux's
/// `ce_threshold_selector`/`ce_threshold_mask` restricted to the ECN field.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CeThresholdEcn {
    /// ECT(0) and ECT(1): no selector (Linux's mask 0).
    #[default]
    Ect,
    /// ECT(1) only (Linux's `ce_threshold_selector 0x1/0x3`, the L4S identifier).
    Ect1,
}

impl CeThresholdEcn {
    /// Whether the step may mark a packet of codepoint `e` (CE is never re-marked).
    #[inline]
    pub fn selects(self, e: Ecn) -> bool {
        match self {
            CeThresholdEcn::Ect => e.is_ect(),
            CeThresholdEcn::Ect1 => e == Ecn::Ect1,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            CeThresholdEcn::Ect => "ect",
            CeThresholdEcn::Ect1 => "ect1",
        }
    }
}

impl Default for CodelConfig {
    fn default() -> Self {
        CodelConfig {
            target: 5_000_000,
            interval: 100_000_000,
            mtu: 1514,
            ecn: false,
            ce_threshold: None,
            ce_threshold_ecn: CeThresholdEcn::Ect,
        }
    }
}

/// Where the previous decision left Linux's dequeue loop.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum Pending {
    /// A fresh dequeue.
    #[default]
    None,
    /// The entry drop was made: the next head is sent whatever its sojourn.
    AfterEntryDrop,
    /// A drop inside the dropping state: the next head is judged at the same instant.
    InLoop,
}

/// The CoDel state machine of one queue (a FIFO, or one flow of FQ-CoDel).
#[derive(Clone, Debug, Default)]
pub struct CodelState {
    pub dropping: bool,
    /// Signals (drops or marks) in the current dropping period.
    pub count: u32,
    /// `count` when the dropping state was last entered.
    pub lastcount: u32,
    /// When the sojourn will have been above target for a whole interval, if it is above.
    pub first_above_time: Option<Time>,
    /// When the next signal is due while dropping.
    pub drop_next: Time,
    /// 1/√count in Q0.16 (Linux's `rec_inv_sqrt`): refined by `newton_step`.
    pub rec_inv_sqrt: u16,
    /// Whether the dropping state has ever been entered: before that, `drop_next` (0) is
    /// no earlier dropping period to resume.
    pub entered: bool,
    /// Sojourn time of the last departing packet.
    pub sojourn: Time,
    pending: Pending,
}

/// The reciprocal of √1 (Linux: `~0U >> REC_INV_SQRT_SHIFT`).
pub const REC_INV_SQRT_ONE: u16 = u16::MAX;

/// One Newton iteration of r ← r·(3 − count·r²)/2 towards 1/√count, in Linux's integer
/// arithmetic (`codel_Newton_step`: Q0.32 intermediate, wrapping u64 products, the result
/// truncated to 16 bits).
pub fn newton_step(count: u32, rec_inv_sqrt: u16) -> u16 {
    let invsqrt = u64::from(rec_inv_sqrt) << 16;
    let invsqrt2 = (invsqrt * invsqrt) >> 32;
    let val = (3u64 << 32).wrapping_sub(u64::from(count).wrapping_mul(invsqrt2)) >> 2;
    (val.wrapping_mul(invsqrt) >> (32 - 2 + 1) >> 16) as u16
}

/// `t + interval·rec_inv_sqrt` (Linux `codel_control_law`: `reciprocal_scale`, the
/// spacing rounded down to the nanosecond).
#[inline]
pub fn control_law(t: Time, interval: Time, rec_inv_sqrt: u16) -> Time {
    t + ((u128::from(interval) * (u128::from(rec_inv_sqrt) << 16)) >> 32) as Time
}

impl CodelState {
    /// Updates the sojourn and `first_above_time`; true when a signal is allowed.
    fn should_drop(&mut self, cfg: &CodelConfig, sojourn: Time, backlog: u64, now: Time) -> bool {
        self.sojourn = sojourn;
        if sojourn < cfg.target || backlog <= cfg.mtu as u64 {
            self.first_above_time = None;
            return false;
        }
        match self.first_above_time {
            None => {
                self.first_above_time = Some(now + cfg.interval);
                false
            }
            Some(t) => now >= t,
        }
    }

    /// Decides on the packet just removed from the head; `backlog` is the bytes still
    /// waiting behind it. After a `Drop`, the caller offers the next head at the same
    /// instant (or calls `on_empty` if there is none).
    pub fn on_dequeue(
        &mut self,
        cfg: &CodelConfig,
        pkt: &Packet,
        backlog: u64,
        now: Time,
    ) -> Verdict {
        let ok = self.should_drop(cfg, now.saturating_sub(pkt.enqueued), backlog, now);
        match std::mem::take(&mut self.pending) {
            Pending::AfterEntryDrop => return self.finish(cfg, pkt),
            Pending::InLoop => {
                if !ok {
                    self.dropping = false;
                    return self.finish(cfg, pkt);
                }
                self.drop_next = control_law(self.drop_next, cfg.interval, self.rec_inv_sqrt);
                if now < self.drop_next {
                    return self.finish(cfg, pkt);
                }
                return self.signal_while_dropping(cfg, pkt);
            }
            Pending::None => {}
        }
        if self.dropping {
            if !ok {
                self.dropping = false;
            } else if now >= self.drop_next {
                return self.signal_while_dropping(cfg, pkt);
            }
        } else if ok {
            self.dropping = true;
            let delta = self.count.wrapping_sub(self.lastcount);
            // Signed: a drop_next still in the future counts as "soon after". Linux's
            // drop_next starts at 0 on a clock that counts from boot, so a first entry is
            // never "soon after"; aqmlab's clock starts at 0 with the run, hence `entered`
            // (without it, a count raised by FQ-CoDel's overflow drops in the first
            // 16·interval of a run was resumed as if a dropping period had just ended).
            let since = now as i128 - self.drop_next as i128;
            let soon = self.entered && since < 16 * cfg.interval as i128;
            self.entered = true;
            if delta > 1 && soon {
                self.count = delta;
                self.rec_inv_sqrt = newton_step(self.count, self.rec_inv_sqrt);
            } else {
                self.count = 1;
                self.rec_inv_sqrt = REC_INV_SQRT_ONE;
            }
            self.lastcount = self.count;
            self.drop_next = control_law(now, cfg.interval, self.rec_inv_sqrt);
            if cfg.ecn && pkt.ecn != Ecn::NotEct {
                return Verdict::Mark(Reason::Dequeue);
            }
            self.pending = Pending::AfterEntryDrop;
            return Verdict::Drop(Reason::Dequeue);
        }
        self.finish(cfg, pkt)
    }

    fn signal_while_dropping(&mut self, cfg: &CodelConfig, pkt: &Packet) -> Verdict {
        self.count = self.count.wrapping_add(1);
        self.rec_inv_sqrt = newton_step(self.count, self.rec_inv_sqrt);
        if cfg.ecn && pkt.ecn != Ecn::NotEct {
            // A mark ends the loop: the packet is sent, the next signal is scheduled now.
            self.drop_next = control_law(self.drop_next, cfg.interval, self.rec_inv_sqrt);
            return Verdict::Mark(Reason::Dequeue);
        }
        self.pending = Pending::InLoop;
        Verdict::Drop(Reason::Dequeue)
    }

    /// The packet is sent: only the optional step marking remains.
    fn finish(&self, cfg: &CodelConfig, pkt: &Packet) -> Verdict {
        match cfg.ce_threshold {
            Some(th) if self.sojourn > th && cfg.ce_threshold_ecn.selects(pkt.ecn) => {
                Verdict::Mark(Reason::Early)
            }
            _ => Verdict::Pass,
        }
    }

    /// The queue was found empty (Linux: a dequeue that returns nothing leaves the
    /// dropping state and keeps `first_above_time`: an FQ-CoDel flow whose last packet
    /// left above target, with more than an MTU waiting in other flows, is still above
    /// target when it returns).
    pub fn on_empty(&mut self) {
        self.dropping = false;
        self.pending = Pending::None;
    }

    /// dropping, count, drop_next (s, absolute), sojourn (s).
    pub fn write_metrics(&self, out: &mut [f64]) {
        out[0] = self.dropping as u8 as f64;
        out[1] = self.count as f64;
        out[2] = secs(self.drop_next);
        out[3] = secs(self.sojourn);
    }
}

pub const CODEL_METRICS: &[&str] = &["dropping", "count", "drop_next", "sojourn"];

/// CoDel on a FIFO output queue.
#[derive(Clone, Debug)]
pub struct Codel {
    pub cfg: CodelConfig,
    pub state: CodelState,
}

impl Codel {
    pub fn new(cfg: CodelConfig) -> Codel {
        Codel {
            cfg,
            state: CodelState::default(),
        }
    }
}

impl Aqm for Codel {
    fn on_arrival(&mut self, _q: &QueueView, _p: &Packet, _now: Time, _rng: &mut Rng) -> Verdict {
        Verdict::Pass
    }
    fn on_departure(&mut self, q: &QueueView, pkt: &Packet, now: Time, _rng: &mut Rng) -> Verdict {
        self.state.on_dequeue(&self.cfg, pkt, q.len_bytes, now)
    }
    fn on_idle(&mut self, _since: Time) {
        self.state.on_empty();
    }
    fn metric_names(&self) -> &'static [&'static str] {
        CODEL_METRICS
    }
    fn metrics(&self, _q: &QueueView, _now: Time, out: &mut [f64]) {
        self.state.write_metrics(out);
    }
}

// ---------------------------------------------------------------------------------------
// Spec: the scenario's fields, defaults and checks
// ---------------------------------------------------------------------------------------

/// CoDel parameters (docs/aqm/codel.md; RFC 8289 and Linux defaults).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CodelSpec {
    #[serde(default = "default_codel_target")]
    pub target: Duration,
    #[serde(default = "default_codel_interval")]
    pub interval: Duration,
    /// No signal while at most this many bytes wait behind the departing packet.
    #[serde(default = "default_mtu")]
    pub mtu: Bytes,
    #[serde(default)]
    pub ecn: bool,
    /// Step-mark ECT packets whose sojourn exceeds this (Linux `ce_threshold`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ce_threshold: Option<Duration>,
    /// Which codepoints `ce_threshold` marks (unset: "ect", Linux's default of no selector;
    /// needs ce_threshold). Echoed only where set, so canonical forms stay as they were.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ce_threshold_ecn: Option<CeThresholdEcn>,
}

impl Default for CodelSpec {
    fn default() -> Self {
        CodelSpec {
            target: default_codel_target(),
            interval: default_codel_interval(),
            mtu: default_mtu(),
            ecn: false,
            ce_threshold: None,
            ce_threshold_ecn: None,
        }
    }
}

pub(crate) fn default_codel_target() -> Duration {
    Duration(5_000_000)
}

pub(crate) fn default_codel_interval() -> Duration {
    Duration(100_000_000)
}

impl CodelSpec {
    pub fn validate(&self, a: &str, _q: &QueueCtx, p: &mut Problems) {
        let fmt = crate::units::format_time;
        p.positive_time(format!("{a}.target"), self.target);
        p.positive_time(format!("{a}.interval"), self.interval);
        if self.target.0 > 0 && self.interval.0 > 0 && self.target.0 >= self.interval.0 {
            p.err(
                format!("{a}.target"),
                format!("\"{}\"", fmt(self.target.0)),
                format!(
                    "must be < interval = \"{}\" (RFC 8289 §4.4: 5-10% of it)",
                    fmt(self.interval.0)
                ),
            );
        }
        p.packet_size(a, "mtu", self.mtu);
        if let Some(th) = self.ce_threshold {
            p.positive_time(format!("{a}.ce_threshold"), th);
        }
        if let (Some(e), None) = (self.ce_threshold_ecn, self.ce_threshold) {
            p.err(
                format!("{a}.ce_threshold_ecn"),
                format!("\"{}\"", e.name()),
                "only meaningful with ce_threshold",
            );
        }
    }

    pub fn build(&self, _q: &QueueCtx) -> Codel {
        Codel::new(self.config())
    }

    pub fn config(&self) -> CodelConfig {
        CodelConfig {
            target: self.target.0,
            interval: self.interval.0,
            mtu: self.mtu.0 as u32,
            ecn: self.ecn,
            ce_threshold: self.ce_threshold.map(|d| d.0),
            ce_threshold_ecn: self.ce_threshold_ecn.unwrap_or_default(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::aqm::AnyAqm;
    use crate::packet::PacketArena;
    use crate::queue::{Limit, OutputQueue};

    const MS: Time = 1_000_000;

    fn queue(cfg: CodelConfig, limit: Limit) -> OutputQueue {
        OutputQueue::new(
            limit,
            10_000_000,
            AnyAqm::Codel(Codel::new(cfg)),
            Rng::for_component(1, 0, "codel"),
        )
    }

    fn limits() -> [Limit; 2] {
        [Limit::Packets(10_000), Limit::Bytes(15_000_000)]
    }

    fn state(q: &OutputQueue) -> &CodelState {
        match q.aqm() {
            AnyAqm::Codel(c) => &c.state,
            _ => unreachable!(),
        }
    }

    fn fill(q: &mut OutputQueue, a: &mut PacketArena, n: usize, ecn: Ecn, at: Time) {
        for _ in 0..n {
            let i = a.alloc(Packet {
                size: 1500,
                ecn,
                ..Default::default()
            });
            q.arrive(i, a, at);
        }
    }

    /// Dequeues one packet at `now`: (sent packet, number dropped on the way).
    fn take(q: &mut OutputQueue, a: &mut PacketArena, now: Time) -> (Option<u32>, usize) {
        let mut d = vec![];
        let sent = q.dequeue(a, now, &mut d);
        (sent, d.len())
    }

    #[test]
    fn no_drop_while_sojourn_is_below_target() {
        for limit in limits() {
            // One packet a millisecond for 10 s, each sent `wait` after it arrived, so
            // that four packets (6000 B > one MTU) always wait behind the departing one.
            for (wait, drops) in [(5 * MS - 1, false), (5 * MS, true)] {
                let mut a = PacketArena::default();
                let mut q = queue(CodelConfig::default(), limit);
                for k in 0..10_000u64 {
                    fill(&mut q, &mut a, 1, Ecn::NotEct, k * MS);
                    if k >= 4 {
                        take(&mut q, &mut a, (k - 4) * MS + wait);
                    }
                }
                // At exactly target the sojourn counts as above, and drops follow.
                assert_eq!(q.counters.total_dropped() > 0, drops, "{limit:?} {wait}");
                q.check_conservation(&a).unwrap();
            }
        }
    }

    #[test]
    fn first_drop_comes_exactly_one_interval_after_sojourn_first_exceeds_target() {
        for limit in limits() {
            let mut a = PacketArena::default();
            let mut q = queue(CodelConfig::default(), limit);
            fill(&mut q, &mut a, 500, Ecn::NotEct, 0);
            // First departure above target at 5 ms: arms first_above_time = 105 ms.
            assert_eq!(take(&mut q, &mut a, 5 * MS).1, 0);
            assert_eq!(state(&q).first_above_time, Some(105 * MS));
            // One nanosecond early: still no drop.
            assert_eq!(take(&mut q, &mut a, 105 * MS - 1).1, 0);
            assert!(!state(&q).dropping);
            // At 105 ms: one drop, then the next packet is sent.
            let (s, d) = take(&mut q, &mut a, 105 * MS);
            assert!(s.is_some());
            assert_eq!(d, 1, "{limit:?}");
            assert!(state(&q).dropping);
            assert_eq!(state(&q).count, 1);
            // 100 ms × Linux's reciprocal of √1, 0xffff / 2^16.
            assert_eq!(state(&q).drop_next, 105 * MS + 99_998_474);
            assert_eq!(q.counters.dropped[Reason::Dequeue as usize], 1);
            q.check_conservation(&a).unwrap();
        }
    }

    #[test]
    fn drops_are_spaced_by_linuxs_reciprocal_square_root() {
        for limit in limits() {
            let mut a = PacketArena::default();
            let mut q = queue(CodelConfig::default(), limit);
            fill(&mut q, &mut a, 6000, Ecn::NotEct, 0);
            take(&mut q, &mut a, 5 * MS);
            // Dequeue every 100 µs and log the times of the drops.
            let mut drops = vec![];
            let mut t = 5 * MS;
            while drops.len() < 5 {
                t += 100_000;
                let (_, d) = take(&mut q, &mut a, t);
                for _ in 0..d {
                    drops.push(t);
                }
            }
            // 105 ms, then 100 ms × r(count) for counts 1-4, r by Linux's Newton steps from
            // 0xffff (computed apart, in Python, from codel_Newton_step's integer code):
            // 0xffff, 32769, 36864, 31968 / 2^16, i.e. 99.998, 50.002, 56.250, 48.779 ms
            // where 100/√count gives 100, 70.7, 57.7, 50 ms. Each is taken at the first
            // 100 µs dequeue tick at or after it is due.
            let d1 = 105_000_000u64 + 99_998_474;
            let law = [
                105_000_000u64,
                d1,
                d1 + 50_001_525,
                d1 + 50_001_525 + 56_250_000,
                d1 + 50_001_525 + 56_250_000 + 48_779_296,
            ];
            for (k, (&got, &due)) in drops.iter().zip(&law).enumerate() {
                let tick = due.div_ceil(100_000) * 100_000;
                assert_eq!(got, tick, "{limit:?} drop {k}");
            }
            assert_eq!(state(&q).count, 5);
            q.check_conservation(&a).unwrap();
        }
    }

    #[test]
    fn overdue_drops_continue_with_the_next_head_at_the_same_instant() {
        let mut a = PacketArena::default();
        let mut q = queue(CodelConfig::default(), Limit::Packets(10_000));
        fill(&mut q, &mut a, 100, Ecn::NotEct, 0);
        take(&mut q, &mut a, 5 * MS);
        assert_eq!(take(&mut q, &mut a, 105 * MS).1, 1);
        // Nothing dequeued until 400 ms: drop_next = 205 ms is overdue. Each drop in the loop
        // moves drop_next by 100 ms × r(count): 205.0 → 255.0 → 311.2 → 360.0, all ≤ 400 ms,
        // then 404.2 > 400: four drops (count 2..5) at the same instant, then a packet is sent.
        let (s, d) = take(&mut q, &mut a, 400 * MS);
        assert!(s.is_some());
        assert_eq!(d, 4);
        assert_eq!(state(&q).count, 5);
        q.check_conservation(&a).unwrap();
    }

    #[test]
    fn reentering_soon_after_resumes_at_count_minus_lastcount() {
        let cfg = CodelConfig::default();
        let p = Packet::default();
        // Left a dropping period at count 6 that had been entered at count 1; above
        // target for an interval again, 1 s after the last drop_next (< 16 intervals).
        let mut s = CodelState {
            count: 6,
            lastcount: 1,
            drop_next: 2_000_000_000,
            entered: true,
            rec_inv_sqrt: 26_481, // where the Newton steps from 0xffff leave count 6
            first_above_time: Some(3_000_000_000),
            ..Default::default()
        };
        let v = s.on_dequeue(&cfg, &p, 1_000_000, 3_000_000_000);
        assert_eq!(v, Verdict::Drop(Reason::Dequeue));
        assert_eq!((s.count, s.lastcount), (5, 5));
        // One Newton step from count 6's reciprocal towards 1/√5: 28 912 / 2^16, the next
        // signal 44.116210 ms later (100/√5 = 44.72 ms).
        assert_eq!(s.rec_inv_sqrt, 28_912);
        assert_eq!(s.drop_next, 3_000_000_000 + 44_116_210);
    }

    #[test]
    fn reentering_long_after_restarts_at_one() {
        let cfg = CodelConfig::default();
        let mut s = CodelState {
            count: 9,
            lastcount: 1,
            drop_next: 0,
            entered: true,
            first_above_time: Some(0),
            ..Default::default()
        };
        let p = Packet {
            size: 1500,
            ..Default::default()
        };
        // 16 intervals after drop_next exactly: not "soon".
        let v = s.on_dequeue(&cfg, &p, 1_000_000, 16 * cfg.interval);
        assert_eq!(v, Verdict::Drop(Reason::Dequeue));
        assert_eq!(s.count, 1);
        // One ns earlier it would have resumed at 8.
        let mut s2 = CodelState {
            count: 9,
            lastcount: 1,
            entered: true,
            first_above_time: Some(0),
            ..Default::default()
        };
        s2.on_dequeue(&cfg, &p, 1_000_000, 16 * cfg.interval - 1);
        assert_eq!(s2.count, 8);
    }

    #[test]
    fn newton_steps_follow_linuxs_integer_arithmetic() {
        // From 0xffff, counts 2..6 (values computed apart from codel_Newton_step's C).
        let mut r = REC_INV_SQRT_ONE;
        let mut got = vec![];
        for count in 2..=6 {
            r = newton_step(count, r);
            got.push(r);
        }
        assert_eq!(got, [32_769, 36_864, 31_968, 28_935, 26_481]);
        // Converges: 1/√100 = 0.1 within 0.1% after steps from count 2 on.
        for count in 7..=100 {
            r = newton_step(count, r);
        }
        assert!((f64::from(r) / 65_536.0 - 0.1).abs() < 1e-4, "{r}");
        // A count raised far past the reciprocal (FQ-CoDel's overflow drops) wraps as in
        // Linux: from 1/√1 towards count 5 the result is 5 / 2^16, a 7.6 µs spacing.
        assert_eq!(newton_step(5, REC_INV_SQRT_ONE), 5);
        assert_eq!(control_law(0, 100_000_000, 5), 7_629);
    }

    #[test]
    fn a_first_entry_starts_at_one_whatever_the_count() {
        // FQ-CoDel's overflow drops raise a flow's count before its CoDel ever dropped:
        // early in a run (now < 16 intervals, drop_next still 0) that is no dropping
        // period to resume (Linux's drop_next 0 lies at boot time).
        let cfg = CodelConfig::default();
        let p = Packet {
            size: 1500,
            ..Default::default()
        };
        let mut s = CodelState {
            count: 40,
            first_above_time: Some(0),
            ..Default::default()
        };
        let v = s.on_dequeue(&cfg, &p, 1_000_000, cfg.interval);
        assert_eq!(v, Verdict::Drop(Reason::Dequeue));
        assert_eq!((s.count, s.lastcount, s.entered), (1, 1, true));
        assert_eq!(s.drop_next, cfg.interval + 99_998_474);
    }

    #[test]
    fn no_signal_while_at_most_one_mtu_waits() {
        let cfg = CodelConfig::default();
        let p = Packet {
            size: 1500,
            ..Default::default()
        };
        let mut s = CodelState {
            first_above_time: Some(0),
            ..Default::default()
        };
        // Sojourn 1 s, but only 1514 bytes behind: no drop, and the timer disarms.
        assert_eq!(s.on_dequeue(&cfg, &p, 1514, 1_000_000_000), Verdict::Pass);
        assert_eq!(s.first_above_time, None);
        // One byte more than an MTU: the timer arms again (and drops after an interval).
        assert_eq!(s.on_dequeue(&cfg, &p, 1515, 1_000_000_000), Verdict::Pass);
        assert_eq!(s.first_above_time, Some(1_100_000_000));
        assert_eq!(
            s.on_dequeue(&cfg, &p, 1515, 1_100_000_000),
            Verdict::Drop(Reason::Dequeue)
        );
        // A larger configured MTU changes the outcome (the parameter is observable).
        let big = CodelConfig {
            mtu: 9000,
            ..CodelConfig::default()
        };
        let mut s = CodelState {
            first_above_time: Some(0),
            ..Default::default()
        };
        assert_eq!(s.on_dequeue(&big, &p, 1515, 1_100_000_000), Verdict::Pass);
    }

    #[test]
    fn ecn_marks_ect_packets_instead_of_dropping() {
        for limit in limits() {
            let cfg = CodelConfig {
                ecn: true,
                ..CodelConfig::default()
            };
            let mut a = PacketArena::default();
            let mut q = queue(cfg, limit);
            fill(&mut q, &mut a, 5000, Ecn::Ect0, 0);
            take(&mut q, &mut a, 5 * MS);
            let mut t = 5 * MS;
            while state(&q).count < 5 {
                t += 100_000;
                let (s, d) = take(&mut q, &mut a, t);
                assert_eq!(d, 0);
                assert!(s.is_some());
            }
            // Same instants as the drops of the Not-ECT case, one mark each, never a drop.
            assert_eq!(q.counters.marked[Reason::Dequeue as usize], 5);
            assert_eq!(q.counters.total_dropped(), 0);
            q.check_conservation(&a).unwrap();
        }
    }

    #[test]
    fn with_ecn_a_not_ect_packet_is_still_dropped_and_a_ce_one_marked() {
        let cfg = CodelConfig {
            ecn: true,
            ..CodelConfig::default()
        };
        for (ecn, want) in [
            (Ecn::NotEct, Verdict::Drop(Reason::Dequeue)),
            (Ecn::Ce, Verdict::Mark(Reason::Dequeue)),
            (Ecn::Ect1, Verdict::Mark(Reason::Dequeue)),
        ] {
            let mut s = CodelState {
                first_above_time: Some(0),
                ..Default::default()
            };
            let p = Packet {
                ecn,
                ..Default::default()
            };
            assert_eq!(s.on_dequeue(&cfg, &p, 1_000_000, 10 * MS), want);
        }
    }

    #[test]
    fn ce_threshold_step_marks_ect_packets_above_it_only() {
        let cfg = CodelConfig {
            ce_threshold: Some(MS),
            ..CodelConfig::default()
        };
        let mut s = CodelState::default();
        let ect = Packet {
            ecn: Ecn::Ect1,
            ..Default::default()
        };
        let not = Packet::default();
        assert_eq!(s.on_dequeue(&cfg, &ect, 0, MS), Verdict::Pass);
        assert_eq!(
            s.on_dequeue(&cfg, &ect, 0, MS + 1),
            Verdict::Mark(Reason::Early)
        );
        // Never turned into a drop of a Not-ECT packet.
        assert_eq!(s.on_dequeue(&cfg, &not, 0, 2 * MS), Verdict::Pass);
    }

    #[test]
    fn ce_threshold_ecn_ect1_step_marks_ect1_only() {
        // Sojourn 1 ms + 1 ns > ce_threshold = 1 ms, with nothing waiting behind (backlog
        // 0 ≤ one MTU) so the control law stays out: only the step can mark. Under "ect1"
        // ECT(1) is marked and ECT(0) is not; under the default "ect" both are. Not-ECT and
        // CE are never step-marked. At a sojourn of exactly 1 ms nothing is (strictly above).
        let at = |sel| {
            let cfg = CodelConfig {
                ce_threshold: Some(MS),
                ce_threshold_ecn: sel,
                ..CodelConfig::default()
            };
            [Ecn::Ect0, Ecn::Ect1, Ecn::NotEct, Ecn::Ce].map(|ecn| {
                let p = Packet {
                    ecn,
                    ..Default::default()
                };
                let above = CodelState::default().on_dequeue(&cfg, &p, 0, MS + 1);
                let at_th = CodelState::default().on_dequeue(&cfg, &p, 0, MS);
                assert_eq!(at_th, Verdict::Pass, "{sel:?} {ecn:?}");
                above
            })
        };
        let m = Verdict::Mark(Reason::Early);
        let o = Verdict::Pass;
        assert_eq!(at(CeThresholdEcn::Ect1), [o, m, o, o]);
        assert_eq!(at(CeThresholdEcn::Ect), [m, m, o, o]);
    }

    #[test]
    fn ce_threshold_ecn_leaves_the_control_law_alone() {
        // With ecn and "ect1", an ECT(0) packet above target for an interval is still
        // marked by the control law (Reason::Dequeue), as in Linux, where the selector only
        // chooses the packets of the step.
        let cfg = CodelConfig {
            ecn: true,
            ce_threshold: Some(MS),
            ce_threshold_ecn: CeThresholdEcn::Ect1,
            ..CodelConfig::default()
        };
        let mut s = CodelState {
            first_above_time: Some(0),
            ..Default::default()
        };
        let p = Packet {
            ecn: Ecn::Ect0,
            ..Default::default()
        };
        assert_eq!(
            s.on_dequeue(&cfg, &p, 1_000_000, 10 * MS),
            Verdict::Mark(Reason::Dequeue)
        );
    }

    #[test]
    fn ce_threshold_ecn_is_read_and_needs_ce_threshold() {
        let spec: CodelSpec =
            toml::from_str("ce_threshold = \"1ms\"\nce_threshold_ecn = \"ect1\"").unwrap();
        assert_eq!(spec.config().ce_threshold_ecn, CeThresholdEcn::Ect1);
        let unset: CodelSpec = toml::from_str("ce_threshold = \"1ms\"").unwrap();
        assert_eq!(unset.config().ce_threshold_ecn, CeThresholdEcn::Ect);
        // Unset is not echoed (canonical forms unchanged); a set value is.
        assert!(!toml::to_string(&unset)
            .unwrap()
            .contains("ce_threshold_ecn"));
        assert!(toml::to_string(&spec)
            .unwrap()
            .contains("ce_threshold_ecn = \"ect1\""));
        let q = QueueCtx {
            limit_pkts: Some(100),
            limit_bytes: None,
            link_bps: 10_000_000,
            nodes: &[],
            hosts: &[],
        };
        let alone: CodelSpec = toml::from_str("ce_threshold_ecn = \"ect1\"").unwrap();
        let mut p = Problems::default();
        alone.validate("aqm", &q, &mut p);
        assert_eq!(p.errors.len(), 1);
        assert_eq!(p.errors[0].path, "aqm.ce_threshold_ecn");
        assert_eq!(p.errors[0].value, "\"ect1\"");
        let mut p = Problems::default();
        spec.validate("aqm", &q, &mut p);
        assert!(p.errors.is_empty());
    }

    #[test]
    fn an_empty_queue_leaves_the_dropping_state() {
        let cfg = CodelConfig::default();
        let mut s = CodelState {
            dropping: true,
            first_above_time: Some(0),
            count: 3,
            ..Default::default()
        };
        s.on_empty();
        assert!(!s.dropping);
        // Linux keeps first_above_time (codel_dequeue with no packet).
        assert_eq!(s.first_above_time, Some(0));
        // The target parameter is observable: a 1 s target never arms the timer at 0.5 s.
        let slow = CodelConfig {
            target: 1_000_000_000,
            ..cfg
        };
        let p = Packet::default();
        s.on_dequeue(&slow, &p, 1_000_000, 500 * MS);
        assert_eq!(s.first_above_time, None);
    }
}
