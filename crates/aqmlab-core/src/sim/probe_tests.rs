//! Probes on an idle path (the round trip is the sum of the eight serialisation and
//! propagation delays, to the nanosecond) and on a congested one (every probe a queue
//! drops is a lost row, and the counts agree with the flow's).

use crate::table::{Column, Table};
use crate::units::secs;

/// h1 —(10 Mb/s, 5 ms)— r —(2 Mb/s up, 1 Mb/s down, 7 ms)— h2, a probe from h1 to h2 of
/// 100-byte packets every 100 ms for 1 s, plus `extra` (links' and flows' tables).
fn scenario(bottleneck: &str, extra: &str) -> String {
    format!(
        r#"
schema_version = 1
[simulation]
duration = "1s"
[[nodes]]
name = "h1"
type = "host"
[[nodes]]
name = "r"
type = "router"
[[nodes]]
name = "h2"
type = "host"
[[links]]
a = "h1"
b = "r"
bandwidth = "10Mbps"
delay = "5ms"
queue = {{ limit_pkts = 100 }}
[[links]]
a = "r"
b = "h2"
bandwidth = "2Mbps"
reverse_bandwidth = "1Mbps"
delay = "7ms"
{bottleneck}
[[flows]]
name = "ping"
type = "probe"
src = "h1"
dst = "h2"
packet_size = 100
interval = "100ms"
precedence = 5
{extra}
"#
    )
}

fn probes(text: &str) -> (Table, crate::sim::RunResults) {
    let s = crate::scenario::load(text).expect("valid");
    let res = crate::sim::run(&s).expect("runs");
    let t = (res.tables().into_iter())
        .find(|t| t.name == "probes")
        .expect("a probes table");
    (t, res)
}

fn col<'a>(t: &'a Table, name: &str) -> &'a Column {
    t.column(name).expect("column")
}

#[test]
fn an_idle_paths_round_trip_is_the_sum_of_its_delays_to_the_nanosecond() {
    let (t, res) = probes(&scenario("queue = { limit_pkts = 100 }", ""));
    // 800 bits: 80 µs at 10 Mb/s, 400 µs at 2 Mb/s, 800 µs at 1 Mb/s (the reply's way).
    let rtt_ns: u64 = 80_000 + 5_000_000 + 400_000 + 7_000_000 // request
        + 800_000 + 7_000_000 + 80_000 + 5_000_000; // reply
    let Column::OptF64(rtt) = col(&t, "rtt_s") else {
        panic!("rtt_s is OptF64")
    };
    // Requests at 0, 100, ..., 900 ms: all answered within 1 s.
    assert_eq!(rtt.len(), 10);
    assert!(rtt.iter().all(|r| *r == Some(secs(rtt_ns))), "{rtt:?}");
    let Column::F64(sent) = col(&t, "sent_s") else {
        panic!()
    };
    assert_eq!(sent[3], secs(300_000_000));
    let Column::Bool(lost) = col(&t, "lost") else {
        panic!()
    };
    assert!(lost.iter().all(|l| !l));
    let f = &res.flows[0];
    assert_eq!(
        (f.kind.as_str(), f.sent_pkts, f.received_pkts),
        ("probe", 10, 10)
    );
    // One-way delay of the requests: the first half of the round trip.
    let one_way = 80_000 + 5_000_000 + 400_000 + 7_000_000;
    assert!((f.mean_delay_s - secs(one_way)).abs() < 1e-12);
    assert_eq!(f.acks_sent, 10, "every request answered");
}

#[test]
fn a_request_or_reply_lost_on_the_wire_is_a_lost_row() {
    // The scripted loss drops the third packet each way: request 2 on r->h2, and on
    // h2->r the third reply, which is request 3's (request 2 was never answered).
    let q = "queue = { limit_pkts = 100 }\nloss = { type = \"scripted\", drop = [2] }";
    let (t, _) = probes(&scenario(q, ""));
    let Column::Bool(lost) = col(&t, "lost") else {
        panic!()
    };
    let Column::U64(seq) = col(&t, "seq") else {
        panic!()
    };
    let lost_seqs: Vec<u64> = (seq.iter().zip(lost))
        .filter(|x| *x.1)
        .map(|x| *x.0)
        .collect();
    assert_eq!(lost_seqs, [2, 3]);
    assert_eq!(seq.len(), 10);
}

#[test]
fn probes_a_full_queue_drops_are_lost_rows_and_match_the_flow_counters() {
    // A 3 Mb/s CBR flood into the 2 Mb/s bottleneck with a 5-packet buffer.
    let flood = r#"
[[flows]]
name = "flood"
type = "cbr"
src = "h1"
dst = "h2"
packet_size = 1000
rate = "3Mbps"
"#;
    let (t, res) = probes(&scenario("queue = { limit_pkts = 5 }", flood));
    let Column::Bool(lost) = col(&t, "lost") else {
        panic!()
    };
    let n_lost = lost.iter().filter(|l| **l).count() as u64;
    let f = &res.flows[0];
    assert_eq!(n_lost, f.dropped_pkts + f.lost_pkts + f.acks_lost);
    // A third of the flood's packets are dropped; a probe arriving at a full queue is
    // too. Under 1 in 10 probes lost would mean drops were not seen.
    assert!(n_lost >= 1, "no probe lost behind a 150% flood: {lost:?}");
    let Column::OptF64(rtt) = col(&t, "rtt_s") else {
        panic!()
    };
    // An answered probe waited behind up to 5 flood packets (4 ms each at 2 Mb/s).
    for r in rtt.iter().flatten() {
        assert!(*r >= secs(25_360_000) && *r <= secs(25_360_000 + 6 * 4_000_000 + 1_000_000));
    }
}
