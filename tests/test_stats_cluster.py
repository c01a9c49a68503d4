"""Cluster bootstrap and the one non-vectorised bootstrap loop (run-level metrics).

References: explicit resampling of whole clusters written out here (the count-weighted mean must
equal the mean of the concatenated resampled rows), the true mean of a simulated clustered design
(coverage), and the vectorised :func:`helmlite.stats.bootstrap_ci` (for :func:`bootstrap_weighted`).
"""
from __future__ import annotations

import math

import numpy as np
import pytest

from helmlite import stats
from helmlite.stats.cluster import _cluster_distribution, _cluster_sums


def test_count_weighted_mean_equals_explicitly_resampled_rows():
    """Reference: the same multinomial cluster counts turned into an explicit list of rows."""
    rng = np.random.default_rng(0)
    clusters = np.repeat(np.arange(7), rng.integers(1, 6, size=7))
    values = rng.normal(size=len(clusters))
    _, sums, sizes = _cluster_sums(values, clusters)
    boot = _cluster_distribution(sums, sizes, 50, seed=3)
    counts = np.random.default_rng(3).multinomial(7, np.full(7, 1 / 7), size=50)
    for b in range(50):
        rows = np.concatenate([np.tile(values[clusters == g], counts[b, g]) for g in range(7)])
        assert boot[b] == pytest.approx(rows.mean(), abs=1e-12)


@pytest.mark.parametrize("contexts", [8, 30])
def test_cluster_interval_covers_and_the_row_bootstrap_does_not(contexts):
    """Seeded simulation of a depth sweep: 8 or 30 contexts × 10 depths, a strong context effect (SD 1)
    and row noise (SD 0.5), true mean 0; 300 data sets. The cluster interval (expanded percentile over
    clusters) covers ~0.95 (accepted 0.90–0.99); the row bootstrap, which treats the rows as
    independent, under-covers (< 0.75; design effect 1 + 9·ICC = 8.2). Reference: the known true mean."""
    rng = np.random.default_rng(contexts)
    clusters = np.repeat(np.arange(contexts), 10)
    cluster_hits = row_hits = 0
    for k in range(300):
        values = rng.normal(0, 1, contexts)[clusters] + rng.normal(0, 0.5, 10 * contexts)
        est = stats.cluster_bootstrap_ci(values, clusters, n_resamples=999, seed=k)
        rows = stats.bootstrap_ci(values, np.mean, method="percentile", n_resamples=999, seed=k)
        cluster_hits += est.ci_low <= 0 <= est.ci_high
        row_hits += rows.ci_low <= 0 <= rows.ci_high
    assert 0.90 <= cluster_hits / 300 <= 0.99
    assert row_hits / 300 < 0.75
    assert est.n == contexts and est.method == "cluster-expanded-percentile"


def test_cluster_paired_difference_and_edge_cases():
    """Hand-derived: the estimate is the mean row difference; labels may be strings; one cluster has
    no interval; NaN rows are dropped; a missing label is refused."""
    a = np.array([1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
    b = np.array([0.0, 1.0, 3.0, 3.0, 5.0, np.nan])
    labels = np.array(["x", "x", "y", "y", "z", "z"])
    diff = stats.cluster_paired_difference(a, b, labels, n_resamples=999, seed=0)
    assert diff.estimate == pytest.approx(np.mean([1, 1, 0, 1, 0])) and diff.n == 3
    single = stats.cluster_bootstrap_ci([1.0, 2.0], ["c", "c"], n_resamples=999)
    assert single.estimate == 1.5 and math.isnan(single.ci_low) and single.n == 1
    with pytest.raises(ValueError, match="cluster label"):
        stats.cluster_bootstrap_ci([1.0, 2.0], ["c", None], n_resamples=999)
    with pytest.raises(ValueError, match="statistic must be 'mean'"):
        stats.cluster_bootstrap_ci([1.0, 2.0], ["c", "d"], statistic="median", n_resamples=999)


def test_bootstrap_weighted_equals_the_bootstrap_of_the_resampled_items():
    """Reference: bootstrap_ci(..., method="percentile") of the items themselves with the same seed draws the same
    resamples, so the mean computed from the items' multiplicities must give the same interval; and the
    multiplicities of one resample, written out by hand, are what the statistic receives."""
    values = np.random.default_rng(2).exponential(size=25)
    seen = []

    def weighted_mean(weights):
        seen.append(weights)
        return weights @ values / weights.sum(axis=-1)

    weighted = stats.bootstrap_weighted(25, weighted_mean, n_resamples=500, seed=4)
    vectorised = stats.bootstrap_ci(values, np.mean, method="percentile", n_resamples=500, seed=4)
    assert (weighted.ci_low, weighted.ci_high) == pytest.approx((vectorised.ci_low, vectorised.ci_high), abs=1e-12)
    assert weighted.estimate == pytest.approx(values.mean()) and weighted.n == 25 and weighted.method == "percentile"
    first = stats.estimates.generator(4).integers(0, 25, size=(500, 25))[0]
    assert np.array_equal(seen[-1][0], [np.sum(first == k) for k in range(25)]) and seen[-1].sum(axis=1).max() == 25


def test_bootstrap_weighted_drops_undefined_resamples():
    """Hand-derived: the spread is undefined (NaN) when a resample holds a single distinct item (3 of the 27 equally
    likely draws of three items from three); those resamples are dropped. Of the other 24 draws, 6 give spread 1
    ({1, 2}), 6 spread 2 ({2, 4}) and 12 spread 3 ({1, 4} or all three), so the percentile interval's 2.5% and
    97.5% points are 1 and 3."""
    values = np.array([1.0, 2.0, 4.0])

    def spread(weights):
        drawn = np.where(weights > 0, values, np.nan)
        return np.where((weights > 0).sum(axis=-1) >= 2, np.nanmax(drawn, axis=-1) - np.nanmin(drawn, axis=-1), np.nan)

    est = stats.bootstrap_weighted(3, spread, n_resamples=999, seed=0)
    assert est.estimate == 3.0 and (est.ci_low, est.ci_high) == (1.0, 3.0)
    empty = stats.bootstrap_weighted(0, spread, n_resamples=999)
    assert empty.n == 0 and math.isnan(empty.estimate)


def _korn_graubard_by_hand(values, clusters, level=0.95):
    """Korn & Graubard (1998) written out with scipy: the ratio mean, the cluster-robust variance, the
    effective n capped at the rows and shrunk by (t_{M−1}/t_{G−1})², Clopper–Pearson beta quantiles."""
    from scipy.stats import beta, t

    labels = sorted(set(clusters))
    sums = np.array([sum(v for v, c in zip(values, clusters) if c == g) for g in labels], dtype=float)
    sizes = np.array([sum(1 for c in clusters if c == g) for g in labels], dtype=float)
    groups, rows = len(labels), sizes.sum()
    p = sums.sum() / rows
    variance = groups / (groups - 1) * np.sum((sums - p * sizes) ** 2) / rows**2
    n_eff = min(rows, p * (1 - p) / variance) * (t.ppf(0.975, rows - 1) / t.ppf(0.975, groups - 1)) ** 2
    x = p * n_eff
    return p, beta.ppf(0.025, x, n_eff - x + 1), beta.ppf(0.975, x + 1, n_eff - x)


def test_korn_graubard_equals_the_hand_computation():
    """Reference: _korn_graubard_by_hand (scipy beta and t quantiles) on an uneven design: 6 clusters of
    2–5 rows with 0/1 values, and a bounded design (win rates in [0, 1])."""
    clusters = [0, 0, 1, 1, 1, 2, 2, 2, 2, 3, 3, 4, 4, 4, 4, 4, 5, 5]
    values = [1, 0, 1, 1, 0, 0, 0, 1, 0, 1, 1, 0, 0, 1, 0, 0, 1, 0]
    est = stats.korn_graubard_ci(values, clusters)
    assert (est.estimate, est.ci_low, est.ci_high) == pytest.approx(_korn_graubard_by_hand(values, clusters), abs=1e-10)
    assert est.n == 6 and est.method == "korn-graubard"
    rates = [1.0, 0.9, 1.0, 0.7, 0.95, 1.0, 0.4, 0.85]
    scenarios = [0, 0, 1, 2, 2, 3, 4, 5]
    bounded = stats.cluster_mean_estimate(rates, scenarios, bounds=(0.0, 1.0))
    assert (bounded.estimate, bounded.ci_low, bounded.ci_high) == pytest.approx(
        _korn_graubard_by_hand(rates, scenarios), abs=1e-10)


def test_korn_graubard_without_an_estimable_design_effect_counts_clusters():
    """Hand-derived: 30 zeros in 5 contexts, or a single 1 among them, say nothing about the design effect,
    so each context counts once: Clopper–Pearson on 0 of 5 → [0, 1 − 0.025^(1/5)] = [0, 0.5218]; on
    (1/30)·5 effective successes of 5 (beta quantiles); all ones mirror it. Never zero width."""
    from scipy.stats import beta

    clusters = np.repeat(np.arange(5), 6)
    zeros = stats.cluster_mean_estimate(np.zeros(30), clusters)
    assert (zeros.ci_low, zeros.ci_high) == pytest.approx((0.0, 1 - 0.025 ** (1 / 5)))
    ones = stats.cluster_mean_estimate(np.ones(30), clusters)
    assert (ones.ci_low, ones.ci_high) == pytest.approx((0.025 ** (1 / 5), 1.0))
    single = np.zeros(30)
    single[7] = 1
    est = stats.cluster_mean_estimate(single, clusters)
    x = 5 / 30
    assert (est.ci_low, est.ci_high) == pytest.approx((beta.ppf(0.025, x, 5 - x + 1), beta.ppf(0.975, x + 1, 5 - x)))


@pytest.mark.parametrize("groups", [2, 5, 20])
def test_no_zero_width_interval_on_a_clustered_share(groups):
    """Every k = 0…rows of a 0/1 design (rows filled cluster by cluster, and spread one per cluster): the
    interval has positive width, contains the estimate and stays within [0, 1]."""
    clusters = np.repeat(np.arange(groups), 3)
    rows = len(clusters)
    for k in range(rows + 1):
        for values in (np.r_[np.ones(k), np.zeros(rows - k)], np.isin(np.arange(rows), (np.arange(k) * 3) % rows)):
            est = stats.cluster_mean_estimate(values.astype(float), clusters)
            assert 0 <= est.ci_low <= est.estimate <= est.ci_high <= 1 and est.ci_high - est.ci_low > 0


def test_cluster_bootstrap_refuses_0_1_rows_and_bounds_are_checked():
    with pytest.raises(ValueError, match="cluster_mean_estimate"):
        stats.cluster_bootstrap_ci([0.0, 1.0, 1.0], [0, 1, 2], n_resamples=999)
    with pytest.raises(ValueError, match="within the bounds"):
        stats.cluster_mean_estimate([0.5, 1.5], [0, 1], bounds=(0.0, 1.0))


def test_cluster_bootstrap_statistic_resamples_whole_clusters():
    """Reference: the same cluster draws written out (rows of each drawn cluster concatenated) and the
    statistic evaluated per resample, for equal clusters (vectorised path) and unequal ones (loop)."""
    rng = np.random.default_rng(5)
    for sizes in ([2] * 12, [1, 2, 3, 2, 1, 2, 3, 2, 2, 1, 3, 2]):
        clusters = np.repeat(np.arange(12), sizes)
        x = rng.normal(size=len(clusters))
        y = x + rng.normal(size=len(clusters))
        est = stats.cluster_bootstrap_statistic((x, y), stats.pearson_r, clusters, n_resamples=199, seed=9)
        draws = np.random.default_rng(9).integers(0, 12, size=(199, 12))
        boot = [float(stats.pearson_r(np.concatenate([x[clusters == g] for g in d]),
                                      np.concatenate([y[clusters == g] for g in d]))) for d in draws]
        low, high = stats.percentile_interval(boot)
        assert est.estimate == pytest.approx(float(stats.pearson_r(x, y)))
        assert (est.ci_low, est.ci_high) == pytest.approx((low, high), abs=1e-12)
        assert est.n == 12 and est.method == "cluster-percentile"


def test_clustered_paired_0_1_rows_that_never_differ_get_a_bound_not_zero_width():
    """Hand-derived: 12 clusters of 5 rows where both systems agree everywhere: |p_a − p_b| <= the share of
    discordant rows, 0 of 60 with each cluster counting once → Clopper–Pearson 0 of 12, [0, 1 − 0.025^(1/12)];
    the interval is ± that bound and p = 1. Rows that do differ keep the cluster bootstrap."""
    rng = np.random.default_rng(6)
    clusters = np.repeat(np.arange(12), 5)
    a = (rng.random(60) < 0.7).astype(float)
    same = stats.cluster_paired_difference(a, a, clusters)
    bound = 1 - 0.025 ** (1 / 12)
    assert (same.estimate, same.ci_low, same.ci_high, same.p_value) == pytest.approx((0.0, -bound, bound, 1.0))
    b = (rng.random(60) < 0.45).astype(float)
    assert stats.cluster_paired_difference(a, b, clusters, n_resamples=999).method == "cluster-expanded-percentile"
