//! Static shortest-path routing compiled into an O(1) forwarding table.
//!
//! Channels are the two directions of each link: channel 2i carries link i from `a` to `b`,
//! channel 2i+1 from `b` to `a`. Routes minimise hop count. Among equal-length routes the
//! table keeps the one found first by a breadth-first search backwards from the destination
//! that visits each node's links in link order: it depends only on the topology, so tables
//! are deterministic (but it is not "lowest link index first" in general). Hosts terminate
//! traffic and never forward it.
//!
//! The table is dense only over the *core*. A *stub* is a node with exactly one link whose
//! neighbour g (its gateway) relays and has at least two links; every other node is core.
//! Large scenarios are mostly stubs (a host on its access link), so the table costs
//! core² entries instead of n² (20 002 nodes of a dumbbell: 2 core routers).
//! The stubs' routes follow from the core's without changing any route:
//! - to a stub d behind g: the search from d finds g first, and g then discovers every other
//!   node in the order the search from g would (d, already seen, adds nothing), so each node
//!   u ∉ {d, g} has the same parent: next(u, d) = next(u, g), and next(g, d) = the channel g→d;
//! - from a stub u behind g: u is reached only through g, so next(u, x) = the channel u→g
//!   when the search from x expands g, i.e. when x = g or g (a relay) is reached at all.
//!
//! Searches over the core alone give the core's parents unchanged: a stub reached by a
//! search has no neighbour left to discover.

use std::collections::VecDeque;

pub const NO_ROUTE: u32 = u32::MAX;

/// Where a node's routes are found (8 bytes: one load per end on the per-packet path). A
/// packet carries its destination's (`Packet::to`), so that a router's hop reads it in the
/// packet's line rather than in this table, a random line of it at scale.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct At {
    /// Row and column in the core table: the node's own, or its gateway's for a stub (so a
    /// core node is stub t's gateway iff their `core` agree).
    core: u32,
    /// A stub's channel to its gateway (the reverse channel is `up ^ 1`); NO_ROUTE for core.
    up: u32,
}

pub struct Routes {
    at: Vec<At>,
    /// Number of core nodes.
    nc: usize,
    /// `core[i * nc + j]` = channel from core node i towards core node j, or NO_ROUTE.
    core: Vec<u32>,
}

impl Routes {
    /// Builds the table for `relays.len()` nodes (`relays[i]`: node i forwards; hosts do
    /// not) and link i joining `links[i]` = (a, b); a link whose ends are unknown (None,
    /// reported by validation) is left out but keeps its channel numbers.
    /// Time O(n + m + nc·(nc + mc)) for nc core nodes joined by mc links.
    pub fn build(relays: &[bool], links: &[Option<(usize, usize)>]) -> Routes {
        let n = relays.len();
        // Links per node, and the (neighbour, channel to it) of its last link: a stub's only.
        let mut degree = vec![0u32; n];
        let mut last = vec![(0usize, NO_ROUTE); n];
        for (i, l) in links.iter().enumerate() {
            if let Some((a, b)) = *l {
                degree[a] += 1;
                degree[b] += 1;
                last[a] = (b, 2 * i as u32);
                last[b] = (a, 2 * i as u32 + 1);
            }
        }
        let is_stub = |u: usize| {
            let g = last[u].0;
            degree[u] == 1 && degree[g] >= 2 && relays[g]
        };
        let core_nodes: Vec<usize> = (0..n).filter(|&u| !is_stub(u)).collect();
        let mut core_of = vec![NO_ROUTE; n];
        for (c, &u) in core_nodes.iter().enumerate() {
            core_of[u] = c as u32;
        }
        let at: Vec<At> = (0..n)
            .map(|u| {
                if is_stub(u) {
                    let (g, up) = last[u];
                    At {
                        core: core_of[g],
                        up,
                    }
                } else {
                    At {
                        core: core_of[u],
                        up: NO_ROUTE,
                    }
                }
            })
            .collect();
        let nc = core_nodes.len();
        // Incoming channels per core node, in link order: (core neighbour, channel id).
        let mut incoming: Vec<Vec<(u32, u32)>> = vec![vec![]; nc];
        for (i, l) in links.iter().enumerate() {
            if let Some((a, b)) = *l {
                let (ca, cb) = (core_of[a], core_of[b]);
                if ca != NO_ROUTE && cb != NO_ROUTE {
                    incoming[cb as usize].push((ca, 2 * i as u32));
                    incoming[ca as usize].push((cb, 2 * i as u32 + 1));
                }
            }
        }
        let mut core = vec![NO_ROUTE; nc * nc];
        let mut seen = vec![usize::MAX; nc];
        let mut queue = VecDeque::new();
        for d in 0..nc {
            // Breadth-first search backwards from the destination.
            seen[d] = d;
            queue.push_back(d);
            while let Some(w) = queue.pop_front() {
                if w != d && !relays[core_nodes[w]] {
                    continue; // a host may originate, never relay
                }
                for &(u, ch) in &incoming[w] {
                    let u = u as usize;
                    if seen[u] != d {
                        seen[u] = d;
                        core[u * nc + d] = ch;
                        queue.push_back(u);
                    }
                }
            }
        }
        Routes { at, nc, core }
    }

    #[inline]
    pub fn next_channel(&self, from: usize, to: usize) -> u32 {
        let (f, t) = (self.at[from], self.at[to]);
        let via = self.core[f.core as usize * self.nc + t.core as usize];
        let same = f.core == t.core;
        if f.up == NO_ROUTE {
            self.route_from_core(f, t)
        } else if (same || via != NO_ROUTE) && from != to {
            f.up
        } else {
            NO_ROUTE
        }
    }

    /// From core node `f` towards `t`: down the link of a stub behind it, else the core's
    /// route (towards the stub's gateway; the diagonal is NO_ROUTE).
    #[inline]
    fn route_from_core(&self, f: At, t: At) -> u32 {
        if f.core == t.core && t.up != NO_ROUTE {
            t.up ^ 1
        } else {
            self.core[f.core as usize * self.nc + t.core as usize]
        }
    }

    /// Node `n`'s entry, for a packet bound to it to carry.
    #[inline]
    pub fn at(&self, n: usize) -> At {
        self.at[n]
    }

    /// `next_channel(from, to)` wherever that is a route, for `t` = `to`'s entry (a
    /// packet's `to`): it reads no entry of the table but `from`'s, and `t` only when
    /// `from` is in the core (a stub sends everything up its one link).
    #[inline]
    pub fn likely_at(&self, from: usize, t: At) -> u32 {
        self.first_hop(self.at[from], || t)
    }

    /// `likely_at` from the node whose entry is `f`, for a flow's end, which keeps its
    /// own: it reads no entry of the table at all, and `t` only from the core.
    #[inline]
    pub fn first_hop(&self, f: At, t: impl FnOnce() -> At) -> u32 {
        if f.up == NO_ROUTE {
            self.route_from_core(f, t())
        } else {
            f.up
        }
    }

    /// Heap bytes held by the table.
    pub fn heap_bytes(&self) -> usize {
        self.at.len() * std::mem::size_of::<At>() + self.core.len() * 4
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The dense all-pairs table this module replaced: one search per destination over
    /// every node. The oracle for the compact one.
    fn dense(relays: &[bool], links: &[Option<(usize, usize)>]) -> Vec<u32> {
        let n = relays.len();
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
            seen[d] = d;
            queue.push_back(d);
            while let Some(w) = queue.pop_front() {
                if w != d && !relays[w] {
                    continue;
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
        next
    }

    fn same_as_dense(relays: &[bool], links: &[Option<(usize, usize)>]) -> Result<(), String> {
        let n = relays.len();
        let (want, got) = (dense(relays, links), Routes::build(relays, links));
        for from in 0..n {
            for to in 0..n {
                let (w, g) = (want[from * n + to], got.next_channel(from, to));
                if w != g {
                    return Err(format!("next({from}, {to}): dense {w}, compact {g}"));
                }
                let carried = got.likely_at(from, got.at(to));
                if w != NO_ROUTE && carried != w {
                    return Err(format!("likely_at({from}, {to}): {carried}, route {w}"));
                }
                let kept = got.first_hop(got.at(from), || got.at(to));
                if w != NO_ROUTE && kept != w {
                    return Err(format!("first_hop({from}, {to}): {kept}, route {w}"));
                }
            }
        }
        Ok(())
    }

    /// Random graphs of up to 14 nodes: hosts and relays (routers and switches route
    /// alike), links between any two nodes, so hosts with several links, host–host links,
    /// relays with one link, disconnected parts, parallel links, self-loops and unknown ends
    /// (which validation rejects but routes are still built for) all occur.
    fn graph() -> impl Strategy<Value = (Vec<bool>, Vec<Option<(usize, usize)>>)> {
        (1usize..14).prop_flat_map(|n| {
            let link = prop_oneof![
                12 => (0..n, 0..n).prop_map(Some),
                1 => Just(None),
            ];
            (
                proptest::collection::vec(any::<bool>(), n),
                proptest::collection::vec(link, 0..2 * n),
            )
        })
    }

    /// Trees of hosts hung off a few relays: mostly stubs, as in large scenarios (uniform
    /// random graphs above have few stubs whose gateway has two links).
    fn stubby() -> impl Strategy<Value = (Vec<bool>, Vec<Option<(usize, usize)>>)> {
        (1usize..5, 0usize..12).prop_flat_map(|(r, h)| {
            let n = r + h;
            (
                proptest::collection::vec((0..r, 0..r), 0..2 * r),
                proptest::collection::vec(0..r, h),
                proptest::collection::vec((0..n, 0..n), 0..3),
                proptest::collection::vec(any::<bool>(), n),
                any::<u64>(),
            )
                .prop_map(move |(core, up, extra, host_relays, shuffle)| {
                    let mut relays = vec![true; r];
                    // Hosts, and now and then a relay with a single link.
                    relays.extend((0..h).map(|i| host_relays[r + i] && i % 3 == 0));
                    let mut links: Vec<Option<(usize, usize)>> =
                        core.into_iter().map(Some).collect();
                    for (i, g) in up.into_iter().enumerate() {
                        // Either end first: the channel up is 2i or 2i+1.
                        links.push(Some(if (shuffle >> (i % 64)) & 1 == 0 {
                            (r + i, g)
                        } else {
                            (g, r + i)
                        }));
                    }
                    links.extend(extra.into_iter().map(Some));
                    // Link order decides ties: rotate the list.
                    let k = (shuffle as usize) % links.len().max(1);
                    links.rotate_left(k);
                    (relays, links)
                })
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(4000))]
        #[test]
        fn compact_equals_dense_on_random_graphs((relays, links) in graph()) {
            same_as_dense(&relays, &links).map_err(TestCaseError::fail)?;
        }

        #[test]
        fn compact_equals_dense_on_stubby_graphs((relays, links) in stubby()) {
            same_as_dense(&relays, &links).map_err(TestCaseError::fail)?;
        }
    }

    #[test]
    fn dumbbell_core_is_the_two_routers() {
        // r0 r1, then s_i and d_i on r0 and r1.
        let flows = 50;
        let mut relays = vec![true, true];
        relays.extend(std::iter::repeat_n(false, 2 * flows));
        let mut links = vec![Some((0, 1))];
        for i in 0..flows {
            links.push(Some((2 + 2 * i, 0)));
            links.push(Some((3 + 2 * i, 1)));
        }
        let r = Routes::build(&relays, &links);
        assert_eq!(r.nc, 2);
        // 102 nodes x 8 bytes + 2 x 2 entries of 4 bytes.
        assert_eq!(r.heap_bytes(), 102 * 8 + 16);
        same_as_dense(&relays, &links).unwrap();
        // s0 -> d0: up its access link (channel 2), the bottleneck (0), down to d0 (5).
        assert_eq!(r.next_channel(2, 3), 2);
        assert_eq!(r.next_channel(0, 3), 0);
        assert_eq!(r.next_channel(1, 3), 5);
    }
}
