"""Run plans shared by the reproductions: the random stream of one replication's own draws
(what the engine does not draw, such as flow start times) and the start-time draws built on
it, for a sweep's ``per_run``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np


def run_rng(s: dict[str, Any]) -> np.random.Generator:
    """One replication's stream: numpy's PCG64 seeded with (simulation.seed,
    simulation.run), so a draw depends on the replication only and a rerun repeats it."""
    sim = s["simulation"]
    return np.random.Generator(np.random.PCG64([sim["seed"], sim["run"]]))


@dataclass(frozen=True)
class UniformStarts:
    """A sweep's ``per_run``: every flow starts at a draw uniform on [0, window_s) seconds
    from `run_rng`, in whole nanoseconds; with ``after_base`` the draw is added to the
    flow's start in the base scenario (a "<n>ns" string, as `scenario.staged` writes it)."""

    window_s: float
    after_base: bool = False

    def __call__(self, s: dict[str, Any]) -> dict[str, str]:
        u = run_rng(s).uniform(0.0, self.window_s, len(s["flows"]))
        if not self.after_base:
            return {f"flows[{i}].start": f"{round(x * 1e9)}ns" for i, x in enumerate(u)}
        return {
            f"flows[{i}].start": f"{int(f['start'].removesuffix('ns')) + round(x * 1e9)}ns"
            for i, (f, x) in enumerate(zip(s["flows"], u, strict=True))
        }


__all__ = ["UniformStarts", "run_rng"]
