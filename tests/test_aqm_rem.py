"""REM from Python: the builder's schema, validation paths and its price in the time series."""

import pytest

import aqmlab
from aqmlab import scenario as sc

from common import dumbbell


def scenario(aqm, n=10, duration="20s"):
    return dumbbell(
        [sc.tcp(f"f{i}", "s", "d", ecn=True) for i in range(n)],
        queue=sc.queue(limit_pkts=100, aqm=aqm),
        access_bandwidth="1Gbps",
        access_queue=sc.queue(limit_pkts=10000),
        duration=duration,
    )


def test_rem_builder_emits_the_file_schema():
    assert sc.rem(b_star=30, ecn=True, mark_at="arrival") == {
        "type": "rem",
        "b_star": 30,
        "ecn": True,
        "mark_at": "arrival",
    }


def test_rem_price_and_probability_are_in_the_time_series():
    r = aqmlab.run(scenario(sc.rem(ecn=True)))
    ts = r.timeseries
    q = ts[ts["queue"] == "r0->r1"]
    assert {"price", "prob", "x_avg"} <= set(q.columns)
    # The price rises from 0 under load, and prob = 1 - phi^-price on every sample.
    assert q["price"].iloc[-1] > 0
    assert ((1 - 1.001 ** -q["price"] - q["prob"]).abs() < 1e-12).all()
    row = r.queues.set_index("name").loc["r0->r1"]
    assert row["aqm"] == "rem"


@pytest.mark.parametrize(
    ("params", "path"),
    [
        ({"phi": 0.9}, "phi"),
        ({"update": "queue", "w_x": 0.5}, "w_x"),
        ({"mark_at": "arrival"}, "mark_at"),
    ],
)
def test_rem_fields_are_validated_with_their_paths(params, path):
    with pytest.raises(aqmlab.ScenarioError) as e:
        aqmlab.validate(scenario(sc.rem(**params)))
    assert e.value.path == f"links[0].queue.aqm.{path}"
