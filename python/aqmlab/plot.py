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
