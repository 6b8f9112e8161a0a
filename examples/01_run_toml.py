"""Example 1: one simulation from a scenario file (TOML).

A scenario is a TOML file with a [simulation] table, nodes, links (each direction has an
output queue, optionally with an AQM) and flows. This script writes a small one into the
current directory, runs it and prints the two main tables. The same file runs from the
shell with `aqmlab run first.toml --out results/first`; every field is in
docs/scenarios.md, and `aqmlab example --out my.toml` writes a longer, commented example.

Run: python examples/01_run_toml.py   (about a second)
"""

from pathlib import Path

import aqmlab

SCENARIO = """
schema_version = 1

[simulation]
duration = "20s"     # simulated time
warmup = "5s"        # excluded from the statistics
seed = 1             # same seed, same results (byte for byte)

[[nodes]]
name = "src"
type = "host"
[[nodes]]
name = "router"
type = "router"
[[nodes]]
name = "dst"
type = "host"

# A fast access link, then a 10 Mb/s bottleneck whose 50-packet queue is managed by RED.
[[links]]
a = "src"
b = "router"
bandwidth = "100Mbps"
delay = "1ms"
queue = { limit_pkts = 1000 }

[[links]]
name = "bottleneck"
a = "router"
b = "dst"
bandwidth = "10Mbps"
delay = "20ms"
queue = { limit_pkts = 50, aqm = { type = "red", min_th = 5, max_th = 15 } }

# Poisson packets at 9.5 Mb/s (95% of the bottleneck), exponential sizes of mean 1000 B.
[[flows]]
name = "poisson"
type = "poisson"
src = "src"
dst = "dst"
rate = "9.5Mbps"
packet_size = 1000
size_dist = "exponential"
"""

path = Path("first.toml")
path.write_text(SCENARIO, encoding="utf-8")

aqmlab.validate(path)  # raises aqmlab.ScenarioError listing every problem, before any run
res = aqmlab.run(path)  # one crossing into the Rust engine; results are pandas DataFrames

# One row per queue (each link direction); keep the one that saw traffic.
q = res.queues.set_index("name").loc["router->dst"]
print(
    f"bottleneck: utilisation {q['utilization']:.3f}, mean queue {q['mean_queue_pkts']:.2f} "
    f"packets, early (RED) drops {q['dropped_early']}, overflow drops {q['dropped_overflow']}"
)
print(res.flows[["name", "sent_pkts", "received_pkts", "loss_rate", "mean_delay_s"]])

# Everything to disk: summary.json, the canonical scenario, CSV + Parquet tables, a plot.
paths = res.write("results/first")
print(f"wrote {len(paths)} files to results/first:", ", ".join(p.name for p in paths))
