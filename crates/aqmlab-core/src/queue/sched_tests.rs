use super::*;
use crate::rng::Rng;
use proptest::prelude::*;

const MTU: u32 = 1500;

/// Classes kept backlogged: each holds `depth` packets, refilled with sizes drawn from
/// `size` after every dequeue. Returns the classes served, in order, with the sizes sent.
fn saturated(
    spec: &ClassSchedulerSpec,
    classes: usize,
    dequeues: usize,
    mut size: impl FnMut(usize) -> u32,
) -> Vec<(usize, u32)> {
    let mut s = spec.build(classes);
    let mut q: Vec<VecDeque<u32>> = (0..classes)
        .map(|c| (0..4).map(|_| size(c)).collect())
        .collect();
    for c in 0..classes {
        s.backlogged(c);
    }
    let mut out = vec![];
    for _ in 0..dequeues {
        let c = s.next(|c| q[c][0]).expect("every class is backlogged");
        let sent = q[c].pop_front().unwrap();
        q[c].push_back(size(c));
        s.sent(c, false);
        out.push((c, sent));
    }
    out
}

/// The largest |sent_i/f_i − sent_j/f_j| over every interval of the trace and every pair
/// of classes, in bytes (f_i = Q_i / Q, Q the smallest quantum): the span of the prefix
/// difference, because an interval's difference is the prefix's change across it.
fn worst_unfairness(trace: &[(usize, u32)], quanta: &[u32]) -> f64 {
    let q = *quanta.iter().min().unwrap() as f64;
    let f: Vec<f64> = quanta.iter().map(|&x| x as f64 / q).collect();
    let n = quanta.len();
    let mut sent = vec![0.0; n];
    let mut span = vec![vec![(0.0f64, 0.0f64); n]; n];
    let mut worst = 0.0f64;
    for &(c, bytes) in trace {
        sent[c] += bytes as f64;
        for i in 0..n {
            for j in 0..n {
                let d = sent[i] / f[i] - sent[j] / f[j];
                let (lo, hi) = &mut span[i][j];
                *lo = lo.min(d);
                *hi = hi.max(d);
                worst = worst.max(*hi - *lo);
            }
        }
    }
    worst
}

#[test]
fn strict_priority_serves_the_lowest_backlogged_class() {
    let mut s = ClassSchedulerSpec::StrictPriority.build(3);
    assert_eq!(s.next(|_| 100), None);
    s.backlogged(2);
    assert_eq!(s.next(|_| 100), Some(2));
    s.backlogged(1);
    s.backlogged(0);
    // Class 0, then 1, then 2, however long each has waited.
    assert_eq!(s.next(|_| 100), Some(0));
    s.sent(0, true);
    assert_eq!(s.next(|_| 100), Some(1));
    s.sent(1, false);
    assert_eq!(s.next(|_| 100), Some(1));
    s.sent(1, true);
    assert_eq!(s.next(|_| 100), Some(2));
    s.sent(2, true);
    assert_eq!(s.next(|_| 100), None);
}

/// Equal sizes: over whole rounds each class sends exactly w_i packets per round.
#[test]
fn wrr_shares_under_saturation_are_the_weights() {
    let w = [1u32, 2, 5];
    let spec = ClassSchedulerSpec::Wrr {
        weights: w.to_vec(),
    };
    let rounds = 1000;
    let trace = saturated(&spec, 3, rounds * 8, |_| 1000);
    let mut n = [0usize; 3];
    for &(c, _) in &trace {
        n[c] += 1;
    }
    assert_eq!(n, [rounds, 2 * rounds, 5 * rounds]);
    // And in order: each turn is a run of w_i packets of one class.
    let first: Vec<usize> = trace[..8].iter().map(|&(c, _)| c).collect();
    assert_eq!(first, [0, 1, 1, 2, 2, 2, 2, 2]);
}

/// DRR's shares follow the quanta in bytes, with packet sizes drawn uniformly from
/// 64-1500 bytes: each class's byte share within 0.1% of Q_i/ΣQ after 60 000 packets (the
/// deterministic bound below, Max + 2Q = 7 500 bytes, is 0.01% of the ~47 MB sent), and
/// over every interval within Shreedhar and Varghese's bound.
#[test]
fn drr_shares_under_saturation_follow_the_quanta() {
    let quanta = vec![1500u32, 3000, 4500];
    let spec = ClassSchedulerSpec::Drr {
        quanta: quanta.clone(),
    };
    let mut rng = Rng::for_component(7, 0, "drr");
    let trace = saturated(&spec, 3, 60_000, |_| 64 + rng.below(1437) as u32);
    let mut bytes = [0f64; 3];
    for &(c, b) in &trace {
        bytes[c] += b as f64;
    }
    let total: f64 = bytes.iter().sum();
    for c in 0..3 {
        let want = quanta[c] as f64 / 9000.0;
        assert!(
            (bytes[c] / total - want).abs() < 1e-3,
            "class {c}: {}",
            bytes[c] / total
        );
    }
    let bound = (MTU + 2 * 1500) as f64;
    let worst = worst_unfairness(&trace, &quanta);
    assert!(worst <= bound, "{worst} > {bound}");
}

/// A class backlogged while others are in their turns waits at most one round: it joins
/// the back of the list, so each class ahead of it has at most one turn first (the one in
/// progress included), and a turn sends at most its deficit, below Q_j + Max.
#[test]
fn drr_a_newly_backlogged_class_waits_at_most_a_round() {
    let quanta = vec![2000u32, 3000, 1500];
    let spec = ClassSchedulerSpec::Drr {
        quanta: quanta.clone(),
    };
    let mut s = spec.build(3);
    s.backlogged(0);
    s.backlogged(1);
    let mut rng = Rng::for_component(3, 0, "drr-wait");
    let mut heads = [1000u32, 1000, 700];
    for _ in 0..57 {
        let c = s.next(|c| heads[c]).unwrap();
        s.sent(c, false);
        heads[c] = 64 + rng.below(1437) as u32;
    }
    s.backlogged(2);
    let mut before = 0u64;
    loop {
        let c = s.next(|c| heads[c]).unwrap();
        s.sent(c, false);
        if c == 2 {
            break;
        }
        before += u64::from(heads[c]);
        heads[c] = 64 + rng.below(1437) as u32;
    }
    let bound: u64 = [0usize, 1]
        .iter()
        .map(|&j| u64::from(quanta[j] + MTU))
        .sum();
    assert!(before <= bound, "{before} > {bound}");
}

/// One class: every packet in arrival order, whatever the sizes (a one-class buffer is
/// a FIFO).
#[test]
fn one_class_is_a_fifo() {
    for spec in [
        ClassSchedulerSpec::StrictPriority,
        ClassSchedulerSpec::Drr { quanta: vec![MTU] },
        ClassSchedulerSpec::Wrr { weights: vec![3] },
    ] {
        let mut s = spec.build(1);
        let mut q: VecDeque<u32> = [1500, 64, 700, 1500, 1].into();
        s.backlogged(0);
        let mut order = vec![];
        while let Some(c) = s.next(|_| q[0]) {
            order.push(q.pop_front().unwrap());
            s.sent(c, q.is_empty());
        }
        assert_eq!(order, [1500, 64, 700, 1500, 1], "{spec:?}");
    }
}

#[test]
fn ets_serves_its_strict_classes_first_then_drr_over_the_rest() {
    let spec = ClassSchedulerSpec::Ets {
        strict: 1,
        quanta: vec![1500, 4500],
    };
    // Class 0 always backlogged: the DRR classes never send.
    let all = saturated(&spec, 3, 1000, |_| 1000);
    assert!(all.iter().all(|&(c, _)| c == 0));
    // Class 0 empty: classes 1 and 2 share bytes 1:3 within the DRR bound (Max + 2Q =
    // 1000 + 3000 bytes); 3000 packets of 1000 bytes.
    let mut s = spec.build(3);
    s.backlogged(1);
    s.backlogged(2);
    let mut sent = [0u64; 3];
    for _ in 0..3000 {
        let c = s.next(|_| 1000).unwrap();
        sent[c] += 1000;
        s.sent(c, false);
    }
    assert_eq!(sent[0], 0);
    assert!(
        (sent[2] as f64 / 3.0 - sent[1] as f64).abs() <= 4000.0,
        "{sent:?}"
    );
    // Class 0 becomes backlogged: it goes next, ahead of the DRR turn in progress.
    s.backlogged(0);
    assert_eq!(s.next(|_| 1000), Some(0));
    s.sent(0, true);
    assert_ne!(s.next(|_| 1000), Some(0));
    // Its quanta are one per DRR class, each at least the largest packet.
    let mut p = Problems::default();
    ClassSchedulerSpec::Ets {
        strict: 4,
        quanta: vec![100],
    }
    .validate("s", 3, MTU, &mut p);
    let paths: Vec<&str> = p.errors.iter().map(|e| e.path.as_str()).collect();
    assert_eq!(paths, ["s.strict", "s.quanta", "s.quanta[0]"]);
}

#[test]
fn a_refunded_head_keeps_its_drr_deficit() {
    let mut s = ClassSchedulerSpec::Drr {
        quanta: vec![1500, 1500],
    }
    .build(2);
    s.backlogged(0);
    s.backlogged(1);
    // Class 0's head of 1500 bytes is chosen and then dropped by its AQM: refunded, class
    // 0 still holds its full quantum and sends its next 1500-byte head in the same turn.
    assert_eq!(s.next(|_| 1500), Some(0));
    s.refund(0, 1500);
    s.sent(0, false);
    assert_eq!(s.next(|_| 1500), Some(0));
    s.sent(0, false);
    assert_eq!(s.next(|_| 1500), Some(1));
}

#[test]
fn specs_are_checked_with_path_value_and_rule() {
    let mut p = Problems::default();
    ClassSchedulerSpec::Drr {
        quanta: vec![1500, 1000],
    }
    .validate("ports[0].scheduler", 3, MTU, &mut p);
    ClassSchedulerSpec::Wrr {
        weights: vec![0, 1, 1],
    }
    .validate("ports[1].scheduler", 3, MTU, &mut p);
    let got: Vec<(String, String)> = p
        .errors
        .iter()
        .map(|e| (e.path.clone(), e.value.clone()))
        .collect();
    assert_eq!(
        got,
        [
            ("ports[0].scheduler.quanta".into(), "2 values".into()),
            ("ports[0].scheduler.quanta[1]".into(), "1000".into()),
            ("ports[1].scheduler.weights[0]".into(), "0".into()),
        ]
    );
    assert!(p.errors[1]
        .message
        .contains("at least the largest packet, 1500 bytes"));
    let spec: ClassSchedulerSpec = toml::from_str("type = \"drr\"\nquanta = [1500, 3000]").unwrap();
    assert_eq!(
        spec,
        ClassSchedulerSpec::Drr {
            quanta: vec![1500, 3000]
        }
    );
    assert!(toml::from_str::<ClassSchedulerSpec>("type = \"drr\"\nquantum = 1").is_err());
}

proptest! {
    /// Shreedhar and Varghese's Theorem 2 for any quanta of at least one MTU and any
    /// packet sizes: over every interval of continuous backlog, for every pair of classes,
    /// |sent_i/f_i − sent_j/f_j| ≤ Max + 2Q.
    #[test]
    fn drr_meets_its_fairness_bound(
        quanta in prop::collection::vec(MTU..=4 * MTU, 2..6),
        seed in any::<u64>(),
    ) {
        let n = quanta.len();
        let spec = ClassSchedulerSpec::Drr { quanta: quanta.clone() };
        let mut rng = Rng::for_component(seed, 0, "drr-prop");
        let trace = saturated(&spec, n, 3000, |_| 1 + rng.below(u64::from(MTU)) as u32);
        let q = *quanta.iter().min().unwrap();
        let bound = f64::from(MTU + 2 * q);
        let worst = worst_unfairness(&trace, &quanta);
        prop_assert!(worst <= bound + 1e-6, "{} > {}", worst, bound);
    }
}
