"""Example 6: results as pandas DataFrames.

Every table of a run is a DataFrame: `res.queues` (one row per queue: counters, drops and
marks by reason, mean and variance of the queue, utilisation, sojourn percentiles),
`res.flows` (per flow: sent, received, goodput, loss, delay, TCP counters),
`res.timeseries` (sampled queue state), `res.queue_dist` (fraction of time at each queue
length) and any table a component adds, all in `res.tables`. `res.summary()` flattens a run
into one JSON-ready dict (summary.json), and a sweep's `tidy` is long-form, ready for
groupby or a plotting library.

Run: python examples/06_dataframes.py   (a few seconds)
"""

import pandas as pd

import aqmlab
from aqmlab import scenario as sc

res = aqmlab.run(sc.example(duration="20s", warmup="5s"))
print("tables:", ", ".join(res.tables))

# Queues that carried traffic, busiest first.
busy = res.queues[res.queues["arrivals"] > 0].sort_values("mean_queue_pkts", ascending=False)
print(
    busy[["name", "aqm", "arrivals", "dropped_overflow", "mean_queue_pkts", "p99_sojourn_s"]]
    .head(3)
    .to_string(index=False)
)

# Per-flow loss and delay, and a column computed with pandas.
flows = res.flows.set_index("name")
flows["goodput_share"] = flows["goodput_bps"] / flows["goodput_bps"].sum()
print(flows[["kind", "goodput_bps", "goodput_share", "loss_rate", "mean_delay_s"]].round(4))

# The bottleneck's queue-length distribution: P(queue >= 40 packets).
dist = res.queue_dist[res.queue_dist["queue"] == "r0->r1"]
p40 = dist.loc[dist["n_pkts"] >= 40, "fraction"].sum()
print(f"P(bottleneck queue >= 40 packets) = {p40:.3f}")
assert abs(dist["fraction"].sum() - 1) < 1e-9  # a distribution over the measured time

# Time series: resample the bottleneck's queue to 1-second means.
ts = res.timeseries[res.timeseries["queue"] == "r0->r1"].copy()
ts["second"] = ts["time_s"].astype(int)
print(ts.groupby("second")["qlen_pkts"].mean().round(1).head(8).to_dict())

# One run as a JSON-ready dict (what summary.json holds), and the tables on disk as
# Parquet, read back with pandas.
summary = res.summary()
print("summary.json keys:", ", ".join(summary))
res.write("results/run", plot=False)
back = pd.read_parquet("results/run/queues.parquet")
assert back["arrivals"].sum() == res.queues["arrivals"].sum()

# A small sweep in long form: one row per (point, metric) with mean, sd and ci95.
sw = aqmlab.sweep(
    sc.example(duration="10s", warmup="2s"),
    grid={"links[bottleneck].bandwidth": ["10Mbps", "12Mbps"]},
    runs=3,
    progress=False,
)
tidy = sw.tidy
util = tidy[tidy["metric"] == "queue:r0->r1:utilization"]
print(util[["links[bottleneck].bandwidth", "n_runs", "mean", "ci95"]].to_string(index=False))
