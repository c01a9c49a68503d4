"""HELMET correlation analyses: scipy agreement, the Fig. 5 / Fig. 3 reproductions (with the mirror), CIs."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy.stats import spearmanr

from helmlite import claims, data
from helmlite._jsonl import DataFormatError
from helmlite.analyses import helmet
from helmlite.analyses.helmet import reference as ref


@pytest.fixture
def results(mirrored_cache):
    return helmet.load_results(data.fetch("helmet/agg_results_128k.csv"))


def synthetic_table(n=40, seed=0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    skill = rng.normal(size=n)
    table = pd.DataFrame({c: skill + rng.normal(scale=s, size=n) for c, s in zip(helmet.CATEGORIES, [0.3, 0.3, 0.6, 0.4, 0.4, 0.5, 2.0])},
                         index=[f"m{i}" for i in range(n)])
    table["Model type"] = helmet.INSTRUCT
    return table


def test_spearman_matrix_equals_scipy():
    table = synthetic_table()
    table["Cite"] = table["Cite"].round(0)  # ties
    ours = helmet.spearman_matrix(table)
    ref_matrix = spearmanr(table[list(helmet.CATEGORIES)]).statistic
    np.testing.assert_allclose(ours.to_numpy(), ref_matrix, atol=1e-12)


def test_fig5_is_reproduced_within_0_01_by_the_right_exclusion(results):
    instruct = results[results["Model type"] == helmet.INSTRUCT]
    published = ref.fig5_matrix()
    assert len(instruct) == 36
    assert helmet.max_abs_difference(helmet.spearman_matrix(instruct, published.index), published) > 0.05
    candidates = helmet.exclusion_candidates(instruct, published)
    excluded, tied, best = helmet.fitted_exclusion(candidates)
    assert excluded == tied["excluded"].iloc[0] and best == candidates["max_abs_diff"].min()
    # the mirror's README: dropping one of three near-all-zero models reproduces the paper within 0.01
    assert set(tied["excluded"]) == {"Llama-2-7B-32k-Inst", "Llama-3-70B-Inst-θ", "Llama-3-8B-Inst"}
    assert tied["max_abs_diff"].max() <= 0.01


def test_fig3_recall_and_rag_rows_within_0_01(results):
    models35 = results[results["Model type"] == helmet.INSTRUCT].drop(index="Llama-2-7B-32k-Inst")
    ours = helmet.synthetic_vs_downstream(models35, ["Recall", "RAG"])
    assert helmet.max_abs_difference(ours, ref.fig3_matrix().loc[["Recall", "RAG"]]) <= 0.01
    # Avg. is the mean of the row: Recall (0.61+0.74+0.85+0.82+0.85)/5 = 0.774 → printed 0.77
    assert ours.loc["Recall", "Avg."] == pytest.approx(ours.loc["Recall", list(helmet.DOWNSTREAM)].mean())


def test_reference_constants_match_the_mirror_transcription(mirror):
    """The cited constants equal the mirror's values read off the paper (a transcription check)."""
    fig5 = pd.read_csv(mirror / "helmet/paper_figures/helmet_fig5_category_spearman.csv")
    matrix = ref.fig5_matrix()
    assert all(matrix.loc[r.row, r.col] == r.spearman_rho for r in fig5.itertuples())
    fig3 = pd.read_csv(mirror / "helmet/paper_figures/helmet_fig3_synthetic_vs_downstream_spearman.csv")
    assert all(ref.fig3_matrix().loc[r.row, r.col] == r.spearman_rho for r in fig3.itertuples())


@pytest.mark.parametrize("mutate,message", [
    (lambda t: t.drop(columns=["Cite"]), r"missing column\(s\) \['Cite'\]"),
    (lambda t: t.assign(**{"Model type": "instruct"}), r"row 2: 'Model type' must be ♯"),
    (lambda t: t.assign(RAG=["n/a"] + list(t["RAG"].iloc[1:])), r"row 2: column 'RAG' must be a number"),
])
def test_load_results_rejects_bad_tables(tmp_path, mutate, message):
    table = synthetic_table(5).reset_index(names="Model")
    path = tmp_path / "agg.csv"
    mutate(table).to_csv(path, index=False)
    with pytest.raises(DataFormatError, match=message):
        helmet.load_results(path)


def test_intervals_cover_the_estimate_and_average_is_row_mean():
    table = synthetic_table(35)
    pairs = helmet.pair_intervals(table, [("Recall", "RAG"), ("Summ", "ICL")], seed=0, n_resamples=500)
    assert ((pairs["ci_low"] <= pairs["rho"]) & (pairs["rho"] <= pairs["ci_high"])).all()
    avg = helmet.average_intervals(table, ["Recall"], seed=0, n_resamples=500).iloc[0]
    assert avg["rho"] == pytest.approx(helmet.synthetic_vs_downstream(table, ["Recall"]).loc["Recall", "Avg."])


def test_predictor_comparison_finds_a_real_gap():
    table = synthetic_table(60, seed=3)
    table["Noisy"] = table["Recall"] + np.random.default_rng(1).normal(scale=3, size=60)
    out = helmet.compare_predictors(table, "Recall", "Noisy", seed=0, n_resamples=500).set_index("target")
    assert out.loc["Avg.", "difference"] > 0 and out.loc["Avg.", "significant"]


def test_predictor_comparison_flag_and_p_come_from_one_method():
    table = synthetic_table(35, seed=4)
    out = helmet.compare_predictors(table, "RAG", "Recall", seed=0, n_resamples=500)
    assert (out["interval"] == "bca").all()  # the interval policy: a mean of Spearman ρ's over 35 models (n >= 20)
    excludes = (out["ci_low"] > 0) | (out["ci_high"] < 0)
    assert (out["significant"] == (out["p_value"] < 0.05)).all() and (out["significant"] == excludes).all()


def test_ci_width_shrinks_with_more_models_and_uses_strict_subsets():
    table = synthetic_table(40)
    widths = helmet.ci_width_by_models(table, {"weak": ("Cite", "ICL")}, [10, 39], subsets=5, seed=0, n_resamples=300)
    assert widths["mean_width"].iloc[0] > widths["mean_width"].iloc[1]
    with pytest.raises(ValueError, match="smaller than the 40 models"):
        helmet.ci_width_by_models(table, {"weak": ("Cite", "ICL")}, [10, 40], subsets=5, seed=0, n_resamples=300)


def test_ci_width_study_is_finite_at_every_size(results):
    """The "how many models" study on the released table at every subset size from 5 to 35: every width is
    finite (a BCa end that is unbounded falls back to the percentile interval, and ``intervals`` counts it)."""
    instruct = results[results["Model type"] == helmet.INSTRUCT]
    widths = helmet.ci_width_by_models(instruct, {"strong": ("RAG", "LongQA"), "weak": ("Cite", "ICL")}, range(5, 36),
                                       subsets=8, seed=0, n_resamples=400)
    values = widths[["mean_width", "p10_width", "p90_width"]].to_numpy()
    assert len(widths) == 62 and np.isfinite(values).all()
    counts = widths["intervals"].str.findall(r": (\d+)").map(lambda k: sum(map(int, k)))
    assert (counts == 8).all()


def test_group_difference_detects_different_structure():
    strong, weak = synthetic_table(40, seed=1), synthetic_table(40, seed=2)
    weak["RAG"] = np.random.default_rng(5).normal(size=40)  # RAG unrelated to the rest in this group
    out = helmet.group_difference({"a": strong, "b": weak}, [("Recall", "RAG"), ("Recall", "Re-rank")], seed=0,
                                  n_resamples=500).set_index("col")
    assert out.loc["RAG", "significant"] and not out.loc["Re-rank", "significant"]
    assert (out["p_holm"] >= out["p_value"]).all()
    # the percentile interval and the p-value come from the same resamples: the flag, p and interval agree
    excludes = (out["ci_low"] > 0) | (out["ci_high"] < 0)
    assert (out["significant"] == (out["p_value"] < 0.05)).all() and (out["significant"] == excludes).all()


def test_weak_connectedness_is_paired_and_the_joint_row_is_an_intersection_union_test():
    table = synthetic_table(40, seed=6)  # ICL has noise sd 2.0, Cite 0.6: both less connected than the rest
    weak = helmet.weak_connectedness(table, seed=0, n_resamples=500).set_index("category")
    assert weak.loc["ICL", "gap"] > weak.loc["Cite", "gap"] > 0
    assert weak.loc["all", "gap"] == weak.loc[["ICL", "Cite"], "gap"].min()
    assert weak.loc["all", "p_value"] == weak.loc[["ICL", "Cite"], "p_value"].max()
    assert weak.loc["all", "ci_low"] == weak.loc[["ICL", "Cite"], "ci_low"].min()
    assert weak.loc["all", "ci_high"] == weak.loc[["ICL", "Cite"], "ci_high"].min()


def test_helmet_claims_on_the_released_table(results):
    """The paired numbers of issue 17: RAG − ICL +0.341, RAG − Cite +0.097 (35 models); the claims table
    follows the schema and its ICL/Cite row names both."""
    models35 = results[results["Model type"] == helmet.INSTRUCT].drop(index="Llama-2-7B-32k-Inst")
    weak = helmet.weak_connectedness(models35, seed=0, n_resamples=1000).set_index("category")
    assert weak.loc["ICL", "top"] == "RAG"
    assert weak.loc["ICL", "gap_to_top"] == pytest.approx(0.341, abs=0.001)
    assert weak.loc["Cite", "gap_to_top"] == pytest.approx(0.097, abs=0.001)
    recall, p = helmet.average_against(models35, "Recall", 0.8, seed=0, n_resamples=1000)
    assert recall.estimate == pytest.approx(0.775, abs=0.001) and recall.ci_low < 0.8 < recall.ci_high and p > 0.05
    claim_list = helmet.paper_claims(recall, p, helmet.compare_predictors(models35, "RAG", "Recall", seed=0, n_resamples=1000),
                                     weak.reset_index())
    table = claims.claims_table(claim_list)
    claims.check_claims_table(table)
    icl_cite = table.iloc[2]
    assert "ICL" in icl_cite["claim"] and "Cite" in icl_cite["claim"] and icl_cite["correction"] == "holm over 3 claims (family 'published correlations')"
    assert table.iloc[0]["null"] == 0.8 and table.iloc[0]["direction"] == "less"
    power = helmet.power_table(claim_list, table)
    assert (power["n"] == 35).all() and (power["n_needed"] > 35).all()


def test_printed_as_the_paper_prints():
    assert helmet.printed(0.775073) == "0.78" and helmet.printed(0.713955) == "0.71" and helmet.printed(0.775) == "0.78"
    correlations = pd.DataFrame({"figure": ["fig5", "fig3"], "row": ["RAG", "Recall"], "col": ["Cite", "Avg."],
                                 "published": [0.72, 0.77], "ours": [0.713955, 0.775073], "ci_low": [0.4, 0.6],
                                 "ci_high": [0.9, 0.9]})
    table = helmet.reproduction_table(correlations, ref.fig3_matrix()).set_index("quantity")
    assert table.loc["fig5:RAG~Cite", "verdict"] == "reproduced"
    assert table.loc["fig5:RAG~Cite", "note"] == "tolerance 0.01; prints 0.71 where the paper prints 0.72"
    assert not helmet.printed_cells(correlations)["same"].any()


def test_correlation_by_length_and_change():
    rng = np.random.default_rng(0)
    columns = pd.MultiIndex.from_product([["8K", "128K"], list(helmet.CATEGORIES)])
    skill = rng.normal(size=30)
    values = {("8K", c): skill + rng.normal(scale=0.2, size=30) for c in helmet.CATEGORIES}
    values.update({("128K", c): rng.normal(size=30) for c in helmet.CATEGORIES})  # structure lost at 128K
    wide = pd.DataFrame(values)[columns]
    summary, pairs = helmet.correlation_by_length(wide, ["8K", "128K"], seed=0, n_resamples=300)
    change = summary.set_index("length").loc["128K − 8K"]
    assert change["ci_high"] < 0 and len(pairs) == 2 * 21


def test_reproduction_rows_name_cells_and_flag_unreproducible_rows():
    correlations = pd.DataFrame({"figure": ["fig5", "fig3"], "row": ["RAG", "RAG"], "col": ["ICL", "ICL"],
                                 "published": [0.5, 0.5], "ours": [0.502, 0.53], "ci_low": [0.1, 0.1], "ci_high": [0.8, 0.8]})
    table = helmet.reproduction_table(correlations, ref.fig3_matrix()).set_index("quantity")
    assert table.loc["fig5:RAG~ICL", "verdict"] == "reproduced" and "prints 0.50 as the paper" in table.loc["fig5:RAG~ICL", "note"]
    assert table.loc["fig3:RAG~ICL", "verdict"] == "consistent"  # 0.03 off, the published 0.5 inside [0.1, 0.8]
    assert table.loc["fig3:NIAH~ICL", "verdict"] == "not comparable"
    assert table.loc["fig3:NIAH~ICL", "note"].startswith("not reproducible offline")
    assert np.isnan(table.loc["fig3:NIAH~ICL", "ours"])


def test_fig8_statements_on_the_printed_values(mirrored_cache):
    """Hand-derived from the paper's Fig. 8 (mirror): the largest synthetic Avg. is RULER HotpotQA's 0.78, so no
    synthetic row averages above 0.8; of 4 RAG × 14 synthetic datasets, HotpotQA (0.73) is above 8 (NIAH .68,
    S Repeat .66, S UUID .67, MK Essay .71, CWE .67, FWE .63, VT .55, JSON KV .72), PopQA (0.78) ties RULER
    HotpotQA, TriviaQA (0.77) is below it, NQ (0.80) is above all 14: 14 + 8 + 13 + 13 = 48 of 56."""
    fig8 = helmet.dataset_statements.load_fig8(data.fetch(helmet.dataset_statements.FIG8))
    pairs = helmet.dataset_statements.rag_vs_synthetic(fig8).set_index("rag_dataset")
    assert pairs["synthetic_datasets"].eq(14).all()
    assert pairs[["above", "tied", "below"]].to_dict("index") == {
        "NQ": {"above": 14, "tied": 0, "below": 0}, "HotpotQA": {"above": 8, "tied": 0, "below": 6},
        "PopQA": {"above": 13, "tied": 1, "below": 0}, "TriviaQA": {"above": 13, "tied": 0, "below": 1}}
    table = helmet.dataset_statements.statements(fig8)
    assert table["true_of_printed_values"].tolist() == [True, False]
    assert "largest: RULER HotpotQA 0.78" in table["detail"].iloc[0] and "48 of 56" in table["detail"].iloc[1]
    averages = helmet.dataset_statements.synthetic_average_check(fig8)
    assert len(averages) == 16 and set(averages.loc[averages["aggregate"], "row"]) == {"RULER", "Recall"}


def test_recall_average_has_one_interval_in_the_correlations_and_the_claims():
    """The Avg. row of the correlations table and the Recall-vs-0.8 claim are the same quantity: same interval
    (BCa over ≥ 20 models), and the claim's p-value is that procedure's (the interval of Avg. − 0.8 is the
    Avg.'s shifted by 0.8: it excludes 0.8 exactly when p < 0.05)."""
    table = synthetic_table(35, seed=3)
    row = helmet.average_intervals(table, ["Recall"], seed=0, n_resamples=500).iloc[0]
    est, p = helmet.average_against(table, "Recall", 0.8, seed=0, n_resamples=500)
    assert (row["ci_low"], row["ci_high"]) == pytest.approx((est.ci_low, est.ci_high), abs=1e-12)
    assert row["interval"] == est.method
    assert est.method == "bca" and (p < 0.05) == (not est.ci_low <= 0.8 <= est.ci_high)


def test_a_mirror_only_table_absent_gives_empty_tables_with_their_columns():
    """Fig. 6 and Fig. 8 are mirror-only: without the file the package returns what the notebook shows (empty tables
    with their columns, the figure's note), not the notebook typing the columns by hand."""
    summary, pairs = helmet.by_length_from(None, ["8K", "128K"], seed=0, n_resamples=10)
    assert summary.empty and list(summary.columns) == helmet.correlations.BY_LENGTH_COLUMNS and pairs is None
    fig8, statements, rag_pairs = helmet.dataset_statements.checked(None)
    assert fig8 is None and statements.empty and rag_pairs.empty
    assert list(statements.columns) == ["statement", "compared", "true_of_printed_values", "detail"]
    assert helmet.figures.by_length(summary, pairs).axes[0].texts  # the note, not an empty axis
