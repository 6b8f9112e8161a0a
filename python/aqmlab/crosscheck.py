"""One scenario in aqmlab and in a reference simulator, ns-2.35 (docs/ns2.md) or ns-3.44
(docs/ns3.md), replicated, metric by metric.

Replication k runs the canonical scenario with ``simulation.run = k`` in both simulators:
the `[[repeat]]` draws (start times) are expanded once by aqmlab and written into the ns-2
script or the ns-3 spec, so both run the same arrival pattern; the randomness inside each
simulator (RED's and REM's coin flips, link loss, Poisson gaps) comes from its own
generator. Each metric gets a mean and a Student-t 95% half-width over the replications; a
difference is flagged where the two intervals do not overlap *and* the means differ by
more than 5%.
"""

from __future__ import annotations

import copy
import math
import os
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import pandas as pd

import aqmlab
from aqmlab import ns2, ns3
from aqmlab.scenario import ScenarioLike, load
from aqmlab.stats import mean_ci

FLAG_REL = 0.05

#: The reference simulators' back ends (each has translate, run, available, SIMULATOR).
BACKENDS = {"ns2": ns2, "ns3": ns3}

# (metric, how it is read from a queues row of either simulator)
QUEUE_METRICS: list[tuple[str, Callable[[Any], float]]] = [
    ("arrivals", lambda q: q["arrivals"]),
    ("utilization", lambda q: q["utilization"]),
    ("throughput_bps", lambda q: q["throughput_bps"]),
    ("drop_rate", lambda q: q["dropped_total"] / q["arrivals"] if q["arrivals"] else 0.0),
    # NaN where a simulator cannot tell (ns-2's REM and PI): "not measured", never flagged.
    ("early_drop_rate", lambda q: q["dropped_early"] / q["arrivals"] if q["arrivals"] else 0.0),
    ("mark_rate", lambda q: q["marked"] / q["dequeued"] if q["dequeued"] else 0.0),
    ("mean_queue_pkts", lambda q: q["mean_queue_pkts"]),
]
# ns-3 tells apart the drops of a full buffer and CoDel's at the head (ns-2's queues
# make neither kind beside the early drops).
SPLIT_METRICS: list[tuple[str, Callable[[Any], float]]] = [
    (
        "overflow_drop_rate",
        lambda q: q["dropped_overflow"] / q["arrivals"] if q["arrivals"] else 0.0,
    ),
    ("dequeue_drop_rate", lambda q: q["dropped_dequeue"] / q["arrivals"] if q["arrivals"] else 0.0),
]
# Totals over the TCP flows, and over the UDP flows.
TCP_METRICS = ["goodput_bps", "sent_pkts", "retransmits", "timeouts"]
NS3_TCP_METRICS = ["fast_recoveries"]
UDP_METRICS = ["received_pkts", "goodput_bps"]


def _aqmlab_tables(res: aqmlab.Results) -> tuple[pd.DataFrame, pd.DataFrame]:
    q = res.queues.copy()
    q["dropped_total"] = q[[f"dropped_{r}" for r in res.reasons]].sum(axis=1)
    q["marked"] = q[[f"marked_{r}" for r in res.reasons]].sum(axis=1)
    return q, res.flows


def _replication(
    scenario: dict[str, Any], k: int, per_run: Callable[[dict], Any] | None = None
) -> dict[str, Any]:
    """Replication k as both simulators run it: `simulation.run` = k, what ``per_run``
    draws for it (a sweep's start times), and the canonical form's expanded draws."""
    from aqmlab.sweep import set_field

    s = copy.deepcopy(scenario)
    s.setdefault("simulation", {})["run"] = k
    for path, value in (per_run(copy.deepcopy(s)) if per_run else {}).items():
        set_field(s, path, value)
    return aqmlab.canonical(s)


def _one(c: dict[str, Any], sim: str, cache: Any = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    if sim == "ns3":
        r3 = ns3.run(c, cache=cache)
        return r3.queues, r3.flows
    if sim == "ns2":
        # With a cache, the time series too: the same script as a reproduction's ns-2.35
        # pass runs, so each replication runs in ns-2 once (sampling changes no result).
        r = ns2.run(c, series=cache is not None, cache=cache)
        return r.queues, r.flows
    return _aqmlab_tables(aqmlab.run(c))


def _rows(
    queues: pd.DataFrame, flows: pd.DataFrame, split: bool = False
) -> dict[tuple[str, str], float]:
    out: dict[tuple[str, str], float] = {}
    metrics = QUEUE_METRICS + (SPLIT_METRICS if split else [])
    for q in queues.to_dict("records"):
        for metric, get in metrics:
            out[(f"queue {q['name']}", metric)] = float(get(q))
    for kind, names in (("tcp", TCP_METRICS), ("udp", UDP_METRICS)):
        sel = flows[flows["kind"] == "tcp"] if kind == "tcp" else flows[flows["kind"] != "tcp"]
        if len(sel):
            for m in names + (NS3_TCP_METRICS if split and kind == "tcp" else []):
                out[(f"{len(sel)} {kind} flows (total)", m)] = float(sel[m].sum())
    return out


@dataclass
class Crosscheck:
    """Per (table, metric): each simulator's mean and 95% half-width (``ref_*``: the
    reference simulator's), the relative difference of aqmlab from the reference, and the
    flag."""

    table: pd.DataFrame
    runs: int
    reference: str = ns2.SIMULATOR

    @property
    def flagged(self) -> pd.DataFrame:
        return self.table[self.table["flag"]]

    def markdown(self) -> str:
        out = []
        for what, g in self.table.groupby("table", sort=False):
            out += [
                f"### {what}",
                "",
                f"| metric | {self.reference} | aqmlab | aqmlab vs {self.reference} | |",
                "|---|---|---|---|---|",
            ]
            for r in g.to_dict("records"):
                rel = "—" if math.isnan(r["rel_diff"]) else f"{r['rel_diff']:+.1%}"
                out.append(
                    f"| {r['metric']} | {_pm(r['ref_mean'], r['ref_ci'])} "
                    f"| {_pm(r['aqmlab_mean'], r['aqmlab_ci'])} | {rel} "
                    f"| {'**differs**' if r['flag'] else ''} |"
                )
            out.append("")
        n = int(self.table["flag"].sum())
        out.append(
            f"{self.runs} runs each; ± is a Student-t 95% half-width; {n} of "
            f"{len(self.table)} metrics differ (intervals apart and more than "
            f"{FLAG_REL:.0%} between the means)."
        )
        return "\n".join(out) + "\n"


def _pm(m: float, ci: float) -> str:
    def g(x: float) -> str:
        return f"{x:.4g}"

    if math.isnan(m):
        return "not measured"
    return g(m) if math.isnan(ci) else f"{g(m)} ± {g(ci)}"


BUSY_QUEUE_PKTS = 0.1


def _busy(table: str, values: dict[tuple[str, str, str], list[float]], ref: str) -> bool:
    # A queue is listed when it drops, or holds 0.1 packets on average, in either
    # simulator: a dumbbell's hundreds of access queues would bury the bottleneck.
    return any(
        max(values[(sim, table, "drop_rate")]) > 0
        or max(values[(sim, table, "mean_queue_pkts")]) >= BUSY_QUEUE_PKTS
        for sim in (ref, "aqmlab")
    )


def crosscheck(
    scenario: ScenarioLike,
    runs: int = 5,
    *,
    per_run: Callable[[dict], Any] | None = None,
    all_queues: bool = False,
    workers: int | None = None,
    reference: str = "ns2",
    cache: str | os.PathLike | None = None,
) -> Crosscheck:
    """Runs the scenario ``runs`` times in aqmlab and in ``reference`` ("ns2": ns-2.35,
    "ns3": ns-3.44) and compares every metric; ``per_run`` draws each replication's own
    fields as a sweep's does. ``cache``: a directory of the reference's outputs to reuse
    and fill (the back end's ``run(cache=)``)."""
    if runs < 1:
        raise ValueError(f"runs = {runs}: must be at least 1")
    if reference not in BACKENDS:
        raise ValueError(f"reference = {reference!r}: one of {', '.join(BACKENDS)}")
    base = load(scenario) if isinstance(scenario, (str, os.PathLike)) else dict(scenario)
    reps = [_replication(base, k, per_run) for k in range(runs)]
    back = BACKENDS[reference]
    back.translate(reps[0])  # Unsupported before anything runs
    if not back.available():
        raise back.NotInstalled(back.INSTALL_HINT)
    jobs = [(c, sim) for c in reps for sim in (reference, "aqmlab")]
    with ThreadPoolExecutor(max_workers=workers or os.cpu_count() or 1) as pool:
        results = list(pool.map(lambda j: _one(*j, cache), jobs))
    values: dict[tuple[str, str, str], list[float]] = {}
    order: list[tuple[str, str]] = []
    for (_, sim), (queues, flows) in zip(jobs, results, strict=True):
        for key, v in _rows(queues, flows, split=reference == "ns3").items():
            if key not in order:
                order.append(key)
            values.setdefault((sim, *key), []).append(v)
    rows = []
    for key in order:
        if key[0].startswith("queue ") and not all_queues and not _busy(key[0], values, reference):
            continue
        (nm, nc), (am, ac) = mean_ci(values[(reference, *key)]), mean_ci(values[("aqmlab", *key)])
        rel = (am - nm) / abs(nm) if nm else (0.0 if am == nm else math.nan)
        apart = not (math.isnan(nc) or math.isnan(ac)) and abs(am - nm) > nc + ac
        flag = apart and (math.isnan(rel) or abs(rel) > FLAG_REL)
        rows.append(
            {
                "table": key[0],
                "metric": key[1],
                "ref_mean": nm,
                "ref_ci": nc,
                "aqmlab_mean": am,
                "aqmlab_ci": ac,
                "rel_diff": rel,
                "flag": bool(flag),
            }
        )
    return Crosscheck(pd.DataFrame(rows), runs, back.SIMULATOR)


__all__ = ["BACKENDS", "FLAG_REL", "Crosscheck", "crosscheck"]
