"""Dynamic configuration of RED parameters: PSAND (Alemu, Jean-Marie 2004), Figs. 3-6.

PSAND against Adaptive RED as Floyd et al. define it (ARED_Floyd), self-configuring RED
(ARED_Feng) and RED, with the parameters of the paper's Table I. Long-lived TCP SACK flows
S1→S3 (t = 0), S3→S1 (t = 1 s) and S2→S3 (t = 3 s), window 15, 1600-byte packets; extra
flows S1→S3 (window 20, 1000-byte packets) start every 0.1 s.

The paper's topology figure is missing from its text. Choice (documented in
docs/aqm/psand.md): the topology of the ns-2 Adaptive RED test suite that both ARED papers'
authors published (`test-suite-adaptive-red.tcl`, net2): S1–R1 10 Mb/s 2 ms, S2–R1 10 Mb/s
3 ms, R1–R2 1.5 Mb/s 20 ms (the bottleneck, here with the paper's 35-packet buffer and the
AQM under test in both directions, as an ns-2 duplex link), R2–S3 10 Mb/s 4 ms. The link
rate in packets/s for w_q = 1 − exp(−1/C) uses 1000-byte packets (C = 187.5), the size of
almost all the traffic. Statistical runs (Figs. 5-6): 100 s, measured after a 20 s warm-up
(the paper does not say), 100 independent replications per point.

The simulator of the paper's era: the paper cites the ns web page of 2003 and its technical
report is dated December 2003, so the runs used ns-2.26 (released 2003-02-26; ns-2.27 came
out in 2004). Every scenario selects `profile = "ns2-2001"` (ns-2.1b8a) and overrides what
changed between 2.1b8a and 2.26 (docs/profiles.md; NS226 in `psand.setup` lists each
choice, and the report prints it).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from aqmlab.experiments.ns2_era import PROFILE
from aqmlab.experiments.psand import fig3 as psand_fig3
from aqmlab.experiments.psand.setup import (
    BOUNDS,
    BUFFER,
    K_T,
    NS226,
    SCHEMES,
    STATS,
    W_Q,
    Q,
    _dynamics,
    _recovery,
    at_bounds,
    base,
    occupancy,
    variants,
)
from aqmlab.experiments.psand.tolerances import CLAIMS, FIGS56_POINTS, PAPER_RECOVERY
from aqmlab.plot import STYLE, HBand, HLine, VLines, draw_refs, plot_sweep
from aqmlab.reproduce import Claim, Context, Experiment, fmt

TARGET_REFS = [
    HLine(K_T, f"target K_T = {K_T:g}"),
    HBand(K_T - 2, K_T + 2, "K_T ± 2 (Fig. 6c)"),
]


def profile_note() -> str:
    """The simulator the scenarios emulate, choice by choice (NS226)."""
    lines = [
        "Simulator: ns-2.26 (the paper cites the ns web page of 2003; its technical report "
        "is of December 2003), as profile "
        f'"{PROFILE}" (ns-2.1b8a) plus these choices:',
        "",
        "| setting | value | why |",
        "|---|---|---|",
    ]
    lines += [f"| {a} | {b} | {c} |" for a, b, c in NS226]
    return "\n".join(lines)


def _plot_dynamics(dyn: dict, path, title: str, recovery: dict[str, float] | None = None) -> None:
    """One panel per scheme: instantaneous and average queue, the target and its band, the
    step at 50 s; with ``recovery``, the measured and the paper's recovery times."""
    import matplotlib.pyplot as plt

    with plt.rc_context(STYLE):
        fig, axes = plt.subplots(
            len(dyn), 1, figsize=(9, 2.1 * len(dyn)), sharex=True, layout="constrained"
        )
        for ax, (name, df) in zip(axes, dyn.items(), strict=True):
            refs = [*TARGET_REFS, VLines([50.0], "additional flows start")]
            if recovery is not None and name in PAPER_RECOVERY:
                t, text = PAPER_RECOVERY[name]
                refs.append(VLines([50.0 + t], f"paper: back at target {text} after 50 s"))
            draw_refs(ax, refs)
            ax.plot(
                df.index,
                df["qlen_pkts"],
                lw=0.5,
                color="0.6",
                marker="",
                ls="-",
                label="queue",
            )
            ax.plot(
                df.index,
                df["avg"],
                lw=1.4,
                color="C0",
                marker="",
                ls="-",
                label="average",
            )
            if recovery is not None and name in recovery and np.isfinite(recovery[name]):
                t = 50.0 + recovery[name]
                ax.plot(
                    [t],
                    [1.1 * K_T],
                    marker="v",
                    markersize=9,
                    color="C3",
                    ls="",
                    label=f"measured: avg ≤ {1.1 * K_T:g} after {recovery[name]:.1f} s",
                    zorder=4,
                )
            ax.set_ylabel(f"{name}\n(packets)")
            ax.set_ylim(0, BUFFER + 1)
            # The shared lines once, on the first panel; below it only what differs.
            handles, labels = ax.get_legend_handles_labels()
            if ax is not axes[0]:
                keep = [i for i, t in enumerate(labels) if t.startswith(("paper", "measured"))]
                handles, labels = [handles[i] for i in keep], [labels[i] for i in keep]
            if handles:
                ax.legend(
                    handles,
                    labels,
                    loc="upper left",
                    bbox_to_anchor=(1.01, 1.0),
                    borderaxespad=0,
                )
        axes[0].set_title(title)
        axes[-1].set_xlabel("time (s)")
        fig.savefig(path, dpi=110)
        plt.close(fig)


# Fig. 4's statements, in the order of the report: (declaration, the measure over 60–100 s).
FIG4 = [
    ("fig4 PSAND controls avg better than", "gap"),
    ("fig4 PSAND oscillates less than", "sd"),
    ("fig4 PSAND empty less often than", "empty"),
    ("fig4 PSAND near-full less often than", "near_full"),
]


def _fig4_claims(dyn: dict[str, pd.DataFrame], tag: str) -> list[Claim]:
    """Fig. 4's statements over 60–100 s of a dynamics run: the 70-flow run (``tag``
    "fig4") by each statement's declaration, the paper's 100-flow run ("fig4 (100 flows)")
    by that run's, which holds it to the same statements."""
    late = {k: df[df.index >= 60.0] for k, df in dyn.items()}
    measures = {
        "gap": {k: float((d["avg"] - K_T).abs().mean()) for k, d in late.items()},
        "sd": {k: float(d["qlen_pkts"].std()) for k, d in late.items()},
        "empty": {k: float((d["qlen_pkts"] == 0).mean()) for k, d in late.items()},
        "near_full": {
            k: float(((d["qlen_pkts"] > 25) & (d["qlen_pkts"] <= BUFFER)).mean())
            for k, d in late.items()
        },
    }
    claims: list[Claim] = []
    for other in ["ARED_Floyd", "ARED_Feng"]:
        for key, name in FIG4:
            v = measures[name]
            declared, detail = (
                (CLAIMS[key], "") if tag == "fig4" else (CLAIMS[tag], CLAIMS[key].says)
            )
            claims.append(
                declared.claim(
                    f"{tag}{key.removeprefix('fig4')} {other}",
                    f"PSAND {fmt(v['PSAND'])}, {other} {fmt(v[other])}",
                    v["PSAND"],
                    other,
                    v[other],
                    detail=detail,
                )
            )
    return claims


def _plot_max_p(dyns: dict[int, dict[str, pd.DataFrame]], path) -> None:
    """One panel per dynamics run: max_p of the adaptive schemes, their bounds dotted."""
    import matplotlib.pyplot as plt

    with plt.rc_context(STYLE):
        fig, axes = plt.subplots(
            len(dyns),
            1,
            figsize=(9, 2.3 * len(dyns)),
            sharex=True,
            layout="constrained",
        )
        for ax, (extra, dyn) in zip(axes, dyns.items(), strict=True):
            draw_refs(ax, [VLines([50.0], "additional flows start")])
            for i, (name, (lo, hi)) in enumerate(BOUNDS.items()):
                df = dyn[name]
                color = f"C{i}"
                ax.plot(
                    df.index,
                    df["max_p"],
                    lw=1.0,
                    color=color,
                    marker="",
                    ls="-",
                    label=name,
                )
                for b in (lo, hi):
                    if 0 < b < 1:
                        ax.axhline(b, color=color, lw=0.6, ls=":")
            ax.set_yscale("log")
            ax.set_ylabel(f"max_p\n({extra} flows)")
        axes[0].legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0)
        axes[0].set_title("max_p over time (bounds dotted)")
        axes[-1].set_xlabel("time (s)")
        fig.savefig(path, dpi=110)
        plt.close(fig)


def _bounds_note(dyns: dict[int, dict[str, pd.DataFrame]]) -> str:
    """Share of the time (100 ms samples, 50–100 s) each scheme's max_p is at a bound."""
    lines = [
        "Share of the time max_p sits at its lower / upper bound (100 ms samples over "
        "50–100 s of each dynamics run; bounds: "
        + ", ".join(f"{k} [{lo:g}, {hi:g}]" for k, (lo, hi) in BOUNDS.items())
        + "; RED's max_p is fixed):",
        "",
        "| flows | " + " | ".join(BOUNDS) + " |",
        "|---:|" + "---:|" * len(BOUNDS),
    ]
    for extra, dyn in dyns.items():
        cells = []
        for name, (lo, hi) in BOUNDS.items():
            mp = dyn[name]["max_p"]
            a, b = at_bounds(mp[mp.index >= 50.0], lo, hi)
            cells.append(f"{fmt(a)} / {fmt(b)}")
        lines.append(f"| {extra} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _statistics(
    ctx: Context,
    ns: list[int],
    runs: int,
    bottleneck: str = "1.5Mbps",
    w_q: float = W_Q,
) -> pd.DataFrame:
    """Figs. 5-6: ``runs`` replications per scheme and number of flows; their summary."""
    from aqmlab.sweep import summarise

    frames = []
    for n in ns:
        res = ctx.sweep(
            base(n, 3.5, "100s", "20s", "100s", bottleneck),
            variants=variants(w_q),
            runs=runs,
            extra=occupancy,
            timeseries=False,
            phase=(
                f"Figs. 5-6: {n} flows"
                if bottleneck == "1.5Mbps"
                else f"sensitivity {bottleneck}: {n} flows"
            ),
        )
        r = res.runs.copy()
        r["flows"] = n
        r["var"] = r[f"queue:{Q}:var_queue_pkts"]
        r["mean"] = r[f"queue:{Q}:mean_queue_pkts"]
        r["loss"] = r[f"queue:{Q}:dropped_total"] / r[f"queue:{Q}:arrivals"]
        r["util"] = r[f"queue:{Q}:utilization"]
        r["use0"] = 1.0 - r["p_empty"]
        frames.append(r[["flows", "variant", "run", *STATS]])
    return summarise(pd.concat(frames, ignore_index=True), ["flows", "variant"])


def run(ctx: Context) -> list[Claim]:
    ctx.notes.append(profile_note())
    claims = _figs34(ctx)
    ns, runs = ([20, 70], 5) if ctx.quick else ([10, 20, 30, 50, 70, 100], 100)
    s = _statistics(ctx, ns, runs)
    ctx.notes.append(f"Figs. 5-6: {runs} replications per point, flows {ns}, 95% CIs in the plots.")
    _figs56_plots(ctx, s, ns)
    claims += _figs56_claims(s, ns)
    lines = [
        "Figs. 5-6 means by scheme and number of additional flows:",
        "",
        "| flows | scheme | " + " | ".join(STATS.values()) + " |",
        "|---:|---|" + "---:|" * len(STATS),  # numbers right-aligned
    ]
    for _, r in s.sort_values(["flows", "variant"]).iterrows():
        lines.append(
            f"| {int(r['flows'])} | {r['variant']} | "
            + " | ".join(fmt(r[f"{c}:mean"]) for c in [*STATS])
            + " |"
        )
    ctx.notes.append("\n".join(lines))
    _sensitivity(ctx, s)
    ctx.notes.append(psand_fig3.kcur_statistics(ctx, s))
    return claims


def _figs34(ctx: Context) -> list[Claim]:
    """Figs. 3-4: the dynamics runs (20, 70 and 100 additional flows at 50 s), Fig. 3 over
    replications, max_p, and their claims."""
    claims: list[Claim] = []
    dyn20 = _dynamics(ctx, 20)
    rec = {name: _recovery(df) for name, df in dyn20.items() if name != "RED"}
    _plot_dynamics(dyn20, ctx.out / "fig3.png", "Fig. 3: 20 additional flows at 50 s", rec)
    ctx.figure(
        "Fig. 3: instantaneous and average queue, 20 additional flows at 50 s; recovery "
        "times measured (▼) and as the paper states them (dotted)",
        ctx.out / "fig3.png",
    )
    ctx.notes.append(
        "Fig. 3 recovery times of the plotted run (replication 0; s from 50 s until avg ≤ 11 "
        "packets after its peak): "
        + ", ".join(f"{k} {v:.1f}" for k, v in rec.items())
        + " (paper: PSAND < 5, ARED_Floyd ≈ 10, ARED_Feng ≈ 15). The claims are judged on "
        "the replications below."
    )
    reps, diag, keys = psand_fig3.replicate(ctx)
    psand_fig3.plot_spread(reps, PAPER_RECOVERY, ctx.out / "fig3_spread.png")
    ctx.figure(
        f"Fig. 3's recovery times over {len(reps)} replications (one point each), their mean "
        "with its 95% interval, and the paper's band; last column: the K_cur sensitivity",
        ctx.out / "fig3_spread.png",
    )
    ctx.notes.append(psand_fig3.spread_note(reps))
    ctx.notes.append(psand_fig3.cause_note(diag))
    claims += psand_fig3.claims(reps)
    psand_fig3.plot_kcur_run(ctx, keys, ctx.out / "kcur_fig3.png")
    ctx.figure(
        "K_cur sensitivity (not the paper's setting): PSAND in Fig. 3's run with K_cur = RED's "
        "average at the update (main) and = its time average over each 0.5 s interval",
        ctx.out / "kcur_fig3.png",
    )
    dyn70 = _dynamics(ctx, 70)
    _plot_dynamics(dyn70, ctx.out / "fig4.png", "Fig. 4: 70 additional flows at 50 s")
    ctx.figure(
        "Fig. 4: instantaneous and average queue, 70 additional flows at 50 s",
        ctx.out / "fig4.png",
    )
    # The paper's third dynamics run (§III.B.1: "20, 70 and 100 additional flows").
    dyn100 = _dynamics(ctx, 100)
    _plot_dynamics(dyn100, ctx.out / "fig4_100.png", "Figs. 3-4: 100 additional flows at 50 s")
    ctx.figure(
        "Figs. 3-4, the paper's 100-flow run: instantaneous and average queue, 100 additional "
        "flows at 50 s",
        ctx.out / "fig4_100.png",
    )
    dyns = {20: dyn20, 70: dyn70, 100: dyn100}
    _plot_max_p(dyns, ctx.out / "max_p.png")
    ctx.figure(
        "max_p over time in the three dynamics runs (20, 70, 100 additional flows at 50 s), "
        "with each scheme's bounds",
        ctx.out / "max_p.png",
    )
    ctx.notes.append(_bounds_note(dyns))
    claims += _fig4_claims(dyn70, "fig4")
    claims += _fig4_claims(dyn100, "fig4 (100 flows)")
    return claims


def _figs56_plots(ctx: Context, s: pd.DataFrame, ns: list[int]) -> None:
    """Figs. 5-6: one figure per statistic against the number of additional flows."""
    prob = {"bounds": (0, 1), "yspan": (0, None)}
    for col, label, fig, kw in [
        ("var", "variance of the queue (packets²)", "fig5a", {"bounds": (0, None)}),
        (
            "mean",
            "mean queue (packets)",
            "fig5b",
            {"bounds": (0, BUFFER), "yspan": (0, None), "refs": [TARGET_REFS[0]]},
        ),
        ("loss", "loss rate", "fig5c", prob),
        ("p_empty", "P(X = 0)", "fig6a", prob),
        ("p_full", "P(25 < X ≤ 35)", "fig6b", prob),
        ("p_target", "P(8 ≤ X ≤ 12)", "fig6c", prob),
    ]:
        wide = _by_scheme(s, col)
        plot_sweep(
            wide,
            "flows",
            {f"{k}": k for k in SCHEMES},
            ctx.out / f"{fig}.png",
            xlabel="number of additional flows",
            ylabel=label,
            title=label,
            # Schemes side by side at each flow count: their bars would hide one another.
            dodge=0.01 * (max(ns) - min(ns)),
            **kw,
        )
        ctx.figure(
            f"{fig}: {label} against the number of flows (95% CI)",
            ctx.out / f"{fig}.png",
        )


def _figs56_claims(s: pd.DataFrame, ns: list[int]) -> list[Claim]:
    """Figs. 5-6's claims: PSAND against the lowest / highest of the others at each flow
    count (FIGS56_POINTS), the fraction of the counts where it does what its claim says."""
    tab = s.pivot(index="flows", columns="variant")
    others = [k for k in SCHEMES if k != "PSAND"]
    points = {"all": ns, "big": [n for n in ns if n >= np.median(ns)]}

    def fraction(col: str, holds, counts) -> float:
        """Of ``counts``, the fraction where PSAND's mean ``col`` and the others' satisfy
        ``holds(psand, lowest of the others, highest of the others)``."""
        return float(
            np.mean(
                [
                    holds(
                        tab[(f"{col}:mean", "PSAND")].loc[n],
                        min(tab[(f"{col}:mean", o)].loc[n] for o in others),
                        max(tab[(f"{col}:mean", o)].loc[n] for o in others),
                    )
                    for n in counts
                ]
            )
        )

    return [
        CLAIMS[cid].claim(cid, fraction(col, holds, points[which]))
        for cid, (col, which, holds) in FIGS56_POINTS.items()
    ]


SENS_RATE = "15Mbps"
SENS_W_Q = float(1.0 - np.exp(-1.0 / (15e6 / 8 / 1000)))


def _sensitivity(ctx: Context, main: pd.DataFrame) -> None:
    """Beside the main result, not instead of it: the same schemes on a 15 Mb/s bottleneck
    (w_q from the paper's formula at that rate), Figs. 5-6's statistics at two flow counts
    and the 20-flow dynamics run. No claim is judged on it."""
    ns, runs = ([20, 70], 2) if ctx.quick else ([20, 70], 10)
    sens = _statistics(ctx, ns, runs, SENS_RATE, SENS_W_Q)
    dyn = _dynamics(ctx, 20, SENS_RATE, SENS_W_Q)
    rec = {name: _recovery(df) for name, df in dyn.items() if name != "RED"}
    _plot_dynamics(dyn, ctx.out / "sens_fig3.png", "Sensitivity: Fig. 3's run on 15 Mb/s", rec)
    ctx.figure(
        "Sensitivity (not the paper's setting): Fig. 3's run (20 additional flows at 50 s) on "
        "a 15 Mb/s bottleneck",
        ctx.out / "sens_fig3.png",
    )
    cols = ["var", "mean", "loss", "p_empty", "p_full", "util"]
    lines = [
        f"Sensitivity (beside the main result, which it does not replace): bottleneck 15 Mb/s "
        f"instead of 1.5 Mb/s (access links 100 Mb/s instead of 10, so that it stays the "
        f"bottleneck), w_q = {SENS_W_Q:.4g}; {runs} replications per point. "
        "Fig. 3 recovery times on 15 Mb/s: "
        + ", ".join(f"{k} {fmt(v)} s" for k, v in rec.items())
        + ". Means, main (1.5 Mb/s) → sensitivity (15 Mb/s):",
        "",
        "| flows | scheme | " + " | ".join(STATS[c] for c in cols) + " |",
        "|---:|---|" + "---:|" * len(cols),
    ]
    m = main.set_index(["flows", "variant"])
    for _, r in sens.sort_values(["flows", "variant"]).iterrows():
        key = (r["flows"], r["variant"])
        cells = [
            f"{fmt(m.loc[key, f'{c}:mean'])} → {fmt(r[f'{c}:mean'])}"
            if key in m.index
            else fmt(r[f"{c}:mean"])
            for c in cols
        ]
        lines.append(f"| {int(r['flows'])} | {r['variant']} | " + " | ".join(cells) + " |")
    ctx.notes.append("\n".join(lines))


def _by_scheme(s: pd.DataFrame, col: str) -> pd.DataFrame:
    """One row per number of flows, columns <scheme>:mean / <scheme>:ci95 for plot_sweep."""
    out = pd.DataFrame({"flows": sorted(s["flows"].unique())}).set_index("flows")
    for name in SCHEMES:
        part = s[s["variant"] == name].set_index("flows")
        out[f"{name}:mean"] = part[f"{col}:mean"]
        out[f"{name}:ci95"] = part[f"{col}:ci95"]
    return out.reset_index()


EXPERIMENT = Experiment(
    name="psand",
    title="PSAND: Dynamic Configuration of RED Parameters (Alemu, Jean-Marie 2004), Figs. 3-6",
    source='T. Alemu, A. Jean-Marie, "Dynamic Configuration of RED Parameters", IEEE '
    "GLOBECOM 2004, Dallas, November 2004 (HAL lirmm-00108790), §III.B",
    run=run,
    declared=CLAIMS,
    description="1.5 Mb/s / 20 ms bottleneck with a 35-packet buffer (ns-2 ARED test-suite "
    "topology), TCP SACK; RED, ARED_Feng, ARED_Floyd and PSAND with the paper's Table I, all "
    'gentle with ns-2\'s queue-length guard; ns-2.26 defaults (profile "ns2-2001" plus the '
    "overrides listed below). "
    "Quick size: 20 and 70 additional flows, 5 replications.",
)
