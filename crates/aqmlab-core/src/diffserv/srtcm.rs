//! srTCM: the single-rate three-colour marker (RFC 2697; ns-2 `SRTCMPolicy`;
//! docs/diffserv/srtcm.md).
//!
//! Two buckets, C of CBS bytes and E of EBS bytes, both full at the start. Tokens arrive
//! at CIR: into C while it is not full, the overflow into E while E is not full (RFC 2697
//! §3: "if Tc < CBS, Tc is incremented, else if Te < EBS, Te is incremented"). aqmlab
//! refills lazily at each arrival, which gives the same buckets as the RFC's per-token
//! rule because C only spills into E once full.
//!
//! Colour-blind (§3.1): B ≤ Tc → green, Tc −= B; else B ≤ Te → yellow, Te −= B; else red.
//! Colour-aware (§3.2): a green packet with B ≤ Tc → green; else a green or yellow packet
//! with B ≤ Te → yellow; else red. A red packet stays red and takes no tokens.

use super::{bucket_size, positive_rate, Bucket, Meter};
use crate::check::Problems;
use crate::packet::Colour;
use crate::rng::Rng;
use crate::units::{Bytes, Rate, Time};
use serde::{Deserialize, Serialize};

/// srTCM parameters (docs/diffserv/srtcm.md).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SrtcmSpec {
    /// Committed information rate, bit/s (the RFC counts IP packet bytes).
    pub cir: Rate,
    /// Committed burst size, bytes.
    pub cbs: Bytes,
    /// Excess burst size, bytes.
    pub ebs: Bytes,
    /// Honour the colour a packet arrives with (RFC 2697 §3.2).
    #[serde(default)]
    pub colour_aware: bool,
}

pub struct Srtcm {
    cir: u64,
    c: Bucket,
    e: Bucket,
    last: Time,
    colour_aware: bool,
}

impl SrtcmSpec {
    pub fn validate(&self, a: &str, p: &mut Problems) {
        positive_rate(p, format!("{a}.cir"), self.cir);
        // RFC 2697 §2: "at least one of them MUST be larger than 0".
        bucket_size(p, format!("{a}.cbs"), self.cbs, true);
        bucket_size(p, format!("{a}.ebs"), self.ebs, true);
        if self.cbs.0 == 0 && self.ebs.0 == 0 {
            p.err(
                format!("{a}.cbs"),
                0,
                "cbs and ebs are both 0; at least one must be > 0 (RFC 2697 §2)",
            );
        }
    }

    pub fn build(&self) -> Srtcm {
        Srtcm {
            cir: self.cir.0,
            c: Bucket::full(self.cbs),
            e: Bucket::full(self.ebs),
            last: 0,
            colour_aware: self.colour_aware,
        }
    }

    pub fn rates(&self) -> (Option<u64>, Option<u64>) {
        (Some(self.cir.0), None)
    }
}

impl Meter for Srtcm {
    fn colour(&mut self, size: u32, pre: Colour, now: Time, _rng: &mut Rng) -> Colour {
        let spill = self.c.fill(self.cir, now - self.last);
        self.e.add(spill);
        self.last = now;
        let pre = if self.colour_aware {
            pre
        } else {
            Colour::Green
        };
        if pre == Colour::Green && self.c.holds(size) {
            self.c.take(size);
            Colour::Green
        } else if pre != Colour::Red && self.e.holds(size) {
            self.e.take(size);
            Colour::Yellow
        } else {
            Colour::Red
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diffserv::test_support::cbr_fractions;

    fn srtcm(cbs: u64, ebs: u64, aware: bool) -> Srtcm {
        SrtcmSpec {
            cir: Rate(8_000), // 1000 bytes per second
            cbs: Bytes(cbs),
            ebs: Bytes(ebs),
            colour_aware: aware,
        }
        .build()
    }

    /// A CBR stream at x·CIR, long term: green carries CIR, E is drained once and refilled
    /// only when C is full (never, above CIR), so yellow carries EBS once and red the rest.
    /// Fractions over 100 s of 1000-byte packets at CIR 1 Mb/s, CBS = EBS = 5000 B: green
    /// 1/x, yellow ≤ 5 packets (< 0.0004), red 1 − 1/x; tolerance 0.001 as the token
    /// bucket's. At or below CIR all green.
    #[test]
    fn cbr_rate_steps_give_the_analytic_fractions() {
        for x in [0.5f64, 1.0, 1.5, 2.0] {
            let mut m = SrtcmSpec {
                cir: Rate(1_000_000),
                cbs: Bytes(5000),
                ebs: Bytes(5000),
                colour_aware: false,
            }
            .build();
            let f = cbr_fractions(&mut m, (x * 1e6) as u64, 1000, 100);
            let green = (1.0 / x).min(1.0);
            assert!((f[0] - green).abs() < 1e-3, "x = {x}: {f:?}");
            assert!(f[1] < 1e-3, "x = {x}: {f:?}");
            assert!((f[2] - (1.0 - green)).abs() < 1e-3, "x = {x}: {f:?}");
        }
    }

    #[test]
    fn colour_boundaries_are_exact_at_the_bucket_sizes() {
        let mut rng = Rng::for_component(1, 0, "t");
        let mut m = srtcm(1500, 700, false);
        // C holds exactly 1500: a 1500-byte packet is green, the next yellow if it fits E.
        assert_eq!(m.colour(1500, Colour::Green, 0, &mut rng), Colour::Green);
        assert_eq!(m.colour(701, Colour::Green, 0, &mut rng), Colour::Red);
        assert_eq!(m.colour(700, Colour::Green, 0, &mut rng), Colour::Yellow);
        assert_eq!(m.colour(1, Colour::Green, 0, &mut rng), Colour::Red);
        // 2.2 s later: 2200 tokens, 1500 fill C, 700 spill into E (full again).
        let t = 2_200_000_000;
        assert_eq!(m.colour(1500, Colour::Green, t, &mut rng), Colour::Green);
        assert_eq!(m.colour(700, Colour::Green, t, &mut rng), Colour::Yellow);
        assert_eq!(m.colour(1, Colour::Green, t, &mut rng), Colour::Red);
    }

    #[test]
    fn colour_aware_mode_never_promotes() {
        let mut rng = Rng::for_component(1, 0, "t");
        let mut m = srtcm(1000, 1000, true);
        // A pre-yellow packet may only use E even though C is full.
        assert_eq!(m.colour(1000, Colour::Yellow, 0, &mut rng), Colour::Yellow);
        // A pre-red packet stays red and takes nothing: C is still full for green.
        assert_eq!(m.colour(1000, Colour::Red, 0, &mut rng), Colour::Red);
        assert_eq!(m.colour(1000, Colour::Green, 0, &mut rng), Colour::Green);
        // Now C and E are empty.
        assert_eq!(m.colour(1, Colour::Green, 0, &mut rng), Colour::Red);
        // Colour-blind, the same pre-yellow packet is green.
        let mut blind = srtcm(1000, 1000, false);
        assert_eq!(
            blind.colour(1000, Colour::Yellow, 0, &mut rng),
            Colour::Green
        );
    }

    #[test]
    fn both_buckets_empty_is_rejected() {
        let mut p = Problems::default();
        SrtcmSpec {
            cir: Rate(1),
            cbs: Bytes(0),
            ebs: Bytes(0),
            colour_aware: false,
        }
        .validate("m", &mut p);
        assert_eq!(p.errors.len(), 1);
        assert!(p.errors[0].message.contains("RFC 2697"));
    }
}
