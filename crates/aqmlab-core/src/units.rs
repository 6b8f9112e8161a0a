//! Units in types: time is integer nanoseconds, rates are bits per second, sizes are bytes.
//!
//! Quantities are parsed the way people write them (`"20ms"`, `"10Mbps"`, `"1500B"`) with
//! exact decimal arithmetic, so `"1.5ms"` is exactly 1 500 000 ns and never a float that
//! rounds differently on another platform. Canonical formatting picks the largest unit that
//! divides the value exactly, so parse(format(x)) == x for every value.

use serde::de::{self, Deserializer, Visitor};
use serde::{Deserialize, Serialize, Serializer};
use std::fmt::{self, Write};

/// Simulated time in nanoseconds since the start of the run.
pub type Time = u64;

pub const NS_PER_SEC: u64 = 1_000_000_000;

/// Seconds as f64, for reporting only (never for event ordering).
#[inline]
pub fn secs(t: Time) -> f64 {
    t as f64 / NS_PER_SEC as f64
}

/// Serialization time of `bytes` on a link of `bps`, rounded up to the next nanosecond so
/// that a link never transmits faster than its nominal rate.
#[inline]
pub fn tx_time(bytes: u32, bps: u64) -> Time {
    // Every packet pays this: below 2^31 bytes the numerator fits a u64, whose division
    // is several times cheaper than the u128 one (1% of the 10 000-flow run).
    if bytes < 1 << 31 {
        return (bytes as u64 * 8 * NS_PER_SEC).div_ceil(bps);
    }
    let num = bytes as u128 * 8 * NS_PER_SEC as u128;
    num.div_ceil(bps as u128) as Time
}

const TIME_UNITS: &[(&str, u64)] = &[
    ("ns", 1),
    ("us", 1_000),
    ("µs", 1_000),
    ("ms", 1_000_000),
    ("s", NS_PER_SEC),
    ("min", 60 * NS_PER_SEC),
];
const RATE_UNITS: &[(&str, u64)] = &[
    ("bps", 1),
    ("kbps", 1_000),
    ("Kbps", 1_000),
    ("Mbps", 1_000_000),
    ("Gbps", 1_000_000_000),
    ("Tbps", 1_000_000_000_000),
];
const BYTE_UNITS: &[(&str, u64)] = &[
    ("B", 1),
    ("KB", 1_000),
    ("kB", 1_000),
    ("MB", 1_000_000),
    ("GB", 1_000_000_000),
    ("KiB", 1 << 10),
    ("MiB", 1 << 20),
    ("GiB", 1 << 30),
];

/// Parses `<decimal><unit>` exactly into an integer number of base units.
fn parse_quantity(s: &str, units: &[(&str, u64)], what: &str, base: &str) -> Result<u64, String> {
    let t = s.trim();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '-' || c == '+'))
        .unwrap_or(t.len());
    let (num, unit) = (&t[..split], t[split..].trim());
    let expect = || {
        let allowed: Vec<&str> = units.iter().map(|u| u.0).collect();
        format!(
            "expected a {what} like \"{}\" (a non-negative decimal number followed by one of {})",
            example(what),
            allowed.join(", ")
        )
    };
    if num.is_empty() || unit.is_empty() {
        return Err(format!("invalid {what} \"{s}\": {}", expect()));
    }
    if num.starts_with('-') {
        return Err(format!("invalid {what} \"{s}\": must not be negative"));
    }
    let num = num.strip_prefix('+').unwrap_or(num);
    let factor = units
        .iter()
        .find(|u| u.0 == unit)
        .map(|u| u.1)
        .ok_or_else(|| {
            format!(
                "invalid {what} \"{s}\": unknown unit \"{unit}\"; {}",
                expect()
            )
        })?;
    let (int_part, frac_part) = match num.split_once('.') {
        Some((i, f)) => (i, f),
        None => (num, ""),
    };
    let digits_ok = |d: &str| d.chars().all(|c| c.is_ascii_digit());
    if (int_part.is_empty() && frac_part.is_empty())
        || !digits_ok(int_part)
        || !digits_ok(frac_part)
    {
        return Err(format!("invalid {what} \"{s}\": {}", expect()));
    }
    let overflow = || format!("invalid {what} \"{s}\": too large");
    // value = (int_part.frac_part) * factor, computed exactly as a fraction over 10^len(frac):
    // binary multiples like "1.5KiB" are whole even though their factor is not a power of 10.
    if int_part.len() + frac_part.len() > 30 {
        return Err(overflow());
    }
    let mut digits: u128 = 0;
    for c in int_part.chars().chain(frac_part.chars()) {
        digits = digits * 10 + (c as u128 - '0' as u128);
    }
    let denom = 10u128.pow(frac_part.len() as u32);
    let scaled = digits.checked_mul(factor as u128).ok_or_else(overflow)?;
    if scaled % denom != 0 {
        return Err(format!(
            "invalid {what} \"{s}\": not a whole number of {base} (the finest resolution)"
        ));
    }
    u64::try_from(scaled / denom).map_err(|_| overflow())
}

fn example(what: &str) -> &'static str {
    match what {
        "duration" => "20ms",
        "rate" => "10Mbps",
        _ => "1500B",
    }
}

fn format_quantity(v: u64, units: &[(&str, u64)]) -> String {
    let mut best = units[0];
    for u in units {
        // Skip aliases that share a factor with a preferred spelling.
        if matches!(u.0, "µs" | "Kbps" | "kB") {
            continue;
        }
        if v != 0 && v % u.1 == 0 && u.1 >= best.1 {
            best = *u;
        }
    }
    // One allocation: the canonical echo of a large scenario formats thousands of these.
    let mut s = String::with_capacity(20 + best.0.len());
    write!(s, "{}{}", v / best.1, best.0).expect("writing to a String cannot fail");
    s
}

pub fn parse_time(s: &str) -> Result<Time, String> {
    parse_quantity(s, TIME_UNITS, "duration", "nanoseconds")
}
pub fn parse_rate(s: &str) -> Result<u64, String> {
    parse_quantity(s, RATE_UNITS, "rate", "bits per second")
}
pub fn parse_bytes(s: &str) -> Result<u64, String> {
    parse_quantity(s, BYTE_UNITS, "size", "bytes")
}
pub fn format_time(t: Time) -> String {
    format_quantity(t, TIME_UNITS)
}
pub fn format_rate(r: u64) -> String {
    format_quantity(r, RATE_UNITS)
}
pub fn format_bytes(b: u64) -> String {
    // Binary multiples read poorly next to decimal ones; canonical sizes stay decimal.
    format_quantity(b, &BYTE_UNITS[..5])
}

macro_rules! unit_newtype {
    ($name:ident, $doc:literal, $parse:ident, $format:ident, $expecting:literal, $allow_int:expr) => {
        #[doc = $doc]
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub struct $name(pub u64);

        impl Serialize for $name {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(&$format(self.0))
            }
        }

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                struct V;
                impl<'de> Visitor<'de> for V {
                    type Value = $name;
                    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                        f.write_str($expecting)
                    }
                    fn visit_str<E: de::Error>(self, v: &str) -> Result<$name, E> {
                        $parse(v).map($name).map_err(E::custom)
                    }
                    fn visit_i64<E: de::Error>(self, v: i64) -> Result<$name, E> {
                        if !$allow_int {
                            return Err(E::custom(format!(
                                "invalid value {v}: a bare number is ambiguous here; {}",
                                $expecting
                            )));
                        }
                        u64::try_from(v).map($name).map_err(|_| {
                            E::custom(format!("invalid value {v}: must not be negative"))
                        })
                    }
                    fn visit_u64<E: de::Error>(self, v: u64) -> Result<$name, E> {
                        self.visit_i64(i64::try_from(v).map_err(|_| E::custom("too large"))?)
                    }
                    fn visit_f64<E: de::Error>(self, v: f64) -> Result<$name, E> {
                        Err(E::custom(format!(
                            "invalid value {v}: a bare number is not accepted here; {}",
                            $expecting
                        )))
                    }
                }
                d.deserialize_any(V)
            }
        }
    };
}

unit_newtype!(
    Duration,
    "A duration in integer nanoseconds, written `\"20ms\"`.",
    parse_time,
    format_time,
    "a duration string with a unit, like \"20ms\" (units: ns, us, ms, s, min)",
    false
);
unit_newtype!(
    Rate,
    "A bit rate in bits per second, written `\"10Mbps\"`.",
    parse_rate,
    format_rate,
    "a rate string with a unit, like \"10Mbps\" (units: bps, kbps, Mbps, Gbps, Tbps)",
    false
);
unit_newtype!(
    Bytes,
    "A size in bytes, written `\"1500B\"` or as a plain integer number of bytes.",
    parse_bytes,
    format_bytes,
    "a size in bytes, like 1500 or \"1500B\" or \"64KB\"",
    true
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_decimal_quantities_exactly() {
        assert_eq!(parse_time("20ms"), Ok(20_000_000));
        assert_eq!(parse_time("1.5ms"), Ok(1_500_000));
        assert_eq!(parse_time("0.000000001s"), Ok(1));
        assert_eq!(parse_time("2min"), Ok(120 * NS_PER_SEC));
        assert_eq!(parse_rate("10Mbps"), Ok(10_000_000));
        assert_eq!(parse_rate("1.544Mbps"), Ok(1_544_000));
        assert_eq!(parse_bytes("1500B"), Ok(1500));
        assert_eq!(parse_bytes("64KiB"), Ok(65536));
        assert_eq!(parse_bytes("1.5KiB"), Ok(1536));
        assert_eq!(parse_time("0.25us"), Ok(250));
    }

    #[test]
    fn rejects_malformed_quantities_with_a_reason() {
        assert!(parse_time("-5ms")
            .unwrap_err()
            .contains("must not be negative"));
        assert!(parse_time("5").unwrap_err().contains("expected a duration"));
        assert!(parse_time("5 parsecs")
            .unwrap_err()
            .contains("unknown unit"));
        assert!(parse_time("0.5ns").unwrap_err().contains("whole number"));
        assert!(parse_bytes("1.0001KiB")
            .unwrap_err()
            .contains("whole number"));
        assert!(parse_time("nan s").is_err());
        assert!(parse_time("inf ms").is_err());
        assert!(parse_time("1.2.3ms").is_err());
        assert!(parse_rate("99999999999999999999bps")
            .unwrap_err()
            .contains("too large"));
    }

    #[test]
    fn canonical_format_round_trips() {
        for v in [
            0,
            1,
            999,
            1000,
            1_500_000,
            20_000_000,
            NS_PER_SEC,
            61 * NS_PER_SEC,
        ] {
            assert_eq!(parse_time(&format_time(v)), Ok(v));
        }
        assert_eq!(format_time(20_000_000), "20ms");
        assert_eq!(format_rate(10_000_000), "10Mbps");
        assert_eq!(format_bytes(1500), "1500B");
        assert_eq!(format_bytes(64_000), "64KB");
        // The extremes of the digits written by hand.
        assert_eq!(format_time(0), "0ns");
        assert_eq!(format_bytes(u64::MAX), "18446744073709551615B");
    }

    #[test]
    fn tx_time_rounds_up_to_the_nanosecond() {
        assert_eq!(tx_time(1500, 12_000_000), 1_000_000);
        assert_eq!(tx_time(1, 3_000_000_000), 3); // 8/3 ns -> 3
    }

    /// The u64 shortcut and the u128 path agree on both sides of where it stops.
    #[test]
    fn tx_time_is_exact_on_both_sides_of_its_u64_shortcut() {
        let exact = |b: u32, bps: u64| (b as u128 * 8_000_000_000).div_ceil(bps as u128) as u64;
        for b in [0, 1, 1000, (1 << 31) - 1, 1 << 31, u32::MAX] {
            for bps in [1, 7, 999_999_937, 10_000_000_000, u64::MAX] {
                assert_eq!(tx_time(b, bps), exact(b, bps), "{b} B at {bps} b/s");
            }
        }
    }
}
