"""Time series in Parquet beside the results store."""

import pandas as pd

import aqmlab
from aqmlab import scenario as sc
from aqmlab.store import Store


def test_every_stored_run_has_its_time_series_beside_the_store(tmp_path):
    db = tmp_path / "ts.db"
    base = sc.example(duration="2s", warmup="0s")
    base["flows"].append(sc.tcp("t", "s0", "d1", trace=True))
    aqmlab.sweep(
        base, {"links[3].queue.limit_pkts": [10, 30]}, runs=2, db=db, workers=1, progress=False
    )
    with Store(db) as st:
        keys = st.finished_keys()
        files = {p.stem for p in st.timeseries_dir.glob("*.parquet")}
        assert files == keys and len(keys) == 4
        ts = st.timeseries(next(iter(keys))[:12])
    assert {"time_s", "queue", "qlen_pkts", "flow", "cwnd"} <= set(ts.columns)
    # 2 s sampled every 10 ms for 14 queues, plus the traced flow's rows.
    assert (ts["queue"].notna()).sum() == 200 * 14 and (ts["flow"] == "t").sum() == 200
    assert not list(st.timeseries_dir.glob(".*.tmp"))


def test_timeseries_can_be_turned_off(tmp_path):
    db = tmp_path / "nots.db"
    aqmlab.sweep(
        sc.example(duration="1s", warmup="0s"),
        runs=1,
        db=db,
        workers=1,
        progress=False,
        timeseries=False,
    )
    assert not (tmp_path / "nots.db.timeseries").exists()
    assert isinstance(Store(db).runs(), pd.DataFrame)
