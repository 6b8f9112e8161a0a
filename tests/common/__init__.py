"""Helpers shared by the test files: ``from common import dumbbell`` (pyproject.toml puts
``tests`` on pytest's ``pythonpath``)."""

from .benchmarks import benchmark
from .scenarios import dumbbell, readers

__all__ = ["benchmark", "dumbbell", "readers"]
