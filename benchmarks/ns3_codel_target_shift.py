"""CoDel at 20 flows against ns-3.44: does ns-3's device-queue wait explain the drops?

    .venv/bin/python benchmarks/ns3_codel_target_shift.py [TARGET ...]   (default: 5ms 5.125ms)

ns-3's CoDel times a packet's sojourn to its queue disc's dequeue, before the up to one
packet time (0.125 ms at 64 Mb/s) it then waits in the device queue; aqmlab's sojourn
includes that wait. This runs aqmlab alone on the agreement dumbbell
(scenarios/ns3_dumbbell.toml, CoDel, classic recovery) with the bottleneck's target set to
each TARGET, the same three replications `aqmlab crosscheck --runs 3` draws, and prints the
means of the metrics the crosscheck flags; compare them with the ns-3 column of

    aqmlab crosscheck scenarios/ns3_dumbbell.toml --ns3 --runs 3 \\
      --set 'links[bottleneck].queue.aqm={type="codel"}' \\
      --set 'repeat[0].flows[0].recovery="classic"'

(docs/ns3.md, "Measured: the agreement dumbbell"; 2026-12-03: drop rate 0.001310 at 5 ms,
0.001298 at 5.125 ms, ns-3 0.001217).
"""

from __future__ import annotations

import sys
import tomllib
from pathlib import Path

import numpy as np

import aqmlab
from aqmlab.crosscheck import _aqmlab_tables, _replication, _rows
from aqmlab.sweep import set_field

SCENARIO = Path(__file__).resolve().parent.parent / "scenarios" / "ns3_dumbbell.toml"
METRICS = ("utilization", "drop_rate", "mean_queue_pkts", "retransmits", "fast_recoveries")


def main(targets: list[str]) -> None:
    s = tomllib.loads(SCENARIO.read_text())
    set_field(s, "links[bottleneck].queue.aqm", {"type": "codel"})
    set_field(s, "repeat[0].flows[0].recovery", "classic")
    for target in targets:
        rows = []
        for k in range(3):
            c = _replication(s, k)
            for link in c["links"]:
                if link.get("name") == "bottleneck":
                    link["queue"]["aqm"]["target"] = target
            rows.append(_rows(*_aqmlab_tables(aqmlab.run(c)), split=True))
        print(f"target {target} (mean of 3 replications):")
        for key in rows[0]:
            if (key[0] == "queue L->R" or "flows" in key[0]) and key[1] in METRICS:
                print(f"  {key[0]:22s} {key[1]:18s} {np.mean([r[key] for r in rows]):.6g}")


if __name__ == "__main__":
    main(sys.argv[1:] or ["5ms", "5.125ms"])
