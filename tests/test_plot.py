"""aqmlab.plot: confidence bars within the metric's range, lines told apart without colour,
axes that show a meaningful span, legends off the data, labelled reference lines."""

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest

from aqmlab.plot import HBand, HLine, VLines, lines_figure, plot_sweep, sweep_figure


def _summary(means: dict[str, list[float]], cis: dict[str, list[float]], xs=(20, 70)):
    d = {"flows": list(xs)}
    for k in means:
        d[f"{k}:mean"] = means[k]
        d[f"{k}:ci95"] = cis[k]
    return pd.DataFrame(d)


def _bar_extent(container) -> tuple[float, float]:
    """Lowest and highest y of an errorbar's drawn bars and caps."""
    ys = [y for seg in container.lines[2][0].get_segments() for _, y in seg]
    for cap in container.lines[1]:
        ys += list(cap.get_ydata())
    return min(ys), max(ys)


def test_confidence_bars_of_a_probability_are_cut_at_0_and_1():
    # Means near the ends with wide intervals: unclipped, they would reach -0.05 and 1.08.
    s = _summary({"p": [0.03, 0.97]}, {"p": [0.08, 0.11]})
    fig = sweep_figure(s, "flows", {"p": "P(X = 0)"}, bounds=(0, 1))
    (eb,) = fig.axes[0].containers
    lo, hi = _bar_extent(eb)
    assert lo == pytest.approx(0.0)
    assert hi == pytest.approx(1.0)
    # The side that is not cut keeps the full half-width.
    segs = eb.lines[2][0].get_segments()
    assert [tuple(np.round(seg[:, 1], 6)) for seg in segs] == [(0.0, 0.11), (0.86, 1.0)]
    plt.close(fig)


def test_confidence_bars_without_bounds_are_symmetric():
    s = _summary({"v": [50.0, 60.0]}, {"v": [4.0, 9.0]})
    fig = sweep_figure(s, "flows", {"v": "variance"})
    segs = fig.axes[0].containers[0].lines[2][0].get_segments()
    assert [tuple(seg[:, 1]) for seg in segs] == [(46.0, 54.0), (51.0, 69.0)]
    plt.close(fig)


def test_every_line_of_a_seven_line_plot_has_its_own_marker_and_line_style():
    lines = {f"scheme {i}": ([20, 40, 60, 80], [i, i + 1, i + 2, i + 3]) for i in range(7)}
    fig = lines_figure(lines, refs=[HLine(20, "target b* = 20")])
    ax = fig.axes[0]
    data = [ln for ln in ax.get_lines() if ln.get_label().startswith("scheme")]
    pairs = [(ln.get_marker(), ln.get_linestyle()) for ln in data]
    assert len(pairs) == 7
    assert len(set(pairs)) == 7
    assert all(m not in ("None", "", None) for m, _ in pairs)
    plt.close(fig)


def test_every_line_of_a_four_line_sweep_plot_has_its_own_marker_and_line_style():
    names = ["RED", "ARED_Feng", "ARED_Floyd", "PSAND"]
    s = _summary({k: [1.0, 2.0] for k in names}, {k: [0.1, 0.1] for k in names})
    fig = sweep_figure(s, "flows", {k: k for k in names})
    pairs = [(c.lines[0].get_marker(), c.lines[0].get_linestyle()) for c in fig.axes[0].containers]
    assert len(set(pairs)) == 4
    plt.close(fig)


def test_a_jain_index_axis_spans_0_9_to_1_and_is_not_autoscaled_to_the_noise():
    s = _summary({"jain": [0.99985, 0.99960, 0.99975]}, {"jain": [2e-5, 3e-5, 1e-5]}, (2, 4, 8))
    fig = sweep_figure(s, "flows", {"jain": "Jain index"}, bounds=(0, 1), yspan=(0.9, 1.0))
    lo, hi = fig.axes[0].get_ylim()
    assert lo <= 0.9 and hi >= 1.0
    assert hi - lo < 0.12  # and not stretched further than the span asked for
    plt.close(fig)
    # Without a span the same data fill the axis: the defect this guards against.
    fig = sweep_figure(s, "flows", {"jain": "Jain index"})
    lo, hi = fig.axes[0].get_ylim()
    assert hi - lo < 0.001
    plt.close(fig)


def test_the_legend_is_outside_the_axes_so_it_covers_no_data(tmp_path):
    lines = {f"s{i}": (np.arange(50), np.linspace(0, 1, 50) * (i + 1)) for i in range(4)}
    fig = lines_figure(lines)
    fig.canvas.draw()
    ax = fig.axes[0]
    leg = ax.get_legend().get_window_extent()
    axes_box = ax.get_window_extent()
    assert leg.x0 >= axes_box.x1
    # And the figure keeps it: nothing of the legend is cut off at the right edge.
    assert leg.x1 <= fig.bbox.x1
    plt.close(fig)


def test_reference_lines_and_bands_are_named_in_the_legend():
    fig = lines_figure(
        {"PSAND": ([0, 50, 100], [5, 20, 10])},
        refs=[HLine(10, "target K_T = 10"), HBand(8, 12, "K_T ± 2"), VLines([50], "step")],
    )
    labels = fig.axes[0].get_legend_handles_labels()[1]
    assert labels == ["target K_T = 10", "K_T ± 2", "step", "PSAND"]
    plt.close(fig)


def test_the_analytic_curve_is_drawn_over_the_simulated_points():
    s = pd.DataFrame({"rho": [0.5, 0.8], "L:mean": [0.9, 2.97], "L:ci95": [0.01, 0.02]})
    fig = sweep_figure(s, "rho", {"L": "simulated"}, analytic=([0.5, 0.8], [0.9, 2.97], "formula"))
    ax = fig.axes[0]
    (sim,) = [c.lines[0] for c in ax.containers]
    (formula,) = [ln for ln in ax.get_lines() if ln.get_label() == "formula"]
    assert formula.get_zorder() > sim.get_zorder()
    assert (formula.get_marker(), formula.get_color()) == ("x", "k")
    assert sim.get_marker() != "x"
    plt.close(fig)


def test_plot_sweep_writes_a_png(tmp_path):
    s = _summary({"p": [0.03, 0.97]}, {"p": [0.08, 0.11]})
    p = plot_sweep(s, "flows", {"p": "P"}, tmp_path / "p.png", bounds=(0, 1))
    assert p.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
