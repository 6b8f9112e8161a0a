use super::*;
use crate::aqm::DropTail;
use crate::packet::Packet;

use crate::aqm::Scripted;

fn q_with(limit: Limit) -> OutputQueue {
    OutputQueue::new(
        limit,
        1_000_000,
        AnyAqm::DropTail(DropTail),
        Rng::for_component(1, 0, "q"),
    )
}
fn pkt(a: &mut PacketArena, size: u32, ecn: Ecn) -> u32 {
    a.alloc(Packet {
        size,
        ecn,
        ..Default::default()
    })
}

#[test]
fn packet_limit_counts_waiting_packets_only() {
    let mut a = PacketArena::default();
    let mut q = q_with(Limit::Packets(3));
    for _ in 0..3 {
        let i = pkt(&mut a, 100, Ecn::NotEct);
        assert_eq!(q.arrive(i, &mut a, 0), Admission::Enqueued);
    }
    let i = pkt(&mut a, 100, Ecn::NotEct);
    assert_eq!(q.arrive(i, &mut a, 0), Admission::Dropped(Reason::Overflow));
    // One leaves for the wire: the buffer has room for exactly one more.
    let mut d = vec![];
    assert!(q.dequeue(&mut a, 1, &mut d).is_some());
    let i = pkt(&mut a, 100, Ecn::NotEct);
    assert_eq!(q.arrive(i, &mut a, 1), Admission::Enqueued);
    assert_eq!(q.len_pkts(), 3);
    q.finish(2);
    q.check_conservation(&a).unwrap();
}

/// The cumulative area survives the warm-up restart and counts the open interval:
/// 2 packets for 1 s, then 1 packet for 2 s (restart in between), then 0.
#[test]
fn cumulative_area_is_exact_across_the_warmup_restart() {
    let s = NS_PER_SEC;
    let mut a = PacketArena::default();
    let mut q = q_with(Limit::Packets(10));
    for _ in 0..2 {
        let i = pkt(&mut a, 100, Ecn::NotEct);
        q.arrive(i, &mut a, 0);
    }
    let mut d = vec![];
    q.dequeue(&mut a, s, &mut d).unwrap();
    assert_eq!(q.area_pkt_s(s), 2.0);
    q.restart_measurement(2 * s);
    assert_eq!(q.area_pkt_s(2 * s), 3.0);
    assert_eq!(q.area_pkt_s(5 * s / 2), 3.5);
    q.dequeue(&mut a, 3 * s, &mut d).unwrap();
    assert_eq!(q.area_pkt_s(10 * s), 4.0);
}

#[test]
fn byte_limit_accepts_exact_fit_and_drops_one_byte_more() {
    let mut a = PacketArena::default();
    let mut q = q_with(Limit::Bytes(1000));
    let i = pkt(&mut a, 600, Ecn::NotEct);
    assert_eq!(q.arrive(i, &mut a, 0), Admission::Enqueued);
    let i = pkt(&mut a, 401, Ecn::NotEct);
    assert_eq!(q.arrive(i, &mut a, 0), Admission::Dropped(Reason::Overflow));
    let i = pkt(&mut a, 400, Ecn::NotEct);
    assert_eq!(q.arrive(i, &mut a, 0), Admission::Enqueued);
    assert_eq!(q.len_bytes(), 1000);
    q.finish(1);
    q.check_conservation(&a).unwrap();
}

/// Fills a buffer with `fill` packets, then offers one `ecn` packet to an AQM that
/// answers `v` on arrival.
fn offer(v: Verdict, ecn: Ecn, limit: Limit, fill: u32) -> (Admission, Ecn, QueueCounters) {
    let mut a = PacketArena::default();
    let mut q = q_with(limit);
    for _ in 0..fill {
        let i = pkt(&mut a, 100, Ecn::NotEct);
        q.arrive(i, &mut a, 0);
    }
    q.set_aqm(AnyAqm::Scripted(Scripted {
        arrival: v,
        departure: Verdict::Pass,
        overflows: 0,
    }));
    let i = pkt(&mut a, 100, ecn);
    let adm = q.arrive(i, &mut a, 0);
    q.check_conservation(&a).unwrap();
    (adm, a.get(i).ecn, q.counters)
}

#[test]
fn full_buffer_drops_an_ect_packet_instead_of_marking_it() {
    for limit in [Limit::Packets(2), Limit::Bytes(200)] {
        let (adm, ecn, c) = offer(Verdict::Mark(Reason::Early), Ecn::Ect0, limit, 2);
        assert_eq!(adm, Admission::Dropped(Reason::Overflow));
        assert_eq!(ecn, Ecn::Ect0);
        assert_eq!(c.total_marked(), 0);
    }
}

#[test]
fn overflow_is_reported_to_the_aqm() {
    let mut a = PacketArena::default();
    let mut q = q_with(Limit::Packets(1));
    q.set_aqm(AnyAqm::Scripted(Scripted {
        arrival: Verdict::Pass,
        departure: Verdict::Pass,
        overflows: 0,
    }));
    for _ in 0..3 {
        let i = pkt(&mut a, 100, Ecn::NotEct);
        q.arrive(i, &mut a, 0);
    }
    let AnyAqm::Scripted(s) = q.aqm() else {
        unreachable!()
    };
    assert_eq!(s.overflows, 2);
}

#[test]
fn mark_on_not_ect_becomes_a_drop_with_the_same_reason() {
    for limit in [Limit::Packets(5), Limit::Bytes(5000)] {
        let (adm, _, c) = offer(Verdict::Mark(Reason::Early), Ecn::NotEct, limit, 0);
        assert_eq!(adm, Admission::Dropped(Reason::Early));
        assert_eq!(c.dropped[Reason::Early as usize], 1);
    }
}

/// Issue 11: RED with `ecn` and `mark_above_max_th`, avg far above max_th, through the
/// queue: an ECT arrival is marked CE and enqueued (a forced mark), a Not-ECT one is
/// force-dropped, and only a full buffer drops an ECT packet. Without the option the
/// ECT arrival is force-dropped too.
#[test]
fn red_marking_above_max_th_drops_ect_packets_only_at_a_full_buffer() {
    use crate::aqm::red::{CountRule, Red, RedConfig};
    let red_queue = |mark_above_max_th: bool| {
        let mut red = Red::new(
            RedConfig {
                min_th: 5.0,
                max_th: 15.0,
                max_p: 0.1,
                w_q: Some(1e-9), // avg stays where it is set
                gentle: true,
                count_rule: CountRule::Ns2Wait,
                byte_mode: false,
                mean_pktsize: 1000,
                ecn: true,
                mark_above_max_th,
                ns2_qlen_guard: false,
            },
            1_000_000,
        );
        red.est.avg = 100.0; // beyond 2·max_th: every arrival is signalled
        let mut q = q_with(Limit::Packets(3));
        q.set_aqm(AnyAqm::Red(red));
        q
    };
    let mut a = PacketArena::default();
    let mut q = red_queue(true);
    for k in 0..3 {
        let i = pkt(&mut a, 100, Ecn::Ect0);
        assert_eq!(
            q.arrive(i, &mut a, 0),
            Admission::Enqueued,
            "ECT arrival {k}"
        );
        assert_eq!(a.get(i).ecn, Ecn::Ce);
        let i = pkt(&mut a, 100, Ecn::NotEct);
        assert_eq!(q.arrive(i, &mut a, 0), Admission::Dropped(Reason::Forced));
    }
    assert_eq!(q.counters.marked[Reason::Forced as usize], 3);
    assert_eq!(q.counters.dropped[Reason::Forced as usize], 3);
    // The buffer (3 packets) is full: the next ECT arrival overflows.
    let i = pkt(&mut a, 100, Ecn::Ect0);
    assert_eq!(q.arrive(i, &mut a, 0), Admission::Dropped(Reason::Overflow));
    q.finish(1);
    q.check_conservation(&a).unwrap();
    // Default (`mark_above_max_th = false`): the forced decision drops ECT packets too.
    let mut q = red_queue(false);
    let i = pkt(&mut a, 100, Ecn::Ect0);
    assert_eq!(q.arrive(i, &mut a, 0), Admission::Dropped(Reason::Forced));
    assert_eq!(q.counters.total_marked(), 0);
}

#[test]
fn ce_packet_passes_a_marking_aqm_unchanged() {
    for limit in [Limit::Packets(5), Limit::Bytes(5000)] {
        let (adm, ecn, c) = offer(Verdict::Mark(Reason::Early), Ecn::Ce, limit, 0);
        assert_eq!(adm, Admission::Enqueued);
        assert_eq!(ecn, Ecn::Ce);
        assert_eq!(c.total_marked(), 0);
        assert_eq!(c.total_dropped(), 0);
    }
}

#[test]
fn ect_packet_is_marked_once_per_hop() {
    let mut a = PacketArena::default();
    let mut q = q_with(Limit::Packets(5));
    // Marks on arrival and again at departure: the second finds CE and changes nothing.
    q.set_aqm(AnyAqm::Scripted(Scripted {
        arrival: Verdict::Mark(Reason::Forced),
        departure: Verdict::Mark(Reason::Dequeue),
        overflows: 0,
    }));
    let i = pkt(&mut a, 100, Ecn::Ect1);
    assert_eq!(q.arrive(i, &mut a, 0), Admission::Enqueued);
    assert_eq!(q.dequeue(&mut a, 5, &mut vec![]), Some(i));
    assert_eq!(a.get(i).ecn, Ecn::Ce);
    assert_eq!(q.counters.total_marked(), 1);
    assert_eq!(q.counters.marked[Reason::Forced as usize], 1);
    q.check_conservation(&a).unwrap();
}

#[test]
fn dequeue_drops_are_counted_after_enqueue() {
    let mut a = PacketArena::default();
    let mut q = q_with(Limit::Packets(5));
    q.set_aqm(AnyAqm::Scripted(Scripted {
        arrival: Verdict::Pass,
        departure: Verdict::Drop(Reason::Dequeue),
        overflows: 0,
    }));
    for _ in 0..3 {
        let i = pkt(&mut a, 100, Ecn::NotEct);
        q.arrive(i, &mut a, 0);
    }
    let mut dropped = vec![];
    assert_eq!(q.dequeue(&mut a, 1, &mut dropped), None);
    assert_eq!(dropped.len(), 3);
    assert_eq!(q.counters.dropped_after_enqueue, 3);
    q.check_conservation(&a).unwrap();
}

fn coloured(a: &mut PacketArena, size: u32, colour: Colour) -> u32 {
    let i = pkt(a, size, Ecn::NotEct);
    a.get_mut(i).colour = colour;
    i
}

/// Each drop precedence keeps its own backlog (what an AQM sees) and counters, through
/// enqueue, an overflow, an AQM drop at arrival, a mark and a drop at dequeue.
#[test]
fn each_precedence_keeps_its_backlog_and_counters() {
    use Colour::{Green, Red, Yellow};
    let mut a = PacketArena::default();
    let mut q = q_with(Limit::Packets(3));
    for (size, c) in [(100, Green), (200, Yellow), (300, Red)] {
        let i = coloured(&mut a, size, c);
        if c == Yellow {
            a.get_mut(i).ecn = Ecn::Ect0;
        }
        assert_eq!(q.arrive(i, &mut a, 0), Admission::Enqueued);
    }
    let v = q.view();
    let b = |pkts, bytes| Backlog { pkts, bytes };
    assert_eq!(v.by_colour(), [b(1, 100), b(1, 200), b(1, 300)]);
    assert_eq!((v.len_pkts, v.len_bytes), (3, 600));
    assert_eq!(v.upstream, Backlog::default());
    let i = coloured(&mut a, 200, Yellow);
    assert_eq!(q.arrive(i, &mut a, 0), Admission::Dropped(Reason::Overflow));
    a.free(i);
    let mut d = vec![];
    let out = q.dequeue(&mut a, 1, &mut d).unwrap();
    assert_eq!(a.get(out).colour, Green);
    a.free(out);
    assert_eq!(q.backlog(Green), b(0, 0));
    // The AQM now drops red arrivals and marks on departure; ECT yellow is marked.
    q.set_aqm(AnyAqm::Scripted(Scripted {
        arrival: Verdict::Drop(Reason::Early),
        departure: Verdict::Mark(Reason::Dequeue),
        overflows: 0,
    }));
    let i = coloured(&mut a, 300, Red);
    assert_eq!(q.arrive(i, &mut a, 2), Admission::Dropped(Reason::Early));
    a.free(i);
    let out = q.dequeue(&mut a, 3, &mut d).unwrap();
    assert_eq!(a.get(out).ecn, Ecn::Ce);
    // The red one waiting is Not-ECT: its mark at dequeue is a drop.
    assert_eq!(q.dequeue(&mut a, 4, &mut d), None);
    assert_eq!(d.len(), 1);
    let k = &q.counters.by_colour();
    assert_eq!([k[0].arrivals, k[1].arrivals, k[2].arrivals], [1, 2, 2]);
    assert_eq!([k[0].dequeued, k[1].dequeued, k[2].dequeued], [1, 1, 0]);
    assert_eq!(k[1].dropped[Reason::Overflow as usize], 1);
    assert_eq!(k[1].marked[Reason::Dequeue as usize], 1);
    assert_eq!(k[2].dropped[Reason::Early as usize], 1);
    assert_eq!(k[2].dropped[Reason::Dequeue as usize], 1);
    assert_eq!(k[2].dropped_after_enqueue, 1);
    assert_eq!(k[1].arrival_bytes, 400);
    assert_eq!(q.view().by_colour(), [Backlog::default(); NUM_COLOURS]);
    q.check_conservation(&a).unwrap();
    // A warm-up copy subtracts colour by colour.
    let later = q.counters.minus(&q.counters);
    assert_eq!(later.by_colour(), [ColourCounters::default(); NUM_COLOURS]);
}

#[test]
fn conservation_check_catches_a_broken_colour_counter() {
    let mut a = PacketArena::default();
    let mut q = q_with(Limit::Packets(5));
    let i = coloured(&mut a, 100, Colour::Yellow);
    q.arrive(i, &mut a, 0);
    q.counters.not_green_mut(1).enqueued -= 1;
    assert!(q
        .check_conservation(&a)
        .unwrap_err()
        .starts_with("colour 1"));
}

#[test]
fn conservation_check_catches_a_broken_counter() {
    let mut a = PacketArena::default();
    let mut q = q_with(Limit::Packets(5));
    let i = pkt(&mut a, 100, Ecn::NotEct);
    q.arrive(i, &mut a, 0);
    q.counters.enqueued += 1;
    assert!(q
        .check_conservation(&a)
        .unwrap_err()
        .contains("arrivals 1 != enqueued 2"));
}

/// What a packet crossing an idle FIFO port reads and writes (`arrive`, then `dequeue` at
/// the same instant) lies in three cache lines, the AQM's tag aside: at 10 000 flows these
/// ports are out of cache, and each further line is a miss per packet (issue 15). A field
/// added in the wrong place, or a struct whose layout moved, fails here.
#[test]
fn packet_touches_few_lines() {
    use std::mem::offset_of;
    let u64s = |o: usize| (o, 8);
    let touched = [
        u64s(offset_of!(OutputQueue, counters.arrivals)),
        u64s(offset_of!(OutputQueue, counters.arrival_bytes)),
        u64s(offset_of!(OutputQueue, counters.queue_at_arrivals)),
        u64s(offset_of!(OutputQueue, counters.enqueued)),
        u64s(offset_of!(OutputQueue, counters.ect_enqueued)),
        u64s(offset_of!(OutputQueue, counters.dequeued)),
        u64s(offset_of!(OutputQueue, counters.dequeued_bytes)),
        (offset_of!(OutputQueue, v.len_pkts), 4),
        u64s(offset_of!(OutputQueue, v.len_bytes)),
        (
            offset_of!(OutputQueue, v.limit),
            std::mem::size_of::<Limit>(),
        ),
        (
            offset_of!(OutputQueue, fifo),
            std::mem::size_of::<crate::packet::PacketList>(),
        ),
        u64s(offset_of!(OutputQueue, multi)),
        (offset_of!(OutputQueue, passive), 1),
        u64s(offset_of!(OutputQueue, peak_bytes)),
        u64s(offset_of!(OutputQueue, busy_ns)),
        (offset_of!(OutputQueue, peak_pkts), 4),
        u64s(offset_of!(OutputQueue, zero_sojourns)),
        u64s(offset_of!(OutputQueue, level.last)),
        u64s(offset_of!(OutputQueue, level.idle_ns)),
    ];
    let lines = crate::mem::lines_of(&touched);
    assert_eq!(std::mem::align_of::<OutputQueue>(), 64);
    assert!(lines.len() <= 3, "lines {lines:?} of {touched:?}");
    // Line 0, and two lines the processor fetches as one aligned pair.
    let lines: Vec<usize> = lines.into_iter().collect();
    assert!(
        lines.len() < 3 || (lines[0] == 0 && lines[1] % 2 == 0 && lines[2] == lines[1] + 1),
        "lines {lines:?}"
    );
}

/// A port that sees no yellow or red packet holds no colour counters (nor does its
/// warm-up copy): at 10 000 flows the 40 002 ports are written whole when the simulator
/// is built, and their size is memory touched before the first event.
#[test]
fn a_port_is_small_until_it_sees_colours() {
    assert!(
        std::mem::size_of::<OutputQueue>() <= 1088,
        "{}",
        std::mem::size_of::<OutputQueue>()
    );
    let mut a = PacketArena::default();
    let mut q = q_with(Limit::Packets(10));
    let i = pkt(&mut a, 100, Ecn::NotEct);
    q.arrive(i, &mut a, 0);
    q.restart_measurement(1);
    assert!(q.counters.not_green.is_none() && q.at_warmup.not_green.is_none());
    let i = coloured(&mut a, 300, Colour::Yellow);
    q.arrive(i, &mut a, 2);
    assert_eq!(
        q.counters
            .minus(&q.at_warmup)
            .colour(Colour::Yellow)
            .arrival_bytes,
        300
    );
    assert_eq!(q.counters.colour(Colour::Yellow).arrivals, 1);
    assert_eq!(q.counters.colour(Colour::Green).arrivals, 1);
    assert_eq!(q.counters.colour(Colour::Red), ColourCounters::default());
}

/// What a periodic sample reads of a queue that never dropped nor marked and whose AQM
/// samples nothing (`queue_sample`: lengths, counters, the area under the level, whether
/// to read the AQM's variables and the drop counters) lies in four lines: at 10 000
/// flows every sample reads every one of 40 002 queues, out of cache.
#[test]
fn a_sample_reads_four_lines() {
    use std::mem::{offset_of, size_of};
    let u64s = |o: usize| (o, 8);
    let touched = [
        (offset_of!(OutputQueue, v.len_pkts), 4),
        u64s(offset_of!(OutputQueue, v.len_bytes)),
        u64s(offset_of!(OutputQueue, counters.arrivals)),
        u64s(offset_of!(OutputQueue, counters.dequeued_bytes)),
        (offset_of!(OutputQueue, has_metrics), size_of::<bool>()),
        (
            offset_of!(OutputQueue, dropped_or_marked),
            size_of::<bool>(),
        ),
        u64s(offset_of!(OutputQueue, level.last)),
        (offset_of!(OutputQueue, level.sum_pkts), 16),
        (offset_of!(OutputQueue, level.sum_pkts_before), 16),
    ];
    let lines = crate::mem::lines_of(&touched);
    assert!(lines.len() <= 4, "lines {lines:?} of {touched:?}");
}

/// What recording a packet's non-zero sojourn touches (`LogHistogram::record` before a
/// flush) lies in two lines: a packet that waited at an access link reads them, cold at
/// scale, beside the level's. The whole histogram is three lines: the flush of its pending
/// values finds the first sparse entries in the third, not in a heap block of their own.
#[test]
fn a_sojourn_record_touches_two_lines() {
    use crate::record::LogHistogram;
    use std::mem::{offset_of, size_of};
    let at = offset_of!(OutputQueue, sojourn);
    let touched = [
        (at + offset_of!(LogHistogram, sum), 16),
        (at + offset_of!(LogHistogram, n), 8),
        (at + offset_of!(LogHistogram, max), 8),
        (
            at + LogHistogram::PENDING_SPAN.0,
            LogHistogram::PENDING_SPAN.1,
        ),
    ];
    let lines = crate::mem::lines_of(&touched);
    assert_eq!(lines.len(), 2, "lines {lines:?} of {touched:?}");
    assert!(size_of::<LogHistogram>() <= 192);
}
