"""Sweep arguments, axis values and paths, default locations, summaries and the results
table (issue 9, items 2, 3, 4, 6, 11 and 13). Each bad input is refused before anything
runs, naming the argument, the value and what is allowed."""

from __future__ import annotations

import sqlite3
import sys
import tomllib
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from test_sweep import BUFFER, base, count_runs, write_sweep

import aqmlab
from aqmlab.cli import main
from aqmlab.sweep import SweepArgumentError, SweepPathError, summarise, t975, tidy

AXIS = {BUFFER: [10, 20]}


@pytest.mark.parametrize(
    ("kw", "message"),
    [
        ({"grid": {BUFFER: []}}, f"grid['{BUFFER}'] is empty: an axis needs at least one value"),
        ({"grid": {BUFFER: 5}}, f"grid['{BUFFER}'] = 5: must be a list of values (one value: [5])"),
        (
            {"grid": {BUFFER: "50"}},
            f"grid['{BUFFER}'] = '50': must be a list of values (one value: ['50'])",
        ),
        ({"grid": 5}, "grid = 5: must be a mapping of field paths to lists of values"),
        ({"zipped": {BUFFER: 7}}, f"zipped['{BUFFER}'] = 7: must be a list of values"),
        ({"runs": "3"}, "runs = '3': must be an integer of at least 1"),
        ({"runs": 1.5}, "runs = 1.5: must be an integer of at least 1"),
        ({"runs": 0}, "runs = 0: must be an integer of at least 1"),
        ({"workers": 0}, "workers = 0: must be an integer of at least 1, or None (all cores)"),
        ({"workers": -1}, "workers = -1: must be an integer of at least 1, or None (all cores)"),
        ({"variants": {}}, "variants = {}: must be a non-empty mapping"),
    ],
    ids=lambda v: str(v)[:30],
)
def test_bad_arguments_are_refused_before_anything_runs(tmp_path, kw, message):
    args = {"grid": AXIS, "runs": 1, "workers": 1, **kw}
    db = tmp_path / "x.db"
    with pytest.raises(SweepArgumentError) as e:
        aqmlab.sweep(base("1s"), db=db, progress=False, **args)
    assert str(e.value).startswith(message), str(e.value)
    assert isinstance(e.value, TypeError) and isinstance(e.value, ValueError)
    assert not db.exists()


def test_a_numpy_axis_is_a_list_of_python_numbers():
    res = aqmlab.sweep(base("1s"), {BUFFER: np.array([10, 20])}, workers=1, progress=False)
    assert res.runs[BUFFER].tolist() == [10, 20]


# Item 2: list and dict axis values; a failing summary loses no run.


def test_list_and_dict_valued_axes_run_and_summarise(tmp_path):
    flows = base("1s")["flows"]
    res = aqmlab.sweep(
        base("1s"),
        {"flows": [flows[:1], flows[:2]], "links[3].queue": [{"limit_pkts": 10}]},
        runs=2,
        workers=1,
        db=tmp_path / "x.db",
        progress=False,
    )
    assert res.summary_error is None and len(res.runs) == 4
    assert res.summary["n_runs"].tolist() == [2, 2]
    assert res.summary["flows"].tolist() == [flows[:1], flows[:2]]  # the values, as given
    assert res.summary["links[3].queue"].tolist() == [{"limit_pkts": 10}] * 2


def test_a_summary_that_fails_keeps_every_run(monkeypatch):
    def broken(runs, params):
        raise TypeError("unhashable type: 'list'")

    monkeypatch.setattr(sys.modules["aqmlab.sweep"], "summarise", broken)
    res = aqmlab.sweep(base("1s"), AXIS, runs=2, workers=1, progress=False)
    assert len(res.runs) == 4 and res.summary is None
    assert res.summary_error == "TypeError: unhashable type: 'list'"


# Item 4: axis paths checked before the first run; links/flows/nodes by name.


@pytest.mark.parametrize(
    ("path", "message"),
    [
        (
            "links[3].queue.limt_pkts",
            "axis 'links[3].queue.limt_pkts': the scenario has no field `limt_pkts` in "
            "links[3].queue; did you mean limit_pkts, limit_bytes? "
            "(valid there: limit_pkts, limit_bytes, aqm)",
        ),
        (
            "simulation.durtion",
            "axis 'simulation.durtion': the scenario has no field `durtion` in simulation; "
            "did you mean duration?",
        ),
        (
            "links[botleneck].queue.limit_pkts",
            "field path 'links[botleneck].queue.limit_pkts': no entry of links is named "
            "'botleneck'; did you mean [bottleneck]?",
        ),
        (
            "links[bottleneck].queue.limt_pkts",
            "axis 'links[bottleneck].queue.limt_pkts': the scenario has no field `limt_pkts`",
        ),
    ],
)
def test_a_path_that_names_no_field_is_refused_before_the_first_run(tmp_path, path, message):
    db = tmp_path / "x.db"
    with pytest.raises(SweepPathError) as e:
        aqmlab.sweep(base("1s"), {path: [1, 2]}, runs=3, workers=1, db=db, progress=False)
    assert str(e.value).startswith(message), str(e.value)
    assert not db.exists()


def test_links_and_flows_by_name_address_the_same_fields_as_by_index():
    b = base("1s")
    names = [f["name"] for f in b["flows"]]
    by_name = aqmlab.sweep(
        b,
        {"links[bottleneck].queue.limit_pkts": [10, 30], f"flows[{names[0]}].start": ["0.1s"]},
        workers=1,
        progress=False,
    )
    by_index = aqmlab.sweep(
        b, {BUFFER: [10, 30], "flows[0].start": ["0.1s"]}, workers=1, progress=False
    )
    metrics = [c for c in by_index.runs.columns if ":" in c]
    pd.testing.assert_frame_equal(by_name.runs[metrics], by_index.runs[metrics])


# Item 3: a sweep without --db/--out writes to a default place and says so.


def test_a_cli_sweep_without_db_or_out_writes_to_the_default_place(tmp_path, capsys, monkeypatch):
    sw = write_sweep(tmp_path, 2, [10, 20])
    monkeypatch.chdir(tmp_path)
    assert main(["sweep", str(sw), "--workers", "1", "--no-progress"]) == 0
    _, err = capsys.readouterr()
    assert "results store: results/sweeps/sweep.db (--db to choose another)" in err
    assert count_runs(tmp_path / "results/sweeps/sweep.db") == 4
    for name in ("runs.csv", "summary.csv", "summary_long.csv"):
        assert (tmp_path / "results/sweeps/sweep" / name).is_file(), name
    # Again: every run is found in the store.
    assert main(["sweep", str(sw), "--workers", "1", "--no-progress"]) == 0
    assert "0 runs computed, 4 found in the store, 0 failed" in capsys.readouterr().out


# Item 11: `aqmlab results` prints a table; --export writes beside the database.


def test_results_prints_a_table_per_engine_version(tmp_path, capsys, monkeypatch):
    db = tmp_path / "x.db"
    aqmlab.sweep(base("1s"), {BUFFER: [0, 10, 20]}, runs=2, workers=1, db=db, progress=False)
    con = sqlite3.connect(db)  # some runs of an older engine
    con.execute("UPDATE runs SET engine_version = '0.0.9' WHERE rowid <= 2")
    con.commit()
    con.close()
    assert main(["results", str(db)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == f"{db}: 4 finished runs, 2 failures"
    assert lines[1].split() == ["engine", "version", "runs", "points", "failures"]
    assert lines[3].split() == ["0.0.9", "2", "1", "0"]
    assert lines[4].split() == [aqmlab.ENGINE_VERSION, "(this", "aqmlab)", "2", "1", "2"]
    assert lines[5].startswith("failed {") and "must be at least 1" in lines[5]
    monkeypatch.chdir(tmp_path / "..")
    assert main(["results", str(db), "--export", "csv"]) == 0
    assert (tmp_path / "x.csv").is_file() and not Path("x.csv").exists()
    assert main(["results", str(db), "--export", "parquet", "--out", str(tmp_path / "o/r.pq")]) == 0
    assert len(pd.read_parquet(tmp_path / "o/r.pq")) == 4


def test_the_tidy_summary_holds_the_wide_one_in_long_form():
    res = aqmlab.sweep(base("1s"), AXIS, runs=3, workers=1, progress=False)
    wide, long = res.summary, res.tidy
    assert list(long.columns) == [BUFFER, "metric", "n_runs", "mean", "sd", "ci95"]
    metrics = [c.removesuffix(":mean") for c in wide.columns if c.endswith(":mean")]
    assert len(long) == len(wide) * len(metrics)
    for _, row in long.sample(50, random_state=0).iterrows():
        w = wide[wide[BUFFER] == row[BUFFER]].iloc[0]
        for stat in ("mean", "sd", "ci95"):
            a, b = row[stat], w[f"{row['metric']}:{stat}"]
            assert (a == b) or (np.isnan(a) and np.isnan(b))
    assert tidy(None, [BUFFER]).empty


# Item 13: scipy's Student-t quantile; summaries as pandas computes them.


def test_t975_is_the_exact_quantile():
    # Published to 9-10 digits (e.g. R's qt(0.975, df)); the former 3-digit table was off
    # by up to 2.3e-4 relative (df = 26).
    for df, exact in [(1, 12.70620474), (4, 2.776445105), (26, 2.055529439), (1000, 1.962339081)]:
        assert t975(df) == pytest.approx(exact, rel=1e-9)


def test_summary_statistics_are_pandas_groupby_statistics():
    rng = np.random.default_rng(1)
    runs = pd.DataFrame({"a": np.repeat([1, 2], 5), "run": np.tile(range(5), 2)})
    runs["m"] = rng.normal(size=10)
    runs.loc[0, "m"] = np.nan
    s = summarise(runs, ["a"])
    g = runs.groupby("a")["m"]
    assert s["m:mean"].tolist() == g.mean().tolist()
    assert s["m:sd"].tolist() == g.std().tolist()
    assert s["m:ci95"].tolist() == (t975(4) * g.std() / np.sqrt(5)).tolist()


# per_run: randomness the engine does not draw, per replication.


def _video_start(s: dict) -> dict:
    """A start for the CBR flow drawn from (seed, run), as the REM reproduction draws its
    users' starts."""
    sim = s["simulation"]
    rng = np.random.Generator(np.random.PCG64([sim["seed"], sim["run"]]))
    return {"flows[0].start": f"{int(rng.integers(1, 500_000_000))}ns"}


def test_per_run_draws_per_replication_and_a_rerun_draws_the_same(tmp_path):
    db = tmp_path / "x.db"
    kw = {"runs": 3, "workers": 1, "progress": False, "db": db, "per_run": _video_start}
    res = aqmlab.sweep(base("1s"), AXIS, **kw)
    with aqmlab.Store(db) as st:
        starts = [tomllib.loads(st.scenario(k))["flows"][0]["start"] for k in res.keys]
    # Each point's three replications: three different draws, the same three at both
    # points (the draw depends on the replication only), and each differs from the
    # base's start of 0 (a draw of exactly 0 is outside 1..5e8 ns).
    assert starts[:3] == starts[3:] and len(set(starts[:3])) == 3
    assert all(s != "0ns" for s in starts)
    again = aqmlab.sweep(base("1s"), AXIS, **kw)
    assert again.keys == res.keys  # the same scenarios: found in the store, not rerun
    pd.testing.assert_frame_equal(again.runs, res.runs)


@pytest.mark.parametrize(
    ("per_run", "message"),
    [
        (5, "per_run = 5: must be a function of a scenario, or None"),
        (lambda s: [1], "per_run returned [1]: must be a mapping of field paths to values"),
        (
            lambda s: {"simulation.run": 7},
            "per_run set 'simulation.run': the sweep owns the replication's seed and run",
        ),
    ],
    ids=["not callable", "not a mapping", "sets the run"],
)
def test_a_bad_per_run_is_refused_before_anything_runs(tmp_path, per_run, message):
    db = tmp_path / "x.db"
    with pytest.raises(SweepArgumentError) as e:
        aqmlab.sweep(base("1s"), AXIS, workers=1, progress=False, db=db, per_run=per_run)
    assert str(e.value) == message


def test_a_cluster_address_with_no_scheduler_is_one_line_and_exit_status_5(tmp_path, capsys):
    import dask

    from aqmlab.cli import main

    sweep_file = Path(__file__).resolve().parent.parent / "scenarios/sweeps/example_buffer.toml"
    with dask.config.set({"distributed.comm.timeouts.connect": "2s"}):
        rc = main(["sweep", str(sweep_file), "--cluster", "tcp://127.0.0.1:9",
                   "--db", str(tmp_path / "s.db"), "--no-progress"])  # fmt: skip
    err = capsys.readouterr().err
    assert rc == 5
    (line,) = [x for x in err.splitlines() if x.startswith("error:")]
    assert "cannot reach the Dask scheduler at tcp://127.0.0.1:9" in line
    assert "Traceback" not in err
