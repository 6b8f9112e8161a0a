"""Topology generators: the shapes they promise (counts, degrees, names), that they make
ordinary scenarios the engine accepts, and the paths the engine gives them (one-way delay of
a light CBR flow = links * (propagation + transmission), no queueing)."""

import collections

import pytest

import aqmlab
from aqmlab import scenario as sc
from aqmlab import topology as topo


def _degrees(t):
    d = collections.Counter()
    for x in t.links:
        d[x["a"]] += 1
        d[x["b"]] += 1
    return d


def _one_way(t, src, dst, *, pkt=125, rate_bps, prop_s, hops):
    """Mean one-way delay of a 1-packet-per-second CBR flow src -> dst, and its expectation."""
    flow = sc.cbr("probe", src, dst, packet_size=pkt, rate=f"{8 * pkt}bps")
    r = aqmlab.run(t.scenario([flow], duration="5s", warmup="1s"))
    got = float(r.flows.set_index("name").loc["probe", "mean_delay_s"])
    return got, hops * (prop_s + 8 * pkt / rate_bps)


def test_dumbbell_has_a_host_pair_per_flow_and_its_rtts():
    t = topo.dumbbell(3, access_delay=["1ms", "5ms", "10ms"])
    assert len(t.nodes) == 2 + 6 and len(t.links) == 1 + 6
    assert t.pairs == [("s0", "d0"), ("s1", "d1"), ("s2", "d2")]
    assert _degrees(t)["r1"] == 4 and _degrees(t)["s2"] == 1
    s = t.scenario(t.flows(), duration="10s", warmup="2s")
    r = aqmlab.run(s)
    assert (r.flows["goodput_bps"] > 0).all()
    with pytest.raises(ValueError, match="2 values for 3 hosts"):
        topo.dumbbell(3, access_delay=["1ms", "2ms"])


def test_dumbbell_paths_are_three_links():
    t = topo.dumbbell(2, bottleneck="10Mbps", access="10Mbps", bottleneck_delay="5ms")
    got, want = _one_way(t, "s1", "d1", rate_bps=10e6, prop_s=0, hops=3)
    # 1 + 5 + 1 ms of propagation plus three transmissions of 125 B at 10 Mb/s (100 µs).
    assert got == pytest.approx(0.007 + want, rel=1e-6)


def test_parking_lot_long_flows_cross_every_hop():
    t = topo.parking_lot(3, cross_per_hop=2)
    assert len([n for n in t.nodes if n["type"] == "router"]) == 4
    assert len(t.pairs) == 1 + 3 * 2
    assert t.pairs[0] == ("l0", "m0") and t.pairs[1] == ("c0_0", "x0_0")
    got, _ = _one_way(t, "l0", "m0", rate_bps=100e6, prop_s=0, hops=0)
    # access 1 ms + 3 hops of 10 ms + access 1 ms; 2 access and 3 hop transmissions.
    assert got == pytest.approx(0.032 + 2 * 8 * 125 / 100e6 + 3 * 8 * 125 / 10e6, rel=1e-6)
    aqmlab.validate(t.scenario(t.flows(), duration="1s"))


def test_leaf_spine_shape_and_cross_leaf_pairs():
    t = topo.leaf_spine(4, 2, 3)
    d = _degrees(t)
    assert all(d[f"leaf{v}"] == 2 + 3 for v in range(4))
    assert all(d[f"spine{s}"] == 4 for s in range(2))
    assert len(t.hosts["hosts"]) == 12 and len(t.pairs) == 12
    assert all(a.split("_")[0] != b.split("_")[0] for a, b in t.pairs)
    assert sorted(b for _, b in t.pairs) == sorted(t.hosts["hosts"])
    assert topo.leaf_spine(4, 2, 3, seed=2).pairs != t.pairs
    # host -> leaf -> spine -> leaf -> host: four links of 10 µs.
    got, want = _one_way(t, "h0_0", "h3_2", rate_bps=10e9, prop_s=10e-6, hops=2)
    assert got == pytest.approx(want + 2 * (10e-6 + 8 * 125 / 40e9), rel=1e-6)


@pytest.mark.parametrize("k", [2, 4, 6])
def test_fat_tree_has_al_fares_counts(k):
    t = topo.fat_tree(k)
    kinds = collections.Counter(n["name"].rstrip("0123456789_") for n in t.nodes)
    assert kinds == {"core": (k // 2) ** 2, "agg": k * k // 2, "edge": k * k // 2, "h": k**3 // 4}
    # Every switch has k ports; every host one.
    d = _degrees(t)
    assert all(d[n["name"]] == k for n in t.nodes if n["type"] == "router")
    assert len(t.links) == 3 * k**3 // 4


def test_fat_tree_paths_between_pods_are_six_links():
    t = topo.fat_tree(4, rate="100Mbps", delay="1ms")
    got, want = _one_way(t, "h0_0_0", "h3_1_1", rate_bps=100e6, prop_s=1e-3, hops=6)
    assert got == pytest.approx(want, rel=1e-6)
    got, want = _one_way(t, "h0_0_0", "h0_1_0", rate_bps=100e6, prop_s=1e-3, hops=4)
    assert got == pytest.approx(want, rel=1e-6)
    s = t.scenario(t.flows(), duration="2s", warmup="500ms")
    r = aqmlab.run(s)
    assert len(r.flows) == 16 and (r.flows["goodput_bps"] > 0).all()
