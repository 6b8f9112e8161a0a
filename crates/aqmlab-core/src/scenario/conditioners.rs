//! The DiffServ conditioners of a scenario's routers checked and resolved against its
//! nodes and links (`crate::diffserv::conditioner` holds the conditioner itself and the
//! checks of its own table, and names nothing of the scenario's).

use super::{NodeKind, Scenario};
use crate::check::Problems;
use crate::diffserv::{ConditionerRefs, ConditionerSpec};
use std::collections::{BTreeMap, BTreeSet};

/// A conditioner's references on router `node`; `None` if one names nothing (its
/// `validate` says so).
fn refs(c: &ConditionerSpec, s: &Scenario, node: &str) -> Option<ConditionerRefs> {
    let class = |name: &str| {
        let k = c.classes.iter().position(|c| c.name == name)?;
        Some(k as u32)
    };
    Some(ConditionerRefs {
        input: match &c.input {
            None => None,
            Some(from) => Some(channel(s, from, node)?),
        },
        policy: (c.policy.iter())
            .map(|e| class(&e.class))
            .collect::<Option<_>>()?,
        default_class: match &c.default_class {
            None => None,
            Some(d) => Some(class(d)?),
        },
    })
}

/// The channel from node `from` to node `to`: link k's a → b is channel 2k, b → a 2k + 1.
fn channel(s: &Scenario, from: &str, to: &str) -> Option<u32> {
    s.links.iter().enumerate().find_map(|(k, l)| {
        let k = 2 * k as u32;
        match (l.a == from && l.b == to, l.b == from && l.a == to) {
            (true, _) => Some(k),
            (_, true) => Some(k + 1),
            _ => None,
        }
    })
}

/// Every conditioner's references, in node order; `None` if one does not resolve.
pub(super) fn resolve(s: &Scenario) -> Option<Vec<ConditionerRefs>> {
    (s.nodes.iter())
        .flat_map(|n| n.conditioners.iter().map(|c| refs(c, s, &n.name)))
        .collect()
}

/// Checks every node's conditioners: only routers have them, one per input at most.
pub(super) fn validate_conditioners(s: &Scenario, p: &mut Problems) {
    let hosts: Vec<&str> = s
        .nodes
        .iter()
        .filter(|n| n.kind == NodeKind::Host)
        .map(|n| n.name.as_str())
        .collect();
    for (i, n) in s.nodes.iter().enumerate() {
        if n.conditioners.is_empty() {
            continue;
        }
        let a = format!("nodes[{i}].conditioners");
        if n.kind != NodeKind::Router {
            p.err(
                a,
                format!("\"{}\"", n.name),
                "only routers condition traffic; this node is not a router",
            );
            continue;
        }
        let neighbours: BTreeSet<&str> = s
            .links
            .iter()
            .filter_map(|l| {
                if l.a == n.name {
                    Some(l.b.as_str())
                } else if l.b == n.name {
                    Some(l.a.as_str())
                } else {
                    None
                }
            })
            .collect();
        let mut inputs: BTreeMap<Option<&str>, usize> = BTreeMap::new();
        for (k, c) in n.conditioners.iter().enumerate() {
            let path = format!("{a}[{k}]");
            c.validate(&path, &hosts, &neighbours, p);
            let key = c.input.as_deref();
            let clash = inputs.get(&key).copied().or_else(|| {
                // One for every input and one for a given input would both apply.
                match key {
                    None => inputs.values().next().copied(),
                    Some(_) => inputs.get(&None).copied(),
                }
            });
            if let Some(j) = clash {
                p.err(
                    format!("{path}.input"),
                    key.map_or("(every input)".to_string(), |k| format!("\"{k}\"")),
                    format!("{a}[{j}] already conditions this input; at most one conditioner applies to each input"),
                );
            }
            inputs.insert(key, k);
        }
    }
}
