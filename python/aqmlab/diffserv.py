"""DiffServ edge conditioning builders: meters, traffic classes, policy entries and the
conditioner a router carries (``aqmlab.scenario.router(name, conditioners=[...])``).

Each builder returns the dict of the scenario's TOML table; the engine checks it. Rates are
strings with a unit ("0.8Mbps"), sizes bytes (an int or "10KB"), times strings ("1s").
docs/diffserv/ has a page per meter and one for the conditioner.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from aqmlab.scenario import _opt

__all__ = [
    "conditioner",
    "fixed",
    "policy",
    "srtcm",
    "token_bucket",
    "traffic_class",
    "trtcm",
    "tsw2cm",
    "tswtcm",
]


def token_bucket(*, cir: str, cbs: int | str) -> dict[str, Any]:
    """Two-colour token bucket (ns-2 ``TokenBucket``): IN (green) while ``cbs`` bytes of
    tokens filled at ``cir`` last, OUT (red) otherwise."""
    return {"type": "token_bucket", "cir": cir, "cbs": cbs}


def tsw2cm(*, cir: str, window: str | None = None) -> dict[str, Any]:
    """Time-sliding-window two-colour marker (ns-2 ``TSW2CM``): red with probability
    1 - cir/rate above ``cir``; ``window`` default "1s"."""
    return _opt({"type": "tsw2cm", "cir": cir}, window=window)


def tswtcm(*, cir: str, pir: str, window: str | None = None) -> dict[str, Any]:
    """Time-sliding-window three-colour marker (RFC 2859; ns-2 ``TSW3CM``): committed and
    peak target rates; ``window`` default "1s"."""
    return _opt({"type": "tswtcm", "cir": cir, "pir": pir}, window=window)


def srtcm(
    *, cir: str, cbs: int | str, ebs: int | str, colour_aware: bool | None = None
) -> dict[str, Any]:
    """Single-rate three-colour marker (RFC 2697)."""
    return _opt({"type": "srtcm", "cir": cir, "cbs": cbs, "ebs": ebs}, colour_aware=colour_aware)


def trtcm(
    *,
    cir: str,
    cbs: int | str,
    pir: str,
    pbs: int | str,
    colour_aware: bool | None = None,
) -> dict[str, Any]:
    """Two-rate three-colour marker (RFC 2698); ``pir`` >= ``cir``."""
    return _opt(
        {"type": "trtcm", "cir": cir, "cbs": cbs, "pir": pir, "pbs": pbs},
        colour_aware=colour_aware,
    )


def fixed(colour: str = "green") -> dict[str, Any]:
    """Every packet one colour (ns-2's ``Dumb`` policy): a best-effort class."""
    return {"type": "fixed", "colour": colour}


def traffic_class(
    name: str, meter: Mapping[str, Any], *, precedence: int | None = None
) -> dict[str, Any]:
    """An aggregate: its meter, and the DiffServ precedence (AF class, 0-7) it writes."""
    return _opt({"name": name, "meter": dict(meter)}, precedence=precedence)


def policy(cls: str, *, src: str | None = None, dst: str | None = None) -> dict[str, Any]:
    """Packets from a host matching ``src`` to one matching ``dst`` (``*`` any run of
    characters, ``?`` one; default ``*``) belong to class ``cls``. Entries may not overlap."""
    return _opt({"class": cls}, src=src, dst=dst)


def conditioner(
    classes: Iterable[Mapping[str, Any]],
    policy: Iterable[Mapping[str, Any]] = (),
    *,
    default_class: str | None = None,
    input: str | None = None,
    capacity: str | None = None,
) -> dict[str, Any]:
    """An edge conditioner: ``policy`` entries map host pairs to ``classes``; unmatched
    packets go to ``default_class`` or pass unchanged. ``input`` limits it to arrivals from
    one neighbour. ``capacity`` (the rate the classes share) adds fair shares and Jain's
    index to the ``aggregates`` table."""
    return _opt(
        {"classes": [dict(c) for c in classes], "policy": [dict(p) for p in policy]},
        default_class=default_class,
        input=input,
        capacity=capacity,
    )
