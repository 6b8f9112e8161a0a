//! What every spec shares: path-scoped problems, the common range checks, the bounds they
//! use, and the serde helpers for `type`-tagged tables.
//!
//! A spec (the scenario root, an AQM, a loss model) reports each problem with the field
//! path, the offending value and what is allowed, into one [`Problems`]; nothing is clamped.
//! The checks that several specs need (probabilities, times, mean packet sizes) live here
//! once, so their messages cannot drift apart.

use crate::units::{Bytes, Duration, Time};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Deserializer};
use std::fmt;

/// One problem in a scenario: where, what was there, and what is allowed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScenarioError {
    pub path: String,
    pub value: String,
    pub message: String,
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match (self.path.is_empty(), self.value.is_empty()) {
            (true, _) => write!(f, "{}", self.message),
            (false, true) => write!(f, "{}: {}", self.path, self.message),
            (false, false) => write!(f, "{} = {}: {}", self.path, self.value, self.message),
        }
    }
}

/// All the problems found in one scenario (never empty).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScenarioErrors(pub Vec<ScenarioError>);

impl fmt::Display for ScenarioErrors {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        let n = self.0.len();
        if n > 1 {
            writeln!(f, "{n} problems in the scenario:")?;
        }
        for (i, e) in self.0.iter().enumerate() {
            if n > 1 {
                write!(f, "  - ")?;
            }
            write!(f, "{e}")?;
            if i + 1 < n {
                writeln!(f)?;
            }
        }
        Ok(())
    }
}

impl std::error::Error for ScenarioErrors {}

/// serde names Rust types ("invalid value: integer `-1`, expected u32"); a user needs the
/// allowed range ("integer `-1`: must be an integer from 0 to 4294967295").
pub(crate) fn integer_range_message(msg: &str) -> String {
    let Some((what, ty)) = msg.rsplit_once(", expected ") else {
        return msg.to_string();
    };
    let range = match ty {
        "u8" => "from 0 to 255",
        "u16" => "from 0 to 65535",
        "u32" => "from 0 to 4294967295",
        // TOML integers are 64-bit signed: the largest a file can hold.
        "u64" | "usize" => "from 0 to 9223372036854775807",
        "i32" => "from -2147483648 to 2147483647",
        "i64" => "from -9223372036854775808 to 9223372036854775807",
        _ => return msg.to_string(),
    };
    let found = what
        .strip_prefix("invalid value: ")
        .or_else(|| what.strip_prefix("invalid type: "))
        .unwrap_or(what);
    format!("{found}: must be an integer {range}")
}

/// Fields whose allowed integers are narrower than their type's: a value the type cannot
/// hold is answered with what the validator would allow, not with the type's range.
const NARROWER: &[(&str, &str)] = &[
    ("limit_pkts", "must be an integer from 1 to 4294967295"),
    ("schema_version", "must be 1 (the only schema version)"),
];

pub(crate) fn narrower_range(path: &str, message: String) -> String {
    let field = path.rsplit('.').next().unwrap_or(path);
    match (
        message.split_once(": must be an integer "),
        NARROWER.iter().find(|(f, _)| *f == field),
    ) {
        (Some((found, _)), Some((_, allowed))) => format!("{found}: {allowed}"),
        _ => message,
    }
}

/// The largest IP packet, bytes.
pub const MAX_PACKET: u64 = 65_535;
/// Longest accepted time: far below where sums of event times overflow u64 nanoseconds.
pub const MAX_TIME: Time = 1_000_000 * crate::units::NS_PER_SEC;
/// Packet rates: mean gaps are drawn in whole nanoseconds, so a mean gap below 1 ns rounds
/// to 0 and time stops; one above MAX_TIME could overflow the clock.
pub const MAX_PPS: f64 = 1e9;
pub const MIN_PPS: f64 = 1e-6;

/// `{0}[{1}]`, an entry of a list: a path written out only if a problem is reported there.
#[derive(Clone, Copy)]
pub struct Item(pub &'static str, pub usize);

impl fmt::Display for Item {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "{}[{}]", self.0, self.1)
    }
}

/// `{0}.{1}`, a field under a path: written out only if a problem is reported there.
pub struct Field<'a, P: ?Sized>(pub &'a P, pub &'a str);

impl<P: ?Sized> Clone for Field<'_, P> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<P: ?Sized> Copy for Field<'_, P> {}

impl<P: fmt::Display + ?Sized> fmt::Display for Field<'_, P> {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "{}.{}", self.0, self.1)
    }
}

/// The problems found so far, in the order found.
#[derive(Default, Debug)]
pub struct Problems {
    pub errors: Vec<ScenarioError>,
}

impl Problems {
    pub fn err(
        &mut self,
        path: impl Into<String>,
        value: impl fmt::Display,
        message: impl Into<String>,
    ) {
        self.errors.push(ScenarioError {
            path: path.into(),
            value: value.to_string(),
            message: message.into(),
        });
    }

    pub fn is_empty(&self) -> bool {
        self.errors.is_empty()
    }

    pub fn probability(&mut self, path: String, p: f64) {
        if !(p.is_finite() && (0.0..=1.0).contains(&p)) {
            self.err(path, p, "must be a probability in [0, 1]");
        }
    }

    pub fn unit_interval(&mut self, path: String, v: f64) {
        if !(v.is_finite() && (0.0..=1.0).contains(&v)) {
            self.err(path, v, "must be in [0, 1]");
        }
    }

    pub fn time_at_most(&mut self, path: impl fmt::Display, d: Duration) {
        if d.0 > MAX_TIME {
            self.err(
                path.to_string(),
                format!("\"{}\"", crate::units::format_time(d.0)),
                format!(
                    "must be <= \"{}\" (about 11.6 days; keeps event times far from overflow)",
                    crate::units::format_time(MAX_TIME)
                ),
            );
        }
    }

    pub fn positive_time(&mut self, path: String, d: Duration) {
        if d.0 == 0 {
            self.err(path, "\"0ns\"", "must be > 0");
        } else {
            self.time_at_most(path, d);
        }
    }

    /// A packet size field `{a}.{field}` in [1, MAX_PACKET] bytes.
    pub fn packet_size(&mut self, a: &str, field: &str, m: Bytes) {
        if m.0 == 0 || m.0 > MAX_PACKET {
            self.err(
                format!("{a}.{field}"),
                m.0,
                format!("must be in [1, {MAX_PACKET}] bytes"),
            );
        }
    }

    /// The `mean_pktsize` of an AQM at `a` (byte mode's packet unit).
    pub fn mean_pktsize(&mut self, a: &str, m: Bytes) {
        self.packet_size(a, "mean_pktsize", m);
    }
}

// Serde defaults shared by several specs.
pub fn default_true() -> bool {
    true
}
/// Linux's default MTU-sized quantum and CoDel/PIE `mtu` (Ethernet frame, bytes).
pub fn default_mtu() -> Bytes {
    Bytes(1514)
}
/// ns-2's `mean_pktsize` for RED and its relatives, bytes.
pub fn default_mean_pktsize() -> Bytes {
    Bytes(1000)
}

/// Marks an inner path inside a serde error message so `spec::parse` can splice it into
/// the path.
pub const INNER: char = '\u{1}';

/// Splits a `type`-tagged table into its tag (one of `types`) and the remaining fields.
pub fn tagged_table<'de, D: Deserializer<'de>>(
    d: D,
    types: &[&str],
) -> Result<(String, toml::Table), D::Error> {
    use serde::de::Error;
    let mut t = toml::Table::deserialize(d)?;
    let allowed = types
        .iter()
        .map(|t| format!("\"{t}\""))
        .collect::<Vec<_>>()
        .join(", ");
    match t.remove("type") {
        None => Err(D::Error::custom(format!(
            "missing field `type`; expected one of {allowed}"
        ))),
        Some(toml::Value::String(s)) if types.contains(&s.as_str()) => Ok((s, t)),
        Some(v) => Err(D::Error::custom(format!(
            "{INNER}type{INNER}{v}{INNER}unknown type; expected one of {allowed}"
        ))),
    }
}

/// A parse error that names the offending value, as a validation problem does, at the
/// field being read (`inner` writes its path in).
pub fn invalid_value<E: serde::de::Error>(
    value: impl fmt::Display,
    message: impl fmt::Display,
) -> E {
    E::custom(format!("{INNER}{INNER}{value}{INNER}{message}"))
}

/// Deserializes the fields of a tagged table, keeping the path of an inner error.
pub fn inner<T: DeserializeOwned, E: serde::de::Error>(t: toml::Table) -> Result<T, E> {
    serde_path_to_error::deserialize(toml::Value::Table(t)).map_err(|e| {
        let path = e.path().to_string();
        let msg = e.into_inner().message().trim().to_string();
        // An error from a nested tagged table already carries its own inner marker, and
        // one from `invalid_value` a marker with no path.
        match msg.strip_prefix(INNER) {
            Some(rest) => {
                let (p2, rest) = rest.split_once(INNER).unwrap_or(("", rest));
                let joined = match (path.as_str(), p2) {
                    (".", p2) => p2.to_string(),
                    (path, "") => path.to_string(),
                    (path, p2) => format!("{path}.{p2}"),
                };
                E::custom(format!("{INNER}{joined}{INNER}{rest}"))
            }
            None => E::custom(format!("{INNER}{path}{INNER}{INNER}{msg}")),
        }
    })
}

/// Declares an AQM spec with, after its own fields, the three that every AQM measuring its
/// queue in packets or bytes shares: `byte_mode`, `mean_pktsize` and `ecn` (their checks are
/// `Problems::mean_pktsize`). A macro, not `#[serde(flatten)]`, because flatten cannot be
/// combined with `deny_unknown_fields`. `defaults(mean_pktsize = "f", ecn = "g")` before
/// the struct names other default functions than 1000 B and false.
macro_rules! packet_spec {
    (
        defaults(mean_pktsize = $mp:literal, ecn = $ecn:literal)
        $(#[$m:meta])* pub struct $name:ident { $($body:tt)* }
    ) => {
        $(#[$m])*
        pub struct $name {
            $($body)*
            /// Queue in bytes: thresholds and lengths in units of `mean_pktsize`, and
            /// probabilities scaled by packet size, as the algorithm's page says.
            #[serde(default)]
            pub byte_mode: bool,
            /// The mean packet size (bytes) for byte mode and for idle-time estimates.
            #[serde(default = $mp)]
            pub mean_pktsize: crate::units::Bytes,
            /// Mark ECN-capable packets instead of dropping them.
            #[serde(default = $ecn)]
            pub ecn: bool,
        }
    };
    ($(#[$m:meta])* pub struct $name:ident { $($body:tt)* }) => {
        crate::check::packet_spec! {
            defaults(
                mean_pktsize = "crate::check::default_mean_pktsize",
                ecn = "crate::check::default_false"
            )
            $(#[$m])* pub struct $name { $($body)* }
        }
    };
}
pub(crate) use packet_spec;

pub fn default_false() -> bool {
    false
}
