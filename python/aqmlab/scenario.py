"""Scenario builders: plain dicts with exactly the schema of the TOML files.

Every builder returns a dict; a scenario is a dict with ``schema_version``, ``simulation``,
``nodes``, ``links`` and ``flows``. Quantities are strings with units (``"10Mbps"``,
``"20ms"``, ``"1500B"``) as in the files; sizes may also be integers (bytes). Optional
arguments left as ``None`` are omitted, so the engine's documented defaults apply and the
canonical echo (:func:`aqmlab.canonical`) shows them. See docs/scenarios.md.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import tomli_w

from aqmlab import _core
from aqmlab._fields import opt as _opt
from aqmlab.capture import capture  # re-exported: sc.capture()
from aqmlab.congestion import bbr, cubic, dctcp, prague, reno  # re-exported: sc.cubic()

SCHEMA_VERSION: int = _core.SCHEMA_VERSION

Scenario = dict[str, Any]
ScenarioLike = Mapping[str, Any] | str | os.PathLike[str]


def scenario(
    *,
    duration: str,
    nodes: Iterable[Mapping[str, Any]],
    links: Iterable[Mapping[str, Any]],
    flows: Iterable[Mapping[str, Any]] = (),
    warmup: str | None = None,
    seed: int | None = None,
    run: int | None = None,
    sample_interval: str | None = None,
    sample_queues: str | list[str] | None = None,
    profile: str | None = None,
    captures: Iterable[Mapping[str, Any]] = (),
) -> Scenario:
    """A whole scenario. ``run`` is the replication index (independent streams of ``seed``).
    ``sample_queues`` ("auto", "all", "core" or queue names "from->to") chooses the queues
    in the time series (docs/scenarios.md, ``[simulation]``).
    ``profile`` ("ns2-2001", "ns2.35", "ns3.44") fills in the TCP and RED fields left unset
    with that simulator's defaults (docs/profiles.md). ``captures``: docs/capture.md."""
    sim = _opt({"duration": duration}, warmup=warmup, seed=seed, run=run)
    sim = _opt(sim, sample_interval=sample_interval, sample_queues=sample_queues)
    s: dict[str, Any] = _opt({"schema_version": SCHEMA_VERSION}, profile=profile)
    s.update(simulation=sim, nodes=[dict(n) for n in nodes], links=[dict(x) for x in links])
    s["flows"] = [dict(f) for f in flows]
    return _opt(s, captures=[dict(c) for c in captures] or None)


def host(name: str) -> dict[str, Any]:
    return {"name": name, "type": "host"}


def router(name: str, conditioners: Iterable[Mapping[str, Any]] = ()) -> dict[str, Any]:
    """A router; ``conditioners`` (``aqmlab.diffserv.conditioner``) make it a DiffServ edge
    that classifies, meters and colours its arrivals (docs/diffserv/conditioner.md)."""
    r: dict[str, Any] = {"name": name, "type": "router"}
    if conditioners:
        r["conditioners"] = [dict(c) for c in conditioners]
    return r


def cioq_red(
    nu: float,
    min_th: float,
    max_th: float,
    **params: Any,
) -> dict[str, Any]:
    """CIOQ-RED (docs/aqm/cioq_red.md): RED averaging ``nu``·q_input + q_output, q_input
    the packets waiting at the switch's inputs for this output (0 on a queue that is not a
    switch output); other fields as :func:`red`."""
    return _opt({"type": "cioq_red", "nu": nu, "min_th": min_th, "max_th": max_th}, **params)


def droptail() -> dict[str, Any]:
    return {"type": "droptail"}


def red(
    min_th: float,
    max_th: float,
    *,
    max_p: float | None = None,
    w_q: float | str | None = None,
    gentle: bool | None = None,
    count_rule: str | None = None,
    byte_mode: bool | None = None,
    mean_pktsize: int | str | None = None,
    ecn: bool | None = None,
    mark_above_max_th: bool | None = None,
    ns2_qlen_guard: bool | None = None,
) -> dict[str, Any]:
    """RED (docs/aqm/red.md): thresholds in packets; ``w_q`` a weight or "auto";
    ``count_rule`` "uniform", "ns2", "ns2_wait" (default) or "independent"."""
    return _opt(
        {"type": "red", "min_th": min_th, "max_th": max_th},
        max_p=max_p,
        w_q=w_q,
        gentle=gentle,
        count_rule=count_rule,
        byte_mode=byte_mode,
        mean_pktsize=mean_pktsize,
        ecn=ecn,
        mark_above_max_th=mark_above_max_th,
        ns2_qlen_guard=ns2_qlen_guard,
    )


def red_step(k: float, **kw: Any) -> dict[str, Any]:
    """RED as DCTCP's step marker at ``k`` packets: min_th = max_th = k, w_q = 1, ECN
    marks at and above k (docs/congestion/dctcp.md); ``kw`` adds RED fields."""
    fields = dict(w_q=1.0, gentle=False, ecn=True, mark_above_max_th=True) | kw
    return red(k, k, **fields)


def ared(
    min_th: float | None = None,
    max_th: float | None = None,
    **params: Any,
) -> dict[str, Any]:
    """Adaptive RED (docs/aqm/ared.md): thresholds automatic unless given; other fields
    (target_delay, interval, max_p, alpha, beta, top, bottom, w_q, gentle, count_rule,
    byte_mode, mean_pktsize, ecn, mark_above_max_th, ns2_qlen_guard) as in the scenario
    reference."""
    return _opt({"type": "ared"}, min_th=min_th, max_th=max_th, **params)


def rem(**params: Any) -> dict[str, Any]:
    """REM (docs/aqm/rem.md): gamma, phi, alpha, b_star (packets), interval, update
    ("rate": eq. 2, default; "queue": eq. 3), w_x, byte_mode, mean_pktsize, ecn, mark_at
    ("departure", default, or "arrival"). Defaults are the paper's: phi 1.001,
    gamma 0.001, alpha 0.1, b* 20 packets, 2 ms updates."""
    return _opt({"type": "rem"}, **params)


def feng_red(**params: Any) -> dict[str, Any]:
    """Self-configuring RED, Feng et al. 1999 (docs/aqm/feng.md): max_p divided by
    ``alpha`` (3) when avg falls below min_th and multiplied by ``beta`` (2) when it rises
    above max_th, once per crossing; other fields (min_th 5, max_th 15, max_p 0.02, top,
    bottom, w_q, gentle, count_rule, byte_mode, mean_pktsize, ecn, mark_above_max_th,
    ns2_qlen_guard) as in the scenario reference."""
    return _opt({"type": "feng_red"}, **params)


def psand(
    min_th: float | None = None,
    max_th: float | None = None,
    **params: Any,
) -> dict[str, Any]:
    """PSAND, Alemu & Jean-Marie 2004 (docs/aqm/psand.md): thresholds from the target and
    the buffer capacity unless given; other fields (target 10, coef 1.75, gamma 1.5,
    interval, max_p 0.1, lower 0.01, upper 0.75, k_cur "ewma" or "interval_mean", w_q,
    gentle, count_rule, byte_mode, mean_pktsize, ecn, mark_above_max_th, ns2_qlen_guard) as
    in the scenario reference."""
    return _opt({"type": "psand"}, min_th=min_th, max_th=max_th, **params)


def pi(**params: Any) -> dict[str, Any]:
    """PI controller, Hollot et al. 2001 (docs/aqm/pi.md); ns-2 defaults: a 1.822e-5,
    b 1.816e-5, w 170 (Hz), q_ref 50 (packets), mean_pktsize 500; byte_mode, ecn."""
    return _opt({"type": "pi"}, **params)


def blue(
    *,
    d1: float | None = None,
    d2: float | None = None,
    freeze_time: str | None = None,
    idle_catchup: bool | None = None,
    increase_threshold: float | None = None,
    byte_mode: bool | None = None,
    mean_pktsize: int | str | None = None,
    ecn: bool | None = None,
) -> dict[str, Any]:
    """BLUE (docs/aqm/blue.md): p_m += ``d1`` on a buffer overflow (or a queue above
    ``increase_threshold`` packets), -= ``d2`` when the buffer empties, at most once per
    ``freeze_time``; ``idle_catchup`` adds one decrement per freeze_time of idleness.
    Defaults: d1 0.0025, d2 0.00025, freeze_time "100ms", idle_catchup true, ecn false."""
    return _opt(
        {"type": "blue"},
        d1=d1,
        d2=d2,
        freeze_time=freeze_time,
        idle_catchup=idle_catchup,
        increase_threshold=increase_threshold,
        byte_mode=byte_mode,
        mean_pktsize=mean_pktsize,
        ecn=ecn,
    )


def rio_level(
    min_th: float, max_th: float, *, max_p: float | None = None, w_q: float | str | None = None
) -> dict[str, Any]:
    """One drop precedence of :func:`rio` (packets; ``w_q`` overrides the shared weight)."""
    return _opt({"min_th": min_th, "max_th": max_th}, max_p=max_p, w_q=w_q)


def rio(
    *levels: Mapping[str, Any],
    mode: str | None = None,
    w_q: float | str | None = None,
    gentle: bool | None = None,
    count_rule: str | None = None,
    mark_above_max_th: bool | None = None,
    idle_start: str | None = None,
    total_avg_on_in_only: bool | None = None,
    ns2_qlen_guard: bool | None = None,
    byte_mode: bool | None = None,
    mean_pktsize: int | str | None = None,
    ecn: bool | None = None,
) -> dict[str, Any]:
    """RIO / RIO-C / RIO-D / WRED (docs/aqm/rio.md): one RED per drop precedence, the
    levels (:func:`rio_level`) green/IN first; ``mode`` "rio_c" (default; two levels =
    Clark & Fang's RIO), "rio_d" or "wred". Defaults: ns-2 Queue/RED/RIO's two levels,
    w_q 0.002, count_rule "dsred", mark_above_max_th true, idle_start "departure"."""
    return _opt(
        {"type": "rio"},
        mode=mode,
        levels=[dict(lv) for lv in levels] or None,
        w_q=w_q,
        gentle=gentle,
        count_rule=count_rule,
        mark_above_max_th=mark_above_max_th,
        idle_start=idle_start,
        total_avg_on_in_only=total_avg_on_in_only,
        ns2_qlen_guard=ns2_qlen_guard,
        byte_mode=byte_mode,
        mean_pktsize=mean_pktsize,
        ecn=ecn,
    )


def aggregate(name: str, *, src: str = "*", dst: str = "*") -> dict[str, Any]:
    """One entry of the ``aggregates`` table of :func:`drio` / :func:`urio`: packets from a
    host matching ``src`` to one matching ``dst`` (globs) belong to aggregate ``name``."""
    return {"name": name, "src": src, "dst": dst}


def drio(
    *levels: Mapping[str, Any],
    list_len: int | None = None,
    delta: float | None = None,
    aggregates: Iterable[Mapping[str, Any]] | None = None,
    **rio_options: Any,
) -> dict[str, Any]:
    """DRIO at aggregate level (docs/aqm/drio.md): :func:`rio` plus a history list of red
    packets' aggregates (``list_len``, default 50) and per-aggregate drop probabilities
    stepped by ``delta`` (default 0.02), our documented reconstruction of DRIO's rule.
    ``aggregates`` (:func:`aggregate` entries) groups host pairs; absent, each (src, dst)
    host pair is an aggregate. Every :func:`rio` option is accepted."""
    return _opt(
        {**rio(*levels, **rio_options), "type": "drio"},
        list_len=list_len,
        delta=delta,
        aggregates=[dict(a) for a in aggregates] if aggregates is not None else None,
    )


def urio(
    *levels: Mapping[str, Any],
    alpha: float | None = None,
    reset_timeout: str | None = None,
    rio_early_drop: bool | None = None,
    qbytes_counts: str | None = None,
    aggregates: Iterable[Mapping[str, Any]] | None = None,
    **rio_options: Any,
) -> dict[str, Any]:
    """Unbiased RIO (docs/aqm/urio.md): :func:`rio` plus per-aggregate buffer policing in
    the congested region: p_TCP = min((G - 1)^alpha, 1) (alpha 0.5), greedy UDP dropped,
    qbytes reset every ``reset_timeout`` (default "1s"). ``rio_early_drop`` (default true)
    keeps RIO's own early drop; ``qbytes_counts`` "congested" (default, the paper's Fig. 2)
    or "admitted". Every :func:`rio` option is accepted."""
    return _opt(
        {**rio(*levels, **rio_options), "type": "urio"},
        alpha=alpha,
        reset_timeout=reset_timeout,
        rio_early_drop=rio_early_drop,
        qbytes_counts=qbytes_counts,
        aggregates=[dict(a) for a in aggregates] if aggregates is not None else None,
    )


def bio_level(
    max_th: float,
    *,
    d1: float | None = None,
    d2: float | None = None,
    freeze_inc: str | None = None,
    freeze_dec: str | None = None,
    freeze_time: str | None = None,
    min_th: float | None = None,
) -> dict[str, Any]:
    """One drop precedence of :func:`bio`: BLUE steps ``d1`` (up) and ``d2`` (down), their
    freeze times (or one shared ``freeze_time``), ``max_th`` and, for T variants,
    ``min_th`` (packets). Defaults: d1 0.0025, d2 0.00025, freezes "100ms"."""
    return _opt(
        {"max_th": max_th},
        d1=d1,
        d2=d2,
        freeze_inc=freeze_inc,
        freeze_dec=freeze_dec,
        freeze_time=freeze_time,
        min_th=min_th,
    )


def bio(
    *levels: Mapping[str, Any],
    variant: str | None = None,
    idle_catchup: bool | None = None,
    byte_mode: bool | None = None,
    mean_pktsize: int | str | None = None,
    ecn: bool | None = None,
) -> dict[str, Any]:
    """BIO, BLUE with In and Out (docs/aqm/bio.md): one BLUE probability per drop
    precedence, the levels (:func:`bio_level`) green/IN first; ``variant`` three letters,
    Decrement S/A, Increment S/A, Mark T/I (default "AAI", the paper's)."""
    if not levels:
        raise TypeError("bio() needs at least one level (bio_level(max_th, ...))")
    return _opt(
        {"type": "bio", "levels": [dict(lv) for lv in levels]},
        variant=variant,
        idle_catchup=idle_catchup,
        byte_mode=byte_mode,
        mean_pktsize=mean_pktsize,
        ecn=ecn,
    )


def sfb(
    *,
    levels: int | None = None,
    bins: int | None = None,
    bin_size: int | None = None,
    max: int | None = None,
    increment: float | None = None,
    decrement: float | None = None,
    penalty_rate: float | None = None,
    penalty_burst: int | None = None,
    rehash_interval: str | None = None,
    warmup_time: str | None = None,
    byte_mode: bool | None = None,
    mean_pktsize: int | str | None = None,
    ecn: bool | None = None,
) -> dict[str, Any]:
    """Stochastic Fair Blue (docs/aqm/sfb.md), Linux sch_sfb defaults: 8 levels x 16 bins,
    bin_size 20 and max 25 packets, increment 0.001 and decrement 0.000167 per packet,
    penalty_rate 10 packets/s with penalty_burst 20, rehash_interval "600s" with
    warmup_time "60s" (give both as "0s" to disable), ecn true."""
    return _opt(
        {"type": "sfb"},
        levels=levels,
        bins=bins,
        bin_size=bin_size,
        max=max,
        increment=increment,
        decrement=decrement,
        penalty_rate=penalty_rate,
        penalty_burst=penalty_burst,
        rehash_interval=rehash_interval,
        warmup_time=warmup_time,
        byte_mode=byte_mode,
        mean_pktsize=mean_pktsize,
        ecn=ecn,
    )


def codel(
    *,
    target: str | None = None,
    interval: str | None = None,
    mtu: int | str | None = None,
    ecn: bool | None = None,
    ce_threshold: str | None = None,
    ce_threshold_ecn: str | None = None,
) -> dict[str, Any]:
    """CoDel (docs/aqm/codel.md, RFC 8289): ``target`` ("5ms"), ``interval`` ("100ms"),
    ``mtu`` bytes (1514: no signal while at most one MTU waits), ``ecn``, ``ce_threshold`` (a
    step-marking sojourn) and ``ce_threshold_ecn`` ("ect"; "ect1": ECT(1) only, for L4S)."""
    return _opt(
        {"type": "codel"},
        target=target,
        interval=interval,
        mtu=mtu,
        ecn=ecn,
        ce_threshold=ce_threshold,
        ce_threshold_ecn=ce_threshold_ecn,
    )


def pie(**params: Any) -> dict[str, Any]:
    """PIE (docs/aqm/pie.md, RFC 8033): fields ``target`` ("15ms"), ``t_update`` ("15ms"),
    ``alpha`` (0.125 /s), ``beta`` (1.25 /s), ``max_burst`` ("150ms"), ``ecn``,
    ``mark_ecn_th`` (0.1, with ecn), ``byte_mode``, ``mtu`` (1514), ``dq_rate_estimator``
    (False: timestamp delay), ``dq_threshold`` (16384, with it), ``derandomize`` (True),
    ``l4s`` (False) and ``ce_threshold`` ("1ms", with l4s). Unset: the engine's defaults."""
    return _opt({"type": "pie"}, **params)


def fq_codel(**params: Any) -> dict[str, Any]:
    """FQ-CoDel (docs/aqm/fq_codel.md, RFC 8290): fields ``flows`` (1024), ``quantum``
    (1514 bytes), ``drop_batch`` (64), and each flow's CoDel ``target`` ("5ms"), ``interval``
    ("100ms"), ``mtu`` (1514), ``ecn`` (True, as Linux), ``ce_threshold``, ``ce_threshold_ecn``.
    The queue's ``limit_pkts``/``limit_bytes`` is shared by all flows."""
    return _opt({"type": "fq_codel"}, **params)


def queue(
    *,
    limit_pkts: int | None = None,
    limit_bytes: int | str | None = None,
    aqm: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """An output queue: give exactly one of ``limit_pkts`` or ``limit_bytes`` (waiting
    packets or bytes, excluding the packet on the wire); ``aqm`` defaults to DropTail."""
    return _opt({}, limit_pkts=limit_pkts, limit_bytes=limit_bytes, aqm=dict(aqm) if aqm else None)


def bernoulli(p: float) -> dict[str, Any]:
    return {"type": "bernoulli", "p": p}


def gilbert_elliott(
    p_gb: float, p_bg: float, *, loss_good: float | None = None, loss_bad: float | None = None
) -> dict[str, Any]:
    return _opt(
        {"type": "gilbert_elliott", "p_gb": p_gb, "p_bg": p_bg},
        loss_good=loss_good,
        loss_bad=loss_bad,
    )


def link(
    a: str,
    b: str,
    *,
    bandwidth: str,
    delay: str,
    queue: Mapping[str, Any],
    loss: Mapping[str, Any] | None = None,
    name: str | None = None,
    reverse_queue: Mapping[str, Any] | None = None,
    capture: bool = False,
) -> dict[str, Any]:
    """A full-duplex link; ``queue`` serves a→b and also b→a unless ``reverse_queue`` is given."""
    d: dict[str, Any] = _opt({}, name=name)
    d.update(a=a, b=b, bandwidth=bandwidth, delay=delay)
    return _opt(
        d,
        loss=dict(loss) if loss else None,
        queue=dict(queue),
        reverse_queue=dict(reverse_queue) if reverse_queue else None,
        capture=True if capture else None,
    )


def _flow(kind: str, name: str, src: str, dst: str, packet_size: int | str, **kw: Any):
    return _opt(
        {"name": name, "type": kind, "src": src, "dst": dst, "packet_size": packet_size}, **kw
    )


def cbr(
    name: str,
    src: str,
    dst: str,
    *,
    rate: str,
    packet_size: int | str,
    start: str | None = None,
    stop: str | None = None,
    ecn: bool | None = None,
    ect: str | None = None,
) -> dict[str, Any]:
    return _flow(
        "cbr", name, src, dst, packet_size, rate=rate, start=start, stop=stop, ecn=ecn, ect=ect
    )


def poisson(
    name: str,
    src: str,
    dst: str,
    *,
    packet_size: int | str,
    rate: str | None = None,
    pkt_rate: float | None = None,
    size_dist: str | None = None,
    start: str | None = None,
    stop: str | None = None,
    ecn: bool | None = None,
    ect: str | None = None,
) -> dict[str, Any]:
    """Poisson arrivals at a mean bit ``rate`` or packet rate ``pkt_rate`` (give one);
    ``size_dist`` is "fixed" (default) or "exponential" with mean ``packet_size``."""
    return _flow(
        "poisson",
        name,
        src,
        dst,
        packet_size,
        rate=rate,
        pkt_rate=pkt_rate,
        size_dist=size_dist,
        start=start,
        stop=stop,
        ecn=ecn,
        ect=ect,
    )


def onoff(
    name: str,
    src: str,
    dst: str,
    *,
    rate: str,
    packet_size: int | str,
    on_time: str,
    off_time: str,
    period_dist: str | None = None,
    shape: float | None = None,
    start: str | None = None,
    stop: str | None = None,
    ecn: bool | None = None,
    ect: str | None = None,
) -> dict[str, Any]:
    """CBR at ``rate`` during on periods; period lengths "exponential" (default) or "pareto"
    (with ``shape`` > 1) with means ``on_time`` and ``off_time``."""
    return _flow(
        "onoff",
        name,
        src,
        dst,
        packet_size,
        rate=rate,
        on_time=on_time,
        off_time=off_time,
        period_dist=period_dist,
        shape=shape,
        start=start,
        stop=stop,
        ecn=ecn,
        ect=ect,
    )


def tcp(
    name: str,
    src: str,
    dst: str,
    *,
    packet_size: int | str = 1000,
    variant: str | None = None,
    ecn: bool | None = None,
    ect: str | None = None,
    bytes: int | str | None = None,
    start: str | None = None,
    stop: str | None = None,
    max_window: int | None = None,
    initial_cwnd: float | None = None,
    delayed_ack: bool | None = None,
    delack_timeout: str | None = None,
    min_rto: str | None = None,
    initial_rto: str | None = None,
    max_rto: str | None = None,
    granularity: str | None = None,
    rtt_estimator: str | None = None,
    dupack_response: str | None = None,
    recovery: str | None = None,
    partial_ack: str | None = None,
    halving: str | None = None,
    fr_timer: str | None = None,
    recover_guard: str | None = None,
    ack_size: int | str | None = None,
    limited_transmit: bool | None = None,
    ecn_retransmits: bool | None = None,
    ecn_backoff: bool | None = None,
    trace: bool | None = None,
    congestion: dict[str, Any] | None = None,
    pacing: bool | None = None,
) -> dict[str, Any]:
    """A TCP connection: bulk (unlimited) unless ``bytes`` makes it a finite transfer;
    ``congestion`` its controller (:func:`reno`, the default, :func:`cubic`, :func:`dctcp`,
    :func:`bbr` or :func:`prague`); ``pacing`` at Linux's default rate (BBR and Prague always pace).

    Every field, its allowed values and its default (ns-2's for timers and windows) are in
    docs/scenarios.md (`tcp`); each choice between the RFCs and ns-2 is in docs/tcp.md."""
    fields = dict(locals())  # the keyword fields, in signature order (None: left unset)
    for k in ("name", "src", "dst", "packet_size"):
        del fields[k]
    return _flow("tcp", name, src, dst, packet_size, **fields)


def _ns(seconds: float) -> str:
    """Seconds as an exact duration string (whole nanoseconds)."""
    return f"{round(seconds * 1e9)}ns"


def staged(
    template: Mapping[str, Any],
    *,
    pairs: Iterable[tuple[str, str]],
    per_stage: int,
    every: float,
    first: float = 0.0,
    spread: float = 0.0,
) -> list[dict[str, Any]]:
    """Staged arrivals: ``per_stage`` new flows every ``every`` seconds, starting at
    ``first`` (the REM paper: 20 users, +20 every 50 s). Flow k uses ``pairs[k]`` as its
    (src, dst) and is named ``<template name>.<k>``; flows of one stage start ``spread``
    seconds apart, so that a stage does not start in lock step."""
    out = []
    base = template["name"]
    for k, (src, dst) in enumerate(pairs):
        stage, pos = divmod(k, per_stage)
        f = dict(template)
        f.update(name=f"{base}.{k}", src=src, dst=dst)
        f["start"] = _ns(first + stage * every + pos * spread)
        out.append(f)
    return out


def random_sessions(
    template: Mapping[str, Any],
    *,
    count: int,
    sources: list[str],
    sinks: list[str],
    start: tuple[str, float, float],
    duration: tuple[str, float, float] | None = None,
    horizon: float,
    seed: int,
) -> list[dict[str, Any]]:
    """Random sessions: each draws its source and sink host uniformly (never equal), a
    start time and a duration from the given distributions, with its own numpy PCG64
    stream of ``seed`` (the same seed gives the same sessions).

    Distributions are ``("uniform", low, high)`` or ``("exponential", mean, offset)`` in
    seconds; for ``start``, "exponential" draws inter-arrival times (a Poisson process from
    ``offset``). Sessions starting at or after ``horizon`` (the run's duration, in seconds)
    are dropped; a session's stop is capped at the horizon by omitting it."""
    import numpy as np

    rng = np.random.Generator(np.random.PCG64(seed))
    out: list[dict[str, Any]] = []
    t = start[2] if start[0] == "exponential" else 0.0

    def draw(d: tuple[str, float, float]) -> float:
        kind, a, b = d
        if kind == "uniform":
            return float(rng.uniform(a, b))
        if kind == "exponential":
            return float(rng.exponential(a))
        raise _error("start/duration", kind, 'distribution must be "uniform" or "exponential"')

    for k in range(count):
        src = sources[int(rng.integers(len(sources)))]
        choices = [h for h in sinks if h != src]
        if not choices:
            raise _error("sinks", sinks, f"needs a host other than {src!r}")
        dst = choices[int(rng.integers(len(choices)))]
        if start[0] == "exponential":
            t += draw(start)
            begin = t
        else:
            begin = draw(start)
        if begin >= horizon:
            continue
        f = dict(template)
        f.update(name=f"{template['name']}.{k}", src=src, dst=dst, start=_ns(begin))
        if duration is not None:
            end = begin + (duration[2] if duration[0] == "exponential" else 0.0) + draw(duration)
            if end < horizon:
                f["stop"] = _ns(end)
        out.append(f)
    return out


def example(duration: str = "30s", warmup: str = "5s") -> Scenario:
    """The built-in example network (scenarios/example.toml): a dumbbell of three UDP
    sources (CBR, Poisson with exponential sizes, Pareto on/off) sharing a 10 Mb/s, 20 ms
    bottleneck with a 50-packet DropTail queue, offered about 100% of its capacity."""
    access = queue(limit_pkts=1000)
    return scenario(
        duration=duration,
        warmup=warmup,
        seed=1,
        sample_interval="10ms",
        nodes=[
            *(host(f"s{i}") for i in range(3)),
            router("r0"),
            router("r1"),
            *(host(f"d{i}") for i in range(3)),
        ],
        links=[
            *(
                link(f"s{i}", "r0", bandwidth="100Mbps", delay="1ms", queue=access)
                for i in range(3)
            ),
            link(
                "r0",
                "r1",
                name="bottleneck",
                bandwidth="10Mbps",
                delay="20ms",
                queue=queue(limit_pkts=50, aqm=droptail()),
            ),
            *(
                link("r1", f"d{i}", bandwidth="100Mbps", delay="1ms", queue=access)
                for i in range(3)
            ),
        ],
        flows=[
            cbr("video", "s0", "d0", rate="3Mbps", packet_size=1200),
            poisson("web", "s1", "d1", rate="4Mbps", packet_size=1000, size_dist="exponential"),
            onoff(
                "bursty",
                "s2",
                "d2",
                rate="6Mbps",
                packet_size=1500,
                on_time="200ms",
                off_time="200ms",
                period_dist="pareto",
                shape=1.5,
            ),
        ],
    )


# ------------------------------------------------------------------------------------------
# Crossing into the engine: dicts become TOML text, so files and dicts share one parser.
# ------------------------------------------------------------------------------------------


def _error(path: str, value: Any, message: str) -> Exception:
    e = _core.ScenarioError(f"{path} = {value!r}: {message}" if path else message)
    e.path, e.value, e.message = path, repr(value), message
    e.errors = [(path, repr(value), message)]
    return e


def _plain(x: Any, path: str) -> Any:
    """Converts numpy scalars and tuples to TOML-serialisable values; drops None entries."""
    if isinstance(x, Mapping):
        out = {}
        for k, v in x.items():
            if not isinstance(k, str):
                raise _error(path, k, "table keys must be strings")
            if v is None:
                continue
            out[k] = _plain(v, f"{path}.{k}" if path else k)
        return out
    if isinstance(x, (list, tuple)):
        return [_plain(v, f"{path}[{i}]") for i, v in enumerate(x)]
    if isinstance(x, (bool, str)):
        return x
    if isinstance(x, int):
        if not -(2**63) <= x < 2**63:
            raise _error(path, x, "integer out of the 64-bit range")
        return x
    if isinstance(x, float):
        return x
    item = getattr(x, "item", None)  # numpy scalars
    if callable(item):
        v = item()
        if isinstance(v, (bool, int, float, str)):
            return _plain(v, path)
    raise _error(path, x, f"unsupported type {type(x).__name__}; use str, int, float, bool")


def to_toml(sc: Mapping[str, Any]) -> str:
    """Writes a scenario dict as TOML text (the file format)."""
    if not isinstance(sc, Mapping):
        raise _error("", sc, "a scenario must be a dict")
    return tomli_w.dumps(_plain(sc, ""))


class ScenarioFileError(ValueError):
    """A scenario (or sweep) file that is not readable TOML text: not UTF-8, or a TOML
    syntax error (with its line and column). The same message from every entry point."""


def read_toml(path: str | os.PathLike[str], what: str = "scenario") -> tuple[str, dict]:
    """The one reader of TOML files (``aqmlab run``, ``validate``, ``sweep``, ``load``,
    ``run(path)``): the text and its parsed tables, or ``ScenarioFileError`` naming the file."""
    import tomllib

    p = Path(path)
    if not p.is_file():
        raise FileNotFoundError(f"{what} file not found: {p}")
    data = p.read_bytes()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ScenarioFileError(
            f"{p} is not a text file (not valid UTF-8 at byte {e.start})"
        ) from None
    try:
        return text, tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise ScenarioFileError(f"{p}: TOML syntax error: {e}") from None


def _json_default(x: Any) -> Any:
    item = getattr(x, "item", None)  # numpy scalars
    if callable(item):
        v = item()
        if isinstance(v, (bool, int, float, str)):
            return v
    raise TypeError(type(x).__name__)


def as_toml(sc: ScenarioLike) -> str:
    """TOML text of a scenario dict, or of a scenario file path."""
    if isinstance(sc, Mapping):
        return to_toml(sc)
    if isinstance(sc, (str, os.PathLike)):
        return read_toml(sc)[0]
    raise TypeError(f"expected a scenario dict or a TOML file path, got {type(sc).__name__}")


def engine_text(sc: ScenarioLike) -> str:
    """The text the engine reads (it takes TOML or a JSON object): a file's TOML, or a dict as
    JSON, which the standard library writes in C (a 10 000-flow scenario in 0.07 s, against
    1.7 s as TOML). A dict JSON cannot carry exactly (NaN or infinities, an unsupported
    type) is written as TOML instead, whose writer names the offending path. The encoder
    keeps no record of the containers it is inside (a sixth of its time at 100 flows): a
    dict that contains itself exhausts the recursion limit instead, and goes to the TOML
    writer as it did when the encoder named the cycle."""
    if isinstance(sc, Mapping):
        try:
            return json.dumps(sc, allow_nan=False, default=_json_default, check_circular=False)
        except (TypeError, ValueError, RecursionError):
            return to_toml(sc)
    return as_toml(sc)


def load(path: str | os.PathLike[str]) -> Scenario:
    """Reads a scenario file into a dict (not yet validated)."""
    return read_toml(path)[1]


__all__ = [
    "SCHEMA_VERSION",
    "ScenarioFileError",
    "ared",
    "as_toml",
    "bbr",
    "bernoulli",
    "bio",
    "bio_level",
    "blue",
    "capture",
    "cbr",
    "codel",
    "cubic",
    "dctcp",
    "droptail",
    "engine_text",
    "example",
    "feng_red",
    "fq_codel",
    "gilbert_elliott",
    "host",
    "link",
    "load",
    "onoff",
    "pi",
    "pie",
    "poisson",
    "prague",
    "psand",
    "queue",
    "random_sessions",
    "read_toml",
    "red",
    "red_step",
    "rem",
    "reno",
    "rio",
    "rio_level",
    "router",
    "scenario",
    "sfb",
    "staged",
    "tcp",
    "to_toml",
]
