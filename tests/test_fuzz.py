"""Property: mutated scenarios never crash the engine; they run or raise ScenarioError."""

import copy
import math

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import aqmlab
from aqmlab import scenario as sc

from common import readers

BASE = sc.example(duration="1s", warmup="0s")
BASE["links"][0]["loss"] = sc.gilbert_elliott(0.01, 0.3)

values = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**63), max_value=2**63 - 1),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from(
        [
            "",
            "0s",
            "1ms",
            "-1ms",
            "10Mbps",
            "0bps",
            "1500B",
            "0.5ns",
            "abc",
            "host",
            "router",
            "droptail",
            "poisson",
            "pareto",
            "r0",
            "s0",
            "d1",
            "1e9s",
            "nan",
            "inf",
        ]
    ),
    st.text(max_size=8),
    st.lists(st.integers(), max_size=2),
    st.dictionaries(st.text(max_size=4), st.integers(), max_size=2),
)


def _paths(x, prefix=()):
    if isinstance(x, dict):
        for k, v in x.items():
            yield (*prefix, k)
            yield from _paths(v, (*prefix, k))
    elif isinstance(x, list):
        for i, v in enumerate(x):
            yield (*prefix, i)
            yield from _paths(v, (*prefix, i))


ALL_PATHS = list(_paths(BASE))


@st.composite
def mutated(draw):
    s = copy.deepcopy(BASE)
    for _ in range(draw(st.integers(1, 4))):
        path = draw(st.sampled_from(ALL_PATHS))
        parent = s
        try:
            for k in path[:-1]:
                parent = parent[k]
            key = path[-1]
            action = draw(st.sampled_from(["set", "delete", "rename"]))
            if action == "delete":
                del parent[key]
            elif action == "rename" and isinstance(parent, dict):
                parent[key + "_x"] = parent.pop(key)
            else:
                parent[key] = draw(values)
        except (KeyError, IndexError, TypeError):
            continue  # an earlier mutation removed this path
    return s


def _cheap(c):
    """Runs are only attempted when they are small, so the property stays fast."""
    flows = c.get("flows", [])
    if len(flows) > 5:
        return False
    for f in flows:
        rate = f.get("rate", "0bps")
        if rate.endswith(("Gbps", "Tbps")) or f.get("pkt_rate", 0) > 1e5:
            return False
        if rate.endswith("Mbps") and float(rate[:-4]) > 100:
            return False
    d = c["simulation"]["duration"]
    return d.endswith(("ms", "us", "ns")) or (
        d.endswith("s") and d[:-1].isdigit() and int(d[:-1]) <= 2
    )


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated())
def test_mutated_scenarios_run_or_raise_scenario_error(s):
    try:
        c = aqmlab.canonical(s)
    except aqmlab.ScenarioError as e:
        assert e.message and isinstance(e.path, str)
        return
    if _cheap(c):
        r = aqmlab.run(c)
        for v in r.queues["utilization"]:
            assert 0.0 <= v <= 1.0 + 1e-12 or math.isnan(v)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated())
def test_the_readers_of_a_dict_agree_on_whatever_they_read(s):
    # The binding reads a dict straight from its objects, else through their document, else
    # runs its JSON text: where two read, they read the same scenario, and the direct reader
    # takes whatever the document reader takes (no profile or `[[repeat]]` here), so the
    # fast path is not lost on valid input.
    direct, document, text = readers(s)
    if direct is not None:
        assert direct == text
    if document is not None:
        assert document == text
        assert direct == document
