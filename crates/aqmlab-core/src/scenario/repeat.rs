//! `[[repeat]]`: many similar nodes, links and flows written once (issue 15: 10 000 flows
//! behind one router should not take 10 000 tables in a file).
//!
//! A repeat holds templates (`nodes`, `links`, `flows`: the tables of the top level) and a
//! `count`; copy `i` (0 ≤ i < count) of every template has `{i}` replaced by `i` in every
//! string value, and two generator tables turned into durations: `{ from, step }` gives
//! `from + i·step`, `{ uniform = [lo, hi] }` a draw in [lo, hi). The expansion happens on the
//! parsed document, before `from_table` reads it, so TOML files and Python's JSON get it
//! alike and everything after (validation, the canonical echo, results) sees ordinary
//! entries. Copies are appended after the top-level entries, repeat by repeat, copy by
//! copy, each copy's entries in template order: that order fixes node, link and flow
//! indices (and so routes' tie-breaks and the order of results).
//!
//! Where an expanded entry came from is kept (`Origins`), so a problem in copy 17 of a
//! flow template is reported as `repeat[0].flows[0].packet_size (i = 17)`, not as the
//! `flows[10017]` that no file contains.

use super::integer_range_message;
use crate::check::{ScenarioError, ScenarioErrors, MAX_TIME};
use crate::rng::Rng;
use crate::units::{format_time, parse_time};
use serde::{Deserialize, Deserializer};
use std::fmt::Write;

/// The most copies one repeat makes. The engine's scale target is 10⁴ flows (2·10⁴ nodes);
/// 10⁶ copies of a node, a link and a flow already take gigabytes to build, so a larger
/// count is a typo (an extra zero or three) better refused at once than found by the
/// out-of-memory killer minutes later.
pub const MAX_COUNT: u64 = 1_000_000;

const SECTIONS: [&str; 3] = ["nodes", "links", "flows"];

fn err(path: String, value: String, message: String) -> ScenarioErrors {
    ScenarioErrors(vec![ScenarioError {
        path,
        value,
        message,
    }])
}

fn default_var() -> String {
    "i".into()
}

/// One `[[repeat]]` table as written; serde rejects unknown keys and wrong types with the
/// same messages as everywhere else.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RepeatSpec {
    /// Checked by hand: serde's range message would name 0 to 2^63 − 1.
    count: toml::Value,
    #[serde(default = "default_var")]
    var: String,
    #[serde(default)]
    nodes: Vec<toml::Table>,
    #[serde(default)]
    links: Vec<toml::Table>,
    #[serde(default)]
    flows: Vec<toml::Table>,
}

#[derive(Deserialize)]
struct Doc {
    repeat: Vec<RepeatSpec>,
}

/// A piece of a string template: literal text, or the copy's index.
enum Piece {
    Text(String),
    Index,
}

/// A template value, compiled once so that each copy only fills in `i` and draws.
enum Tpl {
    /// No placeholder or generator inside: cloned as is.
    Lit(toml::Value),
    Str(Vec<Piece>),
    Table(Vec<(String, Tpl)>),
    Array(Vec<Tpl>),
    /// `from + i·step`, nanoseconds.
    Step {
        from: u64,
        step: u64,
    },
    /// Uniform on [lo, hi), nanoseconds.
    Uniform {
        lo: u64,
        hi: u64,
    },
}

impl Tpl {
    fn is_lit(&self) -> bool {
        matches!(self, Tpl::Lit(_))
    }

    /// The field `key` of a table template if it is a string without a placeholder.
    fn fixed_str(&self, key: &str) -> Option<&str> {
        match self {
            Tpl::Lit(v) => v.get(key)?.as_str(),
            Tpl::Table(fields) => match fields.iter().find(|(k, _)| k == key)? {
                (_, Tpl::Lit(toml::Value::String(s))) => Some(s),
                _ => None,
            },
            _ => None,
        }
    }

    fn make(&self, i: u64, rng: &mut Rng) -> toml::Value {
        match self {
            Tpl::Lit(v) => v.clone(),
            Tpl::Str(pieces) => {
                let mut s = String::new();
                for p in pieces {
                    match p {
                        Piece::Text(t) => s.push_str(t),
                        Piece::Index => write!(s, "{i}").expect("writing to a String"),
                    }
                }
                toml::Value::String(s)
            }
            Tpl::Table(fields) => toml::Value::Table(
                (fields.iter())
                    .map(|(k, t)| (k.clone(), t.make(i, rng)))
                    .collect(),
            ),
            Tpl::Array(items) => toml::Value::Array(items.iter().map(|t| t.make(i, rng)).collect()),
            // `compile` checked that from + (count - 1)·step fits.
            Tpl::Step { from, step } => toml::Value::String(format_time(from + i * step)),
            Tpl::Uniform { lo, hi } => toml::Value::String(format_time(lo + rng.below(hi - lo))),
        }
    }
}

/// Compiles the templates of one repeat; `path` names the value (`repeat[0].flows[1].start`).
struct Compiler<'a> {
    var: &'a str,
    count: u64,
}

impl Compiler<'_> {
    fn value(&self, v: &toml::Value, path: &str) -> Result<Tpl, ScenarioErrors> {
        Ok(match v {
            toml::Value::String(s) => self.string(s),
            toml::Value::Table(t) if is_generator(t) => self.generator(t, path)?,
            toml::Value::Table(t) => {
                let fields = (t.iter())
                    .map(|(k, x)| Ok((k.clone(), self.value(x, &format!("{path}.{k}"))?)))
                    .collect::<Result<Vec<_>, ScenarioErrors>>()?;
                if fields.iter().all(|(_, f)| f.is_lit()) {
                    Tpl::Lit(v.clone())
                } else {
                    Tpl::Table(fields)
                }
            }
            toml::Value::Array(items) => {
                let items = (items.iter().enumerate())
                    .map(|(j, x)| self.value(x, &format!("{path}[{j}]")))
                    .collect::<Result<Vec<_>, _>>()?;
                if items.iter().all(Tpl::is_lit) {
                    Tpl::Lit(v.clone())
                } else {
                    Tpl::Array(items)
                }
            }
            _ => Tpl::Lit(v.clone()),
        })
    }

    fn string(&self, s: &str) -> Tpl {
        let mark = format!("{{{}}}", self.var);
        if !s.contains(&mark) {
            return Tpl::Lit(toml::Value::String(s.to_string()));
        }
        let mut pieces = Vec::new();
        for (j, part) in s.split(&mark).enumerate() {
            if j > 0 {
                pieces.push(Piece::Index);
            }
            if !part.is_empty() {
                pieces.push(Piece::Text(part.to_string()));
            }
        }
        Tpl::Str(pieces)
    }

    fn generator(&self, t: &toml::Table, path: &str) -> Result<Tpl, ScenarioErrors> {
        let shape = "a generator is { from = DURATION, step = DURATION } or \
                     { uniform = [DURATION, DURATION] }";
        let mut keys: Vec<&str> = t.keys().map(String::as_str).collect();
        keys.sort_unstable();
        let duration = |key: &str, v: &toml::Value| -> Result<u64, ScenarioErrors> {
            let p = format!("{path}.{key}");
            match v {
                toml::Value::String(s) => parse_time(s).map_err(|m| err(p, format!("\"{s}\""), m)),
                other => Err(err(
                    p,
                    other.to_string(),
                    "must be a duration string with a unit, like \"25us\"".into(),
                )),
            }
        };
        match keys.as_slice() {
            ["from", "step"] => {
                let from = duration("from", &t["from"])?;
                let step = duration("step", &t["step"])?;
                let last = (self.count - 1)
                    .checked_mul(step)
                    .and_then(|x| x.checked_add(from))
                    .filter(|&x| x <= MAX_TIME);
                if last.is_none() {
                    return Err(err(
                        format!("{path}.step"),
                        t["step"].to_string(),
                        format!(
                            "from + (count - 1) x step exceeds the longest duration, \"{}\"",
                            format_time(MAX_TIME)
                        ),
                    ));
                }
                Ok(Tpl::Step { from, step })
            }
            ["uniform"] => {
                let p = format!("{path}.uniform");
                let bounds = match &t["uniform"] {
                    toml::Value::Array(a) if a.len() == 2 => a,
                    other => {
                        return Err(err(
                            p,
                            other.to_string(),
                            "must be [lo, hi], two durations with lo < hi".into(),
                        ))
                    }
                };
                let lo = duration("uniform[0]", &bounds[0])?;
                let hi = duration("uniform[1]", &bounds[1])?;
                if lo >= hi || hi > MAX_TIME {
                    return Err(err(
                        p,
                        t["uniform"].to_string(),
                        format!(
                            "must be [lo, hi] with lo < hi <= \"{}\" (a draw in [lo, hi))",
                            format_time(MAX_TIME)
                        ),
                    ));
                }
                Ok(Tpl::Uniform { lo, hi })
            }
            _ => Err(err(
                path.to_string(),
                toml::Value::Table(t.clone()).to_string(),
                shape.into(),
            )),
        }
    }
}

/// A table in a template is a generator if it has any generator key: then it must be one
/// exactly (no table of the schema has these keys).
fn is_generator(t: &toml::Table) -> bool {
    ["from", "step", "uniform"]
        .iter()
        .any(|k| t.contains_key(*k))
}

/// Where the expanded entries of one section came from: a run of `count × per_copy`
/// entries from `first` on, copy by copy.
#[derive(Clone, Debug)]
struct Span {
    first: usize,
    repeat: usize,
    per_copy: usize,
    count: usize,
}

/// Where each expanded node, link and flow came from: kept with the scenario so that
/// validation's messages name the template and the copy.
#[derive(Clone, Debug, Default)]
pub struct Origins {
    spans: [Vec<Span>; 3],
    vars: Vec<String>,
}

/// Provenance, not content: a scenario written out in full and its compact form are the
/// same scenario (the canonical echo of one is the other).
impl PartialEq for Origins {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

/// `repeat` never reaches the reader (`expand` takes it out of the document first); the
/// field exists so that the top level's unknown-field message lists it.
impl<'de> Deserialize<'de> for Origins {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        serde::de::IgnoredAny::deserialize(d)?;
        Ok(Origins::default())
    }
}

impl Origins {
    /// `path` with a leading `nodes[n]`, `links[n]` or `flows[n]` of an expanded entry
    /// rewritten to its template and copy: `repeat[k].flows[j]<rest> (i = c)`.
    pub fn locate_path(&self, path: &str) -> Option<String> {
        let (s, rest) = SECTIONS
            .iter()
            .enumerate()
            .find_map(|(s, name)| Some((s, path.strip_prefix(name)?.strip_prefix('[')?)))?;
        let (digits, rest) = rest.split_once(']')?;
        let n: usize = digits.parse().ok()?;
        let spans = &self.spans[s];
        let at = spans.partition_point(|sp| sp.first <= n).checked_sub(1)?;
        let sp = &spans[at];
        let offset = n - sp.first;
        if offset >= sp.per_copy * sp.count {
            return None;
        }
        Some(format!(
            "repeat[{}].{}[{}]{rest} ({} = {})",
            sp.repeat,
            SECTIONS[s],
            offset % sp.per_copy,
            self.vars[sp.repeat],
            offset / sp.per_copy
        ))
    }

    /// The errors with every path into an expanded entry rewritten (`locate_path`).
    pub fn locate(&self, mut e: ScenarioErrors) -> ScenarioErrors {
        if self.vars.is_empty() {
            return e;
        }
        for x in &mut e.0 {
            if let Some(p) = self.locate_path(&x.path) {
                x.path = p;
            }
        }
        e
    }
}

fn int(v: Option<&toml::Value>, default: u64) -> u64 {
    v.and_then(toml::Value::as_integer)
        .map_or(default, |x| x as u64)
}

/// Reads the `repeat` tables of `doc` (the path of any problem starts at `repeat`).
fn read(raw: toml::Value) -> Result<Vec<RepeatSpec>, ScenarioErrors> {
    let mut wrapper = toml::Table::new();
    wrapper.insert("repeat".into(), raw);
    serde_path_to_error::deserialize::<_, Doc>(toml::Value::Table(wrapper))
        .map(|d| d.repeat)
        .map_err(|e| {
            let path = e.path().to_string();
            let message = integer_range_message(e.into_inner().message().trim());
            err(path, String::new(), message)
        })
}

/// One repeat, checked and compiled: its templates by section.
struct Compiled {
    count: u64,
    templates: [Vec<Tpl>; 3],
}

fn compile(k: usize, r: &RepeatSpec) -> Result<Compiled, ScenarioErrors> {
    let p = format!("repeat[{k}]");
    let count = match r.count.as_integer() {
        Some(c) if (1..=MAX_COUNT as i64).contains(&c) => c as u64,
        _ => {
            return Err(err(
                format!("{p}.count"),
                r.count.to_string(),
                format!("must be an integer from 1 to {MAX_COUNT}"),
            ))
        }
    };
    if r.var.is_empty() || !r.var.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        return Err(err(
            format!("{p}.var"),
            format!("\"{}\"", r.var),
            "must be non-empty and use only ASCII letters, digits and '_'".into(),
        ));
    }
    let c = Compiler { var: &r.var, count };
    let mut templates: [Vec<Tpl>; 3] = Default::default();
    for (s, tables) in [&r.nodes, &r.links, &r.flows].into_iter().enumerate() {
        for (j, t) in tables.iter().enumerate() {
            let path = format!("{p}.{}[{j}]", SECTIONS[s]);
            let tpl = c.value(&toml::Value::Table(t.clone()), &path)?;
            if count > 1 {
                distinct_copies(&tpl, s, &path, count, &r.var)?;
            }
            templates[s].push(tpl);
        }
    }
    Ok(Compiled { count, templates })
}

/// Copies that would all be the same node, flow or link name, or all join the same two
/// nodes, are refused here, where the message can say why (validation would report the
/// second copy as a duplicate).
fn distinct_copies(
    tpl: &Tpl,
    section: usize,
    path: &str,
    count: u64,
    var: &str,
) -> Result<(), ScenarioErrors> {
    if let Some(name) = tpl.fixed_str("name") {
        return Err(err(
            format!("{path}.name"),
            format!("\"{name}\""),
            format!(
                "has no \"{{{var}}}\": all {count} copies would be named \"{name}\" \
                 (names must be unique)"
            ),
        ));
    }
    if section == 1 {
        if let (Some(a), Some(b)) = (tpl.fixed_str("a"), tpl.fixed_str("b")) {
            return Err(err(
                path.to_string(),
                String::new(),
                format!(
                    "neither a = \"{a}\" nor b = \"{b}\" has \"{{{var}}}\": all {count} copies \
                     would join the same two nodes (parallel links are not supported)"
                ),
            ));
        }
    }
    Ok(())
}

/// Replaces `doc`'s `repeat` array by the entries it generates, appended to `nodes`, `links`
/// and `flows`; returns where each came from. Time and memory are linear in the entries
/// made. Uniform draws come from the stream `repeat/<k>` of (simulation.seed,
/// simulation.run): copy by copy, each copy's generators in template order.
pub(crate) fn expand(doc: &mut toml::Table) -> Result<Origins, ScenarioErrors> {
    let Some(raw) = doc.remove("repeat") else {
        return Ok(Origins::default());
    };
    let specs = read(raw)?;
    let compiled = (specs.iter().enumerate())
        .map(|(k, r)| compile(k, r))
        .collect::<Result<Vec<_>, _>>()?;
    // A wrong type here is the reader's to report (with its usual message); the defaults
    // only keep the expansion going until it does.
    let sim = doc.get("simulation").and_then(toml::Value::as_table);
    let seed = int(sim.and_then(|s| s.get("seed")), 1);
    let run = int(sim.and_then(|s| s.get("run")), 0);

    let mut out: [Vec<toml::Value>; 3] = Default::default();
    let mut kept: [Option<toml::Value>; 3] = Default::default();
    for (s, name) in SECTIONS.iter().enumerate() {
        match doc.remove(*name) {
            Some(toml::Value::Array(a)) => out[s] = a,
            other => kept[s] = other,
        }
    }
    let mut origins = Origins {
        vars: specs.iter().map(|r| r.var.clone()).collect(),
        ..Origins::default()
    };
    for (k, c) in compiled.iter().enumerate() {
        for (s, tpls) in c.templates.iter().enumerate() {
            if !tpls.is_empty() {
                origins.spans[s].push(Span {
                    first: out[s].len(),
                    repeat: k,
                    per_copy: tpls.len(),
                    count: c.count as usize,
                });
                out[s].reserve(tpls.len() * c.count as usize);
            }
        }
        let mut rng = Rng::for_component(seed, run, &format!("repeat/{k}"));
        for i in 0..c.count {
            for (s, tpls) in c.templates.iter().enumerate() {
                out[s].extend(tpls.iter().map(|t| t.make(i, &mut rng)));
            }
        }
    }
    for (s, name) in SECTIONS.iter().enumerate() {
        let v = kept[s]
            .take()
            .unwrap_or_else(|| toml::Value::Array(std::mem::take(&mut out[s])));
        doc.insert(name.to_string(), v);
    }
    Ok(origins)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::load;

    fn doc(text: &str) -> toml::Table {
        text.parse().unwrap()
    }

    fn strs(v: &toml::Value, key: &str) -> Vec<String> {
        (v.as_array().unwrap().iter())
            .map(|x| x[key].as_str().unwrap().to_string())
            .collect()
    }

    const HEAD: &str = "schema_version = 1\n[simulation]\nduration = \"2s\"\n\
                        sample_interval = \"100ms\"\n";

    /// Three sender/receiver pairs behind r1 and r2, TCP from s_i to d_i starting 10 ms
    /// apart: once with `[[repeat]]`, once written out.
    fn pairs_compact() -> String {
        format!(
            r#"{HEAD}
[[nodes]]
name = "r1"
type = "router"
[[nodes]]
name = "r2"
type = "router"
[[links]]
name = "bottleneck"
a = "r1"
b = "r2"
bandwidth = "10Mbps"
delay = "10ms"
queue = {{ limit_pkts = 20 }}

[[repeat]]
count = 3
[[repeat.nodes]]
name = "s{{i}}"
type = "host"
[[repeat.nodes]]
name = "d{{i}}"
type = "host"
[[repeat.links]]
a = "s{{i}}"
b = "r1"
bandwidth = "100Mbps"
delay = "1ms"
queue = {{ limit_pkts = 100 }}
[[repeat.links]]
a = "r2"
b = "d{{i}}"
bandwidth = "100Mbps"
delay = "1ms"
queue = {{ limit_pkts = 100 }}
[[repeat.flows]]
name = "f{{i}}"
type = "tcp"
src = "s{{i}}"
dst = "d{{i}}"
packet_size = 1000
start = {{ from = "5ms", step = "10ms" }}
"#
        )
    }

    fn pairs_written_out() -> String {
        let mut t = format!(
            "{HEAD}[[nodes]]\nname = \"r1\"\ntype = \"router\"\n\
             [[nodes]]\nname = \"r2\"\ntype = \"router\"\n"
        );
        for i in 0..3 {
            write!(
                t,
                "[[nodes]]\nname = \"s{i}\"\ntype = \"host\"\n\
                 [[nodes]]\nname = \"d{i}\"\ntype = \"host\"\n"
            )
            .unwrap();
        }
        t += "[[links]]\nname = \"bottleneck\"\na = \"r1\"\nb = \"r2\"\n\
              bandwidth = \"10Mbps\"\ndelay = \"10ms\"\nqueue = { limit_pkts = 20 }\n";
        for i in 0..3 {
            for (a, b) in [
                (format!("s{i}"), "r1".into()),
                ("r2".into(), format!("d{i}")),
            ] {
                write!(
                    t,
                    "[[links]]\na = \"{a}\"\nb = \"{b}\"\nbandwidth = \"100Mbps\"\n\
                     delay = \"1ms\"\nqueue = {{ limit_pkts = 100 }}\n"
                )
                .unwrap();
            }
        }
        for i in 0..3 {
            write!(
                t,
                "[[flows]]\nname = \"f{i}\"\ntype = \"tcp\"\nsrc = \"s{i}\"\ndst = \"d{i}\"\n\
                 packet_size = 1000\nstart = \"{}ms\"\n",
                5 + 10 * i
            )
            .unwrap();
        }
        t
    }

    #[test]
    fn compact_and_written_out_scenarios_are_the_same_scenario_and_run() {
        let compact = load(&pairs_compact()).unwrap();
        let full = load(&pairs_written_out()).unwrap();
        assert_eq!(compact.to_toml(), full.to_toml());
        let (a, b) = (crate::run(&compact).unwrap(), crate::run(&full).unwrap());
        assert!(a.events > 10_000, "the flows ran: {} events", a.events);
        assert_eq!(format!("{:?}", a.flows), format!("{:?}", b.flows));
        assert_eq!(format!("{:?}", a.queues), format!("{:?}", b.queues));
        assert_eq!(format!("{:?}", a.timeseries), format!("{:?}", b.timeseries));
        // The echo is the expanded form: it loads back without any repeat.
        assert!(!compact.to_toml().contains("repeat"));
        assert_eq!(load(&compact.to_toml()).unwrap(), full);
    }

    #[test]
    fn copies_follow_the_top_level_entries_repeat_by_repeat_copy_by_copy() {
        let mut d = doc(r#"
            nodes = [{ name = "top" }]
            [[repeat]]
            count = 2
            nodes = [{ name = "a{i}" }, { name = "b{i}" }]
            [[repeat]]
            count = 3
            var = "k"
            nodes = [{ name = "c{k}" }]
            "#);
        let o = expand(&mut d).unwrap();
        assert_eq!(
            strs(&d["nodes"], "name"),
            ["top", "a0", "b0", "a1", "b1", "c0", "c1", "c2"]
        );
        assert!(!d.contains_key("repeat"));
        // Sections no repeat or top level gives stay empty.
        assert_eq!(d["flows"].as_array().unwrap().len(), 0);
        assert_eq!(o.locate_path("nodes[0].name"), None);
        assert_eq!(
            o.locate_path("nodes[4].name").as_deref(),
            Some("repeat[0].nodes[1].name (i = 1)")
        );
        assert_eq!(
            o.locate_path("nodes[7]").as_deref(),
            Some("repeat[1].nodes[0] (k = 2)")
        );
        assert_eq!(o.locate_path("nodes[8]"), None);
        assert_eq!(o.locate_path("links[3]"), None);
    }

    #[test]
    fn every_string_value_is_filled_in_keys_and_other_types_are_not() {
        let mut d = doc(r#"
            [[repeat]]
            count = 2
            [[repeat.links]]
            "x{i}" = "{i}-{i}{i}"
            deep = { list = ["p{i}", 3, { q = "{i}" }], n = 4, t = true, s = "{j}" }
            "#);
        expand(&mut d).unwrap();
        let l = &d["links"][1];
        assert_eq!(l["x{i}"].as_str(), Some("1-11"));
        assert_eq!(l["deep"]["list"][0].as_str(), Some("p1"));
        assert_eq!(l["deep"]["list"][1].as_integer(), Some(3));
        assert_eq!(l["deep"]["list"][2]["q"].as_str(), Some("1"));
        assert_eq!(l["deep"]["n"].as_integer(), Some(4));
        assert_eq!(l["deep"]["t"].as_bool(), Some(true));
        // Only the repeat's own variable is a placeholder.
        assert_eq!(l["deep"]["s"].as_str(), Some("{j}"));
    }

    #[test]
    fn step_gives_from_plus_i_times_step() {
        let mut d = doc(r#"
            [[repeat]]
            count = 4
            flows = [{ name = "f{i}", start = { from = "1ms", step = "250us" } }]
            "#);
        expand(&mut d).unwrap();
        assert_eq!(
            strs(&d["flows"], "start"),
            ["1ms", "1250us", "1500us", "1750us"]
        );
    }

    fn uniform_starts(seed: u64, run: u64, count: u64) -> Vec<u64> {
        let mut d = doc(&format!(
            r#"
            simulation = {{ seed = {seed}, run = {run} }}
            [[repeat]]
            count = {count}
            flows = [{{ name = "f{{i}}", start = {{ uniform = ["10ms", "260ms"] }} }}]
            "#
        ));
        expand(&mut d).unwrap();
        (strs(&d["flows"], "start").iter())
            .map(|s| parse_time(s).unwrap())
            .collect()
    }

    #[test]
    fn uniform_draws_are_in_range_seeded_and_from_the_repeat_stream() {
        let n = 10_000;
        let xs = uniform_starts(1, 0, n);
        assert!(xs.iter().all(|&x| (10_000_000..260_000_000).contains(&x)));
        // U[10, 260) ms: mean 135 ms, sd 250/sqrt(12) = 72.17 ms; the mean of 10^4 draws
        // has sd 0.7217 ms: 4 of them is 2.887 ms.
        let mean = xs.iter().sum::<u64>() as f64 / n as f64 / 1e6;
        assert!((mean - 135.0).abs() < 2.887, "mean {mean} ms");
        // Copy i takes the i-th draw of stream "repeat/0" of (seed, run).
        let mut rng = Rng::for_component(1, 0, "repeat/0");
        let expect: Vec<u64> = (0..n)
            .map(|_| 10_000_000 + rng.below(250_000_000))
            .collect();
        assert_eq!(xs, expect);
        assert_eq!(uniform_starts(1, 0, n), xs, "deterministic");
        assert_ne!(
            uniform_starts(2, 0, 5),
            xs[..5],
            "the seed changes the draws"
        );
        assert_ne!(
            uniform_starts(1, 1, 5),
            xs[..5],
            "and so does the run index"
        );
    }

    #[test]
    fn problems_are_named_at_the_template() {
        let e = |text: &str| expand(&mut doc(text)).unwrap_err().0.remove(0);
        let x = e("[[repeat]]\ncount = 0");
        assert_eq!(
            (x.path.as_str(), x.value.as_str()),
            ("repeat[0].count", "0")
        );
        assert_eq!(x.message, "must be an integer from 1 to 1000000");
        assert_eq!(e("[[repeat]]\ncount = 2.5").value, "2.5");
        assert_eq!(e("[[repeat]]\ncount = 1000001").path, "repeat[0].count");
        let x = e("[[repeat]]\ncount = 1\n[[repeat]]\ncount = 2\ncopies = 3");
        assert_eq!(x.path, "repeat[1].copies");
        assert!(x
            .message
            .starts_with("unknown field `copies`, expected one of `count`, `var`"));
        assert_eq!(
            e("[[repeat]]\nvar = \"i\"").message,
            "missing field `count`"
        );
        assert_eq!(
            e("[[repeat]]\ncount = 2\nvar = \"{i}\"").path,
            "repeat[0].var"
        );
        let x = e("[[repeat]]\ncount = 2\nflows = [{ name = \"f\" }]");
        assert_eq!(x.path, "repeat[0].flows[0].name");
        assert!(
            x.message.contains("all 2 copies would be named \"f\""),
            "{x}"
        );
        let x = e("[[repeat]]\ncount = 3\nlinks = [{ name = \"l{i}\", a = \"x\", b = \"y\" }]");
        assert_eq!(x.path, "repeat[0].links[0]");
        assert!(x.message.contains("would join the same two nodes"), "{x}");
        let x = e("[[repeat]]\ncount = 3\nflows = [{ start = { from = \"0ms\" } }]");
        assert_eq!(x.path, "repeat[0].flows[0].start");
        assert!(x.message.starts_with("a generator is"), "{x}");
        let x = e("[[repeat]]\ncount = 3\nflows = [{ start = { uniform = [\"2ms\", \"1ms\"] } }]");
        assert_eq!(x.path, "repeat[0].flows[0].start.uniform");
        let x = e("[[repeat]]\ncount = 3\nflows = [{ start = { uniform = [\"0ms\", 5] } }]");
        assert_eq!(x.path, "repeat[0].flows[0].start.uniform[1]");
        let x = e("[[repeat]]\ncount = 3\nflows = [{ start = { from = \"1x\", step = \"1s\" } }]");
        assert_eq!(x.path, "repeat[0].flows[0].start.from");
        let x = e(
            "[[repeat]]\ncount = 1000\nflows = [{ start = { from = \"0s\", step = \"1002s\" } }]",
        );
        assert_eq!(x.path, "repeat[0].flows[0].start.step");
        // One copy may repeat names: there is nothing to clash with.
        assert!(expand(&mut doc(
            "[[repeat]]\ncount = 1\nnodes = [{ name = \"n\" }]"
        ))
        .is_ok());
    }

    #[test]
    fn validation_and_reading_errors_name_the_template_and_the_copy() {
        // A top-level node takes copy 2's name, and copy 2 starts at the end of the run.
        let text = pairs_compact()
            .replace(
                "[[repeat]]",
                "[[nodes]]\nname = \"s2\"\ntype = \"host\"\n[[repeat]]",
            )
            .replace(
                "from = \"5ms\", step = \"10ms\"",
                "from = \"1s\", step = \"500ms\"",
            );
        let errs = load(&text).unwrap_err().0;
        let paths: Vec<&str> = errs.iter().map(|e| e.path.as_str()).collect();
        assert_eq!(
            paths,
            [
                "repeat[0].nodes[0].name (i = 2)",
                // Validation resolves the duplicated name to one node of the two; f2's
                // route is then checked from the other, which has no link.
                "repeat[0].flows[0].dst (i = 2)",
                "repeat[0].flows[0].start (i = 2)"
            ]
        );
        assert_eq!(errs[0].value, "\"s2\"");
        assert!(errs[0].message.starts_with("duplicate node name"));
        let e = load(&pairs_compact().replace("packet_size = 1000", "packet_size = \"big\""))
            .unwrap_err()
            .0;
        assert_eq!(e[0].path, "repeat[0].flows[0].packet_size (i = 0)");
    }
}
