//! The `switch` table of a `type = "switch"` node: a combined input/output-queued (CIOQ)
//! switch (docs/switch/switch.md). Its ports are the links attached to it, in file order;
//! each link is one full-duplex port whose outgoing queue is the port's output queue.

use super::{NodeKind, QueueSpec, Scenario};
use crate::aqm::{Limit, QueueCtx};
use crate::check::{inner, tagged_table, Problems, MAX_PACKET};
use crate::switch::sched::SchedulerSpec;
use crate::units::Bytes;
use serde::{Deserialize, Deserializer, Serialize};

/// Ports of one switch at most: VOQs are n², and port indices travel as u16.
pub const MAX_PORTS: usize = 256;
/// Largest speedup: far beyond an output-queued switch (s = n) of MAX_PORTS ports.
pub const MAX_SPEEDUP: f64 = 1024.0;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SwitchSpec {
    /// The fabric's rate relative to a port's line rate R.
    pub speedup: f64,
    #[serde(default)]
    pub inputs: Inputs,
    /// The input queues: one per VOQ, or one FIFO per input port; any AQM.
    pub input_queue: QueueSpec,
    #[serde(default)]
    pub input_buffer: InputBuffer,
    pub fabric: FabricSpec,
    /// Sample every input queue (VOQ or FIFO) at each `sample_interval` into the
    /// `switch_input_timeseries` table.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trace_inputs: Option<bool>,
}

/// How an input port queues what waits for the fabric.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Inputs {
    /// One virtual output queue per (input, output) pair.
    #[default]
    Voq,
    /// One FIFO per input: its head-of-line packet blocks the packets behind it.
    Fifo,
}

/// What `input_queue`'s limit bounds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum InputBuffer {
    /// Each VOQ has the limit (the CIOQ paper's ns-2 model: one ns-2 link queue per VOQ).
    #[default]
    PerVoq,
    /// The limit is shared by all the VOQs of one input port.
    PerPort,
}

/// The switching fabric between the input and the output queues.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum FabricSpec {
    /// The CIOQ paper's model (Sec. V-A): n² internal links of rate s·R/n, all at once.
    Links,
    /// A crossbar at rate s·R, in phases of one `cell` time, scheduled in packet mode by a
    /// matching algorithm (`sim/crossbar.rs`).
    Crossbar {
        scheduler: SchedulerSpec,
        cell: Bytes,
    },
}

pub const FABRIC_TYPES: &[&str] = &["links", "crossbar"];

fn default_cell() -> Bytes {
    Bytes(64)
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CrossbarFields {
    scheduler: SchedulerSpec,
    #[serde(default = "default_cell")]
    cell: Bytes,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct NoFields {}

impl<'de> Deserialize<'de> for FabricSpec {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let (ty, rest) = tagged_table::<D>(d, FABRIC_TYPES)?;
        match ty.as_str() {
            "links" => inner::<NoFields, D::Error>(rest).map(|_| FabricSpec::Links),
            "crossbar" => inner::<CrossbarFields, D::Error>(rest).map(|c| FabricSpec::Crossbar {
                scheduler: c.scheduler,
                cell: c.cell,
            }),
            _ => unreachable!("tagged_table checked the type"),
        }
    }
}

impl SwitchSpec {
    /// The rate (bits/s) at which one input queue drains into the fabric, for ports of
    /// line rate `r_bps`: s·R/n over one internal link, s·R through a crossbar. Rounded to
    /// a whole bit per second.
    pub fn drain_bps(&self, r_bps: u64, n: usize) -> u64 {
        let bps = match self.fabric {
            FabricSpec::Links => self.speedup * r_bps as f64 / n.max(1) as f64,
            FabricSpec::Crossbar { .. } => self.speedup * r_bps as f64,
        };
        (bps.round() as u64).max(1)
    }

    /// Input queues of a switch of `n` ports: n² VOQs or n FIFOs.
    pub fn input_queues(&self, n: usize) -> usize {
        match self.inputs {
            Inputs::Voq => n * n,
            Inputs::Fifo => n,
        }
    }

    /// The buffer limit of each input queue (per port: each VOQ may hold the whole port's).
    pub fn input_limit(&self) -> Option<Limit> {
        self.input_queue.limit()
    }
}

/// The links attached to node `name`, in file order: its ports.
pub fn port_links(s: &Scenario, name: &str) -> Vec<usize> {
    (s.links.iter().enumerate())
        .filter(|(_, l)| l.a == name || l.b == name)
        .map(|(i, _)| i)
        .collect()
}

/// Checks every switch node: the table is present exactly on switches, the ports agree on
/// their rate, the speedup is a positive number, and the input queue is valid for the rate
/// at which it drains.
pub(super) fn validate_switches(
    s: &Scenario,
    p: &mut Problems,
    queue: &mut dyn FnMut(&mut Problems, &str, &QueueSpec, &QueueCtx),
) {
    let names = s.names();
    for (k, n) in s.nodes.iter().enumerate() {
        let a = format!("nodes[{k}].switch");
        let spec = match (&n.switch, n.kind) {
            (None, NodeKind::Switch) => {
                p.err(a, "", "required for type = \"switch\"");
                continue;
            }
            (Some(_), NodeKind::Switch) => n.switch.as_ref().expect("matched"),
            (Some(_), kind) => {
                let kind = match kind {
                    NodeKind::Host => "host",
                    _ => "router",
                };
                p.err(
                    a,
                    format!("\"{}\"", n.name),
                    format!(
                        "only a type = \"switch\" node has a switch table; this node is a {kind}"
                    ),
                );
                continue;
            }
            (None, _) => continue,
        };
        let ports = port_links(s, &n.name);
        if ports.len() < 2 || ports.len() > MAX_PORTS {
            p.err(
                format!("nodes[{k}]"),
                format!("\"{}\"", n.name),
                format!(
                    "a switch needs 2 to {MAX_PORTS} ports (links attached to it); it has {}",
                    ports.len()
                ),
            );
        }
        let r = ports.first().map(|&l| s.links[l].bandwidth.0).unwrap_or(0);
        for &l in ports.iter().skip(1) {
            let b = s.links[l].bandwidth.0;
            if b != r {
                p.err(
                    format!("links[{l}].bandwidth"),
                    format!("\"{}\"", crate::units::format_rate(b)),
                    format!(
                        "every port of switch \"{}\" must have one line rate; links[{}] has \"{}\"",
                        n.name,
                        ports[0],
                        crate::units::format_rate(r)
                    ),
                );
            }
        }
        if !(spec.speedup.is_finite() && spec.speedup > 0.0 && spec.speedup <= MAX_SPEEDUP) {
            p.err(
                format!("{a}.speedup"),
                spec.speedup,
                format!("must be a number in (0, {MAX_SPEEDUP}] (fabric rate / line rate)"),
            );
        }
        let multi = !spec.input_queue.aqm.is_fifo();
        if multi && (spec.inputs == Inputs::Fifo || spec.input_buffer == InputBuffer::PerPort) {
            p.err(
                format!("{a}.input_queue.aqm.type"),
                format!("\"{}\"", spec.input_queue.aqm.kind()),
                "a multi-queue input needs inputs = \"voq\" and input_buffer = \"per_voq\" \
                 (it keeps its own buffer)",
            );
        }
        if spec.inputs == Inputs::Fifo && spec.input_buffer == InputBuffer::PerPort {
            p.err(
                format!("{a}.input_buffer"),
                "\"per_port\"",
                "only with inputs = \"voq\" (a FIFO input is one buffer already)",
            );
        }
        let n_ports = ports.len().max(1);
        let bps = if spec.speedup.is_finite() && spec.speedup > 0.0 {
            spec.drain_bps(r.max(1), n_ports)
        } else {
            r.max(1)
        };
        let q = &spec.input_queue;
        queue(p, &format!("{a}.input_queue"), q, &q.ctx(bps, &names));
        if let FabricSpec::Crossbar { scheduler, cell } = &spec.fabric {
            scheduler.check(&format!("{a}.fabric.scheduler"), n_ports, p);
            if cell.0 == 0 || cell.0 > MAX_PACKET {
                p.err(
                    format!("{a}.fabric.cell"),
                    cell.0,
                    format!("must be in [1, {MAX_PACKET}] bytes"),
                );
            }
        }
    }
}
