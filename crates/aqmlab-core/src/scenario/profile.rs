//! Profiles: named sets of defaults that a scenario selects in one line (`profile = "..."`
//! at the top level), so that a run can use what ns-2 or ns-3 would have used for every
//! value the scenario leaves unsaid.
//!
//! A profile fills in fields that the scenario does not give, before the scenario is read:
//! the TCP fields of every `type = "tcp"` flow and the RED fields of every
//! `type = "red"` queue. A field the scenario gives always wins. The canonical echo
//! (`Scenario::to_toml`) then writes every value the profile supplied, beside the profile's
//! name, so a stored scenario says what ran. The values and their sources are tabled in
//! docs/profiles.md; a unit test pins each value.
//!
//! What a profile cannot set, because aqmlab has no such mechanism, is listed there too
//! (ns-2's SYN packet, ns-3's Cubic default).

use serde::{Deserialize, Serialize};

/// A named set of defaults.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum Profile {
    /// aqmlab's own defaults (docs/scenarios.md): nothing is filled in.
    #[default]
    #[serde(rename = "aqmlab")]
    Aqmlab,
    /// ns-2.1b8a (June 2001), `tcl/lib/ns-default.tcl` v1.242 (2001/05/27), `tcp.cc`,
    /// `red.cc` v1.55: the ns-2 of the papers' era.
    #[serde(rename = "ns2-2001")]
    Ns2_2001,
    /// ns-2.35 (November 2011), the last ns-2: `tcl/lib/ns-default.tcl` v1.388.
    #[serde(rename = "ns2.35")]
    Ns2_35,
    /// ns-3.44: the attribute defaults of `TcpSocket`, `TcpSocketBase`, `RttEstimator` and
    /// `RedQueueDisc`.
    #[serde(rename = "ns3.44")]
    Ns3_44,
}

/// The profile names, in the order messages list them.
pub const PROFILES: [&str; 4] = ["aqmlab", "ns2-2001", "ns2.35", "ns3.44"];

/// A value a profile writes into a table, as TOML.
#[derive(Clone, Debug, PartialEq)]
pub enum Val {
    Int(i64),
    Float(f64),
    Bool(bool),
    Str(&'static str),
}

impl Val {
    fn toml(&self) -> toml::Value {
        match *self {
            Val::Int(i) => toml::Value::Integer(i),
            Val::Float(x) => toml::Value::Float(x),
            Val::Bool(b) => toml::Value::Boolean(b),
            Val::Str(s) => toml::Value::String(s.to_string()),
        }
    }
}

use Val::{Bool, Float, Int, Str};

impl Profile {
    pub fn is_default(&self) -> bool {
        *self == Profile::Aqmlab
    }

    /// The fields a profile gives every TCP flow that does not set them.
    pub fn tcp(self) -> &'static [(&'static str, Val)] {
        match self {
            Profile::Aqmlab => &[],
            // Agent/TCP and Agent/TCPSink of ns-2.1b8a. Its `windowInit_` 2 applies after a
            // 40-byte SYN sent with cwnd 1 (`syn_`, `delay_growth_`; ns-2.1b7a and before:
            // `windowInit_` 1, no SYN). aqmlab has no SYN: an initial window of 1 sends what
            // ns-2.1b8a sends in the first two rounds (one packet, then two a round trip
            // later), and is the window of ns-2.1b6/7 (docs/profiles.md).
            Profile::Ns2_2001 => &[
                ("initial_cwnd", Float(1.0)),      // see above
                ("max_window", Int(20)),           // window_ 20
                ("limited_transmit", Bool(false)), // singledup_ 0
                ("granularity", Str("100ms")),     // tcpTick_ 0.1
                ("min_rto", Str("1s")),            // minrto_ 1
                ("initial_rto", Str("6s")),        // rtxcur_init_ 6
                ("max_rto", Str("100000s")),       // maxrto_ 100000
                ("delayed_ack", Bool(false)),      // Agent/TCPSink: one ACK per packet
                ("ack_size", Str("40B")),          // Agent/TCPSink packetSize_ 40
                // slowdown() with integer windows (precisionReduce_ came in 2006).
                ("halving", Str("ns2-2001")),
                ("fr_timer", Str("restart")), // dupack_action: reset_rtx_timer(1, 0)
                // rtt_update's tick counting; rtt_timeout without rfc2988_ (2002-03-07).
                ("rtt_estimator", Str("ns2-2001")),
            ],
            Profile::Ns2_35 => &[
                ("initial_cwnd", Float(2.0)), // windowInit_ 2 (after the SYN, as above)
                ("max_window", Int(20)),      // window_ 20
                ("limited_transmit", Bool(true)), // singledup_ 1
                ("granularity", Str("10ms")), // tcpTick_ 0.01
                ("min_rto", Str("200ms")),    // minrto_ 0.2
                ("initial_rto", Str("3s")),   // rtxcur_init_ 3
                ("max_rto", Str("60s")),      // maxrto_ 60
                ("delayed_ack", Bool(false)), // Agent/TCPSink
                ("ack_size", Str("40B")),     // packetSize_ 40
                ("halving", Str("ns2.35")),   // slowdown() with precisionReduce_ true
                ("fr_timer", Str("restart")), // dupack_action: reset_rtx_timer(1, 0)
                ("rtt_estimator", Str("ns2.35")), // rtt_update's tick counting; rfc2988_ 1
            ],
            Profile::Ns3_44 => &[
                ("initial_cwnd", Float(10.0)),    // TcpSocket::InitialCwnd 10
                ("limited_transmit", Bool(true)), // TcpSocketBase::LimitedTransmit
                ("granularity", Str("1ms")),      // TcpSocketBase::ClockGranularity
                ("min_rto", Str("1s")),           // TcpSocketBase::MinRto
                ("initial_rto", Str("1s")),       // RttEstimator::InitialEstimation 1 s
                ("max_rto", Str("60s")),          // TcpSocketBase: doubling capped at 60 s
                ("delayed_ack", Bool(true)),      // TcpSocket::DelAckCount 2
                ("delack_timeout", Str("200ms")), // TcpSocket::DelAckTimeout
                ("ack_size", Str("40B")),         // 20 IP + 20 TCP (no timestamps, no PPP)
                // TcpL4Protocol::RecoveryType TcpPrrRecovery (tcp-prr-recovery.cc of 3.44).
                ("recovery", Str("prr_safe_ack")),
            ],
        }
    }

    /// The fields a profile gives every TCP flow with `ecn = true` that does not set them
    /// (the option is only allowed with ECN).
    pub fn tcp_ecn(self) -> &'static [(&'static str, Val)] {
        match self {
            // TcpAgent::output sets ECT on every data packet, retransmissions included.
            // TcpAgent::ecn and slowdown: ⌊window/2⌋ down to 0, ecn_backoff_ at a window of 1.
            Profile::Ns2_2001 | Profile::Ns2_35 => {
                &[("ecn_retransmits", Bool(true)), ("ecn_backoff", Bool(true))]
            }
            // ns-3 (IsEct: only new data) and aqmlab (RFC 3168 §6.1.5): Not-ECT.
            Profile::Aqmlab | Profile::Ns3_44 => &[],
        }
    }

    /// The fields a profile gives every NewReno flow with classic recovery (`variant` and
    /// `recovery` unset or "newreno" and "classic") that does not set them.
    pub fn tcp_newreno(self) -> &'static [(&'static str, Val)] {
        match self {
            // Agent/TCP/Newreno of ns-2.1b8a: newreno_changes1_ 0 and
            // partial_window_deflation_ 0 (both became 1 on 2003-05-05).
            Profile::Ns2_2001 => &[("partial_ack", Str("ns2-2001"))],
            // ns-2.35: newreno_changes1_ 1, partial_window_deflation_ 1,
            // exit_recovery_fix_ 0.
            Profile::Ns2_35 => &[("partial_ack", Str("ns2.35"))],
            Profile::Aqmlab | Profile::Ns3_44 => &[],
        }
    }

    /// The fields a profile gives every `type = "red"` queue that does not set them.
    pub fn red(self) -> &'static [(&'static str, Val)] {
        match self {
            Profile::Aqmlab => &[],
            // Queue/RED of ns-2.1b8a (gentle_ became true on 2001-04-23).
            Profile::Ns2_2001 => &[
                ("min_th", Float(5.0)),          // thresh_ 5
                ("max_th", Float(15.0)),         // maxthresh_ 15
                ("w_q", Float(0.002)),           // q_weight_ 0.002
                ("max_p", Float(0.1)),           // linterm_ 10
                ("gentle", Bool(true)),          // gentle_ true
                ("count_rule", Str("ns2_wait")), // wait_ true
                ("byte_mode", Bool(false)),      // bytes_, queue_in_bytes_ false
                ("mean_pktsize", Str("500B")),   // mean_pktsize_ 500
                ("ns2_qlen_guard", Bool(true)),  // REDQueue::enque: qlen > 1
            ],
            // Queue/RED of ns-2.35: thresholds and weight are automatic (thresh_ 0,
            // q_weight_ -1), which aqmlab's RED does not compute, so they stay required and
            // w_q stays aqmlab's.
            Profile::Ns2_35 => &[
                ("max_p", Float(0.1)),           // linterm_ 10
                ("gentle", Bool(true)),          // gentle_ true
                ("count_rule", Str("ns2_wait")), // wait_ true
                ("byte_mode", Bool(true)),       // bytes_, queue_in_bytes_ true (2004-10-11)
                ("mean_pktsize", Str("500B")),   // mean_pktsize_ 500
                ("ns2_qlen_guard", Bool(true)),  // REDQueue::enque: qlen > 1
            ],
            Profile::Ns3_44 => &[
                ("min_th", Float(5.0)),          // RedQueueDisc::MinTh
                ("max_th", Float(15.0)),         // RedQueueDisc::MaxTh
                ("w_q", Float(0.002)),           // RedQueueDisc::QW
                ("max_p", Float(0.02)),          // RedQueueDisc::LInterm 50
                ("gentle", Bool(true)),          // RedQueueDisc::Gentle
                ("count_rule", Str("ns2_wait")), // RedQueueDisc::Wait
                ("byte_mode", Bool(false)),      // MaxSize in packets
                ("mean_pktsize", Str("500B")),   // RedQueueDisc::MeanPktSize
                ("ns2_qlen_guard", Bool(true)),  // DoEnqueue: avg >= MinTh and nQueued > 1
            ],
        }
    }
}

/// Fills in, in a parsed TOML document, the fields its `profile` gives and it leaves
/// unset. Returns false (and leaves the document alone) when there is no known profile,
/// so that a misspelt name is reported by the typed parse with the list of names.
pub(crate) fn apply(doc: &mut toml::Table) -> bool {
    let profile = match doc.get("profile").and_then(|v| v.as_str()) {
        Some("ns2-2001") => Profile::Ns2_2001,
        Some("ns2.35") => Profile::Ns2_35,
        Some("ns3.44") => Profile::Ns3_44,
        _ => return false,
    };
    let fill = |t: &mut toml::Table, fields: &[(&str, Val)]| {
        for (k, v) in fields {
            t.entry(k.to_string()).or_insert_with(|| v.toml());
        }
    };
    if let Some(flows) = doc.get_mut("flows").and_then(|f| f.as_array_mut()) {
        for f in flows.iter_mut().filter_map(|f| f.as_table_mut()) {
            if f.get("type").and_then(|t| t.as_str()) == Some("tcp") {
                // A flow that turns delayed ACKs off takes no delack_timeout from the
                // profile (the field is only allowed with delayed_ack = true).
                let own_timeout = f.contains_key("delack_timeout");
                fill(f, profile.tcp());
                if !own_timeout && f.get("delayed_ack").and_then(|d| d.as_bool()) == Some(false) {
                    f.remove("delack_timeout");
                }
                if f.get("ecn").and_then(|e| e.as_bool()) == Some(true) {
                    fill(f, profile.tcp_ecn());
                }
                let is = |k: &str, v: &str| f.get(k).is_none_or(|x| x.as_str() == Some(v));
                if is("variant", "newreno") && is("recovery", "classic") {
                    fill(f, profile.tcp_newreno());
                }
            }
        }
    }
    if let Some(links) = doc.get_mut("links").and_then(|l| l.as_array_mut()) {
        for l in links.iter_mut().filter_map(|l| l.as_table_mut()) {
            for q in ["queue", "reverse_queue"] {
                let aqm = l
                    .get_mut(q)
                    .and_then(|q| q.as_table_mut())
                    .and_then(|q| q.get_mut("aqm"))
                    .and_then(|a| a.as_table_mut());
                if let Some(a) = aqm {
                    if a.get("type").and_then(|t| t.as_str()) == Some("red") {
                        fill(a, profile.red());
                    }
                }
            }
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(fields: &[(&str, Val)]) -> String {
        fields
            .iter()
            .map(|(k, v)| format!("{k}={}", v.toml()))
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// Each profile's values, pinned: a change to any of them must be deliberate (and
    /// docs/profiles.md changed with it).
    #[test]
    fn profile_values_are_pinned() {
        assert_eq!(table(Profile::Aqmlab.tcp()), "");
        assert_eq!(table(Profile::Aqmlab.red()), "");
        assert_eq!(
            table(Profile::Ns2_2001.tcp()),
            "initial_cwnd=1.0 max_window=20 limited_transmit=false granularity=\"100ms\" \
             min_rto=\"1s\" initial_rto=\"6s\" max_rto=\"100000s\" delayed_ack=false \
             ack_size=\"40B\" halving=\"ns2-2001\" fr_timer=\"restart\" \
             rtt_estimator=\"ns2-2001\""
        );
        assert_eq!(
            table(Profile::Ns2_2001.red()),
            "min_th=5.0 max_th=15.0 w_q=0.002 max_p=0.1 gentle=true count_rule=\"ns2_wait\" \
             byte_mode=false mean_pktsize=\"500B\" ns2_qlen_guard=true"
        );
        assert_eq!(
            table(Profile::Ns2_35.tcp()),
            "initial_cwnd=2.0 max_window=20 limited_transmit=true granularity=\"10ms\" \
             min_rto=\"200ms\" initial_rto=\"3s\" max_rto=\"60s\" delayed_ack=false \
             ack_size=\"40B\" halving=\"ns2.35\" fr_timer=\"restart\" \
             rtt_estimator=\"ns2.35\""
        );
        assert_eq!(
            table(Profile::Ns2_35.red()),
            "max_p=0.1 gentle=true count_rule=\"ns2_wait\" byte_mode=true mean_pktsize=\"500B\" \
             ns2_qlen_guard=true"
        );
        assert_eq!(
            table(Profile::Ns3_44.tcp()),
            "initial_cwnd=10.0 limited_transmit=true granularity=\"1ms\" min_rto=\"1s\" \
             initial_rto=\"1s\" max_rto=\"60s\" delayed_ack=true delack_timeout=\"200ms\" \
             ack_size=\"40B\" recovery=\"prr_safe_ack\""
        );
        assert_eq!(
            table(Profile::Ns3_44.red()),
            "min_th=5.0 max_th=15.0 w_q=0.002 max_p=0.02 gentle=true count_rule=\"ns2_wait\" \
             byte_mode=false mean_pktsize=\"500B\" ns2_qlen_guard=true"
        );
    }

    #[test]
    fn ecn_retransmits_and_ecn_backoff_are_ns2s_for_ecn_flows() {
        for p in [Profile::Ns2_2001, Profile::Ns2_35] {
            assert_eq!(table(p.tcp_ecn()), "ecn_retransmits=true ecn_backoff=true");
        }
        assert_eq!(table(Profile::Ns3_44.tcp_ecn()), "");
        assert_eq!(table(Profile::Aqmlab.tcp_ecn()), "");
        assert_eq!(
            table(Profile::Ns2_2001.tcp_newreno()),
            "partial_ack=\"ns2-2001\""
        );
        assert_eq!(
            table(Profile::Ns2_35.tcp_newreno()),
            "partial_ack=\"ns2.35\""
        );
        assert_eq!(table(Profile::Ns3_44.tcp_newreno()), "");
        assert_eq!(table(Profile::Aqmlab.tcp_newreno()), "");
    }

    /// ns3.44's delack_timeout is not filled into a flow with delayed_ack = false (it would
    /// be rejected as unused); a timeout the flow gives itself stays.
    #[test]
    fn no_delack_timeout_without_delayed_ack() {
        let mut doc: toml::Table = toml::from_str(
            "profile = \"ns3.44\"\n\
             [[flows]]\ntype = \"tcp\"\ndelayed_ack = false\n\
             [[flows]]\ntype = \"tcp\"\n\
             [[flows]]\ntype = \"tcp\"\ndelayed_ack = false\ndelack_timeout = \"50ms\"\n",
        )
        .unwrap();
        assert!(apply(&mut doc));
        let flows = doc["flows"].as_array().unwrap();
        assert_eq!(flows[0].get("delack_timeout"), None);
        assert_eq!(flows[1]["delack_timeout"].as_str(), Some("200ms"));
        assert_eq!(flows[2]["delack_timeout"].as_str(), Some("50ms"));
    }

    /// ns-2's NewReno rules go to NewReno flows with classic recovery only (the field is
    /// refused elsewhere).
    #[test]
    fn partial_ack_only_for_classic_newreno() {
        let mut doc: toml::Table = toml::from_str(
            "profile = \"ns2.35\"\n\
             [[flows]]\ntype = \"tcp\"\n\
             [[flows]]\ntype = \"tcp\"\nvariant = \"newreno\"\n\
             [[flows]]\ntype = \"tcp\"\nvariant = \"sack\"\n\
             [[flows]]\ntype = \"tcp\"\nrecovery = \"prr_ssrb\"\n\
             [[flows]]\ntype = \"tcp\"\npartial_ack = \"rfc6582\"\n",
        )
        .unwrap();
        assert!(apply(&mut doc));
        let got: Vec<Option<&str>> = doc["flows"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f.get("partial_ack").and_then(|v| v.as_str()))
            .collect();
        assert_eq!(
            got,
            [Some("ns2.35"), Some("ns2.35"), None, None, Some("rfc6582")]
        );
    }

    #[test]
    fn names_round_trip() {
        for name in PROFILES {
            let p: Profile = toml::Value::String(name.into()).try_into().unwrap();
            assert_eq!(toml::Value::try_from(p).unwrap().as_str(), Some(name));
        }
    }
}
