"""Sensitivity helpers: paired tests on shared items, multiple-comparison counting, variance decomposition."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from statsmodels.stats.multitest import multipletests

from helmlite.analyses import sensitivity


def run(model, scenario, label, values, **adapter):
    records = [{"id": f"i{k}", "metrics": {"exact_match": float(v)}} for k, v in enumerate(values)]
    return {"run_id": f"{model}-{scenario}-{label}", "model": model, "scenario": scenario, "records": records,
            "stats": {"main_metric": "exact_match"}, "spec": {"adapter": {"seed": 0, "max_train_instances": 5, **adapter}},
            "level": label}


def test_studies_vary_one_factor_and_share_the_base():
    section = {"models": ["a"], "seeds": [0, 1], "shots": [0, 5], "seed_scenarios": [{"scenario": "mmlu"}],
               "shot_scenarios": [{"scenario": "mmlu"}], "formats": {"helm_default": {}, "chat": {"chat_template": True}},
               "format_scenarios": [{"scenario": "mmlu"}], "chat_models": [], "methods": ["multiple_choice_joint"],
               "method_scenarios": [{"scenario": "mmlu"}], "max_instances": 10}
    studies = sensitivity.studies(section)
    assert [label for label, _ in studies["seeds"]] == ["seed 0", "seed 1"]
    assert [label for label, _ in studies["formats"]] == ["helm_default"]  # chat only for chat models
    assert len(sensitivity.grid(section)) == 2 + 2 + 1 + 1


def test_pairwise_tests_are_paired_and_corrected():
    rng = np.random.default_rng(0)
    base = rng.integers(0, 2, 200)
    better = np.where(rng.random(200) < 0.3, 1, base)  # same items, 30% flipped to correct
    runs = [run("m", "s", "a", base), run("m", "s", "b", better), run("m", "s", "c", base)]
    tests = sensitivity.pairwise_tests(runs, lambda r: r["level"], seed=0, n_resamples=1000).set_index(["a", "b"])
    assert tests.loc[("a", "c"), "difference"] == 0 and tests.loc[("a", "c"), "p_value"] == 1.0  # identical runs
    assert tests.loc[("a", "b"), "difference"] < 0 and tests.loc[("a", "b"), "significant_holm"]
    # the corrections are statsmodels' own on the raw p-values
    np.testing.assert_allclose(tests["p_holm"], multipletests(tests["p_value"], method="holm")[1])
    assert (tests["p_bh"] <= tests["p_holm"] + 1e-12).all()


def test_rank_reversals_count_only_significant_swaps():
    n = 300
    ones, zeros = np.ones(n), np.zeros(n)
    half = np.r_[np.ones(n // 2), np.zeros(n // 2)]
    runs = [run("A", "s", "x", ones), run("B", "s", "x", zeros),  # A ≫ B under config x
            run("A", "s", "y", zeros), run("B", "s", "y", ones),  # B ≫ A under config y: significant reversal
            run("A", "s", "z", half), run("B", "s", "z", half)]   # tie under z
    table = sensitivity.rank_reversals(runs, lambda r: r["level"], ("A", "B"), seed=0, n_resamples=500)
    pair = table.set_index(["config_1", "config_2"])
    assert bool(pair.loc[("x", "y"), "reversal"]) and bool(pair.loc[("x", "y"), "significant"])
    assert int(table["significant"].sum()) == 1


def test_variance_decomposition_recovers_known_components():
    """Synthetic design with known effects: seed contributes nothing, method dominates."""
    rng = np.random.default_rng(1)
    rows = []
    for scenario, s_eff in (("s1", 0.1), ("s2", -0.1)):
        for method, m_eff in (("joint", -0.3), ("separate", 0.3)):
            for seed in range(6):
                rows.append({"scenario": scenario, "method": method, "seed": seed, "shots": 5, "format": "f",
                             "accuracy": 0.5 + s_eff + m_eff + rng.normal(0, 0.01)})
    out = sensitivity.variance_decomposition(pd.DataFrame(rows)).set_index("component")
    # balanced design: SS_method = 24·0.3² = 2.16, SS_scenario = 24·0.1² = 0.24 of a total ≈ 2.40
    assert out.loc["method", "share_of_total"] == pytest.approx(2.16 / 2.40, abs=0.01)
    assert out.loc["scenario", "share_of_total"] == pytest.approx(0.24 / 2.40, abs=0.01)
    assert out.loc["seed", "share_of_total"] < 0.01


def test_seed_spread_and_shot_steps():
    items = np.random.default_rng(2).integers(0, 2, (3, 100))
    runs = [run("m", "s", f"seed {k}", items[k], seed=k) for k in range(3)]
    spread = sensitivity.seed_spread(runs, seed=0, n_resamples=500).iloc[0]
    means = items.mean(axis=1)
    assert spread["range"] == pytest.approx(np.ptp(means)) and spread["sd"] == pytest.approx(means.std(ddof=1))
    # the CI, recomputed with a plain loop over the same resamples of instances (shared by every seed)
    picks = np.random.default_rng(0).integers(0, 100, size=(500, 100))
    columns = items[:, sorted(range(100), key=lambda k: f"i{k}")]  # instances in id order, as the helper aligns them
    loop = [np.var([row[p].mean() for row in columns], ddof=1) for p in picks]
    assert (spread["variance_ci_low"], spread["variance_ci_high"]) == pytest.approx(tuple(np.percentile(loop, [2.5, 97.5])))
    # hand-derived: identical seeds → variance 0 in every resample; all-correct vs all-wrong → exactly 0.5
    same = sensitivity.seed_spread([run("m", "s", f"seed {k}", items[0], seed=k) for k in range(3)], seed=0, n_resamples=200).iloc[0]
    assert same["variance"] == 0 and same["variance_ci_low"] == 0 and same["variance_ci_high"] == 0
    apart = sensitivity.seed_spread([run("m", "s", "a", np.ones(50), seed=0), run("m", "s", "b", np.zeros(50), seed=1)],
                                    seed=0, n_resamples=200).iloc[0]
    assert apart["variance"] == 0.5 and apart["variance_ci_low"] == 0.5 and apart["variance_ci_high"] == 0.5
    zero, one, two = np.zeros(100), np.r_[np.ones(60), np.zeros(40)], np.r_[np.ones(70), np.zeros(30)]
    shot_runs = [run("m", "s", str(k), v, max_train_instances=k) for k, v in ((0, zero), (1, one), (2, two))]
    steps = sensitivity.shot_steps(shot_runs, seed=0, n_resamples=500)
    assert steps["difference"].round(2).tolist() == [0.6, 0.1] and steps["p_first_step_largest"].iloc[0] == 1.0
