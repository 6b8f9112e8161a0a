//! Degeneracy of the multi-precedence AQMs (issue 12 acceptance), packet for packet: one
//! output queue at 10 Mb/s driven as the simulator drives it (the AQM learns of an idle
//! link at the next arrival; the packet on the wire has left the buffer), under on/off
//! Poisson traffic that crosses every region (idle, below min_th, early, forced, overflow),
//! half of it ECN-capable. Two AQMs fed the same packets with the same seed must admit,
//! drop (by reason) and mark exactly the same packets. Every case runs in packet mode
//! (1000-byte packets, 50-packet buffer) and in byte mode (200 to 1500-byte packets, a
//! 50 000-byte buffer, mean_pktsize 1000), as docs/validation.md asks of every AQM test.
//!
//! - RIO fed only green (IN) packets is RED with the level-0 parameters, in every mode;
//! - RIO fed only OUT packets (red, or yellow with two levels) is RED with the OUT
//!   parameters on the total average;
//! - BIO with one level, a BLUE-like single freeze clock, max_th at the buffer limit and
//!   the I mark rule is BLUE (every colour maps to its one level), for the four xxI
//!   variants; a T variant is not (it never marks at a queue of min_th or less).

use aqmlab_core::aqm::{AqmSpec, Limit, QueueCtx};
use aqmlab_core::check::Problems;
use aqmlab_core::packet::{Colour, Ecn, Packet, PacketArena};
use aqmlab_core::queue::{Admission, OutputQueue};
use aqmlab_core::rng::Rng;
use aqmlab_core::units::{Bytes, Time, NS_PER_SEC};

const BPS: u64 = 10_000_000;
const LIMIT: u32 = 50;
const SIZE: u32 = 1000;

/// Byte mode or packet mode, for the AQM's table and the buffer.
#[derive(Clone, Copy, Debug)]
struct Mode {
    bytes: bool,
}

const MODES: [Mode; 2] = [Mode { bytes: false }, Mode { bytes: true }];

impl Mode {
    fn limit(self) -> Limit {
        if self.bytes {
            Limit::Bytes(LIMIT as u64 * SIZE as u64)
        } else {
            Limit::Packets(LIMIT)
        }
    }
    /// The AQM table with this mode's `byte_mode`.
    fn table(self, t: &str) -> String {
        format!("{t}\nbyte_mode = {}", self.bytes)
    }
}

fn build(toml_text: &str, mode: Mode) -> OutputQueue {
    let toml_text = &mode.table(toml_text);
    let spec: AqmSpec = toml::from_str(toml_text).expect(toml_text);
    let ctx = QueueCtx {
        limit_pkts: (!mode.bytes).then_some(LIMIT),
        limit_bytes: mode.bytes.then_some(Bytes(LIMIT as u64 * SIZE as u64)),
        link_bps: BPS,
        nodes: &[],
        hosts: &[],
    };
    let mut p = Problems::default();
    spec.validate("aqm", &ctx, &mut p);
    assert!(p.is_empty(), "{toml_text}: {:?}", p.errors);
    let rng = Rng::for_component(5, 0, "port");
    OutputQueue::new(mode.limit(), BPS, spec.build(&ctx), rng)
}

/// What became of each arrival, and the ECN codepoint of each departure.
#[derive(Debug, PartialEq)]
struct Trace {
    admissions: Vec<Admission>,
    departures: Vec<Ecn>,
}

/// Drives `n` arrivals through the queue: on periods (mean 300 ms) at 1.6× the link rate,
/// off periods (mean 200 ms) at 0.3×, exponential gaps; colours from `colour`; sizes
/// uniform on 200..1500 bytes in byte mode (mean 850: the load is a little lighter).
fn drive(q: &mut OutputQueue, n: usize, colour: impl Fn(usize) -> Colour, mode: Mode) -> Trace {
    let mut traffic = Rng::for_component(17, 0, "traffic");
    let tx = |size: u32| -> Time { size as u64 * 8 * NS_PER_SEC / BPS };
    let rate = BPS as f64 / (8.0 * SIZE as f64);
    let mut arena = PacketArena::default();
    let (mut busy_until, mut active) = (0, false);
    let (mut t, mut phase_end, mut on) = (0u64, 0u64, false);
    let mut trace = Trace {
        admissions: Vec::with_capacity(n),
        departures: vec![],
    };
    let mut none = vec![];
    for i in 0..n {
        if t >= phase_end {
            on = !on;
            let mean = if on { 0.3 } else { 0.2 };
            phase_end = t + (traffic.exponential(mean) * NS_PER_SEC as f64) as Time;
        }
        let lambda = rate * if on { 1.6 } else { 0.3 };
        t += (traffic.exponential(1.0 / lambda) * NS_PER_SEC as f64) as Time + 1;
        // Transmissions that end before this arrival.
        while active && busy_until <= t {
            match q.dequeue(&mut arena, busy_until, &mut none) {
                Some(idx) => {
                    trace.departures.push(arena.get(idx).ecn);
                    busy_until += tx(arena.get(idx).size);
                    arena.free(idx);
                }
                None => {
                    active = false;
                    // The AQM learns of the idle period at the next arrival (sim.rs).
                    q.on_idle(busy_until);
                }
            }
        }
        let ecn = if traffic.bernoulli(0.5) {
            Ecn::Ect0
        } else {
            Ecn::NotEct
        };
        let size = if mode.bytes {
            200 + (traffic.uniform() * 1301.0) as u32
        } else {
            SIZE
        };
        let idx = arena.alloc(Packet {
            size,
            ecn,
            colour: colour(i),
            ..Default::default()
        });
        let a = q.arrive(idx, &mut arena, t);
        trace.admissions.push(a);
        match a {
            Admission::Dropped(_) => arena.free(idx),
            Admission::Enqueued if !active => {
                let idx = q.dequeue(&mut arena, t, &mut none).expect("just enqueued");
                trace.departures.push(arena.get(idx).ecn);
                (busy_until, active) = (t + tx(arena.get(idx).size), true);
                arena.free(idx);
            }
            Admission::Enqueued => {}
        }
        assert!(none.is_empty(), "no AQM here drops at dequeue");
    }
    trace
}

const N: usize = 60_000;

fn compare(
    a: &str,
    b: &str,
    colour: impl Fn(usize) -> Colour + Copy,
    mode: Mode,
) -> (Trace, Trace) {
    let (mut qa, mut qb) = (build(a, mode), build(b, mode));
    (
        drive(&mut qa, N, colour, mode),
        drive(&mut qb, N, colour, mode),
    )
}

/// The run reaches every kind of outcome, so that equality means something.
fn assert_rich(t: &Trace, what: &str) {
    use aqmlab_core::aqm::Reason::*;
    let count = |a: Admission| t.admissions.iter().filter(|&&x| x == a).count();
    let marks = t.departures.iter().filter(|&&e| e == Ecn::Ce).count();
    let (early, forced, overflow) = (
        count(Admission::Dropped(Early)),
        count(Admission::Dropped(Forced)),
        count(Admission::Dropped(Overflow)),
    );
    println!("{what}: early {early}, forced {forced}, overflow {overflow}, marks {marks}");
    assert!(
        early > 100 && marks > 100,
        "{what}: early {early}, marks {marks}"
    );
    assert!(
        forced + overflow > 100,
        "{what}: forced {forced}, overflow {overflow}"
    );
}

const RED_IN: &str = "min_th = 12.0, max_th = 30.0, max_p = 0.05";
const RED_OUT: &str = "min_th = 4.0, max_th = 12.0, max_p = 0.2";

fn red(th: &str, rule: &str, gentle: bool) -> String {
    format!(
        "type = \"red\"\n{}\nw_q = 0.02\ncount_rule = \"{rule}\"\ngentle = {gentle}\necn = true\n\
         mark_above_max_th = true",
        th.replace(", ", "\n")
    )
}

fn rio(mode: &str, levels: &[&str], rule: &str, gentle: bool) -> String {
    let levels: Vec<String> = levels.iter().map(|l| format!("{{ {l} }}")).collect();
    format!(
        "type = \"rio\"\nmode = \"{mode}\"\nlevels = [{}]\nw_q = 0.02\ncount_rule = \"{rule}\"\n\
         gentle = {gentle}\necn = true\nidle_start = \"link_idle\"",
        levels.join(", ")
    )
}

const RED_MID: &str = "min_th = 8.0, max_th = 20.0, max_p = 0.1";

#[test]
fn rio_fed_only_in_packets_is_red_with_the_in_parameters() {
    for m in MODES {
        for mode in ["rio_c", "rio_d", "wred"] {
            for (rule, gentle) in [("dsred", false), ("ns2_wait", true)] {
                for levels in [&[RED_IN, RED_OUT][..], &[RED_IN, RED_MID, RED_OUT]] {
                    let n = levels.len();
                    let what = format!("{m:?} {mode} {rule} gentle={gentle} {n} levels");
                    let (a, b) = compare(
                        &rio(mode, levels, rule, gentle),
                        &red(RED_IN, rule, gentle),
                        |_| Colour::Green,
                        m,
                    );
                    assert_rich(&b, &what);
                    assert!(a == b, "{what}: RIO and RED part");
                }
            }
        }
    }
}

#[test]
fn rio_fed_only_out_packets_is_red_with_the_out_parameters_on_the_total_average() {
    for m in MODES {
        for mode in ["rio_c", "rio_d", "wred"] {
            for (rule, gentle) in [("dsred", false), ("uniform", true)] {
                // Two levels: yellow and red are both OUT (RFC 2597 §3).
                for colour in [Colour::Red, Colour::Yellow] {
                    let what = format!("{m:?} {mode} {rule} gentle={gentle} 2 levels, {colour:?}");
                    let (a, b) = compare(
                        &rio(mode, &[RED_IN, RED_OUT], rule, gentle),
                        &red(RED_OUT, rule, gentle),
                        move |_| colour,
                        m,
                    );
                    assert_rich(&b, &what);
                    assert!(a == b, "{what}: RIO and RED part");
                }
                // Three levels: red is level 2.
                let what = format!("{m:?} {mode} {rule} gentle={gentle} 3 levels, red");
                let (a, b) = compare(
                    &rio(mode, &[RED_IN, RED_MID, RED_OUT], rule, gentle),
                    &red(RED_OUT, rule, gentle),
                    |_| Colour::Red,
                    m,
                );
                assert!(a == b, "{what}: RIO and RED part");
            }
        }
    }
}

/// Mixed traffic tells the modes apart (a check that the tests above could fail): RIO-C,
/// RIO-D and WRED drop OUT packets on different averages.
#[test]
fn with_mixed_colours_the_modes_part() {
    let colour = |i: usize| {
        if i % 3 == 0 {
            Colour::Green
        } else {
            Colour::Red
        }
    };
    let levels = &[RED_IN, RED_OUT];
    for m in MODES {
        let run = |mode| {
            let mut q = build(&rio(mode, levels, "dsred", false), m);
            drive(&mut q, N, colour, m)
        };
        let (c, d, w) = (run("rio_c"), run("rio_d"), run("wred"));
        assert!(c != w && c != d && w != d, "{m:?}");
    }
}

const BLUE: &str = "type = \"blue\"\nd1 = 0.02\nd2 = 0.002\nfreeze_time = \"10ms\"\necn = true";

fn bio(variant: &str, mark: &str) -> String {
    format!(
        "type = \"bio\"\nvariant = \"{variant}\"\necn = true\nlevels = [{{ d1 = 0.02, d2 = 0.002, \
         freeze_time = \"10ms\", max_th = {LIMIT}.0{mark} }}]"
    )
}

#[test]
fn bio_with_one_level_and_the_i_rule_is_blue() {
    // Any colour maps to the one level.
    let colour = |i: usize| Colour::ALL[i % 3];
    let drops = |t: &Trace| {
        t.admissions
            .iter()
            .filter(|a| **a != Admission::Enqueued)
            .count()
    };
    for m in MODES {
        for variant in ["SSI", "SAI", "ASI", "AAI"] {
            let (a, b) = compare(&bio(variant, ""), BLUE, colour, m);
            let marks = b.departures.iter().filter(|&&e| e == Ecn::Ce).count();
            println!(
                "{m:?} BIO-{variant} vs BLUE: {} drops, {marks} marks",
                drops(&b)
            );
            assert!(drops(&b) > 1000 && marks > 1000);
            assert!(a == b, "{m:?} BIO-{variant} and BLUE part");
        }
        // The T rule spares arrivals at a queue of min_th or less, where BLUE marks.
        let (a, b) = compare(&bio("AAT", ", min_th = 0.0"), BLUE, colour, m);
        assert!(a != b, "{m:?}");
    }
}

/// The increment rule at the threshold (max_th below the limit) forces drops BLUE's
/// `increase_threshold` does not: the one place a one-level BIO-xxI is not BLUE.
#[test]
fn bio_max_th_below_the_limit_forces_drops() {
    use aqmlab_core::aqm::Reason::{Forced, Overflow};
    for m in MODES {
        let s = bio("AAI", "").replace(&format!("max_th = {LIMIT}.0"), "max_th = 20.0");
        let mut q = build(&s, m);
        let t = drive(&mut q, N, |_| Colour::Green, m);
        let count = |r| {
            t.admissions
                .iter()
                .filter(|a| **a == Admission::Dropped(r))
                .count()
        };
        assert!(count(Forced) > 100, "{m:?}: {}", count(Forced));
        // An arrival finding more than 20 packets (20 000 bytes) waiting is dropped: the
        // buffer of 50 (50 000 bytes) never fills.
        assert_eq!(count(Overflow), 0, "{m:?}");
    }
}
