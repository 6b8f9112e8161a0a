"""CIOQ-RED (Sundararajan, Zhao, Youssef-Massaad, Médard): RED whose congestion measure adds
the switch's input backlog for the output, ν·q_input + q_output (eq. 2), against RED and
DropTail at the outputs of a 4×4 and a 16×16 CIOQ switch with VOQs (Sec. V, Figs. 2-5).

Network: n sources on the input side and n sinks on the output side, 1 Mb/s links, the
paper's `links` fabric (internal links at s·R/n, Sec. V-A), VOQs of 20 packets (DropTail),
outputs of 20 with DropTail, RED or CIOQ-RED. TCP sessions from a random source to a random
sink, starting uniformly over 100 s, lasting U(3, 13) s (4×4) or U(3, 53) s (16×16). The
line-card reading (host i source and sink on port i) is run at a few points for
comparison. Choices where the paper is silent are listed in the report (CHOICES).
"""

from __future__ import annotations

import functools
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np

from aqmlab import scenario as sc
from aqmlab import switch as swb
from aqmlab.experiments.cioq_claims import CLAIMS, claims
from aqmlab.experiments.ns2_era import HEADER, PROFILE, TCP_NS226
from aqmlab.plans import run_rng
from aqmlab.reproduce import Claim, Context, Experiment, fmt

LINE = "1Mbps"
R_BPS = 1e6
# The paper's 1000-byte packets are ns-2's packetSize_; useHeaders_ adds 40 B on the wire.
PACKET = 1000
WINDOW = 20
LINK_DELAY = "10ms"
BUFFER = 20
# ns-2's default Queue limit_ for the hosts' own queues (the paper names none).
HOST_LIMIT = 50
START_WINDOW_S = 100.0
RED = {"min_th": 5, "max_th": 15, "w_q": 0.004, "max_p": 0.1}
AQMS = ["DropTail", "RED", "CIOQ-RED"]
FABRICS = ["links", "crossbar"]

# Per switch size: sessions of Figs. 2/4, session durations, ν, the speedups of Figs. 2/4,
# the speedup and session counts of Figs. 3/5.
SIZES: dict[int, dict[str, Any]] = {
    4: {
        "sessions": 800,
        "dur": (3.0, 13.0),
        "nu": 0.5,
        "speedups": [1.1, 1.3, 1.5, 1.7, 1.9, 2.1, 2.3, 2.5],
        "load_s": 1.1,
        "loads": [80, 160, 240, 320, 400, 480, 560, 640, 720, 800],
        "fig": (2, 3),
    },
    16: {
        "sessions": 6400,
        "dur": (3.0, 53.0),
        "nu": 0.125,
        # Fewer points than 4×4: a 16×16 run of 6400 sessions costs 4 s of CPU, and the
        # full size must fit in 5 minutes on 2 cores.
        "speedups": [1.1, 1.4, 1.7, 2.0, 2.3, 2.7],
        "load_s": 1.4,
        "loads": [640, 1920, 3200, 4480, 6400],
        "fig": (4, 5),
    },
}
# Quick size: a few points, the 16×16 ones the cheapest that still judge every rule.
QUICK_SPEEDUPS = {4: [1.1, 1.5, 2.1], 16: [1.1, 2.0]}
QUICK_LOADS = {4: [80, 800], 16: [640]}
NU_SWEEP = [0.0, 0.125, 0.25, 0.5, 1.0, 2.0]
NU_SPEEDUPS = [1.1, 1.5]
QUICK_NU = [0.0, 0.5, 2.0]
# The line-card topology (the host-per-port reading), 4×4 Fig. 2 at a few speedups.
LINECARD_SPEEDUPS = [1.1, 1.5, 2.1]
QUICK_LINECARD_SPEEDUPS = [1.1, 2.1]

# Quick size runs Fig. 4's 16×16 points with half the sessions: 6400-session runs are most
# of its time, and at one replication per point quick size judges no claim anyway.
QUICK_SESSIONS = {4: 800, 16: 3200}

RUNS = {4: 5, 16: 3}
RUNS_QUICK = {4: 1, 16: 1}

CHOICES = [
    "Topology, the paper's ns-2 model: n sources on the input side and n sinks on the "
    "output side, each joined to the switch by its own full-duplex 1 Mb/s link, 10 ms one "
    "way (ns-2 examples' usual value; the paper gives none), base RTT 40 ms. In aqmlab "
    "that is a 2n-port switch at speedup 2s: every path a session uses (source i → sink j, "
    "and sink j → source i for its ACKs) runs at 2s·R/(2n) = s·R/n, the paper's internal "
    "link rate, with n such paths out of each input and into each output (s·R in "
    "aggregate), and the ACKs on their own paths and queues as on ns-2's duplex internal "
    "links. Every output has the AQM under test; the statistics are those of the data "
    "direction (source-side inputs, sink-side outputs).",
    "Line cards (host i source and sink on port i of an n-port switch; the issue's "
    "reading) are run at a few speedups for comparison: there output j is fed by the n − 1 "
    "paths from the other inputs only, at most (n − 1)/n·s·R (0.825 R at 4×4, s = 1.1), "
    "so at low speedup the output queue cannot build and the inputs hold the whole "
    "backlog; the paper's discussion assumes outputs that can be oversubscribed.",
    "Fabric: the paper's model (Sec. V-A), n² internal links at s·R/n (aqmlab's `links` "
    "fabric); VOQs of 20 packets each (per VOQ: each internal link was an ns-2 link with "
    "its own queue), DropTail.",
    "Crossbar (beyond the paper's model; the issue asks for both): iSLIP with log2(2n) "
    "iterations (3 at 4×4, 5 at 16×16: iSLIP's usual convergence bound), packet mode "
    "with 64-byte cells (docs/switch/switch.md), speedup s as the phase rate s·R. With the "
    "split ports the sources only request sinks and the sinks only sources, so the 2n-port "
    "crossbar is two independent n×n crossbars at s·R, the data and the ACK directions.",
    "Buffers of 20 in ns-2's terms: a DropTail `limit_ 20` holds 19 waiting packets "
    "(aqmlab limit_pkts 19, docs/queue.md), a RED `limit_ 20` holds 20; so VOQs and "
    "DropTail outputs get 19, RED and CIOQ-RED outputs 20.",
    "RED and CIOQ-RED: min_th 5, max_th 15, w_q 0.004, max_p 0.1 (the paper), the rest "
    "ns-2's defaults as profile ns2-2001 fills them for RED (gentle on, count rule "
    "ns2_wait, mean packet size 500 B for the idle decay, ns-2's qlen guard, no ECN); "
    "CIOQ-RED copies every one of RED's fields (the profile fills `red` only), so it "
    "differs from RED by ν alone and ν = 0 gives RED's runs exactly; ν = 0.5 (4×4) and "
    "0.125 (16×16).",
    "Hosts' own queues (host → switch): DropTail, ns-2's default limit_ 50 (49 waiting); "
    "their drops are reported separately and are not the switch's loss.",
    "TCP: ns-2's default Agent/TCP is Tahoe, which aqmlab lacks; we use Reno, the "
    "ns-2-era variant nearest to it (Tahoe plus fast recovery; with several losses in a "
    "window it falls back to a timeout as Tahoe does), ns-2.26 as aqmlab expresses it "
    "(profile ns2-2001, whose ns-2 rules halve the integer window, `halving`, and restart "
    "the timer at a fast retransmit, `fr_timer`, docs/profiles.md; 10 ms clock, limited "
    "transmit), window_ 20, no delayed ACKs, "
    "1000-byte payloads + 40 B headers on the wire. Each session is a bulk (FTP) transfer "
    "for its whole duration.",
    "Sessions: per replication from a PCG64 stream of (seed, run): source uniform over "
    "the n hosts, sink uniform over the other n − 1, start uniform over [0, 100 s), "
    "duration U(3, 13) s (4×4) or U(3, 53) s (16×16); every AQM and speedup sees the same "
    "sessions in a replication (common random numbers).",
    "Run length and window: 100 s; statistics over [d_max, 100 s] (d_max = 13 s or 53 s), "
    "where the number of active sessions is stationary (before d_max it ramps up; sessions "
    "still running at 100 s are cut there).",
    "Average input queue: the time-weighted mean of an input port's VOQs together (its "
    "line card's backlog), averaged over the n ports; the per-VOQ mean over the n − 1 "
    "VOQs a port uses is that divided by n − 1 (tables show both). Per port because the "
    "paper compares it with one output queue of the same line card, and per-VOQ means "
    "shrink with n by construction.",
    "Average output queue: the time-weighted mean of each output queue, averaged over the "
    "n outputs.",
    "Utilisation: bits sent on the n output links (data and ACKs, headers included) over "
    "n·R·window: 'bits received per second' over the capacity.",
    "Loss rate: packets dropped in the switch (VOQs and outputs) over the packets sent "
    "into it (arrivals at its inputs) in the window.",
]


def network(
    n: int,
    speedup: float,
    aqm: str,
    sessions: int,
    nu: float | None = None,
    topology: str = "split",
    fabric: str = "links",
) -> dict:
    """The n×n switch at speedup s with ``aqm`` at every output and ``sessions`` TCP
    sessions (placeholders; :func:`draw_sessions` fills in each replication's).

    ``topology="split"`` (the paper's ns-2 model): sources src0..src(n-1) on the input side,
    sinks dst0..dst(n-1) on the output side, each on its own port of a 2n-port switch at
    speedup 2s, so that every used path (src i → dst j, and dst j → src i for the ACKs)
    runs at 2s·R/(2n) = s·R/n, the paper's internal link rate, n of them out of each input
    and into each output (aggregate s·R), and the ACKs cross their own paths and queues as
    on ns-2's duplex internal links. ``"linecard"``: n hosts, each source and sink on one
    port of an n-port switch at speedup s.

    ``fabric="crossbar"``: a crossbar at s·R scheduled by iSLIP (log2 of the ports
    iterations) instead of the links; with split ports its speedup is s itself, since
    sources only request sinks and sinks only sources: two independent n×n matchings."""
    size = SIZES[n]
    if aqm == "DropTail":
        out = sc.queue(limit_pkts=BUFFER - 1)
    elif aqm == "RED":
        out = sc.queue(limit_pkts=BUFFER, aqm=sc.red(**RED))
    else:
        v = size["nu"] if nu is None else nu
        out = sc.queue(limit_pkts=BUFFER, aqm={**red_as_run(), "type": "cioq_red", "nu": v})
    if topology == "split":
        hosts = [f"src{i}" for i in range(n)] + [f"dst{i}" for i in range(n)]
    elif topology == "linecard":
        hosts = [f"h{i}" for i in range(n)]
    else:
        raise ValueError(f"topology {topology!r}: expected 'split' or 'linecard'")
    if fabric == "links":
        fab = swb.links_fabric()
        fabric_s = 2 * speedup if topology == "split" else speedup
    elif fabric == "crossbar":
        iters = max(1, round(np.log2(len(hosts))))
        fab = swb.crossbar_fabric("islip", iterations=iters)
        fabric_s = speedup
    else:
        raise ValueError(f"fabric {fabric!r}: expected 'links' or 'crossbar'")
    nodes = [
        swb.switch("sw", speedup=fabric_s, input_queue=sc.queue(limit_pkts=BUFFER - 1), fabric=fab)
    ]
    nodes += [sc.host(h) for h in hosts]
    links = [
        sc.link(
            h,
            "sw",
            bandwidth=LINE,
            delay=LINK_DELAY,
            queue=sc.queue(limit_pkts=HOST_LIMIT - 1),
            reverse_queue=out,
        )
        for h in hosts
    ]
    flows = [
        sc.tcp(
            f"s{k}",
            hosts[0],
            hosts[-1],
            variant="reno",
            packet_size=PACKET + HEADER,
            max_window=WINDOW,
            start="0s",
            stop="1s",
            **TCP_NS226,
        )
        for k in range(sessions)
    ]
    return sc.scenario(
        profile=PROFILE,
        duration=f"{START_WINDOW_S:g}s",
        warmup=f"{size['dur'][1]:g}s",
        seed=1,
        sample_interval="10s",
        nodes=nodes,
        links=links,
        flows=flows,
    )


@functools.cache
def red_as_run() -> dict[str, Any]:
    """RED's every field as the engine runs it under the profile. The profile fills in
    ns-2's RED defaults (gentle, mean packet size, the qlen guard) for `red` only, so
    CIOQ-RED copies them: it must differ from RED by ν alone (ν = 0 is RED exactly)."""
    from aqmlab import canonical

    s = sc.scenario(
        profile=PROFILE,
        duration="1s",
        nodes=[sc.host("a"), sc.host("b")],
        links=[
            sc.link(
                "a",
                "b",
                bandwidth=LINE,
                delay=LINK_DELAY,
                queue=sc.queue(limit_pkts=BUFFER, aqm=sc.red(**RED)),
            )
        ],
    )
    return dict(canonical(s)["links"][0]["queue"]["aqm"])


def draw_sessions(s: dict) -> dict[str, str]:
    """One replication's sessions (the sweep's ``per_run``): source, sink, start and stop
    of every flow from a PCG64 stream of (seed, run)."""
    hosts = [x["name"] for x in s["nodes"] if x["type"] == "host"]
    split = hosts[0].startswith("src")
    n = len(hosts) // 2 if split else len(hosts)
    lo, hi = SIZES[n]["dur"]
    k = len(s["flows"])
    rng = run_rng(s)
    src = rng.integers(0, n, k)
    # Split: any of the n sinks; line cards: any host but the source.
    dst = rng.integers(0, n, k) if split else (src + 1 + rng.integers(0, n - 1, k)) % n
    src_names = [f"src{i}" if split else f"h{i}" for i in range(n)]
    dst_names = [f"dst{i}" if split else f"h{i}" for i in range(n)]
    start = rng.uniform(0.0, START_WINDOW_S, k)
    # Sessions still running at the end are cut there (the engine refuses a later stop).
    stop = np.minimum(start + rng.uniform(lo, hi, k), START_WINDOW_S)
    out: dict[str, str] = {}
    for i in range(k):
        out[f"flows[{i}].src"] = src_names[src[i]]
        out[f"flows[{i}].dst"] = dst_names[dst[i]]
        out[f"flows[{i}].start"] = f"{round(start[i] * 1e9)}ns"
        out[f"flows[{i}].stop"] = f"{round(stop[i] * 1e9)}ns"
    return out


def one_run(point: Point, run: int) -> dict[str, float]:
    """One replication of one configuration, as a sweep of :func:`run_points` runs it:
    its scenario with the drawn sessions, run, reduced to :func:`switch_metrics`."""
    import aqmlab

    s = network(*point[:5], topology=point[5], fabric=point[6])
    s["simulation"]["run"] = run
    for path, v in draw_sessions(s).items():
        i, field = path.removeprefix("flows[").split("].")
        s["flows"][int(i)][field] = v
    return switch_metrics(aqmlab.run(s))


def _variant(point: Point) -> dict[str, Any]:
    """A sweep variant: the configuration's whole scenario (its nodes, links and flows
    differ from every other's, and its warm-up with the switch's size)."""
    n = network(*point[:5], topology=point[5], fabric=point[6])
    return {k: n[k] for k in ("simulation", "nodes", "links", "flows")}


def run_points(ctx: Context, pts: dict[str, tuple[Point, int]]):
    """Every (configuration, replication) through the reproduction's sweeps (its results
    store, so an interrupted reproduction resumes), one sweep per replication count, each
    run reduced in its worker to :func:`switch_metrics` (``summary=False``: a run's summary
    with 6400 sessions has a column per flow metric, and those tables outgrew 24 GB of
    memory at quick size, 2026-11-26). The 16×16 configurations go first: they are the
    long ones, and the pool then ends with short ones."""
    if ctx.ns2_pass is not None:
        from aqmlab.reproduce_ns2 import NotRunnableInNs2

        raise NotRunnableInNs2("every configuration runs the CIOQ switch (ns-2.35 has none)")
    by_runs: dict[int, list[str]] = {}
    for lab in sorted(pts, key=lambda lab: -pts[lab][0][0]):
        by_runs.setdefault(pts[lab][1], []).append(lab)
    out: dict[str, list[dict[str, float]]] = {}
    for runs, labels in by_runs.items():
        variants = {lab: _variant(pts[lab][0]) for lab in labels}
        first = pts[labels[0]][0]
        res = ctx.sweep(
            network(*first[:5], topology=first[5], fabric=first[6]),
            variants=variants,
            runs=runs,
            per_run=draw_sessions,
            extra=switch_metrics,
            summary=False,
            timeseries=False,
            phase=f"{len(labels)} configurations × {runs} replications",
        )
        if len(res.runs) != len(labels) * runs:
            raise RuntimeError(f"{len(res.runs)} of {len(labels) * runs} runs finished:\n"
                               + res.failures.to_string())  # fmt: skip
        metrics = [c for c in res.runs.columns if c not in ("variant", "run")]
        for k, lab in enumerate(labels):
            block = res.runs.iloc[k * runs : (k + 1) * runs]
            out[lab] = [{m: float(row[m]) for m in metrics} for _, row in block.iterrows()]
    return {lab: out[lab] for lab in pts}


def switch_metrics(res) -> dict[str, float]:
    """Per run (the sweep's ``extra``, computed in the worker), over the data direction:
    the inputs the sources send into and the outputs toward the sinks (with line cards,
    every port is both and the ACKs are counted too). Mean input queue per port and per
    used VOQ, mean output queue, utilisation and loss rate of the switch, hosts' drops."""
    ports = res.tables["switch_ports"]
    q = res.queues.set_index("name")
    nb = ports["neighbour"].astype(str)
    split = nb.str.startswith("src").any()
    ins = ports[nb.str.startswith("src")] if split else ports
    outs = ports[nb.str.startswith("dst")] if split else ports
    outq = q.loc[list(outs["output_queue"])]
    n = len(ins)
    used = n if split else n - 1
    hosts = q.loc[[f"{h}->sw" for h in ins["neighbour"]]]
    drops = [c for c in q.columns if c.startswith("dropped_")]
    sent = float(ins["input_arrivals"].sum())
    in_dropped = float(ins["input_dropped"].sum())
    dropped = in_dropped + float(outq[drops].to_numpy().sum())
    in_port = float(ins["input_mean_queue_pkts"].mean())
    return {
        "in_q": in_port,
        "in_q_voq": in_port / used,
        "out_q": float(outq["mean_queue_pkts"].mean()),
        "util": float(outq["throughput_bps"].sum()) / (len(outs) * R_BPS),
        "loss": dropped / sent if sent else float("nan"),
        "in_loss": in_dropped / sent if sent else float("nan"),
        "host_drops": float(hosts[drops].to_numpy().sum()),
    }


METRICS = ["in_q", "in_q_voq", "out_q", "util", "loss", "in_loss", "host_drops"]


# (n, s, AQM, sessions, ν or None, topology, fabric)
Point = tuple[int, float, str, int, float | None, str, str]


def _label(
    n: int,
    aqm: str,
    s: float,
    sessions: int,
    nu: float | None = None,
    topology: str = "split",
    fabric: str = "links",
) -> str:
    tail = f" nu={nu:g}" if nu is not None else ""
    tail += " linecard" if topology == "linecard" else ""
    tail += " crossbar" if fabric == "crossbar" else ""
    return f"{n}x{n} {aqm} s={s:g} N={sessions}{tail}"


def _stats(rows: dict[str, list[dict[str, float]]]) -> dict[str, dict[str, tuple[float, float]]]:
    """(mean, ci95) of every metric per label over its replications."""
    from aqmlab.stats import mean_ci

    out = {}
    for label, reps in rows.items():
        out[label] = {m: mean_ci([r[m] for r in reps]) for m in METRICS}
    return out


def sessions(n: int, quick: bool) -> int:
    """Sessions of Fig. 2's (4's) points: the paper's, or QUICK_SESSIONS at quick size."""
    return QUICK_SESSIONS[n] if quick else SIZES[n]["sessions"]


def plan(quick: bool) -> dict[int, dict[str, Point]]:
    """Every configuration per switch size (label → Point), deduplicated: Fig. 3's (5's)
    last load is Fig. 2's (4's) point at its speedup; Figs. 2-5 on both fabrics."""
    out: dict[int, dict[str, Point]] = {}
    for n, size in SIZES.items():
        pts: dict[str, Point] = {}
        speedups = QUICK_SPEEDUPS[n] if quick else size["speedups"]
        loads = QUICK_LOADS[n] if quick else size["loads"]
        k0, s0 = sessions(n, quick), size["load_s"]
        for f in FABRICS:
            for aqm in AQMS:
                for s in speedups:
                    pts[_label(n, aqm, s, k0, None, "split", f)] = (n, s, aqm, k0, None, "split", f)
                for k in loads:
                    pts[_label(n, aqm, s0, k, None, "split", f)] = (n, s0, aqm, k, None, "split", f)
        out[n] = pts
    k4 = SIZES[4]["sessions"]
    for s in NU_SPEEDUPS[:1] if quick else NU_SPEEDUPS:
        for nu in QUICK_NU if quick else NU_SWEEP:
            out[4][_label(4, "CIOQ-RED", s, k4, nu)] = (4, s, "CIOQ-RED", k4, nu, "split", "links")
    for aqm in AQMS:
        for s in QUICK_LINECARD_SPEEDUPS if quick else LINECARD_SPEEDUPS:
            out[4][_label(4, aqm, s, k4, None, "linecard")] = (
                4,
                s,
                aqm,
                k4,
                None,
                "linecard",
                "links",
            )
    return out


def run(ctx: Context) -> list[Claim]:
    runs = RUNS_QUICK if ctx.quick else RUNS
    every = {lab: (p, runs[n]) for n, pts in plan(ctx.quick).items() for lab, p in pts.items()}
    st = _stats(run_points(ctx, every))
    ctx.notes.append(
        "Fabrics: `links` (the paper's model, Sec. V-A) and `crossbar` (iSLIP, log2(2n) "
        "iterations, packet mode, 64-byte cells; a real switch's fabric)."
    )
    figs = {}
    for f in FABRICS:
        for n, size in SIZES.items():
            speedups = QUICK_SPEEDUPS[n] if ctx.quick else size["speedups"]
            loads = QUICK_LOADS[n] if ctx.quick else size["loads"]
            k0, s0 = sessions(n, ctx.quick), size["load_s"]
            by_s = {a: [st[_label(n, a, s, k0, None, "split", f)] for s in speedups] for a in AQMS}
            by_k = {a: [st[_label(n, a, s0, k, None, "split", f)] for k in loads] for a in AQMS}
            figs[f"fig{n}x{n}" if f == "links" else f"crossbar {n}x{n}"] = (
                speedups,
                by_s,
                loads,
                by_k,
            )
            _table_speedup(ctx, n, speedups, by_s, runs[n], fabric=f)
            _table_load(ctx, n, loads, by_k, runs[n], fabric=f)
            _plot_speedup(ctx, n, speedups, by_s, fabric=f)
            _plot_load(ctx, n, loads, by_k, fabric=f)
    k4 = SIZES[4]["sessions"]
    nus = QUICK_NU if ctx.quick else NU_SWEEP
    nu_s = NU_SPEEDUPS[:1] if ctx.quick else NU_SPEEDUPS
    nu_rows = {s: [st[_label(4, "CIOQ-RED", s, k4, nu)] for nu in nus] for s in nu_s}
    red_ref = {s: st[_label(4, "RED", s, k4)] for s in nu_s}
    _table_nu(ctx, nus, nu_rows, red_ref, runs[4])
    _plot_nu(ctx, nus, nu_rows, red_ref)
    lc_s = QUICK_LINECARD_SPEEDUPS if ctx.quick else LINECARD_SPEEDUPS
    lc = {a: [st[_label(4, a, s, k4, None, "linecard")] for s in lc_s] for a in AQMS}
    _table_speedup(ctx, 4, lc_s, lc, runs[4], linecard=True)
    _table_input_share(ctx, figs)
    ctx.notes.append("Choices where the paper is silent:\n" + "\n".join(f"- {c}" for c in CHOICES))
    return claims(figs, nus, nu_rows)


def _cell(v: tuple[float, float]) -> str:
    m, c = v
    return fmt(m) if np.isnan(c) else f"{fmt(m)} ± {fmt(c)}"


def _table_speedup(
    ctx: Context, n: int, speedups, by_s, runs: int, linecard=False, fabric="links"
) -> None:
    f = SIZES[n]["fig"][0]
    on = " on the crossbar" if fabric == "crossbar" else ""
    head = (
        f"Line cards instead (host i source and sink on port i; not the paper's model): "
        f"Fig. {f}'s points at a few speedups"
        if linecard
        else f"Fig. {f}{on}"
    )
    lines = [
        f"{head} ({n}×{n}, {sessions(n, ctx.quick)} sessions): mean input queue per port "
        f"(per VOQ) and mean output queue, packets (mean ± 95% CI over {runs} "
        "replications).",
        "",
        "| s | " + " | ".join(f"{a} input (per VOQ) | {a} output" for a in AQMS) + " |",
        "|---|" + "---|" * (2 * len(AQMS)),
    ]
    for i, s in enumerate(speedups):
        cells = []
        for a in AQMS:
            r = by_s[a][i]
            cells += [f"{_cell(r['in_q'])} ({fmt(r['in_q_voq'][0])})", _cell(r["out_q"])]
        lines.append(f"| {fmt(s)} | " + " | ".join(cells) + " |")
    ctx.notes.append("\n".join(lines))


def _table_input_share(ctx: Context, figs) -> None:
    """Claim 1's mechanism, measured: CIOQ-RED's measure is RED's plus ν·q_input(j). The mean
    of q_input(j) over the outputs equals the mean input queue per port (both are the whole
    input backlog over n), so ν·I_C is exactly what the modification adds on average; the
    output queue falls by O_R − O_C for it."""
    lines = [
        "Claim 1's mechanism (CIOQ-RED's measure is ν·q_input(j) + q_output(j); the mean of "
        "q_input(j) over the outputs is the mean input queue per port I_C, so ν·I_C is what "
        "the modification adds to RED's measure on average). 'per packet': how much the "
        "output queue fell per packet of ν·I_C; 'ν·I needed': what halving RED's output "
        "queue would take at that rate; 'I needed': the input backlog per port that gives it.",
        "",
        "| figure | s | I_C | ν·I_C | O_R | O_C | O_C / O_R | O_R − O_C | per packet "
        "| ν·I needed | I needed |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    short: list[str] = []
    for key, (speedups, by_s, _, _) in figs.items():
        nu = SIZES[int(key.split("x")[-1])]["nu"]
        for i, s in enumerate(speedups):
            if s > 1.5 + 1e-9:
                continue
            i_c = by_s["CIOQ-RED"][i]["in_q"][0]
            o_r, o_c = by_s["RED"][i]["out_q"][0], by_s["CIOQ-RED"][i]["out_q"][0]
            per = (o_r - o_c) / (nu * i_c) if i_c > 0 else float("nan")
            need = 0.5 * o_r / per if per > 0 else float("inf")
            if o_c > 0.5 * o_r:
                short.append(f"{key} s = {fmt(s)}: I_C {fmt(i_c)} of {fmt(need / nu)}")
            lines.append(
                f"| {key} | {fmt(s)} | {fmt(i_c)} | {fmt(nu * i_c)} | {fmt(o_r)} | {fmt(o_c)} "
                f"| {fmt(o_c / o_r)} | {fmt(o_r - o_c)} | {fmt(per)} | {fmt(need)} "
                f"| {fmt(need / nu)} |"
            )
    if short:
        lines += [
            "",
            "Where CIOQ-RED's output queue is more than half of RED's, the inputs held less "
            "backlog than halving takes at the measured rate (" + "; ".join(short) + "): the "
            "input queues drain as the speedup grows (Figs. 2 and 4), and the term CIOQ-RED "
            "adds to RED's measure drains with them; the crossbar, where any VOQ may use the "
            "whole fabric rate, drains them at a lower speedup than the paper's model.",
        ]
    ctx.notes.append("\n".join(lines))


def _table_load(ctx: Context, n: int, loads, by_k, runs: int, fabric="links") -> None:
    f, s = SIZES[n]["fig"][1], SIZES[n]["load_s"]
    on = " on the crossbar" if fabric == "crossbar" else ""
    lines = [
        f"Fig. {f}{on} ({n}×{n}, s = {fmt(s)}): utilisation and loss rate (of which at the "
        f"VOQs) vs sessions (mean ± 95% CI over {runs} replications); host queue drops per "
        "run in the last column group.",
        "",
        "| sessions | "
        + " | ".join(f"{a} util | {a} loss (VOQ) | {a} host drops" for a in AQMS)
        + " |",
        "|---|" + "---|" * (3 * len(AQMS)),
    ]
    for i, k in enumerate(loads):
        cells = []
        for a in AQMS:
            r = by_k[a][i]
            cells += [
                _cell(r["util"]),
                f"{_cell(r['loss'])} ({fmt(r['in_loss'][0])})",
                fmt(r["host_drops"][0]),
            ]
        lines.append(f"| {k} | " + " | ".join(cells) + " |")
    ctx.notes.append("\n".join(lines))


def _table_nu(ctx: Context, nus, rows, red_ref, runs: int) -> None:
    lines = [
        "Beyond the paper, the ν sweep (its 'future work'): 4×4, 800 sessions, CIOQ-RED with "
        f"ν varied (mean ± 95% CI over {runs} replications); RED for reference.",
        "",
        "| s | ν | input per port | output queue | backlog (in + out) | loss | util |",
        "|---|---|---|---|---|---|---|",
    ]
    for s, row in rows.items():
        for nu, r in [*zip(nus, row, strict=True), ("RED", red_ref[s])]:
            back = r["in_q"][0] + r["out_q"][0]
            lines.append(
                f"| {fmt(s)} | {nu if isinstance(nu, str) else fmt(nu)} | {_cell(r['in_q'])} "
                f"| {_cell(r['out_q'])} | {fmt(back)} | {_cell(r['loss'])} "
                f"| {_cell(r['util'])} |"
            )
    ctx.notes.append("\n".join(lines))


def _err(ax, x, rows, key, **kw):
    m = [r[key][0] for r in rows]
    c = [0.0 if np.isnan(r[key][1]) else r[key][1] for r in rows]
    ax.errorbar(x, m, yerr=c, capsize=2, marker="o", markersize=3, **kw)


def _plot_speedup(ctx: Context, n: int, speedups, by_s, fabric="links") -> None:
    f = SIZES[n]["fig"][0]
    tag, on = ("_crossbar", ", crossbar (iSLIP)") if fabric == "crossbar" else ("", "")
    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    for k, a in enumerate(AQMS):
        _err(axes[0], speedups, by_s[a], "in_q", color=f"C{k}", label=a)
        _err(axes[1], speedups, by_s[a], "out_q", color=f"C{k}", label=a)
    axes[0].set_ylabel("mean input queue per port (packets)")
    axes[1].set_ylabel("mean output queue (packets)")
    for ax in axes:
        ax.set_xlabel("speedup s")
        ax.legend(fontsize=8)
    fig.suptitle(f"Fig. {f}: {n}×{n}, {sessions(n, ctx.quick)} TCP sessions{on}", fontsize=10)
    fig.tight_layout()
    p = ctx.out / f"fig{f}{tag}.png"
    fig.savefig(p, dpi=110)
    plt.close(fig)
    ctx.figure(
        f"Fig. {f}: mean input (per port) and output queue vs speedup, {n}×{n}{on}, mean "
        "and 95% CI",
        p,
    )


def _plot_load(ctx: Context, n: int, loads, by_k, fabric="links") -> None:
    f = SIZES[n]["fig"][1]
    tag, on = ("_crossbar", ", crossbar (iSLIP)") if fabric == "crossbar" else ("", "")
    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    for k, a in enumerate(AQMS):
        _err(axes[0], loads, by_k[a], "util", color=f"C{k}", label=a)
        _err(axes[1], loads, by_k[a], "loss", color=f"C{k}", label=a)
    axes[0].set_ylabel("utilisation")
    axes[1].set_ylabel("loss rate")
    for ax in axes:
        ax.set_xlabel("TCP sessions")
        ax.legend(fontsize=8)
    fig.suptitle(f"Fig. {f}: {n}×{n}, s = {fmt(SIZES[n]['load_s'])}{on}", fontsize=10)
    fig.tight_layout()
    p = ctx.out / f"fig{f}{tag}.png"
    fig.savefig(p, dpi=110)
    plt.close(fig)
    ctx.figure(f"Fig. {f}: utilisation and loss rate vs sessions, {n}×{n}{on}, mean and 95% CI", p)


def _plot_nu(ctx: Context, nus, rows, red_ref) -> None:
    fig, ax = plt.subplots(figsize=(6, 4.5))
    for k, (s, row) in enumerate(rows.items()):
        x = [r["loss"][0] for r in row]
        y = [r["in_q"][0] + r["out_q"][0] for r in row]
        ax.plot(x, y, marker="o", color=f"C{k}", label=f"CIOQ-RED, s = {fmt(s)}")
        for nu, xi, yi in zip(nus, x, y, strict=True):
            ax.annotate(
                f"ν={fmt(nu)}", (xi, yi), fontsize=7, xytext=(3, 3), textcoords="offset points"
            )
        r = red_ref[s]
        ax.plot(
            r["loss"][0],
            r["in_q"][0] + r["out_q"][0],
            marker="x",
            color=f"C{k}",
            ms=9,
            linestyle="none",
            label=f"RED, s = {fmt(s)}",
        )
    ax.set_xlabel("loss rate")
    ax.set_ylabel("mean backlog per port, input + output (packets)")
    ax.legend(fontsize=8)
    ax.set_title("ν sweep, 4×4, 800 sessions", fontsize=10)
    fig.tight_layout()
    p = ctx.out / "nu_sweep.png"
    fig.savefig(p, dpi=110)
    plt.close(fig)
    ctx.figure("Beyond the paper: backlog vs loss as ν varies (4×4, 800 sessions)", p)


EXPERIMENT = Experiment(
    name="cioq",
    title="CIOQ-RED: RED on input plus output backlog in a CIOQ switch",
    source=(
        'J. K. Sundararajan, F. Zhao, P. Youssef-Massaad, M. Médard, "A Modification to '
        'RED AQM for CIOQ Switches", MIT LIDS (ns-2, about 2004), Section V, Figs. 2-5'
    ),
    run=run,
    declared=CLAIMS,
    description=__doc__ or "",
)

__all__ = ["EXPERIMENT", "draw_sessions", "network", "plan", "switch_metrics"]
