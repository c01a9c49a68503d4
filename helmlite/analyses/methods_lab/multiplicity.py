"""Lesson 3 — many claims at once: how many false discoveries, and what Holm and Benjamini–Yekutieli do about them.

m claims are tested together; ``n_true`` of them are real effects (z-statistic mean ``effect_z``), the rest are null.
Each gets a two-sided p-value; a claim is "discovered" when its (adjusted) p is below α. Without correction the chance
of at least one false discovery (the family-wise error rate) grows as 1 − (1 − α)^m; Holm (1979) keeps it at α under
any dependence (the kit's default for a family of claims); Benjamini and Yekutieli (2001) keep the expected share of
false discoveries among the discoveries (the false discovery rate) at α under any dependence. Their price for
arbitrary dependence is a factor Σ 1/j: with a few real effects among many claims, as here, they reject no more than
Holm (Benjamini–Hochberg, which would, needs positive dependence).
The kit's claims tables adjust with statsmodels' ``multipletests`` (:mod:`helmlite.claims`); a simulation of
thousands of families needs the same adjustments on a whole matrix at once, so :func:`adjusted_p` writes Holm's and
Benjamini–Yekutieli's step formulas row-wise (tests/test_methods_lab.py holds them equal to ``multipletests``).
"""
from __future__ import annotations

import numpy as np
import pandas as pd
from scipy.stats import norm

from ...seeds import rng as seeded

CORRECTIONS = {"none": None, "Holm": "holm", "Benjamini–Yekutieli": "fdr_by"}


def adjusted_p(p_values: np.ndarray, method: str | None) -> np.ndarray:
    """Adjusted p-values of each row of ``p_values`` (families × m): ``"holm"`` (Holm 1979: the sorted p's times
    m − i + 1, made non-decreasing), ``"fdr_by"`` (Benjamini and Yekutieli 2001: the sorted p's times m·c(m)/i with
    c(m) = Σ 1/j, made non-increasing from the top), or None (unadjusted); each capped at 1."""
    p = np.atleast_2d(np.asarray(p_values, dtype=float))
    if method is None:
        return p
    m = p.shape[1]
    order = np.argsort(p, axis=1, kind="stable")
    ranked = np.take_along_axis(p, order, axis=1)
    rank = np.arange(1, m + 1)
    if method == "holm":
        steps = np.maximum.accumulate(ranked * (m - rank + 1), axis=1)
    elif method == "fdr_by":
        scaled = ranked * m * np.sum(1.0 / rank) / rank
        steps = np.minimum.accumulate(scaled[:, ::-1], axis=1)[:, ::-1]
    else:
        raise ValueError(f"unknown correction {method!r}; known: holm, fdr_by")
    out = np.empty_like(ranked)
    np.put_along_axis(out, order, np.minimum(steps, 1.0), axis=1)
    return out


def discoveries(p_values: np.ndarray, correction: str, alpha: float = 0.05) -> np.ndarray:
    """Which p-values are discoveries after ``correction`` (a key of :data:`CORRECTIONS`), row by row."""
    return adjusted_p(p_values, CORRECTIONS[correction]) < alpha


def error_rates(m_values=(1, 5, 10, 25, 50), n_true: int = 0, effect_z: float = 3.0, n_sim: int = 1000,
                seed: int = 0, alpha: float = 0.05) -> pd.DataFrame:
    """Per number of claims m and correction: the family-wise error rate (share of simulated families with at least
    one false discovery), the false discovery rate (mean share of false ones among the discoveries, 0 without any)
    and the power (share of the real effects discovered). Columns ``m, n_true, correction, fwer, fdr, power``."""
    rows = []
    for m in m_values:
        true = min(n_true, m)
        generator = seeded(seed, "methods_lab", "multiplicity", m, true)
        z = generator.standard_normal((n_sim, m)) + np.r_[np.full(true, effect_z), np.zeros(m - true)]
        p = 2 * norm.sf(np.abs(z))
        for correction in CORRECTIONS:
            found = discoveries(p, correction, alpha)
            false = found[:, true:].sum(axis=1)
            total = found.sum(axis=1)
            rows.append({"m": m, "n_true": true, "correction": correction, "fwer": float(np.mean(false > 0)),
                         "fdr": float(np.mean(np.where(total > 0, false / np.maximum(total, 1), 0.0))),
                         "power": float(found[:, :true].mean()) if true else np.nan})
    return pd.DataFrame(rows)
