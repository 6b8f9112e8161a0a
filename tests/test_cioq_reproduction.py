"""The CIOQ-RED reproduction's parts: its network, the session draw, the plan of points,
the per-run metrics on a small real run, and the claim rules (each must be able to fail)."""

import numpy as np
import pytest

import aqmlab
from aqmlab.experiments import cioq


def test_the_network_has_the_papers_buffers_thresholds_and_nu():
    c = aqmlab.canonical(cioq.network(16, 1.4, "CIOQ-RED", 3))
    sw = c["nodes"][0]["switch"]
    # 16 sources and 16 sinks on a 32-port switch at 2s: each used path at s·R/n.
    assert sw["speedup"] == pytest.approx(2.8) and sw["fabric"] == {"type": "links"}
    assert len(c["links"]) == 32 and c["links"][16]["a"] == "dst0"
    # ns-2 DropTail limit_ 20 holds 19 waiting; RED's limit_ 20 holds 20 (docs/queue.md).
    assert sw["input_queue"]["limit_pkts"] == 19 and sw["input_buffer"] == "per_voq"
    out = c["links"][0]["reverse_queue"]
    assert out["limit_pkts"] == 20
    aqm = out["aqm"]
    assert (aqm["type"], aqm["nu"], aqm["min_th"], aqm["max_th"]) == ("cioq_red", 0.125, 5, 15)
    assert (aqm["w_q"], aqm["max_p"]) == (0.004, 0.1)
    # Every RED field as the profile fills it for RED (gentle, 500 B, the qlen guard): the
    # two differ by nu alone.
    red = aqmlab.canonical(cioq.network(16, 1.4, "RED", 3))["links"][0]["reverse_queue"]["aqm"]
    assert {**red, "type": "cioq_red", "nu": 0.125} == aqm
    assert red["gentle"] is True and red["mean_pktsize"] == "500B"
    f = c["flows"][0]
    assert f["variant"] == "reno" and f["max_window"] == 20 and f["packet_size"] == "1040B"
    assert cioq.network(4, 1.1, "CIOQ-RED", 1)["links"][0]["reverse_queue"]["aqm"]["nu"] == 0.5
    dt = cioq.network(4, 1.1, "DropTail", 1)["links"][0]["reverse_queue"]
    assert dt["limit_pkts"] == 19 and "aqm" not in dt
    lc = cioq.network(4, 1.1, "RED", 1, topology="linecard")
    assert lc["nodes"][0]["switch"]["speedup"] == 1.1 and len(lc["links"]) == 4
    with pytest.raises(ValueError, match="topology"):
        cioq.network(4, 1.1, "RED", 1, topology="ring")
    # The crossbar runs at s·R itself (the split halves are independent matchings), iSLIP
    # with log2(2n) iterations.
    xb = aqmlab.canonical(cioq.network(16, 1.4, "RED", 1, fabric="crossbar"))["nodes"][0]
    assert xb["switch"]["speedup"] == 1.4
    fab = xb["switch"]["fabric"]
    assert fab["type"] == "crossbar" and fab["scheduler"] == {"type": "islip", "iterations": 5}


def _drawn(s):
    d = cioq.draw_sessions(s)
    k = len(s["flows"])
    src = [d[f"flows[{i}].src"] for i in range(k)]
    dst = [d[f"flows[{i}].dst"] for i in range(k)]
    start = np.array([int(d[f"flows[{i}].start"][:-2]) for i in range(k)]) / 1e9
    stop = np.array([int(d[f"flows[{i}].stop"][:-2]) for i in range(k)]) / 1e9
    return d, src, dst, start, stop


def test_sessions_are_drawn_per_replication_with_the_papers_distributions():
    s = cioq.network(16, 1.1, "RED", 4000)
    s["simulation"]["run"] = 3
    d, src, dst, start, stop = _drawn(s)
    assert d == cioq.draw_sessions(s)  # deterministic in (seed, run)
    assert set(src) == {f"src{i}" for i in range(16)}
    assert set(dst) == {f"dst{i}" for i in range(16)}
    assert 0 <= start.min() and start.max() < 100
    dur = stop - start
    cut = stop == 100.0
    # Sessions still running at 100 s are cut there; the rest last U(3, 53) s.
    assert 3 <= dur[~cut].min() and dur.max() <= 53 and (start[cut] > 47).all()
    # Uniform means, within 4 standard errors of 4000 draws (sd 28.9 s and 14.4 s).
    assert start.mean() == pytest.approx(50, abs=4 * 28.9 / 4000**0.5)
    # Sessions starting before 47 s cannot be cut: their durations are the draws unbiased.
    early = start < 47
    assert dur[early].mean() == pytest.approx(28, abs=4 * 14.4 / early.sum() ** 0.5)
    s["simulation"]["run"] = 4
    assert cioq.draw_sessions(s) != d
    # Line cards: a sink other than the source.
    lc = cioq.network(4, 1.1, "RED", 500, topology="linecard")
    lc["simulation"]["run"] = 0
    _, src, dst, _, _ = _drawn(lc)
    assert all(a != b for a, b in zip(src, dst, strict=True)) and set(src) == set(dst)


def test_the_plan_shares_fig3s_last_point_with_fig2():
    p = cioq.plan(False)
    # 4x4: 2 fabrics x 3 AQMs x (8 speedups + 10 loads - 1 shared), 2 speedups x 6 nu
    # values, and the line cards at 3 speedups; 16x16: 2 x 3 x (6 speedups + 5 loads - 1).
    assert len(p[4]) == 2 * 3 * 17 + 12 + 9
    assert len(p[16]) == 2 * 3 * 10
    assert p[4]["4x4 RED s=1.1 N=800"] == (4, 1.1, "RED", 800, None, "split", "links")
    assert p[16]["16x16 CIOQ-RED s=1.4 N=640 crossbar"] == (
        16,
        1.4,
        "CIOQ-RED",
        640,
        None,
        "split",
        "crossbar",
    )
    assert p[4]["4x4 CIOQ-RED s=1.5 N=800 nu=2"][4] == 2.0
    assert p[4]["4x4 DropTail s=2.1 N=800 linecard"][5] == "linecard"


def test_a_small_real_run_shows_cioq_reds_shorter_output_queue_at_low_speedup():
    """One 4x4 replication at s = 1.1 with 800 sessions (0.4 s of CPU each): CIOQ-RED's
    mean output queue is well below RED's (full size, 5 replications: 1.71 vs 5.97 packets;
    this run 1.66 vs 6.31), while the inputs hold most of the backlog in both. Bounds:
    CIOQ-RED below half of RED's (the claim's factor), the inputs above 15 packets per port
    for both (26.6 and 25.9 measured); utilisation a fraction in (0.5, 1]."""
    pt_r = (4, 1.1, "RED", 800, None, "split", "links")
    pt_c = (4, 1.1, "CIOQ-RED", 800, None, "split", "links")
    r, c = cioq.one_run(pt_r, 0), cioq.one_run(pt_c, 0)
    assert c["out_q"] < 0.5 * r["out_q"], (c, r)
    assert r["in_q"] > 15 and c["in_q"] > 15
    assert r["in_q_voq"] == pytest.approx(r["in_q"] / 4)
    for m in (r, c):
        assert 0.5 < m["util"] <= 1.0 and 0 < m["in_loss"] <= m["loss"] < 1
    # Degeneracy: CIOQ-RED with nu = 0 is RED, run for run.
    assert cioq.one_run((4, 1.1, "CIOQ-RED", 800, 0.0, "split", "links"), 0) == r
