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

/// The queue named `from->to`.
pub fn queue<'a>(r: &'a RunResults, name: &str) -> &'a QueueSummary {
    r.queues
        .iter()
        .find(|q| q.name == name)
        .unwrap_or_else(|| panic!("no queue {name}"))
}
