//! A TCP flow's own fields (`type = "tcp"` in `[[flows]]`): the connection's loss
//! recovery, timer and ECN options, its congestion controller, and their checks.

use crate::check::{Problems, MAX_PACKET};
use crate::packet::Ecn;
use crate::tcp::congestion::CongestionSpec;
// The TCP fields' enums are the engine's own (`tcp::options`, `tcp::rtt`,
// `tcp::congestion::reno`): a scenario's value is the sender's, mapped by nothing.
pub use crate::tcp::options::{FrTimer, PartialAck, RecoverGuard, Recovery, Variant};
pub use crate::tcp::{DupackResponse, Halving, RttRule};
use crate::units::{Bytes, Duration};
use serde::{Deserialize, Serialize};

/// A TCP connection, bulk or finite (`bytes`); every field is optional, with the defaults
/// of `tcp_defaults` (ns-2's, see docs/tcp.md) or of a profile.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TcpSpec {
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
    /// `{ type = "dctcp", g, initial_alpha }` (RFC 8257; needs `ecn = true`) or
    /// `{ type = "prague", ... }` (needs `ecn = true` and `ect = "ect1"`).
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

impl TcpSpec {
    /// The table's keys, in the struct's order (`flow`'s misplaced-field message; a test
    /// checks them against serde's own list).
    pub const FIELDS: &'static [&'static str] = &[
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
    ];

    /// `ecn` and `ect` are the flow's (every flow type has them; the TCP options depending
    /// on them are here): `ect` the codepoint the flow names, None when it names none.
    pub(crate) fn check(&self, ecn: bool, ect: Option<Ecn>, p: &str, pr: &mut Problems) {
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
            if on == Some(true) && !ecn {
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
        if f.recovery == Some(Recovery::PrrNs3_44) && f.variant != Some(Variant::Sack) {
            pr.err(
                format!("{p}.recovery"),
                "\"prr_ns3.44\"",
                "ns-3.44's PRR accounting is modelled with SACK only: set variant = \"sack\"",
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
            check_bbr(f, cc, p, pr);
            check_prague(f, cc, (ecn, ect), p, pr);
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
            if cc.kind() == "dctcp" && !ecn {
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

/// The flow fields that cannot apply with a rate-based controller (BBR): it always paces,
/// and sets the window in recovery itself (Linux's `cong_control` replaces PRR).
fn check_bbr(f: &TcpSpec, cc: &CongestionSpec, p: &str, pr: &mut Problems) {
    if cc.kind() != "bbr" {
        return;
    }
    if f.pacing == Some(false) {
        pr.err(
            format!("{p}.pacing"),
            false,
            "BBR always paces (congestion type = \"bbr\"): remove the field or set it true",
        );
    }
    if let Some(r) = f
        .recovery
        .filter(|&r| r != Recovery::Classic)
        .map(Recovery::name)
    {
        pr.err(
            format!("{p}.recovery"),
            format!("\"{r}\""),
            "BBR sets the window in recovery itself (congestion type = \"bbr\"): \
             recovery must be \"classic\"",
        );
    }
}

/// What Prague needs of its flow, required rather than implied (RFC 9331 §4.1-4.2 and the
/// Prague draft): ECN with the L4S codepoint ECT(1) on every packet, retransmissions
/// included, and pacing.
fn check_prague(
    f: &TcpSpec,
    cc: &CongestionSpec,
    (ecn, ect): (bool, Option<Ecn>),
    p: &str,
    pr: &mut Problems,
) {
    if cc.kind() != "prague" {
        return;
    }
    if !ecn {
        pr.err(
            format!("{p}.ecn"),
            "false",
            "congestion type = \"prague\" needs ecn = true and ect = \"ect1\" (RFC 9331 §4.1: \
             an L4S sender sends ECT(1); Prague reacts to the extent of CE marking)",
        );
    } else if ect != Some(Ecn::Ect1) {
        pr.err(
            format!("{p}.ect"),
            if ect.is_some() { "\"ect0\"" } else { "" },
            "congestion type = \"prague\" needs ect = \"ect1\" (RFC 9331 §4.1: an L4S sender \
             identifies its packets with ECT(1))",
        );
    }
    if f.ecn_retransmits == Some(false) {
        pr.err(
            format!("{p}.ecn_retransmits"),
            "false",
            "Prague sends every segment ECT(1), retransmissions included (RFC 9331 §4.1, \
             Linux); omit it or set true",
        );
    }
    if f.pacing == Some(false) {
        pr.err(
            format!("{p}.pacing"),
            false,
            "Prague always paces (congestion type = \"prague\"): remove the field or set it \
             true",
        );
    }
}
