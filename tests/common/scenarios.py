"""Scenario builders shared by the test files."""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import Any

from aqmlab import _core
from aqmlab import scenario as sc

ACCESS_QUEUE = sc.queue(limit_pkts=1000)


def dumbbell(
    flows: Iterable[Mapping[str, Any]],
    *,
    duration: str,
    queue: Mapping[str, Any],
    hosts: Sequence[str] = ("s", "d"),
    receivers: Collection[str] = ("d",),
    routers: Sequence[str] = ("r0", "r1"),
    bandwidth: str = "10Mbps",
    delay: str = "20ms",
    reverse_queue: Mapping[str, Any] | None = None,
    access_bandwidth: str = "100Mbps",
    access_delay: str | Mapping[str, str] = "1ms",
    access_queue: Mapping[str, Any] = ACCESS_QUEUE,
    host_to_router: bool = False,
    left_to_right: bool = False,
    warmup: str | None = None,
    seed: int | None = None,
    sample_interval: str | None = None,
) -> dict[str, Any]:
    """A dumbbell: the hosts not in ``receivers`` send through ``routers[0]``, the
    receivers sit behind ``routers[-1]``.

    Two routers: the bottleneck is ``routers[0] -> routers[1]`` and every host has an access
    link. One router: the bottleneck runs from it straight to the one receiver, and only the
    senders have access links.

    The bottleneck has ``bandwidth``, ``delay``, ``queue`` and ``reverse_queue``; access links
    have ``access_bandwidth``, ``access_delay`` (one for all, or one per host) and
    ``access_queue``. A sender's access link runs host -> router, a receiver's router -> host
    (host -> router too if ``host_to_router``).

    Order (it matters to a run): by default the routers, then ``hosts`` in their order; the
    bottleneck, then the access links in the order of ``hosts``. With ``left_to_right``,
    nodes are the senders, the routers, the receivers, and links the senders' access links,
    the bottleneck, the receivers' access links."""
    if len(routers) not in (1, 2):
        raise ValueError("a dumbbell has one or two routers")
    first, last = routers[0], routers[-1]
    senders = [h for h in hosts if h not in receivers]
    right = [h for h in hosts if h in receivers]
    if len(routers) == 1 and len(right) != 1:
        raise ValueError("a dumbbell with one router has exactly one receiver")
    bottleneck = sc.link(
        first,
        last if len(routers) == 2 else right[0],
        bandwidth=bandwidth,
        delay=delay,
        queue=queue,
        reverse_queue=reverse_queue,
    )

    def access(h: str) -> dict[str, Any]:
        d = access_delay if isinstance(access_delay, str) else access_delay[h]
        ends = (h, first) if h in senders else (h, last) if host_to_router else (last, h)
        return sc.link(*ends, bandwidth=access_bandwidth, delay=d, queue=access_queue)

    with_access = hosts if len(routers) == 2 else senders
    nodes = [*map(sc.router, routers)]
    if left_to_right:
        nodes = [*map(sc.host, senders), *nodes, *map(sc.host, right)]
        links = [
            *(access(h) for h in senders),
            bottleneck,
            *(access(h) for h in right if h in with_access),
        ]
    else:
        nodes += map(sc.host, hosts)
        links = [bottleneck, *(access(h) for h in hosts if h in with_access)]
    return sc.scenario(
        duration=duration,
        warmup=warmup,
        seed=seed,
        sample_interval=sample_interval,
        nodes=nodes,
        links=links,
        flows=flows,
    )


def readers(d: Mapping[str, Any]) -> tuple[str | None, str | None, str | None]:
    """What the binding's readers make of the dict `d`: (straight from its objects, through
    their document, its JSON text), each as canonical TOML, or None where it does not read."""
    try:
        text = sc.engine_text(d)
    except Exception:  # a dict no text carries: the text reads nothing
        text = ""
    return _core._readers_for_test(dict(d), text)
