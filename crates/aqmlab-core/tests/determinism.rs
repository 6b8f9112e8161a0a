//! Determinism and conservation (docs/architecture.md, "Engine tests"):
//!
//! - Same scenario + seed ⇒ identical `RunResults`, time series included.
//! - Another replication index or seed ⇒ different results.
//! - Each component's random stream derives from (seed, run, component path), so adding a
//!   flow leaves the other flows' random sequences unchanged.
//! - Per-flow conservation (sent = received + dropped + lost + in flight) holds with a
//!   lossy link and an overflowing queue.
//!
//! `RunResults` derives `PartialEq`, so `==` compares every float with IEEE semantics, under
//! which NaN ≠ NaN. The engine reports NaN for statistics of an empty sample (the sojourn
//! statistics of a queue that never dequeued, the delay of a flow that received nothing),
//! so a scenario with an idle link direction never compares equal to itself. The scenarios
//! compared with `==` here carry traffic on every link direction, and `assert_no_nan`
//! checks that, so that `==` and `!=` mean what they say. `same_debug_text` compares the
//! `Debug` rendering too, which is NaN-proof and shows the exact digits.
//!
//! The runs are small (a few simulated seconds), so these tests also run in debug builds.

use aqmlab_core::scenario::load;
use aqmlab_core::sim::{FlowSummary, QueueSummary, RunResults, SimError, Simulator};

/// Every float of a result (summaries and time series), with a name for messages.
fn floats(r: &RunResults) -> Vec<(String, f64)> {
    let mut v = vec![("measured_s".to_string(), r.measured_s)];
    for q in &r.queues {
        let n = &q.name;
        for (f, x) in [
            ("mean_queue_pkts", q.mean_queue_pkts),
            ("var_queue_pkts", q.var_queue_pkts),
            ("mean_queue_bytes", q.mean_queue_bytes),
            ("var_queue_bytes", q.var_queue_bytes),
            ("utilization", q.utilization),
            ("throughput_bps", q.throughput_bps),
            ("mean_sojourn_s", q.mean_sojourn_s),
            ("p50_sojourn_s", q.p50_sojourn_s),
            ("p90_sojourn_s", q.p90_sojourn_s),
            ("p99_sojourn_s", q.p99_sojourn_s),
            ("max_sojourn_s", q.max_sojourn_s),
        ] {
            v.push((format!("queue {n}.{f}"), x));
        }
        for (i, x) in q.distribution.iter().enumerate() {
            v.push((format!("queue {n}.distribution[{i}]"), *x));
        }
    }
    for f in &r.flows {
        let n = &f.name;
        for (k, x) in [
            ("goodput_bps", f.goodput_bps),
            ("loss_rate", f.loss_rate),
            ("mean_delay_s", f.mean_delay_s),
            ("max_delay_s", f.max_delay_s),
        ] {
            v.push((format!("flow {n}.{k}"), x));
        }
    }
    for x in &r.timeseries.time_s {
        v.push(("timeseries.time_s".into(), *x));
    }
    for s in r.timeseries.series() {
        for x in s.values {
            v.push((format!("timeseries {} {}", s.name, s.metric), *x));
        }
    }
    v
}

/// Makes `==`/`!=` on `RunResults` meaningful (see the module doc).
fn assert_no_nan(r: &RunResults) {
    let nan: Vec<String> = floats(r)
        .into_iter()
        .filter(|(_, x)| x.is_nan())
        .map(|(n, _)| n)
        .collect();
    assert!(nan.is_empty(), "NaN in the results: {nan:?}");
}

fn same_debug_text(a: &RunResults, b: &RunResults) -> bool {
    format!("{a:?}") == format!("{b:?}")
}

fn run_text(text: &str) -> RunResults {
    let s = load(text).unwrap_or_else(|e| panic!("invalid scenario: {e}\n{text}"));
    Simulator::new(&s.validate().unwrap())
        .run()
        .unwrap_or_else(|e| panic!("run failed: {e}"))
}

fn flow<'a>(r: &'a RunResults, name: &str) -> &'a FlowSummary {
    r.flows
        .iter()
        .find(|f| f.name == name)
        .unwrap_or_else(|| panic!("no flow {name}"))
}

fn queue<'a>(r: &'a RunResults, name: &str) -> &'a QueueSummary {
    r.queues
        .iter()
        .find(|q| q.name == name)
        .unwrap_or_else(|| panic!("no queue {name}"))
}

const NODES: &str = r#"
[[nodes]]
name = "h1"
type = "host"
[[nodes]]
name = "h2"
type = "host"
[[nodes]]
name = "h3"
type = "host"
[[nodes]]
name = "h4"
type = "host"
[[nodes]]
name = "r1"
type = "router"
[[nodes]]
name = "r2"
type = "router"
"#;

/// A dumbbell h1,h2 — r1 — r2 — h3,h4 exercising every random component: Poisson times and
/// exponential sizes, Pareto on/off periods, Gilbert-Elliott and Bernoulli link loss, and
/// overflowing buffers in both directions of the bottleneck (one in byte mode). Every link
/// direction carries traffic, so no statistic is NaN.
fn dumbbell(seed: u64, run: u64) -> String {
    format!(
        r#"
schema_version = 1
[simulation]
duration = "20s"
warmup = "2s"
seed = {seed}
run = {run}
sample_interval = "100ms"
{NODES}
[[links]]
a = "h1"
b = "r1"
bandwidth = "100Mbps"
delay = "2ms"
queue = {{ limit_pkts = 100 }}
[[links]]
a = "h2"
b = "r1"
bandwidth = "100Mbps"
delay = "3ms"
queue = {{ limit_pkts = 100 }}
[[links]]
a = "r1"
b = "r2"
bandwidth = "10Mbps"
delay = "10ms"
loss = {{ type = "gilbert_elliott", p_gb = 0.01, p_bg = 0.2, loss_good = 0.001, loss_bad = 0.3 }}
queue = {{ limit_pkts = 30 }}
reverse_queue = {{ limit_bytes = 40000 }}
[[links]]
a = "r2"
b = "h3"
bandwidth = "100Mbps"
delay = "1ms"
loss = {{ type = "bernoulli", p = 0.01 }}
queue = {{ limit_pkts = 100 }}
[[links]]
a = "r2"
b = "h4"
bandwidth = "100Mbps"
delay = "1ms"
queue = {{ limit_pkts = 100 }}
[[flows]]
name = "poisson_exp"
type = "poisson"
src = "h1"
dst = "h3"
pkt_rate = 600.0
packet_size = 1500
size_dist = "exponential"
[[flows]]
name = "cbr"
type = "cbr"
src = "h2"
dst = "h4"
rate = "4Mbps"
packet_size = 1000
[[flows]]
name = "onoff_pareto"
type = "onoff"
src = "h3"
dst = "h1"
rate = "8Mbps"
packet_size = 1200
on_time = "100ms"
off_time = "200ms"
period_dist = "pareto"
shape = 1.5
[[flows]]
name = "poisson_fixed"
type = "poisson"
src = "h4"
dst = "h2"
rate = "6Mbps"
packet_size = 1000
start = "1s"
stop = "18s"
"#
    )
}

#[test]
fn same_scenario_and_seed_give_identical_results() {
    let text = dumbbell(1, 0);
    let a = run_text(&text);
    let b = run_text(&text);
    // Through the convenience entry point and through the canonical echo of the scenario.
    let s = load(&text).unwrap();
    let c = aqmlab_core::run(&s).unwrap();
    let d = run_text(&s.to_toml());

    assert_no_nan(&a);
    // The scenario exercises what could go wrong: drops, link losses, a time series.
    let drops: u64 = a.queues.iter().map(|q| q.dropped.iter().sum::<u64>()).sum();
    let lost: u64 = a.queues.iter().map(|q| q.lost_on_link).sum();
    assert!(drops > 0 && lost > 0, "drops {drops}, lost {lost}");
    assert_eq!(a.timeseries.time_s.len(), 200);
    assert!(a.timeseries.series().all(|s| s.values.len() == 200));
    assert!(a.events > 0 && a.packets > 0);

    for (what, other) in [("second run", &b), ("aqmlab_core::run", &c), ("echo", &d)] {
        assert!(a == *other, "{what}: results differ");
        assert_eq!(a.timeseries, other.timeseries, "{what}: time series differ");
        assert!(same_debug_text(&a, other), "{what}: Debug text differs");
    }
}

#[test]
fn another_run_index_or_seed_changes_the_results() {
    let base = run_text(&dumbbell(1, 0));
    assert_no_nan(&base);
    for (what, text) in [
        ("run = 1", dumbbell(1, 1)),
        ("seed = 2", dumbbell(2, 0)),
        ("seed = 2, run = 1", dumbbell(2, 1)),
    ] {
        let other = run_text(&text);
        assert_no_nan(&other);
        assert!(base != other, "{what}: results unchanged");
        assert!(!same_debug_text(&base, &other), "{what}");
        assert_ne!(
            base.timeseries, other.timeseries,
            "{what}: time series unchanged"
        );
        // Random streams changed: Poisson times and exponential sizes.
        let (p0, p1) = (flow(&base, "poisson_exp"), flow(&other, "poisson_exp"));
        assert_ne!(
            (p0.sent_pkts, p0.sent_bytes),
            (p1.sent_pkts, p1.sent_bytes),
            "{what}: Poisson source unchanged"
        );
        // The CBR source has no randomness: it sends the same packets whatever the seed.
        let (c0, c1) = (flow(&base, "cbr"), flow(&other, "cbr"));
        assert_eq!((c0.sent_pkts, c0.sent_bytes), (c1.sent_pkts, c1.sent_bytes));
    }
    // The replications of one seed are distinct from each other too.
    let r1 = run_text(&dumbbell(1, 1));
    let r2 = run_text(&dumbbell(1, 2));
    assert!(r1 != r2);
}

/// Flows `h1`, `h2` (and optionally `h3`) → `dst` through one 10 Mb/s bottleneck.
fn shared_bottleneck(with_third: bool) -> String {
    let flow = |name: &str, src: &str, rate: f64, size: u32| {
        format!(
            r#"
[[flows]]
name = "{name}"
type = "poisson"
src = "{src}"
dst = "dst"
pkt_rate = {rate:?}
packet_size = {size}
size_dist = "exponential"
"#
        )
    };
    // The new flow goes *first*: every other flow's index shifts by one, its name doesn't.
    let third = if with_third {
        flow("f3", "h3", 300.0, 1500)
    } else {
        String::new()
    };
    format!(
        r#"
schema_version = 1
[simulation]
duration = "10s"
warmup = "1s"
seed = 7
run = 3
[[nodes]]
name = "h1"
type = "host"
[[nodes]]
name = "h2"
type = "host"
[[nodes]]
name = "h3"
type = "host"
[[nodes]]
name = "r"
type = "router"
[[nodes]]
name = "dst"
type = "host"
[[links]]
a = "h1"
b = "r"
bandwidth = "100Mbps"
delay = "1ms"
queue = {{ limit_pkts = 100 }}
[[links]]
a = "h2"
b = "r"
bandwidth = "100Mbps"
delay = "1ms"
queue = {{ limit_pkts = 100 }}
[[links]]
a = "h3"
b = "r"
bandwidth = "100Mbps"
delay = "1ms"
queue = {{ limit_pkts = 100 }}
[[links]]
a = "r"
b = "dst"
bandwidth = "10Mbps"
delay = "5ms"
queue = {{ limit_pkts = 20 }}
{third}{f1}{f2}"#,
        f1 = flow("f1", "h1", 500.0, 1500),
        f2 = flow("f2", "h2", 400.0, 1000),
    )
}

#[test]
fn adding_a_flow_on_a_shared_link_keeps_the_other_sources_sequences() {
    let before = run_text(&shared_bottleneck(false));
    let after = run_text(&shared_bottleneck(true));
    assert_eq!(after.flows[0].name, "f3");
    for name in ["f1", "f2"] {
        let (b, a) = (flow(&before, name), flow(&after, name));
        // Packet times (the count in the window) and sizes (the byte total) are unchanged.
        assert!(b.sent_pkts > 1000);
        assert_eq!(
            (b.sent_pkts, b.sent_bytes),
            (a.sent_pkts, a.sent_bytes),
            "{name}: its source's random sequence changed when f3 was added"
        );
    }
    // ... while f3 really shares the bottleneck: f1 and f2 lose more with it.
    let bottleneck = "r->dst";
    assert!(
        queue(&after, bottleneck).dropped[0] > queue(&before, bottleneck).dropped[0],
        "f3 should add overflow drops"
    );
    assert_ne!(
        flow(&before, "f1").dropped_pkts,
        flow(&after, "f1").dropped_pkts
    );
}

/// h1 ⇄ h2 and h3 ⇄ h4 through one router: the two pairs use disjoint link directions.
/// `extra` flows (on h3 ⇄ h4) are inserted between the h1 ⇄ h2 flows.
fn disjoint_paths(extra: bool) -> String {
    let extra = if extra {
        r#"
[[flows]]
name = "g1"
type = "poisson"
src = "h3"
dst = "h4"
pkt_rate = 2000.0
packet_size = 1000
size_dist = "exponential"
[[flows]]
name = "g2"
type = "onoff"
src = "h4"
dst = "h3"
rate = "20Mbps"
packet_size = 1500
on_time = "50ms"
off_time = "50ms"
"#
    } else {
        ""
    };
    format!(
        r#"
schema_version = 1
[simulation]
duration = "10s"
warmup = "1s"
seed = 11
[[nodes]]
name = "h1"
type = "host"
[[nodes]]
name = "h2"
type = "host"
[[nodes]]
name = "h3"
type = "host"
[[nodes]]
name = "h4"
type = "host"
[[nodes]]
name = "r"
type = "router"
[[links]]
a = "h1"
b = "r"
bandwidth = "100Mbps"
delay = "1ms"
loss = {{ type = "bernoulli", p = 0.02 }}
queue = {{ limit_pkts = 50 }}
[[links]]
a = "r"
b = "h2"
bandwidth = "10Mbps"
delay = "4ms"
queue = {{ limit_pkts = 10 }}
[[links]]
a = "h3"
b = "r"
bandwidth = "100Mbps"
delay = "1ms"
loss = {{ type = "gilbert_elliott", p_gb = 0.05, p_bg = 0.3 }}
queue = {{ limit_pkts = 50 }}
[[links]]
a = "r"
b = "h4"
bandwidth = "10Mbps"
delay = "4ms"
queue = {{ limit_pkts = 10 }}
[[flows]]
name = "f1"
type = "poisson"
src = "h1"
dst = "h2"
pkt_rate = 1000.0
packet_size = 1500
size_dist = "exponential"
{extra}
[[flows]]
name = "f2"
type = "onoff"
src = "h2"
dst = "h1"
rate = "12Mbps"
packet_size = 1000
on_time = "100ms"
off_time = "100ms"
"#
    )
}

#[test]
fn adding_flows_on_disjoint_paths_changes_nothing_for_the_others() {
    let before = run_text(&disjoint_paths(false));
    let after = run_text(&disjoint_paths(true));
    assert_eq!(after.flows.len(), 4);
    for name in ["f1", "f2"] {
        let (b, a) = (flow(&before, name), flow(&after, name));
        assert!(b.received_pkts > 0 && !b.mean_delay_s.is_nan());
        assert_eq!(
            b, a,
            "{name}: summary changed when flows were added elsewhere"
        );
    }
    // f1 overflows r->h2 and loses packets on h1->r; both summaries must be unchanged,
    // as must those of the reverse path and of every queue the new flows don't touch.
    assert!(flow(&before, "f1").dropped_pkts > 0 && flow(&before, "f1").lost_pkts > 0);
    for q in ["h1->r", "r->h2", "h2->r", "r->h1"] {
        let (b, a) = (queue(&before, q), queue(&after, q));
        assert!(b.dequeued > 0 && !b.mean_sojourn_s.is_nan());
        assert_eq!(b, a, "queue {q} changed when flows were added elsewhere");
    }
    // The new flows did run, on their own link directions.
    for name in ["g1", "g2"] {
        assert!(flow(&after, name).received_pkts > 0, "{name}");
    }
    assert_eq!(queue(&before, "h3->r").arrivals, 0);
    assert!(queue(&after, "h3->r").arrivals > 0);
}

/// h1, h2 → r → h3 (lossy, overflowing) and h3 → h1 back over the same lossy link.
/// Fixed packet sizes of 1000 bytes so that the number in flight has a simple bound.
fn lossy_overflow(warmup: &str, size_dist: &str) -> String {
    format!(
        r#"
schema_version = 1
[simulation]
duration = "10s"
warmup = "{warmup}"
seed = 5
[[nodes]]
name = "h1"
type = "host"
[[nodes]]
name = "h2"
type = "host"
[[nodes]]
name = "h3"
type = "host"
[[nodes]]
name = "r"
type = "router"
[[links]]
a = "h1"
b = "r"
bandwidth = "100Mbps"
delay = "1ms"
queue = {{ limit_pkts = 100 }}
[[links]]
a = "h2"
b = "r"
bandwidth = "100Mbps"
delay = "1ms"
loss = {{ type = "bernoulli", p = 0.03 }}
queue = {{ limit_pkts = 100 }}
[[links]]
a = "r"
b = "h3"
bandwidth = "8Mbps"
delay = "20ms"
loss = {{ type = "gilbert_elliott", p_gb = 0.02, p_bg = 0.25, loss_bad = 0.5 }}
queue = {{ limit_pkts = 15 }}
[[flows]]
name = "poisson"
type = "poisson"
src = "h1"
dst = "h3"
pkt_rate = 700.0
packet_size = 1000
size_dist = "{size_dist}"
[[flows]]
name = "cbr"
type = "cbr"
src = "h2"
dst = "h3"
rate = "4Mbps"
packet_size = 1000
[[flows]]
name = "onoff"
type = "onoff"
src = "h1"
dst = "h3"
rate = "5Mbps"
packet_size = 1000
on_time = "200ms"
off_time = "300ms"
[[flows]]
name = "back"
type = "poisson"
src = "h3"
dst = "h1"
pkt_rate = 300.0
packet_size = 1000
"#
    )
}

#[test]
fn every_flow_is_conserved_with_loss_and_overflow() {
    // Warm-up 0: the window counters are then the run's totals, so for every flow
    // in flight = sent − received − dropped − lost ≥ 0. (With a warm-up, packets in flight
    // at its end are received in the window but were sent before it, so the window counts
    // obey no such inequality; the engine checks the identity on the totals instead.)
    let text = lossy_overflow("0s", "fixed");
    let s = load(&text).unwrap();
    let r = match Simulator::new(&s.validate().unwrap()).run() {
        Ok(r) => r,
        Err(SimError::Conservation(m)) => panic!("the engine's conservation check failed: {m}"),
        Err(e) => panic!("run failed: {e}"),
    };
    // The scenario does what it says: overflow drops and link losses on several flows.
    let bottleneck = queue(&r, "r->h3");
    assert!(bottleneck.dropped[0] > 0, "the bottleneck must overflow");
    assert!(bottleneck.lost_on_link > 0 && queue(&r, "h2->r").lost_on_link > 0);

    let mut in_flight_total = 0;
    for f in &r.flows {
        let accounted = f.received_pkts + f.dropped_pkts + f.lost_pkts;
        println!(
            "{}: sent {} = received {} + dropped {} + lost {} + in flight {}",
            f.name,
            f.sent_pkts,
            f.received_pkts,
            f.dropped_pkts,
            f.lost_pkts,
            f.sent_pkts.saturating_sub(accounted)
        );
        assert!(
            f.sent_pkts >= accounted,
            "flow {}: sent {} < received {} + dropped {} + lost {}",
            f.name,
            f.sent_pkts,
            f.received_pkts,
            f.dropped_pkts,
            f.lost_pkts
        );
        in_flight_total += f.sent_pkts - accounted;
        assert!(f.sent_pkts > 0 && f.received_pkts > 0);
    }
    assert!(r.flows.iter().filter(|f| f.dropped_pkts > 0).count() >= 2);
    assert!(r.flows.iter().filter(|f| f.lost_pkts > 0).count() >= 2);

    // The packets in flight at the end are waiting in a buffer or on a wire. A buffer holds
    // at most its limit; a wire at most ⌈(delay + tx)/tx⌉ packets of 1000 bytes.
    let wire = |bps: f64, delay_s: f64| {
        let tx = 8000.0 / bps;
        ((delay_s + tx) / tx).ceil() as u64
    };
    let links = [(100e6, 1e-3, 100), (100e6, 1e-3, 100), (8e6, 20e-3, 15)];
    let bound: u64 = links
        .iter()
        .map(|&(bps, d, limit)| 2 * (limit + wire(bps, d)))
        .sum();
    assert!(
        in_flight_total <= bound,
        "{in_flight_total} in flight > {bound}"
    );

    // Per queue, over the whole run: arrivals = enqueued + dropped (DropTail drops only on
    // arrival), 0 ≤ backlog = enqueued − dequeued ≤ limit; flows and queues agree.
    for q in &r.queues {
        let dropped: u64 = q.dropped.iter().sum();
        assert_eq!(q.arrivals, q.enqueued + dropped, "queue {}", q.name);
        assert!(q.dequeued <= q.enqueued, "queue {}", q.name);
        let limit = if q.name == "r->h3" || q.name == "h3->r" {
            15
        } else {
            100
        };
        assert!(q.enqueued - q.dequeued <= limit, "queue {}", q.name);
    }
    let sum_q = |f: fn(&QueueSummary) -> u64| r.queues.iter().map(f).sum::<u64>();
    let sum_f = |f: fn(&FlowSummary) -> u64| r.flows.iter().map(f).sum::<u64>();
    assert_eq!(sum_q(|q| q.dropped.iter().sum()), sum_f(|f| f.dropped_pkts));
    assert_eq!(sum_q(|q| q.lost_on_link), sum_f(|f| f.lost_pkts));

    // With a warm-up and exponential sizes the engine's own check (on the totals) passes too.
    let s = load(&lossy_overflow("2s", "exponential")).unwrap();
    if let Err(e) = Simulator::new(&s.validate().unwrap()).run() {
        panic!("run with warm-up failed: {e}");
    }
}

/// Two TCP flows and a Poisson source through a 100 Mb/s bottleneck that feeds 10 Mb/s
/// access links, and back: queues build at the bottleneck and, in bursts, at the access
/// links, so ends of transmission follow one another on several channels, while
/// retransmission timers and the sampling compete with them at the same instants.
fn bursty_dumbbell() -> String {
    let mut t = format!(
        r#"
schema_version = 1
[simulation]
duration = "6s"
warmup = "1s"
seed = 7
sample_interval = "50ms"
{NODES}
"#
    );
    for (a, b, bw) in [
        ("h1", "r1", "100Mbps"),
        ("h2", "r1", "100Mbps"),
        ("r1", "r2", "100Mbps"),
        ("r2", "h3", "10Mbps"),
        ("r2", "h4", "10Mbps"),
    ] {
        t += &format!(
            "[[links]]\na = \"{a}\"\nb = \"{b}\"\nbandwidth = \"{bw}\"\ndelay = \"5ms\"\n\
             queue = {{ limit_pkts = 40 }}\n"
        );
    }
    for (name, src, dst, start) in [("t1", "h1", "h3", "0ms"), ("t2", "h2", "h4", "3ms")] {
        t += &format!(
            "[[flows]]\nname = \"{name}\"\ntype = \"tcp\"\nvariant = \"newreno\"\n\
             src = \"{src}\"\ndst = \"{dst}\"\npacket_size = 1000\nstart = \"{start}\"\n"
        );
    }
    t += "[[flows]]\nname = \"p\"\ntype = \"poisson\"\nsrc = \"h1\"\ndst = \"h4\"\n\
          rate = \"3Mbps\"\npacket_size = 500\n";
    t
}

/// A large run (ports' and flows' state past 16 MiB) keeps the ends of transmission in a
/// heap of their own and reads the lanes ahead; the same scenario run either way gives the
/// same results to the last digit, so the event order is the same.
#[test]
fn a_large_run_s_event_set_changes_no_result() {
    let s = load(&bursty_dumbbell()).unwrap();
    let c = s.validate().unwrap();
    let small = Simulator::new(&c).with_large(false).run().unwrap();
    let large = Simulator::new(&c).with_large(true).run().unwrap();
    assert_no_nan(&small);
    assert!(same_debug_text(&small, &large));
    assert!(flow(&small, "t1").retransmits + flow(&small, "t2").retransmits > 0);
    assert!(queue(&small, "r2->h3").max_queue_pkts > 5);
}
