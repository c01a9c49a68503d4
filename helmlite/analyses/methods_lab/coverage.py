"""Lesson 1 — how wide is the uncertainty at n items? The exact coverage of two 95% intervals for a proportion.

For n items the observed count k takes n + 1 values, so an interval's coverage at a true accuracy p is a finite sum
(Brown, Cai and DasGupta 2001, "Interval estimation for a binomial proportion", §2):
coverage(p) = Σ_k Bin(k; n, p) · 1[lo(k) ≤ p ≤ hi(k)]. No simulation, no Monte Carlo error.

* **Wald**, p̂ ± z·√(p̂(1 − p̂)/n): the textbook interval, written here only to be compared (the kit never uses it).
  At k = 0 or k = n its width is 0, so near 0 and 1 it covers far less than 95%.
* **Clopper–Pearson** (:func:`helmlite.stats.proportion_ci`, Clopper and Pearson 1934), the interval the kit uses for
  a proportion: its coverage never falls below 95%, at the price of some width.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
from scipy.stats import binom, norm

from ... import stats


def wald_interval(successes, n: int, level: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """The Wald interval p̂ ± z·√(p̂(1 − p̂)/n), clipped to [0, 1] (the lesson's foil, not a kit interval)."""
    share = np.asarray(successes, dtype=float) / n
    half = norm.ppf(0.5 + level / 2) * np.sqrt(share * (1 - share) / n)
    return np.clip(share - half, 0, 1), np.clip(share + half, 0, 1)


INTERVALS = {"Wald": wald_interval, "Clopper–Pearson": stats.proportion_ci}


def exact_coverage(n: int, accuracies, level: float = 0.95) -> pd.DataFrame:
    """Coverage of each interval at each true accuracy, by the binomial sum above: columns ``n, accuracy, interval,
    coverage, mean_width`` (the width expected at that accuracy)."""
    counts = np.arange(n + 1)
    rows = []
    for name, interval in INTERVALS.items():
        low, high = (np.asarray(bound, dtype=float) for bound in interval(counts, n, level))
        for p in np.asarray(accuracies, dtype=float):
            weights = binom.pmf(counts, n, p)
            covered = (low <= p + 1e-12) & (p - 1e-12 <= high)
            rows.append({"n": n, "accuracy": float(p), "interval": name, "coverage": float(weights @ covered),
                         "mean_width": float(weights @ (high - low))})
    return pd.DataFrame(rows)


def lowest_coverage(table: pd.DataFrame) -> pd.DataFrame:
    """Per n and interval: the lowest coverage over the accuracies, and where it falls."""
    worst = table.loc[table.groupby(["n", "interval"])["coverage"].idxmin()]
    return worst[["n", "interval", "accuracy", "coverage"]].rename(columns={"accuracy": "at_accuracy",
                                                                            "coverage": "lowest_coverage"})
