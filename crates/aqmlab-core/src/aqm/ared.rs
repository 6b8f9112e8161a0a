//! Adaptive RED (Floyd, Gummadi, Shenker, "Adaptive RED: An Algorithm for Increasing the
//! Robustness of RED's Active Queue Management", 2001): RED whose max_p is adapted every
//! `interval` to keep avg inside the target band [min_th + 0.4Δ, min_th + 0.6Δ],
//! Δ = max_th − min_th; additive increase by α = min(0.01, max_p/4) while max_p ≤ top,
//! multiplicative decrease by β = 0.9 while max_p ≥ bottom. Automatic parameters:
//! w_q = 1 − exp(−1/C), min_th = max(5, target_delay·C/2), max_th = 3·min_th, C = link
//! packets/s (docs/validation.md, "Adaptive RED").
//!
//! Composition, not flags: `Ared` owns a `Red` and only moves its max_p.
//! Choice: the adaptation runs on a timer every `interval` whether or not packets arrive
//! (the paper; Linux `red_adaptative_algo`), decaying avg first if the link is idle; ns-2
//! checks on arrivals instead (ns-2.35 `queue/red.cc`; docs/aqm/ared.md). Bounds are checked before each step, as
//! in the paper, so max_p may exceed top or fall below bottom by one step.

use super::red::{default_max_p, red_spec, red_variant_spec, Red, RedConfig, RedSpec};
use super::QueueCtx;
use crate::check::Problems;
use crate::units::Duration;
use crate::units::{Time, NS_PER_SEC};
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug)]
pub struct AredConfig {
    pub interval: Time,
    pub alpha_max: f64,
    pub beta: f64,
    pub top: f64,
    pub bottom: f64,
}

/// ARED's automatic thresholds in packets for a link of `link_bps`, packets of
/// `mean_pktsize` bytes and a target queueing delay.
pub fn auto_thresholds(link_bps: u64, mean_pktsize: u32, target_delay: Time) -> (f64, f64) {
    let c = link_bps as f64 / (8.0 * mean_pktsize as f64);
    let min_th = (target_delay as f64 / NS_PER_SEC as f64 * c / 2.0).max(5.0);
    (min_th, 3.0 * min_th)
}

#[derive(Clone, Debug)]
pub struct Ared {
    pub red: Red,
    cfg: AredConfig,
}

impl Ared {
    pub fn new(red: RedConfig, cfg: AredConfig, link_bps: u64) -> Ared {
        Ared {
            red: Red::new(red, link_bps),
            cfg,
        }
    }

    /// The timer's work: bring an idle average up to date, then adapt.
    fn on_period(&mut self, q: &super::QueueView, now: Time) {
        self.red.decay_idle(q, now);
        self.adapt();
    }

    /// One adaptation step (the body of the paper's periodic loop).
    pub fn adapt(&mut self) {
        let (lo, hi) = self.red.thresholds();
        let d = hi - lo;
        let (target_low, target_high) = (lo + 0.4 * d, lo + 0.6 * d);
        let max_p = self.red.max_p();
        if self.red.est.avg > target_high && max_p <= self.cfg.top {
            self.red
                .set_max_p(max_p + self.cfg.alpha_max.min(max_p / 4.0));
        } else if self.red.est.avg < target_low && max_p >= self.cfg.bottom {
            self.red.set_max_p(max_p * self.cfg.beta);
        }
    }
}

periodic_max_p_controller!(Ared, ["max_p"], |s, out| {
    out[0] = s.red.max_p();
});

// ---------------------------------------------------------------------------------------
// Spec: the scenario's fields, defaults and checks
// ---------------------------------------------------------------------------------------

red_variant_spec! {
    /// Adaptive RED parameters (docs/aqm/ared.md). Thresholds default to ARED's automatic
    /// values (min_th = max(5, target_delay·C/2), max_th = 3·min_th).
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct AredSpec {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub min_th: Option<f64>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub max_th: Option<f64>,
        #[serde(default = "default_target_delay")]
        pub target_delay: Duration,
        #[serde(default = "default_ared_interval")]
        pub interval: Duration,
        /// The initial max_p.
        #[serde(default = "default_max_p")]
        pub max_p: f64,
        #[serde(default = "default_alpha")]
        pub alpha: f64,
        #[serde(default = "default_beta")]
        pub beta: f64,
        #[serde(default = "default_top")]
        pub top: f64,
        #[serde(default = "default_bottom")]
        pub bottom: f64,
    }
}

impl AredSpec {
    /// The RED this ARED starts from, with the given thresholds: ARED is RED plus a
    /// controller of max_p, so the shared fields are validated and built as RED's.
    pub fn red(&self, min_th: f64, max_th: f64) -> RedSpec {
        red_spec!(self, min_th, max_th)
    }
}

fn default_target_delay() -> Duration {
    Duration(5_000_000)
}

pub(crate) fn default_ared_interval() -> Duration {
    Duration(500_000_000)
}

fn default_alpha() -> f64 {
    0.01
}

fn default_beta() -> f64 {
    0.9
}

fn default_top() -> f64 {
    0.5
}

pub(crate) fn default_bottom() -> f64 {
    0.01
}

impl AredSpec {
    pub fn validate(&self, a: &str, _q: &QueueCtx, p: &mut Problems) {
        match (self.min_th, self.max_th) {
            (Some(lo), _) if !(lo.is_finite() && lo >= 0.0) => p.err(
                format!("{a}.min_th"),
                lo,
                "must be a finite number >= 0 (packets)",
            ),
            (Some(lo), Some(hi)) if !(hi.is_finite() && hi > lo) => p.err(
                format!("{a}.max_th"),
                hi,
                format!("must be > min_th = {lo}"),
            ),
            (None, Some(_)) => p.err(
                format!("{a}.max_th"),
                "",
                "give min_th too, or neither (both automatic)",
            ),
            _ => {}
        }
        for (field, v) in [("top", self.top), ("bottom", self.bottom)] {
            if !(v.is_finite() && v > 0.0 && v <= 1.0) {
                p.err(format!("{a}.{field}"), v, "must be a probability in (0, 1]");
            }
        }
        if self.bottom > self.top {
            p.err(
                format!("{a}.bottom"),
                self.bottom,
                format!("must be <= top = {}", self.top),
            );
        }
        if !(self.alpha.is_finite() && self.alpha > 0.0 && self.alpha <= 1.0) {
            p.err(format!("{a}.alpha"), self.alpha, "must be in (0, 1]");
        }
        if !(self.beta.is_finite() && self.beta > 0.0 && self.beta < 1.0) {
            p.err(format!("{a}.beta"), self.beta, "must be in (0, 1)");
        }
        if self.interval.0 == 0 {
            p.err(format!("{a}.interval"), "\"0ns\"", "must be > 0");
        }
        if self.target_delay.0 == 0 && self.min_th.is_none() {
            p.err(
                format!("{a}.target_delay"),
                "\"0ns\"",
                "must be > 0 when the thresholds are automatic",
            );
        }
        self.red(0.0, 1.0).validate_fields(a, p);
    }

    /// Explicit thresholds, min_th with max_th = 3·min_th, or both automatic from the link.
    pub fn build(&self, q: &QueueCtx) -> Ared {
        let (lo, hi) = match (self.min_th, self.max_th) {
            (Some(lo), Some(hi)) => (lo, hi),
            (Some(lo), None) => (lo, 3.0 * lo),
            _ => auto_thresholds(q.link_bps, self.mean_pktsize.0 as u32, self.target_delay.0),
        };
        let ctl = AredConfig {
            interval: self.interval.0,
            alpha_max: self.alpha,
            beta: self.beta,
            top: self.top,
            bottom: self.bottom,
        };
        Ared::new(self.red(lo, hi).config(), ctl, q.link_bps)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::aqm::red::CountRule;
    use crate::aqm::{Aqm, QueueView};

    fn ared(avg: f64, max_p: f64) -> Ared {
        let (min_th, max_th) = auto_thresholds(10_000_000, 1000, 5_000_000);
        let mut a = Ared::new(
            RedConfig {
                min_th,
                max_th,
                max_p,
                w_q: None,
                gentle: true,
                count_rule: CountRule::Ns2Wait,
                byte_mode: false,
                mean_pktsize: 1000,
                ecn: false,
                mark_above_max_th: false,
                ns2_qlen_guard: false,
            },
            AredConfig {
                interval: NS_PER_SEC / 2,
                alpha_max: 0.01,
                beta: 0.9,
                top: 0.5,
                bottom: 0.01,
            },
            10_000_000,
        );
        a.red.est.avg = avg;
        a
    }

    /// docs/validation.md: automatic parameters for 10 and 100 Mb/s links, 1000-byte packets.
    #[test]
    fn automatic_parameters_match_the_table() {
        assert_eq!(auto_thresholds(10_000_000, 1000, 5_000_000), (5.0, 15.0));
        assert_eq!(
            auto_thresholds(100_000_000, 1000, 5_000_000),
            (31.25, 93.75)
        );
        let a = ared(0.0, 0.1);
        assert!((a.red.w_q() - 7.996801e-4).abs() < 5e-10);
    }

    #[test]
    fn max_p_rises_above_the_band_and_falls_below_it() {
        // Band for (5, 15): [9, 11].
        let mut a = ared(12.0, 0.1);
        a.adapt();
        assert!((a.red.max_p() - 0.11).abs() < 1e-15); // + min(0.01, 0.025)
        let mut a = ared(12.0, 0.02);
        a.adapt();
        assert!((a.red.max_p() - 0.025).abs() < 1e-15); // + min(0.01, 0.005)
        let mut a = ared(8.0, 0.1);
        a.adapt();
        assert!((a.red.max_p() - 0.09).abs() < 1e-15);
        let mut a = ared(10.0, 0.1);
        a.adapt();
        assert_eq!(a.red.max_p(), 0.1); // inside the band: unchanged
    }

    #[test]
    fn bounds_are_checked_before_the_step() {
        let mut a = ared(12.0, 0.5);
        a.adapt();
        assert!((a.red.max_p() - 0.51).abs() < 1e-15); // may overshoot top by one step
        a.adapt();
        assert!((a.red.max_p() - 0.51).abs() < 1e-15); // then stops
        let mut a = ared(8.0, 0.0105);
        a.adapt();
        assert!((a.red.max_p() - 0.00945).abs() < 1e-15);
        a.adapt();
        assert!((a.red.max_p() - 0.00945).abs() < 1e-15);
    }

    #[test]
    fn the_timer_runs_every_interval_and_decays_an_idle_average() {
        let mut a = ared(12.0, 0.1);
        assert_eq!(a.first_timer(0), Some(NS_PER_SEC / 2));
        a.on_idle(0);
        let q = QueueView::new(0, 0, crate::aqm::Limit::Packets(100), 10_000_000);
        // 0.5 s idle on 10 Mb/s = 625 packet times: avg 12 → 12·(1−w_q)^625 ≈ 7.3 < 9.
        assert_eq!(a.on_timer(&q, NS_PER_SEC / 2), Some(NS_PER_SEC));
        assert!(
            a.red.est.avg < 9.0 && a.red.est.avg > 7.0,
            "{}",
            a.red.est.avg
        );
        assert!((a.red.max_p() - 0.09).abs() < 1e-15);
    }
}
