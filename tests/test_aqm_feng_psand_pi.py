"""The feng_red(), psand() and pi() builders make valid scenarios that run, in packet and
byte mode, and each AQM's internal state appears in results.timeseries (docs/aqm/feng.md,
psand.md, pi.md). The behaviour itself is tested in Rust (crates/aqmlab-core)."""

import pytest

import aqmlab
from aqmlab import scenario as sc

from common import dumbbell

METRICS = {
    "feng_red": ["avg", "p_b", "p_a", "count", "max_p", "status"],
    "psand": ["avg", "p_b", "p_a", "count", "max_p", "beta", "k_cur"],
    "pi": ["p", "q_old"],
}

BUILDERS = {"feng_red": sc.feng_red, "psand": sc.psand, "pi": sc.pi}


def bottleneck(aqm, byte_mode):
    """Four TCP flows through a 10 Mb/s bottleneck for 4 s."""
    limit = {"limit_bytes": 100_000} if byte_mode else {"limit_pkts": 100}
    return dumbbell(
        [sc.tcp(f"f{i}", f"s{i}", "d", packet_size=1000) for i in range(4)],
        hosts=[*(f"s{i}" for i in range(4)), "d"],
        routers=("r",),
        left_to_right=True,
        queue=sc.queue(**limit, aqm=aqm),
        reverse_queue=sc.queue(limit_pkts=1000),
        duration="4s",
        warmup="0s",
        seed=3,
        sample_interval="100ms",
    )


@pytest.mark.parametrize("byte_mode", [False, True])
@pytest.mark.parametrize("kind", sorted(BUILDERS))
def test_builder_runs_and_its_metrics_are_sampled(kind, byte_mode):
    aqm = BUILDERS[kind](byte_mode=byte_mode, mean_pktsize=1000)
    assert aqm["type"] == kind
    r = aqmlab.run(bottleneck(aqm, byte_mode))
    q = r.queues.set_index("name").loc["r->d"]
    assert q["aqm"] == kind
    assert q["arrivals"] > 1000
    ts = r.timeseries[r.timeseries["queue"] == "r->d"]
    assert len(ts) == 40  # 4 s sampled every 100 ms
    for m in METRICS[kind]:
        assert m in ts.columns, f"{m} missing from {list(ts.columns)}"
        assert ts[m].notna().all()
    if kind == "pi":
        assert ((ts["p"] >= 0) & (ts["p"] <= 1)).all()
    else:
        assert (ts["max_p"] > 0).all() and (ts["max_p"] <= 1).all()


def test_builders_default_to_the_documented_types_and_pass_fields_through():
    assert sc.feng_red() == {"type": "feng_red"}
    assert sc.psand() == {"type": "psand"}
    assert sc.pi() == {"type": "pi"}
    assert sc.psand(min_th=2, target=8) == {"type": "psand", "min_th": 2, "target": 8}
    assert sc.pi(q_ref=20, w=160) == {"type": "pi", "q_ref": 20, "w": 160}


def test_psand_thresholds_follow_the_buffer_and_errors_name_the_field():
    # target 10 on a 15-packet buffer: automatic thresholds [5, 15]; target 15 is invalid.
    s = bottleneck(sc.psand(), False)
    s["links"][4]["queue"]["limit_pkts"] = 15
    aqmlab.run(s)
    s["links"][4]["queue"]["aqm"] = sc.psand(target=15)
    with pytest.raises(aqmlab.ScenarioError) as ei:
        aqmlab.run(s)
    assert ei.value.path == "links[4].queue.aqm.target"
    assert "buffer capacity B = 15 packets" in ei.value.message
    s["links"][4]["queue"]["aqm"] = sc.pi(w=0)
    with pytest.raises(aqmlab.ScenarioError) as ei:
        aqmlab.run(s)
    assert ei.value.path == "links[4].queue.aqm.w"


@pytest.mark.parametrize(
    "builder",
    [lambda **k: sc.red(5, 15, **k), sc.ared, sc.feng_red, sc.psand],
    ids=["red", "ared", "feng_red", "psand"],
)
def test_ns2_qlen_guard_is_accepted_by_every_red_spec_and_off_is_the_default(builder):
    """Issue 11: ``ns2_qlen_guard`` (docs/aqm/red.md) on each spec that exposes RED's
    fields; false runs exactly as unset. Its behaviour is tested in red.rs."""
    runs = {
        g: aqmlab.run(bottleneck(builder(**({} if g is None else {"ns2_qlen_guard": g})), False))
        for g in (None, False, True)
    }
    assert runs[None].queues.equals(runs[False].queues)
    assert runs[None].flows.equals(runs[False].flows)
    for r in runs.values():
        assert r.queues.set_index("name").loc["r->d"]["arrivals"] > 1000


def test_psand_k_cur_ewma_is_the_default_and_interval_mean_changes_the_run():
    """``k_cur`` (docs/aqm/psand.md): "ewma" runs exactly as unset; "interval_mean" feeds
    Algorithm 1 another K_cur (its value is tested in psand.rs), so the run differs; any
    other value is rejected with the field's path and the allowed values."""
    a = aqmlab.run(bottleneck(sc.psand(), False))
    b = aqmlab.run(bottleneck(sc.psand(k_cur="ewma"), False))
    assert a.queues.equals(b.queues) and a.timeseries.equals(b.timeseries)
    m = aqmlab.run(bottleneck(sc.psand(k_cur="interval_mean"), False))
    q = m.timeseries[m.timeseries["queue"] == "r->d"]
    qa = a.timeseries[a.timeseries["queue"] == "r->d"]
    assert not q["k_cur"].equals(qa["k_cur"])
    with pytest.raises(aqmlab.ScenarioError) as ei:
        aqmlab.run(bottleneck(sc.psand(k_cur="median"), False))
    assert ei.value.path == "links[4].queue.aqm.k_cur"
    assert "`ewma` or `interval_mean`" in ei.value.message
