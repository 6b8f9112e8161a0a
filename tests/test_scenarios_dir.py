"""Every file in scenarios/ validates and runs (at a short horizon, as ns-3's
examples-to-run.py does), and TCP results carry their documented fields."""

from pathlib import Path

import pytest

import aqmlab
from aqmlab import scenario as sc

ROOT = Path(__file__).resolve().parent.parent
FILES = sorted((ROOT / "scenarios").glob("*.toml"))


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_scenario_file_runs_at_a_short_horizon(path):
    s = sc.load(path)
    s["simulation"].update(duration="3s", warmup="0s")
    s["simulation"].pop("sample_interval", None)
    for f in s.get("flows", []):
        f.pop("stop", None)
        if "start" in f:
            f["start"] = "0s"
    r = aqmlab.run(s)
    assert r.events > 0 and (r.flows["received_pkts"] > 0).all()


def test_tcp_scenario_reports_tcp_fields_and_traces():
    r = aqmlab.run(ROOT / "scenarios" / "tcp_dumbbell.toml")
    f = r.flows.set_index("name")
    # 2 MB in 1000-byte segments over a shared 10 Mb/s link: > 1.6 s at full rate.
    assert 1.6 < f.loc["transfer", "completion_time_s"] < 20
    assert f.loc["bulk2", "acks_sent"] < 0.6 * f.loc["bulk2", "received_pkts"]
    assert f.loc["bulk0", "acks_sent"] >= f.loc["bulk0", "received_pkts"] - 1
    bottleneck = r.queues.set_index("name").loc["r0->r1"]
    assert bottleneck["utilization"] > 0.9
    ft = r.flow_timeseries
    assert set(ft["flow"]) == {"bulk0"}
    assert list(ft.columns) == ["time_s", "flow", "cwnd", "ssthresh", "srtt_s"]
    assert len(ft) == len(r.timeseries[r.timeseries["queue"] == "r0->r1"])
    assert (ft["cwnd"] >= 1).all()
    srtt = ft["srtt_s"].dropna()
    # Base RTT 2·(2+20+2) ms = 48 ms plus serialisation; at most 60 queued packets = 48 ms.
    assert srtt.between(0.048, 0.11).all()
    summary = r.summary()["flows"][0]
    for k in ("retransmits", "timeouts", "fast_recoveries", "throughput_bps"):
        assert k in summary
