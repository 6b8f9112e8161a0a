"""Sweeps and the results store: backends agree, resume after SIGKILL, refused files stay
untouched, failures are recorded with a reproduction, engine versions never mix."""

from __future__ import annotations

import hashlib
import importlib
import itertools
import json
import math
import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
import tomllib
from pathlib import Path

import pandas as pd
import pytest

import aqmlab
from aqmlab import _core
from aqmlab.cli import main
from aqmlab.scenario import example, to_toml
from aqmlab.store import Store, StoreError, run_key
from aqmlab.sweep import points, set_field, sweep_file, t975

sweep_mod = importlib.import_module("aqmlab.sweep")  # aqmlab.sweep is also the function

BUFFER = "links[3].queue.limit_pkts"


def base(duration: str = "2s") -> dict:
    return example(duration=duration, warmup="0s")


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def ro(db: Path) -> sqlite3.Connection:
    """A read-only connection: the test never writes to a store under test."""
    return sqlite3.connect(f"file:{db}?mode=ro", uri=True)


def stored_runs(db: Path) -> dict[str, tuple[dict, float]]:
    """key -> (metrics, finished_at) of every stored run."""
    con = ro(db)
    try:
        rows = con.execute("SELECT key, metrics, finished_at FROM runs").fetchall()
    finally:
        con.close()
    return {k: (json.loads(m), t) for k, m, t in rows}


def integrity(db: Path) -> str:
    con = ro(db)
    try:
        return con.execute("PRAGMA integrity_check").fetchone()[0]
    finally:
        con.close()


# --------------------------------------------------------------------------------------
# 1. One process, the local process pool and a Dask LocalCluster give identical results.
# --------------------------------------------------------------------------------------

GRID = {BUFFER: [10, 50]}
ZIPPED = {"flows[0].rate": ["2Mbps", "4Mbps"], "flows[0].packet_size": [1000, 1200]}
RUNS = 3


@pytest.fixture(scope="module")
def reference() -> aqmlab.SweepResult:
    return aqmlab.sweep(base(), GRID, zipped=ZIPPED, runs=RUNS, workers=1, progress=False)


def assert_same(a: aqmlab.SweepResult, b: aqmlab.SweepResult) -> None:
    pd.testing.assert_frame_equal(a.runs, b.runs, check_exact=True)
    pd.testing.assert_frame_equal(a.summary, b.summary, check_exact=True)
    assert a.failures.empty and b.failures.empty


def test_reference_sweep_has_one_row_per_run_in_point_order(reference):
    r = reference
    assert r.computed == 2 * 2 * RUNS and r.skipped == 0 and r.failures.empty
    assert list(r.runs.columns[:4]) == [BUFFER, "flows[0].rate", "flows[0].packet_size", "run"]
    assert r.runs["run"].tolist() == [0, 1, 2] * 4
    assert r.runs[BUFFER].tolist() == [10] * 6 + [50] * 6
    assert r.runs["flows[0].rate"].tolist() == (["2Mbps"] * 3 + ["4Mbps"] * 3) * 2
    # Replications are different random runs (else the comparisons below prove little).
    assert r.runs["queue:r0->r1:mean_queue_pkts"].nunique() > 4
    assert len(r.summary) == 4 and (r.summary["n_runs"] == RUNS).all()
    g = r.runs[r.runs[BUFFER] == 10].iloc[:3]["queue:r0->r1:mean_queue_pkts"]
    s = r.summary.iloc[0]
    assert s["queue:r0->r1:mean_queue_pkts:mean"] == pytest.approx(g.mean(), rel=1e-12)
    assert s["queue:r0->r1:mean_queue_pkts:sd"] == pytest.approx(g.std(ddof=1), rel=1e-12)
    ci = t975(2) * g.std(ddof=1) / math.sqrt(3)
    assert s["queue:r0->r1:mean_queue_pkts:ci95"] == pytest.approx(ci, rel=1e-12)


def test_process_pool_gives_identical_results(reference):
    res = aqmlab.sweep(base(), GRID, zipped=ZIPPED, runs=RUNS, workers=2, progress=False)
    assert_same(reference, res)


def test_process_pool_with_a_store_gives_identical_results(reference, tmp_path):
    db = tmp_path / "s.db"
    res = aqmlab.sweep(base(), GRID, zipped=ZIPPED, runs=RUNS, workers=2, db=db, progress=False)
    assert_same(reference, res)
    # Read back from the store alone (nothing computed): still identical.
    again = aqmlab.sweep(base(), GRID, zipped=ZIPPED, runs=RUNS, workers=2, db=db, progress=False)
    assert again.computed == 0 and again.skipped == 12
    assert_same(reference, again)


def test_dask_local_cluster_gives_identical_results(reference):
    pytest.importorskip("distributed")
    res = aqmlab.sweep(
        base(), GRID, zipped=ZIPPED, runs=RUNS, cluster="local", workers=2, progress=False
    )
    assert_same(reference, res)


# --------------------------------------------------------------------------------------
# 2. SIGKILL in the middle of a sweep, then resume.
# --------------------------------------------------------------------------------------


def write_sweep(tmp_path: Path, runs: int, limits: list[int]) -> Path:
    (tmp_path / "base.toml").write_text(to_toml(base()), "utf-8")
    sw = tmp_path / "sweep.toml"
    sw.write_text(
        f'[sweep]\nbase = "base.toml"\nruns = {runs}\n\n[sweep.grid]\n"{BUFFER}" = {limits}\n',
        "utf-8",
    )
    return sw


def cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "aqmlab.cli", *args]


def count_runs(db: Path) -> int:
    try:
        con = ro(db)
        try:
            return con.execute("SELECT count(*) FROM runs").fetchone()[0]
        finally:
            con.close()
    except sqlite3.OperationalError:  # not created yet, or the table not yet there
        return 0


def test_sigkill_then_resume_loses_nothing_and_recomputes_nothing(tmp_path):
    runs, limits = 30, [10, 20, 50, 100]
    total = runs * len(limits)
    sw = write_sweep(tmp_path, runs, limits)
    db = tmp_path / "killed.db"
    cmd = cli("sweep", str(sw), "--db", str(db), "--workers", "1", "--no-progress")

    proc = subprocess.Popen(cmd, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 120
        while (n := count_runs(db)) < 10:
            assert proc.poll() is None, f"the sweep ended before it could be killed ({n} runs)"
            assert time.monotonic() < deadline, "the sweep stored nothing in 120 s"
            time.sleep(0.01)
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.kill()
        proc.communicate()
    assert proc.returncode == -signal.SIGKILL

    before = stored_runs(db)
    assert 10 <= len(before) < total, "killed too late: every run was already stored"
    assert integrity(db) == "ok"

    done = subprocess.run(cmd, cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    k = len(before)
    assert f"{total - k} runs computed, {k} found in the store, 0 failed" in done.stdout

    after = stored_runs(db)
    assert len(after) == total
    for key, (metrics, finished_at) in before.items():
        assert after[key] == (metrics, finished_at), "a run stored before the kill changed"
    assert integrity(db) == "ok"

    # Same runs, same numbers as a sweep that was never interrupted.
    fresh = tmp_path / "fresh.db"
    res = sweep_file(sw, db=fresh, workers=2, progress=False)
    assert res.computed == total and res.failures.empty
    clean = stored_runs(fresh)
    assert set(clean) == set(after)
    assert all(clean[key][0] == after[key][0] for key in clean)


# --------------------------------------------------------------------------------------
# 3. Corrupt and foreign files are refused with a clear message and left untouched.
# --------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def real_store(tmp_path_factory) -> Path:
    db = tmp_path_factory.mktemp("store") / "real.db"
    res = aqmlab.sweep(base("1s"), {BUFFER: [10, 20]}, runs=2, workers=1, db=db, progress=False)
    assert res.computed == 4 and not Path(f"{db}-wal").exists()
    return db


def make_random(path: Path, real: Path) -> None:
    path.write_bytes(random.Random(0).randbytes(16384))


def make_foreign(path: Path, real: Path) -> None:
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE people (name TEXT, age INTEGER)")
    con.execute("INSERT INTO people VALUES ('ada', 36)")
    con.commit()
    con.close()


def make_truncated(path: Path, real: Path) -> None:
    shutil.copyfile(real, path)
    os.truncate(path, path.stat().st_size // 2)


def make_other_schema(path: Path, real: Path) -> None:
    shutil.copyfile(real, path)
    con = sqlite3.connect(path)
    con.execute("PRAGMA user_version = 99")
    con.close()


@pytest.mark.parametrize(
    "make, fragment",
    [
        (make_random, "is not a readable SQLite database"),
        (make_foreign, "is a SQLite database but not an aqmlab results store"),
        (make_truncated, "is not a readable SQLite database"),
        (make_other_schema, "is an aqmlab store of schema 99"),
    ],
    ids=["random-bytes", "foreign", "truncated", "other-schema"],
)
def test_unusable_file_is_refused_and_left_untouched(make, fragment, real_store, tmp_path, capsys):
    path = tmp_path / "bad.db"
    make(path, real_store)
    assert not Path(f"{path}-wal").exists()
    digest, size = sha256(path), path.stat().st_size
    if make is make_truncated:
        try:
            Store(path).close()
        except StoreError:
            pass
        else:
            pytest.skip("this SQLite does not detect the truncation when opening")
        assert sha256(path) == digest

    with pytest.raises(StoreError, match=fragment) as e:
        Store(path)
    assert "left untouched" in str(e.value)
    assert sha256(path) == digest

    assert main(["results", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and fragment in err and "Traceback" not in err
    assert sha256(path) == digest

    # A sweep refuses it before running anything, and does not overwrite it.
    with pytest.raises(StoreError, match=fragment):
        aqmlab.sweep(base("1s"), {BUFFER: [10]}, runs=1, workers=1, db=path, progress=False)
    assert sha256(path) == digest and path.stat().st_size == size
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.db"]  # no -wal, -shm left


# --------------------------------------------------------------------------------------
# 4. A failing point records its message and a reproduction; the sweep goes on.
# --------------------------------------------------------------------------------------


def test_invalid_point_is_recorded_with_a_reproducing_command(tmp_path, capsys):
    db = tmp_path / "f.db"
    res = aqmlab.sweep(base("1s"), {BUFFER: [0, 20, 50]}, runs=2, workers=2, db=db, progress=False)
    # The other points completed.
    assert res.computed == 4
    assert res.runs[BUFFER].tolist() == [20, 20, 50, 50]
    assert res.summary[BUFFER].tolist() == [20, 50]
    # Both runs of the invalid point failed, each with its message and a command.
    assert len(res.failures) == 2
    for f, r in zip(res.failures.to_dict("records"), [0, 1], strict=True):
        assert f["point"] == {BUFFER: 0} and f["run"] == r
        assert "links[3].queue.limit_pkts = 0" in f["message"]
        assert f["command"].startswith(f"aqmlab results {db} --scenario ")
        assert "\n" not in f["command"]

    # The store has them too, and `aqmlab results` lists them.
    with Store(db) as st:
        stored = st.failures()
        assert len(st.runs()) == 4
    assert sorted(stored["run_index"]) == [0, 1]
    assert set(stored["command"]) == set(res.failures["command"])
    assert main(["results", str(db)]) == 0
    out = capsys.readouterr().out
    assert "4 finished runs" in out and "2 failures" in out
    assert out.count("links[3].queue.limit_pkts = 0: must be at least 1") == 2
    assert out.count("reproduce: aqmlab results") == 2

    # The command reproduces the failure.
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    cmd = res.failures["command"][0]
    p = subprocess.run(cmd, shell=True, cwd=tmp_path, env=env, capture_output=True, text=True)
    assert p.returncode == 2, p.stderr
    assert "links[3].queue.limit_pkts = 0: must be at least 1" in p.stderr
    assert tomllib.loads((tmp_path / "repro.toml").read_text())["simulation"]["run"] == 0


def test_without_a_store_failures_are_still_reported(tmp_path):
    res = aqmlab.sweep(base("1s"), {BUFFER: [0, 20]}, runs=1, workers=1, progress=False)
    assert res.computed == 1 and len(res.runs) == 1
    assert res.failures["message"].str.contains("must be at least 1").tolist() == [True]


def test_run_time_failure_is_recorded_then_retried_on_resume(tmp_path, monkeypatch):
    db = tmp_path / "rt.db"
    real = sweep_mod._run_one

    def flaky(text: str, timeseries: bool = False, extra=None, summary: bool = True) -> dict:
        if tomllib.loads(text)["links"][3]["queue"]["limit_pkts"] == 50:
            raise _core.InternalError("boom")
        return real(text, timeseries, extra, summary)

    monkeypatch.setattr(sweep_mod, "_run_one", flaky)
    res = aqmlab.sweep(base("1s"), {BUFFER: [20, 50, 80]}, runs=1, workers=1, db=db, progress=False)
    assert res.runs[BUFFER].tolist() == [20, 80]
    [f] = res.failures.to_dict("records")
    assert f["point"] == {BUFFER: 50} and f["message"] == "InternalError: boom"
    with Store(db) as st:
        key = st.failures()["key"][0]
        assert "limit_pkts = 50" in st.scenario(key[:16])  # the canonical scenario, to rerun

    # Resumed with a working engine: only the failed run is computed; the failure is cleared.
    monkeypatch.setattr(sweep_mod, "_run_one", real)
    res = aqmlab.sweep(base("1s"), {BUFFER: [20, 50, 80]}, runs=1, workers=1, db=db, progress=False)
    assert (res.computed, res.skipped) == (1, 2) and res.failures.empty
    assert res.runs[BUFFER].tolist() == [20, 50, 80]
    with Store(db) as st:
        assert st.failures().empty


# --------------------------------------------------------------------------------------
# 5. Runs of another engine version are kept but never reused or mixed in.
# --------------------------------------------------------------------------------------


def test_runs_of_another_engine_version_are_not_reused(tmp_path, monkeypatch):
    db = tmp_path / "v.db"
    grid = {BUFFER: [10, 50]}

    def go():
        return aqmlab.sweep(base("1s"), grid, runs=2, workers=1, db=db, progress=False)

    first = go()
    assert first.computed == 4
    # Copies of every run under engine "0.0.0-test", with a tell-tale metric.
    con = sqlite3.connect(db)
    with con:
        for _key, _ev, point, run, scenario, metrics, t in con.execute(
            "SELECT * FROM runs"
        ).fetchall():
            fake = {**json.loads(metrics), "events": -1}
            key = run_key(tomllib.loads(scenario), "0.0.0-test")
            con.execute(
                "INSERT INTO runs VALUES (?, ?, ?, ?, ?, ?, ?)",
                (key, "0.0.0-test", point, run, scenario, json.dumps(fake), t),
            )
    con.close()

    again = go()  # this engine: its own runs, none of the others
    assert (again.computed, again.skipped) == (0, 4)
    pd.testing.assert_frame_equal(first.runs, again.runs, check_exact=True)

    monkeypatch.setattr(_core, "ENGINE_VERSION", "0.0.0-test")
    test = go()  # engine "0.0.0-test": only its runs
    assert (test.computed, test.skipped) == (0, 4)
    assert (test.runs["events"] == -1).all() and len(test.runs) == 4

    monkeypatch.setattr(_core, "ENGINE_VERSION", "0.0.0-other")
    other = go()  # an engine with no runs in the file: everything is computed afresh
    assert (other.computed, other.skipped) == (4, 0)
    pd.testing.assert_frame_equal(first.runs, other.runs, check_exact=True)
    with Store(db) as st:
        counts = st.runs()["engine_version"].value_counts().to_dict()
    assert counts == {aqmlab.ENGINE_VERSION: 4, "0.0.0-test": 4, "0.0.0-other": 4}


# --------------------------------------------------------------------------------------
# 6. Field paths, points, Student-t quantiles.
# --------------------------------------------------------------------------------------


def test_set_field_sets_nested_values_and_creates_tables():
    s = base()
    set_field(s, "links[3].queue.limit_pkts", 7)
    set_field(s, "simulation.run", 4)
    set_field(s, "links[3].queue.aqm.type", "red")
    assert s["links"][3]["queue"] == {"limit_pkts": 7, "aqm": {"type": "red"}}
    assert s["simulation"]["run"] == 4
    set_field(s, "extra.table.value", 1)
    assert s["extra"] == {"table": {"value": 1}}


@pytest.mark.parametrize(
    "path, fragment",
    [
        ("", "invalid field path"),
        ("links[3]..queue", "invalid field path"),
        ("links[x].queue", "no entry of links is named 'x'"),  # [name] addresses by name
        ("links[3].queue.", "invalid field path"),
        ("links[99].queue.limit_pkts", "no 99"),
        ("simulation.duration.unit", "cannot set 'unit'"),
        ("nodes.name", "cannot set"),
        ("links[99]", "cannot set"),
    ],
)
def test_set_field_rejects_bad_paths(path, fragment):
    s = base()
    with pytest.raises(ValueError, match="field path") as e:
        set_field(s, path, 1)
    assert fragment in str(e.value)


def test_sweep_with_a_bad_path_fails_before_running(tmp_path):
    db = tmp_path / "p.db"
    with pytest.raises(ValueError, match="links\\[99\\]"):
        aqmlab.sweep(base(), {"links[99].queue.limit_pkts": [1]}, workers=1, db=db, progress=False)
    with Store(db) as st:
        assert st.runs().empty and st.failures().empty


def test_points_grid_times_zipped():
    pts = points({"a": [1, 2], "b": ["x", "y", "z"]}, zipped={"c": [10, 20], "d": [0.1, 0.2]})
    assert len(pts) == 2 * 3 * 2
    assert pts[0] == {"a": 1, "b": "x", "c": 10, "d": 0.1}
    assert pts[1] == {"a": 1, "b": "x", "c": 20, "d": 0.2}
    assert pts[-1] == {"a": 2, "b": "z", "c": 20, "d": 0.2}
    assert points() == [{}]
    assert points(zipped={"c": [1, 2]}) == [{"c": 1}, {"c": 2}]


def test_zipped_axes_of_unequal_length_are_refused():
    with pytest.raises(ValueError, match="equal lengths"):
        points(zipped={"c": [1, 2], "d": [1, 2, 3]})
    with pytest.raises(ValueError, match="equal lengths"):
        aqmlab.sweep(base(), zipped={"c": [1, 2], "d": [1]}, workers=1, progress=False)


def test_t975_matches_the_tables():
    assert t975(9) == pytest.approx(2.262, abs=5e-4)
    assert t975(1) == pytest.approx(12.706, abs=5e-4)
    assert t975(30) == pytest.approx(2.042, abs=5e-4)
    assert t975(10**9) == pytest.approx(1.960, abs=5e-4)
    # Between table rows: interpolation close to the exact quantiles.
    for df, exact in [(35, 2.0301), (50, 2.0086), (100, 1.9840), (1000, 1.9623)]:
        assert t975(df) == pytest.approx(exact, abs=2e-3)
    values = [t975(df) for df in range(1, 2000)]
    assert all(a > b for a, b in itertools.pairwise(values))
    assert math.isnan(t975(0))


@pytest.mark.parametrize("with_db", [False, True])
def test_a_sweep_where_every_run_fails_returns_no_rows(tmp_path, with_db):
    db = tmp_path / "all-failed.db" if with_db else None
    res = aqmlab.sweep(base("1s"), {BUFFER: [0]}, runs=2, workers=1, db=db, progress=False)
    assert res.runs.empty and res.summary.empty and len(res.failures) == 2
    assert (res.computed, res.skipped) == (0, 0)


def test_variants_apply_named_field_sets_as_one_axis(tmp_path):
    """A variant sets several fields at once; its label is the ``variant`` column, and
    a grid axis crosses it."""
    variants = {
        "tail": {"links[3].queue.aqm": {"type": "droptail"}},
        "red": {
            "links[3].queue.aqm": {"type": "red", "min_th": 2, "max_th": 6, "max_p": 0.5},
            "simulation.seed": 2,
        },
    }
    res = aqmlab.sweep(
        base("1s"), {BUFFER: [30, 60]}, variants=variants, runs=1, workers=1, db=tmp_path / "v.db"
    )
    assert res.params == [BUFFER, "variant"]
    assert len(res.runs) == 4
    q = "queue:r0->r1"
    r = res.runs.set_index(["variant", BUFFER])
    for b in [30, 60]:
        # RED's early drops exist only in the variant that sets it.
        assert r.loc[("tail", b), f"{q}:dropped_early"] == 0
        assert r.loc[("red", b), f"{q}:dropped_early"] > 0
    with Store(tmp_path / "v.db") as st:
        stored = st.runs()
    assert sorted(stored["variant"]) == ["red", "red", "tail", "tail"]
    with pytest.raises(ValueError, match="field path 'nope"):
        aqmlab.sweep(base("1s"), variants={"x": {"nope[0].a": 1}}, workers=1)


def _p_empty(res) -> dict[str, float]:
    d = res.queue_dist
    q = d[d["queue"] == "r0->r1"]
    return {"p_empty": float(q.loc[q["n_pkts"] == 0, "fraction"].sum())}


def test_extra_metrics_are_computed_in_the_worker_and_stored(tmp_path):
    res = aqmlab.sweep(
        base("1s"), {BUFFER: [5, 50]}, runs=1, workers=2, extra=_p_empty, db=tmp_path / "x.db"
    )
    assert res.runs["p_empty"].between(0, 1).all()
    with Store(tmp_path / "x.db") as st:
        assert sorted(st.runs()["p_empty"]) == sorted(res.runs["p_empty"])
    direct = aqmlab.run(set_and_copy(base("1s"), BUFFER, 5))
    assert res.runs.set_index(BUFFER).loc[5, "p_empty"] == _p_empty(direct)["p_empty"]


def test_summary_false_keeps_extras_metrics_alone(tmp_path):
    # For runs whose summary (a column per queue and flow metric) would not fit in memory:
    # the rows hold the point, the run and extra's numbers, in the store too.
    from aqmlab.sweep import SweepArgumentError

    db = tmp_path / "x.db"
    res = aqmlab.sweep(
        base("1s"), {BUFFER: [5, 50]}, runs=1, workers=1, extra=_p_empty, summary=False, db=db
    )
    assert list(res.runs.columns) == [BUFFER, "run", "p_empty"]
    with Store(db) as st:
        stored = st.runs()
    assert "p_empty" in stored and not [c for c in stored if c.startswith(("queue:", "flow:"))]
    with pytest.raises(SweepArgumentError, match="summary = False needs extra"):
        aqmlab.sweep(base("1s"), {BUFFER: [5]}, summary=False, workers=1)


def set_and_copy(s, path, value):
    import copy

    s = copy.deepcopy(s)
    set_field(s, path, value)
    return s


def test_keys_name_each_row_and_its_time_series(tmp_path):
    res = aqmlab.sweep(base("1s"), {BUFFER: [10, 40]}, runs=2, workers=1, db=tmp_path / "k.db")
    assert len(res.keys) == len(res.runs) == 4 and len(set(res.keys)) == 4
    with Store(tmp_path / "k.db") as st:
        for key, (_, row) in zip(res.keys, res.runs.iterrows(), strict=True):
            ts = st.timeseries(key)
            stored = st.runs().set_index("key").loc[key]
            assert stored["run"] == row["run"] and stored[BUFFER] == row[BUFFER]
            assert len(ts) > 0
    plain = aqmlab.sweep(base("1s"), {BUFFER: [10, 40]}, runs=2, workers=1, progress=False)
    assert plain.keys == res.keys  # the same scenarios have the same keys without a store
