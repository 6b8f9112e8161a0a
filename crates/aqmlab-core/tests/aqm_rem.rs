//! REM in the engine (paper 002, §3.1 "match rate, clear buffer"): with many NewReno flows
//! the price settles where the input rate matches capacity and the backlog sits near b*,
//! whatever the number of users; with ECN the buffer (almost) never overflows.
//!
//! Release only: each case is a few seconds of a 20 Mb/s link (about 60 000 packets).

mod common;

use common::{run, skip_in_debug};

fn dumbbell(n: usize, aqm: &str, ecn: bool) -> String {
    let mut s = format!(
        r#"
schema_version = 1
[simulation]
duration = "100s"
warmup = "40s"
seed = 3
[[nodes]]
name = "r0"
type = "router"
[[nodes]]
name = "r1"
type = "router"
[[nodes]]
name = "s"
type = "host"
[[nodes]]
name = "d"
type = "host"
[[links]]
a = "r0"
b = "r1"
bandwidth = "20Mbps"
delay = "10ms"
queue = {{ limit_pkts = 120, aqm = {aqm} }}
[[links]]
a = "s"
b = "r0"
bandwidth = "1Gbps"
delay = "14ms"
queue = {{ limit_pkts = 10000 }}
[[links]]
a = "r1"
b = "d"
bandwidth = "1Gbps"
delay = "16ms"
queue = {{ limit_pkts = 10000 }}
"#
    );
    for i in 0..n {
        s += &format!(
            "[[flows]]\nname = \"f{i}\"\ntype = \"tcp\"\nsrc = \"s\"\ndst = \"d\"\n\
             packet_size = 1000\nvariant = \"newreno\"\necn = {ecn}\nstart = \"{}ms\"\n",
            i * 37
        );
    }
    s
}

/// b* = 20 packets: the mean backlog stays within ±40% of it for 20 and for 60 users (after a 40 s warm-up: with γ = 0.001 the price needs tens of seconds to reach its level)
/// (the queue oscillates around the target; the paper's Fig. 2 shows REM's mean queue
/// near 20 for 20–160 users), and the link stays ≥ 95% busy. DropTail with the same
/// buffer sits far above the target and grows with the number of users.
#[test]
fn rem_holds_the_backlog_near_b_star_whatever_the_number_of_users() {
    if skip_in_debug("rem") {
        return;
    }
    let mut droptail_q = vec![];
    for n in [20, 60] {
        let rem = run(&dumbbell(n, r#"{ type = "rem" }"#, false));
        let q = &rem.queues.iter().find(|q| q.name == "r0->r1").unwrap();
        eprintln!(
            "REM n={n}: mean queue {:.2} util {:.4} drops {:?}",
            q.mean_queue_pkts, q.utilization, q.dropped
        );
        assert!(
            (q.mean_queue_pkts - 20.0).abs() < 8.0,
            "n={n}: {}",
            q.mean_queue_pkts
        );
        assert!(q.utilization > 0.95, "n={n}: {}", q.utilization);
        let dt = run(&dumbbell(n, r#"{ type = "droptail" }"#, false));
        let dq = dt.queues.iter().find(|q| q.name == "r0->r1").unwrap();
        eprintln!("DropTail n={n}: mean queue {:.2}", dq.mean_queue_pkts);
        droptail_q.push(dq.mean_queue_pkts);
    }
    assert!(droptail_q[0] > 40.0 && droptail_q[1] > droptail_q[0]);
}

/// With ECN marking and ECN-capable NewReno, REM leaves almost nothing to buffer
/// overflow (paper §4: "the loss rate under REM with marking is nearly zero"): below
/// 0.1% of arrivals after the warm-up, with marks doing the work.
#[test]
fn rem_with_ecn_marks_instead_of_overflowing() {
    if skip_in_debug("rem") {
        return;
    }
    let r = run(&dumbbell(60, r#"{ type = "rem", ecn = true }"#, true));
    let q = r.queues.iter().find(|q| q.name == "r0->r1").unwrap();
    let dropped: u64 = q.dropped.iter().sum();
    let marked: u64 = q.marked.iter().sum();
    eprintln!(
        "REM+ECN n=60: drops {dropped} marks {marked} arrivals {} mean queue {:.2}",
        q.arrivals, q.mean_queue_pkts
    );
    assert!((dropped as f64) < 1e-3 * q.arrivals as f64);
    assert!(marked > 100);
    assert!(q.utilization > 0.95);
}

/// Eq. (3) (queue only) also settles near b*.
#[test]
fn queue_only_update_also_settles_near_the_target() {
    if skip_in_debug("rem") {
        return;
    }
    let r = run(&dumbbell(
        40,
        r#"{ type = "rem", update = "queue" }"#,
        false,
    ));
    let q = r.queues.iter().find(|q| q.name == "r0->r1").unwrap();
    eprintln!("REM eq.3 n=40: mean queue {:.2}", q.mean_queue_pkts);
    assert!((q.mean_queue_pkts - 20.0).abs() < 8.0);
}
