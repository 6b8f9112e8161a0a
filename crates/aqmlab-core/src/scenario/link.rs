//! A link's rates: `bandwidth` serves a→b and, unless `reverse_bandwidth` is given, b→a
//! too. An asymmetric link (a home gateway's 20 Mb/s down, 5 Mb/s up) names both; its
//! checks live here.

use super::{LinkSpec, NodeKind, Scenario};
use crate::check::{Item, Problems};

impl LinkSpec {
    /// The rate of the a→b direction (`forward`) or of b→a, in bit/s.
    pub fn bps(&self, forward: bool) -> u64 {
        match (forward, self.reverse_bandwidth) {
            (false, Some(r)) => r.0,
            _ => self.bandwidth.0,
        }
    }
}

/// The checks of links[i]'s `reverse_bandwidth`.
pub(super) fn check(s: &Scenario, i: usize, pr: &mut Problems) {
    let l = &s.links[i];
    let Some(r) = l.reverse_bandwidth else {
        return;
    };
    let p = Item("links", i);
    if r.0 == 0 {
        pr.err(format!("{p}.reverse_bandwidth"), "\"0bps\"", "must be > 0");
    }
    let switch = |name: &str| {
        s.nodes
            .iter()
            .any(|n| n.name == name && n.kind == NodeKind::Switch)
    };
    if (switch(&l.a) || switch(&l.b)) && r.0 != l.bandwidth.0 {
        pr.err(
            format!("{p}.reverse_bandwidth"),
            format!("\"{}\"", crate::units::format_rate(r.0)),
            "a switch's ports run at one rate R both ways; \
             must equal bandwidth or be omitted on a switch's link",
        );
    }
}

/// Drops the problems found from `mark` on that repeat one found before it since `mark`
/// (a queue checked at both of a link's rates reports a rate-free problem once).
pub(super) fn dedup_from(pr: &mut Problems, mark: usize) {
    let mut seen: Vec<crate::check::ScenarioError> = vec![];
    let mut k = 0;
    pr.errors.retain(|e| {
        k += 1;
        if k <= mark {
            return true;
        }
        if seen.contains(e) {
            return false;
        }
        seen.push(e.clone());
        true
    });
}
