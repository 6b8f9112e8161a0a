"""The REM-paper dumbbell in aqmlab and in ns-3, side by side, in one run.

    .venv/bin/python benchmarks/ns3_compare.py [--ns3-python PATH] [--n 160] [--sim 50]
        [--qdisc droptail|red] [--seed 1] [--ns3-sack] [--ns3-script PATH]
    .venv/bin/python benchmarks/ns3_compare.py --speed R --ns3-python PATH [--qdiscs droptail red]
        [--aqmlab-per-round 3]
    .venv/bin/python benchmarks/ns3_compare.py --agreement --ns3-python PATH [--sim 50]
        [--seeds 1 2 3] [--no-sack] [--ns3-cache DIR] [--ns3-script PATH]

aqmlab's scenario mirrors benchmarks/ns3_dumbbell_counters.py (the ns-3 reference):
N sender leaves -- 1 Gb/s, 10 ms -- left router -- 64 Mb/s, 20 ms -- right router --
1 Gb/s, 10 ms -- N sink leaves (80 ms base RTT); N NewReno bulk flows starting uniformly in
[0, 1) s; 1000-byte IP packets (960-byte segments); an ACK per segment; no SACK; 1 MB
socket buffers (a window of 1092 segments); a 120-packet FIFO on the bottleneck.

Matched deliberately (so the numbers compare like with like):
- ns-3 puts a 1-packet device queue under its 120-packet queue disc, so the port holds 121
  waiting packets besides the one on the wire: aqmlab uses limit_pkts = 121 and reports the
  queue disc's share, mean_q_pkts = mean - P(queue >= 1) from its queue-length distribution
  (the device slot is full whenever anything waits); mean_q_pkts_port counts all 121 slots.
- Goodput is payload (960 of the 1000 bytes), as ns-3's PacketSink counts it.
- ns-3's TCP defaults: initial cwnd 10 segments, minimum RTO 1 s, initial RTO 1 s, clock
  granularity 1 ms; aqmlab sets the same instead of its ns-2 defaults.
Not matched (explained in BENCHMARKS.md): ns-3 runs a SYN handshake and adds a 2-byte PPP
header to every frame; its start times come from its own RNG; its NewReno recovers with PRR.
ns-3's NewReno *without SACK* (the script's default) retransmits segments that were not
lost (issue 11: 32% of all segments with 20 flows), which inflates its utilisation and
queue; --ns3-sack runs it with SACK, whose retransmissions equal its drops.
--qdisc red: RED 20:80 as the ns-3 script's RedQueueDisc (red_ns3()).
benchmarks/ns3_dumbbell_counters.py is the ns-3 script with timeout, recovery and
retransmission counters (pass it as --ns3-script; its extra flags are described there).

--agreement (issue 11): both simulators on the dumbbell at 20 and 160 flows, DropTail and
RED, one seed after another (one simulation at a time), in the same TCP configuration:
NewReno with SACK and PRR on both sides (ns-3's defaults besides the script's overrides;
--no-sack: both without SACK, where ns-3 3.44 retransmits spuriously, see BENCHMARKS.md).
--ns3-cache DIR keeps each ns-3 run's JSON line in DIR (named by flows, qdisc, simulated
time, seed, SACK and script) and reuses it when present. One table: per (flows, qdisc)
the median and [min-max] over the seeds of utilisation, goodput, drop rate, mean queue and
timeouts, for aqmlab and ns-3, with aqmlab's relative difference from ns-3 (of the medians)
and a flag where it exceeds 10%. The ns-3 side is benchmarks/ns3_dumbbell_counters.py
(it counts timeouts) unless --ns3-script says otherwise. The aqmlab side selects
`profile = "ns3.44"` (docs/profiles.md; it brings ns-3.44's PRR, `recovery =
"prr_safe_ack"`) and then sets what the ns-3 *script* overrides of ns-3's defaults: NewReno
(not Cubic) with SACK, `variant = "sack"` (newreno with --no-sack), an ACK per segment
(DelAckCount 1: delayed_ack = false), 960-byte segments (packet_size 1000), 1 MB buffers
(max_window 1092), RED 20:80 max_p 0.1, not gentle, mean packet 1000 B (red_ns3()); from
the profile it keeps the rest (RED's ns2_qlen_guard, limited transmit, the 60 s RTO cap).
Per-run JSON lines go to stderr, the table to stdout.

--speed R (issue 15): the speed comparison, each qdisc of --qdiscs (DropTail and RED), R
rounds interleaving one ns-3 run with --aqmlab-per-round aqmlab.run() calls (the
configuration of the single run below: the script's defaults on both sides); prints the
median, min and max wall time of each and the ratio of the medians.

With --ns3-python (a Python with the PyPI package ns3 installed, outside this project) the
ns-3 script runs too, and the ratio of wall times is printed. Wall times: aqmlab's is the
whole aqmlab.run() call (parse, build, run, results); ns-3's is Simulator::Run() only.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

import aqmlab
from aqmlab import scenario as sc

ROOT = Path(__file__).resolve().parent.parent
NS3_SCRIPT = ROOT / "benchmarks" / "ns3_dumbbell_counters.py"


PKT = 1000  # IP packet bytes of every data segment, as the ns-3 script sends them
PAYLOAD = PKT - 40  # 960-byte segments: 20 bytes of IP and 20 of TCP header, no options


def red_ns3() -> dict:
    """The ns-3 script's RedQueueDisc (--qdisc red): thresholds 20 and 80 packets, max_p 0.1
    (LInterm 10), w_q 0.002, classic (not gentle), mean packet 1000 bytes, ns-2's count rule
    with `wait` (ns-3's `Wait` default true)."""
    return sc.red(
        20, 80, max_p=0.1, w_q=0.002, gentle=False, mean_pktsize=1000, count_rule="ns2_wait"
    )


def dumbbell(
    n: int,
    sim: float,
    seed: int = 1,
    buffer: int = 120,
    qdisc: str = "droptail",
    tcp: dict | None = None,
    profile: str | None = None,
) -> dict:
    """The dumbbell; `qdisc` "droptail" or "red" (red_ns3()); `tcp` overrides sc.tcp fields;
    `profile` is the scenario's profile (fields set here win over it)."""
    rng = np.random.Generator(np.random.PCG64(seed))
    aqm = red_ns3() if qdisc == "red" else None
    nodes = [sc.router("L"), sc.router("R")]
    links = [
        sc.link(
            "L",
            "R",
            name="bottleneck",
            bandwidth="64Mbps",
            delay="20ms",
            queue=sc.queue(limit_pkts=buffer + 1, aqm=aqm),  # qdisc + 1-packet device queue
        )
    ]
    flows = []
    access = sc.queue(limit_pkts=100)  # ns-3's default device queue on access links
    for i in range(n):
        nodes += [sc.host(f"s{i}"), sc.host(f"d{i}")]
        links += [
            sc.link(f"s{i}", "L", bandwidth="1Gbps", delay="10ms", queue=access),
            sc.link("R", f"d{i}", bandwidth="1Gbps", delay="10ms", queue=access),
        ]
        fields = {
            "packet_size": PKT,
            "variant": "newreno",
            "start": f"{round(rng.uniform(0.0, 1.0) * 1e9)}ns",
            "max_window": (1 << 20) // PAYLOAD,
            "initial_cwnd": 10,
            "min_rto": "1s",
            "initial_rto": "1s",
            "granularity": "1ms",
        }
        flows.append(sc.tcp(f"f{i}", f"s{i}", f"d{i}", **{**fields, **(tcp or {})}))
    return sc.scenario(
        duration=f"{sim:g}s",
        seed=seed,
        sample_interval="1s",
        profile=profile,
        nodes=nodes,
        links=links,
        flows=flows,
    )


def run_aqmlab(
    n: int,
    sim: float,
    reps: int,
    qdisc: str = "droptail",
    seed: int = 1,
    tcp: dict | None = None,
    profile: str | None = None,
) -> dict:
    s = dumbbell(n, sim, seed=seed, qdisc=qdisc, tcp=tcp, profile=profile)
    best = float("inf")
    for _ in range(reps):
        t0 = time.perf_counter()
        r = aqmlab.run(s)
        best = min(best, time.perf_counter() - t0)
    q = r.queues.set_index("name").loc["L->R"]
    dist = r.queue_dist[r.queue_dist["queue"] == "L->R"]
    busy = float(dist[dist["n_pkts"] >= 1]["fraction"].sum())
    drops = int(sum(q[f"dropped_{x}"] for x in r.reasons))
    return {
        "simulator": f"aqmlab {aqmlab.__version__}",
        "n": n,
        "qdisc": qdisc,
        "seed": seed,
        "sim_s": sim,
        "wall_run_s": round(best, 3),
        "events": r.events,
        "events_per_wall_s": round(r.events / best),
        "bneck_pkts": int(q["dequeued"]),
        "bneck_pkts_per_wall_s": round(q["dequeued"] / best),
        "bneck_util": round(float(q["utilization"]), 4),
        # Payload, as ns-3's PacketSink counts it: aqmlab's goodput_bps counts whole
        # packets (packet_size, 40 bytes of IP and TCP header included).
        "goodput_mbps": round(float(r.flows["goodput_bps"].sum()) * PAYLOAD / PKT / 1e6, 3),
        "drops": drops,
        "drops_by_reason": {x: int(q[f"dropped_{x}"]) for x in r.reasons},
        "drop_rate": round(drops / max(1, int(q["arrivals"])), 5),
        # The queue disc's share, as ns-3 measures it: aqmlab's port counts the packet that
        # ns-3 keeps in its 1-packet device queue whenever anything waits, so the queue
        # disc holds max(k - 1, 0) of aqmlab's k: mean - P(k >= 1).
        "mean_q_pkts": round(float(q["mean_queue_pkts"]) - busy, 2),
        "mean_q_pkts_port": round(float(q["mean_queue_pkts"]), 2),
        "max_q_pkts": int(q["max_queue_pkts"]),
        "timeouts": int(r.flows["timeouts"].sum()),
        "timeouts_by_state": {
            k: int(r.flows[f"timeouts_{k}"].sum()) for k in ("open", "disorder", "recovery", "loss")
        },
        "retransmits": int(r.flows["retransmits"].sum()),
        "fast_recoveries": int(r.flows["fast_recoveries"].sum()),
    }


def run_ns3(
    python: str,
    n: int,
    sim: float,
    qdisc: str = "droptail",
    seed: int = 1,
    script: Path = NS3_SCRIPT,
    sack: bool = False,
) -> dict:
    cmd = [python, str(script), "--n", str(n), "--qdisc", qdisc, "--sim", f"{sim:g}"]
    out = subprocess.run(
        [*cmd, "--seed", str(seed), "--sack", str(int(sack))],
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


NS3_COUNTERS = ROOT / "benchmarks" / "ns3_dumbbell_counters.py"
# (key in the result JSON, column label, format)
AGREEMENT_METRICS = [
    ("bneck_util", "utilisation", "{:.4f}"),
    ("goodput_mbps", "goodput Mb/s", "{:.2f}"),
    ("drop_rate", "drop rate", "{:.4f}"),
    ("mean_q_pkts", "mean queue pkts", "{:.1f}"),
    ("timeouts", "timeouts", "{:.0f}"),
]
AGREEMENT_TOLERANCE = 0.10


def rel_diff(a: float, b: float) -> float | None:
    """(a - b) / b; None when b is 0 (and a is not)."""
    if b == 0:
        return 0.0 if a == 0 else None
    return (a - b) / b


def agreement_table(runs: list[dict], tol: float = AGREEMENT_TOLERANCE) -> tuple[str, list]:
    """The agreement table (Markdown) from `runs`: dicts with n, qdisc, seed, and the two
    results "aqmlab" and "ns3". Returns the table and the flagged (n, qdisc, metric, diff)."""
    rows = [
        "| flows | qdisc | metric | aqmlab median [min-max] | ns-3 median [min-max] "
        "| aqmlab vs ns-3 | > 10% |",
        "|---|---|---|---|---|---|---|",
    ]
    flagged = []
    cells = sorted({(r["n"], r["qdisc"]) for r in runs}, key=lambda c: (c[0], c[1]))
    for n, qdisc in cells:
        group = [r for r in runs if r["n"] == n and r["qdisc"] == qdisc]
        for key, label, fmt in AGREEMENT_METRICS:
            col = {}
            for side in ("aqmlab", "ns3"):
                v = [float(r[side][key]) for r in group]
                med = float(np.median(v))
                col[side] = (
                    med,
                    f"{fmt.format(med)} [{fmt.format(min(v))}-{fmt.format(max(v))}]",
                )
            d = rel_diff(col["aqmlab"][0], col["ns3"][0])
            flag = d is None or abs(d) > tol
            if flag:
                flagged.append((n, qdisc, label, d))
            rows.append(
                f"| {n} | {qdisc} | {label} | {col['aqmlab'][1]} | {col['ns3'][1]} "
                f"| {'n/a' if d is None else f'{d:+.1%}'} | {'**yes**' if flag else ''} |"
            )
    return "\n".join(rows), flagged


def run_ns3_cached(cache: Path | None, python: str, n, sim, qdisc, seed, script, sack) -> dict:
    """run_ns3, or its JSON line from `cache` when a run with these settings is stored."""
    name = f"ns3_n{n}_{qdisc}_sim{sim:g}_seed{seed}_sack{int(sack)}_{script.stem}.json"
    if cache is not None and (cache / name).exists():
        return json.loads((cache / name).read_text().strip().splitlines()[-1])
    b = run_ns3(python, n, sim, qdisc, seed, script, sack)
    if cache is not None:
        cache.mkdir(parents=True, exist_ok=True)
        (cache / name).write_text(json.dumps(b) + "\n")
    return b


def agreement(args: argparse.Namespace) -> int:
    """--agreement: both simulators, 20 and 160 flows, DropTail and RED, args.seeds."""
    if not args.ns3_python and not args.ns3_cache:
        sys.exit("--agreement needs --ns3-python (or --ns3-cache holding every run)")
    script = args.ns3_script
    sack = not args.no_sack
    tcp = {"delayed_ack": False, "variant": "sack" if sack else "newreno"}
    runs = []
    for n in (20, 160):
        for qdisc in ("droptail", "red"):
            for seed in args.seeds:
                a = run_aqmlab(n, args.sim, 1, qdisc, seed, tcp=tcp, profile="ns3.44")
                print(json.dumps(a), file=sys.stderr, flush=True)
                b = run_ns3_cached(
                    args.ns3_cache, args.ns3_python, n, args.sim, qdisc, seed, script, sack
                )
                b.pop("per_socket_id_tx_retx_fr_to", None)
                print(json.dumps(b), file=sys.stderr, flush=True)
                runs.append({"n": n, "qdisc": qdisc, "seed": seed, "aqmlab": a, "ns3": b})
    table, flagged = agreement_table(runs)
    print(
        f"ns-3 agreement, dumbbell, {args.sim:g} s simulated, seeds {args.seeds}; "
        f"both NewReno {'with SACK' if sack else 'without SACK'} and ns-3.44's PRR; "
        f"aqmlab profile ns3.44 + the script's overrides; ns-3 {script.name}"
    )
    print(table)
    print(
        f"{len(flagged)} of {len(runs) // len(args.seeds) * len(AGREEMENT_METRICS)} "
        f"differences exceed {AGREEMENT_TOLERANCE:.0%}"
    )
    return 0


def speed(args: argparse.Namespace) -> int:
    """--speed R: ns-3 and aqmlab side by side, interleaved, for each qdisc of --qdiscs.

    R rounds; in each, per qdisc, one ns-3 run (its Simulator::Run wall time, as the script
    reports it) and then --aqmlab-per-round whole aqmlab.run() calls, each timed alone. The
    machine's speed drifts within minutes: interleaving puts both simulators under the same
    drift, and the medians drop the outliers of either. Per qdisc: median, min and max of
    each, and the ratio of the medians."""
    if not args.ns3_python:
        sys.exit("--speed needs --ns3-python")
    walls: dict[str, dict[str, list[float]]] = {q: {"ns3": [], "aqmlab": []} for q in args.qdiscs}
    scenarios = {q: dumbbell(args.n, args.sim, seed=args.seed, qdisc=q) for q in args.qdiscs}
    aqmlab.run(scenarios[args.qdiscs[0]])  # loads the extension and warms the allocator
    for r in range(args.speed):
        for q in args.qdiscs:
            b = run_ns3(args.ns3_python, args.n, args.sim, q, args.seed, args.ns3_script)
            walls[q]["ns3"].append(float(b["wall_run_s"]))
            for _ in range(args.aqmlab_per_round):
                t0 = time.perf_counter()
                aqmlab.run(scenarios[q])
                walls[q]["aqmlab"].append(time.perf_counter() - t0)
            print(
                json.dumps(
                    {
                        "round": r,
                        "qdisc": q,
                        "ns3_s": walls[q]["ns3"][-1],
                        "aqmlab_s": [
                            round(x, 4) for x in walls[q]["aqmlab"][-args.aqmlab_per_round :]
                        ],
                    }
                ),
                file=sys.stderr,
                flush=True,
            )
    print(
        f"{args.n}-flow dumbbell, {args.sim:g} s simulated, {args.speed} interleaved rounds: "
        "ns-3 Simulator::Run vs the whole aqmlab.run()"
    )
    print("| qdisc | ns-3 median [min-max] s | aqmlab median [min-max] s | ratio of medians |")
    print("|---|---|---|---|")
    for q in args.qdiscs:
        n3, aq = walls[q]["ns3"], walls[q]["aqmlab"]
        print(
            f"| {q} | {np.median(n3):.1f} [{min(n3):.1f}-{max(n3):.1f}] "
            f"| {np.median(aq):.3f} [{min(aq):.3f}-{max(aq):.3f}] "
            f"| **{np.median(n3) / np.median(aq):.0f}x** |"
        )
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ns3-python", help="python with the ns3 package (outside the project)")
    ap.add_argument("--n", type=int, default=160)
    ap.add_argument("--sim", type=float, default=50.0)
    ap.add_argument("--reps", type=int, default=3, help="aqmlab runs; the best is kept")
    ap.add_argument("--qdisc", choices=["droptail", "red"], default="droptail")
    ap.add_argument("--seed", type=int, default=1, help="start-time RNG (aqmlab), RngRun (ns-3)")
    ap.add_argument("--ns3-script", type=Path, default=NS3_SCRIPT, help="the ns-3 script to run")
    ap.add_argument("--ns3-sack", action="store_true", help="ns-3 with SACK (see the docstring)")
    ap.add_argument(
        "--agreement", action="store_true", help="the issue-11 agreement table (docstring)"
    )
    ap.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3], help="with --agreement")
    ap.add_argument("--no-sack", action="store_true", help="with --agreement: both without SACK")
    ap.add_argument("--ns3-cache", type=Path, help="with --agreement: ns-3 JSON cache directory")
    ap.add_argument(
        "--speed",
        type=int,
        metavar="R",
        help="R interleaved rounds of ns-3 and aqmlab per qdisc; prints the ratio of medians",
    )
    ap.add_argument("--qdiscs", nargs="+", default=["droptail", "red"], help="with --speed")
    ap.add_argument("--aqmlab-per-round", type=int, default=3, help="with --speed")
    args = ap.parse_args()
    if args.speed:
        return speed(args)
    if args.agreement:
        return agreement(args)
    a = run_aqmlab(args.n, args.sim, args.reps, args.qdisc, args.seed)
    print(json.dumps(a))
    if args.ns3_python:
        b = run_ns3(
            args.ns3_python, args.n, args.sim, args.qdisc, args.seed, args.ns3_script, args.ns3_sack
        )
        print(json.dumps(b))
        print(
            f"speed-up (ns-3 Simulator::Run wall / aqmlab run wall): "
            f"{b['wall_run_s'] / a['wall_run_s']:.1f}x"
        )
        for k in ("bneck_util", "goodput_mbps", "drop_rate", "mean_q_pkts", "max_q_pkts"):
            print(f"  {k:<14} aqmlab {a[k]!s:>10}   ns-3 {b[k]!s:>10}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
