"""Builders of a queue's ``aqm`` table, one per AQM of the engine's registry (docs/scenarios.md,
"AQM tables"; each links its page under docs/aqm/); ``aqmlab.scenario`` re-exports them
(``sc.red(20, 80)``). Optional arguments left as ``None`` are omitted, so the engine's
documented defaults apply."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from aqmlab._fields import opt as _opt


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


__all__ = [
    "aggregate",
    "ared",
    "bio",
    "bio_level",
    "blue",
    "cioq_red",
    "codel",
    "drio",
    "droptail",
    "feng_red",
    "fq_codel",
    "pi",
    "pie",
    "psand",
    "red",
    "red_step",
    "rem",
    "rio",
    "rio_level",
    "sfb",
    "urio",
]
