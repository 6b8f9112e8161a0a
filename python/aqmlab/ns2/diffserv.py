"""DiffServ in ns-2.35: aqmlab's edge conditioners and RIO queues as ns-2's dsRED module
(`Queue/dsRED/edge`, `Queue/dsRED/core`; docs/ns2.md, "DiffServ").

aqmlab conditions a packet on its arrival at a router; ns-2 marks it as it enters the
`Queue/dsRED/edge` of the router's outgoing link. The two are the same where every packet a
conditioner colours leaves by one link, which becomes the edge queue, and every other
packet through that queue passes uncoloured. ns-2 keys its meters by (source node,
destination node), with -1 for any, and keeps one meter per entry: a class is translated
when its packets are those of one such entry. Colours travel as ns-2 codepoints (green 10,
yellow 11, red 12; 0 for a packet no conditioner coloured), and every dsRED queue maps them
to aqmlab's levels (RIO's table in docs/aqm/rio.md). Anything else is refused with the
reason, never approximated.
"""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass, field
from typing import Any

from aqmlab.ns2.units import bps, nbytes, seconds

CODEPOINT = {"green": 10, "yellow": 11, "red": 12}
MRED_MODE = {"rio_c": "RIO-C", "rio_d": "RIO-D", "wred": "WRED"}
# aqmlab's colour → level for 1, 2 and 3 levels (docs/aqm/rio.md), per codepoint 0, 10-12.
LEVELS = {1: (0, 0, 0, 0), 2: (0, 0, 1, 1), 3: (0, 0, 1, 2)}
ANY = -1


@dataclass
class Edge:
    """A link direction whose queue becomes `Queue/dsRED/edge`: its policy table (in
    lookup order) and policer table."""

    path: str
    entries: list[tuple[int, int, str]] = field(default_factory=list)
    policers: list[str] = field(default_factory=list)


def _meter(meter: dict[str, Any], path: str, refuse) -> tuple[str, str] | None:
    """(policy entry after the node ids, policer entry) of one class's meter."""
    kind = meter["type"]
    g, y, r = CODEPOINT["green"], CODEPOINT["yellow"], CODEPOINT["red"]
    cir = bps(meter["cir"]) if "cir" in meter else 0
    if kind == "token_bucket":
        return f"TokenBucket {g} {cir} {nbytes(meter['cbs'])}", f"TokenBucket {g} {r}"
    if kind == "tsw2cm":
        win = seconds(meter.get("window", "1s"))
        return f"TSW2CM {g} {cir} {win!r}", f"TSW2CM {g} {r}"
    if kind == "tswtcm":
        if seconds(meter.get("window", "1s")) != 1.0:
            refuse(f"{path}.window", "other than 1 s (ns-2's TSW3CM window is fixed at 1 s)")
        return f"TSW3CM {g} {cir} {bps(meter['pir'])}", f"TSW3CM {g} {y} {r}"
    if kind in ("srtcm", "trtcm"):
        if meter.get("colour_aware", False):
            refuse(f"{path}.colour_aware", "true (ns-2's srTCM and trTCM are colour-blind)")
        if kind == "srtcm":
            sizes = f"{nbytes(meter['cbs'])} {nbytes(meter['ebs'])}"
            return f"srTCM {g} {cir} {sizes}", f"srTCM {g} {y} {r}"
        rates = f"{cir} {nbytes(meter['cbs'])} {bps(meter['pir'])} {nbytes(meter['pbs'])}"
        return f"trTCM {g} {rates}", f"trTCM {g} {y} {r}"
    if kind == "fixed":
        cp = CODEPOINT[meter["colour"]]
        return f"Dumb {cp}", f"Dumb {cp}"
    refuse(f"{path}.type", f"meter {kind!r} (not translated)")
    return None


def _streams(w) -> list[tuple[str, str, list[str], int, bool]]:
    """Every packet stream of the scenario: each flow's data (src → dst) and, for TCP, its
    ACKs (dst → src), with the nodes it passes (aqmlab's routes), the flow and whether it
    is the data."""
    out = []
    tables: dict[str, dict[str, str]] = {}
    for i, f in enumerate(w.c.get("flows", [])):
        pairs = [(f["src"], f["dst"], True)]
        if f["type"] == "tcp":
            pairs.append((f["dst"], f["src"], False))
        for s, d, data in pairs:
            nxt = tables.setdefault(d, w.next_hops(d))
            path, u = [s], s
            while u != d:
                u = nxt[u]
                path.append(u)
            out.append((s, d, path, i, data))
    return out


def flow_last_hops(w) -> list[tuple[str, str]]:
    """Each flow's last link direction (its data's)."""
    return [(p[-2], p[-1]) for _, _, p, _i, data in _streams(w) if data]


def last_hops(w) -> set[tuple[str, str]]:
    """The link directions where a TCP flow's data reaches its destination."""
    return {
        (p[-2], p[-1])
        for _, _, p, i, data in _streams(w)
        if data and w.c["flows"][i]["type"] == "tcp"
    }


def _class_of(cond: dict[str, Any], s: str, d: str) -> str | None:
    for e in cond.get("policy", []):
        if fnmatch.fnmatchcase(s, e.get("src", "*")) and fnmatch.fnmatchcase(d, e.get("dst", "*")):
            return e["class"]
    return None


def plan(w) -> tuple[dict[tuple[str, str], Edge], list[dict[str, Any]]]:
    """The edge queues the scenario's conditioners become, by link direction (from, to),
    and the aggregates they meter (aqmlab's `aggregates` rows: name, flows, CIR); each
    part ns-2 cannot run exactly is refused on ``w``."""
    streams = _streams(w)
    edges: dict[tuple[str, str], Edge] = {}
    aggregates: list[dict[str, Any]] = []
    coloured: dict[int, str] = {}  # stream → the conditioner that coloured it
    for node, k, cond in w.conditioners:
        cpath = f"nodes[{w.node_id[node]}].conditioners[{k}]"
        for key in sorted(set(cond) - {"input", "classes", "policy", "capacity"}):
            w.refuse(f"{cpath}.{key}", "not translated (ns-2's policy table has no such entry)")
        for j, c in enumerate(cond["classes"]):
            if "precedence" in c:
                w.refuse(f"{cpath}.classes[{j}].precedence", "not translated (no queue reads it)")
        hits: dict[str, list[int]] = {}
        outs: set[tuple[str, str]] = set()
        for i, (s, d, path, _f, _data) in enumerate(streams):
            for h in range(1, len(path) - 1):
                here = path[h] == node and cond.get("input", path[h - 1]) == path[h - 1]
                cls = _class_of(cond, s, d) if here else None
                if cls is None:
                    continue
                if i in coloured:
                    w.refuse(cpath, f"colours {s} → {d} again after {coloured[i]} (not translated)")
                coloured[i] = cpath
                hits.setdefault(cls, []).append(i)
                outs.add((node, path[h + 1]))
        if not hits:
            continue
        if len(outs) > 1:
            links = ", ".join(f"{a}->{b}" for a, b in sorted(outs))
            w.refuse(cpath, f"its packets leave by {links}: ns-2 marks in one edge queue")
            continue
        out = outs.pop()
        if out in edges:
            w.refuse(cpath, f"a second conditioner marking into {out[0]}->{out[1]}")
            continue
        edges[out] = _edge(w, cpath, cond, hits, streams, out)
        where = f"{node}[{cond['input']}]" if "input" in cond else node
        for c in cond["classes"]:
            flows = sorted({streams[i][3] for i in hits.get(c["name"], []) if streams[i][4]})
            cir = bps(c["meter"]["cir"]) if "cir" in c["meter"] else float("nan")
            aggregates.append({"name": f"{where}/{c['name']}", "flows": flows, "cir": cir})
    return edges, aggregates


def _key(w, streams, idx: list[int]) -> tuple[int, int] | None:
    """ns-2's (source, destination) entry that holds exactly these streams' packets."""
    pairs = {(streams[i][0], streams[i][1]) for i in idx}
    srcs, dsts = {s for s, _ in pairs}, {d for _, d in pairs}
    nid = w.node_id
    if len(pairs) == 1:
        s, d = pairs.pop()
        return nid[s], nid[d]
    if len(srcs) == 1:
        return nid[srcs.pop()], ANY
    if len(dsts) == 1:
        return ANY, nid[dsts.pop()]
    return None


def _edge(w, cpath, cond, hits, streams, out) -> Edge:
    e = Edge(cpath)
    classes = {c["name"]: (j, c) for j, c in enumerate(cond["classes"])}
    keys: dict[tuple[int, int], str] = {}
    for cls, idx in hits.items():
        j, c = classes[cls]
        key = _key(w, streams, idx)
        if key is None:
            w.refuse(
                f"{cpath}.classes[{j}]",
                f"class {cls!r} meters several sources' and destinations' packets together; "
                "ns-2 keeps one meter per (source, destination) entry",
            )
            continue
        m = _meter(c["meter"], f"{cpath}.classes[{j}].meter", w.refuse)
        if m is None:
            continue
        keys[key] = cls
        e.entries.append((*key, m[0]))
        if m[1] not in e.policers:
            e.policers.append(m[1])
    # Every other packet through the queue passes uncoloured (codepoint 0, green).
    e.entries.append((ANY, ANY, "Dumb 0"))
    e.policers.append("Dumb 0")
    # ns-2 takes the first entry that matches: it must pick aqmlab's class for every
    # stream through the queue.
    mine = {i: cls for cls, idx in hits.items() for i in idx}
    nid = w.node_id
    for i, (s, d, path, _f, _data) in enumerate(streams):
        if not any(path[h : h + 2] == list(out) for h in range(len(path) - 1)):
            continue
        first = next(
            (cls for (a, b), cls in keys.items() if a in (ANY, nid[s]) and b in (ANY, nid[d])),
            None,
        )
        if first != mine.get(i):
            w.refuse(cpath, f"ns-2's entry for {s} → {d} would meter it as {first!r}")
    return e


def queue_lines(w, k: int, q: dict[str, Any], qpath: str, edge: Edge | None, link: str):
    """The dsRED commands of queue k: aqmlab's `rio` (or, at an edge, `droptail`)."""
    aqm = dict(q["aqm"])
    lines = [f"$q({k}) set numQueues_ 1", f"$q({k}) link [{link} link]"]
    if aqm["type"] == "droptail":
        # One precedence, DROP mode: its threshold is the buffer (drop at qlen ≥ limit).
        levels = [{"min_th": q["limit_pkts"], "max_th": q["limit_pkts"], "max_p": 1.0}]
        lines += [f"$q({k}) setNumPrec 1", f"$q({k}) setMREDMode DROP", f"$q({k}) set ecn_ 0"]
        w_q, mps = 0.002, 1000
    else:
        levels, w_q, mps = _rio(w, aqm, f"{qpath}.aqm")
        mode = MRED_MODE[aqm["mode"]]
        ecn = "1" if aqm["ecn"] else "0"
        lines += [f"$q({k}) setNumPrec {len(levels)}", f"$q({k}) setMREDMode {mode}"]
        lines.append(f"$q({k}) set ecn_ {ecn}")
    lines.append(f"$q({k}) meanPktSize {mps}")
    for j, lv in enumerate(levels):
        w_j = lv.get("w_q", w_q)
        lines.append(
            f"$q({k}) configQ 0 {j} {lv['min_th']:g} {lv['max_th']:g} {lv['max_p']!r} {w_j!r}"
        )
    for cp, level in zip((0, 10, 11, 12), LEVELS[len(levels)], strict=True):
        lines.append(f"$q({k}) addPHBEntry {cp} 0 {level}")
    if edge is not None:
        for s, d, entry in edge.entries:
            lines.append(f"$q({k}) addPolicyEntry {s} {d} {entry}")
        for p in edge.policers:
            lines.append(f"$q({k}) addPolicerEntry {p}")
    return lines


def _rio(w, aqm: dict[str, Any], p: str):
    """aqmlab's rio as dsredq.cc runs it, or refusals for what it does not."""
    fixed = {
        "count_rule": ("dsred", "ns-2's dsRED spaces drops by its own count rule ('dsred')"),
        "idle_start": ("departure", "ns-2's dsRED starts an idle period at a departure"),
        "gentle": (False, "ns-2's dsRED has no gentle ramp"),
        "byte_mode": (False, "ns-2's dsRED counts packets"),
        "ns2_qlen_guard": (False, "ns-2's dsRED has no queue-length guard"),
        "total_avg_on_in_only": (False, "a bug of Queue/RED/RIO, not of dsRED"),
    }
    for key, (want, why) in fixed.items():
        if aqm.get(key, want) != want:
            w.refuse(f"{p}.{key}", f"{aqm[key]!r} ({why})")
    if aqm["ecn"] and not aqm.get("mark_above_max_th", True):
        w.refuse(f"{p}.mark_above_max_th", "false with ecn (ns-2's dsRED marks above max_th)")
    w_q = aqm["w_q"]
    if w_q == "auto":
        w.refuse(f"{p}.w_q", "'auto' (ns-2's dsRED takes a weight)")
        w_q = 0.002
    levels = aqm["levels"]
    own = {lv["w_q"] for lv in levels if "w_q" in lv}
    if aqm["mode"] == "rio_c" and own and own != {w_q}:
        w.refuse(
            f"{p}.levels",
            "weights of their own in rio_c (ns-2 adds Σ_{j≤k} w_j·q_j, aqmlab w_k·b_k)",
        )
    for key in set(aqm) - {*fixed, "type", "mode", "w_q", "ecn", "levels", "mean_pktsize",
                           "mark_above_max_th"}:  # fmt: skip
        w.refuse(f"{p}.{key}", "a field the ns-2 translation does not know")
    return levels, w_q, nbytes(aqm["mean_pktsize"])
