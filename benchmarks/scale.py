"""Scale: the REM-dumbbell shape at 100, 1 000 and 10 000 flows (issue 15's table).

    .venv/bin/python benchmarks/scale.py [--sizes 100,1000,10000] [--repeat 5]
        [--mem-limit-gb 8] [--sample-interval 100ms] [--warm] [--json]

Per size, a fresh Python process (so that its peak RSS, read with os.wait4, is that size's
alone) builds with aqmlab.scenario's builders: a host pair per flow, each source host on
its own access link (1 Gb/s, 1 ms) to router r1, each sink on its own link from r2; the
bottleneck r1 -> r2 at 1 Mb/s per flow (38 ms, the REM paper's delay) with a DropTail
buffer of 15 ms at its rate (in bytes); one NewReno bulk flow of 1000-byte packets per
pair, starting uniformly in [0, 250 ms) (numpy PCG64, seed 1); 0.5 s of warm-up (every
flow has started and left slow start's first round trips), then 1 simulated second
measured. Every queue is sampled (`sample_queues = "all"`, what every queue recorded before
`"auto"` became the default, so that the figures stay comparable) every 100 ms
(`--sample-interval`): at the default (duration / 1000) the 10 000-flow run would record
40 002 queues x 8 series x 1 001 samples, which validation refuses (at most 5*10^7
time-series values). `benchmarks/dumbbell_defaults.py` runs the builders' defaults.

Printed per size: events per packet, engine µs per packet and ns per event (engine = the
binding's wall time of Simulator::run: the event loop and the end-of-run summaries;
events and packets over the whole run, warm-up included), peak RSS of the process, load +
validate + build (the binding's wall times of parsing the scenario text, validation and
Simulator::new), and two shares of the whole aqmlab.run() call: outside the event loop
(everything but `run_s`: the JSON text written in Python, parse, validate, build, the
result tables, their conversion into Python objects, `Results`; the canonical scenario
text is written only when asked, `Results.scenario_toml`), and outside the Rust core (the
JSON text, the conversion into Python objects and `Results`: the cost of driving the
engine from Python). Issue 15 asks for "run() overhead outside the engine under 10%";
both readings are printed, the first the stricter.
--warm: each child runs its scenario once before the measured run, as every run of a sweep
but a worker's first does: the measured call then finds the allocator's memory already
mapped (first touch costs ~2 ms per MB on this VM) and its code and tables in cache.
Without it (the default) every figure is a fresh process's first run. Peak RSS is the
process's, over both runs.
Each size runs --repeat times, in rounds (every size once per round, so that the machine's
drift between minutes reaches every size alike); the table gives each figure's median over
the repeats (peak RSS: the largest), the engine cost's range beside it, and the ratio of
the median engine costs per packet to that of the smallest size; beside it, the ratio of
the minima. The shared machine's neighbours only ever slow a run, by up to 2x in a noisy
hour and not alike at every size (in some hours the 5 ms 100-flow run is slowed most, in
others the 10 000-flow one, which lives in the shared L3 cache and memory), so the ratio of
the medians swings with the hour (1.1x-2.4x in BENCHMARKS.md's entries). Each size's
fastest repeat is its least disturbed run, so the ratio of the minima swings less, but it
reads the engine's own cost only when some repeat of each size ran undisturbed: compare
the minima with the quiet hours' (BENCHMARKS.md) before reading either ratio; in an hour
when every repeat is slowed, neither ratio says anything about the engine. The 100-flow run lasts
some 20 ms of engine time, and one run of it varies by ±30% on this machine.
The child process runs under RLIMIT_AS = --mem-limit-gb (the machine has no swap): a
size that needs more fails with a memory error instead of taking the machine down.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time

BOTTLENECK_DELAY = "38ms"
ACCESS = {"bandwidth": "1Gbps", "delay": "1ms"}
PKT = 1000
WARMUP_S = 0.5
MEASURED_S = 1.0
START_WINDOW_S = 0.25
BUFFER_S = 0.015


def dumbbell(n: int, sample_interval: str, seed: int = 1) -> dict:
    """The REM-dumbbell shape with n host pairs and n Mb/s of bottleneck."""
    import numpy as np

    from aqmlab import scenario as sc
    from aqmlab import topology

    rng = np.random.Generator(np.random.PCG64(seed))
    bps = n * 1_000_000
    t = topology.dumbbell(
        n,
        bottleneck=f"{bps}bps",
        bottleneck_delay=BOTTLENECK_DELAY,
        access=ACCESS["bandwidth"],
        access_delay=ACCESS["delay"],
        queue=sc.queue(limit_bytes=round(bps * BUFFER_S / 8)),
        access_queue=sc.queue(limit_pkts=1000),
    )
    starts = rng.uniform(0.0, START_WINDOW_S, n)
    flows = t.flows(
        lambda name, s, d: sc.tcp(
            name,
            s,
            d,
            packet_size=PKT,
            variant="newreno",
            start=f"{round(starts[int(name[1:])] * 1e9)}ns",
        )
    )
    return t.scenario(
        flows,
        duration=f"{round((WARMUP_S + MEASURED_S) * 1e3)}ms",
        warmup=f"{round(WARMUP_S * 1e3)}ms",
        seed=seed,
        sample_interval=sample_interval,
        sample_queues="all",
    )


def child(n: int, sample_interval: str, warm: bool = False) -> None:
    """Runs one size in this process and prints its figures as one JSON line; `warm`: after
    one run of the same scenario, whose figures are not kept."""
    t0 = time.perf_counter()
    import aqmlab

    t_import = time.perf_counter() - t0
    t0 = time.perf_counter()
    s = dumbbell(n, sample_interval)
    t_builders = time.perf_counter() - t0
    if warm:
        aqmlab.run(s)
    t0 = time.perf_counter()
    r = aqmlab.run(s)
    t_run = time.perf_counter() - t0
    tm = r.timing
    engine = tm["run_s"]
    q = r.queues.set_index("name").loc["r1->r2"]
    out = {
        "flows": n,
        "bottleneck_bps": n * 1_000_000,
        "events": r.events,
        "packets": r.packets,
        "engine_s": engine,
        "events_per_packet": r.events / r.packets,
        "engine_us_per_packet": engine / r.packets * 1e6,
        "ns_per_event": engine / r.events * 1e9,
        "load_validate_build_s": tm["parse_s"] + tm["validate_s"] + tm["build_s"],
        "run_call_s": t_run,
        "outside_engine_fraction": (t_run - engine) / t_run,
        "outside_core_fraction": (
            t_run - engine - sum(tm[k] for k in ("parse_s", "validate_s", "build_s", "tables_s"))
        )
        / t_run,
        "import_s": t_import,
        "builders_s": t_builders,
        "timing": tm,
        "bottleneck_utilization": float(q["utilization"]),
        "bottleneck_drops": int(sum(q[f"dropped_{x}"] for x in r.reasons)),
        "timeseries_rows": len(r.timeseries),
    }
    print(json.dumps(out), flush=True)


def measure(n: int, sample_interval: str, mem_limit_gb: float, warm: bool = False) -> dict:
    """Runs `child(n)` in a fresh interpreter; adds its peak RSS (bytes)."""
    limit = int(mem_limit_gb * 2**30)

    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    p = subprocess.Popen(
        [sys.executable, __file__, "--child", str(n), "--sample-interval", sample_interval]
        + (["--warm"] if warm else []),
        stdout=subprocess.PIPE,
        text=True,
        preexec_fn=cap,
    )
    assert p.stdout is not None
    stdout = p.stdout.read()
    _, status, usage = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode != 0:
        return {"flows": n, "error": f"exit status {p.returncode}"}
    out = json.loads(stdout.strip().splitlines()[-1])
    out["peak_rss_bytes"] = usage.ru_maxrss * 1024  # Linux reports KiB
    return out


def summarise(runs: list[dict]) -> dict:
    """One size's repeats as one row: medians (peak RSS: the largest; errors: the first)."""
    errors = [r for r in runs if "error" in r]
    if errors:
        return errors[0]
    out = dict(runs[0])
    for k, v in runs[0].items():
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            out[k] = statistics.median(r[k] for r in runs)
    out["peak_rss_bytes"] = max(r["peak_rss_bytes"] for r in runs)
    cost = [r["engine_us_per_packet"] for r in runs]
    out["engine_us_per_packet_range"] = (min(cost), max(cost))
    out["repeats"] = len(runs)
    return out


def round_ratios(runs: dict[int, list[dict]], n: int, base: int) -> list[float]:
    """Engine cost per packet at `n` flows over that at `base`, round by round. A round's
    runs follow one another within seconds, so the spread of these ratios shows how far
    the shared machine's drift moves the ratio of the medians."""
    pairs = zip(runs[n], runs[base], strict=True)
    return [
        a["engine_us_per_packet"] / b["engine_us_per_packet"]
        for a, b in pairs
        if "error" not in a and "error" not in b
    ]


def table(rows: list[dict], ratios: dict[int, list[float]] | None = None) -> str:
    lines = [
        "| flows | bottleneck | events per packet | engine µs per packet | ns per event "
        "| peak RSS | load + validate + build | run() outside the event loop "
        "| run() outside the Rust core |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        if "error" in r:
            lines.append(f"| {r['flows']:,} | {r['error']} |" + " |" * 7)
            continue
        bps = r["bottleneck_bps"]
        rate = f"{bps / 1e9:g} Gb/s" if bps >= 1e9 else f"{bps / 1e6:g} Mb/s"
        lines.append(
            f"| {r['flows']:,} | {rate} | {r['events_per_packet']:.1f} "
            f"| {r['engine_us_per_packet']:.2f}{spread(r)} | {r['ns_per_event']:.0f} "
            f"| {r['peak_rss_bytes'] / 1e6:,.0f} MB | {r['load_validate_build_s']:.2f} s "
            f"| {r['outside_engine_fraction']:.1%} of {r['run_call_s']:.3f} s "
            f"| {r['outside_core_fraction']:.1%} |"
        )
    ok = [r for r in rows if "error" not in r]
    if len(ok) > 1:
        base = ok[0]
        lines.append("")
        for r in ok[1:]:
            each = (ratios or {}).get(r["flows"], [])
            rounds = f" (round by round: {min(each):.2f}-{max(each):.2f}x)" if len(each) > 1 else ""
            minima = ""
            if r.get("repeats", 1) > 1 and base.get("repeats", 1) > 1:
                lo = r["engine_us_per_packet_range"][0] / base["engine_us_per_packet_range"][0]
                minima = f"; of the minima {lo:.2f}x"
            lines.append(
                f"engine µs per packet at {r['flows']:,} flows / at {base['flows']:,} flows "
                f"(medians of {r.get('repeats', 1)}): "
                f"{r['engine_us_per_packet'] / base['engine_us_per_packet']:.2f}x{rounds}{minima}"
            )
    return "\n".join(lines).replace(",", " ")


def spread(r: dict) -> str:
    """The range of the engine cost over the repeats, when there were several."""
    if r.get("repeats", 1) < 2:
        return ""
    lo, hi = r["engine_us_per_packet_range"]
    return f" ({lo:.2f}-{hi:.2f})"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", default="100,1000,10000", help="flow counts, comma-separated")
    ap.add_argument(
        "--repeat", type=int, default=5, help="runs per size, in rounds; medians reported"
    )
    ap.add_argument("--sample-interval", default="100ms")
    ap.add_argument("--mem-limit-gb", type=float, default=8.0, help="address-space cap per size")
    ap.add_argument(
        "--warm", action="store_true", help="measure each size's second run in its process"
    )
    ap.add_argument("--json", action="store_true", help="also print each size's JSON line")
    ap.add_argument("--child", type=int, help=argparse.SUPPRESS)
    ap.add_argument(
        "--write-scenario",
        metavar="DIR",
        help="write each size's scenario (the JSON text the binding reads) to DIR and exit",
    )
    args = ap.parse_args()
    if args.write_scenario:
        from aqmlab.scenario import engine_text

        os.makedirs(args.write_scenario, exist_ok=True)
        for n in (int(x) for x in args.sizes.split(",")):
            path = os.path.join(args.write_scenario, f"dumbbell_{n}.json")
            with open(path, "w") as f:
                f.write(engine_text(dumbbell(n, args.sample_interval)))
            print(path)
        return
    if args.child is not None:
        child(args.child, args.sample_interval, args.warm)
        return
    if args.repeat < 1:
        ap.error(f"--repeat: {args.repeat} is not a positive count of runs")
    sizes = [int(x) for x in args.sizes.split(",")]
    runs: dict[int, list[dict]] = {n: [] for n in sizes}
    for _ in range(args.repeat):
        for n in sizes:
            runs[n].append(measure(n, args.sample_interval, args.mem_limit_gb, args.warm))
            if args.json:
                print(json.dumps(runs[n][-1]), file=sys.stderr, flush=True)
    ratios = {n: round_ratios(runs, n, sizes[0]) for n in sizes[1:]}
    if args.warm:
        print("(--warm: each figure is its process's second run of the scenario)")
    print(table([summarise(runs[n]) for n in sizes], ratios))


if __name__ == "__main__":
    main()
