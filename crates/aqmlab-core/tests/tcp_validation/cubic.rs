//! Case 6: CUBIC's response function (RFC 9438 §5) on the lossy path of tests 1, 2 and
//! 5, whose helpers and constants come from `super`.

use super::*;

// ---------------------------------------------------------------------------------------
// 6. CUBIC's response function (RFC 9438 §5)
// ---------------------------------------------------------------------------------------

/// RFC 9438 §5.1, C = 0.4 segments/s³.
const CUBIC_C: f64 = 0.4;
/// RFC 9438 §4.6, β_cubic = 0.7.
const CUBIC_BETA: f64 = 0.7;

/// RFC 9438 §5's average window of CUBIC in the cubic region under deterministic loss,
/// segments: AVG_W_cubic = (C(3 + β)/(4(1 − β)))^(1/4) · RTT^(3/4) / p^(3/4).
///
/// Derivation (the CUBIC paper's deterministic-loss analysis): every epoch starts at
/// β·W_max and ends with a loss exactly when the window is back at W_max, at t = K with
/// C·K³ = (1 − β)·W_max (Eq. 2). The epoch carries ∫₀ᴷ W(t)/RTT dt = (W_max·K − C·K⁴/4)/RTT
/// = W_max·K·(3 + β)/(4·RTT) packets, which is 1/p; the time-average window is
/// W_max·(3 + β)/4 = RTT/(p·K). Eliminating W_max = C·K³/(1 − β):
/// K⁴ = 4(1 − β)·RTT/(C(3 + β)·p), and AVG = RTT/(pK) is the formula.
fn cubic_avg_w(rtt: f64, p: f64) -> f64 {
    (CUBIC_C * (3.0 + CUBIC_BETA) / (4.0 * (1.0 - CUBIC_BETA))).powf(0.25) * rtt.powf(0.75)
        / p.powf(0.75)
}

/// RFC 9438 §5 (Eq. 3 of RFC 8312 §4.2, from [FHP00]): the average window of
/// AIMD(α, β) under deterministic loss, segments, with CUBIC's Reno-friendly
/// α_cubic = 3(1 − β)/(1 + β) (Eq. 4).
///
/// Derivation: the window grows by α per RTT from β·W to W and falls back at a loss, so an
/// epoch lasts (1 − β)W/α RTTs at a mean window of (1 + β)W/2 and carries
/// (1 + β)(1 − β)W²/(2α) = 1/p packets: W² = 2α/((1 − β²)p). The average is
/// AVG² = ((1 + β)/2)²·W² = α(1 + β)/(2(1 − β)p); with α = 3(1 − β)/(1 + β) this is 3/(2p),
/// Reno's √(3/(2p)) (Mathis' constant for periodic loss, independent of β).
fn aimd_avg_w(p: f64) -> f64 {
    let alpha = 3.0 * (1.0 - CUBIC_BETA) / (1.0 + CUBIC_BETA);
    (alpha * (1.0 + CUBIC_BETA) / (2.0 * (1.0 - CUBIC_BETA) * p)).sqrt()
}

/// RFC 9438 §5: CUBIC runs in whichever region gives the larger window (W_cubic < W_est
/// makes cwnd = W_est, §4.3); (formula, "cubic" or "Reno-friendly").
fn cubic_response(rtt: f64, p: f64) -> (f64, &'static str) {
    let (c, a) = (cubic_avg_w(rtt, p), aimd_avg_w(p));
    if c >= a {
        (c, "cubic")
    } else {
        (a, "Reno-friendly")
    }
}

#[test]
fn cubic_response_function_is_consistent() {
    let alpha = 3.0 * (1.0 - CUBIC_BETA) / (1.0 + CUBIC_BETA);
    for p in [1e-4, 1e-3, 0.02] {
        assert!((aimd_avg_w(p) - (1.5 / p).sqrt()).abs() < 1e-9 * aimd_avg_w(p));
        // The cubic-region epoch: 1/p packets, average W_max(3 + β)/4.
        let rtt = 0.1;
        let avg = cubic_avg_w(rtt, p);
        let w_max = avg * 4.0 / (3.0 + CUBIC_BETA);
        let k = ((1.0 - CUBIC_BETA) * w_max / CUBIC_C).cbrt();
        let packets = (w_max * k - CUBIC_C * k.powi(4) / 4.0) / rtt;
        assert!((packets * p - 1.0).abs() < 1e-9, "p = {p}: {packets}");
        // The AIMD epoch: (1 − β)W/α RTTs at a mean (1 + β)W/2.
        let w = aimd_avg_w(p) * 2.0 / (1.0 + CUBIC_BETA);
        let packets = (1.0 - CUBIC_BETA) * w / alpha * (1.0 + CUBIC_BETA) * w / 2.0;
        assert!((packets * p - 1.0).abs() < 1e-9, "p = {p}: {packets}");
    }
    // By hand: (0.4·3.7/1.2)^(1/4) = 1.05382; RTT 0.1 s, p = 1e-4: 1.05382·0.177828·1000.
    assert!((cubic_avg_w(0.1, 1e-4) - 187.40).abs() < 0.01);
}

/// The packet-level band of the mean window in the Reno-friendly region, segments: the
/// (lowest, highest) time-average of cwnd that the sender's rules allow under periodic
/// loss (p = 1/N), derived as test 2's band for Reno (`periodic_loss_gives_the_sawtooth_constant`)
/// with CUBIC's α = 3(1 − β)/(1 + β) and β = 0.7 in place of Reno's 1 and 1/2.
///
/// The fluid formula (`aimd_avg_w`) has the window ramp from βW to W at α per RTT and
/// nothing else. The sender, per cycle (fast retransmit to fast retransmit):
///
/// - Detects the loss at cwnd x₁ with FlightSize F = ⌊x₁⌋ = x₁ − φ, 0 ≤ φ < 1 (limited
///   transmit's data left out, RFC 5681 §3.2), so ssthresh = βF, and SACK recovery
///   (RFC 6675) holds cwnd = ssthresh for the retransmission's RTT: a flat RTT at βF that
///   the fluid cycle does not have (`cwnd_base` is cwnd: SACK inflates nothing).
/// - Of the N − 1 ACKs of a cycle, F − 1 are duplicates and one is the full ACK; the other
///   N − F − 1 (two fewer when the two limited-transmit segments' ACKs are duplicates too)
///   each grow cwnd = W_est by α/cwnd (Eq. 4; W_est stays below cwnd_prior = x₁, so α is
///   α_cubic throughout), so x₁² − (βF)² = 2α(N − F − 1 − λ), λ ∈ {0, 2}.
/// - An RTT carries ⌊x⌋ = x − f ACKs, 0 ≤ f < 1: the ramp from βF to x₁ takes
///   R = (1/α)∫ x/(x − f) dx RTTs and holds ∫ cwnd dt = (1/α)∫ x²/(x − f) dx
///   segment·RTTs; the mean window of the cycle is (βF + that) / (1 + R), between its values
///   at f = 0 and f = 1.
/// - The orbit locks to whole RTTs (every send is an ACK one RTT after an earlier send),
///   which moves the cycle length by up to half an RTT either way (as in test 2).
///
/// The band is the least and greatest mean over φ (21 values in [0, 1)), λ, f ∈ {0, 1} and
/// the lock's −½, 0, +½ RTT. Not in it: W_cubic(t) rising faster than W_est just after
/// the epoch starts (3CK² against α/RTT), which can only raise the window; the points
/// below are where that stays small. Widened by the edge error (below), the band is
/// −31.2% to −5.0% of the fluid formula at W = 8.7 (p = 2e-2), −11.2% to −1.0% at W = 27
/// (p = 2e-3), −3.0% to +0.2% at W = 122 (p = 1e-4): the fluid formula holds to O(1/W), and
/// the two small-window points that miss its 10% (RTT 0.2 s p = 2e-2: −19.1%; RTT 0.1 s
/// p = 1e-2: −10.9%) lie inside their bands.
fn reno_friendly_band(p: f64) -> (f64, f64) {
    let alpha = 3.0 * (1.0 - CUBIC_BETA) / (1.0 + CUBIC_BETA);
    let beta = CUBIC_BETA;
    let n = 1.0 / p;
    let w_fluid = (2.0 * alpha / ((1.0 - beta * beta) * p)).sqrt();
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    for i in 0..=20 {
        let phi = (1.0 - 1e-9) * i as f64 / 20.0;
        for lambda in [0.0, 2.0] {
            // x₁ = √((β(x₁ − φ))² + 2α(N − (x₁ − φ) − 1 − λ)): a contraction (slope ≈ β²).
            let mut x1 = w_fluid;
            for _ in 0..200 {
                let flight = x1 - phi;
                x1 = ((beta * flight).powi(2) + 2.0 * alpha * (n - flight - 1.0 - lambda)).sqrt();
            }
            let s = beta * (x1 - phi);
            for f in [0.0, 1.0] {
                let ln = ((x1 - f) / (s - f)).ln();
                let ramp = ((x1 - s) + f * ln) / alpha;
                let area = ((x1 * x1 - s * s) / 2.0 + f * (x1 - s) + f * f * ln) / alpha;
                for lock in [-0.5, 0.0, 0.5] {
                    let mean = (s + area) / (1.0 + ramp + lock);
                    lo = lo.min(mean);
                    hi = hi.max(mean);
                }
            }
        }
    }
    (lo, hi)
}

#[test]
fn the_reno_friendly_band_tends_to_the_fluid_formula() {
    // The band contains the fluid formula's value less its O(1/W) terms, and closes on it.
    let mut last_width = f64::INFINITY;
    for p in [2e-2, 1e-2, 2e-3, 1e-4, 1e-6] {
        let (lo, hi) = reno_friendly_band(p);
        let w = aimd_avg_w(p);
        assert!(lo < hi && hi < w, "p = {p}: [{lo}, {hi}] vs {w}");
        let width = (hi - lo) / w;
        assert!(width < last_width, "p = {p}: the band widens ({width})");
        last_width = width;
    }
    let (lo, hi) = reno_friendly_band(1e-6);
    assert!(lo / aimd_avg_w(1e-6) > 0.997 && hi / aimd_avg_w(1e-6) < 1.0);
}

/// One CUBIC flow (SACK, ACK every packet) on the lossy path with every N-th data packet
/// dropped (`scripted`, as test 2; p = 1/N), twelve points over four RTTs (4 × 5, 12.5, 25
/// and 50 ms) and five loss rates: four in the cubic region (three loss rates, two RTTs),
/// eight in the Reno-friendly region (five loss rates, four RTTs), each well away from the
/// crossover (the two formulas differ by ≥ 35% at every point, so the region is
/// unambiguous).
///
/// What is asserted (fixed before the runs):
///
/// - Cubic region: the mean window within 10% of RFC 9438 §5's AVG_W_cubic (issue 48's
///   criterion).
/// - Reno-friendly region: the mean window inside the packet-level band
///   (`reno_friendly_band`, widened by the measurement's edge error: a window of k ≥ 60
///   cycles and parts of two has its mean off by at most (1/3)/k = 0.6%); and within 10% of
///   the AIMD formula wherever that band lies inside ±10% of it (the formula's O(1/W)
///   terms cannot account for more there). Where the band reaches beyond 10% (the small
///   windows, W ≤ 27 here) the formula is printed, not asserted: the fluid model does
///   not claim 10% there, and the band is the check.
///
/// The measured window is the time average of the traced `cwnd_base` (the window without
/// any recovery inflation), sampled every RTT/10 over the measurement window; B·RTT
/// (goodput in segments per second times the base RTT) is printed beside it. The links
/// (1 Gb/s, 10⁵-packet buffers) never queue nor drop: the window, not the link, limits
/// (asserted: queueing < 10⁻³ RTT, no drops, as `check_lossy_path`).
///
/// `fast_convergence = false`: the formula's epoch always restarts from W_max = the window
/// at the last loss (the deterministic analysis has one W_max); fast convergence (§4.7)
/// would set W_max = 0.85·W whenever a loss comes a hair below the previous W_max, which
/// with a fixed loss period is a matter of rounding, and is not the modelled system. The
/// default (on) is run too and printed, not asserted.
///
/// `min_rto = "1s"` (RFC 6298 (2.4)): with the 200 ms default at RTT 200 ms the RTO is
/// RTT + G (RTTVAR decays to 0 under constant samples), and the one-RTT wait of fast
/// recovery raced it: 3, 2 and 53 timeouts, all in recovery, at p = 1e-4, 1e-3, 2e-2; the
/// formula has none. Asserted: no timeouts.
///
/// Sizing: a warm-up of 300 formula epochs, then 60 epochs measured (asserted: ≥ 20 fast
/// recoveries); epoch length K (cubic region) or (1 − β)W/α RTTs (Reno-friendly region),
/// from the formula's W. The warm-up is long because, without fast convergence, the
/// periodic-loss orbit approaches its fixed point only algebraically: an epoch with a
/// surplus of packets ends at t − K ∝ −surplus, and moves the next W_max by C(t − K)³, so
/// slow start's overshoot decays like a cubic map's x − a·x³. With 20 epochs of warm-up
/// the cubic-region points were still +12.7% (drifting down, 216.9 then 205.5 over the two
/// halves) and +6.3% at p = 1e-4; with 300, +2.4% and +0.2%, each half within 0.5%.
///
/// Measured (deterministic; fast convergence off, asserted / on, printed):
///
/// | RTT s | p | region | formula W | packet-level band | mean cwnd | error | 10% asserted |
/// |---|---|---|---|---|---|---|---|
/// | 0.10 | 0.0001 | cubic | 187.42 | — | 192.00/176.01 | +2.4%/-6.1% | yes |
/// | 0.20 | 0.0001 | cubic | 315.19 | — | 315.79/292.42 | +0.2%/-7.2% | yes |
/// | 0.20 | 0.0003 | cubic | 138.27 | — | 135.74/127.22 | -1.8%/-8.0% | yes |
/// | 0.20 | 0.001 | cubic | 56.05 | — | 52.56/50.15 | -6.2%/-10.5% | yes |
/// | 0.02 | 0.0001 | Reno-friendly | 122.47 | 118.78–122.75 (-3.0%, +0.2%) | 121.25/121.32 | -1.0%/-0.9% | yes |
/// | 0.02 | 0.0003 | Reno-friendly | 70.71 | 67.33–70.69 (-4.8%, -0.0%) | 69.48/69.48 | -1.7%/-1.7% | yes |
/// | 0.02 | 0.001 | Reno-friendly | 38.73 | 35.57–38.53 (-8.2%, -0.5%) | 37.34/37.35 | -3.6%/-3.6% | yes |
/// | 0.05 | 0.0003 | Reno-friendly | 70.71 | 67.33–70.69 (-4.8%, -0.0%) | 69.75/69.41 | -1.4%/-1.8% | yes |
/// | 0.05 | 0.001 | Reno-friendly | 38.73 | 35.57–38.53 (-8.2%, -0.5%) | 37.33/37.36 | -3.6%/-3.5% | yes |
/// | 0.10 | 0.002 | Reno-friendly | 27.39 | 24.33–27.11 (-11.2%, -1.0%) | 26.23/25.95 | -4.2%/-5.2% | no: band only |
/// | 0.10 | 0.01 | Reno-friendly | 12.25 | 9.43–11.86 (-23.0%, -3.2%) | 10.91/10.90 | -10.9%/-11.0% | no: band only |
/// | 0.20 | 0.02 | Reno-friendly | 8.66 | 5.96–8.22 (-31.2%, -5.0%) | 7.01/6.94 | -19.1%/-19.8% | no: band only |
///
/// Tolerance: 10%, issue 48's acceptance criterion for the response function; the band
/// is derived, not fitted.
#[test]
fn cubic_periodic_loss_matches_the_rfc_9438_response_function() {
    if skip_in_debug("cubic_periodic_loss_matches_the_rfc_9438_response_function") {
        return;
    }
    const TOLERANCE: f64 = 0.10; // issue 48: "within 10%"
                                 // The measurement's edge error (above): k = 60 cycles, (1/3)/k.
    const EDGE: f64 = 1.0 / 180.0;
    // (one-way link delay s, p); the RTT is four links plus the transmissions.
    let cases: [(f64, f64); 12] = [
        (0.025, 1e-4),
        (0.050, 1e-4),
        (0.050, 3e-4),
        (0.050, 1e-3),
        (0.005, 1e-4),
        (0.005, 3e-4),
        (0.005, 1e-3),
        (0.0125, 3e-4),
        (0.0125, 1e-3),
        (0.025, 2e-3),
        (0.025, 1e-2),
        (0.050, 2e-2),
    ];
    let rtt_of =
        |d: f64| 4.0 * d + 2.0 * tx_s(PACKET_BYTES, PATH_BPS) + 2.0 * tx_s(ACK_BYTES, PATH_BPS);
    for &(d, p) in &cases {
        let (rtt, (c, a)) = (rtt_of(d), (cubic_avg_w(rtt_of(d), p), aimd_avg_w(p)));
        assert!(
            c.max(a) / c.min(a) >= 1.35,
            "RTT {rtt} p {p}: the regions are too close ({c:.1} vs {a:.1})"
        );
    }
    // (warm-up s, duration s) from the formula's epoch.
    let sizing = |rtt: f64, p: f64| {
        let (w, region) = cubic_response(rtt, p);
        let epoch = if region == "cubic" {
            let w_max = w * 4.0 / (3.0 + CUBIC_BETA);
            ((1.0 - CUBIC_BETA) * w_max / CUBIC_C).cbrt()
        } else {
            let alpha = 3.0 * (1.0 - CUBIC_BETA) / (1.0 + CUBIC_BETA);
            let w_peak = w * 2.0 / (1.0 + CUBIC_BETA);
            (1.0 - CUBIC_BETA) * w_peak / alpha * rtt
        };
        let warmup = (300.0 * epoch).ceil().max(10.0) as u64;
        (warmup, warmup + (60.0 * epoch).ceil() as u64)
    };
    let mut jobs: Vec<Box<dyn FnOnce() -> RunResults + Send>> = vec![];
    for fc in [false, true] {
        for &(d, p) in &cases {
            jobs.push(Box::new(move || {
                let rtt = rtt_of(d);
                let (warmup, duration) = sizing(rtt, p);
                let n = (1.0 / p).round() as u64;
                // Packets the run can send at most 3× the formula's rate: drops to spare.
                let drops = (3.0 * cubic_response(rtt, p).0 / rtt * duration as f64 * p) as u64;
                let flow = format!(
                    "variant = \"sack\"\nmin_rto = \"1s\"\ntrace = true\ncongestion = {{ type = \"cubic\", \
                     fast_convergence = {fc} }}"
                );
                run(&lossy_path_with(
                    &periodic_loss(n, drops.max(100)),
                    duration,
                    warmup,
                    d,
                    Some(rtt / 10.0),
                    &flow,
                ))
            }));
        }
    }
    let results = parallel(jobs);
    let mut failures = vec![];
    println!(
        "RTT s, p, region, formula W, measured mean cwnd, error, band, formula asserted, B·RTT, \
         fast_convergence"
    );
    for (i, r) in results.iter().enumerate() {
        let fc = i >= cases.len();
        let (d, p) = cases[i % cases.len()];
        let rtt = rtt_of(d);
        let (w, region) = cubic_response(rtt, p);
        let label = format!("CUBIC RTT {rtt:.4} s p {p} fast_convergence {fc}");
        let qdelay = check_lossy_path(&label, r);
        let f = &r.flows[0];
        let (warmup, _) = sizing(rtt, p);
        let cwnd_base = common::flow_series(r, "tcp", "cwnd_base");
        let samples: Vec<f64> = r
            .timeseries
            .time_s
            .iter()
            .zip(cwnd_base)
            .filter(|(t, _)| **t >= warmup as f64)
            .map(|(_, v)| *v)
            .collect();
        let mean = samples.iter().sum::<f64>() / samples.len() as f64;
        // Drift: the means of the two halves of the measured interval.
        let half = samples.len() / 2;
        let m1 = samples[..half].iter().sum::<f64>() / half as f64;
        let m2 = samples[half..].iter().sum::<f64>() / (samples.len() - half) as f64;
        let rel = mean / w - 1.0;
        let b_rtt = f.goodput_bps / MSS_BITS * rtt;
        // The band (Reno-friendly only) and whether the formula's 10% applies.
        let (band, formula_asserted) = if region == "cubic" {
            (None, true)
        } else {
            let (lo, hi) = reno_friendly_band(p);
            let (lo, hi) = (lo * (1.0 - EDGE), hi * (1.0 + EDGE));
            let inside = lo >= w * (1.0 - TOLERANCE) && hi <= w * (1.0 + TOLERANCE);
            (Some((lo, hi)), inside)
        };
        let band_text = match band {
            Some((lo, hi)) => format!(
                "[{lo:.2}, {hi:.2}] ({:+.1}%, {:+.1}%)",
                (lo / w - 1.0) * 100.0,
                (hi / w - 1.0) * 100.0
            ),
            None => "-".to_string(),
        };
        println!(
            "{rtt:.4}, {p}, {region}, {w:.2}, {mean:.2}, {:+.1}%, {band_text}, {formula_asserted}, \
             {b_rtt:.2}, {fc} [cubic formula {:.2}, AIMD formula {:.2}; {} samples over {:.0} s; \
             fast recoveries {}, timeouts {} (open {}, disorder {}, recovery {}, loss {}), lost {}, \
             retransmits {}; queueing {:.2} us; halves {m1:.2} then {m2:.2}]",
            rel * 100.0,
            cubic_avg_w(rtt, p),
            aimd_avg_w(p),
            samples.len(),
            r.measured_s,
            f.fast_recoveries,
            f.timeouts,
            f.timeouts_open,
            f.timeouts_disorder,
            f.timeouts_recovery,
            f.timeouts_loss,
            f.lost_pkts,
            f.retransmits,
            qdelay * 1e6,
        );
        assert!(qdelay < 1e-3 * rtt, "{label}: queueing {qdelay} s");
        if fc {
            continue; // printed, not asserted (see above)
        }
        if f.timeouts > 0 {
            failures.push(format!(
                "{label}: {} timeouts (the formula has none)",
                f.timeouts
            ));
        }
        if f.fast_recoveries < 20 {
            failures.push(format!(
                "{label}: only {} loss epochs measured",
                f.fast_recoveries
            ));
        }
        if let Some((lo, hi)) = band {
            if !(lo..=hi).contains(&mean) {
                failures.push(format!(
                    "{label} ({region}): mean cwnd {mean:.2} outside the packet-level band {band_text}"
                ));
            }
        }
        if formula_asserted && rel.abs() > TOLERANCE {
            failures.push(format!(
                "{label} ({region}): mean cwnd {mean:.2} vs formula {w:.2} ({:+.1}%)",
                rel * 100.0
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
