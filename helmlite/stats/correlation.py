"""Correlations of paired observations (items or models) and their bootstrap intervals.

The correlation type (``correlation="pearson"|"spearman"``) and the interval method
(``interval="auto"|"bca"|"percentile"``) are separate arguments. Correlations are smooth statistics,
so BCa (Efron & Tibshirani 1993, §14.3) is used when there are at least 20 pairs and the percentile
interval (§13.3) below that; ``Estimate.method`` names the interval actually used.
"""
from __future__ import annotations

import numpy as np
from scipy.stats import rankdata

from ..errors import UserError
from .bootstrap import bootstrap_ci, paired_test
from .estimates import Estimate, PairedComparison


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
_INTERVALS = ("auto", "bca", "percentile")


def _check(correlation: str, interval: str, kwargs: dict, where: str):
    if "method" in kwargs:
        raise UserError(f"{where}: 'method' was split into correlation= ('pearson'|'spearman') and "
                         f"interval= ('auto'|'bca'|'percentile'); got method={kwargs['method']!r}")
    if correlation not in _CORRELATIONS:
        raise UserError(f"{where}: correlation must be one of {sorted(_CORRELATIONS)}, got {correlation!r}")
    if interval not in _INTERVALS:
        raise UserError(f"{where}: interval must be one of {list(_INTERVALS)}, got {interval!r}")
    return _CORRELATIONS[correlation]


def correlation_ci(x, y, correlation: str = "spearman", interval: str = "auto", **kwargs) -> Estimate:
    """Correlation of paired observations with a bootstrap CI that resamples the pairs (items or models).

    ``correlation``: ``"spearman"`` or ``"pearson"``. ``interval``: ``"auto"`` (BCa when n >= 20,
    else percentile — Efron & Tibshirani 1993, §14.3 / §13.3), ``"bca"`` (the same rule) or
    ``"percentile"``; the returned ``method`` is the interval actually used. ``kwargs``:
    ``level``, ``n_resamples``, ``seed`` of :func:`helmlite.stats.bootstrap_ci`.
    """
    corr = _check(correlation, interval, kwargs, "correlation_ci")
    return bootstrap_ci((x, y), corr, method=interval, **kwargs)


def correlation_difference(x1, x2, y, correlation: str = "spearman", interval: str = "auto",
                           **kwargs) -> PairedComparison:
    """corr(x1, y) − corr(x2, y) on the same items (is x1 a better predictor of y?), paired bootstrap.

    Interval as in :func:`correlation_ci`; the p-value comes from the same resamples with the
    (k+1)/(B+1) correction (see :func:`helmlite.stats.paired_test`), so ``significant`` and "the
    interval excludes 0" agree. ``kwargs``: ``level``, ``n_resamples``, ``seed``.
    """
    corr = _check(correlation, interval, kwargs, "correlation_difference")

    def difference(a, b, c, axis=-1):
        return corr(a, c, axis=axis) - corr(b, c, axis=axis)

    return paired_test((x1, x2, y), difference, method=interval, **kwargs)
