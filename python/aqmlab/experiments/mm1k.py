"""M/M/1/K against queueing theory (Kleinrock, "Queueing Systems", vol. 1, 1975, §3.6): drop
fraction and mean number in system for four (ρ, K) rows, through a sweep with replications."""

from __future__ import annotations

from aqmlab import scenario as sc
from aqmlab.claims import Claim, Declarations, Declared, within
from aqmlab.plot import plot_sweep
from aqmlab.reproduce import Context, Experiment
from aqmlab.sweep import summarise

ROWS = [(0.5, 5), (0.8, 10), (1.2, 10), (2.0, 10)]
Q = "queue:src->dst"

# Full size: 10 replications of 10 000 s; quick size: 4 of 1 000 s.
REL_FULL, REL_QUICK = 0.01, 0.03

CLAIMS = Declarations(
    "Tolerances, fixed before the runs (the formula → our rule → why):",
    {
        "P_K": Declared(
            "§3.6: the blocking probability of M/M/1/K, P_K = (1 − ρ)ρ^K / (1 − ρ^(K+1))",
            f"the replication mean of the drop fraction within ±{REL_FULL:.0%} (relative) of "
            f"P_K at full size, ±{REL_QUICK:.0%} at quick size",
            "a closed form, so the only gap allowed is sampling error; 1% is the agreement "
            "the analytic cases are held to; quick size replicates a 25th of the time (about "
            "5 times the standard error) and its 3% is a smoke test, not the validation (the "
            "strict rule is the test crates/aqmlab-core/tests/queueing.rs)",
            lambda target, rel: within(target, rel=rel),
        ),
        "L": Declared(
            "§3.6: the mean number in the M/M/1/K system, L = ρ/(1 − ρ) − (K + 1)ρ^(K+1) / "
            "(1 − ρ^(K+1))",
            "the replication mean of L (mean queue + utilisation) within the same band as P_K",
            "as for P_K",
            lambda target, rel: within(target, rel=rel),
        ),
    },
)


def analytic(rho: float, k: int) -> tuple[float, float]:
    """(P_K, L) of M/M/1/K."""
    p_k = (1 - rho) * rho**k / (1 - rho ** (k + 1))
    L = rho / (1 - rho) - (k + 1) * rho ** (k + 1) / (1 - rho ** (k + 1))
    return p_k, L


def base(duration: str) -> dict:
    # 1500-byte mean exponential sizes on 12 Mb/s: mean service 1 ms, so pkt_rate = 1000·ρ.
    return sc.scenario(
        duration=duration,
        warmup="10s",
        seed=1,
        sample_interval=duration,
        nodes=[sc.host("src"), sc.host("dst")],
        links=[
            sc.link("src", "dst", bandwidth="12Mbps", delay="1ms", queue=sc.queue(limit_pkts=4))
        ],
        flows=[
            sc.poisson("p", "src", "dst", packet_size=1500, pkt_rate=500.0, size_dist="exponential")
        ],
    )


def run(ctx: Context) -> list[Claim]:
    duration, runs, rel = ("1000s", 4, REL_QUICK) if ctx.quick else ("10000s", 10, REL_FULL)
    res = ctx.sweep(
        base(duration),
        zipped={
            "flows[0].pkt_rate": [1000.0 * r for r, _ in ROWS],
            # K counts the packet on the wire: limit_pkts = K - 1 (docs/queue.md).
            "links[0].queue.limit_pkts": [k - 1 for _, k in ROWS],
        },
        runs=runs,
        phase="M/M/1/K, 4 (load, K) rows",
    )
    r = res.runs.copy()
    r["rho"] = r["flows[0].pkt_rate"] / 1000.0
    r["drop_fraction"] = r[f"{Q}:dropped_total"] / r[f"{Q}:arrivals"]
    r["L"] = r[f"{Q}:mean_queue_pkts"] + r[f"{Q}:utilization"]
    s = summarise(r[["rho", "run", "drop_fraction", "L"]], ["rho"])
    claims = []
    for rho, k in ROWS:
        p_k, L = analytic(rho, k)
        row = s[s["rho"] == rho].iloc[0]
        claims += [
            CLAIMS["P_K"].claim(
                f"rho={rho} K={k} drop",
                float(row["drop_fraction:mean"]),
                p_k,
                rel,
                detail=f"P_K = {p_k:.6f}",
            ),
            CLAIMS["L"].claim(
                f"rho={rho} K={k} L", float(row["L:mean"]), L, rel, detail=f"L = {L:.6f}"
            ),
        ]
    ctx.notes.append(
        f"{runs} replications of {duration} per row (warm-up 10 s). The strict acceptance "
        "rule (95% CI, half-width ≤ 0.5%) is the test crates/aqmlab-core/tests/queueing.rs."
    )
    plot_sweep(
        s,
        "rho",
        {"L": "simulated (95% CI)"},
        ctx.out / "mm1k_L.png",
        xlabel="offered load ρ",
        ylabel="mean number in system L",
        title="M/M/1/K, K = 5 at ρ = 0.5 and K = 10 otherwise",
        analytic=([r for r, _ in ROWS], [analytic(r, k)[1] for r, k in ROWS], "M/M/1/K formula"),
        bounds=(0, None),
        yspan=(0, None),
    )
    ctx.figure("Mean number in system against load, simulated and analytic", ctx.out / "mm1k_L.png")
    return claims


EXPERIMENT = Experiment(
    name="mm1k",
    title="M/M/1/K: the engine against queueing theory",
    source="L. Kleinrock, Queueing Systems, Volume 1: Theory, Wiley, 1975, §3.6 (M/M/1/K: "
    "P_K and L in closed form)",
    run=run,
    declared=CLAIMS,
    description="Poisson arrivals, exponential packet sizes, one DropTail port.",
)
