//! The simulator: builds the network of a validated scenario and runs its events.
//!
//! Per packet and hop there are at most two events: `TxEnd` (only when another packet waits
//! behind it) and `Arrive` at the far end, scheduled when transmission starts, merging
//! serialisation and propagation. Events at the same nanosecond run in scheduling order.

use crate::aqm::{Aqm, Discipline, Reason, NUM_REASONS};
use crate::event::{Event, EventQueue, TimerHandle, TimerOwner, Timers};
use crate::link::{Channel, Fate, Loss};
use crate::packet::{Ecn, Packet, PacketArena};
use crate::queue::{Admission, Limit, OutputQueue};
use crate::record::LogHistogram;
use crate::rng::Rng;
use crate::routing::{Routes, NO_ROUTE};
use crate::scenario::{
    DupackResponseSpec, FlowKind, FlowSpec, QueueSpec, Scenario, ScenarioErrors, TcpVariant,
};
use crate::table::Table;
use crate::tcp::{
    Ack, DupackResponse, Receiver, Segment, Sender, SenderConfig, SenderStats, Variant,
};
use crate::traffic::Source;
use crate::units::{secs, tx_time, Time};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

mod tables;
pub use tables::STANDARD_TABLES;

#[derive(Debug, thiserror::Error)]
pub enum SimError {
    #[error("{0}")]
    Scenario(#[from] ScenarioErrors),
    /// A conservation identity failed at the end of the run: a bug, never a user error.
    #[error("conservation check failed: {0}")]
    Conservation(String),
}

#[derive(Clone, Copy, Debug, Default)]
struct FlowCounters {
    sent_pkts: u64,
    sent_bytes: u64,
    recv_pkts: u64,
    recv_bytes: u64,
    dropped_pkts: u64,
    lost_pkts: u64,
    /// Dropped or lost packets that were sent at or after the warm-up: the numerator of
    /// loss_rate, so that it counts only packets of its own denominator.
    window_losses: u64,
    delay_sum_ns: u128,
}

impl FlowCounters {
    fn minus(&self, o: &Self) -> Self {
        FlowCounters {
            sent_pkts: self.sent_pkts - o.sent_pkts,
            sent_bytes: self.sent_bytes - o.sent_bytes,
            recv_pkts: self.recv_pkts - o.recv_pkts,
            recv_bytes: self.recv_bytes - o.recv_bytes,
            dropped_pkts: self.dropped_pkts - o.dropped_pkts,
            lost_pkts: self.lost_pkts - o.lost_pkts,
            window_losses: self.window_losses - o.window_losses,
            delay_sum_ns: self.delay_sum_ns - o.delay_sum_ns,
        }
    }
}

/// A TCP connection's two ends and their timers.
struct TcpState {
    sender: Sender,
    receiver: Receiver,
    /// The scheduled timer event and its time (at most one of each kind is pending).
    rto_timer: Option<(TimerHandle, Time)>,
    delack_timer: Option<(TimerHandle, Time)>,
    ecn: bool,
    ack_size: u32,
    start: Time,
    stats_at_warmup: SenderStats,
    delivered_at_warmup: u64,
    ce_at_warmup: u64,
}

#[derive(Default)]
struct FlowState {
    /// Data packets (source → destination) and TCP ACKs (destination → source).
    c: FlowCounters,
    acks: FlowCounters,
    at_warmup: FlowCounters,
    acks_at_warmup: FlowCounters,
    delay_max_ns: u64,
    src: u32,
    dst: u32,
    size: u32,
    tcp: Option<Box<TcpState>>,
}

/// Per-queue summary over the measurement window (after warm-up).
#[derive(Clone, Debug, PartialEq)]
pub struct QueueSummary {
    pub name: String,
    pub link: String,
    pub from: String,
    pub to: String,
    pub aqm: String,
    pub arrivals: u64,
    pub enqueued: u64,
    pub dequeued: u64,
    /// Drops by reason, in `Reason::ALL` order.
    pub dropped: [u64; NUM_REASONS],
    pub marked: [u64; NUM_REASONS],
    pub lost_on_link: u64,
    pub mean_queue_pkts: f64,
    pub var_queue_pkts: f64,
    pub mean_queue_bytes: f64,
    pub var_queue_bytes: f64,
    pub max_queue_pkts: u32,
    pub max_queue_bytes: u64,
    pub utilization: f64,
    pub throughput_bps: f64,
    pub mean_sojourn_s: f64,
    pub p50_sojourn_s: f64,
    pub p90_sojourn_s: f64,
    pub p99_sojourn_s: f64,
    pub max_sojourn_s: f64,
    /// Fraction of time with exactly n packets waiting, n = 0, 1, ...
    pub distribution: Vec<f64>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct FlowSummary {
    pub name: String,
    pub kind: String,
    pub src: String,
    pub dst: String,
    pub sent_pkts: u64,
    pub sent_bytes: u64,
    pub received_pkts: u64,
    pub received_bytes: u64,
    pub dropped_pkts: u64,
    pub lost_pkts: u64,
    pub goodput_bps: f64,
    pub loss_rate: f64,
    pub mean_delay_s: f64,
    pub max_delay_s: f64,
    /// All data bytes received per second, duplicates included.
    pub throughput_bps: f64,
    /// TCP only (0 for UDP): retransmitted segments, timeouts, fast recoveries entered,
    /// window reductions for ECN, CE marks seen by the receiver, ACKs sent and lost.
    pub retransmits: u64,
    pub timeouts: u64,
    pub fast_recoveries: u64,
    pub ecn_reactions: u64,
    pub marks_received: u64,
    pub acks_sent: u64,
    pub acks_lost: u64,
    /// Finite TCP transfers: from start to the last segment acknowledged (None if it did
    /// not complete, or is not a finite TCP transfer).
    pub completion_time_s: Option<f64>,
}

/// One sampled column of a queue's time series.
#[derive(Clone, Debug, PartialEq)]
pub struct Series {
    pub queue: String,
    pub metric: String,
    pub values: Vec<f64>,
}

/// One sampled column of a traced TCP flow (cwnd, ssthresh in segments; srtt_s).
#[derive(Clone, Debug, PartialEq)]
pub struct FlowSeries {
    pub flow: String,
    pub metric: String,
    pub values: Vec<f64>,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct TimeSeries {
    pub time_s: Vec<f64>,
    pub series: Vec<Series>,
    pub flows: Vec<FlowSeries>,
}

const FLOW_METRICS: [&str; 4] = ["cwnd", "ssthresh", "srtt_s", "delivered_pkts"];
/// Cumulative queue counters sampled into the time series (since time 0, warm-up
/// included): differences between samples give exact per-period rates and means.
const QUEUE_COUNTERS: [&str; 6] = [
    "arrivals",
    "dropped",
    "dropped_overflow",
    "marked",
    "departed_bytes",
    "area_pkt_s",
];

#[derive(Clone, Debug, PartialEq)]
pub struct RunResults {
    pub queues: Vec<QueueSummary>,
    pub flows: Vec<FlowSummary>,
    pub timeseries: TimeSeries,
    /// Events processed (stale timer entries excluded).
    pub events: u64,
    /// Packets created by all sources.
    pub packets: u64,
    pub measured_s: f64,
    /// Tables added by components (an AQM's final state, ...), each with a `queue` column
    /// first; `tables()` returns them after the standard ones.
    pub extra_tables: Vec<Table>,
}

pub struct Simulator<'a> {
    scenario: &'a Scenario,
    now: Time,
    end: Time,
    warmup: Time,
    events: EventQueue,
    timers: Timers,
    packets: PacketArena,
    routes: Routes,
    channels: Vec<Channel>,
    /// The UDP source of each flow (None for TCP flows).
    sources: Vec<Option<Source>>,
    flows: Vec<FlowState>,
    scratch: Vec<u32>,
    segments: Vec<Segment>,
    ts: TimeSeries,
    /// Index into `ts.series` of each channel's first column.
    ts_base: Vec<usize>,
    /// Traced TCP flows and the index of their first column in `ts.flows`.
    traced: Vec<(usize, usize)>,
    metric_buf: Vec<f64>,
    processed: u64,
    /// Simulated time published for progress reporting (read by another thread).
    progress: Option<Arc<AtomicU64>>,
}

fn build_queue(q: &QueueSpec, bps: u64, mut rng: Rng) -> OutputQueue {
    let limit = match (q.limit_pkts, q.limit_bytes) {
        (Some(p), _) => Limit::Packets(p),
        (None, Some(b)) => Limit::Bytes(b.0),
        (None, None) => unreachable!("validated: a queue has a limit"),
    };
    match q.aqm.build(&q.ctx(bps), &mut rng) {
        Discipline::Fifo(aqm) => OutputQueue::new(limit, bps, aqm, rng),
        Discipline::FlowQueue(fq) => OutputQueue::with_flows(limit, bps, fq, rng),
    }
}

impl<'a> Simulator<'a> {
    /// Builds the network. The scenario must have passed `validate`.
    pub fn new(s: &'a Scenario) -> Simulator<'a> {
        let seed = s.simulation.seed;
        let run = s.simulation.run;
        let mut channels = Vec::with_capacity(2 * s.links.len());
        for (i, l) in s.links.iter().enumerate() {
            let a = s.node_index(&l.a).expect("validated") as u32;
            let b = s.node_index(&l.b).expect("validated") as u32;
            let lname = link_name(s, i);
            for (from, to, dir, q) in [
                (a, b, "ab", &l.queue),
                (b, a, "ba", l.reverse_queue.as_ref().unwrap_or(&l.queue)),
            ] {
                let base = format!("links/{lname}/{dir}");
                channels.push(Channel {
                    link: i as u32,
                    from,
                    to,
                    bps: l.bandwidth.0,
                    delay: l.delay.0,
                    loss: Loss::new(
                        l.loss.as_ref(),
                        Rng::for_component(seed, run, &format!("{base}/loss")),
                    ),
                    queue: build_queue(
                        q,
                        l.bandwidth.0,
                        Rng::for_component(seed, run, &format!("{base}/aqm")),
                    ),
                    busy_until: 0,
                    txend_pending: false,
                    active: false,
                    lost: 0,
                    lost_at_warmup: 0,
                });
            }
        }
        let end = s.simulation.duration.0;
        let mut sources = vec![];
        let mut flows = vec![];
        for (i, f) in s.flows.iter().enumerate() {
            let src = s.node_index(&f.src).expect("validated") as u32;
            let dst = s.node_index(&f.dst).expect("validated") as u32;
            let stop = f.stop.map(|d| d.0.min(end)).unwrap_or(end);
            let mut state = FlowState {
                src,
                dst,
                size: f.packet_size.0 as u32,
                ..Default::default()
            };
            if f.kind == FlowKind::Tcp {
                sources.push(None);
                state.tcp = Some(Box::new(tcp_state(f)));
            } else {
                let rng = Rng::for_component(seed, run, &format!("flows/{}", f.name));
                sources.push(Some(Source::new(f, i as u32, src, dst, stop, rng)));
            }
            flows.push(state);
        }
        let mut ts = TimeSeries::default();
        let mut ts_base = vec![];
        for ch in &channels {
            ts_base.push(ts.series.len());
            let qn = queue_name(s, ch);
            let mut push = |m: &str| {
                ts.series.push(Series {
                    queue: qn.clone(),
                    metric: m.into(),
                    values: vec![],
                })
            };
            push("qlen_pkts");
            push("qlen_bytes");
            for m in QUEUE_COUNTERS {
                push(m);
            }
            for m in ch.queue.metric_names() {
                push(m);
            }
        }
        let mut traced = vec![];
        for (i, f) in s.flows.iter().enumerate() {
            if f.trace == Some(true) {
                traced.push((i, ts.flows.len()));
                for m in FLOW_METRICS {
                    ts.flows.push(FlowSeries {
                        flow: f.name.clone(),
                        metric: m.into(),
                        values: vec![],
                    });
                }
            }
        }
        Simulator {
            scenario: s,
            now: 0,
            end,
            warmup: s.simulation.warmup.0,
            events: EventQueue::new(),
            timers: Timers::default(),
            packets: PacketArena::default(),
            routes: s.routes(),
            channels,
            sources,
            flows,
            scratch: vec![],
            segments: vec![],
            ts,
            ts_base,
            traced,
            metric_buf: vec![],
            processed: 0,
            progress: None,
        }
    }

    /// Publishes the simulated time (ns) into `cell` every 65 536 events, so a caller on
    /// another thread can show progress; the engine itself never reads a clock.
    pub fn with_progress(mut self, cell: Arc<AtomicU64>) -> Self {
        self.progress = Some(cell);
        self
    }

    /// Runs to the end and returns the results, after checking conservation.
    pub fn run(mut self) -> Result<RunResults, SimError> {
        for i in 0..self.sources.len() {
            match &mut self.sources[i] {
                Some(src) => {
                    let t = src.first();
                    if t < src.stop {
                        self.events.schedule(t, Event::Send { source: i as u32 });
                    }
                }
                None => {
                    let f = &self.scenario.flows[i];
                    self.events
                        .schedule(f.start.0, Event::Send { source: i as u32 });
                    if let Some(stop) = f.stop {
                        self.events
                            .schedule(stop.0, Event::FlowStop { flow: i as u32 });
                    }
                }
            }
        }
        for c in 0..self.channels.len() {
            if let Some(t) = self.channels[c].queue.aqm.first_timer(0) {
                self.timers
                    .arm(&mut self.events, t, TimerOwner::Aqm(c as u32));
            }
        }
        if self.warmup > 0 {
            self.events.schedule(self.warmup, Event::WarmupEnd);
        } else {
            self.restart_measurement();
        }
        self.events.schedule(0, Event::Sample);

        while let Some((t, ev)) = self.events.pop() {
            if t >= self.end {
                // Keep it for the in-flight census at the end.
                self.events.schedule(t, ev);
                break;
            }
            self.now = t;
            self.processed += 1;
            if self.processed & 0xFFFF == 0 {
                if let Some(p) = &self.progress {
                    p.store(t, Ordering::Relaxed);
                }
            }
            match ev {
                Event::Send { source } => self.on_send(source as usize),
                Event::TxEnd { channel } => {
                    self.channels[channel as usize].txend_pending = false;
                    self.start_tx(channel as usize);
                }
                Event::Arrive { node, packet } => self.forward(node as usize, packet),
                Event::Timer { slot, generation } => match self.timers.fire(slot, generation) {
                    Some(TimerOwner::TcpRto(f)) => self.on_rto_timer(f as usize),
                    Some(TimerOwner::TcpDelAck(f)) => self.on_delack_timer(f as usize),
                    Some(TimerOwner::Aqm(c)) => {
                        let ch = &mut self.channels[c as usize];
                        // Idleness is reported lazily at the next arrival; a periodic AQM
                        // must learn of it before its timer acts on the average.
                        if ch.active && !ch.txend_pending && t >= ch.busy_until {
                            ch.queue.aqm.on_idle(ch.busy_until);
                            ch.active = false;
                        }
                        let q = &mut ch.queue;
                        let view = q.view();
                        if let Some(next) = q.aqm.on_timer(&view, t) {
                            self.timers.arm(&mut self.events, next, TimerOwner::Aqm(c));
                        }
                    }
                    None => self.processed -= 1,
                },
                Event::FlowStop { flow } => {
                    if let Some(tcp) = &mut self.flows[flow as usize].tcp {
                        tcp.sender.stop();
                    }
                }
                Event::Sample => self.on_sample(),
                Event::WarmupEnd => self.restart_measurement(),
            }
        }
        self.now = self.end;
        self.finish()
    }

    #[inline]
    fn on_send(&mut self, i: usize) {
        let now = self.now;
        let Some(src) = &mut self.sources[i] else {
            return self.tcp_start(i);
        };
        let size = src.packet_size();
        let (flow, from, dst, ecn) = (src.flow, src.src, src.dst, src.ecn);
        let seq = self.flows[flow as usize].c.sent_pkts;
        let pkt = self.packets.alloc(Packet {
            flow,
            src: from,
            dst,
            size,
            ecn: if ecn { Ecn::Ect0 } else { Ecn::NotEct },
            created: now,
            seq,
            ..Default::default()
        });
        let f = &mut self.flows[flow as usize].c;
        f.sent_pkts += 1;
        f.sent_bytes += size as u64;
        if let Some(t) = self.sources[i].as_mut().and_then(|s| s.next(now)) {
            self.events.schedule(t, Event::Send { source: i as u32 });
        }
        self.forward(from as usize, pkt);
    }

    #[inline]
    fn forward(&mut self, node: usize, pkt: u32) {
        let dst = self.packets.get(pkt).dst as usize;
        if dst == node {
            return self.deliver(pkt);
        }
        let ch = self.routes.next_channel(node, dst);
        debug_assert_ne!(ch, NO_ROUTE, "validated scenarios route every flow");
        self.channel_arrive(ch as usize, pkt);
    }

    #[inline]
    fn deliver(&mut self, pkt: u32) {
        let p = *self.packets.get(pkt);
        self.packets.free(pkt);
        let f = &mut self.flows[p.flow as usize];
        if p.is_ack {
            f.acks.recv_pkts += 1;
            f.acks.recv_bytes += p.size as u64;
            return self.tcp_on_ack(p.flow as usize, &p.ack);
        }
        let delay = self.now - p.created;
        f.c.recv_pkts += 1;
        f.c.recv_bytes += p.size as u64;
        f.c.delay_sum_ns += delay as u128;
        f.delay_max_ns = f.delay_max_ns.max(delay);
        if f.tcp.is_some() {
            self.tcp_on_data(p.flow as usize, &p);
        }
    }

    #[inline]
    fn counters(&mut self, p: &Packet) -> &mut FlowCounters {
        let f = &mut self.flows[p.flow as usize];
        if p.is_ack {
            &mut f.acks
        } else {
            &mut f.c
        }
    }

    #[inline]
    fn drop_packet(&mut self, pkt: u32) {
        let p = *self.packets.get(pkt);
        let in_window = p.created >= self.warmup;
        let c = self.counters(&p);
        c.dropped_pkts += 1;
        c.window_losses += u64::from(in_window);
        self.packets.free(pkt);
    }

    // --- TCP: the pure sender/receiver state machines, wired to packets and timers -------

    fn tcp_start(&mut self, f: usize) {
        let mut segs = std::mem::take(&mut self.segments);
        if let Some(tcp) = &mut self.flows[f].tcp {
            tcp.sender.start(self.now, &mut segs);
        }
        self.tcp_emit(f, &mut segs);
        self.segments = segs;
    }

    fn tcp_on_ack(&mut self, f: usize, ack: &Ack) {
        let mut segs = std::mem::take(&mut self.segments);
        if let Some(tcp) = &mut self.flows[f].tcp {
            tcp.sender.on_ack(ack, self.now, &mut segs);
        }
        self.tcp_emit(f, &mut segs);
        self.segments = segs;
    }

    fn tcp_on_data(&mut self, f: usize, p: &Packet) {
        let now = self.now;
        let Some(tcp) = &mut self.flows[f].tcp else {
            return;
        };
        let ack = tcp.receiver.on_data(p.seq, p.ecn == Ecn::Ce, p.cwr, now);
        if let Some(ack) = ack {
            self.tcp_send_ack(f, ack);
        }
        self.tcp_sync_timers(f);
    }

    fn on_rto_timer(&mut self, f: usize) {
        let now = self.now;
        let mut segs = std::mem::take(&mut self.segments);
        if let Some(tcp) = &mut self.flows[f].tcp {
            tcp.rto_timer = None;
            tcp.sender.on_timeout(now, &mut segs);
        }
        self.tcp_emit(f, &mut segs);
        self.segments = segs;
    }

    fn on_delack_timer(&mut self, f: usize) {
        let now = self.now;
        let Some(tcp) = &mut self.flows[f].tcp else {
            return;
        };
        tcp.delack_timer = None;
        if let Some(ack) = tcp.receiver.on_delack_timer(now) {
            self.tcp_send_ack(f, ack);
        }
        self.tcp_sync_timers(f);
    }

    /// Puts the sender's segments on the wire and re-arms its timer.
    fn tcp_emit(&mut self, f: usize, segs: &mut Vec<Segment>) {
        let now = self.now;
        let st = &self.flows[f];
        let (src, dst, size) = (st.src, st.dst, st.size);
        let ecn = st.tcp.as_ref().is_some_and(|t| t.ecn);
        for seg in segs.drain(..) {
            let pkt = self.packets.alloc(Packet {
                flow: f as u32,
                src,
                dst,
                size,
                // RFC 3168 §6.1.5: retransmissions are not ECN-capable.
                ecn: if ecn && !seg.retransmit {
                    Ecn::Ect0
                } else {
                    Ecn::NotEct
                },
                created: now,
                seq: seg.seq,
                cwr: seg.cwr,
                ..Default::default()
            });
            let c = &mut self.flows[f].c;
            c.sent_pkts += 1;
            c.sent_bytes += size as u64;
            self.forward(src as usize, pkt);
        }
        self.tcp_sync_timers(f);
    }

    fn tcp_send_ack(&mut self, f: usize, ack: Ack) {
        let st = &mut self.flows[f];
        let Some(tcp) = &st.tcp else { return };
        let size = tcp.ack_size;
        let (from, to) = (st.dst, st.src);
        st.acks.sent_pkts += 1;
        st.acks.sent_bytes += size as u64;
        let pkt = self.packets.alloc(Packet {
            flow: f as u32,
            src: from,
            dst: to,
            size,
            created: self.now,
            seq: ack.ack,
            is_ack: true,
            ack,
            ..Default::default()
        });
        self.forward(from as usize, pkt);
    }

    /// Keeps one timer event per pending deadline: re-arming is needed only when a
    /// deadline moves earlier; a later one is honoured when the earlier event fires.
    fn tcp_sync_timers(&mut self, f: usize) {
        let Some(tcp) = &mut self.flows[f].tcp else {
            return;
        };
        for (want, slot, owner) in [
            (
                tcp.sender.rto_deadline,
                &mut tcp.rto_timer,
                TimerOwner::TcpRto(f as u32),
            ),
            (
                tcp.receiver.delack_deadline,
                &mut tcp.delack_timer,
                TimerOwner::TcpDelAck(f as u32),
            ),
        ] {
            let Some(d) = want else { continue };
            match *slot {
                Some((_, at)) if at <= d => {}
                other => {
                    if let Some((h, _)) = other {
                        self.timers.cancel(h);
                    }
                    *slot = Some((self.timers.arm(&mut self.events, d, owner), d));
                }
            }
        }
    }

    #[inline]
    fn channel_arrive(&mut self, c: usize, pkt: u32) {
        let now = self.now;
        let ch = &mut self.channels[c];
        let idle = !ch.txend_pending && now >= ch.busy_until;
        if idle && ch.active {
            // The link went idle when its last packet finished, not now.
            ch.queue.aqm.on_idle(ch.busy_until);
            ch.active = false;
        }
        let admission = ch.queue.arrive(pkt, &mut self.packets, now);
        if !ch.queue.evicted.is_empty() {
            self.drop_evicted(c);
        }
        let ch = &mut self.channels[c];
        match admission {
            Admission::Dropped(_) => self.drop_packet(pkt),
            Admission::Enqueued if ch.queue.is_empty() => {}
            Admission::Enqueued => {
                if idle {
                    self.start_tx(c);
                } else if !ch.txend_pending {
                    ch.txend_pending = true;
                    let at = ch.busy_until;
                    self.events.schedule(at, Event::TxEnd { channel: c as u32 });
                }
            }
        }
    }

    /// Frees the packets a flow-queue buffer dropped from inside to admit an arrival.
    #[cold]
    fn drop_evicted(&mut self, c: usize) {
        let mut ev = std::mem::take(&mut self.channels[c].queue.evicted);
        for d in ev.drain(..) {
            self.drop_packet(d);
        }
        self.channels[c].queue.evicted = ev;
    }

    #[inline]
    fn start_tx(&mut self, c: usize) {
        let now = self.now;
        let mut dropped = std::mem::take(&mut self.scratch);
        let next = self.channels[c]
            .queue
            .dequeue(&mut self.packets, now, &mut dropped);
        for d in dropped.drain(..) {
            self.drop_packet(d);
        }
        self.scratch = dropped;
        let Some(pkt) = next else { return };
        let ch = &mut self.channels[c];
        let tx = tx_time(self.packets.get(pkt).size, ch.bps);
        ch.busy_until = now + tx;
        ch.active = true;
        // Utilisation counts only transmission time inside [warm-up, end).
        let lo = now.max(self.warmup);
        let hi = ch.busy_until.min(self.end);
        if hi > lo {
            ch.queue.busy_ns += hi - lo;
        }
        let fate = ch.loss.fate(!self.packets.get(pkt).is_ack);
        if fate == Fate::Mark && self.packets.get(pkt).ecn.is_ect() {
            self.packets.get_mut(pkt).ecn = Ecn::Ce;
        }
        if fate == Fate::Lose {
            ch.lost += 1;
            let p = *self.packets.get(pkt);
            let in_window = p.created >= self.warmup;
            let c = self.counters(&p);
            c.lost_pkts += 1;
            c.window_losses += u64::from(in_window);
            self.packets.free(pkt);
        } else {
            let to = ch.to;
            self.events.schedule(
                ch.busy_until + ch.delay,
                Event::Arrive {
                    node: to,
                    packet: pkt,
                },
            );
        }
        let ch = &mut self.channels[c];
        if !ch.queue.is_empty() {
            ch.txend_pending = true;
            self.events
                .schedule(ch.busy_until, Event::TxEnd { channel: c as u32 });
        }
    }

    fn restart_measurement(&mut self) {
        let now = self.now;
        for ch in &mut self.channels {
            ch.queue.restart_measurement(now);
            ch.queue.busy_ns = 0;
            // A transmission straddling the warm-up counts from the warm-up on.
            if ch.busy_until > now {
                ch.queue.busy_ns = ch.busy_until.min(self.end) - now;
            }
            ch.lost_at_warmup = ch.lost;
        }
        for f in &mut self.flows {
            f.at_warmup = f.c;
            f.acks_at_warmup = f.acks;
            f.delay_max_ns = 0;
            if let Some(t) = &mut f.tcp {
                t.stats_at_warmup = t.sender.stats;
                t.delivered_at_warmup = t.receiver.delivered;
                t.ce_at_warmup = t.receiver.ce_received;
            }
        }
    }

    fn on_sample(&mut self) {
        let now = self.now;
        self.ts.time_s.push(secs(now));
        for (c, ch) in self.channels.iter().enumerate() {
            let base = self.ts_base[c];
            let q = &ch.queue;
            self.ts.series[base].values.push(q.len_pkts() as f64);
            self.ts.series[base + 1].values.push(q.len_bytes() as f64);
            let c = &q.counters;
            let cumulative = [
                c.arrivals as f64,
                c.dropped.iter().sum::<u64>() as f64,
                c.dropped[Reason::Overflow as usize] as f64,
                c.marked.iter().sum::<u64>() as f64,
                c.dequeued_bytes as f64,
                q.area_pkt_s(now),
            ];
            for (k, v) in cumulative.into_iter().enumerate() {
                self.ts.series[base + 2 + k].values.push(v);
            }
            let base = base + 2 + QUEUE_COUNTERS.len();
            let names = q.metric_names();
            if !names.is_empty() {
                self.metric_buf.clear();
                self.metric_buf.resize(names.len(), f64::NAN);
                q.metrics(now, &mut self.metric_buf);
                for (k, v) in self.metric_buf.iter().enumerate() {
                    self.ts.series[base + k].values.push(*v);
                }
            }
        }
        for &(f, base) in &self.traced {
            if let Some(tcp) = &self.flows[f].tcp {
                let s = &tcp.sender;
                let delivered = tcp.receiver.delivered as f64;
                for (k, v) in [s.cwnd, s.ssthresh, s.srtt_s(), delivered]
                    .into_iter()
                    .enumerate()
                {
                    self.ts.flows[base + k].values.push(v);
                }
            }
        }
        let next = now + self.scenario.sample_interval();
        if next < self.end {
            self.events.schedule(next, Event::Sample);
        }
    }

    fn check_conservation(&self) -> Result<(), SimError> {
        let fail = |m: String| Err(SimError::Conservation(m));
        for ch in &self.channels {
            if let Err(e) = ch.queue.check_conservation() {
                return fail(format!("queue {}: {e}", queue_name(self.scenario, ch)));
            }
        }
        // Every live packet is either waiting in a queue or on a wire (a pending Arrive).
        // In flight per flow: [data, acks].
        let mut in_flight = vec![[0u64; 2]; self.flows.len()];
        for p in self.packets.live() {
            in_flight[p.flow as usize][p.is_ack as usize] += 1;
        }
        let live: u64 = in_flight.iter().map(|x| x[0] + x[1]).sum();
        let waiting: u64 = self
            .channels
            .iter()
            .map(|c| c.queue.len_pkts() as u64)
            .sum();
        let on_wire = self.events.count(|e| matches!(e, Event::Arrive { .. })) as u64;
        if live != waiting + on_wire {
            return fail(format!(
                "{live} live packets != {waiting} waiting + {on_wire} on the wire"
            ));
        }
        let mut sent = 0;
        for (i, f) in self.flows.iter().enumerate() {
            for (k, (c, what)) in [(&f.c, "data"), (&f.acks, "ack")].into_iter().enumerate() {
                sent += c.sent_pkts;
                let rhs = c.recv_pkts + c.dropped_pkts + c.lost_pkts + in_flight[i][k];
                if c.sent_pkts != rhs {
                    return fail(format!(
                        "flow {} ({what} packets): sent {} != received {} + dropped {} + lost {} + in flight {}",
                        self.scenario.flows[i].name,
                        c.sent_pkts,
                        c.recv_pkts,
                        c.dropped_pkts,
                        c.lost_pkts,
                        in_flight[i][k]
                    ));
                }
            }
        }
        if sent != self.packets.created() {
            return fail(format!(
                "flows sent {sent} packets but {} were created",
                self.packets.created()
            ));
        }
        Ok(())
    }

    fn finish(mut self) -> Result<RunResults, SimError> {
        let end = self.end;
        for ch in &mut self.channels {
            ch.queue.finish(end);
        }
        self.check_conservation()?;
        let s = self.scenario;
        let t = secs(end - self.warmup);
        let queues = self
            .channels
            .iter()
            .map(|ch| {
                let q = &ch.queue;
                let c = q.counters.minus(&q.at_warmup);
                let lw = &q.level;
                let so: &LogHistogram = &q.sojourn;
                QueueSummary {
                    name: queue_name(s, ch),
                    link: link_name(s, ch.link as usize),
                    from: s.nodes[ch.from as usize].name.clone(),
                    to: s.nodes[ch.to as usize].name.clone(),
                    aqm: q.kind().to_string(),
                    arrivals: c.arrivals,
                    enqueued: c.enqueued,
                    dequeued: c.dequeued,
                    dropped: c.dropped,
                    marked: c.marked,
                    lost_on_link: ch.lost - ch.lost_at_warmup,
                    mean_queue_pkts: lw.mean_pkts(),
                    var_queue_pkts: lw.var_pkts(),
                    mean_queue_bytes: lw.mean_bytes(),
                    var_queue_bytes: lw.var_bytes(),
                    max_queue_pkts: lw.max_pkts,
                    max_queue_bytes: lw.max_bytes,
                    utilization: q.busy_ns as f64 / (end - self.warmup) as f64,
                    throughput_bps: c.dequeued_bytes as f64 * 8.0 / t,
                    mean_sojourn_s: so.mean() / 1e9,
                    p50_sojourn_s: so.quantile(0.5) / 1e9,
                    p90_sojourn_s: so.quantile(0.9) / 1e9,
                    p99_sojourn_s: so.quantile(0.99) / 1e9,
                    max_sojourn_s: if so.n == 0 {
                        f64::NAN
                    } else {
                        so.max as f64 / 1e9
                    },
                    distribution: lw.distribution(),
                }
            })
            .collect();
        let flows = self
            .flows
            .iter()
            .enumerate()
            .map(|(i, f)| {
                let spec = &s.flows[i];
                let c = f.c.minus(&f.at_warmup);
                let a = f.acks.minus(&f.acks_at_warmup);
                let (tcp_stats, unique, marks, completion) = match &f.tcp {
                    Some(tcp) => {
                        let st = tcp.sender.stats;
                        let w = tcp.stats_at_warmup;
                        (
                            st.since(&w),
                            (tcp.receiver.delivered - tcp.delivered_at_warmup) * f.size as u64,
                            tcp.receiver.ce_received - tcp.ce_at_warmup,
                            st.completed_at.map(|d| secs(d - tcp.start)),
                        )
                    }
                    None => (SenderStats::default(), c.recv_bytes, 0, None),
                };
                FlowSummary {
                    name: spec.name.clone(),
                    kind: match spec.kind {
                        FlowKind::Cbr => "cbr",
                        FlowKind::Poisson => "poisson",
                        FlowKind::Onoff => "onoff",
                        FlowKind::Tcp => "tcp",
                    }
                    .into(),
                    src: spec.src.clone(),
                    dst: spec.dst.clone(),
                    sent_pkts: c.sent_pkts,
                    sent_bytes: c.sent_bytes,
                    received_pkts: c.recv_pkts,
                    received_bytes: c.recv_bytes,
                    dropped_pkts: c.dropped_pkts,
                    lost_pkts: c.lost_pkts,
                    // Non-duplicate data delivered (for UDP every packet received is new).
                    goodput_bps: unique as f64 * 8.0 / t,
                    throughput_bps: c.recv_bytes as f64 * 8.0 / t,
                    retransmits: tcp_stats.retransmits,
                    timeouts: tcp_stats.timeouts,
                    fast_recoveries: tcp_stats.fast_recoveries,
                    ecn_reactions: tcp_stats.ecn_reactions,
                    marks_received: marks,
                    acks_sent: a.sent_pkts,
                    acks_lost: a.dropped_pkts + a.lost_pkts,
                    completion_time_s: completion,
                    // Of the packets sent in the window, the fraction dropped or lost: in
                    // [0, 1] (drops of packets sent before the window are not counted).
                    loss_rate: if c.sent_pkts == 0 {
                        f64::NAN
                    } else {
                        c.window_losses as f64 / c.sent_pkts as f64
                    },
                    mean_delay_s: if c.recv_pkts == 0 {
                        f64::NAN
                    } else {
                        c.delay_sum_ns as f64 / c.recv_pkts as f64 / 1e9
                    },
                    max_delay_s: if c.recv_pkts == 0 {
                        f64::NAN
                    } else {
                        f.delay_max_ns as f64 / 1e9
                    },
                }
            })
            .collect();
        let extra_tables = tables::component_tables(
            self.channels
                .iter()
                .map(|ch| (queue_name(s, ch), &ch.queue)),
        );
        Ok(RunResults {
            queues,
            flows,
            timeseries: self.ts,
            events: self.processed,
            packets: self.packets.created(),
            measured_s: t,
            extra_tables,
        })
    }
}

fn tcp_state(f: &FlowSpec) -> TcpState {
    use crate::scenario::tcp_defaults as d;
    let seg = f.packet_size.0;
    let cfg = SenderConfig {
        variant: match f.variant.unwrap_or(TcpVariant::Newreno) {
            TcpVariant::Reno => Variant::Reno,
            TcpVariant::Newreno => Variant::NewReno,
            TcpVariant::Sack => Variant::Sack,
        },
        ecn: f.ecn,
        dupack_response: match f.dupack_response.unwrap_or(DupackResponseSpec::Halve) {
            DupackResponseSpec::Halve => DupackResponse::Halve,
            DupackResponseSpec::RetransmitOnly => DupackResponse::RetransmitOnly,
        },
        max_window: f.max_window.unwrap_or(d::MAX_WINDOW),
        initial_cwnd: f.initial_cwnd.unwrap_or(d::INITIAL_CWND),
        // ns-2 starts ssthresh at window_; any value >= the window cap means "no limit".
        initial_ssthresh: f.max_window.unwrap_or(d::MAX_WINDOW) as f64,
        dupthresh: 3,
        limited_transmit: f.limited_transmit.unwrap_or(true),
        min_rto: f.min_rto.map_or(d::MIN_RTO, |x| x.0),
        initial_rto: f.initial_rto.map_or(d::INITIAL_RTO, |x| x.0),
        max_rto: f.max_rto.map_or(d::MAX_RTO, |x| x.0),
        granularity: f.granularity.map_or(d::GRANULARITY, |x| x.0),
        segments: f.bytes.map(|b| b.0.div_ceil(seg)),
    };
    let delack =
        (f.delayed_ack == Some(true)).then(|| f.delack_timeout.map_or(d::DELACK_TIMEOUT, |x| x.0));
    TcpState {
        sender: Sender::new(cfg),
        receiver: Receiver::new(f.variant == Some(TcpVariant::Sack), delack),
        rto_timer: None,
        delack_timer: None,
        ecn: f.ecn,
        ack_size: f.ack_size.map_or(d::ACK_SIZE, |x| x.0) as u32,
        start: f.start.0,
        stats_at_warmup: SenderStats::default(),
        delivered_at_warmup: 0,
        ce_at_warmup: 0,
    }
}

pub fn link_name(s: &Scenario, i: usize) -> String {
    let l = &s.links[i];
    l.name.clone().unwrap_or_else(|| format!("{}-{}", l.a, l.b))
}

fn queue_name(s: &Scenario, ch: &Channel) -> String {
    format!(
        "{}->{}",
        s.nodes[ch.from as usize].name, s.nodes[ch.to as usize].name
    )
}

/// Validates and runs a scenario.
pub fn run(s: &Scenario) -> Result<RunResults, SimError> {
    s.validate()?;
    Simulator::new(s).run()
}

/// Reason names in the order of `QueueSummary::dropped` and `marked`.
pub fn reason_names() -> [&'static str; NUM_REASONS] {
    Reason::ALL.map(|r| r.name())
}
