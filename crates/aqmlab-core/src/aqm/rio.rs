//! RIO, RIO-C, RIO-D and WRED: one RED per drop precedence over a single FIFO.
//!
//! Clark & Fang, "Explicit Allocation of Best-Effort Packet Delivery Service", IEEE/ACM ToN
//! 6(4), 1998 (RIO: IN packets judged by avg_in, an EWMA of the IN packets waiting; OUT
//! packets by avg_total, an EWMA of the whole queue, each with its own min_th, max_th,
//! max_p); ns-2's DiffServ module (Nortel, `diffserv/dsredq.cc`; docs/aqm/rio.md), whose
//! multi-RED modes generalise it to three precedences; RFC 2597 §3 for two-precedence nodes.
//!
//! Precedence levels: a packet's `colour` is its drop precedence; with N levels, green → 0,
//! yellow → 1, red → 2 (N = 3), yellow and red → 1 (N = 2, RFC 2597 §3), all → 0 (N = 1).
//! Level k's RED is RED's own parts (`RedParams`, `RedAvg`, `RedMarker`, red.rs), fed the
//! backlog b the mode defines, from the waiting packets of each level q_j:
//! - `rio_c` (coupled, dsRED default): b_k = Σ_{j≤k} q_j; an arrival of level p updates the
//!   averages of every level k ≥ p. With two levels this *is* Clark & Fang's RIO: avg_0 =
//!   avg_in (IN arrivals only), avg_1 = avg_total (every arrival).
//! - `rio_d` (decoupled): b_k = q_k; an arrival updates its own level's average only.
//! - `wred`: one average of the whole queue, updated on every arrival; each level keeps its
//!   own thresholds and max_p.
//!   avg ← (1 − w_q)·avg + w_q·b before the arrival is added (dsRED `calcAvg`, RED §1.2).
//!
//! Choices (docs/aqm/rio.md):
//! - Count: `count_rule = "dsred"` by default (dsRED: count++ before p_a = p_b/(1 − count·p_b),
//!   −1 below min_th, 0 after a mark; p_a = 1 once count·p_b ≥ 1, where dsRED has no guard).
//! - Idle: `idle_start = "departure"` (dsRED: an average's idle clock starts at the departure
//!   that leaves its backlog empty, and its next update decays it by (1 − w_q)^m, m the link's
//!   packet times since, RED's exponent), or `"link_idle"` (ns-2 `Queue/RED/RIO`, which
//!   inherits RED's: every average idles from the moment the link goes idle; the averages
//!   the first arrival does not update are decayed to its time then).
//! - Above max_th an arrival is a forced drop; with `ecn` dsRED enqueues and marks it
//!   instead (`mark_above_max_th`, default true, which only acts with `ecn`).
//! - ns-2 `Queue/RED/RIO`'s bug (avg_total updated on IN arrivals only, documented in its
//!   source and never fixed) is `total_avg_on_in_only` (rio_c with two levels; default off).
//! - `gentle` and `ns2_qlen_guard` as RED; the guard counts the backlog the level averages,
//!   as `Queue/RED/RIO` (`in_qlen > 1` for IN, `qlen > 1` for OUT); dsRED has neither.
//! - dsRED's RIO-C adds Σ_{j≤k} w_j·q_j, each level's own weight; here w_k·b_k. They differ
//!   only with per-level weights.
//! - dsRED compares avg > min_th and avg ≤ max_th, RED avg ≥ min_th and avg < max_th: the
//!   boundaries, of measure zero for a continuous average, are RED's.
//! - The capacity check is the queue's (after the averages, as for RED); dsRED refuses an
//!   arrival to a full buffer before averaging it.

use super::red::{CountRule, RedAvg, RedConfig, RedMarker, RedParams, RedSpec, Weight};
use super::{drop_level, Aqm, QueueCtx, QueueView, Verdict, NUM_COLOURS};
use crate::check::{default_true, Problems};
use crate::packet::Packet;
use crate::rng::Rng;
use crate::units::Time;
use serde::{Deserialize, Serialize};

/// Which backlog each level's average follows.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RioMode {
    #[default]
    RioC,
    RioD,
    Wred,
}

impl RioMode {
    fn name(self) -> &'static str {
        match self {
            RioMode::RioC => "rio_c",
            RioMode::RioD => "rio_d",
            RioMode::Wred => "wred",
        }
    }
}

/// When an average's idle clock starts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum IdleStart {
    #[default]
    Departure,
    LinkIdle,
}

/// One drop precedence's RED parameters, level 0 (green, IN) first.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RioLevel {
    /// Packets (× mean_pktsize in byte mode), as RED.
    pub min_th: f64,
    pub max_th: f64,
    #[serde(default = "super::red::default_max_p")]
    pub max_p: f64,
    /// This level's EWMA weight; absent: the shared `w_q` (not allowed in `wred`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub w_q: Option<Weight>,
}

crate::check::packet_spec! {
/// RIO / WRED parameters (docs/aqm/rio.md). Defaults: ns-2 `Queue/RED/RIO`'s levels
/// (IN 15/30/0.02, OUT 5/15/0.1) and dsRED's w_q 0.002, mode and count.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RioSpec {
    #[serde(default)]
    pub mode: RioMode,
    #[serde(default = "default_levels")]
    pub levels: Vec<RioLevel>,
    #[serde(default = "default_rio_w_q")]
    pub w_q: Weight,
    #[serde(default)]
    pub gentle: bool,
    #[serde(default = "default_rio_count_rule")]
    pub count_rule: CountRule,
    #[serde(default = "default_true")]
    pub mark_above_max_th: bool,
    #[serde(default)]
    pub idle_start: IdleStart,
    #[serde(default)]
    pub total_avg_on_in_only: bool,
    #[serde(default)]
    pub ns2_qlen_guard: bool,
}
}

fn default_levels() -> Vec<RioLevel> {
    let level = |min_th, max_th, max_p| RioLevel {
        min_th,
        max_th,
        max_p,
        w_q: None,
    };
    vec![level(15.0, 30.0, 0.02), level(5.0, 15.0, 0.1)]
}

fn default_rio_w_q() -> Weight {
    Weight::Value(0.002)
}

fn default_rio_count_rule() -> CountRule {
    CountRule::Dsred
}

impl RioSpec {
    pub fn validate(&self, a: &str, _q: &QueueCtx, p: &mut Problems) {
        let n = self.levels.len();
        if !(1..=NUM_COLOURS).contains(&n) {
            p.err(
                format!("{a}.levels"),
                format!("{n} levels"),
                "must have 1 to 3 levels, one per drop precedence (green, yellow, red)",
            );
        }
        check_weight(format!("{a}.w_q"), self.w_q, p);
        for (i, l) in self.levels.iter().enumerate() {
            let li = format!("{a}.levels[{i}]");
            RedSpec::check_thresholds(&li, l.min_th, l.max_th, "", p);
            if !(l.max_p.is_finite() && l.max_p > 0.0 && l.max_p <= 1.0) {
                p.err(
                    format!("{li}.max_p"),
                    l.max_p,
                    "must be a probability in (0, 1]",
                );
            }
            if let Some(w) = l.w_q {
                if self.mode == RioMode::Wred {
                    p.err(
                        format!("{li}.w_q"),
                        fmt_weight(w),
                        "not allowed in mode \"wred\": its one average has one weight, the \
                         top-level w_q",
                    );
                } else {
                    check_weight(format!("{li}.w_q"), w, p);
                }
            }
        }
        if self.mode != RioMode::RioD {
            self.check_precedence_order(a, p);
        }
        if self.total_avg_on_in_only && !(self.mode == RioMode::RioC && n == 2) {
            p.err(
                format!("{a}.total_avg_on_in_only"),
                "true",
                format!(
                    "only for mode \"rio_c\" with 2 levels (ns-2 Queue/RED/RIO's IN/OUT \
                     averages); here mode \"{}\" with {n}",
                    self.mode.name()
                ),
            );
        }
        p.mean_pktsize(a, self.mean_pktsize);
    }

    /// RFC 2597 §2: a higher drop precedence is never dropped with a smaller probability.
    /// Where the averages are nested (rio_c: avg_k follows levels 0..k) or one (wred), that
    /// holds at every average iff each level's min_th and max_th are <= the previous one's
    /// and its max_p >= (both p_b lines are ordered at min_th of the lower level and at
    /// max_th of the higher, so between them; gentle ramps keep the order).
    fn check_precedence_order(&self, a: &str, p: &mut Problems) {
        let why = format!(
            "in mode \"{}\" a higher drop precedence must not be dropped less (RFC 2597 §2); \
             mode \"rio_d\" averages each level alone and allows any order",
            self.mode.name()
        );
        for (i, w) in self.levels.windows(2).enumerate() {
            let (prev, cur, k) = (&w[0], &w[1], i + 1);
            for (name, c, pv) in [
                ("min_th", cur.min_th, prev.min_th),
                ("max_th", cur.max_th, prev.max_th),
            ] {
                if c > pv {
                    p.err(
                        format!("{a}.levels[{k}].{name}"),
                        c,
                        format!("must be <= levels[{i}].{name} = {pv}: {why}"),
                    );
                }
            }
            if cur.max_p < prev.max_p {
                p.err(
                    format!("{a}.levels[{k}].max_p"),
                    cur.max_p,
                    format!("must be >= levels[{i}].max_p = {}: {why}", prev.max_p),
                );
            }
        }
    }

    /// The RED of level `i`, as `Red` would be configured.
    pub fn level_config(&self, i: usize) -> RedConfig {
        let l = &self.levels[i];
        RedConfig {
            min_th: l.min_th,
            max_th: l.max_th,
            max_p: l.max_p,
            w_q: l.w_q.unwrap_or(self.w_q).value(),
            gentle: self.gentle,
            count_rule: self.count_rule,
            byte_mode: self.byte_mode,
            mean_pktsize: self.mean_pktsize.0 as u32,
            ecn: self.ecn,
            mark_above_max_th: self.mark_above_max_th,
            ns2_qlen_guard: self.ns2_qlen_guard,
        }
    }

    pub fn build(&self, q: &QueueCtx) -> Rio {
        let levels = (0..self.levels.len())
            .map(|i| Level {
                params: RedParams::new(self.level_config(i), q.link_bps),
                avg: RedAvg::default(),
                marker: RedMarker::default(),
            })
            .collect();
        Rio {
            mode: self.mode,
            idle_start: self.idle_start,
            total_avg_on_in_only: self.total_avg_on_in_only,
            byte_mode: self.byte_mode,
            levels,
            link_idle: false,
            last_level: 0,
        }
    }
}

fn check_weight(path: String, w: Weight, p: &mut Problems) {
    if let Weight::Value(v) = w {
        if !(v.is_finite() && v > 0.0 && v <= 1.0) {
            p.err(path, v, "must be in (0, 1], or \"auto\"");
        }
    }
}

fn fmt_weight(w: Weight) -> String {
    match w {
        Weight::Auto => "\"auto\"".into(),
        Weight::Value(v) => v.to_string(),
    }
}

/// One level's RED: its parameters, its average and its decision state.
#[derive(Clone, Debug)]
pub struct Level {
    pub params: RedParams,
    pub avg: RedAvg,
    pub marker: RedMarker,
}

pub struct Rio {
    mode: RioMode,
    idle_start: IdleStart,
    total_avg_on_in_only: bool,
    byte_mode: bool,
    pub levels: Vec<Level>,
    /// The link went idle (`link_idle`) and no arrival has been admitted since.
    link_idle: bool,
    /// The level of the last arrival, which an overflow refers to.
    last_level: usize,
}

/// Metric names, three per level.
const METRICS: [&str; 3 * NUM_COLOURS] = [
    "avg0", "p_b0", "p_a0", "avg1", "p_b1", "p_a1", "avg2", "p_b2", "p_a2",
];

impl Rio {
    /// The waiting packets (or bytes, in byte mode) of each level.
    fn level_backlogs(&self, q: &QueueView) -> [f64; NUM_COLOURS] {
        let mut b = [0.0; NUM_COLOURS];
        for (c, x) in crate::packet::Colour::ALL.into_iter().zip(q.by_colour()) {
            let x = if self.byte_mode {
                x.bytes as f64
            } else {
                x.pkts as f64
            };
            b[drop_level(c, self.levels.len())] += x;
        }
        b
    }

    /// The backlog level k's average follows.
    fn averaged(&self, b: &[f64; NUM_COLOURS], k: usize) -> f64 {
        match self.mode {
            RioMode::RioC => b[..=k].iter().sum(),
            RioMode::RioD => b[k],
            RioMode::Wred => b.iter().sum(),
        }
    }

    /// The averages an arrival (or departure) of level p moves: their indices in `levels`.
    fn touched(&self, p: usize, arrival: bool) -> std::ops::Range<usize> {
        match self.mode {
            RioMode::RioC if arrival && self.total_avg_on_in_only && p > 0 => 0..0,
            RioMode::RioC => p..self.levels.len(),
            RioMode::RioD => p..p + 1,
            RioMode::Wred => 0..1,
        }
    }

    /// The average level p's decisions read.
    pub fn avg_of(&self, p: usize) -> f64 {
        match self.mode {
            RioMode::Wred => self.levels[0].avg.avg,
            _ => self.levels[p].avg.avg,
        }
    }
}

/// RIO's decision on one arrival, before it is settled: what DRIO and URIO refine.
#[derive(Clone, Copy, Debug)]
pub struct Judged {
    pub verdict: Verdict,
    /// The arrival's drop precedence level.
    pub level: usize,
    /// Its level's average lies where RED decides by probability (min_th <= avg, below
    /// max_th, or below 2·max_th with `gentle`): the congested region the extensions act in.
    pub early_region: bool,
    decayed: [Option<Time>; NUM_COLOURS],
}

impl Rio {
    /// Updates the averages an arrival moves and decides on it as RIO would, without yet
    /// settling the idle clocks: `settle` does that once the final verdict is known.
    pub fn judge(&mut self, q: &QueueView, pkt: &Packet, now: Time, rng: &mut Rng) -> Judged {
        let p = drop_level(pkt.colour, self.levels.len());
        self.last_level = p;
        let b = self.level_backlogs(q);
        let mut decayed = [None; NUM_COLOURS];
        for k in self.touched(p, true) {
            let backlog = self.averaged(&b, k);
            let l = &mut self.levels[k];
            decayed[k] = l.avg.update(&l.params, backlog, now);
        }
        let avg = self.avg_of(p);
        let guarded = self.averaged(&b, p);
        let l = &mut self.levels[p];
        let decision = l
            .marker
            .decide_queued(&l.params, avg, guarded, pkt.size, rng);
        let (min_th, _) = l.params.thresholds();
        Judged {
            verdict: l.params.verdict(decision),
            level: p,
            early_region: avg >= min_th && l.params.p_b(avg).is_some(),
            decayed,
        }
    }

    /// Settles an arrival judged by `judge` once its final verdict is known: a dropped
    /// packet leaves the backlogs unchanged, so idle periods go on (RED); an admitted one
    /// ends the link's idle period.
    pub fn settle(&mut self, j: &Judged, dropped: bool, now: Time) {
        if dropped {
            for (k, d) in j.decayed.iter().enumerate() {
                if let Some(decayed_to) = *d {
                    self.levels[k].avg.idle_continues(decayed_to);
                }
            }
        } else if self.link_idle {
            self.link_idle = false;
            let touched = self.touched(j.level, true);
            for k in (0..self.levels.len()).filter(|k| !touched.contains(k)) {
                let l = &mut self.levels[k];
                l.avg.end_idle(&l.params, now);
            }
        }
    }

    /// Whether ECN-capable packets are marked instead of dropped.
    pub fn ecn(&self) -> bool {
        self.levels[0].params.ecn()
    }
}

impl Aqm for Rio {
    fn on_arrival(&mut self, q: &QueueView, pkt: &Packet, now: Time, rng: &mut Rng) -> Verdict {
        let j = self.judge(q, pkt, now, rng);
        self.settle(&j, matches!(j.verdict, Verdict::Drop(_)), now);
        j.verdict
    }

    fn on_departure(&mut self, q: &QueueView, pkt: &Packet, now: Time, _rng: &mut Rng) -> Verdict {
        if self.idle_start == IdleStart::Departure {
            let p = drop_level(pkt.colour, self.levels.len());
            let b = self.level_backlogs(q);
            for k in self.touched(p, false) {
                if self.averaged(&b, k) == 0.0 {
                    self.levels[k].avg.start_idle(now);
                }
            }
        }
        Verdict::Pass
    }

    fn on_overflow(&mut self, _q: &QueueView, _now: Time) {
        self.levels[self.last_level].marker.forced_drop();
    }

    fn on_idle(&mut self, since: Time) {
        if self.idle_start == IdleStart::LinkIdle {
            self.link_idle = true;
            for l in &mut self.levels {
                l.avg.start_idle(since);
            }
        }
    }

    fn metric_names(&self) -> &'static [&'static str] {
        &METRICS[..3 * self.levels.len()]
    }

    fn metrics(&self, _q: &QueueView, _now: Time, out: &mut [f64]) {
        for (k, l) in self.levels.iter().enumerate() {
            let (p_b, p_a) = l.marker.last_p();
            out[3 * k] = self.avg_of(k);
            out[3 * k + 1] = p_b;
            out[3 * k + 2] = p_a;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::aqm::test_support::{pkt, view};
    use crate::aqm::Reason;
    use crate::packet::Colour::{self, Green, Red, Yellow};

    fn spec(mode: RioMode, levels: &[(f64, f64, f64)], w_q: f64) -> RioSpec {
        let mut s: RioSpec = toml::from_str("").unwrap();
        s.mode = mode;
        s.w_q = Weight::Value(w_q);
        s.levels = levels
            .iter()
            .map(|&(min_th, max_th, max_p)| RioLevel {
                min_th,
                max_th,
                max_p,
                w_q: None,
            })
            .collect();
        s
    }

    fn ctx() -> QueueCtx<'static> {
        QueueCtx {
            limit_pkts: Some(1000),
            limit_bytes: None,
            link_bps: 10_000_000,
            nodes: &[],
            hosts: &[],
        }
    }

    #[test]
    fn colours_map_to_levels_as_rfc_2597() {
        let map = |n| Colour::ALL.map(|c| drop_level(c, n));
        assert_eq!(map(3), [0, 1, 2]);
        assert_eq!(map(2), [0, 1, 1]);
        assert_eq!(map(1), [0, 0, 0]);
    }

    /// The averages of the three modes on a scripted sequence, w_q = 0.1 and thresholds far
    /// above (no decision), against values worked by hand in the test's comments.
    #[test]
    fn rio_c_rio_d_and_wred_averages_on_a_scripted_sequence() {
        // (arriving colour, (green, yellow, red) waiting before it)
        let script = [
            (Green, [0, 0, 0]),
            (Yellow, [1, 0, 0]),
            (Red, [1, 1, 0]),
            (Green, [1, 1, 1]),
            (Red, [2, 1, 1]),
        ];
        let levels = [(100.0, 200.0, 0.1), (90.0, 190.0, 0.1), (80.0, 180.0, 0.1)];
        // RIO-C, avg_k of Σ_{j≤k} q_j, arrivals of level p move k >= p:
        //   G: all 0 | Y: avg1 = avg2 = 0.1·1 | R: avg2 = 0.9·0.1 + 0.1·2 = 0.29
        //   G: avg0 = 0.1, avg1 = 0.9·0.1 + 0.2 = 0.29, avg2 = 0.9·0.29 + 0.3 = 0.561
        //   R: avg2 = 0.9·0.561 + 0.4 = 0.9049
        // RIO-D, avg_k of q_k on level-k arrivals: G 0, Y 0, R 0, G avg0 = 0.1, R avg2 = 0.1
        // WRED, one avg of the total 0, 1, 2, 3, 4: 0.1, 0.29, 0.561, 0.9049
        for (mode, expect) in [
            (RioMode::RioC, [0.1, 0.29, 0.9049]),
            (RioMode::RioD, [0.1, 0.0, 0.1]),
            (RioMode::Wred, [0.9049; 3]),
        ] {
            let mut rio = spec(mode, &levels, 0.1).build(&ctx());
            let mut rng = Rng::for_component(1, 0, "t");
            for (c, q) in script {
                assert_eq!(
                    rio.on_arrival(&view(q), &pkt(c), 0, &mut rng),
                    Verdict::Pass
                );
            }
            for (k, e) in expect.into_iter().enumerate() {
                assert!(
                    (rio.avg_of(k) - e).abs() < 1e-12,
                    "{mode:?} avg{k} = {}",
                    rio.avg_of(k)
                );
            }
        }
    }

    /// Clark & Fang's RIO, written out from the paper with RED's parts: avg_in an EWMA of
    /// the IN packets on IN arrivals, avg_total of the whole queue on every arrival, IN
    /// judged on avg_in, OUT on avg_total. RIO-C with two levels decides the same, draw
    /// for draw; with `total_avg_on_in_only`, ns-2 Queue/RED/RIO's bug, avg_total moves on
    /// IN arrivals only.
    #[test]
    fn the_original_rio_is_rio_c_with_two_levels() {
        for bug in [false, true] {
            let mut s = spec(RioMode::RioC, &[(6.0, 14.0, 0.05), (2.0, 6.0, 0.3)], 0.05);
            s.total_avg_on_in_only = bug;
            let mut rio = s.build(&ctx());
            let (p_in, p_out) = (
                RedParams::new(s.level_config(0), 10_000_000),
                RedParams::new(s.level_config(1), 10_000_000),
            );
            let (mut avg_in, mut avg_total) = (RedAvg::default(), RedAvg::default());
            let (mut m_in, mut m_out) = (RedMarker::default(), RedMarker::default());
            let mut r1 = Rng::for_component(3, 0, "rio");
            let mut r2 = Rng::for_component(3, 0, "rio");
            let mut script = Rng::for_component(4, 0, "script");
            let (mut decided, mut parted_avgs) = (0, false);
            for i in 0..20_000u64 {
                let (g, r) = ((i / 7 % 12) as u32, (i / 3 % 17) as u32);
                let is_in = script.bernoulli(0.4);
                let c = if is_in { Green } else { Red };
                let v = rio.on_arrival(&view([g, 0, r]), &pkt(c), i, &mut r1);
                if is_in {
                    avg_in.update(&p_in, g as f64, i);
                }
                if is_in || !bug {
                    avg_total.update(&p_out, (g + r) as f64, i);
                }
                let reference = if is_in {
                    p_in.verdict(m_in.decide(&p_in, avg_in.avg, 1000, &mut r2))
                } else {
                    p_out.verdict(m_out.decide(&p_out, avg_total.avg, 1000, &mut r2))
                };
                assert_eq!(v, reference, "arrival {i} (bug {bug})");
                assert_eq!((rio.avg_of(0), rio.avg_of(1)), (avg_in.avg, avg_total.avg));
                decided += (v != Verdict::Pass) as u32;
                parted_avgs |= (avg_in.avg - avg_total.avg).abs() > 1.0;
            }
            assert!(decided > 500 && parted_avgs, "{decided}");
        }
    }

    /// dsRED's idle rule: a level's average idles from the departure that empties its
    /// backlog, while other levels keep the link busy; its next update decays it by
    /// (1 − w_q)^m, m the link's packet times since (1250 packets/s at 10 Mb/s).
    #[test]
    fn a_level_idles_from_the_departure_that_empties_it() {
        let mut rio = spec(
            RioMode::RioD,
            &[(100.0, 200.0, 0.1), (100.0, 200.0, 0.1)],
            0.1,
        )
        .build(&ctx());
        let mut rng = Rng::for_component(1, 0, "t");
        rio.levels[1].avg.avg = 10.0;
        rio.levels[0].avg.avg = 10.0;
        let ms = 1_000_000;
        // A red packet leaves, no red waits (green does): level 1 idles from 1 ms.
        rio.on_departure(&view([5, 0, 0]), &pkt(Red), ms, &mut rng);
        // A green one leaves with green still waiting: level 0 does not idle.
        rio.on_departure(&view([4, 0, 0]), &pkt(Green), 2 * ms, &mut rng);
        rio.on_arrival(&view([4, 0, 0]), &pkt(Red), 81 * ms, &mut rng);
        assert_eq!(rio.avg_of(1), 10.0 * libm::pow(0.9, 100.0));
        rio.on_arrival(&view([4, 0, 1]), &pkt(Green), 82 * ms, &mut rng);
        assert!((rio.avg_of(0) - (0.9 * 10.0 + 0.4)).abs() < 1e-12);
        // `link_idle`: departures start nothing; the link going idle starts every level.
        let mut s = spec(
            RioMode::RioD,
            &[(100.0, 200.0, 0.1), (100.0, 200.0, 0.1)],
            0.1,
        );
        s.idle_start = IdleStart::LinkIdle;
        let mut rio = s.build(&ctx());
        rio.levels[0].avg.avg = 10.0;
        rio.levels[1].avg.avg = 10.0;
        rio.on_departure(&view([0, 0, 0]), &pkt(Red), ms, &mut rng);
        rio.on_idle(2 * ms);
        rio.on_arrival(&view([0, 0, 0]), &pkt(Red), 82 * ms, &mut rng);
        assert_eq!(rio.avg_of(1), 10.0 * libm::pow(0.9, 100.0));
        // The level the arrival did not update is decayed to its time, then runs on.
        assert_eq!(rio.avg_of(0), 10.0 * libm::pow(0.9, 100.0));
    }

    #[test]
    fn above_max_th_ecn_marks_unless_told_otherwise_and_overflow_resets_the_level_count() {
        let mut s = spec(RioMode::RioC, &[(5.0, 10.0, 0.1), (2.0, 4.0, 0.2)], 1.0);
        s.ecn = true;
        let mut rng = Rng::for_component(1, 0, "t");
        let mut rio = s.build(&ctx());
        // w_q = 1: avg is the backlog. Red arrival finding 6 waiting: above max_th = 4.
        let forced = rio.on_arrival(&view([6, 0, 0]), &pkt(Red), 0, &mut rng);
        assert_eq!(forced, Verdict::Mark(Reason::Forced));
        // Green finding 6: early region of level 0 (p_b = 0.02); count 60 makes p_a = 1.
        rio.levels[0].marker.count = 60;
        let early = rio.on_arrival(&view([6, 0, 0]), &pkt(Green), 0, &mut rng);
        assert_eq!(early, Verdict::Mark(Reason::Early));
        rio.levels[0].marker.count = 7;
        rio.levels[1].marker.count = 7;
        rio.on_arrival(&view([6, 0, 0]), &pkt(Green), 0, &mut rng);
        rio.on_overflow(&view([6, 0, 0]), 0);
        assert_eq!(
            (rio.levels[0].marker.count, rio.levels[1].marker.count),
            (0, 7)
        );
        s.mark_above_max_th = false;
        let mut rio = s.build(&ctx());
        let v = rio.on_arrival(&view([6, 0, 0]), &pkt(Red), 0, &mut rng);
        assert_eq!(v, Verdict::Drop(Reason::Forced));
    }

    /// The precedence order is required where the averages are nested or one, not in
    /// rio_d, whose levels average different backlogs (a small IN aggregate may warrant
    /// lower IN thresholds than OUT's).
    #[test]
    fn rio_d_accepts_levels_in_any_order() {
        let levels = [(5.0, 15.0, 0.2), (10.0, 30.0, 0.1)];
        let errors = |mode| {
            let mut p = Problems::default();
            spec(mode, &levels, 0.002).validate("aqm", &ctx(), &mut p);
            p.errors.into_iter().map(|e| e.path).collect::<Vec<_>>()
        };
        assert!(errors(RioMode::RioD).is_empty());
        let ordered = [
            "aqm.levels[1].min_th",
            "aqm.levels[1].max_th",
            "aqm.levels[1].max_p",
        ];
        assert_eq!(errors(RioMode::RioC), ordered);
        assert_eq!(errors(RioMode::Wred), ordered);
    }

    /// ns-2 Queue/RED/RIO's guard: IN decisions need more than one IN packet waiting
    /// (`in_qlen > 1`), OUT ones more than one packet of any colour (`qlen > 1`).
    #[test]
    fn the_ns2_guard_counts_the_backlog_the_level_averages() {
        let levels = [(5.0, 10.0, 0.1), (2.0, 4.0, 0.2)];
        let mut rng = Rng::for_component(1, 0, "t");
        for guard in [false, true] {
            let mut s = spec(RioMode::RioC, &levels, 0.002);
            s.ns2_qlen_guard = guard;
            let mut rio = s.build(&ctx());
            // Both averages far above max_th; one green and 19 red waiting.
            rio.levels[0].avg.avg = 50.0;
            rio.levels[1].avg.avg = 50.0;
            let v = rio.on_arrival(&view([1, 0, 19]), &pkt(Green), 0, &mut rng);
            let want = if guard {
                Verdict::Pass
            } else {
                Verdict::Drop(Reason::Forced)
            };
            assert_eq!(v, want, "IN, guard {guard}");
            let v = rio.on_arrival(&view([1, 0, 19]), &pkt(Red), 0, &mut rng);
            assert_eq!(v, Verdict::Drop(Reason::Forced), "OUT, guard {guard}");
            let v = rio.on_arrival(&view([2, 0, 0]), &pkt(Green), 0, &mut rng);
            assert_eq!(
                v,
                Verdict::Drop(Reason::Forced),
                "2 IN waiting, guard {guard}"
            );
        }
    }

    #[test]
    fn metrics_are_three_per_level() {
        let rio = spec(RioMode::Wred, &[(5.0, 10.0, 0.1), (2.0, 4.0, 0.2)], 0.1).build(&ctx());
        assert_eq!(
            rio.metric_names(),
            ["avg0", "p_b0", "p_a0", "avg1", "p_b1", "p_a1"]
        );
    }
}
