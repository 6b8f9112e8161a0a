//! DiffServ edge routers: which conditioner sees an arrival, which flows each class
//! meters, and the `aggregates` table.

use super::*;
use crate::table::Column;

/// The conditioners of one edge router: one for every input, or one per input port.
pub struct Edge {
    all: Option<u32>,
    /// (input channel, conditioner)
    inputs: Vec<(u32, u32)>,
}

impl Edge {
    #[inline]
    fn pick(&self, channel: u32) -> Option<u32> {
        self.all.or_else(|| {
            self.inputs
                .iter()
                .find(|(c, _)| *c == channel)
                .map(|&(_, k)| k)
        })
    }
}

/// The node kinds, edge stages and conditioners of a validated scenario, and the flows
/// each class meters (each flow's route walked once).
pub(super) fn build(
    c: &Checked,
    channels: &[Channel],
    routes: &Routes,
) -> (Vec<Node>, Vec<Edge>, Vec<Conditioner>) {
    let s = c.scenario;
    let names: Vec<&str> = s.nodes.iter().map(|n| n.name.as_str()).collect();
    let mut nodes = vec![];
    let mut edges = vec![];
    let mut conds: Vec<Conditioner> = vec![];
    let mut switches = 0;
    for n in &s.nodes {
        nodes.push(match n.kind {
            NodeKind::Host => Node::Host,
            NodeKind::Switch => {
                switches += 1;
                Node::Switch(switches - 1)
            }
            NodeKind::Router if n.conditioners.is_empty() => Node::Router,
            NodeKind::Router => {
                let mut e = Edge {
                    all: None,
                    inputs: vec![],
                };
                for (k, spec) in n.conditioners.iter().enumerate() {
                    let rng = Rng::for_component(
                        s.simulation.seed,
                        s.simulation.run,
                        &format!("nodes/{}/conditioners/{k}", n.name),
                    );
                    let id = conds.len() as u32;
                    let refs = &c.conditioners[id as usize];
                    conds.push(Conditioner::new(spec, refs, &n.name, &names, rng));
                    match refs.input {
                        None => e.all = Some(id),
                        Some(ch) => e.inputs.push((ch, id)),
                    }
                }
                edges.push(e);
                Node::Edge(edges.len() as u32 - 1)
            }
        });
    }
    if !conds.is_empty() {
        for (f, &(src, dst)) in c.flow_ends.iter().enumerate() {
            let (src, dst) = (src as usize, dst as usize);
            let mut node = src;
            // Routes are loop-free shortest paths: at most one hop per node.
            for _ in 0..nodes.len() {
                if node == dst {
                    break;
                }
                let ch = routes.next_channel(node, dst);
                if ch == NO_ROUTE {
                    break;
                }
                let next = channels[ch as usize].to as usize;
                if let Node::Edge(e) = nodes[next] {
                    if let Some(k) = edges[e as usize].pick(ch) {
                        let cond = &mut conds[k as usize];
                        if let Some(class) = cond.classify(src, dst) {
                            cond.classes[class as usize].flows.push(f as u32);
                        }
                    }
                }
                node = next;
            }
        }
    }
    (nodes, edges, conds)
}

impl Simulator<'_> {
    #[inline]
    pub(super) fn condition(&mut self, e: u32, channel: u32, pkt: u32) {
        if let Some(k) = self.edges[e as usize].pick(channel) {
            let now = self.now;
            self.conditioners[k as usize].condition(self.packets.get_mut(pkt), now);
        }
    }
}

/// One row per (conditioner, class): the meter's counts by colour and the sums over the
/// flows the class meters (docs/diffserv/conditioner.md lists the columns).
pub(super) fn aggregates_table(conds: &[Conditioner], flows: &[FlowSummary]) -> Option<Table> {
    if conds.is_empty() {
        return None;
    }
    let nan = f64::NAN;
    let mut t = Table::new("aggregates");
    let (mut node, mut input, mut class, mut meter) = (vec![], vec![], vec![], vec![]);
    let u = |v: &mut Vec<Vec<u64>>, i: usize, x: u64| v[i].push(x);
    let mut counts: Vec<Vec<u64>> = vec![vec![]; 7];
    let mut f64s: Vec<Vec<f64>> = vec![vec![]; 9];
    for cond in conds {
        // Fair shares: CIR plus an equal part of what the CIRs leave of the capacity
        // (the URIO paper's definition); proportional to CIR if they exceed it.
        let cirs: Vec<f64> = cond
            .classes
            .iter()
            .map(|c| c.cir_bps.unwrap_or(0) as f64)
            .collect();
        let sum_cir: f64 = cirs.iter().sum();
        let n = cond.classes.len() as f64;
        let fair: Vec<f64> = match cond.capacity_bps {
            None => vec![nan; cirs.len()],
            Some(cap) if sum_cir <= cap as f64 => cirs
                .iter()
                .map(|c| c + (cap as f64 - sum_cir) / n)
                .collect(),
            Some(cap) => cirs.iter().map(|c| cap as f64 * c / sum_cir).collect(),
        };
        let mut rows = vec![];
        for (k, c) in cond.classes.iter().enumerate() {
            let m = c.counts.minus(&c.at_warmup);
            let sum = |g: &dyn Fn(&FlowSummary) -> f64| -> f64 {
                c.flows.iter().map(|&f| g(&flows[f as usize])).sum()
            };
            let sent = sum(&|x| x.sent_pkts as f64);
            let lost = sum(&|x| (x.dropped_pkts + x.lost_pkts) as f64);
            let thr = sum(&|x| x.throughput_bps);
            let good = sum(&|x| x.goodput_bps);
            let target = c.cir_bps.map_or(nan, |r| thr / r as f64);
            rows.push((m, sent, lost, thr, good, target, thr / fair[k]));
            node.push(cond.node.clone());
            input.push(cond.input.clone().unwrap_or_else(|| "*".into()));
            class.push(c.name.clone());
            meter.push(c.meter_kind.to_string());
        }
        // Jain's index over the classes' throughput relative to their fair share (to
        // their CIR without a capacity): 1 when every class gets the same multiple.
        let ratios: Vec<f64> = rows
            .iter()
            .map(|r| {
                if cond.capacity_bps.is_some() {
                    r.6
                } else {
                    r.5
                }
            })
            .collect();
        let jain = if ratios.iter().all(|x| x.is_finite()) && !ratios.is_empty() {
            let s: f64 = ratios.iter().sum();
            let s2: f64 = ratios.iter().map(|x| x * x).sum();
            if s2 > 0.0 {
                s * s / (ratios.len() as f64 * s2)
            } else {
                nan
            }
        } else {
            nan
        };
        for (k, (m, sent, lost, thr, good, target, fair_ratio)) in rows.into_iter().enumerate() {
            let c = &cond.classes[k];
            u(&mut counts, 0, c.flows.len() as u64);
            for col in 0..3 {
                u(&mut counts, 1 + col, m.pkts[col]);
                u(&mut counts, 4 + col, m.bytes[col]);
            }
            let vals = [
                c.cir_bps.map_or(nan, |x| x as f64),
                c.pir_bps.map_or(nan, |x| x as f64),
                thr,
                good,
                if sent > 0.0 { lost / sent } else { nan },
                target,
                fair[k],
                fair_ratio,
                jain,
            ];
            for (i, v) in vals.into_iter().enumerate() {
                f64s[i].push(v);
            }
        }
    }
    t.push("node", Column::Str(node))
        .push("input", Column::Str(input))
        .push("class", Column::Str(class))
        .push("meter", Column::Str(meter));
    let names = [
        "flows",
        "green_pkts",
        "yellow_pkts",
        "red_pkts",
        "green_bytes",
        "yellow_bytes",
        "red_bytes",
    ];
    for (n, v) in names.iter().zip(counts) {
        t.push(*n, Column::U64(v));
    }
    let names = [
        "cir_bps",
        "pir_bps",
        "throughput_bps",
        "goodput_bps",
        "loss_rate",
        "target_ratio",
        "fair_share_bps",
        "fair_share_ratio",
        "jain_index",
    ];
    for (n, v) in names.iter().zip(f64s) {
        t.push(*n, Column::F64(v));
    }
    Some(t)
}
