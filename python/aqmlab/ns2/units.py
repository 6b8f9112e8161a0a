"""The canonical echo's quantities ("20ms", "64Mbps", "1KB") as numbers.

The engine writes every quantity of the canonical scenario as a decimal and a unit
(`crates/aqmlab-core/src/units.rs`); the ns-2 script needs plain numbers. Parsed with
``Fraction`` so that "0.1ms" is exactly 100 000 ns, as the engine reads it.
"""

from __future__ import annotations

from fractions import Fraction

NS = {"ns": 1, "us": 1_000, "µs": 1_000, "ms": 1_000_000, "s": 10**9, "min": 60 * 10**9}
BPS = {"bps": 1, "kbps": 10**3, "Kbps": 10**3, "Mbps": 10**6, "Gbps": 10**9, "Tbps": 10**12}
BYTES = {
    "B": 1,
    "KB": 10**3,
    "kB": 10**3,
    "MB": 10**6,
    "GB": 10**9,
    "KiB": 1 << 10,
    "MiB": 1 << 20,
    "GiB": 1 << 30,
}


def _quantity(text: str | int | float, units: dict[str, int]) -> Fraction:
    if isinstance(text, (int, float)):
        return Fraction(text)
    t = text.strip()
    split = next((i for i, ch in enumerate(t) if not (ch.isdigit() or ch in ".+-")), len(t))
    num, unit = t[:split], t[split:].strip()
    if unit not in units:
        raise ValueError(f"{text!r}: unit {unit!r} is not one of {', '.join(units)}")
    return Fraction(num) * units[unit]


def ns(text: str) -> int:
    """A canonical duration in integer nanoseconds."""
    return int(_quantity(text, NS))


def seconds(text: str) -> float:
    """A canonical duration in seconds."""
    return float(_quantity(text, NS) / 10**9)


def bps(text: str) -> int:
    """A canonical rate in bits per second."""
    return int(_quantity(text, BPS))


def nbytes(text: str | int) -> int:
    """A canonical size in bytes."""
    return int(_quantity(text, BYTES))
