"""``[[repeat]]`` (docs/scenarios.md, "Repeat tables"): a compact scenario is the scenario it
expands to, through TOML and through the JSON Python dicts cross as, and its problems name
the template and the copy."""

import tomllib
from pathlib import Path

import pytest
import tomli_w

import aqmlab
from aqmlab import _core, topology
from aqmlab import scenario as sc

from common import benchmark

ROOT = Path(__file__).resolve().parent.parent
N = 12


def _compact(start: dict | str) -> dict:
    """topology.dumbbell(N)'s shape with a bulk TCP flow per pair, as one repeat."""
    access = {"bandwidth": "20Mbps", "delay": "2ms", "queue": {"limit_pkts": 100}}
    return {
        "schema_version": 1,
        "simulation": {"duration": "3s", "warmup": "1s", "sample_interval": "100ms"},
        "nodes": [sc.router("r1"), sc.router("r2")],
        "links": [
            sc.link(
                "r1",
                "r2",
                bandwidth="10Mbps",
                delay="20ms",
                queue=sc.queue(limit_pkts=40),
                name="bottleneck",
            )
        ],
        "repeat": [
            {
                "count": N,
                "nodes": [{"name": "s{i}", "type": "host"}, {"name": "d{i}", "type": "host"}],
                "links": [{"a": "s{i}", "b": "r1", **access}, {"a": "r2", "b": "d{i}", **access}],
                "flows": [
                    {
                        "name": "f{i}",
                        "type": "tcp",
                        "src": "s{i}",
                        "dst": "d{i}",
                        "packet_size": 1000,
                        "start": start,
                    }
                ],
            }
        ],
    }


def _written_out() -> dict:
    t = topology.dumbbell(
        N,
        bottleneck="10Mbps",
        bottleneck_delay="20ms",
        access="20Mbps",
        access_delay="2ms",
        queue=sc.queue(limit_pkts=40),
        access_queue=sc.queue(limit_pkts=100),
    )
    flows = t.flows(
        lambda name, s, d: sc.tcp(name, s, d, packet_size=1000, start=f"{3 * int(name[1:])}ms")
    )
    return t.scenario(flows, duration="3s", warmup="1s", sample_interval="100ms")


def _same(a: aqmlab.Results, b: aqmlab.Results) -> None:
    for table in ("queues", "flows", "timeseries"):
        x, y = getattr(a, table), getattr(b, table)
        assert x.equals(y), table


def test_a_repeat_is_the_scenario_it_expands_to_and_runs_the_same():
    compact = _compact({"from": "0ms", "step": "3ms"})
    assert aqmlab.canonical(compact) == aqmlab.canonical(_written_out())
    a, b = aqmlab.run(compact), aqmlab.run(_written_out())
    # Twelve flows of a 10 Mb/s bottleneck for 2 s measured: something was delivered.
    assert (a.flows["received_pkts"] > 100).all()
    _same(a, b)
    assert "repeat" not in a.scenario


def test_toml_and_json_expand_alike_uniform_draws_included():
    compact = _compact({"uniform": ["0ms", "250ms"]})
    via_json = aqmlab.canonical(compact)
    via_toml = tomllib.loads(_core.canonical(tomli_w.dumps(compact)))
    assert via_json == via_toml
    starts = [f["start"] for f in via_json["flows"]]
    assert len(set(starts)) == N, "twelve draws in 250 ms, at 1 ns resolution, all differ"
    # The draws depend on the seed (a stream of it), not on the run of the process.
    assert aqmlab.canonical(compact) == via_json
    reseeded = aqmlab.canonical({**compact, "simulation": {**compact["simulation"], "seed": 2}})
    assert [f["start"] for f in reseeded["flows"]] != starts


def test_problems_name_the_template_and_the_copy():
    s = _compact({"from": "0ms", "step": "300ms"})  # copy 10 starts at 3 s, the end
    with pytest.raises(aqmlab.ScenarioError) as e:
        aqmlab.validate(s)
    assert [x[0] for x in e.value.errors] == [
        "repeat[0].flows[0].start (i = 10)",
        "repeat[0].flows[0].start (i = 11)",
    ]
    assert e.value.value == '"3s"'
    s["repeat"][0]["count"] = 0
    with pytest.raises(aqmlab.ScenarioError) as e:
        aqmlab.validate(s)
    assert (e.value.path, e.value.value) == ("repeat[0].count", "0")


def test_the_10000_flow_example_is_scale_py_dumbbell_with_its_own_start_draws():
    path = ROOT / "scenarios" / "dumbbell_10000.toml"
    text = path.read_text("utf-8")
    assert "count = 10000 " in text
    # 100 copies keep this fast (the whole file runs in test_scenarios_dir, slow); the
    # bottleneck is scale.py's at 10 000 flows, the rest of the shape does not depend on n.
    example = tomllib.loads(_core.canonical(text.replace("count = 10000 ", "count = 100 ")))
    scale = benchmark("scale")
    s = scale.dumbbell(100, "100ms")
    s["links"][0] = scale.dumbbell(10_000, "100ms")["links"][0]
    built = aqmlab.canonical(s)
    # scale.py samples every queue (its figures stay comparable with the runs before the
    # default became "auto"); the file keeps the default, which samples r1-r2 only here.
    assert built["simulation"].pop("sample_queues") == "all"
    assert "sample_queues" not in example["simulation"]
    # Starts differ (numpy's PCG64 there, the scenario's stream repeat/0 here): both are
    # uniform in [0, 250 ms); everything else, and the order of every entry, is the same.
    starts = [[f.pop("start") for f in x["flows"]] for x in (example, built)]
    assert example == built
    ns = [aqmlab_ns(x) for x in starts[0]]
    assert 0 <= min(ns) and max(ns) < 250_000_000
    # 100 draws of U[0, 250 ms): mean 125 ms, sd of the mean 72.17 / 10 = 7.2 ms; 4 sd.
    assert abs(sum(ns) / len(ns) / 1e6 - 125.0) < 28.9


def aqmlab_ns(duration: str) -> int:
    units = {"ns": 1, "us": 10**3, "ms": 10**6, "s": 10**9}
    for u in ("ns", "us", "ms", "s"):
        if duration.endswith(u) and duration[: -len(u)].isdigit():
            return int(duration[: -len(u)]) * units[u]
    raise ValueError(duration)
