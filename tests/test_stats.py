"""aqmlab.stats: the one Student-t interval and rank trend that sweeps, reproductions and
cross-checks quote."""

import math

import numpy as np
import pytest
from scipy import stats as sps

from aqmlab.stats import half_width, mean_ci, t975, trend


def test_mean_ci_is_the_student_t_interval():
    x = [1.0, 2.0, 4.0, 7.0]
    m, h = mean_ci(x)
    lo, hi = sps.t.interval(0.95, len(x) - 1, loc=np.mean(x), scale=sps.sem(x))
    assert m == pytest.approx(3.5)
    assert (m - h, m + h) == pytest.approx((lo, hi), rel=1e-12)


def test_one_value_has_no_interval():
    m, h = mean_ci([3.0])
    assert m == 3.0 and math.isnan(h)
    assert math.isnan(half_width(1.0, 1)) and math.isnan(t975(0))


def test_trend_is_spearmans_rho_against_the_order():
    assert trend([1.0, 2.0, 3.0]) == pytest.approx(1.0)
    assert trend([3.0, 1.0, 2.0]) == pytest.approx(-0.5)
    assert math.isnan(trend([1.0])) and math.isnan(trend([1.0, math.nan, 2.0]))
