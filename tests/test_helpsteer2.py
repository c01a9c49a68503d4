"""HelpSteer2 aggregation on hand-made cases, the loaders, the card example and the simulator."""
from __future__ import annotations

import gzip
import json

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import cohen_kappa_score

from helmlite import data
from helmlite._jsonl import DataFormatError
from helmlite.analyses import helpsteer2 as hs
from helmlite.claims.reproduction import VERDICTS
from helmlite.analyses.helpsteer2 import ATTRIBUTES, Annotations, load_aggregated, load_disagreements, write_disagreements
from helmlite.analyses.helpsteer2 import SimulatorConfig, simulate


def annotations(*samples: dict) -> Annotations:
    """Build Annotations from dicts of attribute → per-annotator list (attributes left out copy helpfulness)."""
    ratings = np.full((len(samples), 5, len(ATTRIBUTES)), np.nan)
    for i, sample in enumerate(samples):
        for j, attribute in enumerate(ATTRIBUTES):
            values = sample.get(attribute, sample["helpfulness"])
            ratings[i, :len(values), j] = values
    return Annotations([""] * len(samples), [""] * len(samples), ratings)


def test_card_example_reproduces_the_released_row_exactly(mirrored_cache):
    card = hs.card_example_check(load_disagreements(data.fetch("helpsteer2/card_example_disagreements.jsonl")),
                                 load_aggregated(data.fetch("helpsteer2/card_example_aggregated.jsonl")))
    # card: helpfulness [3,3,4] → 3.33 → 3; correctness [3,4,4] → 3.67 → 4; coherence [4,3,4] → 4;
    # complexity [2,2,2] → 2; verbosity [2,1,1] → 1.33 → 1 — the card's aggregated row.
    assert card["ours"].tolist() == [3, 4, 4, 2, 1]
    assert (card["ours"] == card["published"]).all()


def test_five_annotators_keep_the_triple_with_smallest_helpfulness_spread():
    # helpfulness [0, 4, 2, 3, 4]: triple slots (1,3,4) = (4,3,4) has pairwise spread 1+0+1 = 2, every
    # other triple is larger ((2,3,4)=(2,3,4): 1+2+1 = 4) → mean 11/3 = 3.67 → 4; naive mean 13/5 = 2.6 → 3.
    out = hs.aggregate(annotations({"helpfulness": [0, 4, 2, 3, 4]}))
    assert out.loc[0, "slots"] == "1 3 4" and out.loc[0, "rule"] == "top3"
    assert out.loc[0, "helpfulness_mean"] == pytest.approx(11 / 3)
    assert out.loc[0, "helpfulness"] == 4 and out.loc[0, "helpfulness_naive"] == 3
    assert out.loc[0, "helpfulness_spread"] == 1 and not out.loc[0, "removed"]


def test_helpfulness_ties_are_broken_by_all_attributes_then_earliest_slots():
    # helpfulness all 2 → every triple ties at 0; correctness [0,4,4,4,0] → only (1,2,3) has
    # correctness spread 0 → chosen; correctness label 4 while the naive mean is 12/5 = 2.4 → 2.
    tie = {"helpfulness": [2, 2, 2, 2, 2], "correctness": [0, 4, 4, 4, 0]}
    # identical annotators: every key ties → the earliest slots (0,1,2).
    same = {"helpfulness": [3, 3, 3, 3, 3]}
    out = hs.aggregate(annotations(tie, same))
    assert out["slots"].tolist() == ["1 2 3", "0 1 2"]
    assert out.loc[0, "correctness"] == 4 and out.loc[0, "correctness_naive"] == 2


@pytest.mark.parametrize("helpfulness,spread,removed,label", [
    ([1, 2, 3], 2, False, 2),  # spread exactly 2 is kept; mean 2
    ([0, 1, 3], 3, True, 1),  # spread 3 is removed; mean 4/3 → 1
    ([0, 3, 4, 4], 1, False, 4),  # 4 annotators: (3,4,4) → 11/3 → 4
])
def test_spread_filter_boundary(helpfulness, spread, removed, label):
    out = hs.aggregate(annotations({"helpfulness": helpfulness}))
    assert out.loc[0, "helpfulness_spread"] == spread
    assert bool(out.loc[0, "removed"]) is removed
    assert out.loc[0, "helpfulness"] == label


def test_worked_examples_with_four_and_five_annotators():
    """Hand-derived (see helpsteer2.WORKED_EXAMPLES): top-3 selection, a tie broken by the earliest slots, a spread
    exactly at the limit, and a failing response that takes its sibling with it under the per-prompt rule."""
    annotations, _ = hs.worked_examples()
    per_prompt = hs.aggregate(annotations)  # the paper's rule is the default
    per_response = hs.aggregate(annotations, spread_filter="response")
    # A1 [2,4,3,0]: (2,4,3) scores 4 → 3; A2 [0,1,4,4]: (1,4,4) scores 6 → 3; B1 [4,0,4,1,3]: (4,4,3) → 11/3 → 4;
    # B2 [0,2,4,0,4]: (0,2,0) and (2,4,4) tie at 4 → earliest slots (0,1,3) → 2/3 → 1
    assert per_prompt["slots"].tolist() == ["0 1 2", "1 2 3", "0 2 4", "0 1 3"]
    assert per_prompt["helpfulness"].tolist() == [3, 3, 4, 1]
    assert per_prompt["helpfulness_naive"].tolist() == [2, 2, 2, 2]  # 9/4, 9/4, 12/5, 10/5 → 2
    assert per_prompt["helpfulness_spread"].tolist() == [2, 3, 1, 2]
    assert per_prompt["fails_spread"].tolist() == [False, True, False, False]
    assert per_prompt["removed"].tolist() == [True, True, False, False]  # A2 fails → both responses of prompt A go
    assert per_response["removed"].tolist() == [False, True, False, False]  # only A2 goes
    assert per_prompt["prompt_id"].tolist() == [0, 0, 1, 1]
    assert hs.worked_examples_check()["match"].all()


def test_spread_filter_must_be_known():
    with pytest.raises(ValueError, match="spread_filter must be one of"):
        hs.aggregate(annotations({"helpfulness": [1, 2, 3]}), spread_filter="sample")


def test_two_annotators_get_no_label_by_the_card_and_both_ratings_as_an_option():
    """The card's recipe (mean of the three most agreeing annotators) gives a 2-annotator sample no label:
    by default it is removed with empty labels; ``fewer_than_three="all_available"`` averages both."""
    two = annotations({"helpfulness": [2, 3]}, {"helpfulness": [0, 3]})
    card = hs.aggregate(two, spread_filter="response")
    assert card["rule"].tolist() == ["no_label"] * 2 and card["removed"].all() and card["helpfulness"].isna().all()
    assert card["helpfulness_naive"].tolist() == [3, 2]
    # [2, 3] → 2.5 → 3 (half up; Python's round() would give 2); [0, 3] → 1.5 → 2 but spans 3 → removed.
    out = hs.aggregate(two, spread_filter="response", fewer_than_three="all_available")
    assert out["rule"].tolist() == ["all_available"] * 2
    assert out["helpfulness"].tolist() == [3, 2]
    assert out["removed"].tolist() == [False, True]
    assert hs.round_half_up(np.array([0.5, 1.5, 2.5])).tolist() == [1, 2, 3]


def test_one_annotator_is_an_error():
    with pytest.raises(ValueError, match="sample 0 has 1 rating"):
        hs.aggregate(annotations({"helpfulness": [2]}))


def test_five_annotators_always_contain_an_agreeing_three():
    """Pigeonhole: five ratings on 0–4 always hold three within 2 points, so a 5-annotator sample is never removed."""
    rng = np.random.default_rng(0)
    samples = [{"helpfulness": list(rng.integers(0, 5, 5))} for _ in range(2000)]
    assert not hs.aggregate(annotations(*samples))["removed"].any()


def test_spread_over_all_annotators_fails_every_five_tuple_spanning_more_than_two():
    """All 3,125 five-tuples on 0–4: on the most agreeing three none fails (pigeonhole); on all annotators a
    tuple passes only inside a window {0,1,2}, {1,2,3} or {2,3,4}: 3·3⁵ − 2·2⁵ − 1 + 1 = 665 pass (inclusion–
    exclusion: the windows pairwise share {1,2}, {2,3} and {2}), so 3,125 − 665 = 2,460 fail."""
    import itertools

    tuples = [{"helpfulness": list(t)} for t in itertools.product(range(5), repeat=5)]
    data_ = annotations(*tuples)
    per_response = dict(spread_filter="response")
    assert not hs.aggregate(data_, **per_response)["fails_spread"].any()
    assert int(hs.aggregate(data_, spread_over="all_annotators", **per_response)["fails_spread"].sum()) == 2460
    with pytest.raises(ValueError, match="spread_over must be one of"):
        hs.aggregate(data_, spread_over="top")


def test_responses_share_a_prompt_by_the_files_prompt_id(tmp_path):
    """Two prompts with the same text ("c#") but different ``prompt_id``: the per-prompt filter removes only the
    failing response's own prompt; without ids the equal texts would be one prompt."""
    rows = [{"prompt_id": pid, "prompt": "c#", "response": r, **{a: h for a in ATTRIBUTES}}
            for pid, r, h in (("p1", "a", [0, 4, 2]), ("p1", "b", [3, 3, 3]), ("p2", "c", [3, 3, 3]), ("p2", "d", [2, 2, 3]))]
    path = tmp_path / "d.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    loaded = load_disagreements(path)
    assert loaded.prompt_ids.tolist() == [0, 0, 1, 1]
    assert hs.aggregate(loaded)["removed"].tolist() == [True, True, False, False]
    by_text = Annotations(loaded.prompts, loaded.responses, loaded.ratings)
    assert hs.aggregate(by_text)["removed"].all()
    path.write_text(json.dumps(rows[0]) + "\n" + json.dumps({k: v for k, v in rows[1].items() if k != "prompt_id"}) + "\n")
    with pytest.raises(DataFormatError, match="line 2: field 'prompt_id' must be given in every record or in none"):
        load_disagreements(path)


def test_quadratic_kappa_equals_sklearn_on_the_rating_scale():
    """sklearn's quadratic kappa with labels=range(5) is the reference, also when a score is unused."""
    rng = np.random.default_rng(1)
    a = rng.integers(0, 5, 300)
    b = np.clip(a + rng.integers(-2, 3, 300), 0, 4)
    for x, y in ((a, b), (2 * (a // 2), 2 * (b // 2))):  # the second pair uses only 0, 2 and 4
        assert hs.quadratic_kappa(x.astype(float), y.astype(float)) == pytest.approx(
            cohen_kappa_score(x, y, weights="quadratic", labels=list(range(5))), abs=1e-12)


def write_lines(path, lines):
    path.write_text("\n".join(lines) + "\n")
    return path


GOOD = json.dumps({"prompt": "p", "response": "r", **{a: [1, 2, 3] for a in ATTRIBUTES}})


@pytest.mark.parametrize("line,message", [
    ("{not json", r"line 2: malformed JSON"),
    (json.dumps({"prompt": "p", "response": "r"}), r"line 2: missing required field 'helpfulness'"),
    (json.dumps({"prompt": "p", "response": "r", **{a: [1, 2, 5] for a in ATTRIBUTES}}), r"line 2: field 'helpfulness' must hold integers 0-4, got 5"),
    (json.dumps({"prompt": "p", "response": "r", **{a: "3" for a in ATTRIBUTES}}), r"line 2: field 'helpfulness' must be a list"),
    (json.dumps({"prompt": "p", "response": "r", **{a: [1, 2, 3] for a in ATTRIBUTES}, "verbosity": [1, 2]}), r"line 2: field 'verbosity' has 2 ratings"),
])
def test_disagreements_loader_names_file_line_and_field(tmp_path, line, message):
    path = write_lines(tmp_path / "d.jsonl", [GOOD, line])
    with pytest.raises(DataFormatError, match=message) as error:
        load_disagreements(path)
    assert str(path) in str(error.value)


def test_empty_and_missing_files(tmp_path):
    with pytest.raises(DataFormatError, match="no samples"):
        load_disagreements(write_lines(tmp_path / "e.jsonl", [""]))
    with pytest.raises(DataFormatError, match="file not found"):
        load_aggregated(tmp_path / "missing.jsonl.gz")


def test_aggregated_loader_reads_gzip(tmp_path):
    path = tmp_path / "train.jsonl.gz"
    with gzip.open(path, "wt") as handle:
        handle.write(json.dumps({"prompt": "p", "response": "r", **{a: 3 for a in ATTRIBUTES}}) + "\n")
    frame = load_aggregated(path)
    assert frame.loc[0, list(ATTRIBUTES)].tolist() == [3] * 5


def test_simulator_is_seeded_and_round_trips_through_the_released_schema(tmp_path):
    config = SimulatorConfig(n_samples=400, seed=3)
    first, second = simulate(config), simulate(config)
    np.testing.assert_array_equal(first.annotations.ratings, second.annotations.ratings)
    path = write_disagreements(first.annotations, tmp_path / "sim.jsonl.gz")
    assert path.read_bytes() == write_disagreements(second.annotations, tmp_path / "again.jsonl.gz").read_bytes()
    back = load_disagreements(path)
    np.testing.assert_array_equal(back.ratings, first.annotations.ratings)
    counts = first.annotations.n_annotators
    assert set(np.unique(counts)) <= {2, 3, 4, 5} and 3.2 < counts.mean() < 3.6  # card: mean 3.41
    escalated = first.annotations.ratings[counts == 5, :3, 0]
    assert (escalated.max(axis=1) - escalated.min(axis=1) > 2).all()  # 5 only after a helpfulness gap > 2


def test_simulator_pairs_responses_by_prompt_and_is_calibrated_to_the_published_figures():
    sim = simulate(SimulatorConfig())
    assert sim.annotations.prompts[0] == sim.annotations.prompts[1] != sim.annotations.prompts[2]
    check = hs.calibration_check(sim).set_index("figure")
    # card: mean 3.41 annotators (± 0.03); paper: ~10% removed by the per-prompt spread filter (± 2 points)
    assert check["within_tolerance"].all()
    assert abs(check.loc["mean_annotators", "simulated"] - 3.41) <= 0.03
    assert abs(check.loc["share_not_released", "simulated"] - 0.10) <= 0.02


def test_calibrate_picks_the_grid_point_closest_to_the_published_figures():
    best, grid = hs.calibrate(SimulatorConfig(n_samples=1000), careless=[0.1, 0.35], escalation=[0.8, 1.0])
    assert len(grid) == 4 and grid["distance"].is_monotonic_increasing
    assert (best.careless_share, best.escalation_share) == (grid.iloc[0]["careless_share"], grid.iloc[0]["escalation_share"])
    # escalating every disagreeing response leaves (almost) nothing for the filter: five ratings always hold an agreeing three
    assert grid[grid["escalation_share"] == 1.0]["share_not_released"].max() < 0.05  # the 2% that lost an annotation (two left: no label) go with their prompt (≈ 4%)


def test_top3_vs_naive_mean_depends_on_the_careless_share():
    curve = hs.careless_curve(SimulatorConfig(n_samples=3000, seed=11), [0.0, 0.35], seed=0, n_resamples=500)
    helpfulness = curve[curve["attribute"] == "helpfulness"].set_index("careless_share")
    assert helpfulness.loc[0.35, "ci_high"] < 0  # many careless annotators: the top-3 rule is closer to the truth
    assert helpfulness.loc[0.0, "difference"] > 0  # none: the naive mean is closer
    assert (curve["n"] < 1500).all()  # the CI resamples prompts (two responses each), not responses
    text = hs.careless_conclusion(curve)
    assert "35%" in text and "depends on how many annotators are careless" in text
    # real data has no truth: the package's empty tables have exactly these tables' columns, in order
    assert list(hs.empty_careless_curve().columns) == list(curve.columns)
    assert list(hs.empty_error_table().columns) == list(curve.columns[1:])


def test_reproduction_rows_follow_the_design_format():
    sim = simulate(SimulatorConfig(n_samples=200, seed=1))
    aggregated = hs.aggregate(sim.annotations)
    card = pd.DataFrame({"attribute": list(ATTRIBUTES), "published": [3, 4, 4, 2, 1], "ours": [3, 4, 4, 2, 0]})
    table = hs.reproduction_check(card, sim.annotations, aggregated, "simulated", seed=0, n_resamples=200)
    assert list(table.columns) == ["quantity", "published", "ours", "abs_diff", "ci_low", "ci_high", "verdict", "note"]
    assert set(table["verdict"]) <= set(VERDICTS)
    assert table.set_index("quantity").loc["card_example:verbosity", "verdict"] == "differs"
    assert table.set_index("quantity").loc["card:mean_annotators", "ci_low"] < 3.5
    removal = table.set_index("quantity").loc["row_counts:share_not_released"]
    assert removal["published"] == 0.10 and removal["verdict"] == "by construction" and removal["note"].startswith("simulated: fitted")


def test_full_escalation_leaves_nothing_for_the_filter_on_the_most_agreeing_three():
    """Pigeonhole at the protocol level: with every disagreeing response escalated to five and no annotation
    lost, no response fails the spread filter on its most agreeing three; on all annotators many do."""
    from dataclasses import replace

    sim = simulate(replace(SimulatorConfig(n_samples=1000), escalation_share=1.0, unratable_share=0.0))
    assert not hs.aggregate(sim.annotations)["removed"].any()
    assert hs.aggregate(sim.annotations, spread_over="all_annotators")["fails_spread"].mean() > 0.1


def test_protocol_readings_say_which_reading_meets_both_published_figures():
    readings = hs.protocol.protocol_readings(SimulatorConfig())
    assert len(readings) == 8 and set(readings["setting"]) == {"default parameters", "careless share refitted"}
    met = readings[readings["annotators_within_tolerance"] & readings["removal_within_tolerance"]]
    assert set(met["reading"]) == {"partial escalation, filter on the most agreeing three (default)"}
    full_top3 = readings[(readings["escalation_share"] == 1.0) & (readings["spread_over"] == "most_agreeing_three")]
    assert (full_top3["share_failing_per_response"] < 0.01).all()


def test_initial_kappa_is_the_mean_of_sklearns_pairwise_weighted_kappas():
    sim = simulate(SimulatorConfig(n_samples=400))
    r = sim.annotations.ratings[:, :3, 0]
    r = r[~np.isnan(r).any(axis=1)].astype(int)
    expected = np.mean([cohen_kappa_score(r[:, a], r[:, b], weights="quadratic", labels=list(range(5)))
                        for a, b in ((0, 1), (0, 2), (1, 2))])
    assert hs.protocol.initial_kappa(sim.annotations) == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize("low,high,verdict", [
    (0.19, 0.24, "differs: below both published values"), (0.60, 0.80, "consistent: the interval holds the value after"),
    (0.40, 0.50, "consistent: the interval holds the value before"), (0.50, 0.60, "differs: between the two"),
    (0.75, 0.90, "differs: above both")])
def test_unfitted_check_places_the_interval_against_the_published_kappas(low, high, verdict):
    """Published helpfulness κ 0.465 (before) and 0.706 (after); the verdict names where the CI lies."""
    table = pd.DataFrame([{"attribute": a, "measure": "quadratic-weighted kappa", "stage": "initial three",
                           "estimate": (low + high) / 2, "ci_low": low, "ci_high": high, "n": 100}
                          for a in ("helpfulness", "correctness")])
    out = hs.protocol.unfitted_check(table)
    word, note = verdict.split(": ")
    assert out.iloc[0]["verdict"] == word and out.iloc[0]["note"].startswith(note) and not out["fitted"].any()
    assert set(out["verdict"]) <= set(VERDICTS)  # one vocabulary (issue 27 §4)


def test_every_figure_of_simulated_annotations_says_simulated_in_a_title():
    """Each of notebook 05's figures drawn from simulated input (all but the card's, which has none) carries
    "SIMULATED" in its suptitle or an axes title."""
    sim = simulate(SimulatorConfig(n_samples=200))
    aggregated = hs.aggregate(sim.annotations)
    distributions = hs.rating_distributions(sim.annotations, aggregated)
    correlations = hs.helpfulness_correlations(aggregated, seed=0, n_resamples=100)
    agreement = hs.agreement(sim.annotations, aggregated, seed=0, n_resamples=100, n_resamples_alpha=40)
    error = hs.error_against_truth(aggregated, sim.truth, seed=0, n_resamples=100)
    curve = hs.careless_curve(SimulatorConfig(n_samples=200), [0.1, 0.3], seed=0, n_resamples=100)
    readings = hs.protocol.protocol_readings(SimulatorConfig(n_samples=200), careless_grid=(0.1, 0.3))
    figures = {"distributions": hs.figures.distributions(distributions, "simulated"),
               "correlations": hs.figures.correlations(aggregated, correlations, "simulated"),
               "agreement": hs.figures.agreement(agreement, "simulated"),
               "protocol": hs.figures.protocol(hs.annotator_counts(sim.annotations),
                                               hs.removal_summary(aggregated, n_resamples=100), "simulated"),
               "protocol_readings": hs.figures.protocol_readings(readings),
               "error_against_truth": hs.figures.error_against_truth(error),
               "careless_curve": hs.figures.careless_curve(curve, 0.3)}
    for name, fig in figures.items():
        titles = [fig._suptitle.get_text() if fig._suptitle else ""] + [ax.get_title() for ax in fig.axes]
        assert any("SIMULATED" in t.upper() for t in titles), (name, titles)


def test_real_annotations_have_an_empty_calibration_table_with_its_columns():
    table = hs.calibration_check(None)  # no simulator to calibrate
    assert table.empty and list(table.columns) == ["figure", "published", "simulated", "tolerance", "within_tolerance",
                                                   "fitted", "source"]
