//! Static shortest-path routing compiled into an O(1) forwarding table.
//!
//! Channels are the two directions of each link: channel 2i carries link i from `a` to `b`,
//! channel 2i+1 from `b` to `a`. Routes minimise hop count. Among equal-length routes the
//! table keeps the one found first by a breadth-first search backwards from the destination
//! that visits each node's links in link order: it depends only on the topology, so tables
//! are deterministic (but it is not "lowest link index first" in general). Hosts terminate
//! traffic and never forward it.

use std::collections::VecDeque;

pub const NO_ROUTE: u32 = u32::MAX;

pub struct Routes {
    n: usize,
    /// `next[src * n + dst]` = channel to send on, or NO_ROUTE.
    next: Vec<u32>,
}

impl Routes {
    /// Builds the table for `relays.len()` nodes (`relays[i]`: node i forwards; hosts do
    /// not) and link i joining `links[i]` = (a, b); a link whose ends are unknown (None,
    /// reported by validation) is left out but keeps its channel numbers.
    pub fn build(relays: &[bool], links: &[Option<(usize, usize)>]) -> Routes {
        let n = relays.len();
        // Incoming channels per node: (neighbour it comes from, channel id).
        let mut incoming: Vec<Vec<(usize, u32)>> = vec![vec![]; n];
        for (i, l) in links.iter().enumerate() {
            if let Some((a, b)) = *l {
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
                if w != d && !relays[w] {
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
