"""Statistics shared by sweeps, reproductions and cross-checks (scipy): one place for the
Student-t interval, Welch's interval of a difference and the rank trend that the reports
and tables quote."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

# pandas and numpy load on first use: `aqmlab --help` and `validate` never need them.
if TYPE_CHECKING:
    import numpy as np


def t975(df: int) -> float:
    """t_{0.975, df}, the two-sided 95% Student-t quantile (scipy); NaN below 1 degree of
    freedom. (Until 2026-11 a 3-digit table with interpolation: within 2.3e-4 relative.)"""
    if df < 1:
        return math.nan
    from scipy.stats import t

    return float(t.ppf(0.975, df))


def half_width(sd: Any, n: Any) -> Any:
    """The 95% Student-t half-width of a mean of n values with standard deviation sd (a
    number, or a pandas/numpy object of them); NaN below two values. ``n`` may also be an
    array of counts, one per row of a 2-D ``sd`` (a sweep's points)."""
    import numpy as np

    if np.ndim(n) == 0:
        return t975(n - 1) * sd / math.sqrt(n) if n > 1 else sd * math.nan
    n = np.asarray(n)
    t = np.array([t975(k - 1) if k > 1 else np.nan for k in n])
    sd = np.array(sd, dtype=float)
    sd[n < 2] = np.nan
    return t[:, None] * sd / np.sqrt(n)[:, None]


def mean_ci(x: Sequence[float] | np.ndarray) -> tuple[float, float]:
    """Mean and 95% Student-t half-width of the values (NaN half-width below two)."""
    import numpy as np

    a = np.asarray(x, dtype=float)
    if len(a) < 2:
        return float(np.mean(a)), math.nan
    return float(np.mean(a)), half_width(float(np.std(a, ddof=1)), len(a))


def welch_ci(
    a: Sequence[float] | np.ndarray, b: Sequence[float] | np.ndarray
) -> tuple[float, float]:
    """mean(a) - mean(b) and the 95% half-width of Welch's interval for it (the Student-t
    quantile at the Welch-Satterthwaite degrees of freedom, scipy); 0 when both samples
    are constant."""
    import numpy as np
    from scipy.stats import t

    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    va, vb = np.var(a, ddof=1) / len(a), np.var(b, ddof=1) / len(b)
    d = float(np.mean(a) - np.mean(b))
    se = math.sqrt(va + vb)
    if se == 0.0:
        return d, 0.0
    df = (va + vb) ** 2 / (va**2 / (len(a) - 1) + vb**2 / (len(b) - 1))
    return d, float(t.ppf(0.975, df)) * se


def trend(x: Sequence[float]) -> float:
    """Spearman's rank correlation of the values with their order 0, 1, ... (ties get
    average ranks); NaN below two values or with a NaN among them."""
    import numpy as np

    if len(x) < 2 or any(math.isnan(v) for v in x):
        return math.nan
    from scipy.stats import spearmanr

    return float(spearmanr(np.arange(len(x)), x).statistic)


__all__ = ["half_width", "mean_ci", "t975", "trend", "welch_ci"]
