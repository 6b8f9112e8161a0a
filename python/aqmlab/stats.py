"""Statistics shared by sweeps, reproductions and cross-checks (scipy): one place for the
Student-t interval and the rank trend that the reports and tables quote."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np


def t975(df: int) -> float:
    """t_{0.975, df}, the two-sided 95% Student-t quantile (scipy); NaN below 1 degree of
    freedom. (Until 2026-11 a 3-digit table with interpolation: within 2.3e-4 relative.)"""
    if df < 1:
        return math.nan
    from scipy.stats import t

    return float(t.ppf(0.975, df))


def half_width(sd: Any, n: int) -> Any:
    """The 95% Student-t half-width of a mean of n values with standard deviation sd (a
    number, or a pandas/numpy object of them); NaN below two values."""
    return t975(n - 1) * sd / math.sqrt(n) if n > 1 else sd * math.nan


def mean_ci(x: Sequence[float] | np.ndarray) -> tuple[float, float]:
    """Mean and 95% Student-t half-width of the values (NaN half-width below two)."""
    a = np.asarray(x, dtype=float)
    if len(a) < 2:
        return float(np.mean(a)), math.nan
    return float(np.mean(a)), half_width(float(np.std(a, ddof=1)), len(a))


def trend(x: Sequence[float]) -> float:
    """Spearman's rank correlation of the values with their order 0, 1, ... (ties get
    average ranks); NaN below two values or with a NaN among them."""
    if len(x) < 2 or any(math.isnan(v) for v in x):
        return math.nan
    from scipy.stats import spearmanr

    return float(spearmanr(np.arange(len(x)), x).statistic)


__all__ = ["half_width", "mean_ci", "t975", "trend"]
