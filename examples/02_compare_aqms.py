"""Example 2: DropTail, RED and CoDel on the same TCP dumbbell, built from Python.

`aqmlab.topology.dumbbell(n)` makes n senders s0.. behind router r1, n receivers d0..
behind r2 and one bottleneck link r1-r2 (named "bottleneck"); `Topology.scenario()` adds
flows and returns an ordinary scenario (a dict) that runs like a TOML file. Only the
bottleneck's queue changes between the three runs, so the differences in the table are
the AQM's: DropTail fills its buffer (long delay), RED and CoDel keep the queue short at
about the same throughput.

Run: python examples/02_compare_aqms.py   (a few seconds)
"""

import pandas as pd

import aqmlab
from aqmlab import scenario as sc
from aqmlab import topology

AQMS = {
    "DropTail": sc.droptail(),
    "RED": sc.red(20, 60, max_p=0.1),  # thresholds in packets (docs/aqm/red.md)
    "CoDel": sc.codel(target="5ms", interval="100ms"),  # RFC 8289 (docs/aqm/codel.md)
}

rows = []
for label, aqm in AQMS.items():
    # 8 NewReno bulk transfers, 10 Mb/s and 20 ms at the bottleneck, 200-packet buffer.
    net = topology.dumbbell(8, bottleneck="10Mbps", queue=sc.queue(limit_pkts=200, aqm=aqm))
    flows = net.flows(lambda name, s, d: sc.tcp(name, s, d, variant="newreno"))
    res = aqmlab.run(net.scenario(flows, duration="30s", warmup="10s", seed=1))

    q = res.queues.set_index("name").loc["r1->r2"]  # the bottleneck, sender side
    rows.append(
        {
            "aqm": label,
            "utilisation": q["utilization"],
            "mean queue (pkts)": q["mean_queue_pkts"],
            "mean sojourn (ms)": 1e3 * q["mean_sojourn_s"],
            "drops": q["dropped_overflow"] + q["dropped_early"] + q["dropped_dequeue"],
            "goodput (Mb/s)": res.flows["goodput_bps"].sum() / 1e6,
        }
    )

table = pd.DataFrame(rows).set_index("aqm")
print(table.round(3).to_string())

# A check a reader can rely on: the AQMs keep a shorter queue than a full DropTail buffer.
assert table.loc["RED", "mean queue (pkts)"] < table.loc["DropTail", "mean queue (pkts)"]
assert table.loc["CoDel", "mean queue (pkts)"] < table.loc["DropTail", "mean queue (pkts)"]
