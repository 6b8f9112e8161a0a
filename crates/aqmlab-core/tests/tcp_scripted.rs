//! TCP acceptance tests with deterministic, scripted losses and CE marks on real engine
//! scenarios (docs/tcp.md; RFC 5681, 6582, 6675, 6298, 3168, and ns-2.35's `tcp/tcp.cc`,
//! `tcp-reno.cc`, `tcp-newreno.cc` as docs/tcp.md compares them). The pure-sender counterparts (exact cwnd/ssthresh,
//! CWR, RTO deadlines) are the unit tests at the bottom of `src/tcp/sender.rs`.
//!
//! # The path
//!
//! Unless a test says otherwise: two hosts joined by one 10 Mb/s link with 50 ms of
//! propagation delay each way and 10 000-packet buffers, so the only losses are the
//! scripted ones. Segments are 1000 bytes (0.8 ms on the wire), ACKs 40 bytes (32 µs). A
//! lone segment and its ACK take `RTT` = 2·50 ms + 0.8 ms + 0.032 ms = 100.832 ms. The
//! window is capped at 100 segments, below the 126-segment bandwidth-delay product, so
//! no standing queue forms either.
//!
//! `loss = { type = "scripted", drop = [k, ...], mark = [k, ...] }` drops (or marks CE)
//! the k-th data packet, counting from 0, put on the wire in a direction of the link;
//! ACKs are not counted. Before the first loss the k-th data packet is segment k, and
//! every later transmission, retransmissions included, takes the next index.
//!
//! Everything is deterministic (no random component except the Bernoulli run, whose
//! seeds are fixed), so counts are asserted exactly and times to the nanosecond where the
//! protocol fixes them; every number is derived in a comment next to its assertion.

use aqmlab_core::scenario::load;
use aqmlab_core::sim::{run, FlowSummary, RunResults};

/// A data segment's serialisation time on the 10 Mb/s link: 1000 B · 8 / 10^7 b/s.
const SEG_TX: f64 = 0.000_8;
/// A lone segment's round trip over the empty path: propagation, data and ACK serialisation.
const RTT: f64 = 0.1 + SEG_TX + 0.000_032;
/// Times are integer nanoseconds in the engine; completion_time_s is their f64 image.
const EPS: f64 = 1e-9;

/// The two-host path with one TCP flow `f` from h1 to h2; `flow` adds TOML fields to the
/// flow (max_window defaults to 100 here), `loss` a loss model to the link (both
/// directions).
fn path(flow: &str, loss: &str, duration: &str) -> String {
    let window = if flow.contains("max_window") {
        ""
    } else {
        "max_window = 100"
    };
    format!(
        r#"
schema_version = 1
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
queue = {{ limit_pkts = 10000 }}
[[flows]]
name = "f"
type = "tcp"
src = "h1"
dst = "h2"
packet_size = 1000
{window}
{flow}
"#
    )
}

fn run_ok(toml: &str) -> RunResults {
    let s = load(toml).expect("valid scenario");
    run(&s).expect("run and conservation check")
}

/// Runs `path` and returns the flow's summary.
fn tcp(flow: &str, loss: &str) -> FlowSummary {
    let mut r = run_ok(&path(flow, loss, "60s"));
    r.flows.remove(0)
}

fn drop(ks: &[u64]) -> String {
    format!(r#"loss = {{ type = "scripted", drop = {ks:?} }}"#)
}

fn mark(ks: &[u64]) -> String {
    format!(r#"loss = {{ type = "scripted", mark = {ks:?} }}"#)
}

/// Timeouts by the sender's state at expiry: (open, disorder, recovery, loss).
fn timeout_states(f: &FlowSummary) -> (u64, u64, u64, u64) {
    (
        f.timeouts_open,
        f.timeouts_disorder,
        f.timeouts_recovery,
        f.timeouts_loss,
    )
}

fn completion(f: &FlowSummary) -> f64 {
    f.completion_time_s.expect("the finite transfer completes")
}

fn assert_close(got: f64, want: f64, what: &str) {
    assert!(
        (got - want).abs() < EPS,
        "{what}: got {got:.9} s, expected {want:.9} s"
    );
}

// ---------------------------------------------------------------------------------------
// 1. Three losses in one window: NewReno recovers, Reno times out
// ---------------------------------------------------------------------------------------

/// 200 segments; segments 60, 62 and 64 are lost. The flow is in slow start: the three
/// leave within 1.6 ms and some 60 segments are in flight when the first loss is detected,
/// so the three holes are in one window. min_rto = 1 s (the RFC 6298 value): NewReno
/// ("Impatient") restarts the timer on the first partial ACK only and its third
/// retransmission is acknowledged two round trips (≈ 202 ms) later, which ns-2's 200 ms
/// minimum would not survive (see the next test).
const THREE_LOSSES: &str = "bytes = 200000\nmin_rto = \"1s\"";

#[test]
fn newreno_recovers_three_losses_in_one_window_without_a_timeout_reno_does_not() {
    let loss = drop(&[60, 62, 64]);
    // NewReno: one fast retransmit (60), then each partial ACK (62, then 64) retransmits
    // the next hole: exactly the three lost segments, nothing spurious.
    let f = tcp(&format!("variant = \"newreno\"\n{THREE_LOSSES}"), &loss);
    assert_eq!(
        (f.timeouts, f.fast_recoveries, f.retransmits),
        (0, 1, 3),
        "{f:?}"
    );
    assert_eq!((f.lost_pkts, f.sent_pkts, f.received_pkts), (3, 203, 200));
    // SACK repairs the same window the same way, count-wise.
    let f = tcp(&format!("variant = \"sack\"\n{THREE_LOSSES}"), &loss);
    assert_eq!(
        (f.timeouts, f.fast_recoveries, f.retransmits),
        (0, 1, 3),
        "{f:?}"
    );
    assert_eq!((f.sent_pkts, f.received_pkts), (203, 200));
    // Reno: the partial ACK for 62 ends recovery with cwnd = ssthresh (about 32), far below
    // the ~90 segments then in flight, so nothing is sent; the ~30 duplicate ACKs that
    // follow (caused by the new segments sent during recovery) acknowledge no data sent
    // after the fast retransmit and may not start a second one (ns-2 bugFix_), so only the
    // timer recovers 62: exactly one timeout. Go back N then resends 62, 64 and 65 (65 had arrived: the one
    // duplicate delivery).
    let f = tcp(&format!("variant = \"reno\"\n{THREE_LOSSES}"), &loss);
    assert_eq!(
        (f.timeouts, f.fast_recoveries, f.retransmits),
        (1, 1, 4),
        "{f:?}"
    );
    // The timer finds duplicate ACKs but no recovery: a `disorder` timeout.
    assert_eq!(timeout_states(&f), (0, 1, 0, 0));
    assert_eq!((f.sent_pkts, f.received_pkts), (204, 201));
}

/// Regression (fixed): the check "the cumulative ACK covers more than `recover`" (RFC 6582
/// §3.2 step 1, ns-2's `highest_ack_ > recover_`) was one segment too lenient, so after a
/// timeout the duplicate ACKs caused by go-back-N resending segments the receiver already
/// had (they acknowledge exactly everything sent before the timeout) started a spurious
/// second fast retransmit that cut ssthresh to 2. Here: NewReno with ns-2's 200 ms minimum
/// RTO and the three losses above. The timer, restarted on the first partial ACK, expires
/// 200 ms later, before the ACK of the last hole arrives (2 RTT = 201.7 ms): one timeout
/// (RFC 6582 §4's accepted cost of "Impatient"), and no further fast recovery.
#[test]
fn go_back_n_duplicates_after_a_timeout_do_not_trigger_a_fast_retransmit() {
    let f = tcp(
        "variant = \"newreno\"\nbytes = 200000",
        &drop(&[60, 62, 64]),
    );
    assert_eq!((f.timeouts, f.fast_recoveries), (1, 1), "{f:?}");
    // The timer expires during the recovery: a `recovery` timeout.
    assert_eq!(timeout_states(&f), (0, 0, 1, 0));
    // Retransmitted: 60 (fast retransmit), 62 and 64 (partial ACKs), 64 again (the
    // timeout), then 162 and 163: they were still in flight when the ACK of the first
    // retransmission of 64 arrived and go-back-N resumed from 162.
    assert_eq!((f.retransmits, f.received_pkts), (6, 203));
}

// ---------------------------------------------------------------------------------------
// 2. SACK repairs the three holes in one round trip, NewReno needs one per hole
// ---------------------------------------------------------------------------------------

/// The transfer ends with the lost window: 68 segments, 60, 62 and 64 lost. Then the
/// completion time is the end of the loss recovery, and the lossless run gives the origin.
///
/// Segments 64..67 leave back to back (slow start sends two per ACK into a busy link), so
/// their ACKs return `SEG_TX` apart. The ACK caused by 65 is the third duplicate: fast
/// retransmit at t_F; in the lossless run the last ACK (from 67) arrives at t_F + 2·SEG_TX.
/// - NewReno: 60 at t_F, partial ACK at t_F + RTT → 62, partial ACK at t_F + 2 RTT → 64,
///   full ACK at t_F + 3 RTT: one round trip per lost segment.
/// - SACK (RFC 6675): 60 is lost (3 SACKed segments above) at t_F, 62 when 66 is SACKed
///   (t_F + SEG_TX; pipe = {64, 67, retransmitted 60} = 3 < cwnd = 8/2 = 4), 64 when 67 is
///   (t_F + 2 SEG_TX), so the last hole is acknowledged at t_F + 2 SEG_TX + RTT: one round
///   trip for all three.
///
/// Hence, exactly: completion − lossless = 3 RTT − 2 SEG_TX = 300.896 ms (NewReno) and
/// RTT = 100.832 ms (SACK), i.e. recovery takes 3.00 RTT and 1.02 RTT.
#[test]
fn sack_repairs_three_holes_in_one_round_trip_newreno_needs_three() {
    let flow = |v: &str| format!("variant = \"{v}\"\nbytes = 68000\nmin_rto = \"1s\"");
    let lossless = completion(&tcp(&flow("newreno"), ""));
    for v in ["newreno", "sack"] {
        assert_close(completion(&tcp(&flow(v), "")), lossless, v);
    }
    let t_fr = lossless - 2.0 * SEG_TX;
    let newreno = tcp(&flow("newreno"), &drop(&[60, 62, 64]));
    let sack = tcp(&flow("sack"), &drop(&[60, 62, 64]));
    for f in [&newreno, &sack] {
        assert_eq!(
            (f.timeouts, f.fast_recoveries, f.retransmits),
            (0, 1, 3),
            "{f:?}"
        );
    }
    let (nr, sk) = (completion(&newreno) - t_fr, completion(&sack) - t_fr);
    assert_close(
        nr,
        3.0 * RTT,
        "NewReno recovery: fast retransmit to full ACK",
    );
    assert_close(
        sk,
        RTT + 2.0 * SEG_TX,
        "SACK recovery: fast retransmit to full ACK",
    );
    // The same in round trips: about one per lost segment against one in all.
    assert!((nr / RTT - 3.0).abs() < 0.01 && (sk / RTT - 1.0).abs() < 0.02);
}

// ---------------------------------------------------------------------------------------
// 3. ECN: one reduction per window of marks, never a retransmission
// ---------------------------------------------------------------------------------------

/// Four marks within one window: segments 40..46 leave within 4 ms; the ECE for 40 halves
/// the window (FlightSize 42 → cwnd = ssthresh = 21) when segments up to 81 have been
/// sent, and the ECE ACKs for 42..46 acknowledge data sent before that reaction, so they
/// are ignored. Nothing is lost, so nothing is retransmitted.
#[test]
fn marks_in_one_window_cause_one_reduction_and_no_retransmission() {
    let ecn = "bytes = 300000\necn = true";
    let f = tcp(ecn, &mark(&[40, 42, 44, 46]));
    assert_eq!((f.ecn_reactions, f.marks_received), (1, 4), "{f:?}");
    assert_eq!((f.retransmits, f.timeouts, f.fast_recoveries), (0, 0, 0));
    assert_eq!((f.sent_pkts, f.received_pkts, f.lost_pkts), (300, 300, 0));
    // The reduction is real: the marked transfer is slower than the unmarked one.
    assert!(completion(&f) > completion(&tcp(ecn, "")) + RTT);
    // Marks far apart: segment 250 is sent long after segment 81, the highest sent at the
    // first reaction, was acknowledged. Two windows, two reductions.
    let f = tcp("bytes = 400000\necn = true", &mark(&[40, 250]));
    assert_eq!((f.ecn_reactions, f.marks_received), (2, 2), "{f:?}");
    assert_eq!((f.retransmits, f.timeouts, f.fast_recoveries), (0, 0, 0));
}

/// A scripted mark on a Not-ECT packet leaves it unchanged (RFC 3168: only ECT packets
/// are marked), so a flow without `ecn` sees no CE and does not react.
#[test]
fn marks_do_not_touch_a_flow_that_is_not_ecn_capable() {
    let plain = tcp("bytes = 300000", "");
    let f = tcp("bytes = 300000", &mark(&[40, 42, 44, 46]));
    assert_eq!(
        (f.ecn_reactions, f.marks_received, f.retransmits),
        (0, 0, 0)
    );
    assert_close(completion(&f), completion(&plain), "unchanged transfer");
}

/// `ecn_retransmits` (issue 11): a one-segment transfer whose first transmission (data
/// packet 0) is lost and whose retransmission, at the initial RTO, is data packet 1, which
/// the script marks. By default the retransmission is Not-ECT (RFC 3168 §6.1.5), so the
/// mark leaves it unchanged (a queue's mark would drop it); with `ecn_retransmits` it is
/// ECT(0), as every data packet of ns-2's `TcpAgent::output`, and arrives CE.
#[test]
fn retransmissions_are_ecn_capable_only_with_ecn_retransmits() {
    let loss = r#"loss = { type = "scripted", drop = [0], mark = [1] }"#;
    let base = "bytes = 1000
ecn = true
initial_rto = \"1s\"";
    for (extra, marks) in [
        ("", 0),
        ("ecn_retransmits = false", 0),
        ("ecn_retransmits = true", 1),
    ] {
        let f = tcp(&format!("{base}\n{extra}"), loss);
        assert_eq!((f.retransmits, f.timeouts), (1, 1), "{extra}: {f:?}");
        assert_eq!(f.marks_received, marks, "{extra}: {f:?}");
        // Delivered after one RTO and one round trip either way.
        assert_close(completion(&f), 1.0 + RTT, extra);
    }
    // First transmissions are ECT either way: the same marks, the same reactions.
    let plain = tcp("bytes = 300000\necn = true", &mark(&[40, 42]));
    let ns2 = tcp(
        "bytes = 300000\necn = true\necn_retransmits = true",
        &mark(&[40, 42]),
    );
    assert_eq!(
        (plain.marks_received, plain.ecn_reactions, plain.sent_pkts),
        (ns2.marks_received, ns2.ecn_reactions, ns2.sent_pkts)
    );
    assert_eq!(completion(&plain), completion(&ns2));
    // Only meaningful with ECN.
    for field in ["ecn_retransmits", "ecn_backoff"] {
        let err = load(&path(&format!("{field} = true"), "", "10s")).unwrap_err();
        assert!(
            format!("{err}").contains(&format!("flows[0].{field}"))
                && format!("{err}").contains("only meaningful with ecn = true"),
            "{err}"
        );
    }
}

/// Regression (fixed): a loss and a mark in one window are one congestion event (RFC 3168
/// §6.1.2: reduce once per window; set CWR after *any* reduction). Segment 100 is lost and
/// 150 (same window: about 100 segments were in flight at the fast retransmit) is marked.
/// Before the fix the sender never sent CWR after a fast retransmit, so the receiver kept
/// echoing ECE and the first ACK after recovery halved the window a second time
/// (ssthresh ≈ 51 → ≈ 25).
#[test]
fn a_loss_and_a_mark_in_one_window_reduce_the_window_once() {
    for v in ["reno", "newreno", "sack"] {
        let f = tcp(
            &format!("variant = \"{v}\"\nbytes = 400000\nmax_window = 200\necn = true"),
            r#"loss = { type = "scripted", drop = [100], mark = [150] }"#,
        );
        assert_eq!(f.marks_received, 1, "{v}");
        assert_eq!(
            (
                f.fast_recoveries,
                f.ecn_reactions,
                f.retransmits,
                f.timeouts
            ),
            (1, 0, 1, 0),
            "{v}: {f:?}"
        );
    }
}

// ---------------------------------------------------------------------------------------
// 4. The retransmission timer backs off exponentially
// ---------------------------------------------------------------------------------------

/// A one-segment transfer whose first four transmissions are lost: no RTT sample is ever
/// taken, so the RTO is initial_rto = 1 s, doubled at each expiry (RFC 6298 §5.5). The
/// retransmissions leave at 1, 1+2, 1+2+4 and 1+2+4+8 = 15 s; the last one arrives and is
/// acknowledged one RTT later. With max_rto = 5 s the fourth gap is 5 s: 12 s.
#[test]
fn rto_doubles_at_each_expiry_until_max_rto() {
    let loss = drop(&[0, 1, 2, 3]);
    for (max_rto, last_retransmission) in [("60s", 15.0), ("5s", 12.0)] {
        let f = tcp(
            &format!("bytes = 1000\ninitial_rto = \"1s\"\nmax_rto = \"{max_rto}\""),
            &loss,
        );
        assert_eq!((f.timeouts, f.retransmits, f.lost_pkts), (4, 4, 4), "{f:?}");
        // Nothing came back: the first timeout is `open`, the next three find the timer's
        // own retransmission lost (`loss`).
        assert_eq!(timeout_states(&f), (1, 0, 0, 3));
        assert_close(completion(&f), last_retransmission + RTT, max_rto);
    }
}

/// The path goes dark in the middle of a 200-segment transfer: the 62 segments 60..=121
/// (everything sent before the ACKs stop) are lost, plus the first j retransmissions of
/// segment 60. No duplicate ACK ever arrives, so only the timer recovers: j + 1 timeouts.
/// The RTO is min_rto = 1 s (SRTT + 4·RTTVAR is far below it), and everything after the
/// retransmission that gets through is the same as for j = 0 (same state: cwnd 1,
/// ssthresh 31, no RTT sample yet), only later by the extra backoff: the completion
/// times differ by exactly 2, 4 and 8 s, or 2, 3 and 3 s with max_rto = 3 s.
#[test]
fn a_dark_path_gives_repeated_timeouts_spaced_by_the_doubling_rto() {
    for (max_rto, extra_gaps) in [("60s", [2.0, 4.0, 8.0]), ("3s", [2.0, 3.0, 3.0])] {
        let flow = format!("bytes = 200000\nmin_rto = \"1s\"\nmax_rto = \"{max_rto}\"");
        let mut previous = None;
        for j in 0..4u64 {
            let lost: Vec<u64> = (60..=121 + j).collect();
            let f = tcp(&flow, &drop(&lost));
            assert_eq!((f.timeouts, f.fast_recoveries), (j + 1, 0), "{f:?}");
            // The whole window lost (no duplicate ACK), then j lost copies of segment 60.
            assert_eq!(timeout_states(&f), (1, 0, 0, j));
            // Go back N resends 60..=121 once after the last timeout, plus j earlier copies
            // of 60: every retransmission but none spurious.
            assert_eq!(
                (f.retransmits, f.lost_pkts, f.received_pkts),
                (62 + j, 62 + j, 200)
            );
            let t = completion(&f);
            if let Some(p) = previous {
                assert_close(t - p, extra_gaps[j as usize - 1], "extra backoff");
            }
            previous = Some(t);
        }
    }
}

// ---------------------------------------------------------------------------------------
// 5. Conservation of data and ACK packets with random loss in both directions
// ---------------------------------------------------------------------------------------

/// h1 — r1 — h2 with Bernoulli loss (p = 1%) on both links, in both directions, so data
/// and ACKs are lost; the 20-packet bottleneck buffer (r1 → h2) also overflows. Three TCP flows
/// (a finite NewReno transfer, a bulk Reno flow started later, a bulk SACK flow with
/// delayed ACKs in the other direction, sharing queues with the others' ACKs) and a CBR
/// flow. The engine checks sent = received + dropped + lost + in flight per flow, for data
/// and ACKs separately, at the end of every run; here it must return Ok for five seeds,
/// and the flow and queue summaries must agree with each other.
#[test]
fn conservation_holds_for_data_and_acks_under_random_loss() {
    let scenario = |seed: u64| {
        format!(
            r#"
schema_version = 1
[simulation]
duration = "20s"
seed = {seed}
[[nodes]]
name = "h1"
type = "host"
[[nodes]]
name = "r1"
type = "router"
[[nodes]]
name = "h2"
type = "host"
[[links]]
a = "h1"
b = "r1"
bandwidth = "100Mbps"
delay = "5ms"
loss = {{ type = "bernoulli", p = 0.01 }}
queue = {{ limit_pkts = 1000 }}
[[links]]
a = "r1"
b = "h2"
bandwidth = "10Mbps"
delay = "20ms"
loss = {{ type = "bernoulli", p = 0.01 }}
queue = {{ limit_pkts = 20 }}
[[flows]]
name = "finite"
type = "tcp"
src = "h1"
dst = "h2"
packet_size = 1000
bytes = 300000
[[flows]]
name = "reno"
type = "tcp"
variant = "reno"
src = "h1"
dst = "h2"
packet_size = 1000
start = "1s"
[[flows]]
name = "sack_delack"
type = "tcp"
variant = "sack"
src = "h2"
dst = "h1"
packet_size = 1000
delayed_ack = true
[[flows]]
name = "cbr"
type = "cbr"
src = "h1"
dst = "h2"
rate = "8Mbps"
packet_size = 1000
"#
        )
    };
    for seed in 1..=5 {
        let r = run_ok(&scenario(seed));
        let flow = |n: &str| r.flows.iter().find(|f| f.name == n).unwrap();
        for f in &r.flows {
            // What is not received, dropped or lost is still in flight: never negative.
            assert!(
                f.sent_pkts >= f.received_pkts + f.dropped_pkts + f.lost_pkts,
                "{f:?}"
            );
        }
        // The finite transfer completed long before the end: nothing of it is in flight,
        // so its data balance is exact, every segment was delivered (goodput = 300 kB),
        // and every extra transmission is a counted retransmission.
        let fin = flow("finite");
        assert!(fin.completion_time_s.is_some(), "seed {seed}: {fin:?}");
        assert_eq!(
            fin.sent_pkts,
            fin.received_pkts + fin.dropped_pkts + fin.lost_pkts,
            "seed {seed}"
        );
        assert_eq!(fin.sent_pkts, 300 + fin.retransmits, "seed {seed}");
        let goodput_bytes = fin.goodput_bps * r.measured_s / 8.0;
        assert!((goodput_bytes - 300_000.0).abs() < 1e-6, "seed {seed}");
        assert!(
            fin.lost_pkts > 0 && fin.acks_lost > 0,
            "seed {seed}: {fin:?}"
        );
        // Without delayed ACKs every data packet that arrives is answered by one ACK.
        for f in [fin, flow("reno")] {
            assert_eq!(f.acks_sent, f.received_pkts, "seed {seed}: {f:?}");
        }
        // With delayed ACKs at most one arrival waits unacknowledged per ACK sent, plus
        // one at the end: received <= 2·acks + 1; and fewer ACKs than arrivals.
        let d = flow("sack_delack");
        assert!(
            d.received_pkts <= 2 * d.acks_sent + 1 && d.acks_sent < d.received_pkts,
            "seed {seed}: {d:?}"
        );
        // Flow and queue accounting agree: every drop and every loss on a wire is some
        // flow's data packet or ACK.
        let flows_missing: u64 = r
            .flows
            .iter()
            .map(|f| f.dropped_pkts + f.lost_pkts + f.acks_lost)
            .sum();
        let queues_missing: u64 = r
            .queues
            .iter()
            .map(|q| q.dropped.iter().sum::<u64>() + q.lost_on_link)
            .sum();
        assert_eq!(flows_missing, queues_missing, "seed {seed}");
        assert!(
            r.queues
                .iter()
                .map(|q| q.dropped.iter().sum::<u64>())
                .sum::<u64>()
                > 0
        );
    }
}

// ---------------------------------------------------------------------------------------
// 6. Wireless NewReno: a dupack-detected loss does not reduce ssthresh
// ---------------------------------------------------------------------------------------

/// 1000 segments, segment 300 lost while the flow is window-limited at max_window = 50
/// (cwnd ≈ 55 by then). Both responses retransmit once, by fast retransmit. Neither can
/// send new data during recovery (the 50-segment window is pinned at 300), so at the full
/// ACK FlightSize is 0 and RFC 6582's min(ssthresh, FlightSize + 1) restarts both at
/// cwnd 2 in slow start: identical until cwnd reaches 25. Then "halve" (ssthresh =
/// 50/2 = 25) grows by one segment per RTT while "retransmit_only" (ssthresh ≈ 55) doubles
/// to the 50-segment cap within one RTT. With ≈ 600 segments left at that point, halve
/// needs k RTTs with 25k + k(k−1)/2 ≥ 600, k ≈ 18, against 1 + 575/50 ≈ 13 for
/// retransmit_only: about 5 RTTs slower. We require 4 RTTs (observed 5.9).
#[test]
fn retransmit_only_recovers_a_dupack_loss_without_reducing_ssthresh() {
    let flow =
        |resp: &str| format!("bytes = 1000000\nmax_window = 50\ndupack_response = \"{resp}\"");
    let loss = drop(&[300]);
    let halve = tcp(&flow("halve"), &loss);
    let keep = tcp(&flow("retransmit_only"), &loss);
    for f in [&halve, &keep] {
        assert_eq!(
            (
                f.fast_recoveries,
                f.retransmits,
                f.timeouts,
                f.received_pkts
            ),
            (1, 1, 0, 1000),
            "{f:?}"
        );
    }
    let (th, tk) = (completion(&halve), completion(&keep));
    assert!(th - tk > 4.0 * RTT, "halve {th} s, retransmit_only {tk} s");
    // Without the loss both are the same flow.
    assert_close(
        completion(&tcp(&flow("halve"), "")),
        completion(&tcp(&flow("retransmit_only"), "")),
        "lossless",
    );
}

// ---------------------------------------------------------------------------------------
// 7. Delayed ACKs: about one ACK per two segments
// ---------------------------------------------------------------------------------------

/// 1000 segments without loss. Without delayed ACKs: exactly one ACK per segment. With
/// them (RFC 5681 §4.2, ns-2's 100 ms timer) an ACK covers two in-order segments, except
/// when the timer fires on a lone one: 2·(pair ACKs) + (timer ACKs) = 1000, so
/// acks_sent = 500 + (timer ACKs)/2. The timer fires only when a lone segment waits more
/// than 100 ms for the next, i.e. when the sender sits idle for nearly a whole round trip
/// (100.832 ms). That happens twice: in slow start, segment 4 is the odd one of the
/// 3-segment round and segment 5, sent on the ACK of 2..3, arrives 100.032 ms after it;
/// and at the very end, since an odd number of segments remains after segment 4. In
/// between, the window W ≥ 4 and the receiver never waits longer than about
/// RTT − (W − 1)·0.8 ms < 100 ms for the next segment. Hence 499 pair ACKs + 2 timer
/// ACKs = 501 ACKs: about half the 1000 segments.
#[test]
fn delayed_acks_send_about_one_ack_per_two_segments() {
    let f = tcp("bytes = 1000000", "");
    assert_eq!((f.received_pkts, f.acks_sent), (1000, 1000));
    let f = tcp("bytes = 1000000\ndelayed_ack = true", "");
    assert_eq!((f.received_pkts, f.retransmits), (1000, 0));
    assert_eq!(f.acks_sent, 501, "{f:?}");
}
