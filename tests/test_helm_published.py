"""HELM's published leaderboard: v0.4.0's win-rate rules on hand-built tables (hand-derived win rates), every
table layout the loader reads, coverage warnings, clear errors, and the recomputation of the real v0.4.0 table."""
from __future__ import annotations

import json
import re

import numpy as np
import pandas as pd
import pytest

from helmlite import data
from helmlite import leaderboards as leaderboard
from helmlite.leaderboards import helm_rules, winrates
from helmlite.analyses.helm_core import published as pub
from helmlite.analyses.helm_core import reproduction as helm_reproduction
from helmlite.errors import DataError, UserError

MIRROR_CSV = "helm/results/helm_classic_v0.4.0_core_scenarios_all_metrics.csv"


def tidy(rows, **extra):
    frame = pd.DataFrame(rows)
    for column, value in extra.items():
        frame[column] = value
    return frame


def cells(group, table: dict, directions: dict, **flags):
    """{model: {scenario: value}} → tidy rows; ``flags`` maps a column name to {(model, scenario): value}."""
    rows = []
    for model, by_scenario in table.items():
        for scenario, value in by_scenario.items():
            metric, _ = directions[scenario]
            row = {"model": model, "group": group, "scenario": scenario, "metric": metric, "value": value,
                   "lower_is_better": directions[scenario][1]}
            for name, marked in flags.items():
                row[name] = marked.get((model, scenario), False)
            rows.append(row)
    return pd.DataFrame(rows)


# ------------------------------------------------------------------------------------------- the tie rules

# (values, lower_is_better, v0.4.0 win rates, half-credit win rates); rows are in table order 0, 1, 2, ...
TIE_CASES = [
    # higher is better, b and c tied: v0.4.0 sorts (value, row) ascending, so the later row (c) gets the win
    ([0.9, 0.5, 0.5, np.nan], False, [1.0, 0.0, 0.5, np.nan], [1.0, 0.25, 0.25, np.nan]),
    # lower is better, a and b tied: sorted(..., reverse=True) puts the later row first, so the earlier row wins
    ([1.0, 1.0, 3.0], True, [1.0, 0.5, 0.0], [0.75, 0.75, 0.0]),
    # three-way tie: positions 0, 1, 2 in row order vs all sharing the average position
    ([0.7, 0.7, 0.7], False, [0.0, 0.5, 1.0], [0.5, 0.5, 0.5]),
    # no ties: both rules agree
    ([0.1, 0.3, 0.2], False, [0.0, 1.0, 0.5], [0.0, 1.0, 0.5]),
]


@pytest.mark.parametrize("values, lower, v040, half", TIE_CASES)
def test_tie_rules_hand_derived(values, lower, v040, half):
    table = pd.DataFrame({("S", "m"): values})
    np.testing.assert_allclose(pub.win_rate_matrix(table, {("S", "m"): lower}, "v0.4.0")[("S", "m")], v040)
    np.testing.assert_allclose(pub.win_rate_matrix(table, {("S", "m"): lower}, "half")[("S", "m")], half)


def test_v040_tie_break_follows_the_given_row_order():
    table = pd.DataFrame({("S", "m"): [0.5, 0.5]}, index=["a", "b"])
    # a is later in HELM's order (row 1), so under higher-is-better it gets the win
    assert pub.win_rate_matrix(table, {("S", "m"): False}, "v0.4.0", rows=[1, 0])[("S", "m")].tolist() == [1.0, 0.0]


def test_tie_range_hand_derived():
    # higher is better: a=0.9 beats 2; b, c tied at 0.5 beat nobody but may beat each other
    table = pd.DataFrame({("S", "m"): [0.9, 0.5, 0.5, np.nan]}, index=list("abcd"))
    low, high = winrates.tie_ranges(table, {("S", "m"): False})
    np.testing.assert_allclose(low[("S", "m")], [1.0, 0.0, 0.0, np.nan])
    np.testing.assert_allclose(high[("S", "m")], [1.0, 0.5, 0.5, np.nan])


def test_unknown_tie_rule_is_a_user_error():
    with pytest.raises(UserError, match="tie_rule must be one of"):
        pub.win_rate_matrix(pd.DataFrame({("S", "m"): [1.0, 2.0]}), {("S", "m"): False}, "thirds")


def test_win_rates_missing_values_lower_is_better_and_single_value_columns():
    table = pd.DataFrame({("S1", "EM"): [0.9, 0.5, 0.4, np.nan], ("S2", "time"): [1.0, 2.0, 3.0, 4.0],
                          ("S3", "EM"): [np.nan, np.nan, 0.7, np.nan]}, index=["a", "b", "c", "d"])
    w = pub.win_rate_matrix(table, {("S1", "EM"): False, ("S2", "time"): True, ("S3", "EM"): False})
    assert ("S3", "EM") not in w.columns  # fewer than two values: skipped
    np.testing.assert_allclose(w[("S2", "time")], [1, 2 / 3, 1 / 3, 0])
    np.testing.assert_allclose(w.mean(axis=1), [1.0, (0.5 + 2 / 3) / 2, (0 + 1 / 3) / 2, 0.0])
    assert pub.win_rate_matrix(table, {}).shape[1] == 0  # no directions: nothing ranked


# ------------------------------------------------------------------------------------------- HELM's cell rules

def test_strongly_contaminated_cell_is_skipped():
    directions = {"S1": ("EM", False), "S2": ("EM", False)}
    frame = cells("Accuracy", {"x": {"S1": 0.9, "S2": 0.1}, "y": {"S1": 0.5, "S2": 0.5}, "z": {"S1": 0.1, "S2": 0.9}},
                  directions, contaminated={("x", "S1"): True})
    rates = pub.mean_win_rates(frame, "Accuracy")
    # S1 without x: y beats z (y 1, z 0); S2: z 1, y 0.5, x 0 → x 0 (only S2), y (1 + 0.5)/2, z (0 + 1)/2
    assert rates.to_dict() == pytest.approx({"x": 0.0, "y": 0.75, "z": 0.5})
    ignored = pub.mean_win_rates(frame.assign(contaminated=False), "Accuracy")
    assert ignored["x"] == pytest.approx(0.5)  # (1 + 0)/2 when the cell counts
    # HELM v0.5.0 and later rank contaminated cells (the "half" rule, v0.5.4+, does too): the same as ignoring the flag (no ties here)
    assert pub.mean_win_rates(frame, "Accuracy", tie_rule="half").to_dict() == pytest.approx(ignored.to_dict())


def test_contamination_mark_and_helm_list_flag_cells(tmp_path):
    path = tmp_path / "long.csv"
    pd.DataFrame({"model": ["m", "T0pp (11B)", "m"], "scenario": ["QuAC", "HellaSwag", "BoolQ"], "metric": ["F1", "EM", "EM"],
                  "score": [0.3, 0.5, 0.6], "stats_description": ["min=0.3, mean=0.3, max=0.3, sum=0.3 (1)", "",
                                                                  "mean=0.6 (1)\n☠ trained on it"]}).to_csv(path, index=False)
    frame = leaderboard.load_leaderboard(path)
    assert frame.set_index(["model", "scenario"])["contaminated"].to_dict() == {
        ("m", "QuAC"): False, ("T0pp (11B)", "HellaSwag"): True, ("m", "BoolQ"): True}


def test_hidden_logprob_issue_values_are_not_ranked():
    directions = {"S1": ("ECE (10-bin)", True), "S2": ("ECE (10-bin)", True)}
    frame = cells("Calibration", {"LLaMA (7B)": {"S1": 0.01, "S2": 0.01}, "a": {"S1": 0.2, "S2": 0.1},
                                  "b": {"S1": 0.3, "S2": 0.3}}, directions)
    rates = pub.mean_win_rates(frame, "Calibration")
    assert np.isnan(rates["LLaMA (7B)"])  # HELM shows no calibration win rate for it
    assert rates[["a", "b"]].tolist() == [1.0, 0.0]  # ranked among the two shown values
    shown = pub.mean_win_rates(frame, "Calibration", hide_logprob_issues=False)
    assert shown.tolist() == [1.0, 0.5, 0.0]
    assert helm_rules.is_hidden("Anthropic-LM v4-s3 (52B)", "RR@10 (Robustness)")
    assert not helm_rules.is_hidden("Anthropic-LM v4-s3 (52B)", "EM")


def test_metric_directions_come_from_helm_rules(tmp_path):
    path = tmp_path / "summ.csv"  # the table claims every metric is higher-is-better, as the mirror's CSV does
    pd.DataFrame({"model": ["a", "b", "a", "b", "a", "b"], "tab": "Summarization metrics",
                  "scenario": ["XSUM"] * 6, "metric": ["Coverage", "Coverage", "SummaC", "SummaC", "Toxic fraction", "Toxic fraction"],
                  "score": [0.9, 0.5, 0.1, 0.2, 0.3, 0.1], "lower_is_better": False}).to_csv(path, index=False)
    frame = leaderboard.load_leaderboard(path)
    directions = frame.drop_duplicates("metric").set_index("metric")["lower_is_better"].to_dict()
    assert directions == {"Coverage": None, "SummaC": False, "Toxic fraction": True}
    # Coverage not ranked; SummaC: b wins; toxic fraction (lower is better): b wins → a 0, b 1
    assert pub.mean_win_rates(frame, "Summarization metrics").to_dict() == {"a": 0.0, "b": 1.0}


# -------------------------------------------------------------------------------------------- table layouts

def write_long(path, scores, column="score", percent_strings=False):
    rows = []
    for model, by_scenario in scores.items():
        for scenario, value in by_scenario.items():
            rows.append({"model": model, "benchmark": scenario, "metric_name": "acc",
                         column: f"{value}%" if percent_strings else value, "lower_is_better": "false"})
    pd.DataFrame(rows).to_csv(path, index=False)
    return path


FRACTIONS = {"a": {"S1": 0.8, "S2": 0.6, "S3": 0.7}, "b": {"S1": 0.5, "S2": 0.9, "S3": 0.2},
             "c": {"S1": 0.1, "S2": 0.3, "S3": 0.4}}


@pytest.mark.parametrize("column, factor, strings", [("score", 1, False), ("score", 100, False),
                                                     ("score_pct", 100, False), ("value", 100, True)])
def test_long_format_in_percent_or_fractions(tmp_path, column, factor, strings):
    scores = {m: {s: round(v * factor, 6) for s, v in by.items()} for m, by in FRACTIONS.items()}
    path = write_long(tmp_path / "board.csv", scores, column, strings)
    frame = leaderboard.load_leaderboard(path)
    assert frame["value"].max() <= 1.0 and frame["value"].min() == pytest.approx(0.1)
    assert len(frame.attrs["percent_columns"]) == (0 if factor == 1 else 3)
    table = winrates.winrates_table(path, n_resamples=200, seed=3)
    assert list(table.columns[:5]) == ["model", "mean_win_rate", "ci_low", "ci_high", "scenarios"]
    # hand-derived: S1 a>b>c, S2 b>a>c, S3 a>c>b → a (1 + .5 + 1)/3, b (.5 + 1 + 0)/3, c (0 + 0 + .5)/3
    assert table.set_index("model")["mean_win_rate"].to_dict() == pytest.approx({"a": 2.5 / 3, "b": 0.5, "c": 0.5 / 3})
    assert table["scenarios"].tolist() == [3, 3, 3]


def test_percent_detection_leaves_other_scales_alone(tmp_path):
    path = tmp_path / "eff.csv"
    pd.DataFrame({"model": ["a", "b"], "scenario": "MMLU", "metric": "Denoised inference time (s)",
                  "score": [2.5, 7.0]}).to_csv(path, index=False)
    frame = leaderboard.load_leaderboard(path, group="Efficiency")
    assert frame["value"].tolist() == [2.5, 7.0] and frame.attrs["percent_columns"] == []
    assert pub.mean_win_rates(frame, "Efficiency").to_dict() == {"a": 1.0, "b": 0.0}


def test_json_wide_and_long_layouts_give_the_same_frame(tmp_path):
    header = [{"value": "Model/adapter"}, {"value": "Mean win rate", "lower_is_better": False},
              {"value": "MMLU - EM", "lower_is_better": False, "metadata": {"metric": "EM", "run_group": "MMLU"}},
              {"value": "BoolQ - EM", "lower_is_better": False, "metadata": {"metric": "EM", "run_group": "BoolQ"}}]
    rows = [[{"value": "m1"}, {"value": 1.0}, {"value": 0.6}, {"value": 0.7}],
            [{"value": "m2"}, {"value": 0.0}, {"value": 0.4}, {"value": 0.5}]]
    json_path = tmp_path / "core_scenarios.json"
    json_path.write_text(json.dumps([{"title": "Accuracy", "header": header, "rows": rows}]))
    wide_path = tmp_path / "wide.csv"
    pd.DataFrame({"Model/adapter": ["m1", "m2"], "Mean win rate": [1.0, 0.0], "MMLU - EM": [0.6, 0.4],
                  "BoolQ - EM": [0.7, 0.5]}).to_csv(wide_path, index=False)
    long_path = tmp_path / "flat.csv"
    pd.DataFrame({"model": ["m1"] * 3 + ["m2"] * 3, "tab": "Accuracy", "scenario": ["(aggregate)", "MMLU", "BoolQ"] * 2,
                  "metric": ["Mean win rate", "EM", "EM"] * 2, "score": [1.0, 0.6, 0.7, 0.0, 0.4, 0.5],
                  "lower_is_better": False}).to_csv(long_path, index=False)
    key = ["model", "scenario", "metric"]
    frames = [leaderboard.load_leaderboard(p).sort_values(key).reset_index(drop=True)[leaderboard.COLUMNS]
              for p in (json_path, wide_path, long_path)]
    for other in frames[1:]:
        pd.testing.assert_frame_equal(frames[0], other, check_dtype=False)
    assert pub.mean_win_rates(frames[0], "Accuracy").to_dict() == {"m1": 1.0, "m2": 0.0}


def test_json_hidden_and_contaminated_cells(tmp_path):
    header = [{"value": "Model/adapter"}, {"value": "BoolQ - EM", "lower_is_better": False,
                                            "metadata": {"metric": "EM", "run_group": "BoolQ"}},
              {"value": "IMDB - EM", "lower_is_better": False, "metadata": {"metric": "EM", "run_group": "IMDB"}}]
    rows = [[{"value": "x"}, {"value": 0.99, "contamination_level": "strong"}, {"value": 0.2}],
            [{"value": "y"}, {"description": "hidden"}, {"value": 0.5}],  # HELM writes no value for a hidden cell
            [{"value": "z"}, {"value": 0.3}, {"value": 0.9}]]
    path = tmp_path / "t.json"
    path.write_text(json.dumps({"title": "Accuracy", "header": header, "rows": rows}))
    frame = leaderboard.load_leaderboard(path)
    assert frame["contaminated"].sum() == 1 and frame["value"].isna().sum() == 1
    # BoolQ: only z left (one value: skipped); IMDB: z > y > x
    assert pub.mean_win_rates(frame, "Accuracy").to_dict() == {"x": 0.0, "y": 0.5, "z": 1.0}


def test_json_ties_are_broken_by_each_tables_own_row_order(tmp_path):
    header = [{"value": "Model/adapter"}, {"value": "MMLU - EM", "lower_is_better": False,
                                            "metadata": {"metric": "EM", "run_group": "MMLU"}}]
    tables = [{"title": "Accuracy", "header": header, "rows": [[{"value": "m1"}, {"value": 0.5}], [{"value": "m2"}, {"value": 0.5}]]},
              {"title": "Robustness", "header": header, "rows": [[{"value": "m2"}, {"value": 0.5}], [{"value": "m1"}, {"value": 0.5}]]}]
    path = tmp_path / "t.json"
    path.write_text(json.dumps(tables))
    frame = leaderboard.load_leaderboard(path)
    # v0.4.0, higher is better: the later row of the tie gets the win
    assert pub.mean_win_rates(frame, "Accuracy").to_dict() == {"m1": 0.0, "m2": 1.0}
    assert pub.mean_win_rates(frame, "Robustness").to_dict() == {"m2": 0.0, "m1": 1.0}
    assert pub.mean_win_rates(frame, "Accuracy", tie_rule="half").to_dict() == {"m1": 0.5, "m2": 0.5}


def test_precise_value_from_the_cell_statistics(tmp_path):
    path = tmp_path / "p.csv"
    pd.DataFrame({"model": ["a", "b"], "scenario": "MMLU", "metric": "EM", "score": [0.385, 0.385],
                  "stats_description": ["min=0.263, mean=0.385, max=0.6, sum=1.923 (5)",
                                        "min=0.3, mean=0.385, max=0.5, sum=1.927 (5)"]}).to_csv(path, index=False)
    frame = leaderboard.load_leaderboard(path)
    assert frame["precise"].tolist() == pytest.approx([1.923 / 5, 1.927 / 5])
    assert pub.mean_win_rates(frame, "Accuracy").to_dict() == {"a": 0.0, "b": 1.0}  # the tie is resolved


MALFORMED = [
    ("foo,bar\n1,2\n", ["found columns ['foo', 'bar']", "expected HELM JSON"]),
    ("model,scenario,metric,score\na,S,EM,high\n", ["'score'", "not numbers", "'high'"]),
    ("model,scenario,metric,score\na,S,mystery,0.5\nb,S,mystery,0.4\n", ["['mystery']", "lower_is_better"]),
    ("Model,MMLU,BoolQ\na,0.5,0.6\n", ["['MMLU', 'BoolQ'] name no metric", "'<scenario> - <metric>'"]),
    ("model,scenario,metric,score\n", ["no numeric scores"]),
    ("model,scenario,metric,score,subject\na,MMLU,EM,0.5,law\na,MMLU,EM,0.7,math\n",
     ["2 rows repeat", "('a', 'Accuracy', 'MMLU', 'EM')"]),
]


@pytest.mark.parametrize("text, fragments", MALFORMED)
def test_malformed_tables_stop_with_one_clear_error(tmp_path, text, fragments):
    path = tmp_path / "bad.csv"
    path.write_text(text)
    with pytest.raises(leaderboard.LeaderboardFormatError) as error:
        leaderboard.load_leaderboard(path)
    assert isinstance(error.value, DataError) and str(path) in str(error.value)
    for fragment in fragments:
        assert fragment in str(error.value)


def test_malformed_json_names_the_keys(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps([{"name": "x", "cells": []}]))
    with pytest.raises(DataError, match=r"found \['cells', 'name'\]; expected keys 'title', 'header', 'rows'"):
        leaderboard.load_leaderboard(path)


def test_unknown_group_or_scenario_lists_what_the_table_has(tmp_path):
    path = write_long(tmp_path / "b.csv", FRACTIONS)
    grouped = tmp_path / "grouped.csv"
    pd.read_csv(path).assign(tab="Accuracy").to_csv(grouped, index=False)
    with pytest.raises(UserError, match=r"no metric group 'Bias'; the table has \['Accuracy'\]"):
        winrates.winrates_table(grouped, group="Bias")
    # a table without a group column is one group, named by the caller
    assert set(leaderboard.load_leaderboard(path, group="Bias")["group"]) == {"Bias"}
    with pytest.raises(UserError, match=r"\['S9'\] not in group 'Accuracy'; the table has \['S1', 'S2', 'S3'\]"):
        winrates.winrates_table(path, scenarios=["S1", "S9"])


def test_coverage_warning_and_scenario_subset(tmp_path):
    scores = {m: {f"S{k}": v + k / 100 for k in range(10)} for m, v in (("a", 0.5), ("b", 0.3))}
    scores["sparse"] = {"S0": 0.9}
    path = write_long(tmp_path / "c.csv", scores)
    table = winrates.winrates_table(path, n_resamples=200, seed=0).set_index("model")
    assert table.loc["sparse", "scenarios"] == 1 and table.loc["sparse", "mean_win_rate"] == 1.0
    assert table.loc["sparse", "coverage_warning"] == "only 1 of the 10 scenarios of the best-covered model"
    assert table.loc["a", "coverage_warning"] == "" and np.isnan(table.loc["sparse", "ci_low"])  # one cluster: no CI
    assert table.loc["a", "mean_win_rate"] == pytest.approx((0.5 + 9 * 1.0) / 10)
    subset = winrates.winrates_table(path, scenarios="S1, S2", n_resamples=200, seed=0).set_index("model")
    assert subset["scenarios"].to_dict() == {"a": 2, "b": 2, "sparse": 0}
    assert subset.loc["sparse", "coverage_warning"] == "no ranked score in this group"


def test_winrates_csv_and_seeded_ci(tmp_path, capsys):
    from helmlite import cli

    scores = {m: {f"S{k}": (k * 7 + j * 3) % 11 / 10 for k in range(12)} for j, m in enumerate("abcd")}
    path = write_long(tmp_path / "w.csv", scores)
    texts = []
    for _ in range(2):
        assert cli.main(["leaderboard", "winrates", "--table", str(path), "--n-resamples", "300", "--bootstrap-seed", "5"]) == 0
        texts.append(capsys.readouterr().out)
    assert texts[0].splitlines()[0] == "model,mean_win_rate,ci_low,ci_high,scenarios,coverage_warning"
    assert len(texts[0].splitlines()) == 5 and texts[0] == texts[1]
    table = winrates.winrates_table(path, n_resamples=300, seed=5)
    assert ((table["ci_low"] <= table["mean_win_rate"]) & (table["mean_win_rate"] <= table["ci_high"])).all()
    assert table["mean_win_rate"].is_monotonic_decreasing


def test_win_rate_intervals_and_ties():
    rows = []
    for s in range(12):  # "strong" and "close" alternate wins; "weak" always loses
        for m, value in (("strong", 0.9 if s % 2 else 0.8), ("close", 0.8 if s % 2 else 0.9), ("weak", 0.1)):
            rows.append({"model": m, "group": "Accuracy", "scenario": f"S{s}", "metric": "EM", "value": value,
                         "lower_is_better": False})
    out = pub.win_rate_intervals(pd.DataFrame(rows), "Accuracy", seed=0, n_resamples=500)
    assert list(out["model"])[-1] == "weak" and list(out["win_rate"]) == [0.75, 0.75, 0.0]
    first, second = out["model"][0], out["model"][1]
    assert bool(out.set_index("model").loc[first, "tied_with_next"]) is True  # alternating winners: not separable
    assert bool(out.set_index("model").loc[second, "tied_with_next"]) is False  # vs the always-losing model: separated


def test_empty_results_are_errors_not_empty_frames():
    frame = cells("Accuracy", {"a": {"S": 0.5}, "b": {"S": 0.4}}, {"S": ("EM", False)})
    with pytest.raises(DataError, match="group 'Accuracy' has no published 'Mean win rate' column"):
        helm_reproduction.win_rate_comparison(frame, ["Accuracy"])
    with pytest.raises(DataError, match="no scenario has accuracy and another group's metric"):
        pub.metric_relationships(frame, seed=0, n_resamples=50)
    unranked = cells("Summarization metrics", {"a": {"S": 0.5}, "b": {"S": 0.4}}, {"S": ("Density", None)})
    with pytest.raises(UserError, match="no metric with a direction to rank"):
        pub.mean_win_rates(unranked, "Summarization metrics")


def test_kendall_tau_b_matches_scipy():
    from scipy.stats import kendalltau
    rng = np.random.default_rng(0)
    x, y = rng.integers(0, 5, 30).astype(float), rng.integers(0, 5, 30).astype(float)
    assert winrates.kendall_tau_b(x, y) == pytest.approx(kendalltau(x, y).statistic)


# ------------------------------------------------------------------------------------------ the real table

def test_published_leaderboard_recomputed_with_helm_rules(mirrored_cache):
    frame = pub.load_published(data.fetch(MIRROR_CSV))
    groups = ["Accuracy", "Calibration", "Robustness", "Fairness", "Efficiency", "Summarization metrics", "Bias", "Toxicity"]
    rows, summary = helm_reproduction.win_rate_comparison(frame, groups)
    summary = summary.set_index("group")
    assert rows[rows.group == "Accuracy"]["model"].nunique() == 67 and set(pub.PAPER_MODELS) <= set(frame["model"])
    for group, target in pub.REPRODUCTION_TARGETS.items():
        if group in summary.index:
            assert summary.loc[group, "max_abs_diff"] <= target, group
            assert summary.loc[group, "verdict"] == "reproduced"
    for group in ("Bias", "Toxicity"):  # every published value inside the range tie-breaking allows
        assert summary.loc[group, "within_tie_range"] == summary.loc[group, "models"]
        assert summary.loc[group, "verdict"] == "consistent" and "tie range" in summary.loc[group, "note"]
    assert rows["within_tie_range"].all()
    t0pp = rows[(rows.model == "T0pp (11B)") & (rows.group == "Accuracy")].iloc[0]
    assert t0pp.abs_diff <= 0.003  # its contaminated cells skipped
    assert summary.loc["Calibration", "skipped_hidden"] > 0 and summary.loc["Summarization metrics", "unranked_columns"] == 6
    text = helm_reproduction.explain_gaps(summary.reset_index())
    assert "consistent within rounding" in text and "ties count half" not in text


def test_winrates_table_on_the_mirror(mirrored_cache):
    path = data.fetch(MIRROR_CSV)
    table = winrates.winrates_table(path, group="Accuracy", n_resamples=500, seed=1)
    assert len(table) == 67 and table.iloc[0]["model"] == "Llama 2 (70B)"
    comparison, _ = helm_reproduction.win_rate_comparison(pub.load_published(path), ["Accuracy"])
    ours = comparison.set_index("model")["ours"]
    assert table.set_index("model")["mean_win_rate"].to_dict() == pytest.approx(ours.to_dict())


def test_priorities_from_run_specs(mirrored_cache):
    priorities = pub.scenario_priorities(data.fetch("helm/resources/presentation_v0.1.0/run_specs.conf"))
    assert len(priorities) == 16 and priorities["BoolQ"] == 1 and priorities["MMLU"] == 2 and priorities["RAFT"] == 2


def test_budget_analyses_on_the_mirror(mirrored_cache):
    frame = pub.load_published(data.fetch(MIRROR_CSV))
    named = pub.subset_ranking_agreement(frame, {"all": leaderboard.scenarios(frame, "Accuracy"), "two": ["MMLU", "BoolQ"]},
                                         seed=0, n_resamples=100)
    assert named.set_index("subset").loc["all", "kendall_tau"] == pytest.approx(1.0)
    assert named.set_index("subset").loc["all", "note"] == "all 16 scenarios: the full ranking itself, tau = 1 by construction"
    assert named.set_index("subset").loc["two", "note"] == ""
    low, tau, high = named.set_index("subset").loc["two", ["ci_low", "kendall_tau", "ci_high"]]
    assert 0 < low <= tau <= high < 1
    curve = pub.random_subset_curve(frame, seed=0, draws=50)
    assert len(curve) == 16 and curve["mean_tau"].iloc[-1] == pytest.approx(1.0)
    assert curve["mean_tau"].iloc[0] < curve["mean_tau"].iloc[8] < curve["mean_tau"].iloc[-1]


def test_a_leaderboard_cut_mid_row_is_refused_with_one_line(tmp_path, capsys):
    """A long-format table cut in the middle of its last row (pandas would pad it with empty cells and rank
    the rest): `helmlite leaderboard winrates` exits 2 naming the file, the line and the cut."""
    from helmlite import cli

    path = write_long(tmp_path / "board.csv", FRACTIONS, "score", False)
    text = path.read_text()
    path.write_text(text[: text.rstrip("\n").rfind(",")])  # drop the last row's final field
    with pytest.raises(ValueError, match="line .* has .* fields, the header .* the file looks cut short"):
        leaderboard.load_leaderboard(path)
    assert cli.main(["leaderboard", "winrates", "--table", str(path)]) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and str(path) in err


@pytest.mark.parametrize("cut", ["", "0.", "-", "1e-"])
def test_a_leaderboard_cut_inside_its_last_field_is_refused(tmp_path, capsys, cut):
    """Cut inside the last row's last number (same field count, no final newline: "…,0.7," or "…,0."), the
    table is refused in one line; the same file complete but without its final newline is read."""
    from helmlite import cli

    path = write_long(tmp_path / "board.csv", FRACTIONS, "score", False)
    text = path.read_text().rstrip("\n")
    path.write_text(text)  # complete, no final newline: fine
    assert len(leaderboard.load_leaderboard(path))
    path.write_text(text[: text.rfind(",") + 1] + cut)
    assert cli.main(["leaderboard", "winrates", "--table", str(path)]) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and "looks cut short inside its last row" in err and str(path) in err


def _flattened_board(path, names):
    """The common flattening of HELM's leaderboard, with the given column names for (model, scenario, metric,
    lower_is_better, score): three models on four scenarios, one of them lower-is-better."""
    import csv

    scores = {"a": [0.9, 0.8, 0.7, 0.1], "b": [0.5, 0.6, 0.4, 0.3], "c": [0.2, 0.1, 0.3, 0.5]}
    with path.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(names)
        for model, values in scores.items():
            for k, value in enumerate(values):
                writer.writerow([model, f"S{k}", "ECE" if k == 3 else "EM", str(k == 3), value])
    return path


def test_leaderboard_reads_the_flattened_layout_with_and_without_columns(tmp_path, capsys):
    """`model_name, benchmark_id, metric_name, metric_lower_is_better, score` is read by its synonyms; any other
    naming with --columns; stderr says which column played each role. Hand-derived: a > b > c in every
    scenario (EM on S0–S2: .9/.5/.2, .8/.6/.1, .7/.4/.3; ECE on S3, lower is better: .1/.3/.5), so the mean
    win rates are 1, 1/2 and 0."""
    from helmlite import cli

    expected = {"a": 1.0, "b": 0.5, "c": 0.0}
    standard = _flattened_board(tmp_path / "std.csv", ["model_name", "benchmark_id", "metric_name",
                                                       "metric_lower_is_better", "score"])
    assert cli.main(["leaderboard", "winrates", "--table", str(standard), "--n-resamples", "200"]) == 0
    captured = capsys.readouterr()
    rates = {line.split(",")[0]: float(line.split(",")[1]) for line in captured.out.splitlines()[1:]}
    assert rates == pytest.approx(expected)
    assert ("read columns model=model_name, scenario=benchmark_id, metric=metric_name, score=score, "
            "lower_is_better=metric_lower_is_better") in captured.err
    odd = _flattened_board(tmp_path / "odd.csv", ["who", "where", "what", "lower", "how_much"])
    assert cli.main(["leaderboard", "winrates", "--table", str(odd), "--n-resamples", "200"]) == 2
    assert "--columns model=COL" in capsys.readouterr().err
    assert cli.main(["leaderboard", "winrates", "--table", str(odd), "--n-resamples", "200", "--columns",
                     "model=who,scenario=where,metric=what,score=how_much,lower_is_better=lower"]) == 0
    captured = capsys.readouterr()
    assert {line.split(",")[0]: float(line.split(",")[1]) for line in captured.out.splitlines()[1:]} == pytest.approx(expected)
    for bad, message in (("modle=who", "unknown role 'modle'.* Did you mean: model"), ("model=nope", "names \\['nope'\\]")):
        assert cli.main(["leaderboard", "winrates", "--table", str(odd), "--columns", bad]) == 2
        err = capsys.readouterr().err
        assert len(err.splitlines()) == 1 and re.search(message, err)
