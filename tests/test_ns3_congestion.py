"""The ns-3.44 translation of TCP's congestion controllers (docs/ns3.md, "Congestion
controllers"): CUBIC, DCTCP and BBR as ns-3's TcpCubic, TcpDctcp and TcpBbr with every
attribute written, and what ns-3 cannot match refused with its path; the runs in ns-3
are skipped (with the reason) without ns-3's Python."""

from __future__ import annotations

import copy

import pytest

import aqmlab
from aqmlab import ns3
from aqmlab import scenario as sc
from aqmlab.crosscheck import crosscheck

needs_ns3 = pytest.mark.skipif(not ns3.available(), reason=ns3.INSTALL_HINT)

CUBIC = "scenarios/ns3_cubic_dumbbell.toml"
DCTCP = "scenarios/ns3_dctcp_dumbbell.toml"
BBR = "scenarios/ns3_bbr_dumbbell.toml"
DCTCP_CC = {"type": "dctcp", "g": 0.0625, "initial_alpha": 1.0}
BBR_CC = {
    "type": "bbr",
    "high_gain": 2.885,
    "cwnd_gain": 2.0,
    "probe_rtt_interval": "10s",
    "probe_rtt_duration": "200ms",
    "bw_filter_rounds": 10,
}


def cubic_dumbbell(count: int = 4, **flow) -> dict:
    s = sc.load(CUBIC)
    s["repeat"][0]["count"] = count
    s["repeat"][0]["flows"][0] |= flow
    return s


def refused(c: dict) -> dict[str, str]:
    with pytest.raises(ns3.Unsupported) as e:
        ns3.translate(c)
    return dict(e.value.problems)


def with_flows(c: dict, **fields) -> dict:
    """A canonical form with every flow's fields replaced (a controller aqmlab may not
    validate yet: the translation reads the canonical form as it is)."""
    c = copy.deepcopy(c)
    for f in c["flows"]:
        f.update(copy.deepcopy(fields))
    return c


def test_cubic_is_ns3s_tcp_cubic_with_every_attribute_written():
    c = aqmlab.canonical(cubic_dumbbell(congestion=sc.cubic(c=0.5, beta=0.8)))
    d = ns3.translate(c)["defaults"]
    assert d["ns3::TcpL4Protocol::SocketType"] == ["typeid", "ns3::TcpCubic"]
    cubic = {k.removeprefix("ns3::TcpCubic::"): v for k, v in d.items() if "TcpCubic::" in k}
    assert cubic == {
        "C": ["double", 0.5],
        "Beta": ["double", 0.8],
        "FastConvergence": ["bool", True],
        "TcpFriendliness": ["bool", True],
        "HyStart": ["bool", False],  # Linux's HyStart, not HyStart++: off
        "HyStartLowWindow": ["uint", 16],
        "HyStartDetect": ["enum", "BOTH"],
        "HyStartMinSamples": ["uint", 8],
        "HyStartAckDelta": ["time_ns", 2_000_000],
        "HyStartDelayMin": ["time_ns", 4_000_000],
        "HyStartDelayMax": ["time_ns", 1_000_000_000],
        "CubicDelta": ["time_ns", 0],
        "CntClamp": ["uint", 20],
    }
    assert d["ns3::TcpSocketState::EnablePacing"] == ["bool", False]
    c = aqmlab.canonical(cubic_dumbbell(congestion=sc.cubic(fast_convergence=False)))
    assert ns3.translate(c)["defaults"]["ns3::TcpCubic::FastConvergence"] == ["bool", False]
    # ns-3's alpha is RFC 8312's (kept for the whole epoch): "rfc8312" is it exactly, and
    # the default "rfc9438" runs against the same TcpCubic (docs/ns3.md).
    c = aqmlab.canonical(cubic_dumbbell(congestion=sc.cubic(reno_friendly_alpha="rfc8312")))
    assert c["flows"][0]["congestion"]["reno_friendly_alpha"] == "rfc8312"
    assert (
        ns3.translate(c)["defaults"]
        == ns3.translate(aqmlab.canonical(cubic_dumbbell()))["defaults"]
    )


def test_cubic_with_hystart_is_refused_with_the_path():
    """ns-3's TcpCubic HyStart is Linux's ACK-train and delay detector, not RFC 9406's
    HyStart++: a flow with hystart = true has no ns-3 counterpart."""
    c = aqmlab.canonical(cubic_dumbbell(count=2, congestion=sc.cubic(hystart=True)))
    assert all(f["congestion"]["hystart"] is True for f in c["flows"])
    p = refused(c)
    assert set(p) == {"flows[0].congestion.hystart", "flows[1].congestion.hystart"}, p
    assert "RFC 9406" in p["flows[0].congestion.hystart"]
    off = aqmlab.canonical(cubic_dumbbell(count=2, congestion=sc.cubic(hystart=False)))
    assert all(f["congestion"]["hystart"] is False for f in off["flows"])
    assert ns3.translate(off)["defaults"]["ns3::TcpCubic::HyStart"] == ["bool", False]


def test_reno_stays_newreno_with_or_without_a_table():
    for flow in ({"congestion": sc.reno()}, {}):
        s = cubic_dumbbell(**flow)
        if not flow:
            del s["repeat"][0]["flows"][0]["congestion"]
        d = ns3.translate(aqmlab.canonical(s))["defaults"]
        assert d["ns3::TcpL4Protocol::SocketType"] == ["typeid", "ns3::TcpNewReno"]
        assert not any("TcpCubic" in k for k in d)


def test_controllers_and_their_fields_ns3_cannot_match_are_refused_with_the_path():
    c = aqmlab.canonical(cubic_dumbbell(count=2))
    p = refused(with_flows(c, congestion={"type": "vegas"}))
    assert "'vegas'" in p["flows[0].congestion.type"]
    cubic = {
        "type": "cubic",
        "c": 0.4,
        "beta": 0.7,
        "fast_convergence": True,
        "reno_friendly_alpha": "rfc9438",
    }
    p = refused(with_flows(c, congestion=cubic | {"hystart": True, "hystart_low_window": 16}))
    assert "HyStart++" in p["flows[1].congestion.hystart"]
    assert "does not know" in p["flows[1].congestion.hystart_low_window"]
    assert "missing" in refused(with_flows(c, congestion=cubic))["flows[0].congestion.hystart"]
    p = refused(with_flows(c, congestion={"type": "cubic", "c": 0.4}))
    assert {"flows[0].congestion.beta", "flows[0].congestion.fast_convergence"} <= set(p)
    # ns-3 paces other controllers by Linux's ratios, not translated.
    full = aqmlab.canonical(cubic_dumbbell(count=2))["flows"][0]["congestion"]
    assert "flows[0].pacing" in refused(with_flows(c, congestion=full, pacing=True))
    # ns-3's SocketType is global: one controller for every flow.
    mixed = copy.deepcopy(c)
    mixed["flows"][1]["congestion"] = {"type": "reno"}
    assert "SocketType is global" in refused(mixed)["flows[1].congestion"]


def test_dctcp_is_tcp_dctcp_with_ecn_and_the_step_marker_is_red():
    c = aqmlab.canonical(DCTCP)
    assert all(f["congestion"] == DCTCP_CC for f in c["flows"])
    sp = ns3.translate(c)
    d = sp["defaults"]
    assert d["ns3::TcpL4Protocol::SocketType"] == ["typeid", "ns3::TcpDctcp"]
    assert d["ns3::TcpDctcp::DctcpShiftG"] == ["double", 0.0625]
    assert d["ns3::TcpDctcp::DctcpAlphaOnInit"] == ["double", 1.0]
    assert d["ns3::TcpDctcp::UseEct0"] == ["bool", True]
    assert d["ns3::TcpSocketBase::UseEcn"] == ["enum", "On"]
    red = sp["links"][0]["queues"][0]["qdisc"]
    assert red["type"] == "ns3::RedQueueDisc"
    a = red["attrs"]
    assert a["MinTh"] == a["MaxTh"] == ["double", 40.0]
    assert a["QW"] == ["double", 1.0]
    assert a["UseEcn"] == ["bool", True] and a["UseHardDrop"] == ["bool", False]
    assert a["Gentle"] == ["bool", False] and a["MaxSize"] == ["queuesize", "399p"]
    # ns-3's RED takes min_th = max_th (its RedQueueDisc asserts only MinTh <= MaxTh).
    step = copy.deepcopy(c)
    step["links"][0]["queue"]["aqm"] |= {"min_th": 40.0, "max_th": 40.0}
    a = ns3.translate(step)["links"][0]["queues"][0]["qdisc"]["attrs"]
    assert a["MinTh"] == a["MaxTh"] == ["double", 40.0]


def test_dctcp_needs_ecn_and_ect_retransmissions():
    c = aqmlab.canonical(DCTCP)
    p = refused(with_flows(c, ecn=False, ecn_retransmits=False))
    assert "needs ECN" in p["flows[0].ecn"]
    assert "ECN-capable" in p["flows[1].ecn_retransmits"]
    p = refused(with_flows(c, congestion={"type": "dctcp", "g": 0.0625}))
    assert set(p) == {"flows[0].congestion.initial_alpha", "flows[1].congestion.initial_alpha"}


def test_bbr_is_tcp_bbr_with_pacing():
    c = aqmlab.canonical(BBR)
    cc = c["flows"][0]["congestion"]
    assert {k: cc[k] for k in BBR_CC} == BBR_CC and c["flows"][0]["pacing"] is True
    d = ns3.translate(c)["defaults"]
    assert d["ns3::TcpL4Protocol::SocketType"] == ["typeid", "ns3::TcpBbr"]
    bbr = {k.removeprefix("ns3::TcpBbr::"): v for k, v in d.items() if "TcpBbr::" in k}
    assert bbr == {
        "HighGain": ["double", 2.885],
        "BwWindowLength": ["uint", 10],
        "RttWindowLength": ["time_ns", 10 * 10**9],
        "ProbeRttDuration": ["time_ns", 200_000_000],
        "ExtraAckedRttWindowLength": ["uint", 5],
        "AckEpochAckedResetThresh": ["uint", 4096],
        "Stream": ["uint", 4],
    }
    assert d["ns3::TcpSocketState::EnablePacing"] == ["bool", True]
    assert d["ns3::TcpSocketState::PaceInitialWindow"] == ["bool", True]
    assert d["ns3::TcpSocketState::MaxPacingRate"] == ["datarate", 10**15]
    p = refused(with_flows(c, pacing=False, congestion=BBR_CC | {"cwnd_gain": 2.5}))
    assert "always paces" in p["flows[0].pacing"]
    assert "fixes ProbeBW's at 2" in p["flows[0].congestion.cwnd_gain"]
    p = refused(with_flows(c, congestion=BBR_CC | {"bw_filter_rounds": 2.5}))
    assert "flows[0].congestion.bw_filter_rounds" in p


@needs_ns3
def test_cubic_one_flow_agrees_with_ns3_through_droptail(tmp_path):
    """One CUBIC flow through the 1-BDP DropTail dumbbell, the file's 60 s (10 s of
    warm-up), replication 0. Measured (2026-12-02): 20 drops in both, 8 fast recoveries in
    both, mean queue 72.61 (ns-3) and 72.93 packets (+0.4%). A shorter window sees 2 or 3
    of the 6-second loss epochs by phase (at 20 s: 5 drops against 9), hence the whole
    file. The bounds (drops within 2, one fast recovery, the queue within 2%) catch a
    mistranslated beta, C or fast convergence, which move the epochs and the sawtooth.
    The flow is traced: ns-3's cwnd sampled at aqmlab's 600 instants averages 173.5
    segments from 10 s on, aqmlab's 174.4 (+0.5%), and the driver's time-weighted mean
    173.5."""
    s = cubic_dumbbell(count=1, trace=True)
    r = ns3.run(s, cache=tmp_path)
    a = aqmlab.run(s)
    q3, qa = (x.queues.set_index("name").loc["L->R"] for x in (r, a))
    assert q3["dropped_total"] > 0
    assert abs(q3["dropped_total"] - qa["dropped_overflow"]) <= 2, (q3, qa)
    assert abs(r.flows["fast_recoveries"].sum() - a.flows["fast_recoveries"].sum()) <= 1
    assert qa["mean_queue_pkts"] == pytest.approx(q3["mean_queue_pkts"], rel=0.02)
    t3, ta = r.flow_timeseries, a.flow_timeseries
    assert list(t3["time_s"]) == pytest.approx(list(ta["time_s"]))
    w3, wa = (t[t["time_s"] >= 10.0]["cwnd"].mean() for t in (t3, ta))
    assert wa == pytest.approx(w3, rel=0.02)
    assert r.flows["mean_cwnd_pkts"].iloc[0] == pytest.approx(w3, rel=0.01)


@needs_ns3
@pytest.mark.slow
def test_cubic_four_flows_crosscheck_with_ns3(tmp_path):
    """docs/ns3.md's 4-flow DropTail row: utilisation and mean queue within 5%."""
    cc = crosscheck(cubic_dumbbell(count=4), runs=3, reference="ns3", workers=2, cache=tmp_path)
    t = cc.table.set_index(["table", "metric"])
    for metric in ("utilization", "mean_queue_pkts"):
        assert abs(t.loc[("queue L->R", metric)]["rel_diff"]) < 0.05, cc.markdown()


CONTROLLERS = pytest.mark.parametrize(
    "path, cc", [(DCTCP, DCTCP_CC), (BBR, BBR_CC)], ids=["dctcp", "bbr"]
)
# docs/ns3.md: BBR's mean queue is 8.7 packets in aqmlab against 30.1 in ns-3 (-71%), with
# the same window and throughput: ns-3.44's TcpRateLinux keeps its rate sample across ACKs
# (stale samples up to (k + 1)/k high, a BtlBw 1.3% above the link) and TcpBbr's send quantum
# is 1 segment; with both emulated in ns-3 (benchmarks/ns3_bbr_trace.py) its queue is 8.81.
BBR_QUEUE = pytest.mark.xfail(
    reason="ns-3.44's stale rate samples and 1-segment send quantum: BBR mean queue 8.7 vs "
    "ns-3's 30.1 (docs/ns3.md, benchmarks/ns3_bbr_trace.py)",
    strict=True,
)


@needs_ns3
@pytest.mark.slow
@CONTROLLERS
def test_controllers_run_in_ns3(path, cc, tmp_path):
    """ns-3's side of DCTCP (2 flows, 1 Gb/s, 500 us, K = 40; 5 s) and BBR (1 flow, 10
    Mb/s, 40 ms, 5 BDP; 60 s), with the numbers of docs/ns3.md (replication 0)."""
    r = ns3.run(path, cache=tmp_path)
    q = r.queues.set_index("name").loc["L->R"]
    assert q["utilization"] > 0.95
    if cc["type"] == "dctcp":
        # Marks from K = 40 hold the queue near K: measured mean 38.1, max 43, 20.8% marked.
        assert q["dropped_total"] == 0 and 30 < q["mean_queue_pkts"] < 45
        assert 0.1 < q["marked"] / q["dequeued"] < 0.3
    else:
        # BBR's cwnd gain 2 bounds the queue by about one BDP (50 packets): no drops in 250.
        assert q["dropped_total"] == 0 and q["max_queue_pkts"] < 100


@needs_ns3
@pytest.mark.slow
@pytest.mark.parametrize("path", [DCTCP, pytest.param(BBR, marks=BBR_QUEUE)], ids=["dctcp", "bbr"])
def test_controllers_against_aqmlab(path, tmp_path):
    """Both simulators: utilisation and mean queue within 10% (issue 48's bound), 2
    replications."""
    x = crosscheck(path, runs=2, reference="ns3", workers=2, cache=tmp_path)
    t = x.table.set_index(["table", "metric"])
    for metric in ("utilization", "mean_queue_pkts"):
        assert abs(t.loc[("queue L->R", metric)]["rel_diff"]) < 0.10, x.markdown()
