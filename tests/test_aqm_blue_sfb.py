"""BLUE and SFB builders: valid scenarios that run, with their state in results.timeseries."""

import pytest

import aqmlab
from aqmlab import scenario as sc

from common import dumbbell

BLUE_METRICS = ["p_m", "last_update", "increments", "decrements"]
SFB_METRICS = [
    "p_min",
    "p_max",
    "p_mean",
    "max_bin_qlen",
    "penalised",
    "penalty_drops",
    "bucket_drops",
]


def _bottleneck(aqm, *, limit_pkts=None, limit_bytes=None, cbr_rate="12Mbps"):
    """Two TCP flows with ECN and an unresponsive CBR flow at 1.2x a 10 Mb/s link."""
    return dumbbell(
        [
            sc.tcp("t1", "a", "d", ecn=True),
            sc.tcp("t2", "a", "d", ecn=True, start="200ms"),
            sc.cbr("u", "b", "d", packet_size=1000, rate=cbr_rate),
        ],
        hosts=("a", "b", "d"),
        routers=("r",),
        left_to_right=True,
        queue=sc.queue(limit_pkts=limit_pkts, limit_bytes=limit_bytes, aqm=aqm),
        duration="6s",
        warmup="1s",
        seed=3,
        sample_interval="100ms",
    )


def _canonical_aqm(s):
    return aqmlab.canonical(s)["links"][2]["queue"]["aqm"]


def _aqm_series(res, metrics):
    ts = res.timeseries
    rows = ts[ts["queue"] == "r->d"]
    assert len(rows) > 0
    for m in metrics:
        assert m in ts.columns, m
    return rows


@pytest.mark.parametrize(
    "aqm,limit",
    [
        (sc.blue(ecn=True), {"limit_pkts": 60}),
        (sc.blue(ecn=True, byte_mode=True, mean_pktsize=1000), {"limit_bytes": "60KB"}),
        (sc.blue(d1=0.02, d2=0.002, freeze_time="10ms", increase_threshold=30), {"limit_pkts": 60}),
    ],
)
def test_blue_runs_and_reports_p_m(aqm, limit):
    s = _bottleneck(aqm, **limit)
    assert _canonical_aqm(s)["type"] == "blue"
    res = aqmlab.run(s)
    rows = _aqm_series(res, BLUE_METRICS)
    # Overload (CBR at 1.2x): BLUE has raised p_m, and p_m stays a probability.
    assert rows["p_m"].max() > 0
    assert ((rows["p_m"] >= 0) & (rows["p_m"] <= 1)).all()
    assert rows["increments"].iloc[-1] >= 1
    # The last update is a time of the run (or -1 before the first change).
    assert rows["last_update"].max() <= 6.0
    q = res.queues.set_index("name").loc["r->d"]
    assert q["aqm"] == "blue"
    assert q["dropped_early"] + q["marked_early"] > 0


def test_defaults_are_written_out_by_the_canonical_echo():
    blue = _canonical_aqm(_bottleneck(sc.blue(), limit_pkts=60))
    assert blue == {
        "type": "blue",
        "d1": 0.0025,
        "d2": 0.00025,
        "freeze_time": "100ms",
        "idle_catchup": True,
        "byte_mode": False,
        "mean_pktsize": "1KB",
        "ecn": False,
    }
    sfb = _canonical_aqm(_bottleneck(sc.sfb(), limit_pkts=60))
    assert sfb["levels"] == 8 and sfb["bins"] == 16
    assert sfb["bin_size"] == 20 and sfb["max"] == 25
    assert sfb["increment"] == 0.001 and sfb["decrement"] == 0.000167
    assert sfb["penalty_rate"] == 10.0 and sfb["penalty_burst"] == 20
    assert sfb["ecn"] is True


@pytest.mark.parametrize(
    "aqm,limit",
    [
        (sc.sfb(), {"limit_pkts": 200}),
        (sc.sfb(byte_mode=True), {"limit_bytes": "200KB"}),
        (
            sc.sfb(levels=4, bins=32, bin_size=10, max=15, rehash_interval="0s", warmup_time="0s"),
            {"limit_pkts": 200},
        ),
    ],
)
def test_sfb_runs_and_reports_its_bins(aqm, limit):
    s = _bottleneck(aqm, cbr_rate="20Mbps", **limit)
    assert _canonical_aqm(s)["type"] == "sfb"
    res = aqmlab.run(s)
    rows = _aqm_series(res, SFB_METRICS)
    assert ((rows["p_min"] >= 0) & (rows["p_min"] <= rows["p_max"])).all()
    assert (rows["p_max"] <= 1).all()
    # The CBR flow at 2x capacity loads its bins.
    assert rows["p_max"].max() > 0.5
    assert rows["max_bin_qlen"].max() > 0
    q = res.queues.set_index("name").loc["r->d"]
    assert q["aqm"] == "sfb"
    assert q["dropped_early"] > 0
    # (Protection of the TCP flows is checked on longer runs in the Rust engine tests.)


def test_invalid_sfb_and_blue_fields_are_reported_with_their_path():
    with pytest.raises(aqmlab.ScenarioError) as e:
        aqmlab.canonical(_bottleneck(sc.sfb(bin_size=30, max=25), limit_pkts=100))
    assert "links[2].queue.aqm.bin_size = 30: must be <= max = 25" in str(e.value)
    with pytest.raises(aqmlab.ScenarioError) as e:
        aqmlab.canonical(_bottleneck(sc.blue(d1=1.5), limit_pkts=100))
    assert "links[2].queue.aqm.d1 = 1.5: must be in [0, 1]" in str(e.value)
