"""REM: Active Queue Management (Athuraliya, Li, Low, Yin; IEEE Network 2001), §4 and §5.

Fig. 2: one 64 Mb/s link, 120-packet buffer, 1 KB packets, NewReno users with an 80 ms
round trip; 20 users at time 0 and 20 more every 50 s up to 160. DropTail, RED(20:80),
RED(10:30) (max_p 0.1, q_weight 0.002) and REM (φ 1.001, α 0.1, γ 0.001, b* 20), each
dropping or ECN-marking; goodput, loss rate and mean queue per period.

Figs. 3-4: a 2 Mb/s wireless link, 100-packet buffer, Bernoulli loss 1%, 382-bit packets,
20 to 100 users; NewReno/DropTail against (modified, ECN-reacting) NewReno with RED and REM
marking: goodput per period and cumulative loss from buffer overflow.

Choices the paper leaves open: CHOICES below (printed in the report; docs/aqm/rem.md).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from aqmlab import scenario as sc
from aqmlab.experiments.rem_choices import CHOICES, PROFILE_CHOICES, START_WINDOW
from aqmlab.experiments.rem_claims import B_STAR, BOUND_SLACK, CLAIMS, PAPER_FIG3_GOODPUT
from aqmlab.plans import UniformStarts
from aqmlab.plot import HLine, VLines, plot_lines
from aqmlab.reproduce import Claim, Context, Experiment, fmt
from aqmlab.stats import half_width, trend

Q = "r0->r1"
PER_STAGE = 20
# The ns-2 of the paper's era (§4.2: "ns-2.1b6"): the ns2-2001 profile (ns-2.1b8a's TCP
# and RED defaults, docs/profiles.md) with the overrides PROFILE_CHOICES lists.
PROFILE = "ns2-2001"
MAX_WINDOW = 10_000
MIN_RTO_2_1B6 = "200ms"
LOSS_CAUSES = [
    "dropped_overflow",
    "dropped_early",
    "dropped_forced",
    "dropped_total",
    "marked",
    "lost_on_link",
]
# Replications per configuration (independent runs of one seed).
RUNS = 5
RUNS_QUICK = 2


def _base(bandwidth, limit, packet_size, stages, period, loss=None) -> dict:
    nodes = [sc.router("r0"), sc.router("r1"), sc.host("s"), sc.host("d")]
    links = [
        sc.link(
            "r0",
            "r1",
            bandwidth=bandwidth,
            delay="38ms",
            queue=sc.queue(limit_pkts=limit),
            **({"loss": loss} if loss else {}),
        ),
        sc.link("s", "r0", bandwidth="1Gbps", delay="1ms", queue=sc.queue(limit_pkts=100000)),
        sc.link("r1", "d", bandwidth="1Gbps", delay="1ms", queue=sc.queue(limit_pkts=100000)),
    ]
    users = PER_STAGE * stages
    flows = sc.staged(
        sc.tcp(
            "u",
            "s",
            "d",
            variant="newreno",
            packet_size=packet_size,
            trace=True,
            # Overrides of the ns2-2001 profile (ns-2.1b8a) for the paper's ns-2.1b6:
            # PROFILE_CHOICES below says why.
            max_window=MAX_WINDOW,
            min_rto=MIN_RTO_2_1B6,
        ),
        pairs=[("s", "d")] * users,
        per_stage=PER_STAGE,
        every=period,
    )
    # One sample past the last period, so its end is a sample instant.
    return sc.scenario(
        duration=f"{int(stages * period) + 1}s",
        warmup="0s",
        seed=1,
        sample_interval="1s",
        profile=PROFILE,
        nodes=nodes,
        links=links,
        flows=flows,
    )


# One replication's start times (the sweep's ``per_run``): each user's stage instant (its
# start in the base scenario) plus a uniform draw in [0, START_WINDOW) s.
_draw_starts = UniformStarts(START_WINDOW, after_base=True)


def _red(lo: float, hi: float, ecn: bool, mean_pktsize: int, full_buffer_only=False) -> dict:
    """RED as §4.2 states it; ``full_buffer_only``: §5's ECN runs, where "packets are
    dropped only when they arrive at a full buffer" (marks above max_th too)."""
    kw = {"mark_above_max_th": True} if full_buffer_only else {}
    return sc.red(
        lo, hi, max_p=0.1, w_q=0.002, gentle=False, ecn=ecn, mean_pktsize=mean_pktsize, **kw
    )


def _variant(aqm: dict, users: int, ecn: bool, wireless: bool = False) -> dict:
    v: dict = {"links[0].queue.aqm": aqm}
    if ecn:
        for i in range(users):
            v[f"flows[{i}].ecn"] = True
            if wireless:
                v[f"flows[{i}].dupack_response"] = "retransmit_only"
    return v


def _periods(ts: pd.DataFrame, stages: int, period: float, capacity_pps: float) -> pd.DataFrame:
    """Per-period goodput (fraction of capacity), loss rate, mean queue and mean window of
    the active users, from the cumulative time-series columns (exact differences). The
    window is ns-2's `cwnd_`, the one the paper's traces show: without fast recovery's
    inflation (`cwnd_base`), which after the start-up losses of Slow-but-Steady recoveries
    lasting seconds would count tens of duplicate ACKs per flow."""
    q = ts[ts["queue"] == Q].set_index("time_s")
    f = ts[ts["flow"].notna()] if "flow" in ts else ts.iloc[0:0]
    delivered = f.groupby("time_s")["delivered_pkts"].sum()
    rows = []
    for k in range(stages):
        t0, t1 = k * period, (k + 1) * period
        d = q.loc[t1] if t1 in q.index else q.iloc[-1]
        a = q.loc[t0]
        active = f[(f["time_s"] > t0) & (f["time_s"] <= t1)]
        idx = active["flow"].str.split(".").str[1].astype(int)
        active = active[idx < PER_STAGE * (k + 1)]
        rows.append(
            {
                "users": PER_STAGE * (k + 1),
                "goodput": (delivered.loc[t1] - delivered.loc[t0]) / (period * capacity_pps),
                "loss": (d["dropped"] - a["dropped"]) / max(d["arrivals"] - a["arrivals"], 1),
                "mean_queue": (d["area_pkt_s"] - a["area_pkt_s"]) / period,
                "overflow": d["dropped_overflow"] - a["dropped_overflow"],
                "overflow_early": _overflow_in(q, t0, t0 + 0.2 * period),
                # All congestion losses (overflow, early and forced drops; not the
                # wireless link's): what Fig. 4's claims are judged on.
                "congestion": d["dropped"] - a["dropped"],
                "congestion_early": _overflow_in(q, t0, t0 + 0.2 * period, "dropped"),
                "congestion_steady_min": min(
                    _overflow_in(q, t0 + j * period / 5, t0 + (j + 1) * period / 5, "dropped")
                    for j in range(1, 5)
                ),
                # The least overflow loss in any fifth of the period after the first (the
                # equilibrium part): > 0 when the cumulative loss rises between the jumps.
                "overflow_steady_min": min(
                    _overflow_in(q, t0 + j * period / 5, t0 + (j + 1) * period / 5)
                    for j in range(1, 5)
                ),
                "cwnd": active["cwnd_base"].mean(),
            }
        )
    return pd.DataFrame(rows)


def _overflow_in(q: pd.DataFrame, t0: float, t1: float, col: str = "dropped_overflow") -> float:
    return float(q.loc[t1, col] - q.loc[t0, col])


def _run_set(ctx: Context, base: dict, variants: dict, stages, period, capacity_pps, tag):
    """Per variant: the per-period means over the replications, the 95% Student-t CI
    half-widths of those means (0 with one replication), and the cumulative overflow
    series averaged over the replications."""
    runs = RUNS_QUICK if ctx.quick else RUNS
    res = ctx.sweep(base, variants=variants, runs=runs, phase=tag, per_run=_draw_starts)
    per: dict[str, list[pd.DataFrame]] = {label: [] for label in variants}
    cum: dict[str, list[pd.Series]] = {label: [] for label in variants}
    cong: dict[str, list[pd.Series]] = {label: [] for label in variants}
    # Exactly this sweep's runs, by key: a store may hold runs of older scenarios too.
    for label, key in zip(res.runs["variant"], res.keys, strict=True):
        ts = ctx.timeseries(key)
        per[label].append(_periods(ts, stages, period, capacity_pps))
        qs = ts[ts["queue"] == Q].set_index("time_s")
        cum[label].append(qs["dropped_overflow"])
        cong[label].append(qs["dropped"])
    out, ci = {}, {}
    for k, v in per.items():
        g = pd.concat(v).groupby("users", as_index=False)
        out[k] = g.mean()
        n = len(v)
        # One replication: no interval, drawn as none (zero-width bars).
        half = half_width(g.std(ddof=1), n) if n > 1 else out[k] * 0.0
        half["users"] = out[k]["users"]
        ci[k] = half
    mean_cum = {
        "overflow": {k: pd.concat(v, axis=1).mean(axis=1) for k, v in cum.items()},
        "congestion": {k: pd.concat(v, axis=1).mean(axis=1) for k, v in cong.items()},
        # Whole-run totals by cause, replication means.
        "totals": res.runs.groupby("variant")[[f"queue:{Q}:{c}" for c in LOSS_CAUSES]]
        .mean()
        .rename(columns=lambda c: c.rsplit(":", 1)[1]),
    }
    ctx.notes.append(
        f"{tag}: {len(variants)} configurations × {runs} "
        f"{'replication' if runs == 1 else 'replications'}, {stages} periods of {period:g} s; "
        f"each replication draws its users' start times (uniform over the first "
        f"{START_WINDOW:g} s of their stage; the choices below say why)."
    )
    return out, ci, mean_cum


def _table(ctx: Context, title: str, res: dict, ci: dict, cols: list[str]) -> None:
    """Per period: the replication mean ± the 95% CI half-width of each column."""
    lines = [f"{title}", "", "| scheme | users | " + " | ".join(cols) + " |"]
    lines.append("|---|---:|" + "---:|" * len(cols))  # numbers right-aligned
    for label, df in res.items():
        h = ci[label]
        for i, r in df.iterrows():
            vals = " | ".join(f"{fmt(r[c])} ± {fmt(float(f'{h.loc[i, c]:.2g}'))}" for c in cols)
            lines.append(f"| {label} | {int(r['users'])} | {vals} |")
    ctx.notes.append("\n".join(lines))


def _mathis_note(wl: dict, size: int, loss: float) -> str:
    """§5's NewReno/DropTail numbers against the Mathis et al. (1997) ceiling that the
    paper's own parameters imply: W = sqrt(3/(2p)) segments per round trip."""
    cap = 2e6 / (8 * size)  # packets/s
    rtt = 0.080  # propagation only: a lower bound on the round trip, so rates are upper bounds
    w = float(np.sqrt(3.0 / (2.0 * loss)))
    per_flow = w / rtt
    first = wl["NewReno/DropTail"].iloc[0]
    n = int(first["users"])
    ceiling = n * per_flow / cap
    lines = [
        "Where the paper's numbers cannot follow from its stated parameters (§5, NewReno/"
        "DropTail on the wireless link). With random loss p ≥ 1% on every data packet "
        "(the link alone; overflow only adds to it), unmodified NewReno halves its window "
        "on each loss, and the Mathis et al. (1997) rate bounds each flow at W/RTT with "
        "W = sqrt(3/(2p)):",
        "",
        f"- W = sqrt(3 / (2 × {loss:g})) = {w:.2f} packets; RTT ≥ 80 ms (propagation; "
        f"queueing only lengthens it), so each flow sends at most {w:.2f} / 0.08 = "
        f"{per_flow:.1f} packets/s.",
        f"- Capacity: 2 Mb/s / (8 × {size} B) = {cap:.1f} packets/s (382-bit packets: "
        f"{2e6 / 382:.1f}).",
        f"- {n} users: at most {n} × {per_flow:.1f} = {n * per_flow:.0f} packets/s = "
        f"**{100 * ceiling:.1f}% of capacity**, and goodput at most "
        f"{100 * ceiling * (1 - loss):.1f}% "
        "after the 1% the link loses. The paper's lowest NewReno/DropTail goodput is 62%; "
        "it does not say at how many users, but 40 users and more have a ceiling above "
        "capacity, so a low end at 20 users (where goodput is lowest if it rises with "
        "users) is above what the paper's parameters allow.",
        f"- The caption of Fig. 3 gives an average window of 22 packets at 20 users; the "
        f"Mathis window at 1% loss is {w:.1f}, and 20 × 22 packets per 80 ms is "
        f"{20 * 22 / rtt:.0f} packets/s, {100 * 20 * 22 / rtt / cap:.0f}% of capacity: "
        "a window of 22 cannot be NewReno's under 1% random loss (it fits the ECN runs, "
        "whose modified NewReno does not halve on a loss found by duplicate ACKs).",
        f"- Measured here (NewReno/DropTail, first period, {n} users): goodput "
        f"{100 * first['goodput']:.1f}%, mean window {first['cwnd']:.1f} packets. The "
        "fig3 NewReno/DropTail range claim is judged as the paper states it; where its low "
        "end fails, this calculation is the reason.",
    ]
    return "\n".join(lines)


def _plot(res: dict, col: str, ylabel: str, path, title: str, **kw) -> None:
    lines = {label: (df["users"], df[col]) for label, df in res.items()}
    plot_lines(lines, path, xlabel="number of users", ylabel=ylabel, title=title, **kw)


def _plot_kw(col: str) -> dict:
    """Reference lines and axis spans per metric: goodput up to capacity, rates and queues
    from zero, REM's target queue b* on the queue plots."""
    if col == "goodput":
        return {"yspan": (None, 1.0)}
    if col == "mean_queue":
        return {"yspan": (0, None), "refs": [HLine(B_STAR, f"REM target b* = {B_STAR:g} packets")]}
    return {"yspan": (0, None)}


def _paper_ranges(ranges: dict[str, tuple[float, float]]):
    """An overlay for lines_figure: the paper's goodput range of each scheme as a vertical
    bar right of the data, in that scheme's colour, marker and line style."""

    def overlay(ax, drawn) -> None:
        xs = sorted({float(x) for line in drawn.values() for x in line.get_xdata()})
        x_max = xs[-1]
        # Ticks only where there are users: the bars' x positions are not user counts.
        ax.set_xticks(xs)
        ax.axvline(x_max + 2.0, color="0.5", linewidth=0.8, zorder=1)
        ax.text(
            x_max + 2.0 * (len(ranges) + 1),
            1.0,
            "paper",
            ha="center",
            va="bottom",
            transform=ax.get_xaxis_transform(),
        )
        for i, (label, (lo, hi)) in enumerate(ranges.items()):
            line = drawn[label]
            x = x_max + 4.0 * (i + 1)
            ax.plot(
                [x, x],
                [lo, hi],
                color=line.get_color(),
                marker=line.get_marker(),
                linestyle=line.get_linestyle(),
                linewidth=2.5,
                label="_paper",
                zorder=2,
            )
        ax.plot(
            [],
            [],
            color="0.3",
            linewidth=2.5,
            marker="|",
            markersize=10,
            label="paper, §5: range over 20–100 users\n(bars right of the data, same style)",
        )

    return overlay


def _fraction(pred: list[bool]) -> float:
    return float(np.mean(pred))


def run(ctx: Context) -> list[Claim]:
    wired, wci, stages = _fig2_runs(ctx)
    ctx.notes.append("\n".join(CHOICES))
    ctx.notes.append("\n".join(PROFILE_CHOICES))
    claims = _fig2_queue_claims(wired, wci)
    claims += _fig2_rate_claims(wired, stages)
    # Each Fig. 2 claim compares the wired configurations: it reads all of them (the
    # ns-2.35 pass runs them all). Figs. 3-4's name what each reads (_wl).
    for c in claims:
        c.uses = tuple(f"{WIRED}: {k}" for k in wired)
    wl, wlci, cum = _figs34_runs(ctx)
    claims += _fig3_claims(wl, wlci)
    claims += _fig4_claims(wl, cum)
    return claims


WIRED, WIRELESS = "Fig. 2 (wired)", "Figs. 3-4 (wireless)"


def _wl(*labels: str) -> tuple[str, ...]:
    """The wireless configurations a claim reads (``Claim.uses``)."""
    return tuple(f"{WIRELESS}: {k}" for k in labels)


def _fig2_runs(ctx: Context) -> tuple[dict, dict, int]:
    """Fig. 2 (wired): the runs, the per-period table and the figures."""
    stages, period = (4, 20.0) if ctx.quick else (8, 50.0)
    users = PER_STAGE * stages
    base = _base("64Mbps", 120, 1000, stages, period)
    variants = {
        "DropTail": _variant(sc.droptail(), users, False),
        "RED(20:80) drop": _variant(_red(20, 80, False, 1000), users, False),
        "RED(10:30) drop": _variant(_red(10, 30, False, 1000), users, False),
        "REM drop": _variant(sc.rem(), users, False),
        "RED(20:80) ECN": _variant(_red(20, 80, True, 1000), users, True),
        "RED(10:30) ECN": _variant(_red(10, 30, True, 1000), users, True),
        "REM ECN": _variant(sc.rem(ecn=True), users, True),
    }
    wired, wci, _ = _run_set(ctx, base, variants, stages, period, 64e6 / 8000, WIRED)
    _table(
        ctx,
        "Fig. 2, per period (goodput as a fraction of 64 Mb/s; loss = dropped/arrived; "
        "replication mean ± 95% CI half-width)",
        wired,
        wci,
        ["goodput", "loss", "mean_queue", "cwnd"],
    )
    for col, ylabel in [
        ("goodput", "goodput / capacity"),
        ("loss", "loss rate"),
        ("mean_queue", "mean queue (packets)"),
    ]:
        p = ctx.out / f"fig2_{col}.png"
        _plot(wired, col, ylabel, p, f"Fig. 2: {ylabel}", **_plot_kw(col))
        ctx.figure(f"Fig. 2 (wired, 64 Mb/s): {ylabel} per period", p)

    return wired, wci, stages


def _fig2_queue_claims(wired: dict, wci: dict) -> list[Claim]:
    claims: list[Claim] = []
    for label in ["REM drop", "REM ECN"]:
        claims.append(_near_b_star(f"fig2 {label} queue near b*", wired[label], wci[label]))
    for label in [
        "DropTail",
        "RED(20:80) drop",
        "RED(10:30) drop",
        "RED(20:80) ECN",
        "RED(10:30) ECN",
    ]:
        mq = wired[label]["mean_queue"].tolist()
        claims.append(
            CLAIMS["queue grows"].claim(
                f"fig2 {label} queue grows",
                trend(mq),
                mq,
                unit=f"(Spearman; means {', '.join(fmt(x) for x in mq)})",
            )
        )
    return claims


def _fig2_rate_claims(wired: dict, stages: int) -> list[Claim]:
    C = CLAIMS
    claims: list[Claim] = []
    dt = wired["DropTail"]
    for mode in ["drop", "ECN"]:
        rem_g = wired[f"REM {mode}"]["goodput"].to_numpy()
        gain = rem_g - dt["goodput"].to_numpy()
        n_higher = int((gain > 0).sum())
        claims.append(
            C["goodput vs DropTail"].claim(
                f"fig2 REM {mode} goodput vs DropTail",
                n_higher,
                stages,
                unit=f"of {stages} periods (REM − DropTail: "
                f"{', '.join(f'{100 * x:+.1f}' for x in gain)} points)",
            )
        )
    rem_loss = wired["REM drop"]["loss"].mean()
    dt_loss = dt["loss"].mean()
    claims.append(
        C["REM drop loss ≈ DropTail"].claim("fig2 REM drop loss ≈ DropTail", rem_loss, dt_loss)
    )
    ratio = (wired["REM ECN"]["loss"] / dt["loss"]).to_numpy()
    claims.append(
        C["ECN loss near zero"].claim(
            "fig2 REM ECN loss near zero",
            float(ratio.max()),
            unit=f"(largest per-period ratio to DropTail; per period "
            f"{', '.join(f'{100 * x:.0f}%' for x in ratio)})",
        )
    )
    for mode in ["drop", "ECN"]:
        hi, lo = wired[f"RED(20:80) {mode}"], wired[f"RED(10:30) {mode}"]
        both = _fraction(
            list((hi["goodput"] >= lo["goodput"]) & (hi["mean_queue"] > lo["mean_queue"]))
        )
        claims.append(
            C["RED(20:80) vs RED(10:30)"].claim(f"fig2 RED(20:80) vs RED(10:30) {mode}", both)
        )
    reds = [k for k in wired if k.startswith("RED")]
    ub = _fraction(
        [
            bool(
                dt["goodput"].iloc[i]
                >= max(wired[k]["goodput"].iloc[i] for k in reds) - BOUND_SLACK
            )
            for i in range(stages)
        ]
    )
    claims.append(C["DropTail bounds RED goodput"].claim("fig2 DropTail bounds RED goodput", ub))
    red_drop_better = _fraction(
        [
            bool(
                wired[f"RED({r}) drop"]["goodput"].mean() > wired[f"RED({r}) ECN"]["goodput"].mean()
            )
            for r in ["20:80", "10:30"]
        ]
    )
    claims.append(
        C["RED drop vs mark goodput"].claim("fig2 RED drop vs mark goodput", red_drop_better)
    )
    c0, c1 = dt["cwnd"].iloc[0], dt["cwnd"].iloc[-1]
    claims.append(C["window 32 → 4"].claim("fig2 window 32 → 4", f"{fmt(c0)} → {fmt(c1)}", c0, c1))
    return claims


def _figs34_runs(ctx: Context) -> tuple[dict, dict, dict]:
    """Figs. 3-4 (wireless): the runs, the per-period table, the figures and the table of
    losses by cause."""
    stages, period = (3, 20.0) if ctx.quick else (5, 50.0)
    users = PER_STAGE * stages
    size = 48
    base = _base("2Mbps", 100, size, stages, period, loss=sc.bernoulli(0.01))
    variants = {
        "NewReno/DropTail": _variant(sc.droptail(), users, False),
        "RED(20:80)": _variant(_red(20, 80, True, size, True), users, True, wireless=True),
        "RED(10:30)": _variant(_red(10, 30, True, size, True), users, True, wireless=True),
        "REM": _variant(sc.rem(ecn=True, mean_pktsize=size), users, True, wireless=True),
    }
    cap = 2e6 / (8 * size)
    wl, wlci, cum = _run_set(ctx, base, variants, stages, period, cap, WIRELESS)
    _table(
        ctx,
        "Figs. 3-4, per period (goodput as a fraction of 2 Mb/s in 48-byte packets; "
        "overflow = packets lost to buffer overflow in the period, congestion = all "
        "congestion losses, congestion_early = those in the first fifth; replication "
        "mean ± 95% CI half-width)",
        wl,
        wlci,
        ["goodput", "mean_queue", "overflow", "congestion", "congestion_early", "cwnd"],
    )
    ctx.notes.append(_mathis_note(wl, size, 0.01))
    p = ctx.out / "fig3_goodput.png"
    _plot(
        wl,
        "goodput",
        "goodput / capacity",
        p,
        "Fig. 3: wireless goodput",
        overlay=_paper_ranges(PAPER_FIG3_GOODPUT),
        **_plot_kw("goodput"),
    )
    ctx.figure(
        "Fig. 3 (wireless, 2 Mb/s, 1% loss): goodput per period; bars on the right: the "
        "ranges the paper reports for 20–100 users",
        p,
    )
    p = ctx.out / "fig3_queue.png"
    _plot(
        wl,
        "mean_queue",
        "mean queue (packets)",
        p,
        "Wireless: mean queue",
        **_plot_kw("mean_queue"),
    )
    ctx.figure("Wireless: mean queue per period", p)
    starts = [VLines([k * period for k in range(1, stages)], f"{PER_STAGE} more users start")]
    for kind, ylabel, title in [
        ("overflow", "cumulative overflow loss (packets)", "Fig. 4: loss from buffer overflow"),
        (
            "congestion",
            "cumulative congestion loss (packets)",
            "Fig. 4: all congestion losses (overflow + early + forced)",
        ),
    ]:
        p = ctx.out / f"fig4_{kind}.png"
        plot_lines(
            {label: (c.index, c.to_numpy()) for label, c in cum[kind].items()},
            p,
            xlabel="time (s)",
            ylabel=ylabel,
            title=title,
            yspan=(0, None),
            refs=starts,
        )
        ctx.figure(f"Fig. 4 (wireless): {ylabel}, replication mean", p)
    tot = cum["totals"]
    lines = [
        "Fig. 4, losses at the wireless bottleneck by cause (whole run, replication means; "
        "the claims are judged on all congestion losses = overflow + early + forced, since "
        "§5's RED drops only at a full buffer and a forced drop is a congestion loss too):",
        "",
        "| scheme | overflow | early | forced | all congestion | marked | wireless loss |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for label in variants:
        r = tot.loc[label]
        lines.append(
            f"| {label} | {fmt(r['dropped_overflow'])} | {fmt(r['dropped_early'])} | "
            f"{fmt(r['dropped_forced'])} | {fmt(r['dropped_total'])} | {fmt(r['marked'])} | "
            f"{fmt(r['lost_on_link'])} |"
        )
    ctx.notes.append("\n".join(lines))
    return wl, wlci, cum


def _fig3_claims(wl: dict, wlci: dict) -> list[Claim]:
    C = CLAIMS
    claims: list[Claim] = []
    nr = wl["NewReno/DropTail"]["goodput"].to_numpy()
    for label in ["RED(20:80)", "RED(10:30)", "REM"]:
        g = wl[label]["goodput"].to_numpy()
        claims.append(
            C["ECN raises goodput"].claim(
                f"fig3 ECN raises goodput: {label}",
                _fraction(list(g > nr)),
                uses=_wl(label, "NewReno/DropTail"),
            )
        )
    ecn_labels = ["RED(20:80)", "RED(10:30)", "REM"]
    ranges = [
        ("fig3 NewReno/DropTail range", "NewReno/DropTail", ["NewReno/DropTail"], 0.62, 0.91),
        ("fig3 ECN range", "the three ECN runs", ecn_labels, 0.82, 0.96),
    ] + [(f"fig3 {k} range", k, [k], *PAPER_FIG3_GOODPUT[k]) for k in ecn_labels]
    for cid, who, labels, lo_p, hi_p in ranges:
        g = pd.concat([wl[k]["goodput"] for k in labels], ignore_index=True)
        h = pd.concat([wlci[k]["goodput"] for k in labels], ignore_index=True)
        claims.append(
            C["goodput range"].claim(
                cid,
                f"{100 * g.min():.1f}–{100 * g.max():.1f}%",
                g,
                h,
                lo_p,
                hi_p,
                detail=f"{who} between {100 * lo_p:.0f}% and {100 * hi_p:.0f}% over 20–100 users",
                uses=_wl(*labels),
            )
        )
    lo = wl["RED(10:30)"]["goodput"].to_numpy()
    for label in ["REM", "RED(20:80)"]:
        claims.append(
            C["above RED(10:30)"].claim(
                f"fig3 {label} above RED(10:30)",
                _fraction(list(wl[label]["goodput"].to_numpy() >= lo)),
                uses=_wl(label, "RED(10:30)"),
            )
        )
    claims.append(_near_b_star("fig3 REM queue stabilises", wl["REM"], wlci["REM"], _wl("REM")))
    for label in ["NewReno/DropTail", "RED(20:80)", "RED(10:30)"]:
        mq = wl[label]["mean_queue"].tolist()
        claims.append(
            C["queue grows"].claim(
                f"fig3 {label} queue grows",
                trend(mq),
                mq,
                unit=f"(Spearman; means {', '.join(fmt(x) for x in mq)})",
                uses=_wl(label),
            )
        )
    return claims


def _fig4_claims(wl: dict, cum: dict) -> list[Claim]:
    C = CLAIMS
    claims: list[Claim] = []
    total = {k: float(v.iloc[-1]) for k, v in cum["congestion"].items()}
    ovf_total = {k: float(v.iloc[-1]) for k, v in cum["overflow"].items()}
    claims.append(
        C["loss ordering"].claim(
            "fig4 loss ordering",
            ", ".join(f"{k} {fmt(v)}" for k, v in total.items()),
            total,
            unit="(overflow only: " + ", ".join(f"{fmt(v)}" for v in ovf_total.values()) + ")",
            uses=_wl(*total),
        )
    )
    for label in ["REM", "RED(10:30)"]:
        df = wl[label]
        lost = float(df["congestion"].sum())
        early = float(df["congestion_early"].sum())
        ovf = float(df["overflow"].sum())
        claims.append(
            C["losses only in transients"].claim(
                f"fig4 {label} losses only in transients",
                early / lost if lost else 1.0,
                unit=f"({fmt(lost)} congestion losses, {fmt(ovf)} of them overflow; overflow "
                f"share {fmt(float(df['overflow_early'].sum()) / ovf) if ovf else 'n/a'})",
                uses=_wl(label),
            )
        )
    for label in ["NewReno/DropTail", "RED(20:80)"]:
        steady = wl[label]["congestion_steady_min"].to_numpy()
        claims.append(
            C["losses in equilibrium"].claim(
                f"fig4 {label} losses in equilibrium",
                float(steady.min()),
                unit=f"(least loss in a fifth of a period; per period "
                f"{', '.join(fmt(x) for x in steady)})",
                uses=_wl(label),
            )
        )
    return claims


def _near_b_star(
    cid: str, df: pd.DataFrame, ci: pd.DataFrame, uses: tuple[str, ...] | None = None
) -> Claim:
    """REM's mean queue at b*, judged on every period after the first."""
    mq = df["mean_queue"].to_numpy()[1:]
    h = ci["mean_queue"].to_numpy()[1:]
    return CLAIMS["queue near b*"].claim(
        cid,
        float(np.max(np.abs(mq - B_STAR))),
        mq,
        h,
        unit="packets (largest |mean − 20|)",
        uses=uses,
    )


EXPERIMENT = Experiment(
    name="rem",
    title="REM: Active Queue Management (Athuraliya, Li, Low, Yin 2001), Figs. 2-4",
    source='S. Athuraliya, V. H. Li, S. H. Low, Q. Yin, "REM: Active Queue Management", '
    "IEEE Network, May/June 2001, §4.2 (Fig. 2) and §5 (Figs. 3-4)",
    run=run,
    declared=CLAIMS,
    description="Wired: 64 Mb/s, 120-packet buffer, 1 KB packets, 80 ms RTT, 20→160 NewReno "
    "users (+20 every 50 s); DropTail, RED(20:80), RED(10:30), REM, dropping or ECN marking. "
    "Wireless: 2 Mb/s, 100-packet buffer, 1% Bernoulli loss, 48-byte packets, 20→100 users; "
    "NewReno/DropTail vs ECN-reacting NewReno with RED and REM. Quick size: periods of 20 s, "
    "up to 80 (wired) and 60 (wireless) users. Simulator defaults: profile `ns2-2001` "
    "with the ns-2.1b6 overrides listed below the claims.",
)
