use super::*;
use crate::rng::Rng;
use proptest::prelude::*;

fn requests(n: usize, pairs: &[(usize, usize)]) -> Requests {
    let mut r = Requests::new(n);
    for &(i, j) in pairs {
        r.set(i, j);
    }
    r
}

fn rng() -> Rng {
    Rng::for_component(1, 0, "switch/test")
}

/// Panics unless `m` pairs only requested ports, each at most once, and `size` counts it.
fn assert_valid(req: &Requests, m: &Matching, st: MatchStats) {
    let n = req.n();
    let mut out_used = vec![false; n];
    for (i, j) in m.pairs() {
        assert!(req.get(i, j), "({i}, {j}) was not requested");
        assert!(!out_used[j], "output {j} matched twice");
        out_used[j] = true;
    }
    assert_eq!(m.pairs().count() as u32, st.size);
}

fn is_maximal(req: &Requests, m: &Matching) -> bool {
    let n = req.n();
    let mut out_used = vec![false; n];
    m.pairs().for_each(|(_, j)| out_used[j] = true);
    (0..n).all(|i| m.in_to_out[i].is_some() || (0..n).all(|j| out_used[j] || !req.get(i, j)))
}

/// The maximum matching size by brute force over subsets of outputs (n ≤ 8).
fn brute_max(req: &Requests) -> u32 {
    let n = req.n();
    // After the rows 0..=i, best[mask] is the largest matching of those inputs that uses
    // exactly the outputs in mask (-1: none does).
    let mut best = vec![-1i32; 1 << n];
    best[0] = 0;
    for i in 0..n {
        let mut next = best.clone();
        for (mask, &b) in best.iter().enumerate() {
            if b < 0 {
                continue;
            }
            for j in 0..n {
                if mask >> j & 1 == 0 && req.get(i, j) {
                    let m2 = mask | 1 << j;
                    next[m2] = next[m2].max(b + 1);
                }
            }
        }
        best = next;
    }
    *best.iter().max().unwrap() as u32
}

#[test]
fn requests_set_get_clear_span_word_boundaries() {
    let mut r = Requests::new(200);
    for &(i, j) in &[(0, 0), (5, 63), (5, 64), (199, 199), (100, 128)] {
        assert!(!r.get(i, j));
        r.set(i, j);
        assert!(r.get(i, j));
    }
    assert!(!r.get(5, 65) && !r.get(5, 62));
    r.unset(5, 63);
    assert!(!r.get(5, 63) && r.get(5, 64));
    r.clear();
    assert!(r.is_empty());
}

#[test]
fn islip_moves_pointers_in_the_first_iteration_only_and_grant_pointers_on_acceptance() {
    // All pointers start at 0. Iteration 1: outputs 0 and 1 both grant input 0 (first from
    // g = 0), output 2 grants input 2. Input 0 accepts output 0 (a_0 = 0): a_0 = 1, g_0 = 1;
    // output 1's grant is refused, so g_1 stays 0. Input 2 accepts 2: a_2 = 3, g_2 = 3.
    // Iteration 2: output 1 grants the still free input 1, which accepts; no pointer moves.
    let req = requests(4, &[(0, 0), (0, 1), (1, 0), (1, 1), (2, 2)]);
    let mut s = Scheduler::new(&SchedulerSpec::Islip { iterations: 4 }, 4);
    let mut m = Matching::new(4);
    let st = s.schedule(&req, &mut rng(), &mut m);
    assert_eq!(m.in_to_out, vec![Some(0), Some(1), Some(2), None]);
    assert_eq!(
        st,
        MatchStats {
            iterations: 2,
            size: 3
        }
    );
    let (g, a) = s.islip_pointers().unwrap();
    assert_eq!(g, &[1, 0, 3, 0]);
    assert_eq!(a, &[1, 0, 3, 0]);

    // Same requests again: output 0 now grants input 1 (g_0 = 1), output 1 input 0, so one
    // iteration gives the full matching and every accepted pair moves its pointers.
    let st = s.schedule(&req, &mut rng(), &mut m);
    assert_eq!(m.in_to_out, vec![Some(1), Some(0), Some(2), None]);
    assert_eq!(
        st,
        MatchStats {
            iterations: 1,
            size: 3
        }
    );
    let (g, a) = s.islip_pointers().unwrap();
    assert_eq!(g, &[2, 1, 3, 0]);
    assert_eq!(a, &[2, 1, 3, 0]);
}

#[test]
fn islip_with_one_iteration_stops_after_the_first() {
    let req = requests(4, &[(0, 0), (0, 1), (1, 0), (1, 1), (2, 2)]);
    let mut s = Scheduler::new(&SchedulerSpec::Islip { iterations: 1 }, 4);
    let mut m = Matching::new(4);
    let st = s.schedule(&req, &mut rng(), &mut m);
    assert_eq!(m.in_to_out, vec![Some(0), None, Some(2), None]);
    assert_eq!((st.iterations, st.size), (1, 2));
}

#[test]
fn islip_grant_pointers_desynchronise_under_saturation() {
    // Every input requests every output. From all pointers at 0, the accepted grants push
    // the grant pointers apart; once they are all distinct every output grants a different
    // input, every grant is accepted, all pointers move by one and stay distinct: a perfect
    // matching each slot (McKeown 1999, Sec. IV). For N = 8 this happens within N slots.
    let n = 8;
    let mut req = Requests::new(n);
    (0..n).for_each(|i| (0..n).for_each(|j| req.set(i, j)));
    let mut s = Scheduler::new(&SchedulerSpec::Islip { iterations: 1 }, n);
    let mut m = Matching::new(n);
    let sizes: Vec<u32> = (0..4 * n)
        .map(|_| s.schedule(&req, &mut rng(), &mut m).size)
        .collect();
    // The first slot: all outputs grant input 0, which accepts one.
    assert_eq!(sizes[0], 1);
    let first_perfect = sizes.iter().position(|&k| k == n as u32).unwrap();
    assert!(first_perfect < n, "sizes {sizes:?}");
    assert!(sizes[first_perfect..].iter().all(|&k| k == n as u32));
    let (g, _) = s.islip_pointers().unwrap();
    let mut g = g.to_vec();
    g.sort();
    assert_eq!(g, (0..n as u16).collect::<Vec<_>>());
}

#[test]
fn max_size_finds_the_maximum_where_greedy_fails() {
    // Greedy in input order takes (0,0), (1,1), then inputs 2 (outputs 0, 1) and 3 (output 1)
    // are stuck; the maximum is 4: (0,2), (1,3), (2,0), (3,1), reached by augmenting paths.
    let req = requests(4, &[(0, 0), (0, 2), (1, 1), (1, 3), (2, 0), (2, 1), (3, 1)]);
    let mut s = Scheduler::new(&SchedulerSpec::MaxSize, 4);
    let mut m = Matching::new(4);
    let st = s.schedule(&req, &mut rng(), &mut m);
    assert_valid(&req, &m, st);
    assert_eq!(st.size, 4);
    assert_eq!(brute_max(&req), 4);
    // A graph with no perfect matching: inputs 0..3 all want only outputs 0 and 1.
    let req = requests(4, &[(0, 0), (1, 0), (2, 1), (3, 0), (3, 1)]);
    let st = s.schedule(&req, &mut rng(), &mut m);
    assert_valid(&req, &m, st);
    assert_eq!(st.size, 2);
}

#[test]
fn pim_with_one_request_per_input_grants_uniformly() {
    // Three inputs request output 0 only: each wins with probability 1/3. n = 30 000 draws,
    // sd of a frequency = sqrt(1/3 * 2/3 / n) = 0.0027; 5 sd = 0.0136.
    let req = requests(3, &[(0, 0), (1, 0), (2, 0)]);
    let mut s = Scheduler::new(&SchedulerSpec::Pim { iterations: 3 }, 3);
    let mut m = Matching::new(3);
    let mut r = rng();
    let mut wins = [0u32; 3];
    let n = 30_000;
    for _ in 0..n {
        let st = s.schedule(&req, &mut r, &mut m);
        assert_eq!((st.iterations, st.size), (1, 1));
        let (i, _) = m.pairs().next().unwrap();
        wins[i] += 1;
    }
    for w in wins {
        assert!((w as f64 / n as f64 - 1.0 / 3.0).abs() < 0.0136, "{wins:?}");
    }
}

#[test]
fn empty_requests_give_an_empty_matching_in_zero_iterations() {
    for spec in [
        SchedulerSpec::Pim { iterations: 2 },
        SchedulerSpec::Islip { iterations: 2 },
        SchedulerSpec::MaxSize,
    ] {
        let mut s = Scheduler::new(&spec, 5);
        let mut m = Matching::new(2);
        let st = s.schedule(&Requests::new(5), &mut rng(), &mut m);
        assert_eq!(st, MatchStats::default());
        assert_eq!(m.in_to_out, vec![None; 5]);
    }
}

#[test]
fn spec_validation_and_toml() {
    let errs = SchedulerSpec::Islip { iterations: 0 }.validate("switch.scheduler", 4);
    assert_eq!(errs.len(), 1);
    assert_eq!(errs[0].path, "switch.scheduler.iterations");
    assert_eq!(errs[0].value, "0");
    assert_eq!(
        SchedulerSpec::Pim { iterations: 5 }.validate("s", 4).len(),
        1
    );
    assert!(SchedulerSpec::Pim { iterations: 4 }
        .validate("s", 4)
        .is_empty());
    assert!(SchedulerSpec::MaxSize.validate("s", 4).is_empty());
    assert_eq!(SchedulerSpec::MaxSize.validate("s", 257).len(), 1);
    let s: SchedulerSpec = toml::from_str("type = \"islip\"").unwrap();
    assert_eq!(s, SchedulerSpec::Islip { iterations: 1 });
    let s: SchedulerSpec = toml::from_str("type = \"pim\"\niterations = 3").unwrap();
    assert_eq!(s, SchedulerSpec::Pim { iterations: 3 });
    let s: SchedulerSpec = toml::from_str("type = \"max_size\"").unwrap();
    assert_eq!(s, SchedulerSpec::MaxSize);
    assert!(toml::from_str::<SchedulerSpec>("type = \"islip\"\niteration = 2").is_err());
    assert!(toml::from_str::<SchedulerSpec>("type = \"rrm\"").is_err());
    let back = toml::to_string(&SchedulerSpec::Pim { iterations: 2 }).unwrap();
    assert_eq!(
        toml::from_str::<SchedulerSpec>(&back).unwrap(),
        SchedulerSpec::Pim { iterations: 2 }
    );
}

fn arb_requests() -> impl Strategy<Value = Requests> {
    (1usize..=70, 0.0f64..1.0, any::<u64>()).prop_map(|(n, density, seed)| {
        let mut r = Rng::for_component(seed, 0, "req");
        let mut req = Requests::new(n);
        for i in 0..n {
            for j in 0..n {
                if r.bernoulli(density) {
                    req.set(i, j);
                }
            }
        }
        req
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn matchings_are_valid_and_n_iterations_are_maximal(req in arb_requests(), seed in any::<u64>()) {
        let n = req.n();
        let mut r = Rng::for_component(seed, 0, "sched");
        let mut m = Matching::new(n);
        for spec in [
            SchedulerSpec::Pim { iterations: 1 },
            SchedulerSpec::Islip { iterations: 1 },
            SchedulerSpec::Pim { iterations: n as u32 },
            SchedulerSpec::Islip { iterations: n as u32 },
            SchedulerSpec::MaxSize,
        ] {
            let mut s = Scheduler::new(&spec, n);
            // A few calls so iSLIP's pointers are not all at 0.
            for _ in 0..3 {
                let st = s.schedule(&req, &mut r, &mut m);
                assert_valid(&req, &m, st);
                prop_assert!(st.iterations <= n as u32);
                let full = match spec {
                    SchedulerSpec::Pim { iterations } | SchedulerSpec::Islip { iterations } => iterations == n as u32,
                    SchedulerSpec::MaxSize => true,
                };
                if full {
                    prop_assert!(is_maximal(&req, &m), "{spec:?} not maximal");
                }
            }
        }
    }

    #[test]
    fn max_size_equals_brute_force(req in (1usize..=7, 0.0f64..1.0, any::<u64>()).prop_map(|(n, d, seed)| {
        let mut r = Rng::for_component(seed, 0, "small");
        let mut req = Requests::new(n);
        (0..n).for_each(|i| (0..n).for_each(|j| if r.bernoulli(d) { req.set(i, j) }));
        req
    })) {
        let n = req.n();
        let mut s = Scheduler::new(&SchedulerSpec::MaxSize, n);
        let mut m = Matching::new(n);
        let st = s.schedule(&req, &mut rng(), &mut m);
        assert_valid(&req, &m, st);
        prop_assert_eq!(st.size, brute_max(&req));
        // A maximal matching is at least half the maximum, and PIM to convergence is maximal.
        let mut p = Scheduler::new(&SchedulerSpec::Pim { iterations: n as u32 }, n);
        let sp = p.schedule(&req, &mut rng(), &mut m);
        prop_assert!(2 * sp.size >= st.size && sp.size <= st.size);
    }
}
