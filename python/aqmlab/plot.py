"""Plots with one consistent style (matplotlib, Agg backend: no display needed).

Every line gets its own (colour, marker, line style) from ``STYLE``, so lines stay apart in
greyscale print; legends sit outside the axes, never over data; reference lines and bands
(targets, thresholds) are drawn in black and grey and named in the legend.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

import matplotlib
import numpy as np

matplotlib.use("Agg")
import matplotlib.pyplot as plt
from cycler import cycler

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure
    from matplotlib.lines import Line2D
    from pandas import DataFrame


class Results(Protocol):
    """What the plots read of a run (``aqmlab.Results`` has it): declared here so that
    plotting does not import the results module, which imports plotting."""

    timeseries: DataFrame
    queues: DataFrame
    queue_dist: DataFrame
    warmup_s: float


# Ten distinct markers: lines 1-10 of a plot differ in marker and, in fours, in line style,
# so no two share a (marker, line style) pair.
MARKERS = ["o", "s", "^", "D", "v", "P", "X", "*", "<", "h"]
LINESTYLES = ["-", "--", "-.", ":"] * 3
STYLE = {
    "figure.figsize": (8, 4.5),
    "figure.dpi": 120,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "legend.frameon": False,
    "legend.fontsize": 8,
    "lines.markersize": 5,
    "axes.prop_cycle": (
        cycler(color=plt.get_cmap("tab10").colors)
        + cycler(marker=MARKERS)
        + cycler(linestyle=LINESTYLES[: len(MARKERS)])
    ),
}


@dataclass(frozen=True)
class HLine:
    """A horizontal reference line (a target, a threshold), named in the legend."""

    y: float
    label: str


@dataclass(frozen=True)
class VLines:
    """Vertical reference lines at ``xs`` (events such as new flows), one legend entry."""

    xs: Sequence[float]
    label: str


@dataclass(frozen=True)
class HBand:
    """A horizontal band (a tolerance around a target), named in the legend."""

    lo: float
    hi: float
    label: str


Ref = HLine | VLines | HBand
# Black and grey, each reference in its own dash pattern: never mistaken for data lines.
_REF_STYLES = [
    {"color": "k", "linestyle": (0, (6, 3)), "linewidth": 1.0},
    {"color": "0.35", "linestyle": (0, (1, 2)), "linewidth": 1.2},
    {"color": "0.2", "linestyle": (0, (8, 2, 1, 2)), "linewidth": 0.9},
]


def draw_refs(ax: Axes, refs: Sequence[Ref]) -> None:
    """Reference lines and bands behind the data, each with a legend entry."""
    k = 0
    for r in refs:
        if isinstance(r, HBand):
            ax.axhspan(r.lo, r.hi, color="0.6", alpha=0.18, linewidth=0, zorder=0, label=r.label)
            continue
        style = _REF_STYLES[k % len(_REF_STYLES)]
        k += 1
        if isinstance(r, HLine):
            ax.axhline(r.y, zorder=1.5, label=r.label, **style)
        else:
            for i, x in enumerate(r.xs):
                ax.axvline(x, zorder=1.5, label=r.label if i == 0 else None, **style)


def legend_outside(ax: Axes) -> None:
    """The legend to the right of the axes: it cannot cover a data point."""
    if ax.get_legend_handles_labels()[0]:
        ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0)


def extend_ylim(ax: Axes, yspan: tuple[float | None, float | None] | None) -> None:
    """Widens the autoscaled y range to include ``yspan``: a metric whose points differ in
    the fourth decimal (Jain's index 0.9996-0.9998) is then not magnified into a slope."""
    if yspan is None:
        return
    lo, hi = ax.get_ylim()
    want_lo, want_hi = yspan
    ax.set_ylim(
        lo if want_lo is None else min(lo, want_lo), hi if want_hi is None else max(hi, want_hi)
    )


def clipped_errors(
    mean, ci, bounds: tuple[float | None, float | None] | None
) -> tuple[np.ndarray, np.ndarray]:
    """(below, above) half-widths of mean ± ci cut at the metric's range: a probability's
    interval never extends below 0 or above 1."""
    mean = np.asarray(mean, dtype=float)
    ci = np.asarray(ci, dtype=float)
    below, above = ci.copy(), ci.copy()
    if bounds is not None:
        lo, hi = bounds
        if lo is not None:
            below = np.minimum(below, np.maximum(mean - lo, 0.0))
        if hi is not None:
            above = np.minimum(above, np.maximum(hi - mean, 0.0))
    return below, above


def _save(fig: Figure, path: str | Path) -> Path:
    path = Path(path)
    fig.savefig(path)
    plt.close(fig)
    return path


def _markevery(n: int) -> int:
    # About a dozen markers per line: enough to tell lines apart, few enough to see the line.
    return max(1, n // 12)


def queue_length_figure(
    res: Results, queues: list[str] | None = None, metric: str = "qlen_pkts"
) -> Figure:
    """Queue length over time for the queues that saw traffic (or the ones named)."""
    ts = res.timeseries
    if queues is None:
        busy = res.queues[res.queues["arrivals"] > 0]
        # The busiest queues first; access links with no queueing add only clutter.
        busy = busy.sort_values("mean_queue_pkts", ascending=False)
        queues = [q for q in busy["name"] if ts.loc[ts["queue"] == q, metric].max() > 0][:6]
    with plt.rc_context(STYLE):
        fig, ax = plt.subplots(layout="constrained")
        for q in queues:
            d = ts[ts["queue"] == q]
            ax.step(
                d["time_s"],
                d[metric],
                where="post",
                label=q,
                linewidth=0.8,
                markevery=_markevery(len(d)),
            )
        if res.warmup_s > 0:
            ax.axvspan(0, res.warmup_s, color="0.85", alpha=0.5, linewidth=0, label="warm-up")
        ax.set_xlabel("time (s)")
        ax.set_ylabel("queue length (packets)" if metric == "qlen_pkts" else metric)
        ax.set_title("Queue length (shaded: warm-up, excluded from statistics)")
        if not queues:
            ax.text(0.5, 0.5, "no queue ever held a packet", ha="center", transform=ax.transAxes)
        legend_outside(ax)
    return fig


def plot_queue_length(
    res: Results, path: str | Path, queues: list[str] | None = None, metric: str = "qlen_pkts"
) -> Path:
    """Queue length over time for the queues that saw traffic (or the ones named)."""
    return _save(queue_length_figure(res, queues, metric), path)


def sweep_figure(
    summary,
    x: str,
    metrics: dict[str, str],
    *,
    xlabel: str | None = None,
    ylabel: str = "",
    title: str = "",
    analytic: tuple[list[float], list[float], str] | None = None,
    logy: bool = False,
    bounds: tuple[float | None, float | None] | None = None,
    yspan: tuple[float | None, float | None] | None = None,
    refs: Sequence[Ref] = (),
    dodge: float = 0.0,
) -> Figure:
    """A metric against a swept parameter with 95% confidence bars, one line per metric
    (``metrics`` maps summary column prefixes to legend labels).

    ``analytic``: a theoretical curve (xs, ys, label), drawn over the simulated points.
    ``bounds``: the metric's range (a probability: (0, 1)); confidence bars are cut there.
    ``yspan``: a y range the axis always shows (Jain's index: (0.9, 1)).
    ``refs``: reference lines and bands. ``dodge``: x offset between successive lines, so
    the confidence bars of lines at the same x do not hide one another."""
    d = summary.sort_values(x)
    with plt.rc_context(STYLE):
        fig, ax = plt.subplots(layout="constrained")
        draw_refs(ax, refs)
        offsets = (np.arange(len(metrics)) - (len(metrics) - 1) / 2) * dodge
        for off, (col, label) in zip(offsets, metrics.items(), strict=True):
            below, above = clipped_errors(d[f"{col}:mean"], d[f"{col}:ci95"], bounds)
            ax.errorbar(
                d[x].to_numpy(dtype=float) + off,
                d[f"{col}:mean"],
                yerr=np.vstack([below, above]),
                capsize=3,
                linewidth=1,
                label=label,
                zorder=2,
            )
        if analytic is not None:
            # Over the simulated line, in black and unconnected markers of its own: where
            # the two agree (the point of the figure) both stay visible.
            ax.plot(
                analytic[0],
                analytic[1],
                color="k",
                linestyle=(0, (4, 3)),
                linewidth=1.4,
                marker="x",
                markersize=9,
                markeredgewidth=1.6,
                label=analytic[2],
                zorder=3,
            )
        ax.set_xlabel(xlabel or x)
        ax.set_ylabel(ylabel)
        if logy:
            ax.set_yscale("log")
        if title:
            ax.set_title(title)
        extend_ylim(ax, yspan)
        legend_outside(ax)
    return fig


def plot_sweep(summary, x: str, metrics: dict[str, str], path: str | Path, **kw) -> Path:
    """``sweep_figure`` written as PNG, or SVG when the path ends in .svg."""
    return _save(sweep_figure(summary, x, metrics, **kw), path)


def plot_distribution(res: Results, queue: str, path: str | Path) -> Path:
    """The fraction of time a queue held n packets."""
    d = res.queue_dist[res.queue_dist["queue"] == queue]
    with plt.rc_context(STYLE):
        fig, ax = plt.subplots(layout="constrained")
        ax.bar(d["n_pkts"], d["fraction"], width=0.9)
        ax.set_xlabel("packets waiting")
        ax.set_ylabel("fraction of time")
        ax.set_title(f"Queue-length distribution at {queue}")
    return _save(fig, path)


def lines_figure(
    lines: dict[str, tuple],
    *,
    xlabel: str = "",
    ylabel: str = "",
    title: str = "",
    yspan: tuple[float | None, float | None] | None = None,
    refs: Sequence[Ref] = (),
    overlay: Callable[[Axes, dict[str, Line2D]], None] | None = None,
) -> Figure:
    """One line per label from ``{label: (xs, ys)}`` (per-period results, cumulative counts).

    ``overlay(ax, {label: line})`` adds what belongs to one figure only (a paper's values
    in the style of the matching line)."""
    with plt.rc_context(STYLE):
        fig, ax = plt.subplots(layout="constrained")
        draw_refs(ax, refs)
        drawn = {}
        for label, (xs, ys) in lines.items():
            (drawn[label],) = ax.plot(
                xs, ys, linewidth=1.2, label=label, markevery=_markevery(len(xs)), zorder=2
            )
        if overlay is not None:
            overlay(ax, drawn)
        ax.set_xlabel(xlabel)
        ax.set_ylabel(ylabel)
        if title:
            ax.set_title(title)
        extend_ylim(ax, yspan)
        legend_outside(ax)
    return fig


def plot_lines(lines: dict[str, tuple], path: str | Path, **kw) -> Path:
    """``lines_figure`` written to ``path``."""
    return _save(lines_figure(lines, **kw), path)
