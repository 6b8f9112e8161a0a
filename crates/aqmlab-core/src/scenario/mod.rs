//! Scenarios: a tagged, versioned TOML schema, parsed once and validated once at the edge.
//!
//! Parsing (serde) rejects unknown keys and wrong types; `validate` then checks values,
//! cross-field constraints and references, and reports *every* problem it finds, each with
//! the field path, the offending value and what is allowed
//! (`links[2].queue.limit_pkts = 0: must be at least 1`). Nothing is clamped.
//! Python dicts are written as TOML text and take exactly the same path, and `to_toml`
//! echoes the canonical form (units normalised, defaults written out except the optional
//! `sample_interval` and `stop`, whose defaults depend on the duration, and
//! `sample_queues = "auto"`), so
//! builder == file == echo is testable.

mod capture;
mod conditioners;
pub(crate) mod flow;
mod flow_tcp;
mod json;
mod link;
mod probe;
mod profile;
pub mod repeat;
mod sampling;
pub mod switch;

pub use crate::aqm::AqmSpec;
use crate::aqm::{Limit, QueueCtx};
use crate::check::{inner, tagged_table, Field, Item, Problems, INNER, MAX_PACKET, MAX_TIME};
pub(crate) use crate::check::{integer_range_message, narrower_range};
pub use crate::queue::buffer::BufferSpec;
use crate::units::{Bytes, Duration, Rate, Time};
pub use flow::*;
use serde::{Deserialize, Deserializer, Serialize};
use std::borrow::Cow;
use std::collections::hash_map::Entry;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::fmt::{self, Write};

pub const SCHEMA_VERSION: u32 = 1;

pub use crate::check::{ScenarioError, ScenarioErrors};
pub use capture::{CaptureAt, CaptureSpec, DEFAULT_SNAPLEN, MAX_SNAPLEN};
pub use profile::{Profile, Val, PROFILES};
pub use sampling::{SampleQueues, AUTO_ALL_LINKS};

// ---------------------------------------------------------------------------------------
// Schema
// ---------------------------------------------------------------------------------------

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    pub schema_version: u32,
    /// The named defaults this scenario runs with (`profile.rs`); written out only when it
    /// is not aqmlab's own.
    #[serde(default, skip_serializing_if = "Profile::is_default")]
    pub profile: Profile,
    pub simulation: Simulation,
    #[serde(default)]
    pub nodes: Vec<NodeSpec>,
    #[serde(default)]
    pub links: Vec<LinkSpec>,
    #[serde(default)]
    pub flows: Vec<FlowSpec>,
    /// Packet captures of link directions (`capture.rs`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub captures: Vec<CaptureSpec>,
    /// `[[repeat]]` tables are expanded into nodes, links and flows before the document is
    /// read (`repeat.rs`); what stays is where each expanded entry came from, so that
    /// messages name the template and the copy. Never written: the canonical form is the
    /// expanded one.
    #[serde(default, skip_serializing)]
    pub repeat: repeat::Origins,
}

fn default_seed() -> u64 {
    1
}
pub(crate) fn zero() -> Duration {
    Duration(0)
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Simulation {
    /// Simulated time at which the run stops.
    pub duration: Duration,
    /// Statistics restart at this time; earlier events are excluded from every summary.
    #[serde(default = "zero")]
    pub warmup: Duration,
    #[serde(default = "default_seed")]
    pub seed: u64,
    /// Replication index: independent streams of the same seed.
    #[serde(default)]
    pub run: u64,
    /// Time-series sampling period; default duration / 1000.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sample_interval: Option<Duration>,
    /// The queues sampled (`sampling.rs`).
    #[serde(default, skip_serializing_if = "SampleQueues::is_auto")]
    pub sample_queues: SampleQueues,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NodeKind {
    Host,
    Router,
    /// A CIOQ switch: input queues, a fabric, output queues (`switch.rs`).
    Switch,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NodeSpec {
    pub name: String,
    #[serde(rename = "type")]
    pub kind: NodeKind,
    /// DiffServ edge conditioners (routers only): classify, meter and colour arrivals.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub conditioners: Vec<crate::diffserv::ConditionerSpec>,
    /// The switch's model (switches only, required there).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub switch: Option<switch::SwitchSpec>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinkSpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    pub a: String,
    pub b: String,
    pub bandwidth: Rate,
    /// The b→a rate, when it differs from `bandwidth` (an asymmetric access link).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reverse_bandwidth: Option<Rate>,
    pub delay: Duration,
    /// Per-packet loss on the wire, applied independently in each direction.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub loss: Option<LossSpec>,
    /// The output queue of the a→b direction (and of b→a unless `reverse_queue` is given).
    pub queue: QueueSpec,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reverse_queue: Option<QueueSpec>,
    /// Capture both directions over the whole run with the default snapshot length.
    #[serde(default, skip_serializing_if = "capture::is_false")]
    pub capture: bool,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct QueueSpec {
    /// Waiting packets, excluding the one on the wire (K = limit_pkts + 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit_pkts: Option<u32>,
    /// Waiting bytes, excluding the packet on the wire.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit_bytes: Option<Bytes>,
    #[serde(default)]
    pub aqm: BufferSpec,
}

impl QueueSpec {
    /// The buffer's capacity, if exactly one limit is given (validation requires it).
    pub fn limit(&self) -> Option<Limit> {
        match (self.limit_pkts, self.limit_bytes) {
            (Some(p), None) => Some(Limit::Packets(p)),
            (None, Some(b)) => Some(Limit::Bytes(b.0)),
            _ => None,
        }
    }

    /// What the queue's AQM may know of its port, to check and build itself.
    pub fn ctx<'a>(&self, link_bps: u64, names: &'a Names<'a>) -> QueueCtx<'a> {
        QueueCtx {
            limit_pkts: self.limit_pkts,
            limit_bytes: self.limit_bytes,
            link_bps,
            nodes: &names.nodes,
            hosts: &names.hosts,
        }
    }
}

// AQM specs live beside their algorithms (crate::aqm); queue buffers in crate::queue::buffer.

/// Per-packet loss on a link direction.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum LossSpec {
    /// Each packet is lost independently with probability p.
    Bernoulli { p: f64 },
    /// Two-state Markov chain evaluated once per packet: from Good to Bad with probability
    /// p_gb, Bad to Good with p_bg; a packet is lost with loss_good or loss_bad.
    GilbertElliott {
        p_gb: f64,
        p_bg: f64,
        loss_good: f64,
        loss_bad: f64,
    },
    /// Deterministic, for tests: the k-th *data* packet (0-based; ACKs are not counted)
    /// transmitted in each direction is dropped if k is in `drop`, or marked CE if k is in
    /// `mark` and the packet is ECN-capable (ns-3's ListErrorModel, plus marks).
    Scripted { drop: Vec<u64>, mark: Vec<u64> },
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ScriptedParams {
    #[serde(default)]
    drop: Vec<u64>,
    #[serde(default)]
    mark: Vec<u64>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct BernoulliParams {
    p: f64,
}

fn default_loss_bad() -> f64 {
    1.0
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct GilbertParams {
    p_gb: f64,
    p_bg: f64,
    #[serde(default)]
    loss_good: f64,
    #[serde(default = "default_loss_bad")]
    loss_bad: f64,
}

impl<'de> Deserialize<'de> for LossSpec {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let (ty, rest) = tagged_table::<D>(d, &["bernoulli", "gilbert_elliott", "scripted"])?;
        match ty.as_str() {
            "bernoulli" => {
                inner::<BernoulliParams, D::Error>(rest).map(|b| LossSpec::Bernoulli { p: b.p })
            }
            "gilbert_elliott" => {
                inner::<GilbertParams, D::Error>(rest).map(|g| LossSpec::GilbertElliott {
                    p_gb: g.p_gb,
                    p_bg: g.p_bg,
                    loss_good: g.loss_good,
                    loss_bad: g.loss_bad,
                })
            }
            "scripted" => inner::<ScriptedParams, D::Error>(rest).map(|s| LossSpec::Scripted {
                drop: s.drop,
                mark: s.mark,
            }),
            _ => unreachable!("tagged_table checked the type"),
        }
    }
}

// ---------------------------------------------------------------------------------------
// Tagged tables: `type` selects a struct whose own unknown keys are errors, and errors
// inside keep their path (serde's internally tagged enums lose it).
// ---------------------------------------------------------------------------------------

// ---------------------------------------------------------------------------------------
// Parsing
// ---------------------------------------------------------------------------------------

/// Parses a scenario (syntax, types, unknown keys), without validating: TOML text, or a JSON
/// object (how Python passes the dicts it builds, `json.rs`). A TOML document cannot start
/// with `{`, a JSON object must.
pub fn parse(text: &str) -> Result<Scenario, ScenarioErrors> {
    // Most documents read without error, and for them keeping the path to every key (what
    // `from_table` does for its messages) is a fifth of the cost of a large scenario: read
    // first without it, and if that fails, again with it, from the text.
    if let Some(s) = untracked(document(text)?) {
        return Ok(s);
    }
    from_table(document(text)?)
}

/// The document of TOML text or of a JSON object.
fn document(text: &str) -> Result<toml::Table, ScenarioErrors> {
    if text.trim_start().starts_with('{') {
        return json::document(text);
    }
    text.parse::<toml::Table>().map_err(|e| {
        ScenarioErrors(vec![ScenarioError {
            path: String::new(),
            value: String::new(),
            message: format!("TOML syntax error: {}", e.to_string().trim()),
        }])
    })
}

/// `parse` of a document built without text (the binding reads a Python dict straight into
/// one): the scenario if it reads without error; otherwise `None`, and `parse` of the text
/// says what is wrong and where.
pub fn parse_document(doc: toml::Table) -> Option<Scenario> {
    untracked(doc)
}

/// Top-level keys resolved on the document before it is read (`repeat::expand`,
/// `profile::apply`): a source with any of them goes to `parse_document`, not `parse_direct`.
pub const DOCUMENT_KEYS: [&str; 2] = ["repeat", "profile"];

/// `parse` of a scenario deserialized straight from its source (the binding reads a Python
/// dict's objects so), for a source with none of `DOCUMENT_KEYS` that gives serde what a
/// document would: then `untracked` is exactly this. `None` if it does not read.
pub fn parse_direct<'de, D: Deserializer<'de>>(source: D) -> Option<Scenario> {
    Scenario::deserialize(source).ok()
}

/// What `from_table` reads from `doc` if it reads without error.
fn untracked(mut doc: toml::Table) -> Option<Scenario> {
    let origins = repeat::expand(&mut doc).ok()?;
    profile::apply(&mut doc);
    let mut s = Scenario::deserialize(toml::Value::Table(doc)).ok()?;
    s.repeat = origins;
    Some(s)
}

/// Reads a parsed document (TOML text, or JSON from Python, `json::table`) into a scenario.
/// A profile's defaults are filled into the document first, then it is read as if the user
/// had written them: one reading path, the same messages.
pub fn from_table(mut doc: toml::Table) -> Result<Scenario, ScenarioErrors> {
    let origins = repeat::expand(&mut doc)?;
    profile::apply(&mut doc);
    let de = toml::Value::Table(doc);
    let mut s = serde_path_to_error::deserialize::<_, Scenario>(de).map_err(|e| {
        let outer = e.path().to_string();
        let raw = e.into_inner().message().trim().to_string();
        let (path, value, message) = match raw.strip_prefix(INNER) {
            Some(rest) => {
                let mut parts = rest.splitn(3, INNER);
                let (p, v, m) = (
                    parts.next().unwrap_or(""),
                    parts.next().unwrap_or(""),
                    parts.next().unwrap_or(""),
                );
                let path = match (outer.as_str(), p) {
                    (".", p) => p.to_string(),
                    (o, "") | (o, ".") => o.to_string(),
                    (o, p) => format!("{o}.{p}"),
                };
                (path, v.to_string(), m.to_string())
            }
            None => (
                if outer == "." { String::new() } else { outer },
                String::new(),
                raw,
            ),
        };
        let message = narrower_range(&path, integer_range_message(&message));
        origins.locate(ScenarioErrors(vec![ScenarioError {
            path,
            value,
            message,
        }]))
    })?;
    s.repeat = origins;
    Ok(s)
}

/// A scenario that passed `validate`, with what the checks resolved: the simulator builds
/// from it and never looks a name up again.
pub struct Checked<'a> {
    pub scenario: &'a Scenario,
    /// The (a, b) node indices of each link.
    pub link_ends: Vec<(u32, u32)>,
    /// The (src, dst) node indices of each flow.
    pub flow_ends: Vec<(u32, u32)>,
    /// Each link's forward and reverse buffer capacity.
    pub limits: Vec<(Limit, Limit)>,
    /// Each flow's open-loop pattern (`None` for TCP).
    pub sources: Vec<Option<OpenLoop>>,
    /// Each switch's input-queue limit, in node order.
    pub input_limits: Vec<Limit>,
    /// Each conditioner's input channel and classes, in node order.
    pub conditioners: Vec<crate::diffserv::ConditionerRefs>,
}

/// Parses and validates.
pub fn load(text: &str) -> Result<Scenario, ScenarioErrors> {
    let s = parse(text)?;
    s.validate()?;
    Ok(s)
}

/// The scenario's node names by index, and its hosts' names: what AQMs that classify by
/// host (DRIO, URIO) check their patterns against and resolve them over.
pub struct Names<'a> {
    pub nodes: Vec<&'a str>,
    pub hosts: Vec<&'a str>,
}

impl Scenario {
    pub fn names(&self) -> Names<'_> {
        Names {
            nodes: self.nodes.iter().map(|n| n.name.as_str()).collect(),
            hosts: self
                .nodes
                .iter()
                .filter(|n| n.kind == NodeKind::Host)
                .map(|n| n.name.as_str())
                .collect(),
        }
    }

    /// The canonical TOML form: units normalised, defaults written out (except the optional
    /// fields whose default depends on `duration`).
    pub fn to_toml(&self) -> String {
        toml::to_string(self).expect("a parsed scenario always serialises")
    }

    pub fn sample_interval(&self) -> Time {
        self.simulation
            .sample_interval
            .map(|d| d.0)
            .unwrap_or((self.simulation.duration.0 / 1000).max(1))
    }

    /// The forwarding table of this topology (hosts never relay).
    pub fn routes(&self) -> crate::routing::Routes {
        self.routes_over(&self.link_ends())
    }

    fn routes_over(&self, ends: &[Option<(usize, usize)>]) -> crate::routing::Routes {
        let relays: Vec<bool> = self
            .nodes
            .iter()
            .map(|n| n.kind != NodeKind::Host)
            .collect();
        crate::routing::Routes::build(&relays, ends)
    }

    /// Each node's index by name; of nodes sharing a name (an error), the first.
    pub fn node_indices(&self) -> HashMap<&str, usize> {
        let mut index = HashMap::with_capacity(self.nodes.len());
        for (i, n) in self.nodes.iter().enumerate() {
            index.entry(n.name.as_str()).or_insert(i);
        }
        index
    }

    /// The (a, b) node indices of each link (None if a name is unknown).
    pub(crate) fn link_ends(&self) -> Vec<Option<(usize, usize)>> {
        let index = self.node_indices();
        let idx = |name: &str| index.get(name).copied();
        (self.links.iter())
            .map(|l| Some((idx(&l.a)?, idx(&l.b)?)))
            .collect()
    }

    /// Checks everything that parsing cannot: values, cross-field rules, references, routes,
    /// and returns the scenario with what the checks resolved, for the simulator to build.
    pub fn validate(&self) -> Result<Checked<'_>, ScenarioErrors> {
        let ends = self.link_ends();
        let mut v = Validator::default();
        v.scenario(self, &ends);
        match self.resolve(&ends) {
            Some(checked) if v.p.is_empty() => Ok(checked),
            _ => Err(self.repeat.locate(ScenarioErrors(v.p.errors))),
        }
    }

    /// What the checks resolved (`None` where something does not: the checks report it).
    fn resolve(&self, ends: &[Option<(usize, usize)>]) -> Option<Checked<'_>> {
        let index = self.node_indices();
        let idx = |name: &str| index.get(name).map(|&i| i as u32);
        let limits = |l: &LinkSpec| {
            let reverse = l.reverse_queue.as_ref().unwrap_or(&l.queue);
            Some((l.queue.limit()?, reverse.limit()?))
        };
        Some(Checked {
            scenario: self,
            link_ends: (ends.iter())
                .map(|e| e.map(|(a, b)| (a as u32, b as u32)))
                .collect::<Option<_>>()?,
            flow_ends: (self.flows.iter())
                .map(|f| Some((idx(&f.src)?, idx(&f.dst)?)))
                .collect::<Option<_>>()?,
            limits: self.links.iter().map(limits).collect::<Option<_>>()?,
            sources: (self.flows.iter())
                .map(FlowSpec::open_loop)
                .collect::<Option<_>>()?,
            input_limits: (self.nodes.iter())
                .filter_map(|n| n.switch.as_ref())
                .map(switch::SwitchSpec::input_limit)
                .collect::<Option<_>>()?,
            conditioners: conditioners::resolve(self)?,
        })
    }
}

// ---------------------------------------------------------------------------------------
// Validation
// ---------------------------------------------------------------------------------------

#[derive(Default)]
struct Validator {
    p: Problems,
}

impl std::ops::Deref for Validator {
    type Target = Problems;
    fn deref(&self) -> &Problems {
        &self.p
    }
}

impl std::ops::DerefMut for Validator {
    fn deref_mut(&mut self) -> &mut Problems {
        &mut self.p
    }
}

impl Validator {
    /// Names become result labels and RNG stream paths (`flows/<name>`), and queue names
    /// are `from->to`: a small alphabet keeps all of those unambiguous.
    fn name<'s>(
        &mut self,
        path: impl fmt::Display,
        name: &'s str,
        seen: &mut HashSet<&'s str>,
        what: &str,
    ) {
        let ok = |c: char| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | ':');
        if name.is_empty() || !name.chars().all(ok) {
            self.err(
                path.to_string(),
                format!("\"{name}\""),
                "must be non-empty and use only ASCII letters, digits, '_', '-', '.' and ':'",
            );
        } else if !seen.insert(name) {
            self.err(
                path.to_string(),
                format!("\"{name}\""),
                format!("duplicate {what} name; names must be unique"),
            );
        }
    }

    /// `ends`: each link's (a, b) node indices, as `Scenario::link_ends` resolves them.
    fn scenario(&mut self, s: &Scenario, ends: &[Option<(usize, usize)>]) {
        if s.schema_version != SCHEMA_VERSION {
            self.err(
                "schema_version",
                s.schema_version,
                format!("unsupported; this aqmlab reads {SCHEMA_VERSION}"),
            );
        }
        let sim = &s.simulation;
        if sim.duration.0 == 0 {
            self.err("simulation.duration", "\"0ns\"", "must be > 0");
        }
        self.time_at_most("simulation.duration", sim.duration);
        if sim.warmup.0 >= sim.duration.0 && sim.duration.0 > 0 {
            self.err(
                "simulation.warmup",
                format!("\"{}\"", crate::units::format_time(sim.warmup.0)),
                format!(
                    "must be < simulation.duration = \"{}\"",
                    crate::units::format_time(sim.duration.0)
                ),
            );
        }
        self.sampling(s, ends);
        self.captures(s, ends);

        let mut names = HashSet::new();
        for (i, n) in s.nodes.iter().enumerate() {
            self.name(
                Field(&Item("nodes", i), "name"),
                &n.name,
                &mut names,
                "node",
            );
        }
        if s.nodes.is_empty() {
            self.err("nodes", "[]", "a scenario needs at least one node");
        }
        // Of nodes sharing a name (an error), the last.
        let index: HashMap<&str, usize> = s
            .nodes
            .iter()
            .enumerate()
            .map(|(i, n)| (n.name.as_str(), i))
            .collect();

        let names = s.names();
        let mut link_names = HashSet::new();
        let mut pairs = BTreeMap::new();
        // The queues' paths, built in place: a large scenario has thousands.
        let mut path = String::new();
        for (i, l) in s.links.iter().enumerate() {
            let p = Item("links", i);
            if let Some(name) = &l.name {
                self.name(Field(&p, "name"), name, &mut link_names, "link");
            }
            let a = self.node_ref(Field(&p, "a"), &l.a, &index);
            let b = self.node_ref(Field(&p, "b"), &l.b, &index);
            if let (Some(a), Some(b)) = (a, b) {
                if a == b {
                    self.err(
                        format!("{p}.b"),
                        format!("\"{}\"", l.b),
                        "must differ from a (no self-loops)",
                    );
                } else if let Some(j) = pairs.insert((a.min(b), a.max(b)), i) {
                    self.err(
                        format!("{p}.b"),
                        format!("\"{}\"", l.b),
                        format!("links[{j}] already joins \"{}\" and \"{}\"; parallel links are not supported", l.a, l.b),
                    );
                }
            }
            self.time_at_most(Field(&p, "delay"), l.delay);
            if l.bandwidth.0 == 0 {
                self.err(format!("{p}.bandwidth"), "\"0bps\"", "must be > 0");
            }
            match &l.loss {
                None => {}
                Some(LossSpec::Bernoulli { p: q }) => self.probability(format!("{p}.loss.p"), *q),
                Some(LossSpec::Scripted { .. }) => {}
                Some(LossSpec::GilbertElliott {
                    p_gb,
                    p_bg,
                    loss_good,
                    loss_bad,
                }) => {
                    self.probability(format!("{p}.loss.p_gb"), *p_gb);
                    self.probability(format!("{p}.loss.p_bg"), *p_bg);
                    self.probability(format!("{p}.loss.loss_good"), *loss_good);
                    self.probability(format!("{p}.loss.loss_bad"), *loss_bad);
                    if *p_gb > 0.0 && *p_bg == 0.0 {
                        self.err(
                            format!("{p}.loss.p_bg"),
                            p_bg,
                            "must be > 0 when p_gb > 0 (the Bad state would absorb)",
                        );
                    }
                }
            }
            let bps = l.bandwidth.0;
            path.clear();
            write!(path, "{p}.queue").expect("a String takes any text");
            let mark = self.p.errors.len();
            self.queue(&path, &l.queue, &l.queue.ctx(bps, &names));
            let reverse = l.reverse_queue.as_ref().map(|q| (q, "reverse_queue"));
            // A link with its own b→a rate checks the queue that serves it at that rate.
            let reverse = reverse.or(l.reverse_bandwidth.map(|_| (&l.queue, "queue")));
            if let Some((q, key)) = reverse {
                path.clear();
                write!(path, "{p}.{key}").expect("a String takes any text");
                self.queue(&path, q, &q.ctx(l.bps(false), &names));
                link::dedup_from(&mut self.p, mark);
            }
            link::check(s, i, &mut self.p);
        }

        // Unnamed links are labelled "a-b"; with '-' allowed in node names two links could
        // get one label (and so one RNG stream path).
        let mut labels: HashMap<Cow<str>, usize> = HashMap::with_capacity(s.links.len());
        for (i, l) in s.links.iter().enumerate() {
            let label = match &l.name {
                Some(name) => Cow::Borrowed(name.as_str()),
                None => Cow::Owned([l.a.as_str(), "-", &l.b].concat()),
            };
            let previous = match labels.entry(label) {
                Entry::Occupied(mut e) => Some((e.insert(i), e.key().clone())),
                Entry::Vacant(e) => {
                    e.insert(i);
                    None
                }
            };
            if let Some((j, label)) = previous {
                if l.name.is_none() || s.links[j].name.is_none() {
                    self.err(
                        format!("links[{i}]"),
                        format!("\"{label}\""),
                        format!(
                            "this link's label (its name, or \"a-b\" when unnamed) is also links[{j}]'s; \
                             give one of them a distinct `name`"
                        ),
                    );
                }
            }
        }

        conditioners::validate_conditioners(s, &mut self.p);
        switch::validate_switches(s, &mut self.p, &mut |p, path, q, ctx| {
            Validator::queue_into(p, path, q, ctx)
        });

        let routes = s.routes_over(ends);
        let mut flow_names = HashSet::new();
        let end = sim.duration.0;
        for (i, f) in s.flows.iter().enumerate() {
            let p = Item("flows", i).to_string();
            self.name(Field(&p, "name"), &f.name, &mut flow_names, "flow");
            let src = self.host_ref(Field(&p, "src"), &f.src, &index, s);
            let dst = self.host_ref(Field(&p, "dst"), &f.dst, &index, s);
            if let (Some(a), Some(b)) = (src, dst) {
                if a == b {
                    self.err(
                        format!("{p}.dst"),
                        format!("\"{}\"", f.dst),
                        "must differ from src",
                    );
                } else if let Some((k, dir, limit)) =
                    self.byte_limit_below(s, ends, &routes, a, b, f.packet_size.0)
                {
                    self.err(
                        format!("{p}.packet_size"),
                        f.packet_size.0,
                        format!(
                            "exceeds links[{k}].{dir}.limit_bytes = {limit} on the route to \"{}\": \
                             such packets can never be queued",
                            f.dst
                        ),
                    );
                } else if routes.next_channel(a, b) == crate::routing::NO_ROUTE {
                    self.err(
                        format!("{p}.dst"),
                        format!("\"{}\"", f.dst),
                        format!(
                            "no route from \"{}\" (routes may not pass through hosts)",
                            f.src
                        ),
                    );
                }
            }
            if f.packet_size.0 == 0 || f.packet_size.0 > MAX_PACKET {
                self.err(
                    format!("{p}.packet_size"),
                    f.packet_size.0,
                    format!("must be in [1, {MAX_PACKET}] bytes"),
                );
            }
            if let Some(stop) = f.stop {
                if stop.0 > end && end > 0 && end <= MAX_TIME {
                    self.err(
                        format!("{p}.stop"),
                        format!("\"{}\"", crate::units::format_time(stop.0)),
                        format!(
                            "must be <= simulation.duration = \"{}\" (omit stop to send until the end)",
                            crate::units::format_time(end)
                        ),
                    );
                } else if stop.0 <= f.start.0 {
                    self.err(
                        format!("{p}.stop"),
                        format!("\"{}\"", crate::units::format_time(stop.0)),
                        format!(
                            "must be > start = \"{}\"",
                            crate::units::format_time(f.start.0)
                        ),
                    );
                }
            }
            if f.start.0 >= end && end > 0 {
                self.err(
                    format!("{p}.start"),
                    format!("\"{}\"", crate::units::format_time(f.start.0)),
                    "must be < simulation.duration",
                );
            }
            f.check_kind(&p, &mut self.p);
        }
    }

    fn queue(&mut self, p: &str, q: &QueueSpec, ctx: &QueueCtx) {
        Self::queue_into(&mut self.p, p, q, ctx)
    }

    fn queue_into(pr: &mut Problems, p: &str, q: &QueueSpec, ctx: &QueueCtx) {
        match (q.limit_pkts, q.limit_bytes) {
            (Some(_), Some(_)) => pr.err(
                format!("{p}.limit_bytes"),
                "",
                "limit_pkts and limit_bytes are mutually exclusive; give one",
            ),
            (None, None) => pr.err(
                format!("{p}.limit_pkts"),
                "",
                "one of limit_pkts or limit_bytes is required",
            ),
            (Some(0), None) => pr.err(format!("{p}.limit_pkts"), 0, "must be at least 1"),
            (None, Some(b)) if b.0 == 0 => {
                pr.err(format!("{p}.limit_bytes"), 0, "must be at least 1")
            }
            _ => {}
        }
        q.aqm.validate(&[p, ".aqm"].concat(), ctx, pr);
    }

    /// The first queue with a byte limit smaller than `size` on the route from `a` to `b`:
    /// (link index, "queue" or "reverse_queue", limit).
    fn byte_limit_below(
        &self,
        s: &Scenario,
        ends: &[Option<(usize, usize)>],
        routes: &crate::routing::Routes,
        a: usize,
        b: usize,
        size: u64,
    ) -> Option<(usize, &'static str, u64)> {
        let mut node = a;
        for _ in 0..s.nodes.len() {
            if node == b {
                return None;
            }
            let ch = routes.next_channel(node, b);
            if ch == crate::routing::NO_ROUTE {
                return None;
            }
            let (k, forward) = ((ch / 2) as usize, ch % 2 == 0);
            let l = &s.links[k];
            let (dir, q) = match (forward, &l.reverse_queue) {
                (false, Some(rq)) => ("reverse_queue", rq),
                _ => ("queue", &l.queue),
            };
            if let (None, Some(limit)) = (q.limit_pkts, q.limit_bytes) {
                if limit.0 > 0 && limit.0 < size {
                    return Some((k, dir, limit.0));
                }
            }
            let (la, lb) = ends[k]?;
            node = if forward { lb } else { la };
        }
        None
    }

    fn node_ref(
        &mut self,
        path: impl fmt::Display,
        name: &str,
        index: &HashMap<&str, usize>,
    ) -> Option<usize> {
        let r = index.get(name).copied();
        if r.is_none() {
            self.err(
                path.to_string(),
                format!("\"{name}\""),
                "no node has this name",
            );
        }
        r
    }

    fn host_ref(
        &mut self,
        path: impl fmt::Display + Copy,
        name: &str,
        index: &HashMap<&str, usize>,
        s: &Scenario,
    ) -> Option<usize> {
        let i = self.node_ref(path, name, index)?;
        if s.nodes[i].kind != NodeKind::Host {
            self.err(
                path.to_string(),
                format!("\"{name}\""),
                "must be a host (traffic starts and ends at hosts)",
            );
            return None;
        }
        Some(i)
    }
}
