//! Profiles (`profile = "..."`, src/scenario/profile.rs, docs/profiles.md): what they fill
//! in, that a scenario's own values win, and two ns-2-era behaviours they select — an
//! initial window of one segment and the coarse 100 ms clock's effect on the RTO.
//!
//! The path is the one of tcp_scripted.rs: two hosts, 10 Mb/s, 50 ms each way, so a lone
//! 1000-byte segment and its 40-byte ACK take RTT = 100.832 ms and no queue forms.

use aqmlab_core::scenario::{load, parse};
use aqmlab_core::sim::run;

const RTT: f64 = 0.1 + 0.000_8 + 0.000_032;

fn path(profile: &str, flow: &str, loss: &str, duration: &str) -> String {
    format!(
        r#"
schema_version = 1
{profile}
[simulation]
duration = "{duration}"
[[nodes]]
name = "h1"
type = "host"
[[nodes]]
name = "h2"
type = "host"
[[links]]
a = "h1"
b = "h2"
bandwidth = "10Mbps"
delay = "50ms"
{loss}
queue = {{ limit_pkts = 10000, aqm = {{ type = "red" }} }}
[[flows]]
name = "f"
type = "tcp"
src = "h1"
dst = "h2"
packet_size = 1000
{flow}
"#
    )
}

/// The same path with a DropTail queue (ns-2.35's RED thresholds are automatic, which
/// aqmlab's RED does not compute, so its profile leaves them to the scenario).
fn droptail(toml: String) -> String {
    toml.replace(", aqm = { type = \"red\" }", "")
}

#[test]
fn a_profile_fills_in_what_the_scenario_leaves_unset_and_the_echo_says_so() {
    let s = load(&path(
        "profile = \"ns2-2001\"",
        "min_rto = \"2s\"",
        "",
        "1s",
    ))
    .unwrap();
    let echo = s.to_toml();
    assert!(echo.contains("profile = \"ns2-2001\""), "{echo}");
    for line in [
        "initial_cwnd = 1.0",
        "max_window = 20",
        "limited_transmit = false",
        "granularity = \"100ms\"",
        "initial_rto = \"6s\"",
        "max_rto = \"100000s\"",
        // The scenario's own value wins over the profile's 1 s.
        "min_rto = \"2s\"",
        // RED's thresholds, weight, max_p, gentle and mean packet size of ns-2.1b8a.
        "min_th = 5.0",
        "max_th = 15.0",
        "w_q = 0.002",
        "gentle = true",
        "mean_pktsize = \"500B\"",
        // ns-2's "more than one packet queued" guard (REDQueue::enque).
        "ns2_qlen_guard = true",
    ] {
        assert!(echo.contains(line), "missing {line:?} in\n{echo}");
    }
    // The echo reads back to the same scenario (the profile fills nothing more).
    assert_eq!(load(&echo).unwrap(), s);
    // Only an ECN flow gets ns-2's ECN-capable retransmissions (allowed only with ECN).
    assert!(!echo.contains("ecn_retransmits"), "{echo}");
    assert!(!echo.contains("ecn_backoff"), "{echo}");
    let ecn = load(&path("profile = \"ns2-2001\"", "ecn = true", "", "1s")).unwrap();
    assert!(ecn.to_toml().contains("ecn_retransmits = true"));
    assert!(ecn.to_toml().contains("ecn_backoff = true"));
}

#[test]
fn without_a_profile_nothing_is_filled_in_and_red_needs_its_thresholds() {
    let e = load(&path("", "", "", "1s")).unwrap_err().to_string();
    assert!(e.contains("min_th"), "{e}");
    let s = load(
        &path("profile = \"aqmlab\"", "", "", "1s")
            .replace("type = \"red\"", "type = \"red\", min_th = 5, max_th = 15"),
    )
    .unwrap();
    let echo = s.to_toml();
    assert!(!echo.contains("profile"), "{echo}");
    assert!(!echo.contains("initial_cwnd"), "{echo}");
}

#[test]
fn an_unknown_profile_is_rejected_with_the_names() {
    let e = parse(&droptail(path("profile = \"ns2\"", "", "", "1s")))
        .unwrap_err()
        .to_string();
    for name in ["profile", "aqmlab", "ns2-2001", "ns2.35", "ns3.44"] {
        assert!(e.contains(name), "{e}");
    }
}

/// ns-2-era slow start from one segment: in 150 ms (one RTT and a half) the sender puts
/// one segment on the wire at t = 0 and two when its ACK returns at RTT, 3 in all; with
/// ns-2.35's window of 2 it sends 2, then 4: 6.
#[test]
fn ns2_2001_starts_with_one_segment() {
    let sent = |profile: &str| {
        let r = run(&load(&droptail(path(profile, "", "", "150ms"))).unwrap()).unwrap();
        r.flows[0].sent_pkts
    };
    assert_eq!(sent("profile = \"ns2-2001\""), 3);
    assert_eq!(sent("profile = \"ns2.35\""), 6);
}

/// The coarse clock under RFC 6298's estimator: RTO = SRTT + max(G, 4·RTTVAR). A
/// 400-segment transfer under
/// ns2-2001 (window 20, below the 126-segment pipe: every RTT sample is exactly RTT) loses
/// its last segment, which no duplicate ACK can repair, so it is resent on a timeout. By
/// then RTTVAR has decayed by 3/4 per sample for some twenty samples, from RTT/2 to under
/// 0.2 ms, so 4·RTTVAR < 1 ms and the timeout waits SRTT + G: the 100 ms tick (ns-2.1b8a's
/// tcpTick_) costs exactly 90 ms more than a 10 ms one (ns-2.35's). min_rto is lowered to
/// 1 ms in both runs so that it does not hide the difference.
#[test]
fn the_coarse_clock_lengthens_the_rto_by_its_tick() {
    let coarse = lost_last_segment_done("100ms", "rfc6298");
    let fine = lost_last_segment_done("10ms", "rfc6298");
    assert!((coarse - fine - 0.090).abs() < 1e-6, "{coarse} {fine}");
    // And the whole transfer took at least the lost segment's RTO of about SRTT + 100 ms.
    assert!(coarse > 2.0 * RTT);
}

/// The same transfer with ns-2's estimator (the profile's): a 100.832 ms sample counts one
/// boundary of the 100 ms clock, or two when its send falls in the last 0.832 ms of a
/// tick; the timed sends drift by that much a round trip against the clock, and in this
/// run one of them does. The first sample leaves SRTT 8/8 and RTTVAR 2/4 tick, the 2-tick
/// one 9/8 and 3/4, and the 1-tick ones after it move neither (their differences shift
/// to 0): RTO = ⌊(8·3 + 9) / 8⌋ = 4 ticks, 400 ms, against RFC 6298's SRTT + G = 200.832 ms.
#[test]
fn ns2s_estimator_gives_the_coarse_clock_an_rto_of_whole_ticks() {
    let ns2 = lost_last_segment_done("100ms", "ns2-2001");
    let rfc = lost_last_segment_done("100ms", "rfc6298");
    assert!(
        (ns2 - rfc - (0.400 - (RTT + 0.1))).abs() < 1e-6,
        "{ns2} {rfc}"
    );
}

/// The completion time of 400 segments under ns2-2001 whose last segment is lost (one
/// timeout), with min_rto 1 ms, the given clock and estimator.
fn lost_last_segment_done(granularity: &str, estimator: &str) -> f64 {
    let loss = "loss = { type = \"scripted\", drop = [399] }";
    let flow = format!(
        "bytes = 400000\nmin_rto = \"1ms\"\ngranularity = \"{granularity}\"\n\
         rtt_estimator = \"{estimator}\""
    );
    let r = run(&load(&path("profile = \"ns2-2001\"", &flow, loss, "60s")).unwrap()).unwrap();
    assert_eq!(r.flows[0].timeouts, 1);
    r.flows[0].completion_time_s.unwrap()
}
