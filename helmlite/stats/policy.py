"""The kit's one interval policy: the design of the data picks the interval (docs/explanation/statistics.md).

:func:`interval_for` is the entry point the analyses call; the functions it dispatches to stay public for tests
and for readers who want one method by name. What decides:

============================  ==========================================  =============================================
design                         0/1 values (or a known range, ``bounds``)   other values
============================  ==========================================  =============================================
mean, independent units        Clopper–Pearson (exact coverage)            expanded percentile bootstrap (Hesterberg 2015)
mean, rows in clusters         Korn & Graubard (1998)                      cluster bootstrap, expanded percentile
paired difference of means     Newcombe (1998) + exact McNemar p           paired bootstrap, p from the same resamples
paired, rows in clusters       cluster bootstrap of the paired rows        cluster bootstrap of the paired rows
any other statistic            BCa when ``smooth`` and n >= 20, else the percentile interval; clustered rows: the
                               cluster bootstrap's percentile interval; paired: p from the same resamples
two independent groups         ``versus=``: each group resampled on its own, the percentile interval of the
                               difference of the statistic and p from the same resamples
============================  ==========================================  =============================================

``smooth=False`` marks a statistic whose jackknife acceleration means nothing — binned (ECE) or a step function of
the resample (a re-ranking of models by win rates, behind Kendall's τ) — so the percentile interval is used at any n;
means and correlations (Pearson's r, Spearman's ρ over 20 or more units) are smooth. Not through this entry point:
a run-level metric computed from how often each item is drawn (:func:`helmlite.stats.bootstrap_weighted`, BBQ's and
the bias scores), a seed variance component (:func:`helmlite.stats.seed_variance_component`) and the calibration
test (:func:`helmlite.metrics.calibration.calibration_error_test`): each is its own design, documented where it is. Every result is an
:class:`~helmlite.stats.Estimate` (a :class:`~helmlite.stats.PairedComparison` for paired designs) whose
``method`` names the interval used; the level is always the keyword ``level``.
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from ..errors import UserError
from .bootstrap import BCA_MIN_N, Resampled, bootstrap_ci, bootstrap_distribution, mean_estimate, paired_test
from .cluster import cluster_bootstrap_statistic, cluster_mean_estimate, cluster_paired_difference
from .estimates import Estimate, PairedComparison, Seed, generator
from .paired import paired_difference


def _mean(x, axis=-1):
    return np.mean(x, axis=axis)


def _method(smooth: bool, n: int) -> str:
    """BCa for a smooth statistic with n >= BCA_MIN_N, else the percentile interval (Efron & Tibshirani 1993, §14.3)."""
    return "bca" if smooth and n >= BCA_MIN_N else "percentile"


def _independent_groups(data, versus, statistic: Callable, level: float, n_resamples: int, seed: Seed) -> PairedComparison:
    """statistic(group a) − statistic(group b), the groups resampled independently (one generator: a, then b); the
    percentile interval of the differences and the two-sided p of 0 from the same resamples (dual by construction)."""
    draw = generator(seed)
    groups = [data if isinstance(data, (tuple, list)) else (data,), versus if isinstance(versus, (tuple, list)) else (versus,)]
    estimate = float(statistic(*groups[0], axis=-1)) - float(statistic(*groups[1], axis=-1))
    boots = [bootstrap_distribution(tuple(group), statistic, n_resamples=n_resamples, seed=draw) for group in groups]
    resampled = Resampled(boots[0] - boots[1], "percentile")
    low, high = resampled.interval(level)
    n = min(len(groups[0][0]), len(groups[1][0]))
    return PairedComparison(estimate, low, high, n, level, "percentile (independent groups)", p_value=resampled.p_value(0.0),
                            p_floor=resampled.floor_at(0.0))


def interval_for(data, *, statistic: Callable | None = None, paired: bool = False, clusters=None,
                 bounds: tuple[float, float] | None = None, smooth: bool = True, versus=None, level: float = 0.95,
                 n_resamples: int = 10_000, seed: Seed = 0) -> Estimate:
    """The estimate and interval the design calls for (module docstring).

    ``data``: the per-unit values (one array); with ``paired=True`` the pair ``(a, b)`` of arrays scored on the same
    units (the estimate is mean(a) − mean(b)); with a ``statistic`` any tuple of arrays sharing rows,
    ``statistic(*arrays, axis=-1)`` vectorised as for :func:`helmlite.stats.bootstrap_ci` — with ``paired=True`` a
    difference whose two-sided p-value against 0 comes from the same resamples (:func:`helmlite.stats.paired_test`).
    ``clusters``: each row's cluster label when rows share a unit (a context, a prompt, a scenario); ``bounds``: the
    known range of bounded rows in clusters (win rates in [0, 1]). ``versus``: the data of a second, independent group
    (other units: instruct vs base models), the estimate then being statistic(data) − statistic(versus); ``n`` is the
    smaller group's size.
    """
    boot = {"level": level, "n_resamples": n_resamples, "seed": seed}
    if versus is not None:
        return _independent_groups(data, versus, statistic or _mean, level, n_resamples, seed)
    if paired and statistic is not None:  # a difference statistic of arrays sharing rows, p from the same resamples
        if clusters is not None:
            raise UserError("interval_for: a paired statistic other than the mean difference has no clustered interval")
        return paired_test(tuple(data), statistic, method=_method(smooth, len(np.asarray(data[0]))), **boot)
    if paired:
        if not (isinstance(data, (tuple, list)) and len(data) == 2):
            raise UserError("interval_for: paired=True needs data=(a, b), the two conditions' values on the same units")
        a, b = data
        if clusters is not None:
            return cluster_paired_difference(a, b, clusters, **boot)
        return paired_difference(a, b, **boot)
    if statistic is not None:
        if clusters is not None:
            return cluster_bootstrap_statistic(data, statistic, clusters, **boot)
        arrays = data if isinstance(data, (tuple, list)) else (data,)
        return bootstrap_ci(data, statistic, method=_method(smooth, len(np.asarray(arrays[0]))), **boot)
    if clusters is not None:
        return cluster_mean_estimate(data, clusters, bounds=bounds, **boot)
    return mean_estimate(data, **boot)
