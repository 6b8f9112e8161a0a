//! The TCP sender: slow start and congestion avoidance (RFC 5681), fast retransmit and
//! recovery as Reno (RFC 5681 §3.2), NewReno (RFC 6582) or SACK loss recovery (RFC 6675),
//! the retransmission timer (RFC 6298) and the ECN reaction (RFC 3168 §6.1.2).
//!
//! Segment-granular like ns-2's one-way agents: sequence numbers and windows count
//! segments, `cwnd` is a float in segments, and there is no handshake. Where the RFCs and
//! ns-2 differ the RFC rule is implemented and the ns-2 default is available as a parameter
//! (timer constants, window cap); the choices are listed in docs/tcp.md:
//!
//! - The window's growth and its reductions (ssthresh on a fast retransmit, a mark or a
//!   timeout; ns-2's halvings and `ecn_backoff`) are the controller's (`super::congestion`,
//!   Reno today): the sender keeps cwnd and ssthresh, asks it at those events, and owns what
//!   recovery does to the window (inflation, partial-ACK deflation, PRR, the exit rule).
//! - Reno leaves recovery on any new ACK; NewReno stays in it until `recover` is acked,
//!   retransmitting on each partial ACK (`PartialAck`, ns-2 `tcp-newreno.cc`):
//!   - `Rfc6582` deflates the window by the newly acknowledged data less one, resets the
//!     timer on the first partial ACK only ("Impatient", RFC 6582 §4) and leaves with
//!     min(ssthresh, FlightSize + 1): ns-2's `newreno_changes1_`,
//!     `partial_window_deflation_` and `exit_recovery_fix_` all 1.
//!   - `Ns2_35`, ns-2.35's defaults (those at 1, 1, 0): the same partial ACKs, but the ACK
//!     that ends recovery leaves ns-2's `cwnd_`, the window less its inflation (`dupwnd_`;
//!     ssthresh, or less where a deflation took more than the inflation), and then opens
//!     it as any new ACK does (`opencwnd`).
//!   - `Ns2_2001`, ns-2 before 2003-05-05 (all three 0): a partial ACK takes the whole
//!     inflation back (the window is ssthresh again, and grows by one per further
//!     duplicate ACK) and resets the timer every time ("Slow-but-Steady"); recovery ends
//!     as in `Ns2_35`.
//! - A fast retransmit leaves a running retransmission timer alone (RFC 6298 §5.1), or
//!   with `FrTimer::Restart` restarts it and abandons the RTT measurement in progress,
//!   as every ns-2 agent's `dupack_action` does (`reset_rtx_timer(1, 0)`: `rtt_active_` 0).
//! - The `RetransmitOnly` dupack response is the REM paper's wireless NewReno (Section 5):
//!   a loss found by duplicate ACKs is retransmitted without reducing the window; marks and
//!   timeouts are answered as usual.
//! - PRR (`Recovery::prr`) replaces the window arithmetic of fast recovery (all three variants)
//!   with Proportional Rate Reduction (RFC 6937): on each ACK, DeliveredData (the advance
//!   of snd.una plus the change in SACKed segments; without SACK one segment per duplicate
//!   ACK, and on a cumulative ACK its advance less the duplicates already counted) is added
//!   to prr_delivered, and while pipe > ssthresh the sender keeps prr_out at
//!   ceil(prr_delivered · ssthresh / RecoverFS); below ssthresh it catches up by at most the
//!   reduction bound. RecoverFS is the FlightSize that ssthresh was halved from (data sent
//!   by limited transmit excluded, as for ssthresh; with it RFC 6937's single-loss example
//!   sends one segment per two ACKs, as its figure does). cwnd = ssthresh when recovery
//!   ends. The fast retransmit
//!   and NewReno's partial-ACK retransmission are always sent and count in prr_out.
//!   Without SACK, pipe is estimated as FlightSize less the duplicate ACKs not yet covered
//!   by the cumulative ACK, and a duplicate ACK counts as delivered only while
//!   prr_delivered < RecoverFS (RFC 9937's guard against ACK splitting).

use super::congestion::{
    Acked, AnyController, Congestion, CongestionSpec, Controller, Delivery, SenderSide,
};
pub use super::congestion::{DupackResponse, Halving};
use super::delivery::DeliveryRate;
pub use super::options::{FrTimer, PartialAck, PrrBound, RecoverGuard, Recovery, Variant};
use super::pacing::Pacer;
use super::receiver::Ack;
use super::rtt::{Rtt, RttConfig, RttRule};
use crate::units::Time;
use std::collections::VecDeque;

#[derive(Clone, Debug)]
pub struct SenderConfig {
    pub variant: Variant,
    pub ecn: bool,
    /// ns-2's ECN response (`congestion::reno`); false: RFC 5681 eq. 4's floor of 2, as Linux
    /// and ns-3.
    pub ecn_backoff: bool,
    pub dupack_response: DupackResponse,
    pub recovery: Recovery,
    pub partial_ack: PartialAck,
    pub halving: Halving,
    /// ns-2 restarts the timer at a fast retransmit and ends the RTT measurement.
    pub fr_timer: FrTimer,
    /// The guard on a new fast retransmit after a recovery or timeout: the cumulative ACK
    /// must pass `recover_guard` (RFC 6582, ns-2) or may reach it (ns-3.44).
    pub recover_guard: RecoverGuard,
    /// Cap on the window in segments (the receiver window; ns-2's `window_`).
    pub max_window: u32,
    pub initial_cwnd: f64,
    pub initial_ssthresh: f64,
    pub dupthresh: u32,
    /// RFC 3042: on each of the first dupthresh−1 duplicate ACKs, send one new segment
    /// beyond cwnd (ns-2 `singledup_ 1`, ns-3 `LimitedTransmit`, both on by default).
    pub limited_transmit: bool,
    pub min_rto: Time,
    pub initial_rto: Time,
    pub max_rto: Time,
    /// Clock granularity G of RFC 6298 (RTO = SRTT + max(G, 4·RTTVAR)); ns-2's tick.
    pub granularity: Time,
    /// The timer's estimator (`tcp::rtt`).
    pub rtt_rule: RttRule,
    /// ns-2's clock phase in [0, granularity) (`boot_time_`); 0 for RFC 6298.
    pub clock_phase: Time,
    /// Segments the application has to send; None = unlimited (bulk).
    pub segments: Option<u64>,
    /// The congestion controller (`super::congestion`); Reno by default.
    pub congestion: CongestionSpec,
    /// Pace at Linux's default rate when the controller has none (`super::pacing`).
    pub pacing: bool,
    /// Bytes per segment (BBR's send quantum).
    pub segment_bytes: u32,
    /// Seed of the controller's random stream (BBR's ProbeBW phase), drawn from the flow's.
    pub congestion_seed: u64,
}

/// One segment to put on the wire.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Segment {
    pub seq: u64,
    pub retransmit: bool,
    /// Congestion Window Reduced: set on the first new segment after an ECN reaction.
    pub cwr: bool,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SenderStats {
    pub segments_sent: u64,
    pub retransmits: u64,
    pub timeouts: u64,
    /// `timeouts` by the sender's state when the timer expired (the congestion states of
    /// Linux and ns-3): `open`, no duplicate ACK since the last new ACK (the whole window,
    /// or its tail, was lost); `disorder`, duplicate ACKs but no fast retransmit (fewer than
    /// dupthresh, or the RFC 6582 guard); `recovery`, during fast recovery (a retransmission
    /// was lost, or the holes outlasted the timer); `loss`, after an earlier timeout, before
    /// the cumulative ACK passed the data outstanding at it (a go-back-N copy was lost).
    pub timeouts_open: u64,
    pub timeouts_disorder: u64,
    pub timeouts_recovery: u64,
    pub timeouts_loss: u64,
    pub fast_recoveries: u64,
    pub ecn_reactions: u64,
    pub rtt_samples: u64,
    /// When the last segment of a finite transfer was acknowledged.
    pub completed_at: Option<Time>,
}

impl SenderStats {
    /// The counts accumulated since `earlier` (the warm-up snapshot); `completed_at` is a
    /// time, not a count, and is kept.
    pub fn since(&self, earlier: &SenderStats) -> SenderStats {
        SenderStats {
            segments_sent: self.segments_sent - earlier.segments_sent,
            retransmits: self.retransmits - earlier.retransmits,
            timeouts: self.timeouts - earlier.timeouts,
            timeouts_open: self.timeouts_open - earlier.timeouts_open,
            timeouts_disorder: self.timeouts_disorder - earlier.timeouts_disorder,
            timeouts_recovery: self.timeouts_recovery - earlier.timeouts_recovery,
            timeouts_loss: self.timeouts_loss - earlier.timeouts_loss,
            fast_recoveries: self.fast_recoveries - earlier.fast_recoveries,
            ecn_reactions: self.ecn_reactions - earlier.ecn_reactions,
            rtt_samples: self.rtt_samples - earlier.rtt_samples,
            completed_at: self.completed_at,
        }
    }
}

const SACKED: u8 = 1;
const RETX: u8 = 2;
/// Counted in a rate sample's losses already (only with delivery-rate sampling).
const LOST: u8 = 4;

#[derive(Clone, Debug)]
pub struct Sender {
    cfg: SenderConfig,
    /// First unacknowledged segment, next segment to send, one past the highest ever sent.
    snd_una: u64,
    snd_nxt: u64,
    maxseq: u64,
    /// No new data beyond this (application stopped or finished).
    app_limit: u64,
    pub cwnd: f64,
    pub ssthresh: f64,
    dupacks: u32,
    /// Extra segments limited transmit allows beyond cwnd (0, 1 or 2).
    lt_allow: u32,
    /// maxseq at the first duplicate ACK: later segments are limited-transmit data.
    lt_base: u64,
    /// snd_una at the last retransmission timeout (a repeated timeout holds ssthresh).
    rto_seq: Option<u64>,
    /// One past the highest segment sent at the last timeout, until a cumulative ACK
    /// reaches it (the "loss" state of the timeout statistics).
    loss_point: Option<u64>,
    in_recovery: bool,
    /// Recovery ends when this segment is cumulatively acked (one past HighData at entry).
    recover: u64,
    /// One past the highest segment sent when the last recovery or timeout began: a new
    /// recovery needs a cumulative ACK above it, i.e. one covering data sent after that
    /// moment (RFC 6582 §3.2 step 1, the "Careful" variant; ns-2 `highest_ack_ > recover_`).
    recover_guard: Option<u64>,
    partial_seen: bool,
    /// ns-2's `cwnd_` during NewReno recovery: cwnd without the inflation (`dupwnd_`).
    base: f64,
    /// The timer's estimator (RFC 6298's or ns-2's) and its backoff.
    rtt: Rtt,
    timed: Option<(u64, Time)>,
    /// The retransmission timer expires at this time, if armed.
    pub rto_deadline: Option<Time>,
    cwr_pending: bool,
    ecn_guard: u64,
    /// ns-2's `ecn_backoff_`: a mark arrived at a window of 1 and no unmarked ACK since.
    ecn_at_one: bool,
    /// Decides cwnd and ssthresh at new ACKs and congestion events.
    cc: AnyController,
    /// SACK scoreboard for segments [snd_una, maxseq): SACKED and RETX bits. Kept only
    /// where it is read (`keeps_board`): SACK's scoreboard, and PRR's safe ACK (a
    /// retransmission acked). Otherwise it stays empty: its ring was a line that every
    /// segment sent and every ACK touched, cold at scale.
    board: VecDeque<u8>,
    keeps_board: bool,
    /// Segments with the SACKED bit on the board.
    sacked: u64,
    /// PRR (RFC 6937) state of the current recovery, in segments.
    prr: PrrState,
    pub stats: SenderStats,
    /// Delivery-rate sampling (`super::delivery`), for a controller that wants it; boxed
    /// and absent otherwise, so that Reno's and CUBIC's senders carry one word.
    rate: Option<Box<DeliveryRate>>,
    /// Pacing (`super::pacing`), when the controller paces or the flow asks for it.
    pacer: Option<Box<Pacer>>,
    /// Send times of the segments [snd_una, maxseq) for a controller that `wants_ack_rtt`
    /// (`RESENT` once retransmitted); absent otherwise, as `rate`. Boxed so that a sender
    /// without it carries one word, not a VecDeque's four (large runs hold many senders).
    #[allow(clippy::box_collection)]
    sent_at: Option<Box<VecDeque<Time>>>,
}

/// A `sent_at` entry whose segment was retransmitted: its ACK gives no RTT sample (Karn).
const RESENT: Time = Time::MAX;

#[derive(Clone, Copy, Debug, Default)]
struct PrrState {
    delivered: u64,
    out: u64,
    recover_fs: u64,
    /// Without SACK: duplicate ACKs counted as delivered and not yet covered by the
    /// cumulative ACK (RFC 6937: a later advance counts less these).
    dup_credit: u64,
    /// Segments this ACK may send under PRR (pipe-based for SACK, new data otherwise).
    sndcnt: u64,
}

impl SenderConfig {
    /// The fields the controller reads (`congestion::SenderSide`).
    fn controller_side(&self) -> SenderSide {
        SenderSide {
            dupack_response: self.dupack_response,
            halving: self.halving,
            ecn_backoff: self.ecn_backoff,
            max_window: self.max_window,
            initial_cwnd: self.initial_cwnd,
            segment_bytes: self.segment_bytes,
            congestion_seed: self.congestion_seed,
            pacing: self.pacing,
        }
    }
}

impl Sender {
    pub fn new(cfg: SenderConfig) -> Sender {
        Sender {
            snd_una: 0,
            snd_nxt: 0,
            maxseq: 0,
            app_limit: cfg.segments.unwrap_or(u64::MAX),
            cwnd: cfg.initial_cwnd,
            ssthresh: cfg.initial_ssthresh,
            dupacks: 0,
            lt_allow: 0,
            lt_base: 0,
            rto_seq: None,
            loss_point: None,
            in_recovery: false,
            recover: 0,
            recover_guard: None,
            partial_seen: false,
            base: 0.0,
            rtt: Rtt::new(RttConfig {
                rule: cfg.rtt_rule,
                granularity: cfg.granularity,
                min_rto: cfg.min_rto,
                initial_rto: cfg.initial_rto,
                max_rto: cfg.max_rto,
                phase: cfg.clock_phase,
            }),
            timed: None,
            rto_deadline: None,
            cwr_pending: false,
            ecn_guard: 0,
            ecn_at_one: false,
            cc: AnyController::new(&cfg.congestion, &cfg.controller_side()),
            board: VecDeque::new(),
            keeps_board: cfg.variant == Variant::Sack || cfg.recovery.prr().is_some(),
            sacked: 0,
            prr: PrrState::default(),
            stats: SenderStats::default(),
            rate: None,
            pacer: None,
            sent_at: None,
            cfg,
        }
        .with_rate_and_pacing()
    }

    pub fn snd_una(&self) -> u64 {
        self.snd_una
    }
    pub fn in_recovery(&self) -> bool {
        self.in_recovery
    }
    /// The window without Reno/NewReno recovery's inflation: ns-2's `cwnd_`, which papers plot.
    pub fn cwnd_base(&self) -> f64 {
        let inflated = self.in_recovery
            && self.cfg.variant != Variant::Sack
            && !self.prr_on()
            && self.rate.is_none();
        if inflated {
            self.base
        } else {
            self.cwnd
        }
    }
    /// Smoothed RTT in seconds (NaN before the first sample).
    pub fn srtt_s(&self) -> f64 {
        self.rtt.srtt_s()
    }
    /// The current retransmission timeout, backoff included.
    pub fn current_rto(&self) -> Time {
        self.rtt.current_rto()
    }
    fn flight(&self) -> u64 {
        self.maxseq - self.snd_una
    }

    /// The application starts: send the initial window.
    pub fn start(&mut self, now: Time, out: &mut Vec<Segment>) {
        self.send_more(now, out);
    }

    /// The application stops producing data: no new segments from now on.
    pub fn stop(&mut self) {
        self.app_limit = self.app_limit.min(self.snd_nxt.max(self.maxseq));
    }

    fn transmit(&mut self, seq: u64, now: Time, out: &mut Vec<Segment>) {
        let retransmit = seq < self.maxseq;
        self.stamp_sent(seq, now);
        if let Some(q) = self.sent_at.as_deref_mut() {
            match q.get_mut((seq - self.snd_una) as usize) {
                Some(t) => *t = RESENT,
                None => q.push_back(now),
            }
        }
        if retransmit {
            self.stats.retransmits += 1;
            // Karn (ns-2 ends a measurement only at a timeout or fast retransmit instead).
            let karn = self.cfg.rtt_rule == RttRule::Rfc6298;
            if karn && matches!(self.timed, Some((t, _)) if t >= seq) {
                self.timed = None;
            }
            if let Some(f) = self.board.get_mut((seq - self.snd_una) as usize) {
                *f |= RETX;
            }
        } else {
            if self.timed.is_none() {
                self.timed = Some((seq, now));
            }
            self.maxseq = seq + 1;
            if self.keeps_board {
                self.board.push_back(0);
            }
        }
        let cwr = !retransmit && std::mem::take(&mut self.cwr_pending);
        self.stats.segments_sent += 1;
        if self.in_recovery {
            self.prr.out += 1;
        }
        if self.rto_deadline.is_none() {
            self.rto_deadline = Some(now + self.current_rto());
        }
        out.push(Segment {
            seq,
            retransmit,
            cwr,
        });
        self.pace_sent(now);
    }

    fn apply_sack(&mut self, ack: &Ack, now: Time) {
        for &(l, r) in ack.sack_blocks() {
            let lo = l.max(self.snd_una);
            let hi = r.min(self.maxseq);
            for s in lo..hi {
                let f = &mut self.board[(s - self.snd_una) as usize];
                if *f & SACKED == 0 {
                    *f |= SACKED;
                    self.sacked += 1;
                    if let Some(r) = self.rate.as_deref_mut() {
                        r.sacked(s, now);
                    }
                }
            }
        }
    }

    /// RFC 6675 IsLost for every outstanding segment: DupThresh SACKed segments above it.
    fn lost_flags(&self) -> Vec<bool> {
        let mut lost = vec![false; self.board.len()];
        let mut above = 0;
        for i in (0..self.board.len()).rev() {
            if self.board[i] & SACKED != 0 {
                above += 1;
            } else {
                lost[i] = above >= self.cfg.dupthresh;
            }
        }
        lost
    }

    /// RFC 6675 SetPipe: segments believed in the network.
    fn pipe(&self, lost: &[bool]) -> u64 {
        let mut pipe = 0;
        for (i, &f) in self.board.iter().enumerate() {
            if f & SACKED == 0 {
                if !lost[i] {
                    pipe += 1;
                }
                if f & RETX != 0 {
                    pipe += 1;
                }
            }
        }
        pipe
    }

    /// RFC 6675 NextSeg: a lost hole, else new data, else another unSACKed hole.
    fn next_seg(&self, lost: &[bool]) -> Option<u64> {
        let base = self.snd_una;
        let unsent = |i: usize, f: u8| f & (SACKED | RETX) == 0 && i < lost.len();
        if let Some(i) = self
            .board
            .iter()
            .enumerate()
            .position(|(i, &f)| unsent(i, f) && lost[i])
        {
            return Some(base + i as u64);
        }
        if self.can_send_new() {
            return Some(self.snd_nxt);
        }
        let highest_sacked = self.board.iter().rposition(|&f| f & SACKED != 0)?;
        self.board
            .iter()
            .enumerate()
            .take(highest_sacked)
            .position(|(i, &f)| unsent(i, f))
            .map(|i| base + i as u64)
    }

    fn can_send_new(&self) -> bool {
        self.snd_nxt < self.app_limit && self.snd_nxt < self.snd_una + self.cfg.max_window as u64
    }

    fn send_more(&mut self, now: Time, out: &mut Vec<Segment>) {
        if let Some(p) = self.pacer.as_deref_mut() {
            p.clear_deadline();
        }
        if self.cfg.variant == Variant::Sack && self.in_recovery {
            let lost = self.lost_flags();
            let mut pipe = self.pipe(&lost);
            while self.cwnd - pipe as f64 >= 1.0 && self.pace_allows(now) {
                let Some(seq) = self.next_seg(&lost) else {
                    break;
                };
                if seq == self.snd_nxt {
                    self.snd_nxt += 1;
                }
                self.transmit(seq, now, out);
                pipe += 1;
            }
            return;
        }
        if self.in_recovery && self.prr_on() {
            // Without SACK, PRR's sndcnt is spent on new data (the retransmissions of
            // NewReno's holes were sent by the ACK handling and counted in prr_out).
            // What pacing holds back stays in sndcnt for the pacing timer; the rest of an
            // ACK's allowance that the data cannot use is dropped.
            while self.prr.sndcnt > 0 && self.can_send_new() {
                if !self.pace_allows(now) {
                    return;
                }
                self.prr.sndcnt -= 1;
                let seq = self.snd_nxt;
                self.snd_nxt += 1;
                self.transmit(seq, now, out);
            }
            self.prr.sndcnt = 0;
            return;
        }
        // Only ecn_backoff's mark response takes cwnd below 1 (to 0: wait for the timer).
        let floor = if self.cfg.ecn_backoff { 0.0 } else { 1.0 };
        let extra = self.window_extra();
        let cwnd = self.cwnd.floor().max(floor) as u64 + extra;
        let wnd = cwnd.min(self.cfg.max_window as u64);
        while self.snd_nxt < self.snd_una + wnd
            && self.snd_nxt < self.app_limit
            && self.pace_allows(now)
        {
            let seq = self.snd_nxt;
            self.snd_nxt += 1;
            if self.rate.is_some() && self.sacked_at(seq) {
                continue;
            }
            self.transmit(seq, now, out);
        }
    }

    /// An ACK arrives; segments to send are appended to `out`.
    pub fn on_ack(&mut self, ack: &Ack, now: Time, out: &mut Vec<Segment>) {
        if ack.ack > self.maxseq {
            return; // acknowledges data never sent: ignore (cannot happen in the simulator)
        }
        if ack.ack > self.snd_una {
            let rtt = self.ack_rtt(ack.ack, now);
            self.cc.on_delivery(&Delivery {
                segments: ack.ack - self.snd_una,
                ece: self.cfg.ecn && ack.ece,
                una: ack.ack,
                high: self.maxseq,
                rtt,
                now,
            });
        }
        // ECN: react at most once per window of data, and not during loss recovery.
        if self.cfg.ecn && ack.ece && !self.in_recovery && ack.ack > self.ecn_guard {
            if self.cfg.ecn_backoff {
                // ns-2 `TcpAgent::ecn`: with the window at 1 (which the controller may
                // halve to 0), a second mark backs the timer off (RFC 3168 §6.1.2: "reset
                // the retransmit timer ... when the congestion window is one").
                if self.cwnd <= 1.0 {
                    if self.ecn_at_one {
                        self.rtt.back_off();
                    }
                    self.ecn_at_one = true;
                } else {
                    self.ecn_at_one = false;
                }
            }
            let ecn = Congestion::Ecn {
                flight: self.flight(),
            };
            let r = self.cc.on_congestion(ecn, self.cwnd, self.ssthresh);
            (self.ssthresh, self.cwnd) = (r.ssthresh, r.cwnd);
            self.cwr_pending = true;
            self.ecn_guard = self.maxseq;
            self.stats.ecn_reactions += 1;
        }
        let (una0, sacked0) = (self.snd_una, self.sacked);
        let sampled = self.sample_start();
        if self.cfg.variant == Variant::Sack {
            self.apply_sack(ack, now);
        }
        // RFC 9937's "safe ACK" as ns-3 approximates it: a retransmission is acked.
        let safe_ack = ack.ack > self.snd_una
            && self
                .board
                .iter()
                .take((ack.ack - self.snd_una) as usize)
                .any(|&f| f & RETX != 0);
        let mut dup = false;
        if ack.ack > self.snd_una {
            self.on_new_ack(ack.ack, self.cfg.ecn && ack.ece, now, out);
        } else if ack.ack == self.snd_una && self.maxseq > self.snd_una {
            dup = true;
            self.on_dupack(ack.ack, now, out);
        }
        if self.prr_on() || sampled.is_some() {
            let delivered = self.delivered_data(una0, sacked0, dup);
            if self.prr_on() && self.in_recovery {
                self.prr_update(delivered, safe_ack);
            }
            if let Some((prior_in_flight, rtx0)) = sampled {
                self.rate_sampled_ack(delivered, prior_in_flight, rtx0, una0, ack, now);
            }
        }
        self.send_more(now, out);
        self.check_app_limited();
    }

    /// The RTT of the newest segment below `a`, forgetting the send times below it; None
    /// without per-ACK sampling or when any of them was retransmitted.
    fn ack_rtt(&mut self, a: u64, now: Time) -> Option<Time> {
        let q = self.sent_at.as_deref_mut()?;
        let mut newest = None;
        let mut resent = false;
        for _ in self.snd_una..a {
            let t = q.pop_front();
            resent |= t == Some(RESENT);
            newest = t.or(newest);
        }
        newest.filter(|_| !resent).map(|t| now - t)
    }

    fn prr_on(&self) -> bool {
        self.cfg.recovery.prr().is_some()
    }

    fn on_new_ack(&mut self, a: u64, ece: bool, now: Time, out: &mut Vec<Segment>) {
        let newly = a - self.snd_una;
        self.lt_allow = 0;
        let mut rtt = None;
        if let Some(r) = self.rate.as_deref_mut() {
            r.acked_to(a, now);
        }
        if let Some((s, t)) = self.timed {
            if a > s {
                let ns2_partial = self.cfg.rtt_rule != RttRule::Rfc6298
                    && self.cfg.variant == Variant::NewReno
                    && self.in_recovery
                    && a < self.recover;
                if ns2_partial {
                    // ns-2's `partialnewack`: the measurement ends without a sample.
                    self.rtt.hold_backoff(1);
                } else {
                    let held = self.rtt.backoff();
                    self.stats.rtt_samples += 1;
                    self.rtt.sample(t, now);
                    rtt = Some(now - t);
                    // ns-2: a marked ACK does not end the backoff of a window of 1.
                    if self.cfg.ecn_backoff && self.ecn_at_one && ece {
                        self.rtt.hold_backoff(held);
                    }
                }
                self.timed = None;
            }
        }
        if !ece {
            self.ecn_at_one = false;
        }
        if self.keeps_board {
            for _ in 0..newly {
                if self.board.pop_front().is_some_and(|f| f & SACKED != 0) {
                    self.sacked -= 1;
                }
            }
        }
        self.snd_una = a;
        self.snd_nxt = self.snd_nxt.max(a);
        if matches!(self.loss_point, Some(p) if a >= p) {
            self.loss_point = None;
        }
        let mut restart_timer = true;
        let ns2_newreno = self.cfg.variant == Variant::NewReno
            && self.cfg.partial_ack != PartialAck::Rfc6582
            && !self.prr_on();
        let mut grow = !self.in_recovery;
        if self.in_recovery {
            if a >= self.recover {
                self.in_recovery = false;
                self.dupacks = 0;
                self.cwnd = match (self.cfg.variant, self.cfg.recovery) {
                    (Variant::Sack, _) => self.ssthresh,
                    (_, r) if r.prr().is_some() => self.ssthresh,
                    // ns-2: dupwnd_ = 0, and this new ACK opens cwnd_ as any other.
                    _ if ns2_newreno => {
                        grow = true;
                        self.base
                    }
                    _ => self.ssthresh.min(self.flight().max(1) as f64 + 1.0),
                };
                self.cc.on_recovery_end();
            } else {
                match self.cfg.variant {
                    Variant::Reno => {
                        self.in_recovery = false;
                        self.dupacks = 0;
                        self.cwnd = self.ssthresh;
                        self.cc.on_recovery_end();
                    }
                    Variant::NewReno => {
                        self.transmit(a, now, out);
                        self.partial_deflation(newly as f64);
                    }
                    Variant::Sack => {}
                }
                let first = !std::mem::replace(&mut self.partial_seen, true);
                restart_timer = first || self.cfg.partial_ack == PartialAck::Ns2_2001;
            }
        }
        // A rate-sampling controller is asked once per ACK, at its end (`rate_sampled_ack`).
        if grow {
            self.dupacks = 0;
            if self.rate.is_none() {
                let acked = Acked {
                    segments: newly,
                    rtt,
                    ece,
                    now,
                    srtt_s: self.rtt.srtt_s(),
                    rate: None,
                };
                self.cwnd = self.cc.on_ack(self.cwnd, self.ssthresh, &acked);
                if let Some(s) = self.cc.take_ssthresh() {
                    self.ssthresh = s;
                }
            }
        }
        if self.cfg.ecn_backoff && self.cwnd < 1.0 {
            // A window of 0 after a mark (ecn_backoff): only the timer sends again (ns-2
            // `newtimer`: "cwnd_ < 1").
            self.rto_deadline = Some(now + self.current_rto());
        } else if self.snd_una == self.maxseq {
            self.rto_deadline = None;
        } else if restart_timer {
            self.rto_deadline = Some(now + self.current_rto());
        }
        if Some(self.snd_una) == self.cfg.segments {
            self.stats.completed_at.get_or_insert(now);
        }
    }

    /// A NewReno partial ACK's window (classic recovery; PRR sets its own).
    fn partial_deflation(&mut self, newly: f64) {
        if self.prr_on() {
            return;
        }
        match self.cfg.partial_ack {
            PartialAck::Rfc6582 => self.cwnd = (self.cwnd - newly + 1.0).max(1.0),
            // ns-2 `partialnewack` with partial_window_deflation_ 1: the deflation comes
            // out of dupwnd_ (less one) while it lasts, then out of cwnd_ (at least 1),
            // with dupwnd_ = 1.
            PartialAck::Ns2_35 => {
                let dupwnd = self.cwnd - self.base;
                if dupwnd > newly {
                    self.cwnd -= newly - 1.0;
                } else {
                    self.base = (self.base - (newly - dupwnd)).max(1.0);
                    self.cwnd = self.base + 1.0;
                }
            }
            // partial_window_deflation_ 0: dupwnd_ = 0, the window is cwnd_ again.
            PartialAck::Ns2_2001 => self.cwnd = self.base,
        }
    }

    fn on_dupack(&mut self, a: u64, now: Time, out: &mut Vec<Segment>) {
        self.dupacks += 1;
        if self.in_recovery {
            if self.cfg.variant != Variant::Sack && !self.prr_on() {
                self.cwnd += 1.0; // window inflation (RFC 5681 §3.2 step 4)
            }
            return;
        }
        if self.dupacks == 1 {
            self.lt_base = self.maxseq;
        }
        let sack_lost =
            self.cfg.variant == Variant::Sack && self.lost_flags().first() == Some(&true);
        if self.dupacks < self.cfg.dupthresh && !sack_lost {
            if self.cfg.limited_transmit {
                self.lt_allow = self.dupacks;
            }
            return;
        }
        self.lt_allow = 0;
        if matches!(self.recover_guard, Some(g) if a < g || a == g && self.cfg.recover_guard == RecoverGuard::Rfc6582)
        {
            return; // dupacks from the window of an earlier recovery or timeout
        }
        // FlightSize without the data sent by limited transmit (RFC 5681 §3.2 step 2), or
        // ns-3.44's pipe at entry (`Recovery::PrrNs3_44`; validated to come with SACK).
        let flight = if self.cfg.recovery.ns3_44() {
            self.pipe(&self.lost_flags())
        } else {
            self.lt_base - self.snd_una
        };
        let r = self
            .cc
            .on_congestion(Congestion::Loss { flight }, self.cwnd, self.ssthresh);
        self.ssthresh = r.ssthresh;
        self.in_recovery = true;
        self.prr = PrrState {
            recover_fs: flight,
            dup_credit: self.prr.dup_credit,
            ..PrrState::default()
        };
        self.partial_seen = false;
        self.recover = self.maxseq;
        self.recover_guard = Some(self.maxseq);
        if self.cfg.dupack_response == DupackResponse::Halve {
            // One reduction per window for losses and marks alike (RFC 3168 §6.1.2): no
            // ECN reaction for data sent before it, and CWR on the next new segment.
            self.ecn_guard = self.maxseq;
            self.cwr_pending = self.cfg.ecn;
        }
        self.stats.fast_recoveries += 1;
        // With PRR, prr_update sets cwnd once this ACK's DeliveredData is known.
        match self.cfg.variant {
            Variant::Reno | Variant::NewReno => {
                self.base = r.cwnd;
                self.cwnd = r.cwnd + self.cfg.dupthresh as f64;
            }
            Variant::Sack => self.cwnd = self.ssthresh,
        }
        if self.cfg.fr_timer == FrTimer::Restart {
            self.timed = None;
            self.rto_deadline = None; // transmit arms it afresh
        }
        self.transmit(a, now, out);
    }

    /// The retransmission timer may have expired; acts only if it really has.
    pub fn on_timeout(&mut self, now: Time, out: &mut Vec<Segment>) {
        match self.rto_deadline {
            Some(d) if d <= now => {}
            _ => return,
        }
        self.rto_deadline = None;
        if self.snd_una == self.maxseq {
            if self.cfg.ecn_backoff && self.cwnd < 1.0 {
                // The wait after a mark at a window of 1 is over (ns-2: no data
                // outstanding, `slowdown(CLOSE_CWND_ONE)`, no backoff): send one segment.
                self.cwnd = 1.0;
                self.send_more(now, out);
            }
            return;
        }
        self.stats.timeouts += 1;
        let by_state = if self.in_recovery {
            &mut self.stats.timeouts_recovery
        } else if self.loss_point.is_some() {
            &mut self.stats.timeouts_loss
        } else if self.dupacks > 0 {
            &mut self.stats.timeouts_disorder
        } else {
            &mut self.stats.timeouts_open
        };
        *by_state += 1;
        self.loss_point = Some(self.maxseq);
        self.lt_allow = 0;
        let classic_recovery = self.in_recovery && self.cfg.variant != Variant::Sack;
        let rto = Congestion::Rto {
            flight: self.flight(),
            base: classic_recovery.then_some(self.base),
            repeated: self.rto_seq == Some(self.snd_una),
            in_mark_window: self.snd_una < self.ecn_guard,
        };
        let r = self.cc.on_congestion(rto, self.cwnd, self.ssthresh);
        (self.ssthresh, self.cwnd) = (r.ssthresh, r.cwnd);
        self.rto_seq = Some(self.snd_una);
        self.rtt.back_off();
        self.timed = None;
        self.in_recovery = false;
        self.dupacks = 0;
        self.recover_guard = Some(self.maxseq);
        self.ecn_guard = self.maxseq;
        self.cwr_pending = self.cfg.ecn;
        // Go back N, as ns-2 and most stacks without SACK do; the scoreboard is cleared
        // (ns-2 Sack1; RFC 6675 §5.1 allows keeping it), but with rate sampling.
        self.clear_board_at_timeout();
        self.prr = PrrState::default();
        self.snd_nxt = self.snd_una;
        self.send_more(now, out);
    }
}

#[path = "sender_rate.rs"]
mod rate;

#[path = "sender_prr.rs"]
mod prr;

#[cfg(test)]
#[path = "sender_tests.rs"]
pub(crate) mod tests;
