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
from aqmlab import aqm as _aqm
from aqmlab._fields import opt as _opt
from aqmlab.aqm import *  # noqa: F403  (every AQM builder, re-exported: sc.red(20, 80))
from aqmlab.aqm import droptail
from aqmlab.capture import capture  # re-exported: sc.capture()
from aqmlab.congestion import bbr, cubic, dctcp, prague, reno  # re-exported: sc.cubic()
from aqmlab.probe import probe

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
    reverse_bandwidth: str | None = None,
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
        reverse_bandwidth=reverse_bandwidth,  # b→a's rate, when it differs from a→b's
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
    "as_toml",
    "bbr",
    "bernoulli",
    "capture",
    "cbr",
    "cubic",
    "dctcp",
    "engine_text",
    "example",
    "gilbert_elliott",
    "host",
    "link",
    "load",
    "onoff",
    "poisson",
    "prague",
    "probe",
    "queue",
    "random_sessions",
    "read_toml",
    "reno",
    "router",
    "scenario",
    "staged",
    "tcp",
    "to_toml",
    *_aqm.__all__,
]
