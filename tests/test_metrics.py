"""HELM metrics against hand-derived values (derivations in comments) and independent libraries."""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from helmlite.metrics import (bits_per_byte, exact_match, f1_score, final_number_match, ndcg, normalize_text,
                              quasi_exact_match, reciprocal_rank, rouge_2, substring_match)
from helmlite.metrics.bbq import bbq_indicators, bbq_scores, scores_from_sums
from helmlite.metrics.bias import counts_per_text, group_counts_to_bias, metrics_from_counts, tokenize
from helmlite.metrics.calibration import (ece_rows, expected_calibration_error, reliability_table, scaa_rows,
                                          selective_accuracy, selective_coverage_accuracy_area)
from helmlite.analyses.helm_core.efficiency import fit_runtime_model
from helmlite.metrics.toxicity import OfflineClassifier, PerspectiveScorer, toxic_fraction


# --- accuracy -----------------------------------------------------------------------------------------
# Expected values: crfm-helm 0.5.16's own exact_match / quasi_exact_match / f1_score (evaluate_reference_metrics.py;
# the same in v0.4.0's basic_metrics.py), run on each pair in crfm-helm's venv on 2026-12-01 — they agree with the
# hand derivation: empty prediction → 0; F1 = NLTK f_measure(set(gold tokens), set(pred tokens)), None → 0.
@pytest.mark.parametrize("prediction,reference,em,qem,f1", [
    ("Paris", "Paris", 1, 1, 1.0),
    (" Paris ", "Paris", 1, 1, 1.0),            # EM strips whitespace
    ("The Paris.", "paris", 0, 1, 1.0),          # QEM: lower-case, punctuation and articles removed
    ("Paris France", "Paris", 0, 0, 2 / 3),      # P = 1/2, R = 1/1 → F1 = 2·(1/2)/(3/2) = 2/3
    ("", "Paris", 0, 0, 0.0),                    # empty prediction
    ("", "", 0, 0, 0.0),                         # empty prediction: 0 even against an empty gold (SQuAD: 1)
    ("a an the", "", 0, 1, 0.0),                 # normalises to empty: QEM 1, F1 on two empty sets → None → 0
    ("cat cat dog", "cat", 0, 0, 2 / 3),         # sets {cat, dog} vs {cat}: P 1/2, R 1 (SQuAD's multiset: 1/2)
    ("the cat the cat", "cat", 0, 0, 1.0),       # "cat cat" ≠ "cat", but {cat} vs {cat}: F1 1 (SQuAD: P 1/2 → 2/3)
])
def test_exact_match_family(prediction, reference, em, qem, f1):
    assert exact_match(prediction, reference) == em
    assert quasi_exact_match(prediction, reference) == qem
    assert f1_score(prediction, reference) == pytest.approx(f1)


def test_normalize_and_substring_and_final_number():
    assert normalize_text("  The  Quick, brown fox!  ") == "quick brown fox"
    assert substring_match("I think it is 42-b7c.", "42-B7C") == 1.0 and substring_match("no", "yes") == 0.0
    assert final_number_match("so 3 + 4 = 7. The answer is 1,200.", "1200") == 1.0
    assert final_number_match("no number", "5") == 0.0


def test_rouge_2_matches_the_rouge_score_package_and_hand_count():
    # bigrams: ref "the cat sat on" → {the cat, cat sat, sat on}; pred "the cat sat" → {the cat, cat sat}
    # overlap 2 → P = 2/2, R = 2/3 → F = 0.8
    assert rouge_2("the cat sat", "the cat sat on") == pytest.approx(0.8)


def test_ranking_metrics_and_sklearn_ndcg():
    from sklearn.metrics import ndcg_score

    assert reciprocal_rank([0, 0, 1, 0]) == pytest.approx(1 / 3)
    assert reciprocal_rank([0] * 10 + [1]) == 0.0  # relevant item beyond rank 10
    ranked = [2, 0, 3, 0, 1]
    # DCG = 2/log2(2) + 3/log2(4) + 1/log2(6); IDCG = 3/1 + 2/log2(3) + 1/log2(4)
    dcg = 2 + 3 / 2 + 1 / math.log2(6)
    ideal = 3 + 2 / math.log2(3) + 1 / 2
    assert ndcg(ranked, 10) == pytest.approx(dcg / ideal)
    scores = np.array([[5, 4, 3, 2, 1]])  # the model's order is the given order
    assert ndcg(ranked, 10) == pytest.approx(ndcg_score(np.array([ranked]), scores, k=10))


def test_bits_per_byte():
    # log P = −8·ln 2 nats over 4 bytes → 8 bits / 4 bytes = 2 bits per byte
    assert bits_per_byte(-8 * math.log(2), "abcd") == pytest.approx(2.0)
    assert math.isnan(bits_per_byte(-1.0, ""))


# --- calibration --------------------------------------------------------------------------------------
def test_ece_equal_mass_bins_hand_derived():
    conf = [0.9, 0.8, 0.7, 0.6]
    correct = [1, 1, 0, 0]
    # 1 bin: |acc − conf| = |0.5 − 0.75| = 0.25
    assert expected_calibration_error(conf, correct, 1) == pytest.approx(0.25)
    # 2 equal-mass bins (sorted by confidence): {0.6, 0.7} acc 0 → 0.65; {0.8, 0.9} acc 1 → 0.15; mean 0.4
    assert expected_calibration_error(conf, correct, 2) == pytest.approx(0.4)
    # more bins than items: one item per bin → mean |correct − conf| = (0.1 + 0.2 + 0.7 + 0.6) / 4 = 0.4
    assert expected_calibration_error(conf, correct, 10) == pytest.approx(0.4)
    assert expected_calibration_error([1.0, 1.0], [1, 1], 10) == 0.0  # all correct and certain
    assert math.isnan(expected_calibration_error([], [], 10))
    assert [b["n"] for b in reliability_table(np.linspace(0, 1, 25), np.ones(25), 10)] == [3] * 5 + [2] * 5


def test_ece_keeps_tied_confidences_in_one_bin_as_helm():
    """HELM's get_ece_em: 2 parts of the sorted confidences {0.6, 0.6 | 0.6, 0.9}; boundary (0.6 + 0.6)/2 = 0.6,
    so all three 0.6s fall in the lower bin: 3/4·|1/3 − 0.6| + 1/4·|1 − 0.9| = 0.2 + 0.025 = 0.225 (a plain
    split would give 2/4·|0.5 − 0.6| + 2/4·|0.5 − 0.75| = 0.175)."""
    assert expected_calibration_error([0.6, 0.6, 0.6, 0.9], [1, 0, 0, 1], 2) == pytest.approx(0.225)
    assert [b["n"] for b in reliability_table([0.6, 0.6, 0.6, 0.9], [1, 0, 0, 1], 2)] == [3, 1]
    # 3 parts of {0.2 | 0.5 | 0.5}: boundaries 0.35 and 0.5 → bins {0.2}, {0.5, 0.5}, {} (empty, no weight):
    # 1/3·|0 − 0.2| + 2/3·|0.5 − 0.5| = 0.0667
    assert expected_calibration_error([0.5, 0.2, 0.5], [1, 0, 0], 3) == pytest.approx(0.2 / 3)
    # a confidence a hair above 1 (softmax rounding) joins the last bin, as HELM's fast_bin does
    assert [b["n"] for b in reliability_table([0.2, 0.4, 1.0 + 1e-12], [0, 1, 1], 3)] == [1, 1, 1]


def test_selective_accuracy_is_helms_top_floor_tenth_plus_one():
    conf = [0.9, 0.9, 0.5, 0.4, 0.3, 0.2, 0.2, 0.1, 0.1, 0.05]
    correct = [0, 1, 1, 1, 0, 0, 1, 0, 0, 0]
    # HELM: accs[int(0.1 · 10)] = accs[1] = accuracy of the 2 most confident (the tied 0.9s, in instance order) = 1/2
    assert selective_accuracy(conf, correct, 0.1) == 0.5
    # n = 25: int(2.5) + 1 = 3 most confident; n = 9: int(0.9) + 1 = 1
    assert selective_accuracy(np.linspace(1, 0, 25), [1, 1, 0] + [0] * 22, 0.1) == pytest.approx(2 / 3)
    assert selective_accuracy(np.linspace(1, 0, 9), [0] + [1] * 8, 0.1) == 0.0
    # SCAA = mean over k of cumulative accuracy: cumsum [0,1,2,3,3,3,4,4,4,4] / k
    expected = np.mean(np.array([0, 1, 2, 3, 3, 3, 4, 4, 4, 4]) / np.arange(1, 11))
    assert selective_coverage_accuracy_area(conf, correct) == pytest.approx(expected)
    assert selective_accuracy([0.3], [1], 0.1) == 1.0  # a single instance still counts
    assert selective_accuracy([0.3, 0.2], [1, 0], 1.0) == 0.5  # never more than n instances


def test_calibration_rows_equal_the_metric_of_each_row():
    """The bootstrap's path (every resample binned on its own in one call) equals the one-sample functions
    (hand-derived and checked against HELM's package above) row by row, on confidences with many ties."""
    rng = np.random.default_rng(5)
    confidence = rng.choice([0.25, 0.5, 0.75, 1.0, 0.3333], size=(40, 23))
    correct = (rng.random((40, 23)) < confidence).astype(float)
    for bins in (1, 2, 10):
        assert np.array_equal(ece_rows(confidence, correct, bins),
                              [expected_calibration_error(c, k, bins) for c, k in zip(confidence, correct)])
    assert np.array_equal(scaa_rows(confidence, correct),
                          [selective_coverage_accuracy_area(c, k) for c, k in zip(confidence, correct)])
    assert ece_rows(confidence[0], correct[0]).shape == ()


# --- bias ---------------------------------------------------------------------------------------------
LISTS = {"gender": {"female": ["she", "her"], "male": ["he", "him", "his"]}, "adjective": ["smart", "quiet"],
         "profession": ["doctor"]}


def test_group_counts_to_bias_hand_derived():
    # counts 2 (list size 2) and 3 (size 3) → normalised 1 and 1 → uniform → TVD 0
    assert group_counts_to_bias([2, 3], [2, 3]) == 0.0
    # counts 4 and 0 → p = (1, 0) → TVD = 0.5·(|1 − 0.5| + |0 − 0.5|) = 0.5
    assert group_counts_to_bias([4, 0], [2, 3]) == 0.5
    assert math.isnan(group_counts_to_bias([0, 0], [2, 3]))


def bias(texts):
    """HELM's bias numbers of ``texts`` with the test word lists."""
    return metrics_from_counts(counts_per_text(texts, LISTS), lists=LISTS)


def test_demographic_representation_and_stereotypes():
    texts = ["She said her doctor was smart.", "He is quiet."]
    # female words: she, her = 2 (/2 = 1); male: he = 1 (/3 = 1/3) → p = (0.75, 0.25) → TVD 0.25
    assert bias(texts)["representation_gender"] == pytest.approx(0.25)
    # "smart": text 1 has female 2, male 0 → (2, 0) → p (1, 0) → 0.5; "quiet": text 2 (0, 1) → p (0, 1) → 0.5
    assert bias(texts)["stereotypes_gender_adjective"] == pytest.approx(0.5)
    assert math.isnan(bias(["nothing here"])["stereotypes_gender_profession"])
    assert tokenize("She left. He came!") == ["she", "left", ".", "he", "came", "!"]


def test_stereotype_scores_at_once_equal_the_per_target_loop():
    """The vectorised per-target TVDs equal group_counts_to_bias row by row (the plain path), on random counts
    with targets that co-occur with no group, for whole samples and bootstrap-style index resamples."""
    rng = np.random.default_rng(11)
    lists = {"gender": {"female": ["a"] * 4, "male": ["b"] * 7}, "adjective": [f"adj{k}" for k in range(30)]}
    group = rng.integers(0, 3, size=(20, 2)).astype(float)
    targets = rng.integers(0, 2, size=(20, 30)) * (rng.random((20, 30)) < 0.3)
    counts = {"gender": group, "gender_adjective": targets[:, :, None] * group[:, None, :]}
    resamples = [rng.integers(0, 20, 20), rng.integers(0, 20, 20)]
    multiplicities = np.array([np.bincount(index, minlength=20) for index in resamples], float)
    at_once = metrics_from_counts(counts, multiplicities, lists)  # every resample in one call (the bootstrap's path)
    for k, index in enumerate([None, *resamples]):
        pair = counts["gender_adjective"] if index is None else counts["gender_adjective"][index]
        loop = [group_counts_to_bias(row, [4, 7]) for row in pair.sum(axis=0) if row.sum() > 0]
        weights = None if index is None else multiplicities[k - 1]
        assert metrics_from_counts(counts, weights, lists)["stereotypes_gender_adjective"] == pytest.approx(
            float(np.mean(loop)), abs=1e-15)
        rows = group if index is None else group[index]
        assert metrics_from_counts(counts, weights, lists)["representation_gender"] == pytest.approx(
            group_counts_to_bias(rows.sum(axis=0), [4, 7]), abs=1e-15)
        if index is not None:
            assert at_once["stereotypes_gender_adjective"][k - 1] == pytest.approx(float(np.mean(loop)), abs=1e-15)
        only = metrics_from_counts(counts, weights, lists, names={"stereotypes_gender_adjective"})
        assert set(only) == {"stereotypes_gender_adjective"} and only["stereotypes_gender_adjective"] == pytest.approx(
            float(np.mean(loop)), abs=1e-15)


# --- BBQ ----------------------------------------------------------------------------------------------
def test_bbq_bias_scores_hand_derived():
    row = lambda cond, pol, pred, correct: {"context_condition": cond, "question_polarity": pol, "predicted": pred,  # noqa: E731
                                            "correct": correct, "target_index": 0, "unknown_index": 2}
    rows = [
        # disambiguated: 3 non-unknown answers; biased = neg→target (1), nonneg→non-target (1), neg→non-target (0)
        row("disambig", "neg", 0, True), row("disambig", "nonneg", 1, True), row("disambig", "neg", 1, False),
        row("disambig", "neg", 2, False),  # "unknown" answers are left out of s_DIS
        # ambiguous: correct answer is "unknown" (2); accuracy 1/2; s_DIS(amb) over the one non-unknown = biased → 1
        row("ambig", "neg", 2, True), row("ambig", "neg", 0, False),
    ]
    scores = bbq_scores(rows)
    assert scores["bias_score_disambiguated"] == pytest.approx(2 * 2 / 3 - 1)
    assert scores["accuracy_disambiguated"] == 0.5 and scores["accuracy_ambiguous"] == 0.5
    assert scores["accuracy"] == pytest.approx(3 / 6)  # HELM's bbq_accuracy: all items
    # Parrish et al.: (1 − accuracy on ambiguous items) · s_AMB = (1 − 1/2) · 1
    assert scores["bias_score_ambiguous_parrish"] == pytest.approx((1 - 0.5) * 1.0)
    # HELM's BBQMetric: (1 − accuracy over all six items) · s_AMB = (1 − 3/6) · 1
    assert scores["bias_score_ambiguous_helm"] == pytest.approx((1 - 3 / 6) * 1.0)
    # more disambiguated items change HELM's score only: 2 extra correct ones → accuracy 5/8 → (1 − 5/8) · 1
    more = rows + [row("disambig", "nonneg", 1, True), row("disambig", "nonneg", 1, True)]
    assert bbq_scores(more)["bias_score_ambiguous_helm"] == pytest.approx(3 / 8)
    assert bbq_scores(more)["bias_score_ambiguous_parrish"] == pytest.approx(0.5)


def test_bbq_answer_naming_no_choice_is_never_biased_as_helm():
    """Hand-derived from crfm-helm's BBQMetric (bbq_metrics.py): a completion that is no valid letter is not
    "unknown" (so it counts in the non-unknown denominator) and neither target nor non-target (so it adds to no
    biased count). Disambiguated, non-negative: one non-target answer (biased) and one invalid one (None):
    s = 2 · 1/2 − 1 = 0 (helmlite counted the invalid one biased before: 2 · 2/2 − 1 = 1)."""
    rows = [{"context_condition": "disambig", "question_polarity": "nonneg", "predicted": p, "correct": False,
             "target_index": 0, "unknown_index": 2} for p in (1, None)]
    assert bbq_scores(rows)["bias_score_disambiguated"] == pytest.approx(0.0)
    negative = [{**r, "question_polarity": "neg"} for r in rows]  # neither names the target: s = 2 · 0/2 − 1
    assert bbq_scores(negative)["bias_score_disambiguated"] == pytest.approx(-1.0)


def test_bbq_empty_completion_is_dropped_from_every_count_as_helm():
    """crfm-helm's BBQMetric keeps only completions with non-empty text (``if completion.text``): an empty one
    adds to neither bbq_accuracy nor a bias count; a whitespace completion is kept (stripped to '', no valid
    letter: non-unknown, never biased, incorrect). Hand-derived: one correct disambiguated answer plus an
    empty completion → accuracy 1/1 (not 1/2); plus a whitespace one → 1/2 and s = 2·1/2 − 1 = 0."""
    correct = {"context_condition": "disambig", "question_polarity": "neg", "predicted": 0, "correct": True,
               "target_index": 0, "unknown_index": 2, "completion": " A"}
    empty = {**correct, "predicted": None, "correct": False, "completion": ""}
    blank = {**empty, "completion": " "}
    scores = bbq_scores([correct, empty])
    assert scores["accuracy"] == 1.0 and scores["bias_score_disambiguated"] == pytest.approx(1.0)
    scores = bbq_scores([correct, empty, blank])
    assert scores["accuracy"] == 0.5 and scores["bias_score_disambiguated"] == pytest.approx(0.0)
    assert bbq_scores([{**correct, "completion": None}])["accuracy"] == 1.0  # log-probability runs have no completion


def test_bbq_zero_denominator_gives_zero_as_helm():
    """Every answer "unknown": no non-unknown answers → HELM's ERROR_SCORE 0 for both bias scores."""
    rows = [{"context_condition": c, "question_polarity": "neg", "predicted": 2, "correct": c == "ambig",
             "target_index": 0, "unknown_index": 2} for c in ("ambig", "disambig")]
    scores = bbq_scores(rows)
    assert scores["bias_score_disambiguated"] == 0.0
    assert scores["bias_score_ambiguous_helm"] == 0.0 and scores["bias_score_ambiguous_parrish"] == 0.0


def test_bbq_scores_of_resamples_from_indicator_sums_equal_the_scores_of_the_resampled_rows():
    """The bootstrap's path (multiplicities × per-row indicators) equals bbq_scores of the resampled rows
    written out, on rows of every kind (unknown, invalid, empty completions, both polarities and contexts)."""
    rng = np.random.default_rng(3)
    rows = [{"context_condition": rng.choice(["ambig", "disambig"]), "question_polarity": rng.choice(["neg", "nonneg"]),
             "predicted": rng.choice([0, 1, 2, None]), "correct": bool(rng.random() < 0.5), "target_index": 0,
             "unknown_index": 2, "completion": rng.choice(["A", "", None])} for _ in range(30)]
    index = rng.integers(0, 30, size=(50, 30))
    weights = np.array([np.bincount(i, minlength=30) for i in index], float)
    at_once = scores_from_sums(weights @ bbq_indicators(rows))
    for k, i in enumerate(index):
        expected = bbq_scores([rows[j] for j in i])
        for name, value in expected.items():
            assert at_once[name][k] == pytest.approx(value, abs=1e-12, nan_ok=True), name


# --- toxicity -----------------------------------------------------------------------------------------
def test_toxic_fraction_and_offline_classifier():
    assert toxic_fraction([0.1, 0.5, 0.9, 0.2]) == 0.5  # ≥ 0.5 counts as toxic
    scores = OfflineClassifier().score(["have a lovely day", "you are a stupid idiot"])
    assert scores[0] < 0.5 < scores[1] and OfflineClassifier.proxy


def test_perspective_client_against_a_stub(monkeypatch):
    import json
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_POST(self):
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            value = 0.9 if "idiot" in body["comment"]["text"] else 0.1
            out = json.dumps({"attributeScores": {"TOXICITY": {"summaryScore": {"value": value}}}}).encode()
            self.send_response(200)
            self.send_header("Content-Length", str(len(out)))
            self.end_headers()
            self.wfile.write(out)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        scorer = PerspectiveScorer("key", url=f"http://127.0.0.1:{server.server_address[1]}/analyze")
        assert scorer.score(["fine", "idiot"]) == [0.1, 0.9] and not scorer.proxy
    finally:
        server.shutdown()
        server.server_close()


# --- efficiency ---------------------------------------------------------------------------------------
def test_runtime_model_recovers_known_coefficients():
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"prompt_tokens": rng.integers(10, 1000, 200), "output_tokens": rng.integers(1, 50, 200)})
    frame["latency_s"] = 0.2 + 0.001 * frame["prompt_tokens"] + 0.04 * frame["output_tokens"] + rng.normal(0, 0.01, 200)
    fit = fit_runtime_model(frame).set_index("term")
    assert fit.loc["output_tokens", "estimate"] == pytest.approx(0.04, abs=0.002)
    design = np.column_stack([np.ones(200), frame["prompt_tokens"], frame["output_tokens"]])
    lstsq = np.linalg.lstsq(design, frame["latency_s"], rcond=None)[0]  # independent least squares
    np.testing.assert_allclose(fit["estimate"].to_numpy(), lstsq, rtol=1e-8)
    assert (fit["ci_low"] < fit["estimate"]).all() and (fit["estimate"] < fit["ci_high"]).all()
    with pytest.raises(ValueError, match="at least 4"):
        fit_runtime_model(frame.head(3))


def test_generation_main_metrics_are_helms(mirrored_cache):
    """Each scenario's main metric for generation runs is the one HELM's schema names for its group
    (``main_name`` in crfm-helm's presentation schema.yaml, fetched through the registry): quasi-exact match
    for BoolQ, IMDB, RAFT and BBQ, exact match for MMLU and TruthfulQA, F1 for NQ closed-book."""
    import re

    import yaml

    from helmlite import data
    from helmlite.scenarios import scenario

    schema = yaml.safe_load(data.fetch("helm/resources/presentation_v0.1.0/schema.yaml").read_text())
    main = {g["name"]: g.get("environment", {}).get("main_name") for g in schema["run_groups"]}
    helm_names = {"boolq": "boolq", "imdb": "imdb", "raft": "raft", "bbq": "bbq", "mmlu": "mmlu",
                  "truthfulqa": "truthful_qa", "nq_closed_book": "natural_qa_closedbook"}
    for ours, theirs in helm_names.items():
        assert scenario(ours).main_metric == re.sub(r"^f1_score$", "f1", main[theirs]), ours


def test_generation_calibration_as_helm():
    """crfm-helm: a generation's max_prob is exp(its completion's log-probability) and
    compute_calibration_metrics counts it correct by its exact_match (not the main metric): a completion
    with F1 1 but no exact match ("the Paris" vs "Paris": normalised equal, stripped not) is incorrect there."""
    from types import SimpleNamespace

    from helmlite.metrics.families import calibration_correct
    from helmlite.evaluation.outcomes import _generation
    from helmlite.models import Generation
    from helmlite.scenarios import Instance, Reference

    instance = Instance("q", "Capital of France?", (Reference("Paris", True),), "test")
    out = _generation(instance, Generation(" the Paris", 5, 2, (-0.25, -0.5), 0.0), "f1")
    assert out["confidence"] == pytest.approx(math.exp(-0.75)) and out["correct"] is True  # main metric F1 = 1
    assert calibration_correct(SimpleNamespace(metrics=out["metrics"], correct=out["correct"])) is False
    # no token kept (stopped at once): HELM's max_prob is exp(0) = 1 (evaluate_reference_metrics); no log-probabilities
    # reported at all: unknown
    assert _generation(instance, Generation("", 5, 0, (), 0.0), "f1")["confidence"] == 1.0
    assert _generation(instance, Generation("", 5, 0, None, 0.0), "f1")["confidence"] is None


#: Twelve generations (gold, completion, token log-probabilities) and what crfm-helm 0.5.16's own
#: ``basic_metrics.compute_calibration_metrics`` returns for them, run 2026-12-03 on per-instance stats ``logprob`` =
#: the completion's log-probability, ``max_prob`` = exp(it) and ``exact_match`` (HELM's generation inputs,
#: ``evaluate_reference_metrics.py``): helmlite's calibration family on its own records of the same generations.
GENERATIONS = [("Paris", " Paris", (-0.1, -0.2)), ("Rome", " Rome", (-0.9,)), ("Berlin", " Bonn", (-0.3, -0.4)),
               ("Madrid", " Madrid", (-1.5, -0.2)), ("Oslo", " Olso", (-2.0,)), ("Lima", " Lima", (-0.05,)),
               ("Cairo", " the Cairo", (-0.7, -0.1)), ("Quito", " Quito", (-0.6, -0.6)), ("Dakar", " Accra", (-0.2,)),
               ("Hanoi", " Hanoi", (-3.0,)), ("Kyiv", " Kiev", (-0.4, -0.3)), ("Bern", " Bern", (-0.25,))]
HELM_GENERATION_CALIBRATION = {"ece_10": 0.47623434576784773, "ece_1": 0.09936262497151077,
                               "scaa": 0.6024651274651273, "selective_acc@10": 0.5, "platt_coef": 0.024918794091557353,
                               "platt_intercept": 0.3385748858216863, "platt_ece_10": 0.4135964924360412,
                               "platt_ece_1": 6.42610312739933e-06}


def test_generation_calibration_equals_crfm_helms_on_twelve_generations():
    """Table-driven against crfm-helm's own code (values above): ECE with 10 equal-mass bins and 1 bin, the
    selective coverage-accuracy area, accuracy at 10% coverage and the Platt-scaled ECE and scaler, all from
    exp(completion log-probability) and exact match ("the Cairo" is not an exact match of "Cairo")."""
    from helmlite.metrics import families
    from helmlite.evaluation.outcomes import _generation
    from helmlite.models import Generation
    from helmlite.results import InstanceRecord
    from helmlite.scenarios import Instance, Reference

    records = []
    for k, (gold, text, logprobs) in enumerate(GENERATIONS):
        out = _generation(Instance(f"q{k}", "Capital?", (Reference(gold, True),), "test"),
                          Generation(text, 5, len(logprobs), logprobs, 0.0), "f1")
        records.append(InstanceRecord(id=f"q{k}", input="", prompt="", n_train=0, truncated=False, prompt_tokens=5,
                                      references=[(gold, True)], metadata={}, prediction=out.get("prediction"),
                                      correct=out["correct"], metrics=out["metrics"], confidence=out["confidence"]))
    assert [r.metrics["exact_match"] for r in records] == [1, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1]  # HELM's inputs
    computed = families.compute(("calibration",), records, run_id="r", seed=0, n_resamples=200)["metrics"]
    for name, helm in HELM_GENERATION_CALIBRATION.items():
        assert computed[name].estimate == pytest.approx(helm, abs=1e-9), name


def test_every_scenarios_main_metric_is_one_that_a_run_computes():
    """A generation run computes its scenario's main metric against the references only when it is a reference metric
    (``GENERATION_METRICS``; ``evaluation.outcomes``): any other main metric must come from the run's method or a
    metric family, or every instance would silently count as wrong. The two that do (listed by hand: ranking's RR@10 in
    ``outcomes._ranking``, BOLD's toxic fraction from the toxicity family) — a misspelled name fails here."""
    from helmlite.metrics import GENERATION_METRICS
    from helmlite.scenarios import scenarios

    others = {info.main_metric for info in scenarios().values()} - set(GENERATION_METRICS)
    assert others == {"rr@10", "toxic_fraction"}
