//! Measurement → named tables: the one place that names the columns of a run's results.
//!
//! `RunResults` keeps typed summaries for Rust callers; `RunResults::tables` lays them out
//! as the tables that leave the engine (queues, flows, the two time-series kinds as long
//! tables, the queue-length distribution), followed by the tables components add. The
//! binding and Python only iterate over what is here.

use super::{FlowSummary, LongSeries, QueueSummary, RunResults};
use crate::aqm::Reason;
use crate::packet::Colour;
use crate::queue::{ColourCounters, OutputQueue};
use crate::table::{merge_by_name, Column, Table};

/// The names of the tables every run returns, in order.
pub const STANDARD_TABLES: [&str; 5] = [
    "queues",
    "flows",
    "timeseries",
    "flow_timeseries",
    "queue_dist",
];

/// The derived form, with `captures` left out when there are none: a run without captures
/// prints (and so digests, tests/golden.rs) as it did before they existed.
impl std::fmt::Debug for RunResults {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut d = f.debug_struct("RunResults");
        d.field("queues", &self.queues)
            .field("flows", &self.flows)
            .field("timeseries", &self.timeseries)
            .field("events", &self.events)
            .field("packets", &self.packets)
            .field("measured_s", &self.measured_s)
            .field("extra_tables", &self.extra_tables);
        if !self.captures.is_empty() {
            d.field("captures", &self.captures);
        }
        d.finish()
    }
}

impl RunResults {
    /// Every result table: the standard ones (`STANDARD_TABLES`), then those components
    /// added (`extra_tables`).
    pub fn tables(&self) -> Vec<Table> {
        self.clone().into_tables()
    }

    /// `tables()`, taking the results apart: the time series become their tables' columns
    /// without a copy.
    pub fn into_tables(self) -> Vec<Table> {
        let RunResults {
            mut queues,
            mut flows,
            timeseries: ts,
            measured_s,
            extra_tables,
            ..
        } = self;
        // The tables that copy the queues' names are made first, so that the queues table
        // can then take them (at 10 000 flows: 200 000 strings not copied).
        let dist = queue_dist_table(&queues);
        let colours = colour_table(&queues, measured_s);
        let mut out = vec![
            queue_table(&mut queues),
            flow_table(&mut flows),
            long_table(
                "timeseries",
                "queue",
                &ts.time_s,
                ts.queues,
                &["qlen_pkts", "qlen_bytes"],
            ),
            long_table(
                "flow_timeseries",
                "flow",
                &ts.time_s,
                ts.flows,
                &super::FLOW_METRICS,
            ),
            dist,
        ];
        out.extend(colours);
        out.extend(extra_tables);
        out
    }
}

/// The queue counters by drop precedence, one row per (queue, colour) that saw arrivals.
/// Only when some packet was not green (a marker coloured it): otherwise it would repeat
/// the queues table.
fn colour_table(q: &[QueueSummary], measured_s: f64) -> Option<Table> {
    let coloured = |x: &QueueSummary| x.by_colour[1..].iter().any(|c| c.arrivals > 0);
    if !q.iter().any(coloured) {
        return None;
    }
    let rows: Vec<(&str, Colour, &ColourCounters)> = q
        .iter()
        .flat_map(|x| {
            Colour::ALL
                .iter()
                .map(move |&c| (x.name.as_str(), c, &x.by_colour[c as usize]))
        })
        .filter(|(_, _, k)| k.arrivals > 0)
        .collect();
    let mut t = Table::new("queue_colours");
    t.column_of("queue", &rows, |r| r.0.to_string())
        .column_of("colour", &rows, |r| r.1.name().to_string())
        .column_of("arrivals", &rows, |r| r.2.arrivals)
        .column_of("enqueued", &rows, |r| r.2.enqueued)
        .column_of("dequeued", &rows, |r| r.2.dequeued)
        .column_of("throughput_bps", &rows, |r| {
            r.2.dequeued_bytes as f64 * 8.0 / measured_s
        });
    reason_columns(&mut t, &rows, |r| (&r.2.dropped, &r.2.marked));
    Some(t)
}

/// A column of strings taken out of the rows (left empty there).
fn taken<R>(rows: &mut [R], field: impl Fn(&mut R) -> &mut String) -> Column {
    Column::Str(rows.iter_mut().map(|r| std::mem::take(field(r))).collect())
}

/// The queues' summaries as a table; their strings are taken, not copied.
fn queue_table(q: &mut [QueueSummary]) -> Table {
    let mut t = Table::new("queues");
    t.push("name", taken(q, |x| &mut x.name))
        .push("link", taken(q, |x| &mut x.link))
        .push("from", taken(q, |x| &mut x.from))
        .push("to", taken(q, |x| &mut x.to))
        .push("aqm", taken(q, |x| &mut x.aqm));
    let q = &*q;
    t.column_of("arrivals", q, |x| x.arrivals)
        .column_of("enqueued", q, |x| x.enqueued)
        .column_of("dequeued", q, |x| x.dequeued)
        .column_of("lost_on_link", q, |x| x.lost_on_link)
        .column_of("mean_queue_pkts", q, |x| x.mean_queue_pkts)
        .column_of("mean_queue_at_arrival_pkts", q, |x| {
            x.mean_queue_at_arrival_pkts
        })
        .column_of("var_queue_pkts", q, |x| x.var_queue_pkts)
        .column_of("mean_queue_bytes", q, |x| x.mean_queue_bytes)
        .column_of("var_queue_bytes", q, |x| x.var_queue_bytes)
        .column_of("max_queue_pkts", q, |x| x.max_queue_pkts)
        .column_of("max_queue_bytes", q, |x| x.max_queue_bytes)
        .column_of("utilization", q, |x| x.utilization)
        .column_of("throughput_bps", q, |x| x.throughput_bps)
        .column_of("mean_sojourn_s", q, |x| x.mean_sojourn_s)
        .column_of("p50_sojourn_s", q, |x| x.p50_sojourn_s)
        .column_of("p90_sojourn_s", q, |x| x.p90_sojourn_s)
        .column_of("p99_sojourn_s", q, |x| x.p99_sojourn_s)
        .column_of("max_sojourn_s", q, |x| x.max_sojourn_s);
    reason_columns(&mut t, q, |x| (&x.dropped, &x.marked));
    t
}

/// `dropped_<reason>` and `marked_<reason>` for every reason, in `Reason::ALL` order.
fn reason_columns<R>(t: &mut Table, rows: &[R], counts: impl Fn(&R) -> (&Counts, &Counts)) {
    for (k, reason) in Reason::ALL.iter().enumerate() {
        let name = reason.name();
        t.column_of(&format!("dropped_{name}"), rows, |x| counts(x).0[k])
            .column_of(&format!("marked_{name}"), rows, |x| counts(x).1[k]);
    }
}

type Counts = [u64; crate::aqm::NUM_REASONS];

/// The flows' summaries as a table; their strings are taken, not copied.
fn flow_table(f: &mut [FlowSummary]) -> Table {
    let mut t = Table::new("flows");
    t.push("name", taken(f, |x| &mut x.name))
        .push("kind", taken(f, |x| &mut x.kind))
        .push("src", taken(f, |x| &mut x.src))
        .push("dst", taken(f, |x| &mut x.dst));
    let f = &*f;
    t.column_of("sent_pkts", f, |x| x.sent_pkts)
        .column_of("sent_bytes", f, |x| x.sent_bytes)
        .column_of("received_pkts", f, |x| x.received_pkts)
        .column_of("received_bytes", f, |x| x.received_bytes)
        .column_of("dropped_pkts", f, |x| x.dropped_pkts)
        .column_of("lost_pkts", f, |x| x.lost_pkts)
        .column_of("goodput_bps", f, |x| x.goodput_bps)
        .column_of("loss_rate", f, |x| x.loss_rate)
        .column_of("mean_delay_s", f, |x| x.mean_delay_s)
        .column_of("max_delay_s", f, |x| x.max_delay_s)
        .column_of("throughput_bps", f, |x| x.throughput_bps)
        .column_of("retransmits", f, |x| x.retransmits)
        .column_of("timeouts", f, |x| x.timeouts)
        .column_of("timeouts_open", f, |x| x.timeouts_open)
        .column_of("timeouts_disorder", f, |x| x.timeouts_disorder)
        .column_of("timeouts_recovery", f, |x| x.timeouts_recovery)
        .column_of("timeouts_loss", f, |x| x.timeouts_loss)
        .column_of("fast_recoveries", f, |x| x.fast_recoveries)
        .column_of("ecn_reactions", f, |x| x.ecn_reactions)
        .column_of("marks_received", f, |x| x.marks_received)
        .column_of("acks_sent", f, |x| x.acks_sent)
        .column_of("acks_lost", f, |x| x.acks_lost)
        .column_of("completion_time_s", f, |x| x.completion_time_s);
    t
}

/// Fraction of the measured time each queue held exactly `n_pkts` waiting packets.
fn queue_dist_table(q: &[QueueSummary]) -> Table {
    let (mut queue, mut n, mut fraction) = (vec![], vec![], vec![]);
    for (i, x) in q.iter().enumerate() {
        for (k, p) in x.distribution.iter().enumerate() {
            queue.push(i as u32);
            n.push(k as u64);
            fraction.push(*p);
        }
    }
    let names = q.iter().map(|x| x.name.clone()).collect();
    let mut t = Table::new("queue_dist");
    t.push("queue", Column::dict(queue, names))
        .push("n_pkts", Column::U64(n))
        .push("fraction", Column::F64(fraction));
    t
}

/// A long time-series table: one row per (entity, sample time), entities in order, then
/// `time_s` ascending; the columns are `time_s`, `key` (the entity's name), then every
/// metric in order of first appearance, NaN where an entity has no such metric (e.g. an
/// AQM variable on a DropTail queue). Without any entity, the columns are `time_s`, `key`
/// and `empty_metrics`.
fn long_table(
    name: &str,
    key: &str,
    time_s: &[f64],
    series: LongSeries,
    empty_metrics: &[&'static str],
) -> Table {
    assert_eq!(series.samples(), time_s.len(), "{name}: samples and times");
    let (entities, mut columns) = series.into_columns();
    if entities.is_empty() {
        columns = empty_metrics.iter().map(|&m| (m, vec![])).collect();
    }
    let samples = time_s.len();
    let codes = (0..entities.len() as u32)
        .flat_map(|e| std::iter::repeat_n(e, samples))
        .collect();
    let mut t = Table::new(name);
    t.push("time_s", Column::F64(time_s.repeat(entities.len())))
        .push(key, Column::dict(codes, entities));
    for (metric, col) in columns {
        t.push(metric, Column::F64(col));
    }
    t
}

/// The tables the queues' components (AQMs) add, each with a `queue` column first; the
/// tables of one name from several queues make one table, rows in queue order.
pub(super) fn component_tables<'q>(
    queues: impl Iterator<Item = (String, &'q OutputQueue)>,
) -> Vec<Table> {
    let mut all = vec![];
    for (qname, q) in queues {
        for t in q.tables() {
            let mut with_queue = Table::new(t.name.clone());
            with_queue.push("queue", Column::Str(vec![qname.clone(); t.len()]));
            for (name, c) in t.columns {
                with_queue.push(name, c);
            }
            all.push(with_queue);
        }
    }
    // Tables of one name always come from one component type, so they agree by
    // construction; a disagreement is an engine bug.
    merge_by_name(all).unwrap_or_else(|e| panic!("{e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colour_table_has_a_row_per_queue_and_colour_seen_and_only_if_some_are_not_green() {
        let mut a = QueueSummary {
            name: "a".into(),
            ..Default::default()
        };
        a.by_colour[0].arrivals = 5;
        let mut b = QueueSummary {
            name: "b".into(),
            ..Default::default()
        };
        b.by_colour[0].arrivals = 3;
        assert!(colour_table(&[a.clone(), b.clone()], 2.0).is_none());
        b.by_colour[2].arrivals = 4;
        b.by_colour[2].dequeued = 2;
        b.by_colour[2].dequeued_bytes = 1000;
        b.by_colour[2].dropped[Reason::Early as usize] = 2;
        let t = colour_table(&[a, b], 2.0).unwrap();
        assert_eq!(t.len(), 3);
        assert_eq!(
            t.column("queue"),
            Some(&Column::Str(vec!["a".into(), "b".into(), "b".into()]))
        );
        assert_eq!(
            t.column("colour"),
            Some(&Column::Str(vec![
                "green".into(),
                "green".into(),
                "red".into()
            ]))
        );
        assert_eq!(t.column("dropped_early"), Some(&Column::U64(vec![0, 0, 2])));
        assert_eq!(
            t.column("throughput_bps"),
            Some(&Column::F64(vec![0.0, 0.0, 4000.0]))
        );
    }

    #[test]
    fn long_table_fills_missing_metrics_with_nan_in_order_of_appearance() {
        let mut ls = LongSeries::new(2);
        ls.add("a".into(), &["x"]);
        ls.add("b".into(), &["x", "y"]);
        ls.allocate();
        for k in 0..2 {
            ls.record(0, k, &[1.0 + k as f64]);
            ls.record(1, k, &[3.0 + k as f64, 5.0 + k as f64]);
        }
        let t = long_table("ts", "queue", &[0.0, 1.0], ls, &[]);
        assert_eq!(t.names().collect::<Vec<_>>(), ["time_s", "queue", "x", "y"]);
        assert_eq!(
            t.column("time_s"),
            Some(&Column::F64(vec![0.0, 1.0, 0.0, 1.0]))
        );
        assert_eq!(
            t.column("queue").unwrap().strings(),
            ["a", "a", "b", "b"].map(String::from)
        );
        assert_eq!(t.column("x"), Some(&Column::F64(vec![1.0, 2.0, 3.0, 4.0])));
        let Some(Column::F64(y)) = t.column("y") else {
            panic!("y is f64")
        };
        assert!(y[0].is_nan() && y[1].is_nan());
        assert_eq!(&y[2..], [5.0, 6.0]);
    }

    #[test]
    fn long_table_without_entities_has_the_given_columns_and_no_rows() {
        let mut ls = LongSeries::new(2);
        ls.allocate();
        let t = long_table("ft", "flow", &[0.0, 1.0], ls, &["cwnd"]);
        assert_eq!(t.names().collect::<Vec<_>>(), ["time_s", "flow", "cwnd"]);
        assert!(t.is_empty());
    }
}
