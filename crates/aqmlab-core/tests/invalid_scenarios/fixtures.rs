//! The base scenario, the edits the cases make of it, and the case type (split from
//! `invalid_scenarios.rs` to keep each file short).

use aqmlab_core::{load, ScenarioError, ScenarioErrors};

/// Two hosts and a router, two links (the second lossy, with a byte-limited queue), and one
/// flow of each kind. Every line an edit targets occurs exactly once.
pub const BASE: &str = r#"
schema_version = 1

[simulation]
duration = "2s"
warmup = "200ms"
seed = 7
sample_interval = "10ms"

[[nodes]]
name = "h1"
type = "host"

[[nodes]]
name = "r1"
type = "router"

[[nodes]]
name = "h2"
type = "host"

[[links]]
name = "access"
a = "h1"
b = "r1"
bandwidth = "100Mbps"
delay = "1ms"
queue = { limit_pkts = 1000 }

[[links]]
name = "bottleneck"
a = "r1"
b = "h2"
bandwidth = "10Mbps"
delay = "20ms"
loss = { type = "bernoulli", p = 0.01 }

[links.queue]
limit_bytes = "150KB"
aqm = { type = "droptail" }

[[flows]]
name = "cbr1"
type = "cbr"
src = "h1"
dst = "h2"
packet_size = 1500
rate = "2Mbps"
start = "100ms"
stop = "1500ms"

[[flows]]
name = "poi1"
type = "poisson"
src = "h1"
dst = "h2"
packet_size = "1000B"
pkt_rate = 300.0
size_dist = "exponential"
ecn = true

[[flows]]
name = "onoff1"
type = "onoff"
src = "h2"
dst = "h1"
packet_size = 500
rate = "1Mbps"
on_time = "50ms"
off_time = "150ms"
period_dist = "pareto"
shape = 1.5
"#;

/// The base scenario with `from` (which must occur exactly once) replaced by `to`.
/// r1's switch table (`extra` lines added to it).
pub const TCP_WITH: &str = "[[flows]]\nname = \"t\"\ntype = \"tcp\"\nsrc = \"h1\"\ndst = \"h2\"\npacket_size = 1000\nrecovery = \"RECOVERY\"\n";
pub const SWITCH: &str = "[nodes.switch]\nspeedup = 1.5\ninput_queue = { limit_pkts = 20 }\nfabric = { type = \"links\" }\n";

/// The base scenario with r1 a switch (`extra` lines in its table): its ports differ in
/// rate (100 and 10 Mb/s) until a case equalises them.
pub fn switch(extra: &str) -> String {
    edit(
        "name = \"r1\"\ntype = \"router\"",
        &format!("name = \"r1\"\ntype = \"switch\"\n{SWITCH}{extra}"),
    )
}

pub fn edit(from: &str, to: &str) -> String {
    let n = BASE.matches(from).count();
    assert_eq!(n, 1, "edit target {from:?} occurs {n} times in BASE");
    BASE.replacen(from, to, 1)
}

/// The base scenario with `extra` appended (new array entries, or keys of the last table).
pub fn append(extra: &str) -> String {
    format!("{BASE}\n{extra}\n")
}

/// The base scenario with a `[[repeat]]` of `count` (a TOML value) copies of CBR flow
/// `x{i}` from h1 to h2 (the flow template's lines `flow` added, or replacing one of the
/// same key) and `extra` lines in the repeat's own table.
pub fn repeat(count: &str, extra: &str, flow: &[(&str, &str)]) -> String {
    let mut fields = vec![
        ("name", "\"x{i}\""),
        ("type", "\"cbr\""),
        ("src", "\"h1\""),
        ("dst", "\"h2\""),
        ("packet_size", "500"),
        ("rate", "\"100kbps\""),
    ];
    fields.retain(|(f, _)| !flow.iter().any(|(k, _)| k == f));
    fields.extend_from_slice(flow);
    let template: String = fields.iter().map(|(k, v)| format!("{k} = {v}\n")).collect();
    append(&format!(
        "[[repeat]]\ncount = {count}\n{extra}\n[[repeat.flows]]\n{template}"
    ))
}

/// The loss table of links[1] replaced by `loss`.
pub fn loss(table: &str) -> String {
    edit(
        r#"loss = { type = "bernoulli", p = 0.01 }"#,
        &format!("loss = {table}"),
    )
}

pub struct Case {
    pub name: &'static str,
    pub text: String,
    pub path: &'static str,
    /// The reported `value`; `None` = none reported (an empty `value`).
    pub value: Option<&'static str>,
    pub fragment: &'static str,
    /// How many problems the scenario has in all.
    pub count: usize,
}

pub fn case(
    name: &'static str,
    text: String,
    path: &'static str,
    value: Option<&'static str>,
    fragment: &'static str,
) -> Case {
    Case {
        name,
        text,
        path,
        value,
        fragment,
        count: 1,
    }
}

impl Case {
    /// The edit causes `n` problems in all; the expected one must be among them.
    pub fn count(mut self, n: usize) -> Self {
        self.count = n;
        self
    }

    /// None if the case holds, else what went wrong.
    pub fn check(&self) -> Option<String> {
        let errs: ScenarioErrors = match load(&self.text) {
            Ok(_) => return Some("loaded without error".into()),
            Err(e) => e,
        };
        let hit = |e: &ScenarioError| {
            e.path == self.path
                && e.message.contains(self.fragment)
                && e.value == self.value.unwrap_or("")
        };
        if !errs.0.iter().any(hit) {
            return Some(format!("no matching error; got:\n{errs}\n{:#?}", errs.0));
        }
        if errs.0.len() != self.count {
            return Some(format!(
                "expected {} error(s), got {}:\n{errs}",
                self.count,
                errs.0.len()
            ));
        }
        None
    }
}
