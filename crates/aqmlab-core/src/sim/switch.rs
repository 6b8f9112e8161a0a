//! CIOQ switches (docs/switch/switch.md): input queues (VOQs or one FIFO per input), a
//! fabric, and the ports' output queues, which are the ordinary queues of the channels
//! leaving the switch (any AQM, statistics in the `queues` table).
//!
//! The input queues are `OutputQueue`s with ids of their own and no channel
//! (`drains[q] = NO_CHANNEL`): the fabric drains them. The switch keeps, per output j, the
//! packets waiting for j at all inputs (q_input(j)) in the output queue's
//! `QueueView::upstream`, for CIOQ-RED.
//!
//! Fabric "links" (the CIOQ paper's Sec. V-A model): path (i, j) is an internal link of
//! rate s·R/n; all n² transfer at once; a packet whose transfer ends is offered to output
//! queue j. With FIFO inputs the head-of-line packet starts as soon as its own path is
//! free, and while that path is busy it blocks everything behind it.

use super::crossbar::Crossbar;
use super::measure::queue_sample;
use super::*;
use crate::aqm::Backlog;
use crate::record::TimeWeighted;
use crate::scenario::switch::{port_links, FabricSpec, InputBuffer, Inputs};
use crate::table::Column;

/// `drains` of an input queue: it feeds the fabric, not a channel.
pub(super) const NO_CHANNEL: u32 = u32::MAX;
const NO_PORT: u16 = u16::MAX;

pub(super) struct Port {
    /// The channel arriving on this port, and the one leaving it (its output queue).
    out_ch: u32,
    neighbour: u32,
}

pub(super) struct Switch {
    /// The crossbar fabric's state (None: the links fabric).
    pub(super) crossbar: Option<Box<Crossbar>>,
    pub(super) node: u32,
    pub(super) n: usize,
    pub(super) ports: Vec<Port>,
    pub(super) fifo: bool,
    /// The limit an input's VOQs share (`input_buffer = "per_port"`).
    pub(super) shared: Option<Limit>,
    /// Input queue k (i·n + j for VOQs, i for FIFOs) is `QueueId(first + k)`.
    pub(super) first: u32,
    /// Per input port: what waits in its queues, and its time average.
    pub(super) in_backlog: Vec<Backlog>,
    pub(super) in_level: Vec<TimeWeighted>,
    /// Per output: what waits at the inputs for it (q_input(j)).
    pub(super) q_in: Vec<Backlog>,
    /// Per input queue: its packets crossing the fabric now.
    pub(super) crossing: Vec<u32>,
    /// Per FIFO input: a packet taken off the FIFO whose path was busy. Only after the
    /// input's AQM dropped the head at dequeue (CoDel) can the next packet find its path
    /// busy; it waits here, in the fabric, for its path.
    pub(super) held: Vec<Option<u32>>,
    /// Per path i·n + j: a transfer is in progress.
    pub(super) busy: Vec<bool>,
    /// Rate of one path (links fabric), bits/s.
    pub(super) path_bps: u64,
    /// Per output: fabric time used inside the measurement window (summed over its paths),
    /// and the packets and bytes it delivered (totals, and at the warm-up).
    pub(super) out_busy_ns: Vec<u64>,
    pub(super) delivered: Vec<[u64; 2]>,
    pub(super) delivered_at_warmup: Vec<[u64; 2]>,
    /// `trace_inputs`: each input queue's `SAMPLED` columns at every sample, appended
    /// sample by sample (queue k of sample t at `(t · queues + k) · SAMPLED.len()`).
    pub(super) trace: Option<Vec<f64>>,
}

/// The switches of a run, and each channel's port at its switch ends.
#[derive(Default)]
pub(super) struct Switches {
    pub(super) list: Vec<Switch>,
    /// The port index of each channel at its `to` end, and at its `from` end (NO_PORT where
    /// that end is not a switch).
    in_port: Vec<u16>,
    out_port: Vec<u16>,
}

/// Builds the switches of a validated scenario, in node order (`Node::Switch(k)` is the
/// k-th), adding their input queues to `queues`.
pub(super) fn build(
    c: &Checked,
    channels: &[Channel],
    queues: &mut Vec<OutputQueue>,
    drains: &mut Vec<u32>,
) -> Switches {
    let s = c.scenario;
    let names = s.names();
    let mut out = Switches {
        list: vec![],
        in_port: vec![NO_PORT; channels.len()],
        out_port: vec![NO_PORT; channels.len()],
    };
    for (node, spec) in s.nodes.iter().enumerate() {
        let Some(sw) = &spec.switch else { continue };
        let links = port_links(s, &spec.name);
        let n = links.len();
        let mut ports = vec![];
        for (p, &l) in links.iter().enumerate() {
            // Channel 2l runs a → b, 2l + 1 runs b → a.
            let (into, from) = if c.link_ends[l].1 as usize == node {
                (2 * l, 2 * l + 1)
            } else {
                (2 * l + 1, 2 * l)
            };
            debug_assert_eq!(channels[into].to as usize, node);
            out.in_port[into] = p as u16;
            out.out_port[from] = p as u16;
            ports.push(Port {
                out_ch: from as u32,
                neighbour: channels[from].to,
            });
        }
        let r = s.links[links[0]].bandwidth.0;
        let path_bps = sw.drain_bps(r, n);
        // This switch's: `out.list` holds those before it in node order.
        let limit = c.input_limits[out.list.len()];
        let fifo = sw.inputs == Inputs::Fifo;
        let first = queues.len() as u32;
        let count = if fifo { n } else { n * n };
        for k in 0..count {
            let path = if fifo {
                format!("nodes/{}/inputs/{k}/aqm", spec.name)
            } else {
                format!("nodes/{}/voqs/{}/{}/aqm", spec.name, k / n, k % n)
            };
            let rng = Rng::for_component(s.simulation.seed, s.simulation.run, &path);
            queues.push(build_queue(&sw.input_queue, limit, path_bps, &names, rng));
            drains.push(NO_CHANNEL);
        }
        let crossbar = match &sw.fabric {
            FabricSpec::Links => None,
            FabricSpec::Crossbar { scheduler, cell } => {
                let path = format!("nodes/{}/fabric", spec.name);
                let rng = Rng::for_component(s.simulation.seed, s.simulation.run, &path);
                let x = Crossbar::new(scheduler, n, cell.0 as u32, path_bps, rng);
                Some(Box::new(x))
            }
        };
        out.list.push(Switch {
            crossbar,
            node: node as u32,
            n,
            ports,
            fifo,
            shared: (sw.input_buffer == InputBuffer::PerPort).then_some(limit),
            first,
            in_backlog: vec![Backlog::default(); n],
            in_level: vec![TimeWeighted::default(); n],
            q_in: vec![Backlog::default(); n],
            crossing: vec![0; count],
            held: vec![None; n],
            busy: vec![false; n * n],
            path_bps,
            out_busy_ns: vec![0; n],
            delivered: vec![[0; 2]; n],
            delivered_at_warmup: vec![[0; 2]; n],
            trace: (sw.trace_inputs == Some(true)).then(Vec::new),
        });
    }
    out
}

/// Whether a shared buffer holding `b` takes `size` more bytes.
fn fits(b: Backlog, size: u32, limit: Limit) -> bool {
    match limit {
        Limit::Packets(l) => b.pkts < l,
        Limit::Bytes(l) => b.bytes + size as u64 <= l,
    }
}

impl Switch {
    #[inline]
    pub(super) fn local(&self, i: usize, j: usize) -> usize {
        if self.fifo {
            i
        } else {
            i * self.n + j
        }
    }
    #[inline]
    pub(super) fn queue(&self, i: usize, j: usize) -> QueueId {
        QueueId(self.first + self.local(i, j) as u32)
    }
}

impl Simulator<'_> {
    /// The output port of switch `k` towards a packet's destination.
    #[inline]
    pub(super) fn out_port(&self, k: usize, pkt: u32) -> usize {
        let node = self.switches.list[k].node as usize;
        let ch = self
            .routes
            .next_channel(node, self.packets.get(pkt).dst as usize);
        debug_assert_ne!(ch, NO_ROUTE, "validated scenarios route every flow");
        self.switches.out_port[ch as usize] as usize
    }

    /// A packet arrives at switch `k` on `channel`: into the input queue for its output.
    #[inline(never)]
    pub(super) fn switch_arrive(&mut self, k: u32, channel: u32, pkt: u32) {
        let (k, now) = (k as usize, self.now);
        let i = self.switches.in_port[channel as usize] as usize;
        let j = self.out_port(k, pkt);
        let sw = &self.switches.list[k];
        let id = sw.queue(i, j);
        let size = self.packets.get(pkt).size;
        let room = sw.shared.map(|l| fits(sw.in_backlog[i], size, l));
        let q = &mut self.queues[id.ix()];
        let admission = match room {
            None => q.arrive(pkt, &mut self.packets, now),
            Some(room) => q.arrive_shared(pkt, &mut self.packets, now, room),
        };
        if let Admission::Dropped(_) = admission {
            return self.drop_packet(pkt);
        }
        self.input_change(k, i, j, size, true);
        if self.queues[id.ix()].has_evicted() {
            // A flow-queue VOQ (i, j) dropped from inside: all of them were bound for j.
            let mut ev = std::mem::take(&mut self.queues[id.ix()].evicted);
            for d in ev.drain(..) {
                let size = self.packets.get(d).size;
                self.input_change(k, i, j, size, false);
                self.drop_packet(d);
            }
            self.queues[id.ix()].evicted = ev;
        }
        self.serve_input(k, i, j);
    }

    /// A packet of `size` bytes bound for output j joins (or leaves) input i's queues.
    #[inline]
    fn input_change(&mut self, k: usize, i: usize, j: usize, size: u32, joins: bool) {
        let now = self.now;
        let sw = &mut self.switches.list[k];
        let b = &mut sw.in_backlog[i];
        sw.in_level[i].touch(now, b.pkts, b.bytes);
        let q = &mut sw.q_in[j];
        if joins {
            b.pkts += 1;
            b.bytes += size as u64;
            q.pkts += 1;
            q.bytes += size as u64;
        } else {
            b.pkts -= 1;
            b.bytes -= size as u64;
            q.pkts -= 1;
            q.bytes -= size as u64;
        }
        // Channel c's queue is queue c (`Simulator::new`).
        let (up, out) = (*q, sw.ports[j].out_ch as usize);
        self.queues[out].set_upstream(up);
    }

    /// Starts what input queue (i, j) (or FIFO i) can send now.
    fn serve_input(&mut self, k: usize, i: usize, j: usize) {
        if let Some(x) = &self.switches.list[k].crossbar {
            if !x.in_busy[i] {
                self.request_phase(k);
            }
        } else if self.switches.list[k].fifo {
            self.serve_fifo(k, i)
        } else if !self.switches.list[k].busy[i * self.switches.list[k].n + j] {
            self.serve_voq(k, i, j)
        }
    }

    /// Takes the next packet of an input queue, freeing those its AQM drops at dequeue.
    pub(super) fn take_input(&mut self, k: usize, i: usize, id: QueueId) -> Option<u32> {
        let now = self.now;
        let mut dropped = std::mem::take(&mut self.scratch);
        let next = self.queues[id.ix()].dequeue(&mut self.packets, now, &mut dropped);
        for d in dropped.drain(..) {
            let (size, j) = (self.packets.get(d).size, self.out_port(k, d));
            self.input_change(k, i, j, size, false);
            self.drop_packet(d);
        }
        self.scratch = dropped;
        let p = next?;
        let (size, j) = (self.packets.get(p).size, self.out_port(k, p));
        self.input_change(k, i, j, size, false);
        Some(p)
    }

    /// VOQ (i, j), whose path is free: its head starts across.
    fn serve_voq(&mut self, k: usize, i: usize, j: usize) {
        let id = self.switches.list[k].queue(i, j);
        match self.take_input(k, i, id) {
            Some(p) => self.begin_transfer(k, i, j, p),
            None => self.maybe_idle(k, i, j),
        }
    }

    /// FIFO input i: head-of-line packets start while their paths are free; the first whose
    /// path is busy blocks the rest.
    fn serve_fifo(&mut self, k: usize, i: usize) {
        let id = self.switches.list[k].queue(i, 0);
        loop {
            let sw = &self.switches.list[k];
            let n = sw.n;
            if let Some(p) = sw.held[i] {
                let j = self.out_port(k, p);
                if self.switches.list[k].busy[i * n + j] {
                    return;
                }
                self.switches.list[k].held[i] = None;
                self.begin_transfer(k, i, j, p);
                continue;
            }
            let Some(h) = self.queues[id.ix()].head() else {
                return self.maybe_idle(k, i, 0);
            };
            if self.switches.list[k].busy[i * n + self.out_port(k, h)] {
                return;
            }
            if let Some(p) = self.take_input(k, i, id) {
                let j = self.out_port(k, p);
                if self.switches.list[k].busy[i * n + j] {
                    self.switches.list[k].held[i] = Some(p);
                    return;
                }
                self.begin_transfer(k, i, j, p);
            }
        }
    }

    /// An input queue with nothing waiting and nothing crossing: its AQM learns it is idle.
    pub(super) fn maybe_idle(&mut self, k: usize, i: usize, j: usize) {
        let sw = &self.switches.list[k];
        let l = sw.local(i, j);
        let id = sw.queue(i, j);
        if sw.crossing[l] == 0
            && (!sw.fifo || sw.held[i].is_none())
            && self.queues[id.ix()].is_empty()
        {
            self.queues[id.ix()].on_idle(self.now);
        }
    }

    /// Packet `p` of input i starts over path (i, j).
    fn begin_transfer(&mut self, k: usize, i: usize, j: usize, p: u32) {
        let (now, warmup, end) = (self.now, self.warmup, self.end);
        let size = self.packets.get(p).size;
        let sw = &mut self.switches.list[k];
        let path = i * sw.n + j;
        let l = sw.local(i, j);
        sw.busy[path] = true;
        sw.crossing[l] += 1;
        let done = now + tx_time(size, sw.path_bps);
        sw.out_busy_ns[j] += in_window(now, done, warmup, end);
        self.events.schedule(
            done,
            Event::Fabric {
                switch: k as u32,
                path: path as u32,
                packet: p,
            },
        );
    }

    /// Packet `p` has crossed path `path`: it is offered to the output queue, and the
    /// input sends what it can next.
    pub(super) fn fabric_done(&mut self, k: u32, path: u32, p: u32) {
        let k = k as usize;
        let sw = &mut self.switches.list[k];
        let (i, j) = (path as usize / sw.n, path as usize % sw.n);
        sw.busy[path as usize] = false;
        let l = sw.local(i, j);
        sw.crossing[l] -= 1;
        sw.delivered[j][0] += 1;
        sw.delivered[j][1] += self.packets.get(p).size as u64;
        let out = sw.ports[j].out_ch as usize;
        let crossbar = sw.crossbar.is_some();
        self.channel_arrive(out, p);
        if crossbar {
            self.crossbar_done(k, i, j);
        } else {
            self.serve_input(k, i, j);
        }
    }

    /// One time-series sample of every traced switch's input queues.
    pub(super) fn sample_switch_inputs(&mut self) {
        let now = self.now;
        for sw in &mut self.switches.list {
            if let Some(trace) = &mut sw.trace {
                let count = sw.crossing.len() as u32;
                for q in sw.first..sw.first + count {
                    trace.extend(queue_sample(&self.queues[q as usize], now));
                }
            }
        }
    }

    pub(super) fn switches_restart(&mut self) {
        let now = self.now;
        for sw in &mut self.switches.list {
            for (lv, b) in sw.in_level.iter_mut().zip(&sw.in_backlog) {
                lv.touch(now, b.pkts, b.bytes);
                lv.restart(now);
            }
            sw.delivered_at_warmup.clone_from(&sw.delivered);
            if let Some(x) = sw.crossbar.as_deref_mut() {
                x.stats_at_warmup = x.stats;
            }
            let count = sw.crossing.len() as u32;
            for q in sw.first..sw.first + count {
                self.queues[q as usize].restart_measurement(now);
            }
        }
    }

    /// Closes the input ports' time integrals at the end of the run.
    pub(super) fn switches_finish(&mut self) {
        let now = self.now;
        for sw in &mut self.switches.list {
            for (lv, b) in sw.in_level.iter_mut().zip(&sw.in_backlog) {
                lv.touch(now, b.pkts, b.bytes);
            }
        }
    }

    /// Every input queue's identities, the switch's own bookkeeping against the queues, and
    /// the packets it holds: (crossing the fabric, held).
    pub(super) fn switches_check(&self) -> Result<u64, String> {
        let mut held = 0;
        for sw in &self.switches.list {
            let name = &self.scenario.nodes[sw.node as usize].name;
            let mut per_in = vec![0u32; sw.n];
            for (l, _) in sw.crossing.iter().enumerate() {
                let q = &self.queues[sw.first as usize + l];
                let (i, j) = if sw.fifo {
                    (l, None)
                } else {
                    (l / sw.n, Some(l % sw.n))
                };
                let label = match j {
                    Some(j) => format!("switch {name} voq {i}->{j}"),
                    None => format!("switch {name} input {i}"),
                };
                q.check_conservation(&self.packets)
                    .map_err(|e| format!("{label}: {e}"))?;
                per_in[i] += q.len_pkts();
            }
            for (i, &n) in per_in.iter().enumerate() {
                if sw.in_backlog[i].pkts != n {
                    return Err(format!(
                        "switch {name} input {i}: backlog {} != {n} packets in its queues",
                        sw.in_backlog[i].pkts
                    ));
                }
            }
            let sum_q_in: u32 = sw.q_in.iter().map(|b| b.pkts).sum();
            if sum_q_in != per_in.iter().sum::<u32>() {
                return Err(format!("switch {name}: q_input sums to {sum_q_in}"));
            }
            held += sw.held.iter().flatten().count() as u64;
        }
        Ok(held)
    }
}

/// The switch result tables (docs/switch/switch.md lists the columns).
pub(super) fn tables(sim: &Simulator, t: f64) -> Vec<Table> {
    if sim.switches.list.is_empty() {
        return vec![];
    }
    let s = sim.scenario;
    let name = |n: u32| s.nodes[n as usize].name.clone();
    let window_ns = (sim.end - sim.warmup) as f64;
    let mut ports = Table::new("switch_ports");
    let mut voqs = Table::new("switch_voqs");
    let mut fabric = Table::new("switch_fabric");
    type Row = (String, u64, String, String, [f64; 4], [u64; 5]);
    let (mut prow, mut vrow, mut frow): (Vec<Row>, Vec<Row>, Vec<Row>) = (vec![], vec![], vec![]);
    let mut fkind = vec![];
    for sw in &sim.switches.list {
        let sname = name(sw.node);
        for (i, port) in sw.ports.iter().enumerate() {
            let count = if sw.fifo { 1 } else { sw.n };
            let mut c = [0u64; 5];
            for j in 0..count {
                let q = &sim.queues[sw.first as usize + if sw.fifo { i } else { i * sw.n + j }];
                let d = q.counters.minus(&q.at_warmup);
                let row = [
                    d.arrivals,
                    d.enqueued,
                    d.dequeued,
                    d.total_dropped(),
                    d.dropped[Reason::Overflow as usize],
                ];
                for (x, y) in c.iter_mut().zip(row) {
                    *x += y;
                }
                if !sw.fifo {
                    let so = q.sojourn();
                    vrow.push((
                        sname.clone(),
                        i as u64,
                        name(port.neighbour),
                        name(sw.ports[j].neighbour),
                        [
                            q.level.mean_pkts(),
                            q.level.max_pkts as f64,
                            j as f64,
                            so.mean() / 1e9,
                        ],
                        row,
                    ));
                }
            }
            let lv = &sw.in_level[i];
            let out = queue_name(s, &sim.channels[port.out_ch as usize]);
            prow.push((
                sname.clone(),
                i as u64,
                name(port.neighbour),
                out.clone(),
                [lv.mean_pkts(), lv.max_pkts as f64, lv.mean_bytes(), 0.0],
                c,
            ));
            let (fabric_kind, div, xs) = match sw.crossbar.as_deref() {
                None => ("links", sw.n as f64, [f64::NAN; 3]),
                Some(x) => {
                    let d: Vec<f64> = (0..3)
                        .map(|c| (x.stats[c] - x.stats_at_warmup[c]) as f64)
                        .collect();
                    ("crossbar", 1.0, [d[0], d[1] / d[0], d[2] / d[0]])
                }
            };
            fkind.push(fabric_kind.to_string());
            let del = sw.delivered[i];
            let at = sw.delivered_at_warmup[i];
            let bytes = del[1] - at[1];
            frow.push((
                sname.clone(),
                i as u64,
                name(port.neighbour),
                out,
                [
                    sw.out_busy_ns[i] as f64 / (div * window_ns),
                    bytes as f64 * 8.0 / t,
                    xs[1],
                    xs[2],
                ],
                [del[0] - at[0], bytes, xs[0] as u64, 0, 0],
            ));
        }
    }
    ports
        .column_of("switch", &prow, |r| r.0.clone())
        .column_of("port", &prow, |r| r.1)
        .column_of("neighbour", &prow, |r| r.2.clone())
        .column_of("output_queue", &prow, |r| r.3.clone())
        .column_of("input_mean_queue_pkts", &prow, |r| r.4[0])
        .column_of("input_max_queue_pkts", &prow, |r| r.4[1] as u64)
        .column_of("input_mean_queue_bytes", &prow, |r| r.4[2])
        .column_of("input_arrivals", &prow, |r| r.5[0])
        .column_of("input_enqueued", &prow, |r| r.5[1])
        .column_of("input_dequeued", &prow, |r| r.5[2])
        .column_of("input_dropped", &prow, |r| r.5[3])
        .column_of("input_dropped_overflow", &prow, |r| r.5[4]);
    voqs.column_of("switch", &vrow, |r| r.0.clone())
        .column_of("input", &vrow, |r| r.1)
        .column_of("output", &vrow, |r| r.4[2] as u64)
        .column_of("from", &vrow, |r| r.2.clone())
        .column_of("to", &vrow, |r| r.3.clone())
        .column_of("arrivals", &vrow, |r| r.5[0])
        .column_of("enqueued", &vrow, |r| r.5[1])
        .column_of("dequeued", &vrow, |r| r.5[2])
        .column_of("dropped", &vrow, |r| r.5[3])
        .column_of("dropped_overflow", &vrow, |r| r.5[4])
        .column_of("mean_queue_pkts", &vrow, |r| r.4[0])
        .column_of("max_queue_pkts", &vrow, |r| r.4[1] as u64)
        .column_of("mean_sojourn_s", &vrow, |r| r.4[3]);
    fabric
        .column_of("switch", &frow, |r| r.0.clone())
        .column_of("output", &frow, |r| r.1)
        .column_of("neighbour", &frow, |r| r.2.clone())
        .column_of("output_queue", &frow, |r| r.3.clone())
        .push("fabric", Column::Str(fkind))
        .column_of("delivered_pkts", &frow, |r| r.5[0])
        .column_of("delivered_bytes", &frow, |r| r.5[1])
        .column_of("throughput_bps", &frow, |r| r.4[1])
        .column_of("utilization", &frow, |r| r.4[0])
        .column_of("phases", &frow, |r| r.5[2])
        .column_of("mean_iterations", &frow, |r| r.4[2])
        .column_of("mean_match_size", &frow, |r| r.4[3]);
    let mut out = vec![ports];
    if !voqs.is_empty() {
        out.push(voqs);
    }
    out.push(fabric);
    if sim.switches.list.iter().any(|sw| sw.trace.is_some()) {
        out.push(input_timeseries(sim));
    }
    out
}

/// `switch_input_timeseries`: one row per (traced switch, input queue, sample time), queues
/// in switch then queue order (VOQ (i, j) at i·n + j), then `time_s` ascending, as the
/// `timeseries` table orders its queues.
fn input_timeseries(sim: &Simulator) -> Table {
    let s = sim.scenario;
    let name = |n: u32| s.nodes[n as usize].name.clone();
    let time_s = &sim.ts.time_s;
    let samples = time_s.len();
    let (mut sw_col, mut input, mut from, mut to) = (vec![], vec![], vec![], vec![]);
    let mut cols: Vec<Vec<f64>> = vec![vec![]; SAMPLED.len()];
    let mut times = vec![];
    for sw in &sim.switches.list {
        let Some(trace) = &sw.trace else { continue };
        let count = sw.crossing.len();
        debug_assert_eq!(trace.len(), samples * count * SAMPLED.len());
        for k in 0..count {
            let (i, j) = if sw.fifo {
                (k, None)
            } else {
                (k / sw.n, Some(k % sw.n))
            };
            sw_col.extend(std::iter::repeat_n(name(sw.node), samples));
            input.extend(std::iter::repeat_n(i as u64, samples));
            from.extend(std::iter::repeat_n(name(sw.ports[i].neighbour), samples));
            let dest = j.map_or_else(|| "*".to_string(), |j| name(sw.ports[j].neighbour));
            to.extend(std::iter::repeat_n(dest, samples));
            times.extend_from_slice(time_s);
            for t in 0..samples {
                let at = (t * count + k) * SAMPLED.len();
                for (c, col) in cols.iter_mut().enumerate() {
                    col.push(trace[at + c]);
                }
            }
        }
    }
    let mut t = Table::new("switch_input_timeseries");
    t.push("time_s", Column::F64(times))
        .push("switch", Column::Str(sw_col))
        .push("input", Column::U64(input))
        .push("from", Column::Str(from))
        .push("to", Column::Str(to));
    for (metric, col) in SAMPLED.iter().zip(cols) {
        t.push(*metric, Column::F64(col));
    }
    t
}
