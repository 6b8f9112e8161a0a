"""Scenarios whose TCP flows use a controller this aqmlab build does not accept yet.

The ns-3 translation knows DCTCP and BBR (docs/ns3.md, "Congestion controllers") before
aqmlab's engine runs them. ``canonical(scenario)`` gives such a scenario's canonical form:
aqmlab canonicalises it with Reno in the pending controller's place (every other field,
the start times' draws, the profile, as it will once the controller lands), then each
flow's ``congestion`` table is put back as the file writes it, with every field given
(the translation refuses a missing one). ``run(scenario)`` runs that form in ns-3.44.
A controller the build accepts is canonicalised by aqmlab itself.
"""

from __future__ import annotations

import copy
import re
from typing import Any

import aqmlab
from aqmlab import _core
from aqmlab.ns3.run import Ns3Results, run_spec
from aqmlab.ns3.translate import translate
from aqmlab.scenario import ScenarioLike, load

#: The TCP fields of the controllers not built yet, with what stands in for each meanwhile.
FIELDS = {"congestion": {"type": "reno"}, "pacing": None}


def accepts(fields: dict[str, Any]) -> bool:
    """Whether this aqmlab build accepts these TCP flow fields (``congestion``,
    ``pacing``), validated on a two-host scenario."""
    nodes = [{"name": "a", "type": "host"}, {"name": "b", "type": "host"}]
    link = {"a": "a", "b": "b", "bandwidth": "10Mbps", "delay": "1ms"}
    flow = {"name": "f", "type": "tcp", "src": "a", "dst": "b", "packet_size": 1000}
    s = {
        "schema_version": 1,
        "simulation": {"duration": "1s"},
        "nodes": nodes,
        "links": [link | {"queue": {"limit_pkts": 10}}],
        "flows": [flow | copy.deepcopy(fields) | {"ecn": True}],
    }
    try:
        aqmlab.validate(s)
    except _core.ScenarioError as e:
        if any(key in str(e) for key in FIELDS):
            return False
        raise
    return True


def unaccepted(scenario: dict[str, Any]) -> list[dict[str, Any]]:
    """The ``congestion`` / ``pacing`` fields of the scenario's TCP flow templates that this
    build does not accept (empty: aqmlab runs the scenario's controllers)."""
    flows = scenario.get("flows", []) + [
        f for r in scenario.get("repeat", []) for f in r.get("flows", [])
    ]
    out = []
    for f in flows:
        fields = {k: f[k] for k in FIELDS if k in f}
        if fields and fields not in out and not accepts(fields):
            out.append(fields)
    return out


def canonical(scenario: ScenarioLike) -> dict[str, Any]:
    """The canonical form of ``scenario`` (a file or a dict), pending controllers kept."""
    s = copy.deepcopy(load(scenario) if not isinstance(scenario, dict) else scenario)
    held: list[tuple[re.Pattern[str], dict[str, Any]]] = []
    templates = [(f, False) for f in s.get("flows", [])]
    templates += [(f, True) for r in s.get("repeat", []) for f in r.get("flows", [])]
    for f, repeated in templates:
        fields = {k: f[k] for k in FIELDS if k in f}
        if not fields or accepts(fields):
            continue
        name = re.escape(f["name"])
        if repeated:
            name = re.sub(r"\\\{[^}]*\\\}", r"\\d+", name)
        held.append((re.compile(f"{name}$"), fields))
        for key, stand_in in FIELDS.items():
            f.pop(key, None)
            if stand_in is not None:
                f[key] = copy.deepcopy(stand_in)
    c = aqmlab.canonical(s)
    for f in c.get("flows", []):
        for pattern, fields in held:
            if pattern.match(f["name"]):
                f.update(copy.deepcopy(fields))
                break
    return c


def run(scenario: ScenarioLike, *, cache: Any = None) -> Ns3Results:
    """``scenario`` in ns-3.44, pending controllers and all (``aqmlab.ns3.run``'s tables)."""
    return run_spec(translate(canonical(scenario)), cache=cache)


__all__ = ["FIELDS", "accepts", "canonical", "run", "unaccepted"]
