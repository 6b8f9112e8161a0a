"""The RRUL test's plots, after Flent's (docs/rrul.md): ``all`` (download, upload and ping
time series, one figure per AQM), ``totals`` (the sums each way and the average ping, one
panel per AQM), ``ping_cdf``, ``box_totals`` and ``ellipsis`` (all AQMs in one figure
each); and the report (``report.md``, rendered to ``report.html``). The runs are
``aqmlab.experiments.bufferbloat.Run``s and the configuration its ``Config`` (this module
reads only their data, so it imports nothing of that one's)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

Run = Any
Config = Any

#: Flent smooths its average and totals series over 10 steps (here a centred window).
SMOOTH = 10


def _plt():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _save(fig, path: Path) -> Path:
    fig.savefig(path, dpi=100, bbox_inches="tight")
    _plt().close(fig)
    return path


def _plain_log(axis) -> None:
    """Log-axis ticks as plain numbers (50, 100, 200), not powers of ten."""
    from matplotlib.ticker import FuncFormatter, LogLocator

    fmt = FuncFormatter(lambda v, _: f"{v:g}")
    axis.set_major_formatter(fmt)
    axis.set_minor_locator(LogLocator(subs=(2, 3, 5)))
    axis.set_minor_formatter(fmt)


def _shade(ax, c: Config) -> None:
    """The loaded part of the test (the TCP flows run), lightly shaded."""
    ax.axvspan(*c.window, color="0.93", zorder=0)


def plot_all(r: Run, c: Config, path: Path) -> Path:
    """Flent's ``all``: per-flow download and upload goodput and per-probe RTT over time,
    each with its average (black, smoothed over 10 steps)."""
    plt = _plt()
    fig, axes = plt.subplots(3, 1, figsize=(10, 9), sharex=True)
    for ax, way, title in ((axes[0], "down", "TCP download"), (axes[1], "up", "TCP upload")):
        g = r.goodput[r.goodput["way"] == way]
        for flow in g["flow"].unique():
            s = g[g["flow"] == flow]
            ax.plot(s["time_s"], s["mbps"], lw=1, label=flow.split(" ", 1)[1])
        avg = g.groupby("time_s")["mbps"].mean().rolling(SMOOTH, min_periods=1, center=True).mean()
        ax.plot(avg.index, avg.values, color="black", lw=2, label="Avg")
        ax.set_ylabel("Mbit/s")
        ax.set_title(f"{r.label}: {title}", fontsize=10)
        ax.legend(fontsize=8, ncol=5, loc="upper right")
        _shade(ax, c)
    ax = axes[2]
    for label in r.probes["flow"].unique():
        s = r.probes[r.probes["flow"] == label]
        ax.plot(s["sent_s"], s["rtt_ms"], lw=1, label=label)
    t = r.totals()
    ax.plot(
        t["time_s"],
        t["ping_ms"].rolling(SMOOTH, min_periods=1, center=True).mean(),
        color="black",
        lw=2,
        label="Avg",
    )
    ax.set_ylabel("Latency (ms)")
    ax.set_xlabel("Time (s)")
    ax.set_title(f"{r.label}: ping (UDP echoes and the ICMP-like echo)", fontsize=10)
    ax.legend(fontsize=8, ncol=5, loc="upper right")
    ax.set_ylim(bottom=0)
    _shade(ax, c)
    return _save(fig, path)


def _grid(n: int):
    plt = _plt()
    cols = 2 if n > 1 else 1
    rows = (n + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(6.5 * cols, 3.4 * rows), squeeze=False)
    for ax in axes.flat[n:]:
        ax.set_visible(False)
    return fig, list(axes.flat)


def plot_totals(runs: list[Run], c: Config, path: Path) -> Path:
    """Flent's ``totals``: download and upload sums (Mb/s, left axis) and the average ping
    (ms, right axis), each smoothed over 10 steps; one panel per AQM, one latency scale."""
    fig, axes = _grid(len(runs))
    top = max(
        float(r.totals()["ping_ms"].rolling(SMOOTH, min_periods=1, center=True).mean().max())
        for r in runs
    )
    for ax, r in zip(axes, runs, strict=False):
        t = r.totals()
        sm = lambda s: s.rolling(SMOOTH, min_periods=1, center=True).mean()  # noqa: E731
        ax.plot(t["time_s"], sm(t["download"]), label="Download", color="tab:blue")
        ax.plot(t["time_s"], sm(t["upload"]), label="Upload", color="tab:green")
        ax.set_ylim(0, 22)
        ax.set_ylabel("Mbit/s")
        ax.set_xlabel("Time (s)")
        _shade(ax, c)
        ax2 = ax.twinx()
        ax2.plot(t["time_s"], sm(t["ping_ms"]), label="Ping (ms)", color="tab:red")
        ax2.set_ylim(0, top * 1.1)
        ax2.set_ylabel("Latency (ms)")
        ax.set_title(r.label, fontsize=10)
        h1, l1 = ax.get_legend_handles_labels()
        h2, l2 = ax2.get_legend_handles_labels()
        ax.legend(h1 + h2, l1 + l2, fontsize=7, loc="upper left")
    # Room between the panels for one's latency axis and the next one's rate axis.
    fig.tight_layout(w_pad=4)
    return _save(fig, path)


def _loaded_rtts(r: Run) -> np.ndarray:
    p = r.loaded(r.probes, "sent_s")
    return np.sort(p["rtt_ms"].dropna().to_numpy())


def plot_ping_cdf(runs: list[Run], c: Config, path: Path) -> Path:
    """Flent's ``ping_cdf``: the distribution of the probes' round trips while loaded (all
    four probes pooled, its ``cutoff`` of the idle ends), one curve per AQM, log x."""
    plt = _plt()
    fig, ax = plt.subplots(figsize=(9, 5))
    for r in runs:
        x = _loaded_rtts(r)
        if len(x):
            ax.step(x, np.arange(1, len(x) + 1) / len(x), where="post", label=r.label)
    ax.axvline(c.rtt_ms, color="0.5", ls=":", lw=1, label=f"base RTT {c.rtt_ms:g} ms")
    ax.set_xscale("log")
    _plain_log(ax.xaxis)
    ax.set_xlabel("Latency (ms)")
    ax.set_ylabel("Cumulative probability")
    ax.set_ylim(0, 1.01)
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=8)
    ax.set_title("Ping CDF while loaded (UDP BE, BK, EF and ICMP pooled)", fontsize=10)
    return _save(fig, path)


def _loaded_totals(r: Run) -> pd.DataFrame:
    return r.loaded(r.totals(), "time_s").iloc[1:]  # the first step still ramps up


def plot_box_totals(runs: list[Run], c: Config, path: Path) -> Path:
    """Flent's ``box_totals``: per AQM, boxes of the download sum, the upload sum and the
    average ping over the loaded steps (whiskers 1.5 IQR, outliers as points)."""
    plt = _plt()
    fig, axes = plt.subplots(1, 3, figsize=(14, 4.5))
    labels = [r.label for r in runs]
    for ax, col, title, unit in (
        (axes[0], "download", "Download sum", "Mbit/s"),
        (axes[1], "upload", "Upload sum", "Mbit/s"),
        (axes[2], "ping_ms", "Ping (ms) avg", "ms"),
    ):
        data = [_loaded_totals(r)[col].dropna().to_numpy() for r in runs]
        ax.boxplot(data, tick_labels=labels, flierprops={"markersize": 2})
        ax.set_title(title, fontsize=10)
        ax.set_ylabel(unit)
        ax.tick_params(axis="x", rotation=30, labelsize=8)
        if col == "ping_ms":
            ax.set_yscale("log")
            _plain_log(ax.yaxis)
        ax.grid(alpha=0.3, axis="y")
    fig.tight_layout()
    return _save(fig, path)


def plot_ellipsis(runs: list[Run], c: Config, path: Path) -> Path:
    """Flent's ``ellipsis_sum``: each AQM's mean (average ping, total goodput both ways) over
    the loaded steps, with the 1-σ ellipse of their spread; the latency axis is reversed
    (log), so better is up and to the right."""
    plt = _plt()
    fig, ax = plt.subplots(figsize=(9, 6))
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for k, r in enumerate(runs):
        t = _loaded_totals(r).dropna()
        x, y = t["ping_ms"].to_numpy(), (t["download"] + t["upload"]).to_numpy()
        # The ellipse in log latency: the spread of a queue's delay is multiplicative.
        lx = np.log10(x)
        mx, my = float(np.mean(lx)), float(np.mean(y))
        color = colors[k % len(colors)]
        ax.plot(10**mx, my, "o", color=color, label=r.label)
        if len(x) > 2:
            vals, vecs = np.linalg.eigh(np.cov(lx, y))
            # The outline, sampled in (log latency, goodput) and mapped back.
            th = np.linspace(0, 2 * np.pi, 100)
            pts = vecs @ (
                np.sqrt(np.maximum(vals, 0))[:, None] * np.array([np.cos(th), np.sin(th)])
            )
            ax.fill(10 ** (mx + pts[0]), my + pts[1], color=color, alpha=0.25, lw=0)
    ax.set_xscale("log")
    _plain_log(ax.xaxis)
    ax.invert_xaxis()
    ax.set_xlabel("Average ping latency while loaded (ms, reversed)")
    ax.set_ylabel("Total TCP goodput, download + upload (Mbit/s)")
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=8)
    ax.set_title("Throughput vs latency (mean and 1-σ ellipse per AQM)", fontsize=10)
    return _save(fig, path)


def write_all(runs: list[Run], c: Config, out: Path) -> list[tuple[str, Path]]:
    """Every figure, with its caption, in report order."""
    figs = [
        (
            "totals: total goodput each way and the average ping, per AQM",
            plot_totals(runs, c, out / "totals.png"),
        ),
        (
            "ping_cdf: the probes' round trips while loaded",
            plot_ping_cdf(runs, c, out / "ping_cdf.png"),
        ),
        (
            "box_totals: goodput sums and average ping over the loaded steps",
            plot_box_totals(runs, c, out / "box_totals.png"),
        ),
        ("ellipsis: throughput against latency", plot_ellipsis(runs, c, out / "ellipsis.png")),
    ]
    for r in runs:
        figs.append(
            (
                f"all ({r.label}): download, upload and ping series",
                plot_all(r, c, out / f"all_{r.aqm}.png"),
            )
        )
    return figs


def write_report(intro: str, table_md: str, figures, out: Path) -> Path:
    """``report.md`` (``intro``, the summary table, the figures) and ``report.html``."""
    from aqmlab.reproduce import render_html

    lines = [
        "# RRUL: latency under load",
        "",
        intro,
        "",
        "## Summary",
        "",
        table_md,
        "",
        "Goodput: data bytes delivered in order (on-the-wire size) per second, summed over "
        "each direction's four flows. RTT: the round trips of every probe sent in the loaded "
        "window, answered; probe loss: the share of them whose request or reply was dropped.",
        "",
        "## Figures",
        "",
    ]
    for caption, path in figures:
        lines += [f"### {caption}", "", f"![{caption}]({path.name})", ""]
    text = "\n".join(lines)
    (out / "report.md").write_text(text, "utf-8")
    (out / "report.html").write_text(render_html(text, "RRUL: latency under load"), "utf-8")
    return out / "report.html"
