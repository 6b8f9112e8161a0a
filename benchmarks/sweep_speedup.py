"""Sweep speed-up: the same 100 points x 10 runs on one worker and on two.

    .venv/bin/python benchmarks/sweep_speedup.py [--points 100] [--runs 10] [--workers 2]
                                                 [--duration 60s]

The base is the built-in example network (aqmlab.scenario.example) simulated for 60 s
without warm-up: about 55 ms a run on one core (engine, results tables and summary), so
the 1000 runs take about a minute on one worker. The grid is the bottleneck buffer
(links[3].queue.limit_pkts = 5, 10, ... ) and the replications are the runs 0..runs-1 of
the example's one seed. Both sweeps run without a results store; the script prints the two
wall times, the speed-up, and whether the two results (.runs and .summary) are identical.
The acceptance target is a speed-up of at least 1.8 on two workers.
"""

from __future__ import annotations

import argparse
import time

import pandas as pd

import aqmlab
from aqmlab import scenario as sc


def timed(base: dict, grid: dict, runs: int, workers: int) -> tuple[float, aqmlab.SweepResult]:
    t0 = time.perf_counter()
    res = aqmlab.sweep(base, grid=grid, runs=runs, workers=workers, progress=False)
    return time.perf_counter() - t0, res


def identical(a: aqmlab.SweepResult, b: aqmlab.SweepResult) -> bool:
    try:
        pd.testing.assert_frame_equal(a.runs, b.runs, check_exact=True)
        pd.testing.assert_frame_equal(a.summary, b.summary, check_exact=True)
    except AssertionError:
        return False
    return a.failures.empty and b.failures.empty


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--points", type=int, default=100, help="buffer sizes (grid points)")
    ap.add_argument("--runs", type=int, default=10, help="replications per point")
    ap.add_argument("--workers", type=int, default=2, help="workers of the parallel sweep")
    ap.add_argument("--duration", default="60s", help="simulated time of each run")
    args = ap.parse_args()

    base = sc.example(duration=args.duration, warmup="0s")
    grid = {"links[3].queue.limit_pkts": [5 * (i + 1) for i in range(args.points)]}
    n = args.points * args.runs
    print(f"{args.points} points x {args.runs} runs = {n} runs of {args.duration} simulated")

    t1, r1 = timed(base, grid, args.runs, 1)
    print(f"workers=1: {t1:7.2f} s  ({t1 / n * 1e3:.1f} ms a run)")
    tn, rn = timed(base, grid, args.runs, args.workers)
    print(f"workers={args.workers}: {tn:7.2f} s  ({tn / n * 1e3:.1f} ms a run)")
    speedup = t1 / tn
    same = identical(r1, rn)
    print(f"speed-up: {speedup:.2f}x on {args.workers} workers (target >= 1.8x on 2)")
    print(f"identical results: {same}")
    return 0 if same else 1


if __name__ == "__main__":
    raise SystemExit(main())
