//! The edge conditioner: classify a router's arrivals into aggregates, meter each
//! aggregate, colour the packet (ns-2 `Queue/dsRED/edge` + `PolicyClassifier`;
//! RFC 2475 §2.3.3; docs/diffserv/conditioner.md).
//!
//! A router may carry conditioners (`[[nodes.conditioners]]`), each for every input port
//! or for the port from one neighbour (`input`). Every packet arriving there is conditioned
//! before the router looks up its output queue, so a packet dropped later (at that
//! queue or further on) still updated its meter, as in ns-2 where `policy.mark` runs
//! before the RED enqueue.
//!
//! - Classification: a policy table of (src, dst) host patterns → class, `*` matching any
//!   run of characters and `?` one (ns-2 matches node pairs with −1 as the wildcard);
//!   entries may not overlap, so the order of the table never matters. Packets matching no
//!   entry go to `default_class`, or pass unchanged without one.
//! - Each class sets its DiffServ precedence (the AF class, 0-7) if given and meters its
//!   packets with one meter instance: the aggregate's state, as ns-2's per-policy-entry
//!   meter.
//! - The `aggregates` table: one row per (conditioner, class) with the meter's counts by
//!   colour and the sums over the flows whose data this class meters (found by walking
//!   each flow's route once at build time).

use super::classifier::{check_patterns, Classifier, Pattern};
use super::{AnyMeter, Meter, MeterSpec};
use crate::check::Problems;
use crate::packet::{Colour, Packet};
use crate::rng::Rng;
use crate::units::{Rate, Time};
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;

fn any() -> String {
    "*".into()
}

/// One traffic class (aggregate) of a conditioner.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClassSpec {
    pub name: String,
    /// DiffServ precedence (AF class) written into each packet, 0-7; absent: unchanged.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub precedence: Option<u8>,
    pub meter: MeterSpec,
}

/// One policy entry: packets from a host matching `src` to one matching `dst` belong to
/// `class`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PolicySpec {
    #[serde(default = "any")]
    pub src: String,
    #[serde(default = "any")]
    pub dst: String,
    pub class: String,
}

/// An edge conditioner on a router (docs/diffserv/conditioner.md).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConditionerSpec {
    /// Condition only packets arriving from this neighbour; absent: every input.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input: Option<String>,
    pub classes: Vec<ClassSpec>,
    #[serde(default)]
    pub policy: Vec<PolicySpec>,
    /// The class of packets no policy entry matches; absent: they pass unchanged.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default_class: Option<String>,
    /// The rate the classes share (e.g. the bottleneck's bandwidth): gives each class its
    /// fair share, CIR plus an equal part of the excess, and Jain's index over the ratios
    /// of throughput to fair share in the `aggregates` table.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub capacity: Option<Rate>,
}

pub use super::classifier::glob_match;

/// A conditioner's references, resolved once by validation: the simulator builds from them
/// and looks no name up again.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConditionerRefs {
    /// The channel from `input` into the router; `None`: every input.
    pub input: Option<u32>,
    /// Each policy entry's class, an index into `classes`.
    pub policy: Vec<u32>,
    pub default_class: Option<u32>,
}

impl ConditionerSpec {
    /// Reports every problem under `a` (`nodes[i].conditioners[k]`). `hosts` are the
    /// scenario's host names; `neighbours` the nodes linked to this router.
    pub fn validate(&self, a: &str, hosts: &[&str], neighbours: &BTreeSet<&str>, p: &mut Problems) {
        if let Some(n) = &self.input {
            if !neighbours.contains(n.as_str()) {
                p.err(
                    format!("{a}.input"),
                    format!("\"{n}\""),
                    format!(
                        "must be a neighbour of this router (linked to it): one of {}",
                        quoted(neighbours.iter().copied())
                    ),
                );
            }
        }
        if self.classes.is_empty() {
            p.err(
                format!("{a}.classes"),
                "[]",
                "a conditioner needs at least one class",
            );
        }
        let mut names = BTreeSet::new();
        for (k, c) in self.classes.iter().enumerate() {
            let path = format!("{a}.classes[{k}]");
            if c.name.is_empty() || !names.insert(c.name.as_str()) {
                p.err(
                    format!("{path}.name"),
                    format!("\"{}\"", c.name),
                    "must be non-empty and unique among this conditioner's classes",
                );
            }
            if let Some(pr) = c.precedence {
                if pr > 7 {
                    p.err(
                        format!("{path}.precedence"),
                        pr,
                        "must be in 0..=7 (the AF / class-selector precedence)",
                    );
                }
            }
            c.meter.validate(&format!("{path}.meter"), p);
        }
        let class_ref = |p: &mut Problems, path: String, name: &str| {
            if !names.contains(name) {
                p.err(
                    path,
                    format!("\"{name}\""),
                    format!(
                        "must name a class of this conditioner: one of {}",
                        quoted(names.iter().copied())
                    ),
                );
            }
        };
        if let Some(d) = &self.default_class {
            class_ref(p, format!("{a}.default_class"), d);
        }
        if let Some(c) = self.capacity {
            super::positive_rate(p, format!("{a}.capacity"), c);
        }
        let mut patterns = vec![];
        for (k, e) in self.policy.iter().enumerate() {
            let path = format!("{a}.policy[{k}]");
            class_ref(p, format!("{path}.class"), &e.class);
            patterns.push(Pattern {
                path,
                src: &e.src,
                dst: &e.dst,
            });
        }
        check_patterns(&patterns, hosts, "class", p);
    }
}

fn quoted<'a>(names: impl Iterator<Item = &'a str>) -> String {
    let v: Vec<String> = names.map(|n| format!("\"{n}\"")).collect();
    if v.is_empty() {
        "(none)".into()
    } else {
        v.join(", ")
    }
}

// ---------------------------------------------------------------------------------------
// Run time
// ---------------------------------------------------------------------------------------

/// Packets and bytes a class's meter coloured, by colour.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct MeterCounts {
    pub pkts: [u64; 3],
    pub bytes: [u64; 3],
}

impl MeterCounts {
    pub fn minus(&self, o: &MeterCounts) -> MeterCounts {
        let mut r = *self;
        for c in 0..3 {
            r.pkts[c] -= o.pkts[c];
            r.bytes[c] -= o.bytes[c];
        }
        r
    }
}

pub struct ClassState {
    pub name: String,
    precedence: Option<u8>,
    meter: AnyMeter,
    pub cir_bps: Option<u64>,
    pub pir_bps: Option<u64>,
    pub meter_kind: &'static str,
    pub counts: MeterCounts,
    pub at_warmup: MeterCounts,
    /// Flows whose data packets this class meters.
    pub flows: Vec<u32>,
}

/// A built conditioner.
pub struct Conditioner {
    pub node: String,
    pub input: Option<String>,
    pub capacity_bps: Option<u64>,
    classifier: Classifier,
    pub classes: Vec<ClassState>,
    rng: Rng,
    /// Packets that matched no entry and had no default class (passed unchanged).
    pub unclassified: u64,
    pub unclassified_at_warmup: u64,
}

impl Conditioner {
    /// Builds a validated spec with what validation resolved of it; `names[i]` is node
    /// i's name.
    pub fn new(
        spec: &ConditionerSpec,
        refs: &ConditionerRefs,
        node: &str,
        names: &[&str],
        rng: Rng,
    ) -> Conditioner {
        let policy = (spec.policy.iter().zip(&refs.policy))
            .map(|(e, &class)| (e.src.as_str(), e.dst.as_str(), class));
        Conditioner {
            node: node.to_string(),
            input: spec.input.clone(),
            capacity_bps: spec.capacity.map(|c| c.0),
            classifier: Classifier::new(policy, refs.default_class, names),
            classes: spec
                .classes
                .iter()
                .map(|c| {
                    let (cir_bps, pir_bps) = c.meter.rates();
                    ClassState {
                        name: c.name.clone(),
                        precedence: c.precedence,
                        meter: c.meter.build(),
                        cir_bps,
                        pir_bps,
                        meter_kind: c.meter.kind(),
                        counts: MeterCounts::default(),
                        at_warmup: MeterCounts::default(),
                        flows: vec![],
                    }
                })
                .collect(),
            rng,
            unclassified: 0,
            unclassified_at_warmup: 0,
        }
    }

    /// The class of a packet from node `src` to node `dst`.
    #[inline]
    pub fn classify(&self, src: usize, dst: usize) -> Option<u32> {
        self.classifier.classify(src, dst)
    }

    /// Classifies, meters and colours one arriving packet.
    #[inline]
    pub fn condition(&mut self, pkt: &mut Packet, now: Time) {
        let Some(k) = self.classify(pkt.src as usize, pkt.dst as usize) else {
            self.unclassified += 1;
            return;
        };
        let c = &mut self.classes[k as usize];
        if let Some(pr) = c.precedence {
            pkt.precedence = pr;
        }
        let colour: Colour = c.meter.colour(pkt.size, pkt.colour, now, &mut self.rng);
        pkt.colour = colour;
        c.counts.pkts[colour as usize] += 1;
        c.counts.bytes[colour as usize] += pkt.size as u64;
    }

    pub fn restart_measurement(&mut self) {
        for c in &mut self.classes {
            c.at_warmup = c.counts;
        }
        self.unclassified_at_warmup = self.unclassified;
    }
}

#[cfg(test)]
mod tests {
    use super::ConditionerRefs;

    /// Link 0 runs h0 → r as channel 0, link 1 runs r → h1 as channel 2 and h1 → r as 3.
    const ROUTER: &str = r#"
schema_version = 1

[simulation]
duration = "1s"

[[nodes]]
name = "h0"
type = "host"

[[nodes]]
name = "r"
type = "router"

[[nodes.conditioners]]
input = "h0"
classes = [{ name = "x", meter = { type = "fixed" } }]

[[nodes.conditioners]]
input = "h1"
classes = [{ name = "x", meter = { type = "fixed" } }, { name = "y", meter = { type = "fixed" } }]
policy = [{ src = "h1", class = "y" }]
default_class = "x"

[[nodes]]
name = "h1"
type = "host"

[[links]]
a = "h0"
b = "r"
bandwidth = "10Mbps"
delay = "1ms"
queue = { limit_pkts = 10 }

[[links]]
a = "r"
b = "h1"
bandwidth = "10Mbps"
delay = "1ms"
queue = { limit_pkts = 10 }
"#;

    /// An input is the channel into the router whichever end of its link the router is.
    #[test]
    fn validation_resolves_inputs_to_channels_and_classes_to_indices() {
        let s = crate::scenario::parse(ROUTER).unwrap();
        let c = s.validate().unwrap();
        let refs = |input, policy: &[u32], default_class| ConditionerRefs {
            input: Some(input),
            policy: policy.to_vec(),
            default_class,
        };
        assert_eq!(c.conditioners, [refs(0, &[], None), refs(3, &[1], Some(0))]);
    }
}
