//! PIE, "Proportional Integral controller Enhanced" (Pan, Natarajan, Piglione, Prabhu,
//! Bernstein, Baker, RFC 8033, 2017; Linux `net/sched/sch_pie.c` and `include/net/pie.h`
//! for the details the RFC leaves open).
//!
//! A PI controller of the queueing *delay* with the drop probability as actuator, updated
//! every `t_update` (15 ms):
//!
//!   Δp = α·(qdelay − target) + β·(qdelay − qdelay_old)          (RFC 8033 §4.2)
//!
//! with α = 0.125 /s and β = 1.25 /s and delays in seconds, so Δp is a probability. The
//! α term pulls the delay to `target` (15 ms), the β term damps by reacting to its trend.
//! One fixed gain cannot suit both light and heavy congestion (a gain that is stable at
//! p ≈ 1% oscillates at p ≈ 0.01%), so Δp is divided by 2048, 512, 128, 32, 8 or 2 when p
//! is below 10⁻⁶, 10⁻⁵, 10⁻⁴, 10⁻³, 10⁻² or 10⁻¹ (§4.2 auto-tuning). Then:
//! - above p = 10%, one update raises p by at most 2 percentage points (§4.2);
//! - a delay above 250 ms adds 2 points at once (Linux: protection against a slow start
//!   into a large buffer);
//! - two consecutive zero delays decay p by 2% (p ×= 0.98, §4.2; Linux uses 63/64);
//! - p stays in [0, 1].
//!
//! The delay estimate is, by default, the sojourn time of the last departing packet (Linux
//! `dq_rate_estimator` off, the RFC's timestamp alternative of §5.3), 0 when it left the
//! buffer empty. With `dq_rate_estimator = true` it is Little's law, qdelay = backlog /
//! avg_dq_rate, the departure rate being measured over cycles of `dq_threshold` bytes
//! (16 KiB) that start only when at least that much is waiting, averaged with weight 1/8
//! (RFC 8033 §5.3 and Linux).
//!
//! Arrivals (`drop_early`, §4.1 and Linux): no early signal while the burst allowance is
//! left, nor when qdelay_old < target/2 and p < 20% (the RFC's work-conservation rule), nor
//! when fewer than two MTUs wait (Linux; "like min_th in RED"). In `byte_mode` a packet of
//! s ≤ mtu bytes uses p·s/mtu. With `derandomize` (RFC 8033 §5.1, on in Linux) the
//! probabilities of the arrivals since the last signal are accumulated: no signal below
//! 0.85, a certain one at 8.5, a random one with p in between, so signals are neither
//! bunched nor spaced too far apart. A signal is an ECN mark when `ecn` is set, the packet
//! is ECN-capable and p ≤ `mark_ecn_th` (10%); otherwise a drop, as marking at high p
//! would let unresponsive ECN traffic fill the buffer (§5.1).
//!
//! Burst allowance (§4.4): starts at `max_burst` (150 ms), decreases by t_update at each
//! update, and is refilled to max_burst when p = 0 and both the current and the previous
//! delay are below target/2. Choice: the RFC's per-update decrement in both estimator
//! modes; Linux decrements it by the time between departures in timestamp mode.

use super::QueueCtx;
use super::{Aqm, QueueView, Reason, Verdict};
use crate::check::{default_mtu, default_true, Problems};
use crate::packet::{Ecn, Packet};
use crate::rng::Rng;
use crate::units::{secs, Time, NS_PER_SEC};
use crate::units::{Bytes, Duration};
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq)]
pub struct PieConfig {
    pub target: Time,
    pub t_update: Time,
    /// Per second: Δp per second of delay error.
    pub alpha: f64,
    /// Per second: Δp per second of delay change since the last update.
    pub beta: f64,
    pub max_burst: Time,
    pub ecn: bool,
    /// Highest p at which ECN-capable packets are marked rather than dropped.
    pub mark_ecn_th: f64,
    pub byte_mode: bool,
    /// Bytes: the packet size of byte mode's scaling and of the tiny-queue rule.
    pub mtu: u32,
    /// `Some(dq_threshold bytes)`: Little's-law delay from a measured departure rate.
    pub dq_rate: Option<u64>,
    pub derandomize: bool,
}

impl Default for PieConfig {
    fn default() -> Self {
        PieConfig {
            target: 15_000_000,
            t_update: 15_000_000,
            alpha: 0.125,
            beta: 1.25,
            max_burst: 150_000_000,
            ecn: false,
            mark_ecn_th: 0.1,
            byte_mode: false,
            mtu: 1514,
            dq_rate: None,
            derandomize: true,
        }
    }
}

#[derive(Clone, Debug)]
pub struct Pie {
    pub cfg: PieConfig,
    /// Drop probability.
    pub p: f64,
    /// Current delay estimate (last sojourn, or backlog/avg_dq_rate at the last update).
    pub qdelay: Time,
    /// The delay at the previous update.
    pub qdelay_old: Time,
    pub burst_allowance: Time,
    /// Derandomisation: probability accumulated since the last signal.
    pub accu_prob: f64,
    /// Departure-rate measurement: bytes in the current cycle, when one is running.
    dq_count: Option<u64>,
    dq_tstamp: Time,
    /// Bytes per second.
    pub avg_dq_rate: f64,
    backlog: u64,
}

impl Pie {
    pub fn new(cfg: PieConfig) -> Pie {
        Pie {
            burst_allowance: cfg.max_burst,
            cfg,
            p: 0.0,
            qdelay: 0,
            qdelay_old: 0,
            accu_prob: 0.0,
            dq_count: None,
            dq_tstamp: 0,
            avg_dq_rate: 0.0,
            backlog: 0,
        }
    }

    /// The RFC's auto-tuning divisor of Δp for the current p.
    pub fn tune_divisor(p: f64) -> f64 {
        match p {
            p if p < 1e-6 => 2048.0,
            p if p < 1e-5 => 512.0,
            p if p < 1e-4 => 128.0,
            p if p < 1e-3 => 32.0,
            p if p < 1e-2 => 8.0,
            p if p < 1e-1 => 2.0,
            _ => 1.0,
        }
    }

    /// One periodic update of p (RFC 8033 §4.2, §4.4); `backlog` in bytes.
    pub fn update(&mut self, backlog: u64) {
        let cfg = &self.cfg;
        let qdelay = match cfg.dq_rate {
            Some(_) if self.avg_dq_rate > 0.0 => {
                (backlog as f64 / self.avg_dq_rate * NS_PER_SEC as f64) as Time
            }
            Some(_) => 0,
            None => self.qdelay,
        };
        let (s, old) = (secs(qdelay), secs(self.qdelay_old));
        let mut delta = cfg.alpha * (s - secs(cfg.target)) + cfg.beta * (s - old);
        delta /= Self::tune_divisor(self.p);
        if self.p >= 0.1 && delta > 0.02 {
            delta = 0.02;
        }
        if qdelay > 250_000_000 {
            delta += 0.02;
        }
        self.p = (self.p + delta).clamp(0.0, 1.0);
        // A zero estimate with packets waiting means "too few to measure", not "no delay"
        // (Linux skips the decay then).
        if qdelay == 0 && self.qdelay_old == 0 && backlog == 0 {
            self.p *= 0.98;
        }
        let half = cfg.target / 2;
        let previous = self.qdelay_old;
        self.qdelay = qdelay;
        self.qdelay_old = qdelay;
        self.burst_allowance = self.burst_allowance.saturating_sub(cfg.t_update);
        if self.p == 0.0 && qdelay < half && previous < half {
            self.burst_allowance = cfg.max_burst;
        }
    }

    /// The early-signal decision for an arrival (no state but the derandomiser changes).
    fn drop_early(&mut self, q: &QueueView, pkt: &Packet, rng: &mut Rng) -> bool {
        let cfg = &self.cfg;
        if self.burst_allowance > 0 {
            return false;
        }
        if self.qdelay_old < cfg.target / 2 && self.p < 0.2 {
            return false;
        }
        if q.len_bytes < 2 * cfg.mtu as u64 {
            return false;
        }
        let p = if cfg.byte_mode && pkt.size <= cfg.mtu {
            self.p * pkt.size as f64 / cfg.mtu as f64
        } else {
            self.p
        };
        if cfg.derandomize {
            if p == 0.0 {
                self.accu_prob = 0.0;
            } else {
                self.accu_prob += p;
            }
            if self.accu_prob < 0.85 {
                return false;
            }
            if self.accu_prob >= 8.5 {
                return true;
            }
        }
        rng.uniform() < p
    }
}

impl Aqm for Pie {
    fn on_arrival(&mut self, q: &QueueView, pkt: &Packet, _now: Time, rng: &mut Rng) -> Verdict {
        if !self.drop_early(q, pkt, rng) {
            return Verdict::Pass;
        }
        self.accu_prob = 0.0;
        if self.cfg.ecn && self.p <= self.cfg.mark_ecn_th && pkt.ecn != Ecn::NotEct {
            Verdict::Mark(Reason::Early)
        } else {
            Verdict::Drop(Reason::Early)
        }
    }

    fn on_departure(&mut self, q: &QueueView, pkt: &Packet, now: Time, _rng: &mut Rng) -> Verdict {
        self.backlog = q.len_bytes;
        match self.cfg.dq_rate {
            None => {
                self.qdelay = if q.len_pkts == 0 {
                    0
                } else {
                    now.saturating_sub(pkt.enqueued)
                };
            }
            Some(threshold) => {
                // A cycle starts only with enough backlog to measure a full-rate drain.
                // The packet that starts a cycle left at its timestamp: it is not counted
                // (Linux counts it, overestimating the rate by one packet per cycle).
                if self.dq_count.is_none() {
                    if q.len_bytes >= threshold {
                        self.dq_tstamp = now;
                        self.dq_count = Some(0);
                    }
                } else if let Some(c) = self.dq_count.as_mut() {
                    *c += pkt.size as u64;
                    if *c >= threshold {
                        let dt = now - self.dq_tstamp;
                        if dt > 0 {
                            let rate = *c as f64 * NS_PER_SEC as f64 / dt as f64;
                            self.avg_dq_rate = if self.avg_dq_rate == 0.0 {
                                rate
                            } else {
                                0.875 * self.avg_dq_rate + 0.125 * rate
                            };
                        }
                        if q.len_bytes < threshold {
                            self.dq_count = None;
                        } else {
                            self.dq_count = Some(0);
                            self.dq_tstamp = now;
                        }
                    }
                }
            }
        }
        Verdict::Pass
    }

    fn on_overflow(&mut self, _q: &QueueView, _now: Time) {
        self.accu_prob = 0.0;
    }

    fn first_timer(&self, now: Time) -> Option<Time> {
        Some(now + self.cfg.t_update)
    }

    fn on_timer(&mut self, q: &QueueView, now: Time) -> Option<Time> {
        self.update(q.len_bytes);
        Some(now + self.cfg.t_update)
    }

    fn metric_names(&self) -> &'static [&'static str] {
        &["p", "qdelay", "burst_allowance", "avg_dq_rate"]
    }

    fn metrics(&self, _q: &QueueView, _now: Time, out: &mut [f64]) {
        out[0] = self.p;
        out[1] = secs(self.qdelay);
        out[2] = secs(self.burst_allowance);
        out[3] = self.avg_dq_rate;
    }
}

// ---------------------------------------------------------------------------------------
// Spec: the scenario's fields, defaults and checks
// ---------------------------------------------------------------------------------------

/// PIE parameters (docs/aqm/pie.md; RFC 8033 and Linux defaults).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PieSpec {
    #[serde(default = "default_pie_target")]
    pub target: Duration,
    #[serde(default = "default_pie_target")]
    pub t_update: Duration,
    /// Per second.
    #[serde(default = "default_pie_alpha")]
    pub alpha: f64,
    /// Per second.
    #[serde(default = "default_pie_beta")]
    pub beta: f64,
    #[serde(default = "default_max_burst")]
    pub max_burst: Duration,
    #[serde(default)]
    pub ecn: bool,
    /// Highest p at which ECN-capable packets are marked (default 0.1; needs ecn).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mark_ecn_th: Option<f64>,
    #[serde(default)]
    pub byte_mode: bool,
    #[serde(default = "default_mtu")]
    pub mtu: Bytes,
    #[serde(default)]
    pub dq_rate_estimator: bool,
    /// Bytes per departure-rate measurement cycle (default 16 KiB; needs dq_rate_estimator).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dq_threshold: Option<Bytes>,
    #[serde(default = "default_true")]
    pub derandomize: bool,
}

fn default_pie_target() -> Duration {
    Duration(15_000_000)
}

fn default_pie_alpha() -> f64 {
    0.125
}

fn default_pie_beta() -> f64 {
    1.25
}

fn default_max_burst() -> Duration {
    Duration(150_000_000)
}

impl PieSpec {
    pub fn validate(&self, a: &str, _q: &QueueCtx, p: &mut Problems) {
        p.positive_time(format!("{a}.target"), self.target);
        p.positive_time(format!("{a}.t_update"), self.t_update);
        p.time_at_most(format!("{a}.max_burst"), self.max_burst);
        if !(self.alpha.is_finite() && self.alpha > 0.0 && self.alpha <= 2.0) {
            p.err(
                format!("{a}.alpha"),
                self.alpha,
                "must be in (0, 2] per second (RFC 8033 §4.2)",
            );
        }
        if !(self.beta.is_finite() && (0.0..=2.0).contains(&self.beta)) {
            p.err(
                format!("{a}.beta"),
                self.beta,
                "must be in [0, 2] per second (RFC 8033 §4.2)",
            );
        }
        if let Some(th) = self.mark_ecn_th {
            if !self.ecn {
                p.err(
                    format!("{a}.mark_ecn_th"),
                    th,
                    "only meaningful with ecn = true",
                );
            } else if !(th.is_finite() && th > 0.0 && th <= 1.0) {
                p.err(
                    format!("{a}.mark_ecn_th"),
                    th,
                    "must be a probability in (0, 1]",
                );
            }
        }
        p.packet_size(a, "mtu", self.mtu);
        if let Some(b) = self.dq_threshold {
            if !self.dq_rate_estimator {
                p.err(
                    format!("{a}.dq_threshold"),
                    b.0,
                    "only meaningful with dq_rate_estimator = true",
                );
            } else if b.0 == 0 || b.0 > u32::MAX as u64 {
                p.err(
                    format!("{a}.dq_threshold"),
                    b.0,
                    format!("must be in [1, {}] bytes", u32::MAX),
                );
            }
        }
    }

    pub fn build(&self, _q: &QueueCtx) -> Pie {
        Pie::new(PieConfig {
            target: self.target.0,
            t_update: self.t_update.0,
            alpha: self.alpha,
            beta: self.beta,
            max_burst: self.max_burst.0,
            ecn: self.ecn,
            mark_ecn_th: self.mark_ecn_th.unwrap_or(0.1),
            byte_mode: self.byte_mode,
            mtu: self.mtu.0 as u32,
            dq_rate: self
                .dq_rate_estimator
                .then(|| self.dq_threshold.map_or(16_384, |b| b.0)),
            derandomize: self.derandomize,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::aqm::AnyAqm;
    use crate::packet::PacketArena;
    use crate::queue::{Limit, OutputQueue};

    const MS: Time = 1_000_000;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-12 * b.abs().max(1e-300)
    }

    /// A PIE whose timestamp estimate is `qdelay` and previous one `old`.
    fn at(p: f64, qdelay: Time, old: Time) -> Pie {
        let mut x = Pie::new(PieConfig::default());
        x.p = p;
        x.qdelay = qdelay;
        x.qdelay_old = old;
        x
    }

    #[test]
    fn first_update_from_zero_is_scaled_down_by_2048() {
        // Δp = 0.125·(0.020 − 0.015) + 1.25·(0.020 − 0) = 0.025625; p < 1e-6 → /2048.
        let mut x = at(0.0, 20 * MS, 0);
        x.update(100_000);
        assert!(close(x.p, 0.025625 / 2048.0), "{}", x.p);
        assert_eq!(x.qdelay_old, 20 * MS);
    }

    #[test]
    fn auto_tuning_divides_by_the_magnitude_of_p() {
        // Same Δp = 0.125·0.015 + 1.25·0.010 = 0.014375 at each p, divided by the RFC's
        // factor for that p.
        for (p, div) in [
            (5e-7, 2048.0),
            (5e-6, 512.0),
            (5e-5, 128.0),
            (5e-4, 32.0),
            (5e-3, 8.0),
            (0.05, 2.0),
        ] {
            let mut x = at(p, 30 * MS, 20 * MS);
            x.update(100_000);
            assert!(close(x.p, p + 0.014375 / div), "p={p}: {}", x.p);
        }
        // At 10% and above: no scaling, but a rise is capped at 2 points per update.
        let mut x = at(0.2, 100 * MS, 50 * MS);
        x.update(100_000);
        assert!(close(x.p, 0.22), "{}", x.p);
        // A fall is never capped: 0.125·(0.010 − 0.015) + 1.25·(0.010 − 0.050) = −0.050625.
        let mut x = at(0.3, 10 * MS, 50 * MS);
        x.update(100_000);
        assert!(close(x.p, 0.3 - 0.050625), "{}", x.p);
    }

    #[test]
    fn a_delay_above_250ms_adds_two_points_after_the_cap() {
        // Δp = 0.125·0.285 = 0.035625 → capped to 0.02, then +0.02.
        let mut x = at(0.2, 300 * MS, 300 * MS);
        x.update(1_000_000);
        assert!(close(x.p, 0.24), "{}", x.p);
    }

    #[test]
    fn two_zero_delays_decay_p_by_two_percent() {
        // Δp = 0.125·(−0.015) = −0.001875, then ×0.98 with an empty queue.
        let mut x = at(0.5, 0, 0);
        x.update(0);
        assert!(close(x.p, (0.5 - 0.001875) * 0.98), "{}", x.p);
        // Not with packets waiting (a zero estimate then means "not measured").
        let mut x = at(0.5, 0, 0);
        x.update(3000);
        assert!(close(x.p, 0.5 - 0.001875), "{}", x.p);
    }

    #[test]
    fn p_stays_a_probability() {
        let mut x = at(0.995, 400 * MS, 400 * MS);
        x.update(1_000_000);
        assert_eq!(x.p, 1.0);
        let mut x = at(0.001, 0, 100 * MS);
        x.update(1_000_000);
        assert_eq!(x.p, 0.0);
    }

    fn view(len_bytes: u64) -> QueueView {
        QueueView::new(
            (len_bytes / 1500) as u32,
            len_bytes,
            Limit::Packets(1000),
            10_000_000,
        )
    }

    /// Signals among `n` arrivals of `size`-byte `ecn` packets at a fixed p (and no burst
    /// allowance): (marks, drops).
    fn signals(mut x: Pie, n: usize, size: u32, ecn: Ecn, backlog: u64) -> (usize, usize) {
        let mut rng = Rng::for_component(5, 0, "pie-test");
        let pkt = Packet {
            size,
            ecn,
            ..Default::default()
        };
        let (mut m, mut d) = (0, 0);
        for _ in 0..n {
            match x.on_arrival(&view(backlog), &pkt, 0, &mut rng) {
                Verdict::Mark(_) => m += 1,
                Verdict::Drop(_) => d += 1,
                Verdict::Pass => {}
            }
        }
        (m, d)
    }

    fn busy(p: f64, cfg: PieConfig) -> Pie {
        let mut x = Pie::new(cfg);
        x.p = p;
        x.qdelay_old = 100 * MS;
        x.burst_allowance = 0;
        x
    }

    #[test]
    fn burst_allowance_lets_everything_in_until_it_runs_out() {
        let mut x = Pie::new(PieConfig::default());
        assert_eq!(x.burst_allowance, 150 * MS);
        x.p = 1.0;
        x.qdelay_old = 100 * MS;
        assert_eq!(signals(x.clone(), 1000, 1500, Ecn::NotEct, 100_000), (0, 0));
        // Ten updates of 15 ms under heavy delay use it up.
        for k in 1..=10 {
            x.qdelay = 100 * MS;
            x.update(100_000);
            assert_eq!(x.burst_allowance, 150 * MS - k * 15 * MS);
        }
        let (_, d) = signals(x, 1000, 1500, Ecn::NotEct, 100_000);
        assert!(d > 900, "{d}");
    }

    #[test]
    fn burst_allowance_is_refilled_when_p_is_zero_and_delay_low_twice() {
        let mut x = at(0.0, MS, MS);
        x.burst_allowance = 0;
        x.update(0);
        assert_eq!(x.burst_allowance, 150 * MS);
        // A previous delay at target/2 is not "low": no refill.
        let mut x = at(0.0, MS, 7_500_000);
        x.burst_allowance = 0;
        x.update(0);
        assert_eq!(x.burst_allowance, 0);
    }

    #[test]
    fn no_early_signal_below_half_target_while_p_is_under_20_percent() {
        let cfg = PieConfig {
            derandomize: false,
            ..PieConfig::default()
        };
        let mut x = busy(0.19, cfg.clone());
        x.qdelay_old = 7_499_999;
        assert_eq!(signals(x.clone(), 2000, 1500, Ecn::NotEct, 100_000), (0, 0));
        // At p = 20% the rule no longer protects: about 20% are dropped.
        x.p = 0.2;
        let (_, d) = signals(x.clone(), 20_000, 1500, Ecn::NotEct, 100_000);
        // Binomial(20000, 0.2): sd 57; 5 sd.
        assert!((d as f64 - 4000.0).abs() < 285.0, "{d}");
        // Nor with fewer than two MTUs waiting, whatever p.
        x.p = 1.0;
        assert_eq!(signals(x, 1000, 1500, Ecn::NotEct, 3027), (0, 0));
    }

    #[test]
    fn ecn_marks_up_to_mark_ecn_th_and_drops_above() {
        let cfg = PieConfig {
            ecn: true,
            derandomize: false,
            ..PieConfig::default()
        };
        let (m, d) = signals(busy(0.1, cfg.clone()), 20_000, 1500, Ecn::Ect0, 100_000);
        assert!(m > 1700 && d == 0, "{m} {d}");
        let (m, d) = signals(busy(0.11, cfg.clone()), 20_000, 1500, Ecn::Ect0, 100_000);
        assert!(m == 0 && d > 1900, "{m} {d}");
        // Not-ECT packets are dropped even at low p.
        let (m, d) = signals(busy(0.1, cfg.clone()), 20_000, 1500, Ecn::NotEct, 100_000);
        assert!(m == 0 && d > 1700, "{m} {d}");
        // A lower threshold is observable.
        let low = PieConfig {
            mark_ecn_th: 0.05,
            ..cfg
        };
        let (m, _) = signals(busy(0.1, low), 20_000, 1500, Ecn::Ect0, 100_000);
        assert_eq!(m, 0);
    }

    #[test]
    fn byte_mode_scales_p_by_size_over_mtu() {
        let cfg = PieConfig {
            byte_mode: true,
            derandomize: false,
            ..PieConfig::default()
        };
        let n = 40_000;
        for size in [500u32, 1500] {
            let (_, d) = signals(busy(0.3, cfg.clone()), n, size, Ecn::NotEct, 100_000);
            let want = 0.3 * size as f64 / 1514.0;
            let sd = (want * (1.0 - want) / n as f64).sqrt();
            let got = d as f64 / n as f64;
            assert!((got - want).abs() < 5.0 * sd, "{size}: {got} vs {want}");
        }
    }

    #[test]
    fn derandomisation_spaces_signals_between_085_and_85_over_p() {
        // p = 0.05: no signal before 17 arrivals (0.85/0.05), always one by 170.
        let mut x = busy(0.05, PieConfig::default());
        let mut rng = Rng::for_component(5, 0, "pie-derand");
        let pkt = Packet {
            size: 1500,
            ..Default::default()
        };
        let mut gaps = vec![];
        let mut since = 0;
        for _ in 0..100_000 {
            since += 1;
            if x.on_arrival(&view(100_000), &pkt, 0, &mut rng) != Verdict::Pass {
                gaps.push(since);
                since = 0;
            }
        }
        // (One more arrival is allowed at each end for the rounding of 17 × 0.05.)
        assert!(gaps.iter().all(|&g| (17..=171).contains(&g)), "{gaps:?}");
        assert!(gaps.len() > 1000);
        // Without it, gaps are geometric: many are shorter than 17.
        let mut y = busy(
            0.05,
            PieConfig {
                derandomize: false,
                ..PieConfig::default()
            },
        );
        let (mut short, mut since) = (0, 0);
        for _ in 0..100_000 {
            since += 1;
            if y.on_arrival(&view(100_000), &pkt, 0, &mut rng) != Verdict::Pass {
                short += (since < 17) as u32;
                since = 0;
            }
        }
        assert!(short > 1000, "{short}");
    }

    #[test]
    fn timestamp_estimate_is_the_last_sojourn_and_zero_when_the_queue_empties() {
        for limit in [Limit::Packets(100), Limit::Bytes(150_000)] {
            let mut a = PacketArena::default();
            let mut q = OutputQueue::new(
                limit,
                10_000_000,
                AnyAqm::Pie(Pie::new(PieConfig::default())),
                Rng::for_component(1, 0, "pie"),
            );
            for t in [0, MS] {
                let i = a.alloc(Packet {
                    size: 1500,
                    ..Default::default()
                });
                q.arrive(i, &mut a, t);
            }
            let qd = |q: &OutputQueue| match q.aqm() {
                AnyAqm::Pie(p) => p.qdelay,
                _ => unreachable!(),
            };
            q.dequeue(&mut a, 12 * MS, &mut vec![]);
            assert_eq!(qd(&q), 12 * MS);
            q.dequeue(&mut a, 20 * MS, &mut vec![]);
            assert_eq!(qd(&q), 0);
            q.check_conservation(&a).unwrap();
        }
    }

    #[test]
    fn departure_rate_estimate_gives_littles_law_delay() {
        let cfg = PieConfig {
            dq_rate: Some(16_384),
            ..PieConfig::default()
        };
        let mut x = Pie::new(cfg);
        // 1500-byte packets leave every 1.2 ms (10 Mb/s) with 60 000 bytes waiting.
        let pkt = Packet {
            size: 1500,
            ..Default::default()
        };
        let mut rng = Rng::for_component(1, 0, "x");
        for k in 0..200u64 {
            x.on_departure(&view(60_000), &pkt, k * 1_200_000, &mut rng);
        }
        assert!((x.avg_dq_rate - 1.25e6).abs() < 1.0, "{}", x.avg_dq_rate);
        x.update(60_000);
        // 60 000 B at 1.25 MB/s = 48 ms.
        assert!((x.qdelay as i64 - 48_000_000).abs() <= 1, "{}", x.qdelay);
    }
}
