//! BLUE (Feng, Kandlur, Saha, Shin, "The BLUE Active Queue Management Algorithms", IEEE/ACM
//! ToN 10(4), 2002; CSE-TR-387-99, 1999).
//!
//! One marking probability p_m, driven by loss and idle events instead of the queue length:
//! - packet loss (buffer overflow): if now − last_update > freeze_time, p_m ← p_m + δ1;
//! - link idle (buffer empty):      if now − last_update > freeze_time, p_m ← p_m − δ2;
//! - every arrival is marked (ECT, with `ecn`) or dropped with probability p_m.
//!
//! p_m is kept in [0, 1] because it is a probability: that is the algorithm, not a clamp of
//! input (inputs are validated). δ1 ≫ δ2 lets BLUE react quickly to congestion and let go
//! slowly, and freeze_time (longer than the feedback delay, an RTT) spaces the changes so
//! each one is judged by its effect. The probability state is `BlueProb`, a small struct
//! the BLUE-with-In/Out variant (BIO, docs/aqm/bio.md) holds one of per precedence level,
//! with separate freeze times for increments and decrements as in Feng's ns code and the
//! BIO paper (`Freeze::Separate`); BLUE itself uses the paper's single `last_update`.
//!
//! Choices (docs/aqm/blue.md):
//! - "Link idle" is the buffer emptying: one decrement when a departure leaves it empty
//!   (the cleaned-up ns3-blue revision). With `idle_catchup` (default on, also ns3-blue)
//!   the next arrival after an idle period of length T applies ⌊T/freeze_time⌋ more
//!   decrements, one per freeze_time of idleness, so a long silence forgets congestion the
//!   way a busy-but-underloaded link would. Without it a link idle for minutes keeps p_m.
//! - The paper's variant that increments when the queue exceeds a threshold L
//!   (`increase_threshold`) adds that event to the overflow event; overflow always counts.
//! - Before the first change there is no last_update: the first event always acts.
//! - Byte mode: the probability of a packet is p_m·size/mean_pktsize (capped at 1), as
//!   ns-2's `bytes_` for RED, and L is counted in bytes (L·mean_pktsize).

use super::QueueCtx;
use super::{Aqm, QueueView, Reason, Verdict};
use crate::check::{default_true, Problems};
use crate::packet::Packet;
use crate::rng::Rng;
use crate::units::Duration;
use crate::units::{Time, NS_PER_SEC};
use serde::{Deserialize, Serialize};

/// How often p_m may change.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Freeze {
    /// The paper: one `last_update` for both kinds of change.
    Shared(Time),
    /// Feng's ns code and BIO: increments and decrements each have their own clock.
    Separate { inc: Time, dec: Time },
}

/// The step sizes and freeze times of one BLUE probability.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BlueParams {
    /// δ1, added on a congestion event.
    pub d1: f64,
    /// δ2, subtracted on an idle event.
    pub d2: f64,
    pub freeze: Freeze,
}

/// BLUE's marking probability and its update rule (reused by BIO).
#[derive(Clone, Debug)]
pub struct BlueProb {
    pub p_m: f64,
    params: BlueParams,
    last_inc: Option<Time>,
    last_dec: Option<Time>,
    /// Changes applied (including idle catch-up decrements), for the time series.
    pub increments: u64,
    pub decrements: u64,
}

impl BlueProb {
    pub fn new(params: BlueParams) -> BlueProb {
        BlueProb {
            p_m: 0.0,
            params,
            last_inc: None,
            last_dec: None,
            increments: 0,
            decrements: 0,
        }
    }

    pub fn params(&self) -> &BlueParams {
        &self.params
    }

    /// When p_m last changed (either way).
    pub fn last_update(&self) -> Option<Time> {
        self.last_inc.max(self.last_dec)
    }

    /// The clock and freeze time an increment (`up`) or decrement is judged by.
    fn clock(&self, up: bool) -> (Option<Time>, Time) {
        match (self.params.freeze, up) {
            (Freeze::Shared(f), _) => (self.last_update(), f),
            (Freeze::Separate { inc, .. }, true) => (self.last_inc, inc),
            (Freeze::Separate { dec, .. }, false) => (self.last_dec, dec),
        }
    }

    fn ready(&self, up: bool, now: Time) -> bool {
        let (last, freeze) = self.clock(up);
        last.is_none_or(|t| now.saturating_sub(t) > freeze)
    }

    /// A congestion event: p_m += δ1 unless frozen. Returns whether it acted.
    pub fn increase(&mut self, now: Time) -> bool {
        if !self.ready(true, now) {
            return false;
        }
        self.p_m = (self.p_m + self.params.d1).min(1.0);
        self.last_inc = Some(now);
        self.increments += 1;
        true
    }

    /// An idle event: p_m −= δ2 unless frozen. Returns whether it acted.
    pub fn decrease(&mut self, now: Time) -> bool {
        if !self.ready(false, now) {
            return false;
        }
        self.p_m = (self.p_m - self.params.d2).max(0.0);
        self.last_dec = Some(now);
        self.decrements += 1;
        true
    }

    /// An idle period from `since` to `now`: one decrement per full decrement freeze time,
    /// dated at since + k·freeze (in O(1), however long the silence). Returns the count.
    pub fn decrease_idle(&mut self, since: Time, now: Time) -> u64 {
        let (_, freeze) = self.clock(false);
        if freeze == 0 || now <= since {
            return 0;
        }
        let k = (now - since) / freeze;
        if k > 0 {
            self.p_m = (self.p_m - k as f64 * self.params.d2).max(0.0);
            self.last_dec = Some(since + k * freeze);
            self.decrements += k;
        }
        k
    }
}

#[derive(Clone, Debug)]
pub struct BlueConfig {
    pub params: BlueParams,
    pub idle_catchup: bool,
    /// L in packets (× mean_pktsize in byte mode): an arrival finding more waiting is also
    /// a congestion event.
    pub increase_threshold: Option<f64>,
    pub byte_mode: bool,
    pub mean_pktsize: u32,
    pub ecn: bool,
}

#[derive(Clone, Debug)]
pub struct Blue {
    cfg: BlueConfig,
    pub prob: BlueProb,
    idle_since: Option<Time>,
}

impl Blue {
    pub fn new(cfg: BlueConfig) -> Blue {
        Blue {
            prob: BlueProb::new(cfg.params),
            idle_since: None,
            cfg,
        }
    }

    /// The probability an arrival of `size` bytes is marked or dropped.
    pub fn p_packet(&self, size: u32) -> f64 {
        let p = self.prob.p_m;
        if self.cfg.byte_mode {
            (p * size as f64 / self.cfg.mean_pktsize as f64).min(1.0)
        } else {
            p
        }
    }
}

impl Aqm for Blue {
    fn on_arrival(&mut self, q: &QueueView, pkt: &Packet, now: Time, rng: &mut Rng) -> Verdict {
        if let Some(since) = self.idle_since.take() {
            if self.cfg.idle_catchup {
                self.prob.decrease_idle(since, now);
            }
        }
        if let Some(l) = self.cfg.increase_threshold {
            let len = if self.cfg.byte_mode {
                q.len_bytes as f64 / self.cfg.mean_pktsize as f64
            } else {
                q.len_pkts as f64
            };
            if len > l {
                self.prob.increase(now);
            }
        }
        if rng.bernoulli(self.p_packet(pkt.size)) {
            if self.cfg.ecn {
                Verdict::Mark(Reason::Early)
            } else {
                Verdict::Drop(Reason::Early)
            }
        } else {
            Verdict::Pass
        }
    }

    fn on_departure(&mut self, q: &QueueView, _pkt: &Packet, now: Time, _rng: &mut Rng) -> Verdict {
        if q.len_pkts == 0 {
            self.prob.decrease(now);
        }
        Verdict::Pass
    }

    fn on_overflow(&mut self, _q: &QueueView, now: Time) {
        self.prob.increase(now);
    }

    fn on_idle(&mut self, since: Time) {
        self.idle_since = Some(since);
    }

    fn metric_names(&self) -> &'static [&'static str] {
        &["p_m", "last_update", "increments", "decrements"]
    }

    fn metrics(&self, _q: &QueueView, _now: Time, out: &mut [f64]) {
        out[0] = self.prob.p_m;
        // Seconds; −1 before the first change.
        out[1] = self
            .prob
            .last_update()
            .map_or(-1.0, |t| t as f64 / NS_PER_SEC as f64);
        out[2] = self.prob.increments as f64;
        out[3] = self.prob.decrements as f64;
    }
}

// ---------------------------------------------------------------------------------------
// Spec: the scenario's fields, defaults and checks
// ---------------------------------------------------------------------------------------

crate::check::packet_spec! {
/// BLUE parameters (docs/aqm/blue.md). Defaults: the NITK ns-3 port of Feng's BLUE
/// (δ1 = 0.0025, δ2 = 0.00025, freeze_time = 100 ms).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BlueSpec {
    /// δ1: added to p_m on a buffer overflow (or a queue above increase_threshold).
    #[serde(default = "default_blue_d1")]
    pub d1: f64,
    /// δ2: subtracted from p_m when the buffer empties.
    #[serde(default = "default_blue_d2")]
    pub d2: f64,
    #[serde(default = "default_blue_freeze")]
    pub freeze_time: Duration,
    /// One more decrement per freeze_time of idleness, applied at the next arrival.
    #[serde(default = "default_true")]
    pub idle_catchup: bool,
    /// L in packets (× mean_pktsize in byte mode): an arrival finding more waiting also
    /// raises p_m (the paper's variant). Absent: overflow only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub increase_threshold: Option<f64>,
}
}

pub(crate) fn default_blue_d1() -> f64 {
    0.0025
}

pub(crate) fn default_blue_d2() -> f64 {
    0.00025
}

pub(crate) fn default_blue_freeze() -> Duration {
    Duration(100_000_000)
}

impl BlueSpec {
    pub fn validate(&self, a: &str, q: &QueueCtx, p: &mut Problems) {
        p.unit_interval(format!("{a}.d1"), self.d1);
        p.unit_interval(format!("{a}.d2"), self.d2);
        p.time_at_most(format!("{a}.freeze_time"), self.freeze_time);
        if self.idle_catchup && self.freeze_time.0 == 0 {
            p.err(
                format!("{a}.idle_catchup"),
                "true",
                "needs freeze_time > 0 (one decrement per freeze_time of idleness); \
                 set idle_catchup = false or a freeze_time",
            );
        }
        p.mean_pktsize(a, self.mean_pktsize);
        if let Some(l) = self.increase_threshold {
            let path = format!("{a}.increase_threshold");
            if !(l.is_finite() && l >= 0.0) {
                p.err(path, l, "must be a finite number >= 0 (packets)");
            } else {
                match (self.byte_mode, q.limit_pkts, q.limit_bytes) {
                    (false, Some(n), None) if l >= n as f64 => p.err(
                        path,
                        l,
                        format!("must be < limit_pkts = {n}: the buffer never holds more"),
                    ),
                    (true, None, Some(n)) if l * self.mean_pktsize.0 as f64 >= n.0 as f64 => p.err(
                        path,
                        l,
                        format!(
                            "× mean_pktsize = {} B must be < limit_bytes = {} B: the \
                                 buffer never holds more",
                            l * self.mean_pktsize.0 as f64,
                            n.0
                        ),
                    ),
                    _ => {}
                }
            }
        }
    }

    pub fn build(&self, _q: &QueueCtx) -> Blue {
        Blue::new(BlueConfig {
            params: BlueParams {
                d1: self.d1,
                d2: self.d2,
                freeze: Freeze::Shared(self.freeze_time.0),
            },
            idle_catchup: self.idle_catchup,
            increase_threshold: self.increase_threshold,
            byte_mode: self.byte_mode,
            mean_pktsize: self.mean_pktsize.0 as u32,
            ecn: self.ecn,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::aqm::Limit;
    use crate::packet::Ecn;

    const MS: Time = 1_000_000;

    fn ns3_params() -> BlueParams {
        BlueParams {
            d1: 0.0025,
            d2: 0.00025,
            freeze: Freeze::Shared(100 * MS),
        }
    }

    fn blue(byte_mode: bool, ecn: bool) -> Blue {
        Blue::new(BlueConfig {
            params: ns3_params(),
            idle_catchup: true,
            increase_threshold: None,
            byte_mode,
            mean_pktsize: 1000,
            ecn,
        })
    }

    fn view(len_pkts: u32, len_bytes: u64) -> QueueView {
        QueueView::new(len_pkts, len_bytes, Limit::Packets(100), 10_000_000)
    }

    fn pkt(size: u32, ecn: Ecn) -> Packet {
        Packet {
            size,
            ecn,
            ..Default::default()
        }
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-12
    }

    #[test]
    fn increments_at_most_once_per_freeze_time() {
        let mut b = blue(false, false);
        let q = view(100, 100_000);
        // The first event acts; the next must be strictly more than 100 ms later.
        b.on_overflow(&q, 0);
        b.on_overflow(&q, 50 * MS);
        b.on_overflow(&q, 100 * MS);
        assert!(close(b.prob.p_m, 0.0025));
        b.on_overflow(&q, 100 * MS + 1);
        assert!(close(b.prob.p_m, 0.005));
        // An overflow every millisecond for one second: changes at 0, 101, 202, ... 909 ms.
        let mut b = blue(false, false);
        for t in 0..1000 {
            b.on_overflow(&q, t * MS);
        }
        assert_eq!(b.prob.increments, 10);
        assert!(close(b.prob.p_m, 10.0 * 0.0025));
    }

    #[test]
    fn shared_freeze_spaces_increments_and_decrements_alike() {
        let mut b = blue(false, false);
        b.prob.p_m = 0.01;
        b.on_overflow(&view(100, 0), 0);
        let mut rng = Rng::for_component(1, 0, "t");
        // The buffer empties 50 ms after the increment: frozen.
        b.on_departure(&view(0, 0), &pkt(1000, Ecn::NotEct), 50 * MS, &mut rng);
        assert!(close(b.prob.p_m, 0.0125));
        b.on_departure(&view(0, 0), &pkt(1000, Ecn::NotEct), 101 * MS, &mut rng);
        assert!(close(b.prob.p_m, 0.0125 - 0.00025));
    }

    #[test]
    fn separate_freezes_keep_two_clocks() {
        // BIO's IN level: (0.02, 0.01) with freezes 20 ms up, 10 ms down.
        let mut p = BlueProb::new(BlueParams {
            d1: 0.02,
            d2: 0.01,
            freeze: Freeze::Separate {
                inc: 20 * MS,
                dec: 10 * MS,
            },
        });
        assert!(p.increase(0));
        assert!(p.decrease(MS)); // own clock: not frozen by the increment
        assert!(!p.decrease(10 * MS));
        assert!(p.decrease(11 * MS + 1));
        assert!(!p.increase(20 * MS));
        assert!(p.increase(20 * MS + 1));
        assert!(close(p.p_m, 0.02));
        assert_eq!((p.increments, p.decrements), (2, 2));
    }

    #[test]
    fn decrements_when_a_departure_empties_the_buffer() {
        let mut b = blue(false, false);
        b.prob.p_m = 0.01;
        let mut rng = Rng::for_component(1, 0, "t");
        // Packets still waiting: no idle event.
        b.on_departure(&view(3, 3000), &pkt(1000, Ecn::NotEct), 0, &mut rng);
        assert!(close(b.prob.p_m, 0.01));
        b.on_departure(&view(0, 0), &pkt(1000, Ecn::NotEct), MS, &mut rng);
        assert!(close(b.prob.p_m, 0.00975));
        assert_eq!(b.prob.decrements, 1);
    }

    #[test]
    fn idle_catch_up_applies_one_decrement_per_freeze_time() {
        let mut rng = Rng::for_component(1, 0, "t");
        let p = pkt(1000, Ecn::NotEct);
        for (catchup, expect_k) in [(true, 10u64), (false, 0)] {
            let mut b = blue(false, false);
            b.cfg.idle_catchup = catchup;
            b.prob.p_m = 0.1;
            // Idle from 1 s; the next arrival 1.05 s later: ⌊1.05/0.1⌋ = 10 decrements.
            b.on_idle(1000 * MS);
            b.on_arrival(&view(0, 0), &p, 2050 * MS, &mut rng);
            assert_eq!(b.prob.decrements, expect_k);
            assert!(close(b.prob.p_m, 0.1 - expect_k as f64 * 0.00025));
        }
        // A silence of 1000 s is O(1) and floors p_m at 0.
        let mut b = blue(false, false);
        b.prob.p_m = 0.1;
        b.on_idle(0);
        b.on_arrival(&view(0, 0), &p, 1000 * 1000 * MS, &mut rng);
        assert_eq!(b.prob.p_m, 0.0);
        assert_eq!(b.prob.decrements, 10_000);
        // The catch-up is dated: the next decrement waits a freeze time after the last one.
        assert_eq!(b.prob.last_update(), Some(1000 * 1000 * MS));
    }

    #[test]
    fn p_m_stays_a_probability() {
        let mut b = blue(false, false);
        for t in 0..1000 {
            b.on_overflow(&view(100, 0), t * 101 * MS);
        }
        assert_eq!(b.prob.p_m, 1.0);
        assert_eq!(b.prob.increments, 1000);
    }

    /// Marks at a frozen p_m are Bernoulli(p): over n arrivals the count lies within 4σ of
    /// n·p, σ = √(n·p·(1−p)) (false-failure probability 6e-5 per check).
    fn marked_fraction(b: &mut Blue, size: u32, n: u64, ecn: Ecn) -> (u64, Verdict) {
        let mut rng = Rng::for_component(7, 0, "blue");
        let mut k = 0;
        let mut last = Verdict::Pass;
        for i in 0..n {
            // A busy queue, no events: p_m stays frozen.
            let v = b.on_arrival(&view(5, 5000), &pkt(size, ecn), i * 1000, &mut rng);
            if v != Verdict::Pass {
                k += 1;
                last = v;
            }
        }
        (k, last)
    }

    fn within_4_sigma(k: u64, n: u64, p: f64) {
        let (mean, sd) = (n as f64 * p, (n as f64 * p * (1.0 - p)).sqrt());
        assert!(
            (k as f64 - mean).abs() <= 4.0 * sd,
            "{k} marks of {n} at p = {p}: expected {mean} ± {}",
            4.0 * sd
        );
    }

    #[test]
    fn marking_fraction_at_frozen_p_m_is_binomial_in_packet_and_byte_mode() {
        let n = 200_000;
        for p in [0.01, 0.05, 0.3] {
            let mut b = blue(false, true);
            b.prob.p_m = p;
            // Packet mode ignores the size.
            let (k, v) = marked_fraction(&mut b, 400, n, Ecn::Ect0);
            within_4_sigma(k, n, p);
            assert_eq!(v, Verdict::Mark(Reason::Early));
            assert_eq!(b.prob.p_m, p);
        }
        // Byte mode scales by size/mean_pktsize: 500 B → p/2, 1500 B → 1.5p, capped at 1.
        for (size, scale) in [(500, 0.5), (1000, 1.0), (1500, 1.5)] {
            let mut b = blue(true, false);
            b.prob.p_m = 0.04;
            let (k, v) = marked_fraction(&mut b, size, n, Ecn::NotEct);
            within_4_sigma(k, n, 0.04 * scale);
            assert_eq!(v, Verdict::Drop(Reason::Early));
        }
        let mut b = blue(true, false);
        b.prob.p_m = 0.8;
        assert_eq!(b.p_packet(1500), 1.0);
    }

    #[test]
    fn ecn_marks_and_no_ecn_drops() {
        let mut rng = Rng::for_component(1, 0, "t");
        for (ecn, want) in [
            (true, Verdict::Mark(Reason::Early)),
            (false, Verdict::Drop(Reason::Early)),
        ] {
            let mut b = blue(false, ecn);
            b.prob.p_m = 1.0;
            assert_eq!(
                b.on_arrival(&view(1, 1000), &pkt(1000, Ecn::Ect0), 0, &mut rng),
                want
            );
        }
        let mut b = blue(false, true);
        assert_eq!(
            b.on_arrival(&view(1, 1000), &pkt(1000, Ecn::Ect0), 0, &mut rng),
            Verdict::Pass
        );
    }

    #[test]
    fn queue_above_threshold_is_a_congestion_event_in_packets_or_bytes() {
        let mut rng = Rng::for_component(1, 0, "t");
        let p = pkt(1000, Ecn::NotEct);
        for byte_mode in [false, true] {
            let mut b = blue(byte_mode, false);
            b.cfg.increase_threshold = Some(20.0);
            // 20 waiting (20 000 B) is not above L; 21 (21 000 B) is.
            b.on_arrival(&view(20, 20_000), &p, 0, &mut rng);
            assert_eq!(b.prob.increments, 0, "byte_mode {byte_mode}");
            b.on_arrival(&view(21, 21_000), &p, MS, &mut rng);
            assert_eq!(b.prob.increments, 1, "byte_mode {byte_mode}");
        }
        // Byte mode counts bytes: 21 small packets (10 500 B) are below 20 × 1000 B.
        let mut b = blue(true, false);
        b.cfg.increase_threshold = Some(20.0);
        b.on_arrival(&view(21, 10_500), &p, 0, &mut rng);
        assert_eq!(b.prob.increments, 0);
    }

    #[test]
    fn metrics_report_p_m_and_the_last_update() {
        let mut b = blue(false, false);
        let mut out = [0.0; 4];
        b.metrics(&view(0, 0), 0, &mut out);
        assert_eq!(out, [0.0, -1.0, 0.0, 0.0]);
        b.on_overflow(&view(100, 0), 1500 * MS);
        b.metrics(&view(0, 0), 2000 * MS, &mut out);
        assert_eq!(out, [0.0025, 1.5, 1.0, 0.0]);
    }
}
