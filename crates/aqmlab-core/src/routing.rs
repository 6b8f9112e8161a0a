//! Static shortest-path routing compiled into an O(1) forwarding table.
//!
//! Channels are the two directions of each link: channel 2i carries link i from `a` to `b`,
//! channel 2i+1 from `b` to `a`. Routes minimise hop count. Among equal-length routes the
//! table keeps the one found first by a breadth-first search backwards from the destination
//! that visits each node's links in link order: it depends only on the scenario, so tables
//! are deterministic (but it is not "lowest link index first" in general). Hosts terminate
//! traffic and never forward it.

use crate::scenario::{NodeKind, Scenario};
use std::collections::VecDeque;

pub const NO_ROUTE: u32 = u32::MAX;

pub struct Routes {
    n: usize,
    /// `next[src * n + dst]` = channel to send on, or NO_ROUTE.
    next: Vec<u32>,
}

impl Routes {
    /// Builds the table; links naming unknown nodes are ignored (validation reports them).
    pub fn build(s: &Scenario) -> Routes {
        let n = s.nodes.len();
        // Incoming channels per node: (neighbour it comes from, channel id).
        let mut incoming: Vec<Vec<(usize, u32)>> = vec![vec![]; n];
        for (i, l) in s.links.iter().enumerate() {
            if let (Some(a), Some(b)) = (s.node_index(&l.a), s.node_index(&l.b)) {
                incoming[b].push((a, 2 * i as u32));
                incoming[a].push((b, 2 * i as u32 + 1));
            }
        }
        let mut next = vec![NO_ROUTE; n * n];
        let mut seen = vec![usize::MAX; n];
        let mut queue = VecDeque::new();
        for d in 0..n {
            // Breadth-first search backwards from the destination.
            seen[d] = d;
            queue.push_back(d);
            while let Some(w) = queue.pop_front() {
                if w != d && s.nodes[w].kind == NodeKind::Host {
                    continue; // a host may originate, never relay
                }
                for &(u, ch) in &incoming[w] {
                    if seen[u] != d {
                        seen[u] = d;
                        next[u * n + d] = ch;
                        queue.push_back(u);
                    }
                }
            }
        }
        Routes { n, next }
    }

    #[inline]
    pub fn next_channel(&self, from: usize, to: usize) -> u32 {
        self.next[from * self.n + to]
    }
}
