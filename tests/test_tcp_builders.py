"""TCP flows from Python: builder schema, staged arrivals, random sessions."""

import pytest

import aqmlab
from aqmlab import scenario as sc

from common import dumbbell


def scenario(flows, duration="20s"):
    """Senders (named s...) behind r0, the other hosts behind r1; every access link is
    written host -> router, hosts in name order."""
    hosts = sorted({f["src"] for f in flows} | {f["dst"] for f in flows})
    return dumbbell(
        flows,
        hosts=hosts,
        receivers=[h for h in hosts if not h.startswith("s")],
        queue=sc.queue(limit_pkts=50),
        host_to_router=True,
        duration=duration,
    )


def test_tcp_builder_emits_the_file_schema_and_runs():
    f = sc.tcp("t", "s0", "d0", variant="sack", ecn=True, bytes="1MB", min_rto="1s")
    assert f == {
        "name": "t",
        "type": "tcp",
        "src": "s0",
        "dst": "d0",
        "packet_size": 1000,
        "variant": "sack",
        "ecn": True,
        "bytes": "1MB",
        "min_rto": "1s",
    }
    r = aqmlab.run(scenario([f]))
    row = r.flows.iloc[0]
    # 1 MB in 1000-byte segments on an idle 10 Mb/s path completes well inside 20 s.
    assert 0.8 < row["completion_time_s"] < 5.0
    assert row["received_pkts"] >= 1000 and row["acks_sent"] >= 1000


def test_tcp_fields_are_validated_with_their_paths():
    f = sc.tcp("t", "s0", "d0", min_rto="2s", max_rto="1s")
    try:
        aqmlab.validate(scenario([f]))
    except aqmlab.ScenarioError as e:
        assert e.path == "flows[0].min_rto"
        assert "must be <= max_rto" in e.message
    else:
        raise AssertionError("min_rto > max_rto was accepted")
    u = sc.cbr("u", "s0", "d0", rate="1Mbps", packet_size=1000)
    u["variant"] = "reno"
    try:
        aqmlab.validate(scenario([u]))
    except aqmlab.ScenarioError as e:
        assert e.path == "flows[0].variant" and "not a field of type" in e.message
    else:
        raise AssertionError("a TCP field on a CBR flow was accepted")


def test_staged_arrivals_start_per_stage():
    pairs = [(f"s{i}", f"d{i}") for i in range(6)]
    flows = sc.staged(sc.tcp("ftp", "x", "y"), pairs=pairs, per_stage=2, every=50.0, spread=0.5)
    starts = [f["start"] for f in flows]
    assert starts == [
        "0ns",
        "500000000ns",
        "50000000000ns",
        "50500000000ns",
        "100000000000ns",
        "100500000000ns",
    ]
    assert [f["name"] for f in flows] == [f"ftp.{k}" for k in range(6)]
    c = aqmlab.canonical(scenario(flows, duration="120s"))
    assert c["flows"][2]["start"] == "50s"


def test_random_sessions_are_reproducible_and_respect_the_horizon():
    kw = dict(
        count=40,
        sources=["s0", "s1", "s2"],
        sinks=["d0", "d1", "s2"],
        start=("exponential", 0.5, 1.0),
        duration=("uniform", 1.0, 3.0),
        horizon=15.0,
    )
    a = sc.random_sessions(sc.tcp("web", "x", "y", bytes="50KB"), seed=3, **kw)
    b = sc.random_sessions(sc.tcp("web", "x", "y", bytes="50KB"), seed=3, **kw)
    c = sc.random_sessions(sc.tcp("web", "x", "y", bytes="50KB"), seed=4, **kw)
    assert a == b and a != c
    assert all(f["src"] != f["dst"] for f in a)
    starts = [int(f["start"][:-2]) / 1e9 for f in a]
    assert all(1.0 <= t < 15.0 for t in starts) and starts == sorted(starts)
    r = aqmlab.run(scenario(a, duration="15s"))
    assert len(r.flows) == len(a) and r.flows["received_pkts"].sum() > 0


def test_congestion_builders_emit_the_tables_and_dctcp_runs_through_a_step():
    assert sc.reno() == {"type": "reno"}
    assert sc.cubic(beta=0.5) == {"type": "cubic", "beta": 0.5}
    assert sc.cubic(hystart=False) == {"type": "cubic"}  # the engine's default
    assert sc.cubic(hystart=True) == {"type": "cubic", "hystart": True}
    assert sc.dctcp() == {"type": "dctcp"}
    assert sc.dctcp(g=0.125, initial_alpha=0.5) == {
        "type": "dctcp",
        "g": 0.125,
        "initial_alpha": 0.5,
    }
    step = sc.red_step(10)
    assert step == {
        "type": "red",
        "min_th": 10,
        "max_th": 10,
        "w_q": 1.0,
        "gentle": False,
        "ecn": True,
        "mark_above_max_th": True,
    }
    flows = [
        sc.tcp(f"t{i}", f"s{i}", "d0", variant="sack", ecn=True, congestion=sc.dctcp())
        for i in range(2)
    ]
    # Two DCTCP flows through the step: marks, no drop, the queue held near K = 10.
    s = scenario(flows, duration="10s")
    s["links"][0]["queue"] = sc.queue(limit_pkts=50, aqm=step)
    r = aqmlab.run(s)
    q = r.queues.set_index("name").loc["r0->r1"]
    assert q["marked_forced"] > 100
    assert q.filter(like="dropped_").sum() == 0
    assert q["mean_queue_pkts"] < 12
    assert q["utilization"] > 0.9
    # Without ECN the engine refuses DCTCP, naming the field.
    bad = scenario([sc.tcp("t", "s0", "d0", congestion=sc.dctcp())])
    with pytest.raises(aqmlab.ScenarioError, match=r"flows\[0\]\.ecn.*needs ecn = true"):
        aqmlab.run(bad)


def test_prague_builder_emits_its_table_and_runs_through_a_one_ms_step():
    assert sc.prague() == {"type": "prague"}
    assert sc.prague(rtt_scaling="none", rtt_target="10ms", classic_ecn_fallback="detect") == {
        "type": "prague",
        "rtt_scaling": "none",
        "rtt_target": "10ms",
        "classic_ecn_fallback": "detect",
    }
    flows = [
        sc.tcp(f"t{i}", f"s{i}", "d0", variant="sack", ecn=True, ect="ect1", congestion=sc.prague())
        for i in range(2)
    ]
    # Two Prague flows, RTT 44 ms, 10 Mb/s (C·RTT = 55 packets of 1000 B), through CoDel's
    # 1 ms step (K = 1.25 packets): DCTCP's analysis (N = 2) puts the peak queue at
    # K + N = 3.25 packets and the link 97.6% busy, less here where the 20 s include slow
    # start from an idle link; marks, no drop (measured: 5520 marks, mean queue 0.64,
    # utilisation 0.941).
    s = scenario(flows, duration="20s")
    s["links"][0]["queue"] = sc.queue(limit_pkts=200, aqm=sc.codel(ecn=True, ce_threshold="1ms"))
    r = aqmlab.run(s)
    q = r.queues.set_index("name").loc["r0->r1"]
    assert q.filter(like="marked_").sum() > 100
    assert q.filter(like="dropped_").sum() == 0
    assert q["mean_queue_pkts"] < 3.25
    assert q["utilization"] > 0.9
    # Prague needs ECT(1): without `ect` the engine refuses it, naming the field.
    bad = scenario([sc.tcp("t", "s0", "d0", ecn=True, congestion=sc.prague())])
    with pytest.raises(aqmlab.ScenarioError, match=r'flows\[0\]\.ect.*needs ect = "ect1"'):
        aqmlab.run(bad)


def test_bbr_builder_and_its_trace_columns():
    # sc.bbr() is the file's table; a traced BBR flow's time series carries its own metrics
    # beside the sender's (NaN for a Reno flow traced in the same run).
    assert sc.bbr(probe_rtt_interval="5s") == {"type": "bbr", "probe_rtt_interval": "5s"}
    flows = [
        sc.tcp("b", "s0", "d0", variant="sack", trace=True, congestion=sc.bbr()),
        sc.tcp("r", "s1", "d1", trace=True, pacing=True),
    ]
    ts = aqmlab.run(scenario(flows, duration="5s")).flow_timeseries
    b, r = ts[ts["flow"] == "b"], ts[ts["flow"] == "r"]
    for col in ("bbr_state", "pacing_gain", "btl_bw_pps", "min_rtt_s", "inflight_pkts"):
        assert col in ts.columns
        assert r[col].isna().all()
    # The flow leaves Startup (0) for ProbeBW (2) within 5 s on an idle 10 Mb/s path.
    assert b["bbr_state"].iloc[0] == 0 and (b["bbr_state"] == 2).any()
    assert b["btl_bw_pps"].max() > 0 and (r["cwnd"] > 2).any()


def test_cubic_hystart_builder_and_its_trace_column():
    # sc.cubic(hystart=True) runs HyStart++ (RFC 9406); only such a flow traces `hystart`
    # (NaN for a plain CUBIC flow traced in the same run), and on this idle 10 Mb/s path
    # with a 50-packet buffer its delay rise takes it from slow start (0) to CSS (1).
    flows = [
        sc.tcp("h", "s0", "d0", variant="sack", trace=True, congestion=sc.cubic(hystart=True)),
        sc.tcp("c", "s1", "d1", variant="sack", trace=True, start="4s", congestion=sc.cubic()),
    ]
    ts = aqmlab.run(scenario(flows, duration="5s")).flow_timeseries
    h, c = ts[ts["flow"] == "h"], ts[ts["flow"] == "c"]
    assert c["hystart"].isna().all()
    assert h["hystart"].iloc[0] == 0 and (h["hystart"] == 1).any()
    assert set(h["hystart"].dropna()) <= {0, 1, 2, 3}
