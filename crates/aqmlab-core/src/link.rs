//! One direction of a full-duplex point-to-point link: an output queue feeding a wire of a
//! given rate and propagation delay, with an optional per-packet loss model.

use crate::rng::Rng;
use crate::scenario::LossSpec;
use crate::units::Time;

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

/// One line (`repr(C, align(64))`, 64 bytes): at scale an access link's channel is out of
/// cache when its flow's next packet comes, and a lossless wire costs one line per packet
/// (test `a_channel_is_one_line`). A loss model and its counts wait behind a pointer:
/// the hardware loads a line's 128-byte neighbour with it, so cold fields beside the hot
/// line took cache on every passage (issue 15).
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
    pub link: u32,
    pub from: u32,
    /// The wire's loss model, if it has one (`None`: every packet is delivered).
    pub lossy: Option<Box<LossyWire>>,
}

/// A wire that loses or marks packets: its model, and the packets it lost.
pub struct LossyWire {
    pub loss: Loss,
    pub lost: u64,
    pub lost_at_warmup: u64,
}

impl LossyWire {
    /// A wire with the model `spec` describes; `None` for a lossless one.
    pub fn new(spec: Option<&LossSpec>, rng: Rng) -> Option<Box<LossyWire>> {
        match Loss::new(spec, rng) {
            Loss::None => None,
            loss => Some(Box::new(LossyWire {
                loss,
                lost: 0,
                lost_at_warmup: 0,
            })),
        }
    }
}

impl Channel {
    /// The lazy-idle rule, in one place. Whether the wire is idle at `now` (its last packet
    /// has finished and no TxEnd is pending), and since when if nobody has been told yet: a
    /// link goes idle when its last transmission ends, but no event marks that instant (see
    /// `txend_pending`), so whoever looks at the link next (an arrival at its queue, or its
    /// queue's AQM timer) learns here, once, that it has been idle since `busy_until`, for
    /// the AQM's idle-time rule (RED's m, ARED...).
    /// What the wire does to its next packet; `is_data` is false for TCP ACKs.
    #[inline]
    pub fn fate(&mut self, is_data: bool) -> Fate {
        match self.lossy.as_deref_mut() {
            None => Fate::Deliver,
            Some(w) => {
                let f = w.loss.fate(is_data);
                w.lost += u64::from(f == Fate::Lose);
                f
            }
        }
    }

    /// Packets the wire lost since the warm-up.
    pub fn lost_since_warmup(&self) -> u64 {
        self.lossy.as_ref().map_or(0, |w| w.lost - w.lost_at_warmup)
    }

    pub fn restart_measurement(&mut self) {
        if let Some(w) = &mut self.lossy {
            w.lost_at_warmup = w.lost;
        }
    }

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

    /// A channel is one line, and a lossless wire reads none beyond it.
    #[test]
    fn a_channel_is_one_line() {
        use std::mem::{align_of, size_of};
        assert_eq!((size_of::<Channel>(), align_of::<Channel>()), (64, 64));
        assert!(LossyWire::new(None, Rng::for_component(1, 0, "test")).is_none());
    }
}
