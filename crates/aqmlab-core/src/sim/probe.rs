//! Latency probes (`type = "probe"` flows): each request is a small timestamped UDP packet
//! from the flow's source; the destination host answers it at once with an echo reply of
//! the same size and precedence, which carries the request's send time back, so the round
//! trip is measured where it ends, in integer nanoseconds, with no clock but the event's.
//!
//! A probe is lost if its request or its reply is dropped by a queue or lost on a wire.
//! Replies travel as the flow's second direction (the ACK counters of a TCP flow), so the
//! conservation identities hold for probes as for any flow. The `probes` table has one row
//! per request sent at or after the warm-up whose fate is known at the end: answered (its
//! `rtt_s`) or lost; requests still on their way at the end are left out.

use super::*;
use crate::table::Column;

/// `rtt` of a request not yet answered nor lost, and of one lost.
const PENDING: Time = Time::MAX;
const LOST: Time = Time::MAX - 1;

/// One probe flow's requests, by sequence number.
struct Log {
    flow: u32,
    precedence: u8,
    sent: Vec<Time>,
    rtt: Vec<Time>,
}

/// The probe flows and what became of their requests.
#[derive(Default)]
pub(super) struct Probes {
    /// Flow → its log (u32::MAX for a flow that is not a probe).
    slot: Vec<u32>,
    logs: Vec<Log>,
}

impl Probes {
    pub(super) fn new(s: &Scenario) -> Probes {
        let mut p = Probes {
            slot: vec![u32::MAX; s.flows.len()],
            logs: vec![],
        };
        for (i, f) in s.flows.iter().enumerate() {
            if let Traffic::Probe(spec) = &f.traffic {
                p.slot[i] = p.logs.len() as u32;
                p.logs.push(Log {
                    flow: i as u32,
                    precedence: spec.precedence.unwrap_or(0),
                    sent: vec![],
                    rtt: vec![],
                });
            }
        }
        p
    }

    #[inline]
    pub(super) fn is_probe(&self, flow: usize) -> bool {
        // A run without probes pays one predictable branch and no lookup.
        !self.logs.is_empty() && self.slot[flow] != u32::MAX
    }

    fn log(&mut self, flow: usize) -> &mut Log {
        &mut self.logs[self.slot[flow] as usize]
    }

    /// A source sent packet `seq` of `flow` at `now` (a request, if the flow is a probe).
    #[inline]
    pub(super) fn sent(&mut self, flow: usize, seq: u64, now: Time) {
        if self.is_probe(flow) {
            self.log_request(flow, seq, now);
        }
    }

    // Out of line: the per-packet callers keep only the flag test.
    #[cold]
    #[inline(never)]
    fn log_request(&mut self, flow: usize, seq: u64, now: Time) {
        let log = self.log(flow);
        debug_assert_eq!(log.sent.len() as u64, seq, "requests are numbered in order");
        log.sent.push(now);
        log.rtt.push(PENDING);
    }

    /// `p` was dropped or lost: if it is a probe's request or reply, the probe is lost.
    #[inline]
    pub(super) fn missing(&mut self, p: &Packet) {
        if self.is_probe(p.flow as usize) {
            self.lost(p.flow as usize, p.seq);
        }
    }

    #[cold]
    #[inline(never)]
    fn lost(&mut self, flow: usize, seq: u64) {
        let r = &mut self.log(flow).rtt[seq as usize];
        if *r == PENDING {
            *r = LOST;
        }
    }

    /// The `probes` table (None without probe flows): flow, seq, sent_s, rtt_s (missing
    /// when lost), lost, of the requests sent at or after `warmup` whose fate is known.
    pub(super) fn table(&self, s: &Scenario, warmup: Time) -> Option<Table> {
        if self.logs.is_empty() {
            return None;
        }
        let (mut flow, mut seq, mut sent, mut rtt, mut lost) =
            (vec![], vec![], vec![], vec![], vec![]);
        for (k, log) in self.logs.iter().enumerate() {
            for (i, (&t, &r)) in log.sent.iter().zip(&log.rtt).enumerate() {
                if t < warmup || r == PENDING {
                    continue;
                }
                flow.push(k as u32);
                seq.push(i as u64);
                sent.push(secs(t));
                rtt.push((r != LOST).then(|| secs(r)));
                lost.push(r == LOST);
            }
        }
        let names = (self.logs.iter())
            .map(|l| s.flows[l.flow as usize].name.clone())
            .collect();
        let mut t = Table::new("probes");
        t.push("flow", Column::dict(flow, names))
            .push("seq", Column::U64(seq))
            .push("sent_s", Column::F64(sent))
            .push("rtt_s", Column::OptF64(rtt))
            .push("lost", Column::Bool(lost));
        Some(t)
    }
}

impl Simulator<'_> {
    /// A probe's packet reaches a host: a request its destination (counted as the flow's
    /// data, and answered at once), or a reply its source (the round trip ends).
    #[cold]
    #[inline(never)]
    pub(super) fn probe_deliver(&mut self, pkt: u32) {
        let p = *self.packets.get(pkt);
        self.packets.free(pkt);
        let (now, flow, size) = (self.now, p.flow as usize, p.size as u64);
        let f = &mut self.flows[flow];
        if p.dst != f.dst {
            f.acks.recv_pkts += 1;
            f.acks.recv_bytes += size;
            let r = &mut self.probes.log(flow).rtt[p.seq as usize];
            debug_assert_eq!(*r, PENDING, "a probe is answered once");
            *r = now - p.created;
            return;
        }
        let delay = now - p.created;
        f.c.recv_pkts += 1;
        f.c.recv_bytes += size;
        f.c.delay_sum_ns += delay as u128;
        f.delay_max_ns = f.delay_max_ns.max(delay);
        f.acks.sent_pkts += 1;
        f.acks.sent_bytes += size;
        let ends = f.ends;
        let precedence = self.probes.log(flow).precedence;
        let reply = self.packets.alloc(Packet {
            flow: p.flow,
            src: p.dst,
            dst: p.src,
            size: p.size,
            ecn: self.scenario.flows[flow].codepoint(),
            precedence,
            // The request's send time: the reply's delivery reads the round trip off it.
            created: p.created,
            seq: p.seq,
            udp: true,
            to: ends[0],
            ..Default::default()
        });
        self.forward_from(p.dst as usize, ends[1], reply);
    }
}

#[cfg(test)]
#[path = "probe_tests.rs"]
mod tests;
