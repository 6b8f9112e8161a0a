//! Self-configuring RED (Feng, Kandlur, Saha, Shin, "A Self-Configuring RED Gateway",
//! IEEE INFOCOM 1999): RED whose max_p follows the load by the number of flows it sees.
//! On every update of RED's average, with a status in {Below, Between, Above}:
//!
//! - min_th < avg < max_th: status ← Between;
//! - avg < min_th and status ≠ Below: status ← Below, max_p ← max_p / α;
//! - avg > max_th and status ≠ Above: status ← Above, max_p ← max_p · β.
//!
//! Too few drops let the average climb past max_th (many flows: be more aggressive); too
//! many drop it under min_th (few flows: back off). Only a *crossing* changes max_p, so one
//! excursion, however long, gives exactly one step (ns-2 `updateMaxPFeng`,
//! docs/aqm/feng.md). α = 3, β = 2 and the initial max_p 0.02 are the paper's values (PSAND
//! paper, Table I). avg exactly equal to a threshold leaves the status unchanged, as ns-2.
//!
//! Choices: the status starts Between (ns-2 leaves it uninitialised). ns-2 puts no bound
//! on max_p; here max_p stays in [bottom, top], default [0, 1]: max_p > 1 would make p_b
//! exceed 1 between the thresholds and turn the gentle ramp downwards (1 − max_p < 0), so
//! top = 1 is the largest value for which RED's probabilities stay meaningful; bottom = 0
//! is ns-2's (no lower bound). The adaptation runs inside the estimator, so it also runs
//! on the idle decay of an arrival at an empty queue. Composition over `Red`: only its
//! max_p moves.

use super::red::{red_spec, red_variant_spec, Red, RedConfig, RedSpec};
use super::{Aqm, QueueCtx, QueueView, Verdict};
use crate::check::Problems;
use crate::packet::Packet;
use crate::rng::Rng;
use crate::units::Time;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug)]
pub struct FengConfig {
    /// Divisor of max_p on entering Below (> 1).
    pub alpha: f64,
    /// Factor of max_p on entering Above (> 1).
    pub beta: f64,
    /// Bounds on max_p.
    pub bottom: f64,
    pub top: f64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    Below,
    Between,
    Above,
}

impl Status {
    /// The time-series encoding: −1 Below, 0 Between, 1 Above.
    pub fn value(self) -> f64 {
        match self {
            Status::Below => -1.0,
            Status::Between => 0.0,
            Status::Above => 1.0,
        }
    }
}

#[derive(Clone, Debug)]
pub struct FengRed {
    pub red: Red,
    cfg: FengConfig,
    pub status: Status,
}

impl FengRed {
    pub fn new(red: RedConfig, cfg: FengConfig, link_bps: u64) -> FengRed {
        FengRed {
            red: Red::new(red, link_bps),
            cfg,
            status: Status::Between,
        }
    }

    /// The crossing rule for the current average (run after each average update).
    pub fn adapt(&mut self) {
        let (lo, hi) = self.red.thresholds();
        let avg = self.red.est.avg;
        let max_p = self.red.max_p();
        if lo < avg && avg < hi {
            self.status = Status::Between;
        } else if avg < lo && self.status != Status::Below {
            self.status = Status::Below;
            self.red
                .set_max_p((max_p / self.cfg.alpha).max(self.cfg.bottom));
        } else if avg > hi && self.status != Status::Above {
            self.status = Status::Above;
            self.red
                .set_max_p((max_p * self.cfg.beta).min(self.cfg.top));
        }
    }
}

impl Aqm for FengRed {
    fn on_arrival(&mut self, q: &QueueView, pkt: &Packet, now: Time, rng: &mut Rng) -> Verdict {
        let idle = self.red.update_avg(q, now);
        self.adapt();
        self.red.decide_arrival(q, pkt, idle, rng)
    }
    fn on_overflow(&mut self, q: &QueueView, now: Time) {
        self.red.on_overflow(q, now)
    }
    fn on_idle(&mut self, since: Time) {
        self.red.on_idle(since)
    }
    fn metric_names(&self) -> &'static [&'static str] {
        &["avg", "p_b", "p_a", "count", "max_p", "status"]
    }
    fn metrics(&self, q: &QueueView, now: Time, out: &mut [f64]) {
        self.red.metrics(q, now, &mut out[..4]);
        out[4] = self.red.max_p();
        out[5] = self.status.value();
    }
}

// ---------------------------------------------------------------------------------------
// Spec: the scenario's fields, defaults and checks
// ---------------------------------------------------------------------------------------

red_variant_spec! {
    /// Self-configuring RED (docs/aqm/feng.md). Defaults from the PSAND paper's Table I.
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct FengRedSpec {
        #[serde(default = "default_feng_min_th")]
        pub min_th: f64,
        #[serde(default = "default_feng_max_th")]
        pub max_th: f64,
        /// The initial max_p.
        #[serde(default = "default_feng_max_p")]
        pub max_p: f64,
        /// max_p ← max_p / alpha on entering Below.
        #[serde(default = "default_feng_alpha")]
        pub alpha: f64,
        /// max_p ← max_p · beta on entering Above.
        #[serde(default = "default_feng_beta")]
        pub beta: f64,
        #[serde(default = "default_one")]
        pub top: f64,
        #[serde(default)]
        pub bottom: f64,
    }
}

impl FengRedSpec {
    /// The RED this one starts from (validated and built as RED).
    pub fn red(&self) -> RedSpec {
        red_spec!(self, self.min_th, self.max_th)
    }
}

fn default_feng_min_th() -> f64 {
    5.0
}

fn default_feng_max_th() -> f64 {
    15.0
}

fn default_feng_max_p() -> f64 {
    0.02
}

fn default_feng_alpha() -> f64 {
    3.0
}

fn default_feng_beta() -> f64 {
    2.0
}

fn default_one() -> f64 {
    1.0
}

impl FengRedSpec {
    pub fn validate(&self, a: &str, _q: &QueueCtx, p: &mut Problems) {
        RedSpec::check_thresholds(a, self.min_th, self.max_th, "", p);
        for (field, v) in [("alpha", self.alpha), ("beta", self.beta)] {
            if !(v.is_finite() && v > 1.0) {
                p.err(
                    format!("{a}.{field}"),
                    v,
                    "must be a finite number > 1 (the factor that moves max_p)",
                );
            }
        }
        if !(self.top.is_finite() && self.top > 0.0 && self.top <= 1.0) {
            p.err(
                format!("{a}.top"),
                self.top,
                "must be a probability in (0, 1]",
            );
        }
        if !(self.bottom.is_finite() && self.bottom >= 0.0) {
            p.err(
                format!("{a}.bottom"),
                self.bottom,
                "must be a probability in [0, 1]",
            );
        } else if self.bottom > self.top {
            p.err(
                format!("{a}.bottom"),
                self.bottom,
                format!("must be <= top = {}", self.top),
            );
        }
        if self.max_p.is_finite()
            && self.bottom <= self.top
            && (self.max_p < self.bottom || self.max_p > self.top)
        {
            p.err(
                format!("{a}.max_p"),
                self.max_p,
                format!("must be in [bottom, top] = [{}, {}]", self.bottom, self.top),
            );
        }
        self.red().validate_fields(a, p);
    }

    pub fn build(&self, q: &QueueCtx) -> FengRed {
        let ctl = FengConfig {
            alpha: self.alpha,
            beta: self.beta,
            bottom: self.bottom,
            top: self.top,
        };
        FengRed::new(self.red().config(), ctl, q.link_bps)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::aqm::red::CountRule;
    use crate::aqm::Limit;

    const MS: Time = 1_000_000;

    fn feng(byte_mode: bool) -> FengRed {
        FengRed::new(
            RedConfig {
                min_th: 5.0,
                max_th: 15.0,
                max_p: 0.02,
                w_q: Some(1.0), // avg = the instantaneous queue: the test drives it directly
                gentle: true,
                count_rule: CountRule::Ns2Wait,
                byte_mode,
                mean_pktsize: 500,
                ecn: true, // marks, not drops: nothing here depends on the verdicts
                mark_above_max_th: true,
                ns2_qlen_guard: false,
            },
            FengConfig {
                alpha: 3.0,
                beta: 2.0,
                bottom: 0.0,
                top: 1.0,
            },
            10_000_000,
        )
    }

    fn view(len: u32) -> QueueView {
        QueueView::new(len, len as u64 * 500, Limit::Packets(100), 10_000_000)
    }

    /// Offers arrivals that see the given queue lengths (in packets of mean size).
    fn drive(f: &mut FengRed, lens: &[u32]) {
        let mut rng = Rng::for_component(1, 0, "feng-test");
        let pkt = Packet {
            size: 500,
            ..Default::default()
        };
        for (i, &l) in lens.iter().enumerate() {
            f.on_arrival(&view(l), &pkt, i as Time * MS, &mut rng);
        }
    }

    #[test]
    fn one_excursion_above_max_th_doubles_max_p_once() {
        for byte_mode in [false, true] {
            let mut f = feng(byte_mode);
            drive(&mut f, &[10, 20, 25, 30, 20, 16]);
            assert_eq!(f.status, Status::Above);
            assert_eq!(f.red.max_p(), 0.04, "byte_mode {byte_mode}");
        }
    }

    #[test]
    fn one_excursion_below_min_th_divides_max_p_by_alpha_once() {
        for byte_mode in [false, true] {
            let mut f = feng(byte_mode);
            drive(&mut f, &[3, 2, 0, 1, 4]);
            assert_eq!(f.status, Status::Below);
            assert_eq!(f.red.max_p(), 0.02 / 3.0, "byte_mode {byte_mode}");
        }
    }

    #[test]
    fn returning_between_the_thresholds_changes_nothing_and_rearms_the_rule() {
        for byte_mode in [false, true] {
            let mut f = feng(byte_mode);
            drive(&mut f, &[20, 10, 12]);
            assert_eq!((f.status, f.red.max_p()), (Status::Between, 0.04));
            // A second excursion above is a new crossing: one more doubling.
            drive(&mut f, &[20, 21]);
            assert_eq!(f.red.max_p(), 0.08);
            // Above → Below directly: one division, exact.
            drive(&mut f, &[2, 1]);
            assert_eq!((f.status, f.red.max_p()), (Status::Below, 0.08 / 3.0));
        }
    }

    #[test]
    fn an_average_on_a_threshold_keeps_the_status() {
        let mut f = feng(false);
        drive(&mut f, &[5, 15]);
        assert_eq!((f.status, f.red.max_p()), (Status::Between, 0.02));
        drive(&mut f, &[20, 15]);
        assert_eq!((f.status, f.red.max_p()), (Status::Above, 0.04));
    }

    #[test]
    fn max_p_stays_within_top_and_bottom() {
        let mut f = feng(false);
        for _ in 0..10 {
            drive(&mut f, &[20, 10]); // 0.02 · 2^6 = 1.28 > 1 on the sixth excursion
        }
        assert_eq!(f.red.max_p(), 1.0);
        f.cfg.bottom = 0.1;
        for _ in 0..5 {
            drive(&mut f, &[2, 10]); // 1 → 1/3 → 1/9 → 0.1 (bounded)
        }
        assert_eq!(f.red.max_p(), 0.1);
    }

    #[test]
    fn metrics_report_max_p_and_status() {
        let mut f = feng(true);
        drive(&mut f, &[20]);
        let mut out = [0.0; 6];
        f.metrics(&view(20), 0, &mut out);
        assert_eq!(f.metric_names()[4..], ["max_p", "status"]);
        assert_eq!(out[0], 20.0 * 500.0); // avg in bytes in byte mode
        assert_eq!((out[4], out[5]), (0.04, 1.0));
    }
}
