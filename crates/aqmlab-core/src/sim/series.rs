//! Sampled time series stored as the columns of their long table.
//!
//! A run samples every queue (and every traced flow) at the same instants, and its results
//! give them as a long table: one row per (entity, sample time), one column per metric.
//! Storing each metric as that column from the start (entity-major, every entity's samples
//! at their final place, NaN where an entity has no such metric) lets the table take the
//! columns as they are: no copy at the end of the run, no per-series vector and name
//! strings, one allocation per metric of exactly the size the run needs.

/// The series of several entities (queues, or traced flows), all sampled `samples` times.
#[derive(Clone, Debug, Default)]
pub struct LongSeries {
    samples: usize,
    entities: Vec<String>,
    /// Every metric, in order of first appearance over the entities.
    metrics: Vec<&'static str>,
    /// Per entity, the indices in `metrics` of the metrics it records, in its own order.
    own: Vec<Vec<u16>>,
    /// Per metric, entities × samples values: entity e's sample k at e·samples + k.
    columns: Vec<Vec<f64>>,
}

/// One entity's series of one metric.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Series<'a> {
    /// The queue's or the flow's name.
    pub name: &'a str,
    pub metric: &'a str,
    pub values: &'a [f64],
}

impl LongSeries {
    /// Room for entities sampled `samples` times each.
    pub(super) fn new(samples: usize) -> Self {
        LongSeries {
            samples,
            ..Default::default()
        }
    }

    /// Adds an entity recording `metrics` (in this order at each sample); returns its
    /// index. Every entity is added before the first sample.
    pub(super) fn add(&mut self, name: String, metrics: &[&'static str]) -> usize {
        debug_assert!(self.columns.is_empty(), "entity added after sampling began");
        let own = metrics
            .iter()
            // Names are mostly the same constants: their addresses settle most comparisons.
            .map(
                |&m| match (self.metrics.iter()).position(|&x| std::ptr::eq(x, m) || x == m) {
                    Some(i) => i as u16,
                    None => {
                        self.metrics.push(m);
                        (self.metrics.len() - 1) as u16
                    }
                },
            )
            .collect();
        self.entities.push(name);
        self.own.push(own);
        self.entities.len() - 1
    }

    /// Allocates the columns (NaN-filled): called once, after the last `add`.
    pub(super) fn allocate(&mut self) {
        let len = self.entities.len() * self.samples;
        self.columns = vec![vec![f64::NAN; len]; self.metrics.len()];
    }

    /// Records entity `e`'s sample number `k`: `values` in the order given to `add`.
    #[inline]
    pub(super) fn record(&mut self, e: usize, k: usize, values: &[f64]) {
        debug_assert!(k < self.samples);
        let at = e * self.samples + k;
        for (&m, &v) in self.own[e].iter().zip(values) {
            self.columns[m as usize][at] = v;
        }
    }

    /// Every entity's series, entities in order, each entity's metrics in its own order.
    pub fn series(&self) -> impl Iterator<Item = Series<'_>> {
        let s = self.samples;
        (self.entities.iter().zip(&self.own).enumerate()).flat_map(move |(e, (name, own))| {
            own.iter().map(move |&m| Series {
                name,
                metric: self.metrics[m as usize],
                values: &self.columns[m as usize][e * s..(e + 1) * s],
            })
        })
    }

    pub fn entities(&self) -> &[String] {
        &self.entities
    }

    pub fn samples(&self) -> usize {
        self.samples
    }

    /// The metric names and their long-table columns, given away.
    pub(super) fn into_columns(self) -> (Vec<String>, Vec<(&'static str, Vec<f64>)>) {
        let columns = if self.columns.is_empty() {
            vec![vec![]; self.metrics.len()]
        } else {
            self.columns
        };
        (
            self.entities,
            self.metrics.into_iter().zip(columns).collect(),
        )
    }
}

/// Equal when the same entities record the same metrics with equal values (IEEE `==`, as a
/// derived comparison of the series would): the NaN filling absent metrics is not a value.
impl PartialEq for LongSeries {
    fn eq(&self, other: &Self) -> bool {
        self.samples == other.samples
            && self.entities == other.entities
            && self.series().eq(other.series())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_are_entity_major_with_nan_where_an_entity_has_no_such_metric() {
        let mut ls = LongSeries::new(2);
        let a = ls.add("a".into(), &["x"]);
        let b = ls.add("b".into(), &["x", "y"]);
        ls.allocate();
        for k in 0..2 {
            ls.record(a, k, &[1.0 + k as f64]);
            ls.record(b, k, &[3.0 + k as f64, 5.0 + k as f64]);
        }
        let got: Vec<_> = ls.series().map(|s| (s.name, s.metric, s.values)).collect();
        assert_eq!(
            got,
            [
                ("a", "x", &[1.0, 2.0][..]),
                ("b", "x", &[3.0, 4.0][..]),
                ("b", "y", &[5.0, 6.0][..])
            ]
        );
        assert_eq!(ls, ls.clone());
        let (entities, cols) = ls.into_columns();
        assert_eq!(entities, ["a", "b"]);
        assert_eq!(cols[0], ("x", vec![1.0, 2.0, 3.0, 4.0]));
        assert_eq!(cols[1].0, "y");
        assert!(cols[1].1[0].is_nan() && cols[1].1[1].is_nan());
        assert_eq!(cols[1].1[2..], [5.0, 6.0]);
    }
}
