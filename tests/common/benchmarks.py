"""The scripts in benchmarks/ as modules, for the tests of their pure parts."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

BENCHMARKS = Path(__file__).resolve().parent.parent.parent / "benchmarks"


def benchmark(name: str) -> ModuleType:
    """benchmarks/NAME.py, loaded afresh (it is no package, and runs nothing on import)."""
    spec = importlib.util.spec_from_file_location(name, BENCHMARKS / f"{name}.py")
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
    return m
