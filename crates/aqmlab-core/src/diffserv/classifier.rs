//! The multi-field classifier shared by edge conditioners and by the core AQMs that keep
//! per-aggregate state (DRIO, URIO): a table of (source host, destination host) patterns
//! → class (RFC 2475 §2.3.1's MF classifier over the two address fields; ns-2
//! `PolicyClassifier`, which matches node pairs with −1 as the wildcard).
//!
//! Patterns are globs over host names: `*` matches any run of characters, `?` exactly one.
//! Entries may not overlap (no host pair matched by two of them), so the order of a table
//! never matters. Patterns are resolved once, at build time, into one flag per node for
//! each side: classifying a packet reads two flags per entry and no string.

use crate::check::Problems;

/// `*` matches any run of characters, `?` exactly one.
pub fn glob_match(pattern: &str, name: &str) -> bool {
    let (p, n): (Vec<char>, Vec<char>) = (pattern.chars().collect(), name.chars().collect());
    // Iterative matcher with one backtrack point (the last `*`): linear in practice.
    let (mut i, mut j, mut star, mut mark) = (0, 0, None, 0);
    while j < n.len() {
        if i < p.len() && (p[i] == '?' || p[i] == n[j]) {
            i += 1;
            j += 1;
        } else if i < p.len() && p[i] == '*' {
            star = Some(i);
            mark = j;
            i += 1;
        } else if let Some(s) = star {
            i = s + 1;
            mark += 1;
            j = mark;
        } else {
            return false;
        }
    }
    p[i..].iter().all(|&c| c == '*')
}

/// One table entry as written: its path (for messages) and its two patterns.
pub struct Pattern<'a> {
    pub path: String,
    pub src: &'a str,
    pub dst: &'a str,
}

/// Reports every pattern that matches no host and every pair of overlapping entries.
/// `what` names the table's targets in the overlap message ("class", "aggregate").
pub fn check_patterns(entries: &[Pattern], hosts: &[&str], what: &str, p: &mut Problems) {
    let mut matched: Vec<(Vec<bool>, Vec<bool>)> = vec![];
    for e in entries {
        let src: Vec<bool> = hosts.iter().map(|h| glob_match(e.src, h)).collect();
        let dst: Vec<bool> = hosts.iter().map(|h| glob_match(e.dst, h)).collect();
        for (field, pat, m) in [("src", e.src, &src), ("dst", e.dst, &dst)] {
            if !m.iter().any(|&x| x) {
                p.err(
                    format!("{}.{field}", e.path),
                    format!("\"{pat}\""),
                    "matches no host of the scenario ('*' matches any run of characters, '?' one)",
                );
            }
        }
        for (j, (s2, d2)) in matched.iter().enumerate() {
            let s = src.iter().zip(s2).position(|(x, y)| *x && *y);
            let d = dst.iter().zip(d2).position(|(x, y)| *x && *y);
            if let (Some(s), Some(d)) = (s, d) {
                p.err(
                    e.path.clone(),
                    format!("{{src = \"{}\", dst = \"{}\"}}", e.src, e.dst),
                    format!(
                        "overlaps {}: both match \"{}\" -> \"{}\"; entries must not overlap \
                         (each host pair belongs to one {what})",
                        entries[j].path, hosts[s], hosts[d]
                    ),
                );
                break;
            }
        }
        matched.push((src, dst));
    }
}

struct Entry {
    src: Vec<bool>,
    dst: Vec<bool>,
    class: u32,
}

/// A built table: node index pairs → class index.
pub struct Classifier {
    entries: Vec<Entry>,
    default: Option<u32>,
}

impl Classifier {
    /// Resolves validated `(src, dst, class)` patterns over the nodes (`names[i]` is node
    /// i's name); `default` is the class of pairs no entry matches.
    pub fn new<'a>(
        table: impl IntoIterator<Item = (&'a str, &'a str, u32)>,
        default: Option<u32>,
        names: &[&str],
    ) -> Classifier {
        Classifier {
            entries: table
                .into_iter()
                .map(|(src, dst, class)| Entry {
                    src: names.iter().map(|h| glob_match(src, h)).collect(),
                    dst: names.iter().map(|h| glob_match(dst, h)).collect(),
                    class,
                })
                .collect(),
            default,
        }
    }

    /// The class of a packet from node `src` to node `dst`.
    #[inline]
    pub fn classify(&self, src: usize, dst: usize) -> Option<u32> {
        self.entries
            .iter()
            .find(|e| e.src[src] && e.dst[dst])
            .map(|e| e.class)
            .or(self.default)
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty() && self.default.is_none()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs_match_runs_and_single_characters() {
        assert!(glob_match("*", "anything"));
        assert!(glob_match("*", ""));
        assert!(glob_match("net3_*", "net3_s12"));
        assert!(!glob_match("net3_*", "net13_s1"));
        assert!(glob_match("s?", "s1"));
        assert!(!glob_match("s?", "s12"));
        assert!(glob_match("*_s1", "net0_s1"));
        assert!(glob_match("a*b*c", "axxbyyc"));
        assert!(!glob_match("a*b*c", "axxbyy"));
        assert!(glob_match("exact", "exact"));
        assert!(!glob_match("exact", "exactly"));
    }

    #[test]
    fn pairs_go_to_the_entry_matching_both_ends_or_to_the_default() {
        let names = ["c1", "c2", "r", "c6", "c7"];
        let c = Classifier::new([("c1", "c6", 0), ("c2", "c?", 1)], Some(7), &names);
        assert_eq!(c.classify(0, 3), Some(0));
        assert_eq!(c.classify(1, 4), Some(1));
        assert_eq!(c.classify(1, 0), Some(1), "c? matches c1 too");
        assert_eq!(c.classify(0, 4), Some(7), "c1 -> c7: no entry");
        assert_eq!(
            Classifier::new([("c1", "*", 0)], None, &names).classify(1, 0),
            None
        );
    }

    #[test]
    fn overlaps_and_patterns_matching_nothing_are_reported_with_their_paths() {
        let hosts = ["c1", "c2", "c6"];
        let pat = |i: usize, src, dst| Pattern {
            path: format!("t[{i}]"),
            src,
            dst,
        };
        let mut p = Problems::default();
        check_patterns(
            &[pat(0, "c1", "*"), pat(1, "c*", "c6"), pat(2, "x*", "c6")],
            &hosts,
            "aggregate",
            &mut p,
        );
        let msgs: Vec<String> = p
            .errors
            .iter()
            .map(|e| format!("{} {} {}", e.path, e.value, e.message))
            .collect();
        assert_eq!(msgs.len(), 2, "{msgs:?}");
        assert!(msgs[0].contains("t[1]") && msgs[0].contains("overlaps t[0]"));
        assert!(msgs[0].contains("\"c1\" -> \"c6\""));
        assert!(msgs[1].contains("t[2].src") && msgs[1].contains("matches no host"));
    }
}
