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
    /// RFC 3042: on each of the first dupthresh−1 duplicate ACKs, send one new segment
    /// beyond cwnd (ns-2 `singledup_ 1`, ns-3 `LimitedTransmit`, both on by default).
    pub limited_transmit: bool,
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
            lt_allow: 0,
            lt_base: 0,
            rto_seq: None,
            loss_point: None,
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
        let cwnd = self.cwnd.floor().max(1.0) as u64 + self.lt_allow as u64;
        let wnd = cwnd.min(self.cfg.max_window as u64);
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
            self.on_new_ack(ack.ack, self.cfg.ecn && ack.ece, now, out);
        } else if ack.ack == self.snd_una && self.maxseq > self.snd_una {
            self.on_dupack(ack.ack, now, out);
        }
        self.send_more(now, out);
    }

    fn on_new_ack(&mut self, a: u64, ece: bool, now: Time, out: &mut Vec<Segment>) {
        let newly = a - self.snd_una;
        self.lt_allow = 0;
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
        if matches!(self.loss_point, Some(p) if a >= p) {
            self.loss_point = None;
        }
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
            // An ACK carrying ECE never opens the window (RFC 3168 §6.1.2; ns-2 likewise).
            if ece {
            } else if self.cwnd < self.ssthresh {
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
        if matches!(self.recover_guard, Some(g) if a <= g) {
            return; // dupacks from the window of an earlier recovery or timeout
        }
        // FlightSize without the data sent by limited transmit (RFC 5681 §3.2 step 2).
        let flight = self.lt_base - self.snd_una;
        self.ssthresh = match self.cfg.dupack_response {
            DupackResponse::Halve => (flight as f64 / 2.0).max(2.0),
            DupackResponse::RetransmitOnly => self.cwnd.max(2.0),
        };
        self.in_recovery = true;
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
        // RFC 5681 eq. 4 caps ssthresh at FlightSize/2 ("no more than"). After a long
        // NewReno recovery FlightSize includes everything sent under window inflation
        // (often twice the real window), and halving it would restart slow start above the
        // path's capacity, overshoot, lose a window and time out again: a cycle ns-2 and
        // Linux avoid by halving the congestion window itself. So halve the smaller of
        // FlightSize and the un-inflated window (ssthresh during Reno/NewReno recovery).
        // RFC 5681 §3.1: if this segment was already resent by the timer, ssthresh is held.
        if self.rto_seq != Some(self.snd_una) {
            let window = if self.in_recovery && self.cfg.variant != Variant::Sack {
                self.ssthresh
            } else {
                self.cwnd
            };
            self.ssthresh = ((self.flight() as f64).min(window) / 2.0).max(2.0);
        }
        self.rto_seq = Some(self.snd_una);
        self.cwnd = 1.0;
        self.backoff = (self.backoff * 2).min(64);
        self.timed = None;
        self.in_recovery = false;
        self.dupacks = 0;
        self.recover_guard = Some(self.maxseq);
        self.ecn_guard = self.maxseq;
        self.cwr_pending = self.cfg.ecn;
        // Go back N, as ns-2 and most stacks without SACK do; the scoreboard is cleared
        // (ns-2 Sack1; RFC 6675 §5.1 allows keeping it).
        for f in self.board.iter_mut() {
            *f = 0;
        }
        self.snd_nxt = self.snd_una;
        self.send_more(now, out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::NS_PER_SEC as S;

    const MS: Time = S / 1000;

    fn cfg(variant: Variant) -> SenderConfig {
        SenderConfig {
            variant,
            ecn: false,
            dupack_response: DupackResponse::Halve,
            max_window: 1000,
            initial_cwnd: 2.0,
            initial_ssthresh: 1000.0,
            dupthresh: 3,
            // These unit tests count segments exactly as RFC 5681 alone would send them.
            limited_transmit: false,
            min_rto: 200 * MS,
            initial_rto: S,
            max_rto: 60 * S,
            granularity: 10 * MS,
            segments: None,
        }
    }

    fn ack(n: u64) -> Ack {
        Ack {
            ack: n,
            ..Default::default()
        }
    }

    fn ece(n: u64) -> Ack {
        Ack {
            ack: n,
            ece: true,
            ..Default::default()
        }
    }

    fn seqs(out: &[Segment]) -> Vec<u64> {
        out.iter().map(|s| s.seq).collect()
    }

    /// Starts with `initial_cwnd = 10` (segments 0..=9 out), then acks segment 0: slow start
    /// gives cwnd = 11 and segments 10 and 11 go out, so FlightSize = 12 - 1 = 11.
    fn sender_with_flight_11(c: SenderConfig) -> Sender {
        let mut s = Sender::new(SenderConfig {
            initial_cwnd: 10.0,
            ..c
        });
        let mut out = vec![];
        s.start(0, &mut out);
        assert_eq!(seqs(&out), (0..10).collect::<Vec<_>>());
        out.clear();
        s.on_ack(&ack(1), 100 * MS, &mut out);
        assert_eq!(seqs(&out), vec![10, 11]);
        assert_eq!((s.cwnd, s.flight()), (11.0, 11));
        s
    }

    fn timeouts_by_state(s: &Sender) -> [u64; 4] {
        let t = &s.stats;
        [
            t.timeouts_open,
            t.timeouts_disorder,
            t.timeouts_recovery,
            t.timeouts_loss,
        ]
    }

    fn expire(s: &mut Sender, out: &mut Vec<Segment>) -> Time {
        let d = s.rto_deadline.expect("armed while data is outstanding");
        s.on_timeout(d, out);
        d
    }

    /// Each timeout is counted once more by the state the timer found it in: `open` (no
    /// duplicate ACK: the whole window was lost), `disorder` (duplicate ACKs but no fast
    /// retransmit), `recovery`, and `loss` (after an earlier timeout, until the cumulative
    /// ACK passes one past the highest segment sent at that timeout).
    #[test]
    fn timeouts_are_classified_by_the_state_at_expiry() {
        let mut out = vec![];
        // Segments 1..=11 outstanding (12 = one past the highest sent), no duplicate ACK.
        let mut s = sender_with_flight_11(cfg(Variant::NewReno));
        expire(&mut s, &mut out);
        assert_eq!(timeouts_by_state(&s), [1, 0, 0, 0]);
        // The timer's copy of segment 1 is lost as well.
        let t = expire(&mut s, &mut out);
        assert_eq!(timeouts_by_state(&s), [1, 0, 0, 1]);
        // An ACK below 12 keeps the loss state; the next expiry is a loss timeout again.
        s.on_ack(&ack(5), t + 100 * MS, &mut out);
        let t = expire(&mut s, &mut out);
        assert_eq!(timeouts_by_state(&s), [1, 0, 0, 2]);
        // An ACK of everything outstanding at the timeouts ends it: open again.
        s.on_ack(&ack(12), t + 100 * MS, &mut out);
        assert!(s.rto_deadline.is_some(), "new data went out");
        expire(&mut s, &mut out);
        assert_eq!(timeouts_by_state(&s), [2, 0, 0, 2]);
        assert_eq!(s.stats.timeouts, 4);

        // One or two duplicate ACKs, no fast retransmit: disorder.
        for dupacks in [1, 2] {
            let mut s = sender_with_flight_11(cfg(Variant::NewReno));
            for k in 0..dupacks {
                s.on_ack(&ack(1), 200 * MS + k, &mut out);
            }
            expire(&mut s, &mut out);
            assert_eq!(timeouts_by_state(&s), [0, 1, 0, 0], "{dupacks} dupacks");
        }

        // During fast recovery (the fast retransmission was lost): recovery, for every
        // variant.
        for v in [Variant::Reno, Variant::NewReno, Variant::Sack] {
            let mut s = sender_with_flight_11(cfg(v));
            for k in 0..3 {
                let a = Ack {
                    ack: 1,
                    sack: [(2 + k, 3 + k), (0, 0), (0, 0)],
                    nsack: 1,
                    ..Default::default()
                };
                s.on_ack(&a, 200 * MS + k, &mut out);
            }
            assert!(s.in_recovery(), "{v:?}");
            expire(&mut s, &mut out);
            assert_eq!(timeouts_by_state(&s), [0, 0, 1, 0], "{v:?}");
            assert_eq!(s.stats.timeouts, 1);
        }
    }

    /// RFC 5681 §3.1: the first timeout sets ssthresh to half the window in flight
    /// (min(FlightSize, cwnd) = 11 → 5.5); a timeout of the same, already resent segment
    /// holds it instead of halving the restarted window of 1.
    #[test]
    fn repeated_timeout_of_one_segment_holds_ssthresh() {
        let mut s = sender_with_flight_11(cfg(Variant::NewReno));
        let mut out = vec![];
        for _ in 0..3 {
            let d = s.rto_deadline.unwrap();
            s.on_timeout(d, &mut out);
            assert_eq!((s.ssthresh, s.cwnd), (5.5, 1.0));
        }
        assert_eq!(s.stats.timeouts, 3);
    }

    /// RFC 6298 §5.5: each expiry doubles the RTO (ns-2: backoff up to 64), capped at
    /// max_rto. Without an RTT sample the base RTO is initial_rto, so the deadlines after
    /// start are 1, 1+2, 1+2+4, ... seconds.
    #[test]
    fn rto_backoff_doubles_up_to_max_rto() {
        for (max_rto, gaps) in [
            (10 * S, vec![1, 2, 4, 8, 10, 10, 10]),
            (1000 * S, vec![1, 2, 4, 8, 16, 32, 64, 64, 64]),
        ] {
            let mut s = Sender::new(SenderConfig {
                max_rto,
                ..cfg(Variant::NewReno)
            });
            let mut out = vec![];
            s.start(0, &mut out);
            assert_eq!(seqs(&out), vec![0, 1]);
            let mut now = 0;
            for (k, gap) in gaps.iter().enumerate() {
                let deadline = s.rto_deadline.expect("armed while data is outstanding");
                assert_eq!(deadline - now, gap * S, "gap before expiry {}", k + 1);
                // Early calls are ignored: the timer has not expired.
                out.clear();
                s.on_timeout(deadline - 1, &mut out);
                assert!(out.is_empty());
                assert_eq!(s.stats.timeouts, k as u64);
                now = deadline;
                s.on_timeout(now, &mut out);
                assert_eq!(
                    out,
                    vec![Segment {
                        seq: 0,
                        retransmit: true,
                        cwr: false
                    }]
                );
                assert_eq!(s.stats.timeouts, k as u64 + 1);
                // ssthresh = max(FlightSize/2, 2) with FlightSize = 2; cwnd = 1.
                assert_eq!((s.cwnd, s.ssthresh), (1.0, 2.0));
            }
        }
    }

    /// A valid RTT sample (never from a retransmitted segment, Karn) ends the backoff.
    #[test]
    fn a_fresh_rtt_sample_ends_the_backoff() {
        let mut s = Sender::new(cfg(Variant::NewReno));
        let mut out = vec![];
        s.start(0, &mut out);
        for t in [S, 3 * S, 7 * S] {
            s.on_timeout(t, &mut out);
        }
        assert_eq!(s.current_rto(), 8 * S);
        // The ACK of the retransmitted segment 0 (and of the original 1) is no sample.
        out.clear();
        s.on_ack(&ack(2), 7 * S + 100 * MS, &mut out);
        assert_eq!(s.stats.rtt_samples, 0);
        assert_eq!(s.current_rto(), 8 * S);
        assert_eq!(seqs(&out), vec![2, 3]);
        // Segment 2 is new, hence timed: R = 100 ms, SRTT = R, RTTVAR = R/2,
        // RTO = SRTT + max(G, 4 RTTVAR) = 300 ms, backoff back to 1.
        s.on_ack(&ack(3), 7 * S + 200 * MS, &mut out);
        assert_eq!(s.stats.rtt_samples, 1);
        assert_eq!(s.current_rto(), 300 * MS);
    }

    /// RFC 3168 §6.1.2: on ECE, ssthresh = cwnd = max(FlightSize/2, 2), no retransmission,
    /// no window increase for ACKs carrying ECE, CWR on the next new segment only, and at
    /// most one reaction per window of data.
    #[test]
    fn ecn_echo_halves_once_per_window_and_sets_cwr_on_the_next_new_segment() {
        let mut s = sender_with_flight_11(SenderConfig {
            ecn: true,
            ..cfg(Variant::NewReno)
        });
        let mut out = vec![];
        s.on_ack(&ece(2), 200 * MS, &mut out);
        assert_eq!(s.stats.ecn_reactions, 1);
        assert_eq!((s.cwnd, s.ssthresh), (5.5, 5.5), "max(11/2, 2)");
        assert!(out.is_empty(), "10 in flight > cwnd: nothing to send");
        // More ECE ACKs from the same window (until the CWR reaches the receiver): no new
        // reaction and no growth. FlightSize falls to 5 at ack 7; the first new segment
        // goes out when ack 8 opens the window to 8 + 5 = 13.
        for a in 3..=8 {
            s.on_ack(&ece(a), 200 * MS + a * MS, &mut out);
        }
        assert_eq!(s.stats.ecn_reactions, 1);
        assert_eq!((s.cwnd, s.ssthresh), (5.5, 5.5));
        assert_eq!(
            out,
            vec![Segment {
                seq: 12,
                retransmit: false,
                cwr: true
            }]
        );
        // Without ECE the window grows again (congestion avoidance) and CWR is not repeated.
        out.clear();
        s.on_ack(&ack(9), 210 * MS, &mut out);
        assert_eq!(s.cwnd, 5.5 + 1.0 / 5.5);
        assert_eq!(seqs(&out), vec![13]);
        assert!(!out[0].cwr);
        assert_eq!(s.stats.retransmits, 0);
        // A mark on data sent after the reaction (ack 13 > 12, the highest sent then) is a
        // new window: a second reaction. FlightSize is taken when the ACK arrives, before
        // it is applied: 14 - 9 = 5, so max(5/2, 2) = 2.5.
        out.clear();
        s.on_ack(&ece(13), 300 * MS, &mut out);
        assert_eq!(s.stats.ecn_reactions, 2);
        assert_eq!(s.stats.retransmits, 0);
        assert_eq!((s.cwnd, s.ssthresh), (2.5, 2.5));
        assert_eq!(seqs(&out), vec![14]);
        assert!(out[0].cwr);
        // FlightSize 2 (segments 0 and 1): the floor of 2 segments applies.
        let mut s = Sender::new(SenderConfig {
            ecn: true,
            ..cfg(Variant::NewReno)
        });
        s.start(0, &mut out);
        s.on_ack(&ece(1), 100 * MS, &mut out);
        assert_eq!(s.stats.ecn_reactions, 1);
        assert_eq!((s.cwnd, s.ssthresh), (2.0, 2.0));
    }

    /// A loss and a mark in the same window are one congestion event (RFC 3168 §6.1.2): after
    /// a fast retransmit the sender sets CWR on its next new segment, and ECE for data sent
    /// before the reduction does not halve again (here Reno, which leaves recovery on the
    /// partial ACK while such ECE ACKs are still arriving).
    #[test]
    fn a_mark_in_the_window_of_a_fast_retransmit_is_not_a_second_reduction() {
        let mut s = sender_with_flight_11(SenderConfig {
            ecn: true,
            ..cfg(Variant::Reno)
        });
        let mut out = vec![];
        for k in 0..3 {
            s.on_ack(&ack(1), 200 * MS + k, &mut out);
        }
        assert_eq!(s.stats.fast_recoveries, 1);
        assert_eq!((s.ssthresh, s.cwnd), (5.5, 8.5));
        assert_eq!(
            out,
            vec![Segment {
                seq: 1,
                retransmit: true,
                cwr: false
            }]
        );
        // Four more dupacks inflate cwnd to 12.5: segment 12 goes out, with CWR.
        out.clear();
        for k in 3..7 {
            s.on_ack(&ece(1), 200 * MS + k, &mut out);
        }
        assert_eq!(
            out,
            vec![Segment {
                seq: 12,
                retransmit: false,
                cwr: true
            }]
        );
        // Partial ACK (Reno leaves recovery, cwnd = ssthresh), then more ECE for data of
        // the same window: no ECN reaction.
        s.on_ack(&ece(5), 300 * MS, &mut out);
        s.on_ack(&ece(5), 301 * MS, &mut out);
        s.on_ack(&ece(6), 302 * MS, &mut out);
        assert_eq!(s.stats.ecn_reactions, 0);
        assert_eq!(s.ssthresh, 5.5);
    }

    /// RFC 3168 §6.1.2: CWR follows any window reduction, a timeout included (ns-2 sets
    /// `cong_action_` in `slowdown`); the go-back-N retransmissions do not carry it, the
    /// first new segment does.
    #[test]
    fn a_timeout_sets_cwr_on_the_next_new_segment() {
        let mut s = Sender::new(SenderConfig {
            ecn: true,
            ..cfg(Variant::NewReno)
        });
        let mut out = vec![];
        s.start(0, &mut out);
        out.clear();
        s.on_timeout(S, &mut out);
        assert_eq!(
            out,
            vec![Segment {
                seq: 0,
                retransmit: true,
                cwr: false
            }]
        );
        out.clear();
        s.on_ack(&ack(1), S + 100 * MS, &mut out);
        s.on_ack(&ack(2), S + 101 * MS, &mut out);
        let flags: Vec<(u64, bool, bool)> =
            out.iter().map(|s| (s.seq, s.retransmit, s.cwr)).collect();
        assert_eq!(flags[0], (1, true, false));
        assert_eq!(flags[1], (2, false, true));
        assert!(flags[2..].iter().all(|f| !f.2), "{flags:?}");
    }

    /// RFC 6582 §3.2 step 1 ("Careful" variant, ns-2 `highest_ack_ > recover_`): after a
    /// timeout, duplicate ACKs start a fast retransmit only if the cumulative ACK covers
    /// data sent after the timeout. Go-back-N resends segments the receiver already holds,
    /// whose duplicate ACKs acknowledge exactly what was sent before the timeout.
    #[test]
    fn dupacks_acking_exactly_the_data_sent_before_a_timeout_do_not_fast_retransmit() {
        let mut s = Sender::new(SenderConfig {
            initial_cwnd: 4.0,
            ..cfg(Variant::NewReno)
        });
        let mut out = vec![];
        s.start(0, &mut out);
        s.on_timeout(S, &mut out);
        assert_eq!(s.stats.timeouts, 1);
        out.clear();
        s.on_ack(&ack(4), S + 100 * MS, &mut out);
        assert_eq!(seqs(&out), vec![4, 5]);
        out.clear();
        for k in 0..5 {
            s.on_ack(&ack(4), S + 101 * MS + k, &mut out);
        }
        assert_eq!(s.stats.fast_recoveries, 0);
        assert_eq!(s.stats.retransmits, 1);
        // An ACK above the data of the timeout re-enables fast retransmit.
        s.on_ack(&ack(5), S + 200 * MS, &mut out);
        out.clear();
        for k in 0..3 {
            s.on_ack(&ack(5), S + 201 * MS + k, &mut out);
        }
        assert_eq!(s.stats.fast_recoveries, 1);
        assert_eq!(
            out[0],
            Segment {
                seq: 5,
                retransmit: true,
                cwr: false
            }
        );
    }

    /// The REM paper's wireless NewReno: a loss found by duplicate ACKs is retransmitted
    /// without reducing ssthresh; standard TCP halves (max(FlightSize/2, 2)). A timeout
    /// gets the normal response in both.
    #[test]
    fn retransmit_only_keeps_ssthresh_on_dupacks_but_not_on_timeouts() {
        for (resp, ssthresh, after_timeout) in [
            (DupackResponse::Halve, 5.5, 2.75),
            (DupackResponse::RetransmitOnly, 11.0, 5.5),
        ] {
            let mut s = sender_with_flight_11(SenderConfig {
                dupack_response: resp,
                ecn: true,
                ..cfg(Variant::NewReno)
            });
            let mut out = vec![];
            for k in 0..3 {
                s.on_ack(&ack(1), 200 * MS + k, &mut out);
            }
            assert_eq!(s.stats.fast_recoveries, 1, "{resp:?}");
            assert!(out[0].retransmit && out[0].seq == 1);
            assert_eq!((s.ssthresh, s.cwnd), (ssthresh, ssthresh + 3.0), "{resp:?}");
            // The window (1 + cwnd) holds segments below 9 (halve) or 15 (retransmit
            // only), so the latter sends 12, 13 and 14 as well.
            let new: Vec<u64> = out[1..].iter().map(|s| s.seq).collect();
            let expect: Vec<u64> = (12..(1 + ssthresh as u64 + 3)).collect();
            assert_eq!(new, expect, "{resp:?}");
            // Not a window reduction, so no CWR: marks in this window still get the ECN
            // response once recovery is over.
            assert!(out.iter().all(|s| !s.cwr));
            let deadline = s.rto_deadline.unwrap();
            s.on_timeout(deadline, &mut out);
            // A timeout during recovery halves min(FlightSize, un-inflated window):
            // FlightSize = 12 - 1 or 15 - 1, window = ssthresh = 5.5 or 11.
            assert_eq!((s.ssthresh, s.cwnd), (after_timeout, 1.0), "{resp:?}");
        }
    }
}
