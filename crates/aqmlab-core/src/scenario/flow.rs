//! A flow's part of the scenario: the `[[flows]]` table, a tagged table whose `type`
//! selects the traffic's own spec (`Traffic`: a UDP source's or a TCP connection's,
//! `flow_tcp::TcpSpec`) beside the fields every flow has; the open-loop sources' checks.
//!
//! A field of another flow type is refused where the table is read, as any tagged table's
//! unknown key is, with the type's own fields listed.

pub use super::flow_tcp::{
    tcp_defaults, DupackResponse, FrTimer, Halving, PartialAck, RecoverGuard, Recovery, RttRule,
    TcpSpec, Variant,
};
pub use super::probe::ProbeSpec;
use crate::check::{inner, Problems, INNER, MAX_PPS, MIN_PPS};
use crate::packet::Ecn;
use crate::units::{Bytes, Duration, Rate};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FlowKind {
    /// Constant bit rate UDP.
    Cbr,
    /// Poisson packet arrivals.
    Poisson,
    /// On/off UDP: CBR at `rate` during on periods.
    Onoff,
    /// A TCP connection (bulk, or finite with `bytes`).
    Tcp,
    /// A latency probe: UDP echo requests at a fixed interval, answered by the destination.
    Probe,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SizeDist {
    Fixed,
    /// Exponential with mean `packet_size`, rounded to the nearest byte, at least 1 byte.
    Exponential,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PeriodDist {
    Exponential,
    Pareto,
}

/// The ECN-capable codepoint a flow sends (RFC 3168 §5, RFC 9331 §4): ECT(0), or ECT(1),
/// which L4S AQMs classify as scalable traffic; classic AQMs treat both alike.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Ect {
    Ect0,
    Ect1,
}

/// A traffic flow from one host to another: the fields every flow has, and its type's.
#[derive(Clone, Debug, PartialEq)]
pub struct FlowSpec {
    pub name: String,
    pub src: String,
    pub dst: String,
    pub packet_size: Bytes,
    pub start: Duration,
    /// Defaults to the end of the run.
    pub stop: Option<Duration>,
    /// Send packets ECN-capable (ECT(0), or `ect`'s codepoint).
    pub ecn: bool,
    /// With `ecn`: the codepoint (unset: ECT(0)).
    pub ect: Option<Ect>,
    /// The `type` and its own fields.
    pub traffic: Traffic,
}

/// A flow's type with its own fields.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Traffic {
    Cbr(CbrSpec),
    Poisson(PoissonSpec),
    Onoff(OnoffSpec),
    Tcp(TcpSpec),
    Probe(ProbeSpec),
}

/// Constant bit rate UDP at `rate` (required).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CbrSpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate: Option<Rate>,
}

/// Poisson packet arrivals at `rate` or `pkt_rate` (one of them).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PoissonSpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate: Option<Rate>,
    /// Mean packets per second (exclusive with rate).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pkt_rate: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size_dist: Option<SizeDist>,
}

/// On/off UDP: CBR at `rate` during on periods of mean `on_time`, silent for `off_time`;
/// exponential or Pareto periods (`shape`, Pareto only).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OnoffSpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate: Option<Rate>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub on_time: Option<Duration>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub off_time: Option<Duration>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub period_dist: Option<PeriodDist>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shape: Option<f64>,
}

/// The fields every flow type has, in the table's canonical order (`type` after `name`).
const COMMON: &[&str] = &[
    "name",
    "src",
    "dst",
    "packet_size",
    "start",
    "stop",
    "ecn",
    "ect",
];

impl Ect {
    pub fn name(self) -> &'static str {
        match self {
            Ect::Ect0 => "ect0",
            Ect::Ect1 => "ect1",
        }
    }

    /// The packets' codepoint.
    pub fn codepoint(self) -> Ecn {
        match self {
            Ect::Ect0 => Ecn::Ect0,
            Ect::Ect1 => Ecn::Ect1,
        }
    }
}

impl FlowSpec {
    /// The codepoint its packets leave with: Not-ECT without `ecn`.
    pub fn codepoint(&self) -> Ecn {
        match (self.ecn, self.ect) {
            (false, _) => Ecn::NotEct,
            (true, Some(Ect::Ect1)) => Ecn::Ect1,
            (true, _) => Ecn::Ect0,
        }
    }
}

impl FlowKind {
    pub const ALL: [FlowKind; 5] = [
        FlowKind::Cbr,
        FlowKind::Poisson,
        FlowKind::Onoff,
        FlowKind::Tcp,
        FlowKind::Probe,
    ];

    pub fn name(self) -> &'static str {
        match self {
            FlowKind::Cbr => "cbr",
            FlowKind::Poisson => "poisson",
            FlowKind::Onoff => "onoff",
            FlowKind::Tcp => "tcp",
            FlowKind::Probe => "probe",
        }
    }

    /// The type's own fields, in its spec's order.
    pub fn fields(self) -> &'static [&'static str] {
        match self {
            FlowKind::Cbr => &["rate"],
            FlowKind::Poisson => &["rate", "pkt_rate", "size_dist"],
            FlowKind::Onoff => &["rate", "on_time", "off_time", "period_dist", "shape"],
            FlowKind::Tcp => TcpSpec::FIELDS,
            FlowKind::Probe => ProbeSpec::FIELDS,
        }
    }
}

/// Every key a flow table may have, as serde lists them for an unknown one.
fn every_field() -> Vec<&'static str> {
    let mut all = vec!["name", "type"];
    all.extend(&COMMON[1..]);
    for k in FlowKind::ALL {
        for f in k.fields() {
            if !all.contains(f) {
                all.push(f);
            }
        }
    }
    all
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Common {
    name: String,
    src: String,
    dst: String,
    packet_size: Bytes,
    #[serde(default = "super::zero")]
    start: Duration,
    #[serde(default)]
    stop: Option<Duration>,
    #[serde(default)]
    ecn: bool,
    #[serde(default)]
    ect: Option<Ect>,
}

#[derive(Deserialize)]
struct Tag {
    #[serde(rename = "type")]
    kind: FlowKind,
}

impl<'de> Deserialize<'de> for FlowSpec {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        let mut rest = toml::Table::deserialize(d)?;
        let mut tag = toml::Table::new();
        if let Some(v) = rest.remove("type") {
            tag.insert("type".into(), v);
        }
        let kind = inner::<Tag, D::Error>(tag)?.kind;
        let mut common = toml::Table::new();
        for key in COMMON {
            if let Some(v) = rest.remove(*key) {
                common.insert((*key).into(), v);
            }
        }
        let own = kind.fields();
        if let Some(key) = rest.keys().find(|k| !own.contains(&k.as_str())) {
            let message = if FlowKind::ALL
                .iter()
                .any(|k| k.fields().contains(&key.as_str()))
            {
                format!(
                    "not a field of type = \"{}\"; its fields are {}",
                    kind.name(),
                    own.join(", ")
                )
            } else {
                let all = every_field()
                    .iter()
                    .map(|f| format!("`{f}`"))
                    .collect::<Vec<_>>();
                format!("unknown field `{key}`, expected one of {}", all.join(", "))
            };
            return Err(D::Error::custom(format!(
                "{INNER}{key}{INNER}{INNER}{message}"
            )));
        }
        let c = inner::<Common, D::Error>(common)?;
        let traffic = match kind {
            FlowKind::Cbr => Traffic::Cbr(inner::<_, D::Error>(rest)?),
            FlowKind::Poisson => Traffic::Poisson(inner::<_, D::Error>(rest)?),
            FlowKind::Onoff => Traffic::Onoff(inner::<_, D::Error>(rest)?),
            FlowKind::Tcp => Traffic::Tcp(inner::<_, D::Error>(rest)?),
            FlowKind::Probe => Traffic::Probe(inner::<_, D::Error>(rest)?),
        };
        Ok(FlowSpec {
            name: c.name,
            src: c.src,
            dst: c.dst,
            packet_size: c.packet_size,
            start: c.start,
            stop: c.stop,
            ecn: c.ecn,
            ect: c.ect,
            traffic,
        })
    }
}

impl Serialize for FlowSpec {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct Wire<'a> {
            name: &'a str,
            #[serde(rename = "type")]
            kind: FlowKind,
            src: &'a str,
            dst: &'a str,
            packet_size: &'a Bytes,
            start: &'a Duration,
            #[serde(skip_serializing_if = "Option::is_none")]
            stop: &'a Option<Duration>,
            ecn: bool,
            #[serde(skip_serializing_if = "Option::is_none")]
            ect: &'a Option<Ect>,
            #[serde(flatten)]
            traffic: &'a Traffic,
        }
        Wire {
            name: &self.name,
            kind: self.kind(),
            src: &self.src,
            dst: &self.dst,
            packet_size: &self.packet_size,
            start: &self.start,
            stop: &self.stop,
            ecn: self.ecn,
            ect: &self.ect,
            traffic: &self.traffic,
        }
        .serialize(s)
    }
}

/// An open-loop source's pattern with every field resolved: what `validate()` hands the
/// simulator, so that building a source needs no fallback for a missing field.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum OpenLoop {
    Cbr {
        bps: u64,
    },
    /// `pps` from `pkt_rate`, or from `rate` at the flow's packet size.
    Poisson {
        pps: f64,
        exp_sizes: bool,
    },
    /// Mean on and off periods in nanoseconds; `shape` is 0 for exponential periods.
    OnOff {
        bps: u64,
        on_mean_ns: f64,
        off_mean_ns: f64,
        dist: PeriodDist,
        shape: f64,
    },
    /// A probe's requests, one every `interval_ns`, carrying `precedence`.
    Probe {
        interval_ns: u64,
        precedence: u8,
    },
}

impl FlowSpec {
    pub fn kind(&self) -> FlowKind {
        match self.traffic {
            Traffic::Cbr(_) => FlowKind::Cbr,
            Traffic::Poisson(_) => FlowKind::Poisson,
            Traffic::Onoff(_) => FlowKind::Onoff,
            Traffic::Tcp(_) => FlowKind::Tcp,
            Traffic::Probe(_) => FlowKind::Probe,
        }
    }

    /// The TCP connection's fields, or None for an open-loop source.
    pub fn tcp(&self) -> Option<&TcpSpec> {
        match &self.traffic {
            Traffic::Tcp(t) => Some(t),
            _ => None,
        }
    }

    /// Whether the flow's TCP state is traced (`trace = true`).
    pub fn traced(&self) -> bool {
        self.tcp().is_some_and(|t| t.trace == Some(true))
    }

    /// The resolved pattern of an open-loop flow: `Some(None)` for TCP, `None` when a
    /// required field is missing (which `check_kind` reports).
    pub(crate) fn open_loop(&self) -> Option<Option<OpenLoop>> {
        Some(Some(match &self.traffic {
            Traffic::Tcp(_) => return Some(None),
            Traffic::Probe(f) => OpenLoop::Probe {
                interval_ns: f.interval_ns(),
                precedence: f.precedence.unwrap_or(0),
            },
            Traffic::Cbr(f) => OpenLoop::Cbr { bps: f.rate?.0 },
            Traffic::Poisson(f) => OpenLoop::Poisson {
                pps: match (f.rate, f.pkt_rate) {
                    (_, Some(x)) => x,
                    (Some(r), None) => r.0 as f64 / (8.0 * self.packet_size.0 as f64),
                    (None, None) => return None,
                },
                exp_sizes: f.size_dist == Some(SizeDist::Exponential),
            },
            Traffic::Onoff(f) => OpenLoop::OnOff {
                bps: f.rate?.0,
                on_mean_ns: f.on_time?.0 as f64,
                off_mean_ns: f.off_time?.0 as f64,
                dist: f.period_dist.unwrap_or(PeriodDist::Exponential),
                shape: f.shape.unwrap_or(0.0),
            },
        }))
    }

    /// The checks of the type's own fields (which fields it has was checked when read).
    pub(crate) fn check_kind(&self, p: &str, pr: &mut Problems) {
        if let (Some(e), false) = (self.ect, self.ecn) {
            pr.err(
                format!("{p}.ect"),
                format!("\"{}\"", e.name()),
                "only meaningful with ecn = true",
            );
        }
        let kind = self.kind().name();
        let packet_size = self.packet_size;
        let rate = match &self.traffic {
            Traffic::Tcp(t) => return t.check(self.ecn, self.ect.map(Ect::codepoint), p, pr),
            Traffic::Probe(f) => return f.check(p, pr),
            Traffic::Cbr(f) => f.rate,
            Traffic::Poisson(f) => f.rate,
            Traffic::Onoff(f) => f.rate,
        };
        let required = |v: &mut Problems, field: &str, is: bool| {
            if !is {
                v.err(
                    format!("{p}.{field}"),
                    "",
                    format!("required for type = \"{kind}\""),
                );
            }
        };
        if let Some(r) = rate {
            if r.0 == 0 {
                pr.err(format!("{p}.rate"), "\"0bps\"", "must be > 0");
            }
        }
        match &self.traffic {
            Traffic::Tcp(_) | Traffic::Probe(_) => {}
            Traffic::Cbr(_) => required(pr, "rate", rate.is_some()),
            Traffic::Poisson(f) => match (f.rate, f.pkt_rate) {
                (Some(_), Some(_)) => pr.err(
                    format!("{p}.pkt_rate"),
                    f.pkt_rate.unwrap_or(0.0),
                    "rate and pkt_rate are mutually exclusive; give one",
                ),
                (None, None) => pr.err(
                    format!("{p}.rate"),
                    "",
                    "one of rate or pkt_rate is required for type = \"poisson\"",
                ),
                (None, Some(x)) if !(x.is_finite() && (MIN_PPS..=MAX_PPS).contains(&x)) => pr.err(
                    format!("{p}.pkt_rate"),
                    x,
                    "must be a finite number in [1e-6, 1e9] packets per second \
                         (a mean gap of 1 ns to 1000000 s)",
                ),
                (Some(r), None) if packet_size.0 > 0 => {
                    let pps = r.0 as f64 / (8.0 * packet_size.0 as f64);
                    if pps > MAX_PPS {
                        pr.err(
                            format!("{p}.rate"),
                            format!("\"{}\"", crate::units::format_rate(r.0)),
                            format!(
                                "gives {pps:e} packets per second at packet_size = {} B; \
                                 a poisson flow may send at most 1e9 (a mean gap of 1 ns)",
                                packet_size.0
                            ),
                        );
                    }
                }
                _ => {}
            },
            Traffic::Onoff(f) => {
                required(pr, "rate", f.rate.is_some());
                required(pr, "on_time", f.on_time.is_some());
                required(pr, "off_time", f.off_time.is_some());
                for (field, d) in [("on_time", f.on_time), ("off_time", f.off_time)] {
                    if d == Some(Duration(0)) {
                        pr.err(
                            format!("{p}.{field}"),
                            "\"0ns\"",
                            "must be > 0 (a mean duration)",
                        );
                    }
                    if let Some(d) = d {
                        pr.time_at_most(format!("{p}.{field}"), d);
                    }
                }
                match (f.period_dist.unwrap_or(PeriodDist::Exponential), f.shape) {
                    (PeriodDist::Pareto, None) => pr.err(
                        format!("{p}.shape"),
                        "",
                        "required when period_dist = \"pareto\"",
                    ),
                    (PeriodDist::Pareto, Some(a)) if !(a.is_finite() && a > 1.0) => pr.err(
                        format!("{p}.shape"),
                        a,
                        "must be a finite number > 1 (the Pareto mean is infinite otherwise)",
                    ),
                    (PeriodDist::Exponential, Some(_)) => pr.err(
                        format!("{p}.shape"),
                        "",
                        "only used with period_dist = \"pareto\"",
                    ),
                    _ => {}
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each type's `fields()` list is its spec's own: serde's list for an unknown key.
    #[test]
    fn each_flow_types_field_list_is_its_specs() {
        fn serde_list<T: serde::de::DeserializeOwned + std::fmt::Debug>() -> Vec<String> {
            let mut t = toml::Table::new();
            t.insert("zzz".into(), toml::Value::Integer(1));
            let e = inner::<T, toml::de::Error>(t).unwrap_err().to_string();
            let list = e.split("expected").nth(1).unwrap_or_default().to_string();
            list.split('`')
                .skip(1)
                .step_by(2)
                .map(String::from)
                .collect()
        }
        for (kind, list) in [
            (FlowKind::Cbr, serde_list::<CbrSpec>()),
            (FlowKind::Poisson, serde_list::<PoissonSpec>()),
            (FlowKind::Onoff, serde_list::<OnoffSpec>()),
            (FlowKind::Tcp, serde_list::<TcpSpec>()),
            (FlowKind::Probe, serde_list::<ProbeSpec>()),
        ] {
            assert_eq!(kind.fields(), list, "{kind:?}");
        }
    }
}
