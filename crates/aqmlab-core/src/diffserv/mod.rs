//! DiffServ edge conditioning: meters that colour packets, and the conditioner that
//! classifies a router's arrivals into aggregates and meters each aggregate.
//!
//! The ns-2 `diffserv/` split (ns-2.35 `diffserv/dsEdge.cc`, `dsPolicy.cc`; docs/diffserv/conditioner.md) with one file per meter:
//! - `token_bucket`: the two-colour token bucket (ns-2 `TokenBucket`): IN/OUT;
//! - `tsw`: the time-sliding-window rate estimator (Clark & Fang 1998; RFC 2859 §3) and
//!   its two markers, TSW2CM (ns-2) and TSWTCM (RFC 2859 §4);
//! - `srtcm`: the single-rate three-colour marker (RFC 2697);
//! - `trtcm`: the two-rate three-colour marker (RFC 2698);
//! - `fixed`: one colour for every packet (ns-2's `Dumb` policy), for a best-effort class;
//! - `classifier`: the policy table over source/destination hosts with wildcards, shared
//!   by conditioners and by the core AQMs with per-aggregate state (DRIO, URIO);
//! - `conditioner`: a classifier, the per-class meter state, and the counters of the
//!   `aggregates` table.
//!
//! A packet's `colour` is its drop precedence (Green = 0 = IN / AFx1, Yellow = 1 = AFx2,
//! Red = 2 = AFx3). Two-colour meters mark OUT packets Red; a queue with two precedence
//! levels treats Yellow and Red alike (RFC 2597 §3). Meters count packet sizes on the wire,
//! as ns-2 (`hdr_cmn` size) and the RFCs (IP packet bytes) do.
//!
//! Token buckets keep exact integer state: tokens are counted in nanobits (10⁻⁹ bit), so
//! a rate in bit/s times a time in ns adds an exact whole number of them, and a packet
//! exactly the size of the bucket is in profile on every platform.

pub mod classifier;
pub mod conditioner;
pub mod srtcm;
pub mod token_bucket;
pub mod trtcm;
pub mod tsw;

use crate::check::{inner, tagged_table, Problems};
use crate::packet::Colour;
use crate::rng::Rng;
use crate::units::{Bytes, Rate, Time};
use serde::{Deserialize, Deserializer, Serialize};

pub use conditioner::{Conditioner, ConditionerRefs, ConditionerSpec};

/// One byte in nanobits, the token unit.
const NANOBITS_PER_BYTE: u128 = 8 * 1_000_000_000;

/// A token bucket of `size` bytes, filled at a rate in bit/s, exact to the nanobit.
#[derive(Clone, Debug, PartialEq)]
pub struct Bucket {
    tokens: u128,
    size: u128,
}

impl Bucket {
    /// Full at the start (RFC 2697 §3, RFC 2698 §3, ns-2 `TokenBucket`).
    pub fn full(size: Bytes) -> Bucket {
        let size = size.0 as u128 * NANOBITS_PER_BYTE;
        Bucket { tokens: size, size }
    }

    /// Adds `rate_bps` for `dt_ns`; returns what did not fit (nanobits), for srTCM's spill.
    pub fn fill(&mut self, rate_bps: u64, dt_ns: Time) -> u128 {
        self.add(rate_bps as u128 * dt_ns as u128)
    }

    /// Adds nanobits up to the size; returns the overflow.
    pub fn add(&mut self, nanobits: u128) -> u128 {
        let room = self.size - self.tokens;
        let taken = nanobits.min(room);
        self.tokens += taken;
        nanobits - taken
    }

    /// Whether `bytes` tokens are available (RFC: "Tc(t) - B >= 0").
    pub fn holds(&self, bytes: u32) -> bool {
        self.tokens >= bytes as u128 * NANOBITS_PER_BYTE
    }

    pub fn take(&mut self, bytes: u32) {
        self.tokens -= bytes as u128 * NANOBITS_PER_BYTE;
    }

    /// Tokens in bytes (for tests and metrics).
    pub fn bytes(&self) -> f64 {
        self.tokens as f64 / NANOBITS_PER_BYTE as f64
    }
}

/// What a meter does with each packet of its aggregate.
pub trait Meter {
    /// The colour of an arriving packet of `size` bytes that came in coloured `pre` (a
    /// colour-blind meter ignores it).
    fn colour(&mut self, size: u32, pre: Colour, now: Time, rng: &mut Rng) -> Colour;
}

/// A meter that gives every packet one colour (ns-2's `Dumb` policy: no metering).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FixedSpec {
    #[serde(default)]
    pub colour: ColourName,
}

/// A colour in a scenario: "green", "yellow" or "red".
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ColourName {
    #[default]
    Green,
    Yellow,
    Red,
}

impl From<ColourName> for Colour {
    fn from(c: ColourName) -> Colour {
        match c {
            ColourName::Green => Colour::Green,
            ColourName::Yellow => Colour::Yellow,
            ColourName::Red => Colour::Red,
        }
    }
}

pub struct Fixed(Colour);

impl Meter for Fixed {
    fn colour(&mut self, _size: u32, _pre: Colour, _now: Time, _rng: &mut Rng) -> Colour {
        self.0
    }
}

impl FixedSpec {
    pub fn validate(&self, _a: &str, _p: &mut Problems) {}
    pub fn build(&self) -> Fixed {
        Fixed(self.colour.into())
    }
    pub fn rates(&self) -> (Option<u64>, Option<u64>) {
        (None, None)
    }
}

/// Declares the meter registry: the `type`-tagged `MeterSpec` and the closed `AnyMeter`.
macro_rules! meters {
    ($($tag:literal => $V:ident($Spec:ty, $Algo:ty),)*) => {
        /// The meter of a traffic class: a table tagged by `type`.
        #[derive(Clone, Debug, PartialEq, Serialize)]
        #[serde(tag = "type")]
        pub enum MeterSpec {
            $(#[serde(rename = $tag)] $V($Spec),)*
        }

        /// Every `type` a meter table may have.
        pub const METER_TYPES: &[&str] = &[$($tag,)*];

        impl<'de> Deserialize<'de> for MeterSpec {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let (ty, rest) = tagged_table::<D>(d, METER_TYPES)?;
                match ty.as_str() {
                    $($tag => inner::<$Spec, D::Error>(rest).map(MeterSpec::$V),)*
                    _ => unreachable!("tagged_table checked the type"),
                }
            }
        }

        impl MeterSpec {
            /// Reports every problem of this meter's fields under the path `a`.
            pub fn validate(&self, a: &str, p: &mut Problems) {
                match self {
                    $(MeterSpec::$V(s) => s.validate(a, p),)*
                }
            }

            pub fn build(&self) -> AnyMeter {
                match self {
                    $(MeterSpec::$V(s) => AnyMeter::$V(s.build()),)*
                }
            }

            /// The committed (target) and peak rates in bit/s, where the meter has them.
            pub fn rates(&self) -> (Option<u64>, Option<u64>) {
                match self {
                    $(MeterSpec::$V(s) => s.rates(),)*
                }
            }

            pub fn kind(&self) -> &'static str {
                match self {
                    $(MeterSpec::$V(_) => $tag,)*
                }
            }
        }

        /// The closed set of meters: static dispatch per packet.
        pub enum AnyMeter {
            $($V($Algo),)*
        }

        impl Meter for AnyMeter {
            #[inline]
            fn colour(&mut self, size: u32, pre: Colour, now: Time, rng: &mut Rng) -> Colour {
                match self {
                    $(AnyMeter::$V(m) => m.colour(size, pre, now, rng),)*
                }
            }
        }
    };
}

meters! {
    "token_bucket" => TokenBucket(token_bucket::TokenBucketSpec, token_bucket::TokenBucket),
    "tsw2cm" => Tsw2cm(tsw::Tsw2cmSpec, tsw::Tsw2cm),
    "tswtcm" => Tswtcm(tsw::TswtcmSpec, tsw::Tswtcm),
    "srtcm" => Srtcm(srtcm::SrtcmSpec, srtcm::Srtcm),
    "trtcm" => Trtcm(trtcm::TrtcmSpec, trtcm::Trtcm),
    "fixed" => Fixed(FixedSpec, Fixed),
}

/// Checks shared by the meters' specs, so their messages agree.
pub(crate) fn positive_rate(p: &mut Problems, path: String, r: crate::units::Rate) {
    if r.0 == 0 {
        p.err(path, "\"0bps\"", "must be > 0");
    }
}

/// A peak rate below the committed one (`rule` names the RFC's wording).
pub(crate) fn pir_at_least_cir(p: &mut Problems, a: &str, cir: Rate, pir: Rate, rule: &str) {
    if pir.0 < cir.0 {
        p.err(
            format!("{a}.pir"),
            format!("\"{}\"", crate::units::format_rate(pir.0)),
            format!(
                "must be >= cir = \"{}\" ({rule})",
                crate::units::format_rate(cir.0)
            ),
        );
    }
}

/// A bucket must hold the largest packet or nothing would ever conform (RFC 2697 §2 and
/// RFC 2698 §2 recommend at least the largest IP packet; we require at least one byte and
/// leave the recommendation to the docs, as the RFCs do).
pub(crate) fn bucket_size(p: &mut Problems, path: String, b: Bytes, zero_ok: bool) {
    if b.0 == 0 && !zero_ok {
        p.err(path, 0, "must be > 0 bytes");
    } else if b.0 > u32::MAX as u64 {
        p.err(path, b.0, format!("must be <= {} bytes", u32::MAX));
    }
}

#[cfg(test)]
pub(crate) mod test_support {
    use super::*;

    /// Feeds a CBR stream of `size`-byte packets at `rate_bps` for `secs` seconds and
    /// returns the fraction of packets of each colour.
    pub fn cbr_fractions(m: &mut impl Meter, rate_bps: u64, size: u32, secs: u64) -> [f64; 3] {
        let gap_ns = size as u64 * 8 * 1_000_000_000 / rate_bps;
        let n = secs * 1_000_000_000 / gap_ns;
        let mut rng = Rng::for_component(1, 0, "meter-test");
        let mut counts = [0u64; 3];
        for i in 0..n {
            let c = m.colour(size, Colour::Green, i * gap_ns, &mut rng);
            counts[c as usize] += 1;
        }
        counts.map(|c| c as f64 / n as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bucket_is_exact_at_its_size() {
        let mut b = Bucket::full(Bytes(1000));
        assert!(b.holds(1000));
        assert!(!b.holds(1001));
        b.take(1000);
        assert!(!b.holds(1));
        // 8000 bit at 1 Mb/s is exactly 8 ms: one nanosecond less leaves the bucket short.
        assert_eq!(b.fill(1_000_000, 7_999_999), 0);
        assert!(!b.holds(1000));
        assert_eq!(b.fill(1_000_000, 1), 0);
        assert!(b.holds(1000));
        // Full: everything more spills over, exactly.
        assert_eq!(b.fill(1_000_000, 3), 3_000_000);
    }
}
