//! Property tests: mutated scenarios never panic or hang, whether they are rejected or
//! accepted; every accepted scenario echoes back canonically and, when small, runs.
//!
//! `mutated_scenarios_never_panic_or_hang` starts from a valid base scenario as a
//! `toml::Table`, applies 1..=6 random mutations (delete a key; replace a value by a random
//! value of a random type; rename a key; insert a key; duplicate an array entry; change a
//! `type` tag; set an edge value of the same kind), writes it back as TOML text and `load`s
//! it. `same_type_edge_values_never_panic_or_hang` only sets edge values of the same kind,
//! so that more of its scenarios load and run, and `extreme_rates_and_times_...` sweeps
//! rates and times to their limits over runs of a few nanoseconds.
//!
//! For every scenario that loads, `load(to_toml())` must give the same scenario, and if it is
//! small (duration <= 2 s, <= 10 flows, a bounded packet and sample count) `run` must return
//! Ok, or an Err that is not a broken conservation identity, without panicking and within
//! 20 s. `PROPTEST_CASES` overrides the number of cases (256 per test).

use aqmlab_core::scenario::{PeriodDist, Traffic};
use aqmlab_core::{load, run, Scenario, SimError};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::sync::mpsc;
use std::time::Duration;
use toml::{Table, Value};

const BASE: &str = r#"
schema_version = 1

[simulation]
duration = "1s"
warmup = "100ms"
seed = 3
sample_interval = "10ms"

[[nodes]]
name = "h1"
type = "host"

[[nodes]]
name = "r1"
type = "router"

[[nodes]]
name = "h2"
type = "host"

[[links]]
name = "access"
a = "h1"
b = "r1"
bandwidth = "100Mbps"
delay = "1ms"
queue = { limit_pkts = 100 }
reverse_queue = { limit_bytes = "64KB", aqm = { type = "droptail" } }

[[links]]
a = "r1"
b = "h2"
bandwidth = "10Mbps"
delay = "20ms"
loss = { type = "gilbert_elliott", p_gb = 0.01, p_bg = 0.3, loss_bad = 0.5 }
queue = { limit_bytes = "150KB", aqm = { type = "droptail" } }

[[flows]]
name = "cbr1"
type = "cbr"
src = "h1"
dst = "h2"
packet_size = 1500
rate = "2Mbps"
start = "100ms"
stop = "900ms"

[[flows]]
name = "poi1"
type = "poisson"
src = "h1"
dst = "h2"
packet_size = "1000B"
pkt_rate = 300.0
size_dist = "exponential"
ecn = true

[[flows]]
name = "onoff1"
type = "onoff"
src = "h2"
dst = "h1"
packet_size = 500
rate = "1Mbps"
on_time = "50ms"
off_time = "150ms"
period_dist = "pareto"
shape = 1.5
"#;

/// Every key of the schema, plus a few that are not.
#[rustfmt::skip]
const KEYS: &[&str] = &[
    "schema_version", "simulation", "nodes", "links", "flows", "duration", "warmup", "seed",
    "run", "sample_interval", "name", "type", "a", "b", "bandwidth", "delay", "loss", "queue",
    "reverse_queue", "limit_pkts", "limit_bytes", "aqm", "p", "p_gb", "p_bg", "loss_good",
    "loss_bad", "src", "dst", "packet_size", "start", "stop", "ecn", "rate", "pkt_rate",
    "size_dist", "on_time", "off_time", "period_dist", "shape", "colour", "", "a b", "type ",
    "d1", "d2", "freeze_time", "idle_catchup", "increase_threshold", "byte_mode", "levels",
    "bins", "bin_size", "max", "increment", "decrement", "penalty_rate", "penalty_burst",
    "rehash_interval", "warmup_time", "mode", "min_th", "max_th", "max_p", "w_q", "variant",
    "freeze_inc", "freeze_dec", "idle_start", "total_avg_on_in_only",
];

/// Values of every `type` tag and enum, and some that are not.
#[rustfmt::skip]
const TAGS: &[&str] = &[
    "host", "router", "cbr", "poisson", "onoff", "droptail", "bernoulli", "gilbert_elliott",
    "fixed", "exponential", "pareto", "red", "tcp", "switch", "", "Host", "h1", "r1", "h2",
    "blue", "sfb", "rio", "bio", "rio_c", "rio_d", "wred", "AAI", "SST", "dsred",
    "drio", "urio", "congested", "admitted", "cioq_red", "links", "voq", "fifo", "per_voq",
    "per_port",
];

/// The number part of unit-like strings.
#[rustfmt::skip]
const NUMBERS: &[&str] = &[
    "0", "1", "2", "5", "20", "0.5", "1.5", "-5", "+3", ".5", "5.", "1000000", "300000000",
    "99999999999999999999", "1e3", "nan", "inf", "1.2.3", "",
];

#[rustfmt::skip]
const UNITS: &[&str] = &[
    "ns", "us", "µs", "ms", "s", "min", "bps", "kbps", "Mbps", "Gbps", "Tbps", "B", "KB", "KiB",
    "MiB", "GB", "", " ", " parsecs", "h",
];

#[rustfmt::skip]
const INTS: &[i64] = &[
    10, 100, 1000, 1500, 65_535, 65_536, -1, -1000, u32::MAX as i64, u32::MAX as i64 + 1,
    i64::MAX, i64::MIN,
];

#[rustfmt::skip]
const FLOATS: &[f64] = &[
    f64::NAN, f64::INFINITY, f64::NEG_INFINITY, -0.0, 0.0, 0.5, 1.0, 1.0 + 1e-12, 1.5, 2.0,
    -0.1, 1e-300, 5e-324, 1e300, 1e9, 1e12, f64::MAX, f64::MIN_POSITIVE,
];

fn int() -> impl Strategy<Value = i64> {
    prop_oneof![-3i64..=3, prop::sample::select(INTS), any::<i64>()]
}

fn float() -> impl Strategy<Value = f64> {
    prop_oneof![prop::sample::select(FLOATS), any::<f64>(), 0.0f64..2.0]
}

fn string() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => (prop::sample::select(NUMBERS), prop::sample::select(UNITS))
            .prop_map(|(n, u)| format!("{n}{u}")),
        2 => prop::sample::select(TAGS).prop_map(String::from),
        1 => "\\PC{0,12}",
        1 => "[\\x00-\\x7f]{0,8}",
    ]
}

fn leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        int().prop_map(Value::Integer),
        float().prop_map(Value::Float),
        string().prop_map(Value::String),
        any::<bool>().prop_map(Value::Boolean),
        Just(Value::Datetime("1979-05-27T07:32:00Z".parse().unwrap())),
    ]
}

fn value() -> impl Strategy<Value = Value> {
    prop_oneof![
        6 => leaf(),
        1 => prop::collection::vec(leaf(), 0..3).prop_map(Value::Array),
        2 => prop::collection::vec((prop::sample::select(KEYS), leaf()), 0..4).prop_map(|kv| {
            Value::Table(kv.into_iter().map(|(k, v)| (k.to_string(), v)).collect())
        }),
    ]
}

#[derive(Clone, Debug)]
enum Mutation {
    /// Delete the n-th value (any depth).
    Delete(usize),
    /// Replace the n-th value.
    Replace(usize, Value),
    /// Move the n-th value that sits in a table to another key.
    Rename(usize, &'static str),
    /// Insert a key into the n-th table (the root included).
    Insert(usize, &'static str, Value),
    /// Duplicate the n-th array entry.
    Duplicate(usize),
    /// Set the n-th `type` tag.
    Retag(usize, &'static str),
    /// Set the n-th value to an edge value of its own kind (see `edge`).
    Edge(usize, usize),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    let n = any::<usize>();
    prop_oneof![
        2 => n.prop_map(Mutation::Delete),
        5 => (n, value()).prop_map(|(i, v)| Mutation::Replace(i, v)),
        1 => (n, prop::sample::select(KEYS)).prop_map(|(i, k)| Mutation::Rename(i, k)),
        2 => (n, prop::sample::select(KEYS), value()).prop_map(|(i, k, v)| Mutation::Insert(i, k, v)),
        1 => n.prop_map(Mutation::Duplicate),
        2 => (n, prop::sample::select(TAGS)).prop_map(|(i, t)| Mutation::Retag(i, t)),
        4 => (n, any::<usize>()).prop_map(|(i, k)| Mutation::Edge(i, k)),
    ]
}

#[derive(Clone, Debug)]
enum Seg {
    Key(String),
    Idx(usize),
}

/// Paths of every value under `v`, depth first.
fn paths(v: &Value, here: &mut Vec<Seg>, out: &mut Vec<Vec<Seg>>) {
    match v {
        Value::Table(t) => {
            for (k, c) in t {
                here.push(Seg::Key(k.clone()));
                out.push(here.clone());
                paths(c, here, out);
                here.pop();
            }
        }
        Value::Array(a) => {
            for (i, c) in a.iter().enumerate() {
                here.push(Seg::Idx(i));
                out.push(here.clone());
                paths(c, here, out);
                here.pop();
            }
        }
        _ => {}
    }
}

fn get_mut<'a>(mut v: &'a mut Value, path: &[Seg]) -> &'a mut Value {
    for s in path {
        v = match (s, v) {
            (Seg::Key(k), Value::Table(t)) => t.get_mut(k).expect("path exists"),
            (Seg::Idx(i), Value::Array(a)) => &mut a[*i],
            _ => unreachable!("paths match the value"),
        };
    }
    v
}

/// Applies `m`; returns whether it changed anything.
fn apply(root: &mut Value, m: &Mutation) -> bool {
    let mut all = vec![];
    paths(root, &mut vec![], &mut all);
    let pick = |n: usize, keep: &dyn Fn(&Vec<Seg>) -> bool| -> Option<Vec<Seg>> {
        let c: Vec<_> = all.iter().filter(|p| keep(p)).collect();
        (!c.is_empty()).then(|| c[n % c.len()].clone())
    };
    let split = |p: &[Seg]| (p[..p.len() - 1].to_vec(), p[p.len() - 1].clone());
    match m {
        Mutation::Delete(n) => {
            let Some(p) = pick(*n, &|_| true) else {
                return false;
            };
            let (parent, last) = split(&p);
            match (get_mut(root, &parent), last) {
                (Value::Table(t), Seg::Key(k)) => t.remove(&k).is_some(),
                (Value::Array(a), Seg::Idx(i)) => {
                    a.remove(i);
                    true
                }
                _ => false,
            }
        }
        Mutation::Replace(n, v) => {
            let Some(p) = pick(*n, &|_| true) else {
                return false;
            };
            *get_mut(root, &p) = v.clone();
            true
        }
        Mutation::Rename(n, new) => {
            let Some(p) = pick(*n, &|p| matches!(p.last(), Some(Seg::Key(_)))) else {
                return false;
            };
            let (parent, Seg::Key(k)) = split(&p) else {
                return false;
            };
            let Value::Table(t) = get_mut(root, &parent) else {
                return false;
            };
            let v = t.remove(&k).expect("key exists");
            t.insert(new.to_string(), v);
            true
        }
        Mutation::Insert(n, k, v) => {
            let mut tables: Vec<Vec<Seg>> = vec![vec![]];
            tables.extend(all.iter().cloned());
            let tables: Vec<_> = tables
                .into_iter()
                .filter(|p| matches!(get_mut(root, p), Value::Table(_)))
                .collect();
            let p = &tables[n % tables.len()];
            let Value::Table(t) = get_mut(root, p) else {
                return false;
            };
            t.insert(k.to_string(), v.clone());
            true
        }
        Mutation::Duplicate(n) => {
            let Some(p) = pick(*n, &|p| matches!(p.last(), Some(Seg::Idx(_)))) else {
                return false;
            };
            let (parent, Seg::Idx(i)) = split(&p) else {
                return false;
            };
            let Value::Array(a) = get_mut(root, &parent) else {
                return false;
            };
            let dup = a[i].clone();
            a.insert(i + 1, dup);
            true
        }
        Mutation::Edge(n, k) => {
            let Some(p) = pick(*n, &|_| true) else {
                return false;
            };
            let slot = get_mut(root, &p);
            *slot = edge(slot, *k);
            true
        }
        Mutation::Retag(n, tag) => {
            let is_type = |p: &Vec<Seg>| matches!(p.last(), Some(Seg::Key(k)) if k == "type");
            let Some(p) = pick(*n, &is_type) else {
                return false;
            };
            *get_mut(root, &p) = Value::String(tag.to_string());
            true
        }
    }
}

/// Rough number of packets the sources send, to keep the runs short.
fn packets_estimate(s: &Scenario) -> f64 {
    let secs = s.simulation.duration.0 as f64 / 1e9;
    s.flows
        .iter()
        .map(|f| {
            let bps_pps = |r: Option<aqmlab_core::units::Rate>| {
                r.map(|r| r.0 as f64).unwrap_or(0.0) / (8.0 * f.packet_size.0.max(1) as f64)
            };
            // An on/off source sends at least one packet per on period, and Pareto periods
            // with a shape near 1 are mostly close to their minimum, mean (a - 1) / a.
            let (pps, cycles) = match &f.traffic {
                Traffic::Cbr(c) => (bps_pps(c.rate), 0.0),
                Traffic::Poisson(p) => (p.pkt_rate.unwrap_or_else(|| bps_pps(p.rate)), 0.0),
                Traffic::Onoff(o) => {
                    let typical = |d: Option<aqmlab_core::units::Duration>| {
                        let mean = d.map(|d| d.0 as f64).unwrap_or(0.0);
                        match (o.period_dist, o.shape) {
                            (Some(PeriodDist::Pareto), Some(a)) => mean * (a - 1.0) / a,
                            _ => mean,
                        }
                    };
                    let cycles = 1e9 / (typical(o.on_time) + typical(o.off_time)).max(1.0);
                    (bps_pps(o.rate), cycles)
                }
                Traffic::Tcp(_) => (0.0, 0.0),
                // A request, and its reply, per interval.
                Traffic::Probe(p) => (2e9 / p.interval_ns().max(1) as f64, 0.0),
            };
            pps.max(cycles) * secs
        })
        .sum()
}

/// What happened to the cases of one test.
#[derive(Default)]
struct Stats {
    rejected: AtomicUsize,
    loaded: AtomicUsize,
    ran: AtomicUsize,
}

impl Stats {
    fn report(&self, test: &str) {
        eprintln!(
            "{test}: {} rejected, {} loaded, {} of those ran",
            self.rejected.load(Relaxed),
            self.loaded.load(Relaxed),
            self.ran.load(Relaxed)
        );
    }
}

/// Loads the text and checks everything that must hold; Err describes a violation.
fn check(text: &str, stats: &Stats) -> Result<(), String> {
    let loaded = catch_unwind(|| load(text)).map_err(|_| "load panicked".to_string())?;
    let s = match loaded {
        Err(e) => {
            stats.rejected.fetch_add(1, Relaxed);
            if e.0.is_empty() {
                return Err("load failed with an empty error list".into());
            }
            catch_unwind(AssertUnwindSafe(|| e.to_string()))
                .map_err(|_| "displaying the errors panicked".to_string())?;
            return Ok(());
        }
        Ok(s) => s,
    };
    stats.loaded.fetch_add(1, Relaxed);
    let echo = catch_unwind(AssertUnwindSafe(|| s.to_toml()))
        .map_err(|_| "to_toml panicked".to_string())?;
    match load(&echo) {
        Ok(back) if back == s => {}
        Ok(back) => return Err(format!("echo differs:\n{echo}\nloaded back as {back:#?}")),
        Err(e) => return Err(format!("echo does not load: {e}\n{echo}")),
    }
    let small = s.simulation.duration.0 <= 2_000_000_000
        && s.flows.len() <= 10
        && s.links.len() <= 20
        && packets_estimate(&s) <= 50_000.0
        && s.simulation.duration.0 / s.sample_interval() <= 20_000;
    if !small {
        return Ok(());
    }
    stats.ran.fetch_add(1, Relaxed);
    // In a thread, so that a hang is reported as a failure instead of stalling the suite.
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let r = catch_unwind(|| match run(&s) {
            Err(SimError::Conservation(m)) => Err(format!("conservation failed: {m}")),
            _ => Ok(()),
        });
        let _ = tx.send(r);
    });
    match rx.recv_timeout(Duration::from_secs(20)) {
        Ok(Ok(r)) => r,
        Ok(Err(_)) => Err("run panicked".into()),
        Err(_) => Err("run did not finish within 20 s".into()),
    }
}

fn runner() -> TestRunner {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|c| c.parse().ok())
        .unwrap_or(256);
    TestRunner::new(Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    })
}

fn base() -> Value {
    load(BASE).expect("base scenario is valid");
    Value::Table(BASE.parse::<Table>().expect("base parses"))
}

#[test]
fn mutated_scenarios_never_panic_or_hang() {
    let base = base();
    let stats = Stats::default();
    let strategy = prop::collection::vec(mutation(), 1..=6);
    let result = runner().run(&strategy, |muts| {
        let mut v = base.clone();
        for m in &muts {
            apply(&mut v, m);
        }
        let Ok(text) = toml::to_string(&v) else {
            return Ok(()); // not expressible as TOML text
        };
        check(&text, &stats)
            .map_err(|why| TestCaseError::fail(format!("{why}\n--- scenario ---\n{text}")))
    });
    stats.report("random mutations");
    if let Err(e) = result {
        panic!("{e}");
    }
}

/// Mutations that keep every value's type, so that far more scenarios load and run: each
/// picked number or unit string becomes an edge value of the same kind.
#[test]
fn same_type_edge_values_never_panic_or_hang() {
    let base = base();
    let mut all = vec![];
    paths(&base, &mut vec![], &mut all);
    let leaves: Vec<Vec<Seg>> = all
        .into_iter()
        .filter(|p| {
            let mut b = base.clone();
            matches!(
                get_mut(&mut b, p),
                Value::Integer(_) | Value::Float(_) | Value::String(_)
            )
        })
        .collect();
    let stats = Stats::default();
    let strategy = prop::collection::vec((any::<usize>(), any::<usize>()), 1..=4);
    let result = runner().run(&strategy, |picks| {
        let mut v = base.clone();
        for (i, k) in &picks {
            let slot = get_mut(&mut v, &leaves[i % leaves.len()]);
            *slot = edge(slot, *k);
        }
        let text = toml::to_string(&v).expect("same shapes serialise");
        check(&text, &stats)
            .map_err(|why| TestCaseError::fail(format!("{why}\n--- scenario ---\n{text}")))
    });
    stats.report("same-type edge values");
    if let Err(e) = result {
        panic!("{e}");
    }
}

#[rustfmt::skip]
const EDGE_INTS: &[i64] = &[0, 1, 2, 65_535, 65_536, u32::MAX as i64, i64::MAX];
#[rustfmt::skip]
const EDGE_FLOATS: &[f64] = &[0.0, -0.0, 5e-324, 1e-7, 1e-6, 1.0, 1.000_000_1, 1e9, 1e12, 1e300];
#[rustfmt::skip]
const EDGE_NUMBERS: &[&str] = &[
    "0", "1", "0.001", "7", "999", "1000000", "300000000", "18446744073",
];

/// An edge value of the same kind as `v`; `k` picks which.
fn edge(v: &Value, k: usize) -> Value {
    match v {
        Value::Integer(_) => Value::Integer(EDGE_INTS[k % EDGE_INTS.len()]),
        Value::Float(_) => Value::Float(EDGE_FLOATS[k % EDGE_FLOATS.len()]),
        Value::String(s) if s.starts_with(|c: char| c.is_ascii_digit()) => {
            let unit = s.trim_start_matches(|c: char| c.is_ascii_digit() || c == '.');
            // Times also in nanoseconds, the finest resolution.
            let unit = match unit {
                "ms" | "s" if (k / EDGE_NUMBERS.len()) % 2 == 1 => "ns",
                u => u,
            };
            Value::String(format!("{}{unit}", EDGE_NUMBERS[k % EDGE_NUMBERS.len()]))
        }
        Value::String(_) => Value::String(TAGS[k % TAGS.len()].into()),
        other => other.clone(),
    }
}

fn big_u64() -> impl Strategy<Value = u64> {
    prop_oneof![
        6 => 0u64..=1000,
        2 => 1000u64..=1_000_000_000,
        1 => prop::sample::select(vec![
            1_000_000_000_000_000,
            1_000_000_000_000_001,
            u64::MAX / 2,
            u64::MAX,
        ]),
        1 => any::<u64>(),
    ]
}

fn pkt_rate() -> impl Strategy<Value = f64> {
    prop_oneof![
        prop::sample::select(vec![
            5e-324,
            1e-300,
            1e-12,
            1e-7,
            1e-6,
            1.0,
            1e9,
            1e10,
            1e11,
            1e12,
            1e300,
            f64::MAX,
        ]),
        any::<f64>(),
    ]
}

/// Accepted scenarios with extreme rates and times, run over a few nanoseconds so that any
/// finite amount of work is small: a run that overflows the clock or stops time shows up as
/// a panic (debug builds check overflow) or as a run that never finishes.
#[test]
fn extreme_rates_and_times_never_hang_or_overflow() {
    let stats = Stats::default();
    let strategy = (
        (
            1u64..=1000,
            0u64..=1000,
            1u64..=65_535,
            big_u64(),
            big_u64(),
        ),
        (
            prop::option::of(pkt_rate()),
            big_u64(),
            big_u64(),
            big_u64(),
        ),
        (big_u64(), big_u64(), any::<bool>(), 1.0f64..3.0, big_u64()),
    );
    let result = runner().run(&strategy, |(a, b, c)| {
        let (dur, start, size, delay, bandwidth) = a;
        let (pkts, rate, on, off) = b;
        let (onoff_rate, cbr_rate, pareto, shape, stop) = c;
        let poisson_rate = match pkts {
            Some(x) => format!("pkt_rate = {x:?}"),
            None => format!("rate = \"{}bps\"", rate.max(1)),
        };
        let dist = if pareto {
            format!("period_dist = \"pareto\"\nshape = {shape:?}")
        } else {
            String::new()
        };
        let text = format!(
            r#"
schema_version = 1
[simulation]
duration = "{dur}ns"
[[nodes]]
name = "h1"
type = "host"
[[nodes]]
name = "r1"
type = "router"
[[nodes]]
name = "h2"
type = "host"
[[links]]
a = "h1"
b = "r1"
bandwidth = "{bw}bps"
delay = "{delay}ns"
queue = {{ limit_pkts = 1000 }}
[[links]]
a = "r1"
b = "h2"
bandwidth = "1Gbps"
delay = "1ns"
queue = {{ limit_bytes = "1MB" }}
[[flows]]
name = "poisson"
type = "poisson"
src = "h1"
dst = "h2"
packet_size = {size}
start = "{start}ns"
{poisson_rate}
[[flows]]
name = "onoff"
type = "onoff"
src = "h2"
dst = "h1"
packet_size = {size}
rate = "{onoff_rate}bps"
on_time = "{on}ns"
off_time = "{off}ns"
{dist}
[[flows]]
name = "cbr"
type = "cbr"
src = "h1"
dst = "h2"
packet_size = {size}
rate = "{cbr_rate}bps"
stop = "{stop}ns"
"#,
            bw = bandwidth.max(1),
            onoff_rate = onoff_rate.max(1),
            cbr_rate = cbr_rate.max(1),
            on = on.max(1),
            off = off.max(1),
            start = start.min(dur - 1),
            stop = stop.max(1),
        );
        check(&text, &stats)
            .map_err(|why| TestCaseError::fail(format!("{why}\n--- scenario ---\n{text}")))
    });
    stats.report("extreme rates and times");
    if let Err(e) = result {
        panic!("{e}");
    }
}
