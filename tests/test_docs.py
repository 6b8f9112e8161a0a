"""The documentation is checked against the code, so that it cannot drift.

- docs/scenarios.md against the engine's schema: the engine itself says which fields each
  table has (serde's unknown-field error lists them; the validator lists each flow type's
  fields), which types exist (a bad ``type`` lists them), what the defaults are (the
  canonical echo), which fields are required and which strings are allowed.
- docs/architecture.md names only files that exist, and every module of the engine and of
  the Python package.
- The relative links of README.md and docs/ resolve.
- README.md: its code blocks run as pasted, its timings are the ones BENCHMARKS.md records.
"""

from __future__ import annotations

import copy
import re
import shlex
import shutil
import subprocess
import sys
import time
import tomllib
from pathlib import Path
from typing import Any

import pytest
import tomli_w

from aqmlab import _core
from aqmlab.results import Results

from common import dumbbell

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
SCENARIOS_MD = DOCS / "scenarios.md"
ARCHITECTURE_MD = DOCS / "architecture.md"
README_MD = ROOT / "README.md"
BENCHMARKS_MD = ROOT / "BENCHMARKS.md"


# ------------------------------------------------------------------------------------------
# Markdown helpers
# ------------------------------------------------------------------------------------------


def _without_code(text: str) -> list[str]:
    """The lines outside fenced code blocks (a `# comment` in a TOML block is no heading)."""
    out, fenced = [], False
    for line in text.splitlines():
        if line.lstrip().startswith("```"):  # a fence may be indented in a list item
            fenced = not fenced
            continue
        out.append("" if fenced else line)
    return out


def _sections(text: str) -> list[tuple[int, str, str]]:
    """(level, title, body) of every ``##`` and ``###`` heading; a body ends at the next
    heading of level 2 or 3."""
    out: list[tuple[int, str, list[str]]] = []
    for line in _without_code(text):
        m = re.match(r"^(#{2,3}) (.+)$", line)
        if m:
            out.append((len(m.group(1)), m.group(2).strip(), []))
        elif out:
            out[-1][2].append(line)
    return [(lvl, title, "\n".join(body)) for lvl, title, body in out]


def _table(body: str, first: str) -> list[dict[str, str]] | None:
    """The first Markdown table in ``body`` whose header starts with ``first``, as rows of
    {column: cell}; None if there is none."""
    lines = body.splitlines()
    for i, line in enumerate(lines):
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("|") and cells[0] == first:
            rows = []
            for row in lines[i + 2 :]:
                if not row.startswith("|"):
                    break
                vals = [c.strip() for c in row.strip().strip("|").split("|")]
                assert len(vals) == len(cells), f"table row has {len(vals)} cells: {row}"
                rows.append(dict(zip(cells, vals, strict=True)))
            return rows
    return None


def _ticked(cell: str) -> list[str]:
    return re.findall(r"`([^`]+)`", cell)


# ------------------------------------------------------------------------------------------
# What the engine says
# ------------------------------------------------------------------------------------------


def _canonical(s: dict) -> dict:
    return tomllib.loads(_core.canonical(tomli_w.dumps(s)))


def _errors(s: dict) -> list[tuple[str, str, str]]:
    """Every (path, value, message) the engine reports for ``s``; [] if it is valid."""
    try:
        _core.canonical(tomli_w.dumps(s))
    except _core.ScenarioError as e:
        return list(e.errors)
    return []


def _network() -> dict:
    """h0 - r0 - r1 - h1; links[1] is the bottleneck."""
    return dumbbell(
        [],
        hosts=("h0", "h1"),
        receivers=("h1",),
        left_to_right=True,
        queue={"limit_pkts": 50},
        duration="10s",
    )


FLOW = {"name": "f", "src": "h0", "dst": "h1", "packet_size": 1000}
# The fields each table needs to be valid: the smallest table of each section.
FLOW_REQUIRED = {
    "cbr": {"rate": "1Mbps"},
    "poisson": {"rate": "1Mbps"},
    "onoff": {"rate": "1Mbps", "on_time": "100ms", "off_time": "100ms"},
    "tcp": {},
    "probe": {},
}
AQM_REQUIRED = {
    "red": {"min_th": 5, "max_th": 15},
    "bio": {"levels": [{"max_th": 5}]},
    "cioq_red": {"nu": 0.5, "min_th": 5, "max_th": 15},
    "classful": {"scheduler": {"type": "strict_priority"}, "classes": [{}]},
}
LOSS_REQUIRED = {
    "bernoulli": {"p": 0.01},
    "gilbert_elliott": {"p_gb": 0.01, "p_bg": 0.5},
    "scripted": {},
}
TABLE_PATHS = {
    "scenario": (),
    "simulation": ("simulation",),
    "node": ("nodes", 0),
    "link": ("links", 0),
    "queue": ("links", 1, "queue"),
    "aqm": ("links", 1, "queue", "aqm"),
    "loss": ("links", 1, "loss"),
    "flow": ("flows", 0),
    "repeat": ("repeat", 0),
    "capture": ("captures", 0),
    "congestion": ("flows", 0, "congestion"),
}


def _get(s: Any, path: tuple) -> Any:
    for step in path:
        s = s[step]
    return s


def _put(s: dict, path: tuple, table: dict) -> dict:
    if not path:
        return copy.deepcopy(table)
    s = copy.deepcopy(s)
    parent = _get(s, path[:-1])
    if isinstance(parent, list) and path[-1] == len(parent):
        parent.append(table)
    else:
        parent[path[-1]] = table
    return s


def _minimal(key: str) -> dict:
    """The smallest valid table of a section key ("link", "aqm/red", "flow/tcp", ...)."""
    group, _, tag = key.partition("/")
    if key == "scenario":
        return {
            "schema_version": 1,
            "simulation": {"duration": "10s"},
            "nodes": [{"name": "h0", "type": "host"}],
        }
    if key == "simulation":
        return {"duration": "10s"}
    if key == "node":
        return {"name": "h0", "type": "host"}
    if key == "link":
        return {
            "a": "h0",
            "b": "r0",
            "bandwidth": "1Mbps",
            "delay": "1ms",
            "queue": {"limit_pkts": 10},
        }
    if key == "queue":
        return {"limit_pkts": 10}
    if key == "repeat":
        return {"count": 1}
    if key == "capture":
        return {"link": "h0->r0"}
    if group == "aqm":
        return {"type": tag, **AQM_REQUIRED.get(tag, {})}
    if group == "loss":
        return {"type": tag, **LOSS_REQUIRED[tag]}
    if group == "congestion":
        return {"type": tag}
    if key == "flow":
        return {**FLOW, "type": "cbr", **FLOW_REQUIRED["cbr"]}
    if group == "flow":
        return {**FLOW, "type": tag, **FLOW_REQUIRED[tag]}
    raise KeyError(key)


def _in_network(key: str, table: dict) -> dict:
    group = key.partition("/")[0]
    s = _network()
    if group == "repeat":
        s["repeat"] = []
    if group == "capture":
        s["captures"] = []
    if group == "congestion":  # a TCP flow's table (ECN-capable: DCTCP requires it; ECT(1): Prague)
        s["flows"] = [{**FLOW, "type": "tcp", "ecn": True, "ect": "ect1"}]
    return _put(s, TABLE_PATHS[group], table)


def _unknown_field_list(key: str) -> list[str]:
    """The fields serde accepts in a table, from its unknown-field error."""
    s = _in_network(key, {**_minimal(key), "zzz_not_a_field": 1})
    errs = _errors(s)
    missing = [e for e in errs if e[2].startswith("missing field")]
    assert not missing, (
        f"{key}: {missing[0][2]}; a table with required fields needs its smallest valid "
        f"table in AQM_REQUIRED (docs/extending.md, step 5)"
    )
    (err,) = errs
    msg = err[2]
    assert "unknown field `zzz_not_a_field`" in msg, err
    return [] if "there are no fields" in msg else _ticked(msg)[1:]


def _type_list(group: str) -> list[str]:
    """The types the engine accepts for a tagged table (aqm, loss, congestion) or a flow."""
    bad = {**_minimal("flow"), "type": "zzz_no_type"} if group == "flow" else {"type": "zzz"}
    (err,) = _errors(_in_network(group, bad))
    if group == "flow":
        return _ticked(err[2])[1:]
    assert "unknown type" in err[2], err
    return re.findall(r'"([^"]+)"', err[2])


def _flow_type_fields(kind: str) -> list[str]:
    """The fields of one flow type, from the validator's "not a field of type" message."""
    probe = {**_minimal(f"flow/{kind}"), "variant": "reno", "shape": 2.0}
    for _path, _value, msg in _errors(_in_network("flow", probe)):
        m = re.match(r'not a field of type = "(\w+)"; its fields are (.+)$', msg)
        if m:
            assert m.group(1) == kind
            return m.group(2).split(", ")
    raise AssertionError(f"no 'not a field of type' error for a {kind} flow")


def engine_schema() -> dict[str, list[str]]:
    """Section key -> the fields the engine knows, in its order."""
    sections = ("scenario", "simulation", "node", "link", "queue", "repeat", "capture")
    out = {k: _unknown_field_list(k) for k in sections}
    for group in ("aqm", "loss", "congestion"):
        for tag in _type_list(group):
            out[f"{group}/{tag}"] = _unknown_field_list(f"{group}/{tag}")
    per_type = {kind: _flow_type_fields(kind) for kind in _type_list("flow")}
    specific = {f for fields in per_type.values() for f in fields}
    out["flow"] = [f for f in _unknown_field_list("flow") if f not in specific]
    for kind, fields in per_type.items():
        out[f"flow/{kind}"] = fields
    return out


# ------------------------------------------------------------------------------------------
# What docs/scenarios.md says
# ------------------------------------------------------------------------------------------

SECTION_KEYS = {
    "Top level": "scenario",
    "`[simulation]`": "simulation",
    "`[[nodes]]`": "node",
    "`[[links]]`": "link",
    "Queue tables (`queue`, `reverse_queue`)": "queue",
    "`[[flows]]`": "flow",
    "`[[repeat]]`": "repeat",
    "`[[captures]]`": "capture",
}
GROUPS = {
    "AQM tables (`aqm`)": "aqm",
    "Loss tables (`loss`)": "loss",
    "`[[flows]]`": "flow",
    "Congestion-control tables (`congestion`)": "congestion",
}


def doc_sections(text: str) -> dict[str, str]:
    """Section key -> body: the h2 sections of SECTION_KEYS, and one per type (an h3 whose
    title starts with the backticked type) under the h2 sections of GROUPS."""
    out: dict[str, str] = {}
    group = None
    for level, title, body in _sections(text):
        if level == 2:
            group = GROUPS.get(title)
            if title in SECTION_KEYS:
                out[SECTION_KEYS[title]] = body
        elif group is not None:
            m = re.match(r"^`([a-z_0-9]+)`", title)
            assert m, f"a type section's heading must start with its `type`: {title!r}"
            key = f"{group}/{m.group(1)}"
            assert key not in out, f"two sections for {key}"
            out[key] = body
    return out


def doc_fields(body: str) -> dict[str, dict[str, str]]:
    """Field name -> its row in the section's field table (empty if it has none)."""
    rows = _table(body, "field") or []
    out = {}
    for row in rows:
        names = _ticked(row["field"])
        assert len(names) == 1, f"a field cell must be one `name`: {row['field']!r}"
        name = names[0]
        assert name not in out, f"field {name} listed twice"
        out[name] = row
    return out


@pytest.fixture(scope="module")
def schema() -> dict[str, list[str]]:
    return engine_schema()


@pytest.fixture(scope="module")
def doc() -> dict[str, dict[str, dict[str, str]]]:
    return {k: doc_fields(b) for k, b in doc_sections(SCENARIOS_MD.read_text("utf-8")).items()}


def test_the_engine_schema_probe_finds_every_table_and_the_tcp_fields(schema):
    # Guards the probe itself: if an engine message changed form, the doc checks below
    # would compare against nothing.
    # A floor, not a count: adding an AQM (docs/extending.md) must not break the probe's guard.
    known = {"droptail", "red", "rio", "bio", "rem", "pie", "codel", "fq_codel", "dualpi2"}
    assert {f"aqm/{t}" for t in known} <= set(schema)
    assert schema["aqm/droptail"] == []
    assert len(schema["flow/tcp"]) == 24
    assert schema["congestion/cubic"] == [
        "c",
        "beta",
        "fast_convergence",
        "reno_friendly_alpha",
        "hystart",
    ]
    assert schema["congestion/dctcp"] == ["g", "initial_alpha"]
    assert schema["congestion/bbr"][:3] == ["high_gain", "drain_gain", "cwnd_gain"]
    assert schema["flow"] == [
        "name",
        "type",
        "src",
        "dst",
        "packet_size",
        "start",
        "stop",
        "ecn",
        "ect",
    ]
    assert schema["loss/gilbert_elliott"] == ["p_gb", "p_bg", "loss_good", "loss_bad"]


def test_scenarios_md_has_a_section_for_every_table_and_type_of_the_engine(schema, doc):
    assert sorted(doc) == sorted(schema)


def test_scenarios_md_documents_every_field_of_every_table_and_no_other(schema, doc):
    problems = []
    for key, fields in schema.items():
        documented = list(doc.get(key, {}))
        missing = [f for f in fields if f not in documented]
        unknown = [f for f in documented if f not in fields]
        if missing or unknown:
            problems.append(f"{key}: missing {missing}, not in the engine {unknown}")
    assert not problems, "\n".join(problems)


def test_scenarios_md_type_lists_are_the_engines():
    sections = _sections(SCENARIOS_MD.read_text("utf-8"))
    body = next(b for lvl, t, b in sections if t == "AQM tables (`aqm`)")
    summary = [_ticked(r["type"])[0] for r in _table(body, "type") or []]
    assert summary == _type_list("aqm")
    flow = next(b for lvl, t, b in sections if t == "`[[flows]]`")
    type_row = doc_fields(flow)["type"]
    assert [v.strip('"') for v in _ticked(type_row["allowed"])] == _type_list("flow")


def test_every_aqm_section_links_its_algorithm_page(doc):
    text = SCENARIOS_MD.read_text("utf-8")
    for key, body in doc_sections(text).items():
        if key.startswith("aqm/"):
            pages = re.findall(r"\]\((aqm/[a-z_0-9]+\.md)\)", body)
            assert pages, f"{key}: no link to its page in docs/aqm/"
            for page in pages:
                assert (DOCS / page).is_file(), f"{key}: {page} does not exist"


def _default_kind(cell: str) -> str:
    for kind in ("required", "one of", "unset"):
        if cell.startswith(kind):
            return kind
    if cell.startswith("`"):
        return "value"
    raise AssertionError(f"a default must be required, one of, unset or a `value`: {cell!r}")


def test_scenarios_md_defaults_are_the_ones_the_canonical_echo_writes(doc):
    problems = []
    for key, fields in doc.items():
        if key == "repeat":
            continue  # the echo is the expanded form: checked by the test below
        path = TABLE_PATHS[key.partition("/")[0]]
        minimal = _minimal(key)
        base = _canonical(_in_network(key, minimal))
        echo = _get(base, path)
        for name, row in fields.items():
            kind = _default_kind(row["default"])
            if name in minimal:
                continue
            if kind == "value":
                literal = _ticked(row["default"])[0]
                value = tomllib.loads(f"x = {literal}")["x"]
                if name not in echo:
                    problems.append(f"{key}.{name}: documented {literal}, the echo omits it")
                    continue
                given = _canonical(_in_network(key, {**minimal, name: value}))
                if given != base:
                    problems.append(
                        f"{key}.{name}: documented default {literal}, engine {echo[name]!r}"
                    )
            elif name in echo:
                problems.append(f"{key}.{name}: the echo writes {echo[name]!r}; document it")
    assert not problems, "\n".join(problems)


def test_scenarios_md_repeat_defaults_are_the_engines(doc):
    """Leaving a repeat field out is the same scenario as giving its documented default."""
    base = {"count": 2, "var": "i", "nodes": [{"name": "x{i}", "type": "host"}]}
    checked = 0
    for name, row in doc["repeat"].items():
        if _default_kind(row["default"]) != "value":
            continue
        value = tomllib.loads(f"x = {_ticked(row['default'])[0]}")["x"]
        left_out = {k: v for k, v in base.items() if k != name}
        assert _canonical(_in_network("repeat", left_out)) == _canonical(
            _in_network("repeat", {**left_out, name: value})
        ), name
        checked += 1
    assert checked == 4, "var, nodes, links and flows"


def test_scenarios_md_required_fields_are_the_ones_the_engine_requires(doc):
    problems = []
    for key, fields in doc.items():
        minimal = _minimal(key)
        for name, row in fields.items():
            kind = _default_kind(row["default"])
            needed = name in minimal and bool(
                _errors(_in_network(key, {k: v for k, v in minimal.items() if k != name}))
            )
            if kind == "required" and not needed:
                problems.append(f"{key}.{name}: documented as required, the engine does not")
            if needed and kind not in ("required", "one of"):
                problems.append(f"{key}.{name}: the engine requires it, documented {kind}")
    assert not problems, "\n".join(problems)


def test_scenarios_md_lists_exactly_the_allowed_values_of_every_string_field(doc):
    problems = []
    checked = 0
    for key, fields in doc.items():
        for name, row in fields.items():
            errs = _errors(_in_network(key, {**_minimal(key), name: "zzz_bogus"}))
            variants = [
                _ticked(msg)[1:]
                for _p, _v, msg in errs
                if msg.startswith("unknown variant `zzz_bogus`")
            ]
            if not variants:
                continue
            checked += 1
            listed = [v.strip('"') for v in _ticked(row["allowed"]) if v.startswith('"')]
            if sorted(listed) != sorted(variants[0]):
                problems.append(f"{key}.{name}: documented {listed}, engine {variants[0]}")
    assert checked >= 10, "the probe found too few string fields"
    assert not problems, "\n".join(problems)


# "unset (acts as `X`)": leaving the field out and giving X must be the same run. A few
# fields only take effect with another one set.
ACTS_AS_NEEDS = {
    ("aqm/rem", "mark_at"): {"ecn": True},
    ("aqm/pie", "mark_ecn_th"): {"ecn": True},
    ("aqm/pie", "dq_threshold"): {"dq_rate_estimator": True},
    ("aqm/pie", "ce_threshold"): {"l4s": True},
    # the busy network's ECT(0) flows are step-marked under "ect" and not under "ect1"
    ("aqm/codel", "ce_threshold_ecn"): {"ce_threshold": "1ms"},
    ("aqm/fq_codel", "ce_threshold_ecn"): {"ce_threshold": "1ms"},
    ("flow/tcp", "delack_timeout"): {"delayed_ack": True},
    # the clock granularity shows only in an RTO above min_rto
    ("flow/tcp", "granularity"): {"min_rto": "1ms"},
}


def _busy_network() -> dict:
    """A network where every "acts as" field changes the run when its value changes
    (checked by giving each another value): TCP flow t0 has a path of its own (h2 - r0)
    whose wire drops its first three data packets, so the initial RTO and its backoff up
    to max_rto matter; three ECN TCP flows, Poisson and on/off traffic share a 10 Mb/s
    bottleneck with random loss behind it; an ECN-capable CBR overloads the bottleneck
    from 12 s to 16 s, so that AQMs mark and drop at high probabilities."""
    s = _network()
    s["simulation"] = {"duration": "20s", "sample_interval": "10ms"}
    s["nodes"].append({"name": "h2", "type": "host"})
    s["links"][1]["queue"] = {"limit_pkts": 200}
    s["links"][2]["loss"] = {"type": "bernoulli", "p": 0.005}
    s["links"].append(
        {
            "a": "h2",
            "b": "r0",
            "bandwidth": "100Mbps",
            "delay": "1ms",
            "queue": {"limit_pkts": 1000},
            "loss": {"type": "scripted", "drop": [0, 1, 2]},
        }
    )
    tcp = {**FLOW, "type": "tcp", "ecn": True}
    s["flows"] = [
        {**tcp, "name": "t0", "src": "h2"},
        {**tcp, "name": "t1", "start": "1s"},
        {**FLOW, "name": "p", "type": "poisson", "rate": "2Mbps"},
        {
            **FLOW,
            "name": "o",
            "type": "onoff",
            "rate": "3Mbps",
            "on_time": "200ms",
            "off_time": "300ms",
        },
        {**tcp, "name": "t2", "start": "2s"},
        {
            **FLOW,
            "name": "c",
            "type": "cbr",
            "rate": "9Mbps",
            "ecn": True,
            "start": "12s",
            "stop": "16s",
        },
    ]
    return s


def _acts_as_scenario(key: str, needs: dict, name: str, value: Any = None) -> dict:
    """The busy network with ``needs`` set in the table of section ``key``, and ``name``
    left out (None) or set to ``value``."""
    group, _, tag = key.partition("/")
    s = _busy_network()
    if group == "aqm":
        table = s["links"][1]["queue"]["aqm"] = {**_minimal(key), **needs}
    elif group == "flow" and tag in ("tcp", "poisson", "onoff", ""):
        # The fields every flow has: on the first TCP flow (ECN-capable).
        table = s["flows"][{"tcp": 0, "poisson": 2, "onoff": 3, "": 0}[tag]]
        table.update(needs)
    elif key == "flow/probe":
        # A probe beside the busy network's flows: its requests and replies share the queues.
        table = {**FLOW, "name": "ping", "type": "probe", "packet_size": 64, **needs}
        s["flows"].append(table)
    elif group == "scenario":
        table = s
    elif group == "simulation":
        table = s["simulation"]
    else:
        raise AssertionError(f"no test network for 'acts as' defaults in {key}")
    table.pop(name, None)
    if value is not None:
        table[name] = value
    return s


def _same_run(a: Results, b: Results) -> bool:
    return (
        a.queues.equals(b.queues)
        and a.flows.equals(b.flows)
        and a.timeseries.equals(b.timeseries)
        and a.flow_timeseries.equals(b.flow_timeseries)
    )


def test_scenarios_md_unset_fields_run_as_the_value_it_says_they_act_as(doc):
    claims = [
        (key, name, _ticked(row["default"].split("acts as", 1)[1])[0])
        for key, fields in doc.items()
        for name, row in fields.items()
        if "acts as" in row["default"]
    ]
    assert len(claims) >= 17, "the TCP fields, size_dist, period_dist, w_x, mark_at, ..."
    problems = []
    for key, name, literal in claims:
        value = tomllib.loads(f"x = {literal}")["x"]
        needs = ACTS_AS_NEEDS.get((key, name), {})
        unset = aqmlab_run(_acts_as_scenario(key, needs, name))
        given = aqmlab_run(_acts_as_scenario(key, needs, name, value))
        if not _same_run(unset, given):
            problems.append(f"{key}.{name}: leaving it out is not the same run as {literal}")
    assert not problems, "\n".join(problems)


def aqmlab_run(s: dict) -> Results:
    return Results(_core.run(tomli_w.dumps(s)))


def _fenced(text: str, lang: str) -> list[str]:
    return re.findall(rf"^```{lang}\n(.*?)^```", text, flags=re.S | re.M)


def test_scenarios_md_example_file_and_python_are_the_same_valid_scenario():
    text = SCENARIOS_MD.read_text("utf-8")
    (toml_text,) = [b for b in _fenced(text, "toml") if "[[repeat]]" not in b]
    (python_text,) = _fenced(text, "python")
    ns: dict[str, Any] = {}
    exec(python_text, ns)
    from_file = tomllib.loads(_core.canonical(toml_text))
    assert _canonical(ns["s"]) == from_file
    # every kind of table the page documents appears in the example
    kinds = {f["type"] for f in from_file["flows"]}
    assert kinds == {"cbr", "poisson", "onoff", "tcp"}


def test_scenarios_md_repeat_example_expands_as_it_says():
    text = SCENARIOS_MD.read_text("utf-8")
    (toml_text,) = [b for b in _fenced(text, "toml") if "[[repeat]]" in b]
    s = tomllib.loads(_core.canonical(toml_text))
    names = [n["name"] for n in s["nodes"]]
    assert len(names) == 202 and names[:6] == ["r1", "r2", "s0", "d0", "s1", "d1"]
    delays = [x["delay"] for x in s["links"] if x["b"] == "r1"]
    assert (delays[0], delays[10], delays[99]) == ("1ms", "2ms", "10900us")
    starts = [f["start"] for f in s["flows"]]
    assert len(starts) == 100 and len(set(starts)) == 100


# ------------------------------------------------------------------------------------------
# docs/architecture.md
# ------------------------------------------------------------------------------------------

PATHLIKE = re.compile(r"^[\w./-]+(\.(rs|py|pyi|md|toml|txt|snap)|/)$")


# Where a short name in the page is looked up: the engine's modules are named relative to
# crates/aqmlab-core/src (as the page says), the Python ones relative to python/aqmlab.
NAME_BASES = [ROOT, ROOT / "crates/aqmlab-core/src", ROOT / "python/aqmlab", DOCS]
# Files the page names that the code writes, not the repository.
OUTPUTS = {"report.md"}


def test_every_file_path_architecture_md_names_exists():
    text = "\n".join(_without_code(ARCHITECTURE_MD.read_text("utf-8")))
    names = {t for t in _ticked(text) if PATHLIKE.match(t)} - OUTPUTS
    assert len(names) > 40, "the page names the files it describes"
    missing = sorted(n for n in names if not any((b / n).exists() for b in NAME_BASES))
    assert not missing, f"named in docs/architecture.md but not in the repository: {missing}"


def test_architecture_md_names_every_engine_and_python_module():
    text = ARCHITECTURE_MD.read_text("utf-8")
    modules = [
        *(ROOT / "crates/aqmlab-core/src").rglob("*.rs"),
        *(ROOT / "crates/aqmlab-py/src").rglob("*.rs"),
        *(ROOT / "python/aqmlab").rglob("*.py"),
        *(ROOT / "python/aqmlab").rglob("*.pyi"),
    ]
    assert len(modules) > 30
    unnamed = [
        str(m.relative_to(ROOT))
        for m in modules
        if f"`{m.relative_to(ROOT).as_posix()}`" not in text
    ]
    assert not unnamed, f"modules docs/architecture.md does not describe: {unnamed}"


# ------------------------------------------------------------------------------------------
# Links between the pages
# ------------------------------------------------------------------------------------------


def _slug(title: str) -> str:
    """GitHub's heading anchor: lower case, punctuation dropped, spaces to hyphens."""
    t = re.sub(r"[^\w\- ]", "", title.lower())
    return t.replace(" ", "-")


def _anchors(path: Path) -> set[str]:
    return {
        _slug(m.group(2))
        for line in _without_code(path.read_text("utf-8"))
        if (m := re.match(r"^(#{1,6}) (.+)$", line))
    }


def test_every_relative_link_in_the_readme_and_docs_resolves():
    pages = [README_MD, *sorted(DOCS.rglob("*.md"))]
    broken = []
    for page in pages:
        text = "\n".join(_without_code(page.read_text("utf-8")))
        for target in re.findall(r"\]\(([^)\s]+)\)", text):
            if re.match(r"^[a-z]+:", target):
                continue
            file, _, anchor = target.partition("#")
            dest = (page.parent / file).resolve() if file else page
            if not dest.exists():
                broken.append(f"{page.relative_to(ROOT)}: {target} (no such file)")
            elif anchor and anchor not in _anchors(dest):
                broken.append(f"{page.relative_to(ROOT)}: {target} (no such heading)")
    assert not broken, "\n".join(broken)


# ------------------------------------------------------------------------------------------
# README.md
# ------------------------------------------------------------------------------------------


def _readme() -> str:
    return README_MD.read_text("utf-8")


def _commands(block: str) -> list[list[str]]:
    return [c for c in (shlex.split(line, comments=True) for line in block.splitlines()) if c]


@pytest.fixture
def readme_dir(tmp_path, monkeypatch) -> Path:
    """A working directory with the repository's scenarios/ where the README expects it."""
    shutil.copytree(ROOT / "scenarios", tmp_path / "scenarios")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_readme_sets_up_a_fresh_machine_with_exactly_make_run_and_make_test():
    section = _readme().split("## Set-up on a fresh machine", 1)[1].split("\n## ", 1)[0]
    (block,) = _fenced(section, "sh")
    assert [" ".join(c) for c in _commands(block)] == ["make run", "make test"]


def test_readme_python_blocks_run_in_order_as_pasted(readme_dir):
    blocks = _fenced(_readme(), "python")
    assert len(blocks) == 3
    ns: dict[str, Any] = {}
    t0 = time.monotonic()

    exec(compile(blocks[0], "README.md python block 1", "exec"), ns)
    assert list(ns["res"].flows["name"]) == ["p"]
    assert (readme_dir / "results/p/summary.json").is_file()

    # The TCP example: 20 staged bulk flows and the traced finite transfer, which completes.
    exec(compile(blocks[1], "README.md python block 2", "exec"), ns)
    flows = ns["res"].flows.set_index("name")
    assert len(flows) == 21
    assert flows.loc["web", "completion_time_s"] > 0
    assert set(ns["res"].flow_timeseries["flow"]) == {"web"}

    exec(compile(blocks[2], "README.md python block 3", "exec"), ns)
    summary = ns["res"].summary
    assert list(summary["links[3].queue.limit_pkts"]) == [10, 20, 50, 100]
    assert list(summary["n_runs"]) == [5, 5, 5, 5]
    assert (readme_dir / "results/buffer.db").is_file()

    # Measured at about 2 s on the 2-core machine; a block that grows past this budget is
    # no longer an example to paste.
    assert time.monotonic() - t0 < 30


# Shell commands of the README this test does not run, and why.
README_SH_SKIPPED = {
    "make run": "builds the engine and runs every reproduction (its time is in BENCHMARKS.md)",
    "make test": "runs this test suite and the cargo tests: minutes, and recursive",
    ".venv/bin/aqmlab sweep scenarios/sweeps/example_buffer.toml --cluster local": (
        "starts a Dask LocalCluster of worker processes; the sweep itself is run above"
    ),
    ".venv/bin/aqmlab sweep scenarios/sweeps/example_buffer.toml --cluster tcp://scheduler:8786": (
        "needs a running Dask scheduler"
    ),
    ".venv/bin/aqmlab reproduce rem": "a full-size reproduction (60.7 s on 2 idle cores)",
    ".venv/bin/aqmlab reproduce psand": "a full-size reproduction: 2 613 runs",
    ".venv/bin/aqmlab reproduce bio": "a full-size reproduction: 70 runs of 320 TCP flows",
    ".venv/bin/aqmlab reproduce urio": "a full-size reproduction: 150 runs and 80 of sensitivity",
    ".venv/bin/aqmlab reproduce cioq": "a full-size reproduction: 795 runs",
    ".venv/bin/aqmlab reproduce l4s": "a full-size reproduction: 128 runs",
    ".venv/bin/aqmlab rrul --out results/rrul": "six 40-s RRUL runs with plots (about 10 s)",
}


def test_readme_shell_commands_run_except_the_listed_long_ones(readme_dir):
    blocks = _fenced(_readme(), "sh")
    commands = [c for b in blocks for c in _commands(b)]
    skipped = [" ".join(c) for c in commands if " ".join(c) in README_SH_SKIPPED]
    assert sorted(skipped) == sorted(README_SH_SKIPPED), "the skip list names README commands"
    ran = {}
    for cmd in commands:
        line = " ".join(cmd)
        if line in README_SH_SKIPPED:
            continue
        assert cmd[0] == ".venv/bin/aqmlab", f"a README command this test cannot run: {line}"
        r = subprocess.run(
            [sys.executable, "-m", "aqmlab.cli", *cmd[1:]],
            capture_output=True,
            text=True,
            timeout=120,
        )
        # Without ns-2.35 the crosscheck line stops at once with its install hint (exit 4).
        want = 4 if cmd[1] == "crosscheck" and not shutil.which("ns") else 0
        assert r.returncode == want, f"{line}\n{r.stdout}\n{r.stderr}"
        ran[line] = r.stdout
    assert len(ran) == 9
    # The sweep, results and export lines change with the sweep command line (a default
    # store, a results table, export next to the database): only their exit status counts.
    assert ran[".venv/bin/aqmlab validate my.toml"].startswith("my.toml: valid")
    assert (readme_dir / "results/my/summary.json").is_file()
    assert ran[".venv/bin/aqmlab --help"].startswith("usage: aqmlab")
    assert list((readme_dir / "results/buffer").glob("*.csv"))
    assert {"rem", "psand", "mm1k", "tcp_dumbbell"} <= {
        line.split()[0] for line in ran[".venv/bin/aqmlab reproduce --list"].splitlines()
    }


def test_readme_error_example_is_what_the_engine_reports():
    (shown,) = _fenced(_readme(), "text")
    s = tomllib.loads((ROOT / "scenarios/example.toml").read_text("utf-8"))
    s["links"][3]["queue"]["limit_pkts"] = 0
    with pytest.raises(_core.ScenarioError) as e:
        _core.canonical(tomli_w.dumps(s))
    assert str(e.value) == shown.strip()


# A wall time or a speed-up in prose: "61 s", "1 min 24.6 s", "119" and the multiplication
# sign. Configuration values (`200ms`) are written as code and are not timings.
TIMING = re.compile(r"\d+(?:\.\d+)?\u00d7|(?:\d+ min )?\d+(?:\.\d+)? s\b|\d+ min\b")


def test_readme_timings_are_the_ones_benchmarks_md_records():
    prose = re.sub(r"`[^`]*`", "", " ".join(_without_code(_readme())))
    timings = TIMING.findall(re.sub(r"\s+", " ", prose))
    assert timings, "the README states the times of make run, make test, the reproductions"
    bench = re.sub(r"\s+", " ", BENCHMARKS_MD.read_text("utf-8").replace("**", ""))
    # whole figures only: "1 min" is not "1 min 24.6 s", "3 s" is not "0.663 s"
    missing = [t for t in timings if not re.search(rf"(?<![\d.]){re.escape(t)}(?! ?\d)", bench)]
    assert not missing, f"README timings that BENCHMARKS.md does not record: {missing}"
