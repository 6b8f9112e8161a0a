//! CUBIC congestion control, RFC 9438 (Xu, Ha, Rhee, Goel, Eggert 2023). Windows count
//! segments (cwnd a float, as Reno's), times are seconds. The equations implemented:
//!
//! - Eq. 1, the window curve: W_cubic(t) = C·(t − K)³ + W_max, with C = 0.4 (§5.1) and
//!   t the time since the current congestion-avoidance stage (the epoch) began: t alone,
//!   nothing added, when compared with W_est; the target (§4.2) is W_cubic(t + RTT) with
//!   RTT the sender's smoothed RTT (0 before its first sample).
//! - Eq. 2, K = ∛((W_max − cwnd_epoch) / C), cwnd_epoch the window when the epoch began;
//!   an epoch that begins at or above W_max (slow start ended by ssthresh, or the first
//!   stage after a timeout, §4.8) sets W_max = cwnd_epoch and K = 0.
//! - The target per ACK (§4.2): clamped to [cwnd, 1.5·cwnd]; in the concave and convex
//!   regions (§4.4, §4.5) cwnd += (target − cwnd) / cwnd for each new ACK.
//! - Eq. 4, the Reno-friendly estimate (§4.3): W_est = cwnd_epoch at the epoch's start,
//!   then W_est += α_cubic · segments_acked / cwnd per new ACK, α_cubic = 3(1 − β)/(1 + β)
//!   (0.529 for β = 0.7), and α_cubic = 1 once W_est ≥ cwnd_prior (the window at the last
//!   reduction; §4.3's SHOULD). When W_cubic(t) < W_est, cwnd = W_est.
//! - Slow start below ssthresh as Reno (cwnd += 1 per new ACK, §4.10), ended by ssthresh
//!   or a congestion event. With `hystart = true`, the first slow start is HyStart++
//!   (RFC 9406, `congestion::hystart`): cwnd += min(N, L) per ACK of N segments, CSS's
//!   quarter of that after a delay rise, and after CSS's rounds ssthresh = cwnd with
//!   §4.10's special case: cwnd_prior = cwnd, and the epoch begins with W_max = cwnd and
//!   K = 0 (no loss has defined W_max).
//! - A congestion event (§4.6), fast retransmit or ECN-Echo: flight-based,
//!   ssthresh = FlightSize · β_cubic with β_cubic = 0.7 (§4.6; the cwnd-based form is the
//!   MAY that needs extra care when flight < cwnd), cwnd = max(ssthresh, 2) on a loss and
//!   max(ssthresh, 1) on ECE, ssthresh = max(ssthresh, 2); cwnd_prior = cwnd before it.
//! - Fast convergence (§4.7): W_max = cwnd_prior · (1 + β)/2 when cwnd_prior < W_max (the
//!   previous W_max), else W_max = cwnd_prior. Off: W_max = cwnd_prior always.
//! - A retransmission timeout (§4.8): cwnd = 1 (Reno, RFC 5681 eq. 5), ssthresh =
//!   max(min(FlightSize, w) · β, 2) with w the un-inflated window (as `congestion::reno`
//!   bounds FlightSize after a long NewReno recovery), held on a repeated timeout
//!   (RFC 5681 §3.1); the next epoch starts with K = 0, W_max = W_est = cwnd_epoch.
//! - Every congestion event ends the epoch; the next begins at the first new ACK in
//!   congestion avoidance (so t excludes fast recovery, as Linux's `epoch_start = 0`).
//! - An ACK carrying ECE never opens the window (RFC 3168 §6.1.2), as with Reno.

use super::hystart::HyStart;
use super::{Acked, Congestion, Controller, Delivery, Reduction};
use crate::check::Problems;
use crate::units::{secs, Time};
use serde::{Deserialize, Serialize};

/// RFC 9438 §5.1: C = 0.4 (segments per second³).
pub const DEFAULT_C: f64 = 0.4;
/// RFC 9438 §4.6: β_cubic = 0.7.
pub const DEFAULT_BETA: f64 = 0.7;

/// How the Reno-friendly estimate's α_cubic evolves within an epoch (a cubic table's
/// `reno_friendly_alpha`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum RenoFriendlyAlpha {
    /// RFC 9438 §4.3: 3(1 − β)/(1 + β) until W_est reaches cwnd_prior, then 1.
    #[serde(rename = "rfc9438")]
    Rfc9438,
    /// RFC 8312 §4.2, Linux's `tcp_cubic.c` and ns-3.44's `TcpCubic`: 3(1 − β)/(1 + β)
    /// for the whole epoch.
    #[serde(rename = "rfc8312")]
    Rfc8312,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CubicConfig {
    pub c: f64,
    pub beta: f64,
    pub fast_convergence: bool,
    pub reno_friendly_alpha: RenoFriendlyAlpha,
    /// HyStart++ (RFC 9406) in the first slow start.
    pub hystart: bool,
    /// The sender paces: HyStart++'s L is unbounded.
    pub paced: bool,
}

impl Default for CubicConfig {
    fn default() -> Self {
        CubicConfig {
            c: DEFAULT_C,
            beta: DEFAULT_BETA,
            fast_convergence: true,
            reno_friendly_alpha: RenoFriendlyAlpha::Rfc9438,
            hystart: false,
            paced: false,
        }
    }
}

#[derive(Clone, Debug)]
pub struct Cubic {
    cfg: CubicConfig,
    /// α_cubic before W_est reaches cwnd_prior (Eq. 4's 3(1 − β)/(1 + β)).
    alpha: f64,
    /// The window just before the last reduction (0: none yet, or a timeout since).
    w_max: f64,
    /// cwnd before the last reduction (§4.3's cwnd_prior).
    cwnd_prior: f64,
    /// When the current epoch began; None between a congestion event and the next ACK in
    /// congestion avoidance.
    epoch_start: Option<Time>,
    /// Eq. 2's K, seconds.
    k: f64,
    w_est: f64,
    /// HyStart++, when configured (its phase is kept after it ends, for the trace).
    hystart: Option<HyStart>,
    /// ssthresh = cwnd at HyStart++'s exit, until the sender takes it.
    exit_ssthresh: Option<f64>,
}

impl Cubic {
    pub fn new(cfg: CubicConfig) -> Cubic {
        Cubic {
            alpha: 3.0 * (1.0 - cfg.beta) / (1.0 + cfg.beta),
            cfg,
            w_max: 0.0,
            cwnd_prior: 0.0,
            epoch_start: None,
            k: 0.0,
            w_est: 0.0,
            hystart: cfg.hystart.then(|| HyStart::new(cfg.paced)),
            exit_ssthresh: None,
        }
    }

    /// Eq. 1 at `t` seconds into the epoch.
    pub fn w_cubic(&self, t: f64) -> f64 {
        self.cfg.c * (t - self.k).powi(3) + self.w_max
    }

    pub fn w_max(&self) -> f64 {
        self.w_max
    }
    pub fn k(&self) -> f64 {
        self.k
    }
    pub fn w_est(&self) -> f64 {
        self.w_est
    }

    fn begin_epoch(&mut self, now: Time, cwnd: f64) {
        self.epoch_start = Some(now);
        if self.w_max <= cwnd {
            self.w_max = cwnd;
            self.k = 0.0;
        } else {
            self.k = ((self.w_max - cwnd) / self.cfg.c).cbrt();
        }
        self.w_est = cwnd;
    }

    /// ssthresh after a loss or a mark, with cwnd_prior, W_max and the epoch reset.
    fn reduce(&mut self, flight: u64, cwnd: f64) -> f64 {
        self.end_hystart();
        self.epoch_start = None;
        self.cwnd_prior = cwnd;
        self.w_max = if self.cfg.fast_convergence && cwnd < self.w_max {
            cwnd * (1.0 + self.cfg.beta) / 2.0
        } else {
            cwnd
        };
        flight as f64 * self.cfg.beta
    }

    fn end_hystart(&mut self) {
        if let Some(h) = self.hystart.as_mut() {
            h.end();
        }
        self.exit_ssthresh = None;
    }

    /// HyStart++'s phase (None without it).
    pub fn hystart(&self) -> Option<&HyStart> {
        self.hystart.as_ref()
    }
}

impl Controller for Cubic {
    fn on_delivery(&mut self, d: &Delivery) {
        if let Some(h) = self.hystart.as_mut() {
            h.on_delivery(d);
        }
    }

    fn on_ack(&mut self, cwnd: f64, ssthresh: f64, ack: &Acked) -> f64 {
        if ack.ece {
            return cwnd;
        }
        let mut ssthresh = ssthresh;
        if let Some(h) = self.hystart.as_mut() {
            if h.take_exit() {
                // RFC 9438 §4.10: W_max undefined, so the epoch starts at cwnd with K = 0.
                self.exit_ssthresh = Some(cwnd);
                self.cwnd_prior = cwnd;
                self.w_max = 0.0;
                ssthresh = cwnd;
            } else if cwnd >= ssthresh {
                h.end();
            } else if let Some(g) = h.growth(ack.segments) {
                return cwnd + g;
            }
        }
        if cwnd < ssthresh {
            return cwnd + 1.0;
        }
        let start = match self.epoch_start {
            Some(s) => s,
            None => {
                self.begin_epoch(ack.now, cwnd);
                ack.now
            }
        };
        let t = secs(ack.now - start);
        let alpha = if self.cfg.reno_friendly_alpha == RenoFriendlyAlpha::Rfc9438
            && self.w_est >= self.cwnd_prior
        {
            1.0
        } else {
            self.alpha
        };
        self.w_est += alpha * ack.segments as f64 / cwnd;
        if self.w_cubic(t) < self.w_est {
            return self.w_est;
        }
        let rtt = if ack.srtt_s.is_finite() {
            ack.srtt_s
        } else {
            0.0
        };
        let target = self.w_cubic(t + rtt).clamp(cwnd, 1.5 * cwnd);
        cwnd + (target - cwnd) / cwnd
    }

    fn on_congestion(&mut self, event: Congestion, cwnd: f64, ssthresh: f64) -> Reduction {
        match event {
            Congestion::Loss { flight } => {
                let s = self.reduce(flight, cwnd);
                Reduction {
                    ssthresh: s.max(2.0),
                    cwnd: s.max(2.0),
                }
            }
            Congestion::Ecn { flight } => {
                let s = self.reduce(flight, cwnd);
                Reduction {
                    ssthresh: s.max(2.0),
                    cwnd: s.max(1.0),
                }
            }
            Congestion::Rto {
                flight,
                base,
                repeated,
                ..
            } => {
                self.end_hystart();
                self.epoch_start = None;
                self.w_max = 0.0;
                self.cwnd_prior = 0.0;
                let window = base.unwrap_or(cwnd);
                let ssthresh = if repeated {
                    ssthresh
                } else {
                    ((flight as f64).min(window) * self.cfg.beta).max(2.0)
                };
                Reduction {
                    ssthresh,
                    cwnd: 1.0,
                }
            }
        }
    }

    fn take_ssthresh(&mut self) -> Option<f64> {
        self.exit_ssthresh.take()
    }

    fn wants_ack_rtt(&self) -> bool {
        self.hystart.is_some()
    }

    /// `hystart` (`hystart::Phase` as a number) only with HyStart++ configured, so that
    /// the traces of a plain CUBIC keep their columns.
    fn metric_names(&self) -> &'static [&'static str] {
        if self.hystart.is_some() {
            &["w_max", "k", "w_est", "hystart"]
        } else {
            &["w_max", "k", "w_est"]
        }
    }

    fn metrics(&self, out: &mut [f64]) {
        out[0] = self.w_max;
        out[1] = self.k;
        out[2] = self.w_est;
        if let Some(h) = &self.hystart {
            out[3] = h.phase() as u8 as f64;
        }
    }
}

// ---------------------------------------------------------------------------------------
// Spec: the scenario's fields, defaults and checks
// ---------------------------------------------------------------------------------------

/// `congestion = { type = "cubic", ... }` (RFC 9438's defaults).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CubicSpec {
    /// Segments per second³ (RFC 9438 §5.1: 0.4).
    #[serde(default = "default_c")]
    pub c: f64,
    /// Multiplicative decrease factor (RFC 9438 §4.6: 0.7).
    #[serde(default = "default_beta")]
    pub beta: f64,
    /// RFC 9438 §4.7 (on by default, as Linux's `fast_convergence = 1`).
    #[serde(default = "default_true")]
    pub fast_convergence: bool,
    /// α_cubic of the Reno-friendly region: "rfc9438" (1 once W_est reaches cwnd_prior,
    /// the default) or "rfc8312" (Linux's and ns-3's: 3(1 − β)/(1 + β) throughout).
    #[serde(default = "default_alpha_rule")]
    pub reno_friendly_alpha: RenoFriendlyAlpha,
    /// HyStart++ (RFC 9406) in the first slow start; off by default.
    #[serde(default)]
    pub hystart: bool,
}

fn default_c() -> f64 {
    DEFAULT_C
}
fn default_beta() -> f64 {
    DEFAULT_BETA
}
fn default_true() -> bool {
    true
}
fn default_alpha_rule() -> RenoFriendlyAlpha {
    RenoFriendlyAlpha::Rfc9438
}

impl Default for CubicSpec {
    fn default() -> Self {
        CubicSpec {
            c: DEFAULT_C,
            beta: DEFAULT_BETA,
            fast_convergence: true,
            reno_friendly_alpha: RenoFriendlyAlpha::Rfc9438,
            hystart: false,
        }
    }
}

impl CubicSpec {
    pub fn validate(&self, a: &str, p: &mut Problems) {
        if !(self.c.is_finite() && self.c > 0.0) {
            p.err(
                format!("{a}.c"),
                self.c,
                "must be a finite number > 0 (segments per second³; RFC 9438: 0.4)",
            );
        }
        if !(self.beta.is_finite() && self.beta > 0.0 && self.beta < 1.0) {
            p.err(
                format!("{a}.beta"),
                self.beta,
                "must be in (0, 1) (the window's multiplicative decrease; RFC 9438: 0.7)",
            );
        }
    }

    pub fn build(&self, cfg: &super::SenderSide) -> Cubic {
        Cubic::new(CubicConfig {
            c: self.c,
            beta: self.beta,
            fast_convergence: self.fast_convergence,
            reno_friendly_alpha: self.reno_friendly_alpha,
            hystart: self.hystart,
            paced: cfg.pacing,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::NS_PER_SEC;

    fn at(t_s: f64) -> Time {
        (t_s * NS_PER_SEC as f64).round() as Time
    }

    fn ack(now: Time, srtt_s: f64) -> Acked {
        Acked {
            segments: 1,
            rtt: None,
            ece: false,
            now,
            srtt_s,
            rate: None,
        }
    }

    /// A loss at W_max = 100 with FlightSize 100: cwnd = ssthresh = 70 (β = 0.7), and the
    /// epoch that begins at the next ACK has K = ∛(W_max(1 − β)/C) = ∛75 s; Eq. 1 at
    /// several t is exact.
    #[test]
    fn the_curve_after_a_loss_is_eq_1_with_eq_2s_k() {
        let mut c = Cubic::new(CubicConfig::default());
        let r = c.on_congestion(Congestion::Loss { flight: 100 }, 100.0, 1000.0);
        assert_eq!(
            r,
            Reduction {
                ssthresh: 70.0,
                cwnd: 70.0
            }
        );
        assert_eq!(c.w_max(), 100.0);
        c.on_ack(r.cwnd, r.ssthresh, &ack(at(10.0), 0.0));
        let k = (100.0f64 * 0.3 / 0.4).cbrt();
        assert!((c.k() - k).abs() < 1e-12, "K {} != {k}", c.k());
        assert!((c.w_cubic(0.0) - 70.0).abs() < 1e-9);
        for t in [0.5, 1.0, 2.0, 3.0, k, 5.0, 6.0] {
            let want = 0.4 * (t - k).powi(3) + 100.0;
            assert!((c.w_cubic(t) - want).abs() < 1e-12);
        }
        assert!((c.w_cubic(k) - 100.0).abs() < 1e-12);
    }

    /// Drives the window ACK by ACK, one RTT's worth of ACKs (⌊cwnd⌋) per RTT of 200 ms,
    /// from the loss at W_max = 100: the window follows Eq. 1 (concave up to W_max at
    /// t = K, convex beyond) within the lag of one RTT's growth.
    #[test]
    fn the_window_follows_the_curve_ack_by_ack() {
        let mut c = Cubic::new(CubicConfig::default());
        let r = c.on_congestion(Congestion::Loss { flight: 100 }, 100.0, 1000.0);
        let (mut cwnd, ssthresh) = (r.cwnd, r.ssthresh);
        let rtt = 0.2;
        let t0 = 10.0;
        let k = 75f64.cbrt();
        let mut t = 0.0;
        let mut checked = 0;
        for step in 0..30 {
            let n = cwnd.floor() as u64;
            for i in 0..n {
                let now = t0 + t + rtt * i as f64 / n as f64;
                cwnd = c.on_ack(cwnd, ssthresh, &ack(at(now), rtt));
            }
            t += rtt;
            if step % 5 == 4 {
                // After the ACKs of [t − RTT, t) the window aims at W_cubic(t).
                let want = 0.4 * (t - k).powi(3) + 100.0;
                assert!(
                    (cwnd - want).abs() < 1.0,
                    "t {t:.1}: cwnd {cwnd} vs W_cubic {want}"
                );
                checked += 1;
            }
            // W_est stays below W_cubic here (C·RTT large enough): never the window.
            assert!(
                c.w_est() < cwnd,
                "t {t:.1}: W_est {} cwnd {cwnd}",
                c.w_est()
            );
        }
        assert_eq!(checked, 6);
        assert!(cwnd > 100.0, "convex growth beyond W_max at t = 6 s > K");
    }

    /// Small W and short RTT: after a loss at 10 segments, W_cubic barely moves in 1 ms
    /// RTTs, and Eq. 4's W_est is the window at every ACK; α_cubic = 3·0.3/1.7 until W_est
    /// reaches cwnd_prior = 10, then 1.
    #[test]
    fn the_reno_friendly_region_uses_w_est() {
        let mut c = Cubic::new(CubicConfig::default());
        let r = c.on_congestion(Congestion::Loss { flight: 10 }, 10.0, 1000.0);
        assert_eq!(r.cwnd, 7.0);
        let mut cwnd = r.cwnd;
        let mut w_est = 7.0;
        let alpha = 3.0 * 0.3 / 1.7;
        let mut now = at(1.0);
        for _ in 0..200 {
            let a = if w_est >= 10.0 { 1.0 } else { alpha };
            w_est += a / cwnd;
            cwnd = c.on_ack(cwnd, r.ssthresh, &ack(now, 0.001));
            assert_eq!(cwnd, w_est);
            assert!(c.w_cubic(secs(now - at(1.0))) < cwnd);
            now += at(0.001) / 8;
        }
        assert!(cwnd > 10.0, "W_est beyond cwnd_prior: {cwnd}");
    }

    /// `reno_friendly_alpha = "rfc8312"` (Linux, ns-3): the same region, α_cubic kept
    /// beyond cwnd_prior.
    #[test]
    fn rfc8312_keeps_alpha_beyond_cwnd_prior() {
        let mut c = Cubic::new(CubicConfig {
            reno_friendly_alpha: RenoFriendlyAlpha::Rfc8312,
            ..CubicConfig::default()
        });
        let r = c.on_congestion(Congestion::Loss { flight: 10 }, 10.0, 1000.0);
        let (mut cwnd, mut w_est) = (r.cwnd, 7.0);
        let alpha = 3.0 * 0.3 / 1.7;
        let mut now = at(1.0);
        for _ in 0..200 {
            w_est += alpha / cwnd;
            cwnd = c.on_ack(cwnd, r.ssthresh, &ack(now, 0.001));
            assert_eq!(cwnd, w_est);
            now += at(0.001) / 8;
        }
        assert!(cwnd > 10.0, "W_est beyond cwnd_prior: {cwnd}");
    }

    /// A second loss below the previous W_max: W_max = W·(1 + β)/2 with fast convergence,
    /// W without it.
    #[test]
    fn fast_convergence_lowers_w_max() {
        for fc in [true, false] {
            let mut c = Cubic::new(CubicConfig {
                fast_convergence: fc,
                ..CubicConfig::default()
            });
            c.on_congestion(Congestion::Loss { flight: 100 }, 100.0, 1000.0);
            assert_eq!(c.w_max(), 100.0);
            let r = c.on_congestion(Congestion::Loss { flight: 80 }, 80.0, 70.0);
            assert_eq!(r.ssthresh, 80.0 * 0.7);
            let want = if fc { 80.0 * 1.7 / 2.0 } else { 80.0 };
            assert_eq!(c.w_max(), want);
            // A loss above W_max sets it to the window either way.
            c.on_congestion(Congestion::Loss { flight: 120 }, 120.0, 56.0);
            assert_eq!(c.w_max(), 120.0);
        }
    }

    /// ECE: cwnd = max(FlightSize·β, 1), ssthresh at least 2; a timeout: cwnd = 1,
    /// ssthresh = FlightSize·β, held when repeated, and the next epoch has K = 0 with
    /// W_max = cwnd_epoch (§4.8).
    #[test]
    fn ecn_and_timeout_reductions() {
        let mut c = Cubic::new(CubicConfig::default());
        let r = c.on_congestion(Congestion::Ecn { flight: 1 }, 1.0, 10.0);
        assert_eq!(
            r,
            Reduction {
                ssthresh: 2.0,
                cwnd: 1.0
            }
        );
        let rto = |flight, repeated| Congestion::Rto {
            flight,
            base: None,
            repeated,
            in_mark_window: false,
        };
        let r = c.on_congestion(rto(40, false), 50.0, 30.0);
        assert_eq!(
            r,
            Reduction {
                ssthresh: 28.0,
                cwnd: 1.0
            }
        );
        let r2 = c.on_congestion(rto(1, true), 1.0, r.ssthresh);
        assert_eq!(r2.ssthresh, 28.0);
        // Slow start to ssthresh, then the first epoch: K = 0, W_max = cwnd_epoch.
        let mut cwnd = 1.0;
        while cwnd < 28.0 {
            cwnd = c.on_ack(cwnd, 28.0, &ack(at(1.0), 0.1));
        }
        c.on_ack(cwnd, 28.0, &ack(at(2.0), 0.1));
        assert_eq!((c.k(), c.w_max()), (0.0, 28.0));
        // An ECE ACK never opens the window.
        let e = Acked {
            ece: true,
            ..ack(at(3.0), 0.1)
        };
        assert_eq!(c.on_ack(30.0, 28.0, &e), 30.0);
    }

    /// HyStart++ inside CUBIC: slow start at min(N, L) per ACK, a 10 ms rise enters CSS,
    /// and 5 CSS rounds later the ACK that ends them asks the sender for ssthresh = cwnd
    /// (given once) and begins the epoch of RFC 9438 §4.10 (W_max = cwnd, K = 0).
    /// Without `hystart` no per-ACK samples are asked for and no metric is added.
    #[test]
    fn hystart_exits_slow_start_into_an_epoch_at_cwnd() {
        use crate::tcp::congestion::hystart::Phase;
        let plain = Cubic::new(CubicConfig::default());
        assert!(!plain.wants_ack_rtt());
        assert_eq!(plain.metric_names().len(), 3);
        let mut c = Cubic::new(CubicConfig {
            hystart: true,
            ..CubicConfig::default()
        });
        assert!(c.wants_ack_rtt());
        assert_eq!(c.metric_names()[3], "hystart");
        let (mut cwnd, ssthresh) = (10.0, 1e9);
        let (mut una, mut high, mut now) = (0u64, 10u64, at(1.0));
        let mut round = 0;
        let taken = 'rounds: loop {
            let rtt = if round < 2 { 40 } else { 50 };
            let end = high;
            while una < end {
                una += 1;
                now += at(0.001);
                c.on_delivery(&Delivery {
                    segments: 1,
                    ece: false,
                    una,
                    high,
                    rtt: Some(at(rtt as f64 / 1000.0)),
                    now,
                });
                let before = cwnd;
                cwnd = c.on_ack(cwnd, ssthresh, &ack(now, 0.05));
                if let Some(s) = c.take_ssthresh() {
                    assert_eq!(s, before);
                    break 'rounds Some(s);
                }
                high = una + cwnd as u64;
            }
            round += 1;
            assert!(round < 20, "no exit");
            if c.hystart().unwrap().phase() == Phase::Exited {
                break None;
            }
        };
        let s = taken.expect("ssthresh = cwnd given");
        assert_eq!(c.take_ssthresh(), None, "given once");
        assert_eq!((c.w_max(), c.k()), (s, 0.0));
        let mut m = [0.0; 4];
        c.metrics(&mut m);
        assert_eq!(m[3], 2.0);
        // A loss afterwards is CUBIC's usual reduction; HyStart++ stays over.
        c.on_congestion(Congestion::Loss { flight: 100 }, s, s);
        c.metrics(&mut m);
        assert_eq!(m[3], 2.0, "the exit stays traced");
        let mut d = Cubic::new(CubicConfig {
            hystart: true,
            ..CubicConfig::default()
        });
        d.on_congestion(Congestion::Loss { flight: 20 }, 20.0, 1e9);
        assert_eq!(d.hystart().unwrap().phase(), Phase::Ended);
        assert!(d.on_ack(14.0, 14.0, &ack(at(2.0), 0.05)) > 14.0);
    }

    #[test]
    fn spec_checks() {
        let mut p = Problems::default();
        CubicSpec::default().validate("f.congestion", &mut p);
        assert!(p.is_empty());
        CubicSpec {
            c: 0.0,
            beta: 1.0,
            fast_convergence: true,
            reno_friendly_alpha: RenoFriendlyAlpha::Rfc9438,
            hystart: false,
        }
        .validate("f.congestion", &mut p);
        assert_eq!(p.errors.len(), 2);
    }
}
