"""Builders of the multi-queue buffers a queue's ``aqm`` table may name besides a FIFO's AQM
(docs/scenarios.md, ``classful`` and ``dualpi2``; docs/aqm/classful.md, docs/aqm/dualpi2.md):
classes with a classifier and a class scheduler, and L4S's dual queue. FQ-CoDel's builder is
``aqmlab.scenario.fq_codel``.

    from aqmlab import buffers as bf, scenario as sc
    aqm = bf.classful(
        bf.ets(strict=1, quanta=[3028, 1514]),
        [bf.buffer_class("ef", match=[bf.rule(precedence=[5])], limit_pkts=20),
         bf.buffer_class("af1", match=[bf.rule(precedence=[1])], aqm=sc.rio()),
         bf.buffer_class("be")],
    )
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from aqmlab._fields import opt as _opt


def strict_priority() -> dict[str, Any]:
    """Class 0 first, then class 1, ... (Linux ``prio``)."""
    return {"type": "strict_priority"}


def drr(quanta: Sequence[int]) -> dict[str, Any]:
    """Deficit round robin, one quantum per class in bytes, each at least the buffer's
    ``mtu`` (Shreedhar and Varghese 1996; Linux ``drr``)."""
    return {"type": "drr", "quanta": list(quanta)}


def wrr(weights: Sequence[int]) -> dict[str, Any]:
    """Weighted round robin, one weight per class in packets per turn."""
    return {"type": "wrr", "weights": list(weights)}


def ets(strict: int, quanta: Sequence[int]) -> dict[str, Any]:
    """The first ``strict`` classes by priority, then DRR over the others with one quantum
    each (Linux ``ets``): DiffServ's EF over AF classes."""
    return {"type": "ets", "strict": strict, "quanta": list(quanta)}


def rule(
    *,
    precedence: Sequence[int] | None = None,
    ecn: Sequence[str] | None = None,
    src: str | None = None,
    dst: str | None = None,
    udp: bool | None = None,
) -> dict[str, Any]:
    """One classifier rule: every field given must agree. ``ecn`` lists codepoints
    ("not_ect", "ect0", "ect1", "ce"); ``src``/``dst`` are host patterns."""
    return _opt(
        {},
        precedence=None if precedence is None else list(precedence),
        ecn=None if ecn is None else list(ecn),
        src=src,
        dst=dst,
        udp=udp,
    )


def buffer_class(
    name: str | None = None,
    *,
    match: Sequence[dict[str, Any]] | None = None,
    aqm: dict[str, Any] | None = None,
    limit_pkts: int | None = None,
    limit_bytes: int | str | None = None,
) -> dict[str, Any]:
    """One class of a classful buffer: no ``match`` makes it the default class."""
    return _opt(
        {},
        name=name,
        match=None if match is None else list(match),
        aqm=aqm,
        limit_pkts=limit_pkts,
        limit_bytes=limit_bytes,
    )


def dualpi2(**params: Any) -> dict[str, Any]:
    """DualPI2, the L4S dual-queue coupled AQM (docs/aqm/dualpi2.md, RFC 9332): fields
    ``target`` ("15ms"), ``tupdate`` ("16ms"), ``alpha`` (0.16 Hz), ``beta`` (3.2 Hz), ``k``
    (2), ``qdelay`` ("classic" | "max"), ``l_step`` ("1ms"), ``l_range``, ``min_qlen_step``,
    ``min_backlog``, ``mtu``, ``drop_overload`` (True), ``drop_early`` (False),
    ``scheduler`` ("wrr" | "time_shift"), ``c_protection`` (10), ``tshift``. Unset fields
    are omitted so the engine's defaults apply."""
    return _opt({"type": "dualpi2"}, **params)


def classful(
    scheduler: dict[str, Any], classes: Sequence[dict[str, Any]], *, mtu: int | None = None
) -> dict[str, Any]:
    """A classful buffer: ``classes`` tried in order, served by ``scheduler``."""
    return _opt({"type": "classful", "scheduler": scheduler, "classes": list(classes)}, mtu=mtu)


__all__ = ["buffer_class", "classful", "drr", "dualpi2", "ets", "rule", "strict_priority", "wrr"]
