//! BBR v1 congestion control: draft-cardwell-iccrg-bbr-congestion-control-00 (Cardwell,
//! Cheng, Hassas Yeganeh, Jacobson 2017) and Linux's `net/ipv4/tcp_bbr.c` (v1, as in
//! Linux 4.19-6.x), driven by the delivery-rate samples of `crate::tcp::delivery`. Windows
//! count segments, rates are segments per second, times nanoseconds. The model:
//!
//! - BtlBw: a windowed maximum of the delivery rate over `bw_filter_rounds` (10) round
//!   trips (Kathleen Nichols' three-sample running max, Linux `lib/win_minmax.c`); an
//!   app-limited sample enters only if it is at least the current maximum. A round trip
//!   ends when an ACK's P.delivered reaches C.delivered at the round's start.
//! - RTprop (`min_rtt`): the minimum RTT sample, replaced by any sample once it is older
//!   than `probe_rtt_interval` (10 s).
//! - BDP(gain) = ⌈BtlBw · RTprop · gain⌉ (the flow's initial window before an RTT sample);
//!   the target window is BDP(cwnd_gain) plus the quantization budget (Linux's
//!   `bbr_quantization_budget`): 3·send_quantum, with send_quantum 1 segment below
//!   1.2 Mb/s, else max(2, ⌊rate·1.024 ms⌋) (Linux's `bbr_tso_segs_goal` with
//!   `sk_pacing_shift` 10); rounded up to an even number; 2 more in ProbeBW's 1.25 phase.
//! - The pacing rate is pacing_gain · BtlBw · (1 − pacing_margin) (Linux paces 1% below);
//!   before the first bandwidth sample it is high_gain · cwnd / SRTT (1 ms before an SRTT,
//!   Linux's `bbr_init_pacing_rate_from_rtt`), and until the pipe is full it never falls.
//!
//! The state machine (draft §4.3, Linux `bbr_update_model`):
//!
//! | state | pacing_gain | cwnd_gain | leaves |
//! |---|---|---|---|
//! | Startup | high_gain (2/ln 2) | high_gain | full pipe: BtlBw grew < 25% (`full_bw_threshold`) in 3 rounds (`full_bw_rounds`), not app-limited → Drain |
//! | Drain | 1/high_gain | high_gain | inflight ≤ BDP(1) + budget → ProbeBW |
//! | ProbeBW | [1.25, 0.75, 1, 1, 1, 1, 1, 1] | cwnd_gain (2) | each phase lasts RTprop; 1.25 also until inflight ≥ BDP(1.25) + budget or a loss, 0.75 ends early at inflight ≤ BDP(1) + budget |
//! | ProbeRTT | 1 | 1 | cwnd ≤ min_cwnd (4) for max(probe_rtt_duration, one round) → ProbeBW (Startup if the pipe was never full) |
//!
//! ProbeRTT is entered from any state when RTprop is older than probe_rtt_interval; the
//! window is saved and restored at its end (max(cwnd, saved)), and RTprop's timestamp is
//! renewed. ProbeBW starts at a random phase other than the 0.75 one (uniform over the
//! other seven, from the flow's own random stream; draft §4.3.4.4, Linux `bbr_cycle_rand`).
//!
//! The window (Linux `bbr_set_cwnd`): once the pipe is full, cwnd = min(cwnd + acked,
//! target); before, cwnd += acked while below target (or fewer than initial_cwnd segments
//! were delivered); never below min_cwnd; at most min_cwnd in ProbeRTT. Loss and recovery
//! (Linux `bbr_set_cwnd_to_recover_or_restore`): segments marked lost by an ACK come off
//! the window (not below 1); entering fast recovery saves the window and sets it to
//! inflight + acked (packet conservation, kept for one round: max(cwnd, inflight + acked));
//! leaving recovery or the loss state restores max(cwnd, saved). A retransmission
//! timeout saves the window, sets cwnd = 1, starts a round and forgets the full-pipe
//! bandwidth (Linux `tcp_enter_loss` with `bbr_set_state(TCP_CA_Loss)`). BBR sets the
//! window on every ACK, in recovery too (Linux's `cong_control` bypasses PRR): the sender's
//! recovery arithmetic is overwritten. ssthresh is never changed. ECN is ignored (v1).
//!
//! Not modelled (v1 as in Linux, see docs/congestion/bbr.md): the long-term bandwidth
//! sampling for policers (`lt_bw`), the ACK-aggregation allowance (`extra_acked`, Linux
//! 4.19+), and the restart from idle (`idle_restart`): flows here do not go idle and come
//! back.

use super::{Acked, Congestion, Controller, Reduction};
use crate::check::Problems;
use crate::rng::Rng;
use crate::tcp::delivery::{CaState, RateSample};
use crate::units::{format_time, secs, Duration, Time, NS_PER_SEC};
use serde::{Deserialize, Serialize};

/// 2/ln 2, the smallest gain that doubles the delivery rate each round (draft §4.3.1.1;
/// Linux rounds it to 2885/1000).
pub const HIGH_GAIN: f64 = 2.0 / std::f64::consts::LN_2;
/// The ProbeBW gain cycle (draft §4.3.4.3, Linux `bbr_pacing_gain`).
pub const CYCLE_LEN: usize = 8;

/// BBR's modes (their numbers are the `state` metric).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Startup = 0,
    Drain = 1,
    ProbeBw = 2,
    ProbeRtt = 3,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BbrConfig {
    pub high_gain: f64,
    pub drain_gain: f64,
    pub cwnd_gain: f64,
    /// ProbeBW's up and down gains (1.25, 0.75); the other six phases are 1.
    pub probe_bw_up: f64,
    pub probe_bw_down: f64,
    pub min_cwnd: f64,
    pub probe_rtt_interval: Time,
    pub probe_rtt_duration: Time,
    pub bw_filter_rounds: u64,
    pub full_bw_threshold: f64,
    pub full_bw_rounds: u32,
    pub pacing_margin: f64,
    /// The flow's initial window (BDP before an RTT sample).
    pub initial_cwnd: f64,
    /// Bytes per segment (the 1.2 Mb/s threshold of send_quantum).
    pub segment_bytes: u32,
}

impl Default for BbrConfig {
    fn default() -> Self {
        BbrSpec::default().config(2.0, 1500)
    }
}

/// A running maximum over a window of rounds keeping three samples (best, second best in
/// the later part of the window, third in the latest quarter), so the maximum of the last
/// `window` rounds is known without storing each round (Nichols; Linux `win_minmax.c`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct MaxFilter {
    s: [(u64, f64); 3],
}

impl MaxFilter {
    pub fn get(&self) -> f64 {
        self.s[0].1
    }

    pub fn reset(&mut self, t: u64, v: f64) {
        self.s = [(t, v); 3];
    }

    /// Adds sample `v` at round `t`; returns the maximum over the window.
    pub fn update(&mut self, window: u64, t: u64, v: f64) -> f64 {
        let val = (t, v);
        if v >= self.s[0].1 || t - self.s[2].0 > window {
            self.reset(t, v);
            return v;
        }
        if v >= self.s[1].1 {
            self.s[1] = val;
            self.s[2] = val;
        } else if v >= self.s[2].1 {
            self.s[2] = val;
        }
        // The best sample aged out: promote the later ones (twice if the second also did).
        let dt = t - self.s[0].0;
        if dt > window {
            self.s = [self.s[1], self.s[2], val];
            if t - self.s[0].0 > window {
                self.s = [self.s[1], self.s[2], val];
            }
        } else if self.s[1].0 == self.s[0].0 && dt > window / 4 {
            // A quarter of the window passed with one sample: keep a fresher second best.
            self.s[1] = val;
            self.s[2] = val;
        } else if self.s[2].0 == self.s[1].0 && dt > window / 2 {
            self.s[2] = val;
        }
        self.s[0].1
    }
}

#[derive(Clone, Debug)]
pub struct Bbr {
    cfg: BbrConfig,
    rng: Rng,
    mode: Mode,
    pacing_gain: f64,
    cwnd_gain: f64,
    btl_bw: MaxFilter,
    min_rtt: Option<Time>,
    min_rtt_stamp: Time,
    round_count: u64,
    next_round_delivered: u64,
    round_start: bool,
    full_bw: f64,
    full_bw_count: u32,
    filled_pipe: bool,
    cycle_index: usize,
    cycle_stamp: Time,
    probe_rtt_done: Option<Time>,
    probe_rtt_round_done: bool,
    prior_cwnd: f64,
    packet_conservation: bool,
    prev_state: CaState,
    /// The window BBR last set: the sender's recovery arithmetic in between is not BBR's.
    cwnd: f64,
    pacing_rate: f64,
    has_seen_rtt: bool,
    app_limited: bool,
    inflight: u64,
    /// ProbeRTT entries (a metric: the count steps at each).
    probe_rtts: u64,
}

impl Bbr {
    pub fn new(cfg: BbrConfig, rng: Rng) -> Bbr {
        let cwnd = cfg.initial_cwnd;
        Bbr {
            rng,
            mode: Mode::Startup,
            pacing_gain: cfg.high_gain,
            cwnd_gain: cfg.high_gain,
            btl_bw: MaxFilter::default(),
            min_rtt: None,
            min_rtt_stamp: 0,
            round_count: 0,
            next_round_delivered: 0,
            round_start: false,
            full_bw: 0.0,
            full_bw_count: 0,
            filled_pipe: false,
            cycle_index: 0,
            cycle_stamp: 0,
            probe_rtt_done: None,
            probe_rtt_round_done: false,
            prior_cwnd: 0.0,
            packet_conservation: false,
            prev_state: CaState::Open,
            cwnd,
            // No RTT yet: 1 ms (Linux `bbr_init_pacing_rate_from_rtt`).
            pacing_rate: cfg.high_gain * cwnd / 1e-3 * (1.0 - cfg.pacing_margin),
            has_seen_rtt: false,
            app_limited: false,
            inflight: 0,
            probe_rtts: 0,
            cfg,
        }
    }

    pub fn mode(&self) -> Mode {
        self.mode
    }
    pub fn btl_bw(&self) -> f64 {
        self.btl_bw.get()
    }
    pub fn min_rtt(&self) -> Option<Time> {
        self.min_rtt
    }
    pub fn pacing_gain(&self) -> f64 {
        self.pacing_gain
    }
    pub fn cwnd_gain(&self) -> f64 {
        self.cwnd_gain
    }
    pub fn cycle_index(&self) -> usize {
        self.cycle_index
    }
    pub fn filled_pipe(&self) -> bool {
        self.filled_pipe
    }
    pub fn round_count(&self) -> u64 {
        self.round_count
    }

    fn cycle_gain(&self, i: usize) -> f64 {
        match i {
            0 => self.cfg.probe_bw_up,
            1 => self.cfg.probe_bw_down,
            _ => 1.0,
        }
    }

    /// BDP(gain) in segments.
    pub fn bdp(&self, gain: f64) -> f64 {
        match self.min_rtt {
            None => self.cfg.initial_cwnd,
            Some(r) => libm::ceil(self.btl_bw.get() * secs(r) * gain),
        }
    }

    /// Linux's `bbr_quantization_budget`: room for the sends in flight at both ends.
    fn quantization_budget(&self, cwnd: f64) -> f64 {
        let rate_bps = self.pacing_rate * self.cfg.segment_bytes as f64 * 8.0;
        let quantum = if rate_bps < 1.2e6 {
            1.0
        } else {
            libm::floor(self.pacing_rate * 1.024e-3).clamp(2.0, 127.0)
        };
        let mut w = cwnd + 3.0 * quantum;
        w = 2.0 * libm::ceil(w / 2.0);
        if self.mode == Mode::ProbeBw && self.cycle_index == 0 {
            w += 2.0;
        }
        w
    }

    /// BBRInflight(gain): the window the model wants at this gain, budget included.
    pub fn inflight_target(&self, gain: f64) -> f64 {
        self.quantization_budget(self.bdp(gain))
    }

    fn save_cwnd(&mut self, cwnd: f64) {
        self.prior_cwnd = if self.prev_state < CaState::Recovery && self.mode != Mode::ProbeRtt {
            cwnd
        } else {
            self.prior_cwnd.max(cwnd)
        };
    }

    fn enter_probe_bw(&mut self, now: Time) {
        self.mode = Mode::ProbeBw;
        // Any phase but the 0.75 one (index 1): 7 − r for r in [0, 7) is 1..=7, and the
        // advance below makes it 2..=7 or 0.
        let r = self.rng.below(CYCLE_LEN as u64 - 1) as usize;
        self.cycle_index = CYCLE_LEN - 1 - r;
        self.advance_cycle(now);
    }

    fn advance_cycle(&mut self, now: Time) {
        self.cycle_index = (self.cycle_index + 1) % CYCLE_LEN;
        self.cycle_stamp = now;
    }

    fn reset_mode(&mut self, now: Time) {
        if self.filled_pipe {
            self.enter_probe_bw(now);
        } else {
            self.mode = Mode::Startup;
        }
    }

    fn update_bw(&mut self, rs: &RateSample) {
        self.round_start = false;
        let Some(bw) = rs.rate() else { return };
        if rs.prior_delivered >= self.next_round_delivered {
            self.next_round_delivered = rs.total_delivered;
            self.round_count += 1;
            self.round_start = true;
            self.packet_conservation = false;
        }
        if !rs.is_app_limited || bw >= self.btl_bw.get() {
            self.btl_bw
                .update(self.cfg.bw_filter_rounds, self.round_count, bw);
        }
    }

    fn is_next_cycle_phase(&self, rs: &RateSample) -> bool {
        let full_length = self
            .min_rtt
            .is_some_and(|m| rs.delivered_time - self.cycle_stamp > m);
        let gain = self.pacing_gain;
        if gain == 1.0 {
            return full_length;
        }
        let inflight = rs.prior_in_flight as f64;
        if gain > 1.0 {
            full_length && (rs.losses > 0 || inflight >= self.inflight_target(gain))
        } else {
            full_length || inflight <= self.inflight_target(1.0)
        }
    }

    fn check_full_pipe(&mut self, rs: &RateSample) {
        if self.filled_pipe || !self.round_start || rs.is_app_limited {
            return;
        }
        let bw = self.btl_bw.get();
        if bw >= self.full_bw * self.cfg.full_bw_threshold {
            self.full_bw = bw;
            self.full_bw_count = 0;
            return;
        }
        self.full_bw_count += 1;
        self.filled_pipe = self.full_bw_count >= self.cfg.full_bw_rounds;
    }

    fn update_min_rtt(&mut self, rs: &RateSample, now: Time, cwnd: &mut f64) {
        let expired = now > self.min_rtt_stamp + self.cfg.probe_rtt_interval;
        if let Some(r) = rs.rtt {
            if self.min_rtt.is_none_or(|m| r < m || expired) {
                self.min_rtt = Some(r);
                self.min_rtt_stamp = now;
            }
        }
        if expired && self.mode != Mode::ProbeRtt && self.min_rtt.is_some() {
            self.mode = Mode::ProbeRtt;
            self.probe_rtts += 1;
            self.save_cwnd(*cwnd);
            self.probe_rtt_done = None;
        }
        if self.mode != Mode::ProbeRtt {
            return;
        }
        // The samples of ProbeRTT's small window say nothing of the bottleneck.
        self.app_limited = true;
        match self.probe_rtt_done {
            None if rs.in_flight as f64 <= self.cfg.min_cwnd => {
                self.probe_rtt_done = Some(now + self.cfg.probe_rtt_duration);
                self.probe_rtt_round_done = false;
                self.next_round_delivered = rs.total_delivered;
            }
            None => {}
            Some(done) => {
                if self.round_start {
                    self.probe_rtt_round_done = true;
                }
                if self.probe_rtt_round_done && now > done {
                    self.min_rtt_stamp = now;
                    *cwnd = cwnd.max(self.prior_cwnd);
                    self.reset_mode(now);
                }
            }
        }
    }

    fn update_gains(&mut self) {
        (self.pacing_gain, self.cwnd_gain) = match self.mode {
            Mode::Startup => (self.cfg.high_gain, self.cfg.high_gain),
            Mode::Drain => (self.cfg.drain_gain, self.cfg.high_gain),
            Mode::ProbeBw => (self.cycle_gain(self.cycle_index), self.cfg.cwnd_gain),
            Mode::ProbeRtt => (1.0, 1.0),
        };
    }

    /// Linux `bbr_update_model`, then the gains of the (possibly new) mode.
    fn update_model(&mut self, rs: &RateSample, now: Time, cwnd: &mut f64) {
        self.update_bw(rs);
        if self.mode == Mode::ProbeBw && self.is_next_cycle_phase(rs) {
            self.advance_cycle(rs.delivered_time);
        }
        self.check_full_pipe(rs);
        if self.mode == Mode::Startup && self.filled_pipe {
            self.mode = Mode::Drain;
        }
        if self.mode == Mode::Drain && rs.in_flight as f64 <= self.inflight_target(1.0) {
            self.enter_probe_bw(now);
        }
        self.update_min_rtt(rs, now, cwnd);
        self.update_gains();
    }

    fn set_pacing_rate(&mut self, srtt_s: f64) {
        if !self.has_seen_rtt && srtt_s.is_finite() && srtt_s > 0.0 {
            self.has_seen_rtt = true;
            self.pacing_rate =
                self.cfg.high_gain * self.cwnd / srtt_s * (1.0 - self.cfg.pacing_margin);
        }
        let rate = self.pacing_gain * self.btl_bw.get() * (1.0 - self.cfg.pacing_margin);
        if rate > 0.0 && (self.filled_pipe || rate > self.pacing_rate) {
            self.pacing_rate = rate;
        }
    }

    /// Linux `bbr_set_cwnd` with `bbr_set_cwnd_to_recover_or_restore`.
    fn set_cwnd(&mut self, rs: &RateSample, mut cwnd: f64) -> f64 {
        let acked = rs.acked_sacked as f64;
        'done: {
            if acked == 0.0 {
                break 'done;
            }
            if rs.losses > 0 {
                cwnd = (cwnd - rs.losses as f64).max(1.0);
            }
            let inflight = rs.in_flight as f64;
            if rs.state == CaState::Recovery && self.prev_state != CaState::Recovery {
                self.packet_conservation = true;
                self.next_round_delivered = rs.total_delivered;
                cwnd = inflight + acked;
            } else if self.prev_state >= CaState::Recovery && rs.state < CaState::Recovery {
                cwnd = cwnd.max(self.prior_cwnd);
                self.packet_conservation = false;
            }
            self.prev_state = rs.state;
            if self.packet_conservation {
                cwnd = cwnd.max(inflight + acked);
                break 'done;
            }
            let target = self.quantization_budget(self.bdp(self.cwnd_gain));
            if self.filled_pipe {
                cwnd = (cwnd + acked).min(target);
            } else if cwnd < target || (rs.total_delivered as f64) < self.cfg.initial_cwnd {
                cwnd += acked;
            }
            cwnd = cwnd.max(self.cfg.min_cwnd);
        }
        if self.mode == Mode::ProbeRtt {
            cwnd = cwnd.min(self.cfg.min_cwnd);
        }
        cwnd
    }
}

impl Controller for Bbr {
    fn on_ack(&mut self, _cwnd: f64, _ssthresh: f64, ack: &Acked) -> f64 {
        let Some(rs) = ack.rate else {
            return self.cwnd;
        };
        self.app_limited = false;
        self.inflight = rs.in_flight;
        let mut cwnd = self.cwnd;
        self.update_model(&rs, ack.now, &mut cwnd);
        self.set_pacing_rate(ack.srtt_s);
        self.cwnd = self.set_cwnd(&rs, cwnd);
        self.cwnd
    }

    fn on_congestion(&mut self, event: Congestion, cwnd: f64, ssthresh: f64) -> Reduction {
        match event {
            // Linux `bbr_ssthresh`: the window is saved, ssthresh kept; the next ACK's
            // set_cwnd applies packet conservation.
            Congestion::Loss { .. } => self.save_cwnd(self.cwnd),
            Congestion::Ecn { .. } => {}
            Congestion::Rto { .. } => {
                self.save_cwnd(self.cwnd);
                self.prev_state = CaState::Loss;
                self.full_bw = 0.0;
                self.round_start = true;
                self.cwnd = 1.0;
            }
        }
        let _ = cwnd;
        Reduction {
            ssthresh,
            cwnd: self.cwnd,
        }
    }

    fn pacing_rate(&self) -> Option<f64> {
        Some(self.pacing_rate)
    }

    fn wants_rate(&self) -> bool {
        true
    }

    fn app_limited(&self) -> bool {
        self.app_limited
    }

    fn metric_names(&self) -> &'static [&'static str] {
        &[
            "bbr_state",
            "pacing_gain",
            "cwnd_gain",
            "btl_bw_pps",
            "min_rtt_s",
            "pacing_rate_pps",
            "inflight_pkts",
            "probe_rtts",
        ]
    }

    fn metrics(&self, out: &mut [f64]) {
        out[0] = self.mode as u8 as f64;
        out[1] = self.pacing_gain;
        out[2] = self.cwnd_gain;
        out[3] = self.btl_bw.get();
        out[4] = self.min_rtt.map_or(f64::NAN, secs);
        out[5] = self.pacing_rate;
        out[6] = self.inflight as f64;
        out[7] = self.probe_rtts as f64;
    }
}

/// The registry holds BBR boxed: its state is four times CUBIC's, and the controller lives
/// inline in every sender (Reno's flows would carry the size).
impl Controller for Box<Bbr> {
    #[inline]
    fn on_ack(&mut self, cwnd: f64, ssthresh: f64, ack: &Acked) -> f64 {
        (**self).on_ack(cwnd, ssthresh, ack)
    }
    fn on_congestion(&mut self, event: Congestion, cwnd: f64, ssthresh: f64) -> Reduction {
        (**self).on_congestion(event, cwnd, ssthresh)
    }
    fn pacing_rate(&self) -> Option<f64> {
        (**self).pacing_rate()
    }
    fn wants_rate(&self) -> bool {
        true
    }
    fn app_limited(&self) -> bool {
        (**self).app_limited()
    }
    fn metric_names(&self) -> &'static [&'static str] {
        (**self).metric_names()
    }
    fn metrics(&self, out: &mut [f64]) {
        (**self).metrics(out)
    }
}

// ---------------------------------------------------------------------------------------
// Spec: the scenario's fields, defaults and checks
// ---------------------------------------------------------------------------------------

/// `congestion = { type = "bbr", ... }` (Linux tcp_bbr.c's defaults).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BbrSpec {
    /// Startup's pacing and window gain (draft: 2/ln 2 = 2.885; Linux 2.885).
    #[serde(default = "default_high_gain")]
    pub high_gain: f64,
    /// Drain's pacing gain; absent: 1/high_gain (Linux `bbr_drain_gain`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub drain_gain: Option<f64>,
    /// ProbeBW's window gain (Linux `bbr_cwnd_gain`: 2).
    #[serde(default = "default_cwnd_gain")]
    pub cwnd_gain: f64,
    /// ProbeBW's probing phase gain (1.25) and draining phase gain (0.75).
    #[serde(default = "default_up")]
    pub probe_bw_up: f64,
    #[serde(default = "default_down")]
    pub probe_bw_down: f64,
    /// Segments; the floor of the window and ProbeRTT's window (Linux
    /// `bbr_cwnd_min_target`: 4).
    #[serde(default = "default_min_cwnd")]
    pub min_cwnd: f64,
    /// RTprop's lifetime before ProbeRTT (Linux `bbr_min_rtt_win_sec`: 10 s).
    #[serde(default = "default_probe_rtt_interval")]
    pub probe_rtt_interval: Duration,
    /// ProbeRTT's least duration at min_cwnd (Linux `bbr_probe_rtt_mode_ms`: 200 ms).
    #[serde(default = "default_probe_rtt_duration")]
    pub probe_rtt_duration: Duration,
    /// Rounds of the BtlBw max filter (Linux `bbr_bw_rtts`: 10).
    #[serde(default = "default_bw_filter_rounds")]
    pub bw_filter_rounds: u64,
    /// Growth per round below which the pipe counts as full (Linux: 1.25).
    #[serde(default = "default_full_bw_threshold")]
    pub full_bw_threshold: f64,
    /// Rounds without that growth (Linux `bbr_full_bw_cnt`: 3).
    #[serde(default = "default_full_bw_rounds")]
    pub full_bw_rounds: u32,
    /// Pacing below the model's rate by this fraction (Linux
    /// `bbr_pacing_margin_percent`: 1%; the draft has none).
    #[serde(default = "default_pacing_margin")]
    pub pacing_margin: f64,
}

fn default_high_gain() -> f64 {
    HIGH_GAIN
}
fn default_cwnd_gain() -> f64 {
    2.0
}
fn default_up() -> f64 {
    1.25
}
fn default_down() -> f64 {
    0.75
}
fn default_min_cwnd() -> f64 {
    4.0
}
fn default_probe_rtt_interval() -> Duration {
    Duration(10 * NS_PER_SEC)
}
fn default_probe_rtt_duration() -> Duration {
    Duration(NS_PER_SEC / 5)
}
fn default_bw_filter_rounds() -> u64 {
    10
}
fn default_full_bw_threshold() -> f64 {
    1.25
}
fn default_full_bw_rounds() -> u32 {
    3
}
fn default_pacing_margin() -> f64 {
    0.01
}

impl Default for BbrSpec {
    fn default() -> Self {
        BbrSpec {
            high_gain: HIGH_GAIN,
            drain_gain: None,
            cwnd_gain: 2.0,
            probe_bw_up: 1.25,
            probe_bw_down: 0.75,
            min_cwnd: 4.0,
            probe_rtt_interval: default_probe_rtt_interval(),
            probe_rtt_duration: default_probe_rtt_duration(),
            bw_filter_rounds: 10,
            full_bw_threshold: 1.25,
            full_bw_rounds: 3,
            pacing_margin: 0.01,
        }
    }
}

impl BbrSpec {
    pub fn validate(&self, a: &str, p: &mut Problems) {
        let mut gain = |field: &str, v: f64, lo: f64, hi: f64, what: &str| {
            if !(v.is_finite() && v > lo && v <= hi) {
                p.err(
                    format!("{a}.{field}"),
                    v,
                    format!("must be in ({lo}, {hi}] ({what})"),
                );
            }
        };
        gain(
            "high_gain",
            self.high_gain,
            1.0,
            10.0,
            "Startup's gain; 2/ln 2 = 2.885",
        );
        if let Some(d) = self.drain_gain {
            gain(
                "drain_gain",
                d,
                0.0,
                1.0,
                "Drain's gain; default 1/high_gain",
            );
        }
        gain(
            "cwnd_gain",
            self.cwnd_gain,
            0.0,
            10.0,
            "ProbeBW's window gain; Linux 2",
        );
        gain(
            "probe_bw_up",
            self.probe_bw_up,
            1.0,
            10.0,
            "ProbeBW's probing gain; 1.25",
        );
        gain(
            "probe_bw_down",
            self.probe_bw_down,
            0.0,
            1.0,
            "ProbeBW's draining gain; 0.75",
        );
        gain(
            "full_bw_threshold",
            self.full_bw_threshold,
            1.0,
            10.0,
            "a round's growth that is not a full pipe; 1.25",
        );
        if !(self.pacing_margin.is_finite() && (0.0..1.0).contains(&self.pacing_margin)) {
            p.err(
                format!("{a}.pacing_margin"),
                self.pacing_margin,
                "must be in [0, 1) (a fraction of the rate; Linux 0.01)",
            );
        }
        if !(self.min_cwnd.is_finite() && self.min_cwnd >= 1.0) {
            p.err(
                format!("{a}.min_cwnd"),
                self.min_cwnd,
                "must be a finite number >= 1 (segments; Linux 4)",
            );
        }
        for (field, d) in [
            ("probe_rtt_interval", self.probe_rtt_interval),
            ("probe_rtt_duration", self.probe_rtt_duration),
        ] {
            p.time_at_most(format!("{a}.{field}"), d);
            if d.0 == 0 {
                p.err(format!("{a}.{field}"), "\"0ns\"", "must be > 0");
            }
        }
        if self.probe_rtt_duration.0 >= self.probe_rtt_interval.0 {
            p.err(
                format!("{a}.probe_rtt_duration"),
                format!("\"{}\"", format_time(self.probe_rtt_duration.0)),
                format!(
                    "must be < probe_rtt_interval = \"{}\"",
                    format_time(self.probe_rtt_interval.0)
                ),
            );
        }
        if self.bw_filter_rounds == 0 {
            p.err(
                format!("{a}.bw_filter_rounds"),
                0,
                "must be >= 1 (round trips; Linux 10)",
            );
        }
        if self.full_bw_rounds == 0 {
            p.err(
                format!("{a}.full_bw_rounds"),
                0,
                "must be >= 1 (round trips; Linux 3)",
            );
        }
    }

    pub fn config(&self, initial_cwnd: f64, segment_bytes: u32) -> BbrConfig {
        BbrConfig {
            high_gain: self.high_gain,
            drain_gain: self.drain_gain.unwrap_or(1.0 / self.high_gain),
            cwnd_gain: self.cwnd_gain,
            probe_bw_up: self.probe_bw_up,
            probe_bw_down: self.probe_bw_down,
            min_cwnd: self.min_cwnd,
            probe_rtt_interval: self.probe_rtt_interval.0,
            probe_rtt_duration: self.probe_rtt_duration.0,
            bw_filter_rounds: self.bw_filter_rounds,
            full_bw_threshold: self.full_bw_threshold,
            full_bw_rounds: self.full_bw_rounds,
            pacing_margin: self.pacing_margin,
            initial_cwnd,
            segment_bytes,
        }
    }

    pub fn build(&self, cfg: &super::SenderSide) -> Box<Bbr> {
        let rng = Rng::for_component(cfg.congestion_seed, 0, "bbr");
        Box::new(Bbr::new(
            self.config(cfg.initial_cwnd, cfg.segment_bytes),
            rng,
        ))
    }
}

#[cfg(test)]
#[path = "bbr_tests.rs"]
mod tests;
