//! PSAND (Alemu & Jean-Marie, "Dynamic Configuration of RED Parameters", 2004; seed paper
//! papers/003, Algorithm 1): RED whose max_p is multiplied every INTERVAL (0.5 s) by a
//! factor that measures both how far the average queue is from its target and how fast it
//! moves:
//!
//!   prox_rate   = K_cur / K_T          (distance to the target average queue K_T)
//!   change_rate = K_cur / K_prev       (change since the previous interval)
//!   β           = coef · (prox_rate · change_rate)^γ
//!   max_p       ← min(max(max_p · β, lower), upper),   K_prev ← K_cur
//!
//! K_cur is RED's EWMA average at the update instant ("the weighted average queue size in
//! the current interval"), decayed first if the link is idle so that a silent link lowers
//! max_p. K values are in packets (in byte mode avg / mean_pktsize). At a fixed point
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
use crate::units::{Duration, Time};
use serde::{Deserialize, Serialize};

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
        }
    }

    /// One step of Algorithm 1 with K_cur = the current average.
    pub fn adapt(&mut self) {
        let k_cur = self.red.est.avg * self.to_pkts;
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

periodic_max_p_controller!(Psand, ["max_p", "beta"], |s, out| {
    out[0] = s.red.max_p();
    out[1] = s.beta;
});

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
        let (min_th, max_th) = auto_thresholds(10.0, 50.0);
        Psand::new(
            RedConfig {
                min_th,
                max_th,
                max_p,
                w_q: None,
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
        let mut out = [0.0; 6];
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
}
