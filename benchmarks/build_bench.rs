//! Fixed costs of a large scenario: parse, validate and `Simulator::new`, timed apart, on a
//! dumbbell with a host pair per flow (issue 15): N NewReno flows, each sender and each
//! receiver on its own 100 Mb/s access link to one of two routers, an N Mb/s bottleneck
//! (1 Mb/s per flow, as in the REM paper's dumbbell) with a 15 ms REM buffer.
//! 10 000 flows give 20 002 nodes and 20 001 links.
//!
//! Run: `cargo run --release -p aqmlab-core --example build_bench -- --flows 10000`
//! (`--reps` repetitions, default 3; each phase's best is printed, and the peak RSS).
//! `--load FILE` times the same phases of a scenario file (TOML or JSON); `--run FILE`
//! runs one and prints ns per event of `Simulator::run` and a digest of its results (for
//! perf and callgrind, on e.g. the JSON `benchmarks/scale.py --write-scenario DIR` writes).

#[path = "alloc.rs"]
mod alloc;
use aqmlab_core::scenario::parse;
use aqmlab_core::sim::Simulator;
use std::fmt::Write;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::time::Instant;

fn dumbbell(flows: usize) -> String {
    let bps = flows as u64 * 1_000_000;
    // 15 ms of the bottleneck in 1000-byte packets.
    let limit = (bps * 15 / 1000 / 8000).max(1);
    let mut t = String::from(
        "schema_version = 1\n[simulation]\nduration = \"1ms\"\nsample_interval = \"1ms\"\n\n\
         [[nodes]]\nname = \"r0\"\ntype = \"router\"\n\
         [[nodes]]\nname = \"r1\"\ntype = \"router\"\n",
    );
    for i in 0..flows {
        write!(
            t,
            "[[nodes]]\nname = \"s{i}\"\ntype = \"host\"\n\
             [[nodes]]\nname = \"d{i}\"\ntype = \"host\"\n"
        )
        .unwrap();
    }
    write!(
        t,
        "[[links]]\nname = \"bottleneck\"\na = \"r0\"\nb = \"r1\"\nbandwidth = \"{bps}bps\"\n\
         delay = \"20ms\"\nqueue = {{ limit_pkts = {limit}, aqm = {{ type = \"rem\" }} }}\n"
    )
    .unwrap();
    for i in 0..flows {
        for (h, r) in [("s", "r0"), ("d", "r1")] {
            write!(
                t,
                "[[links]]\na = \"{h}{i}\"\nb = \"{r}\"\nbandwidth = \"100Mbps\"\n\
                 delay = \"1ms\"\nqueue = {{ limit_pkts = 1000 }}\n"
            )
            .unwrap();
        }
    }
    for i in 0..flows {
        write!(
            t,
            "[[flows]]\nname = \"f{i}\"\ntype = \"tcp\"\nsrc = \"s{i}\"\ndst = \"d{i}\"\n\
             packet_size = 1000\nvariant = \"newreno\"\n"
        )
        .unwrap();
    }
    t
}

/// Peak resident set of this process so far (Linux), in MB.
fn peak_rss_mb() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
        .map_or(f64::NAN, |kb| kb / 1024.0)
}

fn arg(args: &[String], name: &str, default: usize) -> usize {
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Parses, validates, builds and runs the scenario in `path` (TOML or JSON), so that a
/// profiler (`perf stat`, `perf record`, callgrind) sees the engine on any scenario,
/// e.g. the JSON text `benchmarks/scale.py --write-scenario` writes.
fn run_file(path: &str) {
    let text = std::fs::read_to_string(path).expect("readable scenario file");
    let t0 = Instant::now();
    let s = parse(&text).expect("the scenario parses");
    let c = s.validate().expect("the scenario is valid");
    let sim = Simulator::new(&c);
    let t1 = Instant::now();
    let r = sim.run().expect("the run completes");
    let t2 = Instant::now();
    // Event order is part of determinism: a change to the event set must keep this digest.
    let mut h = DefaultHasher::new();
    format!("{:?} {:?} {:?}", r.queues, r.flows, r.timeseries).hash(&mut h);
    println!(
        "{path}: load+build {:.3} s, run {:.3} s, {} events, {:.0} ns per event, \
         peak RSS {:.0} MB, results digest {:016x}",
        (t1 - t0).as_secs_f64(),
        (t2 - t1).as_secs_f64(),
        r.events,
        (t2 - t1).as_secs_f64() / r.events as f64 * 1e9,
        peak_rss_mb(),
        h.finish()
    );
}

fn main() {
    alloc::setup();
    let args: Vec<String> = std::env::args().collect();
    let flows = arg(&args, "--flows", 10_000);
    let reps = arg(&args, "--reps", 3).max(1);
    if let Some(i) = args.iter().position(|a| a == "--write") {
        let path = args.get(i + 1).expect("--write PATH");
        std::fs::write(path, dumbbell(flows)).expect("writable path");
        return;
    }
    if let Some(i) = args.iter().position(|a| a == "--run") {
        let path = args.get(i + 1).expect("--run PATH");
        run_file(path);
        return;
    }
    if let Some(i) = args.iter().position(|a| a == "--load") {
        let path = args.get(i + 1).expect("--load PATH");
        let text = std::fs::read_to_string(path).expect("readable scenario file");
        let reps = arg(&args, "--reps", 3).max(1);
        phases(&text, path, reps);
        return;
    }
    let text = dumbbell(flows);
    phases(
        &text,
        &format!(
            "{flows} flows, {} nodes, {} links",
            2 * flows + 2,
            2 * flows + 1
        ),
        reps,
    );
}

/// Times parse, validate and `Simulator::new` of `text` apart; prints each phase's best.
fn phases(text: &str, what: &str, reps: usize) {
    let (mut t_parse, mut t_validate, mut t_build) = (f64::MAX, f64::MAX, f64::MAX);
    let mut t_canonical = f64::MAX;
    for _ in 0..reps {
        let t0 = Instant::now();
        let s = parse(text).expect("the scenario parses");
        let t1 = Instant::now();
        let c = s.validate().expect("the scenario is valid");
        let t2 = Instant::now();
        let sim = Simulator::new(&c);
        let t3 = Instant::now();
        drop(sim);
        let t4 = Instant::now();
        let canonical = s.to_toml();
        t_canonical = t_canonical.min(t4.elapsed().as_secs_f64());
        drop(canonical);
        t_parse = t_parse.min((t1 - t0).as_secs_f64());
        t_validate = t_validate.min((t2 - t1).as_secs_f64());
        t_build = t_build.min((t3 - t2).as_secs_f64());
    }
    println!(
        "{what}, {:.1} MB of text (best of {reps})",
        text.len() as f64 / 1e6
    );
    println!("  parse          {:10.6} s", t_parse);
    println!("  validate       {:10.6} s", t_validate);
    println!("  Simulator::new {:10.6} s", t_build);
    println!("  total          {:10.6} s", t_parse + t_validate + t_build);
    println!(
        "  (canonical TOML {:10.6} s, which the binding writes only when asked: Results.scenario_toml)",
        t_canonical
    );
    println!("  peak RSS       {:8.0} MB", peak_rss_mb());
}
