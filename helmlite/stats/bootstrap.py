"""Bootstrap confidence intervals: vectorised, seeded, percentile and BCa.

Every function resamples *items* (rows shared by all arrays passed together, so paired data stay
paired) and evaluates a vectorised statistic ``statistic(*arrays, axis=-1)`` on all resamples at
once — no Python loop over resamples. Methods follow Efron & Tibshirani (1993), *An Introduction to
the Bootstrap*: percentile interval (§13.3) and bias-corrected and accelerated interval (BCa, §14.3,
eqs. 14.9–14.15, acceleration from the jackknife). ``scipy.stats.bootstrap`` implements the same
definitions and is the reference in the tests.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Callable, Sequence

import numpy as np
from scipy.special import ndtr, ndtri
from scipy.stats import rankdata

from ..errors import InputError

Statistic = Callable[..., np.ndarray]
_BATCH_ELEMENTS = 4_000_000  # resampled elements held in memory at once


@dataclass(frozen=True)
class Estimate:
    """A point estimate with its confidence interval."""

    estimate: float
    ci_low: float
    ci_high: float
    n: int
    confidence: float = 0.95
    method: str = "bca"

    def as_dict(self) -> dict:
        return asdict(self)

    def excludes(self, value: float) -> bool:
        """True when ``value`` lies outside the interval."""
        return value < self.ci_low or value > self.ci_high


@dataclass(frozen=True)
class PairedComparison(Estimate):
    """Difference statistic(a) − statistic(b) on shared items, with a two-sided bootstrap p-value."""

    p_value: float = 1.0


def _as_arrays(data) -> tuple[np.ndarray, ...]:
    arrays = tuple(np.asarray(a, dtype=float) for a in (data if isinstance(data, (tuple, list)) else (data,)))
    n = len(arrays[0])
    if any(a.ndim != 1 or len(a) != n for a in arrays):
        raise InputError("bootstrap: every array must be one-dimensional with the same number of items")
    if n == 0:
        raise InputError("bootstrap: no items to resample")
    return arrays


def bootstrap_distribution(data, statistic: Statistic, *, n_resamples: int = 10_000, seed: int = 0) -> np.ndarray:
    """The statistic on ``n_resamples`` resamples of the items (shape ``(n_resamples,)``)."""
    arrays = _as_arrays(data)
    n = len(arrays[0])
    generator = np.random.default_rng(seed)
    batch = max(1, _BATCH_ELEMENTS // n)
    out = np.empty(n_resamples)
    for start in range(0, n_resamples, batch):
        size = min(batch, n_resamples - start)
        index = generator.integers(0, n, size=(size, n))
        out[start:start + size] = statistic(*(a[index] for a in arrays), axis=-1)
    return out


def _jackknife(arrays: tuple[np.ndarray, ...], statistic: Statistic) -> np.ndarray:
    n = len(arrays[0])
    keep = ~np.eye(n, dtype=bool)
    out = np.empty(n)
    batch = max(1, _BATCH_ELEMENTS // n)
    for start in range(0, n, batch):
        rows = np.arange(start, min(n, start + batch))
        index = np.nonzero(keep[rows])[1].reshape(len(rows), n - 1)
        out[rows] = statistic(*(a[index] for a in arrays), axis=-1)
    return out


def _bca_levels(theta_hat: float, boot: np.ndarray, jack: np.ndarray, alpha: float) -> tuple[float, float]:
    # bias correction z0 (eq. 14.14), ties counted half as in scipy
    z0 = ndtri((np.sum(boot < theta_hat) + np.sum(boot <= theta_hat)) / (2 * len(boot)))
    # acceleration from the jackknife (eq. 14.15)
    dev = np.nanmean(jack) - jack
    denom = 6.0 * np.nansum(dev**2) ** 1.5
    a = np.nansum(dev**3) / denom if denom > 0 else 0.0
    levels = []
    for z in (ndtri(alpha / 2), ndtri(1 - alpha / 2)):
        levels.append(float(ndtr(z0 + (z0 + z) / (1 - a * (z0 + z)))))
    return levels[0], levels[1]


def _bootstrap(data, statistic: Statistic, confidence: float, n_resamples: int, method: str,
               seed: int) -> tuple[Estimate, np.ndarray]:
    if method not in ("bca", "percentile"):
        raise InputError(f"bootstrap method must be 'bca' or 'percentile', got {method!r}")
    arrays = _as_arrays(data)
    theta_hat = float(statistic(*arrays, axis=-1))
    n = len(arrays[0])
    boot = bootstrap_distribution(arrays, statistic, n_resamples=n_resamples, seed=seed)
    boot = boot[np.isfinite(boot)]
    alpha = 1 - confidence
    if len(boot) == 0 or n < 2:
        return Estimate(theta_hat, np.nan, np.nan, n, confidence, method), boot
    if method == "bca" and np.ptp(boot) > 0:
        low_q, high_q = _bca_levels(theta_hat, boot, _jackknife(arrays, statistic), alpha)
    else:
        low_q, high_q = alpha / 2, 1 - alpha / 2
    low, high = np.percentile(boot, [100 * low_q, 100 * high_q])
    return Estimate(theta_hat, float(low), float(high), n, confidence, method), boot


def bootstrap_ci(data, statistic: Statistic = np.mean, *, confidence: float = 0.95, n_resamples: int = 10_000,
                 method: str = "bca", seed: int = 0) -> Estimate:
    """Point estimate and bootstrap CI of ``statistic`` over items.

    ``data`` is one array or a tuple of arrays sharing items (resampled together). ``statistic``
    must accept the arrays and ``axis=-1``. Resamples where the statistic is undefined (NaN, e.g. a
    correlation of a constant resample) are left out of the percentiles.
    """
    return _bootstrap(data, statistic, confidence, n_resamples, method, seed)[0]


def summary(values, statistic: Statistic = np.mean, **kwargs) -> Estimate:
    """Estimate, CI low/high and n of a statistic over items (NaN items dropped first)."""
    values = np.asarray(values, dtype=float)
    return bootstrap_ci(values[np.isfinite(values)], statistic, **kwargs)


def paired_test(arrays, difference: Statistic, *, confidence: float = 0.95, n_resamples: int = 10_000,
                 method: str = "bca", seed: int = 0) -> PairedComparison:
    """CI of a difference statistic on shared items, and its two-sided bootstrap p-value.

    The p-value is twice the smaller share of resampled differences on either side of 0 (the
    percentile-interval test: 0 lies outside the (1 − p) percentile interval), capped at 1.
    """
    est, boot = _bootstrap(arrays, difference, confidence, n_resamples, method, seed)
    p = min(1.0, 2 * min(np.mean(boot <= 0), np.mean(boot >= 0))) if len(boot) else np.nan
    return PairedComparison(**est.as_dict(), p_value=float(p))


def paired_difference(a, b, statistic: Statistic = np.mean, **kwargs) -> PairedComparison:
    """statistic(a) − statistic(b) for two systems scored on the *same* items (paired bootstrap)."""
    def difference(x, y, axis=-1):
        return statistic(x, axis=axis) - statistic(y, axis=axis)

    return paired_test((a, b), difference, **kwargs)


def pearson_r(x, y, axis: int = -1) -> np.ndarray:
    """Pearson correlation along ``axis`` (vectorised over resamples); NaN where a side is constant."""
    xc = x - x.mean(axis=axis, keepdims=True)
    yc = y - y.mean(axis=axis, keepdims=True)
    num = (xc * yc).sum(axis=axis)
    den = np.sqrt((xc**2).sum(axis=axis) * (yc**2).sum(axis=axis))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, num / np.where(den > 0, den, 1), np.nan)


def spearman_rho(x, y, axis: int = -1) -> np.ndarray:
    """Spearman's rank correlation: Pearson on average ranks (ties get the mean rank, as scipy)."""
    return pearson_r(rankdata(x, axis=axis), rankdata(y, axis=axis), axis=axis)


_CORRELATIONS = {"pearson": pearson_r, "spearman": spearman_rho}


def correlation_ci(x, y, method: str = "spearman", **kwargs) -> Estimate:
    """Correlation of paired observations with a bootstrap CI resampling the pairs (items or models)."""
    if method not in _CORRELATIONS:
        raise InputError(f"correlation method must be one of {sorted(_CORRELATIONS)}, got {method!r}")
    return bootstrap_ci((x, y), _CORRELATIONS[method], **kwargs)


def correlation_difference(x1, x2, y, method: str = "spearman", **kwargs) -> PairedComparison:
    """corr(x1, y) − corr(x2, y) on the same items, paired bootstrap (is x1 a better predictor of y?)."""
    corr = _CORRELATIONS[method]

    def difference(a, b, c, axis=-1):
        return corr(a, c, axis=axis) - corr(b, c, axis=axis)

    return paired_test((x1, x2, y), difference, **kwargs)


def proportion_ci(flags: Sequence[bool], **kwargs) -> Estimate:
    """Share of True items with a bootstrap CI."""
    return bootstrap_ci(np.asarray(flags, dtype=float), np.mean, **kwargs)
