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
//!
//! L4S mode (`l4s`, off by default), after ns-3.44's `PieQueueDisc` (`UseL4s` and
//! `CeThreshold`; RFC 8033 has no L4S mode): packets carrying the L4S identifier, ECT(1) or CE (RFC 9331 §5.1;
//! ns-3 tests the same two codepoints), bypass the early drop at arrival: no drop, no
//! mark, no draw and no change to the derandomiser's sum; only a full buffer drops them.
//! At departure an ECT(1) packet whose sojourn exceeds `ce_threshold` (1 ms) is marked
//! (`Reason::Dequeue`, so that these immediate step marks are told apart from PIE's
//! `Reason::Early` ones); a CE packet stays CE. Classic packets (Not-ECT, ECT(0)) are PIE's
//! as without the mode; `ecn` and `mark_ecn_th` concern them alone, so `l4s` with
//! `ecn = false` is the classic-drops, L4S-marks configuration and is allowed, as in ns-3.
//! Where this differs from ns-3.44:
//! - ns-3 returns an L4S packet at dequeue before its delay estimator runs, so in ns-3
//!   only classic departures set the timestamp delay (and its "0 when the queue empties")
//!   and only classic bytes count towards the rate estimator, which therefore under-
//!   estimates the departure rate by the L4S share and overestimates the delay. Here every
//!   departure feeds the estimator: the delay is the shared FIFO's.
//! - ns-3's `CeThreshold` defaults to `Time::Max()` (never mark: the L4S packets would see
//!   no AQM at all); here 1 ms, the step threshold of Linux's `fq_codel` L4S example
//!   (`ce_threshold 1ms`) and of Linux's DualPI2 (`step_thresh`).
//!
//! Linux's `sch_pie` has no L4S mode (nor does `fq_pie`); an L4S PIE in Linux is DualPI2
//! (De Schepper, Briscoe, White, RFC 9332, 2023), a coupled dual queue, which this is not:
//! here L4S and classic packets share one FIFO, so L4S packets wait behind the classic
//! queue that PIE holds near `target`.

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
    /// `Some(ce_threshold)`: the L4S mode (ns-3's `UseL4s`) with its marking sojourn.
    pub l4s: Option<Time>,
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
            l4s: None,
        }
    }
}

/// Whether a packet carries the L4S identifier (RFC 9331 §5.1: ECT(1), and CE, which an
/// L4S node cannot tell apart from marked ECT(1)).
#[inline]
fn is_l4s(e: Ecn) -> bool {
    matches!(e, Ecn::Ect1 | Ecn::Ce)
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
        // ns-3 decides an L4S packet's bypass before anything else of DropEarly runs.
        if self.cfg.l4s.is_some() && is_l4s(pkt.ecn) {
            return Verdict::Pass;
        }
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
        match self.cfg.l4s {
            // Strictly above, as ns-3 (`Now() - timestamp > m_ceThreshold`).
            Some(th) if pkt.ecn == Ecn::Ect1 && now.saturating_sub(pkt.enqueued) > th => {
                Verdict::Mark(Reason::Dequeue)
            }
            _ => Verdict::Pass,
        }
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
    /// ns-3's L4S mode (`UseL4s`): ECT(1) and CE packets skip the early drop and are marked
    /// at departure above `ce_threshold`. Default false (ns-3); echoed only when true, so
    /// canonical forms stay as they were.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub l4s: bool,
    /// The L4S marking sojourn (default 1 ms, Linux's L4S step; ns-3's default never marks;
    /// needs l4s).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ce_threshold: Option<Duration>,
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

/// The L4S step threshold: Linux's `fq_codel` L4S example (`ce_threshold 1ms`) and
/// DualPI2's `step_thresh` default.
fn default_l4s_ce_threshold() -> Duration {
    Duration(1_000_000)
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
        if let Some(th) = self.ce_threshold {
            if !self.l4s {
                p.err(
                    format!("{a}.ce_threshold"),
                    format!("\"{}\"", crate::units::format_time(th.0)),
                    "only meaningful with l4s = true",
                );
            } else {
                p.positive_time(format!("{a}.ce_threshold"), th);
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
            l4s: self
                .l4s
                .then(|| self.ce_threshold.unwrap_or_else(default_l4s_ce_threshold).0),
        })
    }
}

#[cfg(test)]
mod tests;
