//! The crossbar fabric of a CIOQ switch, scheduled in packet mode (docs/switch/switch.md).
//!
//! Time is slotted in phases of one cell time at the fabric rate s·R (τ = cell·8/(s·R)).
//! At a phase boundary the matching scheduler (iSLIP, PIM, maximum size;
//! `crate::switch::sched`) matches the free inputs with something for a free output; each
//! matched pair stays connected until the whole packet has crossed, ⌈size/cell⌉ phases
//! (packet-mode scheduling: Marsan, Bianco, Giaccone, Leonardi, Neri, IEEE/ACM ToN 2002),
//! so packets are never segmented and need no reassembly. Phases run only when a matching
//! can change: at the first boundary after an arrival at a free input, and at the boundary
//! where a transfer ends; never while everything is idle or blocked.

use super::*;
use crate::switch::sched::{Matching, Requests, Scheduler};

pub(super) struct Crossbar {
    sched: Scheduler,
    req: Requests,
    m: Matching,
    rng: Rng,
    /// cell · 8 · 10⁹ (bit·ns) and the fabric rate s·R (bits/s): boundary k is at
    /// ⌈k · cell_bit_ns / rate⌉ ns, exact in integers.
    cell_bit_ns: u128,
    rate: u128,
    cell: u32,
    pub(super) in_busy: Vec<bool>,
    pub(super) out_busy: Vec<bool>,
    /// The pending phase's time, and the last phase run (a request at that instant goes
    /// to the next boundary).
    next_phase: Option<Time>,
    last_phase: Option<Time>,
    /// Phases that matched something, iterations used, pairs matched (totals, at warm-up).
    pub(super) stats: [u64; 3],
    pub(super) stats_at_warmup: [u64; 3],
}

impl Crossbar {
    pub(super) fn new(
        spec: &crate::switch::sched::SchedulerSpec,
        n: usize,
        cell: u32,
        rate_bps: u64,
        rng: Rng,
    ) -> Crossbar {
        Crossbar {
            sched: Scheduler::new(spec, n),
            req: Requests::new(n),
            m: Matching::new(n),
            rng,
            cell_bit_ns: cell as u128 * 8 * crate::units::NS_PER_SEC as u128,
            rate: rate_bps.max(1) as u128,
            cell,
            in_busy: vec![false; n],
            out_busy: vec![false; n],
            next_phase: None,
            last_phase: None,
            stats: [0; 3],
            stats_at_warmup: [0; 3],
        }
    }

    fn boundary(&self, k: u128) -> Time {
        (k * self.cell_bit_ns).div_ceil(self.rate) as Time
    }

    /// The index of the first boundary at or after `t`.
    fn index_at(&self, t: Time) -> u128 {
        let mut k = t as u128 * self.rate / self.cell_bit_ns;
        while self.boundary(k) < t {
            k += 1;
        }
        k
    }
}

impl Simulator<'_> {
    fn xbar(&mut self, k: usize) -> &mut Crossbar {
        self.switches.list[k]
            .crossbar
            .as_deref_mut()
            .expect("a crossbar switch")
    }

    /// Asks for a phase at the first boundary at or after now (after it, if the phase at
    /// now has run).
    pub(super) fn request_phase(&mut self, k: usize) {
        let now = self.now;
        let x = self.xbar(k);
        let mut b = x.index_at(now);
        if x.last_phase == Some(x.boundary(b)) {
            b += 1;
        }
        let t = x.boundary(b);
        if x.next_phase.is_some_and(|p| p <= t) {
            return;
        }
        // A later pending phase becomes stale: it is skipped when it fires.
        x.next_phase = Some(t);
        self.events.schedule(
            t,
            Event::Fabric {
                switch: k as u32,
                path: 0,
                packet: crate::event::NO_PACKET,
            },
        );
    }

    /// A phase boundary: match the free inputs with a free output they have packets for.
    pub(super) fn phase(&mut self, k: usize) {
        let now = self.now;
        if self.xbar(k).next_phase != Some(now) {
            return; // stale
        }
        let x = self.xbar(k);
        x.next_phase = None;
        x.last_phase = Some(now);
        let mut req = std::mem::replace(&mut x.req, Requests::new(1));
        req.clear();
        let sw = &self.switches.list[k];
        let x = sw.crossbar.as_deref().expect("crossbar");
        for i in 0..sw.n {
            if x.in_busy[i] {
                continue;
            }
            if sw.fifo {
                let head = sw.held[i].or_else(|| self.queues[sw.queue(i, 0).ix()].head());
                if let Some(h) = head {
                    let j = self.out_port(k, h);
                    if !x.out_busy[j] {
                        req.set(i, j);
                    }
                }
            } else {
                for j in 0..sw.n {
                    if !x.out_busy[j] && !self.queues[sw.queue(i, j).ix()].is_empty() {
                        req.set(i, j);
                    }
                }
            }
        }
        let x = self.xbar(k);
        if req.is_empty() {
            x.req = req;
            return;
        }
        let mut m = std::mem::take(&mut x.m);
        let st = x.sched.schedule(&req, &mut x.rng, &mut m);
        x.stats[0] += 1;
        x.stats[1] += st.iterations as u64;
        x.stats[2] += st.size as u64;
        x.req = req;
        for (i, j) in m.pairs() {
            self.start_crossing(k, i, j);
        }
        self.xbar(k).m = m;
    }

    /// Matched pair (i, j): input i's packet for j starts across.
    fn start_crossing(&mut self, k: usize, i: usize, j: usize) {
        let sw = &mut self.switches.list[k];
        let p = match sw.held[i].take() {
            Some(p) => Some(p),
            None => {
                let id = sw.queue(i, j);
                self.take_input(k, i, id)
            }
        };
        let Some(p) = p else {
            return self.maybe_idle(k, i, j);
        };
        let j2 = self.out_port(k, p);
        if j2 != j {
            // The FIFO's AQM dropped the matched head at dequeue and the next packet is
            // for another output: it waits, in the fabric, for a later phase.
            self.switches.list[k].held[i] = Some(p);
            return self.request_phase(k);
        }
        let (now, warmup, end) = (self.now, self.warmup, self.end);
        let size = self.packets.get(p).size;
        let sw = &mut self.switches.list[k];
        let path = i * sw.n + j;
        let l = sw.local(i, j);
        sw.crossing[l] += 1;
        let x = sw.crossbar.as_deref_mut().expect("crossbar");
        x.in_busy[i] = true;
        x.out_busy[j] = true;
        let cells = size.div_ceil(x.cell) as u128;
        let done = x.boundary(x.index_at(now) + cells);
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

    /// A crossbar transfer ended at a boundary: free the pair, and match again there.
    pub(super) fn crossbar_done(&mut self, k: usize, i: usize, j: usize) {
        let x = self.xbar(k);
        x.in_busy[i] = false;
        x.out_busy[j] = false;
        self.maybe_idle(k, i, j);
        let sw = &self.switches.list[k];
        if sw.in_backlog.iter().any(|b| b.pkts > 0) || sw.held.iter().any(Option::is_some) {
            self.request_phase(k);
        }
    }
}
