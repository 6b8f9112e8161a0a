//! BIO: BLUE with In and Out, one BLUE probability per drop precedence over a single FIFO.
//!
//! Okuroglu & Oktug, "BIO Revisited", Istanbul Technical University, Section 3.2 (docs/aqm/bio.md), after
//! their "BID: An Alternative to RID" (SPIE ITCom 2001). Level p (0 = green/IN, the lowest
//! drop precedence) has its own BLUE probability pm_p (`BlueProb`, blue.rs) with increment
//! δ1, decrement δ2 and separate increment and decrement freeze times, a max_th_p and, for
//! the T rule only, a min_th_p. With q_i the waiting packets of level i, N levels:
//!
//! | rule | S (single) | A (all) | T (threshold) | I (idle) |
//! |---|---|---|---|---|
//! | decrement pm_p when | q_p = 0 | Σ_{i≤p} q_i = 0 | | |
//! | increment pm_p (and force a drop) when | q_p > max_th_p | Σ_{i≤p} q_i > max_th_p | | |
//! | mark a level-p arrival with pm_p when | | | Σ_{i≤p} q_i > min_th_p | Σ_{i>p} q_i = 0 |
//!
//! The variant is the three letters Decrement, Increment, Mark: SST, SAT, AST, AAT, SSI,
//! SAI, ASI, AAI (the paper evaluates AAI). Where the paper is silent, ns-2-era BLUE
//! (blue.rs, docs/aqm/blue.md) decides:
//! - The decrement rule is evaluated at every departure, for every level, on the backlog
//!   the departure leaves (BLUE's "link idle": the departure that empties the buffer), each
//!   subject to its decrement freeze. While the link is idle nothing departs: with
//!   `idle_catchup` (BLUE's) the next arrival applies one decrement per decrement freeze
//!   time of the idle period to every level (all rules hold on an empty buffer).
//! - The increment rule is evaluated on an arrival of level p, against the backlog it
//!   finds: when it holds, pm_p += δ1 (subject to the increment freeze) and the arrival is
//!   dropped (the paper's "forced drop and inc pm_p"; a drop even with ECN).
//! - A buffer overflow (the queue refuses an arrival BIO passed) is a congestion event of
//!   the arrival's level, as in BLUE: pm_p += δ1 subject to the freeze.
//! - Otherwise, if the mark rule holds, the arrival is marked (ECN-capable, with `ecn`) or
//!   dropped with probability pm_p (× size/mean_pktsize in byte mode, as BLUE).
//! - T reads min_th (the paper's prose: "only the last alternative for the lower threshold
//!   comparison"; its garbled table shows max_th). I needs no min_th, and rejects one.
//! - Freezes: `freeze_inc`/`freeze_dec` (two clocks, Feng's ns code and the paper) or
//!   `freeze_time` (one clock for both, BLUE's paper), per level.
//!
//! With one level every S/A pair coincides and I always holds, so BIO-xxI with one level,
//! `freeze_time` = BLUE's and max_th at the buffer limit (no forced drops) is BLUE without
//! `increase_threshold`, draw for draw (tests/aqm_rio_bio.rs). T is not BLUE: it never
//! marks an arrival finding no more than min_th >= 0 packets, and BLUE marks at any queue.

use super::blue::{default_blue_d1, default_blue_d2, BlueParams, BlueProb, Freeze};
use super::{drop_level, Aqm, QueueCtx, QueueView, Reason, Verdict, NUM_COLOURS};
use crate::check::{default_true, invalid_value, Problems};
use crate::packet::{Colour, Packet};
use crate::rng::Rng;
use crate::units::{Duration, Time};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

/// The three letters, parsed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BioVariant {
    /// Decrement when levels 0..p are empty (A) instead of level p alone (S).
    pub dec_all: bool,
    /// Increment when levels 0..p exceed max_th (A) instead of level p alone (S).
    pub inc_all: bool,
    /// Mark when no higher drop precedence waits (I) instead of levels 0..p > min_th (T).
    pub mark_idle: bool,
}

pub const BIO_VARIANTS: [&str; 8] = ["SST", "SAT", "AST", "AAT", "SSI", "SAI", "ASI", "AAI"];

impl BioVariant {
    pub fn parse(s: &str) -> Option<BioVariant> {
        let sa = |c: u8| match c {
            b'S' => Some(false),
            b'A' => Some(true),
            _ => None,
        };
        let [d, i, m] = s.as_bytes() else { return None };
        Some(BioVariant {
            dec_all: sa(*d)?,
            inc_all: sa(*i)?,
            mark_idle: match m {
                b'T' => false,
                b'I' => true,
                _ => return None,
            },
        })
    }
}

impl fmt::Display for BioVariant {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        let sa = |all| if all { 'A' } else { 'S' };
        let m = if self.mark_idle { 'I' } else { 'T' };
        write!(f, "{}{}{m}", sa(self.dec_all), sa(self.inc_all))
    }
}

impl Serialize for BioVariant {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// Parsed once, as the scenario is read, so that building cannot meet a bad variant; the
/// error names the value and the eight allowed, as a validation problem would.
impl<'de> Deserialize<'de> for BioVariant {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<BioVariant, D::Error> {
        let s = String::deserialize(d)?;
        BioVariant::parse(&s).ok_or_else(|| {
            invalid_value(
                format!("\"{s}\""),
                format!(
                    "must be three letters: decrement S or A, increment S or A, mark T or I \
                     (one of {})",
                    BIO_VARIANTS.map(|v| format!("\"{v}\"")).join(", ")
                ),
            )
        })
    }
}

/// One drop precedence's BLUE, level 0 (green, IN) first.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BioLevel {
    /// δ1, added to pm_p on a congestion event of this level.
    #[serde(default = "default_blue_d1")]
    pub d1: f64,
    /// δ2, subtracted when the decrement rule holds.
    #[serde(default = "default_blue_d2")]
    pub d2: f64,
    /// Minimum time between two increments (default 100 ms, BLUE's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub freeze_inc: Option<Duration>,
    /// Minimum time between two decrements (default 100 ms).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub freeze_dec: Option<Duration>,
    /// One clock for both kinds of change (BLUE's paper), instead of the two above.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub freeze_time: Option<Duration>,
    /// Packets (× mean_pktsize in byte mode).
    pub max_th: f64,
    /// Packets; the T mark rule only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_th: Option<f64>,
}

impl BioLevel {
    fn freeze(&self) -> Freeze {
        let dflt = super::blue::default_blue_freeze();
        match self.freeze_time {
            Some(f) => Freeze::Shared(f.0),
            None => Freeze::Separate {
                inc: self.freeze_inc.unwrap_or(dflt).0,
                dec: self.freeze_dec.unwrap_or(dflt).0,
            },
        }
    }
}

crate::check::packet_spec! {
/// BIO parameters (docs/aqm/bio.md).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BioSpec {
    /// Decrement, increment and mark rules, one letter each.
    #[serde(default = "default_variant")]
    pub variant: BioVariant,
    pub levels: Vec<BioLevel>,
    /// One more decrement per decrement freeze time of link idleness, at the next arrival.
    #[serde(default = "default_true")]
    pub idle_catchup: bool,
}
}

/// AAI, the variant the paper evaluates.
fn default_variant() -> BioVariant {
    BioVariant {
        dec_all: true,
        inc_all: true,
        mark_idle: true,
    }
}

impl BioSpec {
    pub fn validate(&self, a: &str, _q: &QueueCtx, p: &mut Problems) {
        let n = self.levels.len();
        if !(1..=NUM_COLOURS).contains(&n) {
            p.err(
                format!("{a}.levels"),
                format!("{n} levels"),
                "must have 1 to 3 levels, one per drop precedence (green, yellow, red)",
            );
        }
        for (i, l) in self.levels.iter().enumerate() {
            self.check_level(a, i, l, p);
        }
        self.check_precedence_order(a, p);
        p.mean_pktsize(a, self.mean_pktsize);
    }

    fn check_level(&self, a: &str, i: usize, l: &BioLevel, p: &mut Problems) {
        let li = format!("{a}.levels[{i}]");
        p.unit_interval(format!("{li}.d1"), l.d1);
        p.unit_interval(format!("{li}.d2"), l.d2);
        for (name, f) in [
            ("freeze_inc", l.freeze_inc),
            ("freeze_dec", l.freeze_dec),
            ("freeze_time", l.freeze_time),
        ] {
            if let Some(f) = f {
                p.time_at_most(format!("{li}.{name}"), f);
            }
        }
        if let (Some(f), true) = (
            l.freeze_time,
            l.freeze_inc.is_some() || l.freeze_dec.is_some(),
        ) {
            p.err(
                format!("{li}.freeze_time"),
                format!("\"{}\"", crate::units::format_time(f.0)),
                "give either freeze_time (one clock, as BLUE) or freeze_inc and freeze_dec \
                 (two clocks, as the BIO paper), not both",
            );
        }
        let dec = match l.freeze() {
            Freeze::Shared(f) | Freeze::Separate { dec: f, .. } => f,
        };
        if self.idle_catchup && dec == 0 {
            p.err(
                format!("{a}.idle_catchup"),
                "true",
                format!(
                    "needs a decrement freeze time > 0 at levels[{i}] (one decrement per \
                     freeze time of idleness); set idle_catchup = false or a freeze time"
                ),
            );
        }
        if !(l.max_th.is_finite() && l.max_th > 0.0) {
            p.err(
                format!("{li}.max_th"),
                l.max_th,
                "must be a finite number > 0 (packets)",
            );
        }
        match (self.variant.mark_idle, l.min_th) {
            (false, None) => p.err(
                format!("{li}.min_th"),
                "unset",
                format!("required by the T mark rule (variant \"{}\")", self.variant),
            ),
            (true, Some(m)) => p.err(
                format!("{li}.min_th"),
                m,
                format!(
                    "not used by the I mark rule (variant \"{}\"): remove it, or use a T variant",
                    self.variant
                ),
            ),
            (_, Some(m)) if !(m.is_finite() && m >= 0.0) => p.err(
                format!("{li}.min_th"),
                m,
                "must be a finite number >= 0 (packets)",
            ),
            (_, Some(m)) if m >= l.max_th => p.err(
                format!("{li}.min_th"),
                m,
                format!("must be < max_th = {}", l.max_th),
            ),
            _ => {}
        }
    }

    /// RFC 2597 §2 where the rule compares cumulative backlogs (A increments, T marks):
    /// Σ_{i≤p+1} q_i >= Σ_{i≤p} q_i, so a higher drop precedence whose threshold were
    /// larger would be spared while a lower one is dropped or marked.
    fn check_precedence_order(&self, a: &str, p: &mut Problems) {
        let v = self.variant;
        for (i, w) in self.levels.windows(2).enumerate() {
            let k = i + 1;
            let mut order = |name: &str, c: f64, pv: f64, letter: &str| {
                if c > pv {
                    p.err(
                        format!("{a}.levels[{k}].{name}"),
                        c,
                        format!(
                            "must be <= levels[{i}].{name} = {pv}: the {letter} rule compares \
                             the backlog of levels 0..p, and a higher drop precedence must not \
                             be dropped less (RFC 2597 §2)"
                        ),
                    );
                }
            };
            if v.inc_all {
                order("max_th", w[1].max_th, w[0].max_th, "A increment");
            }
            if let (false, Some(c), Some(pv)) = (v.mark_idle, w[1].min_th, w[0].min_th) {
                order("min_th", c, pv, "T mark");
            }
        }
    }

    pub fn build(&self, _q: &QueueCtx) -> Bio {
        let scale = if self.byte_mode {
            self.mean_pktsize.0 as f64
        } else {
            1.0
        };
        Bio {
            variant: self.variant,
            levels: self
                .levels
                .iter()
                .map(|l| BioState {
                    prob: BlueProb::new(BlueParams {
                        d1: l.d1,
                        d2: l.d2,
                        freeze: l.freeze(),
                    }),
                    max_th: l.max_th * scale,
                    min_th: l.min_th.map_or(0.0, |m| m * scale),
                })
                .collect(),
            idle_catchup: self.idle_catchup,
            byte_mode: self.byte_mode,
            mean_pktsize: self.mean_pktsize.0 as u32,
            ecn: self.ecn,
            idle_since: None,
            last_level: 0,
        }
    }
}

/// One level's probability and thresholds (in the units of the backlog).
#[derive(Clone, Debug)]
pub struct BioState {
    pub prob: BlueProb,
    max_th: f64,
    min_th: f64,
}

pub struct Bio {
    variant: BioVariant,
    pub levels: Vec<BioState>,
    idle_catchup: bool,
    byte_mode: bool,
    mean_pktsize: u32,
    ecn: bool,
    idle_since: Option<Time>,
    /// The level of the last arrival, which an overflow refers to.
    last_level: usize,
}

const METRICS: [&str; 3 * NUM_COLOURS] = [
    "p_m0",
    "increments0",
    "decrements0",
    "p_m1",
    "increments1",
    "decrements1",
    "p_m2",
    "increments2",
    "decrements2",
];

impl Bio {
    /// q_i of each level, in packets (bytes in byte mode).
    fn backlogs(&self, q: &QueueView) -> [f64; NUM_COLOURS] {
        let mut b = [0.0; NUM_COLOURS];
        for (c, x) in Colour::ALL.into_iter().zip(q.by_colour()) {
            let x = if self.byte_mode {
                x.bytes as f64
            } else {
                x.pkts as f64
            };
            b[drop_level(c, self.levels.len())] += x;
        }
        b
    }

    fn decrement_holds(&self, b: &[f64; NUM_COLOURS], p: usize) -> bool {
        if self.variant.dec_all {
            b[..=p].iter().all(|&x| x == 0.0)
        } else {
            b[p] == 0.0
        }
    }

    fn increment_holds(&self, b: &[f64; NUM_COLOURS], p: usize) -> bool {
        let q = if self.variant.inc_all {
            b[..=p].iter().sum()
        } else {
            b[p]
        };
        q > self.levels[p].max_th
    }

    fn mark_holds(&self, b: &[f64; NUM_COLOURS], p: usize) -> bool {
        if self.variant.mark_idle {
            b[p + 1..].iter().all(|&x| x == 0.0)
        } else {
            b[..=p].iter().sum::<f64>() > self.levels[p].min_th
        }
    }

    /// The probability a level-p arrival of `size` bytes is marked (BLUE's byte scaling).
    pub fn p_packet(&self, p: usize, size: u32) -> f64 {
        let pm = self.levels[p].prob.p_m;
        if self.byte_mode {
            (pm * size as f64 / self.mean_pktsize as f64).min(1.0)
        } else {
            pm
        }
    }
}

impl Aqm for Bio {
    fn on_arrival(&mut self, q: &QueueView, pkt: &Packet, now: Time, rng: &mut Rng) -> Verdict {
        if let Some(since) = self.idle_since.take() {
            if self.idle_catchup {
                for l in &mut self.levels {
                    l.prob.decrease_idle(since, now);
                }
            }
        }
        let p = drop_level(pkt.colour, self.levels.len());
        self.last_level = p;
        let b = self.backlogs(q);
        if self.increment_holds(&b, p) {
            self.levels[p].prob.increase(now);
            return Verdict::Drop(Reason::Forced);
        }
        if self.mark_holds(&b, p) && rng.bernoulli(self.p_packet(p, pkt.size)) {
            if self.ecn {
                Verdict::Mark(Reason::Early)
            } else {
                Verdict::Drop(Reason::Early)
            }
        } else {
            Verdict::Pass
        }
    }

    fn on_departure(&mut self, q: &QueueView, _pkt: &Packet, now: Time, _rng: &mut Rng) -> Verdict {
        let b = self.backlogs(q);
        for p in 0..self.levels.len() {
            if self.decrement_holds(&b, p) {
                self.levels[p].prob.decrease(now);
            }
        }
        Verdict::Pass
    }

    fn on_overflow(&mut self, _q: &QueueView, now: Time) {
        self.levels[self.last_level].prob.increase(now);
    }

    fn on_idle(&mut self, since: Time) {
        self.idle_since = Some(since);
    }

    fn metric_names(&self) -> &'static [&'static str] {
        &METRICS[..3 * self.levels.len()]
    }

    fn metrics(&self, _q: &QueueView, _now: Time, out: &mut [f64]) {
        for (k, l) in self.levels.iter().enumerate() {
            out[3 * k] = l.prob.p_m;
            out[3 * k + 1] = l.prob.increments as f64;
            out[3 * k + 2] = l.prob.decrements as f64;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::aqm::test_support::{self, pkt};
    use crate::packet::Colour::{Green, Red};

    const MS: Time = 1_000_000;

    /// Two levels: IN (max_th 200, min_th 10), OUT (max_th 50, min_th 5); δ1 0.02, δ2 0.01,
    /// freezes 1 ms. `min_th` only for T variants.
    fn bio(variant: &str) -> Bio {
        let t = variant.ends_with('T');
        let level = |max_th: f64, min_th: f64| BioLevel {
            d1: 0.02,
            d2: 0.01,
            freeze_inc: Some(Duration(MS)),
            freeze_dec: Some(Duration(MS)),
            freeze_time: None,
            max_th,
            min_th: t.then_some(min_th),
        };
        let mut s: BioSpec = toml::from_str("levels = []").unwrap();
        s.variant = BioVariant::parse(variant).unwrap();
        s.levels = vec![level(200.0, 10.0), level(50.0, 5.0)];
        let ctx = QueueCtx {
            limit_pkts: Some(1000),
            limit_bytes: None,
            link_bps: 10_000_000,
            nodes: &[],
            hosts: &[],
        };
        let mut p = Problems::default();
        s.validate("aqm", &ctx, &mut p);
        assert!(p.is_empty(), "{:?}", p.errors);
        s.build(&ctx)
    }

    /// (green, red) packets waiting.
    fn view(g: u32, r: u32) -> QueueView {
        test_support::view([g, 0, r])
    }

    #[test]
    fn the_eight_variants_parse_and_nothing_else_does() {
        for v in BIO_VARIANTS {
            let b = BioVariant::parse(v).unwrap();
            let letters = [
                if b.dec_all { 'A' } else { 'S' },
                if b.inc_all { 'A' } else { 'S' },
                if b.mark_idle { 'I' } else { 'T' },
            ];
            assert_eq!(letters.iter().collect::<String>(), v);
            assert_eq!(b.to_string(), v, "the canonical echo");
        }
        for bad in ["", "AA", "AAIA", "aai", "AAX", "TAI", "AIA", "ÄAI"] {
            assert_eq!(BioVariant::parse(bad), None, "{bad}");
        }
    }

    /// Decrement letter. A green packet leaves 3 green and no red waiting: q_OUT = 0 (S
    /// decrements pm_OUT) but q_IN + q_OUT = 3 (A does not). pm_IN never: q_IN = 3.
    #[test]
    fn decrement_s_uses_the_level_alone_and_a_the_levels_up_to_it() {
        let mut rng = Rng::for_component(1, 0, "t");
        for (variant, out_after) in [("SAI", 0.49), ("AAI", 0.5), ("SST", 0.49), ("AST", 0.5)] {
            let mut b = bio(variant);
            b.levels[0].prob.p_m = 0.5;
            b.levels[1].prob.p_m = 0.5;
            b.on_departure(&view(3, 0), &pkt(Green), 10 * MS, &mut rng);
            assert_eq!(b.levels[1].prob.p_m, out_after, "{variant}");
            assert_eq!(b.levels[0].prob.p_m, 0.5, "{variant}");
            // The empty buffer satisfies both letters, for both levels.
            b.on_departure(&view(0, 0), &pkt(Green), 20 * MS, &mut rng);
            assert_eq!(b.levels[0].prob.p_m, 0.49, "{variant}");
        }
    }

    /// Increment letter. A red arrival finds 100 green and 10 red: q_OUT = 10 <= 50 (S: no
    /// event; the I rule then marks at pm_OUT = 0, i.e. passes) but 110 > 50 (A: forced
    /// drop and pm_OUT += 0.02).
    #[test]
    fn increment_s_uses_the_level_alone_and_a_the_levels_up_to_it() {
        let mut rng = Rng::for_component(1, 0, "t");
        for (variant, verdict, pm) in [
            ("ASI", Verdict::Pass, 0.0),
            ("AAI", Verdict::Drop(Reason::Forced), 0.02),
            ("SST", Verdict::Pass, 0.0),
            ("SAT", Verdict::Drop(Reason::Forced), 0.02),
        ] {
            let mut b = bio(variant);
            let v = b.on_arrival(&view(100, 10), &pkt(Red), 0, &mut rng);
            assert_eq!((v, b.levels[1].prob.p_m), (verdict, pm), "{variant}");
            assert_eq!(b.levels[0].prob.p_m, 0.0);
            // 60 red is above max_th_OUT for both letters; the drop is forced even with ECN.
            b.ecn = true;
            let v = b.on_arrival(&view(0, 60), &pkt(Red), 5 * MS, &mut rng);
            assert_eq!(v, Verdict::Drop(Reason::Forced), "{variant}");
        }
    }

    /// Mark letter, pm_IN = 1. A green arrival finding 2 green and no red: T (2 > min_th 10?
    /// no) passes it, I (no red waiting) marks it. Finding 20 green and 5 red: T marks
    /// (20 > 10), I passes (red waits).
    #[test]
    fn mark_t_uses_min_th_and_i_the_higher_precedences() {
        let mut rng = Rng::for_component(1, 0, "t");
        let mark = Verdict::Mark(Reason::Early);
        for (variant, small, large) in [
            ("AAT", Verdict::Pass, mark),
            ("AAI", mark, Verdict::Pass),
            ("SST", Verdict::Pass, mark),
            ("SSI", mark, Verdict::Pass),
        ] {
            let mut b = bio(variant);
            b.ecn = true;
            b.levels[0].prob.p_m = 1.0;
            let v = b.on_arrival(&view(2, 0), &pkt(Green), 0, &mut rng);
            assert_eq!(v, small, "{variant}");
            let v = b.on_arrival(&view(20, 5), &pkt(Green), 0, &mut rng);
            assert_eq!(v, large, "{variant}");
        }
        // A red arrival under I: nothing has a higher drop precedence, it is always at risk.
        let mut b = bio("AAI");
        b.levels[1].prob.p_m = 1.0;
        let v = b.on_arrival(&view(20, 5), &pkt(Red), 0, &mut rng);
        assert_eq!(v, Verdict::Drop(Reason::Early));
    }

    #[test]
    fn overflow_raises_the_arrivals_level_and_idle_decays_every_level() {
        let mut rng = Rng::for_component(1, 0, "t");
        let mut b = bio("AAI");
        b.on_arrival(&view(3, 3), &pkt(Red), 0, &mut rng);
        b.on_overflow(&view(3, 3), 0);
        assert_eq!((b.levels[0].prob.p_m, b.levels[1].prob.p_m), (0.0, 0.02));
        b.levels[0].prob.p_m = 0.5;
        b.levels[1].prob.p_m = 0.5;
        // Idle from 10 ms to 15.5 ms: ⌊5.5 ms / 1 ms⌋ = 5 decrements of 0.01 each.
        b.on_idle(10 * MS);
        b.on_arrival(&view(0, 0), &pkt(Green), 15 * MS + MS / 2, &mut rng);
        for l in &b.levels {
            assert!((l.prob.p_m - 0.45).abs() < 1e-12, "{}", l.prob.p_m);
        }
    }

    #[test]
    fn separate_freezes_let_a_decrement_follow_an_increment() {
        let mut rng = Rng::for_component(1, 0, "t");
        let mut b = bio("AAI");
        b.on_arrival(&view(0, 60), &pkt(Red), 0, &mut rng);
        assert_eq!(b.levels[1].prob.p_m, 0.02);
        // Half a freeze time later: the decrement clock has not run yet, so it acts.
        b.on_departure(&view(0, 0), &pkt(Red), MS / 2, &mut rng);
        assert!((b.levels[1].prob.p_m - 0.01).abs() < 1e-12);
        // Another increment within the increment freeze does not.
        b.on_arrival(&view(0, 60), &pkt(Red), MS, &mut rng);
        assert!((b.levels[1].prob.p_m - 0.01).abs() < 1e-12);
    }
}
