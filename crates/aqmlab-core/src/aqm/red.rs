//! RED: Random Early Detection (Floyd & Jacobson, IEEE/ACM ToN 1993, Fig. 2 and §11).
//!
//! avg ← (1 − w_q)·avg + w_q·q on each arrival; after an idle period of m "typical small
//! packet" times, avg ← (1 − w_q)^m·avg (paper Fig. 2), computed in O(1) with `libm::pow`
//! (ns-2 and ns-3 loop or hang on long idle periods). p_b = max_p·(avg − min_th)/(max_th −
//! min_th) between the thresholds; above max_th every arrival is dropped (or, in gentle mode,
//! p_b rises linearly from max_p at max_th to 1 at 2·max_th, ns-2 `gentle_`).
//!
//! Where the paper, ns-2 and Linux differ (docs/aqm/red.md) the choice is a parameter:
//! - `count_rule`: how the final probability p_a spaces marks (docs/validation.md, "RED"):
//!   `uniform` (paper / Linux: gaps uniform on 1..1/p_b, marked fraction 2p_b/(1+p_b)),
//!   `ns2` (ns-2 with `wait_ false`: 2p_b), `ns2_wait` (ns-2 default `wait_ true`:
//!   2p_b/(3 − p_b)), `independent` (p_a = p_b), `dsred` (ns-2 DiffServ `dsredq.cc`: count
//!   incremented before use, so the first arrival in the region has p_a = p_b and the one
//!   after a mark p_b/(1 − p_b)). Default `ns2_wait`,
//!   because the seed papers ran ns-2 with its defaults.
//! - The idle decay uses the paper's exponent m (ns-2 uses m + 1); m = idle time × link
//!   packet rate at `mean_pktsize`, as ns-2 (`ptc`), rounded down.
//! - The first arrival after avg crosses min_th is never dropped in the ns-2 rules (ns-2's
//!   `old` flag); the paper's rule starts counting there.
//! - ns-2's guard (`REDQueue::enque`: no early or average-forced decision unless more than
//!   one packet, or byte in byte mode, is already waiting) is the option `ns2_qlen_guard`,
//!   off by default. A suppressed arrival resets the decision state as avg < min_th does
//!   (ns-2 `v_prob = 0`, `old = 0`), and draws no random number.
//! - ECN: early decisions mark ECT packets; above max_th (or 2·max_th in gentle mode) the
//!   packet is dropped unless `mark_above_max_th` (Linux without `harddrop`).
//! - Byte mode: avg and thresholds in bytes (thresholds × mean_pktsize, as ns-2 `qib_`), and
//!   p_a scaled by size/mean_pktsize (ns-2 `bytes_`).

use super::{Aqm, QueueCtx, QueueView, Reason, Verdict};
use crate::check::Problems;
use crate::packet::Packet;
use crate::rng::Rng;
use crate::units::{Time, NS_PER_SEC};
use serde::{Deserialize, Deserializer, Serialize};
use std::fmt;

/// How the count since the last mark spaces RED's marks (docs/aqm/red.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CountRule {
    Uniform,
    Ns2,
    Ns2Wait,
    Independent,
    Dsred,
}

#[derive(Clone, Debug)]
pub struct RedConfig {
    /// Thresholds in packets (multiplied by mean_pktsize in byte mode).
    pub min_th: f64,
    pub max_th: f64,
    pub max_p: f64,
    /// EWMA weight; the automatic value is resolved by `Red::new`.
    pub w_q: Option<f64>,
    pub gentle: bool,
    pub count_rule: CountRule,
    pub byte_mode: bool,
    pub mean_pktsize: u32,
    pub ecn: bool,
    pub mark_above_max_th: bool,
    /// ns-2's guard: decide (early or average-forced) only when the backlog before the
    /// arrival, in the units of avg, is greater than one.
    pub ns2_qlen_guard: bool,
}

/// RED's parameters, resolved for a link (Linux `struct red_parms`): thresholds in the
/// units of the average (packets, or bytes in byte mode), the EWMA weight and the link's
/// packet rate for the idle decay. Read-only on the packet path but for `max_p`, which
/// adaptive variants move.
#[derive(Clone, Debug)]
pub struct RedParams {
    cfg: RedConfig,
    w_q: f64,
    /// Link packets per second at mean_pktsize (ns-2 `ptc`).
    ptc: f64,
    min_th: f64,
    max_th: f64,
}

/// The average queue and the idle clock (Linux `struct red_vars` qavg and qidlestart).
/// A composite keeps one per class or per virtual queue and feeds each its own backlog.
#[derive(Clone, Debug, Default)]
pub struct RedAvg {
    pub avg: f64,
    idle_since: Option<Time>,
}

/// The marking decision's state: the count since the last mark and the last
/// probabilities (Linux `red_vars` qcount, and `red_action`).
#[derive(Clone, Debug)]
pub struct RedMarker {
    /// Arrivals since the last mark while avg is in the early region; −1 below min_th.
    pub count: i64,
    /// Bytes counterpart of `count` for byte-mode spacing (ns-2 `count_bytes`).
    count_bytes: u64,
    last_p_b: f64,
    last_p_a: f64,
}

impl Default for RedMarker {
    fn default() -> Self {
        RedMarker {
            count: -1,
            count_bytes: 0,
            last_p_b: 0.0,
            last_p_a: 0.0,
        }
    }
}

/// RED as Linux `include/net/red.h` shapes it, so that RIO, WRED, BIO and CIOQ-RED can
/// reuse the parts: parameters, an average updated from a backlog the caller passes in
/// (`RedAvg::update`), and a decision from an average the caller passes in
/// (`RedMarker::decide`). `Red` itself is one of each, fed the whole queue.
#[derive(Clone, Debug)]
pub struct Red {
    pub params: RedParams,
    pub est: RedAvg,
    pub marker: RedMarker,
}

/// Automatic w_q = 1 − exp(−1/C), C the link rate in packets/s (ns-2 `q_weight_ 0`;
/// Floyd, Gummadi, Shenker 2001): a time constant of about one second of packets.
pub fn auto_w_q(link_bps: u64, mean_pktsize: u32) -> f64 {
    let c = link_bps as f64 / (8.0 * mean_pktsize as f64);
    1.0 - libm::exp(-1.0 / c)
}

impl RedParams {
    pub fn new(cfg: RedConfig, link_bps: u64) -> RedParams {
        let scale = if cfg.byte_mode {
            cfg.mean_pktsize as f64
        } else {
            1.0
        };
        RedParams {
            w_q: cfg
                .w_q
                .unwrap_or_else(|| auto_w_q(link_bps, cfg.mean_pktsize)),
            ptc: link_bps as f64 / (8.0 * cfg.mean_pktsize as f64),
            min_th: cfg.min_th * scale,
            max_th: cfg.max_th * scale,
            cfg,
        }
    }

    pub fn w_q(&self) -> f64 {
        self.w_q
    }
    pub fn max_p(&self) -> f64 {
        self.cfg.max_p
    }
    /// Adaptive variants move max_p; the gentle ramp follows it (unlike ns-2, whose gentle
    /// segment keeps the initial max_p).
    pub fn set_max_p(&mut self, max_p: f64) {
        self.cfg.max_p = max_p;
    }
    /// Thresholds in the units of avg (packets, or bytes in byte mode).
    pub fn thresholds(&self) -> (f64, f64) {
        (self.min_th, self.max_th)
    }
    pub fn ecn(&self) -> bool {
        self.cfg.ecn
    }
    /// Whether avg and the thresholds are in bytes.
    pub fn byte_mode(&self) -> bool {
        self.cfg.byte_mode
    }

    /// The backlog RED averages: the queue's packets, or its bytes in byte mode.
    pub fn backlog(&self, q: &QueueView) -> f64 {
        if self.cfg.byte_mode {
            q.len_bytes as f64
        } else {
            q.len_pkts as f64
        }
    }

    /// p_b for an average (before spacing), or None above the early region.
    pub fn p_b(&self, avg: f64) -> Option<f64> {
        let (a, lo, hi, max_p) = (avg, self.min_th, self.max_th, self.cfg.max_p);
        if a < hi {
            Some(max_p * (a - lo) / (hi - lo))
        } else if self.cfg.gentle && a < 2.0 * hi {
            Some(max_p + (1.0 - max_p) * (a - hi) / hi)
        } else {
            None
        }
    }

    /// The verdict for a decision: early marks with ECN, forced ones only with
    /// `mark_above_max_th`; everything else drops.
    pub fn verdict(&self, decision: Option<Reason>) -> Verdict {
        match decision {
            None => Verdict::Pass,
            Some(Reason::Forced) if self.cfg.ecn && self.cfg.mark_above_max_th => {
                Verdict::Mark(Reason::Forced)
            }
            Some(r @ Reason::Early) if self.cfg.ecn => Verdict::Mark(r),
            Some(r) => Verdict::Drop(r),
        }
    }

    /// Whether ns-2's guard lets an arrival that finds `backlog` waiting (in the units of
    /// avg) be considered for an early or average-forced decision: always without
    /// `ns2_qlen_guard`, else only if backlog > 1 (ns-2 `qlen > 1` in `REDQueue::enque`).
    pub fn guard_allows(&self, backlog: f64) -> bool {
        !self.cfg.ns2_qlen_guard || backlog > 1.0
    }

    /// Whole packet times of the link in an idle period from `since` to `now`.
    fn idle_packets(&self, since: Time, now: Time) -> f64 {
        libm::floor(self.packet_times(since, now))
    }

    /// Packet times of the link from `since` to `now`, not rounded.
    #[inline]
    fn packet_times(&self, since: Time, now: Time) -> f64 {
        (now - since) as f64 * self.ptc / NS_PER_SEC as f64
    }
}

impl RedAvg {
    /// Brings avg up to date at an arrival that finds `backlog` waiting: the EWMA step, or,
    /// ending an idle period with nothing waiting, the decay by (1 − w_q)^m for the m
    /// packet times the link could have sent. Returns the instant that decay reached.
    #[inline]
    pub fn update(&mut self, p: &RedParams, backlog: f64, now: Time) -> Option<Time> {
        match self.idle_since.take() {
            Some(since) if backlog == 0.0 => {
                let x = p.packet_times(since, now);
                // An idle period shorter than one packet time (nearly every arrival at a
                // port that carries ACKs): x >= 0, so m = floor(x) = 0, (1 − w_q)^0 = 1
                // exactly and no packet time is used; avg and the instant are those of the
                // full computation, without its floor, `pow` and float-to-time conversion.
                if x < 1.0 {
                    return Some(since);
                }
                Some(self.decay(p, since, libm::floor(x)))
            }
            _ => {
                self.avg = (1.0 - p.w_q) * self.avg + p.w_q * backlog;
                None
            }
        }
    }

    /// The decay by (1 − w_q)^m for m >= 1 whole packet times of an idle period that began
    /// at `since`; returns the instant it reached. Out of line: few arrivals need it.
    #[inline(never)]
    fn decay(&mut self, p: &RedParams, since: Time, m: f64) -> Time {
        self.avg *= libm::pow(1.0 - p.w_q, m);
        // The whole packet times used by this decay; the fraction left over is carried if
        // the idle period goes on (see `idle_continues`).
        since + (m * NS_PER_SEC as f64 / p.ptc) as Time
    }

    /// The link went idle at `since`.
    pub fn start_idle(&mut self, since: Time) {
        self.idle_since = Some(since);
    }

    /// An arrival at the idle link was dropped: the idle period goes on from `decayed_to`,
    /// the last whole packet time the decay reached, not from now. Forgetting it would
    /// leave avg above max_th with nothing to lower it but the tiny EWMA steps of the next
    /// arrivals, each of which is dropped: a lock-out (seen with TCP flows and automatic
    /// w_q). Restarting at now would round every decay to zero under arrivals faster than
    /// the link (a lock-out under unresponsive overload).
    pub fn idle_continues(&mut self, decayed_to: Time) {
        self.idle_since = Some(decayed_to);
    }

    /// Ends an idle period at `now` for an average this arrival does not update (a
    /// composite's other classes, RIO's `link_idle`): the decay for the whole packet times
    /// elapsed, and the idle clock stops.
    pub fn end_idle(&mut self, p: &RedParams, now: Time) {
        if let Some(since) = self.idle_since.take() {
            self.avg *= libm::pow(1.0 - p.w_q, p.idle_packets(since, now));
        }
    }

    /// ∫ avg dt over [from, to], in avg·seconds, when avg last changed at or before `from`
    /// and does not change before `to`: held until the idle period (if any) starts, then
    /// decaying as (1 − w_q)^(ptc·t), the continuous form of the idle decay (`update`
    /// applies it in whole packet times: the two differ by less than one packet time's
    /// decay). Since `idle_continues` may date the decay before `from`, the value at `from`
    /// is then already avg·(1 − w_q)^(ptc·(from − idle start)).
    pub fn integral(&self, p: &RedParams, from: Time, to: Time) -> f64 {
        if to <= from {
            return 0.0;
        }
        let secs = |d: i128| d as f64 / NS_PER_SEC as f64;
        let held_to = match self.idle_since {
            Some(s) => s.clamp(from, to),
            None => to,
        };
        let held = self.avg * secs(held_to as i128 - from as i128);
        let (Some(s), true) = (self.idle_since, held_to < to) else {
            return held;
        };
        // λ per second; infinite for w_q = 1 (avg drops to 0 at once).
        let lambda = -libm::log1p(-p.w_q) * p.ptc;
        if !lambda.is_finite() || lambda <= 0.0 {
            return held;
        }
        let x1 = lambda * secs(held_to as i128 - s as i128);
        let d = lambda * secs(to as i128 - held_to as i128);
        held + self.avg * libm::exp(-x1) * -libm::expm1(-d) / lambda
    }

    /// Decays avg for an idle period still going on at `now` (periodic controllers read
    /// an up-to-date average); `empty` says nothing is waiting.
    pub fn decay_idle(&mut self, p: &RedParams, empty: bool, now: Time) {
        if empty {
            if let Some(since) = self.idle_since {
                let m = p.idle_packets(since, now);
                self.avg *= libm::pow(1.0 - p.w_q, m);
                self.idle_since = Some(now);
            }
        }
    }
}

impl RedMarker {
    /// The spacing rule: p_a from p_b and the count (docs/validation.md, "RED").
    fn p_a(&self, p: &RedParams, p_b: f64, size: u32) -> f64 {
        let cfg = &p.cfg;
        let by_bytes = !matches!(cfg.count_rule, CountRule::Uniform | CountRule::Dsred);
        let count = if cfg.byte_mode && by_bytes {
            (self.count_bytes / cfg.mean_pktsize as u64) as f64
        } else {
            self.count as f64
        };
        let cp = count * p_b;
        let mut p_a = match cfg.count_rule {
            CountRule::Independent => p_b,
            CountRule::Uniform | CountRule::Ns2 | CountRule::Dsred => {
                if cp < 1.0 {
                    p_b / (1.0 - cp)
                } else {
                    1.0
                }
            }
            CountRule::Ns2Wait => {
                if cp < 1.0 {
                    0.0
                } else if cp < 2.0 {
                    p_b / (2.0 - cp)
                } else {
                    1.0
                }
            }
        };
        if cfg.byte_mode && p_a < 1.0 {
            p_a *= size as f64 / cfg.mean_pktsize as f64;
        }
        p_a.min(1.0)
    }

    /// Leaves the decision state as below min_th: no count (ns-2 `old = 0`), p_b = p_a = 0.
    fn rest(&mut self) {
        self.count = -1;
        self.count_bytes = 0;
        self.last_p_b = 0.0;
        self.last_p_a = 0.0;
    }

    /// Decides on an arrival of `size` bytes given the average `avg` (the caller's: the
    /// queue's, a class's, or a virtual queue's): none, an early or a forced mark/drop.
    /// Ignores `ns2_qlen_guard`; see `decide_queued`.
    pub fn decide(&mut self, p: &RedParams, avg: f64, size: u32, rng: &mut Rng) -> Option<Reason> {
        if avg < p.min_th {
            self.rest();
            return None;
        }
        let Some(p_b) = p.p_b(avg) else {
            self.count = 0;
            self.count_bytes = 0;
            self.last_p_b = 1.0;
            self.last_p_a = 1.0;
            return Some(Reason::Forced);
        };
        self.last_p_b = p_b;
        let first = self.count < 0;
        match p.cfg.count_rule {
            CountRule::Uniform => {
                // Count the unmarked arrivals *before* this one: the gap to the next mark
                // is then uniform on 1..1/p_b.
                if first {
                    self.count = 0;
                    self.count_bytes = 0;
                }
            }
            CountRule::Dsred => {
                // `dsredq.cc`: count++ before p_a, from −1 below min_th or 0 after a mark.
                self.count += 1;
                self.count_bytes += size as u64;
            }
            _ => {
                if first {
                    // ns-2 `old`: the first arrival in the region starts the count, unmarked.
                    self.count = 1;
                    self.count_bytes = size as u64;
                    self.last_p_a = 0.0;
                    return None;
                }
                self.count += 1;
                self.count_bytes += size as u64;
            }
        }
        let p_a = self.p_a(p, p_b, size);
        self.last_p_a = p_a;
        if rng.uniform() < p_a {
            self.count = 0;
            self.count_bytes = 0;
            Some(Reason::Early)
        } else {
            if p.cfg.count_rule == CountRule::Uniform {
                self.count += 1;
                self.count_bytes += size as u64;
            }
            None
        }
    }

    /// `decide` behind ns-2's guard, for an arrival that finds `backlog` waiting (in the
    /// units of avg). When the guard suppresses the decision, the state is left as below
    /// min_th, as ns-2's `else` branch does (`v_prob = 0`, `old = 0`: the next arrival that
    /// passes the guard starts the count again and is not dropped), and no random number is
    /// drawn. Without `ns2_qlen_guard` this is exactly `decide`.
    #[inline]
    pub fn decide_queued(
        &mut self,
        p: &RedParams,
        avg: f64,
        backlog: f64,
        size: u32,
        rng: &mut Rng,
    ) -> Option<Reason> {
        // Below min_th both branches rest (most arrivals: every ACK on a reverse path): the
        // test comes first, inline, so that it costs no call to `decide`.
        if avg < p.min_th {
            self.rest();
            return None;
        }
        if p.guard_allows(backlog) {
            self.decide(p, avg, size, rng)
        } else {
            self.rest();
            None
        }
    }

    /// A forced (overflow) drop resets the count (docs/validation.md, "Regressions"; ns-2
    /// `ns1_compat_`).
    pub fn forced_drop(&mut self) {
        if self.count >= 0 {
            self.count = 0;
            self.count_bytes = 0;
        }
    }

    /// The last p_b and p_a, for the time series.
    pub fn last_p(&self) -> (f64, f64) {
        (self.last_p_b, self.last_p_a)
    }
}

impl Red {
    pub fn new(cfg: RedConfig, link_bps: u64) -> Red {
        Red {
            params: RedParams::new(cfg, link_bps),
            est: RedAvg::default(),
            marker: RedMarker::default(),
        }
    }

    pub fn w_q(&self) -> f64 {
        self.params.w_q()
    }
    pub fn max_p(&self) -> f64 {
        self.params.max_p()
    }
    pub fn set_max_p(&mut self, max_p: f64) {
        self.params.set_max_p(max_p);
    }
    pub fn thresholds(&self) -> (f64, f64) {
        self.params.thresholds()
    }
    /// ∫ avg dt over [from, to] in avg·seconds, avg unchanged since `from` (`RedAvg::integral`).
    pub fn avg_integral(&self, from: Time, to: Time) -> f64 {
        self.est.integral(&self.params, from, to)
    }

    /// Brings avg up to date for an idle period ending at `now` (for periodic controllers).
    pub fn decay_idle(&mut self, q: &QueueView, now: Time) {
        self.est.decay_idle(&self.params, q.len_pkts == 0, now);
    }

    /// The estimator half of an arrival: brings avg up to date from the whole queue's
    /// backlog and, if the link was idle, returns the instant the decay reached. Adaptive
    /// variants that act "on every average update" (Feng) run between this and
    /// `decide_arrival`.
    pub fn update_avg(&mut self, q: &QueueView, now: Time) -> Option<Time> {
        let backlog = self.params.backlog(q);
        self.est.update(&self.params, backlog, now)
    }

    /// The decision half of an arrival at the queue `q` (as it was before the arrival),
    /// after `update_avg` (which returned `idle`).
    pub fn decide_arrival(
        &mut self,
        q: &QueueView,
        pkt: &Packet,
        idle: Option<Time>,
        rng: &mut Rng,
    ) -> Verdict {
        let backlog = self.params.backlog(q);
        let decision =
            self.marker
                .decide_queued(&self.params, self.est.avg, backlog, pkt.size, rng);
        let verdict = self.params.verdict(decision);
        if let (Some(decayed_to), Verdict::Drop(_)) = (idle, verdict) {
            // Dropped at an empty queue: the link stays idle.
            self.est.idle_continues(decayed_to);
        }
        verdict
    }
}

impl Aqm for Red {
    fn on_arrival(&mut self, q: &QueueView, pkt: &Packet, now: Time, rng: &mut Rng) -> Verdict {
        let idle = self.update_avg(q, now);
        self.decide_arrival(q, pkt, idle, rng)
    }

    fn on_overflow(&mut self, _q: &QueueView, _now: Time) {
        self.marker.forced_drop();
    }

    fn on_idle(&mut self, since: Time) {
        self.est.start_idle(since);
    }

    fn watches_departures(&self) -> bool {
        false
    }

    fn metric_names(&self) -> &'static [&'static str] {
        &["avg", "p_b", "p_a", "count"]
    }

    fn metrics(&self, _q: &QueueView, _now: Time, out: &mut [f64]) {
        let (p_b, p_a) = self.marker.last_p();
        out[0] = self.est.avg;
        out[1] = p_b;
        out[2] = p_a;
        out[3] = self.marker.count as f64;
    }
}

// ---------------------------------------------------------------------------------------
// Spec: the scenario's fields, defaults and checks
// ---------------------------------------------------------------------------------------

/// Declares a RED variant's spec (ARED, Feng, PSAND): its own fields, then RED's shared
/// ones (gentle on by default), which `red_spec!` maps back to a `RedSpec`. A macro, not
/// `#[serde(flatten)]`, because flatten cannot be combined with `deny_unknown_fields`.
macro_rules! red_variant_spec {
    ($(#[$m:meta])* pub struct $name:ident { $($(#[$fm:meta])* pub $f:ident: $t:ty,)* }) => {
        crate::check::packet_spec! {
            $(#[$m])*
            pub struct $name {
                $($(#[$fm])* pub $f: $t,)*
                #[serde(default)]
                pub w_q: crate::aqm::red::Weight,
                #[serde(default = "crate::check::default_true")]
                pub gentle: bool,
                #[serde(default = "crate::aqm::red::default_count_rule")]
                pub count_rule: crate::aqm::red::CountRule,
                #[serde(default)]
                pub mark_above_max_th: bool,
                #[serde(default)]
                pub ns2_qlen_guard: bool,
            }
        }
    };
}
pub(crate) use red_variant_spec;

/// The RED a RED variant's spec starts from (ARED, Feng, PSAND share RED's fields).
macro_rules! red_spec {
    ($s:expr, $min_th:expr, $max_th:expr) => {
        crate::aqm::red::RedSpec {
            min_th: $min_th,
            max_th: $max_th,
            max_p: $s.max_p,
            w_q: $s.w_q,
            gentle: $s.gentle,
            count_rule: $s.count_rule,
            byte_mode: $s.byte_mode,
            mean_pktsize: $s.mean_pktsize,
            ecn: $s.ecn,
            mark_above_max_th: $s.mark_above_max_th,
            ns2_qlen_guard: $s.ns2_qlen_guard,
        }
    };
}
pub(crate) use red_spec;

crate::check::packet_spec! {
/// RED parameters (docs/aqm/red.md). Thresholds in packets (× mean_pktsize in byte mode).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RedSpec {
    pub min_th: f64,
    pub max_th: f64,
    #[serde(default = "default_max_p")]
    pub max_p: f64,
    /// A weight in (0, 1], or "auto" (1 − exp(−1/C), C = link packets/s).
    #[serde(default)]
    pub w_q: Weight,
    #[serde(default)]
    pub gentle: bool,
    #[serde(default = "default_count_rule")]
    pub count_rule: CountRule,
    #[serde(default)]
    pub mark_above_max_th: bool,
    /// ns-2's "more than one packet queued" guard on early and average-forced decisions.
    #[serde(default)]
    pub ns2_qlen_guard: bool,
}
}

pub(crate) fn default_max_p() -> f64 {
    0.1
}

pub(crate) fn default_count_rule() -> CountRule {
    CountRule::Ns2Wait
}

/// A weight given as a number or as the string "auto" — never a magic sentinel number.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub enum Weight {
    #[default]
    Auto,
    Value(f64),
}

impl Weight {
    /// The number, or None for "auto" (resolved by `Red::new`, which knows the link).
    pub fn value(self) -> Option<f64> {
        match self {
            Weight::Auto => None,
            Weight::Value(w) => Some(w),
        }
    }
}

impl Serialize for Weight {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Weight::Auto => s.serialize_str("auto"),
            Weight::Value(v) => s.serialize_f64(*v),
        }
    }
}

impl<'de> Deserialize<'de> for Weight {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl serde::de::Visitor<'_> for V {
            type Value = Weight;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a number in (0, 1] or \"auto\"")
            }
            fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<Weight, E> {
                Ok(Weight::Value(v))
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<Weight, E> {
                Ok(Weight::Value(v as f64))
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Weight, E> {
                Ok(Weight::Value(v as f64))
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Weight, E> {
                if v == "auto" {
                    Ok(Weight::Auto)
                } else {
                    Err(E::custom(format!(
                        "invalid weight \"{v}\": expected a number in (0, 1] or \"auto\""
                    )))
                }
            }
        }
        d.deserialize_any(V)
    }
}

impl RedSpec {
    pub fn validate(&self, a: &str, _q: &QueueCtx, p: &mut Problems) {
        // min_th = max_th is a step: with w_q = 1 and gentle off, every arrival that finds
        // the queue at min_th or above is forced (marked with `mark_above_max_th`): the
        // "step marking at K" that DCTCP expects (RFC 8257 §3.1; docs/aqm/red.md).
        if self.min_th == self.max_th && self.max_th.is_finite() && self.min_th >= 0.0 {
            if self.gentle {
                p.err(
                    format!("{a}.gentle"),
                    "true",
                    "a step (min_th = max_th) needs gentle = false: gentle mode ramps p_b \
                     from max_p to 1 between max_th and 2·max_th",
                );
            }
        } else {
            Self::check_thresholds(a, self.min_th, self.max_th, "", p);
        }
        self.validate_fields(a, p);
    }

    /// RED's thresholds in packets: 0 <= min_th < max_th, finite. `how` says where a
    /// computed threshold came from, for the message.
    pub fn check_thresholds(a: &str, min_th: f64, max_th: f64, how: &str, p: &mut Problems) {
        if !(min_th.is_finite() && min_th >= 0.0) {
            p.err(
                format!("{a}.min_th"),
                min_th,
                format!("must be a finite number >= 0 (packets){how}"),
            );
        }
        if !max_th.is_finite() {
            p.err(
                format!("{a}.max_th"),
                max_th,
                format!("must be a finite number (packets){how}"),
            );
        } else if max_th <= min_th {
            p.err(
                format!("{a}.max_th"),
                max_th,
                format!("must be > min_th = {min_th}{how}"),
            );
        }
    }

    /// The RED fields other than the thresholds (shared by RED, ARED, Feng and PSAND).
    pub fn validate_fields(&self, a: &str, p: &mut Problems) {
        if !(self.max_p.is_finite() && self.max_p > 0.0 && self.max_p <= 1.0) {
            p.err(
                format!("{a}.max_p"),
                self.max_p,
                "must be a probability in (0, 1]",
            );
        }
        if let Weight::Value(w) = self.w_q {
            if !(w.is_finite() && w > 0.0 && w <= 1.0) {
                p.err(format!("{a}.w_q"), w, "must be in (0, 1], or \"auto\"");
            }
        }
        p.mean_pktsize(a, self.mean_pktsize);
        if self.mark_above_max_th && !self.ecn {
            p.err(
                format!("{a}.mark_above_max_th"),
                "true",
                "only meaningful with ecn = true",
            );
        }
    }

    pub fn build(&self, q: &QueueCtx) -> Red {
        Red::new(self.config(), q.link_bps)
    }

    /// The runtime parameters: `w_q = "auto"` is left for `Red::new`, which knows the link.
    pub fn config(&self) -> RedConfig {
        RedConfig {
            min_th: self.min_th,
            max_th: self.max_th,
            max_p: self.max_p,
            w_q: self.w_q.value(),
            gentle: self.gentle,
            count_rule: self.count_rule,
            byte_mode: self.byte_mode,
            mean_pktsize: self.mean_pktsize.0 as u32,
            ecn: self.ecn,
            mark_above_max_th: self.mark_above_max_th,
            ns2_qlen_guard: self.ns2_qlen_guard,
        }
    }
}

#[cfg(test)]
mod tests;
