"""Seed variance component, "do seeds matter", and the ANOVA table.

References: statsmodels ``anova_lm(typ=2)`` (mean squares, F, p, type-II sums of squares), Cochran's
Q written out from its formula (Cochran 1950) and statsmodels ``cochrans_q``, the exact χ² interval
(the MLS interval's limit with no residual term), and simulations with a known seed variance.
"""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
import statsmodels.formula.api as smf
from scipy import stats as sps
from statsmodels.stats.anova import anova_lm
from statsmodels.stats.contingency_tables import cochrans_q

from helmlite import claims, stats
from helmlite.stats.variance import _mls_difference


def _long(matrix):
    seeds, items = matrix.shape
    return pd.DataFrame({"y": matrix.ravel(), "seed": np.repeat(np.arange(seeds), items).astype(str),
                         "item": np.tile(np.arange(items), seeds).astype(str)})


def test_mean_squares_and_f_test_equal_statsmodels_anova():
    """Reference: statsmodels ols('y ~ C(seed) + C(item)') + anova_lm(typ=2)."""
    rng = np.random.default_rng(0)
    matrix = rng.normal(size=(4, 30)) + rng.normal(0, 0.3, size=(4, 1)) + rng.normal(size=(1, 30))
    table = anova_lm(smf.ols("y ~ C(seed) + C(item)", data=_long(matrix)).fit(), typ=2)
    component = stats.seed_variance_component(matrix)
    ms_seed = table.loc["C(seed)", "sum_sq"] / table.loc["C(seed)", "df"]
    ms_residual = table.loc["Residual", "sum_sq"] / table.loc["Residual", "df"]
    assert component.ms_seed == pytest.approx(ms_seed) and component.ms_residual == pytest.approx(ms_residual)
    assert (component.df_seed, component.df_residual) == (3, 87)
    assert component.estimate == pytest.approx((ms_seed - ms_residual) / 30)
    assert component.raw_variance == pytest.approx(matrix.mean(axis=1).var(ddof=1))
    assert stats.seeds_matter_test(matrix)[0] == pytest.approx(table.loc["C(seed)", "PR(>F)"])


def test_cochrans_q_for_binary_scores():
    """References: Q = (k − 1)(k ΣC_j² − N²)/(kN − ΣR_i²) ~ χ²_{k−1} (Cochran 1950) and statsmodels cochrans_q."""
    rng = np.random.default_rng(1)
    matrix = (rng.random((5, 60)) < np.array([[0.5], [0.55], [0.6], [0.7], [0.5]])).astype(float)
    k = matrix.shape[0]
    columns, rows, total = matrix.sum(axis=1), matrix.sum(axis=0), matrix.sum()
    q = (k - 1) * (k * np.sum(columns**2) - total**2) / (k * total - np.sum(rows**2))
    p, floor = stats.seeds_matter_test(matrix)
    assert p == pytest.approx(sps.chi2.sf(q, k - 1))
    assert p == pytest.approx(tuple(cochrans_q(matrix.T.astype(int)))[1]) and floor == 0.0  # an analytic test: no floor
    assert stats.seeds_matter_test(np.ones((3, 10))) == (1.0, 0.0)  # no item varies across seeds


def test_mls_interval_reduces_to_the_exact_chi_square_interval():
    """Hand-derived: with no residual mean square the MLS bounds on θ1 are the exact χ² bounds
    s1·n1/χ²_{0.975, n1} and s1·n1/χ²_{0.025, n1} (Burdick & Graybill 1992, §3.3)."""
    low, high = _mls_difference(2.0, 0.0, 4, 100, 0.95)
    assert low == pytest.approx(2.0 * 4 / sps.chi2.ppf(0.975, 4))
    assert high == pytest.approx(2.0 * 4 / sps.chi2.ppf(0.025, 4))


@pytest.mark.parametrize("seed_sd", [0.0, 0.1])
def test_seed_variance_interval_covers_the_true_seed_variance(seed_sd):
    """Seeded simulation, 5 seeds × 200 items, item SD 1, residual SD 0.5, true seed variance
    seed_sd²; 400 data sets. The MLS interval covers ~0.95 (accepted 0.91–0.99); with no seed effect
    it covers 0 (the lower bound is <= 0) and the F test rejects about 5% (accepted <= 0.07 here);
    with seed SD 0.1 the F test detects it in most data sets (power > 0.8).
    Reference: the known seed variance."""
    rng = np.random.default_rng(2)
    hits = rejected = negative = 0
    for _ in range(400):
        matrix = rng.normal(0, seed_sd, (5, 1)) + rng.normal(0, 1, (1, 200)) + rng.normal(0, 0.5, (5, 200))
        component = stats.seed_variance_component(matrix)
        hits += component.ci_low <= seed_sd**2 <= component.ci_high
        rejected += stats.seeds_matter_test(matrix)[0] < 0.05
        negative += component.estimate < 0
        assert component.estimate_clipped == max(0.0, component.estimate)
    assert 0.91 <= hits / 400 <= 0.99
    if seed_sd == 0:
        assert rejected / 400 <= 0.07 and negative > 100  # an unbiased estimate of 0 is often negative
    else:
        assert rejected / 400 > 0.8


def test_seed_variance_input_checks():
    with pytest.raises(ValueError, match="at least 2 seeds"):
        stats.seed_variance_component(np.ones((1, 5)))
    with pytest.raises(ValueError, match="complete"):
        stats.seed_variance_component([[1.0, np.nan], [0.0, 1.0]])


def test_anova_table_equals_statsmodels_type_ii_and_reports_df_and_f():
    """Reference: statsmodels anova_lm(typ=2) on the same main-effects model; shares are sum_sq/total SS."""
    rng = np.random.default_rng(3)
    frame = pd.DataFrame({"shots": np.tile([0, 1, 2, 4], 12), "format": np.repeat(["a", "b", "c"], 16),
                          "seed": np.tile(np.repeat([1, 2], 4), 6), "constant": 1})
    frame["accuracy"] = 0.05 * frame["shots"] + (frame["format"] == "b") * 0.1 + rng.normal(0, 0.05, len(frame))
    out = stats.anova_table(frame, "accuracy", ["shots", "format", "seed", "constant"]).set_index("component")
    ref = anova_lm(smf.ols("accuracy ~ C(shots) + C(format) + C(seed)", data=frame).fit(), typ=2)
    for name in ("shots", "format", "seed"):
        for column in ("sum_sq", "df", "F", "PR(>F)"):
            assert out.loc[name, column] == pytest.approx(ref.loc[f"C({name})", column])
    assert "constant" not in out.index
    assert out.loc["residual", "df"] == ref.loc["Residual", "df"]
    total = ((frame["accuracy"] - frame["accuracy"].mean()) ** 2).sum()
    assert out["share"].sum() == pytest.approx(ref["sum_sq"].sum() / total)
    # a factor with no effect "explains" about df·σ² by chance; beyond noise it explains about nothing
    assert abs(out.loc["seed", "share_beyond_noise"]) < 0.02


def test_anova_table_without_residual_df_uses_the_fits():
    """Hand-derived: a saturated design (one row per level) has no residual df; sum_sq is then
    RSS(without the factor) − RSS(full) = the total SS, and F/p are NaN."""
    frame = pd.DataFrame({"config": ["a", "b", "c", "d"], "accuracy": [0.1, 0.4, 0.2, 0.5]})
    out = stats.anova_table(frame, "accuracy", ["config"]).set_index("component")
    assert out.loc["config", "sum_sq"] == pytest.approx(np.var([0.1, 0.4, 0.2, 0.5]) * 4)
    assert out.loc["config", "df"] == 3 and out.loc["residual", "df"] == 0
    assert math.isnan(out.loc["config", "F"]) and out.loc["config", "share"] == pytest.approx(1.0)


def test_exactly_additive_scores_get_a_permutation_p_never_0():
    """The issue's matrix [[0, .5], [.5, 1], [.25, .75]] is exactly seed + item (no residual): F is
    infinite and its p was 0. Hand-derived: with the first item fixed there are 3! arrangements of the
    second; only the observed one reaches the observed seed sum of squares, so p = 1/6 — an exact p, no floor. A design
    too large to enumerate is sampled (9,999 permutations): none as extreme, p = 1/10,000, which is that test's floor
    and reads "≤"."""
    assert stats.seeds_matter_test(np.array([[0, 0.5], [0.5, 1], [0.25, 0.75]])) == (pytest.approx(1 / 6), 0.0)
    additive = np.add.outer(np.linspace(0, 0.5, 6), np.linspace(0, 1, 8)) / 2  # 720^7 arrangements: sampled
    p, floor = stats.seeds_matter_test(additive)
    assert p == floor == pytest.approx(1 / 10_000) and p > 0 and claims.format_p(p, floor).startswith("≤")
    nearly = np.array([[1e-6, 0.5], [0.5, 1], [0.25, 0.75]])  # a tiny design is permuted exactly: no jump
    assert stats.seeds_matter_test(nearly)[0] == pytest.approx(1 / 6)


def test_rounding_residue_of_a_sum_of_squares_is_written_as_zero():
    """Hand-made: against a total of 1, 1e-30 and -1e-30 are the fits' residue (0), 1e-6 is variation (kept)."""
    import pandas as pd

    out = stats.without_rounding_residue(pd.Series([1e-30, -1e-30, 1e-6, 0.4]), total=1.0)
    assert out.tolist() == [0.0, 0.0, 1e-6, 0.4]
