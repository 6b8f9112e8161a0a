"""Run and validate scenarios: one crossing into Rust each way."""

from __future__ import annotations

import tomllib
from typing import Any

from aqmlab import _core
from aqmlab.results import Results
from aqmlab.scenario import ScenarioLike, as_toml


def run(scenario: ScenarioLike) -> Results:
    """Validates and runs a scenario (a dict from the builders, or a TOML file path).

    Raises ``ScenarioError`` (with ``.path``, ``.value``, ``.message`` and ``.errors``) before
    anything runs if the scenario is invalid. The engine releases the GIL while it runs, so
    runs in several threads use several cores.
    """
    return Results(_core.run(as_toml(scenario)))


def canonical(scenario: ScenarioLike) -> dict[str, Any]:
    """The scenario as the engine reads it: validated, units normalised, defaults explicit."""
    return tomllib.loads(_core.canonical(as_toml(scenario)))


def validate(scenario: ScenarioLike) -> None:
    """Raises ``ScenarioError`` if the scenario is invalid; returns None otherwise."""
    _core.canonical(as_toml(scenario))


__all__ = ["canonical", "run", "validate"]
