"""Paired comparisons: binary delegation, p-values from the same resamples as the interval, the
permutation test, and the level of every paired test under the null.

References: statsmodels ``mcnemar(exact=True)`` (binary path), scipy ``permutation_test`` and an
exact enumeration of all 2^n sign flips written out here (permutation test), the nominal level 0.05
(seeded null simulations), and the interval ↔ p-value duality checked directly.
"""
from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy import stats as sps
from statsmodels.stats.contingency_tables import mcnemar

from helmlite import stats
from helmlite.seeds import rng as derived_rng
from helmlite.stats.bootstrap import Resampled


def test_binary_outcomes_with_the_mean_use_newcombe_and_exact_mcnemar():
    """Reference: statsmodels mcnemar(exact=True) for the p-value; the estimate is mean(a) − mean(b)."""
    rng = np.random.default_rng(0)
    a = (rng.random(60) < 0.7).astype(float)
    b = np.where(rng.random(60) < 0.8, a, 1 - a)
    diff = stats.paired_difference(a, b, seed=1)
    table = [[np.sum((a == 1) & (b == 1)), np.sum((a == 1) & (b == 0))],
             [np.sum((a == 0) & (b == 1)), np.sum((a == 0) & (b == 0))]]
    assert diff.method == "newcombe-score/mcnemar-exact"
    assert diff.estimate == pytest.approx(a.mean() - b.mean())
    assert diff.p_value == pytest.approx(mcnemar(np.array(table), exact=True).pvalue)
    # a non-mean statistic or a non-binary side keeps the bootstrap
    assert stats.paired_difference(a, b, np.median, n_resamples=999).method in ("bca", "percentile")
    assert stats.paired_difference(a + 0.5, b, n_resamples=999).method == "expanded"


@pytest.mark.parametrize("method,z0,accel", [("percentile", 0, 0), ("bca", 0.3, 0.05), ("bca", -0.4, -0.08),
                                              ("bca", 0.1, 0.2), ("expanded", 0, 0)])
def test_interval_excludes_a_value_exactly_when_its_p_value_is_below_alpha(method, z0, accel):
    """The duality by construction: for random bootstrap distributions (with ties) and 330 candidate
    null values each, "θ0 outside the (1 − α) interval" ⇔ "p(θ0) < α", at α = 0.05 and 0.1."""
    rng = np.random.default_rng(3)
    for trial in range(10):
        size = int(rng.integers(40, 3000))
        boot = np.round(rng.normal(rng.normal(), 1, size=size), 1 if trial % 2 else 6)
        resampled = Resampled(boot, method, z0, accel, n=25)
        for confidence in (0.95, 0.9):
            low, high = resampled.interval(confidence)
            for null in np.concatenate([rng.uniform(boot.min() - 1, boot.max() + 1, 300), boot[:30]]):
                p = resampled.p_value(null)
                assert 0 < p <= 1
                assert (null < low or null > high) == (p < round(1 - confidence, 12)), (trial, null, p, low, high)


def test_significant_flag_agrees_with_the_interval_for_every_bootstrap_comparison():
    """Reference: the returned interval itself — ``significant`` ⇔ the interval excludes 0, for the
    paired mean (expanded), median (BCa/percentile), correlation differences and the cluster bootstrap."""
    rng = np.random.default_rng(4)
    for trial in range(40):
        n = int(rng.integers(8, 60))
        a = rng.normal(size=n)
        b = a + rng.normal(rng.choice([0, 0.2, 0.5]), 1, size=n)
        results = [stats.paired_difference(b, a, n_resamples=999, seed=trial),
                   stats.paired_difference(b, a, np.median, n_resamples=999, seed=trial),
                   stats.correlation_difference(a, b, a + b, n_resamples=999, seed=trial),
                   stats.cluster_paired_difference(b, a, np.arange(n) // 3, n_resamples=999, seed=trial)]
        for result in results:
            assert result.significant == result.excludes(0), (trial, result)
            assert result.p_value >= 2 / 1000


def test_p_value_is_never_zero_and_seeds_accept_generators():
    """Hand-derived: every resample above 0 gives p = 2·(0 + 1)/(B + 1) = 2/1000 with B = 999; a
    Generator seed (helmlite.seeds.rng) is used as given, so the same generator state gives the same result."""
    a = np.arange(30.0)
    diff = stats.paired_difference(a + 5, a, np.median, n_resamples=999, seed=0)
    assert diff.p_value == pytest.approx(2 / 1000) and diff.significant
    one = stats.paired_difference(a + np.sin(a), a, n_resamples=999, seed=derived_rng(7, "paired", "x"))
    two = stats.paired_difference(a + np.sin(a), a, n_resamples=999, seed=derived_rng(7, "paired", "x"))
    assert one == two
    with pytest.raises(ValueError, match="too few"):
        stats.paired_difference(a + 1, a, n_resamples=20)


def _exact_sign_flip_p(a, b):
    d = np.asarray(a) - np.asarray(b)
    observed = d.mean()
    flips = np.array(list(itertools.product([1, -1], repeat=len(d))))
    null = (flips * d).mean(axis=1)
    tol = 1e-12 * max(1.0, abs(observed))
    less, greater = np.mean(null <= observed + tol), np.mean(null >= observed - tol)
    return min(1.0, 2 * min(less, greater))


def test_permutation_p_value_equals_exact_enumeration_and_scipy():
    """References: all 2^10 sign flips enumerated here, and scipy permutation_test (exact when
    n_resamples >= 2^n; randomised close to exact otherwise)."""
    rng = np.random.default_rng(5)
    a = rng.normal(size=10)
    b = a + rng.normal(0.6, 1, size=10)
    exact = _exact_sign_flip_p(a, b)
    assert stats.permutation_p_value(a, b, n_resamples=2**10) == pytest.approx(exact, abs=1e-12)
    ref = sps.permutation_test((a, b), lambda x, y, axis: np.mean(x - y, axis=axis), permutation_type="samples",
                               vectorized=True, n_resamples=2**10).pvalue
    assert stats.permutation_p_value(a, b, n_resamples=2**10) == pytest.approx(ref, abs=1e-12)
    assert stats.permutation_p_value(a, b, n_resamples=1999, seed=1) == pytest.approx(exact, abs=0.03)
    # never 0: 12 pairs all one way, randomised and exact
    assert stats.permutation_p_value(np.ones(12) + np.arange(12), np.arange(12.0), n_resamples=999) \
        == pytest.approx(2 / 1000)
    assert stats.permutation_p_value(np.ones(8), np.zeros(8), n_resamples=999) == pytest.approx(2 / 2**8)


@pytest.mark.parametrize("n", [20, 50])
def test_paired_tests_hold_their_level_under_the_null(n):
    """Seeded null simulations at α = 0.05 (reference: the nominal level; <= 5.5% accepted):
    the paired bootstrap of a mean (default: expanded percentile), 3,000 data sets with normal item
    effects and normal noise; the permutation test, 1,500 data sets, 199 sign flips each.
    (The plain percentile test rejects 6.4% at n = 20 here: see benchmarks/coverage.py.)"""
    rng = np.random.default_rng(100 + n)
    rejected = 0
    for k in range(3000):
        item = rng.normal(size=n)
        a, b = item + rng.normal(size=n), item + rng.normal(size=n)
        rejected += stats.paired_difference(a, b, n_resamples=999, seed=k).significant
    assert rejected / 3000 <= 0.055
    rejected = 0
    for k in range(1500):
        a, b = rng.normal(size=n), rng.normal(size=n)
        rejected += stats.permutation_p_value(a, b, n_resamples=199, seed=k) < 0.05
    assert rejected / 1500 <= 0.055
