"""Cluster bootstrap and the one non-vectorised bootstrap loop (run-level metrics).

References: explicit resampling of whole clusters written out here (the count-weighted mean must
equal the mean of the concatenated resampled rows), the true mean of a simulated clustered design
(coverage), and the vectorised :func:`helmlite.stats.bootstrap_ci` (for :func:`bootstrap_apply`).
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


def test_bootstrap_apply_equals_the_vectorised_percentile_bootstrap():
    """Reference: bootstrap_ci(..., method="percentile") draws the same resamples from the same seed
    (one row of item indices per resample), so the loop over a list must give the same interval."""
    values = np.random.default_rng(2).exponential(size=25)
    looped = stats.bootstrap_apply(list(values), lambda items: float(np.mean(items)), n_resamples=500, seed=4)
    vectorised = stats.bootstrap_ci(values, np.mean, method="percentile", n_resamples=500, seed=4)
    assert (looped.ci_low, looped.ci_high) == pytest.approx((vectorised.ci_low, vectorised.ci_high), abs=1e-12)
    assert looped.estimate == pytest.approx(values.mean()) and looped.n == 25 and looped.method == "percentile"


def test_bootstrap_apply_drops_undefined_resamples():
    """Hand-derived: fn is undefined (None) when a resample holds a single distinct item; those
    resamples are dropped, the rest give an interval inside the range of the items."""
    items = [{"v": 1.0}, {"v": 2.0}, {"v": 4.0}]

    def spread(rows):
        values = {r["v"] for r in rows}
        return None if len(values) < 2 else max(values) - min(values)

    est = stats.bootstrap_apply(items, spread, n_resamples=999, seed=0)
    assert est.estimate == 3.0 and 1.0 <= est.ci_low <= est.ci_high <= 3.0
    empty = stats.bootstrap_apply([], spread, n_resamples=999)
    assert empty.n == 0 and math.isnan(empty.estimate)
