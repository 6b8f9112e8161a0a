//! Invalid scenarios, table-driven: each case is the valid base scenario with one small
//! edit, and asserts the exact field path, the reported value (where there is one) and a
//! fragment of the message of the problem it reports (design habit 5: validate once, at the
//! edge; reject, never clamp; errors name the field path, the value and what is allowed).

#[path = "invalid_scenarios/fixtures.rs"]
mod fixtures;

use aqmlab_core::{load, ScenarioError, ScenarioErrors};
use fixtures::*;

#[rustfmt::skip] // one case per two lines reads better than rustfmt's layout
fn cases() -> Vec<Case> {
    use Option::None as N;
    let poisson_start = |start: &str| {
        edit(
            "pkt_rate = 300.0",
            &format!("pkt_rate = 300.0\nstart = \"{start}\""),
        )
    };
    let probe = |extra: &str| append(&format!("[[flows]]\nname = \"ping\"\ntype = \"probe\"\nsrc = \"h1\"\ndst = \"h2\"\npacket_size = 64\n{extra}"));
    vec![
        // --- negative, zero, NaN and infinite values -------------------------------------
        case("bernoulli p negative", edit("p = 0.01", "p = -0.1"),
            "links[1].loss.p", Some("-0.1"), "must be a probability in [0, 1]"),
        case("bernoulli p above one", edit("p = 0.01", "p = 1.5"),
            "links[1].loss.p", Some("1.5"), "must be a probability in [0, 1]"),
        case("bernoulli p NaN", edit("p = 0.01", "p = nan"),
            "links[1].loss.p", Some("NaN"), "must be a probability in [0, 1]"),
        case("bernoulli p +inf", edit("p = 0.01", "p = inf"),
            "links[1].loss.p", Some("inf"), "must be a probability in [0, 1]"),
        case("gilbert loss_bad NaN",
            loss(r#"{ type = "gilbert_elliott", p_gb = 0.01, p_bg = 0.3, loss_bad = nan }"#),
            "links[1].loss.loss_bad", Some("NaN"), "must be a probability in [0, 1]"),
        case("gilbert loss_good -inf",
            loss(r#"{ type = "gilbert_elliott", p_gb = 0.01, p_bg = 0.3, loss_good = -inf }"#),
            "links[1].loss.loss_good", Some("-inf"), "must be a probability in [0, 1]"),
        case("pkt_rate negative", edit("pkt_rate = 300.0", "pkt_rate = -1.0"),
            "flows[1].pkt_rate", Some("-1"), "must be a finite number"),
        case("pkt_rate zero", edit("pkt_rate = 300.0", "pkt_rate = 0.0"),
            "flows[1].pkt_rate", Some("0"), "must be a finite number"),
        case("pkt_rate NaN", edit("pkt_rate = 300.0", "pkt_rate = nan"),
            "flows[1].pkt_rate", Some("NaN"), "must be a finite number"),
        case("pkt_rate +inf", edit("pkt_rate = 300.0", "pkt_rate = inf"),
            "flows[1].pkt_rate", Some("inf"), "must be a finite number"),
        case("shape negative", edit("shape = 1.5", "shape = -2.0"),
            "flows[2].shape", Some("-2"), "must be a finite number > 1"),
        case("shape exactly one (infinite mean)", edit("shape = 1.5", "shape = 1.0"),
            "flows[2].shape", Some("1"), "the Pareto mean is infinite"),
        case("shape NaN", edit("shape = 1.5", "shape = nan"),
            "flows[2].shape", Some("NaN"), "must be a finite number > 1"),
        case("shape +inf", edit("shape = 1.5", "shape = inf"),
            "flows[2].shape", Some("inf"), "must be a finite number > 1"),
        case("zero link bandwidth", edit(r#"bandwidth = "10Mbps""#, r#"bandwidth = "0Mbps""#),
            "links[1].bandwidth", Some("\"0bps\""), "must be > 0"),
        case("zero flow rate", edit(r#"rate = "2Mbps""#, r#"rate = "0bps""#),
            "flows[0].rate", Some("\"0bps\""), "must be > 0"),
        case("zero duration", edit(r#"duration = "2s""#, r#"duration = "0s""#),
            "simulation.duration", Some("\"0ns\""), "must be > 0")
            .count(2), // and sample_interval = 10ms > duration
        case("zero sample_interval", edit(r#"sample_interval = "10ms""#, r#"sample_interval = "0ms""#),
            "simulation.sample_interval", Some("\"0ns\""), "must be > 0"),
        case("zero on_time", edit(r#"on_time = "50ms""#, r#"on_time = "0s""#),
            "flows[2].on_time", Some("\"0ns\""), "must be > 0"),
        case("zero limit_pkts", edit("limit_pkts = 1000", "limit_pkts = 0"),
            "links[0].queue.limit_pkts", Some("0"), "must be at least 1"),
        case("zero limit_bytes", edit(r#"limit_bytes = "150KB""#, "limit_bytes = 0"),
            "links[1].queue.limit_bytes", Some("0"), "must be at least 1"),
        case("zero packet_size", edit("packet_size = 1500", "packet_size = 0"),
            "flows[0].packet_size", Some("0"), "must be in [1, 65535] bytes"),
        case("packet_size above 64 KiB", edit("packet_size = 500", r#"packet_size = "64KiB""#),
            "flows[2].packet_size", Some("65536"), "must be in [1, 65535] bytes"),
        case("negative packet_size", edit("packet_size = 1500", "packet_size = -1"),
            "flows[0].packet_size", N, "invalid value -1: must not be negative"),
        case("negative limit_pkts (u32)", edit("limit_pkts = 1000", "limit_pkts = -1"),
            "links[0].queue.limit_pkts", N, "integer `-1`: must be an integer from 1 to 4294967295"),
        case("limit_pkts beyond u32", edit("limit_pkts = 1000", "limit_pkts = 4294967296"),
            "links[0].queue.limit_pkts", N, "integer `4294967296`: must be an integer from 1 to 4294967295"),
        case("string where an integer is expected", edit("limit_pkts = 1000", r#"limit_pkts = "many""#),
            "links[0].queue.limit_pkts", N, "string \"many\": must be an integer from 1 to 4294967295"),
        case("negative seed (u64)", edit("seed = 7", "seed = -1"),
            "simulation.seed", N, "integer `-1`: must be an integer from 0 to 9223372036854775807"),
        // --- malformed units -------------------------------------------------------------
        case("unknown time unit", edit(r#"delay = "20ms""#, r#"delay = "20 parsecs""#),
            "links[1].delay", N, r#"invalid duration "20 parsecs": unknown unit "parsecs""#),
        case("duration without a unit", edit(r#"delay = "20ms""#, r#"delay = "5""#),
            "links[1].delay", N, r#"invalid duration "5": expected a duration like "20ms""#),
        case("negative duration string", edit(r#"delay = "20ms""#, r#"delay = "-5ms""#),
            "links[1].delay", N, r#"invalid duration "-5ms": must not be negative"#),
        case("sub-nanosecond duration", edit(r#"delay = "20ms""#, r#"delay = "0.5ns""#),
            "links[1].delay", N, "not a whole number of nanoseconds"),
        case("rate in bytes per second", edit(r#"rate = "2Mbps""#, r#"rate = "2MB/s""#),
            "flows[0].rate", N, r#"invalid rate "2MB/s": unknown unit "MB/s""#),
        case("sub-bit rate", edit(r#"rate = "2Mbps""#, r#"rate = "0.5bps""#),
            "flows[0].rate", N, "not a whole number of bits per second"),
        case("rate beyond u64", edit(r#"bandwidth = "10Mbps""#, r#"bandwidth = "99999999999Tbps""#),
            "links[1].bandwidth", N, "too large"),
        case("size with a time unit", edit(r#"limit_bytes = "150KB""#, r#"limit_bytes = "150ms""#),
            "links[1].queue.limit_bytes", N, r#"invalid size "150ms": unknown unit "ms""#),
        // --- cross-field rules -----------------------------------------------------------
        case("warmup equal to duration", edit(r#"warmup = "200ms""#, r#"warmup = "2s""#),
            "simulation.warmup", Some("\"2s\""), "must be < simulation.duration = \"2s\""),
        case("sample_interval longer than duration",
            edit(r#"sample_interval = "10ms""#, r#"sample_interval = "3s""#),
            "simulation.sample_interval", Some("\"3s\""), "must be <= simulation.duration"),
        case("stop equal to start", edit(r#"stop = "1500ms""#, r#"stop = "100ms""#),
            "flows[0].stop", Some("\"100ms\""), "must be > start = \"100ms\""),
        case("start at the end of the run", poisson_start("2s"),
            "flows[1].start", Some("\"2s\""), "must be < simulation.duration"),
        case("limit_pkts and limit_bytes", edit(r#"limit_bytes = "150KB""#, "limit_bytes = \"150KB\"\nlimit_pkts = 100"),
            "links[1].queue.limit_bytes", N, "limit_pkts and limit_bytes are mutually exclusive"),
        case("no queue limit", edit("queue = { limit_pkts = 1000 }", "queue = {}"),
            "links[0].queue.limit_pkts", N, "one of limit_pkts or limit_bytes is required"),
        case("rate and pkt_rate", edit("pkt_rate = 300.0", "pkt_rate = 300.0\nrate = \"1Mbps\""),
            "flows[1].pkt_rate", Some("300"), "rate and pkt_rate are mutually exclusive"),
        case("poisson without rate", edit("pkt_rate = 300.0\n", ""),
            "flows[1].rate", N, "one of rate or pkt_rate is required"),
        case("cbr without rate", edit("rate = \"2Mbps\"\n", ""),
            "flows[0].rate", N, "required for type = \"cbr\""),
        case("onoff without off_time", edit("off_time = \"150ms\"\n", ""),
            "flows[2].off_time", N, "required for type = \"onoff\""),
        case("pareto without shape", edit("shape = 1.5\n", ""),
            "flows[2].shape", N, "required when period_dist = \"pareto\""),
        case("shape with exponential periods",
            edit(r#"period_dist = "pareto""#, r#"period_dist = "exponential""#),
            "flows[2].shape", N, "only used with period_dist = \"pareto\""),
        case("shape with default (exponential) periods", edit("period_dist = \"pareto\"\n", ""),
            "flows[2].shape", N, "only used with period_dist = \"pareto\""),
        case("field of another flow type", edit(r#"rate = "2Mbps""#, "rate = \"2Mbps\"\non_time = \"1s\""),
            "flows[0].on_time", N, "not a field of type = \"cbr\"; its fields are rate"),
        case("recovery on a cbr flow", edit(r#"rate = "2Mbps""#, "rate = \"2Mbps\"\nrecovery = \"prr_ssrb\""),
            "flows[0].recovery", N, "not a field of type = \"cbr\""),
        case("unknown recovery", append(&TCP_WITH.replace("RECOVERY", "prr")), "flows[3].recovery", N,
            "unknown variant `prr`, expected one of `classic`, `prr_ssrb`, `prr_crb`, `prr_safe_ack`, `prr_ns3.44`"),
        case("ns-3.44's PRR without SACK", append(&TCP_WITH.replace("RECOVERY", "prr_ns3.44")), "flows[3].recovery",
            Some("\"prr_ns3.44\""), "ns-3.44's PRR accounting is modelled with SACK only: set variant = \"sack\""),
        case("gilbert p_gb > 0 with p_bg = 0",
            loss(r#"{ type = "gilbert_elliott", p_gb = 0.1, p_bg = 0.0 }"#),
            "links[1].loss.p_bg", Some("0"), "the Bad state would absorb"),
        // --- unknown keys, at every level ------------------------------------------------
        case("unknown top-level key", edit("schema_version = 1", "schema_version = 1\ncolour = \"red\""),
            "colour", N, "unknown field `colour`"),
        case("unknown key in simulation", edit("seed = 7", "seed = 7\nspeed = 2"),
            "simulation.speed", N, "unknown field `speed`"),
        case("unknown key in links[i]", edit(r#"delay = "1ms""#, "delay = \"1ms\"\nmtu = 1500"),
            "links[0].mtu", N, "unknown field `mtu`"),
        case("unknown key in a queue", edit("queue = { limit_pkts = 1000 }", "queue = { limit_pkts = 1000, ecn = true }"),
            "links[0].queue.ecn", N, "unknown field `ecn`"),
        case("unknown key inside aqm", edit(r#"aqm = { type = "droptail" }"#, r#"aqm = { type = "droptail", min_th = 5 }"#),
            "links[1].queue.aqm.min_th", N, "unknown field `min_th`, there are no fields"),
        case("unknown key inside loss", loss(r#"{ type = "bernoulli", p = 0.01, q = 0.2 }"#),
            "links[1].loss.q", N, "unknown field `q`, expected `p`"),
        case("unknown key inside gilbert loss",
            loss(r#"{ type = "gilbert_elliott", p_gb = 0.1, p_bg = 0.2, k = 1.0 }"#),
            "links[1].loss.k", N, "unknown field `k`"),
        case("unknown key in flows[i]", edit("ecn = true", "ecn = true\nburst = 3"),
            "flows[1].burst", N, "unknown field `burst`"),
        case("unknown key in nodes[i]", edit(r#"type = "router""#, "type = \"router\"\nasn = 65000"),
            "nodes[1].asn", N, "unknown field `asn`"),
        // --- wrong types -----------------------------------------------------------------
        case("string where a number is expected", edit("p = 0.01", r#"p = "0.01""#),
            "links[1].loss.p", N, "invalid type: string \"0.01\", expected f64"),
        case("number where a duration string is expected", edit(r#"delay = "20ms""#, "delay = 20"),
            "links[1].delay", N, "a bare number is ambiguous here"),
        case("float where a rate string is expected", edit(r#"rate = "2Mbps""#, "rate = 2e6"),
            "flows[0].rate", N, "a bare number is not accepted here"),
        case("bool where a string is expected", edit(r#"name = "cbr1""#, "name = true"),
            "flows[0].name", N, "invalid type: boolean `true`, expected a string"),
        case("string where a bool is expected", edit("ecn = true", r#"ecn = "yes""#),
            "flows[1].ecn", N, "invalid type: string \"yes\", expected a boolean"),
        case("float where an integer is expected", edit("limit_pkts = 1000", "limit_pkts = 10.5"),
            "links[0].queue.limit_pkts", N, "floating point `10.5`: must be an integer from 1 to 4294967295"),
        case("integer where an array of tables is expected",
            "schema_version = 1\nnodes = 5\n[simulation]\nduration = \"1s\"\n".into(),
            "nodes", N, "invalid type: integer `5`, expected a sequence"),
        case("string where the aqm table is expected", edit(r#"aqm = { type = "droptail" }"#, r#"aqm = "droptail""#),
            "links[1].queue.aqm", N, "invalid type: string \"droptail\", expected a map"),
        // --- unknown `type` values -------------------------------------------------------
        case("unknown node type", edit(r#"type = "router""#, r#"type = "hub""#),
            "nodes[1].type", N, "unknown variant `hub`, expected one of `host`, `router`, `switch`"),
        case("unknown flow type", edit(r#"type = "cbr""#, r#"type = "quic""#),
            "flows[0].type", N, "unknown variant `quic`, expected one of `cbr`, `poisson`, `onoff`, `tcp`"),
        case("unknown aqm type", edit(r#"aqm = { type = "droptail" }"#, r#"aqm = { type = "bogus" }"#),
            // The whole list, derived from the registry: `unknown_aqm_type_lists_every_registered_type`.
            "links[1].queue.aqm.type", Some("\"bogus\""), "unknown type; expected one of \"droptail\", \"red\", "),
        case("rem phi of one", edit(r#"aqm = { type = "droptail" }"#, r#"aqm = { type = "rem", phi = 1.0 }"#),
            "links[1].queue.aqm.phi", Some("1"), "must be a finite number > 1"),
        case("rem negative gamma", edit(r#"aqm = { type = "droptail" }"#, r#"aqm = { type = "rem", gamma = -0.001 }"#),
            "links[1].queue.aqm.gamma", Some("-0.001"), "must be a finite number > 0"),
        case("rem alpha above one", edit(r#"aqm = { type = "droptail" }"#, r#"aqm = { type = "rem", alpha = 1.5 }"#),
            "links[1].queue.aqm.alpha", Some("1.5"), "must be in (0, 1]"),
        case("rem negative target", edit(r#"aqm = { type = "droptail" }"#, r#"aqm = { type = "rem", b_star = -1 }"#),
            "links[1].queue.aqm.b_star", Some("-1"), "must be a finite number >= 0"),
        case("rem zero interval", edit(r#"aqm = { type = "droptail" }"#, r#"aqm = { type = "rem", interval = "0s" }"#),
            "links[1].queue.aqm.interval", Some("\"0ns\""), "must be > 0"),
        case("rem input weight with the queue-only update", edit(r#"aqm = { type = "droptail" }"#, r#"aqm = { type = "rem", update = "queue", w_x = 0.5 }"#),
            "links[1].queue.aqm.w_x", Some("0.5"), "only meaningful with update = \"rate\""),
        case("rem mark point without ecn", edit(r#"aqm = { type = "droptail" }"#, r#"aqm = { type = "rem", mark_at = "arrival" }"#),
            "links[1].queue.aqm.mark_at", Some("\"arrival\""), "only meaningful with ecn = true"),
        case("rem unknown update rule", edit(r#"aqm = { type = "droptail" }"#, r#"aqm = { type = "rem", update = "delay" }"#),
            "links[1].queue.aqm.update", N, "unknown variant `delay`"),
        case("fq_codel zero flows", edit(r#"aqm = { type = "droptail" }"#, r#"aqm = { type = "fq_codel", flows = 0 }"#),
            "links[1].queue.aqm.flows", Some("0"), "must be in [1, 65536]"),
        case("fq_codel zero quantum", edit(r#"aqm = { type = "droptail" }"#, r#"aqm = { type = "fq_codel", quantum = 0 }"#),
            "links[1].queue.aqm.quantum", Some("0"), "must be in [1, 1048576] bytes"),
        case("fq_codel zero drop_batch", edit(r#"aqm = { type = "droptail" }"#, r#"aqm = { type = "fq_codel", drop_batch = 0 }"#),
            "links[1].queue.aqm.drop_batch", Some("0"), "must be in [1, 65535] packets"),
        case("fq_codel target not below interval", edit(r#"aqm = { type = "droptail" }"#, r#"aqm = { type = "fq_codel", target = "1s", interval = "100ms" }"#),
            "links[1].queue.aqm.target", Some("\"1s\""), "must be < interval"),
        case("classful without a default class", edit(r#"aqm = { type = "droptail" }"#, r#"aqm = { type = "classful", scheduler = { type = "strict_priority" }, classes = [{ match = [{ udp = true }] }] }"#),
            "links[1].queue.aqm.classes", Some("0 classes without `match`"), "exactly one class has no `match` rule"),
        case("classful class with a bad AQM", edit(r#"aqm = { type = "droptail" }"#, r#"aqm = { type = "classful", scheduler = { type = "wrr", weights = [1] }, classes = [{ aqm = { type = "red", min_th = 9, max_th = 3 } }] }"#),
            "links[1].queue.aqm.classes[0].aqm.max_th", Some("3"), "must be > min_th = 9"),
        case("fq_codel unknown key", edit(r#"aqm = { type = "droptail" }"#, r#"aqm = { type = "fq_codel", limit = 10240 }"#),
            "links[1].queue.aqm.limit", N, "unknown field `limit`"),
        case("pie zero t_update", edit(r#"aqm = { type = "droptail" }"#, r#"aqm = { type = "pie", t_update = "0ms" }"#),
            "links[1].queue.aqm.t_update", Some("\"0ns\""), "must be > 0"),
        case("pie zero target", edit(r#"aqm = { type = "droptail" }"#, r#"aqm = { type = "pie", target = "0ms" }"#),
            "links[1].queue.aqm.target", Some("\"0ns\""), "must be > 0"),
        case("pie alpha zero", edit(r#"aqm = { type = "droptail" }"#, r#"aqm = { type = "pie", alpha = 0.0 }"#),
            "links[1].queue.aqm.alpha", Some("0"), "must be in (0, 2] per second"),
        case("pie beta above two", edit(r#"aqm = { type = "droptail" }"#, r#"aqm = { type = "pie", beta = 2.5 }"#),
            "links[1].queue.aqm.beta", Some("2.5"), "must be in [0, 2] per second"),
        case("pie beta NaN", edit(r#"aqm = { type = "droptail" }"#, r#"aqm = { type = "pie", beta = nan }"#),
            "links[1].queue.aqm.beta", Some("NaN"), "must be in [0, 2] per second"),
        case("pie mark_ecn_th without ecn", edit(r#"aqm = { type = "droptail" }"#, r#"aqm = { type = "pie", mark_ecn_th = 0.2 }"#),
            "links[1].queue.aqm.mark_ecn_th", Some("0.2"), "only meaningful with ecn = true"),
        case("pie mark_ecn_th above one", edit(r#"aqm = { type = "droptail" }"#, r#"aqm = { type = "pie", ecn = true, mark_ecn_th = 1.5 }"#),
            "links[1].queue.aqm.mark_ecn_th", Some("1.5"), "must be a probability in (0, 1]"),
        case("pie dq_threshold without the estimator", edit(r#"aqm = { type = "droptail" }"#, r#"aqm = { type = "pie", dq_threshold = 16384 }"#),
            "links[1].queue.aqm.dq_threshold", Some("16384"), "only meaningful with dq_rate_estimator = true"),
        case("pie zero dq_threshold", edit(r#"aqm = { type = "droptail" }"#, r#"aqm = { type = "pie", dq_rate_estimator = true, dq_threshold = 0 }"#),
            "links[1].queue.aqm.dq_threshold", Some("0"), "must be in [1, 4294967295] bytes"),
        case("pie zero mtu", edit(r#"aqm = { type = "droptail" }"#, r#"aqm = { type = "pie", mtu = 0 }"#),
            "links[1].queue.aqm.mtu", Some("0"), "must be in [1, 65535] bytes"),
        case("codel zero target", edit(r#"aqm = { type = "droptail" }"#, r#"aqm = { type = "codel", target = "0ms" }"#),
            "links[1].queue.aqm.target", Some("\"0ns\""), "must be > 0"),
        case("codel zero interval", edit(r#"aqm = { type = "droptail" }"#, r#"aqm = { type = "codel", interval = "0s" }"#),
            "links[1].queue.aqm.interval", Some("\"0ns\""), "must be > 0"),
        case("codel target not below interval", edit(r#"aqm = { type = "droptail" }"#, r#"aqm = { type = "codel", target = "100ms", interval = "100ms" }"#),
            "links[1].queue.aqm.target", Some("\"100ms\""), "must be < interval = \"100ms\""),
        case("codel zero mtu", edit(r#"aqm = { type = "droptail" }"#, r#"aqm = { type = "codel", mtu = 0 }"#),
            "links[1].queue.aqm.mtu", Some("0"), "must be in [1, 65535] bytes"),
        case("codel zero ce_threshold", edit(r#"aqm = { type = "droptail" }"#, r#"aqm = { type = "codel", ce_threshold = "0us" }"#),
            "links[1].queue.aqm.ce_threshold", Some("\"0ns\""), "must be > 0"),
        case("codel unknown key", edit(r#"aqm = { type = "droptail" }"#, r#"aqm = { type = "codel", quantum = 1514 }"#),
            "links[1].queue.aqm.quantum", N, "unknown field `quantum`"),
        case("ared max_th without min_th", edit(r#"aqm = { type = "droptail" }"#, r#"aqm = { type = "ared", max_th = 15 }"#),
            "links[1].queue.aqm.max_th", N, "give min_th too, or neither"),
        case("ared bottom above top", edit(r#"aqm = { type = "droptail" }"#, r#"aqm = { type = "ared", bottom = 0.6, top = 0.5 }"#),
            "links[1].queue.aqm.bottom", Some("0.6"), "must be <= top = 0.5"),
        case("ared beta of one", edit(r#"aqm = { type = "droptail" }"#, r#"aqm = { type = "ared", beta = 1.0 }"#),
            "links[1].queue.aqm.beta", Some("1"), "must be in (0, 1)"),
        case("ared zero interval", edit(r#"aqm = { type = "droptail" }"#, r#"aqm = { type = "ared", interval = "0s" }"#),
            "links[1].queue.aqm.interval", Some("\"0ns\""), "must be > 0"),
        // --- self-configuring RED (Feng) ---------------------------------------------------
        case("feng_red alpha of one", edit(r#"aqm = { type = "droptail" }"#, r#"aqm = { type = "feng_red", alpha = 1.0 }"#),
            "links[1].queue.aqm.alpha", Some("1"), "must be a finite number > 1"),
        case("feng_red beta below one", edit(r#"aqm = { type = "droptail" }"#, r#"aqm = { type = "feng_red", beta = 0.5 }"#),
            "links[1].queue.aqm.beta", Some("0.5"), "must be a finite number > 1"),
        case("feng_red thresholds out of order", edit(r#"aqm = { type = "droptail" }"#, r#"aqm = { type = "feng_red", min_th = 20 }"#),
            "links[1].queue.aqm.max_th", Some("15"), "must be > min_th = 20"),
        case("feng_red top above one", edit(r#"aqm = { type = "droptail" }"#, r#"aqm = { type = "feng_red", top = 1.5 }"#),
            "links[1].queue.aqm.top", Some("1.5"), "must be a probability in (0, 1]"),
        case("feng_red bottom above top", edit(r#"aqm = { type = "droptail" }"#, r#"aqm = { type = "feng_red", bottom = 0.5, top = 0.4, max_p = 0.4 }"#),
            "links[1].queue.aqm.bottom", Some("0.5"), "must be <= top = 0.4"),
        case("feng_red negative bottom", edit(r#"aqm = { type = "droptail" }"#, r#"aqm = { type = "feng_red", bottom = -0.1 }"#),
            "links[1].queue.aqm.bottom", Some("-0.1"), "must be a probability in [0, 1]"),
        case("feng_red initial max_p above top", edit(r#"aqm = { type = "droptail" }"#, r#"aqm = { type = "feng_red", top = 0.01 }"#),
            "links[1].queue.aqm.max_p", Some("0.02"), "must be in [bottom, top] = [0, 0.01]"),
        case("feng_red mark_above_max_th without ecn", edit(r#"aqm = { type = "droptail" }"#, r#"aqm = { type = "feng_red", mark_above_max_th = true }"#),
            "links[1].queue.aqm.mark_above_max_th", Some("true"), "only meaningful with ecn = true"),
        case("feng_red unknown key", edit(r#"aqm = { type = "droptail" }"#, r#"aqm = { type = "feng_red", gamma = 1.5 }"#),
            "links[1].queue.aqm.gamma", N, "unknown field `gamma`"),
        // --- PSAND ----------------------------------------------------------------------------
        case("psand zero coef", edit(r#"aqm = { type = "droptail" }"#, r#"aqm = { type = "psand", coef = 0.0 }"#),
            "links[1].queue.aqm.coef", Some("0"), "must be a finite number > 0"),
        case("psand negative gamma", edit(r#"aqm = { type = "droptail" }"#, r#"aqm = { type = "psand", gamma = -1.0 }"#),
            "links[1].queue.aqm.gamma", Some("-1"), "must be a finite number >= 0"),
        case("psand zero target", edit(r#"aqm = { type = "droptail" }"#, r#"aqm = { type = "psand", target = 0.0 }"#),
            "links[1].queue.aqm.target", Some("0"), "must be a finite number > 0 (packets)"),
        case("psand zero lower", edit(r#"aqm = { type = "droptail" }"#, r#"aqm = { type = "psand", lower = 0.0 }"#),
            "links[1].queue.aqm.lower", Some("0"), "must be a probability in (0, 1]"),
        case("psand upper above one", edit(r#"aqm = { type = "droptail" }"#, r#"aqm = { type = "psand", upper = 1.5 }"#),
            "links[1].queue.aqm.upper", Some("1.5"), "must be a probability in (0, 1]"),
        case("psand lower above upper", edit(r#"aqm = { type = "droptail" }"#, r#"aqm = { type = "psand", lower = 0.5, upper = 0.4, max_p = 0.45 }"#),
            "links[1].queue.aqm.lower", Some("0.5"), "must be <= upper = 0.4"),
        case("psand initial max_p outside the bounds", edit(r#"aqm = { type = "droptail" }"#, r#"aqm = { type = "psand", max_p = 0.9 }"#),
            "links[1].queue.aqm.max_p", Some("0.9"), "must be in [lower, upper] = [0.01, 0.75]"),
        case("psand zero interval", edit(r#"aqm = { type = "droptail" }"#, r#"aqm = { type = "psand", interval = "0s" }"#),
            "links[1].queue.aqm.interval", Some("\"0ns\""), "must be > 0"),
        // 150KB at mean_pktsize 1000 is B = 150 packets.
        case("psand target at the buffer capacity", edit(r#"aqm = { type = "droptail" }"#, r#"aqm = { type = "psand", target = 150 }"#),
            "links[1].queue.aqm.target", Some("150"), "must be < the buffer capacity B = 150 packets"),
        case("psand explicit min_th above the automatic max_th", edit(r#"aqm = { type = "droptail" }"#, r#"aqm = { type = "psand", min_th = 25 }"#),
            "links[1].queue.aqm.max_th", Some("20"), "must be > min_th = 25 (automatic from target = 10 and buffer B = 150 packets"),
        case("psand explicit thresholds out of order", edit(r#"aqm = { type = "droptail" }"#, r#"aqm = { type = "psand", min_th = 10, max_th = 5 }"#),
            "links[1].queue.aqm.max_th", Some("5"), "must be > min_th = 10"),
        case("psand unknown k_cur", edit(r#"aqm = { type = "droptail" }"#, r#"aqm = { type = "psand", k_cur = "median" }"#),
            "links[1].queue.aqm.k_cur", N, "unknown variant `median`, expected `ewma` or `interval_mean`"),
        case("psand k_cur not a string", edit(r#"aqm = { type = "droptail" }"#, r#"aqm = { type = "psand", k_cur = 1 }"#),
            "links[1].queue.aqm.k_cur", N, "invalid type: integer `1`, expected `ewma` or `interval_mean`"),
        case("psand w_q above one", edit(r#"aqm = { type = "droptail" }"#, r#"aqm = { type = "psand", w_q = 2.0 }"#),
            "links[1].queue.aqm.w_q", Some("2"), "must be in (0, 1], or \"auto\""),
        // --- PI -----------------------------------------------------------------------------
        case("pi negative a", edit(r#"aqm = { type = "droptail" }"#, r#"aqm = { type = "pi", a = -1e-5 }"#),
            "links[1].queue.aqm.a", Some("-0.00001"), "must be a finite number >= 0"),
        case("pi negative b", edit(r#"aqm = { type = "droptail" }"#, r#"aqm = { type = "pi", b = -1e-5 }"#),
            "links[1].queue.aqm.b", Some("-0.00001"), "must be a finite number >= 0"),
        case("pi zero sampling frequency", edit(r#"aqm = { type = "droptail" }"#, r#"aqm = { type = "pi", w = 0.0 }"#),
            "links[1].queue.aqm.w", Some("0"), "must be a sampling frequency in (0, 1e9] Hz"),
        case("pi negative q_ref", edit(r#"aqm = { type = "droptail" }"#, r#"aqm = { type = "pi", q_ref = -5.0 }"#),
            "links[1].queue.aqm.q_ref", Some("-5"), "must be a finite number >= 0 (packets)"),
        case("pi zero mean_pktsize", edit(r#"aqm = { type = "droptail" }"#, r#"aqm = { type = "pi", mean_pktsize = 0 }"#),
            "links[1].queue.aqm.mean_pktsize", Some("0"), "must be in [1, "),
        case("pi unknown key", edit(r#"aqm = { type = "droptail" }"#, r#"aqm = { type = "pi", qref = 50 }"#),
            "links[1].queue.aqm.qref", N, "unknown field `qref`"),
        case("red max_th not above min_th", edit(r#"aqm = { type = "droptail" }"#, r#"aqm = { type = "red", min_th = 15, max_th = 5 }"#),
            "links[1].queue.aqm.max_th", Some("5"), "must be > min_th = 15"),
        case("red max_p zero", edit(r#"aqm = { type = "droptail" }"#, r#"aqm = { type = "red", min_th = 5, max_th = 15, max_p = 0.0 }"#),
            "links[1].queue.aqm.max_p", Some("0"), "must be a probability in (0, 1]"),
        case("red w_q above one", edit(r#"aqm = { type = "droptail" }"#, r#"aqm = { type = "red", min_th = 5, max_th = 15, w_q = 1.5 }"#),
            "links[1].queue.aqm.w_q", Some("1.5"), "must be in (0, 1], or \"auto\""),
        case("red w_q as a word other than auto", edit(r#"aqm = { type = "droptail" }"#, r#"aqm = { type = "red", min_th = 5, max_th = 15, w_q = "fast" }"#),
            "links[1].queue.aqm.w_q", N, "expected a number in (0, 1] or \"auto\""),
        case("red mark_above_max_th without ecn", edit(r#"aqm = { type = "droptail" }"#, r#"aqm = { type = "red", min_th = 5, max_th = 15, mark_above_max_th = true }"#),
            "links[1].queue.aqm.mark_above_max_th", Some("true"), "only meaningful with ecn = true"),
        case("red unknown key", edit(r#"aqm = { type = "droptail" }"#, r#"aqm = { type = "red", min_th = 5, max_th = 15, maxp = 0.1 }"#),
            "links[1].queue.aqm.maxp", N, "unknown field `maxp`"),
        case("blue d1 above one", edit(r#"aqm = { type = "droptail" }"#, r#"aqm = { type = "blue", d1 = 1.5 }"#),
            "links[1].queue.aqm.d1", Some("1.5"), "must be in [0, 1]"),
        case("blue negative d2", edit(r#"aqm = { type = "droptail" }"#, r#"aqm = { type = "blue", d2 = -0.001 }"#),
            "links[1].queue.aqm.d2", Some("-0.001"), "must be in [0, 1]"),
        case("blue idle catch-up without a freeze time", edit(r#"aqm = { type = "droptail" }"#, r#"aqm = { type = "blue", freeze_time = "0s" }"#),
            "links[1].queue.aqm.idle_catchup", Some("true"), "needs freeze_time > 0"),
        case("blue threshold at the byte limit", edit(r#"aqm = { type = "droptail" }"#, r#"aqm = { type = "blue", byte_mode = true, increase_threshold = 150 }"#),
            "links[1].queue.aqm.increase_threshold", Some("150"), "must be < limit_bytes = 150000 B"),
        case("blue negative threshold", edit(r#"aqm = { type = "droptail" }"#, r#"aqm = { type = "blue", increase_threshold = -1 }"#),
            "links[1].queue.aqm.increase_threshold", Some("-1"), "must be a finite number >= 0"),
        case("blue zero mean_pktsize", edit(r#"aqm = { type = "droptail" }"#, r#"aqm = { type = "blue", mean_pktsize = 0 }"#),
            "links[1].queue.aqm.mean_pktsize", Some("0"), "must be in [1, 65535] bytes"),
        case("blue unknown key", edit(r#"aqm = { type = "droptail" }"#, r#"aqm = { type = "blue", delta1 = 0.1 }"#),
            "links[1].queue.aqm.delta1", N, "unknown field `delta1`"),
        case("sfb zero levels", edit(r#"aqm = { type = "droptail" }"#, r#"aqm = { type = "sfb", levels = 0 }"#),
            "links[1].queue.aqm.levels", Some("0"), "must be in [1, 32]"),
        case("sfb too many bins", edit(r#"aqm = { type = "droptail" }"#, r#"aqm = { type = "sfb", bins = 4096 }"#),
            "links[1].queue.aqm.bins", Some("4096"), "must be in [1, 1024]"),
        case("sfb bin_size above max", edit(r#"aqm = { type = "droptail" }"#, r#"aqm = { type = "sfb", bin_size = 30, max = 25 }"#),
            "links[1].queue.aqm.bin_size", Some("30"), "must be <= max = 25"),
        case("sfb zero max", edit(r#"aqm = { type = "droptail" }"#, r#"aqm = { type = "sfb", max = 0, bin_size = 0 }"#),
            "links[1].queue.aqm.max", Some("0"), "must be at least 1").count(2),
        case("sfb increment above one", edit(r#"aqm = { type = "droptail" }"#, r#"aqm = { type = "sfb", increment = 2.0 }"#),
            "links[1].queue.aqm.increment", Some("2"), "must be in [0, 1]"),
        case("sfb negative decrement", edit(r#"aqm = { type = "droptail" }"#, r#"aqm = { type = "sfb", decrement = -0.1 }"#),
            "links[1].queue.aqm.decrement", Some("-0.1"), "must be in [0, 1]"),
        case("sfb negative penalty rate", edit(r#"aqm = { type = "droptail" }"#, r#"aqm = { type = "sfb", penalty_rate = -5.0 }"#),
            "links[1].queue.aqm.penalty_rate", Some("-5"), "(packets per second)"),
        case("sfb warm-up not shorter than the rehash interval", edit(r#"aqm = { type = "droptail" }"#, r#"aqm = { type = "sfb", rehash_interval = "10s", warmup_time = "10s" }"#),
            "links[1].queue.aqm.warmup_time", Some(r#""10s""#), "must be < rehash_interval = \"10s\""),
        case("sfb warm-up without rehashing", edit(r#"aqm = { type = "droptail" }"#, r#"aqm = { type = "sfb", rehash_interval = "0s" }"#),
            "links[1].queue.aqm.warmup_time", Some(r#""1min""#), "needs rehash_interval > 0"),
        case("sfb unknown key", edit(r#"aqm = { type = "droptail" }"#, r#"aqm = { type = "sfb", limit = 100 }"#),
            "links[1].queue.aqm.limit", N, "unknown field `limit`"),
        case("rio min_th above max_th", edit(r#"aqm = { type = "droptail" }"#, r#"aqm = { type = "rio", levels = [{ min_th = 30, max_th = 15 }] }"#),
            "links[1].queue.aqm.levels[0].max_th", Some(r#"15"#), "must be > min_th = 30"),
        case("rio higher precedence with higher thresholds in rio_c", edit(r#"aqm = { type = "droptail" }"#, r#"aqm = { type = "rio", levels = [{ min_th = 5, max_th = 15 }, { min_th = 10, max_th = 30 }] }"#),
            "links[1].queue.aqm.levels[1].min_th", Some(r#"10"#), "must be <= levels[0].min_th = 5: in mode \"rio_c\" a higher drop precedence must not be dropped less").count(2),
        case("rio higher precedence with a smaller max_p in wred", edit(r#"aqm = { type = "droptail" }"#, r#"aqm = { type = "rio", mode = "wred", levels = [{ min_th = 20, max_th = 40, max_p = 0.2 }, { min_th = 10, max_th = 20, max_p = 0.1 }] }"#),
            "links[1].queue.aqm.levels[1].max_p", Some(r#"0.1"#), "must be >= levels[0].max_p = 0.2"),
        case("rio max_p of zero", edit(r#"aqm = { type = "droptail" }"#, r#"aqm = { type = "rio", levels = [{ min_th = 5, max_th = 15, max_p = 0 }] }"#),
            "links[1].queue.aqm.levels[0].max_p", Some(r#"0"#), "must be a probability in (0, 1]"),
        case("rio max_p above one", edit(r#"aqm = { type = "droptail" }"#, r#"aqm = { type = "rio", levels = [{ min_th = 5, max_th = 15, max_p = 1.5 }] }"#),
            "links[1].queue.aqm.levels[0].max_p", Some(r#"1.5"#), "must be a probability in (0, 1]"),
        case("rio four levels", edit(r#"aqm = { type = "droptail" }"#, r#"aqm = { type = "rio", levels = [{ min_th = 40, max_th = 80 }, { min_th = 30, max_th = 60 }, { min_th = 20, max_th = 40 }, { min_th = 10, max_th = 20 }] }"#),
            "links[1].queue.aqm.levels", Some(r#"4 levels"#), "must have 1 to 3 levels"),
        case("rio no levels", edit(r#"aqm = { type = "droptail" }"#, r#"aqm = { type = "rio", levels = [] }"#),
            "links[1].queue.aqm.levels", Some(r#"0 levels"#), "must have 1 to 3 levels"),
        case("rio per-level weight in wred", edit(r#"aqm = { type = "droptail" }"#, r#"aqm = { type = "rio", mode = "wred", levels = [{ min_th = 5, max_th = 15, w_q = 0.01 }] }"#),
            "links[1].queue.aqm.levels[0].w_q", Some(r#"0.01"#), "not allowed in mode \"wred\""),
        case("rio per-level weight of zero", edit(r#"aqm = { type = "droptail" }"#, r#"aqm = { type = "rio", levels = [{ min_th = 5, max_th = 15, w_q = 0 }] }"#),
            "links[1].queue.aqm.levels[0].w_q", Some(r#"0"#), "must be in (0, 1]"),
        case("rio weight above one", edit(r#"aqm = { type = "droptail" }"#, r#"aqm = { type = "rio", w_q = 2.0 }"#),
            "links[1].queue.aqm.w_q", Some(r#"2"#), "must be in (0, 1]"),
        case("rio unknown mode", edit(r#"aqm = { type = "droptail" }"#, r#"aqm = { type = "rio", mode = "rio_x" }"#),
            "links[1].queue.aqm.mode", N, "unknown variant `rio_x`, expected one of `rio_c`, `rio_d`, `wred`"),
        case("rio ns-2 total-average bug outside two-level rio_c", edit(r#"aqm = { type = "droptail" }"#, r#"aqm = { type = "rio", mode = "rio_d", total_avg_on_in_only = true }"#),
            "links[1].queue.aqm.total_avg_on_in_only", Some(r#"true"#), "only for mode \"rio_c\" with 2 levels"),
        case("rio unknown key in a level", edit(r#"aqm = { type = "droptail" }"#, r#"aqm = { type = "rio", levels = [{ min_th = 5, max_th = 15, maxp = 0.1 }] }"#),
            "links[1].queue.aqm.levels[0].maxp", N, "unknown field `maxp`"),
        case("bio unknown variant letters", edit(r#"aqm = { type = "droptail" }"#, r#"aqm = { type = "bio", variant = "ABC", levels = [{ max_th = 100 }] }"#),
            "links[1].queue.aqm.variant", Some(r#""ABC""#), "must be three letters: decrement S or A, increment S or A, mark T or I (one of \"SST\""),
        case("bio lower-case variant", edit(r#"aqm = { type = "droptail" }"#, r#"aqm = { type = "bio", variant = "aai", levels = [{ max_th = 100 }] }"#),
            "links[1].queue.aqm.variant", Some(r#""aai""#), "must be three letters"),
        case("bio missing levels", edit(r#"aqm = { type = "droptail" }"#, r#"aqm = { type = "bio" }"#),
            "links[1].queue.aqm", N, "missing field `levels`"),
        case("bio four levels", edit(r#"aqm = { type = "droptail" }"#, r#"aqm = { type = "bio", levels = [{ max_th = 100 }, { max_th = 90 }, { max_th = 80 }, { max_th = 70 }] }"#),
            "links[1].queue.aqm.levels", Some(r#"4 levels"#), "must have 1 to 3 levels"),
        case("bio T rule without min_th", edit(r#"aqm = { type = "droptail" }"#, r#"aqm = { type = "bio", variant = "AAT", levels = [{ max_th = 100 }] }"#),
            "links[1].queue.aqm.levels[0].min_th", Some(r#"unset"#), "required by the T mark rule (variant \"AAT\")"),
        case("bio I rule with min_th", edit(r#"aqm = { type = "droptail" }"#, r#"aqm = { type = "bio", variant = "SSI", levels = [{ max_th = 100, min_th = 10 }] }"#),
            "links[1].queue.aqm.levels[0].min_th", Some(r#"10"#), "not used by the I mark rule"),
        case("bio min_th at max_th", edit(r#"aqm = { type = "droptail" }"#, r#"aqm = { type = "bio", variant = "SST", levels = [{ max_th = 100, min_th = 100 }] }"#),
            "links[1].queue.aqm.levels[0].min_th", Some(r#"100"#), "must be < max_th = 100"),
        case("bio zero max_th", edit(r#"aqm = { type = "droptail" }"#, r#"aqm = { type = "bio", levels = [{ max_th = 0 }] }"#),
            "links[1].queue.aqm.levels[0].max_th", Some(r#"0"#), "must be a finite number > 0"),
        case("bio higher precedence with a higher max_th under the A increment", edit(r#"aqm = { type = "droptail" }"#, r#"aqm = { type = "bio", variant = "SAI", levels = [{ max_th = 100 }, { max_th = 130 }] }"#),
            "links[1].queue.aqm.levels[1].max_th", Some(r#"130"#), "must be <= levels[0].max_th = 100: the A increment rule"),
        case("bio higher precedence with a higher min_th under the T mark", edit(r#"aqm = { type = "droptail" }"#, r#"aqm = { type = "bio", variant = "SST", levels = [{ max_th = 100, min_th = 10 }, { max_th = 130, min_th = 20 }] }"#),
            "links[1].queue.aqm.levels[1].min_th", Some(r#"20"#), "must be <= levels[0].min_th = 10: the T mark rule"),
        case("bio negative freeze time", edit(r#"aqm = { type = "droptail" }"#, r#"aqm = { type = "bio", levels = [{ max_th = 100, freeze_inc = "-3ms" }] }"#),
            "links[1].queue.aqm.levels[0].freeze_inc", N, "invalid duration \"-3ms\": must not be negative"),
        case("bio both freeze forms", edit(r#"aqm = { type = "droptail" }"#, r#"aqm = { type = "bio", levels = [{ max_th = 100, freeze_time = "10ms", freeze_dec = "5ms" }] }"#),
            "links[1].queue.aqm.levels[0].freeze_time", Some(r#""10ms""#), "give either freeze_time"),
        case("bio d1 above one", edit(r#"aqm = { type = "droptail" }"#, r#"aqm = { type = "bio", levels = [{ max_th = 100, d1 = 1.5 }] }"#),
            "links[1].queue.aqm.levels[0].d1", Some(r#"1.5"#), "must be in [0, 1]"),
        case("bio idle catch-up without a decrement freeze", edit(r#"aqm = { type = "droptail" }"#, r#"aqm = { type = "bio", levels = [{ max_th = 100, freeze_dec = "0s" }] }"#),
            "links[1].queue.aqm.idle_catchup", Some(r#"true"#), "needs a decrement freeze time > 0 at levels[0]"),
        case("red missing min_th", edit(r#"aqm = { type = "droptail" }"#, r#"aqm = { type = "red", max_th = 15 }"#),
            "links[1].queue.aqm", N, "missing field `min_th`"),
        case("red negative min_th", edit(r#"aqm = { type = "droptail" }"#, r#"aqm = { type = "red", min_th = -1.0, max_th = 15 }"#),
            "links[1].queue.aqm.min_th", Some("-1"), "must be a finite number >= 0"),
        case("unknown loss type", loss(r#"{ type = "burst", p = 0.1 }"#),
            "links[1].loss.type", Some("\"burst\""), "unknown type; expected one of \"bernoulli\", \"gilbert_elliott\""),
        case("non-string loss type", loss("{ type = 3, p = 0.1 }"),
            "links[1].loss.type", Some("3"), "unknown type"),
        case("missing loss type", loss("{ p = 0.1 }"),
            "links[1].loss", N, "missing field `type`; expected one of \"bernoulli\", \"gilbert_elliott\""),
        case("unknown size_dist", edit(r#"size_dist = "exponential""#, r#"size_dist = "pareto""#),
            "flows[1].size_dist", N, "unknown variant `pareto`, expected `fixed` or `exponential`"),
        // --- references, names and topology ----------------------------------------------
        case("link to an unknown node", edit(r#"b = "h2""#, r#"b = "h9""#),
            "links[1].b", Some("\"h9\""), "no node has this name")
            .count(4), // and h2 is unreachable for each of the three flows
        case("flow from an unknown node", edit(r#"src = "h2""#, r#"src = "nowhere""#),
            "flows[2].src", Some("\"nowhere\""), "no node has this name"),
        case("flow from a router", edit(r#"src = "h2""#, r#"src = "r1""#),
            "flows[2].src", Some("\"r1\""), "must be a host"),
        case("flow to itself", edit(r#"dst = "h1""#, r#"dst = "h2""#),
            "flows[2].dst", Some("\"h2\""), "must differ from src"),
        case("flow with no route (disconnected host)",
            append("[[nodes]]\nname = \"h3\"\ntype = \"host\"\n").replace(
                "src = \"h1\"\ndst = \"h2\"\npacket_size = 1500",
                "src = \"h1\"\ndst = \"h3\"\npacket_size = 1500"),
            "flows[0].dst", Some("\"h3\""), "no route from \"h1\""),
        case("duplicate node name", append("[[nodes]]\nname = \"r1\"\ntype = \"router\"\n"),
            "nodes[3].name", Some("\"r1\""), "duplicate node name"),
        case("duplicate flow name", edit(r#"name = "poi1""#, r#"name = "cbr1""#),
            "flows[1].name", Some("\"cbr1\""), "duplicate flow name"),
        case("duplicate link name", edit(r#"name = "bottleneck""#, r#"name = "access""#),
            "links[1].name", Some("\"access\""), "duplicate link name"),
        case("name with whitespace", edit(r#"name = "onoff1""#, r#"name = "on off""#),
            "flows[2].name", Some("\"on off\""), "must be non-empty and use only ASCII letters"),
        case("empty node name", edit(r#"name = "r1""#, r#"name = """#),
            "nodes[1].name", Some("\"\""), "must be non-empty")
            .count(6), // and both links name the missing "r1", so no flow has a route
        case("self-loop link", edit(r#"b = "r1""#, r#"b = "h1""#),
            "links[0].b", Some("\"h1\""), "no self-loops")
            .count(4), // and h1 is cut off, so no flow has a route
        case("parallel links",
            append("[[links]]\na = \"r1\"\nb = \"h1\"\nbandwidth = \"1Gbps\"\ndelay = \"1ms\"\nqueue = { limit_pkts = 10 }\n"),
            "links[2].b", Some("\"h1\""), "links[0] already joins"),
        case("scenario without nodes",
            "schema_version = 1\n[simulation]\nduration = \"1s\"\n".into(),
            "nodes", Some("[]"), "a scenario needs at least one node"),
        case("node name with '>' (queue names are from->to)", edit(r#"name = "r1""#, r#"name = "r>1""#),
            "nodes[1].name", Some("\"r>1\""), "use only ASCII letters")
            .count(6), // and both links name the missing "r1", so no flow has a route
        case("unnamed link label equal to another link's name",
            append("[[nodes]]\nname = \"h3\"\ntype = \"host\"\n[[links]]\na = \"r1\"\nb = \"h3\"\nbandwidth = \"1Gbps\"\ndelay = \"1ms\"\nqueue = { limit_pkts = 10 }\n")
                .replace(r#"name = "access""#, r#"name = "r1-h3""#),
            "links[2]", Some("\"r1-h3\""), "give one of them a distinct `name`"),
        case("packet larger than a byte limit on the route", edit(r#"limit_bytes = "150KB""#, r#"limit_bytes = "1400B""#),
            "flows[0].packet_size", Some("1500"), "exceeds links[1].queue.limit_bytes = 1400 on the route"),
        case("stop beyond the end of the run", edit(r#"stop = "1500ms""#, r#"stop = "3s""#),
            "flows[0].stop", Some("\"3s\""), "must be <= simulation.duration = \"2s\""),
        case("sample_queues names no queue",
            edit(r#"sample_interval = "10ms""#, "sample_interval = \"10ms\"\nsample_queues = [\"r1->h2\", \"h2->h1\"]"),
            "simulation.sample_queues[1]", Some("\"h2->h1\""), "names no queue (queues are named \"from->to\""),
        case("sample_queues names a queue twice",
            edit(r#"sample_interval = "10ms""#, "sample_interval = \"10ms\"\nsample_queues = [\"r1->h2\", \"r1->h2\"]"),
            "simulation.sample_queues[1]", Some("\"r1->h2\""), "named twice"),
        case("sample_queues unknown mode",
            edit(r#"sample_interval = "10ms""#, "sample_interval = \"10ms\"\nsample_queues = \"busiest\""),
            "simulation.sample_queues", N, "expected \"auto\", \"all\", \"core\" or a list of queue names"),
        // --- packet capture (scenario/capture.rs) ---------------------------------------
        case("capture of an unknown link", append("[[captures]]\nlink = \"r1->h3\""),
            "captures[0].link", Some("\"r1->h3\""), "names no link"),
        case("capture window with start >= stop",
            append("[[captures]]\nlink = \"bottleneck\"\nstart = \"1s\"\nstop = \"500ms\""),
            "captures[0].stop", Some("\"500ms\""), "must be > start = \"1s\""),
        case("capture starting at the end of the run",
            append("[[captures]]\nlink = \"bottleneck\"\nstart = \"2s\""),
            "captures[0].start", Some("\"2s\""), "must be < simulation.duration = \"2s\""),
        case("capture snaplen 0", append("[[captures]]\nlink = \"bottleneck\"\nsnaplen = 0"),
            "captures[0].snaplen", Some("0"), "must be in [1, 262144] bytes"),
        case("capture snaplen above 262144", append("[[captures]]\nlink = \"bottleneck\"\nsnaplen = 262145"),
            "captures[0].snaplen", Some("262145"), "must be in [1, 262144] bytes"),
        case("the same link captured twice",
            append("[[captures]]\nlink = \"r1->h2\"\n[[captures]]\nlink = \"bottleneck\""),
            "captures[1].link", Some("\"bottleneck\""), "already captured by captures[0]"),
        case("a link captured by its table and by captures",
            edit("name = \"access\"", "name = \"access\"\ncapture = true").replace("[[flows]]\nname = \"cbr1\"", "[[captures]]\nlink = \"h1->r1\"\n[[flows]]\nname = \"cbr1\""),
            "captures[0].link", Some("\"h1->r1\""), "already captured by links[0].capture"),
        case("too many time-series samples", edit(r#"sample_interval = "10ms""#, r#"sample_interval = "100ns""#),
            "simulation.sample_interval", Some("\"100ns\""), "at most 10000000 are recorded"),
        // --- values that would hang the simulator or overflow its clock ------------------
        case("pkt_rate too high: zero-ns gaps would stop time", edit("pkt_rate = 300.0", "pkt_rate = 1e12"),
            "flows[1].pkt_rate", Some("1000000000000"), "in [1e-6, 1e9] packets per second"),
        case("pkt_rate too low: gaps would overflow the clock", edit("pkt_rate = 300.0", "pkt_rate = 1e-7"),
            "flows[1].pkt_rate", Some("0.0000001"), "in [1e-6, 1e9] packets per second"),
        case("poisson rate above 1e9 packets per second",
            edit("pkt_rate = 300.0", r#"rate = "10Tbps""#),
            "flows[1].rate", Some("\"10Tbps\""), "gives 1.25e9 packets per second at packet_size = 1000 B"),
        case("duration beyond 1000000 s", edit(r#"duration = "2s""#, r#"duration = "300000000min""#),
            "simulation.duration", Some("\"300000000min\""), "must be <= \"1000000s\""),
        case("link delay beyond 1000000 s", edit(r#"delay = "20ms""#, r#"delay = "1000001s""#),
            "links[1].delay", Some("\"1000001s\""), "must be <= \"1000000s\""),
        case("off_time beyond 1000000 s", edit(r#"off_time = "150ms""#, r#"off_time = "300000000min""#),
            "flows[2].off_time", Some("\"300000000min\""), "must be <= \"1000000s\""),
        // --- CIOQ switches (r1 becomes a switch; its ports are links[0] and links[1]) -----
        case("switch without its table", edit("name = \"r1\"\ntype = \"router\"", "name = \"r1\"\ntype = \"switch\""),
            "nodes[1].switch", N, "required for type = \"switch\""),
        case("switch table on a router", edit("name = \"r1\"\ntype = \"router\"", &format!("name = \"r1\"\ntype = \"router\"\n{SWITCH}")),
            "nodes[1].switch", Some("\"r1\""), "only a type = \"switch\" node has a switch table; this node is a router"),
        case("switch ports of different rates", switch(""),
            "links[1].bandwidth", Some("\"10Mbps\""), "every port of switch \"r1\" must have one line rate; links[0] has \"100Mbps\""),
        // 2 links (4 queues) and r1's 4 VOQs, 8 series each, 10^6 + 1 samples: 6.4e7 values,
        // over the 5e7 limit only because the VOQs are traced.
        case("traced switch inputs exceed the time-series limit",
            switch("trace_inputs = true\n").replace("\"10Mbps\"", "\"100Mbps\"")
                .replace(r#"sample_interval = "10ms""#, r#"sample_interval = "2us""#),
            "simulation.sample_interval", Some("\"2us\""),
            "records at least 64000064 time-series values (1000001 samples x 64 series: 8 queues x 8"),
        case("switch speedup 0", switch("").replace("speedup = 1.5", "speedup = 0.0").replace("\"10Mbps\"", "\"100Mbps\""),
            "nodes[1].switch.speedup", Some("0"), "must be a number in (0, 1024]"),
        case("switch speedup not finite", switch("").replace("speedup = 1.5", "speedup = inf").replace("\"10Mbps\"", "\"100Mbps\""),
            "nodes[1].switch.speedup", Some("inf"), "must be a number in (0, 1024]"),
        case("switch input queue without a limit", switch("").replace("limit_pkts = 20", "").replace("\"10Mbps\"", "\"100Mbps\""),
            "nodes[1].switch.input_queue.limit_pkts", N, "one of limit_pkts or limit_bytes is required"),
        case("switch input queue with a bad AQM field", switch("").replace("limit_pkts = 20", "limit_pkts = 20, aqm = { type = \"red\", min_th = 9, max_th = 3 }").replace("\"10Mbps\"", "\"100Mbps\""),
            "nodes[1].switch.input_queue.aqm.max_th", Some("3"), "must be > min_th = 9"),
        case("switch fabric of unknown type", switch("").replace("type = \"links\"", "type = \"bus\"").replace("\"10Mbps\"", "\"100Mbps\""),
            "nodes[1].switch.fabric.type", Some("\"bus\""), "unknown type; expected one of \"links\""),
        case("switch unknown field", switch("colour = 1\n").replace("\"10Mbps\"", "\"100Mbps\""),
            "nodes[1].switch.colour", N, "unknown field `colour`, expected one of `speedup`"),
        case("switch inputs neither voq nor fifo", switch("inputs = \"cells\"\n").replace("\"10Mbps\"", "\"100Mbps\""),
            "nodes[1].switch.inputs", N, "unknown variant `cells`"),
        case("fifo inputs with a per-port buffer", switch("inputs = \"fifo\"\ninput_buffer = \"per_port\"\n").replace("\"10Mbps\"", "\"100Mbps\""),
            "nodes[1].switch.input_buffer", Some("\"per_port\""), "only with inputs = \"voq\""),
        case("flow-queue inputs on a shared buffer", switch("input_buffer = \"per_port\"\n").replace("limit_pkts = 20", "limit_pkts = 20, aqm = { type = \"fq_codel\" }").replace("\"10Mbps\"", "\"100Mbps\""),
            "nodes[1].switch.input_queue.aqm.type", Some("\"fq_codel\""), "a multi-queue input needs inputs = \"voq\""),
        case("cioq_red with a negative nu", edit(r#"aqm = { type = "droptail" }"#, r#"aqm = { type = "cioq_red", nu = -1, min_th = 5, max_th = 15 }"#),
            "links[1].queue.aqm.nu", Some("-1"), "must be a finite number >= 0"),
        // --- [[repeat]] (errors name the template and, after expansion, the copy) --------
        case("repeat count zero", repeat("0", "", &[]),
            "repeat[0].count", Some("0"), "must be an integer from 1 to 1000000"),
        case("repeat count not an integer", repeat("2.5", "", &[]),
            "repeat[0].count", Some("2.5"), "must be an integer from 1 to 1000000"),
        case("repeat count a string", repeat("\"3\"", "", &[]),
            "repeat[0].count", Some("\"3\""), "must be an integer from 1 to 1000000"),
        case("repeat count above the bound", repeat("1000001", "", &[]),
            "repeat[0].count", Some("1000001"), "must be an integer from 1 to 1000000"),
        case("repeat count missing", append("[[repeat]]\nvar = \"k\""),
            "repeat[0]", N, "missing field `count`"),
        case("repeat unknown key", repeat("2", "copies = 2", &[]),
            "repeat[0].copies", N,
            "unknown field `copies`, expected one of `count`, `var`, `nodes`, `links`, `flows`"),
        case("repeat unknown key in a template", repeat("2", "", &[("colour", "\"red\"")]),
            "repeat[0].flows[0].colour (i = 0)", N, "unknown field `colour`"),
        case("repeat var not a word", repeat("2", "var = \"i j\"", &[]),
            "repeat[0].var", Some("\"i j\""), "only ASCII letters, digits and '_'"),
        case("repeat not an array of tables", edit("schema_version = 1", "schema_version = 1\nrepeat = 3"),
            "repeat", N, "invalid type: integer `3`, expected a sequence"),
        case("repeat name without placeholder", repeat("3", "", &[("name", "\"x\"")]),
            "repeat[0].flows[0].name", Some("\"x\""),
            "has no \"{i}\": all 3 copies would be named \"x\" (names must be unique)"),
        case("repeat placeholder of another var", repeat("2", "var = \"k\"", &[]),
            "repeat[0].flows[0].name", Some("\"x{i}\""), "has no \"{k}\""),
        case("repeat link joining the same nodes",
            append("[[repeat]]\ncount = 2\n[[repeat.links]]\nname = \"l{i}\"\na = \"h1\"\n\
                    b = \"h2\"\nbandwidth = \"1Mbps\"\ndelay = \"1ms\"\nqueue = { limit_pkts = 5 }"),
            "repeat[0].links[0]", N, "would join the same two nodes"),
        case("repeat name clashes with a top-level one", repeat("3", "", &[("name", "\"cbr{i}\"")]),
            "repeat[0].flows[0].name (i = 1)", Some("\"cbr1\""), "duplicate flow name"),
        case("repeat copy invalid at one index",
            repeat("4", "", &[("start", "{ from = \"1s\", step = \"400ms\" }")]),
            "repeat[0].flows[0].start (i = 3)", Some("\"2200ms\""), "must be < simulation.duration"),
        case("repeat template invalid in every copy", repeat("2", "", &[("packet_size", "0")]),
            "repeat[0].flows[0].packet_size (i = 1)", Some("0"), "must be in [1, 65535] bytes")
            .count(2),
        case("repeat template type error", repeat("2", "", &[("rate", "5")]),
            "repeat[0].flows[0].rate (i = 0)", N, "a bare number is ambiguous here"),
        case("repeat generator with a wrong key",
            repeat("2", "", &[("start", "{ from = \"0ms\", stride = \"1ms\" }")]),
            "repeat[0].flows[0].start", Some("{ from = \"0ms\", stride = \"1ms\" }"),
            "a generator is { from = DURATION, step = DURATION }"),
        case("repeat generator not a duration",
            repeat("2", "", &[("start", "{ from = \"0ms\", step = 5 }")]),
            "repeat[0].flows[0].start.step", Some("5"), "must be a duration string"),
        case("repeat step past the longest duration",
            repeat("3", "", &[("start", "{ from = \"0s\", step = \"600000s\" }")]),
            "repeat[0].flows[0].start.step", Some("\"600000s\""), "exceeds the longest duration"),
        case("repeat uniform empty range",
            repeat("2", "", &[("start", "{ uniform = [\"5ms\", \"5ms\"] }")]),
            "repeat[0].flows[0].start.uniform", Some("[\"5ms\", \"5ms\"]"), "with lo < hi"),
        case("repeat uniform one bound",
            repeat("2", "", &[("start", "{ uniform = [\"5ms\"] }")]),
            "repeat[0].flows[0].start.uniform", Some("[\"5ms\"]"), "must be [lo, hi]"),
        // --- versions, syntax and required fields ----------------------------------------
        case("unsupported schema_version", edit("schema_version = 1", "schema_version = 2"),
            "schema_version", Some("2"), "unsupported; this aqmlab reads 1"),
        case("negative schema_version", edit("schema_version = 1", "schema_version = -1"),
            "schema_version", N, "integer `-1`: must be 1 (the only schema version)"),
        case("missing schema_version", edit("schema_version = 1", ""),
            "", N, "missing field `schema_version`"),
        case("missing simulation.duration", edit("duration = \"2s\"\n", ""),
            "simulation", N, "missing field `duration`"),
        case("missing link delay", edit("delay = \"1ms\"\n", ""),
            "links[0]", N, "missing field `delay`"),
        // --- probes and asymmetric links ----------------------------------------------
        case("probe interval zero", probe("interval = \"0s\""),
            "flows[3].interval", Some("\"0ns\""), "must be > 0"),
        case("probe interval beyond the clock", probe("interval = \"2000000s\""),
            "flows[3].interval", Some("\"2000000s\""), "must be <= \"1000000s\""),
        case("probe precedence 8", probe("precedence = 8"),
            "flows[3].precedence", Some("8"), "must be a precedence in [0, 7]"),
        case("probe with a cbr field", probe("rate = \"1Mbps\""),
            "flows[3].rate", N, "not a field of type = \"probe\"; its fields are interval, precedence"),
        case("reverse_bandwidth zero",
            edit("bandwidth = \"10Mbps\"", "bandwidth = \"10Mbps\"\nreverse_bandwidth = \"0bps\""),
            "links[1].reverse_bandwidth", Some("\"0bps\""), "must be > 0"),
        case("TOML syntax error", edit(r#"seed = 7"#, r#"seed = "7"#),
            "", N, "TOML syntax error"),
        case("duplicate key (TOML)", edit("seed = 7", "seed = 7\nseed = 8"),
            "", N, "TOML syntax error"),
    ]
}

#[test]
fn every_invalid_scenario_reports_its_path_value_and_message() {
    let cases = cases();
    assert!(cases.len() >= 40, "only {} cases", cases.len());
    let mut failures = vec![];
    for c in &cases {
        if let Some(why) = c.check() {
            failures.push(format!(
                "- {} (want {} = {:?}: ..{}..): {why}",
                c.name,
                c.path,
                c.value.unwrap_or(""),
                c.fragment
            ));
        }
    }
    if !failures.is_empty() {
        // The whole table with what each case reports, for debugging.
        let mut all = String::new();
        for c in &cases {
            let got = match load(&c.text) {
                Ok(_) => "OK".to_string(),
                Err(e) => e.to_string().replace('\n', "\n      "),
            };
            all.push_str(&format!("  {}: {got}\n", c.name));
        }
        panic!(
            "{} of {} invalid-scenario cases failed:\n{}\n\nall cases:\n{all}",
            failures.len(),
            cases.len(),
            failures.join("\n")
        );
    }
}

/// A new AQM's registry line adds its tag to the message (the FIFO AQMs, then the
/// buffers with sub-queues); nothing here lists the tags.
#[test]
fn unknown_aqm_type_lists_every_registered_type() {
    let text = edit(
        r#"aqm = { type = "droptail" }"#,
        r#"aqm = { type = "bogus" }"#,
    );
    let errs = load(&text).expect_err("unknown type").0;
    let types = aqmlab_core::aqm::AQM_TYPES.iter();
    let want: Vec<String> = (types.chain(aqmlab_core::queue::buffer::BUFFER_TYPES))
        .map(|t| format!("\"{t}\""))
        .collect();
    let msg = &errs[0].message;
    assert!(
        msg.ends_with(&format!("expected one of {}", want.join(", "))),
        "{msg}"
    );
}

#[test]
fn case_names_are_unique() {
    let mut names: Vec<_> = cases().iter().map(|c| c.name).collect();
    names.sort();
    let n = names.len();
    names.dedup();
    assert_eq!(names.len(), n, "duplicate case names");
}

#[test]
fn the_base_scenario_loads_and_runs() {
    let s = load(BASE).unwrap_or_else(|e| panic!("base scenario is invalid:\n{e}"));
    assert_eq!(s.nodes.len(), 3);
    assert_eq!(s.links.len(), 2);
    assert_eq!(s.flows.len(), 3);
    let r = aqmlab_core::run(&s).expect("base scenario runs");
    assert_eq!(r.flows.len(), 3);
    assert_eq!(r.queues.len(), 4);
    for f in &r.flows {
        assert!(f.sent_pkts > 0, "flow {} sent nothing", f.name);
        assert!(f.received_pkts > 0, "flow {} received nothing", f.name);
    }
    // The canonical echo loads back to the same scenario.
    assert_eq!(load(&s.to_toml()).expect("echo loads"), s);
}

#[test]
fn a_valid_repeat_adds_its_copies_after_the_top_level_entries() {
    let s = load(&repeat("3", "", &[])).unwrap_or_else(|e| panic!("{e}"));
    let names: Vec<&str> = s.flows.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names, ["cbr1", "poi1", "onoff1", "x0", "x1", "x2"]);
}

#[test]
fn validation_reports_every_problem_at_once() {
    let text = BASE
        .replace(r#"warmup = "200ms""#, r#"warmup = "5s""#)
        .replace("p = 0.01", "p = 2.0")
        .replace("limit_pkts = 1000", "limit_pkts = 0")
        .replace("pkt_rate = 300.0", "pkt_rate = nan")
        .replace("shape = 1.5", "shape = 0.5")
        .replace(r#"src = "h2""#, r#"src = "r1""#);
    let errs = load(&text).expect_err("six problems").0;
    let paths: Vec<&str> = errs.iter().map(|e| e.path.as_str()).collect();
    assert_eq!(
        paths,
        [
            "simulation.warmup",
            "links[0].queue.limit_pkts",
            "links[1].loss.p",
            "flows[1].pkt_rate",
            "flows[2].src",
            "flows[2].shape",
        ],
        "{errs:#?}"
    );
    let shown = ScenarioErrors(errs).to_string();
    assert!(shown.starts_with("6 problems in the scenario:\n  - simulation.warmup = \"5s\": must be < simulation.duration = \"2s\""), "{shown}");
}

#[test]
fn errors_inside_tagged_tables_are_one_line() {
    // The inner path is spliced into `path`; the message carries no "in `p`" tail.
    let errs = load(&BASE.replace("p = 0.01", r#"p = "0.01""#))
        .expect_err("invalid")
        .0;
    assert_eq!(
        errs,
        [ScenarioError {
            path: "links[1].loss.p".into(),
            value: String::new(),
            message: "invalid type: string \"0.01\", expected f64".into(),
        }]
    );
}

#[test]
fn parse_errors_stop_at_the_first_problem() {
    // Serde stops at the first unknown key or wrong type; only validation collects.
    let text = BASE
        .replace("seed = 7", "seed = 7\nspeed = 2")
        .replace("p = 0.01", "p = \"high\"");
    let errs = load(&text).expect_err("invalid").0;
    assert_eq!(errs.len(), 1, "{errs:#?}");
    assert!(
        ["simulation.speed", "links[1].loss.p"].contains(&errs[0].path.as_str()),
        "{errs:#?}"
    );
}
