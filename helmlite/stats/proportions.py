"""Proportions (share of correct items) and paired 0/1 outcomes: exact intervals and exact tests.

* One proportion: the Clopper & Pearson (1934) interval, through statsmodels
  ``proportion_confint(method="beta")``. It inverts two exact one-sided binomial tests, so its
  coverage is >= the nominal level for every n and p. Measured by exact binomial sums over
  n = 5…500, p = 0.05…0.95 (issue 15): minimum coverage Wilson 0.897, Agresti–Coull 0.903,
  Jeffreys 0.869, Clopper–Pearson 0.950 — and a percentile bootstrap gives [1, 1] for 8/8 correct.
* Two systems on the same items: the exact McNemar (1947) test, i.e. a two-sided binomial test of
  the discordant pairs against 1/2 (scipy ``binomtest``; statsmodels ``mcnemar(exact=True)`` is the
  test's reference), and Newcombe's (1998) hybrid score interval for the difference of paired
  proportions (his method 10: Wilson intervals for each margin combined with the correlation of the
  margins), with the correction of that correlation used by Fagerland, Lydersen & Laake (2014;
  *Statistical Analysis of Contingency Tables*, 2017, §8.5), whose worked example is the test's
  reference. Its coverage on the kit's designs is printed by ``benchmarks/coverage.py``.
"""
from __future__ import annotations

import math

import numpy as np
from scipy.stats import binomtest
from statsmodels.stats.proportion import proportion_confint

from ..errors import UserError
from .estimates import Estimate, PairedComparison


def is_binary(values) -> bool:
    """True when every non-NaN value is 0 or 1 (and there is at least one); booleans count as 0/1.

    Callers use it to pick the method by statistic: :func:`proportion_estimate` for 0/1 items,
    a bootstrap for continuous scores."""
    values = np.asarray(values, dtype=float).ravel()
    values = values[~np.isnan(values)]
    return len(values) > 0 and bool(np.all((values == 0) | (values == 1)))


def proportion_ci(successes, n, level: float = 0.95):
    """Clopper–Pearson ("exact") interval for a binomial proportion (Clopper & Pearson 1934).

    Computed by statsmodels ``proportion_confint(successes, n, alpha=1 − level, method="beta")``:
    the bounds are beta quantiles, [B(α/2; k, n−k+1), B(1−α/2; k+1, n−k)], with 0 for k = 0 and 1
    for k = n. Its exact coverage is >= ``level`` for every n and p, by construction (it is the
    inversion of two exact one-sided binomial tests). Returns ``(low, high)`` as floats, or arrays
    when ``successes``/``n`` are arrays; ``(nan, nan)`` where n = 0.
    """
    if not 0 < level < 1:
        raise UserError(f"proportion_ci: level must lie strictly between 0 and 1, got {level}")
    k, total = np.asarray(successes, dtype=float), np.asarray(n, dtype=float)
    if np.any(total < 0) or np.any(k < 0) or np.any(k > total) or np.any(k != np.round(k)) \
            or np.any(total != np.round(total)):
        raise UserError(f"proportion_ci: successes must be whole numbers in 0..n, got {successes!r} of {n!r}")
    empty = total == 0
    with np.errstate(invalid="ignore", divide="ignore"):
        low, high = proportion_confint(np.where(empty, 0, k), np.where(empty, 1, total), alpha=1 - level,
                                       method="beta")
    low, high = np.where(empty, np.nan, low), np.where(empty, np.nan, high)
    if low.ndim == 0:
        return float(low), float(high)
    return low, high


def proportion_estimate(values, level: float = 0.95) -> Estimate:
    """Share of 1s among 0/1 ``values`` (NaN dropped) with its Clopper–Pearson interval (Clopper & Pearson 1934).

    ``method="clopper-pearson"``; estimate, low and high are NaN when no value is left."""
    values = np.asarray(values, dtype=float).ravel()
    values = values[~np.isnan(values)]
    if len(values) and not is_binary(values):
        raise UserError("proportion_estimate: values must be 0/1 (use a bootstrap for continuous scores)")
    n, k = len(values), int(values.sum())
    low, high = proportion_ci(k, n, level)
    return Estimate(k / n if n else math.nan, low, high, n, level, "clopper-pearson")


def _pairs(a, b) -> tuple[np.ndarray, np.ndarray]:
    a, b = np.asarray(a, dtype=float).ravel(), np.asarray(b, dtype=float).ravel()
    if a.shape != b.shape:
        raise UserError(f"paired 0/1 outcomes need equal lengths, got {len(a)} and {len(b)}")
    keep = ~(np.isnan(a) | np.isnan(b))
    a, b = a[keep], b[keep]
    if not (np.all((a == 0) | (a == 1)) and np.all((b == 0) | (b == 1))):
        raise UserError("paired 0/1 outcomes must be 0 or 1 (use paired_difference for continuous scores)")
    return a, b


def _table(a, b) -> tuple[int, int, int, int]:
    """(both 1, a only, b only, both 0) — the paired 2×2 table, items with a NaN side dropped."""
    a, b = _pairs(a, b)
    return (int(np.sum((a == 1) & (b == 1))), int(np.sum((a == 1) & (b == 0))),
            int(np.sum((a == 0) & (b == 1))), int(np.sum((a == 0) & (b == 0))))


def _mcnemar_exact(only_a: int, only_b: int) -> float:
    discordant = only_a + only_b
    if discordant == 0:
        return 1.0
    return float(min(1.0, binomtest(only_a, discordant, 0.5, alternative="two-sided").pvalue))


def paired_binary_test(a, b) -> float:
    """Two-sided exact McNemar test (McNemar 1947) for paired 0/1 outcomes: p-value of "equal accuracy".

    Only discordant items carry information: under the null, each of the d discordant items is
    equally likely to favour a or b, so the count favouring a is Binomial(d, 1/2); the p-value is
    the two-sided binomial test (scipy ``binomtest``; equal to statsmodels ``mcnemar(exact=True)``).
    1.0 when there is no discordant item; never 0 (10 discordant items all one way give 2/2^10).
    Items where either side is NaN are dropped.
    """
    _, only_a, only_b, _ = _table(a, b)
    return _mcnemar_exact(only_a, only_b)


def newcombe_paired_interval(both, only_a, only_b, neither, level: float = 0.95):
    """Newcombe's (1998) hybrid score interval for p_a − p_b from a paired 2×2 table (his method 10).

    Square-and-add of the Wilson (1927) intervals (l1, u1) of p_a = (both + only_a)/n and (l2, u2)
    of p_b = (both + only_b)/n (statsmodels ``proportion_confint(method="wilson")``), allowing for the
    correlation φ of the two margins::

        L = d − sqrt((p_a − l1)² − 2φ(p_a − l1)(u2 − p_b) + (u2 − p_b)²)
        U = d + sqrt((p_b − l2)² − 2φ(p_b − l2)(u1 − p_a) + (u1 − p_a)²)

    with A = both·neither − only_a·only_b and φ = (A − n/2)/sqrt(product of the four margins) when
    A > n/2, 0 when 0 <= A <= n/2, A/sqrt(...) when A < 0, and 0 when a margin is empty — the form in
    Fagerland, Lydersen & Laake (2017, §8.5.4; their Cavo et al. example gives −0.0621 [−0.1186,
    −0.0046]). Vectorised over arrays of tables; (nan, nan) for an empty table.
    """
    cells = [np.asarray(c, dtype=float) for c in (both, only_a, only_b, neither)]
    both, only_a, only_b, neither = np.broadcast_arrays(*cells)
    n = both + only_a + only_b + neither
    safe_n = np.where(n > 0, n, 1.0)
    pa, pb = (both + only_a) / safe_n, (both + only_b) / safe_n
    l1, u1 = proportion_confint(both + only_a, safe_n, alpha=1 - level, method="wilson")
    l2, u2 = proportion_confint(both + only_b, safe_n, alpha=1 - level, method="wilson")
    margins = (both + only_a) * (only_b + neither) * (both + only_b) * (only_a + neither)
    cross = both * neither - only_a * only_b
    root = np.sqrt(np.where(margins > 0, margins, 1.0))
    phi = np.where(cross > n / 2, (cross - n / 2) / root, np.where(cross < 0, cross / root, 0.0))
    phi = np.where(margins > 0, phi, 0.0)
    d = pa - pb
    low = d - np.sqrt(np.maximum(0.0, (pa - l1) ** 2 - 2 * phi * (pa - l1) * (u2 - pb) + (u2 - pb) ** 2))
    high = d + np.sqrt(np.maximum(0.0, (pb - l2) ** 2 - 2 * phi * (pb - l2) * (u1 - pa) + (u1 - pa) ** 2))
    low = np.where(n > 0, np.maximum(-1.0, low), np.nan)
    high = np.where(n > 0, np.minimum(1.0, high), np.nan)
    if low.ndim == 0:
        return float(low), float(high)
    return low, high


def paired_binary_difference(a, b, level: float = 0.95) -> PairedComparison:
    """mean(a) − mean(b) for paired 0/1 outcomes: Newcombe's (1998) interval and the exact McNemar p.

    Interval: :func:`newcombe_paired_interval` (Newcombe 1998, method 10); p-value:
    :func:`paired_binary_test` (exact McNemar 1947). ``significant`` follows the test; the interval
    and the test are different procedures and can disagree at the margin (how often is printed by
    ``benchmarks/coverage.py``). Items with a NaN side are dropped; ``n`` counts the pairs used;
    ``discordance`` is the share of pairs that differ (what the McNemar test's power depends on).
    """
    if not 0 < level < 1:
        raise UserError(f"paired_binary_difference: level must lie strictly between 0 and 1, got {level}")
    both, only_a, only_b, neither = _table(a, b)
    n = both + only_a + only_b + neither
    low, high = newcombe_paired_interval(both, only_a, only_b, neither, level)
    estimate = (only_a - only_b) / n if n else math.nan
    return PairedComparison(estimate, low, high, n, level, "newcombe-score/mcnemar-exact",
                            p_value=_mcnemar_exact(only_a, only_b) if n else math.nan,
                            discordance=(only_a + only_b) / n if n else None)
