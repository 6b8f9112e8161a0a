"""DiffServ edge conditioning from Python: builders, the ``aggregates`` table in Results,
in the summary and in a sweep, and errors for invalid conditioners."""

import pytest

import aqmlab
from aqmlab import diffserv as ds
from aqmlab.scenario import cbr, host, link, queue, router, scenario, tcp


def _edge_scenario(meter_a0, meter_a1, *, duration="10s", flows=None):
    cond = ds.conditioner(
        [ds.traffic_class("net0", meter_a0, precedence=1), ds.traffic_class("net1", meter_a1)],
        [ds.policy("net0", src="a0"), ds.policy("net1", src="a1")],
        capacity="4Mbps",
    )
    q = queue(limit_pkts=100)
    return scenario(
        duration=duration,
        nodes=[host("a0"), host("a1"), host("d"), router("c"), router("e1", [cond])],
        links=[
            link("a0", "e1", bandwidth="100Mbps", delay="1ms", queue=q),
            link("a1", "e1", bandwidth="100Mbps", delay="1ms", queue=q),
            link("e1", "c", bandwidth="100Mbps", delay="1ms", queue=q),
            link("c", "d", bandwidth="100Mbps", delay="1ms", queue=q),
        ],
        flows=flows
        or [
            cbr("f0", "a0", "d", rate="2Mbps", packet_size=1000),
            cbr("f1", "a1", "d", rate="0.5Mbps", packet_size=1000),
        ],
    )


def test_the_aggregates_table_reaches_python_and_the_summary():
    sc = _edge_scenario(
        ds.token_bucket(cir="1Mbps", cbs=10000),
        ds.trtcm(cir="0.2Mbps", cbs=2000, pir="0.4Mbps", pbs=2000),
    )
    r = aqmlab.run(sc)
    agg = r.aggregates.set_index("class")
    # Token bucket over 10 s at 1 Mb/s: (1.25 MB + 10 kB) / 1000 B = 1260 green of 2500.
    assert agg.loc["net0", "green_pkts"] in (1259, 1260)
    assert agg.loc["net0", "green_pkts"] + agg.loc["net0", "red_pkts"] == 2500
    # trTCM on 0.5 Mb/s with CIR 0.2 / PIR 0.4: green 0.4, yellow 0.4, red 0.2 of 625
    # packets, give or take the two initial buckets (2 packets each).
    g, y, red = (agg.loc["net1", f"{c}_pkts"] for c in ("green", "yellow", "red"))
    assert g + y + red == 625
    assert abs(g - 250) <= 2 and abs(y - 250) <= 2 and abs(red - 125) <= 4, (g, y, red)
    s = r.summary()
    names = [a["name"] for a in s["aggregates"]]
    assert names == ["e1/net0", "e1/net1"]
    assert s["aggregates"][0]["target_ratio"] == pytest.approx(2.0, abs=0.01)


def test_a_sweep_reports_aggregate_metrics_with_intervals():
    sc = _edge_scenario(ds.tswtcm(cir="1Mbps", pir="1.5Mbps"), ds.fixed("green"), duration="5s")
    res = aqmlab.sweep(sc, runs=2, workers=1, progress=False, timeseries=False)
    cols = set(res.runs.columns)
    assert "aggregate:e1/net0:red_pkts" in cols
    assert "aggregate:e1/net1:jain_index" in cols
    # Per-colour queue counters reach sweeps too (drops and marks by reason per colour).
    assert "queue_colour:e1->c/red:arrivals" in cols
    assert "queue_colour:e1->c/yellow:dropped_overflow" in cols
    # TSWTCM draws colours at random: the two replications differ.
    reds = res.runs["aggregate:e1/net0:red_pkts"].tolist()
    assert reds[0] != reds[1]


def test_tcp_aggregates_sum_goodput_and_loss():
    flows = [tcp(f"t{i}", src, "d", packet_size=1000) for i, src in enumerate(["a0", "a0", "a1"])]
    sc = _edge_scenario(
        ds.token_bucket(cir="1Mbps", cbs=5000),
        ds.token_bucket(cir="1Mbps", cbs=5000),
        duration="5s",
        flows=flows,
    )
    r = aqmlab.run(sc)
    agg = r.aggregates.set_index("class")
    fl = r.flows.set_index("name")
    assert agg.loc["net0", "flows"] == 2 and agg.loc["net1", "flows"] == 1
    assert agg.loc["net0", "goodput_bps"] == pytest.approx(
        fl.loc["t0", "goodput_bps"] + fl.loc["t1", "goodput_bps"]
    )


def test_invalid_conditioners_raise_a_scenario_error_with_the_path():
    sc = _edge_scenario(ds.tswtcm(cir="2Mbps", pir="1Mbps"), ds.fixed())
    with pytest.raises(aqmlab.ScenarioError) as e:
        aqmlab.run(sc)
    assert "nodes[4].conditioners[0].classes[0].meter.pir" in str(e.value)
    assert "must be >= cir" in str(e.value)
