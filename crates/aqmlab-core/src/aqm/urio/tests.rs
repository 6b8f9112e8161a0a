use super::*;
use crate::aqm::test_support::view;
use crate::packet::Colour::{self, Green, Red};

const NODES: [&str; 4] = ["a", "b", "c", "d"];
const SEC: Time = 1_000_000_000;

fn ctx() -> QueueCtx<'static> {
    QueueCtx {
        limit_pkts: Some(1000),
        limit_bytes: None,
        link_bps: 10_000_000,
        nodes: &NODES,
        hosts: &NODES,
    }
}

/// Green (20, 40), yellow (15, 20), red (5, 15), w_q = 1 (each average is its backlog).
fn spec(extra: &str) -> UrioSpec {
    toml::from_str(&format!(
        "{extra}\nw_q = 1.0\nlevels = [\
         {{min_th = 20, max_th = 40, max_p = 0.02}}, \
         {{min_th = 15, max_th = 20, max_p = 0.06}}, \
         {{min_th = 5, max_th = 15, max_p = 0.12}}]"
    ))
    .unwrap()
}

fn script(u: &[f64]) -> impl FnMut() -> f64 + '_ {
    let mut i = 0;
    move || {
        let x = *u.get(i).expect("URIO drew more numbers than scripted");
        i += 1;
        x
    }
}

const A: u64 = 1;
const B: u64 = 2;

#[test]
fn greed_is_qbytes_over_the_fair_share_and_sets_p_tcp() {
    let mut u = spec("").build(&ctx());
    let a = u.seen(A, 0);
    let b = u.seen(B, 0);
    u.admit(a.0, 3000);
    u.admit(b.0, 1000);
    // fairqbytes = 4000 / 2 = 2000 (eq. 1).
    assert_eq!(u.fairqbytes(), 2000.0);
    // B: 1000 <= 2000, admitted without a draw.
    assert_eq!(u.judge_greed(b, false, script(&[])), Greed::Fair);
    // A: G = 1.5 (eq. 2), p = 0.5^0.5 = 0.70711 (eq. 3); 0.7 < p drops, 0.71 does not.
    let Greed::Tcp { p, dropped } = u.judge_greed(a, false, script(&[0.7])) else {
        panic!("A is greedy")
    };
    assert!((p - 0.5f64.sqrt()).abs() < 1e-12 && dropped);
    assert_eq!(
        u.judge_greed(a, false, script(&[0.71])),
        Greed::Tcp { p, dropped: false }
    );
    // Greedy UDP: dropped, no draw.
    assert_eq!(u.judge_greed(a, true, script(&[])), Greed::Udp);
    // G = 3: (3 − 1)^0.5 > 1, p clamps to 1.
    u.admit(a.0, 9000);
    assert_eq!(u.fairqbytes(), 6500.0);
    u.admit(b.0, 0);
    let c = u.seen(3, 0);
    // Three aggregates, 13000 bytes: fair 4333.3, G_A = 12000 / 4333.3 = 2.77.
    assert!(matches!(
        u.judge_greed(a, false, script(&[0.999_999])),
        Greed::Tcp { p, dropped: true } if p == 1.0
    ));
    assert_eq!(u.judge_greed(c, false, script(&[])), Greed::Fair);
    let n = u.counts.get(A).unwrap();
    assert_eq!(
        (n.greedy, n.greedy_tcp_drops, n.greedy_udp_drops),
        (4, 2, 1)
    );
}

#[test]
fn alpha_shapes_p_tcp() {
    let mut u = spec("alpha = 2.0").build(&ctx());
    let a = u.seen(A, 0);
    let b = u.seen(B, 0);
    u.admit(a.0, 3000);
    u.admit(b.0, 1000);
    // G = 1.5: p = 0.5^2 = 0.25.
    assert_eq!(
        u.judge_greed(a, false, script(&[0.3])),
        Greed::Tcp {
            p: 0.25,
            dropped: false
        }
    );
}

#[test]
fn a_reset_zeroes_qbytes_and_purges_aggregates_silent_since_the_last_one() {
    let mut u = spec("reset_timeout = \"1s\"").build(&ctx());
    assert_eq!(u.first_timer(0), Some(SEC));
    let a = u.seen(A, 100);
    let b = u.seen(B, 200);
    u.admit(a.0, 1500);
    u.admit(b.0, 500);
    // Reset at 1 s: both were seen since the start; kept, their qbytes zeroed.
    assert_eq!(u.on_timer(&view([0, 0, 0]), SEC), Some(2 * SEC));
    assert_eq!(u.state.len(), 2);
    assert_eq!(u.fairqbytes(), 0.0);
    assert_eq!(u.state.get(A).unwrap().qbytes, 0);
    // Only A is seen in (1 s, 2 s]: B is purged at 2 s, A stays.
    u.seen(A, SEC + 5);
    u.on_timer(&view([0, 0, 0]), 2 * SEC);
    assert_eq!(u.state.len(), 1);
    assert!(u.state.get(B).is_none());
    // A is silent in (2 s, 3 s]: purged at 3 s. Its counts stay in the table.
    u.on_timer(&view([0, 0, 0]), 3 * SEC);
    assert!(u.state.is_empty());
    let t = &u.tables()[0];
    assert_eq!(t.name, "urio_aggregates");
    assert_eq!(t.len(), 2);
    // A purged aggregate that comes back starts from zero.
    let a2 = u.seen(A, 3 * SEC + 1);
    assert_eq!(u.state.at(a2.0).qbytes, 0);
}

fn pkt(colour: Colour, src: u32, udp: bool) -> Packet {
    Packet {
        size: 1000,
        colour,
        src,
        dst: 3,
        udp,
        ..Default::default()
    }
}

fn qbytes(u: &Urio, src: u64) -> u64 {
    u.state.get(src << 32 | 3).map_or(0, |s| s.qbytes)
}

#[test]
fn qbytes_counts_congested_arrivals_by_default_and_every_admission_on_request() {
    for (extra, below) in [("", 0), ("qbytes_counts = \"admitted\"", 1000)] {
        let mut u = spec(extra).build(&ctx());
        let mut rng = Rng::for_component(1, 0, "urio");
        // Red with 2 waiting: below min_th 5.
        let v = u.on_arrival(&view([0, 0, 2]), &pkt(Red, 0, false), 0, &mut rng);
        assert_eq!(v, Verdict::Pass);
        assert_eq!(qbytes(&u, 0), below, "{extra}");
        // Green with 10 waiting: below its min_th 20.
        u.on_arrival(&view([10, 0, 0]), &pkt(Green, 0, false), 0, &mut rng);
        assert_eq!(qbytes(&u, 0), 2 * below, "{extra}");
    }
    // In the congested region (red with 6 waiting, p_b = 0.012), admitted packets count.
    let mut u = spec("").build(&ctx());
    let mut rng = Rng::for_component(2, 0, "urio");
    let mut admitted = 0;
    for _ in 0..50 {
        let v = u.on_arrival(&view([0, 0, 6]), &pkt(Red, 0, false), 0, &mut rng);
        admitted += (v == Verdict::Pass) as u64;
    }
    assert!(admitted > 40);
    assert_eq!(qbytes(&u, 0), 1000 * admitted);
}

#[test]
fn an_overflow_takes_the_admitted_packet_back_out_of_qbytes() {
    let mut u = spec("qbytes_counts = \"admitted\"").build(&ctx());
    let mut rng = Rng::for_component(1, 0, "urio");
    let q = view([0, 0, 1]);
    u.on_arrival(&q, &pkt(Red, 0, false), 0, &mut rng);
    u.on_arrival(&q, &pkt(Red, 0, false), 0, &mut rng);
    u.on_overflow(&q, 0);
    assert_eq!(qbytes(&u, 0), 1000);
    assert_eq!(u.fairqbytes(), 1000.0);
    // A second overflow report for the same arrival changes nothing.
    u.on_overflow(&q, 0);
    assert_eq!(qbytes(&u, 0), 1000);
}

#[test]
fn greedy_udp_is_dropped_and_a_fair_aggregate_passes_in_the_congested_region() {
    let mut u = spec("").build(&ctx());
    let mut rng = Rng::for_component(3, 0, "urio");
    // a->d admitted 3 packets, b->d 1 (red below min_th does not count: use admitted ones
    // in the region, with max_p tiny enough that RIO passes them: p_b <= 0.012 at 6).
    let q = view([0, 0, 6]);
    let mut sent = [0u64; 2];
    while qbytes(&u, 0) < 3000 || qbytes(&u, 1) < 1000 {
        let src = if qbytes(&u, 0) < 3000 { 0 } else { 1 };
        u.on_arrival(&q, &pkt(Red, src, false), 0, &mut rng);
        sent[src as usize] += 1;
    }
    // fair = 2000: b->d (1000) passes unless RIO itself drops it; a->d's UDP is dropped.
    let v = u.on_arrival(&q, &pkt(Red, 0, true), 0, &mut rng);
    assert_eq!(v, Verdict::Drop(Reason::Early));
    assert_eq!(u.counts.get(3).unwrap().greedy_udp_drops, 1);
    // Below min_th the same greedy UDP packet is admitted: URIO acts only when congested.
    let v = u.on_arrival(&view([0, 0, 2]), &pkt(Red, 0, true), 0, &mut rng);
    assert_eq!(v, Verdict::Pass);
}

#[test]
fn without_rio_early_drop_only_urio_drops_in_the_congested_region() {
    // One aggregate: never greedy, so with Fig. 2 to the letter nothing in the region is
    // dropped, where RIO at p_b = 0.12·(14 − 5)/10 = 0.108 with count spacing drops many.
    for (extra, expect_drops) in [("rio_early_drop = false", false), ("", true)] {
        let mut u = spec(extra).build(&ctx());
        let mut rng = Rng::for_component(4, 0, "urio");
        let drops = (0..2000)
            .filter(|_| {
                let v = u.on_arrival(&view([0, 0, 14]), &pkt(Red, 0, false), 0, &mut rng);
                v != Verdict::Pass
            })
            .count();
        assert_eq!(drops > 100, expect_drops, "{extra}: {drops}");
        if !expect_drops {
            assert_eq!(drops, 0);
        }
    }
}

/// Degeneracy: with one aggregate URIO is RIO-C, verdict for verdict and draw for draw,
/// resets included (G = 1: never greedy, no extra draw).
#[test]
fn with_one_aggregate_urio_is_rio_c_packet_for_packet() {
    let s = spec("reset_timeout = \"10ms\"");
    let mut s_rio = s.rio.clone();
    s_rio.w_q = crate::aqm::red::Weight::Value(0.2);
    let mut s_urio = s.clone();
    s_urio.rio = s_rio.clone();
    let mut rio = s_rio.build(&ctx());
    let mut urio = s_urio.build(&ctx());
    let (mut r1, mut r2) = (Rng::for_component(5, 0, "q"), Rng::for_component(5, 0, "q"));
    let mut script = Rng::for_component(6, 0, "script");
    let mut next_timer = urio.first_timer(0).unwrap();
    let (mut drops, mut udp) = (0, 0);
    for t in 0..20_000u64 {
        let now = t * 1_000_000 / 3;
        while next_timer <= now {
            next_timer = urio.on_timer(&view([0, 0, 0]), next_timer).unwrap();
        }
        let b = [40.0, 15.0, 25.0].map(|m| (script.uniform() * m) as u32);
        let c = Colour::ALL[(script.uniform() * 3.0) as usize];
        let p = pkt(c, 0, script.uniform() < 0.3);
        udp += p.udp as u32;
        let q = view(b);
        let a = rio.on_arrival(&q, &p, now, &mut r1);
        let v = urio.on_arrival(&q, &p, now, &mut r2);
        assert_eq!(a, v, "arrival {t}");
        drops += matches!(a, Verdict::Drop(_)) as u32;
    }
    assert!(drops > 100 && udp > 1000, "drops {drops}, udp {udp}");
    assert!(urio.counts.get(3).unwrap().greedy == 0);
    assert_eq!(r1.next_u64(), r2.next_u64(), "the same number of draws");
}
