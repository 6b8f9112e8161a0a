//! Packet capture in a scenario: `capture = true` on a link, or `[[captures]]` entries naming
//! a link or one of its directions, with a time window and a snapshot length; checked here
//! and resolved to the channels the simulator records (`crate::capture` encodes the pcap).

use super::{Scenario, Validator};
use crate::check::Item;
use crate::units::{format_time, Duration, Time};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// Bytes of each packet kept by default: the IPv4 and TCP headers with three SACK blocks
/// (20 + 20 + 28 = 68) and room to spare, like tcpdump's historical default of 96.
pub const DEFAULT_SNAPLEN: u32 = 96;
/// The largest snapshot length: tcpdump's and Wireshark's (`MAXIMUM_SNAPLEN`).
pub const MAX_SNAPLEN: u32 = 262_144;
/// Addresses are 10.0.0.0 + node index + 1 (`crate::capture::address`): 2^24 - 2 nodes.
pub const MAX_CAPTURED_NODES: usize = (1 << 24) - 2;

pub(super) fn is_false(b: &bool) -> bool {
    !*b
}

fn default_snaplen() -> u32 {
    DEFAULT_SNAPLEN
}

/// One `[[captures]]` entry.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CaptureSpec {
    /// A link's name (or the "a-b" label of an unnamed link): both directions; or a queue's
    /// name "from->to": that direction only.
    pub link: String,
    /// Packets whose transmission starts in [start, stop) are kept; default the whole run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start: Option<Duration>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop: Option<Duration>,
    /// Bytes of each packet kept (headers first), 1..=`MAX_SNAPLEN`.
    #[serde(default = "default_snaplen")]
    pub snaplen: u32,
}

/// A captured link direction, resolved: what the simulator records.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CaptureAt {
    /// The channel (link i: a->b is 2i, b->a is 2i + 1).
    pub channel: usize,
    pub start: Time,
    pub stop: Time,
    pub snaplen: u32,
}

impl Scenario {
    /// Whether the scenario captures anything.
    pub fn captures_any(&self) -> bool {
        !self.captures.is_empty() || self.links.iter().any(|l| l.capture)
    }

    /// The captured channels, in channel order; `ends`: each link's node indices. An entry
    /// that names nothing (an error `Validator::captures` reports) captures nothing.
    pub(crate) fn captured(&self, ends: &[Option<(usize, usize)>]) -> Vec<CaptureAt> {
        let end = self.simulation.duration.0;
        let whole = |channel| CaptureAt {
            channel,
            start: 0,
            stop: end,
            snaplen: DEFAULT_SNAPLEN,
        };
        let mut out: Vec<CaptureAt> = vec![];
        for (i, l) in self.links.iter().enumerate() {
            if l.capture {
                out.extend([whole(2 * i), whole(2 * i + 1)]);
            }
        }
        let names = self.capture_names(ends);
        for c in &self.captures {
            for &channel in names.get(c.link.as_str()).into_iter().flatten() {
                out.push(CaptureAt {
                    channel,
                    start: c.start.map_or(0, |d| d.0),
                    stop: c.stop.map_or(end, |d| d.0.min(end)),
                    snaplen: c.snaplen,
                });
            }
        }
        out.sort_by_key(|c| c.channel);
        out.dedup_by_key(|c| c.channel);
        out
    }

    /// Link `i`'s label: its name, or "a-b" when unnamed (as `sim::link_name`).
    pub fn link_label(&self, i: usize) -> String {
        let l = &self.links[i];
        l.name.clone().unwrap_or_else(|| format!("{}-{}", l.a, l.b))
    }

    /// What a `captures[].link` may name, and the channels it captures.
    fn capture_names(&self, ends: &[Option<(usize, usize)>]) -> HashMap<String, Vec<usize>> {
        let mut names = HashMap::new();
        for (i, e) in ends.iter().enumerate() {
            let Some((a, b)) = *e else { continue };
            let node = |n: usize| self.nodes[n].name.as_str();
            names.insert(self.link_label(i), vec![2 * i, 2 * i + 1]);
            names.insert(format!("{}->{}", node(a), node(b)), vec![2 * i]);
            names.insert(format!("{}->{}", node(b), node(a)), vec![2 * i + 1]);
        }
        names
    }
}

impl Validator {
    /// `links[].capture` and `captures`: names that exist, windows inside the run, snapshot
    /// lengths in range, no link direction captured twice.
    pub(super) fn captures(&mut self, s: &Scenario, ends: &[Option<(usize, usize)>]) {
        if !s.captures_any() {
            return;
        }
        if s.nodes.len() > MAX_CAPTURED_NODES {
            self.err(
                "captures",
                format!("{} nodes", s.nodes.len()),
                format!(
                    "a capture gives each node an IPv4 address in 10.0.0.0/8: at most \
                     {MAX_CAPTURED_NODES} nodes"
                ),
            );
        }
        let names = s.capture_names(ends);
        let end = s.simulation.duration.0;
        // Who captures each channel first: `links[i].capture` or `captures[j]`.
        let mut by: HashMap<usize, String> = HashMap::new();
        for (i, l) in s.links.iter().enumerate() {
            if l.capture {
                let who = format!("{}.capture", Item("links", i));
                by.insert(2 * i, who.clone());
                by.insert(2 * i + 1, who);
            }
        }
        for (j, c) in s.captures.iter().enumerate() {
            let p = Item("captures", j);
            match names.get(c.link.as_str()) {
                None => self.err(
                    format!("{p}.link"),
                    format!("\"{}\"", c.link),
                    "names no link: give a link's name (\"a-b\" for an unnamed one) for both \
                     directions, or \"from->to\" for one",
                ),
                Some(channels) => {
                    for &ch in channels {
                        if let Some(first) = by.get(&ch) {
                            self.err(
                                format!("{p}.link"),
                                format!("\"{}\"", c.link),
                                format!(
                                    "the link direction is already captured by {first}; \
                                     capture each direction once"
                                ),
                            );
                            break;
                        }
                    }
                    for &ch in channels {
                        by.insert(ch, p.to_string());
                    }
                }
            }
            if c.snaplen == 0 || c.snaplen > MAX_SNAPLEN {
                self.err(
                    format!("{p}.snaplen"),
                    c.snaplen,
                    format!("must be in [1, {MAX_SNAPLEN}] bytes"),
                );
            }
            let start = c.start.map_or(0, |d| d.0);
            let stop = c.stop.map_or(end, |d| d.0);
            let time = |t: Time| format!("\"{}\"", format_time(t));
            if let Some(d) = c.start {
                self.time_at_most(format!("{p}.start"), d);
                if d.0 >= end {
                    self.err(
                        format!("{p}.start"),
                        time(d.0),
                        format!("must be < simulation.duration = {}", time(end)),
                    );
                }
            }
            if let Some(d) = c.stop {
                self.time_at_most(format!("{p}.stop"), d);
            }
            if c.stop.is_some() && start >= stop {
                self.err(
                    format!("{p}.stop"),
                    time(stop),
                    format!("must be > start = {}", time(start)),
                );
            }
        }
    }
}
