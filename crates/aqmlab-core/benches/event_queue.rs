//! Micro-benchmarks of the engine's innermost operations.
//!
//! - `event_queue/hold/N`: the classic *hold* model of event-set benchmarks. The heap holds
//!   N pending events; one iteration pops the earliest and schedules one new event at
//!   `now + increment`, so the heap size stays N. Increments come from a fixed xorshift
//!   sequence (uniform on [0, 2 ms), mean 1 ms), so every run does the same work.
//! - `timers/{heap,wheel}/N`: the same hold model for the timers' event set, with N from
//!   10^3 to 10^6 pending (per-flow TCP timers are most pending events at scale) and
//!   increments like a retransmission timeout's, uniform on [200 ms, 400 ms): the timing
//!   wheel the engine uses against the binary heap it replaced.
//! - `rng/exponential`: one exponential variate (PCG64 draw + `libm::log`).
//! - `record/log_histogram`: one `LogHistogram::record` of a sojourn-like value.
//!
//! Run: `cargo bench -p aqmlab-core --bench event_queue` (add `-- --quick` for a short run).

use aqmlab_core::event::timer_sets::{HeapTimers, TimerSet, WheelTimers};
use aqmlab_core::event::{Event, EventQueue};
use aqmlab_core::record::LogHistogram;
use aqmlab_core::rng::Rng;
use aqmlab_core::units::Time;
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use std::hint::black_box;

/// A tiny deterministic generator for increments (xorshift64), cheaper than the PCG so the
/// hold benchmark measures the heap, not the generator.
struct XorShift(u64);

impl XorShift {
    #[inline]
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }

    /// Uniform on [0, 2 ms) in nanoseconds.
    #[inline]
    fn increment(&mut self) -> Time {
        self.next() % 2_000_000
    }
}

fn hold(c: &mut Criterion) {
    let mut g = c.benchmark_group("event_queue/hold");
    g.throughput(Throughput::Elements(1));
    for n in [1_000u32, 100_000] {
        let mut inc = XorShift(0x9E37_79B9_7F4A_7C15);
        let mut q = EventQueue::new();
        for i in 0..n {
            q.schedule(inc.increment(), Event::Send { source: i });
        }
        g.bench_with_input(BenchmarkId::from_parameter(n), &n, |b, _| {
            b.iter(|| {
                let (t, ev) = q.pop().expect("the hold model keeps N events pending");
                q.schedule(t + inc.increment(), ev);
                black_box(t)
            })
        });
        assert_eq!(q.len(), n as usize);
    }
    g.finish();
}

/// The hold model on a set of timers of each size; `name` labels the set.
fn timer_hold<S: TimerSet>(c: &mut Criterion, name: &str) {
    let mut g = c.benchmark_group(format!("timers/{name}"));
    g.throughput(Throughput::Elements(1));
    for n in [1_000u32, 10_000, 100_000, 1_000_000] {
        let mut inc = XorShift(0x9E37_79B9_7F4A_7C15);
        let rto = |x: &mut XorShift| 200_000_000 + x.next() % 200_000_000;
        let mut set = S::default();
        for i in 0..n {
            // Armed over the first RTO, as flows starting together arm theirs.
            let t = inc.next() % 200_000_000 + rto(&mut inc);
            set.push(
                t,
                Event::Timer {
                    slot: i,
                    generation: 0,
                },
            );
        }
        g.bench_with_input(BenchmarkId::from_parameter(n), &n, |b, _| {
            b.iter(|| {
                let (t, ev) = set.pop().expect("the hold model keeps N timers pending");
                set.push(t + rto(&mut inc), ev);
                black_box(t)
            })
        });
    }
    g.finish();
}

fn timers(c: &mut Criterion) {
    timer_hold::<HeapTimers>(c, "heap");
    timer_hold::<WheelTimers>(c, "wheel");
}

fn exponential(c: &mut Criterion) {
    let mut rng = Rng::for_component(1, 0, "bench/exponential");
    c.bench_function("rng/exponential", |b| {
        b.iter(|| rng.exponential(black_box(1_000_000.0)))
    });
}

fn log_histogram(c: &mut Criterion) {
    // Sojourn-like values spread over six decades (1 ns .. ~1 s), precomputed so the
    // benchmark measures `record` alone.
    let mut x = XorShift(0x2545_F491_4F6C_DD1D);
    let values: Vec<u64> = (0..4096)
        .map(|_| {
            let v = x.next();
            (v >> 34) >> (v % 30) // up to 2^30 ns, log-uniform-ish
        })
        .collect();
    let mut h = LogHistogram::default();
    let mut i = 0usize;
    c.bench_function("record/log_histogram", |b| {
        b.iter(|| {
            h.record(black_box(values[i & 4095]));
            i = i.wrapping_add(1);
        })
    });
    black_box(h.n);
}

criterion_group!(benches, hold, timers, exponential, log_histogram);
criterion_main!(benches);
