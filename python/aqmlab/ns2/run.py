"""Run a translated scenario in ns-2.35 and read its monitors into aqmlab's tables."""

from __future__ import annotations

import gzip
import hashlib
import math
import os
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

import aqmlab
from aqmlab.ns2.tcl import SERIES_VAR, Script, translate

INSTALL_HINT = "ns-2.35 is not installed: `apt-get install ns2` (Debian) gives the `ns` command"


# The queues whose early drops ns-2's monitor tells apart (RED hands them to a target of
# their own; DropTail makes none).
EARLY_DROPS_SEEN = ("droptail", "red", "ared", "rio")


class NotInstalled(RuntimeError):
    """No `ns` command on PATH."""


class Ns2Error(RuntimeError):
    """ns exited with an error or printed what the script did not ask for."""


def command() -> str | None:
    """The path of ns-2's `ns` command, or None."""
    return shutil.which("ns")


def available() -> bool:
    return command() is not None


@dataclass
class Ns2Results:
    """ns-2.35's run of a scenario: ``queues`` and ``flows`` with aqmlab's column names
    (those ns-2's monitors measure; the rest are absent), the script and its output."""

    queues: pd.DataFrame
    flows: pd.DataFrame
    measured_s: float
    script: str
    wall_s: float
    #: aqmlab's two time-series tables (``series=True``; else empty): every queue, and
    #: every traced TCP flow, with aqmlab's columns (``Results.timeseries``,
    #: ``Results.flow_timeseries``).
    timeseries: pd.DataFrame = field(default_factory=pd.DataFrame)
    flow_timeseries: pd.DataFrame = field(default_factory=pd.DataFrame)
    #: The DiffServ aggregates (name, flows by index, CIR) the script's conditioners meter.
    aggregates: list = field(default_factory=list)


def rng_seed(seed: int, run: int) -> int:
    """ns-2's defaultRNG seed for aqmlab's (seed, run): MRG32k3a takes 1 to 2^31 - 2 (0
    would seed from the clock)."""
    return 1 + (seed * 1_000_003 + run) % 2_147_483_645


def run(
    scenario: aqmlab.scenario.ScenarioLike,
    *,
    keep: str | Path | None = None,
    series: bool = False,
    cache: str | Path | None = None,
) -> Ns2Results:
    """Translates the scenario (raises ``aqmlab.ns2.Unsupported`` if ns-2.35 cannot run it
    exactly), runs `ns` and returns its tables. ``keep``: a directory for the script and
    its output. ``series``: aqmlab's time series too. ``cache``: a directory of earlier
    outputs by script (a run whose exact script ran before is read back, not rerun: ns-2
    is deterministic for a script)."""
    c = aqmlab.canonical(scenario)
    sim = c["simulation"]
    script = translate(c, rng_seed=rng_seed(sim["seed"], sim["run"]), series=series)
    hit = None
    if cache is not None:
        hit = Path(cache) / f"{hashlib.sha256(script.tcl.encode()).hexdigest()}.out.gz"
        if hit.exists():
            text = gzip.decompress(hit.read_bytes()).decode()
            return _results(script, text, 0.0)
    exe = command()
    if exe is None:
        raise NotInstalled(INSTALL_HINT)
    with tempfile.TemporaryDirectory(prefix="aqmlab-ns2-") as tmp:
        d = Path(keep) if keep is not None else Path(tmp)
        d.mkdir(parents=True, exist_ok=True)
        (d / "run.tcl").write_text(script.tcl, "utf-8")
        t0 = time.perf_counter()
        p = subprocess.run([exe, "run.tcl"], cwd=d, capture_output=True, text=True, check=False)
        wall = time.perf_counter() - t0
        if keep is not None:
            (d / "stdout.txt").write_text(p.stdout, "utf-8")
    if p.returncode != 0:
        tail = "\n".join((p.stderr or p.stdout).strip().splitlines()[-15:])
        raise Ns2Error(f"ns exited with status {p.returncode}:\n{tail}")
    res = _results(script, p.stdout, wall)
    if hit is not None:
        # Written whole, then renamed: an interrupted write leaves no entry.
        hit.parent.mkdir(parents=True, exist_ok=True)
        tmp_path = hit.with_name(f".{hit.name}.{os.getpid()}.tmp")
        tmp_path.write_bytes(gzip.compress(p.stdout.encode(), compresslevel=6))
        os.replace(tmp_path, hit)
    return res


def _results(script: Script, text: str, wall: float) -> Ns2Results:
    queues, flows = read(script, text)
    ts, fts = read_series(script, text) if script.sample_s else (pd.DataFrame(), pd.DataFrame())
    return Ns2Results(
        queues, flows, script.measured_s, script.tcl, wall, ts, fts, script.aggregates
    )


def read_series(script: Script, text: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The "P" and "F" sample lines as aqmlab's queue and flow time-series tables."""
    qrows, frows = [], []
    dt = script.sample_s
    for line in text.splitlines():
        if line.startswith("P "):
            qrows.append(line.split()[1:])
        elif line.startswith("F "):
            frows.append(line.split()[1:])
    qcols = ["k", "j", "qlen_pkts", "qlen_bytes", "arrivals", "dropped", "edrops", "marked"]
    qcols += ["departed_bytes", "area_pkt_s"]
    width = len(qcols) + max((len(v) for v in SERIES_VAR.values()), default=0)
    qrows = [r + ["nan"] * (width - len(r)) for r in qrows]  # the AQM's state: 0-2 columns
    extra = [f"v{i}" for i in range(width - len(qcols))]
    # As aqmlab's tables are ordered: queue by queue (flow by flow), each in time order.
    q = pd.DataFrame(qrows, columns=qcols + extra).astype(float)
    q = q.sort_values(["j", "k"], kind="stable").reset_index(drop=True)
    names = [x["name"] for x in script.queues]
    out = pd.DataFrame(
        {
            "time_s": q["k"] * dt,
            "queue": [names[int(j)] for j in q["j"]],
            **{c: q[c] for c in ("qlen_pkts", "qlen_bytes", "arrivals", "dropped")},
        }
    )
    aqm = pd.Series([script.queues[int(j)]["aqm"] for j in q["j"]])
    # ns-2 hands overflows and RED's forced drops to one target: overflows alone are
    # known for DropTail only (which has no other drops).
    out["dropped_overflow"] = q["dropped"].where((aqm == "droptail").to_numpy())
    for c in ("marked", "departed_bytes", "area_pkt_s"):
        out[c] = q[c]
    for kind, cols in SERIES_VAR.items():
        sel = (aqm == kind).to_numpy()
        for i, (col, _var) in enumerate(cols):
            if sel.any():
                out.loc[sel, col] = q.loc[sel, f"v{i}"]
    f = pd.DataFrame(frows, columns=["k", "i", "cwnd", "ssthresh", "t_srtt", "bytes"])
    f = f.astype(float).sort_values(["i", "k"], kind="stable").reset_index(drop=True)
    flows = script.flows
    fts = pd.DataFrame(
        {
            "time_s": f["k"] * dt,
            "flow": [flows[int(i)]["name"] for i in f["i"]],
            # ns-2's cwnd_ is the window without the inflation (dupwnd_, which ns-2 binds
            # to no Tcl variable): aqmlab's cwnd_base; the inflated window is not read.
            "cwnd": math.nan,
            "ssthresh": f["ssthresh"],
            "srtt_s": [
                t / 8 * flows[int(i)]["tick_s"] for t, i in zip(f["t_srtt"], f["i"], strict=True)
            ],
            "delivered_pkts": [
                b // flows[int(i)]["packet_size"] for b, i in zip(f["bytes"], f["i"], strict=True)
            ],
            "cwnd_base": f["cwnd"],
        }
    )
    return out, fts


def _snapshots(text: str) -> dict[str, dict[tuple[str, int], list[float]]]:
    snaps: dict[str, dict[tuple[str, int], list[float]]] = {"W": {}, "E": {}}
    done: dict[tuple[str, int], list[float]] = {}
    for line in text.splitlines():
        parts = line.split()
        if not parts or parts[0] in ("S", "P", "F"):
            continue
        if parts[0] == "D":
            done[("D", int(parts[1]))] = [float(parts[2])]
        elif parts[0] in ("Q", "T", "U") and parts[1] in snaps:
            snaps[parts[1]][(parts[0], int(parts[2]))] = [float(x) for x in parts[3:]]
        elif parts[0] == "R" and parts[1] in snaps:
            # A flow monitor's entry: queue, flow id, source address, departures.
            k, fid, src, dep = (int(float(x)) for x in parts[2:6])
            snaps[parts[1]][("R", k, fid, src)] = [float(dep)]
        else:
            raise Ns2Error(f"ns printed a line the script did not ask for: {line!r}")
    if not snaps["E"]:
        raise Ns2Error("ns ended before the end of the run (no final snapshot)")
    snaps["D"] = done
    return snaps


def read(script: Script, text: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The monitors' lines as the queues and flows tables, over [warmup, duration)."""
    s = _snapshots(text)
    T = script.measured_s
    queues = []
    for k, q in enumerate(script.queues):
        w, e = s["W"][("Q", k)], s["E"][("Q", k)]
        arr, dep, drops, edrops, marks, _barr, bdep, pint, bint, lost = (
            b - a for a, b in zip(w, e, strict=True)
        )
        queues.append(
            {
                **{key: q[key] for key in ("name", "link", "from", "to", "aqm")},
                "arrivals": int(arr),
                "dequeued": int(dep),
                "dropped_total": int(drops),
                # REM's and PI's go with the overflows, unseparated.
                "dropped_early": int(edrops) if q["aqm"] in EARLY_DROPS_SEEN else math.nan,
                # ns-2 passes overflow and RED's forced drops to one drop target.
                "dropped_overflow_forced": int(drops - edrops),
                "marked": int(marks),
                "lost_on_link": int(lost),
                "mean_queue_pkts": pint / T,
                "mean_queue_bytes": bint / T,
                "throughput_bps": bdep * 8 / T,
                "utilization": bdep * 8 / (q["bps"] * T),
            }
        )
    flows = []
    for i, f in enumerate(script.flows):
        row: dict[str, Any] = {key: f[key] for key in ("name", "kind", "src", "dst")}
        if f["kind"] == "tcp":
            w, e = s["W"][("T", i)], s["E"][("T", i)]
            sent, rexmit, timeouts, ack, cuts = (b - a for a, b in zip(w, e, strict=True))
            row.update(
                sent_pkts=int(sent),
                retransmits=int(rexmit),
                timeouts=int(timeouts),
                # ack_ is the highest cumulative ACK: new segments delivered, seen by the
                # sender half a round trip after the receiver (both snapshots alike).
                goodput_bps=ack * f["packet_size"] * 8 / T,
                window_cuts=int(cuts),
            )
            end = s["D"].get(("D", i))
            row["completion_time_s"] = end[0] - f["start_s"] if end else math.nan
            # The data packets that left the last link for the destination, duplicates
            # included (aqmlab's received_pkts and throughput_bps).
            key = ("R", f["last_queue"], i, script.node_id[f["src"]])
            got = s["E"].get(key, [0.0])[0] - s["W"].get(key, [0.0])[0]
            row["received_pkts"] = int(got)
            row["throughput_bps"] = got * f["packet_size"] * 8 / T
        else:
            w, e = s["W"][("U", i)], s["E"][("U", i)]
            npkts, nbytes_, _ = (b - a for a, b in zip(w, e, strict=True))
            # Every packet a UDP sink receives is new data: throughput is goodput.
            row.update(
                received_pkts=int(npkts),
                goodput_bps=nbytes_ * 8 / T,
                throughput_bps=nbytes_ * 8 / T,
            )
        flows.append(row)
    return pd.DataFrame(queues), pd.DataFrame(flows)


# The queue columns of aqmlab's summary that ns-2's monitors give (the rest are NaN).
QUEUE_COLUMNS = (
    "arrivals",
    "dequeued",
    "lost_on_link",
    "mean_queue_pkts",
    "mean_queue_bytes",
    "utilization",
    "throughput_bps",
    "dropped_total",
    "dropped_early",
    "marked",
)
FLOW_COLUMNS = (
    "sent_pkts",
    "received_pkts",
    "retransmits",
    "timeouts",
    "goodput_bps",
    "completion_time_s",
)


def metrics(res: Ns2Results) -> dict[str, float]:
    """The run's metrics under the flat names of a sweep's rows (``aqmlab.sweep.flatten``:
    ``queue:<name>:<column>``, ``flow:<name>:<column>``), for what ns-2 measures."""
    out: dict[str, float] = {}
    for q in res.queues.to_dict("records"):
        pre = f"queue:{q['name']}:"
        for c in QUEUE_COLUMNS:
            out[pre + c] = float(q[c])
        if q["aqm"] == "droptail":
            # DropTail drops on overflow only; elsewhere ns-2 does not separate them.
            out[pre + "dropped_overflow"] = float(q["dropped_total"])
            out[pre + "dropped_forced"] = 0.0
        out[pre + "dropped_dequeue"] = 0.0  # none of the queues ns-2 runs drops there
    for f in res.flows.to_dict("records"):
        for c in FLOW_COLUMNS:
            if c in f:
                out[f"flow:{f['name']}:{c}"] = float(f[c])
    # DiffServ aggregates: sums over each class's flows (aqmlab's `aggregates` table).
    flows = res.flows
    for agg in res.aggregates:
        sel = flows.iloc[agg["flows"]]
        pre = f"aggregate:{agg['name']}:"
        out[pre + "flows"] = float(len(sel))
        for c in ("throughput_bps", "goodput_bps"):
            out[pre + c] = float(sel[c].sum()) if c in sel else math.nan
        out[pre + "cir_bps"] = agg["cir"]
        out[pre + "target_ratio"] = out[pre + "throughput_bps"] / agg["cir"]
    return out
