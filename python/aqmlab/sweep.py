"""Sweeps: scenario fields x replications, on all local cores or a Dask cluster.

    res = aqmlab.sweep(base, grid={"links[3].queue.limit_pkts": [20, 50, 100]}, runs=10)
    res.summary      # per point: mean, sd, 95% CI half-width of every metric
    res.runs         # one row per run

Replications are independent random runs of one seed (`simulation.run` = 0..runs-1), so a
sweep's numbers do not depend on the backend, the worker count or the completion order.
With ``db=PATH`` every finished run is committed to a results store before it counts as
done; re-running the same sweep skips the runs already there (kill it any time).
"""

from __future__ import annotations

import contextlib
import copy
import itertools
import math
import os
import re
import signal
import sys
import tomllib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from aqmlab import _core
from aqmlab.pool import EXIT_CODES, SweepInterrupted, _Signalled, run_tasks, signals_raise
from aqmlab.scenario import ScenarioLike, as_toml, load, to_toml
from aqmlab.store import Store, StoreLock, run_key

_STEP = re.compile(r"([^.\[\]]+)|\[(\d+)\]")


def set_field(scenario: dict, path: str, value: Any) -> None:
    """Sets ``value`` at a field path like ``links[3].queue.limit_pkts`` (creating tables)."""
    steps = [int(i) if i else k for k, i in _STEP.findall(path)]
    if (
        not steps
        or "".join(f"[{s}]" if isinstance(s, int) else f".{s}" for s in steps).lstrip(".") != path
    ):
        raise ValueError(f"invalid field path {path!r} (expected e.g. links[3].queue.limit_pkts)")
    node: Any = scenario
    for here, nxt in itertools.pairwise(steps):
        try:
            if isinstance(here, int):
                node = node[here]
            else:
                node = node.setdefault(here, [] if isinstance(nxt, int) else {})
        except (IndexError, KeyError, TypeError, AttributeError) as e:
            raise ValueError(f"field path {path!r}: no {here!r} in the scenario") from e
    try:
        node[steps[-1]] = value
    except (IndexError, TypeError) as e:
        raise ValueError(f"field path {path!r}: cannot set {steps[-1]!r}") from e


def points(
    grid: Mapping[str, Sequence] | None = None, zipped: Mapping[str, Sequence] | None = None
) -> list[dict[str, Any]]:
    """The sweep's points: the cartesian product of ``grid`` axes, times one axis made of the
    ``zipped`` fields taken together (all of the same length)."""
    axes: list[list[dict[str, Any]]] = [[{k: v} for v in vals] for k, vals in (grid or {}).items()]
    if zipped:
        lengths = {k: len(v) for k, v in zipped.items()}
        if len(set(lengths.values())) != 1:
            raise ValueError(f"zipped axes must have equal lengths, got {lengths}")
        n = next(iter(lengths.values()))
        axes.append([{k: zipped[k][i] for k in zipped} for i in range(n)])
    return [{k: v for d in combo for k, v in d.items()} for combo in itertools.product(*axes)]


def flatten(summary: dict[str, Any]) -> dict[str, Any]:
    """Results.summary() as flat columns: ``queue:<name>:<metric>``, ``flow:<name>:<metric>``."""
    out: dict[str, Any] = {}
    for kind in ("queue", "flow"):
        for row in summary[kind + "s"]:
            for k, v in row.items():
                if isinstance(v, dict):
                    for k2, v2 in v.items():
                        out[f"{kind}:{row['name']}:{k}_{k2}"] = v2
                elif (isinstance(v, (int, float)) and not isinstance(v, bool)) or v is None:
                    out[f"{kind}:{row['name']}:{k}"] = v
    out["events"] = summary["events"]
    return out


def _run_one(toml_text: str, timeseries: bool = False, extra=None) -> dict[str, Any]:
    """Runs one scenario in a worker; returns its flat metrics (and, if asked, its queue
    and flow time series as Parquet bytes under the key "__timeseries__") or raises."""
    from aqmlab.results import Results

    res = Results(_core.run(toml_text))
    out = flatten(res.summary())
    if extra is not None:
        for k, v in extra(res).items():
            if k in out:
                raise ValueError(f"extra metric {k!r} would overwrite a summary column")
            out[k] = float(v)
    if timeseries:
        import io

        ts = res.timeseries.copy()
        ft = res.flow_timeseries
        if len(ft):
            ts = pd.concat([ts, ft], ignore_index=True)
        buf = io.BytesIO()
        ts.to_parquet(buf, index=False)
        out["__timeseries__"] = buf.getvalue()
    return out


# Student-t 0.975 quantiles (two-sided 95%), by degrees of freedom.
_T975 = {
    1: 12.706,
    2: 4.303,
    3: 3.182,
    4: 2.776,
    5: 2.571,
    6: 2.447,
    7: 2.365,
    8: 2.306,
    9: 2.262,
    10: 2.228,
    11: 2.201,
    12: 2.179,
    13: 2.160,
    14: 2.145,
    15: 2.131,
    16: 2.120,
    17: 2.110,
    18: 2.101,
    19: 2.093,
    20: 2.086,
    21: 2.080,
    22: 2.074,
    23: 2.069,
    24: 2.064,
    25: 2.060,
    26: 2.056,
    27: 2.052,
    28: 2.048,
    29: 2.045,
    30: 2.042,
    40: 2.021,
    60: 2.000,
    120: 1.980,
}


def t975(df: int) -> float:
    """t_{0.975, df}: exact table to 30, then interpolation in 1/df towards 1.960."""
    if df < 1:
        return math.nan
    if df in _T975:
        return _T975[df]
    known = [*sorted(_T975), math.inf]
    for lo, hi in itertools.pairwise(known):
        if lo < df < hi:
            a, b = _T975[lo], (_T975[hi] if hi != math.inf else 1.95996)
            x, x0, x1 = 1 / df, 1 / lo, (1 / hi if hi != math.inf else 0.0)
            return b + (a - b) * (x - x1) / (x0 - x1)
    return 1.95996


@dataclass
class SweepResult:
    params: list[str]
    runs: pd.DataFrame
    failures: pd.DataFrame
    skipped: int = 0
    computed: int = 0
    #: The store key of each row of ``runs``, in order (the key of its time-series file).
    keys: list[str] = field(default_factory=list)
    summary: pd.DataFrame = field(init=False)

    def __post_init__(self) -> None:
        self.summary = summarise(self.runs, self.params)


def summarise(runs: pd.DataFrame, params: list[str]) -> pd.DataFrame:
    """Per point: n_runs, and mean, sd and 95% CI half-width (Student-t) of every metric."""
    if runs.empty:
        return pd.DataFrame()
    metrics = [
        c
        for c in runs.columns
        if c not in {*params, "run", "key", "engine_version"}
        and pd.api.types.is_numeric_dtype(runs[c])
    ]
    rows = []
    for keys, g in runs.groupby(params, sort=False, dropna=False) if params else [((), runs)]:
        keys = keys if isinstance(keys, tuple) else (keys,)
        row: dict[str, Any] = dict(zip(params, keys, strict=True))
        n = len(g)
        row["n_runs"] = n
        # Every metric at once, one metric a contiguous row, with the arithmetic of pandas'
        # Series.mean() and Series.std(ddof=1) (missing values skipped), so the numbers are
        # those of a per-column loop, about 30 times faster.
        x = np.ascontiguousarray(g[metrics].to_numpy(dtype=float, na_value=np.nan).T)
        missing = np.isnan(x)
        count = (~missing).sum(axis=1)
        x[missing] = 0.0
        with np.errstate(invalid="ignore", divide="ignore"):
            mean = x.sum(axis=1) / count
            sqr = (mean[:, None] - x) ** 2
            sqr[missing] = 0.0
            sd = np.sqrt(sqr.sum(axis=1) / (count - 1))
        sd[(count < 2) | (n < 2)] = np.nan
        ci = t975(n - 1) * sd / math.sqrt(n) if n > 1 else np.full(len(metrics), np.nan)
        for m, a, b, c in zip(metrics, mean, sd, ci, strict=True):
            row[f"{m}:mean"] = a
            row[f"{m}:sd"] = b
            row[f"{m}:ci95"] = c
        rows.append(row)
    return pd.DataFrame(rows)


# fork is fast and works for scripts read from standard input; the engine starts no
# threads, so forking is safe on Linux. Elsewhere spawn is the only safe choice.


def _client(cluster: str, workers: int | None):
    from distributed import Client, LocalCluster

    if cluster == "local":
        lc = LocalCluster(
            n_workers=workers or os.cpu_count() or 1,
            threads_per_worker=1,
            processes=True,
            dashboard_address=None,
        )
        return Client(lc), lc
    return Client(cluster), None


def _resolve_run_one() -> Callable[..., dict[str, Any]]:
    """The run function, looked up in the worker (where a test may have replaced it)."""
    return sys.modules[__name__]._run_one


def _run_on_cluster(tasks, cluster, workers, want_ts, extra, done_with) -> None:
    client, lc = _client(cluster, workers)
    futs = {}
    try:
        futs = {client.submit(_run_one, t[3], want_ts, extra, pure=False): t for t in tasks}
        from distributed import as_completed

        for fut in as_completed(futs):
            try:
                outcome: Any = fut.result()
            except Exception as e:
                outcome = e
            done_with(futs[fut], outcome)
    finally:
        with contextlib.suppress(Exception):
            client.cancel(list(futs))
        client.close(timeout=2)
        if lc is not None:
            lc.close(timeout=2)


def sweep(
    base: ScenarioLike,
    grid: Mapping[str, Sequence] | None = None,
    *,
    zipped: Mapping[str, Sequence] | None = None,
    variants: Mapping[str, Mapping[str, Any]] | None = None,
    runs: int = 1,
    workers: int | None = None,
    cluster: str | None = None,
    db: str | Path | None = None,
    progress: bool = True,
    timeseries: bool = True,
    extra: Callable[[Any], Mapping[str, float]] | None = None,
) -> SweepResult:
    """Runs every point of ``grid`` (and ``zipped``) ``runs`` times.

    ``workers``: local worker processes (default: all cores; 1 runs one worker process, so
    that Ctrl-C and a crashing run behave as with many).
    ``cluster``: "local" for a Dask LocalCluster, or a scheduler address ("tcp://host:8786").
    ``db``: a results store; finished runs are skipped, each new one committed when done,
    with its time series (queues and traced flows) in ``<db>.timeseries/<key>.parquet``
    unless ``timeseries`` is False.
    ``variants``: named sets of field assignments ({label: {path: value, ...}}), one more
    axis whose column ``variant`` holds the label: for configurations that differ in many
    fields at once (an AQM and the ECN flag of every flow).
    ``extra``: a module-level function of a run's ``Results`` returning more metrics
    ({name: number}), computed in the worker (e.g. probabilities from the queue
    distribution). The store keys runs by scenario, so a changed ``extra`` needs a new db.
    A failing run records its message and a command that reproduces it; the sweep goes on.
    """
    if runs < 1:
        raise ValueError(f"runs = {runs}: must be at least 1")
    base_dict = copy.deepcopy(dict(base)) if isinstance(base, Mapping) else load(base)
    as_toml(base_dict)  # reject unserialisable values early
    pts = points(grid, zipped)
    if variants is not None:
        if not variants:
            raise ValueError("variants is empty")
        pts = [{**p, "variant": v} for p in pts for v in variants]
    params = list(pts[0]) if pts and pts[0] else []
    version = _core.ENGINE_VERSION
    if pts:  # field paths are the same at every point: check them before touching a store
        for v in variants or [None]:
            probe = copy.deepcopy(base_dict)
            _apply(probe, {**pts[0], "variant": v} if v else pts[0], variants)
    # The store is checked first (a refused file gets no lock file beside it), then locked
    # for the sweep: a second sweep on it waits, then finds these runs finished.
    store = Store(db) if db is not None else None
    try:
        with StoreLock(db) if db is not None else contextlib.nullcontext():
            return _sweep(
                base_dict,
                variants,
                pts,
                params,
                runs,
                version,
                store,
                workers,
                cluster,
                progress,
                timeseries and store is not None,
                extra,
            )
    finally:
        if store is not None:
            store.close()


def _apply(s: dict, p: Mapping[str, Any], variants: Mapping[str, Mapping[str, Any]] | None):
    for path, value in p.items():
        if path == "variant" and variants is not None:
            for vpath, vvalue in variants[value].items():
                set_field(s, vpath, copy.deepcopy(vvalue))
        else:
            set_field(s, path, value)


def _sweep(
    base_dict,
    variants,
    pts,
    params,
    runs,
    version,
    store,
    workers,
    cluster,
    progress,
    want_ts,
    extra,
):
    done = store.finished_keys() if store else set()

    tasks: list[tuple[str, dict, int, str]] = []  # key, point, run, toml
    rows: dict[str, dict[str, Any]] = {}
    failures: list[dict[str, Any]] = []
    skipped = 0
    order: list[str] = []

    def record(key: str, p: dict, r: int, text: str, outcome: Any) -> None:
        if isinstance(outcome, BaseException):
            msg = f"{type(outcome).__name__}: {outcome}"
            cmd = store.put_failure(key, version, p, r, text, msg) if store else ""
            failures.append({"point": p, "run": r, "message": msg, "command": cmd})
        else:
            blob = outcome.pop("__timeseries__", None)
            if store:
                if blob is not None:
                    store.put_timeseries(key, blob)  # before the row: a row implies its file
                store.put_run(key, version, p, r, text, outcome)
            rows[key] = {**p, "run": r, **outcome}

    for p in pts:
        for r in range(runs):
            s = copy.deepcopy(base_dict)
            _apply(s, p, variants)
            set_field(s, "simulation.run", r)
            text = to_toml(s)
            try:
                canon_text = _core.canonical(text)
            except _core.ScenarioError as e:
                # Invalid before running: stored under the key of the scenario as written,
                # with the text that reproduces the error.
                record(run_key(tomllib.loads(text), version), p, r, text, e)
                continue
            key = run_key(tomllib.loads(canon_text), version)
            order.append(key)
            if key in done:
                skipped += 1
                continue
            tasks.append((key, p, r, canon_text))

    bar = _progress(len(tasks)) if progress and tasks else None
    finished = 0

    def done_with(t: tuple[str, dict, int, str], outcome: Any) -> None:
        nonlocal finished
        record(*t, outcome)
        finished += 1
        if bar:
            bar.advance()

    try:
        with signals_raise():
            if tasks and cluster is not None:
                _run_on_cluster(tasks, cluster, workers, want_ts, extra, done_with)
            elif tasks:
                run_tasks(
                    _resolve_run_one,
                    [(t[3], want_ts, extra) for t in tasks],
                    workers or os.cpu_count() or 1,
                    lambda i, outcome: done_with(tasks[i], outcome),
                )
    except _Signalled as sig:
        if bar:
            bar.stop()
            bar = None
        code = EXIT_CODES[signal.Signals(sig.signum)]
        kept = f"{skipped + finished} runs stored" if store else f"{finished} runs done (no store)"
        raise SweepInterrupted(
            f"interrupted: {kept}, {len(tasks) - finished} pending; "
            + ("run the same command to resume" if store else "nothing was kept"),
            code,
        ) from None
    finally:
        if bar:
            bar.stop()

    keys: list[str] = []
    if store:
        all_runs = store.runs(version)
        all_runs = all_runs[all_runs["key"].isin(order)] if not all_runs.empty else all_runs
        if all_runs.empty:  # every run failed: no rows, as without a store
            frame = pd.DataFrame()
        else:
            stored = set(all_runs["key"])
            keys = [k for k in order if k in stored]
            frame = all_runs.set_index("key").loc[keys]
            frame = frame.reset_index(drop=True).drop(columns=["engine_version"])
            # The columns of a sweep without a store: parameters, run, metrics as computed.
            rest = [c for c in frame.columns if c not in {*params, "run"}]
            frame = frame[[*params, "run", *rest]]
    else:
        keys = [k for k in order if k in rows]
        frame = pd.DataFrame([rows[k] for k in keys])
    return SweepResult(
        params=params,
        runs=frame,
        failures=pd.DataFrame(failures, columns=["point", "run", "message", "command"]),
        skipped=skipped,
        computed=len(tasks),
        keys=keys,
    )


class _progress:
    """A rich progress bar with ETA on standard error."""

    def __init__(self, total: int):
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )

        self.p = Progress(
            "[progress.description]{task.description}",
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            "ETA",
            TimeRemainingColumn(),
            transient=False,
        )
        self.p.start()
        self.task = self.p.add_task("runs", total=total)

    def advance(self) -> None:
        self.p.advance(self.task)

    def stop(self) -> None:
        self.p.stop()


def sweep_file(path: str | Path, **kw: Any) -> SweepResult:
    """Runs a sweep written as TOML: a table ``[sweep]`` with ``base`` (a scenario file,
    relative to the sweep file), ``runs``, ``[sweep.grid]`` and optional ``[sweep.zipped]``."""
    import tomllib

    path = Path(path)
    spec = tomllib.loads(path.read_text("utf-8"))
    unknown = set(spec) - {"sweep"}
    if unknown or "sweep" not in spec:
        raise ValueError(f"{path}: expected a single [sweep] table, got {sorted(spec)}")
    sw = spec["sweep"]
    allowed = {"base", "runs", "grid", "zipped"}
    if set(sw) - allowed:
        raise ValueError(f"{path}: unknown key(s) {sorted(set(sw) - allowed)} in [sweep]")
    base = (path.parent / sw["base"]).resolve()
    return sweep(base, sw.get("grid"), zipped=sw.get("zipped"), runs=sw.get("runs", 1), **kw)


__all__ = ["SweepResult", "points", "set_field", "summarise", "sweep", "sweep_file", "t975"]
