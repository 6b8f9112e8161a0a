"""Sweeps: scenario fields x replications, on all local cores or a Dask cluster.

    res = aqmlab.sweep(base, grid={"links[3].queue.limit_pkts": [20, 50, 100]}, runs=10)
    res.summary      # per point: mean, sd, 95% CI half-width of every metric
    res.runs         # one row per run

Replications are independent random runs of one seed (`simulation.run` = 0..runs-1), so a
sweep's numbers do not depend on the backend, the worker count or the completion order.
Randomness the engine does not draw (e.g. flow start times) comes from ``per_run``, a
function of each replication's scenario: deterministic, so a rerun finds its runs stored.
With ``db=PATH`` every finished run is committed to a results store before it counts as
done; re-running the same sweep skips the runs already there (kill it any time).
"""

from __future__ import annotations

import contextlib
import copy
import difflib
import itertools
import json
import numbers
import os
import re
import signal
import sys
import tomllib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

# pandas and numpy load on first use: `aqmlab --help` and `validate` never need them.
if TYPE_CHECKING:
    import pandas as pd


from aqmlab import _core
from aqmlab.pool import (
    EXIT_CODES,
    ClusterUnreachable,
    SweepInterrupted,
    _Signalled,
    run_tasks,
    signals_raise,
)
from aqmlab.scenario import ScenarioLike, as_toml, engine_text, load, read_toml, to_toml
from aqmlab.stats import half_width, t975
from aqmlab.store import Store, StoreLock, run_key

_STEP = re.compile(r"([^.\[\]]+)|\[([^\[\]]+)\]")


class SweepArgumentError(TypeError, ValueError):
    """A sweep argument of the wrong type or value (``runs``, ``workers``, an axis...),
    named with what is allowed; raised before anything runs."""


class SweepPathError(ValueError):
    """An axis names a field that the scenario does not have (nearest names suggested)."""


def _steps(path: str) -> list[int | str | tuple[str]]:
    """A field path as steps: keys, list indices, and ``(name,)`` for ``[name]``."""
    steps: list[int | str | tuple[str]] = []
    for key, idx in _STEP.findall(path):
        if key:
            steps.append(key)
        elif idx.isdigit():
            steps.append(int(idx))
        else:
            steps.append((idx,))
    shown = "".join(
        f"[{s}]" if isinstance(s, int) else f"[{s[0]}]" if isinstance(s, tuple) else f".{s}"
        for s in steps
    ).lstrip(".")
    if not steps or shown != path:
        raise ValueError(
            f"invalid field path {path!r} (expected e.g. links[3].queue.limit_pkts or "
            "links[bottleneck].queue.limit_pkts)"
        )
    return steps


def _by_name(node: Any, name: str, path: str, where: str) -> int:
    """The index of the table named ``name`` in the list ``node`` (links, flows, nodes)."""
    if not isinstance(node, list):
        raise ValueError(f"field path {path!r}: {where} is not a list, so [{name}] means nothing")
    names = [t.get("name") if isinstance(t, dict) else None for t in node]
    hits = [i for i, n in enumerate(names) if n == name]
    if len(hits) != 1:
        known = [n for n in names if n is not None]
        near = difflib.get_close_matches(name, known, n=1)
        hint = f"; did you mean [{near[0]}]?" if near else ""
        raise SweepPathError(
            f"field path {path!r}: {'no' if not hits else 'more than one'} entry of {where} "
            f"is named {name!r}{hint} (named: {', '.join(known) or 'none'}; "
            "or use an index)"
        )
    return hits[0]


def resolve_path(scenario: dict, path: str) -> str:
    """``path`` with every ``[name]`` replaced by the index of the table of that name."""
    out, node, where = "", scenario, ""
    for step in _steps(path):
        if isinstance(step, tuple):
            step = _by_name(node, step[0], path, where or "the scenario")
        out += f"[{step}]" if isinstance(step, int) else f".{step}"
        where = out.lstrip(".")
        try:
            node = node[step]
        except (IndexError, KeyError, TypeError):
            node = None
    return out.lstrip(".")


def set_field(scenario: dict, path: str, value: Any) -> None:
    """Sets ``value`` at a field path like ``links[3].queue.limit_pkts`` or
    ``links[bottleneck].queue.limit_pkts`` (a table of a list by its ``name``), creating
    tables on the way."""
    steps = _steps(path)
    node: Any = scenario
    where = "the scenario"
    for here, nxt in itertools.pairwise(steps):
        if isinstance(here, tuple):
            here = _by_name(node, here[0], path, where)
        try:
            if isinstance(here, int):
                node = node[here]
            else:
                node = node.setdefault(here, [] if not isinstance(nxt, str) else {})
        except (IndexError, KeyError, TypeError, AttributeError) as e:
            raise ValueError(f"field path {path!r}: no {here!r} in the scenario") from e
        where = str(here)
    last = steps[-1]
    if isinstance(last, tuple):
        last = _by_name(node, last[0], path, where)
    try:
        node[last] = value
    except (IndexError, TypeError) as e:
        raise ValueError(f"field path {path!r}: cannot set {last!r}") from e


def _check_args(grid, zipped, variants, runs, workers, per_run=None) -> None:
    import numpy as np

    def bad(what: str) -> SweepArgumentError:
        return SweepArgumentError(what)

    if per_run is not None and not callable(per_run):
        raise bad(f"per_run = {per_run!r}: must be a function of a scenario, or None")

    if isinstance(runs, bool) or not isinstance(runs, numbers.Integral) or runs < 1:
        raise bad(f"runs = {runs!r}: must be an integer of at least 1")
    if workers is not None and (
        isinstance(workers, bool) or not isinstance(workers, numbers.Integral) or workers < 1
    ):
        raise bad(f"workers = {workers!r}: must be an integer of at least 1, or None (all cores)")
    for name, axes in (("grid", grid), ("zipped", zipped)):
        if axes is None:
            continue
        if not isinstance(axes, Mapping):
            raise bad(
                f"{name} = {axes!r}: must be a mapping of field paths to lists of values, "
                'e.g. {"links[3].queue.limit_pkts": [20, 50]}'
            )
        for path, vals in axes.items():
            if not isinstance(path, str):
                raise bad(f"{name} key {path!r}: must be a field path (a string)")
            if isinstance(vals, (str, bytes, Mapping)) or not isinstance(
                vals, (Sequence, np.ndarray)
            ):
                raise bad(
                    f"{name}[{path!r}] = {vals!r}: must be a list of values (one value: [{vals!r}])"
                )
            if len(vals) == 0:
                raise bad(f"{name}[{path!r}] is empty: an axis needs at least one value")
    if variants is not None:
        if not isinstance(variants, Mapping) or not variants:
            raise bad(
                f"variants = {variants!r}: must be a non-empty mapping "
                "{label: {field path: value, ...}}"
            )
        for label, fields in variants.items():
            if not isinstance(fields, Mapping):
                raise bad(f"variants[{label!r}] = {fields!r}: must be a mapping of field paths")


def _as_lists(axes: Mapping[str, Sequence] | None) -> dict[str, list] | None:
    """Axes as plain lists (a numpy array's values as Python numbers, for TOML)."""
    import numpy as np

    if axes is None:
        return None
    return {k: v.tolist() if isinstance(v, np.ndarray) else list(v) for k, v in axes.items()}


def _check_paths(base: dict, paths: list[str], probe: dict) -> None:
    """Rejects an axis path that names no field of the scenario, before anything runs:
    the engine's own unknown-field message for the probe (the base with a point applied),
    with the nearest valid names."""
    try:
        _core.canonical(engine_text(probe))
    except _core.ScenarioError as e:
        wanted = {resolve_path(base, p): p for p in paths}
        for at, _value, msg in getattr(e, "errors", []):
            if not msg.startswith("unknown field"):
                continue  # a value problem: that point is recorded as a failure
            for resolved, given in wanted.items():
                if resolved == at or resolved.startswith(at + ".") or resolved.startswith(at + "["):
                    field = msg.split("`")[1] if "`" in msg else at
                    allowed = re.findall(r"`([^`]+)`", msg.split("expected", 1)[-1])
                    near = difflib.get_close_matches(field, allowed, n=3)
                    hint = f"; did you mean {', '.join(near)}?" if near else ""
                    parent = at.rsplit(".", 1)[0] if "." in at else "the top level"
                    raise SweepPathError(
                        f"axis {given!r}: the scenario has no field `{field}` in {parent}{hint} "
                        f"(valid there: {', '.join(allowed)})"
                    ) from None


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
    """Results.summary() as flat columns: each table of the summary (a list of rows, by
    plural name) gives ``<table in the singular>:<row name>:<metric>``, e.g.
    ``queue:<name>:<metric>``, ``flow:<name>:<metric>``; then ``events``."""
    out: dict[str, Any] = {}
    for table, rows in summary.items():
        if not isinstance(rows, list):
            continue
        kind = table.removesuffix("s")
        for row in rows:
            for k, v in row.items():
                if isinstance(v, dict):
                    for k2, v2 in v.items():
                        out[f"{kind}:{row['name']}:{k}_{k2}"] = v2
                elif (isinstance(v, (int, float)) and not isinstance(v, bool)) or v is None:
                    out[f"{kind}:{row['name']}:{k}"] = v
    out["events"] = summary["events"]
    return out


def _run_one(
    toml_text: str, timeseries: bool = False, extra=None, summary: bool = True
) -> dict[str, Any]:
    """Runs one scenario in a worker; returns its flat metrics (the summary's unless
    ``summary`` is False, then ``extra``'s alone; and, if asked, its time-series tables,
    queues and traced flows, as Parquet bytes under the key "__timeseries__") or raises."""
    import pandas as pd

    from aqmlab.results import Results

    res = Results(_core.run(toml_text))
    out = flatten(res.summary()) if summary else {}
    if extra is not None:
        for k, v in extra(res).items():
            if k in out:
                raise ValueError(f"extra metric {k!r} would overwrite a summary column")
            out[k] = float(v)
    if timeseries:
        import io

        # One file: the queue time series, then every other kind that has rows.
        first, *others = res.timeseries_tables.values()
        others = [df for df in others if len(df)]
        ts = pd.concat([first, *others], ignore_index=True) if others else first.copy()
        buf = io.BytesIO()
        ts.to_parquet(buf, index=False)
        out["__timeseries__"] = buf.getvalue()
    return out


@dataclass
class SweepResult:
    params: list[str]
    runs: pd.DataFrame
    failures: pd.DataFrame
    skipped: int = 0
    computed: int = 0
    #: The store key of each row of ``runs``, in order (the key of its time-series file).
    keys: list[str] = field(default_factory=list)
    #: Per point: n_runs and mean, sd, 95% CI half-width of every metric (wide), or None
    #: if summarising failed (``summary_error`` says why; ``runs`` are kept).
    summary: pd.DataFrame | None = field(init=False)
    summary_error: str | None = field(init=False, default=None)

    def __post_init__(self) -> None:
        # Runs that finished must never be lost to a failure after them.
        try:
            self.summary = summarise(self.runs, self.params)
        except Exception as e:
            self.summary = None
            self.summary_error = f"{type(e).__name__}: {e}"

    @property
    def tidy(self) -> pd.DataFrame:
        """The summary in long form: the parameters, ``metric``, ``n_runs``, ``mean``,
        ``sd``, ``ci95`` (one row per point and metric)."""
        return tidy(self.summary, self.params)


def _hashable(v: Any) -> Any:
    """An axis value as a group key: lists and tables (a list of flows, per-link values)
    by their canonical JSON text."""
    if isinstance(v, (list, tuple, dict)):
        return json.dumps(v, sort_keys=True, default=str)
    return v


def summarise(runs: pd.DataFrame, params: list[str]) -> pd.DataFrame:
    """Per point: n_runs, and mean, sd and 95% CI half-width (Student-t) of every metric.
    Points keep their order of first appearance; list- or dict-valued axis values work."""
    import numpy as np
    import pandas as pd

    if runs.empty:
        return pd.DataFrame()
    metrics = [
        c
        for c in runs.columns
        if c not in {*params, "run", "key", "engine_version"}
        and pd.api.types.is_numeric_dtype(runs[c])
    ]
    values = runs[metrics].astype(float)
    if params:
        by = [runs[p].map(_hashable).rename(p) for p in params]
        grouped = values.groupby(by, sort=False, dropna=False)
        first = runs.groupby(by, sort=False, dropna=False)[params].first()
        n = grouped.size()
        mean, sd = grouped.mean(), grouped.std(ddof=1)
        point_values = first.to_dict("records")
    else:
        n = pd.Series([len(runs)])
        mean, sd = values.mean().to_frame().T, values.std(ddof=1).to_frame().T
        point_values = [{}]
    n_arr = n.to_numpy()
    sd_arr = sd.to_numpy(dtype=float, copy=True)
    sd_arr[n_arr < 2] = np.nan
    ci = half_width(sd_arr, n_arr)
    cols: dict[str, Any] = {}
    for k, m in enumerate(metrics):
        cols[f"{m}:mean"] = mean.to_numpy()[:, k]
        cols[f"{m}:sd"] = sd_arr[:, k]
        cols[f"{m}:ci95"] = ci[:, k]
    head = pd.DataFrame(point_values, columns=params)
    head["n_runs"] = n_arr
    return pd.concat([head, pd.DataFrame(cols)], axis=1)


def tidy(summary: pd.DataFrame | None, params: list[str]) -> pd.DataFrame:
    """A wide summary (``metric:mean``, ``metric:sd``, ``metric:ci95`` columns) in long form."""
    import pandas as pd

    cols = [*params, "metric", "n_runs", "mean", "sd", "ci95"]
    if summary is None or summary.empty:
        return pd.DataFrame(columns=cols)
    stats = [c for c in summary.columns if c.rsplit(":", 1)[-1] in ("mean", "sd", "ci95")]
    long = summary.melt(
        id_vars=[*params, "n_runs"], value_vars=stats, var_name="column", value_name="value"
    )
    long[["metric", "stat"]] = long["column"].str.rsplit(":", n=1, expand=True)
    long["_point"] = long.index % len(summary)
    out = long.pivot_table(
        index=["_point", "metric"], columns="stat", values="value", sort=False, dropna=False
    ).reset_index()
    head = summary[[*params, "n_runs"]].reset_index(drop=True)
    out = out.join(head, on="_point")
    order = {m: i for i, m in enumerate(dict.fromkeys(c.rsplit(":", 1)[0] for c in stats))}
    out = out.sort_values(
        ["_point", "metric"], key=lambda s: s.map(order) if s.name == "metric" else s
    )
    return out[cols].reset_index(drop=True)


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
    try:
        return Client(cluster), None
    except (OSError, TimeoutError) as e:
        # Dask's own message is the last line of a long traceback: say it in one.
        raise ClusterUnreachable(
            f"cannot reach the Dask scheduler at {cluster} ({type(e).__name__}: {e}); "
            "start one with `dask scheduler` (and workers with `dask worker ADDRESS`), or "
            "use --cluster local"
        ) from None


def _resolve_run_one() -> Callable[..., dict[str, Any]]:
    """The run function, looked up in the worker (where a test may have replaced it)."""
    return sys.modules[__name__]._run_one


def _run_on_cluster(tasks, cluster, workers, want_ts, extra, done_with, summary=True) -> None:
    client, lc = _client(cluster, workers)
    futs = {}
    try:
        futs = {
            client.submit(_run_one, t[3], want_ts, extra, summary, pure=False): t for t in tasks
        }
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
        # Every finished run is already stored: a close that outlasts its timeout on a
        # loaded machine (seen at load 9) must not turn a finished sweep into an error.
        with contextlib.suppress(Exception):
            client.close(timeout=5)
        if lc is not None:
            with contextlib.suppress(Exception):
                lc.close(timeout=5)


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
    progress: bool | ProgressSink = True,
    timeseries: bool = True,
    extra: Callable[[Any], Mapping[str, float]] | None = None,
    per_run: Callable[[dict], Mapping[str, Any]] | None = None,
    summary: bool = True,
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
    ``summary``: False keeps ``extra``'s metrics alone, for runs whose summary (a column per
    queue and flow metric) would not fit in memory: 6400 flows make 100 000 columns.
    ``per_run``: a function of one replication's scenario (a copy, with the point's fields
    and ``simulation.run`` set) returning more field assignments ({path: value}) for that
    replication: draws the engine does not make, such as start times from a numpy
    Generator seeded by ``simulation.seed`` and ``simulation.run``. It must be
    deterministic; the stored scenario holds what it drew.
    A failing run records its message and a command that reproduces it; the sweep goes on.
    """
    _check_args(grid, zipped, variants, runs, workers, per_run)
    if not summary and extra is None:
        raise SweepArgumentError("summary = False needs extra: a run would give no metrics")
    grid, zipped = _as_lists(grid), _as_lists(zipped)
    base_dict = copy.deepcopy(dict(base)) if isinstance(base, Mapping) else load(base)
    as_toml(base_dict)  # reject unserialisable values early
    pts = points(grid, zipped)
    if variants is not None:
        pts = [{**p, "variant": v} for p in pts for v in variants]
    params = list(pts[0]) if pts and pts[0] else []
    version = _core.ENGINE_VERSION
    if pts:  # field paths are the same at every point: check them before touching a store
        for v in variants or [None]:
            probe = copy.deepcopy(base_dict)
            _apply(probe, {**pts[0], "variant": v} if v else pts[0], variants)
            paths = [p for p in pts[0] if p != "variant"] + list((variants or {}).get(v, {}))
            _check_paths(base_dict, paths, probe)
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
                per_run,
                summary,
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


def _replication(base_dict, p, r, variants, per_run) -> dict:
    """Replication r of point p: the base with the point's fields, `simulation.run` = r and
    what per_run draws for it."""
    s = copy.deepcopy(base_dict)
    _apply(s, p, variants)
    set_field(s, "simulation.run", r)
    if per_run is not None:
        drawn = per_run(copy.deepcopy(s))
        if not isinstance(drawn, Mapping):
            raise SweepArgumentError(
                f"per_run returned {drawn!r}: must be a mapping of field paths to values"
            )
        for path, value in drawn.items():
            if path in ("simulation.run", "simulation.seed"):
                raise SweepArgumentError(
                    f"per_run set {path!r}: the sweep owns the replication's seed and run"
                )
            set_field(s, path, value)
    return s


def _collect(store, version, order, rows, params) -> tuple[pd.DataFrame, list[str]]:
    """The sweep's runs in point order, from the store (which also holds the runs of an
    earlier, interrupted call) or from this call's rows; and their keys."""
    import pandas as pd

    if not store:
        keys = [k for k in order if k in rows]
        return pd.DataFrame([rows[k] for k in keys]), keys
    all_runs = store.runs(version)
    all_runs = all_runs[all_runs["key"].isin(order)] if not all_runs.empty else all_runs
    if all_runs.empty:  # every run failed: no rows, as without a store
        return pd.DataFrame(), []
    stored = set(all_runs["key"])
    keys = [k for k in order if k in stored]
    frame = all_runs.set_index("key").loc[keys]
    frame = frame.reset_index(drop=True).drop(columns=["engine_version"])
    # The columns of a sweep without a store: parameters, run, metrics as computed.
    rest = [c for c in frame.columns if c not in {*params, "run"}]
    return frame[[*params, "run", *rest]], keys


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
    per_run=None,
    summary=True,
):
    import pandas as pd

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
            text = to_toml(_replication(base_dict, p, r, variants, per_run))
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

    invalid = len(failures)  # rejected before running: neither in `order` nor pending
    bar: ProgressSink | None = None
    if isinstance(progress, ProgressSink):
        bar = progress
    elif progress:
        bar = _progress(where=str(store.path) if store else None)
    if bar is not None:
        bar.start(len(tasks), skipped)
    finished = 0

    def done_with(t: tuple[str, dict, int, str], outcome: Any) -> None:
        nonlocal finished
        record(*t, outcome)
        finished += 1
        if bar is not None:
            bar.advance()

    try:
        with signals_raise():
            if tasks and cluster is not None:
                _run_on_cluster(tasks, cluster, workers, want_ts, extra, done_with, summary)
            elif tasks:
                run_tasks(
                    _resolve_run_one,
                    [(t[3], want_ts, extra, summary) for t in tasks],
                    workers or os.cpu_count() or 1,
                    lambda i, outcome: done_with(tasks[i], outcome),
                )
    except _Signalled as sig:
        if bar is not None:
            bar.stop()
            bar = None
        code = EXIT_CODES[signal.Signals(sig.signum)]
        pending = len(tasks) - finished
        if store:
            # Counted from the store, not from `finished`: the signal can land between a
            # run's commit and the counter's increment, and the message must say what a
            # resume will find.
            stored = len(store.finished_keys() & set(order))
            pending = len(order) - stored - (len(failures) - invalid)
            kept = f"{stored} runs stored"
        else:
            kept = f"{finished} runs done (no store)"
        raise SweepInterrupted(
            f"interrupted: {kept}, {pending} pending; "
            + ("run the same command to resume" if store else "nothing was kept"),
            code,
        ) from None
    finally:
        if bar is not None:
            bar.stop()

    frame, keys = _collect(store, version, order, rows, params)
    return SweepResult(
        params=params,
        runs=frame,
        failures=pd.DataFrame(failures, columns=["point", "run", "message", "command"]),
        skipped=skipped,
        computed=len(tasks),
        keys=keys,
    )


@runtime_checkable
class ProgressSink(Protocol):
    """What a sweep reports its progress to (``progress=`` of ``sweep``): ``start(total,
    reused)`` once before the runs (runs to compute, runs found in the store), ``advance(n)``
    as runs finish, ``stop()`` at the end (also when interrupted). A reproduction passes one
    sink to all its sweeps to show one bar."""

    def start(self, total: int, reused: int) -> None: ...

    def advance(self, n: int = 1) -> None: ...

    def stop(self) -> None: ...


class _progress:
    """The built-in sink: a rich progress bar with ETA on standard error."""

    def __init__(self, where: str | None = None):
        self.where = where
        self.p: Any = None

    def start(self, total: int, reused: int) -> None:
        from rich.console import Console
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
            console=Console(stderr=True),
        )
        if reused:
            self.p.console.print(
                f"reusing {reused} of {reused + total} runs from {self.where}",
                soft_wrap=True,
                highlight=False,
            )
        if not total:
            # Every run was stored: no bar of 0 runs ("0/0 ... ETA -:--:--").
            self.p = None
            return
        self.p.start()
        self.task = self.p.add_task("runs", total=total)

    def advance(self, n: int = 1) -> None:
        if self.p is not None:
            self.p.advance(self.task, n)

    def stop(self) -> None:
        if self.p is not None:
            self.p.stop()


def sweep_file(path: str | Path, **kw: Any) -> SweepResult:
    """Runs a sweep written as TOML: a table ``[sweep]`` with ``base`` (a scenario file,
    relative to the sweep file), ``runs``, ``[sweep.grid]`` and optional ``[sweep.zipped]``."""
    path = Path(path)
    spec = read_toml(path, "sweep")[1]
    unknown = set(spec) - {"sweep"}
    if unknown or "sweep" not in spec:
        raise ValueError(f"{path}: expected a single [sweep] table, got {sorted(spec)}")
    sw = spec["sweep"]
    allowed = {"base", "runs", "grid", "zipped"}
    if set(sw) - allowed:
        raise ValueError(f"{path}: unknown key(s) {sorted(set(sw) - allowed)} in [sweep]")
    base = (path.parent / sw["base"]).resolve()
    return sweep(base, sw.get("grid"), zipped=sw.get("zipped"), runs=sw.get("runs", 1), **kw)


__all__ = [
    "ProgressSink",
    "SweepArgumentError",
    "SweepPathError",
    "SweepResult",
    "points",
    "set_field",
    "summarise",
    "sweep",
    "sweep_file",
    "t975",
]
