//! A slotted N×N cell switch: the textbook model the schedulers are validated in.
//!
//! Time is slotted; a cell is one slot's transmission at line rate. Each slot, in order:
//!
//! 1. **Arrivals**: with `Load::Bernoulli { p }` each input receives a cell with probability
//!    p, for an output drawn uniformly (i.i.d. over inputs and slots). With
//!    `Load::Saturated` every input always has cells: a FIFO input's head-of-line (HOL)
//!    cell is for a uniform output, redrawn when it leaves; with VOQs every VOQ is
//!    non-empty.
//! 2. **Transfer**: `speedup` matching phases; each phase schedules the current requests
//!    (a FIFO input requests its HOL cell's output, a VOQ input every output it holds
//!    cells for) and moves one cell per matched pair to the output queue. A phase with no
//!    requests ends the slot's transfers. Speedup N with a maximal scheduler is an output-
//!    queued switch: no cell ever waits at an input beyond its arrival slot.
//! 3. **Departures**: every non-empty output queue sends one cell.
//! 4. **Samples**: input and output queue lengths are recorded *after* the departures, so an
//!    output queue length counts the cells left waiting, not the one sent in the slot (the
//!    convention of Karol, Hluchyj and Morgan's Q_m = max(0, Q_{m-1} + A_m − 1)).
//!
//! Queues are unbounded; cells are interchangeable, so a VOQ is a count and a FIFO a queue of
//! destinations. Two random streams (arrivals, scheduler) come from the seed, so a run is a
//! pure function of its spec and seed.

use super::sched::{Matching, Requests, Scheduler, SchedulerSpec};
use crate::rng::Rng;
use std::collections::VecDeque;

/// How an input buffers its cells.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Inputs {
    /// One FIFO per input: only the head-of-line cell can be scheduled.
    Fifo,
    /// One virtual output queue per (input, output).
    Voq,
}

/// The offered traffic.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Load {
    /// i.i.d. Bernoulli(p) arrivals per input per slot, uniform destinations.
    Bernoulli { p: f64 },
    /// Every input always has cells (see the module doc).
    Saturated,
}

#[derive(Clone, Debug, PartialEq)]
pub struct CellSwitchSpec {
    pub n: usize,
    pub inputs: Inputs,
    /// Matching phases per slot: 1 = input queued, n = output queued.
    pub speedup: u32,
    pub load: Load,
    pub scheduler: SchedulerSpec,
}

/// What one [`CellSwitch::run`] measured over its slots.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CellStats {
    pub slots: u64,
    /// Cells arrived per input (Bernoulli load only).
    pub arrivals: Vec<u64>,
    /// Cells sent per output line.
    pub departures: Vec<u64>,
    /// Cells moved through the fabric.
    pub transfers: u64,
    /// Matchings computed (phases that had requests), their summed sizes and iterations.
    pub matchings: u64,
    pub match_size_sum: u64,
    pub iterations_sum: u64,
    /// Sums over slots of the total input backlog (None when saturated: infinite) and of the
    /// total output backlog, both after the slot's departures.
    pub input_backlog_sum: Option<u64>,
    pub output_backlog_sum: u64,
}

impl CellStats {
    /// Departures per slot of output j.
    pub fn throughput(&self, j: usize) -> f64 {
        self.departures[j] as f64 / self.slots as f64
    }
    /// Departures per slot per output, averaged over the outputs.
    pub fn mean_throughput(&self) -> f64 {
        let d: u64 = self.departures.iter().sum();
        d as f64 / (self.slots as f64 * self.departures.len() as f64)
    }
    /// Arrivals per slot per input.
    pub fn mean_arrival_rate(&self) -> f64 {
        let a: u64 = self.arrivals.iter().sum();
        a as f64 / (self.slots as f64 * self.arrivals.len() as f64)
    }
    /// Time-average cells queued at one input (over all its VOQs).
    pub fn mean_input_queue(&self) -> Option<f64> {
        let n = self.departures.len() as f64;
        self.input_backlog_sum
            .map(|s| s as f64 / (self.slots as f64 * n))
    }
    /// Time-average cells waiting at one output after the slot's departure.
    pub fn mean_output_queue(&self) -> f64 {
        self.output_backlog_sum as f64 / (self.slots as f64 * self.departures.len() as f64)
    }
    /// Mean pairs per computed matching.
    pub fn mean_match_size(&self) -> f64 {
        self.match_size_sum as f64 / self.matchings.max(1) as f64
    }
    /// Mean request-grant-accept iterations per computed matching.
    pub fn mean_iterations(&self) -> f64 {
        self.iterations_sum as f64 / self.matchings.max(1) as f64
    }
}

/// The switch state; [`run`](Self::run) advances it and measures.
pub struct CellSwitch {
    spec: CellSwitchSpec,
    sched: Scheduler,
    req: Requests,
    m: Matching,
    arrivals_rng: Rng,
    sched_rng: Rng,
    /// FIFO inputs: the destinations of the queued cells, HOL first (saturated: the HOL only).
    fifo: Vec<VecDeque<u16>>,
    /// VOQ inputs: cells per (input, output), row-major.
    voq: Vec<u32>,
    input_backlog: u64,
    out: Vec<u64>,
    output_backlog: u64,
}

fn below(rng: &mut Rng, k: usize) -> usize {
    ((rng.next_u64() as u128 * k as u128) >> 64) as usize
}

impl CellSwitch {
    pub fn new(spec: CellSwitchSpec, seed: u64) -> Self {
        let n = spec.n;
        assert!(spec.speedup >= 1, "speedup is a number of phases >= 1");
        if let Load::Bernoulli { p } = spec.load {
            assert!((0.0..=1.0).contains(&p), "p = {p} is not a probability");
        }
        let mut arrivals_rng = Rng::for_component(seed, 0, "cells/arrivals");
        let mut req = Requests::new(n);
        let mut fifo = vec![VecDeque::new(); n];
        if spec.load == Load::Saturated {
            for (i, q) in fifo.iter_mut().enumerate() {
                match spec.inputs {
                    Inputs::Fifo => {
                        let j = below(&mut arrivals_rng, n);
                        q.push_back(j as u16);
                        req.set(i, j);
                    }
                    Inputs::Voq => (0..n).for_each(|j| req.set(i, j)),
                }
            }
        }
        CellSwitch {
            sched: Scheduler::new(&spec.scheduler, n),
            req,
            m: Matching::new(n),
            arrivals_rng,
            sched_rng: Rng::for_component(seed, 0, "cells/scheduler"),
            fifo,
            voq: vec![0; n * n],
            input_backlog: 0,
            out: vec![0; n],
            output_backlog: 0,
            spec,
        }
    }

    /// Runs `slots` slots from the current state and returns their statistics alone (so a
    /// warm-up is a run whose statistics are dropped, and batches are consecutive runs).
    pub fn run(&mut self, slots: u64) -> CellStats {
        let n = self.spec.n;
        let saturated = self.spec.load == Load::Saturated;
        let mut st = CellStats {
            slots,
            arrivals: vec![0; n],
            departures: vec![0; n],
            input_backlog_sum: (!saturated).then_some(0),
            ..CellStats::default()
        };
        for _ in 0..slots {
            if let Load::Bernoulli { p } = self.spec.load {
                self.arrive(p, &mut st);
            }
            for _ in 0..self.spec.speedup {
                if self.req.is_empty() {
                    break;
                }
                let ms = self
                    .sched
                    .schedule(&self.req, &mut self.sched_rng, &mut self.m);
                st.matchings += 1;
                st.match_size_sum += ms.size as u64;
                st.iterations_sum += ms.iterations as u64;
                for i in 0..n {
                    if let Some(j) = self.m.in_to_out[i] {
                        self.transfer(i, j as usize, saturated);
                    }
                }
                st.transfers += ms.size as u64;
            }
            for (j, q) in self.out.iter_mut().enumerate() {
                if *q > 0 {
                    *q -= 1;
                    self.output_backlog -= 1;
                    st.departures[j] += 1;
                }
            }
            if let Some(s) = st.input_backlog_sum.as_mut() {
                *s += self.input_backlog;
            }
            st.output_backlog_sum += self.output_backlog;
        }
        st
    }

    fn arrive(&mut self, p: f64, st: &mut CellStats) {
        let n = self.spec.n;
        for i in 0..n {
            if !self.arrivals_rng.bernoulli(p) {
                continue;
            }
            let j = below(&mut self.arrivals_rng, n);
            st.arrivals[i] += 1;
            self.input_backlog += 1;
            match self.spec.inputs {
                Inputs::Fifo => {
                    if self.fifo[i].is_empty() {
                        self.req.set(i, j);
                    }
                    self.fifo[i].push_back(j as u16);
                }
                Inputs::Voq => {
                    self.voq[i * n + j] += 1;
                    self.req.set(i, j);
                }
            }
        }
    }

    /// Moves one cell of input i to output j and updates i's requests.
    fn transfer(&mut self, i: usize, j: usize, saturated: bool) {
        let n = self.spec.n;
        self.out[j] += 1;
        self.output_backlog += 1;
        match (self.spec.inputs, saturated) {
            (Inputs::Voq, true) => {}
            (Inputs::Voq, false) => {
                let c = &mut self.voq[i * n + j];
                *c -= 1;
                self.input_backlog -= 1;
                if *c == 0 {
                    self.req.unset(i, j);
                }
            }
            (Inputs::Fifo, _) => {
                let q = &mut self.fifo[i];
                q.pop_front();
                self.req.unset(i, j);
                if saturated {
                    q.push_back(below(&mut self.arrivals_rng, n) as u16);
                } else {
                    self.input_backlog -= 1;
                }
                if let Some(&h) = q.front() {
                    self.req.set(i, h as usize);
                }
            }
        }
    }
}
