"""Example 5: plot a queue's length over time.

`res.timeseries` has one row per (sample time, queue): queue length in packets and bytes,
cumulative counters and each AQM's state (RED's average queue `avg`, PIE's drop
probability, ...), every `sample_interval`. This script runs TCP flows that start one by
one through a RED bottleneck and draws the instantaneous queue and RED's average queue
with matplotlib; `aqmlab.plot.plot_queue_length` draws the same from any result.

Run: python examples/05_plot_queue.py   (a few seconds; writes queue.png, queue_all.png)
"""

import matplotlib

matplotlib.use("Agg")  # files only, no window (remove this line to use plt.show())
import matplotlib.pyplot as plt

import aqmlab
from aqmlab import plot, topology
from aqmlab import scenario as sc

red = sc.red(15, 45, max_p=0.1, ecn=False)
net = topology.dumbbell(10, bottleneck="10Mbps", queue=sc.queue(limit_pkts=100, aqm=red))
# One more NewReno flow every 2 seconds (start times are scenario fields).
flows = net.flows(lambda name, s, d: sc.tcp(name, s, d, start=f"{2 * int(name[1:])}s"))
res = aqmlab.run(net.scenario(flows, duration="30s", sample_interval="50ms", seed=1))

ts = res.timeseries[res.timeseries["queue"] == "r1->r2"]
print("time-series columns:", ", ".join(ts.columns))

fig, ax = plt.subplots(figsize=(7, 3.5), layout="constrained")
ax.plot(ts["time_s"], ts["qlen_pkts"], linewidth=0.7, label="queue (packets)")
ax.plot(ts["time_s"], ts["avg"], linewidth=1.5, label="RED average queue")
ax.axhline(15, color="0.5", linestyle=":", label="min_th, max_th")
ax.axhline(45, color="0.5", linestyle=":")
ax.set_xlabel("time (s)")
ax.set_ylabel("packets")
ax.set_title("RED bottleneck, one more TCP flow every 2 s")
ax.legend(loc="upper right")
fig.savefig("queue.png", dpi=120)
print("wrote queue.png")

# The library's own figure: every busy queue, with the warm-up shaded.
print("wrote", plot.plot_queue_length(res, "queue_all.png"))
