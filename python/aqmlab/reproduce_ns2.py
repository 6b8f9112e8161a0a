"""A reproduction's ns-2.35 pass (`aqmlab reproduce NAME --ns2`, docs/ns2.md).

After the reproduction has run in aqmlab, it runs again with ns-2.35 as its simulator:
``Context.sweep`` then returns, for every replication that ns-2.35 can run, ns-2.35's
metrics and time series under aqmlab's names, and the paper module computes its claims
from them exactly as it did from aqmlab's. Each claim is then attributed:

- "same verdict in ns-2.35": both simulators hold, or both fail (a failure shared is the
  paper's: its result does not follow from its stated setup);
- "different verdict in ns-2.35": aqmlab's gap, to investigate;
- "not runnable in ns-2.35": the claim draws on a configuration that uses what ns-2.35
  lacks (``Claim.uses`` names the configurations a claim reads; a claim that names none
  reads them all), or on a metric ns-2.35's monitors do not measure.

A configuration ns-2.35 cannot run still gives rows, with NaN metrics and NaN time series
of aqmlab's shape, so that the paper's code runs through; its claims are "not runnable"
by their ``uses``, and a claim that reads NaN where it declared runnable inputs is "not
measured", never judged on a NaN.
"""

from __future__ import annotations

import copy
import io
import math
import os
import re
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

# `aqmlab.reproduce` imports this module: its Claim and Context are taken here as they come
# (duck-typed), so that no import goes back.
Claim = Context = Any


class NotRunnableInNs2(RuntimeError):
    """A reproduction step that has no ns-2.35 form at all (runs of what ns-2 lacks
    throughout, like the CIOQ switch): every claim is "not runnable"."""


@dataclass
class Ns2Pass:
    """What the ns-2.35 pass found: per configuration label, None (ran) or what ns-2.35
    lacks; the time series of its runs by key."""

    configs: dict[str, list[tuple[str, str]] | None] = field(default_factory=dict)
    series: dict[str, pd.DataFrame] = field(default_factory=dict)
    runs: int = 0


def _label(p: dict[str, Any]) -> str:
    """A configuration's name in its sweep: its variant label, else its point's fields
    (the pass keys it "<phase>: <name>", as ``Claim.uses`` names it)."""
    if "variant" in p:
        return str(p["variant"])
    return ", ".join(f"{k} = {v}" for k, v in p.items()) or "the scenario"


def _one(text: str, cache: str, want_ts: bool) -> tuple[dict[str, float], bytes | None]:
    """One replication in ns-2.35, in a worker: its flat metrics and time series."""
    import tomllib

    from aqmlab import ns2

    r = ns2.run(tomllib.loads(text), series=want_ts, cache=cache)
    blob = None
    if want_ts:
        ts = r.timeseries
        if len(r.flow_timeseries):
            ts = pd.concat([ts, r.flow_timeseries], ignore_index=True)
        buf = io.BytesIO()
        ts.to_parquet(buf, index=False)
        blob = buf.getvalue()
    return ns2.metrics(r), blob


def _resolve_one():
    return _one


def _nan_like(df: pd.DataFrame) -> pd.DataFrame:
    """aqmlab's time series with every measured value NaN (times and names kept)."""
    out = df.copy()
    for c in out.columns:
        if c != "time_s" and pd.api.types.is_numeric_dtype(out[c]):
            out[c] = math.nan
    return out


def sweep(ctx: Context, base, grid, phase: str, kw: dict):
    """``Context.sweep`` of the ns-2.35 pass: aqmlab's sweep (every run already in its
    store) gives the rows' order, parameters and columns; ns-2.35 gives the values."""
    import aqmlab
    from aqmlab import ns2
    from aqmlab.pool import run_tasks
    from aqmlab.scenario import load
    from aqmlab.sweep import _replication, as_toml, points, sweep

    assert ctx.ns2_pass is not None and ctx.aqmlab_db is not None
    res_a = sweep(base, grid, db=ctx.aqmlab_db, workers=ctx.workers, progress=False, **kw)
    variants = kw.get("variants")
    pts = points(grid, kw.get("zipped"))
    if variants is not None:
        pts = [{**p, "variant": v} for p in pts for v in variants]
    base_dict = copy.deepcopy(dict(base)) if isinstance(base, dict) else load(base)
    reps = [(p, r) for p in pts for r in range(kw.get("runs", 1))]
    if len(reps) != len(res_a.runs):
        raise RuntimeError(
            f"{phase}: {len(res_a.runs)} of {len(reps)} aqmlab runs finished; the ns-2.35 "
            "pass needs all of them (aqmlab's failures are listed in its sweep)"
        )
    want_ts = kw.get("timeseries", True)
    texts: list[str | None] = []
    for p, r in reps:
        s = _replication(base_dict, p, r, variants, kw.get("per_run"))
        label = f"{phase}: {_label(p)}"
        try:
            ns2.translate(aqmlab.canonical(s))
        except ns2.Unsupported as e:
            ctx.ns2_pass.configs[label] = e.problems
            texts.append(None)
            continue
        ctx.ns2_pass.configs.setdefault(label, None)
        texts.append(as_toml(s))
    todo = [i for i, t in enumerate(texts) if t is not None]
    outcome: dict[int, Any] = {}
    if todo:
        bar = ctx.sink
        if bar is not None:
            bar.phase = f"ns-2.35: {phase}"
            bar.start(len(todo), 0)
        cache = str(ctx.ns2_cache)
        tasks = [(texts[i], cache, want_ts) for i in todo]

        def done(k: int, value: Any) -> None:
            outcome[todo[k]] = value
            if bar is not None:
                bar.advance()

        run_tasks(_resolve_one, tasks, ctx.workers or os.cpu_count() or 1, done)
        if bar is not None:
            bar.stop()
    ctx.ns2_pass.runs += len(todo)
    return _result(ctx, res_a, outcome, want_ts)


def _result(ctx: Context, res_a, outcome: dict[int, Any], want_ts: bool):
    """ns-2.35's rows in aqmlab's order and columns (what ns-2 does not measure: NaN)."""
    from aqmlab.store import Store
    from aqmlab.sweep import SweepResult

    assert ctx.ns2_pass is not None
    rows, keys = [], []
    params = [*res_a.params, "run"]
    metric_cols = [c for c in res_a.runs.columns if c not in params]
    with Store(ctx.aqmlab_db) as st:
        for i, key in enumerate(res_a.keys):
            row = {c: res_a.runs.iloc[i][c] for c in params}
            got = outcome.get(i)
            if isinstance(got, BaseException):
                raise got
            values = got[0] if got is not None else {}
            row.update({c: values.get(c, math.nan) for c in metric_cols})
            rows.append(row)
            k = f"ns2-{key}"
            keys.append(k)
            if want_ts:
                a_ts = st.timeseries(key)
                if got is None:
                    ctx.ns2_pass.series[k] = _nan_like(a_ts)
                else:
                    n_ts = pd.read_parquet(io.BytesIO(got[1]))
                    ctx.ns2_pass.series[k] = n_ts.reindex(columns=a_ts.columns)
    frame = pd.DataFrame(rows, columns=[*params, *metric_cols])
    return SweepResult(params=res_a.params, runs=frame, failures=res_a.failures, keys=keys)


# -- attribution ---------------------------------------------------------------------------


@dataclass
class Attribution:
    """One claim's ns-2.35 reading: ``kind`` is "same", "different" or "not runnable";
    ``measured`` the ns-2.35 pass's value (None where not judged) and its unit."""

    kind: str
    measured: Any
    text: str
    unit: str = ""


def _star(path: str) -> str:
    """`flows[*].x` for every flow's field."""
    return re.sub(r"\[\d+\]", "[*]", path)


def _unmeasured(c: Claim, rule: str) -> bool:
    """A claim of the ns-2.35 pass that read a NaN (a metric ns-2 does not measure)."""
    m = c.measured
    if isinstance(m, float) and math.isnan(m):
        return True
    words = re.split(r"[^a-z]+", f"{m} {rule}".lower())
    return "nan" in words or "could not be checked" in rule


def attribute(
    claims: list[Claim], claims_n: list[Claim], p: Ns2Pass, error: str | None
) -> dict[str, Attribution]:
    """Each aqmlab claim's attribution against the ns-2.35 pass (``error``: why the pass
    stopped, if it did)."""
    by_id = {c.id: c for c in claims_n}
    lacking = {k: v for k, v in p.configs.items() if v is not None}
    out: dict[str, Attribution] = {}
    for c in claims:
        uses = list(c.uses) if c.uses is not None else list(p.configs)
        unknown = [u for u in uses if u not in p.configs]
        if error is not None:
            out[c.id] = Attribution("not runnable", None, f"not runnable in ns-2.35: {error}")
            continue
        if unknown:
            raise ValueError(
                f"claim {c.id!r} uses {unknown}, not configurations of this reproduction "
                f"(its configurations: {', '.join(p.configs)})"
            )
        bad = [u for u in uses if u in lacking]
        n = by_id.get(c.id)
        if bad or n is None:
            what = sorted({f"`{_star(path)}`: {m}" for u in bad for path, m in lacking[u]})
            text = (
                f"not runnable in ns-2.35: uses {', '.join(bad)} ({'; '.join(what)})"
                if bad
                else "not runnable in ns-2.35: the ns-2.35 pass makes no such claim"
            )
            out[c.id] = Attribution("not runnable", None, text)
            continue
        ok_a = c.verdict()[0]
        ok_n, rule_n = n.verdict()
        measured, unit = n.measured, n.unit
        if _unmeasured(n, rule_n):
            out[c.id] = Attribution(
                "not runnable",
                measured,
                "not runnable in ns-2.35: a metric its monitors do not measure",
                unit,
            )
            continue
        verdict = "holds" if ok_n else "fails"
        if ok_n == ok_a:
            whose = " (a failure shared: the paper's)" if not ok_a else ""
            out[c.id] = Attribution(
                "same", measured, f"same verdict in ns-2.35: {verdict}{whose}; {rule_n}", unit
            )
        else:
            out[c.id] = Attribution(
                "different",
                measured,
                f"**different verdict in ns-2.35**: {verdict}; {rule_n}",
                unit,
            )
    return out


def summary(att: dict[str, Attribution]) -> str:
    """The report's summary line's ns-2.35 part."""
    kinds = [a.kind for a in att.values()]
    return (
        f"In ns-2.35: {kinds.count('same')} same verdict, "
        f"{kinds.count('different')} different verdict, "
        f"{kinds.count('not runnable')} not runnable."
    )
