"""The latency-probe flow builder (``type = "probe"``, docs/scenarios.md), re-exported by
``aqmlab.scenario`` as ``probe``."""

from __future__ import annotations

from typing import Any

from aqmlab._fields import opt as _opt


def probe(
    name: str,
    src: str,
    dst: str,
    *,
    packet_size: int | str = 64,
    interval: str | None = None,
    precedence: int | None = None,
    start: str | None = None,
    stop: str | None = None,
    ecn: bool | None = None,
    ect: str | None = None,
) -> dict[str, Any]:
    """A latency probe: a UDP echo request of ``packet_size`` every ``interval`` (default
    200 ms), answered by ``dst``; ``precedence`` (0..7) is the DiffServ class selector both
    carry. The run's ``probes`` table holds each request's round trip."""
    d = {"name": name, "type": "probe", "src": src, "dst": dst, "packet_size": packet_size}
    return _opt(
        d, interval=interval, precedence=precedence, start=start, stop=stop, ecn=ecn, ect=ect
    )
