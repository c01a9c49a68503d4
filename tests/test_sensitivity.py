"""Prompt-sensitivity statistics on hand-built runs: paired tests (statsmodels' exact McNemar and
multipletests as references), rank reversals, the seed variance component, shot steps, and the
variance decomposition (statsmodels ``anova_lm(typ=2)`` as reference)."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from statsmodels.formula.api import ols
from statsmodels.stats.anova import anova_lm
from statsmodels.stats.contingency_tables import mcnemar
from statsmodels.stats.multitest import multipletests

from helmlite import stats
from helmlite.analyses import sensitivity

from .fakes import make_run

LEVEL = {}


def run(model, scenario, label, values, **adapter):
    out = make_run(model, scenario, values, run_id=f"{model}-{scenario}-{label}", **adapter)
    LEVEL[out.run_id] = label
    return out


def level_of(run):
    return LEVEL[run.run_id]


def exact_mcnemar(a, b):
    """statsmodels' exact McNemar p on the paired 2×2 table."""
    a, b = np.asarray(a, bool), np.asarray(b, bool)
    table = [[np.sum(a & b), np.sum(a & ~b)], [np.sum(~a & b), np.sum(~a & ~b)]]
    return mcnemar(table, exact=True).pvalue


def test_pairwise_tests_are_paired_exact_and_corrected():
    rng = np.random.default_rng(0)
    base = rng.integers(0, 2, 200)
    better = np.where(rng.random(200) < 0.3, 1, base)  # same items, 30% flipped to correct
    runs = [run("m", "s", "a", base), run("m", "s", "b", better), run("m", "s", "c", base)]
    tests = sensitivity.pairwise_tests(runs, level_of, seed=0, n_resamples=1000).set_index(["a", "b"])
    assert tests.loc[("a", "c"), "difference"] == 0 and tests.loc[("a", "c"), "p_value"] == 1.0  # identical runs
    assert tests.loc[("a", "b"), "p_value"] == pytest.approx(exact_mcnemar(base, better))
    assert tests.loc[("a", "b"), "difference"] < 0 and tests.loc[("a", "b"), "significant_holm"]
    np.testing.assert_allclose(tests["p_holm"], multipletests(tests["p_value"], method="holm")[1])
    np.testing.assert_allclose(tests["p_by"], multipletests(tests["p_value"], method="fdr_by")[1])


def test_rank_reversals_count_only_significant_swaps():
    n = 300
    ones, zeros = np.ones(n), np.zeros(n)
    half = np.r_[np.ones(n // 2), np.zeros(n // 2)]
    runs = [run("A", "s", "x", ones), run("B", "s", "x", zeros),  # A ≫ B under config x
            run("A", "s", "y", zeros), run("B", "s", "y", ones),  # B ≫ A under config y: significant reversal
            run("A", "s", "z", half), run("B", "s", "z", half)]   # tie under z
    table = sensitivity.rank_reversals(runs, level_of, ("A", "B"), seed=0, n_resamples=500)
    pair = table.set_index(["config_1", "config_2"])
    assert bool(pair.loc[("x", "y"), "reversal"]) and bool(pair.loc[("x", "y"), "significant"])
    assert int(table["significant"].sum()) == 1


def test_variance_decomposition_matches_statsmodels_type2_anova():
    """Synthetic design with known effects (seed none, method dominant); sums of squares, df, F and p equal
    statsmodels' ``anova_lm(typ=2)`` on the same OLS fit."""
    rng = np.random.default_rng(1)
    rows = []
    for scenario, s_eff in (("s1", 0.1), ("s2", -0.1)):
        for method, m_eff in (("joint", -0.3), ("separate", 0.3)):
            for seed in range(6):
                rows.append({"scenario": scenario, "method": method, "seed": seed, "shots": 5, "format": "f",
                             "accuracy": 0.5 + s_eff + m_eff + rng.normal(0, 0.01)})
    frame = pd.DataFrame(rows)
    out = sensitivity.variance_decomposition(frame).set_index("component")
    assert out.loc["method", "share_of_total"] == pytest.approx(2.16 / 2.40, abs=0.01)  # 24·0.3² of ≈ 24·(0.3² + 0.1²)
    assert out.loc["seed", "share_of_total"] < 0.01
    data = frame.astype({"seed": str})
    reference = anova_lm(ols("accuracy ~ C(scenario) + C(seed) + C(method)", data=data).fit(), typ=2)
    for ours, theirs in (("scenario", "C(scenario)"), ("seed", "C(seed)"), ("method", "C(method)"), ("residual", "Residual")):
        assert out.loc[ours, "sum_sq"] == pytest.approx(reference.loc[theirs, "sum_sq"])
        assert out.loc[ours, "df"] == reference.loc[theirs, "df"]
    for ours, theirs in (("seed", "C(seed)"), ("method", "C(method)")):
        assert out.loc[ours, "F"] == pytest.approx(reference.loc[theirs, "F"])
        assert out.loc[ours, "p_value"] == pytest.approx(reference.loc[theirs, "PR(>F)"])


def test_seed_spread_reports_the_variance_component_and_labels_raw_spread():
    items = np.random.default_rng(2).integers(0, 2, (3, 100))
    runs = [run("m", "s", f"seed {k}", items[k], seed=k) for k in range(3)]
    spread = sensitivity.seed_spread(runs, seed=0, n_resamples=500).iloc[0]
    order = sorted(range(100), key=lambda k: f"i{k}")  # instances aligned by id
    component = stats.seed_variance_component(items[:, order], n_resamples=500, seed=0)
    assert spread["seed_variance"] == pytest.approx(component.estimate)
    assert spread["p_seeds_matter"] == pytest.approx(stats.seeds_matter_test(items[:, order])[0])
    # the SD scale: the square root of the component and of its interval's bounds (clipped at 0); the MDE of
    # Cochran's Q at the mean within-item variance across seeds (computed here with numpy on the raw matrix)
    assert spread["seed_sd"] == pytest.approx(max(component.estimate, 0) ** 0.5)
    assert spread["sd_ci_high"] == pytest.approx(component.ci_high ** 0.5)
    assert spread["mde_sd"] == pytest.approx(stats.mde_seed_sd(100, 3, items.var(axis=0, ddof=1).mean()))
    means = items.mean(axis=1)
    assert spread["raw_range"] == pytest.approx(np.ptp(means)) and spread["raw_sd"] == pytest.approx(means.std(ddof=1))


def test_seed_spread_mde_is_floored_at_one_item_varying():
    """Seeds that agree on every item leave no within-item variance (Cochran's Q has nothing to test): the MDE is
    then that of a design in which one item varies, within variance 1/(n·seeds) = 1/300 — finite, not 0."""
    items = np.tile(np.r_[np.ones(60), np.zeros(40)], (3, 1))
    spread = sensitivity.seed_spread([run("m", "s", f"seed {k}", items[k], seed=k) for k in range(3)],
                                     seed=0, n_resamples=200).iloc[0]
    assert spread["within_item_variance"] == pytest.approx(1 / 300)
    assert spread["mde_sd"] == pytest.approx(stats.mde_seed_sd(100, 3, 1 / 300)) and 0 < spread["mde_sd"] < 0.05


def test_shot_steps_and_first_step_contrasts_hand_derived():
    zero, one, two = np.zeros(100), np.r_[np.ones(60), np.zeros(40)], np.r_[np.ones(70), np.zeros(30)]
    shot_runs = [run("m", "s", str(k), v, max_train_instances=k) for k, v in ((0, zero), (1, one), (2, two))]
    steps = sensitivity.shot_steps(shot_runs, seed=0, n_resamples=500)
    assert steps["difference"].round(2).tolist() == [0.6, 0.1]
    assert steps["p_value"].tolist() == pytest.approx([exact_mcnemar(one, zero), exact_mcnemar(two, one)])
    contrast = sensitivity.first_step_contrasts(shot_runs, seed=0, n_resamples=500).iloc[0]
    assert contrast["difference"] == pytest.approx(0.6 - 0.1) and contrast["ci_low"] > 0


def test_significance_counts_per_study_hand_derived():
    """Per study: pairs tested, raw p < 0.05, Holm and BY survivors, reversals and significant ones — counted by
    hand on a small table (seeds: 3 pairs, p 0.01 / 0.04 / 0.2, Holm keeps 1, BY 0; formats: 1 pair, p 0.5)."""
    tests = pd.DataFrame({"study": ["seeds"] * 3 + ["formats"], "p_value": [0.01, 0.04, 0.2, 0.5],
                          "significant_holm": [True, False, False, False], "significant_by": [False] * 4})
    reversals = pd.DataFrame({"study": ["seeds", "seeds"], "reversal": [True, False], "significant": [False, False]})
    counts = sensitivity.significance_counts(tests, reversals).set_index("study")
    assert counts.loc["seeds", ["pairs", "raw_p_below_05", "holm", "benjamini_yekutieli", "reversals",
                                "significant_reversals"]].tolist() == [3, 2, 1, 0, 1, 0]
    assert counts.loc["formats", ["pairs", "raw_p_below_05", "holm"]].tolist() == [1, 0, 0]
    assert pd.isna(counts.loc["formats", "reversals"])  # no reversal was looked for there (one model)


def test_notes_say_why_a_table_has_no_test():
    """The default config's design: 0 residual degrees of freedom, shots 0 and 1 only."""
    import pandas as pd

    from helmlite.analyses import sensitivity

    decomposition = pd.DataFrame({"component": ["method", "residual"], "df": [1, 0], "model": ["m", "m"]})
    assert sensitivity.variance_note(decomposition).startswith("**No F or p for m:** the design varies one factor")
    assert sensitivity.variance_note(decomposition.assign(df=[1, 3])).startswith("F and p: type-II F tests")
    empty = pd.DataFrame(columns=["model", "scenario", "contrast"])
    assert sensitivity.first_step_note(empty, [1, 0]).startswith(
        "**\"The 0→1 step is the largest\" is not tested in this run:** it compares the 0→1 step with a later one, so it "
        "needs at least three shot counts starting at 0; this config runs 0, 1.")


def test_runs_are_grouped_by_study_and_tested_per_study():
    """What notebook 02 did inline, now in the package: runs grouped by their (study, level) labels with one factor
    table per study (a study without runs: empty), the best level per scenario and model (hand-derived), and each
    study's pairwise tests labelled with the study (the same tests as calling pairwise_tests on its runs)."""
    rng = np.random.default_rng(3)
    base = rng.integers(0, 2, 60)
    runs = [make_run("A", "s", base, run_id="A-joint"), make_run("A", "s", 1 - base, run_id="A-separate"),
            make_run("B", "s", np.ones(60), run_id="B-joint"), make_run("B", "s", np.zeros(60), run_id="B-separate")]
    labels = {r.run_id: [("methods", r.run_id.split("-")[1])] for r in runs}
    studies, tables = sensitivity.runs_by_study(runs, labels, ("seeds", "methods"))
    assert [r.run_id for r in studies["methods"]] == [r.run_id for r in runs] and studies["seeds"] == []
    assert tables["seeds"].empty and list(tables["methods"]["level"]) == ["joint", "separate"] * 2
    best = sensitivity.best_levels(tables["methods"])
    accuracy = base.mean()
    assert best.loc["s", "B"] == "joint" and best.loc["s", "A"] == ("joint" if accuracy >= 1 - accuracy else "separate")
    tests, reversals = sensitivity.study_tests(studies, tables, ["A", "B"], seed=0, n_resamples=200)
    direct = sensitivity.pairwise_tests(studies["methods"], lambda r: r.run_id.split("-")[1], seed=0, n_resamples=200)
    pd.testing.assert_frame_equal(tests.drop(columns="study"), direct)
    assert set(tests["study"]) == {"methods"} and set(reversals["study"]) == {"methods"}


def test_the_summary_answers_how_often_the_models_swap_order():
    """Issue #62: notebook 02's question — how often does "model A beats model B" flip with a prompt choice — is
    answered in the summary from the rank-reversal table (hand-counted: 1 swap of 2 pairs, in the methods study, not
    significant), and a one-model run says the question needs two."""
    reversals = pd.DataFrame({"study": ["seeds", "methods"], "reversal": [False, True], "significant": [False, False]})
    assert sensitivity.reversal_note(reversals) == (
        "**Rank reversals:** the two models swap order in **1 of 2** pairs of prompt choices (methods); **0** of them "
        "with both model differences significant (paired tests, Holm over the configurations).")
    assert "one model" in sensitivity.reversal_note(pd.DataFrame(columns=["study", "reversal", "significant"]))


def test_a_study_the_config_leaves_out_says_where_it_runs():
    """The default leaves the shots and format studies to config/paper.yaml: their figures and tables say so instead
    of failing on an empty table (the factor table keeps its columns)."""
    from helmlite.analyses.sensitivity.studies import FACTOR_COLUMNS

    empty = sensitivity.factor_table([], {}, "formats")
    assert list(empty.columns) == FACTOR_COLUMNS and empty.empty
    figure = sensitivity.figures.by_level(empty, "Accuracy per prompt format", "format",
                                          absent=sensitivity.absent_study_note("formats"))
    assert [t.get_text() for t in figure.axes[0].texts] == [
        "This config runs no formats study: config/paper.yaml runs it\n(four formats)."]
    # the figure's place already says the study is absent (Outputs.figure(absent=…)): the note says what is untested
    assert "this config runs none. config/paper.yaml runs 0, 1, 2, 4, 8 and 16" in sensitivity.first_step_note(pd.DataFrame(), [])
