"""PSAND reproduction (experiments/psand/), two parts kept apart from the main module:

- Fig. 3 over replications. The paper shows one run per scheme; its recovery-time claims
  are judged here on R independent replications of that run (simulation.run 0..R−1, seed 1),
  by the rules declared in psand.tolerances ("fig3 replications" and the fig3 entries of
  CLAIMS) before the replicated runs were made: a 95% Student-t interval of each mean
  recovery time, a Welch interval for each difference. Replication 0 is the single run of
  the Fig. 3 plot.
- The K_cur sensitivity: PSAND with ``k_cur = "interval_mean"`` (the time average of RED's
  average over each 0.5 s interval, docs/aqm/psand.md) beside the main result (``"ewma"``,
  RED's average at the update instant), which it does not replace: Fig. 3's replications
  and Figs. 5-6's statistics for PSAND at two flow counts. No claim is judged on it.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from aqmlab.experiments.psand import setup as p
from aqmlab.experiments.psand.setup import K_T
from aqmlab.experiments.psand.tolerances import CLAIMS, PAPER_RECOVERY, RUNS_FULL, RUNS_QUICK
from aqmlab.plot import STYLE
from aqmlab.reproduce import Claim, Context, fmt
from aqmlab.stats import mean_ci as _interval
from aqmlab.stats import welch_ci

# A replication that never gets back counts as the time left after the step at 50 s.
CAP = 50.0
SCHEMES3 = ["ARED_Feng", "ARED_Floyd", "PSAND"]
KCUR = "PSAND (K_cur interval mean)"


def _first_return(df: pd.DataFrame, t0: float = 50.0) -> float:
    """Seconds from t0 until the average, having first risen above 1.1·K_T after t0, is
    back at or below it: the end of the first excursion, whatever comes later. A
    diagnostic of the recovery times, judged by no claim (NaN: no excursion)."""

    after = df[df.index > t0]["avg"]
    up = after[after > 1.1 * K_T]
    if up.empty:
        return math.nan
    back = after[(after.index > up.index[0]) & (after <= 1.1 * K_T)]
    return float(back.index[0] - t0) if len(back) else math.inf


def _phase(runs: int) -> str:
    """The replicated Fig. 3 sweep's name (its configurations are "<phase>: <scheme>")."""
    return f"Fig. 3 over {runs} replications"


def _peak_t(df: pd.DataFrame, t0: float = 50.0) -> float:
    """When the average peaks after t0 (NaN without a series: a scheme ns-2.35 lacks)."""
    after = df[df.index > t0]["avg"]
    return math.nan if after.isna().all() else float(after.idxmax())


def replicate(ctx: Context) -> tuple[pd.DataFrame, pd.DataFrame, dict[tuple[str, int], str]]:
    """Recovery time (s, capped at CAP) of every replication of Fig. 3's run, one column
    per scheme (and the K_cur variant of PSAND), one row per replication; per scheme and
    replication, the instant of the post-step peak the recovery is measured from and the
    end of the first excursion (diagnostics); and the runs' store keys."""

    runs = RUNS_QUICK if ctx.quick else RUNS_FULL
    var = p.variants()
    variants = {k: var[k] for k in SCHEMES3}
    variants[KCUR] = {
        "links[0].queue.aqm": {**var["PSAND"]["links[0].queue.aqm"], "k_cur": "interval_mean"}
    }
    res = ctx.sweep(
        p.base(20, 50.0, "100s", "0s", "100ms"),
        variants=variants,
        runs=runs,
        phase=_phase(runs),
    )
    rows, keys = [], {}
    for name, r, key in zip(res.runs["variant"], res.runs["run"], res.keys, strict=True):
        ts = ctx.timeseries(key)
        df = ts[ts["queue"] == p.Q].set_index("time_s")
        rows.append(
            {
                "run": int(r),
                "scheme": name,
                "recovery": min(p._recovery(df), CAP),
                "peak_t": _peak_t(df),
                "first_return": _first_return(df),
            }
        )
        keys[(name, int(r))] = key
    long = pd.DataFrame(rows)
    wide = long.pivot(index="run", columns="scheme", values="recovery")
    return wide[[*SCHEMES3, KCUR]].sort_index(), long, keys


def claims(rec: pd.DataFrame) -> list[Claim]:
    """Fig. 3's claims judged on the replications (CLAIMS in psand.tolerances): each mean
    recovery time with its 95% Student-t half-width, PSAND's differences with their Welch
    half-width."""
    out = []
    m, h = _interval(rec["PSAND"].to_numpy())
    out.append(
        CLAIMS["fig3 PSAND recovery < 5 s"].claim("fig3 PSAND recovery < 5 s", m, h, unit="s")
    )
    for other in ["ARED_Floyd", "ARED_Feng"]:
        cid = f"fig3 {other} recovery ≈ {PAPER_RECOVERY[other][0]:g} s"
        m, h = _interval(rec[other].to_numpy())
        out.append(CLAIMS[cid].claim(cid, m, h, unit="s", uses=(f"{_phase(len(rec))}: {other}",)))
    for other in ["ARED_Floyd", "ARED_Feng"]:
        d, h = welch_ci(rec["PSAND"].to_numpy(), rec[other].to_numpy())
        out.append(
            CLAIMS["fig3 PSAND faster than"].claim(
                f"fig3 PSAND faster than {other}", d, h, unit="s"
            )
        )
    return out


def spread_note(rec: pd.DataFrame) -> str:
    """Per-replication recovery times and their summary."""
    cols = list(rec.columns)
    lines = [
        f"Fig. 3 over {len(rec)} replications: recovery time (s from 50 s until avg ≤ 11 "
        f"packets after its post-step peak; {fmt(CAP)} = not back within the run) per "
        "replication (simulation.run, seed 1; run 0 is the plotted run). The last column is "
        "the K_cur sensitivity (not the paper's setting; judged by no claim).",
        "",
        "| run | " + " | ".join(cols) + " |",
        "|---:|" + "---:|" * len(cols),
    ]
    for r, row in rec.iterrows():
        lines.append(f"| {r} | " + " | ".join(fmt(row[c]) for c in cols) + " |")
    stats = {}
    for c in cols:
        x = rec[c].to_numpy()
        m, h = _interval(x)
        stats[c] = {
            "mean": fmt(m),
            "95% CI": f"[{fmt(m - h)}, {fmt(m + h)}]",
            "median": fmt(float(np.median(x))),
            "min–max": f"{fmt(float(x.min()))}–{fmt(float(x.max()))}",
            f"not back (= {fmt(CAP)})": str(int((x >= CAP).sum())),
        }
    for k in next(iter(stats.values())):
        lines.append(f"| {k} | " + " | ".join(stats[c][k] for c in cols) + " |")
    return "\n".join(lines)


def cause_note(diag: pd.DataFrame) -> str:
    """Where the long recovery times come from: the post-step peak the recovery is
    measured from (the largest average of 50–100 s) may be a later oscillation, not the
    response to the step. Diagnostics beside the claims, which stay as judged."""
    cols = [*SCHEMES3, KCUR]
    lines = [
        "Cause of the long recovery times (diagnostic, judges nothing; the claims keep the "
        "recovery time as the tolerance table defines it): that time runs to the return below 11 "
        "packets after the largest average of 50–100 s. Where that largest average comes "
        "late, it is an oscillation of the average long after the step, and the time "
        "measures that. Per scheme, over the replications: how many have their largest "
        "average after 55 s, and the end of the first excursion above 11 packets after 50 s "
        "(s after 50 s).",
        "",
        "| | " + " | ".join(cols) + " |",
        "|---|" + "---:|" * len(cols),
    ]
    by = {c: diag[diag["scheme"] == c] for c in cols}
    late = {c: int((d["peak_t"] > 55.0).sum()) for c, d in by.items()}
    lines.append(
        "| largest average after 55 s | "
        + " | ".join(f"{late[c]} of {len(by[c])}" for c in cols)
        + " |"
    )
    for label, f in [("median", np.nanmedian), ("max", np.nanmax)]:
        lines.append(
            f"| first excursion ends, {label} | "
            + " | ".join(fmt(_nan_or(f, by[c]["first_return"].to_numpy())) for c in cols)
            + " |"
        )
    return "\n".join(lines)


def _nan_or(f, x: np.ndarray) -> float:
    """f over the values that are not NaN; NaN when there are none (no excursion in any
    replication, or a scheme the ns-2.35 pass cannot run), without numpy's warning."""
    return float(f(x)) if np.isfinite(x).any() or np.isinf(x).any() else math.nan


def plot_spread(rec: pd.DataFrame, paper: dict, path) -> None:
    """Each replication's recovery time per scheme, the mean with its 95% interval, and the
    paper's band (PSAND: below 5 s; the ARED variants: their value ± 2.5 s)."""
    import matplotlib.pyplot as plt

    bands = {"PSAND": (0.0, 5.0), KCUR: (0.0, 5.0)}
    bands.update({k: (paper[k][0] - 2.5, paper[k][0] + 2.5) for k in ("ARED_Floyd", "ARED_Feng")})
    with plt.rc_context(STYLE):
        fig, ax = plt.subplots(figsize=(9, 4.2), layout="constrained")
        rng = np.random.default_rng(0)  # horizontal jitter only, so points do not overlap
        for i, c in enumerate(rec.columns):
            lo, hi = bands[c]
            ax.fill_between(
                [i - 0.35, i + 0.35],
                lo,
                hi,
                color="C2",
                alpha=0.18,
                lw=0,
                label="paper's band" if i == 0 else "_",
            )
            x = rec[c].to_numpy()
            ax.plot(
                i + rng.uniform(-0.15, 0.15, len(x)),
                x,
                ls="",
                marker="o",
                ms=4,
                color="0.35",
                label="one replication" if i == 0 else "_",
            )
            m, h = _interval(x)
            ax.errorbar(
                [i + 0.25],
                [m],
                yerr=[[h], [h]],
                color="C3",
                marker="D",
                capsize=4,
                label="mean, 95% CI" if i == 0 else "_",
            )
        ax.set_xticks(range(len(rec.columns)), [c.replace(" (", "\n(") for c in rec.columns])
        ax.set_ylabel("recovery time (s)")
        ax.set_ylim(0, CAP + 2)
        ax.set_title(f"Fig. 3's recovery times over {len(rec)} replications")
        ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0)
        fig.savefig(path, dpi=110)
        plt.close(fig)


def _pm(row: pd.Series, col: str) -> str:
    """A summary row's mean ± 95% CI half-width of ``col``."""
    return f"{fmt(row[f'{col}:mean'])} ± {fmt(row[f'{col}:ci95'])}"


def kcur_statistics(ctx: Context, main: pd.DataFrame) -> str:
    """Figs. 5-6's statistics for PSAND with the interval-mean K_cur at two flow counts,
    beside the main (EWMA) PSAND and the lowest / highest of the other schemes."""
    from aqmlab.sweep import summarise

    ns, runs = ([20, 70], 5) if ctx.quick else ([20, 70], 20)
    aqm = {**p.SCHEMES["PSAND"], "w_q": p.W_Q, "k_cur": "interval_mean"}
    frames = []
    for n in ns:
        res = ctx.sweep(
            p.base(n, 3.5, "100s", "20s", "100s"),
            variants={KCUR: {"links[0].queue.aqm": aqm}},
            runs=runs,
            extra=p.occupancy,
            timeseries=False,
            phase=f"K_cur sensitivity: {n} flows",
        )
        r = res.runs.copy()
        r["flows"] = n
        r["var"] = r[f"queue:{p.Q}:var_queue_pkts"]
        r["mean"] = r[f"queue:{p.Q}:mean_queue_pkts"]
        r["loss"] = r[f"queue:{p.Q}:dropped_total"] / r[f"queue:{p.Q}:arrivals"]
        r["util"] = r[f"queue:{p.Q}:utilization"]
        frames.append(
            r[
                [
                    "flows",
                    "variant",
                    "run",
                    "var",
                    "mean",
                    "loss",
                    "p_empty",
                    "p_full",
                    "p_target",
                    "util",
                ]
            ]
        )
    s = summarise(pd.concat(frames, ignore_index=True), ["flows", "variant"]).set_index("flows")
    m = main.set_index(["flows", "variant"])
    cols = ["var", "mean", "loss", "p_empty", "p_full", "p_target", "util"]
    lines = [
        f"K_cur sensitivity, Figs. 5-6 statistics (beside the main result, which it does not "
        f"replace; {runs} replications per point, means ± 95% CI half-width): PSAND with "
        "K_cur = RED's average at the update (main) and with K_cur = its time average over "
        "each 0.5 s interval, and the range of the other three schemes (main run).",
        "",
        "| flows | | " + " | ".join(p.STATS[c] for c in cols) + " |",
        "|---:|---|" + "---:|" * len(cols),
    ]
    others = [k for k in p.SCHEMES if k != "PSAND"]
    for n in ns:
        if (n, "PSAND") in m.index:
            lines.append(
                f"| {n} | PSAND (main) | "
                + " | ".join(_pm(m.loc[(n, "PSAND")], c) for c in cols)
                + " |"
            )
        lines.append(
            f"| {n} | PSAND, interval mean | " + " | ".join(_pm(s.loc[n], c) for c in cols) + " |"
        )
        if all((n, o) in m.index for o in others):
            lines.append(
                f"| {n} | others (min–max) | "
                + " | ".join(
                    f"{fmt(min(m.loc[(n, o), f'{c}:mean'] for o in others))}–"
                    f"{fmt(max(m.loc[(n, o), f'{c}:mean'] for o in others))}"
                    for c in cols
                )
                + " |"
            )
    return "\n".join(lines)


def plot_kcur_run(ctx: Context, keys: dict[tuple[str, int], str], path) -> None:
    """Replication 0 of Fig. 3's run for PSAND with each K_cur: the queue and RED's
    average, the K_cur each update used (step), and max_p."""
    import matplotlib.pyplot as plt

    with plt.rc_context(STYLE):
        fig, axes = plt.subplots(3, 1, figsize=(9, 6.6), sharex=True, layout="constrained")
        for i, (name, label) in enumerate(
            [("PSAND", "K_cur = EWMA at the update (main)"), (KCUR, "K_cur = interval mean")]
        ):
            ts = ctx.timeseries(keys[(name, 0)])
            df = ts[ts["queue"] == p.Q].set_index("time_s")
            ax = axes[i]
            ax.plot(
                df.index, df["qlen_pkts"], lw=0.5, color="0.6", ls="-", marker="", label="queue"
            )
            ax.plot(df.index, df["avg"], lw=1.2, color="C0", ls="-", marker="", label="average")
            ax.plot(
                df.index,
                df["k_cur"],
                lw=1.2,
                color="C3",
                ls="-",
                marker="",
                drawstyle="steps-post",
                label="K_cur used",
            )
            ax.axhline(p.K_T, color="k", lw=0.8, ls="--", label=f"K_T = {p.K_T:g}")
            ax.set_ylabel(f"{'EWMA (main)' if i == 0 else 'interval mean'}\n(packets)")
            ax.set_ylim(0, p.BUFFER + 1)
            axes[2].plot(
                df.index, df["max_p"], lw=1.0, color=f"C{i}", ls="-", marker="", label=label
            )
        axes[0].legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0)
        axes[2].set_yscale("log")
        axes[2].set_ylabel("max_p")
        axes[2].legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0)
        axes[2].set_xlabel("time (s)")
        axes[0].set_title("K_cur sensitivity: PSAND in Fig. 3's run (replication 0)")
        fig.savefig(path, dpi=110)
        plt.close(fig)
