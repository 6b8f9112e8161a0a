//! URIO (Unbiased RIO): RIO plus per-aggregate buffer-usage policing in the congested
//! region, after FRED's isolation of non-adaptive traffic.
//!
//! Herrería-Alonso, Rodríguez-Pérez, Fernández-Veiga, Suárez-González, López-García,
//! "Unbiased RIO: an Active Queue Management Scheme for DiffServ Networks", §3 and its
//! Fig. 2 (ECUMN 2004, LNCS 3262; docs/aqm/urio.md):
//! - fairqbytes = Σ_i qbytes_i / n_a over the n_a active aggregates (eq. 1);
//! - greed degree G_i = qbytes_i / fairqbytes (eq. 2);
//! - while the arrival's RIO average lies between min_th and max_th: an aggregate with
//!   qbytes_i <= fairqbytes is admitted; a greedy one's UDP packets are dropped, its TCP
//!   packets dropped with p_TCP = min((G_i − 1)^alpha, 1) (eq. 3, alpha = 0.5);
//! - qbytes_i grows by the size of each admitted packet, nothing is subtracted on departure;
//!   every `reset_timeout` all qbytes are set to 0 and the aggregates not seen since the
//!   previous reset are purged.
//!
//! Choices (docs/aqm/urio.md):
//! - `rio_early_drop = true` (default): RIO-C decides first, exactly as `rio`; URIO's test
//!   applies to packets RIO admitted in the congested region, so URIO with one aggregate is
//!   RIO-C packet for packet (G = 1 always: no extra draw). `false` follows Fig. 2 to the
//!   letter: between the thresholds URIO's test replaces RIO's early drop.
//! - `qbytes_counts = "congested"` (default, Fig. 2): qbytes_i grows only for packets
//!   admitted while their average is between the thresholds; `"admitted"` (§3.1's prose,
//!   "when a packet is finally queued"): for every admitted packet.
//! - `reset_timeout` is not given by the paper; 1 s by default: at the paper's 2 Mb/s per
//!   aggregate, 250 packets of 1000 B per aggregate per period, so G is estimated from
//!   hundreds of packets, over several of its RTTs (14 ms to 400 ms and more with queueing).
//! - An admitted packet the buffer then refuses (overflow) is taken back out of qbytes_i.
//! - Greedy TCP packets are marked instead of dropped when RIO has `ecn` and they are
//!   ECN-capable; greedy UDP packets are always dropped (unresponsive to marks too).
//! - UDP is known from the packet: sources of `type = "udp"` flows set its flag.

use super::aggregates::{split_rio, validate_aggregates, AggregateSpec, Aggregates, Slots};
use super::rio::{Rio, RioSpec};
use super::{Aqm, QueueCtx, QueueView, Reason, Verdict};
use crate::check::Problems;
use crate::packet::Packet;
use crate::rng::Rng;
use crate::table::Table;
use crate::units::{Duration, Time};
use serde::{Deserialize, Deserializer, Serialize};

/// Which admitted packets add to qbytes_i.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum QbytesCounts {
    #[default]
    Congested,
    Admitted,
}

/// URIO's own parameters (docs/aqm/urio.md).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UrioParams {
    /// Exponent of p_TCP = min((G − 1)^alpha, 1) (eq. 3); the paper's 0.5.
    #[serde(default = "default_alpha")]
    pub alpha: f64,
    /// Period of the qbytes reset and purge.
    #[serde(default = "default_reset_timeout")]
    pub reset_timeout: Duration,
    #[serde(default = "crate::check::default_true")]
    pub rio_early_drop: bool,
    #[serde(default)]
    pub qbytes_counts: QbytesCounts,
    /// How packets are grouped into aggregates; empty: one per (src, dst) host pair.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub aggregates: Vec<AggregateSpec>,
}

fn default_alpha() -> f64 {
    0.5
}

fn default_reset_timeout() -> Duration {
    Duration(1_000_000_000)
}

/// URIO: every RIO field plus URIO's, in one table.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct UrioSpec {
    #[serde(flatten)]
    pub rio: RioSpec,
    #[serde(flatten)]
    pub urio: UrioParams,
}

impl<'de> Deserialize<'de> for UrioSpec {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let own = [
            "alpha",
            "reset_timeout",
            "rio_early_drop",
            "qbytes_counts",
            "aggregates",
        ];
        let (rio, urio) = split_rio(d, &own)?;
        Ok(UrioSpec { rio, urio })
    }
}

impl UrioSpec {
    pub fn validate(&self, a: &str, q: &QueueCtx, p: &mut Problems) {
        self.rio.validate(a, q, p);
        let al = self.urio.alpha;
        if !(al.is_finite() && al > 0.0) {
            p.err(format!("{a}.alpha"), al, "must be > 0 (eq. 3: alpha > 0)");
        }
        p.positive_time(format!("{a}.reset_timeout"), self.urio.reset_timeout);
        validate_aggregates(a, &self.urio.aggregates, q.hosts, p);
    }

    pub fn build(&self, q: &QueueCtx) -> Urio {
        Urio {
            rio: self.rio.build(q),
            alpha: self.urio.alpha,
            reset_timeout: self.urio.reset_timeout.0,
            rio_early_drop: self.urio.rio_early_drop,
            qbytes_counts: self.urio.qbytes_counts,
            aggs: Aggregates::new(&self.urio.aggregates, q.nodes),
            state: Slots::default(),
            counts: Slots::default(),
            total: 0,
            last_reset: 0,
            pending: None,
            resets: 0,
        }
    }
}

/// One active aggregate's URIO state (§3.1's three variables: its key, qbytes, timestamp).
#[derive(Clone, Debug, Default)]
pub struct AggState {
    /// Bytes admitted since the last reset (eq. 1's qbytes_i).
    pub qbytes: u64,
    pub last_seen: Time,
}

/// One aggregate's counts over the whole run (kept when its state is purged).
#[derive(Clone, Debug, Default)]
pub struct Counts {
    pub arrivals: u64,
    /// Arrivals in the congested region found greedy (qbytes_i > fairqbytes).
    pub greedy: u64,
    pub greedy_udp_drops: u64,
    pub greedy_tcp_drops: u64,
}

/// What URIO's test decides for one arrival RIO left to it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Greed {
    /// qbytes_i <= fairqbytes: admitted.
    Fair,
    /// Greedy UDP: dropped.
    Udp,
    /// Greedy TCP with this p_TCP; `dropped` by the draw.
    Tcp { p: f64, dropped: bool },
}

pub struct Urio {
    pub rio: Rio,
    alpha: f64,
    reset_timeout: Time,
    rio_early_drop: bool,
    qbytes_counts: QbytesCounts,
    aggs: Aggregates,
    pub state: Slots<AggState>,
    pub counts: Slots<Counts>,
    /// Σ_i qbytes_i.
    total: u64,
    last_reset: Time,
    /// The slot and bytes the last arrival added to qbytes, taken back on an overflow.
    pending: Option<(usize, u64)>,
    resets: u64,
}

impl Urio {
    /// fairqbytes (eq. 1) over the active aggregates; 0 with none.
    pub fn fairqbytes(&self) -> f64 {
        if self.state.is_empty() {
            0.0
        } else {
            self.total as f64 / self.state.len() as f64
        }
    }

    /// Registers an arrival of aggregate `key` at `now`; returns its state's and its
    /// counts' slots.
    pub fn seen(&mut self, key: u64, now: Time) -> (usize, usize) {
        let slot = self.state.slot(key, AggState::default);
        self.state.at(slot).last_seen = now;
        let c = self.counts.slot(key, Counts::default);
        self.counts.at(c).arrivals += 1;
        (slot, c)
    }

    /// URIO's test for an arrival in the congested region (Fig. 2's middle branch).
    /// `uniform` is the random stream (uniform on [0, 1)), scripted in the tests.
    pub fn judge_greed(
        &mut self,
        (slot, c): (usize, usize),
        udp: bool,
        mut uniform: impl FnMut() -> f64,
    ) -> Greed {
        let fair = self.fairqbytes();
        let qbytes = self.state.at(slot).qbytes;
        if qbytes as f64 <= fair {
            return Greed::Fair;
        }
        let n = self.counts.at(c);
        n.greedy += 1;
        if udp {
            n.greedy_udp_drops += 1;
            return Greed::Udp;
        }
        let g = qbytes as f64 / fair;
        let p = libm::pow(g - 1.0, self.alpha).min(1.0);
        let dropped = uniform() < p;
        n.greedy_tcp_drops += dropped as u64;
        Greed::Tcp { p, dropped }
    }

    /// Adds an admitted packet to its aggregate's qbytes.
    pub fn admit(&mut self, slot: usize, size: u32) {
        self.state.at(slot).qbytes += size as u64;
        self.total += size as u64;
        self.pending = Some((slot, size as u64));
    }

    /// The periodic reset: purge the aggregates unseen since the previous reset, then set
    /// every qbytes to 0.
    pub fn reset(&mut self, now: Time) {
        let since = self.last_reset;
        self.state.retain(|s| s.last_seen >= since);
        for (_, s) in self.state.iter_mut() {
            s.qbytes = 0;
        }
        self.total = 0;
        self.last_reset = now;
        self.pending = None;
        self.resets += 1;
    }
}

const METRICS: [&str; 11] = [
    "avg0",
    "p_b0",
    "p_a0",
    "avg1",
    "p_b1",
    "p_a1",
    "avg2",
    "p_b2",
    "p_a2",
    "n_a",
    "fairqbytes",
];

impl Aqm for Urio {
    fn on_arrival(&mut self, q: &QueueView, pkt: &Packet, now: Time, rng: &mut Rng) -> Verdict {
        self.pending = None;
        let j = self.rio.judge(q, pkt, now, rng);
        let slots = self.seen(self.aggs.key(pkt), now);
        let mut verdict = j.verdict;
        if !self.rio_early_drop && j.early_region && verdict != Verdict::Pass {
            // Fig. 2 to the letter: in the congested region URIO's test alone decides.
            verdict = Verdict::Pass;
        }
        if !matches!(verdict, Verdict::Drop(_)) {
            if j.early_region {
                verdict = match self.judge_greed(slots, pkt.udp, || rng.uniform()) {
                    Greed::Fair | Greed::Tcp { dropped: false, .. } => verdict,
                    Greed::Udp => Verdict::Drop(Reason::Early),
                    Greed::Tcp { dropped: true, .. } if self.rio.ecn() => {
                        Verdict::Mark(Reason::Early)
                    }
                    Greed::Tcp { dropped: true, .. } => Verdict::Drop(Reason::Early),
                };
            }
            let counted = j.early_region || self.qbytes_counts == QbytesCounts::Admitted;
            if counted && !matches!(verdict, Verdict::Drop(_)) {
                self.admit(slots.0, pkt.size);
            }
        }
        self.rio
            .settle(&j, matches!(verdict, Verdict::Drop(_)), now);
        verdict
    }

    fn on_departure(&mut self, q: &QueueView, pkt: &Packet, now: Time, rng: &mut Rng) -> Verdict {
        self.rio.on_departure(q, pkt, now, rng)
    }

    fn on_overflow(&mut self, q: &QueueView, now: Time) {
        if let Some((slot, bytes)) = self.pending.take() {
            self.state.at(slot).qbytes -= bytes;
            self.total -= bytes;
        }
        self.rio.on_overflow(q, now)
    }

    fn on_idle(&mut self, since: Time) {
        self.rio.on_idle(since)
    }

    fn first_timer(&self, now: Time) -> Option<Time> {
        Some(now + self.reset_timeout)
    }

    fn on_timer(&mut self, _q: &QueueView, now: Time) -> Option<Time> {
        self.reset(now);
        Some(now + self.reset_timeout)
    }

    fn metric_names(&self) -> &'static [&'static str] {
        // RIO's three per level, then URIO's two.
        match self.rio.levels.len() {
            1 => &["avg0", "p_b0", "p_a0", "n_a", "fairqbytes"],
            2 => &[
                "avg0",
                "p_b0",
                "p_a0",
                "avg1",
                "p_b1",
                "p_a1",
                "n_a",
                "fairqbytes",
            ],
            _ => &METRICS,
        }
    }

    fn metrics(&self, q: &QueueView, now: Time, out: &mut [f64]) {
        let n = 3 * self.rio.levels.len();
        self.rio.metrics(q, now, &mut out[..n]);
        out[n] = self.state.len() as f64;
        out[n + 1] = self.fairqbytes();
    }

    fn tables(&self) -> Vec<Table> {
        let rows = self.counts.sorted(&self.aggs);
        let mut t = Table::new("urio_aggregates");
        t.column_of("aggregate", &rows, |(n, _)| n.clone())
            .column_of("arrivals", &rows, |(_, s)| s.arrivals)
            .column_of("greedy", &rows, |(_, s)| s.greedy)
            .column_of("greedy_udp_drops", &rows, |(_, s)| s.greedy_udp_drops)
            .column_of("greedy_tcp_drops", &rows, |(_, s)| s.greedy_tcp_drops);
        vec![t]
    }
}

#[cfg(test)]
mod tests;
