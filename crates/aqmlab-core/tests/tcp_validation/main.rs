//! TCP validation against the analytic models, each case with its tolerance:
//!
//! 1. Mathis et al.: one long-lived NewReno flow over an i.i.d. Bernoulli loss link,
//!    B = (MSS/RTT)·√(3/2)/√p within 10% for p ∈ {1e-3, 2e-3, 5e-3}, ≥ 10⁴ loss events each.
//! 2. The same with periodic loss (every N-th data packet dropped, p = 1/N): the measured
//!    C = B·RTT/MSS·√p against √(3/2) and the packet-level corrections derived below.
//! 3. One flow through a DropTail buffer of one bandwidth-delay product keeps the
//!    bottleneck ≥ 99% busy.
//! 4. Ten equal-RTT NewReno flows through one DropTail bottleneck: Jain index ≥ 0.95.
//! 5. Padhye et al. (with timeouts) for p ∈ {1%, 2%, 3%, 5%} within 15%.
//! 6. CUBIC (SACK) with periodic loss: the mean window against RFC 9438 §5's response
//!    function within 10%, in the cubic region (three loss rates, two RTTs) and in the
//!    Reno-friendly region (three loss rates at each of two RTTs); every Reno-friendly
//!    point also inside the packet-level band derived from the sender's rules, which is
//!    the check where the fluid formula's O(1/W) terms exceed 10% (cubic.rs).
//! 7. DCTCP (RFC 8257) at 10 Gb/s, 100 µs, step marking at K = 40 (Alizadeh et al. 2010,
//!    §3.3): Q_max against K + N and the queue's swing against the analysis within 15%
//!    for N = 2 and 10; ≥ 99% utilisation at K = 12 > C·RTT/7 (dctcp.rs).
//!
//! # Conventions
//!
//! TCP here is segment-granular: a segment is one packet of `packet_size` bytes and there
//! are no headers, so MSS = `packet_size`·8 bits (8 000 bits: 1000-byte packets) and the
//! goodput (`goodput_bps`: unique segments delivered in order at the receiver, times
//! `packet_size`·8, per second of the measurement window) divided by MSS is the rate B
//! of the models in segments per second. Every flow here sends ACK-every-packet
//! (`delayed_ack = false`, b = 1 in the models).
//!
//! # Run time
//!
//! Release only (`cargo test --release -p aqmlab-core --test tcp_validation -- --nocapture`
//! prints every figure): about 7 s of wall time on a 2-core machine, most of it the 10⁴
//! loss events at p = 1e-3 (1.3·10⁷ data packets). Independent cases run on separate
//! threads (`std::thread::scope`). In a debug build every simulation test skips
//! itself with a message on stderr; the analytic formulas are still checked.

#[path = "../common/mod.rs"]
mod common;
mod cubic;
mod dctcp;

use aqmlab_core::sim::RunResults;
use common::{queue, run};
use std::thread;

const SEED: u64 = 1;
/// √(3/2): Mathis et al.'s constant for periodic loss and an ACK for every packet.
const SQRT_3_2: f64 = 1.224_744_871_391_589;
const PACKET_BYTES: u64 = 1000;
const ACK_BYTES: u64 = 40; // the default `ack_size`
/// MSS in bits: the whole packet is payload (segment-granular TCP, no headers).
const MSS_BITS: f64 = (PACKET_BYTES * 8) as f64;

/// Returns true (after saying why) when the test should not run: the runs are sized for
/// the statistical criteria (10⁴ loss events), far too slow in a debug build.
fn skip_in_debug(test: &str) -> bool {
    if cfg!(debug_assertions) {
        eprintln!(
            "SKIPPED {test}: TCP validation runs are sized for release builds; \
             run `cargo test --release -p aqmlab-core --test tcp_validation`"
        );
        return true;
    }
    false
}

/// Runs the jobs on their own threads (the machine's cores share them), results in order.
fn parallel<T: Send>(jobs: Vec<Box<dyn FnOnce() -> T + Send + '_>>) -> Vec<T> {
    thread::scope(|s| {
        let handles: Vec<_> = jobs.into_iter().map(|j| s.spawn(j)).collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("simulation thread"))
            .collect()
    })
}

/// Transmission time in seconds of `bytes` at `bps`.
fn tx_s(bytes: u64, bps: f64) -> f64 {
    bytes as f64 * 8.0 / bps
}

// ---------------------------------------------------------------------------------------
// The lossy path (tests 1, 2, 5)
// ---------------------------------------------------------------------------------------
//
// Four 1 Gb/s links of 25 ms each, arranged so that data and ACKs take different routes:
//
//     data: src -> r2 -> dst (links "src-r2", then the lossy "r2-dst")
//     ACKs: dst -> r1 -> src (links "r1-dst", "src-r1"), never touching the lossy link
//
// Both routes have two hops; the routing table's tie-break (breadth-first search backwards
// from the destination, each node's links in link order) picks r2 towards dst and r1
// towards src for the link order of `lossy_path_with`. `check_lossy_path` asserts it: the reverse
// directions stay empty and no ACK is lost. The loss models of docs/validation.md are packet
// loss rates of the data; a Bernoulli link carrying the ACKs too would also drop ACKs
// (which slows the window growth without byte counting), so the ACK path is kept clean.
//
// RTT. The models' RTT is the round-trip time without the flow's own queueing: propagation
// 4 × 25 ms, plus serialisation of one data packet on two hops (2 × 8 µs) and one ACK on two
// hops (2 × 0.32 µs): 100.016 64 ms. The flow's peak rate (W_max ≈ 60 segments per RTT,
// ≈ 5 Mb/s) is 0.5% of the links' rate, so queueing is limited to the occasional pair of
// back-to-back segments when cwnd crosses an integer (8 µs); the test measures the mean
// waits in the four queues on the path and asserts their sum is below 1e-3 of the RTT.
// The buffers (10⁵ packets) never drop.
//
// Window. `max_window` stays at its default (10 000 segments), far above any window here,
// and `initial_ssthresh` = max_window, so only losses limit the window.

const PATH_LINK_DELAY_S: f64 = 0.025;
const PATH_BPS: f64 = 1e9;

fn path_rtt() -> f64 {
    4.0 * PATH_LINK_DELAY_S + 2.0 * tx_s(PACKET_BYTES, PATH_BPS) + 2.0 * tx_s(ACK_BYTES, PATH_BPS)
}

/// One NewReno bulk flow src → dst; `loss` is the TOML table of the lossy link r2-dst.
fn lossy_path(loss: &str, duration_s: u64, warmup_s: u64) -> String {
    lossy_path_with(
        loss,
        duration_s,
        warmup_s,
        PATH_LINK_DELAY_S,
        None,
        "variant = \"newreno\"",
    )
}

/// The lossy path (see above) with links of `delay_s` each (RTT ≈ 4·delay_s), a flow
/// whose table has `flow` lines (variant, congestion, trace) and, if given, a
/// `sample_interval` for its trace.
fn lossy_path_with(
    loss: &str,
    duration_s: u64,
    warmup_s: u64,
    delay_s: f64,
    sample_s: Option<f64>,
    flow: &str,
) -> String {
    let delay_us = (delay_s * 1e6).round() as u64;
    let mut s = format!(
        "schema_version = 1\n[simulation]\nduration = \"{duration_s}s\"\nwarmup = \"{warmup_s}s\"\n\
         seed = {SEED}\n"
    );
    if let Some(sample_s) = sample_s {
        s += &format!(
            "sample_interval = \"{}us\"\n",
            (sample_s * 1e6).round() as u64
        );
    }
    for (name, kind) in [
        ("src", "host"),
        ("r1", "router"),
        ("r2", "router"),
        ("dst", "host"),
    ] {
        s += &format!("[[nodes]]\nname = \"{name}\"\ntype = \"{kind}\"\n");
    }
    // This order makes the routes asymmetric: data via r2, ACKs via r1 (see above,
    // `check_lossy_path`).
    for (a, b, lossy) in [
        ("src", "r1", false),
        ("r2", "dst", true),
        ("src", "r2", false),
        ("r1", "dst", false),
    ] {
        s += &format!(
            "[[links]]\na = \"{a}\"\nb = \"{b}\"\nbandwidth = \"1Gbps\"\ndelay = \"{delay_us}us\"\n\
             queue = {{ limit_pkts = 100000 }}\n"
        );
        if lossy {
            s += &format!("loss = {loss}\n");
        }
    }
    s += &format!(
        "[[flows]]\nname = \"tcp\"\ntype = \"tcp\"\ndelayed_ack = false\nsrc = \"src\"\n\
         dst = \"dst\"\npacket_size = {PACKET_BYTES}\n{flow}\n"
    );
    s
}

/// Checks the routes and the ACK-every-packet premise; returns the mean queueing delay
/// per round trip in seconds (the sum of the mean waits of the four queues on the path).
fn check_lossy_path(label: &str, r: &RunResults) -> f64 {
    let f = &r.flows[0];
    for unused in ["dst->r2", "r2->src", "src->r1", "r1->dst"] {
        assert_eq!(
            queue(r, unused).arrivals,
            0,
            "{label}: queue {unused} must carry nothing (data via r2, ACKs via r1)"
        );
    }
    let lossy = queue(r, "r2->dst");
    assert_eq!(
        lossy.lost_on_link, f.lost_pkts,
        "{label}: every loss is a data packet on r2->dst"
    );
    assert_eq!(f.acks_lost, 0, "{label}: no ACK may be lost");
    // One ACK per data segment received: both counters move in the same event.
    assert_eq!(
        f.acks_sent, f.received_pkts,
        "{label}: the receiver must ACK every segment"
    );
    let mut q = 0.0;
    for used in ["src->r2", "r2->dst", "dst->r1", "r1->src"] {
        let x = queue(r, used);
        assert_eq!(x.dropped.iter().sum::<u64>(), 0, "{label}: {used} dropped");
        q += x.mean_sojourn_s;
    }
    q
}

/// The drop list of `scripted` loss for one drop every `n` data packets: k = n-1, 2n-1, ...
fn periodic_loss(n: u64, drops: u64) -> String {
    let list: Vec<String> = (1..=drops).map(|i| (i * n - 1).to_string()).collect();
    format!("{{ type = \"scripted\", drop = [{}] }}", list.join(", "))
}

// ---------------------------------------------------------------------------------------
// Analytic models
// ---------------------------------------------------------------------------------------

/// Mathis et al.: segments per second for loss rate p, b = 1.
fn mathis(rtt: f64, p: f64) -> f64 {
    SQRT_3_2 / (rtt * p.sqrt())
}

/// Padhye et al. (1998), the approximate model with timeouts (their eq. 32), segments per
/// second; b segments per ACK, t0 the first retransmission timeout, no window limit.
fn padhye(rtt: f64, t0: f64, p: f64, b: f64) -> f64 {
    let q = (3.0 * (3.0 * b * p / 8.0).sqrt()).min(1.0);
    1.0 / (rtt * (2.0 * b * p / 3.0).sqrt() + t0 * q * p * (1.0 + 32.0 * p * p))
}

fn jain(xs: &[f64]) -> f64 {
    let s: f64 = xs.iter().sum();
    let s2: f64 = xs.iter().map(|x| x * x).sum();
    s * s / (xs.len() as f64 * s2)
}

#[test]
fn analytic_models_are_consistent() {
    assert!((SQRT_3_2 - 1.5f64.sqrt()).abs() < 1e-15);
    // Padhye without timeouts is Mathis with C = √(3/(2b)).
    for p in [1e-4, 1e-3, 0.01, 0.05] {
        let (m, pd) = (mathis(0.1, p), padhye(0.1, 0.0, p, 1.0));
        assert!((pd / m - 1.0).abs() < 1e-12, "p = {p}: {pd} vs {m}");
    }
    // One value by hand: RTT 0.1 s, T0 0.2 s, p = 0.05, b = 1:
    // 0.1·√(0.1/3) = 0.018257, 3√(0.01875) = 0.41079, 0.2·0.41079·0.05·1.08 = 0.0044366.
    assert!((padhye(0.1, 0.2, 0.05, 1.0) - 1.0 / 0.022_693_8).abs() < 0.01);
    assert!((jain(&[1.0; 10]) - 1.0).abs() < 1e-15);
    assert!((jain(&[1.0, 0.0]) - 0.5).abs() < 1e-15);
}

// ---------------------------------------------------------------------------------------
// 1. Mathis et al. with Bernoulli loss
// ---------------------------------------------------------------------------------------

/// i.i.d. Bernoulli loss of data packets at rate p; goodput within 10% of the Mathis
/// formula with C = √(3/2), p the configured loss probability (the measured loss fraction
/// is printed: it is p within binomial noise).
///
/// Sizing: at least 10⁴ loss events (window reductions: fast recoveries + timeouts) per p,
/// asserted. NewReno merges several losses in one window into one event (0.92–0.96 events
/// per lost packet here), so the run lasts 1.3·10⁴ / (p·B_Mathis) seconds after a 200 s
/// warm-up (≥ 75 loss cycles). With 10⁴ cycles the statistical error of B is well under 1%;
/// the tolerance is the docs/validation.md acceptance rule for a model, not a confidence interval.
///
/// What to expect inside the 10%: Mathis et al. themselves give C ≈ 1.31 for random (not
/// periodic) loss in the fluid model; the packet-level NewReno cycle is about one RTT longer
/// than the fluid one (the recovery RTT, see test 2), which lowers C by ≈ 2/W; with
/// W = √(8/(3p)) = 52, 37 and 23 segments these roughly cancel. Measured with seed 1:
/// C = 1.263, 1.237 and 1.207 (+3.1%, +1.0%, -1.4%); 58, 88 and 345 timeouts, i.e. 0.5%,
/// 0.7% and 2.9% of the loss events (the "no timeouts" premise holds approximately:
/// timeouts need a lost retransmission or fewer than three duplicate ACKs). The same with
/// `limited_transmit = false`: within 0.05% of these.
#[test]
fn mathis_bernoulli_loss_within_10_percent() {
    if skip_in_debug("mathis_bernoulli_loss_within_10_percent") {
        return;
    }
    let rtt = path_rtt();
    let ps = [1e-3, 2e-3, 5e-3];
    let warmup = 200;
    let jobs = ps
        .iter()
        .map(|&p| {
            Box::new(move || {
                let measure = (1.3e4 / (p * mathis(rtt, p))).ceil() as u64;
                let loss = format!("{{ type = \"bernoulli\", p = {p:?} }}");
                run(&lossy_path(&loss, warmup + measure, warmup))
            }) as Box<dyn FnOnce() -> RunResults + Send>
        })
        .collect();
    let results = parallel(jobs);
    let mut failures = vec![];
    for (p, r) in ps.iter().zip(&results) {
        let label = format!("Mathis, Bernoulli p={p}");
        let qdelay = check_lossy_path(&label, r);
        let f = &r.flows[0];
        let lossy = queue(r, "r2->dst");
        let events = f.fast_recoveries + f.timeouts;
        let p_meas = lossy.lost_on_link as f64 / lossy.dequeued as f64;
        let expected = mathis(rtt, *p);
        let measured = f.goodput_bps / MSS_BITS;
        let rel = measured / expected - 1.0;
        let c = measured * rtt * p.sqrt();
        println!(
            "{label}: {:.0} s measured, RTT {:.5} ms (+{:.2} us mean queueing = {:.1e} of it), \
             MSS {MSS_BITS} bits; expected {:.3} seg/s = {:.1} kb/s, measured goodput {:.3} \
             seg/s = {:.1} kb/s, rel. error {:+.4} (tolerance ±0.10); C = {c:.4} \
             (√(3/2) = {SQRT_3_2:.4}); lost {} of {} data packets = {p_meas:.6} \
             (±{:.6} 1σ); loss events {events} (fast recoveries {}, timeouts {}); \
             retransmits {}",
            r.measured_s,
            rtt * 1e3,
            qdelay * 1e6,
            qdelay / rtt,
            expected,
            expected * MSS_BITS / 1e3,
            measured,
            f.goodput_bps / 1e3,
            rel,
            lossy.lost_on_link,
            lossy.dequeued,
            (p * (1.0 - p) / lossy.dequeued as f64).sqrt(),
            f.fast_recoveries,
            f.timeouts,
            f.retransmits,
        );
        assert!(
            events >= 10_000,
            "{label}: only {events} loss events, docs/validation.md asks for 10^4"
        );
        assert!(
            qdelay < 1e-3 * rtt,
            "{label}: queueing {qdelay} s is not negligible against the RTT {rtt} s"
        );
        if rel.abs() > 0.10 {
            failures.push(format!(
                "{label}: goodput {measured:.3} seg/s vs Mathis {expected:.3} ({rel:+.4})"
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

// ---------------------------------------------------------------------------------------
// 2. Periodic loss
// ---------------------------------------------------------------------------------------

/// Every N-th data packet on the lossy link is dropped (`scripted`, indices N-1, 2N-1, ...;
/// retransmissions count, so p = 1/N of the transmissions), N = 10⁴, 1000, 500, 200.
///
/// In the fluid model the window grows by one segment per RTT from W/2 to W and halves:
/// N = 3W²/8 packets per cycle of W/2 RTTs, so W = √(8N/3) and C = B·RTT·√p = √(3/2)
/// exactly. The packet-level cycle (fast retransmit to fast retransmit) lasts W/2 + e RTTs
/// and delivers N - 1 new segments (one of its N transmissions is the retransmission), so
/// C = √(3/2)·(1 - p)·(W/2)/(W/2 + e). From the sender's rules, to leading order in 1/W:
///
/// - Detection at cwnd x₁ with FlightSize F = floor(x₁) = x₁ - φ, 0 ≤ φ < 1, so
///   ssthresh = F/2.
/// - The recovery RTT (retransmission to its ACK) does not grow the window: inflation is
///   undone at the full ACK, cwnd = ssthresh. The fluid cycle has no such flat RTT.
/// - Of the N - 1 ACKs per cycle, F - 1 are duplicates and one is the full ACK; only the
///   other N - F - 1 grow cwnd, each by 1/cwnd, so (x₁² - (F/2)²)/2 = N - F - 1. With
///   N = 3W²/8 this gives x₁ = W - 4/3 - φ/3, and the ramp from F/2 to x₁ is
///   x₁ - F/2 = W/2 - 2/3 + φ/3 segments of growth.
/// - An RTT carries floor(cwnd) ∈ (x - 1, x] ACKs, so cwnd grows by between (x - 1)/x and 1
///   per RTT: the ramp takes its length plus δ RTTs, 0 ≤ δ ≤ ∫ dx/(x - 1) from F/2 to x₁,
///   i.e. ln 2 + O(1/W) (≤ ln 2 + 2/W for W ≥ 8).
///
/// So e = 1 - 2/3 + φ/3 + δ ∈ [1/3, 2/3 + ln 2 + 2/W] ≈ [0.33, 1.36]. Limited transmit
/// (on by default) does not change this: the two segments it sends on the first two
/// duplicate ACKs are left out of the FlightSize that is halved (RFC 5681 §3.2 step 2) and
/// take the place of two that recovery would otherwise send (a run with
/// `limited_transmit = false` gave identical figures). The orbit is deterministic and
/// ACK-clocked: every send is an ACK arrival one RTT after an earlier send, so the cycle
/// locks to a whole number of RTTs (or a rational average over a few cycles), which moves
/// e by up to half an RTT either way. The accepted band is therefore
/// e ∈ [1/3 - 1/2, 2/3 + ln 2 + 2/W + 1/2], widened by the edge error of the measurement:
/// a window of k cycles and parts of two has its rate off by at most (1/3)/k relatively
/// (the per-RTT rate stays within [2/3, 4/3] of its mean), i.e. e off by at most
/// (W/2 + 2)/(3k). The band is derived, not fitted; it shrinks onto √(3/2) as 1/W = O(√p).
///
/// Measured (seed-independent: the run is deterministic): e = 1.36, 1.19, 1.08 and 1.45 for
/// N = 10⁴, 1000, 500, 200, i.e. C below √(3/2) by 1.6%, 4.5%, 5.8% and 11.6%. (Before
/// limited-transmit data was excluded from FlightSize, ssthresh came out one segment high
/// and e was 0.74, 0.18, 0.74 and 0.56: inside this band, hence the pure-sender test
/// `limited_transmit_data_is_not_in_the_halved_flightsize` below.)
#[test]
fn periodic_loss_gives_the_sawtooth_constant() {
    if skip_in_debug("periodic_loss_gives_the_sawtooth_constant") {
        return;
    }
    const E_LO: f64 = 1.0 / 3.0 - 0.5;
    // Plus 2/W, below.
    const E_HI: f64 = 2.0 / 3.0 + std::f64::consts::LN_2 + 0.5;
    let rtt = path_rtt();
    // (N, measured cycles)
    let cases: [(u64, u64); 4] = [(10_000, 300), (1000, 500), (500, 500), (200, 500)];
    let jobs = cases
        .iter()
        .map(|&(n, cycles)| {
            Box::new(move || {
                let w = (8.0 * n as f64 / 3.0).sqrt();
                let cycle_s = (w / 2.0 + 2.0) * rtt;
                let warmup = (30.0 * cycle_s).ceil() as u64;
                let measure = (cycles as f64 * cycle_s).ceil() as u64;
                // Twice the drops the run can use: the list never runs out.
                let drops = 2 * (30 + cycles + 10);
                run(&lossy_path(
                    &periodic_loss(n, drops),
                    warmup + measure,
                    warmup,
                ))
            }) as Box<dyn FnOnce() -> RunResults + Send>
        })
        .collect();
    let results = parallel(jobs);
    let mut failures = vec![];
    for ((n, cycles), r) in cases.iter().zip(&results) {
        let p = 1.0 / *n as f64;
        let label = format!("periodic loss 1/{n}");
        let qdelay = check_lossy_path(&label, r);
        let f = &r.flows[0];
        let w = (8.0 * *n as f64 / 3.0).sqrt();
        let b = f.goodput_bps / MSS_BITS;
        let c = b * rtt * p.sqrt();
        // Cycle length in RTTs and its excess over the fluid W/2.
        let rounds = (*n - 1) as f64 / (b * rtt);
        let e = rounds - w / 2.0;
        let k = f.fast_recoveries;
        let edge = (w / 2.0 + 2.0) / (3.0 * k as f64);
        let c_of = |e: f64| SQRT_3_2 * (1.0 - p) * (w / 2.0) / (w / 2.0 + e);
        let (e_lo, e_hi) = (E_LO - edge, E_HI + 2.0 / w + edge);
        let (c_lo, c_hi) = (c_of(e_hi), c_of(e_lo));
        println!(
            "{label}: {:.0} s measured; RTT {:.5} ms (+{:.2} us queueing); W = {w:.2}; \
             C = {c:.4} (√(3/2) = {SQRT_3_2:.4}, rel. {:+.4}); cycle {rounds:.3} RTTs = W/2 \
             + e, e = {e:.3} (accepted [{:.3}, {:.3}]), C accepted [{c_lo:.4}, {c_hi:.4}]; \
             loss events {k} (fast recoveries {}, timeouts {}), lost {}",
            r.measured_s,
            rtt * 1e3,
            qdelay * 1e6,
            c / SQRT_3_2 - 1.0,
            e_lo,
            e_hi,
            f.fast_recoveries,
            f.timeouts,
            f.lost_pkts,
        );
        assert_eq!(
            f.timeouts, 0,
            "{label}: a single loss per window never times out"
        );
        assert_eq!(
            f.fast_recoveries, f.lost_pkts,
            "{label}: one loss, one fast recovery per cycle"
        );
        assert!(k >= cycles * 9 / 10, "{label}: only {k} cycles measured");
        if !(c_lo..=c_hi).contains(&c) {
            failures.push(format!(
                "{label}: C = {c:.4} outside [{c_lo:.4}, {c_hi:.4}] (e = {e:.3})"
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

// ---------------------------------------------------------------------------------------
// Dumbbell (tests 3, 4)
// ---------------------------------------------------------------------------------------
//
// n senders s0..s{n-1}, each on its own 1 Gb/s 1 ms access link to router r, then one
// 10 Mb/s 49 ms DropTail bottleneck r -> dst. 1000-byte packets: 1 250 packets/s.
// RTT without queueing = 2·(1 + 49) ms + data serialisation (0.8 ms + 8 µs) + ACK
// serialisation (32 µs + 0.32 µs) = 100.840 32 ms, equal for every flow.

const BOTTLENECK_BPS: f64 = 10e6;
const ACCESS_BPS: f64 = 1e9;

fn dumbbell_rtt() -> f64 {
    2.0 * (0.001 + 0.049)
        + tx_s(PACKET_BYTES, BOTTLENECK_BPS)
        + tx_s(PACKET_BYTES, ACCESS_BPS)
        + tx_s(ACK_BYTES, BOTTLENECK_BPS)
        + tx_s(ACK_BYTES, ACCESS_BPS)
}

/// Bandwidth-delay product in packets.
fn dumbbell_bdp() -> f64 {
    BOTTLENECK_BPS / MSS_BITS * dumbbell_rtt()
}

fn dumbbell(n: usize, buffer: u32, stagger_s: f64, duration_s: u64, warmup_s: u64) -> String {
    let mut s = common::dumbbell(
        &format!("duration = \"{duration_s}s\"\nwarmup = \"{warmup_s}s\"\nseed = {SEED}"),
        "10Mbps",
        "49ms",
        &format!("{{ limit_pkts = {buffer} }}"),
    );
    for i in 0..n {
        s.sender(&format!("s{i}"), "1ms", 100_000).toml(&format!(
            r#"
[[flows]]
name = "f{i}"
type = "tcp"
variant = "newreno"
delayed_ack = false
src = "s{i}"
dst = "dst"
packet_size = {PACKET_BYTES}
start = "{}ms"
"#,
            (i as f64 * stagger_s * 1e3).round() as u64
        ));
    }
    s.text()
}

// ---------------------------------------------------------------------------------------
// 3. Utilisation with a BDP buffer
// ---------------------------------------------------------------------------------------

/// One NewReno flow, DropTail buffer of floor(BDP) = 126 packets (BDP = 126.05 packets;
/// `limit_pkts` counts waiting packets, the one on the wire is extra). At a loss the
/// flight is about BDP + buffer + 1, so ssthresh = FlightSize/2 ≈ BDP: after the recovery
/// the window still fills the pipe and the queue empties at most momentarily; the link
/// should stay busy all but a fraction of a percent of the time. `utilization` is the
/// fraction of the measurement window during which the bottleneck transmits. 100 s of
/// warm-up (slow start and its multiple losses), then 1000 s ≈ 80 sawtooth cycles of
/// ~63 RTTs each.
#[test]
fn one_flow_with_a_bdp_buffer_keeps_the_link_busy() {
    if skip_in_debug("one_flow_with_a_bdp_buffer_keeps_the_link_busy") {
        return;
    }
    let bdp = dumbbell_bdp();
    let buffer = bdp.floor() as u32;
    let r = run(&dumbbell(1, buffer, 0.0, 1100, 100));
    let q = queue(&r, "r->dst");
    let f = &r.flows[0];
    println!(
        "BDP buffer: RTT {:.5} ms, BDP {bdp:.2} packets, buffer {buffer}; {:.0} s measured: \
         utilization {:.6} (required >= 0.99), mean queue {:.1} packets, max {}; goodput \
         {:.1} kb/s; loss events {} (fast recoveries {}, timeouts {}), drops {}",
        dumbbell_rtt() * 1e3,
        r.measured_s,
        q.utilization,
        q.mean_queue_pkts,
        q.max_queue_pkts,
        f.goodput_bps / 1e3,
        f.fast_recoveries + f.timeouts,
        f.fast_recoveries,
        f.timeouts,
        q.dropped.iter().sum::<u64>(),
    );
    assert!(
        f.fast_recoveries + f.timeouts >= 20,
        "the window must hit the buffer repeatedly in the window"
    );
    assert!(
        q.utilization >= 0.99,
        "utilization {} < 0.99",
        q.utilization
    );
}

// ---------------------------------------------------------------------------------------
// 4. Fairness
// ---------------------------------------------------------------------------------------

/// Ten NewReno flows with the same RTT through one DropTail bottleneck (buffer = floor(BDP)
/// = 126 packets), starts staggered by 0.5 s; Jain's index (Σx)²/(nΣx²) of the goodputs
/// over 500 s after a 100 s warm-up must be ≥ 0.95.
#[test]
fn ten_equal_rtt_flows_share_fairly() {
    if skip_in_debug("ten_equal_rtt_flows_share_fairly") {
        return;
    }
    let n = 10;
    let buffer = dumbbell_bdp().floor() as u32;
    let r = run(&dumbbell(n, buffer, 0.5, 600, 100));
    let q = queue(&r, "r->dst");
    let g: Vec<f64> = r.flows.iter().map(|f| f.goodput_bps).collect();
    let j = jain(&g);
    let events: Vec<u64> = r
        .flows
        .iter()
        .map(|f| f.fast_recoveries + f.timeouts)
        .collect();
    let timeouts: Vec<u64> = r.flows.iter().map(|f| f.timeouts).collect();
    let kbps: Vec<String> = g.iter().map(|x| format!("{:.1}", x / 1e3)).collect();
    println!(
        "10 flows, DropTail {buffer} packets: {:.0} s measured; Jain index {j:.5} (required \
         >= 0.95); goodput kb/s [{}], total {:.1} kb/s, min/max {:.4}; utilization {:.5}; \
         loss events per flow {events:?}, timeouts {timeouts:?}",
        r.measured_s,
        kbps.join(", "),
        g.iter().sum::<f64>() / 1e3,
        g.iter().cloned().fold(f64::INFINITY, f64::min) / g.iter().cloned().fold(0.0, f64::max),
        q.utilization,
    );
    assert!(j >= 0.95, "Jain index {j}");
}

// ---------------------------------------------------------------------------------------
// 5. Padhye et al.
// ---------------------------------------------------------------------------------------

/// Bernoulli loss p ∈ {1%, 2%, 3%, 5%} on the lossy path; goodput within 15% of Padhye et
/// al.'s approximate model with timeouts (eq. 32 of the 1998 paper), b = 1, RTT as in
/// test 1 (queueing asserted negligible), and p the configured loss probability: Padhye's p
/// is the probability that a packet is lost given that the previous one in its round was
/// not, which for i.i.d. loss is p itself. (Their model counts every loss after the first
/// in a round as part of the same indication; the loss-indication rate
/// (fast recoveries + timeouts)/packets sent is printed too, with the model at that rate.)
///
/// T0 = 200 ms, the first RTO: RFC 6298 gives SRTT + max(G, 4·RTTVAR), and with constant
/// RTT samples RTTVAR decays towards 0, so 100 ms + G (10 ms) < min_rto = 200 ms, which
/// therefore applies. Later backoffs are the model's (1 + 32p²) factor.
///
/// Sizing: at least 10⁴ loss events per p, as for Mathis: 1.3·10⁴/(p·B_Padhye) seconds
/// after a 200 s warm-up.
///
/// Measured with seed 1 (limited transmit on, the default): -0.6%, -0.5%, -0.4% and +2.3%
/// for p = 1%, 2%, 3%, 5%; with `limited_transmit = false` (the model's TCP has none, so
/// more small-window losses end in a timeout): -0.9%, -2.0%, -3.9% and -5.5%.
#[test]
fn padhye_with_timeouts_within_15_percent() {
    if skip_in_debug("padhye_with_timeouts_within_15_percent") {
        return;
    }
    let rtt = path_rtt();
    let t0 = 0.2;
    let ps = [0.01, 0.02, 0.03, 0.05];
    let warmup = 200;
    let jobs = ps
        .iter()
        .map(|&p| {
            Box::new(move || {
                let measure = (1.3e4 / (p * padhye(rtt, t0, p, 1.0))).ceil() as u64;
                let loss = format!("{{ type = \"bernoulli\", p = {p:?} }}");
                run(&lossy_path(&loss, warmup + measure, warmup))
            }) as Box<dyn FnOnce() -> RunResults + Send>
        })
        .collect();
    let results = parallel(jobs);
    let mut failures = vec![];
    for (p, r) in ps.iter().zip(&results) {
        let label = format!("Padhye, Bernoulli p={p}");
        let qdelay = check_lossy_path(&label, r);
        let f = &r.flows[0];
        let events = f.fast_recoveries + f.timeouts;
        let expected = padhye(rtt, t0, *p, 1.0);
        let measured = f.goodput_bps / MSS_BITS;
        let rel = measured / expected - 1.0;
        let p_ind = events as f64 / f.sent_pkts as f64;
        let at_ind = padhye(rtt, t0, p_ind, 1.0);
        println!(
            "{label}: {:.0} s measured, RTT {:.5} ms (+{:.2} us queueing), T0 {t0} s; \
             expected {expected:.3} seg/s, measured {measured:.3} seg/s, rel. error \
             {rel:+.4} (tolerance ±0.15); [at the loss-indication rate {p_ind:.5}: model \
             {at_ind:.3}, rel. {:+.4}; Mathis {:.3}, rel. {:+.4}]; loss events {events} \
             (fast recoveries {}, timeouts {}), lost {}, retransmits {}",
            r.measured_s,
            rtt * 1e3,
            qdelay * 1e6,
            measured / at_ind - 1.0,
            mathis(rtt, *p),
            measured / mathis(rtt, *p) - 1.0,
            f.fast_recoveries,
            f.timeouts,
            f.lost_pkts,
            f.retransmits,
        );
        assert!(events >= 10_000, "{label}: only {events} loss events");
        assert!(qdelay < 1e-3 * rtt, "{label}: queueing {qdelay} s");
        if rel.abs() > 0.15 {
            failures.push(format!(
                "{label}: goodput {measured:.3} seg/s vs Padhye {expected:.3} ({rel:+.4})"
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

// ---------------------------------------------------------------------------------------
// Regression: limited transmit and the window reduction
// ---------------------------------------------------------------------------------------

/// RFC 5681 §3.2 step 2: "When [RFC3042] is in use, additional data sent in limited
/// transmit MUST NOT be included in this calculation" (ssthresh = max(FlightSize/2, 2)).
/// ns-2 (window()/2) and ns-3 agree. Counting the two limited-transmit segments made
/// ssthresh one segment too high after every fast retransmit; in the runs above that moved
/// Mathis' C by +3 to +6% and Padhye at p = 5% from +2.3% to +14.7%, yet stayed inside
/// the periodic-loss band, so it is pinned here on the pure sender (runs in debug too).
///
/// NewReno, initial cwnd 10: segments 0..=9; the ACK of 0 opens cwnd to 11 (slow start)
/// and sends 10 and 11, so FlightSize = 11 (segments 1..=11). Segment 1 is lost: the first
/// two duplicate ACKs send 12 and 13 by limited transmit, the third retransmits 1 with
/// ssthresh = 11/2 = 5.5 (not 13/2) and cwnd = ssthresh + 3.
#[test]
fn limited_transmit_data_is_not_in_the_halved_flightsize() {
    use aqmlab_core::tcp::{
        Ack, DupackResponse, FrTimer, Halving, PartialAck, RecoverGuard, Recovery, Sender,
        SenderConfig, Variant,
    };
    const MS: u64 = 1_000_000;
    let mut s = Sender::new(SenderConfig {
        variant: Variant::NewReno,
        ecn: false,
        ecn_backoff: false,
        dupack_response: DupackResponse::Halve,
        recovery: Recovery::Classic,
        partial_ack: PartialAck::Rfc6582,
        halving: Halving::Rfc5681,
        fr_timer: FrTimer::Keep,
        recover_guard: RecoverGuard::Rfc6582,
        max_window: 1000,
        initial_cwnd: 10.0,
        initial_ssthresh: 1000.0,
        dupthresh: 3,
        limited_transmit: true,
        min_rto: 200 * MS,
        initial_rto: 1000 * MS,
        max_rto: 60_000 * MS,
        granularity: 10 * MS,
        rtt_rule: aqmlab_core::tcp::RttRule::Rfc6298,
        clock_phase: 0,
        segments: None,
        congestion: Default::default(),
        pacing: false,
        segment_bytes: PACKET_BYTES as u32,
        congestion_seed: 0,
    });
    let ack = |n: u64| Ack {
        ack: n,
        ..Default::default()
    };
    let mut out = vec![];
    s.start(0, &mut out);
    assert_eq!(out.len(), 10);
    out.clear();
    s.on_ack(&ack(1), 100 * MS, &mut out);
    let seqs = |out: &mut Vec<aqmlab_core::tcp::Segment>| -> Vec<(u64, bool)> {
        out.drain(..).map(|g| (g.seq, g.retransmit)).collect()
    };
    assert_eq!(seqs(&mut out), [(10, false), (11, false)]);
    s.on_ack(&ack(1), 101 * MS, &mut out);
    assert_eq!(
        seqs(&mut out),
        [(12, false)],
        "first limited-transmit segment"
    );
    s.on_ack(&ack(1), 102 * MS, &mut out);
    assert_eq!(
        seqs(&mut out),
        [(13, false)],
        "second limited-transmit segment"
    );
    s.on_ack(&ack(1), 103 * MS, &mut out);
    assert_eq!(seqs(&mut out), [(1, true)], "fast retransmit");
    assert!(s.in_recovery());
    assert_eq!(
        s.ssthresh, 5.5,
        "FlightSize 11 (without limited transmit) / 2"
    );
    assert_eq!(s.cwnd, 8.5);
}
