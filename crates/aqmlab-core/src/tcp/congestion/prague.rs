//! TCP Prague congestion control, the scalable controller of L4S:
//! K. De Schepper, O. Tilmans, B. Briscoe (Ed.), V. Goel, "Prague Congestion Control",
//! draft-briscoe-iccrg-prague-congestion-control-04 (IRTF ICCRG, 24 July 2024); the Prague
//! L4S requirements of RFC 9331 (K. De Schepper, B. Briscoe, "The Explicit Congestion
//! Notification (ECN) Protocol for Low Latency, Low Loss, and Scalable Throughput (L4S)",
//! January 2023) §4; B. Briscoe, K. De Schepper, O. Albisser, J. Misund, O. Tilmans,
//! M. Kühlewind, A. S. Ahmed, "Implementing the 'TCP Prague' Requirements for Low Latency
//! Low Loss Scalable Throughput (L4S)", Netdev 0x13, March 2019; its ancestor DCTCP
//! (RFC 8257, `super::dctcp`); and the reference implementation, Linux `tcp_prague.c` of
//! the L4STeam tree (v0.7, 2024; v0.6 for the classic-ECN detection it later dropped). The
//! classic-ECN detector is B. Briscoe, A. S. Ahmed, "TCP Prague Fall-back on Detection of
//! a Classic ECN AQM", arXiv:1911.00710, 2019, as Linux v0.6 runs it. Windows count
//! segments (cwnd a float, as Reno's). What is implemented, each with its source:
//!
//! - ECN (RFC 9331 §4.1-4.2, the draft's "Packet Identification" and "Accurate ECN
//!   Feedback"): the flow must send ECT(1) (`ecn = true`, `ect = "ect1"`: refused
//!   otherwise, `scenario::flow_tcp`) on every packet, retransmissions and pure ACKs
//!   included (ECN++, as Linux forces for Prague). The receiver echoes every segment's CE
//!   state with DCTCP's state machine (`receiver::Echo::Dctcp`), which stands in for
//!   AccECN: both give the sender the number of CE-marked segments each ACK covers.
//! - α (the draft's "Moving Average of ECN Feedback"): once per observation window (one
//!   round of data, snd.una reaching the highest segment sent at its start, as Linux
//!   `prague_e2e_rtt_elapsed`), F = marked / acked segments of the window and
//!   α ← (1 − g)·α + g·F, g = 1/16. As Linux, α is not updated before the first CE mark
//!   is seen (`saw_ce`: proof of an AQM on the path), and when the flow is RTT-independent
//!   (below) a window lasts until `rtt_target` has also passed since the last update.
//! - α's start (`alpha_mode`): Linux v0.7's default `prague_alpha_mode` 0, α = 0 and the
//!   first CE mark halves the window (`"halve_at_first_mark"`), or its mode 1 and v0.6's
//!   only behaviour, α = 1 like DCTCP (`"start_at_one"`). Here the halving is the sender's
//!   first ECN reaction (α's part of it 0, as in Linux, whose cut uses the α of before the
//!   ACK); Linux halves at the first marked ACK even during loss recovery, where the sender
//!   here does not react to ECN.
//! - Reduction on ECE (the draft's "Multiplicative Decrease on ECN Feedback"), at most once
//!   per round (the sender's RFC 3168 guard, Linux's CWR state): ssthresh = cwnd =
//!   max(cwnd·(1 − α/2), 2) (MIN_CWND_RTT 2). When RTT-independent, a reduction less than
//!   `rtt_target` after the last one is skipped (Linux `prague_enter_cwr`). The cut is
//!   applied at once; Linux cuts its fractional window at once too but steps its integer
//!   window down by one segment per ACK to it (`prague_update_cwnd`'s adjust step).
//! - Increase (the draft's "Additive Increase and ECN Feedback"): on every new ACK, in
//!   the round after a reduction too (unlike DCTCP), only for the segments it acknowledges
//!   unmarked: slow start cwnd += n up to ssthresh (Linux `tcp_slow_start`, counting
//!   segments, not ACKs), the rest cwnd += n·s/cwnd, s the RTT scaling below (1: one
//!   segment per round, Reno's). A marked ACK grows nothing. Linux also scales s by
//!   1500/MTU (identical at 1500-byte packets; not done here) and stops growth when not
//!   cwnd-limited (not modelled, as for Reno here).
//! - RTT independence (RFC 9331 §4.3 "reduce RTT dependence", the draft's "Reduced RTT
//!   Dependence", Linux `prague_rate_scaled_ai_ack_increase`), `rtt_scaling = "rate"` by
//!   default as Linux: once `rtt_transition` rounds (4, Linux v0.7) have passed outside
//!   slow start, a flow whose smoothed RTT R is below the target R_t (25 ms) grows by
//!   s = (R/R_t)² per round, so its rate cwnd/R grows by 1/R_t² per second, the rate
//!   growth of a flow at R_t. Linux v0.6's `scalable` and `additive` heuristics and the
//!   100 ms bound of its fixed-point arithmetic are not modelled.
//! - Pacing (the draft's "Packet Pacing", Linux `prague_update_pacing_rate`): always on;
//!   rate = ratio·cwnd/SRTT, ratio 2 while cwnd < ssthresh/2 and 1 after (Prague's own 100%
//!   in congestion avoidance, where Linux's default for other controllers is 1.2; both
//!   fields). Linux v0.7 takes max(cwnd, packets in flight) and adds ±3% per half RTT and a
//!   rate-based mode below 4 packets (and MTU cuts below 2): not modelled.
//! - Loss (RFC 9331 §4.3, the draft's fall-back to a Reno-friendly response, which it
//!   requires): ssthresh = cwnd = max(cwnd/2, 2), half the window as Linux
//!   (`prague_enter_loss`) rather than RFC 5681's FlightSize/2; no growth during recovery
//!   (the sender asks none). The draft's optional smaller cut after a recent ECN
//!   reduction is not taken. A timeout is Reno's (cwnd = 1, ssthresh = max(FlightSize/2,
//!   2)), as Linux's, which restarts at 1 and grows to half the window.
//! - Classic ECN bottleneck (RFC 9331 §4.3's fall-back requirement), `classic_ecn_fallback`,
//!   off by default as Linux v0.6 (`prague_ecn_fallback` 0; v0.7 has no detector): see
//!   `ClassicEcn`.

use super::reno::{DupackResponse, Halving, Reno, RenoConfig};
use super::{Acked, Congestion, Controller, Delivery, Reduction};
use crate::check::Problems;
use crate::units::{Duration, Time, NS_PER_SEC};
use serde::{Deserialize, Serialize};

/// The draft and Linux: g = 1/16 (`PRAGUE_SHIFT_G` 4).
pub const DEFAULT_G: f64 = 1.0 / 16.0;
/// Linux `prague_rtt_target`: 25 ms (v0.6 and v0.7).
pub const DEFAULT_RTT_TARGET: Time = 25_000_000;
/// Linux v0.7 `DEFAULT_RTT_TRANSITION`: 4 rounds after slow start (v0.6: 500).
pub const DEFAULT_RTT_TRANSITION: u32 = 4;
/// Slow start's pacing ratio (the draft; Linux `tcp_pacing_ss_ratio` 200%).
pub const DEFAULT_PACING_SS_RATIO: f64 = 2.0;
/// Congestion avoidance's pacing ratio (the draft and Linux Prague: 100%).
pub const DEFAULT_PACING_CA_RATIO: f64 = 1.0;
/// The window's floor after a reduction (Linux `MIN_CWND_RTT` 2).
const MIN_CWND: f64 = 2.0;
/// The multiplicative decrease on a loss (the draft: Reno-friendly).
const BETA_LOSS: f64 = 0.5;

/// How α starts (Linux `prague_alpha_mode`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AlphaMode {
    /// α = 0, and the first CE mark halves the window (Linux v0.7 mode 0, the default).
    HalveAtFirstMark,
    /// α = 1, as DCTCP (Linux mode 1; v0.6).
    StartAtOne,
}

/// The RTT-independence heuristic (Linux `prague_rtt_scaling`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RttScaling {
    /// Growth of one segment per round at any RTT (DCTCP's, Reno's).
    None,
    /// Below the target, the rate grows as a flow's at the target (Linux `RTT_CONTROL_RATE`).
    Rate,
}

/// Classic ECN AQM detection (Linux v0.6 `prague_ecn_fallback`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ClassicEcnFallback {
    /// No detector (Linux 0, the default).
    Off,
    /// The detector's score is kept and traced, without effect (Linux 2).
    Detect,
    /// ... and a classic verdict floors α at each reduction (Linux 1).
    Fallback,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PragueConfig {
    pub g: f64,
    pub alpha_mode: AlphaMode,
    pub rtt_scaling: RttScaling,
    pub rtt_target: Time,
    pub rtt_transition: u32,
    pub pacing_ss_ratio: f64,
    pub pacing_ca_ratio: f64,
    pub classic_ecn_fallback: ClassicEcnFallback,
}

impl Default for PragueConfig {
    fn default() -> Self {
        PragueConfig {
            g: DEFAULT_G,
            alpha_mode: AlphaMode::HalveAtFirstMark,
            rtt_scaling: RttScaling::Rate,
            rtt_target: DEFAULT_RTT_TARGET,
            rtt_transition: DEFAULT_RTT_TRANSITION,
            pacing_ss_ratio: DEFAULT_PACING_SS_RATIO,
            pacing_ca_ratio: DEFAULT_PACING_CA_RATIO,
            classic_ecn_fallback: ClassicEcnFallback::Off,
        }
    }
}

#[derive(Clone, Debug)]
pub struct Prague {
    cfg: PragueConfig,
    alpha: f64,
    /// The marked fraction F of the last completed observation window.
    f: f64,
    /// A CE mark has been seen (Linux `saw_ce`): α is updated from then on.
    saw_ce: bool,
    /// `HalveAtFirstMark` and no ECN reaction yet.
    first_cut_pending: bool,
    acked: u64,
    marked: u64,
    /// The observation window ends when snd.una reaches this.
    window_end: u64,
    /// One past the highest segment sent, at the latest delivery.
    high: u64,
    /// The latest ACK's arrival.
    now: Time,
    /// Observation windows ended outside slow start (Linux `round`).
    round: u32,
    /// cwnd < ssthresh at the latest decision (Linux `tcp_in_slow_start`).
    slow_start: bool,
    /// The last α update and the last ECN reduction (Linux `alpha_stamp`, `cwr_stamp`).
    alpha_stamp: Time,
    cwr_stamp: Option<Time>,
    /// The sender's smoothed RTT (s), cwnd and ssthresh at the latest decision: the pacing
    /// rate's inputs.
    srtt_s: f64,
    cwnd: f64,
    ssthresh: f64,
    /// Present unless `classic_ecn_fallback` is off.
    detector: Option<ClassicEcn>,
    /// The timeout's response.
    reno: Reno,
}

impl Prague {
    pub fn new(cfg: PragueConfig, initial_cwnd: f64, max_window: u32) -> Prague {
        Prague {
            alpha: match cfg.alpha_mode {
                AlphaMode::HalveAtFirstMark => 0.0,
                AlphaMode::StartAtOne => 1.0,
            },
            f: 0.0,
            saw_ce: false,
            first_cut_pending: cfg.alpha_mode == AlphaMode::HalveAtFirstMark,
            acked: 0,
            marked: 0,
            window_end: 0,
            high: 0,
            now: 0,
            round: 0,
            slow_start: true,
            alpha_stamp: 0,
            cwr_stamp: None,
            srtt_s: f64::NAN,
            cwnd: initial_cwnd,
            ssthresh: f64::INFINITY,
            detector: (cfg.classic_ecn_fallback != ClassicEcnFallback::Off)
                .then(ClassicEcn::default),
            reno: Reno::new(RenoConfig {
                dupack_response: DupackResponse::Halve,
                halving: Halving::Rfc5681,
                ecn_backoff: false,
                max_window,
            }),
            cfg,
        }
    }

    pub fn alpha(&self) -> f64 {
        self.alpha
    }

    /// Past the transition, outside slow start, with rate scaling: windows and reductions
    /// last at least `rtt_target` (Linux `prague_is_rtt_indep`).
    fn rtt_independent(&self) -> bool {
        self.cfg.rtt_scaling == RttScaling::Rate
            && !self.slow_start
            && self.round >= self.cfg.rtt_transition
    }

    /// s, the factor on the per-ACK increase n/cwnd (Linux `ai_ack_increase` / 2^20):
    /// (R/R_t)² below the target once the transition rounds have passed, else 1.
    fn ai_scale(&self) -> f64 {
        let target = self.cfg.rtt_target as f64 / NS_PER_SEC as f64;
        let scaled = self.cfg.rtt_scaling == RttScaling::Rate
            && self.round >= self.cfg.rtt_transition
            && self.srtt_s > 0.0
            && self.srtt_s < target;
        if scaled {
            let r = self.srtt_s / target;
            r * r
        } else {
            1.0
        }
    }

    /// α at a reduction: with the fall-back, at least the detector's floor.
    fn effective_alpha(&self) -> f64 {
        match &self.detector {
            Some(d) if self.cfg.classic_ecn_fallback == ClassicEcnFallback::Fallback => {
                self.alpha.max(d.alpha_floor())
            }
            _ => self.alpha,
        }
    }

    /// The window this controller decided or was given, for pacing and slow start.
    fn note(&mut self, cwnd: f64, ssthresh: f64) {
        self.cwnd = cwnd;
        self.ssthresh = ssthresh;
        self.slow_start = cwnd < ssthresh;
    }

    /// The observation window ends: α's update (once a mark was seen) and a new window.
    fn end_window(&mut self) {
        if self.saw_ce {
            if let Some(d) = self.detector.as_mut() {
                d.round();
            }
            self.f = self.marked as f64 / self.acked.max(1) as f64;
            self.alpha = ((1.0 - self.cfg.g) * self.alpha + self.cfg.g * self.f).min(1.0);
            self.alpha_stamp = self.now;
        }
        (self.acked, self.marked) = (0, 0);
        self.window_end = self.high;
        if !self.slow_start {
            self.round = self.round.saturating_add(1);
        }
    }
}

impl Controller for Prague {
    fn on_delivery(&mut self, d: &Delivery) {
        self.acked += d.segments;
        if d.ece {
            self.marked += d.segments;
            self.saw_ce = true;
        }
        (self.high, self.now) = (d.high, d.now);
        if let (Some(det), Some(rtt)) = (self.detector.as_mut(), d.rtt) {
            det.sample(rtt);
        }
        let long_enough = !self.rtt_independent()
            || d.now.saturating_sub(self.alpha_stamp) >= self.cfg.rtt_target;
        if d.una >= self.window_end && long_enough {
            self.end_window();
        }
    }

    fn on_ack(&mut self, cwnd: f64, ssthresh: f64, ack: &Acked) -> f64 {
        (self.srtt_s, self.now) = (ack.srtt_s, ack.now);
        let mut n = if ack.ece { 0.0 } else { ack.segments as f64 };
        let mut w = cwnd;
        if n > 0.0 && w < ssthresh {
            let grown = (w + n).min(ssthresh);
            n -= grown - w;
            w = grown;
        }
        if n > 0.0 {
            w += n * self.ai_scale() / w;
        }
        self.note(w, ssthresh);
        w
    }

    fn on_congestion(&mut self, event: Congestion, cwnd: f64, ssthresh: f64) -> Reduction {
        if let Some(d) = self.detector.as_mut() {
            d.set_gain(ssthresh);
        }
        let r = match event {
            Congestion::Ecn { .. } => {
                let recent = self
                    .cwr_stamp
                    .is_some_and(|t| self.now.saturating_sub(t) < self.cfg.rtt_target);
                // Linux cuts by the α of before this ACK, 0 at the first mark: that cut is a
                // halving alone.
                let w = if std::mem::take(&mut self.first_cut_pending) {
                    Some(cwnd / 2.0)
                } else if self.rtt_independent() && recent {
                    None
                } else {
                    Some(cwnd * (1.0 - self.effective_alpha() / 2.0))
                };
                match w {
                    Some(w) => {
                        self.cwr_stamp = Some(self.now);
                        let w = w.max(MIN_CWND);
                        Reduction {
                            ssthresh: w,
                            cwnd: w,
                        }
                    }
                    None => Reduction { ssthresh, cwnd },
                }
            }
            Congestion::Loss { .. } => {
                let w = (cwnd * BETA_LOSS).max(MIN_CWND);
                Reduction {
                    ssthresh: w,
                    cwnd: w,
                }
            }
            Congestion::Rto { .. } => self.reno.on_congestion(event, cwnd, ssthresh),
        };
        self.note(r.cwnd, r.ssthresh);
        r
    }

    fn wants_ack_rtt(&self) -> bool {
        self.detector.is_some()
    }

    fn pacing_rate(&self) -> Option<f64> {
        if !(self.srtt_s.is_finite() && self.srtt_s > 0.0) {
            return None;
        }
        let ratio = if self.cwnd < self.ssthresh / 2.0 {
            self.cfg.pacing_ss_ratio
        } else {
            self.cfg.pacing_ca_ratio
        };
        Some(ratio * self.cwnd / self.srtt_s)
    }

    fn metric_names(&self) -> &'static [&'static str] {
        if self.detector.is_some() {
            &["alpha", "marked_fraction", "ai_scale", "classic_ecn"]
        } else {
            &["alpha", "marked_fraction", "ai_scale"]
        }
    }

    fn metrics(&self, out: &mut [f64]) {
        out[0] = self.alpha;
        out[1] = self.f;
        out[2] = self.ai_scale();
        if let Some(d) = &self.detector {
            out[3] = d.score;
        }
    }
}

// ---------------------------------------------------------------------------------------
// The classic ECN AQM detector
// ---------------------------------------------------------------------------------------

/// Weights of the two evidence terms (Linux v0.6 `V`, `D`: 1/2 each).
const V: f64 = 0.5;
const D: f64 = 0.5;
/// Reference delay variation and queue depth in µs (Linux `V0_LG`: lg 750 µs, `D0_LG`:
/// lg 2 ms): an L4S queue varies less and is shallower.
const V0_US: f64 = 750.0;
const D0_US: f64 = 2000.0;
/// The score's landmarks in α units (Linux `L_STICKY` 8, `CLASSIC_ECN` 9, `C_STICKY` 17):
/// at or below 8 the bottleneck is L4S, at 9 and above classic, capped at 17 so that the
/// verdict can be unlearnt.
const L_STICKY: f64 = 8.0;
const CLASSIC: f64 = 9.0;
const C_STICKY: f64 = 17.0;
/// A classic verdict floors α at this (Linux `c·(1/2 + 1/8)`): a 31% cut, near CUBIC's.
const FALLBACK_ALPHA: f64 = 0.625;
/// The EWMA shifts' cap (Linux `PRAGUE_MAX_SRTT_BITS` 18), also their start.
const MAX_SHIFT: u32 = 18;

/// Briscoe and Ahmed's v2 detector (arXiv:1911.00710) as Linux v0.6's
/// `prague_classic_ecn_detection` runs it: a classic AQM holds a deeper, more variable queue
/// than an L4S one. Per ACK with an RTT sample m (`Delivery::rtt`), its own smoothed RTT
/// and mean deviation with gains 2^-s and 2^-(s+1), s = min(⌊lg W⌋ + ⌊⌊lg W⌋/2⌋ + 1, 18) from
/// ssthresh W at each congestion event (`prague_update_rtt_scaling`, 18 at the start), so
/// that they average over many rounds; and the minimum RTT. Once per observation window
/// (after the first CE mark) the score c moves by V·lg(σ/V0) + D·lg(max(d/D0, 1)), σ the
/// deviation and d = SRTT − min RTT the queue, within [0, 17]. Above 8, a reduction uses
/// α' = max(α, 0.625·(min(c, 9) − 8)). Differences: lg is exact here where Linux takes an
/// integer log with a carried remainder to unbias it; the minimum RTT is over the whole run
/// (Linux: a 5-minute window); the paper's third term, for a self-limited sender, is
/// commented out in Linux and absent here; and the fall-back floors α rather than
/// switching to Reno's halving, as Linux does.
#[derive(Clone, Debug)]
pub struct ClassicEcn {
    /// ns; NaN before the first sample.
    srtt: f64,
    mdev: f64,
    min_rtt: Time,
    shift: u32,
    score: f64,
}

impl Default for ClassicEcn {
    fn default() -> Self {
        ClassicEcn {
            srtt: f64::NAN,
            mdev: 0.0,
            min_rtt: Time::MAX,
            shift: MAX_SHIFT,
            score: 0.0,
        }
    }
}

impl ClassicEcn {
    /// One RTT sample (Linux `prague_rtt_estimator`: the first sets SRTT, the deviation
    /// starts at 1 µs).
    pub fn sample(&mut self, m: Time) {
        let x = m as f64;
        if self.srtt.is_nan() {
            (self.srtt, self.mdev) = (x, 1_000.0);
        } else {
            let err = x - self.srtt;
            self.srtt += err / (1u64 << self.shift) as f64;
            self.mdev += (err.abs() - self.mdev) / (1u64 << (self.shift + 1)) as f64;
        }
        self.min_rtt = self.min_rtt.min(m);
    }

    /// The gains from ssthresh at a congestion event.
    pub fn set_gain(&mut self, ssthresh: f64) {
        let lg = libm::floor(libm::log2(ssthresh.max(1.0))) as u32;
        self.shift = (lg + lg / 2 + 1).min(MAX_SHIFT);
    }

    /// The score's update once per observation window.
    pub fn round(&mut self) {
        if self.srtt.is_nan() {
            return;
        }
        let lg_us = |ns: f64| libm::log2((ns / 1e3).max(1.0));
        let mut c = self.score + V * (lg_us(self.mdev) - libm::log2(V0_US));
        let min = self.min_rtt as f64;
        if self.srtt > min {
            // Queue build-up only ever moves the score toward classic.
            let depth = D * lg_us(self.srtt - min);
            let d0 = D * libm::log2(D0_US);
            if depth > d0 {
                c += depth - d0;
            }
        }
        self.score = c.clamp(0.0, C_STICKY);
    }

    /// α's floor at a reduction: 0 for an L4S verdict, up to 0.625 for a classic one.
    pub fn alpha_floor(&self) -> f64 {
        if self.score > L_STICKY {
            FALLBACK_ALPHA * (self.score.min(CLASSIC) - L_STICKY)
        } else {
            0.0
        }
    }

    pub fn score(&self) -> f64 {
        self.score
    }
}

// ---------------------------------------------------------------------------------------
// Spec: the scenario's fields, defaults and checks
// ---------------------------------------------------------------------------------------

/// `congestion = { type = "prague", ... }` (Linux L4STeam `tcp_prague.c`'s defaults). The
/// flow needs `ecn = true` and `ect = "ect1"`; its receiver then echoes CE per segment, it
/// always paces and every packet is ECT(1).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PragueSpec {
    /// The EWMA gain of α (the draft and Linux: 1/16).
    #[serde(default = "default_g")]
    pub g: f64,
    /// α's start (Linux v0.7 `prague_alpha_mode` 0: "halve_at_first_mark").
    #[serde(default = "default_alpha_mode")]
    pub alpha_mode: AlphaMode,
    /// RTT independence (Linux `prague_rtt_scaling`: "rate").
    #[serde(default = "default_rtt_scaling")]
    pub rtt_scaling: RttScaling,
    /// The RTT below which a flow grows as if at it (Linux `prague_rtt_target`: 25 ms).
    #[serde(default = "default_rtt_target")]
    pub rtt_target: Duration,
    /// Rounds outside slow start before the scaling applies (Linux v0.7: 4).
    #[serde(default = "default_rtt_transition")]
    pub rtt_transition: u32,
    /// Pacing ratio while cwnd < ssthresh/2 (the draft: 2).
    #[serde(default = "default_pacing_ss_ratio")]
    pub pacing_ss_ratio: f64,
    /// Pacing ratio after (the draft and Linux Prague: 1).
    #[serde(default = "default_pacing_ca_ratio")]
    pub pacing_ca_ratio: f64,
    /// Classic ECN AQM detection (Linux v0.6 `prague_ecn_fallback` 0: "off").
    #[serde(default = "default_classic_ecn_fallback")]
    pub classic_ecn_fallback: ClassicEcnFallback,
}

fn default_g() -> f64 {
    DEFAULT_G
}
fn default_alpha_mode() -> AlphaMode {
    AlphaMode::HalveAtFirstMark
}
fn default_rtt_scaling() -> RttScaling {
    RttScaling::Rate
}
fn default_rtt_target() -> Duration {
    Duration(DEFAULT_RTT_TARGET)
}
fn default_rtt_transition() -> u32 {
    DEFAULT_RTT_TRANSITION
}
fn default_pacing_ss_ratio() -> f64 {
    DEFAULT_PACING_SS_RATIO
}
fn default_pacing_ca_ratio() -> f64 {
    DEFAULT_PACING_CA_RATIO
}
fn default_classic_ecn_fallback() -> ClassicEcnFallback {
    ClassicEcnFallback::Off
}

impl Default for PragueSpec {
    fn default() -> Self {
        PragueSpec {
            g: DEFAULT_G,
            alpha_mode: default_alpha_mode(),
            rtt_scaling: default_rtt_scaling(),
            rtt_target: default_rtt_target(),
            rtt_transition: DEFAULT_RTT_TRANSITION,
            pacing_ss_ratio: DEFAULT_PACING_SS_RATIO,
            pacing_ca_ratio: DEFAULT_PACING_CA_RATIO,
            classic_ecn_fallback: default_classic_ecn_fallback(),
        }
    }
}

impl PragueSpec {
    pub fn validate(&self, a: &str, p: &mut Problems) {
        if !(self.g.is_finite() && self.g > 0.0 && self.g <= 1.0) {
            p.err(
                format!("{a}.g"),
                self.g,
                "must be in (0, 1] (the EWMA gain of alpha; Prague: 1/16 = 0.0625)",
            );
        }
        p.time_at_most(format!("{a}.rtt_target"), self.rtt_target);
        if self.rtt_target.0 == 0 {
            p.err(format!("{a}.rtt_target"), "\"0ns\"", "must be > 0");
        }
        for (field, v) in [
            ("pacing_ss_ratio", self.pacing_ss_ratio),
            ("pacing_ca_ratio", self.pacing_ca_ratio),
        ] {
            if !(v.is_finite() && v > 0.0 && v <= 10.0) {
                p.err(
                    format!("{a}.{field}"),
                    v,
                    "must be in (0, 10] (a multiple of cwnd/SRTT)",
                );
            }
        }
    }

    pub fn build(&self, cfg: &super::SenderSide) -> Prague {
        Prague::new(
            PragueConfig {
                g: self.g,
                alpha_mode: self.alpha_mode,
                rtt_scaling: self.rtt_scaling,
                rtt_target: self.rtt_target.0,
                rtt_transition: self.rtt_transition,
                pacing_ss_ratio: self.pacing_ss_ratio,
                pacing_ca_ratio: self.pacing_ca_ratio,
                classic_ecn_fallback: self.classic_ecn_fallback,
            },
            cfg.initial_cwnd,
            cfg.max_window,
        )
    }
}

#[cfg(test)]
#[path = "prague_tests.rs"]
mod tests;
