"""Bootstrap confidence intervals and bootstrap p-values: vectorised, seeded, percentile and BCa.

Every function resamples *items* (rows shared by all arrays passed together, so paired data stay
paired) and evaluates a vectorised statistic ``statistic(*arrays, axis=-1)`` on all resamples at
once — no Python loop over resamples (a run-level metric that is a function of sums over items is
vectorised through the items' multiplicities: :func:`bootstrap_weighted`). Methods follow Efron & Tibshirani
(1993), *An Introduction to the Bootstrap*: the percentile interval (§13.3) and the bias-corrected and accelerated interval (BCa,
§14.3, eqs. 14.9–14.15, acceleration from the jackknife). ``scipy.stats.bootstrap`` implements the
same definitions and is the reference in the tests.

**Endpoints and p-values from the same resamples.** With ``B`` finite resamples sorted as
θ*(1) ≤ … ≤ θ*(B), an endpoint is an order statistic (E&T 1993, p. 160, use the (B+1)α-th value),
and the two-sided p-value of "θ = θ0" is the Monte-Carlo p-value with the (k+1)/(B+1) correction
(Davison & Hinkley 1997, eq. 4.11), so it is never 0:

* percentile: ``p = min(1, 2·(k≤ + 1)/(B + 1), 2·(k≥ + 1)/(B + 1))`` with k≤ (k≥) the number of
  resamples at or below (above) θ0;
* BCa: the same tail shares mapped back through the BCa level adjustment (the smallest α at which the
  BCa interval excludes θ0, E&T 1993 §14.3 and §15.4 on intervals and tests);
* expanded percentile (for means, Hesterberg 2015, "What teachers should know about the bootstrap",
  §5.1): percentiles taken at the level Φ(√(n/(n−1))·t_{n−1, α/2}) instead of α/2, which removes the
  percentile interval's narrowness at small n (its test of a mean rejects 6.4% at n = 20 under the
  null, the expanded one 4.3%); the p-value maps the tail shares back the same way.

The endpoint ranks are chosen from the same tail function, so **the (1 − α) interval excludes θ0
exactly when p < α** (a duality by construction, checked in the tests): a significance flag and the
p-value beside it cannot disagree.

BCa is used only when n >= :data:`BCA_MIN_N` (20): below that the jackknife acceleration is too noisy
and the percentile interval is returned, with ``method="percentile"`` saying so; where a BCa end is
unbounded (its adjusted level lies beyond the resamples) the percentile interval of the same resamples is
returned, named :data:`BCA_FALLBACK`; where no finite end exists at all (too few units) the bounds are NaN
and the method name says why — no interval of the kit has an infinite end. BCa is meant for
smooth statistics (means of continuous scores, correlations); for proportions use
:func:`helmlite.stats.proportion_ci` (exact) and for paired 0/1 outcomes
:func:`helmlite.stats.paired_binary_difference`.
"""
from __future__ import annotations

import math
from typing import Callable

import numpy as np
from scipy.special import ndtr, ndtri, stdtr

from ..errors import UserError
from .estimates import Estimate, PairedComparison, Seed, alpha_of, generator

Statistic = Callable[..., np.ndarray]
_BATCH_ELEMENTS = 4_000_000  # resampled elements held in memory at once
#: BCa is used only with at least this many items; below it the percentile interval is returned.
BCA_MIN_N = 20


def _as_arrays(data) -> tuple[np.ndarray, ...]:
    arrays = tuple(np.asarray(a, dtype=float) for a in (data if isinstance(data, (tuple, list)) else (data,)))
    n = len(arrays[0])
    if any(a.ndim != 1 or len(a) != n for a in arrays):
        raise UserError("bootstrap: every array must be one-dimensional with the same number of items")
    if n == 0:
        raise UserError("bootstrap: no items to resample")
    return arrays


def _check_resamples(n_resamples: int, level: float) -> None:
    if not 0 < level < 1:
        raise UserError(f"level must lie strictly between 0 and 1, got {level}")
    if 2 / (n_resamples + 1) >= alpha_of(level):
        raise UserError(f"n_resamples={n_resamples} is too few for a {level:.0%} interval: need "
                         f"2/(B+1) < {1 - level:.3g}, i.e. B >= {math.floor(2 / (1 - level))}")


def bootstrap_distribution(data, statistic: Statistic, *, n_resamples: int = 10_000, seed: Seed = 0) -> np.ndarray:
    """The statistic on ``n_resamples`` resamples of the items (shape ``(n_resamples,)``)."""
    arrays = _as_arrays(data)
    n = len(arrays[0])
    rng = generator(seed)
    batch = max(1, _BATCH_ELEMENTS // n)
    out = np.empty(n_resamples)
    for start in range(0, n_resamples, batch):
        size = min(batch, n_resamples - start)
        index = rng.integers(0, n, size=(size, n))
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


class Resampled:
    """A bootstrap distribution with the interval and the p-values it implies (one procedure for both).

    ``method`` is ``"percentile"``, ``"bca"`` (then ``z0`` and ``accel`` are the BCa bias correction
    and acceleration) or ``"expanded"`` (``n`` items: the expanded percentile interval for a mean).
    The tail function maps "k resamples lie at or beyond θ0 on one side" to the two-sided p-value
    contributed by that side; endpoints and p-values both come from it.
    """

    def __init__(self, boot: np.ndarray, method: str = "percentile", z0: float = 0.0, accel: float = 0.0,
                 n: int = 0):
        boot = np.asarray(boot, dtype=float)
        self.boot = np.sort(boot[np.isfinite(boot)])
        self.method, self.z0, self.accel, self.n = method, z0, accel, n

    @property
    def size(self) -> int:
        return len(self.boot)

    def _level(self, q: np.ndarray) -> np.ndarray:
        """The nominal one-sided level whose (adjusted) quantile is q: the identity for the percentile
        method; for BCa the inverse of α ↦ Φ(z0 + (z0 + z_α)/(1 − a(z0 + z_α))) (E&T eq. 14.10); for the
        expanded percentile the inverse of α ↦ Φ(√(n/(n−1))·t_{n−1, α}) (Hesterberg 2015, §5.1)."""
        if self.method == "percentile":
            return q
        if self.method == "expanded":
            with np.errstate(divide="ignore", invalid="ignore"):
                return stdtr(self.n - 1, ndtri(q) * np.sqrt((self.n - 1) / self.n))
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            y = ndtri(q) - self.z0
            den = 1 + self.accel * y
            w = np.where(den > 0, y / np.where(den > 0, den, 1.0), 0.0)
            return np.where(den > 0, ndtr(w - self.z0), (y > 0).astype(float))

    def _tails(self, k: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Two-sided p-values from the lower and the upper tail when k resamples lie at/beyond θ0."""
        k = np.asarray(k, dtype=float)
        q = (k + 1) / (self.size + 1)
        with np.errstate(divide="ignore", invalid="ignore"):
            lower = 2 * self._level(q)
            upper = 2 * (1 - self._level(1 - q))
        full = k >= self.size  # every resample on the null's side: no evidence at all
        return np.where(full, 2.0, lower), np.where(full, 2.0, upper)

    def interval(self, level: float) -> tuple[float, float]:
        """Order-statistic endpoints such that the interval excludes θ0 exactly when p(θ0) < 1 − level.

        A side that no order statistic can bound (too few finite resamples) is ±inf."""
        if self.size == 0:
            return math.nan, math.nan
        alpha = alpha_of(level)
        lower, upper = self._tails(np.arange(self.size + 1))
        r_low, r_up = int(np.sum(lower < alpha)), int(np.sum(upper < alpha))
        low = float(self.boot[r_low - 1]) if r_low else -math.inf
        high = float(self.boot[self.size - r_up]) if r_up else math.inf
        return low, high

    def _sides(self, null: float) -> tuple[float, float]:
        """The two-sided p-values from the lower and the upper tail at ``null`` (k resamples at or beyond it there)."""
        k_le = np.searchsorted(self.boot, null, side="right")
        k_ge = self.size - np.searchsorted(self.boot, null, side="left")
        return float(self._tails(np.array([k_le]))[0][0]), float(self._tails(np.array([k_ge]))[1][0])

    def p_value(self, null: float = 0.0) -> float:
        """Two-sided p-value of θ = ``null`` with the (k+1)/(B+1) correction (never 0)."""
        if self.size == 0:
            return math.nan
        return min(1.0, *self._sides(null))

    def floor_at(self, null: float = 0.0) -> float:
        """The smallest p-value the tail that gives :meth:`p_value` at ``null`` can reach (k = 0 resamples beyond the
        null on that side): a p at it is reported as "p ≤ floor". Under BCa (and the expanded percentile) the two tails'
        floors differ, so the floor is the reporting tail's, not the smaller of the two; 2/(B + 1) for the percentile
        method."""
        if self.size == 0:
            return math.nan
        lower, upper = self._sides(null)
        floor_lower, floor_upper = (float(side[0]) for side in self._tails(np.array([0])))
        return float(min(1.0, floor_lower if lower <= upper else floor_upper))


#: The method name of a BCa interval that fell back to the percentile interval of the same resamples.
BCA_FALLBACK = "percentile (BCa end unbounded)"


def unbounded(method: str, n: int) -> str:
    """The method name of an interval left empty because no order statistic bounds it at this n."""
    return f"{method}: no finite bound at n = {n} (too few units; bounds left empty)"


def defined_interval(resampled: Resampled, level: float, n: int,
                     name: str | None = None) -> tuple[float, float, Resampled, str]:
    """The interval, the procedure its p-value comes from and its name (``name`` overrides the procedure's own).
    A BCa end that no order statistic reaches (the adjusted level falls outside the resamples — at n = 20
    models a skewed Spearman ρ near 1 does this) falls back to the percentile interval of the same resamples,
    which every ``B >= 40`` bounds, and the name says so (:data:`BCA_FALLBACK`); the p-value then comes from
    that same percentile procedure. Where still no finite end exists (the expanded percentile at n ≤ 4, a
    cluster bootstrap over two clusters), both bounds are NaN and the name says why (:func:`unbounded`)."""
    low, high = resampled.interval(level)
    name = name or resampled.method
    if resampled.method == "bca" and not (math.isfinite(low) and math.isfinite(high)):
        resampled, name = Resampled(resampled.boot, "percentile"), BCA_FALLBACK
        low, high = resampled.interval(level)
    if not (math.isfinite(low) and math.isfinite(high)):
        return math.nan, math.nan, resampled, unbounded(name, n)
    return low, high, resampled, name


def _resolve_method(method: str, n: int) -> str:
    if method not in ("bca", "percentile", "auto", "expanded"):
        raise UserError(f"bootstrap method must be 'bca' or 'percentile' (or 'auto', 'expanded'), got {method!r}")
    if method == "expanded":
        return method
    return "bca" if method in ("bca", "auto") and n >= BCA_MIN_N else "percentile"


def _resample(data, statistic: Statistic, level: float, n_resamples: int, method: str,
              seed: Seed) -> tuple[float, int, Resampled]:
    _check_resamples(n_resamples, level)
    arrays = _as_arrays(data)
    n = len(arrays[0])
    method = _resolve_method(method, n)
    theta_hat = float(statistic(*arrays, axis=-1))
    boot = bootstrap_distribution(arrays, statistic, n_resamples=n_resamples, seed=seed)
    finite = boot[np.isfinite(boot)]
    if method == "bca" and len(finite) and np.ptp(finite) > 0 and np.isfinite(theta_hat):
        # bias correction z0 (eq. 14.14), ties counted half as in scipy
        z0 = float(ndtri((np.sum(finite < theta_hat) + np.sum(finite <= theta_hat)) / (2 * len(finite))))
        # acceleration from the jackknife (eq. 14.15)
        jack = _jackknife(arrays, statistic)
        dev = np.nanmean(jack) - jack
        denom = 6.0 * np.nansum(dev**2) ** 1.5
        accel = float(np.nansum(dev**3) / denom) if denom > 0 else 0.0
        if np.isfinite(z0) and np.isfinite(accel):
            return theta_hat, n, Resampled(finite, "bca", z0, accel)
    if method == "expanded" and n >= 2:
        return theta_hat, n, Resampled(finite, "expanded", n=n)
    return theta_hat, n, Resampled(finite, "percentile")


def bootstrap_ci(data, statistic: Statistic = np.mean, *, level: float = 0.95, n_resamples: int = 10_000,
                 method: str = "bca", seed: Seed = 0) -> Estimate:
    """Point estimate and bootstrap CI of ``statistic`` over items (Efron & Tibshirani 1993, §13.3, §14.3).

    ``data`` is one array or a tuple of arrays sharing items (resampled together). ``statistic``
    must accept the arrays and ``axis=-1``. ``method``: ``"bca"`` (used when n >= 20, else the
    percentile interval), ``"percentile"``, ``"auto"`` (the same rule as ``"bca"``) or ``"expanded"``
    (the expanded percentile interval, meant for means); the returned ``method`` names the interval
    actually used. Resamples where the statistic is undefined (NaN,
    e.g. a correlation of a constant resample) are left out. Endpoints are order statistics of the
    resamples (see the module docstring).
    """
    theta_hat, n, resampled = _resample(data, statistic, level, n_resamples, method, seed)
    if n < 2:
        return Estimate(theta_hat, math.nan, math.nan, n, level, resampled.method)
    low, high, _, name = defined_interval(resampled, level, n)
    return Estimate(theta_hat, low, high, n, level, name)


def summary(values, statistic: Statistic = np.mean, **kwargs) -> Estimate:
    """Estimate, CI low/high and n of a statistic over items (NaN items dropped first); see :func:`bootstrap_ci`."""
    values = np.asarray(values, dtype=float)
    return bootstrap_ci(values[np.isfinite(values)], statistic, **kwargs)


def paired_test(arrays, difference: Statistic, *, level: float = 0.95, n_resamples: int = 10_000,
                method: str = "bca", seed: Seed = 0) -> PairedComparison:
    """CI of a difference statistic on shared items and its two-sided bootstrap p-value against 0.

    Both come from the same resamples (Efron & Tibshirani 1993 §13.3/§14.3 for the interval; the
    (k+1)/(B+1) Monte-Carlo p-value of Davison & Hinkley 1997, eq. 4.11, mapped through the BCa
    adjustment when BCa is used): the interval excludes 0 exactly when ``p_value < 1 − level``,
    i.e. when ``.significant``. BCa only with n >= 20 (else percentile, and ``method`` says so).
    """
    theta_hat, n, resampled = _resample(arrays, difference, level, n_resamples, method, seed)
    if n < 2:
        return PairedComparison(theta_hat, math.nan, math.nan, n, level, resampled.method, p_value=math.nan)
    low, high, procedure, name = defined_interval(resampled, level, n)
    return PairedComparison(theta_hat, low, high, n, level, name, p_value=procedure.p_value(0.0),
                            p_floor=procedure.floor_at(0.0))


def bootstrap_weighted(n_items: int, statistic: Callable[[np.ndarray], np.ndarray], *, level: float = 0.95,
                       n_resamples: int = 1_000, seed: Seed = 0) -> Estimate:
    """Percentile bootstrap CI (Efron & Tibshirani 1993, §13.3) of a run-level metric computed from how often each
    item is drawn (ECE-style binning aside, every run-level metric here is a function of sums over items: BBQ's
    bias scores, HELM's bias numbers).

    ``statistic(weights)`` takes multiplicities — a vector of ones for the estimate, a (resamples × items) matrix
    for the resamples — and returns one value per row (NaN where undefined; such resamples are dropped). The
    resamples are those of :func:`bootstrap_ci` with the same seed (item indices drawn row by row), so the
    interval is the one :func:`bootstrap_ci` gives a statistic of the resampled items themselves.
    """
    if n_items == 0:
        return Estimate(math.nan, math.nan, math.nan, 0, level, "percentile")
    return bootstrap_ci(np.arange(n_items, dtype=float), lambda index, axis=-1: statistic(_multiplicities(index, n_items)),
                        level=level, n_resamples=n_resamples, method="percentile", seed=seed)


def _multiplicities(index: np.ndarray, n_items: int) -> np.ndarray:
    """How often each item occurs in each row of item positions (a vector, or resamples × draws)."""
    index = index.astype(np.intp)
    if index.ndim == 1:
        return np.bincount(index, minlength=n_items).astype(float)
    rows = np.arange(len(index))[:, None] * n_items
    return np.bincount((index + rows).ravel(), minlength=len(index) * n_items).reshape(len(index), n_items).astype(float)


def bootstrap_p_value(boot, null: float = 0.0) -> float:
    """Two-sided p-value of "θ = null" from a bootstrap (or any resampled) distribution of θ.

    p = min(1, 2·(k≤ + 1)/(B + 1), 2·(k≥ + 1)/(B + 1)), k≤ (k≥) the finite resamples at or below
    (above) ``null`` — the Monte-Carlo p-value of Davison & Hinkley (1997, eq. 4.11), never 0. It is
    dual to :func:`percentile_interval` of the same resamples: p < 1 − level exactly when that
    interval excludes ``null``.
    """
    return Resampled(boot).p_value(null)


def percentile_interval(boot, level: float = 0.95) -> tuple[float, float]:
    """Percentile interval of a bootstrap distribution with order-statistic endpoints (Efron &
    Tibshirani 1993, §13.3) chosen so that it excludes a value exactly when :func:`bootstrap_p_value`
    of that value is below 1 − level (use it instead of ``np.percentile`` when a flag is shown
    beside the p-value). NaN resamples are ignored."""
    return Resampled(boot).interval(level)


def mean_estimate(values, *, level: float = 0.95, n_resamples: int = 10_000, method: str = "auto",
                  seed: Seed = 0) -> Estimate:
    """Mean of per-item values with the interval the kit uses for a mean (NaN items dropped first).

    0/1 values: Clopper–Pearson (:func:`helmlite.stats.proportion_estimate`; exact coverage). Other
    values: a bootstrap over items, by default (``method="auto"``) the expanded percentile interval
    (Hesterberg 2015, §5.1), which keeps its coverage at small n where the plain percentile interval
    is too narrow; ``"percentile"`` and ``"bca"`` (n >= 20) as in :func:`bootstrap_ci`. No values: NaN
    estimate and interval with n = 0. ``method`` in the result names the interval used.
    """
    from .proportions import is_binary, proportion_estimate

    values = np.asarray(values, dtype=float).ravel()
    values = values[np.isfinite(values)]
    if len(values) == 0:
        return Estimate(math.nan, math.nan, math.nan, 0, level, "none")
    if is_binary(values):
        return proportion_estimate(values, level=level)
    return bootstrap_ci(values, np.mean, level=level, n_resamples=n_resamples,
                        method="expanded" if method == "auto" else method, seed=seed)
