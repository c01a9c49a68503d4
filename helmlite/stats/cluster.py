"""Cluster bootstrap: resample whole clusters, keep their rows together.

Use it whenever rows share a unit that makes them correlated, so that the rows are not independent
draws: every (context, depth) row of a depth sweep shares its context; HelpSteer2 responses share a
prompt; HELM's perturbed copies share a question; runs that share a prompt template or a seed. A row
bootstrap treats such rows as independent and its interval is too narrow (coverage 0.75–0.80 in the
depth design of issue 15, 0.94 with contexts resampled; see ``benchmarks/coverage.py``). The
independent units are the clusters, so ``Estimate.n`` counts clusters.

Method: the nonparametric bootstrap of clusters (Davison & Hinkley 1997, §3.8, "strategy 1":
resample clusters with replacement, keep each cluster's rows as they are; Field & Welsh 2007).
Vectorised: a resample is a vector of cluster counts drawn from Multinomial(G, 1/G each), and the
resampled mean is the count-weighted mean Σ c_g S_g / Σ c_g m_g of the cluster sums S_g and sizes m_g.
The interval is the expanded percentile interval with n = G clusters (Hesterberg 2015, §5.1; the
plain percentile interval is too narrow with few clusters: coverage 0.87 with 5 contexts in
``benchmarks/coverage.py``), and p-values come from the same resamples with the (k+1)/(B+1)
correction (see :mod:`helmlite.stats.bootstrap`). With very few clusters the interval is honestly
wide: the expanded level needs the resamples' far tail, so an endpoint is ±inf when ``n_resamples``
cannot reach it (at 95%: G = 5 clusters need B > ~1,100, G = 4 > ~8,400; G <= 3 never get a finite
bound, like a t interval on 2 df) — 2 or 3 contexts say almost nothing about a population of
contexts. For 0/1 rows the interval is clipped to the mean's range ([0, 1]; [−1, 1] for a
difference), which leaves every null inside that range on the same side.
"""
from __future__ import annotations

import math

import numpy as np
import pandas as pd

from ..errors import InputError
from .bootstrap import _BATCH_ELEMENTS, Resampled, _check_resamples
from .estimates import Estimate, PairedComparison, Seed, generator
from .proportions import is_binary

METHOD = "cluster-expanded-percentile"


def _cluster_sums(values, clusters) -> tuple[float, np.ndarray, np.ndarray]:
    values = np.asarray(values, dtype=float).ravel()
    labels = np.asarray(clusters).ravel() if not isinstance(clusters, pd.Series) else clusters.to_numpy()
    if len(values) != len(labels):
        raise InputError(f"cluster bootstrap: {len(values)} values but {len(labels)} cluster labels")
    keep = ~np.isnan(values)
    values, labels = values[keep], labels[keep]
    if len(values) == 0:
        raise InputError("cluster bootstrap: no rows to resample")
    codes, _ = pd.factorize(labels, sort=True)
    if np.any(codes < 0):
        raise InputError("cluster bootstrap: every row needs a cluster label (found a missing one)")
    sums = np.bincount(codes, weights=values)
    sizes = np.bincount(codes).astype(float)
    return float(values.mean()), sums, sizes


def _cluster_distribution(sums: np.ndarray, sizes: np.ndarray, n_resamples: int, seed: Seed) -> np.ndarray:
    groups = len(sums)
    rng = generator(seed)
    out = np.empty(n_resamples)
    batch = max(1, _BATCH_ELEMENTS // groups)
    share = np.full(groups, 1.0 / groups)
    for start in range(0, n_resamples, batch):
        size = min(batch, n_resamples - start)
        counts = rng.multinomial(groups, share, size=size).astype(float)
        out[start:start + size] = (counts @ sums) / (counts @ sizes)
    return out


def _check_statistic(statistic: str) -> None:
    if statistic != "mean":
        raise InputError(f"cluster bootstrap: statistic must be 'mean' (the mean over rows), got {statistic!r}")


def cluster_bootstrap_ci(values, clusters, *, statistic: str = "mean", confidence: float = 0.95,
                         n_resamples: int = 10_000, seed: Seed = 0) -> Estimate:
    """Mean over rows with a cluster-bootstrap CI (clusters resampled with their rows; expanded percentile).

    ``clusters`` gives each row's cluster label (context id, prompt id, question id...). NaN rows are
    dropped. ``n`` in the result is the number of clusters; ``method="cluster-expanded-percentile"``. With
    one cluster there is no interval (NaN). See the module docstring for when to use it (Davison &
    Hinkley 1997, §3.8).
    """
    _check_statistic(statistic)
    _check_resamples(n_resamples, confidence)
    estimate, sums, sizes = _cluster_sums(values, clusters)
    if len(sums) < 2:
        return Estimate(estimate, math.nan, math.nan, len(sums), confidence, METHOD)
    resampled = Resampled(_cluster_distribution(sums, sizes, n_resamples, seed), "expanded", n=len(sums))
    low, high = resampled.interval(confidence)
    if is_binary(values):
        low, high = max(low, 0.0), min(high, 1.0)
    return Estimate(estimate, low, high, len(sums), confidence, METHOD)


def cluster_paired_difference(a, b, clusters, *, statistic: str = "mean", confidence: float = 0.95,
                              n_resamples: int = 10_000, seed: Seed = 0) -> PairedComparison:
    """mean(a) − mean(b) over rows scored under two conditions, clusters resampled with their rows.

    Row i holds the two conditions' scores for the same unit (``a[i]``, ``b[i]``) and ``clusters[i]``
    its cluster. The two-sided p-value against 0 comes from the same resamples with the (k+1)/(B+1)
    correction, so ``significant`` (p < 1 − confidence) holds exactly when the interval excludes 0.
    Rows with a NaN side are dropped; ``n`` counts clusters (Davison & Hinkley 1997, §3.8).
    """
    _check_statistic(statistic)
    _check_resamples(n_resamples, confidence)
    a, b = np.asarray(a, dtype=float).ravel(), np.asarray(b, dtype=float).ravel()
    if a.shape != b.shape:
        raise InputError(f"cluster_paired_difference: paired arrays need equal lengths, got {len(a)} and {len(b)}")
    estimate, sums, sizes = _cluster_sums(a - b, clusters)
    if len(sums) < 2:
        return PairedComparison(estimate, math.nan, math.nan, len(sums), confidence, METHOD, p_value=math.nan)
    resampled = Resampled(_cluster_distribution(sums, sizes, n_resamples, seed), "expanded", n=len(sums))
    low, high = resampled.interval(confidence)
    if is_binary(a) and is_binary(b):
        low, high = max(low, -1.0), min(high, 1.0)
    return PairedComparison(estimate, low, high, len(sums), confidence, METHOD, p_value=resampled.p_value(0.0))
