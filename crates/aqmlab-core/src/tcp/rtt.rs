//! The retransmission timer's round-trip estimator, by one of two rules.
//!
//! - **RFC 6298** (V. Paxson, M. Allman, J. Chu, M. Sargent, "Computing TCP's
//!   Retransmission Timer", 2011), in nanoseconds: SRTT ← 7/8 SRTT + 1/8 R,
//!   RTTVAR ← 3/4 RTTVAR + 1/4 |SRTT − R| (§2.3), RTO = SRTT + max(G, 4·RTTVAR) rounded up,
//!   within [min_rto, max_rto], doubled per backoff (§5.5).
//! - **ns-2's `TcpAgent`** (`tcp.cc`: `rtt_update`, `rtt_timeout`, `rtt_backoff`), the
//!   BSD estimator on a clock of ticks G (`tcpTick_`): a sample is the number of tick
//!   boundaries between the send and the ACK, at least 1, on the agent's own clock, whose
//!   phase is uniform in [0, G) (`boot_time_`); SRTT is kept in eighths and RTTVAR in
//!   quarters of a tick as integers, with the same 1/8 and 1/4 gains applied by shifts to a
//!   16-bit difference; RTO = ⌊SRTT + 4·RTTVAR⌋ ticks. ns-2.35 (`rfc2988_` true) applies
//!   min_rto before the backoff (min_rto · backoff while the estimate is below it); ns-2
//!   before 2002-03-07 (`rfc2988_` false) after it (max(min_rto, RTO · backoff)). Both
//!   floor the timeout at two ticks, cap the backoff at 64 (ns-2.35 lets it double on while
//!   the timeout stays below max_rto) and, once it passes 8, fold SRTT into RTTVAR and
//!   restart SRTT from the next sample.
//!
//! With a 100 ms tick (the ns-2 of 2001) the two rules give visibly different timeouts:
//! a 90 ms round trip measures 1 tick or 2, never 0.9, and the RTO comes out in whole
//! ticks (docs/profiles.md measures the difference against ns-2.35).

use crate::units::Time;

/// Which estimator (see the module doc); a flow's `rtt_estimator`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum RttRule {
    #[serde(rename = "rfc6298")]
    Rfc6298,
    /// ns-2.35's `TcpAgent` (`rfc2988_` true).
    #[serde(rename = "ns2.35")]
    Ns2_35,
    /// ns-2's `TcpAgent` before 2002-03-07 (no `rfc2988_`).
    #[serde(rename = "ns2-2001")]
    Ns2_2001,
}

/// The estimator's fixed parameters.
#[derive(Clone, Copy, Debug)]
pub struct RttConfig {
    pub rule: RttRule,
    /// G: RFC 6298's clock granularity, ns-2's tick.
    pub granularity: Time,
    pub min_rto: Time,
    pub initial_rto: Time,
    pub max_rto: Time,
    /// ns-2's clock phase (`boot_time_`), in [0, granularity); unused by RFC 6298.
    pub phase: Time,
}

/// The estimator's state: RFC 6298's in nanoseconds, or ns-2's in fixed-point ticks.
#[derive(Clone, Debug)]
pub struct Rtt {
    cfg: RttConfig,
    srtt: Option<f64>,
    rttvar: f64,
    /// The RTO before backoff (RFC 6298: clamped; ns-2: `t_rtxcur_`, not yet clamped).
    rto: Time,
    backoff: u32,
    /// ns-2: `t_srtt_` (eighths of a tick, 0 = no estimate) and `t_rttvar_` (quarters).
    t_srtt: i32,
    t_rttvar: i32,
}

impl Rtt {
    pub fn new(cfg: RttConfig) -> Rtt {
        Rtt {
            cfg,
            srtt: None,
            rttvar: 0.0,
            rto: cfg.initial_rto,
            backoff: 1,
            t_srtt: 0,
            t_rttvar: 0,
        }
    }

    /// A segment sent at `sent` is acknowledged at `now` (Karn's rule is the caller's).
    pub fn sample(&mut self, sent: Time, now: Time) {
        self.backoff = 1;
        if self.cfg.rule == RttRule::Rfc6298 {
            return self.sample_rfc6298((now - sent) as f64);
        }
        let g = self.cfg.granularity.max(1);
        let ticks = |t: Time| ((t + self.cfg.phase) / g) as i64;
        let t_rtt = (ticks(now) - ticks(sent)).clamp(1, i32::MAX as i64) as i32;
        if self.t_srtt != 0 {
            // tcp.cc keeps the difference in a `short`: the same wrap for huge samples.
            let mut delta = (t_rtt - (self.t_srtt >> 3)) as i16;
            self.t_srtt += delta as i32;
            if self.t_srtt <= 0 {
                self.t_srtt = 1;
            }
            delta = delta.wrapping_abs();
            delta = delta.wrapping_sub((self.t_rttvar >> 2) as i16);
            self.t_rttvar += delta as i32;
            if self.t_rttvar <= 0 {
                self.t_rttvar = 1;
            }
        } else {
            self.t_srtt = t_rtt << 3;
            self.t_rttvar = t_rtt << 1;
        }
        // rttvar_exp_ 2: ⌊(8·SRTT + 32·RTTVAR) / 8⌋ ticks, i.e. ⌊SRTT + 4·RTTVAR⌋.
        let rtx_ticks = ((self.t_rttvar << 3) + self.t_srtt) >> 3;
        self.rto = rtx_ticks.max(0) as Time * g;
    }

    fn sample_rfc6298(&mut self, r: f64) {
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
    }

    /// The current timeout, backoff included.
    pub fn current_rto(&self) -> Time {
        let c = &self.cfg;
        let b = self.backoff as u64;
        match c.rule {
            RttRule::Rfc6298 => self.rto.saturating_mul(b).min(c.max_rto),
            RttRule::Ns2_35 | RttRule::Ns2_2001 => {
                let t = if c.rule == RttRule::Ns2_2001 {
                    self.rto.saturating_mul(b).max(c.min_rto)
                } else if self.rto < c.min_rto {
                    c.min_rto.saturating_mul(b)
                } else {
                    self.rto.saturating_mul(b)
                };
                t.min(c.max_rto).max(2 * c.granularity)
            }
        }
    }

    /// The timer expired (or, in ns-2, a second mark arrived at a window of 1).
    pub fn back_off(&mut self) {
        match self.cfg.rule {
            RttRule::Rfc6298 => self.backoff = (self.backoff * 2).min(64),
            RttRule::Ns2_35 | RttRule::Ns2_2001 => {
                let on = self.cfg.rule == RttRule::Ns2_35 && self.current_rto() < self.cfg.max_rto;
                if self.backoff < 64 || on {
                    self.backoff = self.backoff.saturating_mul(2);
                }
                if self.backoff > 8 {
                    self.t_rttvar += self.t_srtt >> 3;
                    self.t_srtt = 0;
                }
            }
        }
    }

    pub fn backoff(&self) -> u32 {
        self.backoff
    }

    /// Restores a backoff a sample reset (ns-2: a marked ACK does not end the backoff of a
    /// window of 1).
    pub fn hold_backoff(&mut self, b: u32) {
        self.backoff = b;
    }

    /// Smoothed RTT in seconds (NaN before the first sample; ns-2's after a long backoff
    /// cleared it).
    pub fn srtt_s(&self) -> f64 {
        match self.cfg.rule {
            RttRule::Rfc6298 => self.srtt.map_or(f64::NAN, |s| s / 1e9),
            _ if self.t_srtt == 0 => f64::NAN,
            _ => self.t_srtt as f64 / 8.0 * self.cfg.granularity as f64 / 1e9,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::NS_PER_SEC;

    const MS: Time = NS_PER_SEC / 1000;

    fn ns2(rule: RttRule, tick: Time, phase: Time) -> Rtt {
        Rtt::new(RttConfig {
            rule,
            granularity: tick,
            min_rto: 1000 * MS,
            initial_rto: 6000 * MS,
            max_rto: 100_000_000 * MS,
            phase,
        })
    }

    #[test]
    fn a_sample_counts_the_tick_boundaries_crossed() {
        // 90 ms on a 100 ms clock: 0 or 1 boundary, and a sample is at least one tick.
        let mut r = ns2(RttRule::Ns2_2001, 100 * MS, 0);
        r.sample(1000 * MS, 1090 * MS); // no boundary: 1 tick (the floor)
        assert_eq!(r.srtt_s(), 0.1);
        let mut r = ns2(RttRule::Ns2_2001, 100 * MS, 0);
        r.sample(1050 * MS, 1140 * MS); // crosses 1.1 s: 1 tick
        let mut q = ns2(RttRule::Ns2_2001, 100 * MS, 0);
        q.sample(1095 * MS, 1290 * MS); // 195 ms crossing 1.1 and 1.2 s: 2 ticks
        assert_eq!((r.srtt_s(), q.srtt_s()), (0.1, 0.2));
        // The agent's clock phase moves the boundaries: 195 ms from 1.0 s crosses one
        // boundary at phase 0 (1.1 s) and two at phase 60 ms (1.06 → 1.255 s on its clock).
        let mut p0 = ns2(RttRule::Ns2_2001, 100 * MS, 0);
        let mut p60 = ns2(RttRule::Ns2_2001, 100 * MS, 60 * MS);
        p0.sample(1000 * MS, 1195 * MS);
        p60.sample(1000 * MS, 1195 * MS);
        assert_eq!((p0.srtt_s(), p60.srtt_s()), (0.1, 0.2));
    }

    #[test]
    fn the_fixed_point_estimate_is_tcp_cc_s() {
        // First sample 2 ticks: t_srtt 16, t_rttvar 4, RTO ⌊(32 + 16) / 8⌋ = 6 ticks.
        let mut r = ns2(RttRule::Ns2_35, 10 * MS, 0);
        r.sample(0, 20 * MS);
        assert_eq!((r.t_srtt, r.t_rttvar, r.rto), (16, 4, 60 * MS));
        // Then 10 ticks: delta 8; t_srtt 24; |8| - 1 = 7, t_rttvar 11;
        // RTO ⌊(88 + 24) / 8⌋ = 14 ticks.
        r.sample(100 * MS, 200 * MS);
        assert_eq!((r.t_srtt, r.t_rttvar, r.rto), (24, 11, 140 * MS));
        assert_eq!(r.srtt_s(), 0.03);
    }

    #[test]
    fn min_rto_before_or_after_the_backoff() {
        // RTO estimate 60 ms under a 1 s minimum: ns-2.35 doubles the minimum, ns-2 of
        // 2001 doubles the estimate and then applies the minimum.
        let mut a = ns2(RttRule::Ns2_35, 10 * MS, 0);
        let mut b = ns2(RttRule::Ns2_2001, 10 * MS, 0);
        for r in [&mut a, &mut b] {
            r.sample(0, 20 * MS);
            r.back_off();
            r.back_off();
        }
        assert_eq!(a.current_rto(), 4000 * MS);
        assert_eq!(b.current_rto(), 1000 * MS); // max(1 s, 240 ms)
    }

    #[test]
    fn a_long_backoff_restarts_the_estimate() {
        let mut r = ns2(RttRule::Ns2_2001, 10 * MS, 0);
        r.sample(0, 50 * MS); // t_srtt 40, t_rttvar 10
        for _ in 0..4 {
            r.back_off(); // 2, 4, 8, 16: past 8 the estimate is folded into the variance
        }
        assert_eq!((r.backoff(), r.t_srtt, r.t_rttvar), (16, 0, 15));
        assert!(r.srtt_s().is_nan());
        r.sample(100 * MS, 130 * MS); // starts afresh from 3 ticks
        assert_eq!((r.t_srtt, r.t_rttvar, r.backoff()), (24, 6, 1));
    }

    #[test]
    fn the_timeout_is_at_least_two_ticks_and_at_most_max_rto() {
        let mut r = Rtt::new(RttConfig {
            rule: RttRule::Ns2_35,
            granularity: 100 * MS,
            min_rto: 0,
            initial_rto: 3000 * MS,
            max_rto: 1000 * MS,
            phase: 0,
        });
        r.sample(0, 10 * MS); // 1 tick: t_srtt 8, t_rttvar 2, RTO ⌊(16 + 8) / 8⌋ = 3 ticks
        assert_eq!(r.current_rto(), 300 * MS);
        let mut s = r.clone();
        s.rto = 0;
        assert_eq!(s.current_rto(), 200 * MS);
        for _ in 0..10 {
            r.back_off();
        }
        assert_eq!(r.current_rto(), 1000 * MS);
    }

    #[test]
    fn rfc6298_is_unchanged() {
        let mut r = Rtt::new(RttConfig {
            rule: RttRule::Rfc6298,
            granularity: 10 * MS,
            min_rto: 200 * MS,
            initial_rto: 3000 * MS,
            max_rto: 60_000 * MS,
            phase: 0,
        });
        assert_eq!(r.current_rto(), 3000 * MS);
        r.sample(0, 100 * MS); // SRTT 100 ms, RTTVAR 50 ms: RTO 300 ms
        assert_eq!(r.current_rto(), 300 * MS);
        r.back_off();
        assert_eq!(r.current_rto(), 600 * MS);
        assert_eq!(r.srtt_s(), 0.1);
    }
}
