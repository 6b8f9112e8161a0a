//! Engine throughput: events per second and packets per second, on
//! (a) one saturated link fed by Poisson traffic, and
//! (b) 1000 UDP (Poisson) flows over a 3-hop path.
//!
//! Run: `make bench` (or `cargo run --release -p aqmlab-core --example engine_bench`).
//! Wall time is measured around `Simulator::run` only (scenario build excluded), best of
//! `--reps` runs (default 5) to shed scheduler noise on a shared 2-core machine.

#[path = "alloc.rs"]
mod alloc;
use aqmlab_core::scenario::load;
use aqmlab_core::sim::Simulator;
use std::time::Instant;

fn saturated(duration: &str) -> String {
    // 100 Mb/s, 1000 B packets -> 12 500 pkt/s capacity; Poisson at 1.1x capacity.
    format!(
        r#"
schema_version = 1
[simulation]
duration = "{duration}"
sample_interval = "1s"
[[nodes]]
name = "h0"
type = "host"
[[nodes]]
name = "h1"
type = "host"
[[links]]
a = "h0"
b = "h1"
bandwidth = "100Mbps"
delay = "1ms"
queue = {{ limit_pkts = 100 }}
[[flows]]
name = "poisson"
type = "poisson"
src = "h0"
dst = "h1"
pkt_rate = 13750.0
packet_size = 1000
"#
    )
}

fn three_hop(duration: &str, flows: usize) -> String {
    let mut s = format!(
        r#"
schema_version = 1
[simulation]
duration = "{duration}"
sample_interval = "1s"
[[nodes]]
name = "src"
type = "host"
[[nodes]]
name = "r1"
type = "router"
[[nodes]]
name = "r2"
type = "router"
[[nodes]]
name = "dst"
type = "host"
[[links]]
a = "src"
b = "r1"
bandwidth = "1Gbps"
delay = "1ms"
queue = {{ limit_pkts = 1000 }}
[[links]]
a = "r1"
b = "r2"
bandwidth = "100Mbps"
delay = "10ms"
queue = {{ limit_pkts = 100 }}
[[links]]
a = "r2"
b = "dst"
bandwidth = "1Gbps"
delay = "1ms"
queue = {{ limit_pkts = 1000 }}
"#
    );
    // Total offered load 0.98 x 100 Mb/s across the flows.
    let per_flow = 0.98 * 12_500.0 / flows as f64;
    for i in 0..flows {
        s += &format!(
            "[[flows]]\nname = \"u{i}\"\ntype = \"poisson\"\nsrc = \"src\"\ndst = \"dst\"\npkt_rate = {per_flow}\npacket_size = 1000\n"
        );
    }
    s
}

fn measure(label: &str, text: &str, reps: usize) {
    let sc = load(text).expect("benchmark scenario is valid");
    let mut best = f64::INFINITY;
    let mut events = 0;
    let mut packets = 0;
    for _ in 0..reps {
        let sim = Simulator::new(&sc.validate().expect("benchmark scenario is valid"));
        let t0 = Instant::now();
        let r = sim.run().expect("run succeeds");
        let dt = t0.elapsed().as_secs_f64();
        if dt < best {
            best = dt;
        }
        events = r.events;
        packets = r.packets;
    }
    println!(
        "{label}: {events} events, {packets} packets, best {best:.3} s wall -> {:.2} M events/s, {:.2} M packets/s",
        events as f64 / best / 1e6,
        packets as f64 / best / 1e6
    );
}

fn main() {
    alloc::setup();
    let args: Vec<String> = std::env::args().collect();
    let reps = args
        .iter()
        .position(|a| a == "--reps")
        .and_then(|i| args.get(i + 1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(5);
    measure(
        "(a) saturated link, Poisson 1.1x, 100 s",
        &saturated("100s"),
        reps,
    );
    measure(
        "(b) 1000 Poisson flows, 3-hop path, 100 s",
        &three_hop("100s", 1000),
        reps,
    );
}
