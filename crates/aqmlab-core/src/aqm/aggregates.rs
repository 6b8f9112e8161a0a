//! Aggregates for the core AQMs that keep per-aggregate state (DRIO and URIO, Herrería-Alonso
//! et al., "Unbiased RIO", §2.3 and §3.1): which aggregate a packet belongs to, a table of
//! per-aggregate state keyed by it, and the spec plumbing those AQMs share with RIO.
//!
//! An aggregate is identified by header fields (the paper: "a combination of several
//! header fields ... source and destination addresses"). Here:
//! - with no `aggregates` table, each (source host, destination host) pair is one aggregate:
//!   the paper's aggregates, client i -> client i + 5, whatever their microflows;
//! - with one, packets are classified by the DiffServ classifier (host patterns, as an edge
//!   conditioner's policy table); entries sharing a name form one aggregate, and pairs no
//!   entry matches stay aggregates of their own.

use super::rio::RioSpec;
use crate::check::{inner, Problems};
use crate::diffserv::classifier::{check_patterns, Classifier, Pattern};
use crate::packet::Packet;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Deserializer, Serialize};
use std::collections::HashMap;

fn any() -> String {
    "*".into()
}

/// One classifier entry: packets from a host matching `src` to one matching `dst` belong to
/// the aggregate `name`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AggregateSpec {
    pub name: String,
    #[serde(default = "any")]
    pub src: String,
    #[serde(default = "any")]
    pub dst: String,
}

/// Reports empty names, patterns that match no host, and overlapping entries.
pub fn validate_aggregates(a: &str, specs: &[AggregateSpec], hosts: &[&str], p: &mut Problems) {
    let mut patterns = vec![];
    for (k, e) in specs.iter().enumerate() {
        let path = format!("{a}.aggregates[{k}]");
        if e.name.is_empty() {
            p.err(format!("{path}.name"), "\"\"", "must be non-empty");
        }
        patterns.push(Pattern {
            path,
            src: &e.src,
            dst: &e.dst,
        });
    }
    check_patterns(&patterns, hosts, "aggregate", p);
}

/// Bit 63 set: a named aggregate of the table (its index below); clear: a host pair
/// (src << 32 | dst). Node indices are u32, so the two never meet.
const NAMED: u64 = 1 << 63;

/// A built classifier from packets to aggregate keys.
pub struct Aggregates {
    classifier: Classifier,
    names: Vec<String>,
    nodes: Vec<String>,
}

impl Aggregates {
    /// Resolves validated entries over the nodes (`nodes[i]` is node i's name).
    pub fn new(specs: &[AggregateSpec], nodes: &[&str]) -> Aggregates {
        let mut names: Vec<String> = vec![];
        let mut table = vec![];
        for e in specs {
            let k = names.iter().position(|n| *n == e.name).unwrap_or_else(|| {
                names.push(e.name.clone());
                names.len() - 1
            });
            table.push((e.src.as_str(), e.dst.as_str(), k as u32));
        }
        Aggregates {
            classifier: Classifier::new(table, None, nodes),
            names,
            nodes: nodes.iter().map(|n| n.to_string()).collect(),
        }
    }

    /// The aggregate of a packet.
    #[inline]
    pub fn key(&self, pkt: &Packet) -> u64 {
        if !self.classifier.is_empty() {
            if let Some(k) = self.classifier.classify(pkt.src as usize, pkt.dst as usize) {
                return NAMED | k as u64;
            }
        }
        (pkt.src as u64) << 32 | pkt.dst as u64
    }

    /// The aggregate's name in result tables: its table name, or "src->dst".
    pub fn label(&self, key: u64) -> String {
        if key & NAMED != 0 {
            return self.names[(key & !NAMED) as usize].clone();
        }
        let node = |i: u64| {
            self.nodes
                .get(i as usize)
                .cloned()
                .unwrap_or_else(|| format!("node{i}"))
        };
        format!("{}->{}", node(key >> 32), node(key & 0xffff_ffff))
    }
}

/// Per-aggregate state by key: a map to slots of a dense vector, so a reset walks the
/// states without hashing and a purge keeps the rest in place.
pub struct Slots<T> {
    index: HashMap<u64, u32>,
    items: Vec<(u64, T)>,
}

impl<T> Default for Slots<T> {
    fn default() -> Self {
        Slots {
            index: HashMap::new(),
            items: vec![],
        }
    }
}

impl<T> Slots<T> {
    /// The slot of `key`, created by `new` if absent.
    #[inline]
    pub fn slot(&mut self, key: u64, new: impl FnOnce() -> T) -> usize {
        if let Some(&i) = self.index.get(&key) {
            return i as usize;
        }
        let i = self.items.len();
        self.items.push((key, new()));
        self.index.insert(key, i as u32);
        i
    }

    pub fn get(&self, key: u64) -> Option<&T> {
        self.index.get(&key).map(|&i| &self.items[i as usize].1)
    }

    pub fn at(&mut self, slot: usize) -> &mut T {
        &mut self.items[slot].1
    }

    pub fn len(&self) -> usize {
        self.items.len()
    }

    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    pub fn iter(&self) -> impl Iterator<Item = &(u64, T)> {
        self.items.iter()
    }

    pub fn iter_mut(&mut self) -> impl Iterator<Item = &mut (u64, T)> {
        self.items.iter_mut()
    }

    /// Keeps the states `keep` accepts (in their order) and re-indexes them.
    pub fn retain(&mut self, mut keep: impl FnMut(&T) -> bool) {
        self.items.retain(|(_, t)| keep(t));
        self.index.clear();
        for (i, (k, _)) in self.items.iter().enumerate() {
            self.index.insert(*k, i as u32);
        }
    }

    /// The states sorted by their labels, for result tables.
    pub fn sorted<'a>(&'a self, aggs: &Aggregates) -> Vec<(String, &'a T)> {
        let mut v: Vec<(String, &T)> = self
            .items
            .iter()
            .map(|(k, t)| (aggs.label(*k), t))
            .collect();
        v.sort_by(|a, b| a.0.cmp(&b.0));
        v
    }
}

/// Deserializes a spec that extends RIO: the fields named in `own` are the extension's
/// (deserialized as `E`, unknown ones refused there), every other field is RIO's, refused
/// by RIO's own checks if unknown. One flat table, as RIO's, not a nested one.
pub fn split_rio<'de, D: Deserializer<'de>, E: DeserializeOwned>(
    d: D,
    own: &[&str],
) -> Result<(RioSpec, E), D::Error> {
    let mut rest = toml::Table::deserialize(d)?;
    let mut mine = toml::Table::new();
    for k in own {
        if let Some(v) = rest.remove(*k) {
            mine.insert(k.to_string(), v);
        }
    }
    let ext = inner::<E, D::Error>(mine)?;
    let rio = inner::<RioSpec, D::Error>(rest).map_err(|e| {
        // RIO's message lists RIO's fields; the extension's are allowed too.
        let m = e.to_string();
        if m.contains("unknown field") && m.contains("expected one of") {
            let extra: Vec<String> = own.iter().map(|k| format!("`{k}`")).collect();
            serde::de::Error::custom(format!("{m}, {}", extra.join(", ")))
        } else {
            e
        }
    })?;
    Ok((rio, ext))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pkt(src: u32, dst: u32) -> Packet {
        Packet {
            src,
            dst,
            ..Default::default()
        }
    }

    #[test]
    fn host_pairs_are_aggregates_unless_a_table_groups_them() {
        let nodes = ["c1", "c2", "e", "c6", "c7"];
        let pairs = Aggregates::new(&[], &nodes);
        assert_ne!(pairs.key(&pkt(0, 3)), pairs.key(&pkt(1, 3)));
        assert_eq!(pairs.key(&pkt(0, 3)), pairs.key(&pkt(0, 3)));
        assert_eq!(pairs.label(pairs.key(&pkt(1, 4))), "c2->c7");
        let spec = |name: &str, src: &str| AggregateSpec {
            name: name.into(),
            src: src.into(),
            dst: "*".into(),
        };
        let grouped = Aggregates::new(&[spec("a", "c1"), spec("a", "c2")], &nodes);
        assert_eq!(grouped.key(&pkt(0, 3)), grouped.key(&pkt(1, 4)));
        assert_eq!(grouped.label(grouped.key(&pkt(1, 3))), "a");
        // A pair no entry matches stays an aggregate of its own.
        assert_eq!(grouped.label(grouped.key(&pkt(3, 0))), "c6->c1");
    }

    #[test]
    fn a_purge_keeps_the_other_states_reachable() {
        let mut s: Slots<u32> = Slots::default();
        for k in 0..5u64 {
            let i = s.slot(k, || 10 * k as u32);
            assert_eq!(i, k as usize);
        }
        s.retain(|v| v % 20 == 0);
        assert_eq!(s.len(), 3);
        assert_eq!(s.get(4), Some(&40));
        assert_eq!(s.get(1), None);
        assert_eq!(s.slot(2, || 99), 1, "kept in order, re-indexed");
        assert_eq!(
            s.slot(1, || 11),
            3,
            "a purged key comes back as a new state"
        );
    }
}
