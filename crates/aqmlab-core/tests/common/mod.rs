//! Helpers shared by the engine-level test files (`mod common;` in each).
#![allow(dead_code)] // each test file uses a subset

use aqmlab_core::scenario::load;
use aqmlab_core::sim::{QueueSummary, RunResults};
use std::thread;

/// True (after saying why) in a debug build: engine runs are sized for release builds.
pub fn skip_in_debug(test: &str) -> bool {
    if cfg!(debug_assertions) {
        eprintln!(
            "SKIPPED {test}: engine runs are sized for release builds (cargo test --release)"
        );
        return true;
    }
    false
}

/// Loads and runs a scenario given as TOML text; panics with the text on any error.
pub fn run(text: &str) -> RunResults {
    let sc = load(text).unwrap_or_else(|e| panic!("invalid scenario: {e}\n{text}"));
    aqmlab_core::run(&sc).unwrap_or_else(|e| panic!("run failed: {e}"))
}

/// Runs each scenario on its own thread, results in order.
pub fn run_all(texts: &[String]) -> Vec<RunResults> {
    thread::scope(|s| {
        let hs: Vec<_> = texts.iter().map(|t| s.spawn(move || run(t))).collect();
        hs.into_iter().map(|h| h.join().unwrap()).collect()
    })
}

/// One traced metric of flow `flow` (`trace = true`), a value per sample time.
pub fn flow_series<'a>(r: &'a RunResults, flow: &str, metric: &str) -> &'a [f64] {
    r.timeseries
        .flow_series()
        .find(|s| s.name == flow && s.metric == metric)
        .unwrap_or_else(|| panic!("no series {flow}/{metric}"))
        .values
}

/// The queue named `from->to`.
pub fn queue<'a>(r: &'a RunResults, name: &str) -> &'a QueueSummary {
    r.queues
        .iter()
        .find(|q| q.name == name)
        .unwrap_or_else(|| panic!("no queue {name}"))
}

/// A scenario's TOML text, built table by table. Nodes, links and flows each keep the order
/// they are added in (it matters to a run); TOML lets the three kinds of table interleave.
pub struct ScenarioText(String);

impl ScenarioText {
    /// `schema_version = 1` and the `[simulation]` table of `simulation` (`key = value` lines).
    pub fn new(simulation: &str) -> Self {
        Self(format!(
            "schema_version = 1\n[simulation]\n{}\n",
            simulation.trim()
        ))
    }

    pub fn host(&mut self, name: &str) -> &mut Self {
        self.node(name, "host")
    }

    pub fn router(&mut self, name: &str) -> &mut Self {
        self.node(name, "router")
    }

    fn node(&mut self, name: &str, kind: &str) -> &mut Self {
        self.toml(&format!(
            "[[nodes]]\nname = \"{name}\"\ntype = \"{kind}\"\n"
        ))
    }

    /// A link `a`–`b`; `queue` (an inline table) serves a→b, and b→a too unless
    /// [`reverse_queue`](Self::reverse_queue) follows.
    pub fn link(
        &mut self,
        a: &str,
        b: &str,
        bandwidth: &str,
        delay: &str,
        queue: &str,
    ) -> &mut Self {
        self.toml(&format!(
            "[[links]]\na = \"{a}\"\nb = \"{b}\"\nbandwidth = \"{bandwidth}\"\n\
             delay = \"{delay}\"\nqueue = {queue}\n"
        ))
    }

    /// The b→a queue of the link just added.
    pub fn reverse_queue(&mut self, queue: &str) -> &mut Self {
        self.toml(&format!("reverse_queue = {queue}\n"))
    }

    /// A sender of a [`dumbbell`]: host `name` on a 1 Gb/s link of its own to `r`, with
    /// `delay` and a `limit_pkts`-packet buffer.
    pub fn sender(&mut self, name: &str, delay: &str, limit_pkts: u64) -> &mut Self {
        let queue = format!("{{ limit_pkts = {limit_pkts} }}");
        self.host(name).link(name, "r", "1Gbps", delay, &queue)
    }

    /// Tables written out as TOML text (the flows, usually).
    pub fn toml(&mut self, tables: &str) -> &mut Self {
        self.0 += tables;
        self
    }

    pub fn text(&self) -> String {
        self.0.clone()
    }
}

/// The dumbbell of the AQM and TCP tests: router `r` reaches host `dst` over the bottleneck
/// `r->dst` (`queue` an inline table); [`ScenarioText::sender`] adds the senders.
pub fn dumbbell(simulation: &str, bandwidth: &str, delay: &str, queue: &str) -> ScenarioText {
    let mut s = ScenarioText::new(simulation);
    s.router("r")
        .host("dst")
        .link("r", "dst", bandwidth, delay, queue);
    s
}

/// Host `a` through router `r` to host `dst`: the access link a->r, then the bottleneck
/// r->dst, each given as (bandwidth, delay, queue).
pub fn chain(
    simulation: &str,
    dst: &str,
    (access_bw, access_delay, access_queue): (&str, &str, &str),
    (bw, delay, queue): (&str, &str, &str),
) -> ScenarioText {
    let mut s = ScenarioText::new(simulation);
    s.host("a").router("r").host(dst);
    s.link("a", "r", access_bw, access_delay, access_queue);
    s.link("r", dst, bw, delay, queue);
    s
}
