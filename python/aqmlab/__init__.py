"""aqmlab: a fast, faithful packet-level simulator for Active Queue Management research.

A Rust engine (``aqmlab._core``) driven from Python::

    import aqmlab
    from aqmlab import scenario as sc

    res = aqmlab.run(sc.example())          # or aqmlab.run("scenarios/example.toml")
    res.queues, res.flows, res.timeseries   # pandas DataFrames
"""

from aqmlab import scenario
from aqmlab._core import (
    ENGINE_VERSION,
    SCHEMA_VERSION,
    ConservationError,
    InternalError,
    ResourceError,
    ScenarioError,
)
from aqmlab.pool import SweepInterrupted
from aqmlab.results import Results
from aqmlab.runner import canonical, run, validate
from aqmlab.store import Store, StoreError
from aqmlab.sweep import SweepResult, sweep

__version__ = ENGINE_VERSION

__all__ = [
    "ENGINE_VERSION",
    "SCHEMA_VERSION",
    "ConservationError",
    "InternalError",
    "ResourceError",
    "Results",
    "ScenarioError",
    "Store",
    "StoreError",
    "SweepInterrupted",
    "SweepResult",
    "__version__",
    "canonical",
    "run",
    "scenario",
    "sweep",
    "validate",
]
