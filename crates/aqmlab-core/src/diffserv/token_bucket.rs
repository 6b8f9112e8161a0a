//! Two-colour token bucket (ns-2 `diffserv/dsPolicy.cc`, `TokenBucketPolicy`; the BIO
//! paper's "token bucket marker" at edge 1; docs/diffserv/token_bucket.md).
//!
//! One bucket of `cbs` bytes filled at `cir`, full at the start. An arrival of B bytes
//! first refills the bucket for the time since the previous arrival (capped at `cbs`);
//! if B tokens are there the packet is IN (green) and takes them, otherwise it is OUT (red)
//! and takes nothing: an OUT packet never uses tokens an IN packet could have used.
//! Colour-blind, as in ns-2 (no RFC defines a colour-aware two-colour bucket).

use super::{bucket_size, positive_rate, Bucket, Meter};
use crate::check::Problems;
use crate::packet::Colour;
use crate::rng::Rng;
use crate::units::{Bytes, Rate, Time};
use serde::{Deserialize, Serialize};

/// Token bucket parameters (docs/diffserv/token_bucket.md).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TokenBucketSpec {
    /// Committed information rate (the aggregate's target rate), bit/s.
    pub cir: Rate,
    /// Committed burst size, bytes.
    pub cbs: Bytes,
}

pub struct TokenBucket {
    cir: u64,
    bucket: Bucket,
    last: Time,
}

impl TokenBucketSpec {
    pub fn validate(&self, a: &str, p: &mut Problems) {
        positive_rate(p, format!("{a}.cir"), self.cir);
        bucket_size(p, format!("{a}.cbs"), self.cbs, false);
    }

    pub fn build(&self) -> TokenBucket {
        TokenBucket {
            cir: self.cir.0,
            bucket: Bucket::full(self.cbs),
            last: 0,
        }
    }

    pub fn rates(&self) -> (Option<u64>, Option<u64>) {
        (Some(self.cir.0), None)
    }
}

impl Meter for TokenBucket {
    fn colour(&mut self, size: u32, _pre: Colour, now: Time, _rng: &mut Rng) -> Colour {
        self.bucket.fill(self.cir, now - self.last);
        self.last = now;
        if self.bucket.holds(size) {
            self.bucket.take(size);
            Colour::Green
        } else {
            Colour::Red
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diffserv::test_support::cbr_fractions;

    fn tb(cir: u64, cbs: u64) -> TokenBucket {
        TokenBucketSpec {
            cir: Rate(cir),
            cbs: Bytes(cbs),
        }
        .build()
    }

    /// A CBR stream at x·CIR (x > 1) keeps a fraction 1/x of its packets IN once the
    /// initial burst is spent: the bucket admits exactly CIR·T bytes plus `cbs`. Over
    /// 100 s of 1000-byte packets at 1 Mb/s the burst of 5 packets moves the fraction by at
    /// most 5 / (x·12 500) < 0.0004, and the whole-packet granularity by one packet more:
    /// tolerance 0.001. At or below CIR every packet is IN, exactly.
    #[test]
    fn cbr_rate_steps_give_the_analytic_in_fraction() {
        for (x, expect_in) in [(0.5, 1.0), (1.0, 1.0), (1.5, 1.0 / 1.5), (2.0, 0.5)] {
            let mut m = tb(1_000_000, 5000);
            let f = cbr_fractions(&mut m, (1_000_000.0 * x) as u64, 1000, 100);
            assert!(
                (f[0] - expect_in).abs() < 1e-3,
                "x = {x}: IN fraction {} vs {expect_in}",
                f[0]
            );
            assert_eq!(f[1], 0.0, "a two-colour meter never gives yellow");
            assert!((f[0] + f[2] - 1.0).abs() < 1e-12);
        }
    }

    #[test]
    fn a_packet_of_exactly_the_tokens_left_is_in_and_one_byte_more_is_out() {
        let mut rng = Rng::for_component(1, 0, "t");
        let mut m = tb(8_000, 1500); // 1000 bytes per second
        assert_eq!(m.colour(1500, Colour::Green, 0, &mut rng), Colour::Green);
        // 0.5 s later: exactly 500 bytes of tokens.
        assert_eq!(
            m.colour(501, Colour::Green, 500_000_000, &mut rng),
            Colour::Red
        );
        // OUT took nothing, so 500 are still there.
        assert_eq!(
            m.colour(500, Colour::Green, 500_000_000, &mut rng),
            Colour::Green
        );
        assert_eq!(
            m.colour(1, Colour::Green, 500_000_000, &mut rng),
            Colour::Red
        );
    }

    /// Burst tolerance: after a silence the full bucket passes exactly cbs bytes of a
    /// back-to-back burst, however long the silence was.
    #[test]
    fn after_a_silence_a_burst_of_cbs_bytes_is_in() {
        let mut rng = Rng::for_component(1, 0, "t");
        let mut m = tb(1_000_000, 10_000);
        let t = 3_600 * 1_000_000_000;
        let colours: Vec<Colour> = (0..12)
            .map(|_| m.colour(1000, Colour::Green, t, &mut rng))
            .collect();
        assert_eq!(colours.iter().filter(|&&c| c == Colour::Green).count(), 10);
        assert_eq!(colours[10], Colour::Red);
    }

    #[test]
    fn invalid_specs_are_rejected_with_path_and_value() {
        let mut p = Problems::default();
        TokenBucketSpec {
            cir: Rate(0),
            cbs: Bytes(0),
        }
        .validate("m", &mut p);
        let paths: Vec<&str> = p.errors.iter().map(|e| e.path.as_str()).collect();
        assert_eq!(paths, ["m.cir", "m.cbs"]);
    }
}
