"""BIO Revisited (Okuroglu & Oktug): BIO-AAI vs RIO on the 10-domain ISP network of §4.

Network (§4, Fig. 1): 10 client domains (networks 0-9), each one host running 32 FTP/TCP
flows to its matching domain across the ISP (edge 1 → core → edge 2). Edge 1 meters each
domain with a two-colour token bucket (target 0.8 Mb/s for even networks, 4.0 Mb/s for
odd). Link 1 (edge 1 → core) is 66 Mb/s, every other link 33 Mb/s, so link 2 (core → edge
2) is the bottleneck, with RIO or BIO and 260 one-KB packets of buffer. ECN on.

Choices where the paper is silent (each also printed in the report, CHOICES):
- RTT (n/2 + 1)·20 ms read with integer division, as Tcl's `expr $n/2` gives for the
  integer n: 20, 20, 40, 40, ..., 100, 100 ms, so each RTT has one low-target and one
  high-target network (the pairs Fig. 4 contrasts).
- The run ends at 470 s: measurements are taken over 100-470 s and the flows stop over
  475-500 s, so the last 30 s cannot change what is measured.
- TCP and RED details: ns-2.26 as the PSAND reproduction expresses it (profile `ns2-2001`
  plus the 2.26 changes: 10 ms clock, limited transmit, 40-byte headers), NewReno.
"""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import pandas as pd

from aqmlab import diffserv as ds
from aqmlab import scenario as sc
from aqmlab.experiments.bio_claims import CLAIMS, PHASE, claims
from aqmlab.experiments.ns2_era import HEADER, PROFILE, TCP_NS226
from aqmlab.plans import UniformStarts
from aqmlab.reproduce import Claim, Context, Experiment, fmt

NETWORKS = 10
FLOWS_PER_NETWORK = 32
QLIM = 260
CAPACITY = 33e6
PACKET = 1000
Q = "c->e2"  # the bottleneck queue (link 2)
TOKEN_BUCKET_CBS = 10 * (PACKET + HEADER)  # ten packets: the paper does not give it

# Table 1: (w_q, max_p) -> (goodput Mb/s, total loss rate, avg queue at arrivals).
TABLE1 = {
    (0.0001, 0.10): (32.9030701248242, 0.11889507, 126.1374),
    (0.0002, 0.10): (32.9746413061960, 0.12048474, 124.1927),
    (0.0006, 0.20): (32.9999999983952, 0.08771180, 127.0812),
    (0.0001, 1.00): (32.9999999983952, 0.01198577, 126.4260),
    (0.0800, 1.00): (32.9999999983952, 0.01476733, 119.6525),
}
BIO_TABLE1 = (32.9998851042515, 0.00001755, 60.9447)
# BIO-AAI (§4): (increment, decrement, increment freeze s, decrement freeze s) per level.
BIO_IN = (0.02, 0.01, 0.02, 0.01)
BIO_OUT = (0.001, 0.001, 0.003, 0.003)
VARIANTS = ["SST", "SAT", "AST", "AAT", "SSI", "SAI", "ASI", "AAI"]

CHOICES = [
    "RTT (n/2 + 1)·20 ms with integer n/2 (Tcl `expr` on integers): 20, 20, 40, 40, 60, 60, "
    "80, 80, 100, 100 ms for networks 0-9. One-way: the access links (source and sink "
    "sides) carry RTT/4 − 1 ms each, links 1 and 2 carry 1 ms each.",
    "One host per client domain runs its 32 FTP flows (ns-2 attaches many agents to a "
    "node); the access links (33 Mb/s) carry about 3.3 Mb/s and never queue.",
    f"Token bucket per domain at edge 1: CIR = the target, CBS = {TOKEN_BUCKET_CBS} B (ten "
    "packets; the paper gives no bucket size). OUT packets are red, the second RIO/BIO "
    "precedence.",
    "Starts uniform over [0, 25) s per flow, drawn per replication (PCG64 of seed and run); "
    "the run ends at 470 s (measurement 100-470 s; the stops over 475-500 s come after it).",
    "The queue limit of every non-bottleneck port is 10 000 packets (DropTail): the paper "
    "names only the bottleneck's buffer, and those ports never fill.",
    "TCP: NewReno with ECN (the paper says FTP/TCP with ECN; ns-2's default Agent/TCP is "
    "Tahoe, which aqmlab does not model), ns-2.26 defaults: profile ns2-2001 plus 10 ms "
    "clock, limited transmit and 40-byte headers; window 20 (ns-2 window_); NewReno's "
    "recovery as ns-2 of 2001 (`partial_ack`, `halving`, `fr_timer`: docs/profiles.md). From the "
    "profile, ns-2's response to a mark (`ecn_backoff`: the window halves to 1 or 0 and "
    "waits for the timer) and ECN-capable retransmissions: with 320 flows a floor of 2 "
    "segments each (Linux, ns-3) would be 640 packets, more than the path and buffer hold "
    "(about 240 + 260), so marks alone could never keep the buffer from overflowing.",
    "RIO: ns-2's Queue/RED/RIO as docs/aqm/rio.md writes it in aqmlab's terms (two-level "
    "RIO-C, count rule ns2_wait, the link's idle clock, the one-packet guard, ECN marks only "
    "below max_th and forced drops above it, not gentle, and its known bug: the total "
    "average that OUT packets use is updated on IN arrivals only), one (w_q, max_p) for "
    "both levels as Table 1 lists one. (A first full run used aqmlab's RIO defaults, the "
    "ns-2 DiffServ semantics, instead; the paper ran ns-2's RIO, so the recipe is the run "
    "of record. With the defaults the two max_p = 1.0 rows held 80 packets with no loss.)",
    "BIO: freeze times as given, max_th_in = qlim, max_th_out = qlim/2; the T variants "
    "(beyond the paper) use RIO's min_th_in = qlim/2 and min_th_out = qlim/6 as their "
    "lower thresholds.",
    "'Goodput on bottleneck link' is read as link 2's throughput (the paper's values sit "
    "at its 33 Mb/s); 'Avg Delay' as the mean queue seen by arrivals (the paper: 'the "
    "number of packets in queue for each packet arrival'); 'total loss rate' as all drops "
    "at link 2 over its arrivals.",
]


def rtt_ms(n: int) -> int:
    return (n // 2 + 1) * 20


def target_bps(n: int) -> float:
    return 0.8e6 if n % 2 == 0 else 4.0e6


def _base(quick: bool) -> dict:
    big = sc.queue(limit_pkts=10_000)
    nodes = [sc.host(f"s{n}") for n in range(NETWORKS)]
    nodes += [sc.host(f"d{n}") for n in range(NETWORKS)]
    cond = ds.conditioner(
        [
            ds.traffic_class(
                f"net{n}",
                ds.token_bucket(cir=f"{target_bps(n) / 1e6:g}Mbps", cbs=TOKEN_BUCKET_CBS),
                precedence=1,
            )
            for n in range(NETWORKS)
        ],
        [ds.policy(f"net{n}", src=f"s{n}") for n in range(NETWORKS)],
        capacity="33Mbps",
    )
    nodes += [sc.router("e1", [cond]), sc.router("c"), sc.router("e2")]
    links = [
        sc.link(f"s{n}", "e1", bandwidth="33Mbps", delay=f"{rtt_ms(n) / 4 - 1:g}ms", queue=big)
        for n in range(NETWORKS)
    ]
    links.append(sc.link("e1", "c", bandwidth="66Mbps", delay="1ms", queue=big))
    links.append(
        sc.link("c", "e2", bandwidth="33Mbps", delay="1ms", queue=sc.queue(limit_pkts=QLIM))
    )
    links += [
        sc.link("e2", f"d{n}", bandwidth="33Mbps", delay=f"{rtt_ms(n) / 4 - 1:g}ms", queue=big)
        for n in range(NETWORKS)
    ]
    flows = [
        sc.tcp(
            f"n{n}_{k}",
            f"s{n}",
            f"d{n}",
            variant="newreno",
            ecn=True,
            packet_size=PACKET + HEADER,
            max_window=20,
            start="0s",
            **TCP_NS226,
        )
        for n in range(NETWORKS)
        for k in range(FLOWS_PER_NETWORK)
    ]
    duration, warmup, sample = ("60s", "30s", "100ms") if quick else ("470s", "100s", "1s")
    return sc.scenario(
        profile=PROFILE,
        duration=duration,
        warmup=warmup,
        seed=1,
        sample_interval=sample,
        nodes=nodes,
        links=links,
        flows=flows,
    )


BOTTLENECK = NETWORKS + 1  # links[] index of link 2


def _start_window(s: dict) -> float:
    return 5.0 if s["simulation"]["duration"] == "60s" else 25.0


def draw_starts(s: dict) -> dict[str, str]:
    """One replication's start times (the sweep's ``per_run``): uniform over the first 25 s
    (5 s at quick size), from a PCG64 stream of (seed, run)."""
    return UniformStarts(_start_window(s))(s)


def rio(w_q: float, max_p: float) -> dict:
    """Table 1's RIO: IN (min qlim/2, max qlim), OUT (min qlim/6, max qlim/2)."""
    return {
        "type": "rio",
        "mode": "rio_c",
        "levels": [
            {"min_th": QLIM / 2, "max_th": QLIM, "max_p": max_p},
            {"min_th": QLIM / 6, "max_th": QLIM / 2, "max_p": max_p},
        ],
        "w_q": w_q,
        "ecn": True,
        # ns-2's Queue/RED/RIO, which the paper's ns-2 ran (docs/aqm/rio.md, its recipe):
        # forced drops above max_th even with ECN, ns-2's count rule and idle clock, the
        # one-packet guard, and its total average updated on IN arrivals only.
        "mark_above_max_th": False,
        "count_rule": "ns2_wait",
        "idle_start": "link_idle",
        "ns2_qlen_guard": True,
        "total_avg_on_in_only": True,
        "gentle": False,
        "mean_pktsize": PACKET + HEADER,
    }


def bio(variant: str = "AAI", ecn: bool = True) -> dict:
    def level(p, min_th, max_th):
        inc, dec, f_inc, f_dec = p
        out = {
            "d1": inc,
            "d2": dec,
            "freeze_inc": f"{f_inc * 1000:g}ms",
            "freeze_dec": f"{f_dec * 1000:g}ms",
            "max_th": max_th,
        }
        if variant.endswith("T"):  # the threshold mark rule needs a lower threshold
            out["min_th"] = min_th
        return out

    return {
        "type": "bio",
        "variant": variant,
        "levels": [level(BIO_IN, QLIM / 2, QLIM), level(BIO_OUT, QLIM / 6, QLIM / 2)],
        "ecn": ecn,
    }


def configurations() -> dict[str, dict]:
    """Every configuration: the five RIO rows and BIO-AAI (Table 1), the other seven BIO
    variants and BIO-AAI without ECN (beyond the paper)."""
    path = f"links[{BOTTLENECK}].queue.aqm"
    out = {f"RIO w_q={w} max_p={p}": {path: rio(w, p)} for (w, p) in TABLE1}
    out["BIO-AAI"] = {path: bio("AAI")}
    for v in VARIANTS:
        if v != "AAI":
            out[f"BIO-{v}"] = {path: bio(v)}
    no_ecn = {path: bio("AAI", ecn=False)}
    no_ecn.update({f"flows[{i}].ecn": False for i in range(NETWORKS * FLOWS_PER_NETWORK)})
    out["BIO-AAI no ECN"] = no_ecn
    return out


RUNS, RUNS_QUICK = 5, 2


def run(ctx: Context) -> list[Claim]:
    runs = RUNS_QUICK if ctx.quick else RUNS
    configs = configurations()
    res = ctx.sweep(
        _base(ctx.quick),
        variants=configs,
        runs=runs,
        phase=PHASE,
        per_run=draw_starts,
    )
    s = res.summary.set_index("variant")
    q = f"queue:{Q}"

    def stat(label: str, metric: str, what: str = "mean") -> float:
        return float(s.loc[label, f"{metric}:{what}"])

    rows = []
    for label in configs:
        arrivals = stat(label, f"{q}:arrivals")
        rows.append(
            {
                "configuration": label,
                "goodput_mbps": stat(label, f"{q}:throughput_bps") / 1e6,
                "goodput_ci": stat(label, f"{q}:throughput_bps", "ci95") / 1e6,
                "loss": stat(label, f"{q}:dropped_total") / arrivals,
                "avg_queue": stat(label, f"{q}:mean_queue_at_arrival_pkts"),
                "avg_queue_ci": stat(label, f"{q}:mean_queue_at_arrival_pkts", "ci95"),
                "time_avg_queue": stat(label, f"{q}:mean_queue_pkts"),
                "marked": stat(label, f"{q}:marked") / arrivals,
            }
        )
    table = pd.DataFrame(rows).set_index("configuration")
    # Per-replication loss rates, for intervals on the loss claims.
    loss = res.runs[f"{q}:dropped_total"] / res.runs[f"{q}:arrivals"]
    per_run = pd.DataFrame({"variant": res.runs["variant"], "loss": loss})
    loss_ci = per_run.groupby("variant")["loss"].agg(["mean", "std", "count"])
    from aqmlab.stats import half_width

    loss_ci["ci95"] = [
        half_width(sd, int(n)) for sd, n in zip(loss_ci["std"], loss_ci["count"], strict=True)
    ]
    table["loss_ci"] = loss_ci["ci95"].reindex(table.index)
    ratios = _ratios(s, configs)
    _write_tables(ctx, table, ratios, runs)
    _plot_fig4(ctx, ratios)
    _plot_queues(ctx, res)
    ctx.notes.append("Choices where the paper is silent:\n" + "\n".join(f"- {c}" for c in CHOICES))
    return claims(table, ratios, TABLE1, BIO_TABLE1, quick=ctx.quick)


def _ratios(s: pd.DataFrame, configs: dict) -> pd.DataFrame:
    """Throughput / target per network (Fig. 4), replication means, per configuration."""
    out = {}
    for label in configs:
        out[label] = [
            float(s.loc[label, f"aggregate:e1/net{n}:target_ratio:mean"]) for n in range(NETWORKS)
        ]
    return pd.DataFrame(out, index=pd.Index(range(NETWORKS), name="network"))


def _write_tables(ctx: Context, table: pd.DataFrame, ratios: pd.DataFrame, runs: int) -> None:
    lines = [
        f"Table 1 (link 2; {runs} replications, mean ± 95% CI; the paper's single run beside):",
        "",
        "| configuration | goodput Mb/s (paper) | total loss rate (paper) | avg queue at "
        "arrivals, pkts (paper) | time-average queue | marked / arrivals |",
        "|---|---|---|---|---|---|",
    ]
    paper = {f"RIO w_q={w} max_p={p}": v for (w, p), v in TABLE1.items()}
    paper["BIO-AAI"] = BIO_TABLE1
    for label, r in table.iterrows():
        pg, pl, pq = (f" ({fmt(x)})" for x in paper[label]) if label in paper else ("",) * 3
        lines.append(
            f"| {label} | {fmt(r.goodput_mbps)} ± {fmt(r.goodput_ci)}{pg} | "
            f"{fmt(r.loss)} ± {fmt(r.loss_ci)}{pl} | "
            f"{fmt(r.avg_queue)} ± {fmt(r.avg_queue_ci)}{pq} | "
            f"{fmt(r.time_avg_queue)} | {fmt(r.marked)} |"
        )
    lines += [
        "",
        "Fig. 4 (throughput / target per network, replication means):",
        "",
        "| network | RTT ms | target Mb/s | " + " | ".join(ratios.columns) + " |",
        "|---|---|---|" + "---|" * len(ratios.columns),
    ]
    for n, r in ratios.iterrows():
        lines.append(
            f"| {n} | {rtt_ms(n)} | {target_bps(n) / 1e6:g} | "
            + " | ".join(fmt(x) for x in r)
            + " |"
        )
    ctx.notes.append("\n".join(lines))


def _plot_fig4(ctx: Context, ratios: pd.DataFrame) -> None:
    shown = [c for c in ratios.columns if c.startswith("RIO")] + ["BIO-AAI"]
    fig, ax = plt.subplots(figsize=(9, 4))
    width = 0.8 / len(shown)
    for i, label in enumerate(shown):
        ax.bar(ratios.index + (i - len(shown) / 2) * width, ratios[label], width, label=label)
    ax.axhline(1.0, color="0.3", linewidth=0.8)
    ax.set_xlabel("network (even: target 0.8 Mb/s, odd: 4.0 Mb/s; RTT (n//2+1)·20 ms)")
    ax.set_ylabel("throughput / target")
    ax.set_xticks(ratios.index)
    ax.legend(fontsize=7)
    fig.tight_layout()
    p = ctx.out / "fig4.png"
    fig.savefig(p, dpi=120)
    plt.close(fig)
    ctx.figure("Fig. 4: measured throughput over target rate per network", p)


def _plot_queues(ctx: Context, res) -> None:
    """Figs. 2-3: the bottleneck's instantaneous queue over time in replication 0: BIO-AAI
    (Fig. 2) and, one panel each, the five RIO settings of Table 1 (Fig. 3; the paper does
    not say which setting its figure shows). The shaded span is before the measurement
    window; the lines are max_th_out = qlim/2 and the buffer, qlim."""
    first = res.runs[res.runs["run"] == 0]
    series = {}
    for label, key in zip(first["variant"], [res.keys[i] for i in first.index], strict=True):
        if label == "BIO-AAI" or label.startswith("RIO"):
            ts = ctx.timeseries(key)
            series[label] = ts[ts["queue"] == Q]
    warm = pd.to_timedelta(_base(ctx.quick)["simulation"]["warmup"]).total_seconds()

    def panel(ax, label: str) -> None:
        qs = series[label]
        ax.plot(qs["time_s"], qs["qlen_pkts"], linewidth=0.6, color="C0")
        ax.axvspan(0, warm, color="0.92", zorder=0)
        for y, style in [(QLIM / 2, ":"), (QLIM, "--")]:
            ax.axhline(y, color="0.4", linewidth=0.8, linestyle=style)
        ax.set_ylim(0, QLIM * 1.05)
        ax.set_ylabel("packets")
        ax.set_title(label, fontsize=9)

    fig, ax = plt.subplots(figsize=(9, 3))
    panel(ax, "BIO-AAI")
    ax.set_xlabel("time (s)")
    fig.tight_layout()
    p = ctx.out / "fig2.png"
    fig.savefig(p, dpi=120)
    plt.close(fig)
    ctx.figure("Fig. 2: the bottleneck queue over time under BIO-AAI (replication 0)", p)
    rios = [k for k in series if k.startswith("RIO")]
    fig, axes = plt.subplots(len(rios), 1, figsize=(9, 1.9 * len(rios)), sharex=True)
    for ax, label in zip(axes, rios, strict=True):
        panel(ax, label)
    axes[-1].set_xlabel("time (s)")
    fig.tight_layout()
    p = ctx.out / "fig3.png"
    fig.savefig(p, dpi=120)
    plt.close(fig)
    ctx.figure("Fig. 3: the bottleneck queue over time under each RIO setting (replication 0)", p)


EXPERIMENT = Experiment(
    name="bio",
    title="BIO Revisited: BIO-AAI vs RIO with token-bucket marking and ECN",
    source=(
        'B. Okuroglu, S. Oktug, "BIO Revisited", Istanbul Technical University (undated; '
        "its latest reference is of 2001), Section 4, Table 1, Figs. 2-4"
    ),
    run=run,
    declared=CLAIMS,
    description=__doc__ or "",
)

__all__ = ["CLAIMS", "EXPERIMENT", "configurations", "draw_starts", "rtt_ms"]
