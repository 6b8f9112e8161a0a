use super::*;

/// The heap moves entries on every push and pop: an event that grows past 16 bytes
/// makes every entry 40 bytes instead of 32.
#[test]
fn entries_stay_32_bytes() {
    assert_eq!(std::mem::size_of::<Event>(), 16);
    assert_eq!(std::mem::size_of::<Entry>(), 32);
}

#[test]
fn events_pop_in_time_order_with_fifo_ties() {
    let mut q = EventQueue::new();
    q.schedule(5, Event::Sample);
    q.schedule(1, Event::Send { source: 1 });
    q.schedule(5, Event::WarmupEnd);
    q.schedule(1, Event::Send { source: 2 });
    let order: Vec<_> = std::iter::from_fn(|| q.pop()).collect();
    assert_eq!(
        order,
        vec![
            (1, Event::Send { source: 1 }),
            (1, Event::Send { source: 2 }),
            (5, Event::Sample),
            (5, Event::WarmupEnd)
        ]
    );
}

proptest::proptest! {
    /// Lanes change where a channel's arrivals wait, not when they run: scheduled and
    /// popped in any interleaving, each arrival in its lane or not (`back_to_back` drawn
    /// at random), the queue gives the order of one heap of every event by (time, seq),
    /// the oracle. Arrivals per channel are scheduled in nondecreasing time and never
    /// before the last pop, as the simulator schedules them. In a large run the ends
    /// of transmission wait apart, and the one popped last stays until the next push
    /// of an end takes its place or the next pop removes it: counts must not see it.
    /// The class lanes' firsts then wait in no heap, and `peek_as` (the simulator's
    /// one-pop guess) must still see them.
    #[test]
    fn lanes_pop_in_the_order_of_one_heap(
        ops in proptest::collection::vec((0u8..7, 0u64..50, proptest::bool::ANY), 1..600),
        large in proptest::bool::ANY,
    ) {
        let mut q = EventQueue::new();
        // Noting arrivals ahead only reads the lanes, and ends of transmission apart
        // are one more set whose first competes: the order stays the heap's.
        q.set_large(large);
        let mut oracle = std::collections::BinaryHeap::new();
        let (mut seq, mut now) = (0u64, 0);
        let mut last = [0; 3];
        // What `peek_as` names: the earliest event but timers (and, in a large run,
        // ends of transmission, which wait apart).
        let peeked = |oracle: &std::collections::BinaryHeap<Entry>| {
            let seen = |e: &&Entry| match e.event {
                Event::Timer { .. } => false,
                Event::TxEnd { .. } => !large,
                _ => true,
            };
            oracle.iter().filter(seen).max().map(|e| e.event)
        };
        let peek = |q: &EventQueue| if large { q.peek_as::<true>() } else { q.peek_as::<false>() };
        for (kind, dt, back_to_back) in ops {
            let (time, event) = match kind {
                0..=2 => {
                    let c = kind as usize;
                    last[c] = last[c].max(now) + dt;
                    (last[c], Event::Arrive { node: 7, channel: c as u32, packet: seq as u32 })
                }
                3 => (now + dt, Event::Timer { slot: seq as u32, generation: 0 }),
                4 => (now + dt, Event::TxEnd { channel: seq as u32 }),
                _ => {
                    let got = q.pop();
                    let want = oracle.pop().map(|e: Entry| (e.time, e.event));
                    proptest::prop_assert_eq!(got, want);
                    if let Some((t, _)) = got {
                        now = t;
                    }
                    proptest::prop_assert_eq!(q.len(), oracle.len());
                    proptest::prop_assert_eq!(q.is_empty(), oracle.is_empty());
                    proptest::prop_assert_eq!(peek(&q), peeked(&oracle));
                    continue;
                }
            };
            match event {
                Event::Arrive { node, channel, packet } => {
                    q.schedule_arrival(time, node, channel, packet, back_to_back)
                }
                _ => q.schedule(time, event),
            }
            oracle.push(Entry { time, key: seq << TAG_BITS, event });
            seq += 1;
            proptest::prop_assert_eq!(q.len(), oracle.len());
            proptest::prop_assert_eq!(q.count(|_| true), oracle.len());
            proptest::prop_assert_eq!(peek(&q), peeked(&oracle));
        }
        while let Some(want) = oracle.pop() {
            proptest::prop_assert_eq!(q.pop(), Some((want.time, want.event)));
        }
        proptest::prop_assert_eq!(q.pop(), None);
    }
}

/// The lookahead names the arrivals NEAR and FAR places on in the popped lane, is
/// cleared by reading it and by a pop of the heap alone, and is off by default.
#[test]
fn lane_ahead_names_the_lane_s_later_arrivals() {
    // One wire's arrivals, all a delay of 1 000 after now: one class lane.
    let fill = |q: &mut EventQueue| {
        for p in 0..20u32 {
            q.schedule_arrival(1_000, 3, 5, p, true);
        }
        q.schedule(500, Event::Sample);
    };
    let none = Ahead::NONE;
    let mut q = EventQueue::new();
    fill(&mut q);
    q.pop();
    q.pop();
    assert_eq!(q.lane_ahead(), none, "off unless set");
    let mut q = EventQueue::new();
    q.set_large(true);
    fill(&mut q);
    assert_eq!(q.pop(), Some((500, Event::Sample)));
    assert_eq!(q.lane_ahead(), none, "the heap alone names none");
    let (_, first) = q.pop().unwrap();
    assert!(matches!(first, Event::Arrive { packet: 0, .. }));
    let a = q.lane_ahead();
    assert_eq!(
        (a.near_packet, a.near_node, a.far_packet),
        (1 + NEAR as u32, 3, 1 + FAR as u32)
    );
    assert_eq!(q.lane_ahead(), none, "read once");
    let mut seen = vec![];
    while let Some((_, e)) = q.pop() {
        assert!(matches!(e, Event::Arrive { .. }));
        seen.push(q.lane_ahead());
    }
    // After packet p: p + 1 + NEAR and p + 1 + FAR, while the lane holds them.
    assert_eq!(
        (seen[0].near_packet, seen[0].far_packet),
        (2 + NEAR as u32, 2 + FAR as u32)
    );
    assert_eq!(seen.last(), Some(&none), "none beyond the lane's end");
}

/// Quiet wires' arrivals of two delays (a packet's and an ACK's serialisation plus the
/// wire's) over a thousand wires: two class lanes, two heap entries, popped in order.
#[test]
fn quiet_wires_share_a_lane_per_delay() {
    let mut q = EventQueue::new();
    let mut want = vec![];
    for c in 0..1000u32 {
        let delay = if c % 3 == 0 { 1_000_320 } else { 1_008_000 };
        q.schedule_arrival(q.now + delay, 0, c, c, false);
        want.push((q.now + delay, c));
        if c % 10 == 9 {
            let (t, _) = q.pop().unwrap();
            want.sort_unstable();
            assert_eq!(t, want.remove(0).0);
        }
    }
    assert_eq!((q.heap.len(), q.classes.len()), (2, 2));
    want.sort_unstable();
    for (t, c) in want {
        let got = q.pop().unwrap();
        assert_eq!(got.0, t);
        assert!(matches!(got.1, Event::Arrive { channel, .. } if channel == c));
    }
}

#[test]
fn cancelled_timer_is_skipped_and_its_slot_reused() {
    let mut q = EventQueue::new();
    let mut t = Timers::default();
    let h1 = t.arm(&mut q, 10, TimerOwner::Queue(QueueId(0)));
    assert!(t.is_armed(h1));
    t.cancel(h1);
    assert!(!t.is_armed(h1));
    t.cancel(h1); // idempotent
    let h2 = t.arm(&mut q, 20, TimerOwner::Queue(QueueId(1)));
    let mut fired = vec![];
    while let Some((time, ev)) = q.pop() {
        if let Event::Timer { slot, generation } = ev {
            if let Some(owner) = t.fire(slot, generation) {
                fired.push((time, owner));
            }
        }
    }
    assert_eq!(fired, vec![(20, TimerOwner::Queue(QueueId(1)))]);
    assert!(!t.is_armed(h2));
}

#[test]
fn a_timer_fires_once() {
    let mut q = EventQueue::new();
    let mut t = Timers::default();
    t.arm(&mut q, 3, TimerOwner::Queue(QueueId(0)));
    let (_, ev) = q.pop().unwrap();
    let Event::Timer { slot, generation } = ev else {
        panic!()
    };
    assert_eq!(
        t.fire(slot, generation),
        Some(TimerOwner::Queue(QueueId(0)))
    );
    assert_eq!(t.fire(slot, generation), None);
}
