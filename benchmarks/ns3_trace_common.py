"""What the ns-3 trace scripts (benchmarks/ns3_*_trace.py) share.

Each runs aqmlab's ns-3 driver (python/aqmlab/ns3/driver.py) under ns-3's own Python with
extra C++ trace sinks: the script's outer side (in aqmlab's environment) loads the scenario,
applies `--set`, translates each replication as `aqmlab crosscheck` does and starts the
script again with `--inner SPEC ...` under ns-3's Python; the inner side loads the driver,
compiles the sinks and runs the simulation with the script's code around `Simulator.Run`.
This module imports neither aqmlab nor ns-3 at its top, so both sides can import it.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DRIVER = ROOT / "python" / "aqmlab" / "ns3" / "driver.py"


# --- inner side (ns-3's Python) ---------------------------------------------------------


def load_driver(spec_path: str, trace_cpp: str) -> tuple[Any, dict]:
    """aqmlab's driver as a module, with `trace_cpp` compiled beside its helpers, and the
    translated spec."""
    sys.argv = [str(DRIVER), spec_path]
    mod_spec = importlib.util.spec_from_file_location("aqmlab_ns3_driver", DRIVER)
    drv = importlib.util.module_from_spec(mod_spec)
    mod_spec.loader.exec_module(drv)  # compiles the driver's helpers
    drv.cppyy.cppdef(trace_cpp)
    return drv, json.loads(Path(spec_path).read_text())


def run_driver(drv: Any, spec_path: str, around: Callable[[Callable[[], None]], None]) -> None:
    """Runs the driver with `around(real_run)` in place of `Simulator.Run`: the sinks are
    attached before the call and read after it."""
    real_run = drv.ns.Simulator.Run
    drv.ns.Simulator.Run = lambda: around(real_run)
    drv.main(spec_path)


# --- outer side (aqmlab's environment) --------------------------------------------------


def scenario(path: str, sets: Sequence[str] | None) -> dict:
    """The scenario file with each `PATH=VALUE` of `--set` applied (VALUE is TOML)."""
    try:
        import aqmlab  # noqa: F401
    except ImportError:
        sys.path.insert(0, str(ROOT / "python"))
    from aqmlab.cli import _set_value
    from aqmlab.scenario import load
    from aqmlab.sweep import set_field

    s = load(path)
    for item in sets or []:
        p, _, value = item.partition("=")
        set_field(s, p.strip(), _set_value(value.strip()))
    return s


def replication(s: dict, k: int) -> dict:
    """Replication k as `aqmlab crosscheck` draws it for both simulators."""
    from aqmlab.crosscheck import _replication

    return _replication(s, k)


def run_inner(
    script: str,
    spec: dict,
    extra: Sequence[str] = (),
    env: dict[str, str] | None = None,
    json_lines: int | None = 2,
) -> list[dict]:
    """Runs `script --inner SPEC *extra` under ns-3's Python and returns the JSON lines it
    printed (the script's, then the driver's), exiting with ns-3's stderr if it failed or
    printed other than `json_lines` of them (None: any number)."""
    from aqmlab import ns3

    exe = ns3.python()
    if exe is None:
        sys.exit(ns3.INSTALL_HINT)
    with tempfile.TemporaryDirectory(prefix="aqmlab-ns3-trace-") as tmp:
        path = Path(tmp) / "spec.json"
        path.write_text(json.dumps(spec, sort_keys=True), "utf-8")
        cmd = [exe, script, "--inner", str(path), *extra]
        p = subprocess.run(cmd, capture_output=True, text=True, env=env)
    lines = [ln for ln in p.stdout.splitlines() if ln.startswith("{")]
    if p.returncode != 0 or (json_lines is not None and len(lines) != json_lines):
        sys.exit(f"ns-3 failed ({p.returncode}):\n{p.stderr[-3000:]}")
    return [json.loads(ln) for ln in lines]
