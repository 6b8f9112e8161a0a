//! Golden results: every shipped scenario file (`scenarios/*.toml`) gives, to the last
//! digit, the results it gave when this file's snapshot was written.
//!
//! The determinism tests compare two runs of one build; nothing there notices a change to
//! the engine that moves an event by one place in the (time, sequence) order, yet such a
//! change alters every figure after it, and issue 15's rule for the hot path is that event
//! order is part of determinism ("byte-identical reports"). So each file's run is reduced to
//! its event and packet counts and a digest of the whole `RunResults` (summaries, time
//! series, component tables), as its `Debug` text shows it (floats in shortest round-trip
//! form, so one ulp anywhere changes the digest). The digest is FNV-1a 64, an algorithm
//! fixed by its definition (std's `DefaultHasher` may change between Rust releases).
//!
//! A change that means to alter results (a new metric, a fixed model) updates the snapshot
//! (`cargo insta review`, or `INSTA_UPDATE=always`) and says why in its commit; a change to
//! the hot path that needs the snapshot updated has changed the event order.
//!
//! The 10 000-flow file runs the large-run path (lane lookahead, ends of transmission kept
//! apart); the others also run with that path forced on, which must not change a digit.

use aqmlab_core::scenario::load;
use aqmlab_core::sim::{RunResults, Simulator};
use std::hash::Hasher;
use std::path::{Path, PathBuf};

fn scenarios_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios")
}

/// The shipped scenario files, by name, but the 10 000-flow one (`LARGE_FILE`).
fn files() -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(scenarios_dir())
        .expect("scenarios/ exists")
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.ends_with(".toml") && n != LARGE_FILE)
        .collect();
    v.sort();
    v
}

const LARGE_FILE: &str = "dumbbell_10000.toml";

fn digest(r: &RunResults) -> u64 {
    let mut h = fnv::FnvHasher::default();
    h.write(format!("{r:?}").as_bytes());
    h.finish()
}

fn line(name: &str, r: &RunResults) -> String {
    format!(
        "scenarios/{name}: {} events, {} packets, results fnv1a64 {:016x}",
        r.events,
        r.packets,
        digest(r)
    )
}

/// `force_large`: the large-run path whatever the scenario's size (else the simulator's
/// own choice).
fn run(name: &str, force_large: bool) -> RunResults {
    let text = std::fs::read_to_string(scenarios_dir().join(name)).expect("readable");
    let s = load(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
    let c = s.validate().unwrap_or_else(|e| panic!("{name}: {e}"));
    let mut sim = Simulator::new(&c);
    if force_large {
        sim = sim.with_large(true);
    }
    sim.run().unwrap_or_else(|e| panic!("{name}: {e}"))
}

#[test]
fn shipped_scenarios_give_their_golden_results() {
    let names = files();
    // The snapshot lists every file, so one added to scenarios/ fails until it is added
    // there; this guards only against reading the wrong folder.
    assert!(names.len() >= 5, "scenario files found: {names:?}");
    let mut lines = vec![];
    for name in &names {
        let r = run(name, false);
        let forced = run(name, true);
        assert_eq!(
            digest(&r),
            digest(&forced),
            "{name}: the large-run path changed the results"
        );
        lines.push(line(name, &r));
    }
    insta::assert_snapshot!(lines.join("\n"));
}

/// 1.5 simulated seconds of 10 000 flows: about 2 s optimised, minutes in a debug build,
/// where it is skipped (and listed as ignored); `make test` builds optimised.
#[test]
#[cfg_attr(
    debug_assertions,
    ignore = "10 000 flows: run it optimised (make test)"
)]
fn the_10000_flow_dumbbell_gives_its_golden_results() {
    let r = run(LARGE_FILE, false);
    assert_eq!(r.queues.len(), 40_002, "a queue per link direction");
    insta::assert_snapshot!(line(LARGE_FILE, &r));
}
