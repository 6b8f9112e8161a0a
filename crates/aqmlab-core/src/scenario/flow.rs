//! A flow's part of the scenario: the `[[flows]]` table (UDP sources and TCP connections),
//! its enums and TCP defaults, and the checks of the fields each flow type allows.

use crate::check::{Problems, MAX_PACKET, MAX_PPS, MIN_PPS};
use crate::tcp::congestion::CongestionSpec;
// The TCP fields' enums are the engine's own (`tcp::options`, `tcp::rtt`,
// `tcp::congestion::reno`): a scenario's value is the sender's, mapped by nothing.
pub use crate::tcp::options::{FrTimer, PartialAck, RecoverGuard, Recovery, Variant};
pub use crate::tcp::{DupackResponse, Halving, RttRule};
use crate::units::{Bytes, Duration, Rate};
use serde::{Deserialize, Serialize};

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

/// A traffic flow from one host to another. Which fields apply depends on `type`:
/// cbr: rate; poisson: rate or pkt_rate, size_dist; onoff: rate, on_time, off_time,
/// period_dist, shape (pareto only).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FlowSpec {
    pub name: String,
    #[serde(rename = "type")]
    pub kind: FlowKind,
    pub src: String,
    pub dst: String,
    pub packet_size: Bytes,
    #[serde(default = "super::zero")]
    pub start: Duration,
    /// Defaults to the end of the run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop: Option<Duration>,
    /// Send packets ECN-capable (ECT(0)).
    #[serde(default)]
    pub ecn: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate: Option<Rate>,
    /// Mean packets per second (poisson only; exclusive with rate).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pkt_rate: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size_dist: Option<SizeDist>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub on_time: Option<Duration>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub off_time: Option<Duration>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub period_dist: Option<PeriodDist>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shape: Option<f64>,
    /// TCP (type = "tcp") fields; defaults in `TcpDefaults` (ns-2's, see docs/tcp.md).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub variant: Option<Variant>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bytes: Option<Bytes>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ack_size: Option<Bytes>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_window: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub initial_cwnd: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delayed_ack: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delack_timeout: Option<Duration>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_rto: Option<Duration>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub initial_rto: Option<Duration>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_rto: Option<Duration>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub granularity: Option<Duration>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dupack_response: Option<DupackResponse>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recovery: Option<Recovery>,
    /// NewReno with classic recovery only: RFC 6582's partial-ACK rules (default), ns-2.35's
    /// or ns-2's of 2001.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub partial_ack: Option<PartialAck>,
    /// How a loss halves the window: RFC 5681's FlightSize / 2 (default) or ns-2's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub halving: Option<Halving>,
    /// "keep" (RFC 6298, default) or "restart": the fast retransmit restarts the timer, as
    /// ns-2 does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fr_timer: Option<FrTimer>,
    /// The guard on a fast retransmit after a recovery or timeout: "rfc6582" (default) or
    /// "ns3.44" (`RecoverGuard`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recover_guard: Option<RecoverGuard>,
    /// The timer's estimator: RFC 6298's (default) or ns-2's on its `granularity` ticks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rtt_estimator: Option<RttRule>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limited_transmit: Option<bool>,
    /// Send retransmissions ECT(0) too, as ns-2 does (default false: Not-ECT, RFC 3168
    /// §6.1.5, ns-3); only with `ecn = true`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ecn_retransmits: Option<bool>,
    /// ns-2's ECN response (`TcpAgent::ecn`, `slowdown`): the window halves to ⌊w/2⌋,
    /// down to 1 or 0 (0: wait for the retransmission timer), and a further mark at a
    /// window of 1 doubles the timer's backoff (RFC 3168 §6.1.2's rule for a window of
    /// one). Default false: ssthresh = cwnd = max(FlightSize/2, 2), as Linux and ns-3.
    /// Only with `ecn = true`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ecn_backoff: Option<bool>,
    /// Record cwnd, ssthresh and smoothed RTT at every sample (TCP only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trace: Option<bool>,
    /// The congestion controller, a table tagged by `type` (the registry in
    /// `tcp::congestion`): `{ type = "reno" }` (the default when absent) or
    /// `{ type = "cubic", c, beta, fast_convergence }` (RFC 9438) or
    /// `{ type = "dctcp", g, initial_alpha }` (RFC 8257; needs `ecn = true`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub congestion: Option<CongestionSpec>,
    /// Pace the segments (`tcp::pacing`): at the controller's rate, or at Linux's default
    /// (2·cwnd/SRTT in slow start, 1.2·cwnd/SRTT after) for one without (Reno, CUBIC).
    /// Default false: ACK-clocked. BBR always paces (`false` is refused with it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pacing: Option<bool>,
}

/// Defaults of the TCP fields: ns-2.35's (`tcl/lib/ns-default.tcl`), except `max_window`,
/// whose ns-2 default of 20 segments silently caps throughput on any modern path.
pub mod tcp_defaults {
    use crate::units::{Time, NS_PER_SEC};
    pub const ACK_SIZE: u64 = 40;
    pub const MAX_WINDOW: u32 = 10_000;
    pub const INITIAL_CWND: f64 = 2.0;
    pub const DELACK_TIMEOUT: Time = NS_PER_SEC / 10;
    pub const MIN_RTO: Time = NS_PER_SEC / 5;
    pub const INITIAL_RTO: Time = 3 * NS_PER_SEC;
    pub const MAX_RTO: Time = 60 * NS_PER_SEC;
    pub const GRANULARITY: Time = NS_PER_SEC / 100;
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
}

impl FlowSpec {
    /// The resolved pattern of an open-loop flow: `Some(None)` for TCP, `None` when a
    /// required field is missing (which `check_kind` reports).
    pub(crate) fn open_loop(&self) -> Option<Option<OpenLoop>> {
        Some(Some(match self.kind {
            FlowKind::Tcp => return Some(None),
            FlowKind::Cbr => OpenLoop::Cbr { bps: self.rate?.0 },
            FlowKind::Poisson => OpenLoop::Poisson {
                pps: match (self.rate, self.pkt_rate) {
                    (_, Some(x)) => x,
                    (Some(r), None) => r.0 as f64 / (8.0 * self.packet_size.0 as f64),
                    (None, None) => return None,
                },
                exp_sizes: self.size_dist == Some(SizeDist::Exponential),
            },
            FlowKind::Onoff => OpenLoop::OnOff {
                bps: self.rate?.0,
                on_mean_ns: self.on_time?.0 as f64,
                off_mean_ns: self.off_time?.0 as f64,
                dist: self.period_dist.unwrap_or(PeriodDist::Exponential),
                shape: self.shape.unwrap_or(0.0),
            },
        }))
    }

    pub(crate) fn check_kind(&self, p: &str, pr: &mut Problems) {
        let f = self;
        let kind = match f.kind {
            FlowKind::Cbr => "cbr",
            FlowKind::Poisson => "poisson",
            FlowKind::Onoff => "onoff",
            FlowKind::Tcp => "tcp",
        };
        let present = [
            ("rate", f.rate.is_some()),
            ("pkt_rate", f.pkt_rate.is_some()),
            ("size_dist", f.size_dist.is_some()),
            ("on_time", f.on_time.is_some()),
            ("off_time", f.off_time.is_some()),
            ("period_dist", f.period_dist.is_some()),
            ("shape", f.shape.is_some()),
            ("variant", f.variant.is_some()),
            ("bytes", f.bytes.is_some()),
            ("ack_size", f.ack_size.is_some()),
            ("max_window", f.max_window.is_some()),
            ("initial_cwnd", f.initial_cwnd.is_some()),
            ("delayed_ack", f.delayed_ack.is_some()),
            ("delack_timeout", f.delack_timeout.is_some()),
            ("min_rto", f.min_rto.is_some()),
            ("initial_rto", f.initial_rto.is_some()),
            ("max_rto", f.max_rto.is_some()),
            ("granularity", f.granularity.is_some()),
            ("dupack_response", f.dupack_response.is_some()),
            ("recovery", f.recovery.is_some()),
            ("partial_ack", f.partial_ack.is_some()),
            ("halving", f.halving.is_some()),
            ("fr_timer", f.fr_timer.is_some()),
            ("recover_guard", f.recover_guard.is_some()),
            ("rtt_estimator", f.rtt_estimator.is_some()),
            ("limited_transmit", f.limited_transmit.is_some()),
            ("ecn_retransmits", f.ecn_retransmits.is_some()),
            ("ecn_backoff", f.ecn_backoff.is_some()),
            ("trace", f.trace.is_some()),
            ("congestion", f.congestion.is_some()),
            ("pacing", f.pacing.is_some()),
        ];
        let allowed: &[&str] = match f.kind {
            FlowKind::Cbr => &["rate"],
            FlowKind::Poisson => &["rate", "pkt_rate", "size_dist"],
            FlowKind::Onoff => &["rate", "on_time", "off_time", "period_dist", "shape"],
            FlowKind::Tcp => &[
                "variant",
                "bytes",
                "ack_size",
                "max_window",
                "initial_cwnd",
                "delayed_ack",
                "delack_timeout",
                "min_rto",
                "initial_rto",
                "max_rto",
                "granularity",
                "dupack_response",
                "recovery",
                "partial_ack",
                "halving",
                "fr_timer",
                "recover_guard",
                "rtt_estimator",
                "limited_transmit",
                "ecn_retransmits",
                "ecn_backoff",
                "trace",
                "congestion",
                "pacing",
            ],
        };
        for (field, is) in present {
            if is && !allowed.contains(&field) {
                pr.err(
                    format!("{p}.{field}"),
                    "",
                    format!(
                        "not a field of type = \"{kind}\"; its fields are {}",
                        allowed.join(", ")
                    ),
                );
            }
        }
        let required = |v: &mut Problems, field: &str, is: bool| {
            if !is {
                v.err(
                    format!("{p}.{field}"),
                    "",
                    format!("required for type = \"{kind}\""),
                );
            }
        };
        if let Some(r) = f.rate {
            if r.0 == 0 {
                pr.err(format!("{p}.rate"), "\"0bps\"", "must be > 0");
            }
        }
        match f.kind {
            FlowKind::Tcp => f.check_tcp(p, pr),
            FlowKind::Cbr => required(pr, "rate", f.rate.is_some()),
            FlowKind::Poisson => match (f.rate, f.pkt_rate) {
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
                (Some(r), None) if f.packet_size.0 > 0 => {
                    let pps = r.0 as f64 / (8.0 * f.packet_size.0 as f64);
                    if pps > MAX_PPS {
                        pr.err(
                            format!("{p}.rate"),
                            format!("\"{}\"", crate::units::format_rate(r.0)),
                            format!(
                                "gives {pps:e} packets per second at packet_size = {} B; \
                                 a poisson flow may send at most 1e9 (a mean gap of 1 ns)",
                                f.packet_size.0
                            ),
                        );
                    }
                }
                _ => {}
            },
            FlowKind::Onoff => {
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

    fn check_tcp(&self, p: &str, pr: &mut Problems) {
        let f = self;
        use tcp_defaults as d;
        if let Some(b) = f.bytes {
            if b.0 == 0 {
                pr.err(
                    format!("{p}.bytes"),
                    0,
                    "must be at least 1 (omit it for a bulk transfer)",
                );
            }
        }
        if let Some(a) = f.ack_size {
            if a.0 == 0 || a.0 > MAX_PACKET {
                pr.err(
                    format!("{p}.ack_size"),
                    a.0,
                    format!("must be in [1, {MAX_PACKET}] bytes"),
                );
            }
        }
        if f.max_window == Some(0) {
            pr.err(format!("{p}.max_window"), 0, "must be at least 1 segment");
        }
        if let Some(w) = f.initial_cwnd {
            if !(w.is_finite() && w >= 1.0) {
                pr.err(
                    format!("{p}.initial_cwnd"),
                    w,
                    "must be a finite number >= 1 (segments)",
                );
            }
        }
        if f.delack_timeout.is_some() && f.delayed_ack != Some(true) {
            pr.err(
                format!("{p}.delack_timeout"),
                "",
                "only used with delayed_ack = true",
            );
        }
        for (field, on) in [
            ("ecn_retransmits", f.ecn_retransmits),
            ("ecn_backoff", f.ecn_backoff),
        ] {
            if on == Some(true) && !f.ecn {
                pr.err(
                    format!("{p}.{field}"),
                    "true",
                    "only meaningful with ecn = true",
                );
            }
        }
        if f.partial_ack.is_some() && f.variant.is_some_and(|v| v != Variant::NewReno) {
            pr.err(
                format!("{p}.partial_ack"),
                "",
                "only used with variant = \"newreno\" (NewReno's partial-ACK rules)",
            );
        }
        if f.partial_ack.is_some_and(|r| r != PartialAck::Rfc6582)
            && f.recovery.is_some_and(|r| r != Recovery::Classic)
        {
            pr.err(
                format!("{p}.partial_ack"),
                "",
                "ns-2's rules need recovery = \"classic\" (PRR sets the window itself)",
            );
        }
        if f.delack_timeout == Some(Duration(0)) {
            pr.err(format!("{p}.delack_timeout"), "\"0ns\"", "must be > 0");
        }
        let min_rto = f.min_rto.map_or(d::MIN_RTO, |x| x.0);
        let max_rto = f.max_rto.map_or(d::MAX_RTO, |x| x.0);
        let initial_rto = f.initial_rto.map_or(d::INITIAL_RTO, |x| x.0);
        for (field, v) in [
            ("min_rto", f.min_rto),
            ("initial_rto", f.initial_rto),
            ("max_rto", f.max_rto),
            ("granularity", f.granularity),
        ] {
            if let Some(v) = v {
                pr.time_at_most(format!("{p}.{field}"), v);
                if v.0 == 0 && field != "granularity" {
                    pr.err(format!("{p}.{field}"), "\"0ns\"", "must be > 0");
                }
            }
        }
        if let Some(cc) = &f.congestion {
            cc.validate(&format!("{p}.congestion"), pr);
            super::flow_bbr::check(f, cc, p, pr);
            // `halving` and `ecn_backoff` are Reno's (ns-2's) too, but a profile fills them
            // in for every TCP flow: CUBIC does not read them.
            if cc.kind() == "dctcp" && f.ecn_retransmits == Some(false) {
                pr.err(
                    format!("{p}.ecn_retransmits"),
                    "false",
                    "DCTCP sends every segment ECT(0), retransmissions included (Linux); \
                     omit it or set true",
                );
            }
            if cc.kind() == "dctcp" && !f.ecn {
                pr.err(
                    format!("{p}.ecn"),
                    "false",
                    "congestion type = \"dctcp\" needs ecn = true (RFC 8257: DCTCP reacts to \
                     the fraction of marked data)",
                );
            }
            if cc.kind() != "reno" && f.dupack_response == Some(DupackResponse::RetransmitOnly) {
                pr.err(
                    format!("{p}.dupack_response"),
                    "\"retransmit_only\"",
                    format!(
                        "only used with congestion type = \"reno\" (got \"{}\")",
                        cc.kind()
                    ),
                );
            }
        }
        let fmt = crate::units::format_time;
        if min_rto > max_rto {
            pr.err(
                format!("{p}.min_rto"),
                format!("\"{}\"", fmt(min_rto)),
                format!("must be <= max_rto = \"{}\"", fmt(max_rto)),
            );
        }
        if initial_rto > max_rto {
            pr.err(
                format!("{p}.initial_rto"),
                format!("\"{}\"", fmt(initial_rto)),
                format!("must be <= max_rto = \"{}\"", fmt(max_rto)),
            );
        }
    }
}
