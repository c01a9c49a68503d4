"""HELM core part B: win rates on hand-made tables, both loader formats, priorities; part A helpers on fake runs."""
from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from helmlite import data
from helmlite.analyses import helm_core
from helmlite.analyses.helm_core import published as pub


def tidy(rows):
    return pd.DataFrame(rows, columns=pub.COLUMNS)


def test_win_rate_hand_derived_with_ties_missing_values_and_lower_is_better():
    table = pd.DataFrame({("S1", "EM"): [0.9, 0.5, 0.5, np.nan], ("S2", "time"): [1.0, 2.0, 3.0, 4.0],
                          ("S3", "EM"): [np.nan, np.nan, 0.7, np.nan]}, index=["a", "b", "c", "d"])
    lib = {("S1", "EM"): False, ("S2", "time"): True, ("S3", "EM"): False}
    w = pub.win_rate_matrix(table, lib)
    # S1 (higher better, d missing): a beats b, c → 2/2 = 1; b beats nobody, ties c → 0.5/2 = 0.25; c the same
    assert w[("S1", "EM")].tolist()[:3] == [1.0, 0.25, 0.25] and np.isnan(w.loc["d", ("S1", "EM")])
    # S2 (lower better): a beats 3 → 1; b beats 2 → 2/3; c → 1/3; d → 0
    np.testing.assert_allclose(w[("S2", "time")], [1, 2 / 3, 1 / 3, 0])
    assert ("S3", "EM") not in w.columns  # fewer than two values: skipped
    # mean over available columns: a (1 + 1)/2, d only S2 → 0
    np.testing.assert_allclose(w.mean(axis=1), [1.0, (0.25 + 2 / 3) / 2, (0.25 + 1 / 3) / 2, 0.0])


def test_columns_without_ordering_are_skipped():
    table = pd.DataFrame({("S", "x"): [1.0, 2.0]}, index=["a", "b"])
    assert pub.win_rate_matrix(table, {}).shape[1] == 0


def test_json_and_csv_loaders_give_the_same_frame(tmp_path):
    tables = [{"title": "Accuracy", "header": [
        {"value": "Model/adapter"}, {"value": "Mean win rate", "lower_is_better": False},
        {"value": "MMLU - EM", "lower_is_better": False, "metadata": {"metric": "EM", "run_group": "MMLU"}}],
        "rows": [[{"value": "m1"}, {"value": 1.0}, {"value": 0.6, "display_value": "0.600"}],
                 [{"value": "m2"}, {"value": 0.0}, {"value": 0.4}]]}]
    json_path = tmp_path / "core_scenarios.json"
    json_path.write_text(json.dumps(tables))
    from_json = pub.load_published(json_path)
    csv_path = tmp_path / "flat.csv"
    pd.DataFrame({"model": ["m1", "m1", "m2", "m2"], "tab": "Accuracy", "scenario": ["(aggregate)", "MMLU"] * 2,
                  "metric": ["Mean win rate", "EM"] * 2, "score": [1.0, 0.6, 0.0, 0.4], "lower_is_better": False}).to_csv(csv_path, index=False)
    from_csv = pub.load_published(csv_path)
    key = ["model", "scenario", "metric"]
    pd.testing.assert_frame_equal(from_json.sort_values(key).reset_index(drop=True), from_csv.sort_values(key).reset_index(drop=True),
                                  check_dtype=False)
    assert pub.mean_win_rates(from_json, "Accuracy").to_dict() == {"m1": 1.0, "m2": 0.0}


def test_published_leaderboard_recomputation(mirrored_cache):
    frame = pub.load_published(data.fetch("helm/results/helm_classic_v0.4.0_core_scenarios_all_metrics.csv"))
    rows, summary = pub.win_rate_comparison(frame, ["Accuracy", "Toxicity"])
    summary = summary.set_index("group")
    assert rows[rows.group == "Accuracy"]["model"].nunique() == 67
    assert summary.loc["Accuracy", "kendall_tau"] > 0.98 and summary.loc["Accuracy", "max_abs_diff"] < 0.03
    # Toxicity's larger gaps come with many rounding ties (explained in the notebook)
    assert summary.loc["Toxicity", "tied_pairs_share"] > 0.3
    assert set(pub.PAPER_MODELS) <= set(frame["model"])


def test_priorities_from_run_specs(mirrored_cache):
    priorities = pub.scenario_priorities(data.fetch("helm/resources/presentation_v0.1.0/run_specs.conf"))
    assert len(priorities) == 16 and priorities["BoolQ"] == 1 and priorities["MMLU"] == 2 and priorities["RAFT"] == 2


def test_win_rate_intervals_and_ties():
    rows = []
    for s in range(12):  # "strong" and "close" alternate wins; "weak" always loses
        for m, value in (("strong", 0.9 if s % 2 else 0.8), ("close", 0.8 if s % 2 else 0.9), ("weak", 0.1)):
            rows.append({"model": m, "group": "Accuracy", "scenario": f"S{s}", "metric": "EM", "value": value,
                         "lower_is_better": False})
    out = pub.win_rate_intervals(tidy(rows), "Accuracy", seed=0, n_resamples=500)
    assert list(out["model"])[-1] == "weak" and list(out["win_rate"]) == [0.75, 0.75, 0.0]
    first, second = out["model"][0], out["model"][1]
    assert bool(out.set_index("model").loc[first, "tied_with_next"]) is True  # alternating winners: not separable
    assert bool(out.set_index("model").loc[second, "tied_with_next"]) is False  # vs the always-losing model: separated


def test_grid_and_paired_model_difference():
    specs = helm_core.grid({"models": ["a", "b"], "scenarios": [{"scenario": "mmlu"}], "seeds": [0, 1], "max_instances": 5})
    assert len(specs) == 4 and {s["adapter"]["seed"] for s in specs} == {0, 1}
    records = lambda values: [{"id": f"i{k}", "metrics": {"exact_match": v}} for k, v in enumerate(values)]  # noqa: E731
    runs = [{"model": m, "scenario": "mmlu", "seed": 0, "stats": {"main_metric": "exact_match"}, "records": records(v)}
            for m, v in (("a", [1] * 20), ("b", [0] * 18 + [1] * 2))]
    diff = helm_core.model_differences(runs, "a", "b", seed=0, n_resamples=500).iloc[0]
    assert diff["difference"] == pytest.approx(0.9) and diff["significant"]
