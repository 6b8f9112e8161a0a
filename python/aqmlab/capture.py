"""Packet capture in scenarios built from Python: the ``[[captures]]`` entry
(docs/capture.md); ``aqmlab.scenario.capture`` is this one. The pcap files a run returns
are ``Results.captures``."""

from __future__ import annotations

from typing import Any

from aqmlab._fields import opt as _opt


def capture(
    link: str,
    *,
    start: str | None = None,
    stop: str | None = None,
    snaplen: int | None = None,
) -> dict[str, Any]:
    """A ``[[captures]]`` entry: ``link`` is a link's name (both directions) or "from->to"
    (one); packets whose transmission starts in [start, stop) are kept, ``snaplen`` bytes of
    each (default 96). Pass a list of these as ``aqmlab.scenario.scenario(captures=...)``."""
    return _opt({"link": link}, start=start, stop=stop, snaplen=snaplen)
