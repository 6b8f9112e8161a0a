"""Example 3: a parameter sweep with replications, stored in SQLite, with 95% intervals.

`aqmlab.sweep(base, grid=..., runs=N, db=...)` runs every point of the grid N times with
independent random streams of one seed, on all local cores, and commits each finished run
to the SQLite store at once: stop it at any moment and run the same call again, and it
resumes without recomputing a finished run. `result.summary` has, per point, the mean,
standard deviation and Student-t 95% confidence half-width (`:ci95`) of every metric.

Here: the built-in example network (three UDP sources on a 10 Mb/s bottleneck) with the
bottleneck buffer at 10, 25 and 50 packets, 4 replications each.

Run: python examples/03_sweep_sqlite.py   (a few seconds)
"""

import aqmlab
from aqmlab import scenario as sc

base = sc.example(duration="10s", warmup="2s")
axis = "links[bottleneck].queue.limit_pkts"  # a field path; links may be named
metrics = ["queue:r0->r1:mean_queue_pkts", "queue:r0->r1:dropped_overflow"]

res = aqmlab.sweep(base, grid={axis: [10, 25, 50]}, runs=4, db="buffer.db", progress=False)
print(f"computed {res.computed} runs, reused {res.skipped} from the store")

# Wide summary: one row per point; every metric has :mean, :sd and :ci95 columns.
cols = [axis, "n_runs"] + [f"{m}:{s}" for m in metrics for s in ("mean", "ci95")]
print(res.summary[cols].round(3).to_string(index=False))

# The same call again finds every run in the store and computes nothing.
again = aqmlab.sweep(base, grid={axis: [10, 25, 50]}, runs=4, db="buffer.db", progress=False)
print(f"second call: computed {again.computed}, reused {again.skipped}")
assert again.computed == 0 and again.skipped == 12

# The store is plain SQLite: read every run back as a DataFrame, here or in another process.
store = aqmlab.Store("buffer.db", write=False)
runs = store.runs()
store.close()
print(f"{len(runs)} runs in buffer.db;", "columns include", ", ".join(list(runs.columns)[:5]))
