//! REM: Random Exponential Marking (Athuraliya, Li, Low, Yin, "REM: Active Queue
//! Management", IEEE Network 15(3), 2001; paper 002).
//!
//! Each update period t the link price moves with the weighted rate and queue mismatch,
//! eq. (2): p(t+1) = [p(t) + γ(α(b(t) − b*) + x(t) − c(t))]⁺,
//! or, measuring only the queue (x − c ≈ b(t+1) − b(t)), eq. (3):
//! p(t+1) = [p(t) + γ(b(t+1) − (1 − α)b(t) − αb*)]⁺.
//! Each packet is marked (ECN) or dropped with probability m = 1 − φ^(−p) (§3.2): the
//! exponential makes the end-to-end probability 1 − φ^(−Σp), so sources can read the path
//! price. In equilibrium x = c and b = b*, whatever the number of users: price is
//! decoupled from loss and delay (§3.3).
//!
//! Units, as ns-2 `queue/rem.cc`: rates and backlogs in packets of `mean_pktsize` per
//! update period (bytes/mean_pktsize in byte mode), so γ has the paper's meaning.
//! Choices where the paper, ns-2 and Linux differ (docs/aqm/rem.md):
//! - x(t) counts every arrival in the period, including those then dropped (offered load,
//!   ns-2), measured in bytes/mean_pktsize even in packet mode: the rate mismatch is then
//!   exact when packets are not of mean size (ns-2 counts packets there, and mixes them
//!   with a capacity in mean-size packets). c(t) = period × link rate / (8·mean_pktsize).
//! - x(t) may be smoothed, x̄ ← (1 − w_x)x̄ + w_x·x(t) (ns-2 `inw_`; default 1: none).
//! - α is a parameter (ns-2 hard-codes 0.1 and ignores the Tcl value).
//! - The price is updated on a timer every period (ns-2 `pupdtime_` = 2 ms), traffic or not.
//! - Drops are decided at arrival. ECN marks at departure by default (ns-2 `markpkts_`),
//!   or at arrival; a Not-ECT packet chosen for a mark is dropped (RFC 3168), where ns-2's
//!   mark mode leaves Not-ECT traffic uncontrolled.
//! - Byte mode: m scaled by size/mean_pktsize (ns-2 `qib_`).

use super::QueueCtx;
use super::{Aqm, QueueView, Reason, Verdict};
use crate::check::Problems;
use crate::packet::Packet;
use crate::rng::Rng;
use crate::units::Duration;
use crate::units::{Time, NS_PER_SEC};
use serde::{Deserialize, Serialize};

/// Which price update rule runs each period (`update = "rate"` or `"queue"`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RemUpdate {
    /// Eq. (2): rate mismatch plus α × queue mismatch.
    Rate,
    /// Eq. (3): current and previous backlog only.
    Queue,
}

/// Where ECN marks are applied (`mark_at = "arrival"` or `"departure"`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MarkPoint {
    Arrival,
    Departure,
}

#[derive(Clone, Debug)]
pub struct RemConfig {
    pub gamma: f64,
    pub phi: f64,
    pub alpha: f64,
    /// Target backlog b*, packets (of mean_pktsize in byte mode).
    pub b_star: f64,
    pub interval: Time,
    pub update: RemUpdate,
    /// EWMA weight w_x of the input rate (1: the last period only).
    pub w_x: f64,
    pub byte_mode: bool,
    pub mean_pktsize: u32,
    pub ecn: bool,
    pub mark_at: MarkPoint,
}

#[derive(Clone, Debug)]
pub struct Rem {
    cfg: RemConfig,
    /// c(t): link capacity per period in mean-size packets.
    c: f64,
    pub price: f64,
    /// m = 1 − φ^(−price), kept with the price.
    pub prob: f64,
    /// Bytes offered since the last update.
    in_bytes: u64,
    /// x̄(t): smoothed input per period in mean-size packets.
    pub x_avg: f64,
    /// b(t) at the previous update (eq. 3).
    b_prev: f64,
}

impl Rem {
    pub fn new(cfg: RemConfig, link_bps: u64) -> Rem {
        let c = cfg.interval as f64 / NS_PER_SEC as f64 * link_bps as f64
            / (8.0 * cfg.mean_pktsize as f64);
        Rem {
            cfg,
            c,
            price: 0.0,
            prob: 0.0,
            in_bytes: 0,
            x_avg: 0.0,
            b_prev: 0.0,
        }
    }

    /// Capacity per period, mean-size packets.
    pub fn capacity_per_period(&self) -> f64 {
        self.c
    }

    fn backlog(&self, q: &QueueView) -> f64 {
        if self.cfg.byte_mode {
            q.len_bytes as f64 / self.cfg.mean_pktsize as f64
        } else {
            q.len_pkts as f64
        }
    }

    /// One price update at the end of a period with backlog `b` (eq. 2 or 3).
    pub fn update(&mut self, b: f64) {
        let RemConfig {
            gamma,
            alpha,
            b_star,
            w_x,
            ..
        } = self.cfg;
        let x = self.in_bytes as f64 / self.cfg.mean_pktsize as f64;
        self.in_bytes = 0;
        self.x_avg = (1.0 - w_x) * self.x_avg + w_x * x;
        let step = match self.cfg.update {
            RemUpdate::Rate => alpha * (b - b_star) + self.x_avg - self.c,
            RemUpdate::Queue => b - (1.0 - alpha) * self.b_prev - alpha * b_star,
        };
        self.b_prev = b;
        self.price = (self.price + gamma * step).max(0.0);
        self.prob = 1.0 - libm::pow(self.cfg.phi, -self.price);
    }

    fn hit(&self, size: u32, rng: &mut Rng) -> bool {
        let mut p = self.prob;
        if self.cfg.byte_mode {
            p = (p * size as f64 / self.cfg.mean_pktsize as f64).min(1.0);
        }
        p > 0.0 && rng.uniform() < p
    }
}

impl Aqm for Rem {
    fn on_arrival(&mut self, _q: &QueueView, pkt: &Packet, _now: Time, rng: &mut Rng) -> Verdict {
        self.in_bytes += pkt.size as u64;
        if self.cfg.ecn && self.cfg.mark_at == MarkPoint::Departure {
            return Verdict::Pass;
        }
        if !self.hit(pkt.size, rng) {
            Verdict::Pass
        } else if self.cfg.ecn {
            Verdict::Mark(Reason::Early)
        } else {
            Verdict::Drop(Reason::Early)
        }
    }

    fn on_departure(&mut self, _q: &QueueView, pkt: &Packet, _now: Time, rng: &mut Rng) -> Verdict {
        if self.cfg.ecn && self.cfg.mark_at == MarkPoint::Departure && self.hit(pkt.size, rng) {
            Verdict::Mark(Reason::Early)
        } else {
            Verdict::Pass
        }
    }

    fn first_timer(&self, now: Time) -> Option<Time> {
        Some(now + self.cfg.interval)
    }

    fn on_timer(&mut self, q: &QueueView, now: Time) -> Option<Time> {
        let b = self.backlog(q);
        self.update(b);
        Some(now + self.cfg.interval)
    }

    fn metric_names(&self) -> &'static [&'static str] {
        &["price", "prob", "x_avg"]
    }

    fn metrics(&self, _q: &QueueView, _now: Time, out: &mut [f64]) {
        out[0] = self.price;
        out[1] = self.prob;
        out[2] = self.x_avg;
    }
}

// ---------------------------------------------------------------------------------------
// Spec: the scenario's fields, defaults and checks
// ---------------------------------------------------------------------------------------

crate::check::packet_spec! {
/// REM parameters (docs/aqm/rem.md); defaults are the paper's (§4) and ns-2's.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RemSpec {
    #[serde(default = "default_rem_gamma")]
    pub gamma: f64,
    #[serde(default = "default_rem_phi")]
    pub phi: f64,
    #[serde(default = "default_rem_alpha")]
    pub alpha: f64,
    /// Target backlog b*, packets (of mean_pktsize in byte mode).
    #[serde(default = "default_rem_b_star")]
    pub b_star: f64,
    /// Price update period.
    #[serde(default = "default_rem_interval")]
    pub interval: Duration,
    /// "rate": eq. (2); "queue": eq. (3).
    #[serde(default = "default_rem_update")]
    pub update: RemUpdate,
    /// EWMA weight of the input rate in eq. (2); default 1 (no smoothing).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub w_x: Option<f64>,
    /// Where ECN marks are applied; default "departure" (ns-2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mark_at: Option<MarkPoint>,
}
}

fn default_rem_gamma() -> f64 {
    0.001
}

fn default_rem_phi() -> f64 {
    1.001
}

fn default_rem_alpha() -> f64 {
    0.1
}

fn default_rem_b_star() -> f64 {
    20.0
}

fn default_rem_interval() -> Duration {
    Duration(2_000_000)
}

fn default_rem_update() -> RemUpdate {
    RemUpdate::Rate
}

impl RemSpec {
    pub fn validate(&self, a: &str, _q: &QueueCtx, p: &mut Problems) {
        if !(self.gamma.is_finite() && self.gamma > 0.0) {
            p.err(
                format!("{a}.gamma"),
                self.gamma,
                "must be a finite number > 0",
            );
        }
        if !(self.phi.is_finite() && self.phi > 1.0) {
            p.err(
                format!("{a}.phi"),
                self.phi,
                "must be a finite number > 1 (marking probability 1 - phi^-price)",
            );
        }
        if !(self.alpha.is_finite() && self.alpha > 0.0 && self.alpha <= 1.0) {
            p.err(format!("{a}.alpha"), self.alpha, "must be in (0, 1]");
        }
        if !(self.b_star.is_finite() && self.b_star >= 0.0) {
            p.err(
                format!("{a}.b_star"),
                self.b_star,
                "must be a finite number >= 0 (packets)",
            );
        }
        if self.interval.0 == 0 {
            p.err(format!("{a}.interval"), "\"0ns\"", "must be > 0");
        }
        if let Some(w) = self.w_x {
            if !(w.is_finite() && w > 0.0 && w <= 1.0) {
                p.err(format!("{a}.w_x"), w, "must be in (0, 1]");
            } else if self.update == RemUpdate::Queue {
                p.err(
                    format!("{a}.w_x"),
                    w,
                    "only meaningful with update = \"rate\" (eq. 3 measures no rate)",
                );
            }
        }
        p.packet_size(a, "mean_pktsize", self.mean_pktsize);
        if let (Some(m), false) = (self.mark_at, self.ecn) {
            let v = if m == MarkPoint::Arrival {
                "\"arrival\""
            } else {
                "\"departure\""
            };
            p.err(format!("{a}.mark_at"), v, "only meaningful with ecn = true");
        }
    }

    pub fn build(&self, q: &QueueCtx) -> Rem {
        let cfg = RemConfig {
            gamma: self.gamma,
            phi: self.phi,
            alpha: self.alpha,
            b_star: self.b_star,
            interval: self.interval.0,
            update: self.update,
            w_x: self.w_x.unwrap_or(1.0),
            byte_mode: self.byte_mode,
            mean_pktsize: self.mean_pktsize.0 as u32,
            ecn: self.ecn,
            mark_at: self.mark_at.unwrap_or(MarkPoint::Departure),
        };
        Rem::new(cfg, q.link_bps)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::aqm::Limit;
    use crate::packet::Ecn;

    const MS: Time = 1_000_000;

    /// The paper's parameters (§4) on a 64 Mb/s link of 1000-byte packets, 2 ms periods:
    /// c = 16 packets per period.
    fn cfg(update: RemUpdate) -> RemConfig {
        RemConfig {
            gamma: 0.001,
            phi: 1.001,
            alpha: 0.1,
            b_star: 20.0,
            interval: 2 * MS,
            update,
            w_x: 1.0,
            byte_mode: false,
            mean_pktsize: 1000,
            ecn: false,
            mark_at: MarkPoint::Departure,
        }
    }

    fn view(len: u32, size: u64) -> QueueView {
        QueueView::new(len, len as u64 * size, Limit::Packets(120), 64_000_000)
    }

    fn pkt(size: u32) -> Packet {
        Packet {
            size,
            ecn: Ecn::NotEct,
            ..Default::default()
        }
    }

    fn offer(rem: &mut Rem, n: u32, size: u32) {
        let mut rng = Rng::for_component(1, 0, "rem-test");
        for _ in 0..n {
            rem.on_arrival(&view(0, size as u64), &pkt(size), 0, &mut rng);
        }
    }

    #[test]
    fn capacity_per_period_is_link_rate_in_mean_size_packets() {
        let rem = Rem::new(cfg(RemUpdate::Rate), 64_000_000);
        assert_eq!(rem.capacity_per_period(), 16.0);
    }

    /// Eq. (2) by hand: 20 arrivals against c = 16 with b = 30:
    /// p = 0.001·(0.1·(30 − 20) + 20 − 16) = 0.005; then x = 10, b = 25:
    /// p = 0.005 + 0.001·(0.5 + 10 − 16) = −0.0005 → 0 (the projection [·]⁺).
    #[test]
    fn rate_form_follows_equation_2_and_projects_onto_nonnegative_prices() {
        let mut rem = Rem::new(cfg(RemUpdate::Rate), 64_000_000);
        offer(&mut rem, 20, 1000);
        rem.update(30.0);
        assert!((rem.price - 0.005).abs() < 1e-15);
        assert!((rem.prob - (1.0 - 1.001f64.powf(-0.005))).abs() < 1e-15);
        offer(&mut rem, 10, 1000);
        rem.update(25.0);
        assert_eq!(rem.price, 0.0);
        assert_eq!(rem.prob, 0.0);
    }

    /// Eq. (3) by hand: b = 0 → 30 → 40 with α = 0.1, b* = 20:
    /// p1 = 0.001·(30 − 0.9·0 − 2) = 0.028; p2 = 0.028 + 0.001·(40 − 27 − 2) = 0.039.
    #[test]
    fn queue_form_follows_equation_3_and_ignores_the_arrival_rate() {
        let mut rem = Rem::new(cfg(RemUpdate::Queue), 64_000_000);
        offer(&mut rem, 500, 1000);
        rem.update(30.0);
        assert!((rem.price - 0.028).abs() < 1e-15);
        rem.update(40.0);
        assert!((rem.price - 0.039).abs() < 1e-15);
    }

    /// docs/validation.md: every parameter has an observable effect (ns-2 ignores α).
    #[test]
    fn alpha_gamma_and_b_star_each_change_the_price() {
        let run = |f: &dyn Fn(&mut RemConfig)| {
            let mut c = cfg(RemUpdate::Rate);
            f(&mut c);
            let mut rem = Rem::new(c, 64_000_000);
            offer(&mut rem, 16, 1000);
            rem.update(50.0);
            rem.price
        };
        let base = run(&|_| {});
        assert!((base - 0.003).abs() < 1e-15); // 0.001·0.1·(50 − 20)
        assert!((run(&|c| c.alpha = 0.2) - 0.006).abs() < 1e-15);
        assert!((run(&|c| c.gamma = 0.002) - 0.006).abs() < 1e-15);
        assert!((run(&|c| c.b_star = 40.0) - 0.001).abs() < 1e-15);
    }

    #[test]
    fn input_rate_weight_smooths_the_arrival_count() {
        let mut c = cfg(RemUpdate::Rate);
        c.w_x = 0.5;
        let mut rem = Rem::new(c, 64_000_000);
        offer(&mut rem, 16, 1000);
        rem.update(20.0);
        assert_eq!(rem.x_avg, 8.0);
        offer(&mut rem, 16, 1000);
        rem.update(20.0);
        assert_eq!(rem.x_avg, 12.0);
    }

    /// x(t) is offered load in mean-size packets: 40 packets of 500 bytes are 20.
    #[test]
    fn input_is_counted_in_bytes_over_mean_pktsize() {
        let mut rem = Rem::new(cfg(RemUpdate::Rate), 64_000_000);
        offer(&mut rem, 40, 500);
        rem.update(20.0);
        assert!((rem.price - 0.004).abs() < 1e-15);
    }

    /// Equilibrium (§3.1): x = c and b = b* leave the price where it is.
    #[test]
    fn matched_rate_and_target_backlog_hold_the_price() {
        for update in [RemUpdate::Rate, RemUpdate::Queue] {
            let mut rem = Rem::new(cfg(update), 64_000_000);
            rem.price = 2.0;
            rem.b_prev = 20.0;
            for _ in 0..10 {
                offer(&mut rem, 16, 1000);
                rem.update(20.0);
            }
            assert!((rem.price - 2.0).abs() < 1e-12, "{update:?}: {}", rem.price);
        }
    }

    /// The exponential marking law, and the fraction marked at a fixed price within 4σ
    /// of the binomial, in packet and byte mode.
    #[test]
    fn drop_fraction_at_fixed_price_is_one_minus_phi_to_minus_price() {
        let n = 400_000;
        for byte_mode in [false, true] {
            let mut c = cfg(RemUpdate::Rate);
            c.byte_mode = byte_mode;
            let mut rem = Rem::new(c, 64_000_000);
            rem.price = 100.0;
            rem.prob = 1.0 - 1.001f64.powf(-100.0);
            assert!((rem.prob - 0.0951174).abs() < 1e-7);
            // In byte mode a 500-byte packet is half as likely to be hit.
            let (size, expect) = if byte_mode {
                (500, rem.prob / 2.0)
            } else {
                (1000, rem.prob)
            };
            let mut rng = Rng::for_component(7, 0, "rem");
            let hits = (0..n)
                .filter(|_| {
                    rem.on_arrival(&view(10, size as u64), &pkt(size), 0, &mut rng)
                        == Verdict::Drop(Reason::Early)
                })
                .count() as f64;
            let sd = (expect * (1.0 - expect) / n as f64).sqrt();
            let got = hits / n as f64;
            assert!(
                (got - expect).abs() < 4.0 * sd,
                "byte_mode {byte_mode}: {got} vs {expect}"
            );
        }
    }

    #[test]
    fn ecn_marks_at_departure_or_at_arrival_as_configured() {
        let mut rng = Rng::for_component(1, 0, "t");
        let mut c = cfg(RemUpdate::Rate);
        c.ecn = true;
        let mut rem = Rem::new(c.clone(), 64_000_000);
        rem.prob = 1.0;
        let p = pkt(1000);
        assert_eq!(
            rem.on_arrival(&view(5, 1000), &p, 0, &mut rng),
            Verdict::Pass
        );
        assert_eq!(
            rem.on_departure(&view(5, 1000), &p, 0, &mut rng),
            Verdict::Mark(Reason::Early)
        );
        c.mark_at = MarkPoint::Arrival;
        let mut rem = Rem::new(c, 64_000_000);
        rem.prob = 1.0;
        assert_eq!(
            rem.on_arrival(&view(5, 1000), &p, 0, &mut rng),
            Verdict::Mark(Reason::Early)
        );
        assert_eq!(
            rem.on_departure(&view(5, 1000), &p, 0, &mut rng),
            Verdict::Pass
        );
    }

    #[test]
    fn drop_mode_never_acts_at_departure_and_counts_every_arrival() {
        let mut rng = Rng::for_component(1, 0, "t");
        let mut rem = Rem::new(cfg(RemUpdate::Rate), 64_000_000);
        rem.prob = 1.0;
        let p = pkt(1000);
        assert_eq!(
            rem.on_arrival(&view(5, 1000), &p, 0, &mut rng),
            Verdict::Drop(Reason::Early)
        );
        assert_eq!(
            rem.on_departure(&view(5, 1000), &p, 0, &mut rng),
            Verdict::Pass
        );
        // The dropped arrival still counts as offered load.
        rem.update(20.0);
        assert_eq!(rem.x_avg, 1.0);
    }

    /// The timer reads the backlog in bytes/mean_pktsize in byte mode.
    #[test]
    fn timer_updates_every_period_from_the_backlog() {
        for (byte_mode, size) in [(false, 1000u64), (true, 500)] {
            let mut c = cfg(RemUpdate::Queue);
            c.byte_mode = byte_mode;
            let mut rem = Rem::new(c, 64_000_000);
            assert_eq!(rem.first_timer(0), Some(2 * MS));
            assert_eq!(rem.on_timer(&view(40, size), 2 * MS), Some(4 * MS));
            let b = if byte_mode { 20.0 } else { 40.0 };
            assert!((rem.price - 0.001 * (b - 2.0)).abs() < 1e-15);
        }
    }
}
