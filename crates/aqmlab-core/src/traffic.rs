//! Open-loop UDP sources: constant bit rate, Poisson, and on/off (exponential or Pareto).
//!
//! Each source owns its random stream (`flows/<name>`), so its packet times and sizes depend
//! only on (seed, run, its name): adding another flow never changes them. Sources decide
//! *when* and *how big*; the simulator turns that into packets.

use crate::packet::Ecn;
use crate::rng::Rng;
use crate::scenario::{FlowSpec, OpenLoop, PeriodDist};
use crate::units::{Time, NS_PER_SEC};

pub enum Pattern {
    /// Packet k leaves at start + k · `interval` ns (a probe's requests).
    Periodic { interval: Time, k: u64 },
    /// Packet k leaves at start + ⌊k · size·8·10⁹ / rate⌋ ns: no drift from rounding.
    Cbr { bits_ns: u128, bps: u128, k: u64 },
    /// Exponential gaps of mean `mean_gap_ns`, each rounded to the nearest nanosecond.
    Poisson { mean_gap_ns: f64, exp_sizes: bool },
    /// CBR at `bps` during on periods, silent during off periods; period lengths are drawn
    /// from `dist` with the given means. A packet is sent only if it starts inside an on
    /// period, and every on period sends at least its first packet (ns-2's Exponential and
    /// Pareto sources also send at least one packet per burst, but they round the burst to
    /// a whole number of packets instead: see docs/traffic.md).
    OnOff {
        bits_ns: u128,
        bps: u128,
        on_mean: f64,
        off_mean: f64,
        dist: PeriodDist,
        shape: f64,
        on_start: Time,
        on_end: Time,
        k: u64,
    },
}

pub struct Source {
    pub flow: u32,
    pub src: u32,
    pub dst: u32,
    pub size: u32,
    /// The codepoint its packets carry (Not-ECT: not ECN-capable).
    pub ect: Ecn,
    /// The DiffServ precedence its packets leave with (a probe's `precedence`; else 0).
    pub precedence: u8,
    pub start: Time,
    pub stop: Time,
    pub pattern: Pattern,
    pub rng: Rng,
}

impl Source {
    pub fn new(
        f: &FlowSpec,
        pattern: &OpenLoop,
        flow: u32,
        src: u32,
        dst: u32,
        stop: Time,
        rng: Rng,
    ) -> Source {
        let size = f.packet_size.0 as u32;
        let bits_ns = size as u128 * 8 * NS_PER_SEC as u128;
        let mut precedence = 0;
        let pattern = match *pattern {
            OpenLoop::Probe {
                interval_ns,
                precedence: c,
            } => {
                precedence = c;
                Pattern::Periodic {
                    interval: interval_ns,
                    k: 0,
                }
            }
            OpenLoop::Cbr { bps } => Pattern::Cbr {
                bits_ns,
                bps: bps as u128,
                k: 0,
            },
            OpenLoop::Poisson { pps, exp_sizes } => Pattern::Poisson {
                mean_gap_ns: NS_PER_SEC as f64 / pps,
                exp_sizes,
            },
            OpenLoop::OnOff {
                bps,
                on_mean_ns,
                off_mean_ns,
                dist,
                shape,
            } => Pattern::OnOff {
                bits_ns,
                bps: bps as u128,
                on_mean: on_mean_ns,
                off_mean: off_mean_ns,
                dist,
                shape,
                on_start: 0,
                on_end: 0,
                k: 0,
            },
        };
        Source {
            flow,
            src,
            dst,
            size,
            ect: f.codepoint(),
            precedence,
            start: f.start.0,
            stop,
            pattern,
            rng,
        }
    }

    /// Time of the first packet.
    pub fn first(&mut self) -> Time {
        let start = self.start;
        match &mut self.pattern {
            Pattern::Cbr { .. } | Pattern::Periodic { .. } => start,
            Pattern::Poisson { mean_gap_ns, .. } => {
                let g = *mean_gap_ns;
                start.saturating_add(round_ns(self.rng.exponential(g)))
            }
            Pattern::OnOff {
                on_mean,
                dist,
                shape,
                on_start,
                on_end,
                ..
            } => {
                *on_start = start;
                *on_end =
                    start.saturating_add(period(&mut self.rng, *on_mean, *dist, *shape).max(1));
                start
            }
        }
    }

    /// Size of the packet about to be sent.
    #[inline]
    pub fn packet_size(&mut self) -> u32 {
        match self.pattern {
            Pattern::Poisson {
                exp_sizes: true, ..
            } => {
                let x = libm::round(self.rng.exponential(self.size as f64));
                (x as u32).clamp(1, 65_535)
            }
            _ => self.size,
        }
    }

    /// Time of the packet after the one sent at `now`, or None past `stop`.
    #[inline]
    pub fn next(&mut self, now: Time) -> Option<Time> {
        let t = match &mut self.pattern {
            Pattern::Periodic { interval, k } => {
                *k += 1;
                self.start.saturating_add(k.saturating_mul(*interval))
            }
            Pattern::Cbr { bits_ns, bps, k } => {
                *k += 1;
                self.start
                    .saturating_add((*k as u128 * *bits_ns / *bps).min(Time::MAX as u128) as Time)
            }
            Pattern::Poisson { mean_gap_ns, .. } => {
                now.saturating_add(round_ns(self.rng.exponential(*mean_gap_ns)))
            }
            Pattern::OnOff {
                bits_ns,
                bps,
                on_mean,
                off_mean,
                dist,
                shape,
                on_start,
                on_end,
                k,
            } => {
                *k += 1;
                let t = on_start
                    .saturating_add((*k as u128 * *bits_ns / *bps).min(Time::MAX as u128) as Time);
                if t < *on_end {
                    t
                } else {
                    let off = period(&mut self.rng, *off_mean, *dist, *shape);
                    // Heavy-tailed periods can exceed any horizon: saturate instead of wrapping,
                    // and the `stop` test below ends the source.
                    *on_start = on_end.saturating_add(off);
                    *on_end = on_start
                        .saturating_add(period(&mut self.rng, *on_mean, *dist, *shape).max(1));
                    *k = 0;
                    *on_start
                }
            }
        };
        (t < self.stop).then_some(t)
    }
}

/// Rounds to whole nanoseconds; `as` saturates, so an unbounded Pareto draw cannot wrap.
#[inline]
fn round_ns(x: f64) -> Time {
    libm::round(x) as Time
}

fn period(rng: &mut Rng, mean: f64, dist: PeriodDist, shape: f64) -> Time {
    round_ns(match dist {
        PeriodDist::Exponential => rng.exponential(mean),
        PeriodDist::Pareto => rng.pareto(mean, shape),
    })
}
