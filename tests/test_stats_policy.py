"""Issue 27 §4: one interval policy. ``stats.interval_for`` picks the interval from the design; each design's result is
checked against an independent implementation (statsmodels, scipy) or the method the README's "Statistics" names."""
from __future__ import annotations

import numpy as np
import pytest
from scipy import stats as scipy_stats
from statsmodels.stats.contingency_tables import mcnemar
from statsmodels.stats.proportion import proportion_confint

from helmlite import stats
from helmlite.errors import UserError

RNG = np.random.default_rng(11)
BINARY_A, BINARY_B = (RNG.random(60) < 0.6).astype(float), (RNG.random(60) < 0.45).astype(float)
CONTINUOUS = RNG.normal(0.3, 1.0, 60)


def test_a_proportion_gets_clopper_pearson():
    """0/1 values, independent units: statsmodels' exact (beta) interval."""
    est = stats.interval_for(BINARY_A, level=0.9)
    low, high = proportion_confint(int(BINARY_A.sum()), 60, alpha=0.1, method="beta")
    assert est.method == "clopper-pearson" and est.level == 0.9
    assert (est.ci_low, est.ci_high) == pytest.approx((low, high), abs=1e-12)


def test_a_continuous_mean_gets_the_expanded_percentile_bootstrap():
    est = stats.interval_for(CONTINUOUS, n_resamples=2000, seed=1)
    assert est.method == "expanded" and est.estimate == pytest.approx(CONTINUOUS.mean())
    t_low, t_high = scipy_stats.t.interval(0.95, 59, loc=CONTINUOUS.mean(), scale=scipy_stats.sem(CONTINUOUS))
    assert est.ci_low == pytest.approx(t_low, abs=0.05) and est.ci_high == pytest.approx(t_high, abs=0.05)  # near the t interval


def test_paired_0_1_outcomes_get_the_exact_mcnemar_test_and_newcombe():
    diff = stats.interval_for((BINARY_A, BINARY_B), paired=True)
    only_a, only_b = int(((BINARY_A == 1) & (BINARY_B == 0)).sum()), int(((BINARY_A == 0) & (BINARY_B == 1)).sum())
    table = [[int(((BINARY_A == 1) & (BINARY_B == 1)).sum()), only_a], [only_b, int(((BINARY_A == 0) & (BINARY_B == 0)).sum())]]
    assert diff.method == "newcombe-score/mcnemar-exact"
    assert diff.p_value == pytest.approx(mcnemar(table, exact=True).pvalue, abs=1e-12)


def test_rows_in_clusters_resample_the_cluster():
    clusters = np.repeat(np.arange(12), 5)
    assert stats.interval_for(BINARY_A, clusters=clusters).method == "korn-graubard"
    assert stats.interval_for(CONTINUOUS, clusters=clusters, n_resamples=2000).method == "cluster-expanded-percentile"
    paired = stats.interval_for((CONTINUOUS, CONTINUOUS[::-1]), paired=True, clusters=clusters, n_resamples=2000)
    assert paired.method == "cluster-expanded-percentile" and paired.n == 12


@pytest.mark.parametrize("n, smooth, method", [(60, True, "bca"), (12, True, "percentile"), (60, False, "percentile")])
def test_another_statistic_gets_bca_only_when_smooth_with_n_at_least_20(n, smooth, method):
    x, y = CONTINUOUS[:n], CONTINUOUS[:n] ** 2 + RNG.normal(0, 1, n)
    est = stats.interval_for((x, y), statistic=stats.pearson_r, smooth=smooth, n_resamples=2000)
    assert est.method == method and est.estimate == pytest.approx(scipy_stats.pearsonr(x, y).statistic)


def test_a_paired_statistic_gets_its_p_value_from_the_same_resamples():
    def difference(x, y, axis=-1):
        return np.median(x, axis=axis) - np.median(y, axis=axis)

    diff = stats.interval_for((CONTINUOUS, CONTINUOUS - 0.5), statistic=difference, paired=True, smooth=False)
    assert diff.method == "percentile" and diff.significant == (diff.ci_low > 0 or diff.ci_high < 0)


def test_a_paired_mean_needs_two_arrays():
    with pytest.raises(UserError, match="paired=True needs data=\\(a, b\\)"):
        stats.interval_for((CONTINUOUS, CONTINUOUS, CONTINUOUS), paired=True)


def test_two_independent_groups_are_resampled_each_on_its_own():
    """``versus``: the difference of two groups' means, each group resampled on its own from one generator (a, then
    b), recomputed here by hand; the percentile interval and its p-value agree (dual)."""
    a, b = CONTINUOUS[:30], CONTINUOUS[30:] - 0.4
    diff = stats.interval_for(a, versus=b, n_resamples=999, seed=5)
    draw = np.random.default_rng(5)
    boot_a = a[draw.integers(0, 30, size=(999, 30))].mean(axis=1)
    boot_b = b[draw.integers(0, 30, size=(999, 30))].mean(axis=1)
    boot = np.sort(boot_a - boot_b)
    assert diff.estimate == pytest.approx(a.mean() - b.mean())
    assert diff.method == "percentile (independent groups)" and diff.ci_low >= boot[0] and diff.ci_high <= boot[-1]
    # order statistics at the ranks where the two-sided p = 2(k + 1)/(B + 1) stays below α: 24 on each side
    rank = int(np.sum(2 * (np.arange(1000) + 1) / 1000 < 0.05))
    assert rank == 24 and diff.ci_low == pytest.approx(boot[rank - 1], abs=1e-12)
    assert diff.ci_high == pytest.approx(boot[999 - rank], abs=1e-12)
    assert diff.significant == (diff.ci_low > 0 or diff.ci_high < 0)
