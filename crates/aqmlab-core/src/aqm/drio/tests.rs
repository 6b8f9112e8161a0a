use super::*;
use crate::aqm::test_support::view;
use crate::packet::Colour::{self, Green, Red, Yellow};

const NODES: [&str; 4] = ["a", "b", "c", "d"];

fn ctx() -> QueueCtx<'static> {
    QueueCtx {
        limit_pkts: Some(1000),
        limit_bytes: None,
        link_bps: 10_000_000,
        nodes: &NODES,
        hosts: &NODES,
    }
}

/// Green (20, 40), yellow (15, 20), red (5, 15), w_q = 1: each average is the backlog it
/// follows, so a test puts an arrival in a region by the queue it shows.
fn spec(list_len: u32, delta: f64) -> DrioSpec {
    toml::from_str(&format!(
        "list_len = {list_len}\ndelta = {delta}\nw_q = 1.0\nlevels = [\
         {{min_th = 20, max_th = 40, max_p = 0.02}}, \
         {{min_th = 15, max_th = 20, max_p = 0.06}}, \
         {{min_th = 5, max_th = 15, max_p = 0.12}}]"
    ))
    .unwrap()
}

/// A scripted stream: the given uniforms in order, and a panic if more are asked for.
fn script(u: &[f64]) -> impl FnMut() -> f64 + '_ {
    let mut i = 0;
    move || {
        let x = *u.get(i).expect("the list drew more numbers than scripted");
        i += 1;
        x
    }
}

const A: u64 = 1;
const B: u64 = 2;
const C: u64 = 3;
const D: u64 = 4;
const E: u64 = 5;

fn full_list(delta: f64) -> Drio {
    let mut d = spec(4, delta).build(&ctx());
    for k in [A, B, C, D] {
        assert_eq!(d.judge_red(k, script(&[])), ListOutcome::Appended);
    }
    assert_eq!(d.list, [A, B, C, D]);
    d
}

#[test]
fn a_list_that_is_not_full_appends_without_drawing() {
    let mut d = spec(3, 0.1).build(&ctx());
    assert_eq!(d.judge_red(A, script(&[])), ListOutcome::Appended);
    assert_eq!(d.judge_red(A, script(&[])), ListOutcome::Appended);
    assert_eq!(d.list, [A, A]);
    assert_eq!(d.state.get(A).unwrap().judged, 0);
}

#[test]
fn a_double_hit_drops_and_raises_p_by_two_steps() {
    let mut d = full_list(0.1);
    // Indices floor(u · 4): 0.0 -> 0 (A), 0.2 -> 0 (A).
    assert_eq!(d.judge_red(A, script(&[0.0, 0.2])), ListOutcome::DoubleHit);
    let s = d.state.get(A).unwrap();
    assert_eq!((s.judged, s.double_hits), (1, 1));
    assert!((s.p - 0.2).abs() < 1e-12);
    assert_eq!(d.list, [A, B, C, D], "a hit replaces nothing");
}

#[test]
fn a_single_hit_raises_p_one_step_and_drops_with_it() {
    let mut d = full_list(0.1);
    // 0.0 -> A (hit), 0.6 -> C (miss); p_A = 0.1; the third draw decides the drop.
    let kept = d.judge_red(A, script(&[0.0, 0.6, 0.15]));
    assert_eq!(kept, ListOutcome::SingleHit { dropped: false });
    // p_A = 0.2 now: 0.15 < 0.2 drops. The miss can be drawn first.
    let dropped = d.judge_red(A, script(&[0.99, 0.1, 0.15]));
    assert_eq!(dropped, ListOutcome::SingleHit { dropped: true });
    let s = d.state.get(A).unwrap();
    assert_eq!((s.single_hits, s.single_hit_drops), (2, 1));
    assert!((s.p - 0.2).abs() < 1e-12);
}

#[test]
fn a_double_miss_enqueues_replaces_the_first_drawn_entry_and_lowers_p() {
    let mut d = full_list(0.1);
    d.judge_red(E, script(&[0.3, 0.3])); // 0.3 -> B twice: double miss, B replaced by E
    assert_eq!(d.list, [A, E, C, D]);
    // E's p: 0 − 0.1 clamps at 0; two hits later it is 0.2, a double miss takes it to 0.1.
    assert_eq!(d.judge_red(E, script(&[0.3, 0.25])), ListOutcome::DoubleHit);
    assert_eq!(
        d.judge_red(E, script(&[0.8, 0.6])),
        ListOutcome::DoubleMiss { replaced: 3 }
    );
    assert_eq!(d.list, [A, E, C, E]);
    let s = d.state.get(E).unwrap();
    assert_eq!((s.double_misses, s.double_hits), (2, 1));
    assert!((s.p - 0.1).abs() < 1e-12);
}

#[test]
fn p_is_clamped_to_one() {
    let mut d = full_list(0.3);
    for _ in 0..3 {
        d.judge_red(A, script(&[0.0, 0.0]));
    }
    assert_eq!(d.state.get(A).unwrap().p, 1.0);
    // At p = 1 a single hit always drops, whatever the draw.
    assert_eq!(
        d.judge_red(A, script(&[0.0, 0.5, 0.999_999])),
        ListOutcome::SingleHit { dropped: true }
    );
}

fn pkt(colour: Colour, src: u32) -> Packet {
    Packet {
        size: 1000,
        colour,
        src,
        dst: 3,
        ..Default::default()
    }
}

#[test]
fn only_red_arrivals_rio_admits_between_the_thresholds_reach_the_list() {
    let mut d = spec(2, 0.1).build(&ctx());
    let mut rng = Rng::for_component(1, 0, "drio");
    // Red below min_th (4 waiting), green and yellow in their own regions: no entry.
    d.on_arrival(&view([4, 0, 0]), &pkt(Red, 0), 0, &mut rng);
    d.on_arrival(&view([25, 0, 0]), &pkt(Green, 0), 0, &mut rng);
    d.on_arrival(&view([16, 0, 0]), &pkt(Yellow, 0), 0, &mut rng);
    assert!(d.list.is_empty());
    // Red above max_th: RIO's forced drop, no entry.
    let v = d.on_arrival(&view([0, 0, 16]), &pkt(Red, 0), 0, &mut rng);
    assert_eq!(v, Verdict::Drop(Reason::Forced));
    assert!(d.list.is_empty());
    // Red with 10 waiting: in the early region; entries until RIO drops one itself.
    let mut n = 0;
    while d.list.len() < 2 {
        if d.on_arrival(&view([0, 0, 10]), &pkt(Red, 0), 0, &mut rng) == Verdict::Pass {
            n += 1;
        }
        assert!(n <= 2, "a passed red packet must reach the list");
    }
    // Full list of a->d (key 0 << 32 | 3 = 3): another a->d packet RIO passes is a double
    // hit, dropped early.
    loop {
        let v = d.on_arrival(&view([0, 0, 10]), &pkt(Red, 0), 0, &mut rng);
        if d.state.get(3).unwrap().judged > 0 {
            assert_eq!(v, Verdict::Drop(Reason::Early));
            break;
        }
    }
}

/// Degeneracy: with no red packets DRIO is RIO-C, verdict for verdict and draw for draw.
#[test]
fn without_red_traffic_drio_is_rio_c_packet_for_packet() {
    let s = spec(8, 0.1);
    let mut s_rio = s.rio.clone();
    s_rio.w_q = crate::aqm::red::Weight::Value(0.2);
    let mut s_drio = s.clone();
    s_drio.rio = s_rio.clone();
    let mut rio = s_rio.build(&ctx());
    let mut drio = s_drio.build(&ctx());
    let (mut r1, mut r2) = (Rng::for_component(5, 0, "q"), Rng::for_component(5, 0, "q"));
    let mut script = Rng::for_component(6, 0, "script");
    let mut drops = 0;
    for t in 0..20_000u64 {
        let (g, y) = (
            (script.uniform() * 40.0) as u32,
            (script.uniform() * 12.0) as u32,
        );
        let c = if script.uniform() < 0.5 {
            Green
        } else {
            Yellow
        };
        let p = pkt(c, (script.uniform() * 3.0) as u32);
        let q = view([g, y, 0]);
        let now = t * 1000;
        let a = rio.on_arrival(&q, &p, now, &mut r1);
        let b = drio.on_arrival(&q, &p, now, &mut r2);
        assert_eq!(a, b, "arrival {t}");
        drops += matches!(a, Verdict::Drop(_)) as u32;
        for k in 0..3 {
            assert_eq!(rio.avg_of(k), drio.rio.avg_of(k));
        }
    }
    assert!(
        drops > 100,
        "the sequence must exercise RIO's drops: {drops}"
    );
    assert!(drio.list.is_empty());
    assert_eq!(r1.next_u64(), r2.next_u64(), "the same number of draws");
}
