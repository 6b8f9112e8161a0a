//! The sender's side of delivery-rate sampling and pacing (`super::super::delivery`,
//! `super::super::pacing`): what a rate-based controller (BBR) is given on every ACK, and
//! the pacer's wakeups. Kept apart from `sender.rs`, whose paths call these only when
//! sampling or pacing is on.

use super::*;
use crate::tcp::delivery::CaState;
use crate::tcp::pacing::linux_default_rate;

impl Sender {
    pub(super) fn with_rate_and_pacing(mut self) -> Sender {
        if self.cc.wants_rate() {
            self.rate = Some(Box::default());
        }
        if self.cc.wants_ack_rtt() {
            self.sent_at = Some(Box::default());
        }
        if self.cfg.pacing || self.cc.pacing_rate().is_some() {
            self.pacer = Some(Box::default());
        }
        self
    }

    /// When the pacer wants the sender woken (a segment is held back), if it does.
    #[inline]
    pub fn pace_deadline(&self) -> Option<Time> {
        self.pacer.as_deref().and_then(Pacer::deadline)
    }

    /// The pacing timer fired: sends what the pacer now allows.
    pub fn on_pace_timer(&mut self, now: Time, out: &mut Vec<Segment>) {
        if self.pacer.as_deref().is_some_and(|p| p.due(now)) {
            self.send_more(now, out);
        }
    }

    /// The controller's state for a time-series sample (names, then values into `out`).
    pub fn controller_metric_names(&self) -> &'static [&'static str] {
        self.cc.metric_names()
    }
    pub fn controller_metrics(&self, out: &mut [f64]) {
        self.cc.metrics(out)
    }

    pub(super) fn pacing_rate(&self) -> Option<f64> {
        self.cc.pacing_rate().or_else(|| {
            linux_default_rate(self.cwnd, self.ssthresh, self.flight(), self.rtt.srtt_s())
        })
    }

    /// May the next segment leave now (always, unpaced)?
    #[inline]
    pub(super) fn pace_allows(&mut self, now: Time) -> bool {
        match self.pacer.as_deref_mut() {
            None => true,
            Some(p) => p.allows(now),
        }
    }

    /// Segments in the network: RFC 6675's pipe with SACK, else FlightSize less the
    /// duplicate ACKs not yet covered by the cumulative ACK.
    pub(super) fn pipe_now(&self) -> u64 {
        if self.cfg.variant == Variant::Sack {
            self.pipe(&self.lost_flags())
        } else {
            self.flight().saturating_sub(self.prr.dup_credit)
        }
    }

    /// A controller that samples the delivery rate sets the window on every ACK (Linux's
    /// `cong_control`), from this ACK's sample: its DeliveredData, the segments newly
    /// marked lost (SACK: RFC 6675 IsLost for the first time; without SACK the fast
    /// retransmit and NewReno's partial-ACK retransmissions), the pipe before and after.
    pub(super) fn rate_sampled_ack(
        &mut self,
        delivered: u64,
        prior_in_flight: u64,
        rtx0: u64,
        una0: u64,
        ack: &Ack,
        now: Time,
    ) {
        let (in_flight, losses) = if self.cfg.variant == Variant::Sack {
            let lost = self.lost_flags();
            let mut losses = 0;
            for (f, &l) in self.board.iter_mut().zip(&lost) {
                if l && *f & LOST == 0 {
                    *f |= LOST;
                    losses += 1;
                }
            }
            (self.pipe(&lost), losses)
        } else {
            let pipe = self.flight().saturating_sub(self.prr.dup_credit);
            (pipe, self.stats.retransmits - rtx0)
        };
        let state = if self.in_recovery {
            CaState::Recovery
        } else if self.loss_point.is_some() {
            CaState::Loss
        } else {
            CaState::Open
        };
        let Some(r) = self.rate.as_deref_mut() else {
            return;
        };
        let rs = r.generate(now, delivered, losses, [prior_in_flight, in_flight], state);
        let acked = Acked {
            segments: self.snd_una - una0,
            rtt: rs.rtt,
            ece: self.cfg.ecn && ack.ece,
            now,
            srtt_s: self.rtt.srtt_s(),
            rate: Some(rs),
        };
        self.cwnd = self.cc.on_ack(self.cwnd, self.ssthresh, &acked);
        if self.cc.app_limited() {
            r.mark_app_limited(in_flight);
        }
    }

    /// RFC draft-cheng §3.4: window to spare but no data to send marks the samples
    /// app-limited (a finite or stopped transfer's tail; bulk flows never are).
    pub(super) fn check_app_limited(&mut self) {
        if self.rate.is_none() || self.snd_nxt < self.app_limit {
            return;
        }
        let pipe = self.pipe_now();
        if (pipe as f64) < self.cwnd {
            if let Some(r) = self.rate.as_deref_mut() {
                r.mark_app_limited(pipe);
            }
        }
    }

    pub(super) fn sacked_at(&self, seq: u64) -> bool {
        (self.board.get((seq - self.snd_una) as usize)).is_some_and(|&f| f & SACKED != 0)
    }

    /// The pipe and the retransmission count before an ACK, when sampling.
    pub(super) fn sample_start(&self) -> Option<(u64, u64)> {
        self.rate
            .is_some()
            .then(|| (self.pipe_now(), self.stats.retransmits))
    }

    /// Stamps segment `seq`, about to be sent, for the delivery-rate estimator.
    #[inline]
    pub(super) fn stamp_sent(&mut self, seq: u64, now: Time) {
        if let Some(r) = self.rate.as_deref_mut() {
            r.on_sent(seq, now, self.maxseq == self.snd_una);
        }
    }

    /// A segment left: the pacer's next send time.
    #[inline]
    pub(super) fn pace_sent(&mut self, now: Time) {
        if self.pacer.is_some() {
            let rate = self.pacing_rate();
            if let Some(p) = self.pacer.as_deref_mut() {
                p.sent(now, rate);
            }
        }
    }

    /// Segments the window may have out beyond cwnd. Limited transmit's allowance; with
    /// delivery-rate sampling the controller's window counts the pipe, which excludes what
    /// SACKs or duplicate ACKs (Linux's Reno SACK emulation) reported delivered: that is
    /// added back here, and subsumes limited transmit. The go-back-N after a timeout then
    /// skips SACKed segments (`sacked_at`).
    #[inline]
    pub(super) fn window_extra(&self) -> u64 {
        match self.rate {
            None => self.lt_allow as u64,
            Some(_) => (self.lt_allow as u64).max(self.prr.dup_credit) + self.sacked,
        }
    }

    /// At a timeout the scoreboard is cleared; with delivery-rate sampling the SACKed bits
    /// stay (RFC 6675 §5.1's option, as Linux): counted delivered once, they are neither
    /// resent nor counted again.
    pub(super) fn clear_board_at_timeout(&mut self) {
        let keep = if self.rate.is_some() { SACKED } else { 0 };
        for f in self.board.iter_mut() {
            *f &= keep;
        }
        if keep == 0 {
            self.sacked = 0;
        }
    }
}
