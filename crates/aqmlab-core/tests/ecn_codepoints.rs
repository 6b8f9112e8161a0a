//! The codepoint a flow sends (`ect`, RFC 3168 §5 and RFC 9331 §4): checked before the run,
//! echoed canonically, and, because every classic AQM treats ECT(1) as ECT(0) (RFC 9331
//! §5: only an L4S AQM classifies by it), a run with ECT(1) senders is the run with ECT(0)
//! senders, packet for packet, under each marking AQM.

mod common;

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
