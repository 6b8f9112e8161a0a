//! trTCM: the two-rate three-colour marker (RFC 2698; ns-2 `TRTCMPolicy`;
//! docs/diffserv/trtcm.md).
//!
//! Buckets P (PBS bytes, filled at PIR) and C (CBS bytes, filled at CIR), both full at the
//! start, filled independently. Colour-blind (§3): Tp < B → red; else Tc < B → yellow,
//! Tp −= B; else green, Tp −= B and Tc −= B. Colour-aware (§3) adds: a pre-red packet is
//! red, a pre-yellow packet is at most yellow. The RFC requires PIR ≥ CIR.

use super::{bucket_size, pir_at_least_cir, positive_rate, Bucket, Meter};
use crate::check::Problems;
use crate::packet::Colour;
use crate::rng::Rng;
use crate::units::{Bytes, Rate, Time};
use serde::{Deserialize, Serialize};

/// trTCM parameters (docs/diffserv/trtcm.md).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TrtcmSpec {
    /// Committed information rate, bit/s.
    pub cir: Rate,
    /// Committed burst size, bytes.
    pub cbs: Bytes,
    /// Peak information rate, bit/s; at least `cir`.
    pub pir: Rate,
    /// Peak burst size, bytes.
    pub pbs: Bytes,
    /// Honour the colour a packet arrives with (RFC 2698 §3).
    #[serde(default)]
    pub colour_aware: bool,
}

pub struct Trtcm {
    cir: u64,
    pir: u64,
    c: Bucket,
    p: Bucket,
    last: Time,
    colour_aware: bool,
}

impl TrtcmSpec {
    pub fn validate(&self, a: &str, p: &mut Problems) {
        positive_rate(p, format!("{a}.cir"), self.cir);
        pir_at_least_cir(p, a, self.cir, self.pir, "RFC 2698 §2: PIR >= CIR");
        bucket_size(p, format!("{a}.cbs"), self.cbs, false);
        bucket_size(p, format!("{a}.pbs"), self.pbs, false);
    }

    pub fn build(&self) -> Trtcm {
        Trtcm {
            cir: self.cir.0,
            pir: self.pir.0,
            c: Bucket::full(self.cbs),
            p: Bucket::full(self.pbs),
            last: 0,
            colour_aware: self.colour_aware,
        }
    }

    pub fn rates(&self) -> (Option<u64>, Option<u64>) {
        (Some(self.cir.0), Some(self.pir.0))
    }
}

impl Meter for Trtcm {
    fn colour(&mut self, size: u32, pre: Colour, now: Time, _rng: &mut Rng) -> Colour {
        let dt = now - self.last;
        self.p.fill(self.pir, dt);
        self.c.fill(self.cir, dt);
        self.last = now;
        let pre = if self.colour_aware {
            pre
        } else {
            Colour::Green
        };
        if pre == Colour::Red || !self.p.holds(size) {
            Colour::Red
        } else if pre == Colour::Yellow || !self.c.holds(size) {
            self.p.take(size);
            Colour::Yellow
        } else {
            self.p.take(size);
            self.c.take(size);
            Colour::Green
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diffserv::test_support::cbr_fractions;

    /// CBR at x·CIR with PIR = 1.5·CIR, buckets of 5 packets: green carries CIR, yellow
    /// carries PIR − CIR, red the rest (RFC 2698 long-term rates): green min(1, 1/x),
    /// yellow (min(x, 1.5) − 1)/x above CIR, red (x − 1.5)/x above PIR. The initial full
    /// buckets add at most 5 packets per colour over 12 500·x: tolerance 0.001.
    #[test]
    fn cbr_rate_steps_give_the_analytic_fractions() {
        for x in [0.5f64, 1.0, 1.5, 2.0] {
            let mut m = TrtcmSpec {
                cir: Rate(1_000_000),
                cbs: Bytes(5000),
                pir: Rate(1_500_000),
                pbs: Bytes(5000),
                colour_aware: false,
            }
            .build();
            let f = cbr_fractions(&mut m, (x * 1e6) as u64, 1000, 100);
            let expect = [
                (1.0 / x).min(1.0),
                ((x.min(1.5) - 1.0) / x).max(0.0),
                ((x - 1.5) / x).max(0.0),
            ];
            for c in 0..3 {
                assert!(
                    (f[c] - expect[c]).abs() < 1e-3,
                    "x = {x}: {f:?} vs {expect:?}"
                );
            }
        }
    }

    fn trtcm(cbs: u64, pbs: u64, aware: bool) -> Trtcm {
        TrtcmSpec {
            cir: Rate(8_000),
            cbs: Bytes(cbs),
            pir: Rate(16_000),
            pbs: Bytes(pbs),
            colour_aware: aware,
        }
        .build()
    }

    #[test]
    fn colour_boundaries_are_exact_at_the_bucket_sizes() {
        let mut rng = Rng::for_component(1, 0, "t");
        let mut m = trtcm(1000, 1500, false);
        // Green takes from both: P 1500 → 500, C 1000 → 0.
        assert_eq!(m.colour(1000, Colour::Green, 0, &mut rng), Colour::Green);
        // 501 > P's 500: red, nothing taken.
        assert_eq!(m.colour(501, Colour::Green, 0, &mut rng), Colour::Red);
        // 500 fits P but not C: yellow, P → 0.
        assert_eq!(m.colour(500, Colour::Green, 0, &mut rng), Colour::Yellow);
        assert_eq!(m.colour(1, Colour::Green, 0, &mut rng), Colour::Red);
        // 0.5 s: P gains 1000 (PIR 2000 B/s), C 500.
        let t = 500_000_000;
        // 501 fits P (1000) but not C (500): yellow, P → 499.
        assert_eq!(m.colour(501, Colour::Green, t, &mut rng), Colour::Yellow);
        assert_eq!(m.colour(500, Colour::Green, t, &mut rng), Colour::Red);
        // 499 fits both exactly-or-under: green, P → 0, C → 1.
        assert_eq!(m.colour(499, Colour::Green, t, &mut rng), Colour::Green);
        assert_eq!(m.colour(2, Colour::Green, t, &mut rng), Colour::Red);
    }

    #[test]
    fn colour_aware_mode_keeps_pre_colours_and_blind_mode_ignores_them() {
        let mut rng = Rng::for_component(1, 0, "t");
        let mut aware = trtcm(1000, 1000, true);
        assert_eq!(aware.colour(100, Colour::Red, 0, &mut rng), Colour::Red);
        assert_eq!(
            aware.colour(100, Colour::Yellow, 0, &mut rng),
            Colour::Yellow
        );
        // The yellow took 100 from P only, so C still holds 1000 and P 900.
        assert_eq!(aware.colour(900, Colour::Green, 0, &mut rng), Colour::Green);
        let mut blind = trtcm(1000, 1000, false);
        assert_eq!(blind.colour(100, Colour::Red, 0, &mut rng), Colour::Green);
    }

    #[test]
    fn pir_below_cir_is_rejected() {
        let mut p = Problems::default();
        TrtcmSpec {
            cir: Rate(2),
            cbs: Bytes(1),
            pir: Rate(1),
            pbs: Bytes(0),
            colour_aware: false,
        }
        .validate("m", &mut p);
        let paths: Vec<&str> = p.errors.iter().map(|e| e.path.as_str()).collect();
        assert_eq!(paths, ["m.pir", "m.pbs"]);
    }
}
