//! Proportional Rate Reduction (RFC 6937) in the sender: DeliveredData and the sending
//! count of each ACK during recovery (`Recovery::prr`; the rules are in the module doc of
//! `sender.rs`). Kept apart from `sender.rs`, which calls these only with PRR on.

use super::*;

impl Sender {
    /// RFC 6937 DeliveredData of this ACK, in segments. With SACK: the advance of snd.una
    /// plus the change in SACKed segments (ns-3.44's rule adds a segment for a duplicate
    /// ACK in recovery while prr_delivered < RecoverFS). Without: one segment per duplicate
    /// ACK (in recovery only while prr_delivered < RecoverFS), and on an advance the
    /// advance less the duplicate ACKs counted before it.
    pub(super) fn delivered_data(&mut self, una0: u64, sacked0: u64, dup: bool) -> u64 {
        let advance = self.snd_una - una0;
        if self.cfg.variant == Variant::Sack {
            let p = &self.prr;
            let ns3_dup =
                self.cfg.recovery.ns3_44() && dup && self.in_recovery && p.delivered < p.recover_fs;
            return (advance + self.sacked).saturating_sub(sacked0) + u64::from(ns3_dup);
        }
        let p = &mut self.prr;
        let delivered = if dup {
            let counts = !self.in_recovery || p.delivered < p.recover_fs;
            p.dup_credit += counts as u64;
            counts as u64
        } else {
            let covered = advance.min(p.dup_credit);
            p.dup_credit -= covered;
            advance - covered
        };
        if !self.in_recovery && !dup {
            p.dup_credit = 0;
        }
        delivered
    }

    /// RFC 6937 on an ACK during recovery: prr_delivered += DeliveredData, then sndcnt
    /// from the proportional rule (pipe > ssthresh) or the reduction bound, and
    /// cwnd = pipe + sndcnt.
    pub(super) fn prr_update(&mut self, delivered: u64, safe_ack: bool) {
        let Some(bound) = self.cfg.recovery.prr() else {
            return;
        };
        self.prr.delivered += delivered;
        let pipe = if self.cfg.variant == Variant::Sack {
            self.pipe(&self.lost_flags())
        } else {
            self.flight().saturating_sub(self.prr.dup_credit)
        };
        let (p, ss) = (&self.prr, self.ssthresh);
        let sndcnt = if pipe as f64 > ss {
            let target = libm::ceil(p.delivered as f64 * ss / p.recover_fs.max(1) as f64);
            target as i64 - p.out as i64
        } else {
            let behind = p.delivered as i64 - p.out as i64;
            let limit = match bound {
                PrrBound::Ssrb => behind.max(delivered as i64) + 1,
                PrrBound::Crb => behind,
                PrrBound::SafeAck => behind.max(delivered as i64) + safe_ack as i64,
            };
            limit.min(libm::floor(ss - pipe as f64) as i64)
        };
        // The fast retransmit always goes out (RFC 9937, ns-3); here it already has.
        let floor = u64::from(p.out == 0);
        self.prr.sndcnt = (sndcnt.max(0) as u64).max(floor);
        self.cwnd = (pipe + self.prr.sndcnt) as f64;
    }
}
