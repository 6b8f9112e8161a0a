//! Case 7: DCTCP (RFC 8257) against the analysis of Alizadeh et al., "Data Center TCP
//! (DCTCP)", SIGCOMM 2010, §3.3, in its own setting: N long-lived flows with equal RTTs
//! through one bottleneck of C = 10 Gb/s that marks every arrival finding K packets or
//! more queued (RED with min_th = max_th = K, w_q = 1, `mark_above_max_th`: the step
//! marker of docs/aqm/red.md), RTT = 100 µs, 1500-byte packets, ACK per packet.
//!
//! The analysis (C·RTT in packets): with W* = (C·RTT + K)/N the window at which the
//! queue reaches K, the marked fraction α of a cycle solves α²(1 − α/2) =
//! (2W* + 1)/(W* + 1)², each flow cuts by D = (W* + 1)·α/2, and the queue peaks at
//! Q_max = N(W* + 1) − C·RTT = K + N and swings by A = N·D. With W* ≫ 1, α ≈ √(2/W*)
//! and A ≈ ½·√(2N(C·RTT + K)), the paper's closed form; the queue does not empty, and
//! the link stays busy, when K > (C·RTT)/7.
//!
//! The closed form misses at N = 10, where W* = 12.3 is not ≫ 1: the exact α is 0.429
//! (not √(2/W*) = 0.403) and D = 2.86 with (W* + 1), not W*, so A = 28.6 where the closed
//! form gives 24.8 (13% less). The test holds A to the exact form and prints both; measured
//! (2026-12-02): N = 2, A 10.3 (exact 11.7, closed 11.1); N = 10, A 30.4 (exact 28.6,
//! closed 24.8: +22.6%, outside the 15%).
//!
//! Measured: the queue is sampled every 2 µs (1.7 packet times) for 200 ms after a 100 ms
//! warm-up, cut into 2 ms windows, at least 2.5 of the analysis' periods
//! T_C = ½√(2(C·RTT + K)/N) RTTs each (0.8 ms at N = 2 with the RTT the queue adds, less
//! at N = 10); Q_max is the mean of the windows' maxima and A the mean of their
//! max − min. Tolerance 15% (the issue's): the analysis is a fluid model of a synchronised
//! sawtooth, exact only as N·D ≫ 1 packet; its own figure (Fig. 13) matches ns-2 to
//! about that. Full throughput: ≥ 99% utilisation at K = 12 > 83.3/7 (the bottleneck
//! idle less than 1% of the time; the remaining 1% is slack for the warm-up transient
//! not being over).
//!
//! One sender host carries all N flows over a 100 Gb/s access link (so only the
//! bottleneck queues), flows starting 10 µs apart.

use super::*;

const C_PPS: f64 = 10e9 / (1500.0 * 8.0);
const RTT_S: f64 = 100e-6;

/// N DCTCP flows through the step marker at K; the bottleneck queue sampled every 2 µs.
fn dctcp_dumbbell(n: usize, k: u32) -> String {
    let mut s = common::chain(
        "duration = \"300ms\"\nwarmup = \"100ms\"\nseed = 3\nsample_interval = \"2us\"",
        "dst",
        ("100Gbps", "10us", "{ limit_pkts = 10000 }"),
        (
            "10Gbps",
            "40us",
            &format!(
                "{{ limit_pkts = 1000, aqm = {{ type = \"red\", min_th = {k}, max_th = {k}, \
                 w_q = 1.0, ecn = true, mark_above_max_th = true }} }}"
            ),
        ),
    );
    for i in 0..n {
        s.toml(&format!(
            "[[flows]]\nname = \"f{i}\"\ntype = \"tcp\"\nsrc = \"a\"\ndst = \"dst\"\n\
             packet_size = 1500\nvariant = \"sack\"\necn = true\nstart = \"{}us\"\n\
             congestion = {{ type = \"dctcp\" }}\n",
            10 * i
        ));
    }
    s.text()
}

/// (mean of the 2 ms windows' maxima, mean of their max − min) of the bottleneck queue
/// after the warm-up.
fn sawtooth(r: &RunResults) -> (f64, f64) {
    let q = r
        .timeseries
        .series()
        .find(|s| s.name == "r->dst" && s.metric == "qlen_pkts")
        .expect("the bottleneck's qlen_pkts series");
    let t = &r.timeseries.time_s;
    let from = t.iter().position(|&x| x >= 0.1).unwrap();
    let per_window = 1000; // 2 ms of 2 µs samples
    let windows: Vec<(f64, f64)> = q.values[from..]
        .chunks_exact(per_window)
        .map(|w| {
            let max = w.iter().copied().fold(f64::MIN, f64::max);
            let min = w.iter().copied().fold(f64::MAX, f64::min);
            (max, max - min)
        })
        .collect();
    let m = windows.len() as f64;
    (
        windows.iter().map(|w| w.0).sum::<f64>() / m,
        windows.iter().map(|w| w.1).sum::<f64>() / m,
    )
}

/// The analysis' amplitude A = N(W* + 1)α/2 with α solving α²(1 − α/2) = (2W* + 1)/(W* + 1)²
/// (bisection: the left side rises on [0, 1]), and the closed form ½√(2N(C·RTT + K)).
fn amplitude(n: usize, bdp: f64, k: f64) -> (f64, f64) {
    let w = (bdp + k) / n as f64;
    let rhs = (2.0 * w + 1.0) / ((w + 1.0) * (w + 1.0));
    let (mut lo, mut hi) = (0.0f64, 1.0f64);
    for _ in 0..100 {
        let mid = 0.5 * (lo + hi);
        if mid * mid * (1.0 - mid / 2.0) < rhs {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    let exact = n as f64 * (w + 1.0) * lo / 2.0;
    (exact, 0.5 * (2.0 * n as f64 * (bdp + k)).sqrt())
}

#[test]
fn the_amplitude_formulas_agree_where_the_windows_are_large() {
    let (exact, closed) = amplitude(1, 1e6, 0.0);
    assert!((exact - closed).abs() < 1e-3 * closed, "{exact} {closed}");
    // The figures quoted in the module doc.
    let (exact, closed) = amplitude(10, 1e10 / 12e3 * 1e-4, 40.0);
    assert!(
        (exact - 28.6).abs() < 0.05 && (closed - 24.8).abs() < 0.05,
        "{exact} {closed}"
    );
}

fn within(x: f64, want: f64, tol: f64) -> bool {
    ((x - want) / want).abs() <= tol
}

#[test]
fn dctcp_queue_matches_alizadeh_et_al_analysis() {
    if common::skip_in_debug("dctcp_queue_matches_alizadeh_et_al_analysis") {
        return;
    }
    let k = 40u32;
    let cases = [2usize, 10];
    let texts: Vec<String> = cases.iter().map(|&n| dctcp_dumbbell(n, k)).collect();
    let mut texts = texts;
    texts.push(dctcp_dumbbell(2, 12));
    texts.push(dctcp_dumbbell(2, 2));
    let results = common::run_all(&texts);
    let bdp = C_PPS * RTT_S;
    let mut failures = vec![];
    println!("DCTCP, C = 10 Gb/s, RTT = 100 µs (C·RTT = {bdp:.1} packets), K = {k}:");
    println!("  N   Q_max  (K + N)   A     (exact) (½√(2N(C·RTT+K)))  util   marks");
    for (&n, r) in cases.iter().zip(&results) {
        let (q_max, a) = sawtooth(r);
        let want_q = (k as usize + n) as f64;
        let (want_a, closed) = amplitude(n, bdp, k as f64);
        let b = queue(r, "r->dst");
        println!(
            "  {n:<3} {q_max:>6.1} {want_q:>6.1}  {a:>6.1} {want_a:>7.1} {closed:>8.1}              \
             {:.4} {}",
            b.utilization,
            b.marked.iter().sum::<u64>()
        );
        if !within(q_max, want_q, 0.15) {
            failures.push(format!("N = {n}: Q_max {q_max:.1} vs K + N = {want_q}"));
        }
        if !within(a, want_a, 0.15) {
            failures.push(format!("N = {n}: A {a:.1} vs {want_a:.1}"));
        }
        let dropped: u64 = b.dropped.iter().sum();
        if dropped != 0 {
            failures.push(format!("N = {n}: {dropped} drops (the buffer is 1000)"));
        }
    }
    let util = |r: &RunResults| queue(r, "r->dst").utilization;
    let (u12, u2) = (util(&results[2]), util(&results[3]));
    println!(
        "  full throughput, N = 2: K = 12 (> C·RTT/7 = {:.1}) util {u12:.4}; K = 2 util {u2:.4}",
        bdp / 7.0
    );
    if u12 < 0.99 {
        failures.push(format!("K = 12: utilisation {u12:.4} < 0.99"));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
