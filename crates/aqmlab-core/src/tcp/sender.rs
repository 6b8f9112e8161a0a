//! The TCP sender: slow start and congestion avoidance (RFC 5681), fast retransmit and
//! recovery as Reno (RFC 5681 §3.2), NewReno (RFC 6582) or SACK loss recovery (RFC 6675),
//! the retransmission timer (RFC 6298) and the ECN reaction (RFC 3168 §6.1.2).
//!
//! Segment-granular like ns-2's one-way agents: sequence numbers and windows count
//! segments, `cwnd` is a float in segments, and there is no handshake. Where the RFCs and
//! ns-2 differ the RFC rule is implemented and the ns-2 default is available as a parameter
//! (timer constants, window cap); the choices are listed in docs/tcp.md:
//!
//! - Slow start adds one segment per new ACK and congestion avoidance 1/cwnd per new ACK
//!   (RFC 5681 without byte counting, which is also ns-2's `opencwnd`).
//! - Decreases use FlightSize (RFC 5681 eq. 4), not ns-2's min(cwnd, window_).
//! - Reno leaves recovery on any new ACK; NewReno stays in it until `recover` is acked,
//!   retransmitting on each partial ACK and resetting the timer on the first one only
//!   ("Impatient", RFC 6582 §4 and ns-2's `newreno_changes1_`).
//! - The `RetransmitOnly` dupack response is the REM paper's wireless NewReno (Section 5):
//!   a loss found by duplicate ACKs is retransmitted without reducing the window; marks and
//!   timeouts are answered as usual.

use super::receiver::Ack;
use crate::units::Time;
use std::collections::VecDeque;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Variant {
    Reno,
    NewReno,
    Sack,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DupackResponse {
    /// Halve (ssthresh = FlightSize/2) and retransmit: standard TCP.
    Halve,
    /// Retransmit without reducing the window (the REM paper's wireless NewReno).
    RetransmitOnly,
}

#[derive(Clone, Debug)]
pub struct SenderConfig {
    pub variant: Variant,
    pub ecn: bool,
    pub dupack_response: DupackResponse,
    /// Cap on the window in segments (the receiver window; ns-2's `window_`).
    pub max_window: u32,
    pub initial_cwnd: f64,
    pub initial_ssthresh: f64,
    pub dupthresh: u32,
    pub min_rto: Time,
    pub initial_rto: Time,
    pub max_rto: Time,
    /// Clock granularity G of RFC 6298 (RTO = SRTT + max(G, 4·RTTVAR)).
    pub granularity: Time,
    /// Segments the application has to send; None = unlimited (bulk).
    pub segments: Option<u64>,
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
    pub fast_recoveries: u64,
    pub ecn_reactions: u64,
    pub rtt_samples: u64,
    /// When the last segment of a finite transfer was acknowledged.
    pub completed_at: Option<Time>,
}

const SACKED: u8 = 1;
const RETX: u8 = 2;

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
    in_recovery: bool,
    /// Recovery ends when this segment is cumulatively acked (one past HighData at entry).
    recover: u64,
    /// Highest segment sent when the last recovery or timeout began: a new recovery needs a
    /// cumulative ACK above it (RFC 6582 §3.2 step 1).
    recover_guard: Option<u64>,
    partial_seen: bool,
    // RFC 6298 state, in nanoseconds.
    srtt: Option<f64>,
    rttvar: f64,
    rto: Time,
    backoff: u32,
    timed: Option<(u64, Time)>,
    /// The retransmission timer expires at this time, if armed.
    pub rto_deadline: Option<Time>,
    cwr_pending: bool,
    ecn_guard: u64,
    /// SACK scoreboard for segments [snd_una, maxseq): SACKED and RETX bits.
    board: VecDeque<u8>,
    pub stats: SenderStats,
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
            in_recovery: false,
            recover: 0,
            recover_guard: None,
            partial_seen: false,
            srtt: None,
            rttvar: 0.0,
            rto: cfg.initial_rto,
            backoff: 1,
            timed: None,
            rto_deadline: None,
            cwr_pending: false,
            ecn_guard: 0,
            board: VecDeque::new(),
            stats: SenderStats::default(),
            cfg,
        }
    }

    pub fn snd_una(&self) -> u64 {
        self.snd_una
    }
    pub fn in_recovery(&self) -> bool {
        self.in_recovery
    }
    /// Smoothed RTT in seconds (NaN before the first sample).
    pub fn srtt_s(&self) -> f64 {
        self.srtt.map(|s| s / 1e9).unwrap_or(f64::NAN)
    }
    /// The current retransmission timeout, backoff included.
    pub fn current_rto(&self) -> Time {
        (self.rto.saturating_mul(self.backoff as u64)).min(self.cfg.max_rto)
    }
    fn flight(&self) -> u64 {
        self.maxseq - self.snd_una
    }
    fn halved(&self) -> f64 {
        (self.flight() as f64 / 2.0).max(2.0)
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
        if retransmit {
            self.stats.retransmits += 1;
            // Karn: a retransmitted segment's ACK is ambiguous, never an RTT sample.
            if matches!(self.timed, Some((t, _)) if t >= seq) {
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
            self.board.push_back(0);
        }
        let cwr = !retransmit && std::mem::take(&mut self.cwr_pending);
        self.stats.segments_sent += 1;
        if self.rto_deadline.is_none() {
            self.rto_deadline = Some(now + self.current_rto());
        }
        out.push(Segment {
            seq,
            retransmit,
            cwr,
        });
    }

    fn sample_rtt(&mut self, r: f64) {
        self.stats.rtt_samples += 1;
        match self.srtt {
            None => {
                self.srtt = Some(r);
                self.rttvar = r / 2.0;
            }
            Some(s) => {
                self.rttvar = 0.75 * self.rttvar + 0.25 * (s - r).abs();
                self.srtt = Some(0.875 * s + 0.125 * r);
            }
        }
        let s = self.srtt.unwrap_or(r);
        let rto = s + (self.cfg.granularity as f64).max(4.0 * self.rttvar);
        self.rto = (libm::ceil(rto) as Time).clamp(self.cfg.min_rto, self.cfg.max_rto);
        self.backoff = 1;
    }

    fn apply_sack(&mut self, ack: &Ack) {
        for &(l, r) in ack.sack_blocks() {
            let lo = l.max(self.snd_una);
            let hi = r.min(self.maxseq);
            for s in lo..hi {
                self.board[(s - self.snd_una) as usize] |= SACKED;
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
        if self.cfg.variant == Variant::Sack && self.in_recovery {
            let lost = self.lost_flags();
            let mut pipe = self.pipe(&lost);
            while self.cwnd - pipe as f64 >= 1.0 {
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
        let wnd = self.cwnd.min(self.cfg.max_window as f64).floor().max(1.0) as u64;
        while self.snd_nxt < self.snd_una + wnd && self.snd_nxt < self.app_limit {
            let seq = self.snd_nxt;
            self.snd_nxt += 1;
            self.transmit(seq, now, out);
        }
    }

    /// An ACK arrives; segments to send are appended to `out`.
    pub fn on_ack(&mut self, ack: &Ack, now: Time, out: &mut Vec<Segment>) {
        if ack.ack > self.maxseq {
            return; // acknowledges data never sent: ignore (cannot happen in the simulator)
        }
        // ECN: react at most once per window of data, and not during loss recovery.
        if self.cfg.ecn && ack.ece && !self.in_recovery && ack.ack > self.ecn_guard {
            self.ssthresh = self.halved();
            self.cwnd = self.ssthresh;
            self.cwr_pending = true;
            self.ecn_guard = self.maxseq;
            self.stats.ecn_reactions += 1;
        }
        if self.cfg.variant == Variant::Sack {
            self.apply_sack(ack);
        }
        if ack.ack > self.snd_una {
            self.on_new_ack(ack.ack, now, out);
        } else if ack.ack == self.snd_una && self.maxseq > self.snd_una {
            self.on_dupack(ack.ack, now, out);
        }
        self.send_more(now, out);
    }

    fn on_new_ack(&mut self, a: u64, now: Time, out: &mut Vec<Segment>) {
        let newly = a - self.snd_una;
        if let Some((s, t)) = self.timed {
            if a > s {
                self.sample_rtt((now - t) as f64);
                self.timed = None;
            }
        }
        for _ in 0..newly {
            self.board.pop_front();
        }
        self.snd_una = a;
        self.snd_nxt = self.snd_nxt.max(a);
        let mut restart_timer = true;
        if self.in_recovery {
            if a >= self.recover {
                self.in_recovery = false;
                self.dupacks = 0;
                self.cwnd = match self.cfg.variant {
                    Variant::Sack => self.ssthresh,
                    _ => self.ssthresh.min(self.flight().max(1) as f64 + 1.0),
                };
            } else {
                match self.cfg.variant {
                    Variant::Reno => {
                        self.in_recovery = false;
                        self.dupacks = 0;
                        self.cwnd = self.ssthresh;
                    }
                    Variant::NewReno => {
                        self.transmit(a, now, out);
                        self.cwnd = (self.cwnd - newly as f64 + 1.0).max(1.0);
                    }
                    Variant::Sack => {}
                }
                restart_timer = !std::mem::replace(&mut self.partial_seen, true);
            }
        } else {
            self.dupacks = 0;
            if self.cwnd < self.ssthresh {
                self.cwnd += 1.0;
            } else {
                self.cwnd += 1.0 / self.cwnd;
            }
        }
        if self.snd_una == self.maxseq {
            self.rto_deadline = None;
        } else if restart_timer {
            self.rto_deadline = Some(now + self.current_rto());
        }
        if Some(self.snd_una) == self.cfg.segments {
            self.stats.completed_at.get_or_insert(now);
        }
    }

    fn on_dupack(&mut self, a: u64, now: Time, out: &mut Vec<Segment>) {
        self.dupacks += 1;
        if self.in_recovery {
            if self.cfg.variant != Variant::Sack {
                self.cwnd += 1.0; // window inflation (RFC 5681 §3.2 step 4)
            }
            return;
        }
        let sack_lost =
            self.cfg.variant == Variant::Sack && self.lost_flags().first() == Some(&true);
        if self.dupacks < self.cfg.dupthresh && !sack_lost {
            return;
        }
        if matches!(self.recover_guard, Some(g) if a <= g) {
            return; // dupacks from the window of an earlier recovery or timeout
        }
        self.ssthresh = match self.cfg.dupack_response {
            DupackResponse::Halve => self.halved(),
            DupackResponse::RetransmitOnly => self.cwnd.max(2.0),
        };
        self.in_recovery = true;
        self.partial_seen = false;
        self.recover = self.maxseq;
        self.recover_guard = Some(self.maxseq - 1);
        self.stats.fast_recoveries += 1;
        match self.cfg.variant {
            Variant::Reno | Variant::NewReno => {
                self.cwnd = self.ssthresh + self.cfg.dupthresh as f64;
                self.transmit(a, now, out);
            }
            Variant::Sack => {
                self.cwnd = self.ssthresh;
                self.transmit(a, now, out);
            }
        }
    }

    /// The retransmission timer may have expired; acts only if it really has.
    pub fn on_timeout(&mut self, now: Time, out: &mut Vec<Segment>) {
        match self.rto_deadline {
            Some(d) if d <= now => {}
            _ => return,
        }
        self.rto_deadline = None;
        if self.snd_una == self.maxseq {
            return;
        }
        self.stats.timeouts += 1;
        self.ssthresh = self.halved();
        self.cwnd = 1.0;
        self.backoff = (self.backoff * 2).min(64);
        self.timed = None;
        self.in_recovery = false;
        self.dupacks = 0;
        self.recover_guard = Some(self.maxseq - 1);
        self.ecn_guard = self.maxseq;
        // Go back N, as ns-2 and most stacks without SACK do; the scoreboard is cleared
        // (ns-2 Sack1; RFC 6675 §5.1 allows keeping it).
        for f in self.board.iter_mut() {
            *f = 0;
        }
        self.snd_nxt = self.snd_una;
        self.send_more(now, out);
    }
}
