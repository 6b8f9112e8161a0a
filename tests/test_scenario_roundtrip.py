"""Builder == file == what Rust echoes back: one scenario, whichever way it is written."""

import tomllib

import pytest

import aqmlab
from aqmlab import scenario as sc


def test_builder_and_file_give_the_same_canonical_scenario(root):
    from_file = aqmlab.canonical(root / "scenarios" / "example.toml")
    from_builder = aqmlab.canonical(sc.example())
    assert from_file == from_builder


def test_canonical_echo_is_a_fixed_point():
    once = aqmlab.canonical(sc.example())
    assert aqmlab.canonical(once) == once


def test_echo_normalises_units_and_makes_defaults_explicit():
    s = sc.scenario(
        duration="1.5s",
        nodes=[sc.host("a"), sc.host("b")],
        links=[
            sc.link("a", "b", bandwidth="1000kbps", delay="0.02s", queue=sc.queue(limit_pkts=5))
        ],
        flows=[sc.cbr("f", "a", "b", rate="0.5Mbps", packet_size="1.5KB")],
    )
    c = aqmlab.canonical(s)
    assert c["simulation"] == {"duration": "1500ms", "warmup": "0ns", "seed": 1, "run": 0}
    assert c["links"][0]["bandwidth"] == "1Mbps"
    assert c["links"][0]["delay"] == "20ms"
    assert c["links"][0]["queue"] == {"limit_pkts": 5, "aqm": {"type": "droptail"}}
    assert c["flows"][0]["rate"] == "500kbps"
    assert c["flows"][0]["packet_size"] == "1500B"
    assert c["flows"][0]["start"] == "0ns" and c["flows"][0]["ecn"] is False


def test_builders_emit_exactly_the_file_schema():
    # Optional arguments left as None are omitted, never written as empty values.
    f = sc.poisson("p", "a", "b", packet_size=1000, pkt_rate=10.0)
    assert f == {
        "name": "p",
        "type": "poisson",
        "src": "a",
        "dst": "b",
        "packet_size": 1000,
        "pkt_rate": 10.0,
    }
    q = sc.queue(limit_bytes="64KB", aqm=sc.droptail())
    assert q == {"limit_bytes": "64KB", "aqm": {"type": "droptail"}}
    text = sc.to_toml(sc.example())
    assert tomllib.loads(text) == sc.example()


def test_numpy_scalars_are_accepted():
    np = pytest.importorskip("numpy")
    s = sc.example()
    s["simulation"]["seed"] = np.int64(5)
    s["flows"][1]["packet_size"] = np.int32(900)
    c = aqmlab.canonical(s)
    assert c["simulation"]["seed"] == 5
    assert c["flows"][1]["packet_size"] == "900B"


def test_a_profile_from_python_fills_in_and_is_echoed():
    """The builder's ``profile`` reaches the engine, which fills the unset TCP fields with
    ns-2.1b8a's values and writes them in the canonical scenario (docs/profiles.md)."""
    import aqmlab
    from aqmlab.scenario import host, link, queue, scenario, tcp

    s = scenario(
        duration="1s",
        nodes=[host("a"), host("b")],
        links=[link("a", "b", bandwidth="10Mbps", delay="10ms", queue=queue(limit_pkts=100))],
        flows=[tcp("f", "a", "b", packet_size=1000)],
        profile="ns2-2001",
    )
    c = aqmlab.canonical(s)
    assert c["profile"] == "ns2-2001"
    assert c["flows"][0]["initial_cwnd"] == 1.0
    assert c["flows"][0]["min_rto"] == "1s"


def test_dicts_cross_as_json_and_read_as_their_toml():
    """A dict crosses as JSON (scenario.engine_text); the engine reads it exactly as the same
    dict written as TOML: the same canonical scenario, the same errors."""
    import json

    from aqmlab import _core
    from aqmlab import topology as topo
    from aqmlab.scenario import engine_text, to_toml

    t = topo.fat_tree(4)
    cases = [sc.example(), t.scenario(t.flows(), duration="1s", profile="ns2-2001")]
    for s in cases:
        text = engine_text(s)
        assert json.loads(text) == s
        assert _core.canonical(text) == _core.canonical(to_toml(s))
    bad = sc.example()
    bad["links"][0]["delay"] = "-1ms"
    with pytest.raises(aqmlab.ScenarioError) as a:
        aqmlab.validate(bad)
    with pytest.raises(aqmlab.ScenarioError) as b:
        _core.canonical(to_toml(bad))
    assert a.value.errors == b.value.errors and a.value.path == "links[0].delay"
    # NaN is not JSON: that dict is written as TOML, and its error names the path.
    nan = sc.example()
    nan["flows"][0]["rate"] = float("nan")
    assert not engine_text(nan).lstrip().startswith("{")
    with pytest.raises(aqmlab.ScenarioError, match=r"flows\[0\]\.rate"):
        aqmlab.validate(nan)
    # A dict that contains itself: the encoder keeps no record of its containers, and the
    # cycle still ends in RecursionError (as when the encoder named it), not in text.
    cyclic = sc.example()
    cyclic["simulation"]["self"] = cyclic
    with pytest.raises(RecursionError):
        engine_text(cyclic)
