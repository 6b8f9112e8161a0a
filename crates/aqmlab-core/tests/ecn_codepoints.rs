//! The codepoint a flow sends (`ect`, RFC 3168 §5 and RFC 9331 §4): checked before the run,
//! echoed canonically, and, because every classic AQM treats ECT(1) as ECT(0) (RFC 9331
//! §5: only an L4S AQM classifies by it), a run with ECT(1) senders is the run with ECT(0)
//! senders, packet for packet, under each marking AQM. The L4S modes (FQ-CoDel's and
//! CoDel's `ce_threshold_ecn = "ect1"`, PIE's `l4s`) are the exception, and each is checked
//! against the run it must equal.

mod common;

use aqmlab_core::aqm::Reason;
use aqmlab_core::{load, scenario::parse};
use common::{chain, queue, run};

/// A TCP flow (SACK) and a CBR flow from a to dst through r's 10 Mb/s port (`common::chain`);
/// `aqm` is that port's AQM table, `ecn` the lines both flows get.
fn with(aqm: &str, ecn: &str) -> String {
    let queue = format!("{{ limit_pkts = 100, aqm = {aqm} }}");
    let mut s = chain(
        "duration = \"10s\"\nseed = 3",
        "dst",
        ("100Mbps", "1ms", "{ limit_pkts = 100 }"),
        ("10Mbps", "20ms", &queue),
    );
    s.toml(&format!(
        "[[flows]]\nname = \"t1\"\ntype = \"tcp\"\nsrc = \"a\"\ndst = \"dst\"\n\
         packet_size = 1000\nvariant = \"sack\"\n{ecn}\n\
         [[flows]]\nname = \"c1\"\ntype = \"cbr\"\nsrc = \"a\"\ndst = \"dst\"\n\
         packet_size = 500\nrate = \"4Mbps\"\n{ecn}\n"
    ))
    .text()
}

#[test]
fn ect_is_checked_with_path_value_and_rule() {
    let e = load(&with("{ type = \"droptail\" }", "ect = \"ect1\"")).unwrap_err();
    let got: Vec<_> =
        e.0.iter()
            .map(|e| (e.path.as_str(), e.value.as_str()))
            .collect();
    assert_eq!(
        got,
        [("flows[0].ect", "\"ect1\""), ("flows[1].ect", "\"ect1\"")]
    );
    assert!(e.0[0].message.contains("only meaningful with ecn = true"));
    let e = load(&with(
        "{ type = \"droptail\" }",
        "ecn = true\nect = \"ect2\"",
    ))
    .unwrap_err();
    assert_eq!(e.0[0].path, "flows[0].ect");
    assert!(
        e.0[0]
            .message
            .contains("unknown variant `ect2`, expected `ect0` or `ect1`"),
        "{e}"
    );
}

#[test]
fn the_l4s_fields_are_checked_with_path_value_and_rule() {
    for (aqm, path, value, rule) in [
        (
            "{ type = \"codel\", ce_threshold_ecn = \"ect1\" }",
            "ce_threshold_ecn",
            "\"ect1\"",
            "only meaningful with ce_threshold",
        ),
        (
            "{ type = \"fq_codel\", ce_threshold_ecn = \"ect\" }",
            "ce_threshold_ecn",
            "\"ect\"",
            "only meaningful with ce_threshold",
        ),
        (
            "{ type = \"pie\", ce_threshold = \"1ms\" }",
            "ce_threshold",
            "\"1ms\"",
            "only meaningful with l4s = true",
        ),
        (
            "{ type = \"pie\", l4s = true, ce_threshold = \"0ms\" }",
            "ce_threshold",
            "\"0ns\"",
            "must be > 0",
        ),
    ] {
        let e = load(&with(aqm, "ecn = true")).unwrap_err();
        assert_eq!(e.0.len(), 1, "{aqm}: {e}");
        assert_eq!(e.0[0].path, format!("links[1].queue.aqm.{path}"), "{aqm}");
        assert_eq!(e.0[0].value, value, "{aqm}");
        assert!(e.0[0].message.contains(rule), "{aqm}: {e}");
    }
    let aqm = "{ type = \"codel\", ce_threshold = \"1ms\", ce_threshold_ecn = \"ect0\" }";
    let e = load(&with(aqm, "ecn = true")).unwrap_err();
    assert!(
        e.0[0]
            .message
            .contains("unknown variant `ect0`, expected `ect` or `ect1`"),
        "{e}"
    );
    // With PIE's L4S mode, classic ECN may be off: L4S packets are marked, classic dropped.
    load(&with("{ type = \"pie\", l4s = true }", "ecn = true")).unwrap();
}

#[test]
fn ect_is_echoed_only_where_set() {
    let set = parse(&with(
        "{ type = \"droptail\" }",
        "ecn = true\nect = \"ect1\"",
    ))
    .unwrap();
    let text = set.to_toml();
    assert_eq!(text.matches("ect = \"ect1\"").count(), 2, "{text}");
    assert_eq!(parse(&text).unwrap(), set);
    let unset = parse(&with("{ type = \"droptail\" }", "ecn = true")).unwrap();
    assert!(!unset.to_toml().contains("ect ="));
}

#[test]
fn classic_aqms_treat_ect1_as_ect0() {
    for aqm in [
        "{ type = \"red\", min_th = 5.0, max_th = 15.0, max_p = 0.1, w_q = 0.002, ecn = true }",
        "{ type = \"codel\", ecn = true }",
        "{ type = \"pie\", ecn = true }",
    ] {
        let ect0 = run(&with(aqm, "ecn = true"));
        let ect1 = run(&with(aqm, "ecn = true\nect = \"ect1\""));
        let marks: u64 = queue(&ect0, "r->dst").marked.iter().sum();
        // One mark handled differently would change the TCP flow's whole trajectory.
        assert!(marks >= 10, "{aqm}: {marks} marks, too few to tell");
        assert_eq!(ect0, ect1, "{aqm}");
        // And ECT(0) written out is the same run as ecn = true alone.
        assert_eq!(run(&with(aqm, "ecn = true\nect = \"ect0\"")), ect0, "{aqm}");
    }
}

#[test]
fn fq_codels_ect1_selector_step_marks_ect1_senders_only() {
    let ect1 = "ecn = true\nect = \"ect1\"";
    let sel = "{ type = \"fq_codel\", ce_threshold = \"1ms\", ce_threshold_ecn = \"ect1\" }";
    // ECT(0) senders: the step never applies, so the run is FQ-CoDel's without a threshold.
    let classic = run(&with(sel, "ecn = true"));
    assert_eq!(classic, run(&with("{ type = \"fq_codel\" }", "ecn = true")));
    assert_eq!(queue(&classic, "r->dst").marked[Reason::Early as usize], 0);
    // ECT(1) senders: every one is selected, so the run is the unselective threshold's.
    let l4s = run(&with(sel, ect1));
    let all = "{ type = \"fq_codel\", ce_threshold = \"1ms\" }";
    assert_eq!(l4s, run(&with(all, ect1)));
    let steps = queue(&l4s, "r->dst").marked[Reason::Early as usize];
    assert!(steps >= 10, "{steps} step marks, too few to tell");
    assert_ne!(l4s, classic);
}

#[test]
fn pies_l4s_mode_leaves_classic_senders_alone_and_step_marks_ect1_ones() {
    let l4s = "{ type = \"pie\", ecn = true, l4s = true }";
    // ECT(0) senders are classic: the run is PIE's without the mode, packet for packet.
    let classic = run(&with(l4s, "ecn = true"));
    assert_eq!(
        classic,
        run(&with("{ type = \"pie\", ecn = true }", "ecn = true"))
    );
    // ECT(1) senders never meet PIE's early signal; they are marked above 1 ms instead.
    let scalable = run(&with(l4s, "ecn = true\nect = \"ect1\""));
    let q = queue(&scalable, "r->dst");
    assert_eq!(q.dropped[Reason::Early as usize], 0);
    assert_eq!(q.marked[Reason::Early as usize], 0);
    let steps = q.marked[Reason::Dequeue as usize];
    assert!(steps >= 10, "{steps} step marks, too few to tell");
}
