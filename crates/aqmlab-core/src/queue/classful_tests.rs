use super::*;
use crate::queue::buffer::{AnyBuffer, BufferSpec, Discipline};
use crate::queue::{Admission, OutputQueue};
use crate::units::NS_PER_SEC;

const NODES: [&str; 4] = ["h0", "h1", "r", "sink"];
const HOSTS: [&str; 3] = ["h0", "h1", "sink"];

fn ctx(limit_pkts: u32) -> QueueCtx<'static> {
    QueueCtx {
        limit_pkts: Some(limit_pkts),
        limit_bytes: None,
        link_bps: 10_000_000,
        nodes: &NODES,
        hosts: &HOSTS,
    }
}

fn spec(text: &str) -> BufferSpec {
    toml::from_str(text).unwrap_or_else(|e| panic!("{e}\n{text}"))
}

fn problems(text: &str) -> Vec<String> {
    let mut p = Problems::default();
    spec(text).validate("q", &ctx(100), &mut p);
    p.errors
        .iter()
        .map(|e| format!("{}: {} {}", e.path, e.value, e.message))
        .collect()
}

fn port(b: &BufferSpec, limit: u32) -> OutputQueue {
    let mut rng = Rng::for_component(7, 0, "q");
    let l = Limit::Packets(limit);
    match b.build(&ctx(limit), l, &mut rng) {
        Discipline::Fifo(a) => OutputQueue::new(l, 10_000_000, a, rng),
        Discipline::Buffer(m) => OutputQueue::with_multi(l, 10_000_000, m, rng),
    }
}

fn classful(q: &OutputQueue) -> &Classful {
    match q.multi() {
        Some(AnyBuffer::Classes(c)) => c,
        _ => panic!("a classful port"),
    }
}

#[test]
fn rules_match_every_field_they_name_and_the_rest_go_to_the_default_class() {
    let b = spec(
        r#"type = "classful"
        scheduler = { type = "strict_priority" }
        [[classes]]
        name = "ef"
        match = [{ precedence = [5] }, { src = "h1", udp = true }]
        [[classes]]
        name = "l4s"
        match = [{ ecn = ["ect1", "ce"] }]
        [[classes]]
        name = "be""#,
    );
    let q = port(&b, 100);
    let c = classful(&q);
    let p = |precedence, ecn, src, udp| Packet {
        precedence,
        ecn,
        src,
        udp,
        ..Default::default()
    };
    // Node 1 is h1, node 0 h0.
    assert_eq!(c.classify(&p(5, Ecn::NotEct, 0, false)), 0);
    assert_eq!(c.classify(&p(0, Ecn::NotEct, 1, true)), 0);
    assert_eq!(
        c.classify(&p(0, Ecn::NotEct, 1, false)),
        2,
        "udp must agree too"
    );
    assert_eq!(
        c.classify(&p(0, Ecn::NotEct, 0, true)),
        2,
        "src must agree too"
    );
    assert_eq!(c.classify(&p(0, Ecn::Ect1, 0, false)), 1);
    assert_eq!(c.classify(&p(0, Ecn::Ce, 0, false)), 1);
    assert_eq!(c.classify(&p(0, Ecn::Ect0, 0, false)), 2);
    // Class order decides between two classes that both match.
    assert_eq!(c.classify(&p(5, Ecn::Ect1, 0, false)), 0);
}

#[test]
fn bad_classes_are_refused_with_their_paths() {
    let e = problems(
        r#"type = "classful"
        scheduler = { type = "drr", quanta = [1500] }
        [[classes]]
        match = [{ precedence = [9] }, {}]
        limit_pkts = 0
        [[classes]]
        match = [{ src = "nobody" }]
        aqm = { type = "red", min_th = 5, max_th = 2 }"#,
    );
    let want = [
        "q.scheduler.quanta",
        "q.classes: 0 classes without `match`",
        "q.classes[0].limit_pkts",
        "q.classes[0].match[0].precedence",
        "q.classes[0].match[1]",
        "q.classes[1].match[0].src",
        "q.classes[1].aqm.",
    ];
    for w in want {
        assert!(e.iter().any(|m| m.contains(w)), "no problem at {w}: {e:#?}");
    }
    // A class's AQM is a FIFO's: a multi-queue buffer inside a class is unknown there.
    let nested = toml::from_str::<BufferSpec>(
        r#"type = "classful"
        scheduler = { type = "strict_priority" }
        [[classes]]
        aqm = { type = "fq_codel" }"#,
    );
    let msg = format!("{}", nested.unwrap_err());
    assert!(
        msg.contains("unknown type") && msg.contains("\"cioq_red\""),
        "{msg}"
    );
}

/// A port driven by a link of 10 Mb/s as the simulator drives one: Poisson arrivals of
/// mixed sizes at load 1.3 (so the AQM acts), the link sending whenever it is free, timers
/// run when due, and an idle period told once, at the next arrival or timer, with the time
/// the link went idle. Returns every event: what was admitted, dropped, sent (with its
/// codepoint), and timers.
fn drive(mut q: OutputQueue, seed: u64) -> (Vec<String>, String) {
    let bps = 10_000_000u64;
    let mut a = PacketArena::default();
    let mut rng = Rng::for_component(seed, 0, "arrivals");
    let mut trace = vec![];
    let (mut t_arr, mut busy_until, mut timer) = (0u64, None::<Time>, q.first_timer(0));
    let mut idle_since = None;
    let end = 20 * NS_PER_SEC;
    let mut dropped = vec![];
    let mut n = 0u32;
    while t_arr < end {
        let next_tx = busy_until.unwrap_or(Time::MAX);
        let next_timer = timer.unwrap_or(Time::MAX);
        let now = t_arr.min(next_tx).min(next_timer);
        let tx_end = now == next_tx;
        if now == next_timer {
            if let Some(s) = idle_since.take() {
                q.on_idle(s);
            }
            timer = q.on_timer(now);
            trace.push(format!("{now} T"));
            continue;
        }
        if tx_end {
            busy_until = None;
        } else {
            if let Some(s) = idle_since.take() {
                q.on_idle(s);
            }
            let size = [64, 576, 1500][rng.below(3) as usize];
            let ecn = [Ecn::NotEct, Ecn::Ect0][rng.below(2) as usize];
            let i = a.alloc(Packet {
                flow: n % 7,
                size,
                ecn,
                ..Default::default()
            });
            n += 1;
            let adm = q.arrive(i, &mut a, now);
            trace.push(format!("{now} A {i} {adm:?}"));
            if adm != Admission::Enqueued {
                a.free(i);
            }
            // Mean size 713 B: 1.3 × 10 Mb/s / (713 × 8) ≈ 2279 packets/s.
            t_arr += (rng.exponential(1.0 / 2279.0) * NS_PER_SEC as f64) as u64 + 1;
        }
        if busy_until.is_none() {
            match q.dequeue(&mut a, now, &mut dropped) {
                Some(i) => {
                    let p = a.get(i);
                    trace.push(format!("{now} D {i} {:?}", p.ecn));
                    busy_until = Some(now + p.size as u64 * 8 * NS_PER_SEC / bps);
                    a.free(i);
                }
                None if tx_end => idle_since = Some(now),
                None => {}
            }
            for i in dropped.drain(..) {
                trace.push(format!("{now} X {i}"));
                a.free(i);
            }
        }
    }
    q.finish(end);
    q.check_conservation(&a).unwrap();
    (trace, format!("{:?}", q.counters))
}

#[test]
fn a_classful_buffer_with_one_class_is_a_fifo_packet_for_packet() {
    for aqm in [
        r#"type = "red"
        min_th = 5
        max_th = 15
        ecn = true"#,
        r#"type = "codel"
        ecn = true"#,
        r#"type = "pie"
        ecn = true"#,
        r#"type = "droptail""#,
    ] {
        let fifo = port(&spec(aqm), 60);
        let one = spec(&format!(
            "type = \"classful\"\nscheduler = {{ type = \"drr\", quanta = [1500] }}\n\
             [[classes]]\naqm = {{ {} }}",
            aqm.replace('\n', ",")
        ));
        let one = port(&one, 60);
        let (a, ca) = drive(fifo, 3);
        let (b, cb) = drive(one, 3);
        // Each AQM must have acted, or the comparison proves little.
        let acted = a
            .iter()
            .filter(|e| e.contains("Dropped") || e.contains(" X "))
            .count();
        assert!(acted > 100, "{aqm}: only {acted} drops");
        let first = a.iter().zip(&b).position(|(x, y)| x != y);
        if let Some(k) = first {
            let lo = k.saturating_sub(6);
            eprintln!("fifo {:#?}\nclassful {:#?}", &a[lo..k + 2], &b[lo..k + 2]);
        }
        assert_eq!(first, None, "{aqm}: first difference at event {first:?}");
        assert_eq!(a.len(), b.len());
        assert_eq!(ca, cb);
    }
}

/// Two saturated classes of 1000-byte packets through a port, `n` departures.
fn shares(scheduler: &str, sizes: [u32; 2], n: usize) -> [u64; 2] {
    let b = spec(&format!(
        "type = \"classful\"\nscheduler = {scheduler}\n\
         [[classes]]\nmatch = [{{ precedence = [1] }}]\n[[classes]]"
    ));
    let mut q = port(&b, 100_000);
    let mut a = PacketArena::default();
    for k in 0..20_000 {
        for (c, size) in sizes.iter().enumerate() {
            let i = a.alloc(Packet {
                size: *size,
                precedence: 1 - c as u8,
                ..Default::default()
            });
            assert_eq!(q.arrive(i, &mut a, k), Admission::Enqueued);
        }
    }
    let mut sent = [0u64; 2];
    for _ in 0..n {
        let i = q.dequeue(&mut a, 30_000, &mut vec![]).unwrap();
        let p = a.get(i);
        sent[(p.precedence == 0) as usize] += p.size as u64;
        a.free(i);
    }
    sent
}

#[test]
fn the_port_serves_saturated_classes_in_the_schedulers_shares() {
    // WRR 3:1 of equal packets: exactly 3 of every 4 turns' packets (4000 departures:
    // 1000 rounds of 3 + 1).
    assert_eq!(
        shares("{ type = \"wrr\", weights = [3, 1] }", [1000, 1000], 4000),
        [3_000_000, 1_000_000]
    );
    // DRR with quanta 1500 and 4500 bytes, packets of 1000 and 500: byte shares 1:3 within
    // the DRR bound Max + 2Q = 1000 + 3000 bytes over the whole interval.
    let s = shares(
        "{ type = \"drr\", quanta = [1500, 4500] }",
        [1000, 500],
        8000,
    );
    let (x, y) = (s[0] as f64, s[1] as f64);
    assert!((y / 3.0 - x).abs() <= 4000.0, "{s:?}");
    // Strict priority: class 0 is always backlogged, so class 1 never sends.
    assert_eq!(
        shares("{ type = \"strict_priority\" }", [1000, 1000], 3000)[1],
        0
    );
}

#[test]
fn a_class_limit_refuses_what_the_port_would_take_and_the_table_counts_it() {
    let b = spec(
        r#"type = "classful"
        scheduler = { type = "strict_priority" }
        [[classes]]
        name = "small"
        limit_pkts = 2
        match = [{ udp = true }]
        [[classes]]
        name = "rest""#,
    );
    let mut q = port(&b, 100);
    let mut a = PacketArena::default();
    let mut arrive = |q: &mut OutputQueue, udp: bool| {
        let i = a.alloc(Packet {
            size: 1000,
            udp,
            ..Default::default()
        });
        q.arrive(i, &mut a, 5)
    };
    let got: Vec<Admission> = [true, true, true, false, false]
        .iter()
        .map(|&u| arrive(&mut q, u))
        .collect();
    use Admission::*;
    assert_eq!(
        got,
        [
            Enqueued,
            Enqueued,
            Dropped(Reason::Overflow),
            Enqueued,
            Enqueued
        ]
    );
    assert_eq!(q.len_pkts(), 4);
    let t = &classful(&q).tables()[0];
    assert_eq!(t.name, "subqueues");
    let col = |n: &str| match t.column(n) {
        Some(crate::table::Column::U64(v)) => v.clone(),
        other => panic!("{n}: {other:?}"),
    };
    assert_eq!(col("arrivals"), [3, 2]);
    assert_eq!(col("enqueued"), [2, 2]);
    assert_eq!(col("dropped"), [1, 0]);
    assert_eq!(classful(&q).metric_names(), ["class0_pkts", "class1_pkts"]);
}
