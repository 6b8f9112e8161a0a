"""Run a translated scenario in ns-3.44 (its own Python) and read it into aqmlab's tables."""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

import aqmlab
from aqmlab import _core
from aqmlab.ns3.translate import translate

DRIVER = Path(__file__).with_name("driver.py")
ENV = "AQMLAB_NS3_PYTHON"
DEFAULT_PYTHON = Path(".ns3-venv") / "bin" / "python"
INSTALL_HINT = (
    "ns-3.44 is not installed: `make ns3` creates .ns3-venv with the PyPI package "
    "ns3==3.44.post0 (or set AQMLAB_NS3_PYTHON to a Python that has it)"
)

# ns-3's reason strings (QueueDisc and each queue disc's constants) as aqmlab's reasons.
# A child CoDel's drops reach FqCoDel's statistics under the child's own string.
REASONS = {
    "Queue disc limit exceeded": "overflow",  # FifoQueueDisc
    "Dropped by internal queue": "overflow",  # QueueDisc::INTERNAL_QUEUE_DROP
    "Overlimit drop": "overflow",  # CoDel, FqCoDel (FqCoDelDrop's batch)
    "Unforced drop": "early",  # RED, PIE
    "Unforced mark": "early",
    "Forced drop": "forced",  # RED above max_th; PIE: a full queue (below)
    "Forced mark": "forced",
    "Target exceeded drop": "dequeue",  # CoDel's control law
    "Target exceeded mark": "dequeue",
    "CE threshold exceeded mark": "early",
}
PIE_REASONS = {"Forced drop": "overflow"}


class NotInstalled(RuntimeError):
    """No Python with the ns3 package."""


class Ns3Error(RuntimeError):
    """The driver exited with an error, or printed what it should not."""


def python() -> str | None:
    """The Python that has ns-3.44: $AQMLAB_NS3_PYTHON, else ./.ns3-venv/bin/python once
    `make ns3` has finished installing into it (its stamp file)."""
    exe = os.environ.get(ENV)
    if not exe and any(DEFAULT_PYTHON.parent.parent.glob(".installed-ns3*")):
        exe = str(DEFAULT_PYTHON)
    return exe if exe and Path(exe).exists() else None


def available() -> bool:
    return python() is not None


@dataclass
class Ns3Results:
    """ns-3.44's run of a scenario: ``queues`` and ``flows`` with aqmlab's column names
    (those the driver measures), the spec it ran and the driver's own numbers."""

    queues: pd.DataFrame
    flows: pd.DataFrame
    measured_s: float
    spec: dict[str, Any]
    raw: dict[str, Any]
    wall_s: float
    #: The traced flows' cwnd (segments) at each sample_interval: time_s, flow, cwnd.
    flow_timeseries: pd.DataFrame | None = None


def run(scenario: aqmlab.scenario.ScenarioLike, *, cache: str | Path | None = None) -> Ns3Results:
    """Translates the scenario (raises ``aqmlab.ns3.Unsupported`` if ns-3.44 cannot run
    it exactly), runs the driver and returns its tables. ``cache``: a directory of earlier
    outputs by spec (ns-3 is deterministic for a spec and its seed)."""
    return run_spec(translate(aqmlab.canonical(scenario)), cache=cache)


def run_spec(spec: dict[str, Any], *, cache: str | Path | None = None) -> Ns3Results:
    """Runs a spec that ``translate`` wrote, as ``run`` does (a spec edited by hand, or
    one translated earlier)."""
    text = json.dumps(spec, sort_keys=True)
    hit = None
    if cache is not None:
        hit = Path(cache) / f"{hashlib.sha256(text.encode()).hexdigest()}.ns3.json.gz"
        if hit.exists():
            return _results(spec, json.loads(gzip.decompress(hit.read_bytes())), 0.0)
    exe = python()
    if exe is None:
        raise NotInstalled(INSTALL_HINT)
    with tempfile.TemporaryDirectory(prefix="aqmlab-ns3-") as tmp:
        path = Path(tmp) / "spec.json"
        path.write_text(text, "utf-8")
        t0 = time.perf_counter()
        p = subprocess.run(
            [exe, str(DRIVER), str(path)], capture_output=True, text=True, check=False
        )
        wall = time.perf_counter() - t0
    lines = [ln for ln in p.stdout.splitlines() if ln.startswith("{")]
    if p.returncode != 0 or len(lines) != 1:
        tail = "\n".join((p.stderr or p.stdout).strip().splitlines()[-15:])
        raise Ns3Error(f"the ns-3 driver exited with status {p.returncode}:\n{tail}")
    raw = json.loads(lines[0])
    if hit is not None:
        hit.parent.mkdir(parents=True, exist_ok=True)
        tmp_path = hit.with_name(f".{hit.name}.{os.getpid()}.tmp")
        tmp_path.write_bytes(gzip.compress(lines[0].encode()))
        os.replace(tmp_path, hit)
    return _results(spec, raw, wall)


def _reason(aqm: str, name: str) -> str:
    if aqm == "pie" and name in PIE_REASONS:
        return PIE_REASONS[name]
    for key, reason in REASONS.items():
        if key in name:
            return reason
    raise Ns3Error(f"ns-3 counted packets under a reason this reader does not know: {name!r}")


def _results(spec: dict[str, Any], raw: dict[str, Any], wall: float) -> Ns3Results:
    measured = (spec["duration_ns"] - spec["warmup_ns"]) / 1e9
    qrows = []
    for q, r in zip(spec["queues"], raw["queues"], strict=True):
        row: dict[str, Any] = {k: q[k] for k in ("name", "link", "from", "to", "aqm")}
        row |= {f"{w}_{x}": 0 for x in _core.REASONS for w in ("dropped", "marked")}
        for key, w in (("dropped_before", "dropped"), ("dropped_after", "dropped")):
            for name, n in r[key].items():
                row[f"{w}_{_reason(q['aqm'], name)}"] += n
        for name, n in r["marked"].items():
            row[f"marked_{_reason(q['aqm'], name)}"] += n
        row |= {
            "arrivals": r["received"],
            "dequeued": r["tx_pkts"],
            "utilization": r["tx_bytes"] * 8 / (q["bps"] * measured),
            "throughput_bps": r["tx_bytes"] * 8 / measured,
            "mean_queue_pkts": r["mean_q_pkts"],
            "max_queue_pkts": r["max_q_pkts"],
        }
        row["dropped_total"] = sum(row[f"dropped_{x}"] for x in _core.REASONS)
        row["marked"] = sum(row[f"marked_{x}"] for x in _core.REASONS)
        qrows.append(row)
    frows = []
    for f, r in zip(spec["flows"], raw["flows"], strict=True):
        if not r["attached"]:
            raise Ns3Error(f"flow {f['name']}: the driver found no socket at its start")
        frows.append(
            {
                "name": f["name"],
                "kind": "tcp",
                "sent_pkts": r["sent_pkts"],
                "retransmits": r["retransmits"],
                "timeouts": r["timeouts"],
                "fast_recoveries": r["fast_recoveries"],
                # aqmlab's goodput counts whole packets (headers too); ns-3's sink payload.
                "goodput_bps": r["rx_bytes"] * f["packet_size"] / f["send_size"] * 8 / measured,
                # ns-3's cwnd, time-weighted over the measured interval (segments).
                "mean_cwnd_pkts": r.get("mean_cwnd_seg", float("nan")),
            }
        )
    series = None
    dt = (spec.get("sample_ns") or 0) / 1e9
    rows = [
        (dt * k, f["name"], w)
        for f, r in zip(spec["flows"], raw["flows"], strict=True)
        for k, w in enumerate(r.get("cwnd_series", []))
    ]
    if rows:
        series = pd.DataFrame(rows, columns=["time_s", "flow", "cwnd"])
    return Ns3Results(pd.DataFrame(qrows), pd.DataFrame(frows), measured, spec, raw, wall, series)
