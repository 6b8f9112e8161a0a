"""Run and validate scenarios: one crossing into Rust each way."""

from __future__ import annotations

import tomllib
from collections.abc import Callable
from typing import Any

from aqmlab import _core
from aqmlab.results import Results
from aqmlab.scenario import ScenarioLike, engine_text

_UNITS = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1.0, "min": 60.0}


def _seconds(canonical_duration: str) -> float:
    num = canonical_duration.rstrip("abcdefghijklmnopqrstuvwxyzµ")
    return float(num) * _UNITS[canonical_duration[len(num) :]]


def run(scenario: ScenarioLike, progress: bool | Callable[[float], None] = False) -> Results:
    """Validates and runs a scenario (a dict from the builders, or a TOML file path).

    Raises ``ScenarioError`` (with ``.path``, ``.value``, ``.message`` and ``.errors``) before
    anything runs if the scenario is invalid. The engine releases the GIL while it runs, so
    runs in several threads use several cores. ``progress=True`` shows a progress bar with
    the simulated time and an ETA on standard error; a callable receives the simulated
    seconds about five times a second instead.
    """
    if not progress:
        return Results(_engine_run(scenario))
    if callable(progress):
        return Results(_engine_run(scenario, progress))
    text = engine_text(scenario)
    from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn

    total = _seconds(tomllib.loads(_core.canonical(text))["simulation"]["duration"])
    with Progress(
        TextColumn("simulated {task.completed:.1f} of {task.total:.1f} s"),
        BarColumn(),
        "ETA",
        TimeRemainingColumn(),
        transient=True,
    ) as bar:
        task = bar.add_task("run", total=total)
        raw = _core.run(text, lambda t: bar.update(task, completed=t))
    return Results(raw)


def _engine_run(scenario: ScenarioLike, *progress: Callable[[float], None]) -> dict[str, Any]:
    # A dict crosses as it is (the binding reads its objects, with no JSON text between);
    # one the binding does not take that way (a numpy scalar, NaN, a scenario that does not
    # read) crosses as text, whose reading gives the same scenario or names the problem.
    if isinstance(scenario, dict):
        raw = _core.run(scenario, *progress)
        if raw is not None:
            return raw
    return _core.run(engine_text(scenario), *progress)


def canonical(scenario: ScenarioLike) -> dict[str, Any]:
    """The scenario as the engine reads it: validated, units normalised, defaults explicit."""
    return tomllib.loads(_core.canonical(engine_text(scenario)))


def validate(scenario: ScenarioLike) -> None:
    """Raises ``ScenarioError`` if the scenario is invalid; returns None otherwise."""
    _core.canonical(engine_text(scenario))


__all__ = ["canonical", "run", "validate"]
