//! Crossbar matching schedulers: PIM, iSLIP and maximum-size matching.
//!
//! One call of [`Scheduler::schedule`] computes one matching of a request matrix: a set of
//! (input, output) pairs, each requested, with no input and no output twice. Speedup S is
//! S calls per slot by the caller; a call knows nothing of slots.
//!
//! - **PIM** (Anderson, Owicki, Saxe, Thacker 1993): each unmatched output grants one of its
//!   unmatched requesters uniformly at random, each input accepts one of its grants
//!   uniformly at random; repeat. With one request per input (FIFO inputs) this is the
//!   random head-of-line contention of Karol, Hluchyj and Morgan (1987).
//! - **iSLIP** (McKeown 1999): the same three steps with round-robin choices from a grant
//!   pointer g_j per output and an accept pointer a_i per input. Only in the first
//!   iteration, and only for accepted grants, a_i moves one beyond the accepted output and
//!   g_j one beyond the accepted input: that rule desynchronises the grant pointers under
//!   load, which is why one iteration reaches 100% throughput under uniform traffic.
//! - **MaxSize**: a maximum-size matching by augmenting paths (Kuhn), on bit sets.
//!
//! PIM and iSLIP stop before `iterations` when the matching is maximal (no unmatched input
//! requests an unmatched output): any later iteration would add nothing. A call allocates
//! nothing once the [`Matching`] has held `n` entries: all scratch lives in the scheduler.

use crate::check::{Problems, ScenarioError};
use crate::rng::Rng;
use serde::{Deserialize, Serialize};

/// The largest switch the bit sets hold (four 64-bit words per row).
pub const MAX_PORTS: usize = 256;
const W: usize = MAX_PORTS / 64;

/// A set of ports, one bit each.
type Bits = [u64; W];

fn words(n: usize) -> usize {
    n.div_ceil(64)
}

fn all_ports(n: usize) -> Bits {
    let mut b = [0u64; W];
    for (k, w) in b.iter_mut().enumerate() {
        let lo = k * 64;
        if n >= lo + 64 {
            *w = u64::MAX;
        } else if n > lo {
            *w = (1u64 << (n - lo)) - 1;
        }
    }
    b
}

fn count(b: &Bits) -> u32 {
    b.iter().map(|w| w.count_ones()).sum()
}

/// The `k`-th (from 0) set bit of `b`; `k` < count(b).
fn nth_set(b: &Bits, mut k: u32) -> usize {
    for (wi, &w) in b.iter().enumerate() {
        let c = w.count_ones();
        if k < c {
            let mut w = w;
            for _ in 0..k {
                w &= w - 1;
            }
            return wi * 64 + w.trailing_zeros() as usize;
        }
        k -= c;
    }
    unreachable!("nth_set past the last set bit")
}

/// The first set bit of `b` at or after `from`, wrapping around past `n`: the round-robin
/// choice of a pointer at `from`.
fn next_set_from(b: &Bits, from: usize, n: usize) -> Option<usize> {
    let first_at_or_after = |start: usize| -> Option<usize> {
        let mut wi = start / 64;
        let mut w = b[wi] & (u64::MAX << (start % 64));
        loop {
            if w != 0 {
                let i = wi * 64 + w.trailing_zeros() as usize;
                return (i < n).then_some(i);
            }
            wi += 1;
            if wi >= words(n) {
                return None;
            }
            w = b[wi];
        }
    };
    first_at_or_after(from).or_else(|| first_at_or_after(0).filter(|&i| i < from))
}

/// A uniform draw from 0..k by the multiply-shift map (bias ≤ k/2⁶⁴, far below any run's
/// resolution).
fn below(rng: &mut Rng, k: u32) -> u32 {
    ((rng.next_u64() as u128 * k as u128) >> 64) as u32
}

/// The requests of one matching: bit (i, j) set = input i has something for output j and
/// both ports are free. N ≤ 256; row i is a set of outputs in 64-bit words.
#[derive(Clone, Debug)]
pub struct Requests {
    n: usize,
    rows: Vec<Bits>,
}

impl Requests {
    pub fn new(n: usize) -> Self {
        assert!(
            (1..=MAX_PORTS).contains(&n),
            "a switch has 1..={MAX_PORTS} ports, not {n}"
        );
        Requests {
            n,
            rows: vec![[0; W]; n],
        }
    }
    pub fn n(&self) -> usize {
        self.n
    }
    pub fn clear(&mut self) {
        self.rows.iter_mut().for_each(|r| *r = [0; W]);
    }
    pub fn set(&mut self, i: usize, j: usize) {
        assert!(j < self.n, "output {j} of a {}-port switch", self.n);
        self.rows[i][j / 64] |= 1 << (j % 64);
    }
    pub fn get(&self, i: usize, j: usize) -> bool {
        j < self.n && self.rows[i][j / 64] >> (j % 64) & 1 == 1
    }
    /// Withdraws the request (i, j).
    pub fn unset(&mut self, i: usize, j: usize) {
        assert!(j < self.n, "output {j} of a {}-port switch", self.n);
        self.rows[i][j / 64] &= !(1 << (j % 64));
    }
    /// True if no input requests anything.
    pub fn is_empty(&self) -> bool {
        self.rows.iter().all(|r| r.iter().all(|&w| w == 0))
    }
}

fn one() -> u32 {
    1
}

/// Which matching algorithm a crossbar runs: a table tagged by `type`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum SchedulerSpec {
    /// iSLIP with up to `iterations` request-grant-accept rounds per matching (default 1).
    Islip {
        #[serde(default = "one")]
        iterations: u32,
    },
    /// PIM with up to `iterations` rounds per matching (default 1).
    Pim {
        #[serde(default = "one")]
        iterations: u32,
    },
    /// A maximum-size matching.
    MaxSize,
}

impl SchedulerSpec {
    /// Every problem of this spec for an `n`-port switch, under the path `path`.
    pub fn validate(&self, path: &str, n: usize) -> Vec<ScenarioError> {
        let mut p = Problems::default();
        self.check(path, n, &mut p);
        p.errors
    }

    /// As [`validate`](Self::validate), into the scenario's [`Problems`].
    pub fn check(&self, path: &str, n: usize, p: &mut Problems) {
        if !(1..=MAX_PORTS).contains(&n) {
            p.err(path, n, format!("a switch has 1..={MAX_PORTS} ports"));
        }
        match self {
            SchedulerSpec::Islip { iterations } | SchedulerSpec::Pim { iterations } => {
                if !(1..=n.max(1) as u64).contains(&(*iterations as u64)) {
                    p.err(
                        format!("{path}.iterations"),
                        iterations,
                        format!(
                            "must be in [1, {n}] (the number of ports: {n} iterations \
                             always reach a maximal matching)"
                        ),
                    );
                }
            }
            SchedulerSpec::MaxSize => {}
        }
    }
}

/// One matching: `in_to_out[i]` is the output input i sends to. Cleared by `schedule`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Matching {
    pub in_to_out: Vec<Option<u16>>,
}

impl Matching {
    pub fn new(n: usize) -> Self {
        Matching {
            in_to_out: vec![None; n],
        }
    }
    /// The matched pairs (input, output) in input order.
    pub fn pairs(&self) -> impl Iterator<Item = (usize, usize)> + '_ {
        self.in_to_out
            .iter()
            .enumerate()
            .filter_map(|(i, o)| o.map(|o| (i, o as usize)))
    }
}

/// What one matching took: request-grant-accept iterations that added a pair (PIM, iSLIP;
/// 1 for MaxSize when it matched anything) and the number of pairs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MatchStats {
    pub iterations: u32,
    pub size: u32,
}

enum Kind {
    Pim,
    Islip {
        /// g_j: the input output j grants first.
        grant_ptr: Vec<u16>,
        /// a_i: the output input i accepts first.
        accept_ptr: Vec<u16>,
    },
    MaxSize,
}

/// A matching algorithm with its state (iSLIP's pointers) and scratch.
pub struct Scheduler {
    n: usize,
    iterations: u32,
    kind: Kind,
    /// cols[j]: the inputs requesting output j (the transpose of the requests).
    cols: Vec<Bits>,
    /// grants[i]: the outputs granting input i in the current iteration.
    grants: Vec<Bits>,
    /// MaxSize: the input matched to each output, and the visited outputs of a search.
    out_to_in: Vec<Option<u16>>,
    stack: Vec<(u16, Bits)>,
}

impl Scheduler {
    pub fn new(spec: &SchedulerSpec, n: usize) -> Self {
        assert!(
            (1..=MAX_PORTS).contains(&n),
            "a switch has 1..={MAX_PORTS} ports, not {n}"
        );
        let (kind, iterations) = match *spec {
            SchedulerSpec::Pim { iterations } => (Kind::Pim, iterations),
            SchedulerSpec::Islip { iterations } => (
                Kind::Islip {
                    grant_ptr: vec![0; n],
                    accept_ptr: vec![0; n],
                },
                iterations,
            ),
            SchedulerSpec::MaxSize => (Kind::MaxSize, n as u32),
        };
        Scheduler {
            n,
            iterations: iterations.max(1),
            kind,
            cols: vec![[0; W]; n],
            grants: vec![[0; W]; n],
            out_to_in: vec![None; n],
            stack: Vec::with_capacity(n),
        }
    }

    /// iSLIP's grant pointers g_j and accept pointers a_i (None for other algorithms).
    pub fn islip_pointers(&self) -> Option<(&[u16], &[u16])> {
        match &self.kind {
            Kind::Islip {
                grant_ptr,
                accept_ptr,
            } => Some((grant_ptr, accept_ptr)),
            _ => None,
        }
    }

    /// Computes one matching of `req` into `m` (cleared first). `rng` is drawn from by PIM
    /// only, so iSLIP and MaxSize are deterministic functions of the requests.
    pub fn schedule(&mut self, req: &Requests, rng: &mut Rng, m: &mut Matching) -> MatchStats {
        let n = self.n;
        assert_eq!(req.n, n, "requests of a {}-port switch", req.n);
        m.in_to_out.clear();
        m.in_to_out.resize(n, None);
        if matches!(self.kind, Kind::MaxSize) {
            let size = self.max_size(req, m);
            return MatchStats {
                iterations: (size > 0) as u32,
                size,
            };
        }
        for c in self.cols.iter_mut() {
            *c = [0; W];
        }
        for (i, row) in req.rows.iter().enumerate() {
            for (wi, &w) in row.iter().enumerate() {
                let mut w = w;
                while w != 0 {
                    let j = wi * 64 + w.trailing_zeros() as usize;
                    self.cols[j][i / 64] |= 1 << (i % 64);
                    w &= w - 1;
                }
            }
        }
        let mut free_in = all_ports(n);
        let mut free_out = all_ports(n);
        let mut stats = MatchStats::default();
        for iter in 0..self.iterations {
            // Grant: each free output with a free requester picks one.
            let mut granted_any = false;
            for g in self.grants.iter_mut() {
                *g = [0; W];
            }
            for j in 0..n {
                if free_out[j / 64] >> (j % 64) & 1 == 0 {
                    continue;
                }
                let mut cand = self.cols[j];
                for (c, f) in cand.iter_mut().zip(&free_in) {
                    *c &= f;
                }
                let c = count(&cand);
                if c == 0 {
                    continue;
                }
                let i = match &self.kind {
                    Kind::Pim => nth_set(&cand, below(rng, c)),
                    Kind::Islip { grant_ptr, .. } => {
                        next_set_from(&cand, grant_ptr[j] as usize, n).expect("c > 0")
                    }
                    Kind::MaxSize => unreachable!(),
                };
                self.grants[i][j / 64] |= 1 << (j % 64);
                granted_any = true;
            }
            if !granted_any {
                break; // maximal: no free input requests a free output
            }
            // Accept: each input with grants takes one.
            let mut added = 0;
            for i in 0..n {
                let g = &self.grants[i];
                let c = count(g);
                if c == 0 {
                    continue;
                }
                let j = match &mut self.kind {
                    Kind::Pim => nth_set(g, below(rng, c)),
                    Kind::Islip {
                        grant_ptr,
                        accept_ptr,
                    } => {
                        let j = next_set_from(g, accept_ptr[i] as usize, n).expect("c > 0");
                        if iter == 0 {
                            accept_ptr[i] = ((j + 1) % n) as u16;
                            grant_ptr[j] = ((i + 1) % n) as u16;
                        }
                        j
                    }
                    Kind::MaxSize => unreachable!(),
                };
                m.in_to_out[i] = Some(j as u16);
                free_in[i / 64] &= !(1 << (i % 64));
                free_out[j / 64] &= !(1 << (j % 64));
                added += 1;
            }
            stats.iterations += 1;
            stats.size += added;
        }
        stats
    }

    /// Kuhn's augmenting paths from every input, each search a depth-first walk over
    /// unvisited outputs kept as a bit set: O(N · N²/64) word operations per call.
    fn max_size(&mut self, req: &Requests, m: &mut Matching) -> u32 {
        let n = self.n;
        self.out_to_in.iter_mut().for_each(|o| *o = None);
        let mut size = 0;
        for root in 0..n {
            let mut visited: Bits = [0; W];
            self.stack.clear();
            self.stack.push((root as u16, req.rows[root]));
            // Each stack frame: an input on the path and the outputs it may still try.
            let mut found: Option<usize> = None;
            while let Some((_, cand)) = self.stack.last_mut() {
                let mut c = *cand;
                for (x, v) in c.iter_mut().zip(&visited) {
                    *x &= !v;
                }
                let Some(j) = next_set_from(&c, 0, n) else {
                    self.stack.pop();
                    continue;
                };
                cand[j / 64] &= !(1 << (j % 64));
                visited[j / 64] |= 1 << (j % 64);
                match self.out_to_in[j] {
                    None => {
                        found = Some(j);
                        break;
                    }
                    Some(k) => {
                        let k = k as usize;
                        self.stack.push((k as u16, req.rows[k]));
                    }
                }
            }
            // Flip the path: each input on the stack takes the output its frame tried last;
            // walking down from the top, the free output goes to the top input, whose old
            // output goes to the input below it, and so on.
            if let Some(mut j) = found {
                while let Some((i, _)) = self.stack.pop() {
                    let i = i as usize;
                    let old = m.in_to_out[i];
                    m.in_to_out[i] = Some(j as u16);
                    self.out_to_in[j] = Some(i as u16);
                    match old {
                        Some(o) => j = o as usize,
                        None => break,
                    }
                }
                size += 1;
            }
        }
        size
    }
}

#[cfg(test)]
#[path = "sched_tests.rs"]
mod tests;
