"""Result tables end to end: the binding's one conversion (every column type, an empty
table), Results built from the engine's tables with the columns and dtypes the per-field
construction gave, and a table a component adds reaching Python with no code naming it."""

import gc
import math
import pickle
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import aqmlab
from aqmlab import _core
from aqmlab import scenario as sc
from aqmlab.results import _frame

ROOT = Path(__file__).resolve().parent.parent


def test_conversion_of_every_column_type():
    t = _core._tables_for_test()
    assert list(t) == ["all_types", "empty", "dict"]
    c = t["all_types"]
    assert list(c) == ["u64", "u64_big", "i64", "f64", "opt_f64", "str", "bool"]
    # u64 becomes int64 while every value fits, as pandas types a list of Python ints.
    assert c["u64"].dtype == np.int64 and c["u64"].tolist() == [0, 7, 1 << 40]
    assert c["u64_big"].dtype == np.uint64 and c["u64_big"].tolist() == [0, 1, 2**64 - 1]
    assert c["i64"].dtype == np.int64 and c["i64"].tolist() == [-3, 0, 2**63 - 1]
    assert c["f64"].dtype == np.float64
    assert c["f64"][0] == 0.5 and math.isnan(c["f64"][1]) and c["f64"][2] == -1e300
    assert c["opt_f64"] == [1.5, None, -0.0] and math.copysign(1, c["opt_f64"][2]) == -1
    assert c["str"] == ["a", "a", "b→c"]
    assert c["bool"].dtype == np.bool_ and c["bool"].tolist() == [True, False, True]
    for v in c.values():
        if isinstance(v, np.ndarray):
            assert v.flags.writeable
    df = _frame(c)
    assert list(df.columns) == list(c)
    assert [str(d) for d in df.dtypes] == [
        "int64",
        "uint64",
        "int64",
        "float64",
        "float64",
        "str",
        "bool",
    ]


def test_a_dictionary_encoded_column_crosses_as_the_strings_it_stands_for():
    c = _core._tables_for_test()["dict"]["name"]
    # One object per distinct string, taken by the codes in numpy (no Python loop per row).
    assert isinstance(c, np.ndarray) and c.dtype == object
    assert c.tolist() == ["b→c", "b→c", "a", "b→c"]
    assert c[0] is c[1] is c[3]
    # The frame column a list of the same strings gives: same dtype, same values.
    got, want = _frame({"name": c}), pd.DataFrame({"name": c.tolist()})
    assert got.dtypes.tolist() == want.dtypes.tolist()
    pd.testing.assert_frame_equal(got, want)


def test_conversion_of_an_empty_table():
    e = _core._tables_for_test()["empty"]
    assert list(e) == ["u64", "u64_big", "i64", "f64", "opt_f64", "str", "bool"]
    assert all(len(v) == 0 for v in e.values())
    df = _frame(e)
    assert list(df.columns) == list(e) and len(df) == 0
    # As pandas builds a frame of empty lists (what an empty table always gave).
    assert all(d == np.float64 for d in df.dtypes)


def test_numeric_columns_are_views_that_keep_the_engine_values_alive():
    """Numbers cross as numpy views of the engine's vectors (no copy), each array keeping
    its owner alive: values read after the rest of the run is freed, and after later runs
    have allocated and filled memory, are the values the run returned."""
    s = _scenario()
    out = _core.run(s)
    held = {
        t: {c: v for c, v in cols.items() if isinstance(v, np.ndarray) and v.dtype != object}
        for t, cols in out["tables"].items()
    }
    views = [v for cols in held.values() for v in cols.values()]
    assert len(views) > 60
    assert all(not v.flags.owndata and isinstance(v.base, _core.Values) for v in views)
    assert all(v.flags.writeable for v in views)
    copies = [v.copy() for v in views]
    del out
    gc.collect()
    s["simulation"]["seed"] = 3
    for _ in range(3):
        _core.run(s)
    for v, c in zip(views, copies, strict=True):
        np.testing.assert_array_equal(v, c)
    # A view pickles as an ordinary array (its values, not its owner).
    f = held["timeseries"]["qlen_pkts"]
    g = pickle.loads(pickle.dumps(f))
    assert g.flags.owndata and g.dtype == f.dtype
    np.testing.assert_array_equal(g, f)


def _scenario(trace: bool = True) -> dict:
    """RED, PIE, SFB and DropTail bottlenecks behind one router; one TCP flow per
    bottleneck (the first traced if ``trace``), a finite transfer and a CBR flow."""
    access = sc.queue(limit_pkts=100)
    nodes = [sc.host("a"), sc.router("r")]
    links = [sc.link("a", "r", bandwidth="100Mbps", delay="1ms", queue=access)]
    flows = []
    for i, aqm in enumerate([sc.red(5, 15), sc.pie(), sc.sfb(levels=2, bins=4), None]):
        nodes.append(sc.host(f"d{i}"))
        links.append(
            sc.link(
                "r",
                f"d{i}",
                bandwidth="5Mbps",
                delay="5ms",
                queue=sc.queue(limit_pkts=30, aqm=aqm),
                reverse_queue=access,
            )
        )
        flows.append(sc.tcp(f"t{i}", "a", f"d{i}", trace=trace if i == 0 else None))
    flows.append(sc.cbr("u", "a", "d3", packet_size=1000, rate="1Mbps"))
    return sc.scenario(
        duration="2s",
        warmup="500ms",
        seed=2,
        sample_interval="250ms",
        nodes=nodes,
        links=links,
        flows=flows,
    )


REASONS = ["overflow", "early", "forced", "dequeue"]
# The columns and dtypes of each table as Results built them field by field (one
# DataFrame per queue, joined) before tables crossed generically; captured from that code.
QUEUES = (
    [(c, "str") for c in ("name", "link", "from", "to", "aqm")]
    + [(c, "int64") for c in ("arrivals", "enqueued", "dequeued", "lost_on_link")]
    + [(c, "float64") for c in ("mean_queue_pkts", "mean_queue_at_arrival_pkts", "var_queue_pkts")]
    + [(c, "float64") for c in ("mean_queue_bytes", "var_queue_bytes")]
    + [("max_queue_pkts", "int64"), ("max_queue_bytes", "int64")]
    + [(c, "float64") for c in ("utilization", "throughput_bps", "mean_sojourn_s")]
    + [(f"p{q}_sojourn_s", "float64") for q in (50, 90, 99)]
    + [("max_sojourn_s", "float64")]
    + [(f"{k}_{r}", "int64") for r in REASONS for k in ("dropped", "marked")]
)
FLOWS = (
    [(c, "str") for c in ("name", "kind", "src", "dst")]
    + [(c, "int64") for c in ("sent_pkts", "sent_bytes", "received_pkts", "received_bytes")]
    + [(c, "int64") for c in ("dropped_pkts", "lost_pkts")]
    + [(c, "float64") for c in ("goodput_bps", "loss_rate", "mean_delay_s", "max_delay_s")]
    + [("throughput_bps", "float64")]
    + [("retransmits", "int64"), ("timeouts", "int64")]
    + [(f"timeouts_{s}", "int64") for s in ("open", "disorder", "recovery", "loss")]
    + [(c, "int64") for c in ("fast_recoveries", "ecn_reactions")]
    + [(c, "int64") for c in ("marks_received", "acks_sent", "acks_lost")]
    + [("completion_time_s", "object")]  # every value None: no finite transfer
)
QUEUE_SERIES = ["qlen_pkts", "qlen_bytes", "arrivals", "dropped", "dropped_overflow", "marked"]
QUEUE_SERIES += ["departed_bytes", "area_pkt_s"]
RED = ["avg", "p_b", "p_a", "count"]
PIE = ["p", "qdelay", "burst_allowance", "avg_dq_rate"]
SFB = ["p_min", "p_max", "p_mean", "max_bin_qlen", "penalised", "penalty_drops"]
SFB += ["bucket_drops"]
TIMESERIES = [("time_s", "float64"), ("queue", "str")] + [
    (c, "float64") for c in QUEUE_SERIES + RED + PIE + SFB
]
FLOW_SERIES = ["cwnd", "ssthresh", "srtt_s", "delivered_pkts", "cwnd_base"]


def _schema(df: pd.DataFrame) -> list[tuple[str, str]]:
    return [(c, str(d)) for c, d in df.dtypes.items()]


def test_results_from_tables_have_the_per_field_shape():
    r = aqmlab.run(_scenario())
    assert list(r.tables)[:5] == ["queues", "flows", "timeseries", "flow_timeseries", "queue_dist"]
    assert _schema(r.queues) == QUEUES and len(r.queues) == 10
    assert _schema(r.flows) == FLOWS and len(r.flows) == 5
    assert _schema(r.timeseries) == TIMESERIES
    n = 8  # samples: 0, 250 ms, ..., 1.75 s
    assert len(r.timeseries) == 10 * n
    assert _schema(r.flow_timeseries) == [("time_s", "float64"), ("flow", "str")] + [
        (c, "float64") for c in FLOW_SERIES
    ]
    assert len(r.flow_timeseries) == n and set(r.flow_timeseries["flow"]) == {"t0"}
    assert _schema(r.queue_dist) == [("queue", "str"), ("n_pkts", "int64"), ("fraction", "float64")]
    # Long time series: each queue's samples in time order, queues in engine order; an AQM
    # variable is NaN on the queues without it.
    ts = r.timeseries
    assert ts["queue"].tolist() == [q for q in r.queues["name"] for _ in range(n)]
    assert ts["time_s"].tolist() == [0.25 * k for k in range(n)] * 10
    has_avg = ts.groupby("queue", sort=False)["avg"].apply(lambda s: s.notna().all())
    has_none = ts.groupby("queue", sort=False)["avg"].apply(lambda s: s.isna().all())
    assert sorted(has_avg[has_avg].index) == ["r->d0"]
    assert sorted(has_none[~has_none].index) == ["r->d0"]


def test_timing_names_every_phase_the_binding_times():
    # benchmarks/scale.py counts every phase but the conversion as the Rust core's work: a
    # phase missing here (the canonical text was untimed once) is charged to Python.
    r = aqmlab.run(_scenario())
    phases = ["parse_s", "validate_s", "build_s", "run_s", "tables_s", "convert_s"]
    assert list(r.timing) == phases
    assert all(v >= 0 for v in r.timing.values())
    assert r.scenario_toml == _core.canonical(sc.engine_text(_scenario()))


def test_empty_and_mixed_tables_keep_their_dtypes():
    r = aqmlab.run(_scenario(trace=False))
    # No traced flow: an empty table with its columns, dtypes as empty lists give them.
    assert len(r.flow_timeseries) == 0
    assert _schema(r.flow_timeseries) == [(c, "float64") for c in ["time_s", "flow", *FLOW_SERIES]]
    s = _scenario()
    s["flows"].append(sc.tcp("done", "a", "d1", bytes=20_000))
    f = aqmlab.run(s).flows.set_index("name")["completion_time_s"]
    # Some finite transfer completed: floats, NaN for the others.
    assert f.dtype == np.float64 and f["done"] > 0 and f.drop("done").isna().all()


def test_a_table_a_component_adds_reaches_python_without_naming_it(tmp_path):
    r = aqmlab.run(_scenario())
    assert list(r.tables)[5:] == ["sfb_bins"]
    bins = r.tables["sfb_bins"]
    assert r.sfb_bins is bins and "sfb_bins" in dir(r)
    assert _schema(bins) == [
        ("queue", "str"),
        ("level", "int64"),
        ("bin", "int64"),
        ("p", "float64"),
        ("qlen", "int64"),
    ]
    assert bins["queue"].tolist() == ["r->d2"] * 8
    assert bins[["level", "bin"]].values.tolist() == [[lv, b] for lv in (0, 1) for b in range(4)]
    assert bins["p"].between(0, 1).all()
    written = {p.name for p in r.write(tmp_path, plot=False)}
    assert {"sfb_bins.csv", "sfb_bins.parquet"} <= written
    pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / "sfb_bins.parquet"), bins)
    # Nothing between the engine and this test names the table.
    for path in [ROOT / "crates/aqmlab-py/src/lib.rs", *(ROOT / "python/aqmlab").rglob("*.py")]:
        assert "sfb_bins" not in path.read_text("utf-8"), path
    # A run without SFB has no such table, and no such attribute.
    plain = aqmlab.run(sc.example(duration="1s", warmup="0s"))
    assert "sfb_bins" not in plain.tables
    with pytest.raises(AttributeError, match="sfb_bins"):
        plain.sfb_bins  # noqa: B018
