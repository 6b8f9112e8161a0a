//! Which queues a run samples into its time series (`simulation.sample_queues`), and the
//! checks that keep the series within memory.
//!
//! A queue's series cost `8 x samples` values whether or not anyone looks at them. In a
//! small topology every queue is worth seeing (an M/M/1/K case's only queue sits on a
//! host's link); in a dumbbell of 10 000 flows the 40 000 host-link queues are idle and
//! would record 3·10^8 values. So the default (`"auto"`) samples every queue of a scenario
//! with at most `AUTO_ALL_LINKS` links and, above that, the queues of links between two
//! routers or switches: the bottlenecks of every topology the builders make.

use super::{NodeKind, Scenario, Validator};
use crate::check::Item;
use serde::de::{self, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::collections::HashSet;
use std::fmt;

/// Time-series samples per queue: 10^7 samples of a few columns is already ~100 MB.
const MAX_SAMPLES: u64 = 10_000_000;
/// Time-series values of a run across all queues and traced flows (f64: 400 MB).
const MAX_SERIES_VALUES: u64 = 50_000_000;
/// Up to this many links, `"auto"` samples every queue: 256 queues x 8 series x 1001
/// default samples is 2·10^6 values (16 MB).
pub const AUTO_ALL_LINKS: usize = 128;

/// `simulation.sample_queues`: a mode, or the names (`from->to`) of the queues to sample.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub enum SampleQueues {
    /// `"all"` up to `AUTO_ALL_LINKS` links, `"core"` beyond.
    #[default]
    Auto,
    All,
    /// The queues of links whose two ends are routers or switches.
    Core,
    Named(Vec<String>),
}

const MODES: &str = "\"auto\", \"all\", \"core\" or a list of queue names (\"from->to\")";

impl SampleQueues {
    pub fn is_auto(&self) -> bool {
        *self == SampleQueues::Auto
    }
}

impl Serialize for SampleQueues {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            SampleQueues::Auto => s.serialize_str("auto"),
            SampleQueues::All => s.serialize_str("all"),
            SampleQueues::Core => s.serialize_str("core"),
            SampleQueues::Named(names) => names.serialize(s),
        }
    }
}

impl<'de> Deserialize<'de> for SampleQueues {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = SampleQueues;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str(MODES)
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<SampleQueues, E> {
                match v {
                    "auto" => Ok(SampleQueues::Auto),
                    "all" => Ok(SampleQueues::All),
                    "core" => Ok(SampleQueues::Core),
                    _ => Err(E::invalid_value(de::Unexpected::Str(v), &self)),
                }
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<SampleQueues, A::Error> {
                let mut names = vec![];
                while let Some(n) = a.next_element::<String>()? {
                    names.push(n);
                }
                Ok(SampleQueues::Named(names))
            }
        }
        d.deserialize_any(V)
    }
}

impl Scenario {
    /// Whether each queue is sampled, in channel order (link i: `a->b` at 2i, `b->a` at
    /// 2i + 1). `ends`: each link's node indices (`link_ends`); an unresolved link (an
    /// error reported elsewhere) samples nothing.
    pub(crate) fn sampled_queues(&self, ends: &[Option<(usize, usize)>]) -> Vec<bool> {
        let core = |a: usize, b: usize| {
            self.nodes[a].kind != NodeKind::Host && self.nodes[b].kind != NodeKind::Host
        };
        let mode = match &self.simulation.sample_queues {
            SampleQueues::Auto if self.links.len() <= AUTO_ALL_LINKS => &SampleQueues::All,
            SampleQueues::Auto => &SampleQueues::Core,
            m => m,
        };
        let names: HashSet<&str> = match mode {
            SampleQueues::Named(n) => n.iter().map(String::as_str).collect(),
            _ => HashSet::new(),
        };
        let name = |f: usize, t: usize| format!("{}->{}", self.nodes[f].name, self.nodes[t].name);
        let mut out = Vec::with_capacity(2 * ends.len());
        for e in ends {
            let Some((a, b)) = *e else {
                out.extend([false, false]);
                continue;
            };
            for (f, t) in [(a, b), (b, a)] {
                out.push(match mode {
                    SampleQueues::All => true,
                    SampleQueues::Core | SampleQueues::Auto => core(a, b),
                    SampleQueues::Named(_) => names.contains(name(f, t).as_str()),
                });
            }
        }
        out
    }
}

impl Validator {
    /// `sample_interval` and `sample_queues`, and the memory the series would take.
    pub(super) fn sampling(&mut self, s: &Scenario, ends: &[Option<(usize, usize)>]) {
        let sim = &s.simulation;
        if let Some(si) = sim.sample_interval {
            if si.0 == 0 {
                self.err("simulation.sample_interval", "\"0ns\"", "must be > 0");
            } else if si.0 > sim.duration.0 {
                self.err(
                    "simulation.sample_interval",
                    format!("\"{}\"", crate::units::format_time(si.0)),
                    "must be <= simulation.duration",
                );
            }
        }
        let sampled = s.sampled_queues(ends);
        if let SampleQueues::Named(names) = &sim.sample_queues {
            let known: HashSet<String> = (ends.iter().flatten())
                .flat_map(|&(a, b)| [(a, b), (b, a)])
                .map(|(f, t)| format!("{}->{}", s.nodes[f].name, s.nodes[t].name))
                .collect();
            let mut seen = HashSet::new();
            for (i, n) in names.iter().enumerate() {
                let path = format!("simulation.{}", Item("sample_queues", i));
                if !known.contains(n) {
                    self.err(
                        path,
                        format!("\"{n}\""),
                        "names no queue (queues are named \"from->to\" after a link's two nodes)",
                    );
                } else if !seen.insert(n) {
                    self.err(path, format!("\"{n}\""), "named twice");
                }
            }
        }

        let duration_ok = sim.duration.0 > 0 && sim.duration.0 <= crate::check::MAX_TIME;
        if !duration_ok || sim.sample_interval.is_some_and(|si| si.0 == 0) {
            return;
        }
        let samples = sim.duration.0 / s.sample_interval();
        let interval = format!("\"{}\"", crate::units::format_time(s.sample_interval()));
        if samples > MAX_SAMPLES {
            self.err(
                "simulation.sample_interval",
                interval,
                format!(
                    "gives {samples} samples per queue over simulation.duration; at most \
                     {MAX_SAMPLES} are recorded (raise the interval)"
                ),
            );
            return;
        }
        // Every sampled queue records at least its length (packets, bytes) and six counters
        // (AQMs add their own); each traced flow four series.
        let traced_inputs: usize = (s.nodes.iter())
            .filter_map(|n| n.switch.as_ref().map(|sw| (n, sw)))
            .filter(|(_, sw)| sw.trace_inputs == Some(true))
            .map(|(n, sw)| sw.input_queues(super::switch::port_links(s, &n.name).len()))
            .sum();
        let queues = sampled.iter().filter(|&&q| q).count() as u64 + traced_inputs as u64;
        let traced = s.flows.iter().filter(|f| f.traced()).count() as u64;
        let series = 8 * queues + 4 * traced;
        let values = (samples + 1).saturating_mul(series);
        if values > MAX_SERIES_VALUES {
            self.err(
                "simulation.sample_interval",
                interval,
                format!(
                    "records at least {values} time-series values ({} samples x {series} \
                     series: {queues} queues x 8, {traced} traced flows x 4); at most \
                     {MAX_SERIES_VALUES} (400 MB) are kept: raise the interval, sample fewer \
                     queues (simulation.sample_queues = \"core\" or a list of \"from->to\" \
                     names), or trace fewer flows or switch inputs",
                    samples + 1
                ),
            );
        }
    }
}

#[cfg(test)]
#[path = "sampling_tests.rs"]
mod tests;
