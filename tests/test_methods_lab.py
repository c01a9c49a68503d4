"""Notebook 06's lessons (helmlite.analyses.methods_lab), each checked against an independent computation:
statsmodels' Wald interval, McNemar test and multiple-testing adjustments, scipy's beta quantiles and exact binomial
tests, and formulas derived by hand (Clopper–Pearson's bounds, lm-eval's z statistic, Cochran's Q, the design effect,
the binomial SD, 1 − 0.95^m). The kit's own Clopper–Pearson interval and Cochran's Q call statsmodels, so they are
checked against the formulas, not against statsmodels again."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy.stats import beta, binom, binomtest, chi2
from statsmodels.stats.contingency_tables import mcnemar
from statsmodels.stats.multitest import multipletests
from statsmodels.stats.proportion import proportion_confint

from helmlite import stats
from helmlite.analyses import methods_lab as lab
from helmlite.seeds import rng


@pytest.mark.parametrize("n, p", [(20, 0.05), (20, 0.5), (100, 0.01), (100, 0.35)])
def test_exact_coverage_equals_the_binomial_sum_over_statsmodels_intervals(n, p):
    table = lab.exact_coverage(n, [p]).set_index("interval")
    k = np.arange(n + 1)
    wald = proportion_confint(k, n, alpha=0.05, method="normal")
    # Clopper–Pearson by its definition: beta quantiles, 0 and 1 at the ends (Clopper and Pearson 1934)
    exact = (np.where(k == 0, 0.0, beta.ppf(0.025, k, n - k + 1)), np.where(k == n, 1.0, beta.ppf(0.975, k + 1, n - k)))
    for name, (low, high) in (("Wald", wald), ("Clopper–Pearson", exact)):
        expected = binom.pmf(k, n, p) @ ((np.clip(low, 0, 1) <= p + 1e-12) & (p - 1e-12 <= np.clip(high, 0, 1)))
        assert table.loc[name, "coverage"] == pytest.approx(expected, abs=1e-9)
    assert table.loc["Clopper–Pearson", "coverage"] >= 0.95


def test_the_wald_interval_falls_short_at_the_edges_and_clopper_pearson_never_does():
    worst = lab.lowest_coverage(lab.exact_coverage(20, np.round(np.linspace(0.01, 0.99, 99), 2))).set_index("interval")
    assert worst.loc["Wald", "lowest_coverage"] < 0.3 and worst.loc["Wald", "at_accuracy"] in (0.01, 0.99)
    assert worst.loc["Clopper–Pearson", "lowest_coverage"] >= 0.95


def test_simulated_pairs_have_the_accuracy_difference_and_discordance_asked_for():
    a, b = lab.simulate_pairs(200, 0.6, 0.1, 0.2, 2000, rng(0, "test-pairs"))
    assert a.mean() == pytest.approx(0.6, abs=0.005) and (a - b).mean() == pytest.approx(0.1, abs=0.005)
    assert (a != b).mean() == pytest.approx(0.2, abs=0.005)
    with pytest.raises(ValueError, match="difference"):
        lab.simulate_pairs(10, 0.6, 0.3, 0.2, 1, rng(0))


def test_the_two_tests_equal_lm_evals_formula_and_statsmodels_mcnemar_on_the_same_pairs():
    """lm-eval's calculate_z_value by hand: each accuracy's stderr is its sample SD (n − 1) over √n."""
    from scipy.stats import norm

    a, b = lab.simulate_pairs(60, 0.6, 0.1, 0.3, 5, rng(1, "test-tests"))
    for x, y in zip(a, b):
        se = np.sqrt(np.std(x, ddof=1) ** 2 / len(x) + np.std(y, ddof=1) ** 2 / len(y))
        assert lab.unpaired_z_p(x, y) == pytest.approx(2 * norm.sf(abs(x.mean() - y.mean()) / se))
        table = [[np.sum((x == 1) & (y == 1)), np.sum((x == 1) & (y == 0))],
                 [np.sum((x == 0) & (y == 1)), np.sum((x == 0) & (y == 0))]]
        assert stats.paired_binary_test(x, y) == pytest.approx(mcnemar(table, exact=True).pvalue)


def test_pairing_keeps_the_level_and_gains_power():
    rates = lab.rejection_rates(n_items=100, differences=(0.0, 0.1), n_sim=400, seed=0).set_index(["difference", "test"])
    assert rates.loc[(0.0, "exact McNemar (paired)"), "rejection_rate"] <= 0.05 + 2 * np.sqrt(0.05 * 0.95 / 400)
    assert rates.loc[(0.1, "exact McNemar (paired)"), "rejection_rate"] > rates.loc[(0.1, "lm-eval's z-test (unpaired)"),
                                                                                       "rejection_rate"] + 0.15


@pytest.mark.parametrize("method", ["holm", "fdr_by"])
def test_the_row_wise_adjustments_equal_statsmodels_multipletests(method):
    p = rng(2, "test-adjust").random((40, 9)) ** 3
    expected = np.array([multipletests(row, method=method)[1] for row in p])
    assert np.allclose(lab.multiplicity.adjusted_p(p, method), expected, atol=1e-12)


def test_uncorrected_family_wise_error_follows_one_minus_095_to_the_m_and_holm_stays_at_alpha():
    rates = lab.error_rates(m_values=(10,), n_true=0, n_sim=4000, seed=3).set_index("correction")
    se = np.sqrt(0.4 * 0.6 / 4000)
    assert rates.loc["none", "fwer"] == pytest.approx(1 - 0.95 ** 10, abs=3 * se)  # independent nulls, by hand
    assert rates.loc["Holm", "fwer"] <= 0.05 + 3 * np.sqrt(0.05 * 0.95 / 4000)


def test_the_one_sample_mde_has_80_percent_exact_power_by_scipy():
    """At the MDE the exact two-sided binomial test (scipy's binomtest, its rejection region enumerated) has at least
    80% power, and a point below the MDE has less."""
    n, p0 = 100, 0.5
    mde = lab.mde_by_n(ns=(n,)).set_index("design").loc["one model vs a fixed value", "mde"]
    region = np.array([binomtest(k, n, p0).pvalue < 0.05 for k in range(n + 1)])

    def power(p):
        return binom.pmf(np.arange(n + 1), n, p) @ region

    assert power(p0 + mde) >= 0.8 - 1e-6 and power(p0 + mde - 0.01) < 0.8


def test_items_needed_is_the_smallest_n_whose_mde_reaches_the_effect():
    needed = lab.items_needed(effects=(0.1,), discordance=0.2).set_index("design")["n_needed"]
    n = needed["two models, same items (ψ = 0.2)"]
    assert stats.mde_proportion(n, 0.5, paired=True, discordance=0.2) <= 0.1 < \
        stats.mde_proportion(n - 1, 0.5, paired=True, discordance=0.2)
    assert needed["two models, same items (ψ = 0.2)"] < needed["two models, different items"]


def test_context_means_have_the_beta_binomial_variance_and_the_design_effect_is_kishs():
    values, contexts = lab.simulate_contexts(4000, 10, 0.6, 0.2, rng(4, "test-contexts"))
    means = pd.Series(values).groupby(contexts).mean()
    # Var(context mean) = ρ·μ(1 − μ) + (1 − ρ)·μ(1 − μ)/m for a beta-binomial, by hand
    assert means.var() == pytest.approx(0.24 * (0.2 + 0.8 / 10), rel=0.08)
    assert lab.design_effect(10, 0.2) == pytest.approx(1 + 9 * 0.2)


def test_the_naive_interval_undercovers_clustered_items_and_korn_graubard_does_not():
    table = lab.interval_coverage(n_contexts=10, per_context=8, iccs=(0.3,), n_sim=300, seed=0).set_index("interval")
    assert table.loc["naive (items independent)", "coverage"] < 0.88
    assert table.loc["cluster (Korn–Graubard)", "coverage"] >= 0.92


def test_the_seed_test_is_cochrans_q_by_hand_and_no_seed_effect_shows_the_binomial_sd():
    matrix = lab.simulate_seed_matrix(5, 100, 0.6, 0.05, rng(5, "test-seeds"))
    k, seeds, items = matrix.shape[0], matrix.sum(axis=1), matrix.sum(axis=0)  # Cochran (1950): seeds are treatments
    q = (k - 1) * (k * np.sum(seeds ** 2) - matrix.sum() ** 2) / (k * matrix.sum() - np.sum(items ** 2))
    assert stats.seeds_matter_test(matrix)[0] == pytest.approx(chi2.sf(q, k - 1))
    spread = lab.observed_spread(n_seeds=3, n_items=100, seed_sds=(0.0,), n_sim=400, seed=0).iloc[0]
    assert spread["binomial_sd"] == pytest.approx(np.sqrt(0.24 / 100))
    assert spread["observed_sd"] == pytest.approx(spread["binomial_sd"], rel=0.15)  # E[s] slightly below σ at 3 seeds
    sds = lab.detectable_seed_sd(n_items=(100, 400), n_seeds=(3, 10)).set_index(["n_items", "n_seeds"])["mde_seed_sd"]
    assert sds[(400, 10)] < sds[(400, 3)] < sds[(100, 3)] and sds[(400, 10)] < sds[(100, 10)]


@pytest.mark.parametrize("k", [540, 600, 620, 660])
def test_equivalence_from_the_90_percent_interval_is_scipys_two_one_sided_exact_tests(k):
    n, published, margin = 1000, 0.6, 0.05
    low, high = stats.proportion_ci(k, n, 0.90)
    tost = (binomtest(k, n, published - margin, alternative="greater").pvalue < 0.05
            and binomtest(k, n, published + margin, alternative="less").pvalue < 0.05)
    assert lab.equivalent(low, high, published, margin) == tost


def test_consistent_is_common_at_small_n_even_when_the_truth_is_ten_points_off():
    rates = lab.verdict_rates(ns=(25, 1600), offsets=(0.0, 0.1), n_sim=500, seed=0).set_index(["n", "offset"])
    assert rates.loc[(25, 0.1), "consistent"] > 0.6 and rates.loc[(25, 0.1), "equivalent"] == 0
    assert rates.loc[(1600, 0.0), "equivalent"] > 0.9
    assert np.allclose(rates[["reproduced", "consistent", "differs"]].sum(axis=1), 1)


@pytest.mark.parametrize("n_items, n_seeds", [(100, 3), (400, 5)])
def test_at_the_detectable_seed_sd_the_test_detects_80_percent_of_the_time(n_items, n_seeds):
    """The lesson's simulation (fixed seed effects with SD exactly σ) at σ = mde_seed_sd: Cochran's Q rejects about 80%
    of the time (800 simulated matrices: ±3 binomial SEs)."""
    sd = stats.mde_seed_sd(n_items, n_seeds, 0.24)
    assert np.std(lab.seed_effects(n_seeds, sd), ddof=1) == pytest.approx(sd)
    generator = rng(6, "test-seed-power", n_items)
    found = [stats.seeds_matter_test(lab.simulate_seed_matrix(n_seeds, n_items, 0.6, sd, generator))[0] < 0.05
             for _ in range(800)]
    assert np.mean(found) == pytest.approx(0.8, abs=3 * np.sqrt(0.16 / 800))


def test_seeds_needed_is_the_fewest_seeds_whose_detectable_sd_reaches_the_target():
    table = lab.seeds_needed(seed_sds=(0.05,), n_items=(400,)).iloc[0]
    k = int(table["seeds_needed"])
    assert stats.mde_seed_sd(400, k, 0.24) <= 0.05 < stats.mde_seed_sd(400, k - 1, 0.24)
