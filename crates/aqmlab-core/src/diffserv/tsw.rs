//! Time-sliding-window markers (Clark & Fang, "Explicit allocation of best-effort packet
//! delivery service", IEEE/ACM ToN 6(4), 1998; RFC 2859; ns-2 `TSW2CMPolicy` and
//! `TSW3CMPolicy`; docs/diffserv/tsw.md).
//!
//! The estimator (RFC 2859 §2.1), on each arrival of `size` bytes at time `now`:
//!   bytes_in_win = avg_rate · win_length
//!   avg_rate     = (bytes_in_win + size) / (now − t_front + win_length)
//!   t_front      = now
//! with avg_rate starting at the committed rate and t_front at 0 (RFC 2859 §2.1 and ns-2).
//! The estimate includes the arriving packet, so a CBR stream at rate R settles at R.
//!
//! - TSW2CM (ns-2; Clark & Fang's tagger): avg_rate ≤ CIR → green; else red (OUT) with
//!   probability 1 − CIR/avg_rate.
//! - TSWTCM (RFC 2859 §2.2): avg ≤ CTR → green; CTR < avg ≤ PTR → yellow with
//!   probability (avg − CTR)/avg; avg > PTR → red with probability (avg − PTR)/avg, yellow
//!   with (PTR − CTR)/avg, green otherwise. One uniform draw r = u·avg decides all three
//!   (r > PTR red, r > CTR yellow, else green), as ns-2 does: the same distribution.
//!
//! Both are colour-blind: RFC 2859 defines no colour-aware mode. Clark & Fang's TCP
//! variant that tags only above ~1.33× the target is not in ns-2 and not here.

use super::{pir_at_least_cir, positive_rate, Meter};
use crate::check::Problems;
use crate::packet::Colour;
use crate::rng::Rng;
use crate::units::{Duration, Rate, Time, NS_PER_SEC};
use serde::{Deserialize, Serialize};

fn default_window() -> Duration {
    // ns-2's TSW3CM window and TSW2CM's default (ns-2.35 `diffserv/dsPolicy.cc`; docs/diffserv/tsw.md).
    Duration(NS_PER_SEC)
}

/// The TSW rate estimator; rates in bytes per second.
#[derive(Clone, Debug)]
pub struct TswEstimator {
    avg_rate: f64,
    t_front: f64,
    win: f64,
}

impl TswEstimator {
    pub fn new(initial_bps: u64, win: Duration) -> TswEstimator {
        TswEstimator {
            avg_rate: initial_bps as f64 / 8.0,
            t_front: 0.0,
            win: win.0 as f64 / NS_PER_SEC as f64,
        }
    }

    /// Updates the estimate with an arrival and returns it, in bytes per second.
    pub fn update(&mut self, size: u32, now: Time) -> f64 {
        let now = now as f64 / NS_PER_SEC as f64;
        let bytes_in_win = self.avg_rate * self.win;
        self.avg_rate = (bytes_in_win + size as f64) / (now - self.t_front + self.win);
        self.t_front = now;
        self.avg_rate
    }
}

/// TSW2CM parameters (docs/diffserv/tsw.md).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Tsw2cmSpec {
    /// Committed (target) rate, bit/s.
    pub cir: Rate,
    /// The estimator's window (ns-2 default 1 s).
    #[serde(default = "default_window")]
    pub window: Duration,
}

/// TSWTCM parameters (docs/diffserv/tsw.md; RFC 2859's CTR and PTR).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TswtcmSpec {
    /// Committed target rate (CTR), bit/s.
    pub cir: Rate,
    /// Peak target rate (PTR), bit/s; at least `cir`.
    pub pir: Rate,
    #[serde(default = "default_window")]
    pub window: Duration,
}

fn check_window(p: &mut Problems, a: &str, w: Duration) {
    p.positive_time(format!("{a}.window"), w);
}

impl Tsw2cmSpec {
    pub fn validate(&self, a: &str, p: &mut Problems) {
        positive_rate(p, format!("{a}.cir"), self.cir);
        check_window(p, a, self.window);
    }
    pub fn build(&self) -> Tsw2cm {
        Tsw2cm {
            est: TswEstimator::new(self.cir.0, self.window),
            cir: self.cir.0 as f64 / 8.0,
        }
    }
    pub fn rates(&self) -> (Option<u64>, Option<u64>) {
        (Some(self.cir.0), None)
    }
}

impl TswtcmSpec {
    pub fn validate(&self, a: &str, p: &mut Problems) {
        positive_rate(p, format!("{a}.cir"), self.cir);
        pir_at_least_cir(p, a, self.cir, self.pir, "RFC 2859: PTR >= CTR");
        check_window(p, a, self.window);
    }
    pub fn build(&self) -> Tswtcm {
        Tswtcm {
            est: TswEstimator::new(self.cir.0, self.window),
            cir: self.cir.0 as f64 / 8.0,
            pir: self.pir.0 as f64 / 8.0,
        }
    }
    pub fn rates(&self) -> (Option<u64>, Option<u64>) {
        (Some(self.cir.0), Some(self.pir.0))
    }
}

pub struct Tsw2cm {
    est: TswEstimator,
    cir: f64,
}

pub struct Tswtcm {
    est: TswEstimator,
    cir: f64,
    pir: f64,
}

impl Meter for Tsw2cm {
    fn colour(&mut self, size: u32, _pre: Colour, now: Time, rng: &mut Rng) -> Colour {
        let avg = self.est.update(size, now);
        // No draw at or below the target: a conforming stream leaves the stream untouched.
        if avg > self.cir && rng.bernoulli(1.0 - self.cir / avg) {
            Colour::Red
        } else {
            Colour::Green
        }
    }
}

impl Meter for Tswtcm {
    fn colour(&mut self, size: u32, _pre: Colour, now: Time, rng: &mut Rng) -> Colour {
        let avg = self.est.update(size, now);
        if avg <= self.cir {
            return Colour::Green;
        }
        let r = rng.uniform() * avg;
        if r > self.pir {
            Colour::Red
        } else if r > self.cir {
            Colour::Yellow
        } else {
            Colour::Green
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diffserv::test_support::cbr_fractions;

    fn tswtcm(cir: u64, pir: u64) -> Tswtcm {
        TswtcmSpec {
            cir: Rate(cir),
            pir: Rate(pir),
            window: default_window(),
        }
        .build()
    }

    #[test]
    fn the_estimator_of_a_cbr_stream_settles_at_its_rate() {
        // 1000-byte packets every 8 ms: 125 000 B/s. The estimator starts at 62 500 B/s
        // and converges geometrically (factor 1/(1 + gap/win) per packet); after 100 s it
        // is within 1e-9 relative.
        let mut e = TswEstimator::new(500_000, default_window());
        let mut avg = 0.0;
        for i in 1..=12_500u64 {
            avg = e.update(1000, i * 8_000_000);
        }
        assert!((avg / 125_000.0 - 1.0).abs() < 1e-9, "{avg}");
    }

    /// Colour fractions of a CBR stream at x·CIR once the estimate has settled at R = x·CIR
    /// (RFC 2859 §2.2): TSWTCM with PIR = 1.5·CIR gives green min(1, CIR/R), yellow
    /// (min(R, PIR) − CIR)/R above CIR, red (R − PIR)/R above PIR. Each is a Bernoulli
    /// fraction of n = 12 500·x packets, so 4 standard deviations are at most
    /// 4·sqrt(0.25/12 500) = 0.018; the first 5 s (the estimator settling from CIR, 5
    /// windows) are at most 5% of the packets: tolerance 0.02 plus 0.05·|change|, i.e.
    /// 0.03 on fractions. Exact (0 draws) at and below CIR.
    #[test]
    fn tswtcm_cbr_rate_steps_give_the_rfc_fractions() {
        let cir = 1_000_000u64;
        let pir = 1_500_000u64;
        for x in [0.5f64, 1.0, 1.5, 2.0] {
            let r = x * cir as f64;
            let expect = [
                (cir as f64 / r).min(1.0),
                ((r.min(pir as f64) - cir as f64) / r).max(0.0),
                ((r - pir as f64) / r).max(0.0),
            ];
            let mut m = tswtcm(cir, pir);
            let f = cbr_fractions(&mut m, r as u64, 1000, 100);
            for c in 0..3 {
                assert!(
                    (f[c] - expect[c]).abs() < 0.03,
                    "x = {x}, colour {c}: {} vs {}",
                    f[c],
                    expect[c]
                );
            }
            if x <= 1.0 {
                assert_eq!(f[0], 1.0, "x = {x}: a stream at or below CIR is all green");
            }
        }
    }

    #[test]
    fn tsw2cm_marks_the_excess_over_the_target_red() {
        for x in [0.5f64, 1.0, 1.5, 2.0] {
            let mut m = Tsw2cmSpec {
                cir: Rate(1_000_000),
                window: default_window(),
            }
            .build();
            let f = cbr_fractions(&mut m, (x * 1e6) as u64, 1000, 100);
            let expect_green = (1.0 / x).min(1.0);
            assert!((f[0] - expect_green).abs() < 0.03, "x = {x}: {f:?}");
            assert_eq!(f[1], 0.0);
        }
    }

    #[test]
    fn pir_below_cir_is_rejected() {
        let mut p = Problems::default();
        TswtcmSpec {
            cir: Rate(2_000_000),
            pir: Rate(1_000_000),
            window: Duration(0),
        }
        .validate("m", &mut p);
        let paths: Vec<&str> = p.errors.iter().map(|e| e.path.as_str()).collect();
        assert_eq!(paths, ["m.pir", "m.window"]);
        assert!(p.errors[0].message.contains("PTR >= CTR"));
    }
}
