"""DRIO and URIO builders: the canonical echo of every field, runs whose per-aggregate
tables reach Python, and the paper's UDP isolation through the whole engine."""

import aqmlab
from aqmlab import diffserv as ds
from aqmlab import scenario as sc

from common import dumbbell


def _bottleneck(aqm, duration="8s"):
    """Two TCP flows from a and a 9 Mb/s CBR flow from b over a 10 Mb/s link; a conditioner
    at r colours everything red (the highest drop precedence, DRIO's domain)."""
    s = dumbbell(
        [
            sc.tcp("t1", "a", "d"),
            sc.tcp("t2", "a", "d", start="200ms"),
            sc.cbr("u", "b", "d", packet_size=1000, rate="9Mbps"),
        ],
        hosts=("a", "b", "d"),
        routers=("r",),
        left_to_right=True,
        queue=sc.queue(limit_pkts=100, aqm=aqm),
        duration=duration,
        seed=5,
    )
    classes = [ds.traffic_class("all", ds.fixed("red"))]
    for n in s["nodes"]:
        if n["name"] == "r":
            n["conditioners"] = [ds.conditioner(classes, [ds.policy("all")])]
    return s


LEVELS = (sc.rio_level(40, 60, max_p=0.02), sc.rio_level(10, 40, max_p=0.1))


def _aqm(s):
    return aqmlab.canonical(s)["links"][2]["queue"]["aqm"]


def test_drio_and_urio_echo_every_field_and_keep_rio_options():
    groups = [sc.aggregate("tcp", src="a"), sc.aggregate("udp", src="b", dst="d")]
    d = _aqm(_bottleneck(sc.drio(*LEVELS, list_len=20, delta=0.1, aggregates=groups, w_q=0.01)))
    assert d["type"] == "drio" and d["w_q"] == 0.01 and d["mode"] == "rio_c"
    assert (d["list_len"], d["delta"]) == (20, 0.1)
    assert d["aggregates"] == [
        {"name": "tcp", "src": "a", "dst": "*"},
        {"name": "udp", "src": "b", "dst": "d"},
    ]
    u = _aqm(_bottleneck(sc.urio(*LEVELS)))
    assert {k: u[k] for k in ("alpha", "reset_timeout", "rio_early_drop", "qbytes_counts")} == {
        "alpha": 0.5,
        "reset_timeout": "1s",
        "rio_early_drop": True,
        "qbytes_counts": "congested",
    }
    assert "aggregates" not in u


def test_urio_isolates_the_greedy_udp_aggregate_and_reports_it():
    rio = aqmlab.run(_bottleneck(sc.rio(*LEVELS)))
    urio = aqmlab.run(_bottleneck(sc.urio(*LEVELS)))

    def mbps(res, flow):
        return res.flows.set_index("name").loc[flow, "throughput_bps"] / 1e6

    # RIO lets the 9 Mb/s CBR flow crowd out TCP; URIO drops its greedy packets, so the
    # UDP aggregate falls and the TCP aggregate gains (margins far outside run-to-run noise
    # at these rates: the shares move by megabits).
    assert mbps(rio, "u") > 6.0
    assert mbps(urio, "u") < mbps(rio, "u") - 1.0
    assert mbps(urio, "t1") + mbps(urio, "t2") > mbps(rio, "t1") + mbps(rio, "t2") + 1.0
    t = urio.tables["urio_aggregates"]
    # The reverse queue (d->r, the same spec) sees the ACKs' aggregate d->a.
    assert set(t[t["queue"] == "d->r"]["aggregate"]) == {"d->a"}
    t = t[t["queue"] == "r->d"].set_index("aggregate")
    assert t.loc["b->d", "greedy_udp_drops"] > 100
    assert t.loc["b->d", "greedy_tcp_drops"] == 0
    assert set(t.index) == {"a->d", "b->d"}
    assert {"n_a", "fairqbytes"} <= set(urio.timeseries.columns.get_level_values(-1))


def test_drio_reports_its_list_outcomes_per_aggregate():
    res = aqmlab.run(_bottleneck(sc.drio(*LEVELS, list_len=20)))
    t = res.tables["drio_aggregates"]
    t = t[t["queue"] == "r->d"].set_index("aggregate")
    assert set(t.index) == {"a->d", "b->d"}
    # The CBR aggregate holds most of the list: it is hit, and the TCP one mostly missed.
    assert t.loc["b->d", "double_hits"] > t.loc["a->d", "double_hits"]
    assert (t["judged"] == t["double_hits"] + t["single_hits"] + t["double_misses"]).all()
