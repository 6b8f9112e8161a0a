//! PI controller (Hollot, Misra, Towsley, Gong, "On Designing Improved Controllers for AQM
//! Routers Supporting TCP Flows", IEEE INFOCOM 2001): a proportional-integral controller
//! of the *instantaneous* queue q towards q_ref, sampled at frequency w:
//!
//!   p(k) = a·(q(k) − q_ref) − b·(q(k−1) − q_ref) + p(k−1),   clamped to [0, 1]
//!
//! (the bilinear discretisation of C(s) = K(s/z + 1)/s; a > b makes the proportional part).
//! RED's average is dropped on purpose: its low-pass filter adds phase lag to the TCP/AQM
//! loop, and the integral term alone removes the steady-state error, so the queue settles
//! on q_ref whatever the load. Arrivals are dropped (or, with `ecn`, ECT packets are
//! marked) with probability p, independently: no count-based spacing.
//!
//! Follows ns-2 `queue/pi.cc`: defaults a = 1.822e-5, b = 1.816e-5, w = 170 Hz, q_ref = 50
//! packets, mean_pktsize = 500; q(0) = 0 and p(0) = 0; in byte mode q is the byte backlog
//! divided by mean_pktsize (packets of mean size) and p is scaled by size/mean_pktsize
//! (capped at 1). The paper's design example (N = 60 flows, C = 3750 packets/s,
//! R⁺ = 0.246 s) used different numbers (sampling at 160 Hz, q_ref = 200 packets,
//! docs/aqm/pi.md, recalled); ns-2's defaults are used here because the seed papers ran
//! ns-2. The controller acts on arrivals only; ns-2's mark-on-departure mode is not offered.

use super::QueueCtx;
use super::{Aqm, QueueView, Reason, Verdict};
use crate::check::Problems;
use crate::packet::Packet;
use crate::rng::Rng;
use crate::units::Bytes;
use crate::units::Time;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug)]
pub struct PiConfig {
    pub a: f64,
    pub b: f64,
    /// The sampling period 1/w.
    pub period: Time,
    /// q_ref in packets.
    pub q_ref: f64,
    pub byte_mode: bool,
    pub mean_pktsize: u32,
    pub ecn: bool,
}

#[derive(Clone, Debug)]
pub struct Pi {
    cfg: PiConfig,
    /// The drop/mark probability p(k).
    pub p: f64,
    /// q(k−1), packets (of mean size in byte mode).
    pub q_old: f64,
}

impl Pi {
    pub fn new(cfg: PiConfig) -> Pi {
        Pi {
            cfg,
            p: 0.0,
            q_old: 0.0,
        }
    }

    fn q(&self, v: &QueueView) -> f64 {
        if self.cfg.byte_mode {
            v.len_bytes as f64 / self.cfg.mean_pktsize as f64
        } else {
            v.len_pkts as f64
        }
    }

    /// One controller update with the current queue q (packets).
    pub fn update(&mut self, q: f64) {
        let (a, b, q_ref) = (self.cfg.a, self.cfg.b, self.cfg.q_ref);
        let p = a * (q - q_ref) - b * (self.q_old - q_ref) + self.p;
        self.p = p.clamp(0.0, 1.0);
        self.q_old = q;
    }

    /// The probability applied to a packet of `size` bytes.
    pub fn p_packet(&self, size: u32) -> f64 {
        if self.cfg.byte_mode {
            (self.p * size as f64 / self.cfg.mean_pktsize as f64).min(1.0)
        } else {
            self.p
        }
    }
}

impl Aqm for Pi {
    fn on_arrival(&mut self, _q: &QueueView, pkt: &Packet, _now: Time, rng: &mut Rng) -> Verdict {
        let p = self.p_packet(pkt.size);
        // p = 0 draws nothing, so an idle controller leaves the random stream untouched.
        if p > 0.0 && rng.uniform() < p {
            if self.cfg.ecn {
                Verdict::Mark(Reason::Early)
            } else {
                Verdict::Drop(Reason::Early)
            }
        } else {
            Verdict::Pass
        }
    }
    fn first_timer(&self, now: Time) -> Option<Time> {
        Some(now + self.cfg.period)
    }
    fn on_timer(&mut self, q: &QueueView, now: Time) -> Option<Time> {
        self.update(self.q(q));
        Some(now + self.cfg.period)
    }
    fn metric_names(&self) -> &'static [&'static str] {
        &["p", "q_old"]
    }
    fn metrics(&self, _q: &QueueView, _now: Time, out: &mut [f64]) {
        out[0] = self.p;
        out[1] = self.q_old;
    }
}

// ---------------------------------------------------------------------------------------
// Spec: the scenario's fields, defaults and checks
// ---------------------------------------------------------------------------------------

crate::check::packet_spec! {
defaults(
    mean_pktsize = "crate::aqm::pi::default_pi_mean_pktsize",
    ecn = "crate::check::default_false"
)
/// PI controller (docs/aqm/pi.md). Defaults are ns-2's `Queue/PI`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PiSpec {
    #[serde(default = "default_pi_a")]
    pub a: f64,
    #[serde(default = "default_pi_b")]
    pub b: f64,
    /// Sampling frequency, Hz.
    #[serde(default = "default_pi_w")]
    pub w: f64,
    /// Reference queue, packets.
    #[serde(default = "default_pi_q_ref")]
    pub q_ref: f64,
}
}

impl PiSpec {
    /// The sampling period 1/w in nanoseconds, rounded.
    pub fn period(&self) -> u64 {
        libm::round(1e9 / self.w) as u64
    }
}

fn default_pi_a() -> f64 {
    1.822e-5
}

fn default_pi_b() -> f64 {
    1.816e-5
}

fn default_pi_w() -> f64 {
    170.0
}

fn default_pi_q_ref() -> f64 {
    50.0
}

fn default_pi_mean_pktsize() -> Bytes {
    Bytes(500)
}

impl PiSpec {
    pub fn validate(&self, a: &str, _q: &QueueCtx, p: &mut Problems) {
        for (field, v) in [("a", self.a), ("b", self.b)] {
            if !(v.is_finite() && v >= 0.0) {
                p.err(format!("{a}.{field}"), v, "must be a finite number >= 0");
            }
        }
        if !(self.w.is_finite() && self.w > 0.0 && self.w <= 1e9) {
            p.err(
                format!("{a}.w"),
                self.w,
                "must be a sampling frequency in (0, 1e9] Hz",
            );
        }
        if !(self.q_ref.is_finite() && self.q_ref >= 0.0) {
            p.err(
                format!("{a}.q_ref"),
                self.q_ref,
                "must be a finite number >= 0 (packets)",
            );
        }
        p.packet_size(a, "mean_pktsize", self.mean_pktsize);
    }

    pub fn build(&self, _q: &QueueCtx) -> Pi {
        Pi::new(PiConfig {
            a: self.a,
            b: self.b,
            period: self.period(),
            q_ref: self.q_ref,
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

    fn pi(byte_mode: bool, ecn: bool) -> Pi {
        Pi::new(PiConfig {
            a: 1.822e-5,
            b: 1.816e-5,
            period: 5_882_353,
            q_ref: 50.0,
            byte_mode,
            mean_pktsize: 500,
            ecn,
        })
    }

    fn view(pkts: u32) -> QueueView {
        QueueView::new(pkts, pkts as u64 * 500, Limit::Packets(200), 10_000_000)
    }

    #[test]
    fn p_follows_the_hand_computed_sequence() {
        for byte_mode in [false, true] {
            let mut c = pi(byte_mode, false);
            let mut t = 0;
            let mut ps = vec![];
            for q in [100, 100, 80, 50, 40] {
                t = c.on_timer(&view(q), t).unwrap();
                ps.push(c.p);
            }
            // p1 = a·50 − b·(0 − 50) = 50(a + b)              = 1.8190e-3
            // p2 = p1 + a·50 − b·50  = p1 + 3.0e-6            = 1.8220e-3
            // p3 = p2 + a·30 − b·50  = p2 − 3.614e-4          = 1.4606e-3
            // p4 = p3 + a·0 − b·30   = p3 − 5.448e-4          = 9.158e-4
            // p5 = p4 + a·(−10) − b·0 = p4 − 1.822e-4         = 7.336e-4
            let expect = [1.819e-3, 1.822e-3, 1.4606e-3, 9.158e-4, 7.336e-4];
            for (k, (got, want)) in ps.iter().zip(expect).enumerate() {
                assert!(
                    (got - want).abs() < 1e-12,
                    "byte_mode {byte_mode} k={k}: {got} vs {want}"
                );
            }
            assert_eq!(t, 5 * 5_882_353);
        }
    }

    #[test]
    fn p_is_clamped_to_zero_and_one() {
        let mut c = pi(false, false);
        c.update(0.0); // a·(−50) − b·(−50) < 0
        assert_eq!(c.p, 0.0);
        c.cfg.a = 0.1;
        c.update(100.0); // 0.1·50 − b·(−50) > 1
        assert_eq!(c.p, 1.0);
        c.update(100.0);
        assert_eq!(c.p, 1.0);
        // The clamped value is the integrator state (ns-2): it unwinds from 1, not from 5.
        c.update(40.0); // 1 + 0.1·(−10) − b·50 < 0
        assert_eq!(c.p, 0.0);
    }

    /// The marked fraction at a frozen p is p (no spacing), within 4 standard deviations of
    /// a binomial count; byte mode scales it by size/mean_pktsize.
    #[test]
    fn arrivals_are_dropped_or_marked_with_probability_p() {
        let n = 200_000u32;
        for (byte_mode, ecn, size, factor) in [
            (false, false, 1000, 1.0),
            (false, true, 500, 1.0),
            (true, false, 250, 0.5),
            (true, true, 1000, 2.0),
        ] {
            let mut c = pi(byte_mode, ecn);
            c.p = 0.05;
            let mut rng = Rng::for_component(3, 0, "pi-test");
            let pkt = Packet {
                size,
                ..Default::default()
            };
            let want = if ecn {
                Verdict::Mark(Reason::Early)
            } else {
                Verdict::Drop(Reason::Early)
            };
            let mut hits = 0;
            for _ in 0..n {
                match c.on_arrival(&view(60), &pkt, 0, &mut rng) {
                    Verdict::Pass => {}
                    v => {
                        assert_eq!(v, want);
                        hits += 1;
                    }
                }
            }
            let p = 0.05 * factor;
            let sd = (p * (1.0 - p) / n as f64).sqrt();
            let got = hits as f64 / n as f64;
            assert!(
                (got - p).abs() < 4.0 * sd,
                "{byte_mode} {ecn}: {got} vs {p}"
            );
        }
        let mut c = pi(true, false);
        c.p = 0.6;
        assert_eq!(c.p_packet(1500), 1.0); // 1.8 capped
    }

    #[test]
    fn byte_mode_measures_the_queue_in_mean_packets() {
        let mut c = pi(true, false);
        // 75 000 bytes: 150 mean-size packets, whatever the packet count.
        let v = QueueView::new(10, 75_000, Limit::Bytes(100_000), 10_000_000);
        c.on_timer(&v, 0);
        assert_eq!(c.q_old, 150.0);
        assert!((c.p - (1.822e-5 * 100.0 + 1.816e-5 * 50.0)).abs() < 1e-15);
        let mut out = [0.0; 2];
        c.metrics(&v, 0, &mut out);
        assert_eq!(out, [c.p, 150.0]);
    }
}
