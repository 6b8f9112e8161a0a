//! DRIO at aggregate level: RIO plus a history list that singles out the aggregates sending
//! more than their share of the highest-drop-precedence packets.
//!
//! Herrería-Alonso, Rodríguez-Pérez, Fernández-Veiga, Suárez-González, López-García,
//! "Unbiased RIO: an Active Queue Management Scheme for DiffServ Networks", §2.3, extending
//! to aggregates the Dynamic RIO of Lin, Zheng and Hou, "How to make assured services more
//! assured", ICNP 1999 (per flow). docs/aqm/drio.md.
//!
//! Upon arrival of a red packet (the highest drop precedence level: red with three levels,
//! OUT with two) while its RIO average lies between min_th and max_th: if the history list
//! of red packets' aggregates holds fewer than `list_len` entries, the packet's aggregate is
//! appended. Otherwise two entries are drawn at random and compared with it:
//! - double hit (both its aggregate): drop;
//! - one hit, one miss: drop with the aggregate's probability p_i;
//! - double miss: enqueue, and the packet's aggregate replaces the first drawn entry.
//!
//! **Reconstruction.** The paper leaves p_i's rule to the DRIO paper, which we could not
//! obtain. Ours (docs/aqm/drio.md): p_i starts at 0; each hit of a draw raises it by
//! `delta`, each double miss lowers it by `delta`, clamped to [0, 1]; a single hit drops
//! with the p_i just raised. Under it p_i climbs while the aggregate's share s of the list
//! has 2s > (1 − s)², i.e. s > 2 − √3 ≈ 0.27 (a hit is expected 2s times per draw pair, a
//! double miss (1 − s)² times), and decays otherwise. Draws are with replacement.
//!
//! Choices:
//! - RIO decides first, exactly as `rio` (its averages, early and forced drops); the list
//!   acts only on red packets RIO admitted (`rio_early_drop`), so DRIO with no red traffic
//!   is RIO packet for packet, draw for draw.
//! - With ECN, DRIO's drops are marks on ECN-capable packets, as RIO's early drops.

use super::aggregates::{split_rio, validate_aggregates, AggregateSpec, Aggregates, Slots};
use super::rio::{Rio, RioSpec};
use super::{Aqm, QueueCtx, QueueView, Reason, Verdict};
use crate::check::Problems;
use crate::packet::Packet;
use crate::rng::Rng;
use crate::table::Table;
use crate::units::Time;
use serde::{Deserialize, Deserializer, Serialize};

/// DRIO's own parameters (docs/aqm/drio.md).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DrioParams {
    /// History list length (entries): red packets' aggregates.
    #[serde(default = "default_list_len")]
    pub list_len: u32,
    /// Step of an aggregate's single-hit drop probability per hit (up) and per double
    /// miss (down).
    #[serde(default = "default_delta")]
    pub delta: f64,
    /// How packets are grouped into aggregates; empty: one per (src, dst) host pair.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub aggregates: Vec<AggregateSpec>,
}

fn default_list_len() -> u32 {
    50
}

fn default_delta() -> f64 {
    0.02
}

/// DRIO: every RIO field plus DRIO's, in one table.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DrioSpec {
    #[serde(flatten)]
    pub rio: RioSpec,
    #[serde(flatten)]
    pub drio: DrioParams,
}

impl<'de> Deserialize<'de> for DrioSpec {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let (rio, drio) = split_rio(d, &["list_len", "delta", "aggregates"])?;
        Ok(DrioSpec { rio, drio })
    }
}

impl DrioSpec {
    pub fn validate(&self, a: &str, q: &QueueCtx, p: &mut Problems) {
        self.rio.validate(a, q, p);
        if self.drio.list_len < 2 {
            p.err(
                format!("{a}.list_len"),
                self.drio.list_len,
                "must be at least 2: each decision draws two entries",
            );
        }
        let d = self.drio.delta;
        if !(d.is_finite() && d > 0.0 && d <= 1.0) {
            p.err(format!("{a}.delta"), d, "must be in (0, 1]");
        }
        validate_aggregates(a, &self.drio.aggregates, q.hosts, p);
    }

    pub fn build(&self, q: &QueueCtx) -> Drio {
        Drio {
            rio: self.rio.build(q),
            list_len: self.drio.list_len as usize,
            delta: self.drio.delta,
            aggs: Aggregates::new(&self.drio.aggregates, q.nodes),
            list: Vec::with_capacity(self.drio.list_len as usize),
            state: Slots::default(),
        }
    }
}

/// One aggregate's DRIO state and counts (whole run).
#[derive(Clone, Debug, Default)]
pub struct AggState {
    pub p: f64,
    /// Red arrivals the list judged (the list was full), and their outcomes.
    pub judged: u64,
    pub double_hits: u64,
    pub single_hits: u64,
    pub single_hit_drops: u64,
    pub double_misses: u64,
}

/// What the list decides for one red arrival.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ListOutcome {
    /// The list was not full: appended.
    Appended,
    DoubleHit,
    /// One hit; `dropped` with the aggregate's probability.
    SingleHit {
        dropped: bool,
    },
    /// Enqueued; the drawn entry at this index now holds the packet's aggregate.
    DoubleMiss {
        replaced: usize,
    },
}

pub struct Drio {
    pub rio: Rio,
    list_len: usize,
    delta: f64,
    aggs: Aggregates,
    /// The history list: aggregate keys.
    pub list: Vec<u64>,
    pub state: Slots<AggState>,
}

impl Drio {
    /// The list's decision for a red packet of aggregate `key`; `uniform` is the random
    /// stream (uniform on [0, 1)), scripted in the tests.
    pub fn judge_red(&mut self, key: u64, mut uniform: impl FnMut() -> f64) -> ListOutcome {
        let slot = self.state.slot(key, AggState::default);
        if self.list.len() < self.list_len {
            self.list.push(key);
            return ListOutcome::Appended;
        }
        let n = self.list.len();
        let mut draw = || ((uniform() * n as f64) as usize).min(n - 1);
        let (i, j) = (draw(), draw());
        let hits = (self.list[i] == key) as u32 + (self.list[j] == key) as u32;
        let delta = self.delta;
        let s = self.state.at(slot);
        s.judged += 1;
        match hits {
            2 => {
                s.p = (s.p + 2.0 * delta).min(1.0);
                s.double_hits += 1;
                ListOutcome::DoubleHit
            }
            1 => {
                s.p = (s.p + delta).min(1.0);
                s.single_hits += 1;
                let dropped = uniform() < s.p;
                s.single_hit_drops += dropped as u64;
                ListOutcome::SingleHit { dropped }
            }
            _ => {
                s.p = (s.p - delta).max(0.0);
                s.double_misses += 1;
                self.list[i] = key;
                ListOutcome::DoubleMiss { replaced: i }
            }
        }
    }
}

const METRICS: [&str; 9] = [
    "avg0", "p_b0", "p_a0", "avg1", "p_b1", "p_a1", "avg2", "p_b2", "p_a2",
];

impl Aqm for Drio {
    fn on_arrival(&mut self, q: &QueueView, pkt: &Packet, now: Time, rng: &mut Rng) -> Verdict {
        let j = self.rio.judge(q, pkt, now, rng);
        let top = self.rio.levels.len() - 1;
        let mut verdict = j.verdict;
        if !matches!(verdict, Verdict::Drop(_)) && j.level == top && j.early_region {
            let key = self.aggs.key(pkt);
            let drop = match self.judge_red(key, || rng.uniform()) {
                ListOutcome::DoubleHit | ListOutcome::SingleHit { dropped: true } => true,
                ListOutcome::SingleHit { dropped: false }
                | ListOutcome::Appended
                | ListOutcome::DoubleMiss { .. } => false,
            };
            if drop {
                verdict = if self.rio.ecn() {
                    Verdict::Mark(Reason::Early)
                } else {
                    Verdict::Drop(Reason::Early)
                };
            }
        }
        // Settled as `rio` settles its own verdicts: a mark is an admission.
        let dropped = matches!(verdict, Verdict::Drop(_));
        self.rio.settle(&j, dropped, now);
        verdict
    }

    fn on_departure(&mut self, q: &QueueView, pkt: &Packet, now: Time, rng: &mut Rng) -> Verdict {
        self.rio.on_departure(q, pkt, now, rng)
    }

    fn on_overflow(&mut self, q: &QueueView, now: Time) {
        self.rio.on_overflow(q, now)
    }

    fn on_idle(&mut self, since: Time) {
        self.rio.on_idle(since)
    }

    fn metric_names(&self) -> &'static [&'static str] {
        &METRICS[..3 * self.rio.levels.len()]
    }

    fn metrics(&self, q: &QueueView, now: Time, out: &mut [f64]) {
        self.rio.metrics(q, now, out)
    }

    fn tables(&self) -> Vec<Table> {
        let rows = self.state.sorted(&self.aggs);
        let mut t = Table::new("drio_aggregates");
        t.column_of("aggregate", &rows, |(n, _)| n.clone())
            .column_of("judged", &rows, |(_, s)| s.judged)
            .column_of("double_hits", &rows, |(_, s)| s.double_hits)
            .column_of("single_hits", &rows, |(_, s)| s.single_hits)
            .column_of("single_hit_drops", &rows, |(_, s)| s.single_hit_drops)
            .column_of("double_misses", &rows, |(_, s)| s.double_misses)
            .column_of("p", &rows, |(_, s)| s.p);
        vec![t]
    }
}

#[cfg(test)]
mod tests;
