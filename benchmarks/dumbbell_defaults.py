"""A 10 000-flow dumbbell built with the public builders and every default (issue 50).

    .venv/bin/python benchmarks/dumbbell_defaults.py [--flows 10000] [--duration 2s]

`aqmlab.topology.dumbbell(n)` (10 Mb/s bottleneck, 100 Mb/s access links, 100-packet
DropTail buffers), one default bulk TCP flow per host pair (`Topology.flows()`), and the
scenario's defaults: sample_interval = duration / 1000 and sample_queues = "auto", which
above 128 links samples the router-to-router queues only (docs/scenarios.md). Runs in a
fresh child process and prints the wall time of aqmlab.run(), the whole process's, its
peak RSS (os.wait4), and what the run recorded."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

BOTTLENECK = "r1->r2"


def child(n: int, duration: str) -> None:
    t0 = time.perf_counter()
    import aqmlab
    from aqmlab import topology

    t = topology.dumbbell(n)
    s = t.scenario(t.flows(), duration=duration)
    t1 = time.perf_counter()
    res = aqmlab.run(s)
    t2 = time.perf_counter()
    ts = res.timeseries
    q = res.queues.set_index("name")
    out = {
        "build_s": t1 - t0,
        "run_s": t2 - t1,
        "queues": len(res.queues),
        "sampled_queues": sorted(set(ts["queue"])),
        "samples": int(ts["time_s"].nunique()),
        "received_pkts": int(res.flows["received_pkts"].sum()),
        "bottleneck_utilization": float(q.loc[BOTTLENECK, "utilization"]),
    }
    print(json.dumps(out))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--flows", type=int, default=10_000)
    ap.add_argument("--duration", default="2s")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.child:
        child(a.flows, a.duration)
        return
    cmd = [sys.executable, __file__, "--child", "--flows", str(a.flows), "--duration", a.duration]
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)
    _, status, usage = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t0
    assert p.stdout is not None
    text = p.stdout.read()
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"the run failed: {text}")
    r = json.loads(text)
    print(
        f"{a.flows} flows, {a.duration}, builders' defaults: aqmlab.run() {r['run_s']:.2f} s, "
        f"build {r['build_s']:.2f} s (import included), process {wall:.2f} s, "
        f"peak RSS {usage.ru_maxrss / 1024:.0f} MB"
    )
    print(
        f"  {r['queues']} queues, {len(r['sampled_queues'])} sampled "
        f"({', '.join(r['sampled_queues'])}) x {r['samples']} samples; "
        f"bottleneck utilization {r['bottleneck_utilization']:.3f}, "
        f"{r['received_pkts']} packets received"
    )


if __name__ == "__main__":
    main()
