//! Scenarios: a tagged, versioned TOML schema, parsed once and validated once at the edge.
//!
//! Parsing (serde) rejects unknown keys and wrong types; `validate` then checks values,
//! cross-field constraints and references, and reports *every* problem it finds, each with
//! the field path, the offending value and what is allowed
//! (`links[2].queue.limit_pkts = 0: must be at least 1`). Nothing is clamped.
//! Python dicts are written as TOML text and take exactly the same path, and `to_toml`
//! echoes the canonical form (units normalised, defaults written out except the optional
//! `sample_interval` and `stop`, whose defaults depend on the duration), so
//! builder == file == echo is testable.

use crate::units::{Bytes, Duration, Rate, Time};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Deserializer, Serialize};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

pub const SCHEMA_VERSION: u32 = 1;

/// One problem in a scenario: where, what was there, and what is allowed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScenarioError {
    pub path: String,
    pub value: String,
    pub message: String,
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match (self.path.is_empty(), self.value.is_empty()) {
            (true, _) => write!(f, "{}", self.message),
            (false, true) => write!(f, "{}: {}", self.path, self.message),
            (false, false) => write!(f, "{} = {}: {}", self.path, self.value, self.message),
        }
    }
}

/// All the problems found in one scenario (never empty).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScenarioErrors(pub Vec<ScenarioError>);

impl fmt::Display for ScenarioErrors {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        let n = self.0.len();
        if n > 1 {
            writeln!(f, "{n} problems in the scenario:")?;
        }
        for (i, e) in self.0.iter().enumerate() {
            if n > 1 {
                write!(f, "  - ")?;
            }
            write!(f, "{e}")?;
            if i + 1 < n {
                writeln!(f)?;
            }
        }
        Ok(())
    }
}

impl std::error::Error for ScenarioErrors {}

// ---------------------------------------------------------------------------------------
// Schema
// ---------------------------------------------------------------------------------------

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    pub schema_version: u32,
    pub simulation: Simulation,
    #[serde(default)]
    pub nodes: Vec<NodeSpec>,
    #[serde(default)]
    pub links: Vec<LinkSpec>,
    #[serde(default)]
    pub flows: Vec<FlowSpec>,
}

fn default_seed() -> u64 {
    1
}
fn zero() -> Duration {
    Duration(0)
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Simulation {
    /// Simulated time at which the run stops.
    pub duration: Duration,
    /// Statistics restart at this time; earlier events are excluded from every summary.
    #[serde(default = "zero")]
    pub warmup: Duration,
    #[serde(default = "default_seed")]
    pub seed: u64,
    /// Replication index: independent streams of the same seed.
    #[serde(default)]
    pub run: u64,
    /// Time-series sampling period; default duration / 1000.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sample_interval: Option<Duration>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NodeKind {
    Host,
    Router,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NodeSpec {
    pub name: String,
    #[serde(rename = "type")]
    pub kind: NodeKind,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinkSpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    pub a: String,
    pub b: String,
    pub bandwidth: Rate,
    pub delay: Duration,
    /// Per-packet loss on the wire, applied independently in each direction.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub loss: Option<LossSpec>,
    /// The output queue of the a→b direction (and of b→a unless `reverse_queue` is given).
    pub queue: QueueSpec,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reverse_queue: Option<QueueSpec>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct QueueSpec {
    /// Waiting packets, excluding the one on the wire (K = limit_pkts + 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit_pkts: Option<u32>,
    /// Waiting bytes, excluding the packet on the wire.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit_bytes: Option<Bytes>,
    #[serde(default)]
    pub aqm: AqmSpec,
}

/// Declares a RED variant's spec (ARED, Feng, PSAND): its own fields, then RED's shared
/// ones (gentle on by default), which `red_spec!` maps back to a `RedSpec`. A macro, not
/// `#[serde(flatten)]`, because flatten cannot be combined with `deny_unknown_fields`.
macro_rules! red_variant_spec {
    ($(#[$m:meta])* pub struct $name:ident { $($(#[$fm:meta])* pub $f:ident: $t:ty,)* }) => {
        $(#[$m])*
        pub struct $name {
            $($(#[$fm])* pub $f: $t,)*
            #[serde(default)]
            pub w_q: Weight,
            #[serde(default = "default_true")]
            pub gentle: bool,
            #[serde(default = "default_count_rule")]
            pub count_rule: CountRuleSpec,
            #[serde(default)]
            pub byte_mode: bool,
            #[serde(default = "default_mean_pktsize")]
            pub mean_pktsize: Bytes,
            #[serde(default)]
            pub ecn: bool,
            #[serde(default)]
            pub mark_above_max_th: bool,
        }
    };
}

/// The RED a RED variant's spec starts from (ARED, Feng, PSAND share RED's fields).
macro_rules! red_spec {
    ($s:expr, $min_th:expr, $max_th:expr) => {
        RedSpec {
            min_th: $min_th,
            max_th: $max_th,
            max_p: $s.max_p,
            w_q: $s.w_q,
            gentle: $s.gentle,
            count_rule: $s.count_rule,
            byte_mode: $s.byte_mode,
            mean_pktsize: $s.mean_pktsize,
            ecn: $s.ecn,
            mark_above_max_th: $s.mark_above_max_th,
        }
    };
}

/// The AQM of a queue: a table tagged by `type`.
#[derive(Clone, Debug, PartialEq, Serialize, Default)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum AqmSpec {
    #[default]
    Droptail,
    Red(RedSpec),
    Ared(AredSpec),
    Rem(RemSpec),
    FengRed(FengRedSpec),
    Psand(PsandSpec),
    Pi(PiSpec),
    Blue(BlueSpec),
    Sfb(SfbSpec),
    Codel(CodelSpec),
    Pie(PieSpec),
    FqCodel(FqCodelSpec),
}

/// FQ-CoDel parameters (docs/aqm/fq_codel.md; RFC 8290 and Linux defaults). The queue's
/// limit is shared by all flows.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FqCodelSpec {
    #[serde(default = "default_fq_flows")]
    pub flows: u32,
    #[serde(default = "default_mtu")]
    pub quantum: Bytes,
    #[serde(default = "default_drop_batch")]
    pub drop_batch: u32,
    #[serde(default = "default_codel_target")]
    pub target: Duration,
    #[serde(default = "default_codel_interval")]
    pub interval: Duration,
    #[serde(default = "default_mtu")]
    pub mtu: Bytes,
    #[serde(default = "default_true")]
    pub ecn: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ce_threshold: Option<Duration>,
}

impl FqCodelSpec {
    /// The CoDel of each flow: validated and built as CoDel's fields.
    pub fn codel(&self) -> CodelSpec {
        CodelSpec {
            target: self.target,
            interval: self.interval,
            mtu: self.mtu,
            ecn: self.ecn,
            ce_threshold: self.ce_threshold,
        }
    }
}

fn default_fq_flows() -> u32 {
    1024
}
fn default_drop_batch() -> u32 {
    64
}

/// PIE parameters (docs/aqm/pie.md; RFC 8033 and Linux defaults).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PieSpec {
    #[serde(default = "default_pie_target")]
    pub target: Duration,
    #[serde(default = "default_pie_target")]
    pub t_update: Duration,
    /// Per second.
    #[serde(default = "default_pie_alpha")]
    pub alpha: f64,
    /// Per second.
    #[serde(default = "default_pie_beta")]
    pub beta: f64,
    #[serde(default = "default_max_burst")]
    pub max_burst: Duration,
    #[serde(default)]
    pub ecn: bool,
    /// Highest p at which ECN-capable packets are marked (default 0.1; needs ecn).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mark_ecn_th: Option<f64>,
    #[serde(default)]
    pub byte_mode: bool,
    #[serde(default = "default_mtu")]
    pub mtu: Bytes,
    #[serde(default)]
    pub dq_rate_estimator: bool,
    /// Bytes per departure-rate measurement cycle (default 16 KiB; needs dq_rate_estimator).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dq_threshold: Option<Bytes>,
    #[serde(default = "default_true")]
    pub derandomize: bool,
}

fn default_pie_target() -> Duration {
    Duration(15_000_000)
}
fn default_pie_alpha() -> f64 {
    0.125
}
fn default_pie_beta() -> f64 {
    1.25
}
fn default_max_burst() -> Duration {
    Duration(150_000_000)
}

/// CoDel parameters (docs/aqm/codel.md; RFC 8289 and Linux defaults).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CodelSpec {
    #[serde(default = "default_codel_target")]
    pub target: Duration,
    #[serde(default = "default_codel_interval")]
    pub interval: Duration,
    /// No signal while at most this many bytes wait behind the departing packet.
    #[serde(default = "default_mtu")]
    pub mtu: Bytes,
    #[serde(default)]
    pub ecn: bool,
    /// Step-mark ECT packets whose sojourn exceeds this (Linux `ce_threshold`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ce_threshold: Option<Duration>,
}

impl Default for CodelSpec {
    fn default() -> Self {
        CodelSpec {
            target: default_codel_target(),
            interval: default_codel_interval(),
            mtu: default_mtu(),
            ecn: false,
            ce_threshold: None,
        }
    }
}

fn default_codel_target() -> Duration {
    Duration(5_000_000)
}
fn default_codel_interval() -> Duration {
    Duration(100_000_000)
}
fn default_mtu() -> Bytes {
    Bytes(1514)
}

red_variant_spec! {
    /// Self-configuring RED (docs/aqm/feng.md). Defaults from the PSAND paper's Table I.
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct FengRedSpec {
        #[serde(default = "default_feng_min_th")]
        pub min_th: f64,
        #[serde(default = "default_feng_max_th")]
        pub max_th: f64,
        /// The initial max_p.
        #[serde(default = "default_feng_max_p")]
        pub max_p: f64,
        /// max_p ← max_p / alpha on entering Below.
        #[serde(default = "default_feng_alpha")]
        pub alpha: f64,
        /// max_p ← max_p · beta on entering Above.
        #[serde(default = "default_feng_beta")]
        pub beta: f64,
        #[serde(default = "default_one")]
        pub top: f64,
        #[serde(default)]
        pub bottom: f64,
    }
}

impl FengRedSpec {
    /// The RED this one starts from (validated and built as RED).
    pub fn red(&self) -> RedSpec {
        red_spec!(self, self.min_th, self.max_th)
    }
}

fn default_feng_min_th() -> f64 {
    5.0
}
fn default_feng_max_th() -> f64 {
    15.0
}
fn default_feng_max_p() -> f64 {
    0.02
}
fn default_feng_alpha() -> f64 {
    3.0
}
fn default_feng_beta() -> f64 {
    2.0
}
fn default_one() -> f64 {
    1.0
}

red_variant_spec! {
    /// PSAND (docs/aqm/psand.md). Thresholds default to the paper's rule from the target and
    /// the buffer capacity; other defaults from the paper's Table I.
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct PsandSpec {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub min_th: Option<f64>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub max_th: Option<f64>,
        /// K_T, the target average queue, packets.
        #[serde(default = "default_psand_target")]
        pub target: f64,
        #[serde(default = "default_psand_coef")]
        pub coef: f64,
        #[serde(default = "default_psand_gamma")]
        pub gamma: f64,
        #[serde(default = "default_ared_interval")]
        pub interval: Duration,
        /// The initial max_p.
        #[serde(default = "default_max_p")]
        pub max_p: f64,
        #[serde(default = "default_bottom")]
        pub lower: f64,
        #[serde(default = "default_psand_upper")]
        pub upper: f64,
    }
}

impl PsandSpec {
    /// The buffer capacity B in packets for the paper's threshold rule: the packet limit,
    /// or the byte limit in packets of mean_pktsize.
    pub fn buffer_pkts(&self, q: &QueueSpec) -> f64 {
        match (q.limit_pkts, q.limit_bytes) {
            (Some(p), _) => p as f64,
            (None, Some(b)) => b.0 as f64 / self.mean_pktsize.0.max(1) as f64,
            (None, None) => 0.0,
        }
    }

    /// The thresholds in packets: explicit values override the paper's rule.
    pub fn thresholds(&self, q: &QueueSpec) -> (f64, f64) {
        let (lo, hi) = crate::aqm::psand::auto_thresholds(self.target, self.buffer_pkts(q));
        (self.min_th.unwrap_or(lo), self.max_th.unwrap_or(hi))
    }

    /// The RED this PSAND starts from, with the given thresholds.
    pub fn red(&self, min_th: f64, max_th: f64) -> RedSpec {
        red_spec!(self, min_th, max_th)
    }
}

fn default_psand_target() -> f64 {
    10.0
}
fn default_psand_coef() -> f64 {
    1.75
}
fn default_psand_gamma() -> f64 {
    1.5
}
fn default_psand_upper() -> f64 {
    0.75
}

/// PI controller (docs/aqm/pi.md). Defaults are ns-2's `Queue/PI`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PiSpec {
    #[serde(default = "default_pi_a")]
    pub a: f64,
    #[serde(default = "default_pi_b")]
    pub b: f64,
    /// Sampling frequency, Hz.
    #[serde(default = "default_pi_w")]
    pub w: f64,
    /// Reference queue, packets.
    #[serde(default = "default_pi_q_ref")]
    pub q_ref: f64,
    #[serde(default)]
    pub byte_mode: bool,
    #[serde(default = "default_pi_mean_pktsize")]
    pub mean_pktsize: Bytes,
    #[serde(default)]
    pub ecn: bool,
}

impl PiSpec {
    /// The sampling period 1/w in nanoseconds, rounded.
    pub fn period(&self) -> u64 {
        libm::round(1e9 / self.w) as u64
    }
}

fn default_pi_a() -> f64 {
    1.822e-5
}
fn default_pi_b() -> f64 {
    1.816e-5
}
fn default_pi_w() -> f64 {
    170.0
}
fn default_pi_q_ref() -> f64 {
    50.0
}
fn default_pi_mean_pktsize() -> Bytes {
    Bytes(500)
}

/// REM parameters (docs/aqm/rem.md); defaults are the paper's (§4) and ns-2's.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RemSpec {
    #[serde(default = "default_rem_gamma")]
    pub gamma: f64,
    #[serde(default = "default_rem_phi")]
    pub phi: f64,
    #[serde(default = "default_rem_alpha")]
    pub alpha: f64,
    /// Target backlog b*, packets (of mean_pktsize in byte mode).
    #[serde(default = "default_rem_b_star")]
    pub b_star: f64,
    /// Price update period.
    #[serde(default = "default_rem_interval")]
    pub interval: Duration,
    /// "rate": eq. (2); "queue": eq. (3).
    #[serde(default = "default_rem_update")]
    pub update: RemUpdateSpec,
    /// EWMA weight of the input rate in eq. (2); default 1 (no smoothing).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub w_x: Option<f64>,
    #[serde(default)]
    pub byte_mode: bool,
    #[serde(default = "default_mean_pktsize_1000")]
    pub mean_pktsize: Bytes,
    #[serde(default)]
    pub ecn: bool,
    /// Where ECN marks are applied; default "departure" (ns-2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mark_at: Option<MarkPointSpec>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RemUpdateSpec {
    Rate,
    Queue,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MarkPointSpec {
    Arrival,
    Departure,
}

fn default_rem_gamma() -> f64 {
    0.001
}
fn default_rem_phi() -> f64 {
    1.001
}
fn default_rem_alpha() -> f64 {
    0.1
}
fn default_rem_b_star() -> f64 {
    20.0
}
fn default_rem_interval() -> Duration {
    Duration(2_000_000)
}
fn default_rem_update() -> RemUpdateSpec {
    RemUpdateSpec::Rate
}
fn default_mean_pktsize_1000() -> Bytes {
    Bytes(1000)
}

/// BLUE parameters (docs/aqm/blue.md). Defaults: the NITK ns-3 port of Feng's BLUE
/// (δ1 = 0.0025, δ2 = 0.00025, freeze_time = 100 ms).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BlueSpec {
    /// δ1: added to p_m on a buffer overflow (or a queue above increase_threshold).
    #[serde(default = "default_blue_d1")]
    pub d1: f64,
    /// δ2: subtracted from p_m when the buffer empties.
    #[serde(default = "default_blue_d2")]
    pub d2: f64,
    #[serde(default = "default_blue_freeze")]
    pub freeze_time: Duration,
    /// One more decrement per freeze_time of idleness, applied at the next arrival.
    #[serde(default = "default_true")]
    pub idle_catchup: bool,
    /// L in packets (× mean_pktsize in byte mode): an arrival finding more waiting also
    /// raises p_m (the paper's variant). Absent: overflow only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub increase_threshold: Option<f64>,
    #[serde(default)]
    pub byte_mode: bool,
    #[serde(default = "default_mean_pktsize")]
    pub mean_pktsize: Bytes,
    #[serde(default)]
    pub ecn: bool,
}

fn default_blue_d1() -> f64 {
    0.0025
}
fn default_blue_d2() -> f64 {
    0.00025
}
fn default_blue_freeze() -> Duration {
    Duration(100_000_000)
}

/// Stochastic Fair Blue parameters (docs/aqm/sfb.md). Defaults: Linux `sch_sfb.c`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SfbSpec {
    #[serde(default = "default_sfb_levels")]
    pub levels: u32,
    #[serde(default = "default_sfb_bins")]
    pub bins: u32,
    /// Packets (× mean_pktsize in byte mode) in a bin above which its p rises.
    #[serde(default = "default_sfb_bin_size")]
    pub bin_size: u32,
    /// Packets (× mean_pktsize in byte mode) in a flow's least loaded bin at which its
    /// arrivals are dropped.
    #[serde(default = "default_sfb_max")]
    pub max: u32,
    #[serde(default = "default_sfb_increment")]
    pub increment: f64,
    #[serde(default = "default_sfb_decrement")]
    pub decrement: f64,
    /// Packets per second admitted from flows at p = 1.
    #[serde(default = "default_sfb_penalty_rate")]
    pub penalty_rate: f64,
    #[serde(default = "default_sfb_penalty_burst")]
    pub penalty_burst: u32,
    /// "0s" disables rehashing.
    #[serde(default = "default_sfb_rehash")]
    pub rehash_interval: Duration,
    #[serde(default = "default_sfb_warmup")]
    pub warmup_time: Duration,
    #[serde(default)]
    pub byte_mode: bool,
    #[serde(default = "default_mean_pktsize")]
    pub mean_pktsize: Bytes,
    #[serde(default = "default_true")]
    pub ecn: bool,
}

fn default_sfb_levels() -> u32 {
    8
}
fn default_sfb_bins() -> u32 {
    16
}
fn default_sfb_bin_size() -> u32 {
    20
}
fn default_sfb_max() -> u32 {
    25
}
fn default_sfb_increment() -> f64 {
    0.001
}
fn default_sfb_decrement() -> f64 {
    0.000167
}
fn default_sfb_penalty_rate() -> f64 {
    10.0
}
fn default_sfb_penalty_burst() -> u32 {
    20
}
fn default_sfb_rehash() -> Duration {
    Duration(600 * crate::units::NS_PER_SEC)
}
fn default_sfb_warmup() -> Duration {
    Duration(60 * crate::units::NS_PER_SEC)
}

/// Bounds on SFB's bin array (two sets of levels × bins are allocated per port).
pub const SFB_MAX_LEVELS: u32 = 32;
pub const SFB_MAX_BINS: u32 = 1024;

red_variant_spec! {
    /// Adaptive RED parameters (docs/aqm/ared.md). Thresholds default to ARED's automatic
    /// values (min_th = max(5, target_delay·C/2), max_th = 3·min_th).
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct AredSpec {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub min_th: Option<f64>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub max_th: Option<f64>,
        #[serde(default = "default_target_delay")]
        pub target_delay: Duration,
        #[serde(default = "default_ared_interval")]
        pub interval: Duration,
        /// The initial max_p.
        #[serde(default = "default_max_p")]
        pub max_p: f64,
        #[serde(default = "default_alpha")]
        pub alpha: f64,
        #[serde(default = "default_beta")]
        pub beta: f64,
        #[serde(default = "default_top")]
        pub top: f64,
        #[serde(default = "default_bottom")]
        pub bottom: f64,
    }
}

impl AredSpec {
    /// The RED this ARED starts from, with the given thresholds: ARED is RED plus a
    /// controller of max_p, so the shared fields are validated and built as RED's.
    pub fn red(&self, min_th: f64, max_th: f64) -> RedSpec {
        red_spec!(self, min_th, max_th)
    }
}

fn default_target_delay() -> Duration {
    Duration(5_000_000)
}
fn default_ared_interval() -> Duration {
    Duration(500_000_000)
}
fn default_alpha() -> f64 {
    0.01
}
fn default_beta() -> f64 {
    0.9
}
fn default_top() -> f64 {
    0.5
}
fn default_bottom() -> f64 {
    0.01
}
fn default_true() -> bool {
    true
}

/// RED parameters (docs/aqm/red.md). Thresholds in packets (× mean_pktsize in byte mode).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RedSpec {
    pub min_th: f64,
    pub max_th: f64,
    #[serde(default = "default_max_p")]
    pub max_p: f64,
    /// A weight in (0, 1], or "auto" (1 − exp(−1/C), C = link packets/s).
    #[serde(default)]
    pub w_q: Weight,
    #[serde(default)]
    pub gentle: bool,
    #[serde(default = "default_count_rule")]
    pub count_rule: CountRuleSpec,
    #[serde(default)]
    pub byte_mode: bool,
    #[serde(default = "default_mean_pktsize")]
    pub mean_pktsize: Bytes,
    #[serde(default)]
    pub ecn: bool,
    #[serde(default)]
    pub mark_above_max_th: bool,
}

fn default_max_p() -> f64 {
    0.1
}
fn default_count_rule() -> CountRuleSpec {
    CountRuleSpec::Ns2Wait
}
fn default_mean_pktsize() -> Bytes {
    Bytes(1000)
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CountRuleSpec {
    Uniform,
    Ns2,
    Ns2Wait,
    Independent,
}

/// A weight given as a number or as the string "auto" — never a magic sentinel number.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub enum Weight {
    #[default]
    Auto,
    Value(f64),
}

impl Serialize for Weight {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Weight::Auto => s.serialize_str("auto"),
            Weight::Value(v) => s.serialize_f64(*v),
        }
    }
}

impl<'de> Deserialize<'de> for Weight {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl serde::de::Visitor<'_> for V {
            type Value = Weight;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a number in (0, 1] or \"auto\"")
            }
            fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<Weight, E> {
                Ok(Weight::Value(v))
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<Weight, E> {
                Ok(Weight::Value(v as f64))
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Weight, E> {
                Ok(Weight::Value(v as f64))
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Weight, E> {
                if v == "auto" {
                    Ok(Weight::Auto)
                } else {
                    Err(E::custom(format!(
                        "invalid weight \"{v}\": expected a number in (0, 1] or \"auto\""
                    )))
                }
            }
        }
        d.deserialize_any(V)
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct NoParams {}

impl<'de> Deserialize<'de> for AqmSpec {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let (ty, rest) = tagged_table::<D>(
            d,
            &[
                "droptail", "red", "ared", "rem", "feng_red", "psand", "pi", "blue", "sfb",
                "codel", "pie", "fq_codel",
            ],
        )?;
        match ty.as_str() {
            "droptail" => inner::<NoParams, D::Error>(rest).map(|_| AqmSpec::Droptail),
            "red" => inner::<RedSpec, D::Error>(rest).map(AqmSpec::Red),
            "ared" => inner::<AredSpec, D::Error>(rest).map(AqmSpec::Ared),
            "rem" => inner::<RemSpec, D::Error>(rest).map(AqmSpec::Rem),
            "feng_red" => inner::<FengRedSpec, D::Error>(rest).map(AqmSpec::FengRed),
            "psand" => inner::<PsandSpec, D::Error>(rest).map(AqmSpec::Psand),
            "pi" => inner::<PiSpec, D::Error>(rest).map(AqmSpec::Pi),
            "blue" => inner::<BlueSpec, D::Error>(rest).map(AqmSpec::Blue),
            "sfb" => inner::<SfbSpec, D::Error>(rest).map(AqmSpec::Sfb),
            "codel" => inner::<CodelSpec, D::Error>(rest).map(AqmSpec::Codel),
            "pie" => inner::<PieSpec, D::Error>(rest).map(AqmSpec::Pie),
            "fq_codel" => inner::<FqCodelSpec, D::Error>(rest).map(AqmSpec::FqCodel),
            _ => unreachable!("tagged_table checked the type"),
        }
    }
}

/// Per-packet loss on a link direction.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum LossSpec {
    /// Each packet is lost independently with probability p.
    Bernoulli { p: f64 },
    /// Two-state Markov chain evaluated once per packet: from Good to Bad with probability
    /// p_gb, Bad to Good with p_bg; a packet is lost with loss_good or loss_bad.
    GilbertElliott {
        p_gb: f64,
        p_bg: f64,
        loss_good: f64,
        loss_bad: f64,
    },
    /// Deterministic, for tests: the k-th *data* packet (0-based; ACKs are not counted)
    /// transmitted in each direction is dropped if k is in `drop`, or marked CE if k is in
    /// `mark` and the packet is ECN-capable (ns-3's ListErrorModel, plus marks).
    Scripted { drop: Vec<u64>, mark: Vec<u64> },
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ScriptedParams {
    #[serde(default)]
    drop: Vec<u64>,
    #[serde(default)]
    mark: Vec<u64>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct BernoulliParams {
    p: f64,
}

fn default_loss_bad() -> f64 {
    1.0
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct GilbertParams {
    p_gb: f64,
    p_bg: f64,
    #[serde(default)]
    loss_good: f64,
    #[serde(default = "default_loss_bad")]
    loss_bad: f64,
}

impl<'de> Deserialize<'de> for LossSpec {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let (ty, rest) = tagged_table::<D>(d, &["bernoulli", "gilbert_elliott", "scripted"])?;
        match ty.as_str() {
            "bernoulli" => {
                inner::<BernoulliParams, D::Error>(rest).map(|b| LossSpec::Bernoulli { p: b.p })
            }
            "gilbert_elliott" => {
                inner::<GilbertParams, D::Error>(rest).map(|g| LossSpec::GilbertElliott {
                    p_gb: g.p_gb,
                    p_bg: g.p_bg,
                    loss_good: g.loss_good,
                    loss_bad: g.loss_bad,
                })
            }
            "scripted" => inner::<ScriptedParams, D::Error>(rest).map(|s| LossSpec::Scripted {
                drop: s.drop,
                mark: s.mark,
            }),
            _ => unreachable!("tagged_table checked the type"),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TcpVariant {
    Reno,
    Newreno,
    Sack,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DupackResponseSpec {
    Halve,
    RetransmitOnly,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FlowKind {
    /// Constant bit rate UDP.
    Cbr,
    /// Poisson packet arrivals.
    Poisson,
    /// On/off UDP: CBR at `rate` during on periods.
    Onoff,
    /// A TCP connection (bulk, or finite with `bytes`).
    Tcp,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SizeDist {
    Fixed,
    /// Exponential with mean `packet_size`, rounded to the nearest byte, at least 1 byte.
    Exponential,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PeriodDist {
    Exponential,
    Pareto,
}

/// A traffic flow from one host to another. Which fields apply depends on `type`:
/// cbr: rate; poisson: rate or pkt_rate, size_dist; onoff: rate, on_time, off_time,
/// period_dist, shape (pareto only).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FlowSpec {
    pub name: String,
    #[serde(rename = "type")]
    pub kind: FlowKind,
    pub src: String,
    pub dst: String,
    pub packet_size: Bytes,
    #[serde(default = "zero")]
    pub start: Duration,
    /// Defaults to the end of the run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop: Option<Duration>,
    /// Send packets ECN-capable (ECT(0)).
    #[serde(default)]
    pub ecn: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate: Option<Rate>,
    /// Mean packets per second (poisson only; exclusive with rate).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pkt_rate: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size_dist: Option<SizeDist>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub on_time: Option<Duration>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub off_time: Option<Duration>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub period_dist: Option<PeriodDist>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shape: Option<f64>,
    /// TCP (type = "tcp") fields; defaults in `TcpDefaults` (ns-2's, see docs/tcp.md).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub variant: Option<TcpVariant>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bytes: Option<Bytes>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ack_size: Option<Bytes>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_window: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub initial_cwnd: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delayed_ack: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delack_timeout: Option<Duration>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_rto: Option<Duration>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub initial_rto: Option<Duration>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_rto: Option<Duration>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub granularity: Option<Duration>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dupack_response: Option<DupackResponseSpec>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limited_transmit: Option<bool>,
    /// Record cwnd, ssthresh and smoothed RTT at every sample (TCP only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trace: Option<bool>,
}

/// Defaults of the TCP fields: ns-2.35's (`tcl/lib/ns-default.tcl`), except `max_window`,
/// whose ns-2 default of 20 segments silently caps throughput on any modern path.
pub mod tcp_defaults {
    use crate::units::{Time, NS_PER_SEC};
    pub const ACK_SIZE: u64 = 40;
    pub const MAX_WINDOW: u32 = 10_000;
    pub const INITIAL_CWND: f64 = 2.0;
    pub const DELACK_TIMEOUT: Time = NS_PER_SEC / 10;
    pub const MIN_RTO: Time = NS_PER_SEC / 5;
    pub const INITIAL_RTO: Time = 3 * NS_PER_SEC;
    pub const MAX_RTO: Time = 60 * NS_PER_SEC;
    pub const GRANULARITY: Time = NS_PER_SEC / 100;
}

// ---------------------------------------------------------------------------------------
// Tagged tables: `type` selects a struct whose own unknown keys are errors, and errors
// inside keep their path (serde's internally tagged enums lose it).
// ---------------------------------------------------------------------------------------

/// Marks an inner path inside a serde error message so `parse` can splice it into the path.
const INNER: char = '\u{1}';

fn tagged_table<'de, D: Deserializer<'de>>(
    d: D,
    types: &[&str],
) -> Result<(String, toml::Table), D::Error> {
    use serde::de::Error;
    let mut t = toml::Table::deserialize(d)?;
    let allowed = types
        .iter()
        .map(|t| format!("\"{t}\""))
        .collect::<Vec<_>>()
        .join(", ");
    match t.remove("type") {
        None => Err(D::Error::custom(format!(
            "missing field `type`; expected one of {allowed}"
        ))),
        Some(toml::Value::String(s)) if types.contains(&s.as_str()) => Ok((s, t)),
        Some(v) => Err(D::Error::custom(format!(
            "{INNER}type{INNER}{v}{INNER}unknown type; expected one of {allowed}"
        ))),
    }
}

fn inner<T: DeserializeOwned, E: serde::de::Error>(t: toml::Table) -> Result<T, E> {
    serde_path_to_error::deserialize(toml::Value::Table(t)).map_err(|e| {
        let path = e.path().to_string();
        let msg = e.into_inner().message().trim().to_string();
        // An error from a nested tagged table already carries its own inner marker.
        match msg.strip_prefix(INNER) {
            Some(rest) => {
                let (p2, rest) = rest.split_once(INNER).unwrap_or(("", rest));
                let joined = if path == "." {
                    p2.to_string()
                } else {
                    format!("{path}.{p2}")
                };
                E::custom(format!("{INNER}{joined}{INNER}{rest}"))
            }
            None => E::custom(format!("{INNER}{path}{INNER}{INNER}{msg}")),
        }
    })
}

// ---------------------------------------------------------------------------------------
// Parsing
// ---------------------------------------------------------------------------------------

/// Parses TOML text into a scenario (syntax, types, unknown keys), without validating.
pub fn parse(text: &str) -> Result<Scenario, ScenarioErrors> {
    let de = toml::de::Deserializer::parse(text).map_err(|e| {
        ScenarioErrors(vec![ScenarioError {
            path: String::new(),
            value: String::new(),
            message: format!("TOML syntax error: {}", e.to_string().trim()),
        }])
    })?;
    serde_path_to_error::deserialize::<_, Scenario>(de).map_err(|e| {
        let outer = e.path().to_string();
        let raw = e.into_inner().message().trim().to_string();
        let (path, value, message) = match raw.strip_prefix(INNER) {
            Some(rest) => {
                let mut parts = rest.splitn(3, INNER);
                let (p, v, m) = (
                    parts.next().unwrap_or(""),
                    parts.next().unwrap_or(""),
                    parts.next().unwrap_or(""),
                );
                let path = match (outer.as_str(), p) {
                    (".", p) => p.to_string(),
                    (o, "") | (o, ".") => o.to_string(),
                    (o, p) => format!("{o}.{p}"),
                };
                (path, v.to_string(), m.to_string())
            }
            None => (
                if outer == "." { String::new() } else { outer },
                String::new(),
                raw,
            ),
        };
        ScenarioErrors(vec![ScenarioError {
            path,
            value,
            message: integer_range_message(&message),
        }])
    })
}

/// serde names Rust types ("invalid value: integer `-1`, expected u32"); a user needs the
/// allowed range ("integer `-1`: must be an integer from 0 to 4294967295").
fn integer_range_message(msg: &str) -> String {
    let Some((what, ty)) = msg.rsplit_once(", expected ") else {
        return msg.to_string();
    };
    let range = match ty {
        "u8" => "from 0 to 255",
        "u16" => "from 0 to 65535",
        "u32" => "from 0 to 4294967295",
        // TOML integers are 64-bit signed: the largest a file can hold.
        "u64" | "usize" => "from 0 to 9223372036854775807",
        "i32" => "from -2147483648 to 2147483647",
        "i64" => "from -9223372036854775808 to 9223372036854775807",
        _ => return msg.to_string(),
    };
    let found = what
        .strip_prefix("invalid value: ")
        .or_else(|| what.strip_prefix("invalid type: "))
        .unwrap_or(what);
    format!("{found}: must be an integer {range}")
}

/// Parses and validates.
pub fn load(text: &str) -> Result<Scenario, ScenarioErrors> {
    let s = parse(text)?;
    s.validate()?;
    Ok(s)
}

impl Scenario {
    /// The canonical TOML form: units normalised, defaults written out (except the optional
    /// fields whose default depends on `duration`).
    pub fn to_toml(&self) -> String {
        toml::to_string(self).expect("a parsed scenario always serialises")
    }

    pub fn sample_interval(&self) -> Time {
        self.simulation
            .sample_interval
            .map(|d| d.0)
            .unwrap_or((self.simulation.duration.0 / 1000).max(1))
    }

    pub fn node_index(&self, name: &str) -> Option<usize> {
        self.nodes.iter().position(|n| n.name == name)
    }

    /// Checks everything that parsing cannot: values, cross-field rules, references, routes.
    pub fn validate(&self) -> Result<(), ScenarioErrors> {
        let mut v = Validator::default();
        v.scenario(self);
        if v.errors.is_empty() {
            Ok(())
        } else {
            Err(ScenarioErrors(v.errors))
        }
    }
}

// ---------------------------------------------------------------------------------------
// Validation
// ---------------------------------------------------------------------------------------

#[derive(Default)]
struct Validator {
    errors: Vec<ScenarioError>,
}

const MAX_PACKET: u64 = 65_535;
/// Time-series samples per queue: 10^7 samples of a few columns is already ~100 MB.
const MAX_SAMPLES: u64 = 10_000_000;
/// Time-series values of a run across all queues and traced flows (f64: 400 MB).
const MAX_SERIES_VALUES: u64 = 50_000_000;
/// Longest accepted time: far below where sums of event times overflow u64 nanoseconds.
const MAX_TIME: Time = 1_000_000 * crate::units::NS_PER_SEC;
/// Poisson packet rates: mean gaps are drawn in whole nanoseconds, so a mean gap below 1 ns
/// rounds to 0 and time stops; one above MAX_TIME could overflow the clock.
const MAX_PPS: f64 = 1e9;
const MIN_PPS: f64 = 1e-6;

impl Validator {
    fn err(
        &mut self,
        path: impl Into<String>,
        value: impl fmt::Display,
        message: impl Into<String>,
    ) {
        self.errors.push(ScenarioError {
            path: path.into(),
            value: value.to_string(),
            message: message.into(),
        });
    }

    fn probability(&mut self, path: String, p: f64) {
        if !(p.is_finite() && (0.0..=1.0).contains(&p)) {
            self.err(path, p, "must be a probability in [0, 1]");
        }
    }

    fn time_at_most(&mut self, path: String, d: Duration) {
        if d.0 > MAX_TIME {
            self.err(
                path,
                format!("\"{}\"", crate::units::format_time(d.0)),
                format!(
                    "must be <= \"{}\" (about 11.6 days; keeps event times far from overflow)",
                    crate::units::format_time(MAX_TIME)
                ),
            );
        }
    }

    /// Names become result labels and RNG stream paths (`flows/<name>`), and queue names
    /// are `from->to`: a small alphabet keeps all of those unambiguous.
    fn name(&mut self, path: String, name: &str, seen: &mut BTreeSet<String>, what: &str) {
        let ok = |c: char| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | ':');
        if name.is_empty() || !name.chars().all(ok) {
            self.err(
                path,
                format!("\"{name}\""),
                "must be non-empty and use only ASCII letters, digits, '_', '-', '.' and ':'",
            );
        } else if !seen.insert(name.to_string()) {
            self.err(
                path,
                format!("\"{name}\""),
                format!("duplicate {what} name; names must be unique"),
            );
        }
    }

    fn scenario(&mut self, s: &Scenario) {
        if s.schema_version != SCHEMA_VERSION {
            self.err(
                "schema_version",
                s.schema_version,
                format!("unsupported; this aqmlab reads {SCHEMA_VERSION}"),
            );
        }
        let sim = &s.simulation;
        if sim.duration.0 == 0 {
            self.err("simulation.duration", "\"0ns\"", "must be > 0");
        }
        self.time_at_most("simulation.duration".into(), sim.duration);
        if sim.warmup.0 >= sim.duration.0 && sim.duration.0 > 0 {
            self.err(
                "simulation.warmup",
                format!("\"{}\"", crate::units::format_time(sim.warmup.0)),
                format!(
                    "must be < simulation.duration = \"{}\"",
                    crate::units::format_time(sim.duration.0)
                ),
            );
        }
        if let Some(si) = sim.sample_interval {
            if si.0 == 0 {
                self.err("simulation.sample_interval", "\"0ns\"", "must be > 0");
            } else if si.0 > sim.duration.0 {
                self.err(
                    "simulation.sample_interval",
                    format!("\"{}\"", crate::units::format_time(si.0)),
                    "must be <= simulation.duration",
                );
            }
        }

        let duration_ok = sim.duration.0 > 0 && sim.duration.0 <= MAX_TIME;
        if duration_ok && sim.sample_interval.is_none_or(|si| si.0 > 0) {
            let samples = sim.duration.0 / s.sample_interval();
            if samples > MAX_SAMPLES {
                self.err(
                    "simulation.sample_interval",
                    format!("\"{}\"", crate::units::format_time(s.sample_interval())),
                    format!(
                        "gives {samples} samples per queue over simulation.duration; at most \
                         {MAX_SAMPLES} are recorded (raise the interval)"
                    ),
                );
            } else {
                // Every queue records at least its length (packets, bytes) and six counters
                // (AQMs add their own); each traced flow four series.
                let queues = 2 * s.links.len() as u64;
                let traced = s.flows.iter().filter(|f| f.trace == Some(true)).count() as u64;
                let series = 8 * queues + 4 * traced;
                let values = (samples + 1).saturating_mul(series);
                if values > MAX_SERIES_VALUES {
                    self.err(
                        "simulation.sample_interval",
                        format!("\"{}\"", crate::units::format_time(s.sample_interval())),
                        format!(
                            "records at least {values} time-series values ({} samples x {series} \
                             series: {queues} queues x 8, {traced} traced flows x 4); at most \
                             {MAX_SERIES_VALUES} (400 MB) are kept: raise the interval or trace \
                             fewer flows",
                            samples + 1
                        ),
                    );
                }
            }
        }

        let mut names = BTreeSet::new();
        for (i, n) in s.nodes.iter().enumerate() {
            self.name(format!("nodes[{i}].name"), &n.name, &mut names, "node");
        }
        if s.nodes.is_empty() {
            self.err("nodes", "[]", "a scenario needs at least one node");
        }
        let index: BTreeMap<&str, usize> = s
            .nodes
            .iter()
            .enumerate()
            .map(|(i, n)| (n.name.as_str(), i))
            .collect();

        let mut link_names = BTreeSet::new();
        let mut pairs = BTreeMap::new();
        for (i, l) in s.links.iter().enumerate() {
            let p = format!("links[{i}]");
            if let Some(name) = &l.name {
                self.name(format!("{p}.name"), name, &mut link_names, "link");
            }
            let a = self.node_ref(&format!("{p}.a"), &l.a, &index);
            let b = self.node_ref(&format!("{p}.b"), &l.b, &index);
            if let (Some(a), Some(b)) = (a, b) {
                if a == b {
                    self.err(
                        format!("{p}.b"),
                        format!("\"{}\"", l.b),
                        "must differ from a (no self-loops)",
                    );
                } else if let Some(j) = pairs.insert((a.min(b), a.max(b)), i) {
                    self.err(
                        format!("{p}.b"),
                        format!("\"{}\"", l.b),
                        format!("links[{j}] already joins \"{}\" and \"{}\"; parallel links are not supported", l.a, l.b),
                    );
                }
            }
            self.time_at_most(format!("{p}.delay"), l.delay);
            if l.bandwidth.0 == 0 {
                self.err(format!("{p}.bandwidth"), "\"0bps\"", "must be > 0");
            }
            match &l.loss {
                None => {}
                Some(LossSpec::Bernoulli { p: q }) => self.probability(format!("{p}.loss.p"), *q),
                Some(LossSpec::Scripted { .. }) => {}
                Some(LossSpec::GilbertElliott {
                    p_gb,
                    p_bg,
                    loss_good,
                    loss_bad,
                }) => {
                    self.probability(format!("{p}.loss.p_gb"), *p_gb);
                    self.probability(format!("{p}.loss.p_bg"), *p_bg);
                    self.probability(format!("{p}.loss.loss_good"), *loss_good);
                    self.probability(format!("{p}.loss.loss_bad"), *loss_bad);
                    if *p_gb > 0.0 && *p_bg == 0.0 {
                        self.err(
                            format!("{p}.loss.p_bg"),
                            p_bg,
                            "must be > 0 when p_gb > 0 (the Bad state would absorb)",
                        );
                    }
                }
            }
            self.queue(&format!("{p}.queue"), &l.queue);
            if let Some(q) = &l.reverse_queue {
                self.queue(&format!("{p}.reverse_queue"), q);
            }
        }

        // Unnamed links are labelled "a-b"; with '-' allowed in node names two links could
        // get one label (and so one RNG stream path).
        let mut labels: BTreeMap<String, usize> = BTreeMap::new();
        for (i, l) in s.links.iter().enumerate() {
            let label = l.name.clone().unwrap_or_else(|| format!("{}-{}", l.a, l.b));
            if let Some(j) = labels.insert(label.clone(), i) {
                if l.name.is_none() || s.links[j].name.is_none() {
                    self.err(
                        format!("links[{i}]"),
                        format!("\"{label}\""),
                        format!(
                            "this link's label (its name, or \"a-b\" when unnamed) is also links[{j}]'s; \
                             give one of them a distinct `name`"
                        ),
                    );
                }
            }
        }

        let routes = crate::routing::Routes::build(s);
        let mut flow_names = BTreeSet::new();
        let end = sim.duration.0;
        for (i, f) in s.flows.iter().enumerate() {
            let p = format!("flows[{i}]");
            self.name(format!("{p}.name"), &f.name, &mut flow_names, "flow");
            let src = self.host_ref(&format!("{p}.src"), &f.src, &index, s);
            let dst = self.host_ref(&format!("{p}.dst"), &f.dst, &index, s);
            if let (Some(a), Some(b)) = (src, dst) {
                if a == b {
                    self.err(
                        format!("{p}.dst"),
                        format!("\"{}\"", f.dst),
                        "must differ from src",
                    );
                } else if let Some((k, dir, limit)) =
                    self.byte_limit_below(s, &routes, a, b, f.packet_size.0)
                {
                    self.err(
                        format!("{p}.packet_size"),
                        f.packet_size.0,
                        format!(
                            "exceeds links[{k}].{dir}.limit_bytes = {limit} on the route to \"{}\": \
                             such packets can never be queued",
                            f.dst
                        ),
                    );
                } else if routes.next_channel(a, b) == crate::routing::NO_ROUTE {
                    self.err(
                        format!("{p}.dst"),
                        format!("\"{}\"", f.dst),
                        format!(
                            "no route from \"{}\" (routes may not pass through hosts)",
                            f.src
                        ),
                    );
                }
            }
            if f.packet_size.0 == 0 || f.packet_size.0 > MAX_PACKET {
                self.err(
                    format!("{p}.packet_size"),
                    f.packet_size.0,
                    format!("must be in [1, {MAX_PACKET}] bytes"),
                );
            }
            if let Some(stop) = f.stop {
                if stop.0 > end && end > 0 && end <= MAX_TIME {
                    self.err(
                        format!("{p}.stop"),
                        format!("\"{}\"", crate::units::format_time(stop.0)),
                        format!(
                            "must be <= simulation.duration = \"{}\" (omit stop to send until the end)",
                            crate::units::format_time(end)
                        ),
                    );
                } else if stop.0 <= f.start.0 {
                    self.err(
                        format!("{p}.stop"),
                        format!("\"{}\"", crate::units::format_time(stop.0)),
                        format!(
                            "must be > start = \"{}\"",
                            crate::units::format_time(f.start.0)
                        ),
                    );
                }
            }
            if f.start.0 >= end && end > 0 {
                self.err(
                    format!("{p}.start"),
                    format!("\"{}\"", crate::units::format_time(f.start.0)),
                    "must be < simulation.duration",
                );
            }
            self.flow_kind_fields(&p, f);
        }
    }

    fn flow_kind_fields(&mut self, p: &str, f: &FlowSpec) {
        let kind = match f.kind {
            FlowKind::Cbr => "cbr",
            FlowKind::Poisson => "poisson",
            FlowKind::Onoff => "onoff",
            FlowKind::Tcp => "tcp",
        };
        let present = [
            ("rate", f.rate.is_some()),
            ("pkt_rate", f.pkt_rate.is_some()),
            ("size_dist", f.size_dist.is_some()),
            ("on_time", f.on_time.is_some()),
            ("off_time", f.off_time.is_some()),
            ("period_dist", f.period_dist.is_some()),
            ("shape", f.shape.is_some()),
            ("variant", f.variant.is_some()),
            ("bytes", f.bytes.is_some()),
            ("ack_size", f.ack_size.is_some()),
            ("max_window", f.max_window.is_some()),
            ("initial_cwnd", f.initial_cwnd.is_some()),
            ("delayed_ack", f.delayed_ack.is_some()),
            ("delack_timeout", f.delack_timeout.is_some()),
            ("min_rto", f.min_rto.is_some()),
            ("initial_rto", f.initial_rto.is_some()),
            ("max_rto", f.max_rto.is_some()),
            ("granularity", f.granularity.is_some()),
            ("dupack_response", f.dupack_response.is_some()),
            ("limited_transmit", f.limited_transmit.is_some()),
            ("trace", f.trace.is_some()),
        ];
        let allowed: &[&str] = match f.kind {
            FlowKind::Cbr => &["rate"],
            FlowKind::Poisson => &["rate", "pkt_rate", "size_dist"],
            FlowKind::Onoff => &["rate", "on_time", "off_time", "period_dist", "shape"],
            FlowKind::Tcp => &[
                "variant",
                "bytes",
                "ack_size",
                "max_window",
                "initial_cwnd",
                "delayed_ack",
                "delack_timeout",
                "min_rto",
                "initial_rto",
                "max_rto",
                "granularity",
                "dupack_response",
                "limited_transmit",
                "trace",
            ],
        };
        for (field, is) in present {
            if is && !allowed.contains(&field) {
                self.err(
                    format!("{p}.{field}"),
                    "",
                    format!(
                        "not a field of type = \"{kind}\"; its fields are {}",
                        allowed.join(", ")
                    ),
                );
            }
        }
        let required = |v: &mut Self, field: &str, is: bool| {
            if !is {
                v.err(
                    format!("{p}.{field}"),
                    "",
                    format!("required for type = \"{kind}\""),
                );
            }
        };
        if let Some(r) = f.rate {
            if r.0 == 0 {
                self.err(format!("{p}.rate"), "\"0bps\"", "must be > 0");
            }
        }
        match f.kind {
            FlowKind::Tcp => self.tcp_fields(p, f),
            FlowKind::Cbr => required(self, "rate", f.rate.is_some()),
            FlowKind::Poisson => match (f.rate, f.pkt_rate) {
                (Some(_), Some(_)) => self.err(
                    format!("{p}.pkt_rate"),
                    f.pkt_rate.unwrap_or(0.0),
                    "rate and pkt_rate are mutually exclusive; give one",
                ),
                (None, None) => self.err(
                    format!("{p}.rate"),
                    "",
                    "one of rate or pkt_rate is required for type = \"poisson\"",
                ),
                (None, Some(x)) if !(x.is_finite() && (MIN_PPS..=MAX_PPS).contains(&x)) => self
                    .err(
                        format!("{p}.pkt_rate"),
                        x,
                        "must be a finite number in [1e-6, 1e9] packets per second \
                         (a mean gap of 1 ns to 1000000 s)",
                    ),
                (Some(r), None) if f.packet_size.0 > 0 => {
                    let pps = r.0 as f64 / (8.0 * f.packet_size.0 as f64);
                    if pps > MAX_PPS {
                        self.err(
                            format!("{p}.rate"),
                            format!("\"{}\"", crate::units::format_rate(r.0)),
                            format!(
                                "gives {pps:e} packets per second at packet_size = {} B; \
                                 a poisson flow may send at most 1e9 (a mean gap of 1 ns)",
                                f.packet_size.0
                            ),
                        );
                    }
                }
                _ => {}
            },
            FlowKind::Onoff => {
                required(self, "rate", f.rate.is_some());
                required(self, "on_time", f.on_time.is_some());
                required(self, "off_time", f.off_time.is_some());
                for (field, d) in [("on_time", f.on_time), ("off_time", f.off_time)] {
                    if d == Some(Duration(0)) {
                        self.err(
                            format!("{p}.{field}"),
                            "\"0ns\"",
                            "must be > 0 (a mean duration)",
                        );
                    }
                    if let Some(d) = d {
                        self.time_at_most(format!("{p}.{field}"), d);
                    }
                }
                match (f.period_dist.unwrap_or(PeriodDist::Exponential), f.shape) {
                    (PeriodDist::Pareto, None) => self.err(
                        format!("{p}.shape"),
                        "",
                        "required when period_dist = \"pareto\"",
                    ),
                    (PeriodDist::Pareto, Some(a)) if !(a.is_finite() && a > 1.0) => self.err(
                        format!("{p}.shape"),
                        a,
                        "must be a finite number > 1 (the Pareto mean is infinite otherwise)",
                    ),
                    (PeriodDist::Exponential, Some(_)) => self.err(
                        format!("{p}.shape"),
                        "",
                        "only used with period_dist = \"pareto\"",
                    ),
                    _ => {}
                }
            }
        }
    }

    fn tcp_fields(&mut self, p: &str, f: &FlowSpec) {
        use tcp_defaults as d;
        if let Some(b) = f.bytes {
            if b.0 == 0 {
                self.err(
                    format!("{p}.bytes"),
                    0,
                    "must be at least 1 (omit it for a bulk transfer)",
                );
            }
        }
        if let Some(a) = f.ack_size {
            if a.0 == 0 || a.0 > MAX_PACKET {
                self.err(
                    format!("{p}.ack_size"),
                    a.0,
                    format!("must be in [1, {MAX_PACKET}] bytes"),
                );
            }
        }
        if f.max_window == Some(0) {
            self.err(format!("{p}.max_window"), 0, "must be at least 1 segment");
        }
        if let Some(w) = f.initial_cwnd {
            if !(w.is_finite() && w >= 1.0) {
                self.err(
                    format!("{p}.initial_cwnd"),
                    w,
                    "must be a finite number >= 1 (segments)",
                );
            }
        }
        if f.delack_timeout.is_some() && f.delayed_ack != Some(true) {
            self.err(
                format!("{p}.delack_timeout"),
                "",
                "only used with delayed_ack = true",
            );
        }
        if f.delack_timeout == Some(Duration(0)) {
            self.err(format!("{p}.delack_timeout"), "\"0ns\"", "must be > 0");
        }
        let min_rto = f.min_rto.map_or(d::MIN_RTO, |x| x.0);
        let max_rto = f.max_rto.map_or(d::MAX_RTO, |x| x.0);
        let initial_rto = f.initial_rto.map_or(d::INITIAL_RTO, |x| x.0);
        for (field, v) in [
            ("min_rto", f.min_rto),
            ("initial_rto", f.initial_rto),
            ("max_rto", f.max_rto),
            ("granularity", f.granularity),
        ] {
            if let Some(v) = v {
                self.time_at_most(format!("{p}.{field}"), v);
                if v.0 == 0 && field != "granularity" {
                    self.err(format!("{p}.{field}"), "\"0ns\"", "must be > 0");
                }
            }
        }
        let fmt = crate::units::format_time;
        if min_rto > max_rto {
            self.err(
                format!("{p}.min_rto"),
                format!("\"{}\"", fmt(min_rto)),
                format!("must be <= max_rto = \"{}\"", fmt(max_rto)),
            );
        }
        if initial_rto > max_rto {
            self.err(
                format!("{p}.initial_rto"),
                format!("\"{}\"", fmt(initial_rto)),
                format!("must be <= max_rto = \"{}\"", fmt(max_rto)),
            );
        }
    }

    fn queue(&mut self, p: &str, q: &QueueSpec) {
        match (q.limit_pkts, q.limit_bytes) {
            (Some(_), Some(_)) => self.err(
                format!("{p}.limit_bytes"),
                "",
                "limit_pkts and limit_bytes are mutually exclusive; give one",
            ),
            (None, None) => self.err(
                format!("{p}.limit_pkts"),
                "",
                "one of limit_pkts or limit_bytes is required",
            ),
            (Some(0), None) => self.err(format!("{p}.limit_pkts"), 0, "must be at least 1"),
            (None, Some(b)) if b.0 == 0 => {
                self.err(format!("{p}.limit_bytes"), 0, "must be at least 1")
            }
            _ => {}
        }
        match &q.aqm {
            AqmSpec::Droptail => {}
            AqmSpec::Red(r) => {
                let a = format!("{p}.aqm");
                self.red_thresholds(&a, r.min_th, r.max_th, "");
                self.red_fields(&a, r);
            }
            AqmSpec::Ared(r) => self.ared(&format!("{p}.aqm"), r),
            AqmSpec::Rem(r) => self.rem(&format!("{p}.aqm"), r),
            AqmSpec::FengRed(r) => self.feng_red(&format!("{p}.aqm"), r),
            AqmSpec::Psand(r) => self.psand(&format!("{p}.aqm"), r, q),
            AqmSpec::Pi(r) => self.pi(&format!("{p}.aqm"), r),
            AqmSpec::Blue(b) => self.blue(&format!("{p}.aqm"), b, q),
            AqmSpec::Sfb(b) => self.sfb(&format!("{p}.aqm"), b),
            AqmSpec::Codel(c) => self.codel(&format!("{p}.aqm"), c),
            AqmSpec::Pie(c) => self.pie(&format!("{p}.aqm"), c),
            AqmSpec::FqCodel(c) => {
                let a = format!("{p}.aqm");
                if !(1..=65_536).contains(&c.flows) {
                    self.err(format!("{a}.flows"), c.flows, "must be in [1, 65536]");
                }
                if c.quantum.0 == 0 || c.quantum.0 > 1 << 20 {
                    self.err(
                        format!("{a}.quantum"),
                        c.quantum.0,
                        "must be in [1, 1048576] bytes",
                    );
                }
                if !(1..=65_535).contains(&c.drop_batch) {
                    self.err(
                        format!("{a}.drop_batch"),
                        c.drop_batch,
                        "must be in [1, 65535] packets",
                    );
                }
                self.codel(&a, &c.codel());
            }
        }
    }

    fn positive_time(&mut self, path: String, d: Duration) {
        if d.0 == 0 {
            self.err(path, "\"0ns\"", "must be > 0");
        } else {
            self.time_at_most(path, d);
        }
    }

    fn pie(&mut self, a: &str, c: &PieSpec) {
        self.positive_time(format!("{a}.target"), c.target);
        self.positive_time(format!("{a}.t_update"), c.t_update);
        self.time_at_most(format!("{a}.max_burst"), c.max_burst);
        if !(c.alpha.is_finite() && c.alpha > 0.0 && c.alpha <= 2.0) {
            self.err(
                format!("{a}.alpha"),
                c.alpha,
                "must be in (0, 2] per second (RFC 8033 §4.2)",
            );
        }
        if !(c.beta.is_finite() && (0.0..=2.0).contains(&c.beta)) {
            self.err(
                format!("{a}.beta"),
                c.beta,
                "must be in [0, 2] per second (RFC 8033 §4.2)",
            );
        }
        if let Some(th) = c.mark_ecn_th {
            if !c.ecn {
                self.err(
                    format!("{a}.mark_ecn_th"),
                    th,
                    "only meaningful with ecn = true",
                );
            } else if !(th.is_finite() && th > 0.0 && th <= 1.0) {
                self.err(
                    format!("{a}.mark_ecn_th"),
                    th,
                    "must be a probability in (0, 1]",
                );
            }
        }
        if c.mtu.0 == 0 || c.mtu.0 > MAX_PACKET {
            self.err(
                format!("{a}.mtu"),
                c.mtu.0,
                format!("must be in [1, {MAX_PACKET}] bytes"),
            );
        }
        if let Some(b) = c.dq_threshold {
            if !c.dq_rate_estimator {
                self.err(
                    format!("{a}.dq_threshold"),
                    b.0,
                    "only meaningful with dq_rate_estimator = true",
                );
            } else if b.0 == 0 || b.0 > u32::MAX as u64 {
                self.err(
                    format!("{a}.dq_threshold"),
                    b.0,
                    format!("must be in [1, {}] bytes", u32::MAX),
                );
            }
        }
    }

    fn codel(&mut self, a: &str, c: &CodelSpec) {
        let fmt = crate::units::format_time;
        self.positive_time(format!("{a}.target"), c.target);
        self.positive_time(format!("{a}.interval"), c.interval);
        if c.target.0 > 0 && c.interval.0 > 0 && c.target.0 >= c.interval.0 {
            self.err(
                format!("{a}.target"),
                format!("\"{}\"", fmt(c.target.0)),
                format!(
                    "must be < interval = \"{}\" (RFC 8289 §4.4: 5-10% of it)",
                    fmt(c.interval.0)
                ),
            );
        }
        if c.mtu.0 == 0 || c.mtu.0 > MAX_PACKET {
            self.err(
                format!("{a}.mtu"),
                c.mtu.0,
                format!("must be in [1, {MAX_PACKET}] bytes"),
            );
        }
        if let Some(th) = c.ce_threshold {
            self.positive_time(format!("{a}.ce_threshold"), th);
        }
    }

    fn unit_interval(&mut self, path: String, v: f64) {
        if !(v.is_finite() && (0.0..=1.0).contains(&v)) {
            self.err(path, v, "must be in [0, 1]");
        }
    }

    fn mean_pktsize(&mut self, a: &str, m: Bytes) {
        if m.0 == 0 || m.0 > MAX_PACKET {
            self.err(
                format!("{a}.mean_pktsize"),
                m.0,
                format!("must be in [1, {MAX_PACKET}] bytes"),
            );
        }
    }

    fn blue(&mut self, a: &str, b: &BlueSpec, q: &QueueSpec) {
        self.unit_interval(format!("{a}.d1"), b.d1);
        self.unit_interval(format!("{a}.d2"), b.d2);
        self.time_at_most(format!("{a}.freeze_time"), b.freeze_time);
        if b.idle_catchup && b.freeze_time.0 == 0 {
            self.err(
                format!("{a}.idle_catchup"),
                "true",
                "needs freeze_time > 0 (one decrement per freeze_time of idleness); \
                 set idle_catchup = false or a freeze_time",
            );
        }
        self.mean_pktsize(a, b.mean_pktsize);
        if let Some(l) = b.increase_threshold {
            let path = format!("{a}.increase_threshold");
            if !(l.is_finite() && l >= 0.0) {
                self.err(path, l, "must be a finite number >= 0 (packets)");
            } else {
                match (b.byte_mode, q.limit_pkts, q.limit_bytes) {
                    (false, Some(n), None) if l >= n as f64 => self.err(
                        path,
                        l,
                        format!("must be < limit_pkts = {n}: the buffer never holds more"),
                    ),
                    (true, None, Some(n)) if l * b.mean_pktsize.0 as f64 >= n.0 as f64 => self.err(
                        path,
                        l,
                        format!(
                            "× mean_pktsize = {} B must be < limit_bytes = {} B: the \
                                 buffer never holds more",
                            l * b.mean_pktsize.0 as f64,
                            n.0
                        ),
                    ),
                    _ => {}
                }
            }
        }
    }

    fn sfb(&mut self, a: &str, b: &SfbSpec) {
        if b.levels == 0 || b.levels > SFB_MAX_LEVELS {
            self.err(
                format!("{a}.levels"),
                b.levels,
                format!("must be in [1, {SFB_MAX_LEVELS}]"),
            );
        }
        if b.bins == 0 || b.bins > SFB_MAX_BINS {
            self.err(
                format!("{a}.bins"),
                b.bins,
                format!("must be in [1, {SFB_MAX_BINS}]"),
            );
        }
        if b.max == 0 {
            self.err(format!("{a}.max"), 0, "must be at least 1 (packets)");
        }
        if b.bin_size == 0 {
            self.err(format!("{a}.bin_size"), 0, "must be at least 1 (packets)");
        } else if b.bin_size > b.max {
            self.err(
                format!("{a}.bin_size"),
                b.bin_size,
                format!("must be <= max = {}", b.max),
            );
        }
        self.unit_interval(format!("{a}.increment"), b.increment);
        self.unit_interval(format!("{a}.decrement"), b.decrement);
        if !(b.penalty_rate.is_finite() && (0.0..=MAX_PPS).contains(&b.penalty_rate)) {
            self.err(
                format!("{a}.penalty_rate"),
                b.penalty_rate,
                format!("must be in [0, {MAX_PPS:e}] (packets per second)"),
            );
        }
        self.time_at_most(format!("{a}.rehash_interval"), b.rehash_interval);
        let fmt = |d: Duration| format!("\"{}\"", crate::units::format_time(d.0));
        if b.rehash_interval.0 == 0 && b.warmup_time.0 > 0 {
            self.err(
                format!("{a}.warmup_time"),
                fmt(b.warmup_time),
                "needs rehash_interval > 0 (there is no next hash to warm up); set \
                 warmup_time = \"0s\" too",
            );
        } else if b.rehash_interval.0 > 0 && b.warmup_time.0 >= b.rehash_interval.0 {
            self.err(
                format!("{a}.warmup_time"),
                fmt(b.warmup_time),
                format!("must be < rehash_interval = {}", fmt(b.rehash_interval)),
            );
        }
        self.mean_pktsize(a, b.mean_pktsize);
    }

    /// The first queue with a byte limit smaller than `size` on the route from `a` to `b`:
    /// (link index, "queue" or "reverse_queue", limit).
    fn byte_limit_below(
        &self,
        s: &Scenario,
        routes: &crate::routing::Routes,
        a: usize,
        b: usize,
        size: u64,
    ) -> Option<(usize, &'static str, u64)> {
        let mut node = a;
        for _ in 0..s.nodes.len() {
            if node == b {
                return None;
            }
            let ch = routes.next_channel(node, b);
            if ch == crate::routing::NO_ROUTE {
                return None;
            }
            let (k, forward) = ((ch / 2) as usize, ch % 2 == 0);
            let l = &s.links[k];
            let (dir, q) = match (forward, &l.reverse_queue) {
                (false, Some(rq)) => ("reverse_queue", rq),
                _ => ("queue", &l.queue),
            };
            if let (None, Some(limit)) = (q.limit_pkts, q.limit_bytes) {
                if limit.0 > 0 && limit.0 < size {
                    return Some((k, dir, limit.0));
                }
            }
            let next = if forward { &l.b } else { &l.a };
            node = s.node_index(next)?;
        }
        None
    }

    fn ared(&mut self, a: &str, r: &AredSpec) {
        match (r.min_th, r.max_th) {
            (Some(lo), _) if !(lo.is_finite() && lo >= 0.0) => self.err(
                format!("{a}.min_th"),
                lo,
                "must be a finite number >= 0 (packets)",
            ),
            (Some(lo), Some(hi)) if !(hi.is_finite() && hi > lo) => self.err(
                format!("{a}.max_th"),
                hi,
                format!("must be > min_th = {lo}"),
            ),
            (None, Some(_)) => self.err(
                format!("{a}.max_th"),
                "",
                "give min_th too, or neither (both automatic)",
            ),
            _ => {}
        }
        for (field, v) in [("top", r.top), ("bottom", r.bottom)] {
            if !(v.is_finite() && v > 0.0 && v <= 1.0) {
                self.err(format!("{a}.{field}"), v, "must be a probability in (0, 1]");
            }
        }
        if r.bottom > r.top {
            self.err(
                format!("{a}.bottom"),
                r.bottom,
                format!("must be <= top = {}", r.top),
            );
        }
        if !(r.alpha.is_finite() && r.alpha > 0.0 && r.alpha <= 1.0) {
            self.err(format!("{a}.alpha"), r.alpha, "must be in (0, 1]");
        }
        if !(r.beta.is_finite() && r.beta > 0.0 && r.beta < 1.0) {
            self.err(format!("{a}.beta"), r.beta, "must be in (0, 1)");
        }
        if r.interval.0 == 0 {
            self.err(format!("{a}.interval"), "\"0ns\"", "must be > 0");
        }
        if r.target_delay.0 == 0 && r.min_th.is_none() {
            self.err(
                format!("{a}.target_delay"),
                "\"0ns\"",
                "must be > 0 when the thresholds are automatic",
            );
        }
        self.red_fields(a, &r.red(0.0, 1.0));
    }

    /// RED's thresholds in packets: 0 <= min_th < max_th, finite. `how` says where a
    /// computed threshold came from, for the message.
    fn red_thresholds(&mut self, a: &str, min_th: f64, max_th: f64, how: &str) {
        if !(min_th.is_finite() && min_th >= 0.0) {
            self.err(
                format!("{a}.min_th"),
                min_th,
                format!("must be a finite number >= 0 (packets){how}"),
            );
        }
        if !max_th.is_finite() {
            self.err(
                format!("{a}.max_th"),
                max_th,
                format!("must be a finite number (packets){how}"),
            );
        } else if max_th <= min_th {
            self.err(
                format!("{a}.max_th"),
                max_th,
                format!("must be > min_th = {min_th}{how}"),
            );
        }
    }

    fn feng_red(&mut self, a: &str, r: &FengRedSpec) {
        self.red_thresholds(a, r.min_th, r.max_th, "");
        for (field, v) in [("alpha", r.alpha), ("beta", r.beta)] {
            if !(v.is_finite() && v > 1.0) {
                self.err(
                    format!("{a}.{field}"),
                    v,
                    "must be a finite number > 1 (the factor that moves max_p)",
                );
            }
        }
        if !(r.top.is_finite() && r.top > 0.0 && r.top <= 1.0) {
            self.err(format!("{a}.top"), r.top, "must be a probability in (0, 1]");
        }
        if !(r.bottom.is_finite() && r.bottom >= 0.0) {
            self.err(
                format!("{a}.bottom"),
                r.bottom,
                "must be a probability in [0, 1]",
            );
        } else if r.bottom > r.top {
            self.err(
                format!("{a}.bottom"),
                r.bottom,
                format!("must be <= top = {}", r.top),
            );
        }
        if r.max_p.is_finite() && r.bottom <= r.top && (r.max_p < r.bottom || r.max_p > r.top) {
            self.err(
                format!("{a}.max_p"),
                r.max_p,
                format!("must be in [bottom, top] = [{}, {}]", r.bottom, r.top),
            );
        }
        self.red_fields(a, &r.red());
    }

    fn psand(&mut self, a: &str, r: &PsandSpec, q: &QueueSpec) {
        if !(r.target.is_finite() && r.target > 0.0) {
            self.err(
                format!("{a}.target"),
                r.target,
                "must be a finite number > 0 (packets)",
            );
        }
        if !(r.coef.is_finite() && r.coef > 0.0) {
            self.err(format!("{a}.coef"), r.coef, "must be a finite number > 0");
        }
        if !(r.gamma.is_finite() && r.gamma >= 0.0) {
            self.err(
                format!("{a}.gamma"),
                r.gamma,
                "must be a finite number >= 0",
            );
        }
        if !(r.lower.is_finite() && r.lower > 0.0 && r.lower <= 1.0) {
            self.err(
                format!("{a}.lower"),
                r.lower,
                "must be a probability in (0, 1]",
            );
        }
        if !(r.upper.is_finite() && r.upper > 0.0 && r.upper <= 1.0) {
            self.err(
                format!("{a}.upper"),
                r.upper,
                "must be a probability in (0, 1]",
            );
        } else if r.lower > r.upper {
            self.err(
                format!("{a}.lower"),
                r.lower,
                format!("must be <= upper = {}", r.upper),
            );
        }
        if r.max_p.is_finite() && r.lower <= r.upper && (r.max_p < r.lower || r.max_p > r.upper) {
            self.err(
                format!("{a}.max_p"),
                r.max_p,
                format!("must be in [lower, upper] = [{}, {}]", r.lower, r.upper),
            );
        }
        if r.interval.0 == 0 {
            self.err(format!("{a}.interval"), "\"0ns\"", "must be > 0");
        }
        if r.mean_pktsize.0 > 0 && r.target.is_finite() && r.target > 0.0 {
            let b = r.buffer_pkts(q);
            let (lo, hi) = r.thresholds(q);
            let how = match (r.min_th, r.max_th) {
                (Some(_), Some(_)) => String::new(),
                _ => format!(
                    " (automatic from target = {} and buffer B = {b} packets: \
                     min_th = 0, max_th = 2·target if target <= B/2, else \
                     min_th = 2·target − B, max_th = B)",
                    r.target
                ),
            };
            if r.min_th.is_none() && r.max_th.is_none() && r.target >= b {
                self.err(
                    format!("{a}.target"),
                    r.target,
                    format!(
                        "must be < the buffer capacity B = {b} packets when the \
                         thresholds are automatic"
                    ),
                );
            } else {
                self.red_thresholds(a, lo, hi, &how);
            }
        }
        self.red_fields(a, &r.red(0.0, 1.0));
    }

    fn pi(&mut self, a: &str, r: &PiSpec) {
        for (field, v) in [("a", r.a), ("b", r.b)] {
            if !(v.is_finite() && v >= 0.0) {
                self.err(format!("{a}.{field}"), v, "must be a finite number >= 0");
            }
        }
        if !(r.w.is_finite() && r.w > 0.0 && r.w <= 1e9) {
            self.err(
                format!("{a}.w"),
                r.w,
                "must be a sampling frequency in (0, 1e9] Hz",
            );
        }
        if !(r.q_ref.is_finite() && r.q_ref >= 0.0) {
            self.err(
                format!("{a}.q_ref"),
                r.q_ref,
                "must be a finite number >= 0 (packets)",
            );
        }
        if r.mean_pktsize.0 == 0 || r.mean_pktsize.0 > MAX_PACKET {
            self.err(
                format!("{a}.mean_pktsize"),
                r.mean_pktsize.0,
                format!("must be in [1, {MAX_PACKET}] bytes"),
            );
        }
    }

    fn rem(&mut self, a: &str, r: &RemSpec) {
        if !(r.gamma.is_finite() && r.gamma > 0.0) {
            self.err(format!("{a}.gamma"), r.gamma, "must be a finite number > 0");
        }
        if !(r.phi.is_finite() && r.phi > 1.0) {
            self.err(
                format!("{a}.phi"),
                r.phi,
                "must be a finite number > 1 (marking probability 1 - phi^-price)",
            );
        }
        if !(r.alpha.is_finite() && r.alpha > 0.0 && r.alpha <= 1.0) {
            self.err(format!("{a}.alpha"), r.alpha, "must be in (0, 1]");
        }
        if !(r.b_star.is_finite() && r.b_star >= 0.0) {
            self.err(
                format!("{a}.b_star"),
                r.b_star,
                "must be a finite number >= 0 (packets)",
            );
        }
        if r.interval.0 == 0 {
            self.err(format!("{a}.interval"), "\"0ns\"", "must be > 0");
        }
        if let Some(w) = r.w_x {
            if !(w.is_finite() && w > 0.0 && w <= 1.0) {
                self.err(format!("{a}.w_x"), w, "must be in (0, 1]");
            } else if r.update == RemUpdateSpec::Queue {
                self.err(
                    format!("{a}.w_x"),
                    w,
                    "only meaningful with update = \"rate\" (eq. 3 measures no rate)",
                );
            }
        }
        if r.mean_pktsize.0 == 0 || r.mean_pktsize.0 > MAX_PACKET {
            self.err(
                format!("{a}.mean_pktsize"),
                r.mean_pktsize.0,
                format!("must be in [1, {MAX_PACKET}] bytes"),
            );
        }
        if let (Some(m), false) = (r.mark_at, r.ecn) {
            let v = if m == MarkPointSpec::Arrival {
                "\"arrival\""
            } else {
                "\"departure\""
            };
            self.err(format!("{a}.mark_at"), v, "only meaningful with ecn = true");
        }
    }

    /// The RED fields other than the thresholds (shared by RED, ARED, Feng and PSAND).
    fn red_fields(&mut self, a: &str, r: &RedSpec) {
        if !(r.max_p.is_finite() && r.max_p > 0.0 && r.max_p <= 1.0) {
            self.err(
                format!("{a}.max_p"),
                r.max_p,
                "must be a probability in (0, 1]",
            );
        }
        if let Weight::Value(w) = r.w_q {
            if !(w.is_finite() && w > 0.0 && w <= 1.0) {
                self.err(format!("{a}.w_q"), w, "must be in (0, 1], or \"auto\"");
            }
        }
        self.mean_pktsize(a, r.mean_pktsize);
        if r.mark_above_max_th && !r.ecn {
            self.err(
                format!("{a}.mark_above_max_th"),
                "true",
                "only meaningful with ecn = true",
            );
        }
    }

    fn node_ref(&mut self, path: &str, name: &str, index: &BTreeMap<&str, usize>) -> Option<usize> {
        let r = index.get(name).copied();
        if r.is_none() {
            self.err(path, format!("\"{name}\""), "no node has this name");
        }
        r
    }

    fn host_ref(
        &mut self,
        path: &str,
        name: &str,
        index: &BTreeMap<&str, usize>,
        s: &Scenario,
    ) -> Option<usize> {
        let i = self.node_ref(path, name, index)?;
        if s.nodes[i].kind != NodeKind::Host {
            self.err(
                path,
                format!("\"{name}\""),
                "must be a host (traffic starts and ends at hosts)",
            );
            return None;
        }
        Some(i)
    }
}
