"""N equal-RTT NewReno flows on one DropTail bottleneck: fairness, utilisation and loss as
N grows (the TCP validation cases of docs/tcp.md)."""

from __future__ import annotations

from aqmlab import scenario as sc
from aqmlab.claims import Claim, Declarations, Declared, at_least, fmt, increasing
from aqmlab.plot import HLine, plot_sweep
from aqmlab.reproduce import Context, Experiment
from aqmlab.sweep import summarise

Q = "queue:r0->r1"

CLAIMS = Declarations(
    "Tolerances, fixed before the runs (the expectation → our rule → why):",
    {
        "fairness": Declared(
            "Jain et al. (1984): the fairness index of the flows' goodputs is 1 when all get "
            "equal shares; equal-RTT NewReno flows on one bottleneck share it equally",
            "the replication mean of the Jain index ≥ 0.95 at every N",
            "drop-tail synchronisation and staggered starts leave short-term unfairness that "
            "a 60-300 s run does not average out entirely; 0.95 still fails a flow that is "
            "shut out",
            lambda: at_least(0.95),
        ),
        "utilisation": Declared(
            "a 50-packet buffer, about a bandwidth-delay product of the 10 Mb/s, 48 ms path "
            "(40 packets), keeps the bottleneck busy",
            "the replication mean of the bottleneck's utilisation ≥ 0.9 at every N",
            "with a buffer near one bandwidth-delay product Reno's halving leaves the link "
            "idle only briefly; 0.9 fails a model whose window or recovery is broken",
            lambda: at_least(0.9),
        ),
        "loss grows": Declared(
            "more flows on the same bottleneck → a higher loss rate (each needs a few "
            "packets in flight, so the drop rate rises with N)",
            "the replication means of the loss rate strictly increasing with N",
            "a direction only: the expectation has no magnitude",
            lambda losses: increasing(losses),
        ),
    },
)


def base(n: int, duration: str) -> dict:
    nodes = [sc.router("r0"), sc.router("r1")]
    links = [sc.link("r0", "r1", bandwidth="10Mbps", delay="20ms", queue=sc.queue(limit_pkts=50))]
    flows = []
    for i in range(n):
        nodes += [sc.host(f"s{i}"), sc.host(f"d{i}")]
        links += [
            sc.link(
                f"s{i}", "r0", bandwidth="100Mbps", delay="2ms", queue=sc.queue(limit_pkts=1000)
            ),
            sc.link(
                "r1", f"d{i}", bandwidth="100Mbps", delay="2ms", queue=sc.queue(limit_pkts=1000)
            ),
        ]
        flows.append(sc.tcp(f"f{i}", f"s{i}", f"d{i}", start=f"{37 * i}ms"))
    return sc.scenario(
        duration=duration,
        warmup="10s",
        seed=1,
        sample_interval="1s",
        nodes=nodes,
        links=links,
        flows=flows,
    )


def run(ctx: Context) -> list[Claim]:
    ns, duration, runs = ([2, 4, 8], "60s", 3) if ctx.quick else ([2, 4, 8, 16, 32], "300s", 10)
    frames = []
    for n in ns:
        r = ctx.sweep(
            base(n, duration), {"simulation.seed": [1]}, runs=runs, phase=f"N = {n} flows"
        ).runs.copy()
        g = r[[f"flow:f{i}:goodput_bps" for i in range(n)]].to_numpy()
        r["flows"] = n
        r["jain"] = g.sum(axis=1) ** 2 / (n * (g**2).sum(axis=1))
        r["loss"] = r[f"{Q}:dropped_total"] / r[f"{Q}:arrivals"]
        r["util"] = r[f"{Q}:utilization"]
        frames.append(r[["flows", "run", "jain", "loss", "util"]])
    import pandas as pd

    s = summarise(pd.concat(frames, ignore_index=True), ["flows"])
    losses = [float(x) for x in s.sort_values("flows")["loss:mean"]]
    claims = [
        CLAIMS["fairness"].claim(f"N={int(row.flows)} fairness", float(row["jain:mean"]))
        for _, row in s.iterrows()
    ]
    claims += [
        CLAIMS["utilisation"].claim(f"N={int(row.flows)} utilisation", float(row["util:mean"]))
        for _, row in s.iterrows()
    ]
    claims.append(
        CLAIMS["loss grows"].claim("loss grows with N", ", ".join(fmt(x) for x in losses), losses)
    )
    plot_sweep(
        s,
        "flows",
        {"loss": "drop fraction"},
        ctx.out / "loss.png",
        xlabel="number of flows N",
        ylabel="loss rate",
        title="Loss against N",
        bounds=(0, 1),
        yspan=(0, None),
    )
    plot_sweep(
        s,
        "flows",
        {"jain": "Jain index"},
        ctx.out / "jain.png",
        xlabel="number of flows N",
        ylabel="Jain fairness index",
        title="Fairness against N",
        bounds=(0, 1),
        # A fixed span: the index of equal flows differs in the fourth decimal from run to
        # run, and autoscaling would draw that noise as a trend.
        yspan=(0.9, 1.0),
        refs=[HLine(0.95, "claim: Jain index ≥ 0.95")],
    )
    ctx.figure("Bottleneck loss rate against the number of flows (95% CI)", ctx.out / "loss.png")
    ctx.figure("Jain fairness index of goodputs against the number of flows", ctx.out / "jain.png")
    ctx.notes.append(f"{runs} replications of {duration} (warm-up 10 s) per N.")
    return claims


EXPERIMENT = Experiment(
    name="tcp_dumbbell",
    title="TCP dumbbell: fairness, utilisation and loss against the number of flows",
    source='R. Jain, D.-M. Chiu, W. R. Hawe, "A Quantitative Measure of Fairness and '
    'Discrimination for Resource Allocation in Shared Computer Systems", DEC Research Report '
    "TR-301, 1984 (the fairness index)",
    run=run,
    declared=CLAIMS,
    description="N NewReno bulk flows, 10 Mb/s / 20 ms bottleneck, 50-packet DropTail, "
    "48 ms base RTT, staggered starts.",
)
