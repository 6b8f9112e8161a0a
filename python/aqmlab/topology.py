"""Topology generators the field expects (docs/topology.md): the dumbbell, the parking lot,
a leaf-spine fabric and the k-ary fat-tree. Each returns a :class:`Topology` (nodes, links and
the host pairs its experiments usually load); :meth:`Topology.scenario` adds flows and makes an
ordinary scenario, which validates, runs and sweeps like any other.

Routing is the engine's: one shortest path per (node, destination), ties broken by link order
(docs/architecture.md, "Routing"). In multi-rooted fabrics (leaf-spine, fat-tree) that is
"ECMP off": every pair of hosts uses one fixed path, and which spine or core switch carries it
follows from the order in which the links are listed here (documented per generator)."""

from __future__ import annotations

import collections
import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from aqmlab import scenario as sc

Queue = Mapping[str, Any]


@dataclass
class Topology:
    """Nodes and links of a generated topology, and its hosts by role. ``pairs`` are the
    (source, destination) host pairs the topology is usually loaded with (per generator)."""

    nodes: list[dict[str, Any]]
    links: list[dict[str, Any]]
    hosts: dict[str, list[str]] = field(default_factory=dict)
    pairs: list[tuple[str, str]] = field(default_factory=list)

    def scenario(
        self, flows: Iterable[Mapping[str, Any]] = (), *, duration: str, **simulation: Any
    ) -> dict[str, Any]:
        """An ordinary scenario of this topology with ``flows``; ``simulation`` as
        :func:`aqmlab.scenario.scenario` (warmup, seed, run, sample_interval, sample_queues,
        profile)."""
        return sc.scenario(
            duration=duration, nodes=self.nodes, links=self.links, flows=flows, **simulation
        )

    def flows(
        self, make: Callable[[str, str, str], Mapping[str, Any]] | None = None
    ) -> list[dict[str, Any]]:
        """One flow per pair, named f0, f1, ...: ``make(name, src, dst)``, by default a bulk
        TCP transfer (:func:`aqmlab.scenario.tcp` with its defaults)."""
        make = make or (lambda name, s, d: sc.tcp(name, s, d))
        return [dict(make(f"f{i}", s, d)) for i, (s, d) in enumerate(self.pairs)]


def _per_host(value: str | Sequence[str], n: int, what: str) -> list[str]:
    if isinstance(value, str):
        return [value] * n
    if len(value) != n:
        raise ValueError(f"{what}: {len(value)} values for {n} hosts")
    return list(value)


def _q(queue: Queue | None, default: Queue) -> dict[str, Any]:
    return dict(queue) if queue is not None else dict(default)


DEFAULT_QUEUE: Queue = {"limit_pkts": 100}


def dumbbell(
    n: int,
    *,
    bottleneck: str = "10Mbps",
    bottleneck_delay: str = "20ms",
    access: str = "100Mbps",
    access_delay: str | Sequence[str] = "1ms",
    queue: Queue | None = None,
    reverse_queue: Queue | None = None,
    access_queue: Queue | None = None,
    capture: bool = False,
) -> Topology:
    """n senders ``s0..`` behind router ``r1``, n receivers ``d0..`` behind ``r2``, one host
    pair per flow. ``queue`` is the bottleneck's r1→r2 queue, ``reverse_queue`` r2→r1's
    (default: the same), ``access_queue`` every access link's (default 100 packets, DropTail).
    ``access_delay`` may be one value or one per sender (RTT heterogeneity; the receivers'
    links take the same value as their sender's). ``capture=True`` records both directions of
    the bottleneck as pcap files (docs/capture.md). Pairs: (s_i, d_i)."""
    if n < 1:
        raise ValueError(f"n = {n}: a dumbbell needs at least one host pair")
    delays = _per_host(access_delay, n, "access_delay")
    aq = _q(access_queue, DEFAULT_QUEUE)
    bq = _q(queue, DEFAULT_QUEUE)
    nodes = [sc.router("r1"), sc.router("r2")]
    links = [
        sc.link(
            "r1",
            "r2",
            bandwidth=bottleneck,
            delay=bottleneck_delay,
            queue=bq,
            reverse_queue=reverse_queue,
            name="bottleneck",
            capture=capture,
        )
    ]
    senders, receivers = [f"s{i}" for i in range(n)], [f"d{i}" for i in range(n)]
    for i in range(n):
        nodes += [sc.host(senders[i]), sc.host(receivers[i])]
        links.append(sc.link(senders[i], "r1", bandwidth=access, delay=delays[i], queue=aq))
        links.append(sc.link("r2", receivers[i], bandwidth=access, delay=delays[i], queue=aq))
    return Topology(
        nodes,
        links,
        {"senders": senders, "receivers": receivers},
        list(zip(senders, receivers, strict=True)),
    )


def parking_lot(
    hops: int,
    *,
    cross_per_hop: int = 1,
    long_flows: int = 1,
    bandwidth: str = "10Mbps",
    delay: str = "10ms",
    access: str = "100Mbps",
    access_delay: str = "1ms",
    queue: Queue | None = None,
    access_queue: Queue | None = None,
) -> Topology:
    """Routers ``r0..r{hops}`` in a chain of ``hops`` bottleneck links (``queue`` both ways).
    ``long_flows`` host pairs cross the whole chain (``l{k}`` at r0 → ``m{k}`` at the last
    router); each hop i has ``cross_per_hop`` pairs crossing it alone (``c{i}_{k}`` at r_i →
    ``x{i}_{k}`` at r_{i+1}). Pairs: the long ones first, then the cross traffic hop by hop."""
    if hops < 1 or cross_per_hop < 0 or long_flows < 0:
        raise ValueError("parking_lot needs hops >= 1 and non-negative flow counts")
    bq = _q(queue, DEFAULT_QUEUE)
    aq = _q(access_queue, DEFAULT_QUEUE)
    nodes = [sc.router(f"r{i}") for i in range(hops + 1)]
    links = [
        sc.link(f"r{i}", f"r{i + 1}", bandwidth=bandwidth, delay=delay, queue=bq, name=f"hop{i}")
        for i in range(hops)
    ]
    hosts: dict[str, list[str]] = {"long_senders": [], "long_receivers": [], "cross": []}
    pairs = []

    def pair(src: str, at: int, dst: str, to: int) -> None:
        nodes.extend([sc.host(src), sc.host(dst)])
        links.append(sc.link(src, f"r{at}", bandwidth=access, delay=access_delay, queue=aq))
        links.append(sc.link(f"r{to}", dst, bandwidth=access, delay=access_delay, queue=aq))
        pairs.append((src, dst))

    for k in range(long_flows):
        pair(f"l{k}", 0, f"m{k}", hops)
        hosts["long_senders"].append(f"l{k}")
        hosts["long_receivers"].append(f"m{k}")
    for i in range(hops):
        for k in range(cross_per_hop):
            pair(f"c{i}_{k}", i, f"x{i}_{k}", i + 1)
            hosts["cross"] += [f"c{i}_{k}", f"x{i}_{k}"]
    return Topology(nodes, links, hosts, pairs)


def _permutation(hosts: list[str], group: Callable[[str], Any], seed: int) -> list[tuple[str, str]]:
    """A random permutation of ``hosts`` in which no host sends within its own group (its leaf
    or pod): every flow crosses the fabric's upper layer. A uniform shuffle, then each pair
    that stays in its group swaps destinations with a random pair where the swap separates
    both. Deterministic in ``seed``; needs every group to hold at most half of the hosts."""
    n = len(hosts)
    if max(collections.Counter(map(group, hosts)).values()) * 2 > n:
        raise ValueError("a permutation across groups needs every group <= half of the hosts")
    rng = random.Random(seed)
    dst = hosts[:]
    rng.shuffle(dst)
    for i in range(n):
        while group(hosts[i]) == group(dst[i]):
            j = rng.randrange(n)
            if group(dst[j]) != group(hosts[i]) and group(dst[i]) != group(hosts[j]):
                dst[i], dst[j] = dst[j], dst[i]
    return list(zip(hosts, dst, strict=True))


def leaf_spine(
    leaves: int,
    spines: int,
    hosts_per_leaf: int,
    *,
    host_rate: str = "10Gbps",
    fabric_rate: str = "40Gbps",
    delay: str = "10us",
    queue: Queue | None = None,
    host_queue: Queue | None = None,
    seed: int = 1,
) -> Topology:
    """Leaves ``leaf0..`` each joined to every spine ``spine0..`` at ``fabric_rate`` (``queue``
    both ways), hosts ``h{l}_{k}`` on their leaf at ``host_rate`` (``host_queue``). ECMP off:
    the links are listed leaf by leaf, spine by spine, so the engine's shortest paths between
    two leaves go through the lowest-numbered spine the breadth-first search meets first (one
    spine per leaf pair; in this listing, spine0). Pairs: a random permutation (``seed``) in
    which every host sends to a host on another leaf."""
    if leaves < 2 or spines < 1 or hosts_per_leaf < 1:
        raise ValueError("leaf_spine needs leaves >= 2, spines >= 1, hosts_per_leaf >= 1")
    fq = _q(queue, DEFAULT_QUEUE)
    hq = _q(host_queue, DEFAULT_QUEUE)
    nodes = [sc.router(f"spine{s}") for s in range(spines)]
    nodes += [sc.router(f"leaf{v}") for v in range(leaves)]
    links = [
        sc.link(f"leaf{v}", f"spine{s}", bandwidth=fabric_rate, delay=delay, queue=fq)
        for v in range(leaves)
        for s in range(spines)
    ]
    hosts = []
    for v in range(leaves):
        for k in range(hosts_per_leaf):
            h = f"h{v}_{k}"
            hosts.append(h)
            nodes.append(sc.host(h))
            links.append(sc.link(h, f"leaf{v}", bandwidth=host_rate, delay=delay, queue=hq))
    pairs = _permutation(hosts, lambda h: h.split("_")[0], seed)
    return Topology(nodes, links, {"hosts": hosts}, pairs)


def fat_tree(
    k: int,
    *,
    rate: str = "10Gbps",
    delay: str = "10us",
    queue: Queue | None = None,
    seed: int = 1,
) -> Topology:
    """The k-ary fat-tree (Al-Fares, Loukissas, Vahdat, SIGCOMM 2008): k pods of k/2 edge and
    k/2 aggregation switches, (k/2)² core switches, k³/4 hosts, every link at ``rate`` with
    ``queue`` both ways. Names: ``core{c}``, ``agg{p}_{a}``, ``edge{p}_{e}``, hosts
    ``h{p}_{e}_{i}``. Aggregation switch a of every pod joins cores a·k/2 .. a·k/2 + k/2 - 1.
    ECMP off: one shortest path per pair (links listed core side first, so the search meets
    the lowest-numbered aggregation and core switches first). Pairs: a random permutation
    (``seed``) in which every host sends to a host in another pod."""
    if k < 2 or k % 2:
        raise ValueError(f"k = {k}: a fat-tree needs an even k >= 2")
    h = k // 2
    q = _q(queue, DEFAULT_QUEUE)

    def ln(a: str, b: str) -> dict[str, Any]:
        return sc.link(a, b, bandwidth=rate, delay=delay, queue=q)

    nodes = [sc.router(f"core{c}") for c in range(h * h)]
    links = []
    hosts = []
    for p in range(k):
        nodes += [sc.router(f"agg{p}_{a}") for a in range(h)]
        nodes += [sc.router(f"edge{p}_{e}") for e in range(h)]
        for a in range(h):
            links += [ln(f"agg{p}_{a}", f"core{a * h + c}") for c in range(h)]
        for e in range(h):
            links += [ln(f"edge{p}_{e}", f"agg{p}_{a}") for a in range(h)]
            for i in range(h):
                name = f"h{p}_{e}_{i}"
                hosts.append(name)
                nodes.append(sc.host(name))
                links.append(ln(name, f"edge{p}_{e}"))
    pairs = _permutation(hosts, lambda x: x.split("_")[0], seed)
    return Topology(nodes, links, {"hosts": hosts}, pairs)


__all__ = ["Topology", "dumbbell", "fat_tree", "leaf_spine", "parking_lot"]
