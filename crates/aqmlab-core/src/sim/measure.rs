//! Measurement: the warm-up restart, time-series samples, the conservation identities
//! checked at the end, and the summaries and tables a run returns.

use super::*;

/// A queue's columns at one sample, in `SAMPLED` order.
///
/// A queue that never dropped nor marked has those counters at zero: they are not read
/// (two lines of their own, out of cache at scale, at every sample of every queue).
pub(super) fn queue_sample(q: &OutputQueue, now: Time) -> [f64; SAMPLED.len()] {
    let c = &q.counters;
    let (dropped, overflow, marked) = if q.dropped_or_marked() {
        (
            c.dropped.iter().sum::<u64>(),
            c.dropped[Reason::Overflow as usize],
            c.marked.iter().sum::<u64>(),
        )
    } else {
        debug_assert!(c.dropped.iter().chain(&c.marked).all(|&k| k == 0));
        (0, 0, 0)
    };
    [
        q.len_pkts() as f64,
        q.len_bytes() as f64,
        c.arrivals as f64,
        dropped as f64,
        overflow as f64,
        marked as f64,
        c.dequeued_bytes as f64,
        q.area_pkt_s(now),
    ]
}

impl Simulator<'_> {
    pub(super) fn restart_measurement(&mut self) {
        let now = self.now;
        for (c, ch) in self.channels.iter_mut().enumerate() {
            let q = &mut self.queues[c];
            q.restart_measurement(now);
            q.busy_ns = 0;
            // A transmission straddling the warm-up counts from the warm-up on.
            if ch.busy_until > now {
                q.busy_ns = ch.busy_until.min(self.end) - now;
            }
            ch.restart_measurement();
        }
        for c in &mut self.conditioners {
            c.restart_measurement();
        }
        self.switches_restart();
        for f in &mut self.flows {
            f.at_warmup = [f.counters(false), f.counters(true)];
            f.delay_max_ns = 0;
            if let Some(t) = &mut f.tcp {
                t.stats_at_warmup = t.sender.stats;
                t.delivered_at_warmup = t.receiver.delivered;
                t.ce_at_warmup = t.receiver.ce_received;
            }
        }
    }

    pub(super) fn on_sample(&mut self) {
        let now = self.now;
        let k = self.ts.time_s.len();
        self.ts.time_s.push(secs(now));
        for &(c, e) in &self.sampled {
            let q = &self.queues[c];
            let buf = &mut self.metric_buf;
            buf.clear();
            buf.extend(queue_sample(q, now));
            if q.has_metrics() {
                let names = q.metric_names();
                buf.resize(SAMPLED.len() + names.len(), f64::NAN);
                q.metrics(now, &mut buf[SAMPLED.len()..]);
            }
            self.ts.queues.record(e, k, buf);
        }
        for &(f, e) in &self.traced {
            if let Some(tcp) = &self.flows[f].tcp {
                let s = &tcp.sender;
                let delivered = tcp.receiver.delivered as f64;
                let values = [s.cwnd, s.ssthresh, s.srtt_s(), delivered, s.cwnd_base()];
                let buf = &mut self.metric_buf;
                buf.clear();
                buf.extend(values);
                let own = s.controller_metric_names().len();
                if own > 0 {
                    buf.resize(values.len() + own, f64::NAN);
                    s.controller_metrics(&mut buf[values.len()..]);
                }
                self.ts.flows.record(e, k, buf);
            }
        }
        self.sample_switch_inputs();
        let next = now + self.scenario.sample_interval();
        if next < self.end {
            self.events.schedule(next, Event::Sample);
        }
    }

    pub(super) fn check_conservation(&self) -> Result<(), SimError> {
        let fail = |m: String| Err(SimError::Conservation(m));
        for (c, ch) in self.channels.iter().enumerate() {
            if let Err(e) = self.queues[c].check_conservation(&self.packets) {
                return fail(format!("queue {}: {e}", queue_name(self.scenario, ch)));
            }
        }
        let held = self.switches_check().map_err(SimError::Conservation)?;
        // Every live packet is either waiting in a queue, on a wire (a pending Arrive) or
        // in a switch's fabric (a pending Fabric with a packet, or held for its path).
        // In flight per flow: [data, acks].
        let mut in_flight = vec![[0u64; 2]; self.flows.len()];
        for p in self.packets.live() {
            let back = p.dst == self.flows[p.flow as usize].src;
            in_flight[p.flow as usize][back as usize] += 1;
        }
        let live: u64 = in_flight.iter().map(|x| x[0] + x[1]).sum();
        let waiting: u64 = self.queues.iter().map(|q| q.len_pkts() as u64).sum();
        let on_wire = self.events.count(|e| matches!(e, Event::Arrive { .. })) as u64;
        let in_fabric = held
            + self
                .events
                .count(|e| matches!(e, Event::Fabric { packet, .. } if *packet != NO_PACKET))
                as u64;
        if live != waiting + on_wire + in_fabric {
            return fail(format!(
                "{live} live packets != {waiting} waiting + {on_wire} on the wire + {in_fabric} in switch fabrics"
            ));
        }
        let mut sent = 0;
        for (i, f) in self.flows.iter().enumerate() {
            for (k, what) in ["data", "ack"].into_iter().enumerate() {
                let c = f.counters(k == 1);
                sent += c.passed.sent_pkts;
                let rhs = c.passed.recv_pkts
                    + c.missing.dropped_pkts
                    + c.missing.lost_pkts
                    + in_flight[i][k];
                if c.passed.sent_pkts != rhs {
                    return fail(format!(
                        "flow {} ({what} packets): sent {} != received {} + dropped {} + lost {} + in flight {}",
                        self.scenario.flows[i].name,
                        c.passed.sent_pkts,
                        c.passed.recv_pkts,
                        c.missing.dropped_pkts,
                        c.missing.lost_pkts,
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

    /// Channel `c` starts to transmit `pkt`: into its capture, if it has one. Out of line,
    /// so that `start_tx` keeps no more state across it than across the dequeue before it.
    #[cold]
    #[inline(never)]
    pub(super) fn capture_tx(&mut self, c: usize, pkt: u32) {
        if let Some(cap) = &mut self.capture {
            cap.on_tx(c, self.now, pkt, &self.packets);
        }
    }

    pub(super) fn finish(mut self) -> Result<RunResults, SimError> {
        let end = self.end;
        for q in &mut self.queues {
            q.finish(end);
        }
        self.switches_finish();
        self.check_conservation()?;
        // The packets and the pending events are done with. Freed now, their memory, in
        // use and so already mapped, takes the summaries below; memory first touched costs
        // ~2 ms per MB on this machine (26 MB of queue summaries at 10 000 flows: 55 ms).
        let packets = self.packets.created();
        drop(std::mem::take(&mut self.packets));
        drop(std::mem::take(&mut self.events));
        assert_eq!(
            self.ts.time_s.len(),
            self.ts.queues.samples(),
            "samples taken and foreseen"
        );
        let s = self.scenario;
        let t = secs(end - self.warmup);
        let queues = self
            .channels
            .iter()
            .enumerate()
            .map(|(c, ch)| {
                let q = &self.queues[c];
                let c = q.counters.minus(&q.at_warmup);
                let lw = &q.level;
                let so: &LogHistogram = q.sojourn();
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
                    by_colour: c.by_colour(),
                    lost_on_link: ch.lost_since_warmup(),
                    mean_queue_pkts: lw.mean_pkts(),
                    mean_queue_at_arrival_pkts: if c.arrivals == 0 {
                        f64::NAN
                    } else {
                        c.queue_at_arrivals as f64 / c.arrivals as f64
                    },
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
        let flows: Vec<FlowSummary> = self
            .flows
            .iter()
            .enumerate()
            .map(|(i, f)| {
                let spec = &s.flows[i];
                let c = f.counters(false).minus(&f.at_warmup[0]);
                let a = f.counters(true).minus(&f.at_warmup[1]);
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
                    None => (SenderStats::default(), c.passed.recv_bytes, 0, None),
                };
                FlowSummary {
                    name: spec.name.clone(),
                    kind: spec.kind().name().into(),
                    src: spec.src.clone(),
                    dst: spec.dst.clone(),
                    sent_pkts: c.passed.sent_pkts,
                    sent_bytes: c.passed.sent_bytes,
                    received_pkts: c.passed.recv_pkts,
                    received_bytes: c.passed.recv_bytes,
                    dropped_pkts: c.missing.dropped_pkts,
                    lost_pkts: c.missing.lost_pkts,
                    // Non-duplicate data delivered (for UDP every packet received is new).
                    goodput_bps: unique as f64 * 8.0 / t,
                    throughput_bps: c.passed.recv_bytes as f64 * 8.0 / t,
                    retransmits: tcp_stats.retransmits,
                    timeouts: tcp_stats.timeouts,
                    timeouts_open: tcp_stats.timeouts_open,
                    timeouts_disorder: tcp_stats.timeouts_disorder,
                    timeouts_recovery: tcp_stats.timeouts_recovery,
                    timeouts_loss: tcp_stats.timeouts_loss,
                    fast_recoveries: tcp_stats.fast_recoveries,
                    ecn_reactions: tcp_stats.ecn_reactions,
                    marks_received: marks,
                    acks_sent: a.passed.sent_pkts,
                    acks_lost: a.missing.dropped_pkts + a.missing.lost_pkts,
                    completion_time_s: completion,
                    // Of the packets sent in the window, the fraction dropped or lost: in
                    // [0, 1] (drops of packets sent before the window are not counted).
                    loss_rate: if c.passed.sent_pkts == 0 {
                        f64::NAN
                    } else {
                        c.missing.window_losses as f64 / c.passed.sent_pkts as f64
                    },
                    mean_delay_s: if c.passed.recv_pkts == 0 {
                        f64::NAN
                    } else {
                        c.passed.delay_sum_ns as f64 / c.passed.recv_pkts as f64 / 1e9
                    },
                    max_delay_s: if c.passed.recv_pkts == 0 {
                        f64::NAN
                    } else {
                        f.delay_max_ns as f64 / 1e9
                    },
                }
            })
            .collect();
        let mut extra_tables = tables::component_tables(
            self.channels
                .iter()
                .zip(&self.queues)
                .map(|(ch, q)| (queue_name(s, ch), q)),
        );
        extra_tables.extend(edge::aggregates_table(&self.conditioners, &flows));
        extra_tables.extend(switch::tables(&self, t));
        extra_tables.extend(self.probes.table(s, self.warmup));
        let captures = (self.capture.take()).map_or_else(Vec::new, |c| c.finish(s, &self.channels));
        Ok(RunResults {
            captures,
            queues,
            flows,
            timeseries: self.ts,
            events: self.processed,
            packets,
            measured_s: t,
            extra_tables,
        })
    }
}
