"""Builders for CIOQ switches (docs/switch/switch.md): the node and its fabric models.
The switch's output queues are its links' queues, built with :mod:`aqmlab.scenario`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from aqmlab.scenario import _opt


def switch(
    name: str,
    *,
    speedup: float,
    input_queue: Mapping[str, Any],
    fabric: Mapping[str, Any] | None = None,
    inputs: str | None = None,
    input_buffer: str | None = None,
    trace_inputs: bool | None = None,
) -> dict[str, Any]:
    """A CIOQ switch (docs/switch/switch.md): its ports are the links attached to it (file
    order), each port's output queue is the link's queue leaving the switch. ``speedup`` s
    is the fabric rate relative to the ports' line rate; ``input_queue`` (:func:`queue`) is
    each VOQ's (``inputs="voq"``, default) or each input FIFO's (``inputs="fifo"``);
    ``input_buffer`` "per_voq" (default) or "per_port" (the limit shared by an input's
    VOQs); ``fabric`` :func:`links_fabric` (default). ``trace_inputs=True`` samples every
    input queue into ``Results.tables["switch_input_timeseries"]``."""
    sw = _opt(
        {"speedup": speedup},
        inputs=inputs,
        input_queue=dict(input_queue),
        input_buffer=input_buffer,
        trace_inputs=trace_inputs,
    )
    sw["fabric"] = dict(fabric) if fabric else links_fabric()
    return {"name": name, "type": "switch", "switch": sw}


def links_fabric() -> dict[str, Any]:
    """The CIOQ paper's fabric model (Sec. V-A): n² internal links of rate s·R/n."""
    return {"type": "links"}


def crossbar_fabric(
    scheduler: str = "islip", *, iterations: int | None = None, cell: int | str | None = None
) -> dict[str, Any]:
    """A crossbar at s·R in phases of one ``cell`` (bytes, default 64), scheduled packet by
    packet by ``scheduler`` "islip", "pim" (each with ``iterations``, default 1) or
    "max_size" (docs/switch/switch.md, docs/switch/schedulers.md)."""
    return _opt(
        {"type": "crossbar", "scheduler": _opt({"type": scheduler}, iterations=iterations)},
        cell=cell,
    )
