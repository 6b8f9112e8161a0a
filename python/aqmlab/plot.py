"""Plots with one consistent style (matplotlib, Agg backend: no display needed)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

if TYPE_CHECKING:
    from aqmlab.results import Results

STYLE = {
    "figure.figsize": (8, 4.5),
    "figure.dpi": 120,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "legend.frameon": False,
}


def plot_queue_length(
    res: Results, path: str | Path, queues: list[str] | None = None, metric: str = "qlen_pkts"
) -> Path:
    """Queue length over time for the queues that saw traffic (or the ones named)."""
    path = Path(path)
    ts = res.timeseries
    if queues is None:
        busy = res.queues[res.queues["arrivals"] > 0]
        # The busiest queues first; access links with no queueing add only clutter.
        busy = busy.sort_values("mean_queue_pkts", ascending=False)
        queues = [q for q in busy["name"] if ts.loc[ts["queue"] == q, metric].max() > 0][:6]
    with plt.rc_context(STYLE):
        fig, ax = plt.subplots()
        for q in queues:
            d = ts[ts["queue"] == q]
            ax.step(d["time_s"], d[metric], where="post", label=q, linewidth=0.8)
        if res.warmup_s > 0:
            ax.axvspan(0, res.warmup_s, color="0.85", alpha=0.5, linewidth=0, label="warm-up")
        ax.set_xlabel("time (s)")
        ax.set_ylabel("queue length (packets)" if metric == "qlen_pkts" else metric)
        ax.set_title("Queue length (shaded: warm-up, excluded from statistics)")
        if queues:
            ax.legend(loc="upper right")
        else:
            ax.text(0.5, 0.5, "no queue ever held a packet", ha="center", transform=ax.transAxes)
        fig.tight_layout()
        fig.savefig(path)
        plt.close(fig)
    return path


def plot_sweep(
    summary,
    x: str,
    metrics: dict[str, str],
    path: str | Path,
    *,
    xlabel: str | None = None,
    ylabel: str = "",
    title: str = "",
    analytic: tuple[list[float], list[float], str] | None = None,
    logy: bool = False,
) -> Path:
    """A metric against a swept parameter with 95% confidence bars, one line per metric
    (``metrics`` maps summary column prefixes to legend labels); optionally an analytic
    curve (xs, ys, label). Written as PNG, or SVG when the path ends in .svg."""
    path = Path(path)
    with plt.rc_context(STYLE):
        fig, ax = plt.subplots()
        if analytic is not None:
            ax.plot(analytic[0], analytic[1], "k--", linewidth=1, label=analytic[2])
        for col, label in metrics.items():
            d = summary.sort_values(x)
            ax.errorbar(
                d[x],
                d[f"{col}:mean"],
                yerr=d[f"{col}:ci95"],
                marker="o",
                markersize=4,
                capsize=3,
                linewidth=1,
                label=label,
            )
        ax.set_xlabel(xlabel or x)
        ax.set_ylabel(ylabel)
        if logy:
            ax.set_yscale("log")
        if title:
            ax.set_title(title)
        ax.legend()
        fig.tight_layout()
        fig.savefig(path)
        plt.close(fig)
    return path


def plot_distribution(res: Results, queue: str, path: str | Path) -> Path:
    """The fraction of time a queue held n packets."""
    path = Path(path)
    d = res.queue_dist[res.queue_dist["queue"] == queue]
    with plt.rc_context(STYLE):
        fig, ax = plt.subplots()
        ax.bar(d["n_pkts"], d["fraction"], width=0.9)
        ax.set_xlabel("packets waiting")
        ax.set_ylabel("fraction of time")
        ax.set_title(f"Queue-length distribution at {queue}")
        fig.tight_layout()
        fig.savefig(path)
        plt.close(fig)
    return path


def plot_lines(
    lines: dict[str, tuple],
    path: str | Path,
    *,
    xlabel: str = "",
    ylabel: str = "",
    title: str = "",
    marker: str | None = None,
) -> Path:
    """One line per label from ``{label: (xs, ys)}`` (per-period results, cumulative counts)."""
    path = Path(path)
    with plt.rc_context(STYLE):
        fig, ax = plt.subplots()
        for label, (xs, ys) in lines.items():
            ax.plot(xs, ys, marker=marker, linewidth=1, label=label)
        ax.set_xlabel(xlabel)
        ax.set_ylabel(ylabel)
        if title:
            ax.set_title(title)
        ax.legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(path)
        plt.close(fig)
    return path
