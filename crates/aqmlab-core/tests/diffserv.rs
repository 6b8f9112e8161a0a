//! DiffServ edge conditioning end to end: a router's conditioner classifies, meters and
//! colours arrivals; queues downstream see the colours; the `aggregates` table sums the
//! flows of each class; invalid conditioners are rejected with path, value and rule.

mod common;

use aqmlab_core::scenario::load;
use aqmlab_core::table::{Column, Table};

/// Two source hosts behind edge router e1, one sink behind core router c. a0 sends CBR at
/// 2 Mb/s, a1 at 0.5 Mb/s, 1000-byte packets, for 20 s on 100 Mb/s links (no queueing
/// loss). `conditioner` is appended after e1's node table.
fn scenario(conditioner: &str) -> String {
    format!(
        r#"
schema_version = 1
[simulation]
duration = "20s"
seed = 3

[[nodes]]
name = "a0"
type = "host"
[[nodes]]
name = "a1"
type = "host"
[[nodes]]
name = "d"
type = "host"
[[nodes]]
name = "c"
type = "router"
[[nodes]]
name = "e1"
type = "router"
{conditioner}

[[links]]
a = "a0"
b = "e1"
bandwidth = "100Mbps"
delay = "1ms"
queue = {{ limit_pkts = 100 }}
[[links]]
a = "a1"
b = "e1"
bandwidth = "100Mbps"
delay = "1ms"
queue = {{ limit_pkts = 100 }}
[[links]]
a = "e1"
b = "c"
bandwidth = "100Mbps"
delay = "1ms"
queue = {{ limit_pkts = 100 }}
[[links]]
a = "c"
b = "d"
bandwidth = "100Mbps"
delay = "1ms"
queue = {{ limit_pkts = 100 }}

[[flows]]
name = "f0"
type = "cbr"
src = "a0"
dst = "d"
rate = "2Mbps"
packet_size = 1000
[[flows]]
name = "f1"
type = "cbr"
src = "a1"
dst = "d"
rate = "0.5Mbps"
packet_size = 1000
"#
    )
}

const TWO_CLASSES: &str = r#"
[[nodes.conditioners]]
capacity = "4Mbps"
[[nodes.conditioners.classes]]
name = "net0"
precedence = 1
meter = { type = "token_bucket", cir = "1Mbps", cbs = 10000 }
[[nodes.conditioners.classes]]
name = "net1"
precedence = 1
meter = { type = "token_bucket", cir = "1Mbps", cbs = 10000 }
[[nodes.conditioners.policy]]
src = "a0"
class = "net0"
[[nodes.conditioners.policy]]
src = "a1"
class = "net1"
"#;

fn col_u64(t: &Table, name: &str) -> Vec<u64> {
    match &t.columns.iter().find(|(n, _)| n == name).unwrap().1 {
        Column::U64(v) => v.clone(),
        c => panic!("{name}: {c:?}"),
    }
}

fn col_f64(t: &Table, name: &str) -> Vec<f64> {
    match &t.columns.iter().find(|(n, _)| n == name).unwrap().1 {
        Column::F64(v) => v.clone(),
        c => panic!("{name}: {c:?}"),
    }
}

fn table<'a>(tables: &'a [Table], name: &str) -> &'a Table {
    tables
        .iter()
        .find(|t| t.name == name)
        .unwrap_or_else(|| panic!("no table {name}"))
}

/// The token bucket admits CIR·T + CBS bytes as green: over 20 s at 1 Mb/s, 2 500 000 +
/// 10 000 bytes, i.e. 2510 of f0's 5000 packets (exact up to the one packet in flight at
/// the end); f1 below its CIR is all green. Downstream, the e1->c queue counts the same
/// colours, and the aggregates table sums each class's one flow.
#[test]
fn a_token_bucket_edge_colours_the_excess_and_the_core_sees_it() {
    if common::skip_in_debug("a_token_bucket_edge_colours_the_excess_and_the_core_sees_it") {
        return;
    }
    let r = common::run(&scenario(TWO_CLASSES));
    let tables = r.tables();
    let agg = table(&tables, "aggregates");
    assert_eq!(col_u64(agg, "flows"), [1, 1]);
    let green = col_u64(agg, "green_pkts");
    let red = col_u64(agg, "red_pkts");
    assert_eq!(col_u64(agg, "yellow_pkts"), [0, 0]);
    assert!((2509..=2510).contains(&green[0]), "{green:?}");
    assert_eq!(green[0] + red[0], 5000);
    assert_eq!((green[1], red[1]), (1250, 0));
    // Throughput over target: 2 Mb/s on 1 Mb/s, 0.5 on 1 (CBR: delivered within 3 ms).
    let ratio = col_f64(agg, "target_ratio");
    assert!(
        (ratio[0] - 2.0).abs() < 0.002 && (ratio[1] - 0.5).abs() < 0.002,
        "{ratio:?}"
    );
    // Fair shares on 4 Mb/s: 1 + (4 − 2)/2 = 2 Mb/s each; Jain over (1.0, 0.25):
    // 1.25² / (2 · 1.0625) = 0.7353.
    assert_eq!(col_f64(agg, "fair_share_bps"), [2e6, 2e6]);
    let jain = col_f64(agg, "jain_index");
    assert!((jain[0] - 1.5625 / 2.125).abs() < 0.002, "{jain:?}");
    let q = common::queue(&r, "e1->c");
    assert_eq!(q.by_colour[0].arrivals, green[0] + green[1]);
    assert_eq!(q.by_colour[2].arrivals, red[0]);
    assert!(tables.iter().any(|t| t.name == "queue_colours"));
}

/// Without a default class, packets no entry matches pass unchanged; a conditioner for
/// one input leaves the other input's packets alone.
#[test]
fn unmatched_packets_and_other_inputs_pass_unchanged() {
    if common::skip_in_debug("unmatched_packets_and_other_inputs_pass_unchanged") {
        return;
    }
    let only_a0_input = r#"
[[nodes.conditioners]]
input = "a1"
[[nodes.conditioners.classes]]
name = "all"
meter = { type = "fixed", colour = "red" }
[[nodes.conditioners.policy]]
class = "all"
"#;
    let r = common::run(&scenario(only_a0_input));
    let agg = table(&r.tables(), "aggregates").clone();
    // Only f1 (from a1) crosses the conditioned input.
    assert_eq!(col_u64(&agg, "flows"), [1]);
    assert_eq!(col_u64(&agg, "red_pkts"), [1250]);
    let q = common::queue(&r, "e1->c");
    assert_eq!(q.by_colour[0].arrivals, 5000);
    assert_eq!(q.by_colour[2].arrivals, 1250);
}

fn errors(conditioner: &str) -> Vec<(String, String, String)> {
    match load(&scenario(conditioner)) {
        Ok(_) => panic!("accepted:\n{conditioner}"),
        Err(e) => {
            e.0.into_iter()
                .map(|e| (e.path, e.value, e.message))
                .collect()
        }
    }
}

#[test]
fn invalid_conditioners_are_rejected_with_path_value_and_rule() {
    // PIR below CIR.
    let e = errors(
        r#"
[[nodes.conditioners]]
[[nodes.conditioners.classes]]
name = "x"
meter = { type = "trtcm", cir = "2Mbps", cbs = 1500, pir = "1Mbps", pbs = 1500 }
"#,
    );
    assert_eq!(e.len(), 1, "{e:?}");
    assert_eq!(e[0].0, "nodes[4].conditioners[0].classes[0].meter.pir");
    assert_eq!(e[0].1, "\"1Mbps\"");
    assert!(e[0].2.contains("must be >= cir"), "{e:?}");

    // Overlapping policy entries: "a*" and "a1" both match a1 -> d.
    let e = errors(
        r#"
[[nodes.conditioners]]
[[nodes.conditioners.classes]]
name = "x"
meter = { type = "fixed" }
[[nodes.conditioners.policy]]
src = "a*"
class = "x"
[[nodes.conditioners.policy]]
src = "a1"
dst = "d"
class = "x"
"#,
    );
    assert_eq!(e.len(), 1, "{e:?}");
    assert_eq!(e[0].0, "nodes[4].conditioners[0].policy[1]");
    assert!(
        e[0].2
            .contains("overlaps nodes[4].conditioners[0].policy[0]"),
        "{e:?}"
    );
    assert!(e[0].2.contains("\"a1\" -> \"d\""), "{e:?}");

    // A class without a meter.
    let e = errors(
        r#"
[[nodes.conditioners]]
[[nodes.conditioners.classes]]
name = "x"
"#,
    );
    assert!(e[0].2.contains("missing field `meter`"), "{e:?}");
    assert!(e[0].0.contains("conditioners"), "{e:?}");

    // Unknown class, pattern matching no host, unknown input, bad precedence.
    let e = errors(
        r#"
[[nodes.conditioners]]
input = "d"
default_class = "nope"
[[nodes.conditioners.classes]]
name = "x"
precedence = 9
meter = { type = "fixed" }
[[nodes.conditioners.policy]]
src = "zz*"
class = "y"
"#,
    );
    let paths: Vec<&str> = e.iter().map(|x| x.0.as_str()).collect();
    assert_eq!(
        paths,
        [
            "nodes[4].conditioners[0].input",
            "nodes[4].conditioners[0].classes[0].precedence",
            "nodes[4].conditioners[0].default_class",
            "nodes[4].conditioners[0].policy[0].class",
            "nodes[4].conditioners[0].policy[0].src",
        ],
        "{e:?}"
    );

    // Two conditioners on the same input.
    let e = errors(
        r#"
[[nodes.conditioners]]
[[nodes.conditioners.classes]]
name = "x"
meter = { type = "fixed" }
[[nodes.conditioners]]
input = "a0"
[[nodes.conditioners.classes]]
name = "x"
meter = { type = "fixed" }
"#,
    );
    assert_eq!(e.len(), 1, "{e:?}");
    assert_eq!(e[0].0, "nodes[4].conditioners[1].input");
    assert!(e[0].2.contains("already conditions this input"), "{e:?}");
}

#[test]
fn a_conditioner_round_trips_through_the_canonical_toml() {
    let sc = load(&scenario(TWO_CLASSES)).unwrap();
    let text = sc.to_toml();
    assert_eq!(load(&text).unwrap(), sc, "{text}");
}
