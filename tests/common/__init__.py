"""Helpers shared by the test files: ``from common import dumbbell`` (pyproject.toml puts
``tests`` on pytest's ``pythonpath``)."""

from .scenarios import dumbbell, readers

__all__ = ["dumbbell", "readers"]
