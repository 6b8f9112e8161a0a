"""benchmarks/ns3_compare.py --agreement: the table and its flags (no ns-3 needed), and the
aqmlab side of the comparison (profile ns3.44 with the ns-3 script's overrides)."""

from __future__ import annotations

import aqmlab

from common import benchmark


def _module():
    return benchmark("ns3_compare")


def _result(util, goodput, drop, q, to):
    return {
        "bneck_util": util,
        "goodput_mbps": goodput,
        "drop_rate": drop,
        "mean_q_pkts": q,
        "timeouts": to,
    }


def test_agreement_table_medians_ranges_and_flags():
    m = _module()
    runs = [
        {
            "n": 20,
            "qdisc": "red",
            "seed": s,
            "aqmlab": _result(0.90 + d, 50.0, 0.010, 20.0 + 10 * d, 0),
            "ns3": _result(0.90, 50.0, 0.010, 20.0, 5),
        }
        for s, d in ((1, 0.0), (2, 0.01), (3, 0.03))
    ]
    table, flagged = m.agreement_table(runs)
    lines = table.splitlines()
    assert len(lines) == 2 + 5
    util = next(x for x in lines if "| utilisation |" in x)
    assert "0.9100 [0.9000-0.9300]" in util and "+1.1%" in util and "**yes**" not in util
    # timeouts: aqmlab 0 against ns-3 5 is -100%, flagged; a 0 against 0 is not
    assert [(n, q, metric) for n, q, metric, _ in flagged] == [(20, "red", "timeouts")]
    assert m.rel_diff(0, 0) == 0.0 and m.rel_diff(1, 0) is None


def test_aqmlab_side_mirrors_the_ns3_script():
    """The profile fills what the script leaves at ns-3's defaults (the RED guard, PRR),
    the script's overrides win (NewReno with SACK, an ACK per segment, RED 20:80 max_p 0.1
    not gentle), and no delack_timeout is filled in beside delayed_ack = false."""
    m = _module()
    tcp = {"delayed_ack": False, "variant": "sack"}  # as --agreement runs it
    s = m.dumbbell(2, 2.0, qdisc="red", tcp=tcp, profile="ns3.44")
    c = aqmlab.canonical(s)
    f = c["flows"][0]
    assert f["variant"] == "sack" and f["delayed_ack"] is False
    assert f["recovery"] == "prr_safe_ack"  # ns-3.44's PRR, from the profile
    assert "delack_timeout" not in f
    assert f["initial_cwnd"] == 10 and f["max_window"] == (1 << 20) // 960
    red = next(x for x in c["links"] if x.get("name") == "bottleneck")["queue"]["aqm"]
    assert red["ns2_qlen_guard"] is True and red["gentle"] is False and red["max_p"] == 0.1
    assert red["min_th"] == 20 and red["max_th"] == 80
