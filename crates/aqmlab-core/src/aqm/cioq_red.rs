//! CIOQ-RED: RED whose congestion measure adds the switch's input backlog for this output
//! (Sundararajan, Zhao, Youssef-Massaad, Médard, "A Modification to RED AQM for CIOQ
//! Switches", IEEE GLOBECOM 2004; docs/aqm/cioq_red.md, docs/switch/switch.md), eq. (2):
//!
//!   Q_avg(i) = (1 − w_q)·Q_avg(i − 1) + w_q·(ν·q_input + q_output)
//!
//! q_output is this output queue's backlog; q_input the sum of the input queues (VOQs) of
//! the switch holding packets for this output, which the switch keeps current in
//! `QueueView::upstream`. Drops (or marks) happen only here, at the output queue, as in
//! the paper. Everything else is RED (`aqm/red.rs`): thresholds, count rule, gentle mode,
//! byte mode (then both backlogs in bytes), idle decay.
//!
//! Choices where the paper is silent (docs/aqm/cioq_red.md):
//! - q_input counts packets *waiting* at the inputs, not those crossing the fabric (the
//!   buffer convention of every queue here, and ns-2's link queues).
//! - The idle decay applies when the whole measure is 0 at an arrival after the output
//!   link idled; with packets still waiting upstream the EWMA step is taken instead.
//! - ns-2's `ns2_qlen_guard` looks at the output queue alone (what ns-2's `qlen` is).
//! - On a queue that is not a switch output nothing waits upstream (upstream = 0), and
//!   CIOQ-RED is RED. With ν = 0 it is RED packet for packet (a test checks it).

use super::red::{default_count_rule, default_max_p, CountRule, Red, RedSpec, Weight};
use super::{Aqm, QueueCtx, QueueView, Verdict};
use crate::check::Problems;
use crate::packet::Packet;
use crate::rng::Rng;
use crate::units::Time;
use serde::{Deserialize, Serialize};

/// RED fed ν·q_input + q_output.
#[derive(Clone, Debug)]
pub struct CioqRed {
    pub red: Red,
    pub nu: f64,
}

impl CioqRed {
    /// ν·q_input + q_output in the units of RED's average.
    #[inline]
    fn measure(&self, q: &QueueView) -> f64 {
        let up = if self.red.params.byte_mode() {
            q.upstream.bytes as f64
        } else {
            q.upstream.pkts as f64
        };
        self.nu * up + self.red.params.backlog(q)
    }
}

impl Aqm for CioqRed {
    fn on_arrival(&mut self, q: &QueueView, pkt: &Packet, now: Time, rng: &mut Rng) -> Verdict {
        let measure = self.measure(q);
        let p = &self.red.params;
        let idle = self.red.est.update(p, measure, now);
        let own = p.backlog(q);
        let decision = self
            .red
            .marker
            .decide_queued(p, self.red.est.avg, own, pkt.size, rng);
        let verdict = p.verdict(decision);
        if let (Some(decayed_to), Verdict::Drop(_)) = (idle, verdict) {
            self.red.est.idle_continues(decayed_to);
        }
        verdict
    }

    fn on_overflow(&mut self, q: &QueueView, now: Time) {
        self.red.on_overflow(q, now)
    }

    fn on_idle(&mut self, since: Time) {
        self.red.on_idle(since)
    }

    fn metric_names(&self) -> &'static [&'static str] {
        &["avg", "p_b", "p_a", "count", "q_input"]
    }

    fn metrics(&self, q: &QueueView, now: Time, out: &mut [f64]) {
        self.red.metrics(q, now, &mut out[..4]);
        out[4] = q.upstream.pkts as f64;
    }
}

crate::check::packet_spec! {
/// CIOQ-RED parameters (docs/aqm/cioq_red.md): RED's, plus ν.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CioqRedSpec {
    /// ν, the weight of the input backlog in the measure (the paper: 0.5 for 4×4, 0.125
    /// for 16×16).
    pub nu: f64,
    pub min_th: f64,
    pub max_th: f64,
    #[serde(default = "default_max_p")]
    pub max_p: f64,
    #[serde(default)]
    pub w_q: Weight,
    #[serde(default)]
    pub gentle: bool,
    #[serde(default = "default_count_rule")]
    pub count_rule: CountRule,
    #[serde(default)]
    pub mark_above_max_th: bool,
    #[serde(default)]
    pub ns2_qlen_guard: bool,
}
}

impl CioqRedSpec {
    /// The RED this is built on.
    pub fn red(&self) -> RedSpec {
        RedSpec {
            min_th: self.min_th,
            max_th: self.max_th,
            max_p: self.max_p,
            w_q: self.w_q,
            gentle: self.gentle,
            count_rule: self.count_rule,
            byte_mode: self.byte_mode,
            mean_pktsize: self.mean_pktsize,
            ecn: self.ecn,
            mark_above_max_th: self.mark_above_max_th,
            ns2_qlen_guard: self.ns2_qlen_guard,
        }
    }

    pub fn validate(&self, a: &str, q: &QueueCtx, p: &mut Problems) {
        if !(self.nu.is_finite() && self.nu >= 0.0) {
            p.err(
                format!("{a}.nu"),
                self.nu,
                "must be a finite number >= 0 (weight of the input backlog)",
            );
        }
        self.red().validate(a, q, p);
    }

    pub fn build(&self, q: &QueueCtx) -> CioqRed {
        CioqRed {
            red: self.red().build(q),
            nu: self.nu,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::aqm::{Backlog, Limit};
    use crate::rng::Rng;

    fn spec(nu: f64) -> CioqRedSpec {
        let text = format!("nu = {nu}\nmin_th = 5.0\nmax_th = 15.0\nw_q = 0.5\n");
        toml::from_str(&text).unwrap()
    }

    fn ctx() -> QueueCtx<'static> {
        QueueCtx {
            limit_pkts: Some(20),
            limit_bytes: None,
            link_bps: 1_000_000,
            nodes: &[],
            hosts: &[],
        }
    }

    #[test]
    fn the_average_follows_eq_2_and_nu_zero_is_red() {
        // w_q = 0.5 makes each step easy to follow: avg ← (avg + ν·q_in + q_out) / 2.
        let mut a = spec(0.5).build(&ctx());
        let mut red = spec(0.0).red().build(&ctx());
        let mut zero = spec(0.0).build(&ctx());
        let mut v = QueueView::new(4, 4000, Limit::Packets(20), 1_000_000);
        v.upstream = Backlog {
            pkts: 8,
            bytes: 8000,
        };
        let pkt = Packet {
            size: 1000,
            ..Default::default()
        };
        let r = || Rng::for_component(1, 0, "t");
        let (mut r1, mut r2, mut r3) = (r(), r(), r());
        a.on_arrival(&v, &pkt, 1, &mut r1);
        assert_eq!(a.red.est.avg, 0.5 * (0.5 * 8.0 + 4.0));
        a.on_arrival(&v, &pkt, 2, &mut r1);
        assert_eq!(a.red.est.avg, 0.5 * 4.0 + 0.5 * 8.0);
        for t in 1..50 {
            v.len_pkts = (t * 7 % 19) as u32;
            v.upstream.pkts = (t * 5 % 23) as u32;
            let x = zero.on_arrival(&v, &pkt, t, &mut r2);
            let y = red.on_arrival(&v, &pkt, t, &mut r3);
            assert_eq!((x, zero.red.est.avg), (y, red.est.avg));
        }
    }

    #[test]
    fn nu_must_be_finite_and_not_negative() {
        for (nu, ok) in [(0.0, true), (2.5, true), (-0.1, false)] {
            let mut p = Problems::default();
            spec(nu).validate("q.aqm", &ctx(), &mut p);
            assert_eq!(p.is_empty(), ok, "{nu}: {:?}", p.errors);
            if !ok {
                assert_eq!(p.errors[0].path, "q.aqm.nu");
            }
        }
    }
}
