"""A scenario dict crosses into the engine as Python objects (the binding reads them, with no
JSON text between); what it cannot take that way crosses as text. Either way: the same
scenario, the same results, the same errors."""

import copy
import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import aqmlab
from aqmlab import _core, topology
from aqmlab import scenario as sc
from aqmlab.results import Results

from common import readers

FILES = ["example.toml", "tcp_dumbbell.toml", "diffserv_bio.toml", "cioq_switch.toml"]


def _short(d):
    # 300 ms simulated: enough to exercise every part, without the flows starting later.
    d = copy.deepcopy(d)
    d["simulation"].update(duration="300ms", warmup="100ms")
    d["flows"] = [f for f in d["flows"] if f.get("start", "0s") == "0s"]
    return d


@pytest.mark.parametrize("name", FILES)
def test_a_dict_runs_as_its_text_does(root, name):
    # Files with profiles, DiffServ conditioners, a switch: floats, booleans, nested tables
    # and lists of tables, all read from their objects.
    d = _short(sc.load(root / "scenarios" / name))
    direct = _core.run(d)
    assert direct is not None, "a plain scenario dict is read from its objects"
    via_text = _core.run(sc.engine_text(d))
    assert isinstance(via_text["scenario"], type(direct["scenario"]))
    a, b = Results(direct), Results(via_text)
    assert a.scenario_toml == b.scenario_toml
    assert a.summary() == b.summary()
    assert a.timeseries.equals(b.timeseries)


def _with(d, path, value):
    d = copy.deepcopy(d)
    *parents, last = path
    t = d
    for k in parents:
        t = t[k]
    t[last] = value
    return d


BASE = sc.example(duration="200ms", warmup="0s")


@pytest.mark.parametrize(
    "d",
    [
        _with(BASE, ["simulation", "seed"], np.int64(3)),  # a numpy scalar (not an int)
        _with(BASE, ["simulation", "seed"], 1 << 63),  # beyond 64 signed bits
        _with(BASE, ["flows", 0, "rate_bps"], math.nan),
        _with(BASE, ["extra"], [1, None]),  # None in a list: JSON's null
        _with(BASE, ["extra"], {1: "x"}),  # a key JSON would turn into text
        _with(BASE, ["simulation", "duration"], "2 fortnights"),  # reads, but not as a scenario
        _with(BASE, ["no_such_key"], 1),
    ],
    ids=["numpy", "u64", "nan", "null", "int_key", "unit", "unknown"],
)
def test_what_the_objects_cannot_carry_goes_the_texts_way(d):
    assert _core.run(d) is None
    try:
        want = Results(_core.run(sc.engine_text(d))).summary()
    except Exception as e:  # the text's outcome, whatever it is
        with pytest.raises(type(e)) as got:
            aqmlab.run(d)
        assert str(got.value) == str(e)
        assert getattr(got.value, "errors", None) == getattr(e, "errors", None)
    else:
        assert aqmlab.run(d).summary() == want


def test_a_dict_that_contains_itself_goes_the_texts_way():
    d = copy.deepcopy(BASE)
    d["simulation"]["loop"] = d
    assert _core.run(d) is None


def test_none_members_are_left_out_and_invalid_values_named():
    d = _with(BASE, ["simulation", "seed"], None)  # "not given": the default seed
    assert (
        Results(_core.run(d)).summary()
        == aqmlab.run(_with(BASE, ["simulation", "seed"], 1)).summary()
    )
    bad = _with(BASE, ["links", 0, "delay"], "-1ms")
    with pytest.raises(aqmlab.ScenarioError) as e:
        aqmlab.run(bad)
    with pytest.raises(aqmlab.ScenarioError) as t:
        _core.run(sc.engine_text(bad))
    assert e.value.errors == t.value.errors


def _corpus(root):
    files = sorted((root / "scenarios").glob("*.toml"))
    built = {
        "example": sc.example(),
        "dumbbell": topology.dumbbell(3, access_delay=["1ms", "5ms", "9ms"]),
        "parking_lot": topology.parking_lot(3, cross_per_hop=2),
        "leaf_spine": topology.leaf_spine(2, 2, 2),
        "fat_tree": topology.fat_tree(4),
    }
    for name, t in built.items():
        if isinstance(t, topology.Topology):
            built[name] = t.scenario(t.flows(), duration="1s", warmup="100ms")
    return {f.name: sc.load(f) for f in files} | built


def test_every_file_and_builder_reads_the_same_straight_through_a_document_and_as_text(root):
    # Files with a profile or `[[repeat]]` are resolved on a document, so the direct reader
    # leaves them; every other reads straight from its objects.
    corpus = _corpus(root)
    # Every shipped file and the five builders: a file the glob missed would go unread.
    assert len(corpus) == len(list((root / "scenarios").glob("*.toml"))) + 5
    for name, d in corpus.items():
        direct, document, text = readers(d)
        assert text is not None, name
        assert document == text, name
        assert direct == (text if _plain(d) else None), name


def _plain(d):
    """Whether the direct reader takes `d` (no profile or `[[repeat]]`)."""
    return all(d.get(k) is None for k in ("profile", "repeat"))


PLAIN = {k: d for k, d in _corpus(Path(__file__).resolve().parent.parent).items() if _plain(d)}


@st.composite
def rewritten(draw):
    """A plain scenario of the corpus in another of the forms a dict may take: members in
    any order, members set to None (left out), tuples where lists were."""

    def form(x):
        if isinstance(x, dict):
            items = [(k, form(v)) for k, v in x.items()]
            items = draw(st.permutations(items))
            if draw(st.booleans()):
                items.insert(draw(st.integers(0, len(items))), ("no_such_key", None))
            return dict(items)
        if isinstance(x, list):
            items = [form(v) for v in x]
            return tuple(items) if draw(st.booleans()) else items
        return x

    name = draw(st.sampled_from(sorted(PLAIN)))
    return name, form(PLAIN[name])


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rewritten())
def test_a_dict_in_any_form_reads_straight_to_what_its_text_reads(case):
    name, d = case
    direct, document, text = readers(d)
    assert direct is not None, name
    assert direct == document == text == readers(PLAIN[name])[2], name
