"""Where variance comes from: seed-to-seed variance as a variance component, "do seeds matter?",
and an ANOVA table with degrees of freedom and F beside each factor's share.

**Seeds × items.** When every seed (in-context example draw, sampling seed) is scored on the same
items, the score matrix y[s, i] follows the two-way layout without replication
y = μ + seed_s + item_i + e_si (Searle, Casella & McCulloch 1992, §4.7; Montgomery, *Design and
Analysis of Experiments*, §13). The variance of the seed *means* is not the seed variance: each seed
mean carries item noise, E[var of seed means] = σ²_seed + σ²_e / n_items. The ANOVA (method of
moments) estimator removes it::

    σ̂²_seed = (MS_seed − MS_residual) / n_items

which is unbiased and may be negative (report it as is; :attr:`VarianceComponent.estimate_clipped`
is max(0, ·)). Its interval is the modified large-sample (MLS) interval for a difference of expected
mean squares of Ting, Burdick, Graybill, Jeyaratnam & Lu (1990) (Burdick & Graybill 1992, *Confidence
Intervals on Variance Components*, §3.3): closed form, its lower bound can be below 0, and it
reduces to the exact χ² interval when MS_residual is 0; coverage on the kit's designs (normal and
0/1 scores) is printed by ``benchmarks/coverage.py``.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np
import pandas as pd
from scipy import stats as sps

from ..errors import UserError
from .estimates import Estimate, Seed
from .proportions import is_binary


@dataclass(frozen=True)
class VarianceComponent(Estimate):
    """The seed variance component σ²_seed with its MLS interval (``n`` = items, ``n_seeds`` = seeds).

    ``estimate`` and ``ci_low`` are unclipped and may be negative (an unbiased estimate of a variance
    can be); ``estimate_clipped`` = max(0, estimate). ``raw_variance`` is the plain variance of the
    seed means — σ²_seed + σ²_e/n_items in expectation, i.e. inflated by item noise — kept only so a
    table can show it *labelled as raw*.
    """

    estimate_clipped: float = math.nan
    n_seeds: int = 0
    ms_seed: float = math.nan
    ms_residual: float = math.nan
    df_seed: int = 0
    df_residual: int = 0
    raw_variance: float = math.nan


def _matrix(matrix) -> np.ndarray:
    matrix = np.asarray(matrix, dtype=float)
    if matrix.ndim != 2 or matrix.shape[0] < 2 or matrix.shape[1] < 2:
        raise UserError(f"seeds × items matrix must be 2-D with at least 2 seeds and 2 items, got shape {matrix.shape}")
    if not np.all(np.isfinite(matrix)):
        raise UserError("seeds × items matrix must be complete (every seed scored on every item; no NaN)")
    return matrix


def _two_way(matrix: np.ndarray) -> tuple[float, float, int, int]:
    """MS_seed, MS_residual and their df for the two-way layout without replication."""
    seeds, items = matrix.shape
    grand = matrix.mean()
    seed_means, item_means = matrix.mean(axis=1), matrix.mean(axis=0)
    ss_seed = items * np.sum((seed_means - grand) ** 2)
    residual = matrix - seed_means[:, None] - item_means[None, :] + grand
    ss_residual = np.sum(residual**2)
    df_seed, df_residual = seeds - 1, (seeds - 1) * (items - 1)
    return float(ss_seed / df_seed), float(ss_residual / df_residual), df_seed, df_residual


def _mls_difference(s1: float, s2: float, n1: int, n2: int, level: float) -> tuple[float, float]:
    """MLS bounds on θ1 − θ2 from mean squares s1 (df n1) and s2 (df n2) (Ting et al. 1990;
    Burdick & Graybill 1992, eqs. 3.8–3.9); F quantiles with the given df, ∞ meaning χ²/df."""
    tail = (1 - level) / 2

    def f_inf(q, df):  # quantile of F(df, ∞) = χ²_df / df
        return sps.chi2.ppf(q, df) / df

    g1, h1 = 1 - 1 / f_inf(1 - tail, n1), 1 / f_inf(tail, n1) - 1
    g2, h2 = 1 - 1 / f_inf(1 - tail, n2), 1 / f_inf(tail, n2) - 1
    f_high, f_low = sps.f.ppf(1 - tail, n1, n2), sps.f.ppf(tail, n1, n2)
    g12 = ((f_high - 1) ** 2 - g1**2 * f_high**2 - h2**2) / f_high
    h12 = ((1 - f_low) ** 2 - h1**2 * f_low**2 - g2**2) / f_low
    v_low = g1**2 * s1**2 + h2**2 * s2**2 + g12 * s1 * s2
    v_high = h1**2 * s1**2 + g2**2 * s2**2 + h12 * s1 * s2
    return s1 - s2 - math.sqrt(max(0.0, v_low)), s1 - s2 + math.sqrt(max(0.0, v_high))


def seed_variance_component(matrix, level: float = 0.95, n_resamples: int | None = None,
                            seed: Seed | None = None) -> VarianceComponent:
    """Seed variance component (MS_seed − MS_residual)/n_items of a seeds × items score matrix.

    Two-way ANOVA without replication, method-of-moments estimator (Searle, Casella & McCulloch
    1992, §4.7); interval: the MLS interval for a difference of expected mean squares (Ting et al.
    1990; Burdick & Graybill 1992, §3.3), divided by n_items. The estimate and the lower bound may be
    negative (no seed effect beyond item noise); see the module docstring. ``n_resamples`` and
    ``seed`` are accepted so that callers can pass their usual arguments, and are unused (the MLS
    interval is closed form; a bootstrap over items cannot capture the variation from having only a
    few seeds).
    """
    if not 0 < level < 1:
        raise UserError(f"seed_variance_component: level must lie strictly between 0 and 1, got {level}")
    matrix = _matrix(matrix)
    seeds, items = matrix.shape
    ms_seed, ms_residual, df_seed, df_residual = _two_way(matrix)
    estimate = (ms_seed - ms_residual) / items
    low, high = _mls_difference(ms_seed, ms_residual, df_seed, df_residual, level)
    return VarianceComponent(estimate, low / items, high / items, items, level, "anova-mls",
                             estimate_clipped=max(0.0, estimate), n_seeds=seeds, ms_seed=ms_seed,
                             ms_residual=ms_residual, df_seed=df_seed, df_residual=df_residual,
                             raw_variance=float(matrix.mean(axis=1).var(ddof=1)))


def seeds_matter_test(matrix) -> tuple[float, float]:
    """(p-value, its floor) of "every seed has the same expected score" for a seeds × items matrix. The floor is the
    smallest p the test can give where it is a resampling test — 1/(B + 1) for random within-item permutations, so a p
    there reads "p ≤ floor" — and 0 for the exact and analytic tests below.

    0/1 scores: Cochran's (1950) Q test (statsmodels ``cochrans_q`` on the items × seeds table; items
    on which all seeds agree carry no information; 1.0 when no item varies). Continuous scores: the
    two-way ANOVA F test of the seed factor, F = MS_seed / MS_residual on (S − 1, (S − 1)(I − 1)) df
    (the same F as statsmodels ``anova_lm``; p from scipy's F distribution); when the residual mean
    square is 0 (F undefined), and for designs small enough to enumerate ((S!)^(I − 1) <= 10,000
    arrangements, e.g. 3 seeds × 6 items), the exact within-item permutation test of the same statistic:
    the F test's normal theory means little there, and its p jumps from 1/6 to 1e-12 between exactly and
    nearly additive 3 × 2 matrices. Never 0 (an F p-value below the smallest normal float, 2.2e-308, is
    reported as that float).
    """
    matrix = _matrix(matrix)
    if is_binary(matrix):
        if not np.any(matrix.min(axis=0) != matrix.max(axis=0)):
            return 1.0, 0.0
        from statsmodels.stats.contingency_tables import cochrans_q

        _, p_value, _ = cochrans_q(matrix.T.astype(int))  # unpacks in statsmodels 0.14 and 0.15
        return float(p_value), 0.0
    ms_seed, ms_residual, df_seed, df_residual = _two_way(matrix)
    if ms_seed == 0:
        return 1.0, 0.0
    seeds, items = matrix.shape
    if math.factorial(seeds) ** (items - 1) <= _EXACT_ARRANGEMENTS or ms_residual <= 1e-12 * ms_seed:
        return _within_item_permutation_p(matrix)  # tiny designs, or exactly additive scores (F infinite)
    return max(float(sps.f.sf(ms_seed / ms_residual, df_seed, df_residual)), np.finfo(float).tiny), 0.0


_EXACT_ARRANGEMENTS = 10_000  # designs with at most this many within-item arrangements are permuted exactly


def _within_item_permutation_p(matrix: np.ndarray, n_resamples: int = 9_999, seed: Seed = 0) -> tuple[float, float]:
    """Permutation p-value of "seeds do not matter": for designs small enough to enumerate, and when the F
    test is undefined (no residual variance: the scores are exactly seed + item effects, so F = ∞).

    Under the null the seed labels are exchangeable within each item (Good 2005, *Permutation, Parametric
    and Bootstrap Tests of Hypotheses*, §5), and SS_seed orders the arrangements as F does (the
    within-item sum of squares is the same for all). All (S!)^(I−1) arrangements are enumerated when
    there are at most ``n_resamples`` + 1 of them (p = share at least as extreme, the observed one
    included; an exact p, floor 0), else ``n_resamples`` random ones with p = (k + 1)/(B + 1), never 0, and its floor
    1/(B + 1)."""
    from itertools import permutations, product

    seeds, items = matrix.shape

    def ss_seed(arranged: np.ndarray) -> np.ndarray:  # (..., seeds, items) → SS of the seed means
        means = arranged.mean(axis=-1)
        return ((means - means.mean(axis=-1, keepdims=True)) ** 2).sum(axis=-1)

    observed = ss_seed(matrix) * (1 - 1e-9)
    if math.factorial(seeds) ** (items - 1) <= max(n_resamples + 1, _EXACT_ARRANGEMENTS):
        orders = list(permutations(range(seeds)))
        columns = [[matrix[list(order), i] for order in orders] for i in range(1, items)]
        arranged = np.array([np.column_stack([matrix[:, 0], *combo]) for combo in product(*columns)])
        return float(np.mean(ss_seed(arranged) >= observed)), 0.0
    rng = np.random.default_rng(seed)
    shuffled = np.argsort(rng.random((n_resamples, seeds, items)), axis=1)
    shuffled[:, :, 0] = np.arange(seeds)
    arranged = np.take_along_axis(np.broadcast_to(matrix, shuffled.shape), shuffled, axis=1)
    return float((1 + np.sum(ss_seed(arranged) >= observed)) / (n_resamples + 1)), 1 / (n_resamples + 1)


def without_rounding_residue(sums_of_squares: pd.Series, total: float) -> pd.Series:
    """Sums of squares with the fits' rounding residue (1e-30 where an exact fit leaves nothing, or a difference of
    residual sums below 0) written as 0: a value within 1e-12 of the total sum of squares is not variation."""
    return sums_of_squares.where(sums_of_squares.abs() > 1e-12 * max(float(total), 1e-300), 0.0)


def anova_table(frame: pd.DataFrame, response: str, factors: Sequence[str]) -> pd.DataFrame:
    """Main-effects ANOVA of ``response`` on categorical ``factors``: type-II sums of squares with df,
    F, p and each factor's share of the total sum of squares.

    statsmodels ``ols`` + ``anova_lm(typ=2)`` (Fox 2016, *Applied Regression Analysis*, §8.2 for type
    II). Factors with a single level are left out. Columns: ``component`` (each factor, then
    ``residual``), ``levels``, ``sum_sq``, ``df``, ``F``, ``PR(>F)``, ``share`` (sum_sq / total SS) and
    ``share_beyond_noise`` = (sum_sq − df · MS_residual) / total SS: a factor with no effect still
    "explains" about df · σ² by chance, so its share is not 0 but this column is about 0. When the
    design leaves no residual df (or the fit is exact), sums of squares come from the fits directly (RSS without the
    factor − RSS of the full model, never below 0) and F, p and share_beyond_noise are NaN. A p-value below the
    smallest positive float is written as that float, never 0.
    """
    import statsmodels.formula.api as smf
    from statsmodels.stats.anova import anova_lm

    used = [f for f in factors if frame[f].nunique() > 1]
    names = {f: f"x{k}" for k, f in enumerate(used)}  # formula-safe names
    data = pd.DataFrame({"y": pd.to_numeric(frame[response], errors="raise").to_numpy(dtype=float)})
    for f in used:
        data[names[f]] = frame[f].astype(str).to_numpy()
    if data["y"].isna().any():
        raise UserError(f"anova_table: {response} has missing values")

    def fit(terms):
        formula = "y ~ " + (" + ".join(f"C({names[t]})" for t in terms) if terms else "1")
        return smf.ols(formula, data=data).fit()

    full = fit(used)
    total = float(((data["y"] - data["y"].mean()) ** 2).sum())
    rows = []
    if full.df_resid > 0 and full.ssr > 0 and used:
        table = anova_lm(full, typ=2)
        for f in used:
            row = table.loc[f"C({names[f]})"]
            rows.append({"component": f, "levels": frame[f].nunique(), "sum_sq": float(row["sum_sq"]),
                         "df": float(row["df"]), "F": float(row["F"]),
                         "PR(>F)": max(float(row["PR(>F)"]), np.finfo(float).tiny)})
    else:
        for f in used:
            reduced = fit([g for g in used if g != f])
            # a difference of residual sums of squares: ≥ 0 by construction, so a negative one is rounding residue
            rows.append({"component": f, "levels": frame[f].nunique(), "sum_sq": max(0.0, float(reduced.ssr - full.ssr)),
                         "df": float(full.df_model - reduced.df_model),
                         "F": math.nan, "PR(>F)": math.nan})
    rows.append({"component": "residual", "levels": math.nan, "sum_sq": float(full.ssr), "df": float(full.df_resid),
                 "F": math.nan, "PR(>F)": math.nan})
    out = pd.DataFrame(rows)
    out["sum_sq"] = without_rounding_residue(out["sum_sq"], total)
    out["share"] = out["sum_sq"] / total if total > 0 else math.nan
    ms_residual = full.ssr / full.df_resid if full.df_resid > 0 else math.nan
    beyond = (out["sum_sq"] - out["df"] * ms_residual) / total if total > 0 else math.nan
    out["share_beyond_noise"] = np.where(out["component"] == "residual", math.nan, beyond)
    return out
