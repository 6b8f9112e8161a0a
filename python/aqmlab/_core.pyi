"""Type stub of the Rust extension module (crates/aqmlab-py)."""

from collections.abc import Callable
from typing import Any

ENGINE_VERSION: str
SCHEMA_VERSION: int
REASONS: list[str]

class ScenarioError(ValueError):
    path: str
    value: str
    message: str
    errors: list[tuple[str, str, str]]

class ConservationError(RuntimeError): ...
class InternalError(RuntimeError): ...
class ResourceError(MemoryError): ...

class Values:
    """A numeric result column's values, owned by the engine; numpy views them in place
    (the base of every numeric array in ``run()``'s tables)."""

    @property
    def __array_interface__(self) -> dict[str, Any]: ...

def canonical(text: str) -> str: ...
def run(text: str, progress: Callable[[float], object] | None = None) -> dict[str, Any]:
    """``tables``: {table name: {column name: numpy array or list}}, in the engine's order;
    ``events``, ``packets``, ``measured_s``, ``warmup_s``, ``reasons``, ``scenario``,
    ``engine_version``, ``captures`` (one dict per captured link direction: ``name``,
    ``link``, ``from``, ``to``, ``packets`` and ``pcap``, the file's bytes)."""

def _panic_for_test() -> None: ...
def _tables_for_test() -> dict[str, dict[str, Any]]: ...
def _readers_for_test(
    d: dict[str, Any], text: str
) -> tuple[str | None, str | None, str | None]: ...
