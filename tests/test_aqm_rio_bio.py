"""RIO and BIO builders: valid scenarios that run, with their state in results.timeseries,
and their degeneracy through the whole engine. Packets start green (level 0); an edge
conditioner at the bottleneck router colours them where a test needs other colours."""

import pytest

import aqmlab
from aqmlab import diffserv as ds
from aqmlab import scenario as sc

from common import dumbbell


def _bottleneck(aqm, *, limit_pkts=60, limit_bytes=None, duration="6s"):
    """Two TCP flows with ECN and a CBR flow (not ECN-capable) at 0.9x a 10 Mb/s link."""
    return dumbbell(
        [
            sc.tcp("t1", "a", "d", ecn=True),
            sc.tcp("t2", "a", "d", ecn=True, start="200ms"),
            sc.cbr("u", "b", "d", packet_size=1000, rate="9Mbps"),
        ],
        hosts=("a", "b", "d"),
        routers=("r",),
        left_to_right=True,
        queue=sc.queue(
            limit_pkts=None if limit_bytes else limit_pkts, limit_bytes=limit_bytes, aqm=aqm
        ),
        duration=duration,
        warmup="1s",
        seed=3,
        sample_interval="100ms",
    )


def _coloured(s, colour_of):
    """The scenario with a conditioner at router r colouring each sender's packets:
    ``colour_of`` maps a sender ("a": the TCP flows, "b": the CBR flow) to its colour."""
    classes = [ds.traffic_class(h, ds.fixed(c)) for h, c in colour_of.items()]
    policy = [ds.policy(h, src=h) for h in colour_of]
    for n in s["nodes"]:
        if n["name"] == "r":
            n["conditioners"] = [ds.conditioner(classes, policy)]
    return s


def _aqm(s):
    return aqmlab.canonical(s)["links"][2]["queue"]["aqm"]


def _bottleneck_row(res):
    return res.queues.set_index("name").loc["r->d"]


def test_rio_defaults_are_ns2s_and_the_canonical_echo_writes_them():
    assert _aqm(_bottleneck(sc.rio())) == {
        "type": "rio",
        "mode": "rio_c",
        "levels": [
            {"min_th": 15.0, "max_th": 30.0, "max_p": 0.02},
            {"min_th": 5.0, "max_th": 15.0, "max_p": 0.1},
        ],
        "w_q": 0.002,
        "gentle": False,
        "count_rule": "dsred",
        "mark_above_max_th": True,
        "idle_start": "departure",
        "total_avg_on_in_only": False,
        "ns2_qlen_guard": False,
        "byte_mode": False,
        "mean_pktsize": "1KB",
        "ecn": False,
    }


def test_bio_builder_round_trips():
    b = sc.bio(
        sc.bio_level(60, d1=0.02, d2=0.01, freeze_inc="20ms", freeze_dec="10ms"),
        sc.bio_level(30, d1=0.001, d2=0.001, freeze_inc="3ms", freeze_dec="3ms"),
        ecn=True,
    )
    echo = _aqm(_bottleneck(b))
    assert echo["variant"] == "AAI" and echo["idle_catchup"] is True
    assert echo["levels"][0] == {
        "d1": 0.02,
        "d2": 0.01,
        "freeze_inc": "20ms",
        "freeze_dec": "10ms",
        "max_th": 60.0,
    }
    with pytest.raises(TypeError):
        sc.bio()


@pytest.mark.parametrize("mode", ["rio_c", "rio_d", "wred"])
def test_rio_runs_and_reports_one_average_per_level(mode):
    aqm = sc.rio(
        sc.rio_level(20, 40, max_p=0.05), sc.rio_level(5, 15, max_p=0.2), mode=mode, ecn=True
    )
    res = aqmlab.run(_bottleneck(aqm))
    ts = res.timeseries
    rows = ts[ts["queue"] == "r->d"]
    for m in ["avg0", "p_b0", "p_a0", "avg1", "p_b1", "p_a1"]:
        assert m in ts.columns, m
    # Green traffic only: the IN average rises into the early region; p_b stays in [0, 1].
    assert rows["avg0"].max() > 20
    assert ((rows["p_b0"] >= 0) & (rows["p_b0"] <= 1)).all()
    q = _bottleneck_row(res)
    assert q["aqm"] == "rio"
    assert q["marked_early"] + q["dropped_early"] > 0


@pytest.mark.parametrize("variant", ["AAI", "SST"])
def test_bio_runs_and_reports_one_probability_per_level(variant):
    t = variant.endswith("T")
    aqm = sc.bio(
        sc.bio_level(40, d1=0.02, d2=0.002, freeze_time="10ms", min_th=5 if t else None),
        sc.bio_level(20, d1=0.02, d2=0.002, freeze_time="10ms", min_th=2 if t else None),
        variant=variant,
        ecn=True,
    )
    res = aqmlab.run(_bottleneck(aqm))
    ts = res.timeseries
    rows = ts[ts["queue"] == "r->d"]
    for m in ["p_m0", "increments0", "decrements0", "p_m1", "increments1", "decrements1"]:
        assert m in ts.columns, m
    assert rows["p_m0"].max() > 0
    assert ((rows["p_m0"] >= 0) & (rows["p_m0"] <= 1)).all()
    q = _bottleneck_row(res)
    assert q["aqm"] == "bio"
    assert q["marked_early"] > 0


def _same_outcome(a, b):
    """The same packets admitted, dropped and marked, and the same flows' results."""
    cols = [c for c in a.queues.columns if c != "aqm"]
    assert a.queues[cols].equals(b.queues[cols])
    assert a.flows.equals(b.flows)


# Packet mode, and byte mode with a byte buffer (docs/validation.md: every AQM test runs in both).
BYTE_MODES = [({}, {}), ({"byte_mode": True}, {"limit_bytes": "60KB"})]


@pytest.mark.parametrize("byte_mode,limit", BYTE_MODES)
def test_rio_fed_only_green_runs_as_red_with_the_level_0_parameters(byte_mode, limit):
    red = sc.red(20, 40, max_p=0.05, w_q=0.01, count_rule="dsred", ecn=True, **byte_mode)
    red["mark_above_max_th"] = True
    want = aqmlab.run(_bottleneck(red, **limit))
    assert _bottleneck_row(want)["marked_early"] > 0
    for mode in ["rio_c", "rio_d", "wred"]:
        rio = sc.rio(
            sc.rio_level(20, 40, max_p=0.05),
            sc.rio_level(5, 15, max_p=0.2),
            mode=mode,
            w_q=0.01,
            idle_start="link_idle",
            ecn=True,
            **byte_mode,
        )
        _same_outcome(aqmlab.run(_bottleneck(rio, **limit)), want)


@pytest.mark.parametrize("byte_mode,limit", BYTE_MODES)
def test_bio_with_one_level_and_the_i_rule_runs_as_blue(byte_mode, limit):
    blue = sc.blue(d1=0.02, d2=0.002, freeze_time="10ms", ecn=True, **byte_mode)
    want = aqmlab.run(_bottleneck(blue, **limit))
    level = sc.bio_level(60, d1=0.02, d2=0.002, freeze_time="10ms")
    got = aqmlab.run(_bottleneck(sc.bio(level, ecn=True, **byte_mode), **limit))
    assert _bottleneck_row(want)["marked_early"] > 0
    _same_outcome(got, want)


def test_invalid_rio_and_bio_fields_are_reported_with_their_path():
    with pytest.raises(aqmlab.ScenarioError) as e:
        aqmlab.canonical(_bottleneck(sc.rio(sc.rio_level(5, 15), sc.rio_level(10, 30))))
    assert "links[2].queue.aqm.levels[1].min_th = 10: must be <= levels[0].min_th = 5" in str(
        e.value
    )
    with pytest.raises(aqmlab.ScenarioError) as e:
        aqmlab.canonical(_bottleneck(sc.bio(sc.bio_level(30), variant="AAX")))
    assert 'links[2].queue.aqm.variant = "AAX": must be three letters' in str(e.value)


@pytest.mark.parametrize("byte_mode,limit", BYTE_MODES)
def test_rio_fed_only_out_packets_runs_as_red_with_the_out_parameters(byte_mode, limit):
    red = sc.red(5, 15, max_p=0.2, w_q=0.01, count_rule="dsred", ecn=True, **byte_mode)
    red["mark_above_max_th"] = True
    want = aqmlab.run(_coloured(_bottleneck(red, **limit), {"a": "red", "b": "red"}))
    assert _bottleneck_row(want)["marked_early"] > 0
    for mode in ["rio_c", "rio_d", "wred"]:
        for colour in ["red", "yellow"]:
            rio = sc.rio(
                sc.rio_level(20, 40, max_p=0.05),
                sc.rio_level(5, 15, max_p=0.2),
                mode=mode,
                w_q=0.01,
                idle_start="link_idle",
                ecn=True,
                **byte_mode,
            )
            s = _coloured(_bottleneck(rio, **limit), {"a": colour, "b": colour})
            _same_outcome(aqmlab.run(s), want)


def _colour_row(res, colour):
    t = res.tables["queue_colours"]
    return t[(t["queue"] == "r->d") & (t["colour"] == colour)].iloc[0]


@pytest.mark.parametrize(
    "aqm",
    [
        sc.rio(sc.rio_level(20, 40, max_p=0.05), sc.rio_level(5, 15, max_p=0.2), ecn=True),
        sc.bio(
            sc.bio_level(60, d1=0.02, d2=0.01, freeze_inc="20ms", freeze_dec="10ms"),
            sc.bio_level(30, d1=0.001, d2=0.001, freeze_inc="3ms", freeze_dec="3ms"),
            ecn=True,
        ),
    ],
)
def test_green_is_signalled_less_than_red_under_both(aqm):
    # The TCP flows green (IN), the CBR flow red (OUT, not ECN-capable): OUT is dropped
    # first. The per-colour counters of the bottleneck give the signalled fractions.
    res = aqmlab.run(_coloured(_bottleneck(aqm), {"a": "green", "b": "red"}))
    g, r = _colour_row(res, "green"), _colour_row(res, "red")

    def signalled(row):
        cols = [c for c in row.index if c.startswith(("dropped_", "marked_"))]
        return row[cols].sum() / row["arrivals"]

    assert g["arrivals"] > 500 and r["arrivals"] > 5000
    assert signalled(g) < signalled(r), (signalled(g), signalled(r))
