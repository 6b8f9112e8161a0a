//! The simulator: builds the network of a validated scenario and runs its events.
//!
//! Per packet and hop there are at most two events: `TxEnd` (only when another packet waits
//! behind it) and `Arrive` at the far end, scheduled when transmission starts, merging
//! serialisation and propagation. Events at the same nanosecond run in scheduling order.

mod crossbar;
mod edge;
mod flow;
mod measure;
mod probe;
mod switch;
mod tcp;

use crate::aqm::{Reason, NUM_COLOURS, NUM_REASONS};
use crate::diffserv::Conditioner;
use crate::event::{Event, EventQueue, TimerHandle, TimerOwner, Timers, NO_PACKET};
use crate::link::{Channel, Fate, LossyWire};
use crate::packet::{Ecn, Packet, PacketArena};
use crate::queue::buffer::Discipline;
use crate::queue::{Admission, ColourCounters, Limit, OutputQueue, QueueId};
use crate::record::LogHistogram;
use crate::rng::Rng;
use crate::routing::{At, Routes, NO_ROUTE};
use crate::scenario::{
    Checked, FlowSpec, Names, NodeKind, QueueSpec, Scenario, ScenarioErrors, Traffic,
};
use crate::table::Table;
use crate::tcp::{
    Ack, DupackResponse, FrTimer, Halving, PartialAck, Receiver, RecoverGuard, Recovery, RttRule,
    Segment, Sender, SenderConfig, SenderStats, Variant,
};
use crate::traffic::Source;
use crate::units::{secs, tx_time, Time};
use flow::{FlowState, Missing, TcpState};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

mod series;
mod tables;
pub use series::{LongSeries, Series};
pub use tables::STANDARD_TABLES;

#[derive(Debug, thiserror::Error)]
pub enum SimError {
    #[error("{0}")]
    Scenario(#[from] ScenarioErrors),
    /// A conservation identity failed at the end of the run: a bug, never a user error.
    #[error("conservation check failed: {0}")]
    Conservation(String),
}

/// Per-port and per-flow state beyond which a run is large (`EventQueue::set_large`): the
/// ends of transmission wait apart and the lane lookahead is on (16 MiB, half this
/// machine's L3): a port's and a flow's lines are then cold when a packet comes, and
/// loading them some pops ahead hides the misses (-12% engine time at 10 000 flows, 91 MB
/// of such state); below, they are mostly in cache and the lookahead adds instructions
/// (+120 an event at 100 flows, 0.9 MB; no gain at 1 000 flows, 9 MB). BENCHMARKS.md,
/// 2026-11-27.
const LARGE_FROM: usize = 16 << 20;

fn large_run(queues: &[OutputQueue], channels: &[Channel], flows: &[FlowState]) -> bool {
    use std::mem::{size_of, size_of_val};
    let tcp = flows.iter().filter(|f| f.tcp.is_some()).count();
    let bytes = size_of_val(queues)
        + size_of_val(channels)
        + size_of_val(flows)
        + tcp * size_of::<TcpState>();
    bytes >= LARGE_FROM
}

/// Per-queue summary over the measurement window (after warm-up).
#[derive(Clone, Debug, Default, PartialEq)]
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
    /// The counters split by drop precedence (`Colour as usize`).
    pub by_colour: [ColourCounters; NUM_COLOURS],
    pub lost_on_link: u64,
    pub mean_queue_pkts: f64,
    /// Mean of the packets waiting as each arrival found them (before its admission).
    pub mean_queue_at_arrival_pkts: f64,
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
    /// `timeouts` by the sender's state at expiry (`tcp::sender::SenderStats`).
    pub timeouts_open: u64,
    pub timeouts_disorder: u64,
    pub timeouts_recovery: u64,
    pub timeouts_loss: u64,
    pub fast_recoveries: u64,
    pub ecn_reactions: u64,
    pub marks_received: u64,
    pub acks_sent: u64,
    pub acks_lost: u64,
    /// Finite TCP transfers: from start to the last segment acknowledged (None if it did
    /// not complete, or is not a finite TCP transfer).
    pub completion_time_s: Option<f64>,
}

/// The sampled time series of a run: every queue, and every traced TCP flow.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TimeSeries {
    pub time_s: Vec<f64>,
    pub queues: LongSeries,
    pub flows: LongSeries,
}

impl TimeSeries {
    /// Every queue's series (`name` is the queue's).
    pub fn series(&self) -> impl Iterator<Item = Series<'_>> {
        self.queues.series()
    }

    /// Every traced flow's series: cwnd and ssthresh in segments, srtt_s, delivered_pkts,
    /// cwnd_base (the window without fast recovery's inflation: ns-2's `cwnd_`), then the
    /// controller's metrics (`Controller::metric_names`: CUBIC's w_max, k, w_est; BBR's
    /// state, gains, bandwidth, RTprop, ...).
    pub fn flow_series(&self) -> impl Iterator<Item = Series<'_>> {
        self.flows.series()
    }
}

const FLOW_METRICS: [&str; 5] = ["cwnd", "ssthresh", "srtt_s", "delivered_pkts", "cwnd_base"];
/// The columns every sampled queue records: its length (packets, bytes), then cumulative
/// counters (since time 0, warm-up included): differences between samples give exact
/// per-period rates and means.
const SAMPLED: [&str; 8] = [
    "qlen_pkts",
    "qlen_bytes",
    "arrivals",
    "dropped",
    "dropped_overflow",
    "marked",
    "departed_bytes",
    "area_pkt_s",
];

/// `Debug` (sim/tables.rs) shows `captures` only when there are some.
#[derive(Clone, PartialEq)]
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
    /// The pcap files of the captured link directions (`crate::capture`), in channel order.
    pub captures: Vec<crate::capture::CaptureOutput>,
}

/// One bit per index, set where `f` holds.
fn bitset(n: usize, f: impl Fn(usize) -> bool) -> Vec<u64> {
    let mut set = vec![0u64; n.div_ceil(64)];
    for i in (0..n).filter(|&i| f(i)) {
        set[i / 64] |= 1 << (i % 64);
    }
    set
}

/// Bit `i` of a `bitset`.
#[inline]
fn bit(set: &[u64], i: usize) -> bool {
    set[i / 64] & (1 << (i % 64)) != 0
}

/// What a node does with a packet that arrives on one of its input channels: a closed set,
/// dispatched by `Simulator::arrive`. Variants stay small and `Copy`: a kind's state lives
/// out of line, indexed by the variant's number.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Node {
    /// Sources and sinks: a packet that arrives is delivered.
    Host,
    /// Looks the destination up and enqueues on the output channel.
    Router,
    /// A router that first conditions arrivals (DiffServ edge): `Simulator::edges[i]`.
    Edge(u32),
    /// A CIOQ switch: `Simulator::switches.list[i]` (sim/switch.rs).
    Switch(u32),
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
    /// What each node does with an arriving packet.
    nodes: Vec<Node>,
    /// The DiffServ edge routers' stages and their conditioners (sim/edge.rs).
    edges: Vec<edge::Edge>,
    conditioners: Vec<Conditioner>,
    /// The CIOQ switches, their input queues' ids and fabrics (sim/switch.rs).
    switches: switch::Switches,
    channels: Vec<Channel>,
    /// Every queue, by `QueueId`; `drains[q]` is the channel queue q feeds (`NO_CHANNEL`
    /// for a switch's input queues, which the fabric drains).
    queues: Vec<OutputQueue>,
    /// Bit q: queue q calls its AQM's hooks (is not passive); read by the lookahead.
    hooked: Vec<u64>,
    /// Bit n: node n is a `Node::Host`; in `routers`, a `Node::Router`. What the lookahead
    /// and `arrive` read of a node's kind: 2.5 KB each at 20 000 nodes, which stay in
    /// cache, where `nodes` is a random line of 160 KB per packet (issue 15).
    hosts: Vec<u64>,
    routers: Vec<u64>,
    drains: Vec<u32>,
    /// The UDP source of each flow (None for TCP flows).
    sources: Vec<Option<Source>>,
    flows: Vec<FlowState>,
    /// The probe flows' requests and their fates (sim/probe.rs).
    probes: probe::Probes,
    scratch: Vec<u32>,
    segments: Vec<Segment>,
    /// The time series of the sampled queues and the traced flows.
    ts: TimeSeries,
    /// Traced TCP flows and their entity in `ts.flows`.
    traced: Vec<(usize, usize)>,
    /// (channel, entity in `ts.queues`) of each sampled queue (`Scenario::sampled_queues`).
    sampled: Vec<(usize, usize)>,
    metric_buf: Vec<f64>,
    processed: u64,
    /// Simulated time published for progress reporting (read by another thread).
    progress: Option<Arc<AtomicU64>>,
    /// Packet captures, if any: one test per transmission when there are none.
    capture: Option<Box<crate::capture::Captures>>,
}

/// The part of a transfer [start, done) inside the measurement window [warmup, end), in ns:
/// what it adds to its output's fabric busy time (both switch fabrics).
fn in_window(start: Time, done: Time, warmup: Time, end: Time) -> Time {
    done.min(end).saturating_sub(start.max(warmup))
}

fn build_queue(q: &QueueSpec, limit: Limit, bps: u64, names: &Names, mut rng: Rng) -> OutputQueue {
    match q.aqm.build(&q.ctx(bps, names), limit, &mut rng) {
        Discipline::Fifo(aqm) => OutputQueue::new(limit, bps, aqm, rng),
        Discipline::Buffer(b) => OutputQueue::with_multi(limit, bps, b, rng),
    }
}

impl<'a> Simulator<'a> {
    /// Builds the network of a validated scenario.
    pub fn new(c: &Checked<'a>) -> Simulator<'a> {
        let s = c.scenario;
        let seed = s.simulation.seed;
        let run = s.simulation.run;
        let names = s.names();
        let mut channels = Vec::with_capacity(2 * s.links.len());
        let mut queues = Vec::with_capacity(2 * s.links.len());
        let mut drains = Vec::with_capacity(2 * s.links.len());
        for (i, l) in s.links.iter().enumerate() {
            let (a, b) = c.link_ends[i];
            let (limit_ab, limit_ba) = c.limits[i];
            // The streams are those of "links/<label>/<dir>/aqm" and ".../loss", the label
            // being `link_name`'s.
            let label: [&str; 3] = match &l.name {
                Some(n) => [n, "", ""],
                None => [&l.a, "-", &l.b],
            };
            let reverse = l.reverse_queue.as_ref().unwrap_or(&l.queue);
            for (from, to, dir, q, limit, bps) in [
                (a, b, "ab", &l.queue, limit_ab, l.bps(true)),
                (b, a, "ba", reverse, limit_ba, l.bps(false)),
            ] {
                let [l0, l1, l2] = label;
                let stream =
                    |what| Rng::for_path_of(seed, run, &["links/", l0, l1, l2, "/", dir, what]);
                // Channel c is fed by queue c (a switch's input queues come after): the
                // per-packet paths find a queue without reading its channel first.
                debug_assert_eq!(queues.len(), channels.len());
                queues.push(build_queue(q, limit, bps, &names, stream("/aqm")));
                drains.push(channels.len() as u32);
                channels.push(Channel {
                    link: i as u32,
                    from,
                    to,
                    bps,
                    delay: l.delay.0,
                    lossy: LossyWire::new(l.loss.as_ref(), stream("/loss")),
                    busy_until: 0,
                    txend_pending: false,
                    active: false,
                });
            }
        }
        let end = s.simulation.duration.0;
        let mut sources = vec![];
        let mut flows = vec![];
        for (i, f) in s.flows.iter().enumerate() {
            let (src, dst) = c.flow_ends[i];
            let stop = f.stop.map(|d| d.0.min(end)).unwrap_or(end);
            let mut state = FlowState {
                src,
                dst,
                size: f.packet_size.0 as u32,
                ..Default::default()
            };
            match (&f.traffic, &c.sources[i]) {
                (Traffic::Tcp(t), _) => {
                    sources.push(None);
                    state.tcp = Some(Box::new(tcp::tcp_state(f, t, seed, run)));
                }
                (_, None) => unreachable!("resolve() gives every open-loop flow its pattern"),
                (_, Some(pattern)) => {
                    let rng = Rng::for_component(seed, run, &format!("flows/{}", f.name));
                    let source = Source::new(f, pattern, i as u32, src, dst, stop, rng);
                    sources.push(Some(source));
                }
            }
            flows.push(state);
        }
        let routes = s.routes();
        for f in &mut flows {
            f.ends = [routes.at(f.src as usize), routes.at(f.dst as usize)];
        }
        let (nodes, edges, conditioners) = edge::build(c, &channels, &routes);
        let switches = switch::build(c, &channels, &mut queues, &mut drains);
        // Samples at 0, i, 2i, ... before the end.
        let samples = end.div_ceil(s.sample_interval()) as usize;
        let mut ts = TimeSeries {
            time_s: Vec::with_capacity(samples),
            queues: LongSeries::new(samples),
            flows: LongSeries::new(samples),
        };
        let mut sampled = vec![];
        let ends = s.link_ends();
        for (c, on) in s.sampled_queues(&ends).into_iter().enumerate() {
            if on {
                let metrics = queues[c].metric_names();
                let all: Vec<&'static str> = SAMPLED.iter().chain(metrics).copied().collect();
                sampled.push((c, ts.queues.add(queue_name(s, &channels[c]), &all)));
            }
        }
        let mut traced = vec![];
        for (i, f) in s.flows.iter().enumerate() {
            if f.traced() {
                // The controller's own state after the sender's (none for Reno).
                let own = flows[i]
                    .tcp
                    .as_ref()
                    .map_or(&[][..], |t| t.sender.controller_metric_names());
                let all: Vec<&'static str> = FLOW_METRICS.iter().chain(own).copied().collect();
                traced.push((i, ts.flows.add(f.name.clone(), &all)));
            }
        }
        ts.queues.allocate();
        ts.flows.allocate();
        let mut events = EventQueue::new();
        events.set_large(large_run(&queues, &channels, &flows));
        let hooked = bitset(queues.len(), |q| !queues[q].is_passive());
        let channels_len = channels.len();
        let hosts = bitset(nodes.len(), |n| nodes[n] == Node::Host);
        let routers = bitset(nodes.len(), |n| nodes[n] == Node::Router);
        Simulator {
            scenario: s,
            now: 0,
            end,
            warmup: s.simulation.warmup.0,
            events,
            timers: Timers::default(),
            packets: PacketArena::default(),
            routes,
            nodes,
            edges,
            conditioners,
            switches,
            channels,
            queues,
            hooked,
            hosts,
            routers,
            drains,
            sources,
            flows,
            probes: probe::Probes::new(s),
            scratch: vec![],
            segments: vec![],
            ts,
            sampled,
            traced,
            metric_buf: vec![],
            processed: 0,
            progress: None,
            capture: crate::capture::Captures::new(s, s.captured(&ends), channels_len),
        }
    }

    /// Publishes the simulated time (ns) into `cell` every 65 536 events, so a caller on
    /// another thread can show progress; the engine itself never reads a clock.
    pub fn with_progress(mut self, cell: Arc<AtomicU64>) -> Self {
        self.progress = Some(cell);
        self
    }

    /// Runs as a large run or not whatever the size of its state (`EventQueue::set_large`):
    /// for tests, which check that the choice changes speed only.
    #[doc(hidden)]
    pub fn with_large(mut self, on: bool) -> Self {
        self.events.set_large(on);
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
        for q in 0..self.queues.len() {
            if let Some(t) = self.queues[q].first_timer(0) {
                let owner = TimerOwner::Queue(QueueId(q as u32));
                self.timers.arm(&mut self.events, t, owner);
            }
        }
        if self.warmup > 0 {
            self.events.schedule(self.warmup, Event::WarmupEnd);
        } else {
            self.restart_measurement();
        }
        self.events.schedule(0, Event::Sample);
        if self.events.large() {
            self.event_loop::<true>();
        } else {
            self.event_loop::<false>();
        }
        self.now = self.end;
        self.finish()
    }

    /// The events until the end, for a run that is `LARGE` or not (`EventQueue::set_large`).
    fn event_loop<const LARGE: bool>(&mut self) {
        while let Some((t, ev)) = self.events.pop_as::<LARGE>() {
            if t >= self.end {
                // Keep it for the in-flight census at the end.
                self.events.put_back(t, ev);
                break;
            }
            self.now = t;
            self.processed += 1;
            // The packet a wire delivers next was last touched when it was sent, a round
            // trip's worth of other packets ago: start loading it now.
            if let Some(Event::Arrive { packet, node, .. }) = self.events.peek_as::<LARGE>() {
                crate::mem::prefetch(self.packets.get(packet));
                if LARGE {
                    self.prefetch_endpoint(node as usize, packet);
                }
            }
            if LARGE {
                let a = self.events.lane_ahead();
                if a.far_packet != NO_PACKET {
                    crate::mem::prefetch(self.packets.get(a.far_packet));
                }
                if a.near_packet != NO_PACKET {
                    self.prefetch_hop(a.near_node as usize, a.near_channel, a.near_packet);
                }
            }
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
                Event::Arrive {
                    node,
                    channel,
                    packet,
                } => self.arrive(node as usize, channel, packet),
                Event::Fabric {
                    switch,
                    path,
                    packet,
                } => {
                    if packet == NO_PACKET {
                        self.phase(switch as usize)
                    } else {
                        self.fabric_done(switch, path, packet)
                    }
                }
                Event::Timer { slot, generation } => match self.timers.fire(slot, generation) {
                    Some(TimerOwner::TcpRto(f)) => self.on_rto_timer(f as usize),
                    Some(TimerOwner::TcpDelAck(f)) => self.on_delack_timer(f as usize),
                    Some(TimerOwner::TcpPace(f)) => self.on_pace_timer(f as usize),
                    Some(TimerOwner::Queue(id)) => {
                        let q = &mut self.queues[id.ix()];
                        // A periodic AQM must learn of an idle period before it acts on it
                        // (a switch's input queue is told at once, see sim/switch.rs).
                        let drain = self.drains[id.ix()];
                        if drain != switch::NO_CHANNEL {
                            let ch = &mut self.channels[drain as usize];
                            if let (_, Some(since)) = ch.take_idle(t) {
                                q.on_idle(since);
                            }
                        }
                        if let Some(next) = q.on_timer(t) {
                            let owner = TimerOwner::Queue(id);
                            self.timers.arm(&mut self.events, next, owner);
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
    }

    /// Starts loading what the arrival of `pkt` at `node` will touch, some pops ahead: the
    /// flow's state at a host, the next wire and its queue at a router.
    #[inline]
    fn prefetch_hop(&self, node: usize, channel: u32, pkt: u32) {
        let p = self.packets.get(pkt);
        // What leaves next, and by which wire: at a router, this packet; at a host, the
        // answer (an ACK, or the data an ACK releases) back towards its source.
        let c = if bit(&self.hosts, node) {
            let f = &self.flows[p.flow as usize];
            crate::mem::prefetch(&f.c);
            crate::mem::prefetch(&f.acks);
            // A host on one link answers up that link, the other direction of the one the
            // packet came in on (a link's channels are 2i and 2i + 1): no entry of the
            // routing table is read (the answer's sender takes its own from the flow's
            // line). For a host on several links this is a guess, and a wrong one costs
            // only a line loaded for nothing.
            channel ^ 1
        } else if bit(&self.routers, node) {
            // The destination's entry travels in the packet.
            self.routes.likely_at(node, p.to)
        } else {
            return;
        };
        if c != NO_ROUTE {
            crate::mem::prefetch(&self.channels[c as usize]);
            let q = &self.queues[c as usize];
            q.prefetch_hot();
            // Whether the AQM's line is read, from a bit kept in cache: the port's own flag
            // lies in a line being loaded, and a passive port's AQM line (with its 128-byte
            // neighbour, which the hardware loads too) is cache taken for nothing.
            if bit(&self.hooked, c as usize) {
                q.prefetch_aqm();
            }
        }
    }

    /// The flow's TCP state that the arrival of `pkt` at host `node`, next to be popped,
    /// will update (its flow's line is in cache since `prefetch_hop`).
    #[inline]
    fn prefetch_endpoint(&self, node: usize, pkt: u32) {
        if bit(&self.hosts, node) {
            let p = self.packets.get(pkt);
            if let Some(tcp) = &self.flows[p.flow as usize].tcp {
                if p.is_ack {
                    crate::mem::prefetch(&tcp.sender);
                } else {
                    crate::mem::prefetch(&tcp.receiver);
                }
            }
        }
    }

    #[inline]
    fn on_send(&mut self, i: usize) {
        let now = self.now;
        let Some(src) = &mut self.sources[i] else {
            return self.tcp_start(i);
        };
        let size = src.packet_size();
        let (flow, from, dst, ect, prec) = (src.flow, src.src, src.dst, src.ect, src.precedence);
        let st = &self.flows[flow as usize];
        let (seq, ends) = (st.c.sent_pkts, st.ends);
        let pkt = self.packets.alloc(Packet {
            flow,
            src: from,
            dst,
            size,
            ecn: ect,
            precedence: prec,
            created: now,
            seq,
            udp: true,
            to: ends[1],
            ..Default::default()
        });
        let f = &mut self.flows[flow as usize].c;
        f.sent_pkts += 1;
        f.sent_bytes += size as u64;
        self.probes.sent(flow as usize, seq, now);
        if let Some(t) = self.sources[i].as_mut().and_then(|s| s.next(now)) {
            self.events.schedule(t, Event::Send { source: i as u32 });
        }
        self.forward_from(from as usize, ends[0], pkt);
    }

    /// A packet arrives at a node from one of its input channels.
    #[inline]
    fn arrive(&mut self, node: usize, channel: u32, pkt: u32) {
        // The two common kinds from their bits (see `hosts`), the others from the table.
        if bit(&self.hosts, node) {
            // Routes relay only through routers, so what reaches a host is for it.
            debug_assert_eq!(self.packets.get(pkt).dst as usize, node);
            return self.deliver(pkt);
        }
        if bit(&self.routers, node) {
            return self.forward(node, pkt);
        }
        match self.nodes[node] {
            Node::Host | Node::Router => unreachable!("hosts and routers have their bits"),
            Node::Edge(e) => {
                self.condition(e, channel, pkt);
                self.forward(node, pkt)
            }
            Node::Switch(k) => self.switch_arrive(k, channel, pkt),
        }
    }

    /// Sends a packet on from `node` (its origin, or a router) towards its destination.
    #[inline]
    fn forward(&mut self, node: usize, pkt: u32) {
        self.forward_from(node, self.routes.at(node), pkt)
    }

    /// `forward` from `node`, whose routing entry is `from` (a flow's end keeps its own).
    #[inline]
    fn forward_from(&mut self, node: usize, from: At, pkt: u32) {
        let dst = self.packets.get(pkt).dst as usize;
        if dst == node {
            return self.deliver(pkt);
        }
        // Validation routed every flow (and the way back, links being duplex), so a
        // host on one link sends up it; from the core the packet's own `to` serves.
        let ch = self.routes.first_hop(from, || self.packets.get(pkt).to);
        debug_assert_eq!(ch, self.routes.next_channel(node, dst));
        debug_assert_ne!(ch, NO_ROUTE, "validated scenarios route every flow");
        self.channel_arrive(ch as usize, pkt);
    }

    #[inline]
    fn deliver(&mut self, pkt: u32) {
        let p = self.packets.get(pkt);
        let (flow, size) = (p.flow as usize, p.size as u64);
        if p.is_ack {
            let ack = self.packets.ack(pkt);
            self.packets.free(pkt);
            let f = &mut self.flows[flow];
            f.acks.recv_pkts += 1;
            f.acks.recv_bytes += size;
            return self.tcp_on_ack(flow, &ack);
        }
        if p.udp && self.probes.is_probe(flow) {
            return self.probe_deliver(pkt);
        }
        let (created, seq, ce, cwr) = (p.created, p.seq, p.ecn == Ecn::Ce, p.cwr);
        self.packets.free(pkt);
        let delay = self.now - created;
        let f = &mut self.flows[flow];
        f.c.recv_pkts += 1;
        f.c.recv_bytes += size;
        f.c.delay_sum_ns += delay as u128;
        f.delay_max_ns = f.delay_max_ns.max(delay);
        if f.tcp.is_some() {
            self.tcp_on_data(flow, seq, ce, cwr);
        }
    }

    #[inline]
    fn missing(&mut self, p: &Packet) -> &mut Missing {
        self.probes.missing(p);
        // A packet towards the flow's source is an ACK or a probe's reply.
        let f = &mut self.flows[p.flow as usize];
        &mut f.missing[usize::from(p.dst == f.src)]
    }

    #[inline]
    fn drop_packet(&mut self, pkt: u32) {
        let p = *self.packets.get(pkt);
        let in_window = p.created >= self.warmup;
        let c = self.missing(&p);
        c.dropped_pkts += 1;
        c.window_losses += u64::from(in_window);
        self.packets.free(pkt);
    }

    // --- TCP: the pure sender/receiver state machines, wired to packets and timers -------

    #[inline]
    fn channel_arrive(&mut self, c: usize, pkt: u32) {
        let now = self.now;
        let ch = &mut self.channels[c];
        // Channel c's queue is queue c: known without the channel, so the channel's line and
        // the queue's load side by side instead of one after the other (cold at scale).
        let id = QueueId(c as u32);
        let q = &mut self.queues[id.ix()];
        let (idle, since) = ch.take_idle(now);
        if let Some(since) = since {
            q.on_idle(since);
        }
        let admission = q.arrive(pkt, &mut self.packets, now);
        if q.has_evicted() {
            self.drop_evicted(id);
        }
        let ch = &mut self.channels[c];
        match admission {
            Admission::Dropped(_) => self.drop_packet(pkt),
            Admission::Enqueued if self.queues[id.ix()].is_empty() => {}
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
    fn drop_evicted(&mut self, q: QueueId) {
        let mut ev = std::mem::take(&mut self.queues[q.ix()].evicted);
        for d in ev.drain(..) {
            self.drop_packet(d);
        }
        self.queues[q.ix()].evicted = ev;
    }

    #[inline]
    fn start_tx(&mut self, c: usize) {
        let now = self.now;
        let mut dropped = std::mem::take(&mut self.scratch);
        let q = QueueId(c as u32); // see `channel_arrive`
        let next = self.queues[q.ix()].dequeue(&mut self.packets, now, &mut dropped);
        for d in dropped.drain(..) {
            self.drop_packet(d);
        }
        self.scratch = dropped;
        let Some(pkt) = next else { return };
        if self.capture.is_some() {
            self.capture_tx(c, pkt);
        }
        let ch = &mut self.channels[c];
        let queue = &mut self.queues[q.ix()];
        let tx = tx_time(self.packets.get(pkt).size, ch.bps);
        ch.busy_until = now + tx;
        ch.active = true;
        // Utilisation counts only transmission time inside [warm-up, end).
        let lo = now.max(self.warmup);
        let hi = ch.busy_until.min(self.end);
        if hi > lo {
            queue.busy_ns += hi - lo;
        }
        let more = !queue.is_empty();
        let fate = ch.fate(!self.packets.get(pkt).is_ack);
        if fate == Fate::Mark && self.packets.get(pkt).ecn.is_ect() {
            self.packets.get_mut(pkt).ecn = Ecn::Ce;
        }
        if fate == Fate::Lose {
            let p = *self.packets.get(pkt);
            let in_window = p.created >= self.warmup;
            let c = self.missing(&p);
            c.lost_pkts += 1;
            c.window_losses += u64::from(in_window);
            self.packets.free(pkt);
        } else {
            self.events
                .schedule_arrival(ch.busy_until + ch.delay, ch.to, c as u32, pkt, more);
        }
        if more {
            let ch = &mut self.channels[c];
            ch.txend_pending = true;
            self.events
                .schedule(ch.busy_until, Event::TxEnd { channel: c as u32 });
        }
    }
}

pub fn link_name(s: &Scenario, i: usize) -> String {
    let l = &s.links[i];
    l.name.clone().unwrap_or_else(|| format!("{}-{}", l.a, l.b))
}

fn queue_name(s: &Scenario, ch: &Channel) -> String {
    let (from, to) = (
        &s.nodes[ch.from as usize].name,
        &s.nodes[ch.to as usize].name,
    );
    let mut name = String::with_capacity(from.len() + 2 + to.len());
    name.push_str(from);
    name.push_str("->");
    name.push_str(to);
    name
}

/// Validates and runs a scenario.
pub fn run(s: &Scenario) -> Result<RunResults, SimError> {
    Simulator::new(&s.validate()?).run()
}

/// Reason names in the order of `QueueSummary::dropped` and `marked`.
pub fn reason_names() -> [&'static str; NUM_REASONS] {
    Reason::ALL.map(|r| r.name())
}
