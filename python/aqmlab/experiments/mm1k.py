"""M/M/1/K against queueing theory (Kleinrock, "Queueing Systems", vol. 1, 1975, §3.6): drop
fraction and mean number in system for four (ρ, K) rows, through a sweep with replications."""

from __future__ import annotations

from aqmlab import scenario as sc
from aqmlab.plot import plot_sweep
from aqmlab.reproduce import Claim, Context, Experiment, within
from aqmlab.sweep import summarise

ROWS = [(0.5, 5), (0.8, 10), (1.2, 10), (2.0, 10)]
Q = "queue:src->dst"


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
    duration, runs, rel = ("1000s", 4, 0.03) if ctx.quick else ("10000s", 10, 0.01)
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
        claims.append(
            Claim(
                f"rho={rho} K={k} drop",
                f"P_K = {p_k:.6f}",
                float(row["drop_fraction:mean"]),
                within(p_k, rel=rel),
            )
        )
        claims.append(
            Claim(
                f"rho={rho} K={k} L",
                f"L = {L:.6f}",
                float(row["L:mean"]),
                within(L, rel=rel),
            )
        )
    ctx.notes.append(
        f"{runs} replications of {duration} per row (warm-up 10 s); tolerance {rel:.0%} "
        "relative. The strict acceptance rule of validation.md (95% CI, half-width ≤ 0.5%) "
        "is the test crates/aqmlab-core/tests/queueing.rs."
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
    description="Poisson arrivals, exponential packet sizes, one DropTail port.",
)
