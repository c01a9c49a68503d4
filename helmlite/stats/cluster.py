"""Means over rows that share a cluster: resample whole clusters, or — for 0/1 and bounded rows — an
exact-coverage interval on the design-effect-adjusted sample size.

Use these whenever rows share a unit that makes them correlated, so that the rows are not independent
draws: every (context, depth) row of a depth sweep shares its context; HelpSteer2 responses share a
prompt; HELM's perturbed copies share a question; a model's win rates in one scenario share it. A row
bootstrap treats such rows as independent and its interval is too narrow (coverage 0.75–0.80 in the
depth design, 0.94 with contexts resampled; see ``benchmarks/coverage.py``). The independent units are
the clusters, so ``Estimate.n`` counts clusters.

**The entry point** is :func:`cluster_mean_estimate`, which picks the interval from the rows:

* **0/1 rows, or rows on a known bounded range** (``bounds``; win rates in [0, 1], chance-corrected
  accuracy): the Korn & Graubard (1998, *Survey Methodology* 24:193–201) interval — Clopper–Pearson on
  the effective sample size n* = p̂(1 − p̂)/v̂ (v̂ the cluster-robust variance of the ratio mean, at most
  the number of rows), shrunk by the degrees-of-freedom factor (t_{n−1}/t_{G−1})² for G clusters, with
  p̂·n* effective successes (non-integer: beta quantiles). It respects the range, so it covers where the
  bootstrap cannot: at a mean near 0 or 1 the bootstrap distribution collapses onto the few clusters that
  vary (coverage 0.58 at 5 clusters and mean 0.05; 42% of its intervals had zero width). When the
  design effect cannot be estimated — the rarer outcome (a row above the range's bottom, or below its
  top) occurs in fewer than two clusters — n* is the number of clusters (every cluster counts
  as one observation, the most conservative design effect): 30 zeros in 5 contexts give [0, 0.52],
  Clopper–Pearson's 0/5, because nothing in them says the contexts are alike. Measured coverage
  (``benchmarks/coverage.py``, section 8): at least 0.93 at 5–50 clusters, means 0.02–0.98,
  intra-cluster correlation 0–0.5; never zero width.
* **other (continuous) rows**: :func:`cluster_bootstrap_ci`, the nonparametric bootstrap of clusters
  (Davison & Hinkley 1997, §3.8, "strategy 1": resample clusters with replacement, keep each cluster's
  rows as they are; Field & Welsh 2007), vectorised: a resample is a vector of cluster counts drawn from
  Multinomial(G, 1/G each), and the resampled mean is the count-weighted mean Σ c_g S_g / Σ c_g m_g of
  the cluster sums S_g and sizes m_g. The interval is the expanded percentile interval with n = G
  clusters (Hesterberg 2015, §5.1; the plain percentile interval is too narrow with few clusters:
  coverage 0.87 with 5 contexts), and p-values come from the same resamples with the (k+1)/(B+1)
  correction (see :mod:`helmlite.stats.bootstrap`). With very few clusters the interval is honestly
  wide: the expanded level needs the resamples' far tail, so an endpoint is ±inf when ``n_resamples``
  cannot reach it (at 95%: G = 5 clusters need B > ~1,100, G = 4 > ~8,400; G <= 3 never get a finite
  bound, like a t interval on 2 df) — 2 or 3 contexts say almost nothing about a population of contexts.
"""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
from scipy.special import betaincinv, stdtrit

from ..errors import UserError
from .bootstrap import _BATCH_ELEMENTS, Resampled, _check_resamples, defined_interval
from .estimates import Estimate, PairedComparison, Seed, alpha_of, generator
from .proportions import is_binary

METHOD = "cluster-expanded-percentile"
BOUNDED_METHOD = "korn-graubard"


def _cluster_sums(values, clusters) -> tuple[float, np.ndarray, np.ndarray]:
    values = np.asarray(values, dtype=float).ravel()
    labels = np.asarray(clusters).ravel() if not isinstance(clusters, pd.Series) else clusters.to_numpy()
    if len(values) != len(labels):
        raise UserError(f"cluster bootstrap: {len(values)} values but {len(labels)} cluster labels")
    keep = ~np.isnan(values)
    values, labels = values[keep], labels[keep]
    if len(values) == 0:
        raise UserError("cluster bootstrap: no rows to resample")
    codes, _ = pd.factorize(labels, sort=True)
    if np.any(codes < 0):
        raise UserError("cluster bootstrap: every row needs a cluster label (found a missing one)")
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
        raise UserError(f"cluster bootstrap: statistic must be 'mean' (the mean over rows), got {statistic!r}")


def cluster_bootstrap_ci(values, clusters, *, statistic: str = "mean", level: float = 0.95,
                         n_resamples: int = 10_000, seed: Seed = 0) -> Estimate:
    """Mean over continuous rows with a cluster-bootstrap CI (clusters resampled with their rows; expanded
    percentile; Davison & Hinkley 1997, §3.8).

    ``clusters`` gives each row's cluster label (context id, prompt id, question id...). NaN rows are
    dropped. ``n`` in the result is the number of clusters; ``method="cluster-expanded-percentile"``. With
    one cluster there is no interval (NaN). 0/1 rows are refused: their mean needs the interval of
    :func:`cluster_mean_estimate` (the bootstrap collapses at 0 and 1).
    """
    _check_statistic(statistic)
    _check_resamples(n_resamples, level)
    if is_binary(values):
        raise UserError("cluster_bootstrap_ci: the rows are 0/1 — use cluster_mean_estimate (Korn–Graubard), whose "
                         "interval covers near 0 and 1")
    estimate, sums, sizes = _cluster_sums(values, clusters)
    if len(sums) < 2:
        return Estimate(estimate, math.nan, math.nan, len(sums), level, METHOD)
    resampled = Resampled(_cluster_distribution(sums, sizes, n_resamples, seed), "expanded", n=len(sums))
    low, high, _, name = defined_interval(resampled, level, len(sums), METHOD)
    return Estimate(estimate, low, high, len(sums), level, name)


def korn_graubard_ci(values, clusters, *, bounds: tuple[float, float] = (0.0, 1.0),
                     level: float = 0.95) -> Estimate:
    """Mean of rows on the range ``bounds`` (0/1 rows by default) shared by clusters, with the Korn &
    Graubard (1998) interval: Clopper–Pearson on the design-effect-adjusted, df-corrected effective n
    (module docstring). ``n`` counts clusters; ``method="korn-graubard"``; NaN interval with one cluster.

    On the range scale, with p̂ the ratio mean of the rows rescaled to [0, 1], G clusters with sums S_g
    and sizes m_g (M rows in all)::

        v̂  = G/(G − 1) · Σ_g (S_g − p̂ m_g)² / M²
        n* = min(M, p̂(1 − p̂)/v̂) · (t_{M−1, 1−α/2} / t_{G−1, 1−α/2})²
        [low, high] = [B(α/2; p̂n*, n* − p̂n* + 1), B(1 − α/2; p̂n* + 1, n* − p̂n*)]

    (0 and 1 at p̂ = 0 and 1), with n* = G (no df factor: nothing was estimated) when the rarer side
    occurs in fewer than two clusters (no design effect can be estimated from the data). The switch is a
    step: one success in one cluster of 10 × 10 rows gives an upper bound of 0.32, one success in each of
    two clusters 0.08, because two clusters alike say the clusters are alike.
    """
    if not 0 < level < 1:
        raise UserError(f"korn_graubard_ci: level must lie strictly between 0 and 1, got {level}")
    bottom, top = (float(b) for b in bounds)
    if not top > bottom:
        raise UserError(f"korn_graubard_ci: bounds must be (low, high) with high > low, got {bounds}")
    raw = np.asarray(values, dtype=float).ravel()
    finite = raw[np.isfinite(raw)]
    if len(finite) and (finite.min() < bottom - 1e-12 or finite.max() > top + 1e-12):
        raise UserError(f"korn_graubard_ci: values must lie within the bounds {bounds}, got [{finite.min()}, "
                         f"{finite.max()}]")
    share, sums, sizes = _cluster_sums((raw - bottom) / (top - bottom), clusters)
    groups, rows = len(sums), float(sizes.sum())
    scale = lambda x: bottom + (top - bottom) * x  # noqa: E731
    if groups < 2:
        return Estimate(scale(share), math.nan, math.nan, groups, level, BOUNDED_METHOD)
    alpha = alpha_of(level)
    variance = groups / (groups - 1) * float(np.sum((sums - share * sizes) ** 2)) / rows**2
    above = int(np.sum(sums > 1e-12))  # clusters with a row above the bottom of the range
    below = int(np.sum(sums < sizes - 1e-12))  # clusters with a row below its top
    if min(above, below) < 2:
        effective = float(groups)  # nothing estimated: each cluster counts once, no df correction
    else:  # a design effect below 1 (v̂ = 0 included: equal clusters) counts as 1, as Korn & Graubard do
        effective = rows if variance <= 0 else min(rows, share * (1 - share) / variance)
        effective *= (stdtrit(rows - 1, 1 - alpha / 2) / stdtrit(groups - 1, 1 - alpha / 2)) ** 2
    hits = share * effective
    low = 0.0 if hits <= 0 else float(betaincinv(hits, effective - hits + 1, alpha / 2))
    high = 1.0 if hits >= effective else float(betaincinv(hits + 1, effective - hits, 1 - alpha / 2))
    return Estimate(scale(share), scale(low), scale(high), groups, level, BOUNDED_METHOD)


def cluster_mean_estimate(values, clusters, *, bounds: tuple[float, float] | None = None, level: float = 0.95,
                          n_resamples: int = 10_000, seed: Seed = 0) -> Estimate:
    """Mean over rows that share clusters, with the interval the rows need (module docstring):
    :func:`korn_graubard_ci` for 0/1 rows or rows on a known range ``bounds`` (exact-coverage at the
    range's ends), else :func:`cluster_bootstrap_ci`. ``n`` counts clusters; ``method`` names the interval."""
    if bounds is not None or is_binary(values):
        return korn_graubard_ci(values, clusters, bounds=bounds or (0.0, 1.0), level=level)
    return cluster_bootstrap_ci(values, clusters, level=level, n_resamples=n_resamples, seed=seed)


def cluster_paired_difference(a, b, clusters, *, statistic: str = "mean", level: float = 0.95,
                              n_resamples: int = 10_000, seed: Seed = 0) -> PairedComparison:
    """mean(a) − mean(b) over rows scored under two conditions, clusters resampled with their rows.

    Row i holds the two conditions' scores for the same unit (``a[i]``, ``b[i]``) and ``clusters[i]``
    its cluster. The two-sided p-value against 0 comes from the same resamples with the (k+1)/(B+1)
    correction, so ``significant`` (p < 1 − level) holds exactly when the interval excludes 0.
    Rows with a NaN side are dropped; ``n`` counts clusters (Davison & Hinkley 1997, §3.8). 0/1 rows that
    never differ would give the zero-width [0, 0]: their interval is ± the Korn–Graubard upper bound of
    the discordant share (which bounds abs(p_a − p_b)), p = 1. Coverage and level on clustered 0/1 pairs:
    ``benchmarks/coverage.py`` (section 8c).
    """
    _check_statistic(statistic)
    _check_resamples(n_resamples, level)
    a, b = np.asarray(a, dtype=float).ravel(), np.asarray(b, dtype=float).ravel()
    if a.shape != b.shape:
        raise UserError(f"cluster_paired_difference: paired arrays need equal lengths, got {len(a)} and {len(b)}")
    keep = ~(np.isnan(a) | np.isnan(b))
    if is_binary(a[keep]) and is_binary(b[keep]) and not np.any(a[keep] != b[keep]):
        return _no_discordance(np.asarray(clusters)[keep], level, int(keep.sum()))
    estimate, sums, sizes = _cluster_sums(a - b, clusters)
    if len(sums) < 2:
        return PairedComparison(estimate, math.nan, math.nan, len(sums), level, METHOD, p_value=math.nan)
    resampled = Resampled(_cluster_distribution(sums, sizes, n_resamples, seed), "expanded", n=len(sums))
    low, high, _, name = defined_interval(resampled, level, len(sums), METHOD)
    return PairedComparison(estimate, low, high, len(sums), level, name, p_value=resampled.p_value(0.0),
                            p_floor=resampled.floor_at(0.0))


def _no_discordance(clusters, level: float, n: int) -> PairedComparison:
    """Paired 0/1 rows that never differ: the difference is 0 and abs(p_a − p_b) is at most the share of
    discordant rows, whose Korn–Graubard upper bound (0 of the rows, each cluster counting once) bounds it
    on both sides; p = 1 (no discordant row, no evidence)."""
    bound = korn_graubard_ci(np.zeros(n), clusters, level=level).ci_high
    return PairedComparison(0.0, -bound, bound, len(set(np.asarray(clusters).tolist())), level,
                            f"{METHOD}/no-discordance-bound", p_value=1.0)


def cluster_bootstrap_statistic(data, statistic, clusters, *, level: float = 0.95, n_resamples: int = 2_000,
                                seed: Seed = 0) -> Estimate:
    """Any statistic of rows that share clusters (a correlation, an agreement coefficient), with the
    percentile interval of the cluster bootstrap (Davison & Hinkley 1997, §3.8: clusters drawn with
    replacement, each with all its rows; Efron & Tibshirani 1993, §13.3 for the interval).

    ``data``: one array or a tuple of arrays sharing rows; ``statistic(*arrays, axis=-1)`` as for
    :func:`helmlite.stats.bootstrap_ci`; ``clusters``: each row's cluster label. When every cluster has
    the same number of rows the resamples are evaluated in one vectorised call, else one call per
    resample. Resamples where the statistic is undefined (NaN) are dropped. ``n`` counts clusters;
    ``method="cluster-percentile"``.
    """
    from .bootstrap import _as_arrays

    _check_resamples(n_resamples, level)
    arrays = _as_arrays(data)
    labels = np.asarray(clusters).ravel() if not isinstance(clusters, pd.Series) else clusters.to_numpy()
    if len(labels) != len(arrays[0]):
        raise UserError(f"cluster bootstrap: {len(arrays[0])} rows but {len(labels)} cluster labels")
    codes, _ = pd.factorize(labels, sort=True)
    order = np.argsort(codes, kind="stable")  # rows grouped by cluster
    arrays = tuple(a[order] for a in arrays)
    sizes = np.bincount(codes)
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    groups = len(sizes)
    estimate = float(statistic(*arrays, axis=-1))
    if groups < 2:
        return Estimate(estimate, math.nan, math.nan, groups, level, "cluster-percentile")
    draws = generator(seed).integers(0, groups, size=(n_resamples, groups))
    if np.all(sizes == sizes[0]):  # equal clusters: one index matrix, one vectorised call
        index = (starts[draws][:, :, None] + np.arange(sizes[0])).reshape(n_resamples, -1)
        values = np.asarray(statistic(*(a[index] for a in arrays), axis=-1), dtype=float)
    else:
        values = np.empty(n_resamples)
        for b, drawn in enumerate(draws):
            lengths = sizes[drawn]
            index = np.repeat(starts[drawn] - np.cumsum(lengths) + lengths, lengths) + np.arange(lengths.sum())
            values[b] = float(statistic(*(a[index] for a in arrays), axis=-1))
    low, high = Resampled(values, "percentile").interval(level)
    return Estimate(estimate, low, high, groups, level, "cluster-percentile")
