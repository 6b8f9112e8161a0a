"""run(): DataFrames, summary.json, CLI outputs, determinism, GIL release."""

import json
import threading

import pandas as pd

import aqmlab
from aqmlab import scenario as sc
from aqmlab.cli import main


def test_results_tables_have_the_documented_columns():
    r = aqmlab.run(sc.example(duration="3s", warmup="0s"))
    for col in (
        "name",
        "arrivals",
        "enqueued",
        "dropped_overflow",
        "marked_early",
        "mean_queue_pkts",
        "mean_queue_bytes",
        "var_queue_pkts",
        "utilization",
        "mean_sojourn_s",
        "p99_sojourn_s",
        "max_queue_pkts",
    ):
        assert col in r.queues.columns
    for col in ("name", "sent_pkts", "received_pkts", "goodput_bps", "mean_delay_s", "loss_rate"):
        assert col in r.flows.columns
    assert list(r.timeseries.columns[:4]) == ["time_s", "queue", "qlen_pkts", "qlen_bytes"]
    assert set(r.queue_dist.columns) == {"queue", "n_pkts", "fraction"}
    assert len(r.queues) == 2 * 7 and len(r.flows) == 3


def test_example_bottleneck_obeys_littles_law_and_its_distribution_sums_to_one():
    r = aqmlab.run(sc.example())
    q = r.queues.set_index("name").loc["r0->r1"]
    lam = q["dequeued"] / r.measured_s
    # Boundary effect: at most 50 packets straddle each window edge, each waiting at most
    # 51 ms, against 25 s of measurement: < 2·50·0.051/25/21 ≈ 1e-2 relative; observed far less.
    assert abs(q["mean_queue_pkts"] - lam * q["mean_sojourn_s"]) / q["mean_queue_pkts"] < 1e-2
    d = r.queue_dist[r.queue_dist["queue"] == "r0->r1"]
    assert abs(d["fraction"].sum() - 1.0) < 1e-12
    assert abs((d["n_pkts"] * d["fraction"]).sum() - q["mean_queue_pkts"]) < 1e-9
    assert q["max_queue_pkts"] <= 50


def test_warmup_excludes_early_packets():
    a = aqmlab.run(sc.example(duration="10s"))
    s = sc.example(duration="10s")
    s["simulation"]["warmup"] = "0s"
    b = aqmlab.run(s)
    assert a.measured_s == 5.0 and b.measured_s == 10.0
    fa = a.flows.set_index("name").loc["video"]
    fb = b.flows.set_index("name").loc["video"]
    # CBR 3 Mb/s, 1200 B: 312.5 packets/s.
    assert abs(fa["sent_pkts"] - 312.5 * 5) <= 1
    assert abs(fb["sent_pkts"] - 312.5 * 10) <= 1


def test_cli_run_writes_summary_tables_and_plot(tmp_path, root, capsys):
    out = tmp_path / "res"
    assert main(["run", str(root / "scenarios" / "example.toml"), "--out", str(out)]) == 0
    for name in ("summary.json", "scenario.toml", "queue_length.png"):
        assert (out / name).stat().st_size > 0
    for t in ("queues", "flows", "timeseries", "queue_dist"):
        csv = pd.read_csv(out / f"{t}.csv")
        pq = pd.read_parquet(out / f"{t}.parquet")
        assert len(csv) == len(pq) > 0
    summary = json.loads((out / "summary.json").read_text())
    q = next(x for x in summary["queues"] if x["name"] == "r0->r1")
    for key in (
        "name",
        "arrivals",
        "enqueued",
        "dropped",
        "marked",
        "mean_queue_pkts",
        "mean_queue_bytes",
        "utilization",
        "mean_sojourn_s",
    ):
        assert key in q
    assert set(q["dropped"]) == {"overflow", "early", "forced", "dequeue"}
    # The module constant other simulators' readers use (aqmlab.ns3) names the same ones.
    assert sorted(q["dropped"]) == sorted(aqmlab._core.REASONS)
    assert q["dropped"]["overflow"] == q["dropped_total"] > 0
    f = summary["flows"][0]
    for key in ("name", "sent_pkts", "received_pkts", "goodput_bps", "mean_delay_s"):
        assert key in f
    assert (out / "queue_length.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "r0->r1" in capsys.readouterr().out


def test_same_scenario_and_seed_give_byte_identical_summary(tmp_path, root):
    f = str(root / "scenarios" / "example.toml")
    assert main(["run", f, "--out", str(tmp_path / "a"), "--no-plot"]) == 0
    assert main(["run", f, "--out", str(tmp_path / "b"), "--no-plot"]) == 0
    assert main(["run", f, "--out", str(tmp_path / "c"), "--no-plot", "--seed", "2"]) == 0
    a = (tmp_path / "a" / "summary.json").read_bytes()
    assert a == (tmp_path / "b" / "summary.json").read_bytes()
    assert a != (tmp_path / "c" / "summary.json").read_bytes()
    assert (tmp_path / "a" / "queues.csv").read_bytes() == (
        tmp_path / "b" / "queues.csv"
    ).read_bytes()


def test_runs_in_threads_match_sequential_runs():
    # The engine releases the GIL; concurrent runs must not interfere.
    scen = [sc.example(duration="5s", warmup="0s") for _ in range(4)]
    for i, s in enumerate(scen):
        s["simulation"]["run"] = i
    seq = [aqmlab.run(s).summary() for s in scen]
    par: list = [None] * 4

    def work(i):
        par[i] = aqmlab.run(scen[i]).summary()

    ts = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert par == seq
    assert seq[0] != seq[1]


def test_cli_help_and_example(capsys, tmp_path):
    import pytest

    with pytest.raises(SystemExit) as e:
        main(["--help"])
    assert e.value.code == 0
    out = capsys.readouterr().out
    assert "run" in out and "validate" in out and "example" in out
    p = tmp_path / "ex.toml"
    assert main(["example", "--out", str(p)]) == 0
    assert aqmlab.canonical(p) == aqmlab.canonical(sc.example())


def test_progress_reports_simulated_time_and_changes_nothing():
    s = sc.example(duration="1500s", warmup="5s")
    seen: list[float] = []
    with_progress = aqmlab.run(s, progress=seen.append)
    assert seen and seen == sorted(seen) and 0 < seen[-1] <= 1500
    assert with_progress.summary() == aqmlab.run(s).summary()

    def broken(_t):
        raise RuntimeError("a failing callback stops the reports, not the run")

    assert aqmlab.run(s, progress=broken).summary() == with_progress.summary()


def test_cli_run_writes_the_traced_flows_time_series(tmp_path, root):
    """`aqmlab run` writes what Python's `res.flow_timeseries` holds (cwnd, ssthresh, srtt
    of the traced TCP flows), as it writes the queues' time series."""
    import aqmlab

    f = root / "scenarios" / "tcp_dumbbell.toml"
    out = tmp_path / "res"
    assert main(["run", str(f), "--out", str(out), "--no-plot"]) == 0
    res = aqmlab.run(str(f))
    assert len(res.flow_timeseries) > 0
    for ext, read in (("csv", pd.read_csv), ("parquet", pd.read_parquet)):
        got = read(out / f"flow_timeseries.{ext}")
        assert {"cwnd", "ssthresh", "srtt_s"} <= set(got.columns)
        pd.testing.assert_frame_equal(got, res.flow_timeseries, check_dtype=False)
