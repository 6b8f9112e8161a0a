//! PSAND (Alemu & Jean-Marie, "Dynamic Configuration of RED Parameters", IEEE
//! GLOBECOM 2004, Algorithm 1): RED whose max_p is multiplied every INTERVAL (0.5 s) by a
//! factor that measures both how far the average queue is from its target and how fast it
//! moves:
//!
//!   prox_rate   = K_cur / K_T          (distance to the target average queue K_T)
//!   change_rate = K_cur / K_prev       (change since the previous interval)
//!   β           = coef · (prox_rate · change_rate)^γ
//!   max_p       ← min(max(max_p · β, lower), upper),   K_prev ← K_cur
//!
//! K_cur, "the weighted average queue size in the current interval", is read one of two
//! ways (`k_cur`):
//! - `ewma` (default): RED's EWMA average at the update instant, decayed first if the link
//!   is idle so that a silent link lowers max_p.
//! - `interval_mean`: the time average of RED's EWMA over the interval that the update
//!   closes, (1/INTERVAL)·∫ avg dt, with avg held between arrivals and decaying
//!   continuously through idle periods. Time, not arrivals, weights it: an arrival average
//!   has no sample in an idle stretch (which would then not lower K_cur, though a silent
//!   link is what should lower max_p most), and would weight the busy moments of an
//!   interval by their arrival rate; a time average is also what a plot of avg over the
//!   interval (the paper's Figs. 3-4) shows.
//!
//! K values are in packets (in byte mode avg / mean_pktsize). At a fixed point
//! K_cur = K_prev, β = 1 needs K_cur/K_T = (1/coef)^(1/γ) ≈ 0.6886 with the paper's values,
//! so the average settles below K_T, not on it.
//!
//! Cases the paper leaves undefined (decided here):
//! - K_prev = 0 (first update, or an empty queue for a whole interval): change_rate = 1,
//!   i.e. the step follows the distance to the target alone.
//! - K_cur = 0: prox_rate = 0, so β = 0 (γ > 0) and max_p goes to `lower`; with γ = 0
//!   (r^0 = 1) β = coef.
//!
//! Powers use `libm::pow` so that results are the same on every platform.
//!
//! Thresholds (paper §III-C, from the buffer capacity B in packets): K_T > B/2 →
//! min_th = 2K_T − B, max_th = B; else min_th = 0, max_th = 2K_T (`auto_thresholds`).
//! Composition over `Red`: only its max_p moves.

use super::ared::{default_ared_interval, default_bottom};
use super::red::{default_max_p, red_spec, red_variant_spec, Red, RedConfig, RedSpec};
use super::QueueCtx;
use crate::check::Problems;
use crate::units::{Duration, Time, NS_PER_SEC};
use serde::{Deserialize, Serialize};

/// How K_cur is read from RED's average (module docs).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum KCur {
    /// RED's EWMA at the update instant.
    #[default]
    Ewma,
    /// The time average of RED's EWMA over the interval the update closes.
    IntervalMean,
}

/// By hand so that every wrong value, a string or not, is answered with the allowed ones.
impl<'de> Deserialize<'de> for KCur {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<KCur, D::Error> {
        struct V;
        impl serde::de::Visitor<'_> for V {
            type Value = KCur;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("`ewma` or `interval_mean`")
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<KCur, E> {
                match v {
                    "ewma" => Ok(KCur::Ewma),
                    "interval_mean" => Ok(KCur::IntervalMean),
                    _ => Err(E::unknown_variant(v, &["ewma", "interval_mean"])),
                }
            }
        }
        d.deserialize_str(V)
    }
}

#[derive(Clone, Debug)]
pub struct PsandConfig {
    /// K_T, the target average queue, in packets.
    pub target: f64,
    pub coef: f64,
    pub gamma: f64,
    pub interval: Time,
    /// Bounds of max_p (the paper's lower and upper Max_p).
    pub lower: f64,
    pub upper: f64,
    pub k_cur: KCur,
}

/// The paper's thresholds (§III-C) in packets for a target K_T and a buffer of B packets.
pub fn auto_thresholds(target: f64, buffer: f64) -> (f64, f64) {
    if target > buffer / 2.0 {
        (2.0 * target - buffer, buffer)
    } else {
        (0.0, 2.0 * target)
    }
}

#[derive(Clone, Debug)]
pub struct Psand {
    pub red: Red,
    cfg: PsandConfig,
    /// avg in packets: 1, or 1/mean_pktsize in byte mode.
    to_pkts: f64,
    /// K_prev, packets.
    pub k_prev: f64,
    /// The last β applied (1 before the first update).
    pub beta: f64,
    /// `interval_mean`: ∫ avg dt (avg·s) from `start` to `since`, the last change of avg
    /// that has been accounted for.
    area: f64,
    since: Time,
    start: Time,
}

impl Psand {
    pub fn new(red: RedConfig, cfg: PsandConfig, link_bps: u64) -> Psand {
        let to_pkts = if red.byte_mode {
            1.0 / red.mean_pktsize as f64
        } else {
            1.0
        };
        Psand {
            red: Red::new(red, link_bps),
            cfg,
            to_pkts,
            k_prev: 0.0,
            beta: 1.0,
            area: 0.0,
            since: 0,
            start: 0,
        }
    }

    /// One step of Algorithm 1 with K_cur = the current average (`k_cur = "ewma"`).
    pub fn adapt(&mut self) {
        self.step(self.red.est.avg * self.to_pkts);
    }

    /// The timer's work: K_cur as configured, an idle average brought up to date, one step.
    fn on_period(&mut self, q: &super::QueueView, now: Time) {
        match self.cfg.k_cur {
            KCur::Ewma => {
                self.red.decay_idle(q, now);
                self.adapt();
            }
            KCur::IntervalMean => {
                // Integrate up to now before the decay moves avg and its idle clock.
                self.observe(now);
                let span = (now - self.start) as f64 / NS_PER_SEC as f64;
                let k_cur = if span > 0.0 {
                    self.area / span * self.to_pkts
                } else {
                    self.red.est.avg * self.to_pkts
                };
                self.area = 0.0;
                self.start = now;
                self.red.decay_idle(q, now);
                self.step(k_cur);
            }
        }
    }

    /// `interval_mean`: adds ∫ avg dt up to `now`, where avg is about to change (an
    /// arrival) or the interval ends (the timer).
    fn observe(&mut self, now: Time) {
        if self.cfg.k_cur == KCur::IntervalMean {
            self.area += self.red.avg_integral(self.since, now);
            self.since = now;
        }
    }

    /// One step of Algorithm 1 with the given K_cur (packets).
    pub fn step(&mut self, k_cur: f64) {
        let prox_rate = k_cur / self.cfg.target;
        let change_rate = if self.k_prev > 0.0 {
            k_cur / self.k_prev
        } else {
            1.0
        };
        self.beta = self.cfg.coef * libm::pow(prox_rate * change_rate, self.cfg.gamma);
        let max_p = (self.red.max_p() * self.beta)
            .max(self.cfg.lower)
            .min(self.cfg.upper);
        self.red.set_max_p(max_p);
        self.k_prev = k_cur;
    }
}

periodic_max_p_controller!(
    Psand,
    ["max_p", "beta", "k_cur"],
    |s, out| {
        out[0] = s.red.max_p();
        out[1] = s.beta;
        out[2] = s.k_prev;
    },
    arrival: |s, now| {
        s.observe(now);
    }
);

// ---------------------------------------------------------------------------------------
// Spec: the scenario's fields, defaults and checks
// ---------------------------------------------------------------------------------------

red_variant_spec! {
    /// PSAND (docs/aqm/psand.md). Thresholds default to the paper's rule from the target and
    /// the buffer capacity; other defaults from the paper's Table I.
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct PsandSpec {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub min_th: Option<f64>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub max_th: Option<f64>,
        /// K_T, the target average queue, packets.
        #[serde(default = "default_psand_target")]
        pub target: f64,
        #[serde(default = "default_psand_coef")]
        pub coef: f64,
        #[serde(default = "default_psand_gamma")]
        pub gamma: f64,
        #[serde(default = "default_ared_interval")]
        pub interval: Duration,
        /// The initial max_p.
        #[serde(default = "default_max_p")]
        pub max_p: f64,
        #[serde(default = "default_bottom")]
        pub lower: f64,
        #[serde(default = "default_psand_upper")]
        pub upper: f64,
        /// "ewma" (RED's average at the update) or "interval_mean" (its time average over
        /// the interval).
        #[serde(default)]
        pub k_cur: KCur,
    }
}

impl PsandSpec {
    /// The buffer capacity B in packets for the paper's threshold rule: the packet limit,
    /// or the byte limit in packets of mean_pktsize.
    pub fn buffer_pkts(&self, q: &QueueCtx) -> f64 {
        match (q.limit_pkts, q.limit_bytes) {
            (Some(p), _) => p as f64,
            (None, Some(b)) => b.0 as f64 / self.mean_pktsize.0.max(1) as f64,
            (None, None) => 0.0,
        }
    }

    /// The thresholds in packets: explicit values override the paper's rule.
    pub fn thresholds(&self, q: &QueueCtx) -> (f64, f64) {
        let (lo, hi) = auto_thresholds(self.target, self.buffer_pkts(q));
        (self.min_th.unwrap_or(lo), self.max_th.unwrap_or(hi))
    }

    /// The RED this PSAND starts from, with the given thresholds.
    pub fn red(&self, min_th: f64, max_th: f64) -> RedSpec {
        red_spec!(self, min_th, max_th)
    }
}

fn default_psand_target() -> f64 {
    10.0
}

fn default_psand_coef() -> f64 {
    1.75
}

fn default_psand_gamma() -> f64 {
    1.5
}

fn default_psand_upper() -> f64 {
    0.75
}

impl PsandSpec {
    pub fn validate(&self, a: &str, q: &QueueCtx, p: &mut Problems) {
        if !(self.target.is_finite() && self.target > 0.0) {
            p.err(
                format!("{a}.target"),
                self.target,
                "must be a finite number > 0 (packets)",
            );
        }
        if !(self.coef.is_finite() && self.coef > 0.0) {
            p.err(
                format!("{a}.coef"),
                self.coef,
                "must be a finite number > 0",
            );
        }
        if !(self.gamma.is_finite() && self.gamma >= 0.0) {
            p.err(
                format!("{a}.gamma"),
                self.gamma,
                "must be a finite number >= 0",
            );
        }
        if !(self.lower.is_finite() && self.lower > 0.0 && self.lower <= 1.0) {
            p.err(
                format!("{a}.lower"),
                self.lower,
                "must be a probability in (0, 1]",
            );
        }
        if !(self.upper.is_finite() && self.upper > 0.0 && self.upper <= 1.0) {
            p.err(
                format!("{a}.upper"),
                self.upper,
                "must be a probability in (0, 1]",
            );
        } else if self.lower > self.upper {
            p.err(
                format!("{a}.lower"),
                self.lower,
                format!("must be <= upper = {}", self.upper),
            );
        }
        if self.max_p.is_finite()
            && self.lower <= self.upper
            && (self.max_p < self.lower || self.max_p > self.upper)
        {
            p.err(
                format!("{a}.max_p"),
                self.max_p,
                format!(
                    "must be in [lower, upper] = [{}, {}]",
                    self.lower, self.upper
                ),
            );
        }
        if self.interval.0 == 0 {
            p.err(format!("{a}.interval"), "\"0ns\"", "must be > 0");
        }
        if self.mean_pktsize.0 > 0 && self.target.is_finite() && self.target > 0.0 {
            let b = self.buffer_pkts(q);
            let (lo, hi) = self.thresholds(q);
            let how = match (self.min_th, self.max_th) {
                (Some(_), Some(_)) => String::new(),
                _ => format!(
                    " (automatic from target = {} and buffer B = {b} packets: \
                     min_th = 0, max_th = 2·target if target <= B/2, else \
                     min_th = 2·target − B, max_th = B)",
                    self.target
                ),
            };
            if self.min_th.is_none() && self.max_th.is_none() && self.target >= b {
                p.err(
                    format!("{a}.target"),
                    self.target,
                    format!(
                        "must be < the buffer capacity B = {b} packets when the \
                         thresholds are automatic"
                    ),
                );
            } else {
                RedSpec::check_thresholds(a, lo, hi, &how, p);
            }
        }
        self.red(0.0, 1.0).validate_fields(a, p);
    }

    /// The paper's threshold rule needs the buffer capacity, known from the port.
    pub fn build(&self, q: &QueueCtx) -> Psand {
        let (lo, hi) = self.thresholds(q);
        let ctl = PsandConfig {
            target: self.target,
            coef: self.coef,
            gamma: self.gamma,
            interval: self.interval.0,
            lower: self.lower,
            upper: self.upper,
            k_cur: self.k_cur,
        };
        Psand::new(self.red(lo, hi).config(), ctl, q.link_bps)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::aqm::red::CountRule;
    use crate::aqm::Limit;
    use crate::aqm::{Aqm, QueueView, Verdict};
    use crate::packet::Packet;
    use crate::rng::Rng;
    use crate::units::NS_PER_SEC;

    const PKT: u32 = 500;

    fn psand(byte_mode: bool, max_p: f64) -> Psand {
        psand_with(byte_mode, max_p, None, KCur::Ewma)
    }

    fn psand_with(byte_mode: bool, max_p: f64, w_q: Option<f64>, k_cur: KCur) -> Psand {
        let (min_th, max_th) = auto_thresholds(10.0, 50.0);
        Psand::new(
            RedConfig {
                min_th,
                max_th,
                max_p,
                w_q,
                gentle: true,
                count_rule: CountRule::Ns2Wait,
                byte_mode,
                mean_pktsize: PKT,
                ecn: false,
                mark_above_max_th: false,
                ns2_qlen_guard: false,
            },
            PsandConfig {
                target: 10.0,
                coef: 1.75,
                gamma: 1.5,
                interval: NS_PER_SEC / 2,
                lower: 0.01,
                upper: 0.75,
                k_cur,
            },
            10_000_000,
        )
    }

    /// Sets K_cur (packets) in the units of avg.
    fn set_k(p: &mut Psand, k: f64) {
        p.red.est.avg = k / p.to_pkts;
    }

    #[test]
    fn one_step_matches_the_hand_computation() {
        for byte_mode in [false, true] {
            let mut p = psand(byte_mode, 0.1);
            p.k_prev = 8.0;
            set_k(&mut p, 12.0);
            p.adapt();
            // prox 1.2, change 1.5, r = 1.8, β = 1.75 · 1.8^1.5 = 1.75 · 2.414953 = 4.226168
            assert!((p.beta - 4.226_168).abs() < 1e-6, "{}", p.beta);
            assert!((p.red.max_p() - 0.422_616_8).abs() < 1e-7);
            assert!((p.k_prev - 12.0).abs() < 1e-12);
            // Next interval: K_cur 6 → prox 0.6, change 0.5, r = 0.3,
            // β = 1.75 · 0.3^1.5 = 0.287554, max_p = 0.121525.
            set_k(&mut p, 6.0);
            p.adapt();
            assert!((p.beta - 0.287_554).abs() < 1e-6, "{}", p.beta);
            assert!((p.red.max_p() - 0.121_525).abs() < 1e-6);
        }
    }

    #[test]
    fn max_p_is_clamped_to_lower_and_upper() {
        for byte_mode in [false, true] {
            let mut p = psand(byte_mode, 0.5);
            p.k_prev = 10.0;
            set_k(&mut p, 20.0); // β = 1.75 · 4^1.5 = 14
            p.adapt();
            assert_eq!(p.red.max_p(), 0.75);
            set_k(&mut p, 2.0); // r = 0.2 · 0.1 = 0.02, β ≈ 0.00495
            p.adapt();
            assert_eq!(p.red.max_p(), 0.01);
        }
    }

    #[test]
    fn an_empty_previous_interval_counts_as_no_change() {
        let mut p = psand(false, 0.1);
        assert_eq!(p.k_prev, 0.0);
        set_k(&mut p, 5.0);
        p.adapt();
        // change_rate = 1: β = 1.75 · 0.5^1.5 = 0.618718
        assert!((p.beta - 1.75 * 0.5f64.powf(1.5)).abs() < 1e-12);
        assert!(p.red.max_p().is_finite() && (p.red.max_p() - 0.0618718).abs() < 1e-7);
    }

    #[test]
    fn an_empty_average_sends_max_p_to_lower() {
        let mut p = psand(true, 0.3);
        p.k_prev = 4.0;
        set_k(&mut p, 0.0);
        p.adapt();
        assert_eq!((p.beta, p.red.max_p(), p.k_prev), (0.0, 0.01, 0.0));
        p.adapt(); // K_prev = 0 and K_cur = 0: still finite, still lower
        assert_eq!((p.beta, p.red.max_p()), (0.0, 0.01));
    }

    #[test]
    fn at_the_fixed_point_max_p_does_not_move() {
        let k = 10.0 * libm::pow(1.0 / 1.75, 1.0 / 1.5);
        assert!((k - 6.8861).abs() < 1e-4, "{k}");
        for byte_mode in [false, true] {
            let mut p = psand(byte_mode, 0.2);
            p.k_prev = k;
            set_k(&mut p, k);
            p.adapt();
            assert!((p.beta - 1.0).abs() < 1e-12, "{}", p.beta);
            assert!((p.red.max_p() - 0.2).abs() < 1e-12);
            // Just above the fixed point max_p rises, just below it falls.
            set_k(&mut p, k * 1.01);
            p.adapt();
            assert!(p.beta > 1.0);
        }
    }

    #[test]
    fn thresholds_follow_the_buffer_rule() {
        // K_T ≤ B/2: [0, 2K_T].
        assert_eq!(auto_thresholds(10.0, 50.0), (0.0, 20.0));
        assert_eq!(auto_thresholds(10.0, 20.0), (0.0, 20.0));
        // K_T > B/2: [2K_T − B, B], symmetric about K_T.
        assert_eq!(auto_thresholds(10.0, 15.0), (5.0, 15.0));
        assert_eq!(auto_thresholds(30.0, 40.0), (20.0, 40.0));
        // Byte mode uses the same packet thresholds, scaled by RED.
        let p = psand(true, 0.1);
        assert_eq!(p.red.thresholds(), (0.0, 20.0 * PKT as f64));
    }

    #[test]
    fn min_th_zero_is_a_valid_red() {
        // With min_th = 0 the early region starts at an empty queue and p_b ∝ avg.
        let mut p = psand(false, 0.1);
        let mut rng = Rng::for_component(1, 0, "psand-test");
        let pkt = Packet {
            size: PKT,
            ..Default::default()
        };
        let q = |n: u32| QueueView::new(n, n as u64 * PKT as u64, Limit::Packets(50), 10_000_000);
        assert_eq!(p.on_arrival(&q(0), &pkt, 0, &mut rng), Verdict::Pass);
        assert!(p.red.est.avg == 0.0);
        let mut out = [0.0; 7];
        p.metrics(&q(0), 0, &mut out);
        assert_eq!(out[1], 0.0); // p_b = 0 at avg = 0
        p.red.est.avg = 10.0;
        p.on_arrival(&q(10), &pkt, 0, &mut rng);
        p.metrics(&q(10), 0, &mut out);
        assert!((out[1] - 0.1 * p.red.est.avg / 20.0).abs() < 1e-12);
    }

    #[test]
    fn the_timer_decays_an_idle_average_before_the_step() {
        let mut p = psand(false, 0.1);
        assert_eq!(p.first_timer(0), Some(NS_PER_SEC / 2));
        p.red.est.avg = 12.0;
        p.k_prev = 12.0;
        p.on_idle(0);
        let q = QueueView::new(0, 0, Limit::Packets(50), 10_000_000);
        // 0.5 s idle on 10 Mb/s at 500 B = 1250 packet times, w_q = 1 − exp(−1/2500).
        assert_eq!(p.on_timer(&q, NS_PER_SEC / 2), Some(NS_PER_SEC));
        let k = 12.0 * libm::pow(libm::exp(-1.0 / 2500.0), 1250.0);
        assert!((p.k_prev - k).abs() < 1e-9, "{} vs {k}", p.k_prev);
        let beta = 1.75 * libm::pow(k / 10.0 * k / 12.0, 1.5);
        assert!((p.beta - beta).abs() < 1e-9);
    }

    const MS: Time = NS_PER_SEC / 1000;

    /// Arrivals at `ms` that find `n` packets waiting (RED's verdicts do not touch avg).
    fn arrive(p: &mut Psand, rng: &mut Rng, ms: u64, n: u32) {
        let pkt = Packet {
            size: PKT,
            ..Default::default()
        };
        let q = QueueView::new(n, n as u64 * PKT as u64, Limit::Packets(50), 10_000_000);
        p.on_arrival(&q, &pkt, ms * MS, rng);
    }

    #[test]
    fn interval_mean_is_the_time_average_of_the_ewma() {
        // w_q = 0.5; arrivals at 100, 200, 400 ms finding 10, 20, 4 packets: avg = 5,
        // 12.5, 8.25, held between arrivals (0 before the first). Over [0, 500 ms]:
        // (0·0.1 + 5·0.1 + 12.5·0.2 + 8.25·0.1) / 0.5 = 7.65; the EWMA at 500 ms is 8.25.
        let busy = QueueView::new(4, 4 * PKT as u64, Limit::Packets(50), 10_000_000);
        for (k_cur, first, second) in [(KCur::IntervalMean, 7.65, 8.15), (KCur::Ewma, 8.25, 8.125)]
        {
            let mut p = psand_with(false, 0.1, Some(0.5), k_cur);
            let mut rng = Rng::for_component(1, 0, "psand-test");
            for (ms, n) in [(100, 10), (200, 20), (400, 4)] {
                arrive(&mut p, &mut rng, ms, n);
            }
            assert_eq!(p.on_timer(&busy, 500 * MS), Some(1000 * MS));
            assert!((p.k_prev - first).abs() < 1e-12, "{k_cur:?}: {}", p.k_prev);
            // K_prev was 0: change_rate 1, β = 1.75·(K_cur/10)^1.5.
            let beta = 1.75 * libm::pow(first / 10.0, 1.5);
            assert!((p.beta - beta).abs() < 1e-12);
            // The next interval starts afresh: 8.25 over [500, 600 ms], then 8.125 (one
            // arrival finding 8) to 1 s: (0.825 + 8.125·0.4) / 0.5 = 8.15.
            arrive(&mut p, &mut rng, 600, 8);
            p.on_timer(&busy, 1000 * MS);
            assert!((p.k_prev - second).abs() < 1e-12, "{k_cur:?}: {}", p.k_prev);
            let beta = 1.75 * libm::pow(second / 10.0 * second / first, 1.5);
            assert!((p.beta - beta).abs() < 1e-12);
        }
    }

    #[test]
    fn interval_mean_follows_the_idle_decay_continuously() {
        // w_q = 1 − exp(−1/2500) at 2500 packets/s (500 B on 10 Mb/s) decays avg as e^(−t),
        // t in seconds. avg = 12 held to 100 ms, then idle to 500 ms: the mean over the
        // interval is (12·0.1 + 12·(1 − e^(−0.4))) / 0.5 = 10.312319; the EWMA at 500 ms,
        // decayed by 1000 whole packet times, is 12·e^(−0.4) = 8.043840.
        let w_q = 1.0 - libm::exp(-1.0 / 2500.0);
        let empty = QueueView::new(0, 0, Limit::Packets(50), 10_000_000);
        let mean = (1.2 + 12.0 * (1.0 - libm::exp(-0.4))) / 0.5;
        assert!((mean - 10.312_319).abs() < 1e-6);
        for byte_mode in [false, true] {
            let mut p = psand_with(byte_mode, 0.1, Some(w_q), KCur::IntervalMean);
            set_k(&mut p, 12.0);
            p.on_idle(100 * MS);
            p.on_timer(&empty, 500 * MS);
            assert!((p.k_prev - mean).abs() < 1e-9, "{}", p.k_prev);
            // The decay itself is applied to avg as before: 12·e^(−0.4).
            let decayed = p.red.est.avg * p.to_pkts;
            assert!((decayed - 12.0 * libm::exp(-0.4)).abs() < 1e-9, "{decayed}");
            // A whole idle interval: the mean of 12·e^(−0.4)·e^(−t) over 0.5 s.
            p.on_timer(&empty, 1000 * MS);
            let next = decayed * (1.0 - libm::exp(-0.5)) / 0.5;
            assert!((p.k_prev - next).abs() < 1e-9, "{} vs {next}", p.k_prev);
        }
    }

    #[test]
    fn the_k_cur_option_is_read_from_the_spec() {
        let q = QueueCtx {
            limit_pkts: Some(35),
            limit_bytes: None,
            link_bps: 1_500_000,
            nodes: &[],
            hosts: &[],
        };
        let spec: PsandSpec = toml::from_str("").unwrap();
        assert_eq!(spec.k_cur, KCur::Ewma);
        assert_eq!(spec.build(&q).cfg.k_cur, KCur::Ewma);
        let spec: PsandSpec = toml::from_str(r#"k_cur = "interval_mean""#).unwrap();
        assert_eq!(spec.build(&q).cfg.k_cur, KCur::IntervalMean);
        let err = toml::from_str::<PsandSpec>(r#"k_cur = "median""#).unwrap_err();
        assert!(
            err.to_string()
                .contains("unknown variant `median`, expected `ewma` or `interval_mean`"),
            "{err}"
        );
    }
}
