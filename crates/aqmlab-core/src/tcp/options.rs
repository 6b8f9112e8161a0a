//! The sender's loss-recovery options, one type each for the scenario file and the sender:
//! the names a `[[flows]]` table writes (`variant = "newreno"`, `recovery = "prr_crb"`...)
//! are these enums' serde names, so nothing maps a scenario's value onto the sender's.
//! The controller's own options (`DupackResponse`, `Halving`) live with Reno in
//! `congestion::reno`, the timer's estimator (`RttRule`) in `rtt`.

use serde::{Deserialize, Serialize};

/// Loss recovery: Reno (RFC 5681 §3.2), NewReno (RFC 6582) or SACK (RFC 6675).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Variant {
    #[serde(rename = "reno")]
    Reno,
    #[serde(rename = "newreno")]
    NewReno,
    #[serde(rename = "sack")]
    Sack,
}

/// NewReno's partial-ACK and exit rules (`sender`'s module doc, docs/tcp.md): RFC 6582's,
/// ns-2.35's defaults, or ns-2's before 2003-05-05.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum PartialAck {
    #[serde(rename = "rfc6582")]
    Rfc6582,
    #[serde(rename = "ns2.35")]
    Ns2_35,
    #[serde(rename = "ns2-2001")]
    Ns2_2001,
}

/// Fast recovery's window reduction: classic (window inflation, or the RFC 6675 pipe rule
/// with SACK) or RFC 6937 Proportional Rate Reduction with one of its reduction bounds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Recovery {
    /// Reno/NewReno window inflation (RFC 5681 §3.2, RFC 6582), or cwnd = ssthresh with
    /// the RFC 6675 pipe rule (SACK).
    Classic,
    PrrSsrb,
    PrrCrb,
    /// ns-3.44's `TcpPrrRecovery`: CRB, plus one segment on an ACK of a retransmission.
    PrrSafeAck,
    /// `PrrSafeAck` with two more rules of ns-3.44 that RFC 6937 does not have, for
    /// like-for-like runs against it (SACK only): DeliveredData gains one segment on every
    /// duplicate ACK while prr_delivered < RecoverFS, although the SACKed segment is
    /// counted already (`TcpPrrRecovery::DoRecovery`'s `isDupAck`), and RecoverFS and
    /// the loss reduction start from the pipe at entry, not FlightSize
    /// (`TcpPrrRecovery::EnterRecovery`'s `m_bytesInFlight`,
    /// `TcpSocketBase::EnterRecovery`'s `GetSsThresh (tcb, BytesInFlight ())`).
    #[serde(rename = "prr_ns3.44")]
    PrrNs3_44,
}

impl Recovery {
    /// PRR's reduction bound, or None for classic recovery.
    pub fn prr(self) -> Option<PrrBound> {
        match self {
            Recovery::Classic => None,
            Recovery::PrrSsrb => Some(PrrBound::Ssrb),
            Recovery::PrrCrb => Some(PrrBound::Crb),
            Recovery::PrrSafeAck | Recovery::PrrNs3_44 => Some(PrrBound::SafeAck),
        }
    }

    /// ns-3.44's PRR accounting (`PrrNs3_44`).
    pub fn ns3_44(self) -> bool {
        self == Recovery::PrrNs3_44
    }

    /// The scenario file's name.
    pub fn name(self) -> &'static str {
        match self {
            Recovery::Classic => "classic",
            Recovery::PrrSsrb => "prr_ssrb",
            Recovery::PrrCrb => "prr_crb",
            Recovery::PrrSafeAck => "prr_safe_ack",
            Recovery::PrrNs3_44 => "prr_ns3.44",
        }
    }
}

/// PRR's bound on catching up once pipe <= ssthresh (RFC 6937 §3).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PrrBound {
    /// Slow-start reduction bound: max(prr_delivered − prr_out, DeliveredData) + 1.
    Ssrb,
    /// Conservative reduction bound: prr_delivered − prr_out.
    Crb,
    /// ns-3.44's `TcpPrrRecovery`: max(prr_delivered − prr_out, DeliveredData), plus one
    /// segment when the ACK cumulatively acknowledges a retransmitted segment (its
    /// approximation of RFC 9937's "safe ACK").
    SafeAck,
}

/// The retransmission timer at a fast retransmit: left running (RFC 6298 §5.1) or
/// restarted with the RTT measurement in progress abandoned, as every ns-2 agent's
/// `dupack_action` does (`reset_rtx_timer(1, 0)`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FrTimer {
    Keep,
    Restart,
}

/// When a new fast retransmit may follow a recovery or timeout (RFC 6582 §3.2 step 1's
/// guard): once the cumulative ACK passes one past the highest segment sent then
/// (`Rfc6582`: ns-2's `highest_ack_ > recover_`, FreeBSD's `snd_recover`), or once it
/// reaches it (`Ns3_44`: `TcpSocketBase::DupAck`'s `m_highRxAckMark >= m_recover`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum RecoverGuard {
    #[serde(rename = "rfc6582")]
    Rfc6582,
    #[serde(rename = "ns3.44")]
    Ns3_44,
}
