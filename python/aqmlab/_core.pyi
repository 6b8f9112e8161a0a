"""Type stub of the Rust extension module (crates/aqmlab-py)."""

from collections.abc import Callable
from typing import Any

ENGINE_VERSION: str
SCHEMA_VERSION: int

class ScenarioError(ValueError):
    path: str
    value: str
    message: str
    errors: list[tuple[str, str, str]]

class ConservationError(RuntimeError): ...
class InternalError(RuntimeError): ...
class ResourceError(MemoryError): ...

def canonical(text: str) -> str: ...
def run(text: str, progress: Callable[[float], object] | None = None) -> dict[str, Any]: ...
def _panic_for_test() -> None: ...
