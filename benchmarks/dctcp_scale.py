"""Scale: DCTCP flows on a leaf-spine (issue 48's figure), one simulated second.

    .venv/bin/python benchmarks/dctcp_scale.py [--flows 10000] [--leaves 100]
        [--spines 4] [--mem-limit-gb 12] [--json]

The fabric is ``aqmlab.topology.leaf_spine``: ``--leaves`` leaves of ``flows / leaves``
hosts, every leaf joined to every spine. Hosts and fabric links run at 1 Gb/s with 10 µs
each (a host-to-host path crosses four links: 80 µs of propagation per round trip), and
every queue is DCTCP's step marker at K = 20 packets, RED with min_th = max_th = 20,
w_q = 1 and ECN marks (Alizadeh et al., "Data Center TCP (DCTCP)", SIGCOMM 2010, §3.4:
K = 20 at 1 Gb/s), in a buffer of 200 packets. One bulk DCTCP flow (RFC 8257, SACK, ECN,
1500-byte packets) per host, to the host the generator's permutation gives it on another
leaf, starting uniformly in [0, 10 ms) (numpy PCG64, seed 1); 1 s simulated, queues sampled
every 100 ms. Routing has no ECMP: every leaf reaches every other leaf through spine0 (the
generator's listing), so each leaf's uplink carries its hosts' flows and the other spines
stay idle.

Run in a fresh child process so that its peak RSS (os.wait4) is this run's alone, under
RLIMIT_AS = --mem-limit-gb. Printed: events, packets, the engine's wall time
(Simulator::run), the whole aqmlab.run() call, load + validate + build, peak RSS, and what
the run measured (utilisation of the busiest uplink, its mean queue, marks and drops over
the fabric, the flows' mean goodput, timeouts).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time

HOST_RATE = "1Gbps"
FABRIC_RATE = "1Gbps"
DELAY = "10us"
K = 20
BUFFER = 200
PKT = 1500
START_WINDOW_S = 0.010
DURATION = "1s"


def build(flows: int, leaves: int, spines: int, seed: int = 1) -> dict:
    import numpy as np

    from aqmlab import scenario as sc
    from aqmlab import topology

    if flows % leaves:
        raise SystemExit(f"--flows {flows} is not a multiple of --leaves {leaves}")
    step = sc.queue(limit_pkts=BUFFER, aqm=sc.red_step(K))
    t = topology.leaf_spine(
        leaves,
        spines,
        flows // leaves,
        host_rate=HOST_RATE,
        fabric_rate=FABRIC_RATE,
        delay=DELAY,
        queue=step,
        host_queue=step,
        seed=seed,
    )
    rng = np.random.Generator(np.random.PCG64(seed))
    starts = rng.uniform(0.0, START_WINDOW_S, len(t.pairs))
    fl = t.flows(
        lambda name, s, d: sc.tcp(
            name,
            s,
            d,
            packet_size=PKT,
            variant="sack",
            ecn=True,
            congestion=sc.dctcp(),
            start=f"{round(starts[int(name[1:])] * 1e9)}ns",
        )
    )
    return t.scenario(fl, duration=DURATION, seed=seed, sample_interval="100ms")


def child(flows: int, leaves: int, spines: int) -> None:
    import aqmlab

    t0 = time.perf_counter()
    s = build(flows, leaves, spines)
    t_build = time.perf_counter() - t0
    t0 = time.perf_counter()
    r = aqmlab.run(s)
    t_run = time.perf_counter() - t0
    tm = r.timing
    q = r.queues
    uplinks = q[q["name"].str.match(r"^leaf\d+->spine0$")]
    busiest = uplinks.sort_values("utilization").iloc[-1]
    f = r.flows
    print(
        json.dumps(
            {
                "flows": flows,
                "leaves": leaves,
                "spines": spines,
                "events": r.events,
                "packets": r.packets,
                "engine_s": tm["run_s"],
                "run_call_s": t_run,
                "builders_s": t_build,
                "load_validate_build_s": tm["parse_s"] + tm["validate_s"] + tm["build_s"],
                "busiest_uplink": busiest["name"],
                "busiest_uplink_utilization": float(busiest["utilization"]),
                "busiest_uplink_mean_queue_pkts": float(busiest["mean_queue_pkts"]),
                "marked": int(q.filter(like="marked_").to_numpy().sum()),
                "dropped": int(q.filter(like="dropped_").to_numpy().sum()),
                "mean_goodput_mbps": float(f["goodput_bps"].mean() / 1e6),
                "timeouts": int(f["timeouts"].sum()),
            }
        )
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--flows", type=int, default=10_000)
    ap.add_argument("--leaves", type=int, default=100)
    ap.add_argument("--spines", type=int, default=4)
    ap.add_argument("--mem-limit-gb", type=float, default=12.0)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.child:
        child(a.flows, a.leaves, a.spines)
        return
    limit = int(a.mem_limit_gb * 2**30)

    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    cmd = [sys.executable, __file__, "--child", f"--flows={a.flows}"]
    cmd += [f"--leaves={a.leaves}", f"--spines={a.spines}"]
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True, preexec_fn=cap)
    out = p.stdout.read() if p.stdout else ""
    _, status, usage = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t0
    if status != 0:
        raise SystemExit(f"child failed (status {status}): {out}")
    d = json.loads(out.strip().splitlines()[-1])
    d["process_wall_s"] = wall
    d["peak_rss_mb"] = usage.ru_maxrss / 1024
    if a.json:
        print(json.dumps(d))
        return
    print(
        f"{d['flows']} DCTCP flows, leaf-spine {d['leaves']} leaves x {d['spines']} spines, "
        f"1 s simulated:\n"
        f"  events {d['events']:,}, packets {d['packets']:,}\n"
        f"  engine {d['engine_s']:.2f} s ({d['engine_s'] / d['events'] * 1e9:.0f} ns/event), "
        f"aqmlab.run() {d['run_call_s']:.2f} s, process {wall:.2f} s, "
        f"load+validate+build {d['load_validate_build_s']:.2f} s\n"
        f"  peak RSS {d['peak_rss_mb']:.0f} MB\n"
        f"  busiest uplink {d['busiest_uplink']}: utilisation "
        f"{d['busiest_uplink_utilization']:.3f}, mean queue "
        f"{d['busiest_uplink_mean_queue_pkts']:.1f} packets (K = {K})\n"
        f"  marks {d['marked']:,}, drops {d['dropped']:,}, timeouts {d['timeouts']:,}, "
        f"mean goodput {d['mean_goodput_mbps']:.2f} Mb/s per flow"
    )


if __name__ == "__main__":
    main()
