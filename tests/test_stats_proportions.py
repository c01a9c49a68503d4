"""Proportions and paired 0/1 outcomes: Clopper–Pearson, exact McNemar, Newcombe's paired interval.

References: statsmodels ``proportion_confint`` and scipy's beta quantiles (Clopper & Pearson 1934),
exact binomial sums for coverage, statsmodels ``mcnemar(exact=True)``, the worked example of
Fagerland, Lydersen & Laake (2017, §8.5.4) for Newcombe's interval, and hand-derived values.
"""
from __future__ import annotations

import math
import time

import numpy as np
import pytest
from scipy import stats as sps
from statsmodels.stats.contingency_tables import mcnemar
from statsmodels.stats.proportion import proportion_confint

from helmlite import stats

N_GRID = range(5, 501)  # every n
P_GRID = np.round(np.arange(0.05, 0.951, 0.05), 2)


def _pairs(both, only_a, only_b, neither):
    a = np.array([1] * both + [1] * only_a + [0] * only_b + [0] * neither)
    b = np.array([1] * both + [0] * only_a + [1] * only_b + [0] * neither)
    return a, b


def test_proportion_ci_equals_beta_quantiles_and_statsmodels():
    """Reference: the Clopper–Pearson bounds written out with scipy's beta quantiles, and statsmodels."""
    for n in (1, 8, 37, 500):
        for k in sorted({0, 1, n // 3, n - 1, n}):
            low, high = stats.proportion_ci(k, n)
            ref_low = 0.0 if k == 0 else sps.beta.ppf(0.025, k, n - k + 1)
            ref_high = 1.0 if k == n else sps.beta.ppf(0.975, k + 1, n - k)
            assert (low, high) == pytest.approx((ref_low, ref_high), abs=1e-12)
            assert (low, high) == pytest.approx(proportion_confint(k, n, method="beta"), abs=1e-12)
    low, high = stats.proportion_ci(3, 10, level=0.9)
    assert (low, high) == pytest.approx(proportion_confint(3, 10, alpha=0.1, method="beta"), abs=1e-12)


def test_proportion_ci_exact_coverage_at_least_093_everywhere():
    """Reference: exact coverage Σ_k Binom(k; n, p)·[p ∈ CI(k)] summed over k = 0..n (issue 15's done
    criterion: >= 0.93 for n in 5..500, p in 0.05..0.95). Clopper–Pearson is >= 0.95 by construction."""
    started = time.perf_counter()
    worst = 1.0
    for n in N_GRID:
        k = np.arange(n + 1)
        low, high = stats.proportion_ci(k, np.full(n + 1, n))
        covered = (low[None, :] <= P_GRID[:, None]) & (P_GRID[:, None] <= high[None, :])
        coverage = (sps.binom.pmf(k[None, :], n, P_GRID[:, None]) * covered).sum(axis=1)
        worst = min(worst, coverage.min())
    assert worst >= 0.95 - 1e-9  # and therefore >= 0.93
    assert time.perf_counter() - started < 10


def test_proportion_ci_edges():
    """Hand-derived: 8/8 correct gives [0.025^(1/8), 1] = [0.6306, 1], never the bootstrap's [1, 1]."""
    low, high = stats.proportion_ci(8, 8)
    assert low == pytest.approx(0.025 ** (1 / 8), abs=1e-12) and high == 1.0
    assert all(math.isnan(v) for v in stats.proportion_ci(0, 0))
    with pytest.raises(ValueError, match="whole numbers in 0..n"):
        stats.proportion_ci(5, 4)
    with pytest.raises(ValueError, match="whole numbers"):
        stats.proportion_ci(1.5, 4)


def test_proportion_estimate_and_is_binary():
    """Reference: statsmodels proportion_confint(method="beta") on the counted successes."""
    est = stats.proportion_estimate([1, 0, 1, 1, np.nan, 0, True])
    assert (est.estimate, est.n, est.method) == (4 / 6, 6, "clopper-pearson")
    assert (est.ci_low, est.ci_high) == pytest.approx(proportion_confint(4, 6, method="beta"))
    empty = stats.proportion_estimate([np.nan])
    assert empty.n == 0 and math.isnan(empty.estimate) and math.isnan(empty.ci_low)
    with pytest.raises(ValueError, match="0/1"):
        stats.proportion_estimate([0.5, 1.0])
    assert stats.is_binary([0, 1, 1.0, np.nan, False]) and stats.is_binary(np.ones((2, 3)))
    assert not stats.is_binary([0, 0.5]) and not stats.is_binary([np.nan]) and not stats.is_binary([])


@pytest.mark.parametrize("table", [(3, 10, 0, 7), (20, 5, 9, 16), (0, 0, 0, 12), (4, 1, 1, 4), (50, 17, 30, 3)])
def test_paired_binary_test_equals_statsmodels_exact_mcnemar(table):
    """Reference: statsmodels.stats.contingency_tables.mcnemar(exact=True)."""
    both, only_a, only_b, neither = table
    a, b = _pairs(*table)
    ref = mcnemar(np.array([[both, only_a], [only_b, neither]]), exact=True).pvalue
    assert stats.paired_binary_test(a, b) == pytest.approx(min(1.0, ref), abs=1e-12)


def test_paired_binary_test_is_never_zero():
    """Hand-derived: 10 discordant pairs all one way give 2·(1/2)^10 = 2/1024 = 0.001953125; no
    discordant pair gives 1; 200 discordant one way is tiny but > 0."""
    a, b = _pairs(5, 10, 0, 5)
    assert stats.paired_binary_test(a, b) == 2 / 1024 == 0.001953125
    assert stats.paired_binary_test(*_pairs(7, 0, 0, 3)) == 1.0
    assert 0 < stats.paired_binary_test(*_pairs(0, 200, 0, 0)) < 1e-50
    # NaN items are dropped, not counted as discordant
    assert stats.paired_binary_test([1, 1, np.nan], [0, 0, 1]) == stats.paired_binary_test([1, 1], [0, 0]) == 0.5


@pytest.mark.parametrize("n", [20, 50])
def test_exact_mcnemar_holds_its_level_under_the_null(n):
    """Seeded simulation: 4,000 data sets, both systems 50% accurate, 30% discordant items; the
    rejection rate at α = 0.05 is <= 5.5% (exact tests are conservative). Reference: the nominal level."""
    rng = np.random.default_rng(20 + n)
    cells = rng.multinomial(n, [0.35, 0.15, 0.15, 0.35], size=4000)
    rejected = sum(stats.paired_binary_test(*_pairs(*row)) < 0.05 for row in cells)
    assert rejected / 4000 <= 0.055


def test_newcombe_interval_matches_the_worked_example():
    """Reference: Fagerland, Lydersen & Laake (2017), §8.5.4, Cavo et al. (2012) data, 2×2 table
    [[59, 6], [16, 80]] (before × after): difference −0.0621, 95% CI −0.1186 to −0.0046."""
    low, high = stats.newcombe_paired_interval(59, 6, 16, 80)
    assert (round(low, 4), round(high, 4)) == (-0.1186, -0.0046)
    a, b = _pairs(59, 6, 16, 80)
    diff = stats.paired_binary_difference(a, b)
    assert diff.estimate == pytest.approx(-10 / 161)
    assert (diff.ci_low, diff.ci_high) == pytest.approx((low, high))
    assert diff.p_value == pytest.approx(mcnemar([[59, 6], [16, 80]], exact=True).pvalue)
    assert diff.method == "newcombe-score/mcnemar-exact" and diff.n == 161
    # swapping the systems mirrors the interval
    swapped = stats.paired_binary_difference(b, a)
    assert (swapped.ci_low, swapped.ci_high) == pytest.approx((-high, -low))


def test_newcombe_interval_is_never_zero_width_and_stays_in_range():
    """Hand-derived limits: all items agree → the interval still has width (Wilson margins); 8 of 8
    discordant one way → upper bound 1 (truncated), lower bound > 0."""
    same = stats.paired_binary_difference(np.ones(8), np.ones(8))
    assert same.estimate == 0 and same.ci_low < 0 < same.ci_high and same.p_value == 1.0
    one_way = stats.paired_binary_difference(np.ones(8), np.zeros(8))
    assert one_way.estimate == 1 and 0 < one_way.ci_low < 1 and one_way.ci_high == 1.0
    vector_low, vector_high = stats.newcombe_paired_interval([59, 0], [6, 0], [16, 0], [80, 0])
    assert vector_low[0] == pytest.approx(-0.11862, abs=1e-5) and math.isnan(vector_low[1])


def test_paired_binary_difference_reports_the_discordant_share():
    """Hand-derived: a = 1,1,0,0,1 and b = 1,0,1,0,0 differ on items 2, 3 and 5 → discordance 3/5."""
    from helmlite.stats import paired_binary_difference

    assert paired_binary_difference([1, 1, 0, 0, 1], [1, 0, 1, 0, 0]).discordance == 0.6
