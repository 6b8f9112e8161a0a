"""CoDel, PIE and FQ-CoDel from Python: the builders emit valid scenarios that run, and
each AQM's internal state shows up in ``results.timeseries``."""

import pytest

import aqmlab
from aqmlab import scenario as sc

from common import dumbbell


def scenario(aqm, limit_pkts=None, limit_bytes=None):
    return dumbbell(
        [sc.tcp("t0", "s0", "dst"), sc.tcp("t1", "s1", "dst", start="200ms")],
        hosts=("dst", "s0", "s1"),
        receivers=("dst",),
        routers=("r",),
        delay="10ms",
        queue=sc.queue(limit_pkts=limit_pkts, limit_bytes=limit_bytes, aqm=aqm),
        access_bandwidth="1Gbps",
        access_delay={"s0": "2ms", "s1": "12ms"},
        access_queue=sc.queue(limit_pkts=10000),
        duration="8s",
        warmup="2s",
        sample_interval="50ms",
    )


CASES = [
    (sc.codel(), ["dropping", "count", "drop_next", "sojourn"]),
    (sc.codel(target="10ms", interval="200ms", mtu=1500, ecn=True, ce_threshold="30ms"), None),
    (sc.pie(), ["p", "qdelay", "burst_allowance", "avg_dq_rate"]),
    (
        sc.pie(
            target="20ms",
            t_update="30ms",
            alpha=0.25,
            beta=2.0,
            max_burst="100ms",
            ecn=True,
            mark_ecn_th=0.2,
            byte_mode=True,
            mtu=1500,
            dq_rate_estimator=True,
            dq_threshold=20000,
            derandomize=False,
        ),
        ["p"],
    ),
    (sc.fq_codel(), ["active_flows", "new_flows", "old_flows"]),
    (
        sc.fq_codel(
            flows=64,
            quantum=300,
            drop_batch=8,
            target="10ms",
            interval="200ms",
            mtu=1500,
            ecn=False,
            ce_threshold="20ms",
        ),
        ["active_flows"],
    ),
]


@pytest.mark.parametrize("limit", [{"limit_pkts": 1000}, {"limit_bytes": "1MB"}])
@pytest.mark.parametrize(("aqm", "metrics"), CASES)
def test_builder_scenarios_run_and_report_their_metrics(aqm, metrics, limit):
    r = aqmlab.run(scenario(aqm, **limit))
    q = r.queues.set_index("name").loc["r->dst"]
    assert q["aqm"] == aqm["type"]
    assert q["dequeued"] > 1000
    ts = r.timeseries[r.timeseries["queue"] == "r->dst"]
    assert len(ts) > 100
    for m in metrics or []:
        assert m in ts.columns, f"{m} missing from {list(ts.columns)}"
        assert ts[m].notna().all()


def test_builder_emits_exactly_the_file_schema():
    assert sc.codel() == {"type": "codel"}
    assert sc.codel(target="10ms", ecn=True) == {"type": "codel", "target": "10ms", "ecn": True}
    aqm = aqmlab.canonical(scenario(sc.codel(), limit_pkts=100))["links"][0]["queue"]["aqm"]
    assert aqm["type"] == "codel" and aqm["target"] == "5ms" and aqm["interval"] == "100ms"


def test_invalid_parameters_name_their_field():
    with pytest.raises(aqmlab.ScenarioError) as e:
        aqmlab.validate(scenario(sc.codel(target="0ms"), limit_pkts=100))
    assert e.value.path == "links[0].queue.aqm.target"
    with pytest.raises(aqmlab.ScenarioError) as e:
        aqmlab.validate(scenario(sc.pie(dq_threshold=1000), limit_pkts=100))
    assert e.value.path == "links[0].queue.aqm.dq_threshold"
    with pytest.raises(aqmlab.ScenarioError) as e:
        aqmlab.validate(scenario(sc.fq_codel(flows=0), limit_pkts=100))
    assert e.value.path == "links[0].queue.aqm.flows"


def test_fq_codel_reports_its_active_flows():
    r = aqmlab.run(scenario(sc.fq_codel(), limit_pkts=20))
    ts = r.timeseries[r.timeseries["queue"] == "r->dst"]
    # Two TCP flows share the port: at most two sub-queues hold packets.
    assert ts["active_flows"].max() == 2
    assert (ts["new_flows"] + ts["old_flows"] >= ts["active_flows"]).all()
