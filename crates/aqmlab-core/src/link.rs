//! One direction of a full-duplex point-to-point link: an output queue feeding a wire of a
//! given rate and propagation delay, with an optional per-packet loss model.

use crate::rng::Rng;
use crate::scenario::LossSpec;
use crate::units::Time;

/// `repr(u8)`: the tag comes first, so a lossless wire's `fate` reads one byte, in the
/// channel's first line (see `Channel`).
#[repr(u8)]
pub enum Loss {
    None,
    Bernoulli {
        p: f64,
        rng: Rng,
    },
    /// Gilbert-Elliott: the state moves once per packet, before the loss draw.
    GilbertElliott {
        p_gb: f64,
        p_bg: f64,
        loss_good: f64,
        loss_bad: f64,
        bad: bool,
        rng: Rng,
    },
    /// Sorted lists of data-packet indices to drop or mark, and the index of the next one.
    Scripted {
        drop: Vec<u64>,
        mark: Vec<u64>,
        data_index: u64,
    },
}

/// What the wire does to a packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fate {
    Deliver,
    Lose,
    /// Set CE (scripted marks only; a Not-ECT packet is delivered unchanged).
    Mark,
}

impl Loss {
    pub fn new(spec: Option<&LossSpec>, rng: Rng) -> Loss {
        match spec {
            None => Loss::None,
            Some(LossSpec::Bernoulli { p }) => Loss::Bernoulli { p: *p, rng },
            Some(LossSpec::GilbertElliott {
                p_gb,
                p_bg,
                loss_good,
                loss_bad,
            }) => Loss::GilbertElliott {
                p_gb: *p_gb,
                p_bg: *p_bg,
                loss_good: *loss_good,
                loss_bad: *loss_bad,
                bad: false,
                rng,
            },
            Some(LossSpec::Scripted { drop, mark }) => {
                let (mut drop, mut mark) = (drop.clone(), mark.clone());
                drop.sort_unstable();
                mark.sort_unstable();
                Loss::Scripted {
                    drop,
                    mark,
                    data_index: 0,
                }
            }
        }
    }

    /// The fate of the next packet on the wire; `is_data` is false for TCP ACKs.
    #[inline]
    pub fn fate(&mut self, is_data: bool) -> Fate {
        let lost = match self {
            Loss::None => false,
            Loss::Bernoulli { p, rng } => rng.bernoulli(*p),
            Loss::GilbertElliott {
                p_gb,
                p_bg,
                loss_good,
                loss_bad,
                bad,
                rng,
            } => {
                let flip = if *bad { *p_bg } else { *p_gb };
                if rng.bernoulli(flip) {
                    *bad = !*bad;
                }
                rng.bernoulli(if *bad { *loss_bad } else { *loss_good })
            }
            Loss::Scripted {
                drop,
                mark,
                data_index,
            } => {
                if !is_data {
                    return Fate::Deliver;
                }
                let k = *data_index;
                *data_index += 1;
                if drop.binary_search(&k).is_ok() {
                    return Fate::Lose;
                }
                if mark.binary_search(&k).is_ok() {
                    return Fate::Mark;
                }
                false
            }
        };
        if lost {
            Fate::Lose
        } else {
            Fate::Deliver
        }
    }
}

/// `repr(C, align(64))`, the fields a packet's passage reads first: at scale an access
/// link's channel is out of cache when its flow's next packet comes, and this way a
/// lossless wire costs one line per packet (test `a_passage_reads_one_line`).
#[repr(C, align(64))]
pub struct Channel {
    /// The wire is busy until this time.
    pub busy_until: Time,
    pub bps: u64,
    pub delay: Time,
    pub to: u32,
    /// A TxEnd event is scheduled for `busy_until`. Without one, the link goes idle at
    /// `busy_until` and the next arrival starts a transmission itself (saves an event per
    /// packet on lightly loaded links).
    pub txend_pending: bool,
    /// Has transmitted since it was last reported idle to the AQM.
    pub active: bool,
    pub loss: Loss,
    pub link: u32,
    pub from: u32,
    pub lost: u64,
    pub lost_at_warmup: u64,
}

impl Channel {
    /// The lazy-idle rule, in one place. Whether the wire is idle at `now` (its last packet
    /// has finished and no TxEnd is pending), and since when if nobody has been told yet: a
    /// link goes idle when its last transmission ends, but no event marks that instant (see
    /// `txend_pending`), so whoever looks at the link next (an arrival at its queue, or its
    /// queue's AQM timer) learns here, once, that it has been idle since `busy_until`, for
    /// the AQM's idle-time rule (RED's m, ARED...).
    #[inline]
    pub fn take_idle(&mut self, now: Time) -> (bool, Option<Time>) {
        let idle = !self.txend_pending && now >= self.busy_until;
        if idle && self.active {
            self.active = false;
            (true, Some(self.busy_until))
        } else {
            (idle, None)
        }
    }
}

#[cfg(test)]
mod layout_tests {
    use super::*;

    /// What an arrival and a transmission read of a lossless channel (the lazy-idle rule,
    /// the wire's rate and delay, the far end, and the loss model's tag) lies in its first
    /// line. A field moved, or a `Loss` whose tag is no longer first, fails here.
    #[test]
    fn a_passage_reads_one_line() {
        use std::mem::{align_of, offset_of};
        let passage = crate::mem::lines_of(&[
            (offset_of!(Channel, busy_until), 8),
            (offset_of!(Channel, bps), 8),
            (offset_of!(Channel, delay), 8),
            (offset_of!(Channel, to), 4),
            (offset_of!(Channel, txend_pending), 1),
            (offset_of!(Channel, active), 1),
            (offset_of!(Channel, loss), 1),
        ]);
        assert_eq!(align_of::<Channel>(), 64);
        assert_eq!(passage, [0].into(), "lines {passage:?}");
        let none = Loss::None;
        // SAFETY: `repr(u8)` puts the tag, a u8, at offset 0; reading it reads an
        // initialised byte of a live value.
        let tag = unsafe { *(&none as *const Loss).cast::<u8>() };
        assert_eq!(tag, 0, "Loss::None's tag is the first byte");
    }
}
