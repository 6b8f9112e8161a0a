//! The named tables a run returns (`RunResults::tables`): the standard ones laid out from
//! the typed summaries, the long time-series tables, and a table a component adds.

mod common;

use aqmlab_core::sim::STANDARD_TABLES;
use aqmlab_core::table::{Column, Table};

/// Two hosts through a router; the bottleneck r->d runs SFB (4 levels of 8 bins), one TCP flow
/// is traced, one CBR flow is not; 10 samples.
fn scenario() -> String {
    common::chain(
        r#"duration = "2s"
warmup = "500ms"
seed = 4
sample_interval = "200ms""#,
        "d",
        ("100Mbps", "1ms", "{ limit_pkts = 100 }"),
        (
            "5Mbps",
            "10ms",
            r#"{ limit_pkts = 40, aqm = { type = "sfb", levels = 4, bins = 8 } }"#,
        ),
    )
    .reverse_queue("{ limit_pkts = 40 }")
    .toml(
        r#"[[flows]]
name = "t"
type = "tcp"
src = "a"
dst = "d"
packet_size = 1000
trace = true
[[flows]]
name = "u"
type = "cbr"
src = "a"
dst = "d"
packet_size = 1000
rate = "3Mbps"
"#,
    )
    .text()
}

fn table<'a>(tables: &'a [Table], name: &str) -> &'a Table {
    tables
        .iter()
        .find(|t| t.name == name)
        .unwrap_or_else(|| panic!("no table {name}"))
}

fn strings(t: &Table, col: &str) -> Vec<String> {
    match t.column(col) {
        Some(c @ (Column::Str(_) | Column::Dict { .. })) => c.strings(),
        other => panic!("{}.{col} is not a string column: {other:?}", t.name),
    }
}

#[test]
fn standard_tables_come_first_then_the_tables_components_add() {
    let r = common::run(&scenario());
    let tables = r.tables();
    let names: Vec<&str> = tables.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names[..5], STANDARD_TABLES);
    assert_eq!(names[5..], ["sfb_bins"]);
    for t in &tables {
        for (name, c) in &t.columns {
            assert_eq!(c.len(), t.len(), "{}.{name}", t.name);
        }
    }
}

#[test]
fn summary_tables_hold_the_typed_summaries_in_order() {
    let r = common::run(&scenario());
    let tables = r.tables();
    let q = table(&tables, "queues");
    assert_eq!(
        strings(q, "name"),
        r.queues.iter().map(|x| x.name.clone()).collect::<Vec<_>>()
    );
    assert_eq!(
        q.column("arrivals"),
        Some(&Column::U64(r.queues.iter().map(|x| x.arrivals).collect()))
    );
    assert_eq!(
        q.column("dropped_early"),
        Some(&Column::U64(
            r.queues.iter().map(|x| x.dropped[1]).collect()
        ))
    );
    let names: Vec<&str> = q.names().collect();
    assert_eq!(names[..5], ["name", "link", "from", "to", "aqm"]);
    assert_eq!(
        names[names.len() - 2..],
        ["dropped_dequeue", "marked_dequeue"]
    );
    let f = table(&tables, "flows");
    assert_eq!(strings(f, "name"), ["t", "u"]);
    assert_eq!(
        f.column("completion_time_s"),
        Some(&Column::OptF64(vec![None, None]))
    );
    let d = table(&tables, "queue_dist");
    let rows: usize = r.queues.iter().map(|x| x.distribution.len()).sum();
    assert_eq!(d.len(), rows);
}

#[test]
fn time_series_are_one_long_table_per_kind() {
    let r = common::run(&scenario());
    let tables = r.tables();
    let n = r.timeseries.time_s.len();
    assert_eq!(n, 10);
    let ts = table(&tables, "timeseries");
    assert_eq!(ts.len(), r.queues.len() * n);
    let names: Vec<&str> = ts.names().collect();
    assert_eq!(names[..3], ["time_s", "queue", "qlen_pkts"]);
    assert!(
        names.contains(&"p_min"),
        "SFB's metrics are columns: {names:?}"
    );
    // Rows: each queue's samples in time order, queues in order.
    let queue = strings(ts, "queue");
    assert_eq!(queue[0], r.queues[0].name);
    assert_eq!(queue[n], r.queues[1].name);
    let Some(Column::F64(p_min)) = ts.column("p_min") else {
        panic!("p_min is f64")
    };
    for (i, q) in queue.iter().enumerate() {
        // Only the SFB queue has p_min; the others hold NaN there.
        assert_eq!(p_min[i].is_nan(), q != "r->d", "row {i} ({q})");
    }
    let ft = table(&tables, "flow_timeseries");
    assert_eq!(
        ft.names().collect::<Vec<_>>(),
        [
            "time_s",
            "flow",
            "cwnd",
            "ssthresh",
            "srtt_s",
            "delivered_pkts",
            "cwnd_base"
        ]
    );
    assert_eq!(strings(ft, "flow"), vec!["t".to_string(); n]);
}

#[test]
fn a_component_table_has_the_queue_first_and_a_row_per_bin() {
    let r = common::run(&scenario());
    let tables = r.tables();
    let bins = table(&tables, "sfb_bins");
    assert_eq!(
        bins.names().collect::<Vec<_>>(),
        ["queue", "level", "bin", "p", "qlen"]
    );
    assert_eq!(strings(bins, "queue"), vec!["r->d".to_string(); 4 * 8]);
    let Some(Column::F64(p)) = bins.column("p") else {
        panic!("p is f64")
    };
    assert!(p.iter().all(|x| (0.0..=1.0).contains(x)));
}
