"""Depth analysis: the U-shape statistic on synthetic curves with known shape, published curves, prefix reuse."""
from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd
import pytest


from helmlite import claims, stats
from helmlite.analyses import depth
from helmlite.models import GenerationRequest, load_model

DEPTHS = (0.0, 0.2, 0.4, 0.6, 0.8, 1.0)


def synthetic_records(curve, contexts=60, seed=0, chance=0.0, positions=DEPTHS):
    """Per-context correctness drawn from a known accuracy-by-depth curve."""
    rng = np.random.default_rng(seed)
    return pd.DataFrame([{"model": "m", "task": "t", "length": 512, "method": "gen", "depth": d, "position": x, "context": c,
                          "correct": float(rng.random() < p), "chance": chance}
                         for c in range(contexts) for d, x, p in zip(DEPTHS, positions, curve)])


def verdicts(records, **kwargs):
    ushape = depth.u_shape(records, seed=0, n_resamples=1000, **kwargs)
    table = claims.claims_table(depth.depth_claims(ushape))
    claims.check_claims_table(table)
    return depth.with_verdicts(ushape, table), table


@pytest.mark.parametrize("curve,lost,primacy_sign,recency_sign", [
    ((0.9, 0.6, 0.3, 0.3, 0.6, 0.9), True, 1, 1),     # U-shape: both primacy and recency > 0
    ((0.6, 0.6, 0.6, 0.6, 0.6, 0.6), False, 0, 0),    # flat: neither
    ((0.3, 0.3, 0.3, 0.3, 0.6, 0.9), False, 0, 1),    # recency only
])
def test_u_shape_statistic_on_known_curves(curve, lost, primacy_sign, recency_sign):
    ushape, table = verdicts(synthetic_records(curve))
    row = ushape.iloc[0]
    # middle = mean of depths 0.4 and 0.6 (closest to 0.5); 60 contexts → sampling error ≈ ±0.1
    assert row["primacy"] == pytest.approx(curve[0] - (curve[2] + curve[3]) / 2, abs=0.15)
    assert row["recency"] == pytest.approx(curve[5] - (curve[2] + curve[3]) / 2, abs=0.15)
    assert bool(row["lost_in_the_middle"]) is lost
    assert (row["u_shape_verdict"] == "supported") is lost
    for sign, low, high in ((primacy_sign, "primacy_ci_low", "primacy_ci_high"), (recency_sign, "recency_ci_low", "recency_ci_high")):
        if sign > 0:
            assert row[low] > 0
        else:
            assert row[low] <= 0 <= row[high] or row[high] < 0.1
    # the joint claim is an intersection-union test: min of the two, [min low, min high], the larger p — or, when the
    # min is below 0, the smallest p of the k negative parts (evidence against the claim), times k (Bonferroni)
    joint = table.iloc[0]
    assert joint["estimate"] == pytest.approx(min(row["primacy"], row["recency"]))
    parts = {"primacy": (row["primacy"], row["primacy_p"]), "recency": (row["recency"], row["recency_p"])}
    negative = [p for estimate, p in parts.values() if estimate < 0]
    expected_p = max(p for _, p in parts.values()) if joint["estimate"] >= 0 else min(1.0, len(negative) * min(negative))
    assert joint["p_value"] == pytest.approx(expected_p)
    assert joint["ci_low"] == min(row["primacy_ci_low"], row["recency_ci_low"])
    assert joint["correction"] == "holm over 2 claims (family 'depth')"


def test_curves_with_fewer_than_ten_contexts_get_no_interval_and_no_verdict():
    records = synthetic_records((1.0, 0.0, 0.0, 0.0, 0.0, 1.0), contexts=9)  # a perfect U, but only 9 contexts
    ushape, table = verdicts(records)
    assert ushape["primacy_ci_low"].isna().all() and (ushape["primacy_method"] == "inconclusive: 9 contexts < 10 (no interval)").all()
    assert set(table["verdict"]) == {"inconclusive"} and table["evidence"].str.startswith("inconclusive: 9 contexts < 10").all()
    assert not table["claim"].str.contains("contexts <").any()  # the name stays what the planner declares
    curves = depth.curves(records)
    assert curves["ci_low"].isna().all() and curves["interval"].str.startswith("inconclusive").all()
    assert (curves["contexts"] == 9).all()
    length = depth.length_degradation(records, seed=0, n_resamples=500)
    assert length["ci_low"].isna().all()
    # ten contexts: intervals (exact per point) and a verdict
    ten = depth.curves(synthetic_records((1.0, 0.0, 0.0, 0.0, 0.0, 1.0), contexts=10))
    assert ten["ci_low"].notna().all() and (ten["interval"] == "clopper-pearson").all()
    ushape, table = verdicts(synthetic_records((1.0, 0.0, 0.0, 0.0, 0.0, 1.0), contexts=10))
    assert table.iloc[0]["verdict"] == "supported"  # 10 of 10 contexts: exact McNemar p = 2/1024 on each side


def test_u_shape_uses_actual_positions():
    # ten documents: depths 0, .2, .4, .6, .8, 1 land on documents 0, 2, 4, 5, 7, 9 → positions 0, 2/9, 4/9, 5/9, 7/9, 1
    positions = (0.0, 2 / 9, 4 / 9, 5 / 9, 7 / 9, 1.0)
    ushape = depth.u_shape(synthetic_records((0.9, 0.5, 0.2, 0.4, 0.5, 0.8), positions=positions), seed=0, n_resamples=500)
    row = ushape.iloc[0]
    assert row["middle_position"] == pytest.approx(0.5) and row["start_position"] == 0 and row["end_position"] == 1
    # three documents (2 at 256 tokens would be worse): depths 0, .2 → doc 0; .4, .6 → doc 1; .8, 1 → doc 2 —
    # the middle is the document at position 0.5 only, not depths 0.4/0.6 by name
    positions = (0.0, 0.0, 0.5, 0.5, 1.0, 1.0)
    curves = depth.curves(synthetic_records((0.9, 0.9, 0.2, 0.2, 0.8, 0.8), positions=positions))
    assert curves["position"].tolist() == list(positions)


def test_chance_level_floor_and_chance_corrected_length():
    # log-prob retrieval among 6 references (one correct): chance 1/6
    assert depth.chance_level([("a", True)] + [("b", False)] * 5, "multiple_choice_separate") == pytest.approx(1 / 6)
    assert depth.chance_level([("a", True), ("a2", True), ("b", False), ("c", False)], "multiple_choice_separate") == 0.5
    assert depth.chance_level([("a", True), ("b", False)], "generation") == 0.0
    # accuracy 0.25 at chance 1/6 is (0.25 − 1/6)/(5/6) = 0.1 chance-corrected: not at the floor (>= 0.05);
    # accuracy 0.20 → 0.04: at the floor although far above the old "mean < 5%" rule
    for accuracy, floor in ((0.25, False), (0.2, True)):
        contexts = 20
        correct = np.zeros((contexts, 6))
        correct.flat[:int(round(accuracy * correct.size))] = 1
        records = pd.DataFrame([{"model": "m", "task": "t", "length": 512, "method": "lp", "depth": d, "position": d,
                                 "context": c, "correct": correct[c, k], "chance": 1 / 6}
                                for c in range(contexts) for k, d in enumerate(DEPTHS)])
        row = depth.u_shape(records, seed=0, n_resamples=300).iloc[0]
        assert row["chance_corrected"] == pytest.approx((accuracy - 1 / 6) / (5 / 6)) and bool(row["floor"]) is floor
        length = depth.length_degradation(records, seed=0, n_resamples=300).iloc[0]
        assert length["chance_corrected"] == pytest.approx((accuracy - 1 / 6) / (5 / 6))
        assert length["ci_low"] <= length["chance_corrected"] <= length["ci_high"] and length["interval"] == "korn-graubard"
        # with one chance level the corrected interval is the raw accuracy's Korn–Graubard interval, mapped
        raw = stats.korn_graubard_ci(records["correct"].to_numpy(), records["context"].to_numpy())
        assert (length["ci_low"], length["ci_high"]) == pytest.approx(((raw.ci_low - 1 / 6) / (5 / 6),
                                                                       (raw.ci_high - 1 / 6) / (5 / 6)))


def test_depth_records_read_position_and_chance_from_runs():
    from helmlite.results import InstanceRecord

    from .fakes import make_run

    def record(depth_, position, correct):
        return InstanceRecord(id=f"i{position}", input="", prompt="", n_train=0, truncated=False, prompt_tokens=1,
                              references=[("gold", True)] + [(f"d{k}", False) for k in range(9)],
                              metadata={"depth": depth_, "context": 0, "target_tokens": 1024, "position": position, "n_items": 10,
                                        "relative_position": position / 9}, prediction=None, correct=correct,
                              metrics={"exact_match": float(correct)})
    run = make_run("m", "nq_multidoc", [1, 0], method="multiple_choice_separate")
    run.records[:] = [record(0.2, 2, True), record(0.6, 5, False)]
    records = depth.depth_records([run])
    assert records["position"].tolist() == pytest.approx([2 / 9, 5 / 9]) and records["chance"].tolist() == [0.1, 0.1]
    assert records["method"].iloc[0] == "log-prob retrieval"


def test_read_checks_are_labelled_apart_from_reproductions():
    litm = pd.DataFrame({"model": "GPT-3.5-Turbo", "setting": ["closed_book", "oracle"] + ["20_docs"] * 5,
                         "num_docs": [np.nan, np.nan] + [20] * 5, "gold_index": [np.nan, np.nan, 0, 4, 9, 14, 19],
                         "accuracy": [56.1, 88.3, 75.8, 57.2, 53.8, 55.4, 63.2]})
    table = depth.read_checks(litm)
    assert len(table) == 7 and (table["verdict"] == "read check").all() and table["note"].str.startswith("not a reproduction").all()
    assert depth.read_checks(None).empty


def test_power_table_beside_the_claims():
    ushape = depth.u_shape(synthetic_records((0.9, 0.6, 0.3, 0.3, 0.6, 0.9)), seed=0, n_resamples=500)
    claim_list = depth.depth_claims(ushape)
    power = depth.power_table(claim_list, claims.claims_table(claim_list))
    assert list(power.columns) == ["claim", "quantity", "n", "alpha", "mde", "effect", "n_needed"]
    assert (power["n"] == 60).all() and (power["n_needed"] > 60).all()  # 5 points needs more than 60 contexts


def test_primacy_recency_hand_derived():
    primacy, recency = depth.primacy_recency(np.array([0.8, 0.5, 0.4, 0.6, 0.5, 0.7]), np.array(DEPTHS))
    # middle = (0.4 + 0.6) / 2 = 0.5 → primacy 0.3, recency 0.2
    assert primacy == pytest.approx(0.3) and recency == pytest.approx(0.2)


def test_published_litm_curve_gpt35():
    table = pd.DataFrame({"source": "Table 6", "setting": "20_docs", "num_docs": 20, "model": "GPT-3.5-Turbo",
                          "gold_index": [0, 4, 9, 14, 19], "accuracy": [75.8, 57.2, 53.8, 55.4, 63.2]})
    curves = depth.litm_curves(table)
    stats = depth.published_primacy_recency(curves, ["model"]).iloc[0]
    # depths 0, 4/19, 9/19, 14/19, 1; middle = the depth closest to 0.5 (9/19) → 0.538
    assert stats["primacy"] == pytest.approx(0.758 - 0.538) and stats["recency"] == pytest.approx(0.632 - 0.538)
    assert stats["u_shaped"] and not stats["prefers_recent"]


def test_the_published_curves_load_from_the_registry_or_say_they_are_missing(mirrored_cache, cache, monkeypatch):
    """With the mirror: both papers' tables, LitM's Table 6 GPT-3.5 curve at 20 documents as the paper prints it
    (75.8 at the first position, 63.2 at the last; arXiv 2307.03172 Table 6), and the two files as the manifest's
    inputs. Offline without the mirror: None for each, both papers named as missing, no input."""
    papers = depth.published_curves()
    assert papers.missing == [] and set(papers.paths) == {"litm_tables", "helmet_depth"}
    gpt = papers.litm[(papers.litm["model"] == "GPT-3.5-Turbo") & (papers.litm["num_docs"] == 20)
                      & (papers.litm["source"].str.contains("6"))].sort_values("depth")
    assert gpt["accuracy"].iloc[0] == pytest.approx(0.758) and gpt["accuracy"].iloc[-1] == pytest.approx(0.632)
    monkeypatch.delenv("HELMLITE_DATA_MIRROR")
    monkeypatch.setenv("HELMLITE_DATA_CACHE", str(cache / "empty"))
    absent = depth.published_curves()
    assert (absent.litm_tables, absent.litm, absent.helmet, absent.paths) == (None, None, None, {})
    assert absent.missing == ["Lost in the Middle", "HELMET"]


def test_generation_with_and_without_prefix_reuse_agree(tiny_model_dir):
    """Several queries of one long context: the same greedy answers whether the context is re-encoded or reused."""
    model = load_model(str(tiny_model_dir))
    context = "The cat sat on the mat. Paris is in France. " * 12
    requests = [GenerationRequest(context + f"Question {k}: what is two plus two?\nAnswer:", max_tokens=5) for k in range(4)]
    model.reuse_prefixes = False
    plain = [g.text for g in model.generate(requests)]
    model.reuse_prefixes = True
    declared = [replace(r, prefixes=(len(context),)) for r in requests]  # the context declared shared, as a run does
    reused = [g.text for g in model.generate(declared)]
    assert plain == reused and model._prefix_lru  # the context's cache was built and kept


def test_a_depth_sweep_scores_the_same_with_its_shared_prefixes_reused(tiny_model_dir):
    """Issue #62 §2: the prompts of one needle context — three depths, each with its key-absent baseline — share their
    text up to the needle; the runner declares those levels (helmlite.evaluation.shared_prefixes) and the backend encodes each
    once, under 60% of the tokens. The exactness rules of all prefix reuse (docs/how-to/configs-and-clusters.md), fp32 on CPU: every
    per-token log-probability is within 1e-5 of a full forward of its prompt (fp32 rounding: the sums run in another
    order), and bit-identical to that request scored alone, so a stored score depends on its request only."""
    from helmlite.evaluation.adaptation import Adapted
    from helmlite.models import ScoreRequest
    from helmlite.scenarios.synthetic import load_niah
    from helmlite.evaluation.shared_prefixes import declare_shared_prefixes, sharing_group

    model = load_model(str(tiny_model_dir))
    instances = load_niah(target_tokens=56, n_contexts=2, depths=(0.0, 0.5, 1.0), distractors=3)
    adapted, groups = [], []
    for instance in instances:
        for variant in (instance, instance.baseline):
            continuations = tuple(" " + r.output for r in instance.references)
            adapted.append(Adapted(variant.id, variant.input, (ScoreRequest(variant.input, continuations),), 0, False))
            groups.append(sharing_group(instance))
    requests = [a.requests[0] for a in declare_shared_prefixes(adapted, groups)]
    assert sum(bool(r.prefixes) for r in requests) >= len(requests) // 2  # the needle's levels are declared
    model.reuse_prefixes, model.encoded_tokens = False, 0
    plain = model.score([replace(r, prefixes=()) for r in requests])
    whole = model.encoded_tokens
    model.reuse_prefixes, model.encoded_tokens = True, 0
    model.release_prefixes()
    reused = model.score(requests)
    assert model.encoded_tokens < 0.6 * whole
    assert [r.token_counts for r in plain] == [r.token_counts for r in reused]
    assert max(abs(x - y) for a, b in zip(plain, reused) for u, v in zip(a.token_logprobs, b.token_logprobs)
               for x, y in zip(u, v)) < 1e-5
    alone = []
    for request in requests:
        model.release_prefixes()
        alone += model.score([request])
    assert [r.token_logprobs for r in alone] == [r.token_logprobs for r in reused]  # bit for bit


def _logprob_records(correct, baseline, contexts=20, length=512):
    """Log-prob retrieval rows from per-depth (correct, baseline-hit) patterns, the same in every context."""
    return pd.DataFrame([{"model": "m", "task": "json_kv", "length": length, "method": depth.sweeps.SCORE_NAME["multiple_choice_separate"],
                          "depth": d, "position": d, "context": c, "correct": float(correct[k]), "chance": 1 / 6,
                          "baseline": float(baseline[k]) if baseline is not None else np.nan}
                         for c in range(contexts) for k, d in enumerate(DEPTHS)])


def test_candidate_preference_is_removed_by_the_baseline():
    """Issue 24 §5: a model that always picks the first candidate scores 1 at depth 0 whatever it is asked.
    Raw accuracy would read as primacy; with the baseline (which also hits at depth 0) the score is 0 at
    every depth, the curve is at the floor and gets no verdict."""
    first_only = (1, 0, 0, 0, 0, 0)
    records = _logprob_records(first_only, first_only)
    ushape, table = verdicts(records)
    row = ushape.iloc[0]
    assert row["score"] == "accuracy − baseline" and row["mean_score"] == 0 and bool(row["floor"])
    assert row["primacy"] == 0 and np.isnan(row["primacy_ci_low"]) and "floor" in row["no_verdict"]
    assert set(table["verdict"]) == {"inconclusive"}
    curves = depth.curves(records)
    assert curves["baseline"].tolist() == list(map(float, first_only)) and (curves["difference"] == 0).all()
    # without the baseline a log-prob curve gets no verdict either (preference not removed)
    ushape, table = verdicts(_logprob_records(first_only, None))
    assert ushape.iloc[0]["no_verdict"] == f"inconclusive: {depth.sweeps.NO_BASELINE}"
    assert set(table["verdict"]) == {"inconclusive"}


def test_retrieval_above_the_baseline_is_tested_on_the_difference():
    """Correct everywhere; the baseline hits at depth 0 only: score 0 at the start, 1 elsewhere, so primacy
    = 0 − 1 = −1 and end − start = 1 − 0 = 1, end − middle = 0 (hand-derived)."""
    ushape, table = verdicts(_logprob_records((1, 1, 1, 1, 1, 1), (1, 0, 0, 0, 0, 0)))
    row = ushape.iloc[0]
    assert (row["primacy"], row["recency"], row["recency_minus_primacy"]) == (-1.0, 0.0, 1.0)
    helmet = table.set_index("quantity").loc["recency_preferred:m:json_kv:512:logprob"]
    # HELMET's claim needs end − start > 0 AND end − middle > 0: the intersection–union estimate is the smaller
    assert helmet["estimate"] == 0.0 and helmet["verdict"] == "inconclusive"


def test_position_tests_use_the_gold_probability_over_its_baseline():
    """Where the baseline's probabilities are stored the score is P(gold) − baseline P(gold) per row. Five of six
    answers are right and the baseline always hits at depth 0, so the 0/1 score would read primacy = −1; the probabilities say the query adds 0.30 at the ends and 0.10 in the middle: primacy
    = recency = 0.20 (hand-derived; noise-free, so the paired bootstrap's interval has zero width and the
    verdict needs spread: a per-context jitter of ±0.01 gives it), a U-shape supported after Holm."""
    rng = np.random.default_rng(3)
    gain = {0.0: 0.3, 0.2: 0.2, 0.4: 0.1, 0.6: 0.1, 0.8: 0.2, 1.0: 0.3}
    records = _logprob_records((1, 1, 0, 1, 1, 1), (1, 0, 0, 0, 0, 0), contexts=30)  # accuracy 5/6: not at the ceiling
    base = 0.2 + 0.01 * rng.standard_normal(len(records))
    records = records.assign(baseline_probability=base,
                             probability=base + records["depth"].map(gain) + 0.01 * rng.standard_normal(len(records)))
    assert depth.sweeps.scores(records) == pytest.approx(records.probability - records.baseline_probability)
    ushape, table = verdicts(records)
    row = ushape.iloc[0]
    assert row["score"] == "P(gold) − baseline P(gold)" and not row["floor"]  # the query adds 0.1–0.3 of room 0.8
    assert row["primacy"] == pytest.approx(0.2, abs=0.01) and row["recency"] == pytest.approx(0.2, abs=0.01)
    assert table.set_index("quantity").loc["u_shape_min_primacy_recency:m:json_kv:512:logprob", "verdict"] == "supported"
    curves = depth.curves(records, seed=0, n_resamples=300)
    expected = (records.probability - records.baseline_probability).groupby(records.depth).mean()
    assert curves.set_index("depth")["probability_difference"].to_numpy() == pytest.approx(expected.to_numpy())
    assert (curves["probability_difference_ci_low"] < curves["probability_difference"]).all()
    assert depth.length_tests(records, seed=0, n_resamples=300).empty  # one length: no length test


def test_one_part_below_zero_contradicts_an_intersection_union_claim():
    """"Both parts > 0" is refuted by one part below 0: the smallest p-value among the k negative parts decides, not
    the larger of the two (which a part near 0 keeps large), Bonferroni-corrected for being the smallest: min(1, k·p)
    (hand-derived from the two parts' own p-values). Curve: the middle beats the start by 0.2 (primacy −0.2), the
    end equals the middle (recency ≈ 0): U-shape contradicted."""
    rng = np.random.default_rng(4)
    gain = {0.0: 0.1, 0.2: 0.2, 0.4: 0.3, 0.6: 0.3, 0.8: 0.3, 1.0: 0.3}
    records = _logprob_records((1, 1, 1, 0, 1, 1), (0,) * 6, contexts=30)  # accuracy 5/6: not at the ceiling
    records = records.assign(baseline_probability=0.2, probability=0.2 + records["depth"].map(gain)
                             + 0.01 * rng.standard_normal(len(records)))
    ushape, table = verdicts(records)
    row, claim = ushape.iloc[0], table.set_index("quantity").loc["u_shape_min_primacy_recency:m:json_kv:512:logprob"]
    assert row["primacy"] == pytest.approx(-0.2, abs=0.01) and abs(row["recency"]) < 0.01
    negative = [row[f"{name}_p"] for name in ("primacy", "recency") if row[name] < 0]
    assert claim["p_value"] == pytest.approx(min(1.0, len(negative) * min(negative))) and claim["verdict"] == "contradicted"


@pytest.mark.parametrize("base, gain, flag", [(0.2, 0.78, "ceiling"), (0.2, 0.02, "floor")])
def test_a_curve_whose_score_is_at_the_ceiling_or_floor_gets_no_verdict(base, gain, flag):
    """Issue #62: the flags are judged on the score the tests use, P(gold) − baseline P(gold). P(gold) = 0.98 at every
    depth (a U of ±0.01 on top) is at the ceiling (> 0.95); a query that adds 0.02 over a baseline of 0.2 fills 2.5% of
    the room 0.8 above it (< 5%): the floor. Hand-derived thresholds; accuracy is 1 everywhere in both."""
    rng = np.random.default_rng(5)
    shape = {0.0: 0.01, 0.2: 0.0, 0.4: -0.01, 0.6: -0.01, 0.8: 0.0, 1.0: 0.01}
    records = _logprob_records((1,) * 6, (0,) * 6, contexts=30)
    records = records.assign(baseline_probability=base, probability=base + gain + records["depth"].map(shape)
                             + 0.001 * rng.standard_normal(len(records)))
    ushape, table = verdicts(records)
    row = ushape.iloc[0]
    assert row["no_verdict"] == f"inconclusive: at the {flag} (no verdict)" and np.isnan(row["primacy_ci_low"])
    assert set(table["verdict"]) == {"inconclusive"}


def test_a_curve_always_right_by_a_moderate_margin_is_tested():
    """Issue #62: Gemma-3's needle at 512 tokens — accuracy 1.0 at every depth, P(gold) ≈ 0.27 over a baseline of
    0.22 — was flagged "at the ceiling" on its accuracy while its tested score (≈ 0.05, room 0.78) can move both ways.
    Here the query adds 0.06 at the ends and 0.03 in the middle (primacy = recency = 0.03, hand-derived): neither flag,
    and the U-shape is supported."""
    rng = np.random.default_rng(6)
    gain = {0.0: 0.06, 0.2: 0.045, 0.4: 0.03, 0.6: 0.03, 0.8: 0.045, 1.0: 0.06}
    records = _logprob_records((1,) * 6, (0,) * 6, contexts=30)
    records = records.assign(baseline_probability=0.22, probability=0.22 + records["depth"].map(gain)
                             + 0.005 * rng.standard_normal(len(records)))
    ushape, table = verdicts(records)
    row = ushape.iloc[0]
    assert not row["floor"] and not row["ceiling"] and row["no_verdict"] == ""
    assert row["primacy"] == pytest.approx(0.03, abs=0.005) and row["recency"] == pytest.approx(0.03, abs=0.005)
    assert table.set_index("quantity").loc["u_shape_min_primacy_recency:m:json_kv:512:logprob", "verdict"] == "supported"


def test_gold_probability_sums_the_correct_references_and_survives_the_record_format():
    """P(gold) = the softmax mass on the correct references (0.5 + 0.2 here, by hand); a baseline variant's
    probabilities round-trip through instances.jsonl, and a variant without them writes no key."""
    from helmlite.results import InstanceRecord, PerturbedOutcome
    refs = [("a", True), ("b", False), ("c", True)]
    assert depth.sweeps.gold_probability([0.5, 0.3, 0.2], refs) == pytest.approx(0.7)
    assert np.isnan(depth.sweeps.gold_probability(None, refs))
    record = InstanceRecord("i", "x", "x", 0, False, 3, refs, {}, "a", True, {"exact_match": 1.0},
                            perturbed={"baseline": PerturbedOutcome("b", False, {"exact_match": 0.0}, [0.2, 0.5, 0.3]),
                                       "typos": PerturbedOutcome("a", True, {"exact_match": 1.0})})
    raw = record.to_json()
    assert "probabilities" not in raw["perturbed"]["typos"]
    assert InstanceRecord.from_json(raw).perturbed["baseline"].probabilities == [0.2, 0.5, 0.3]


def test_helmet_recency_is_an_intersection_union_test():
    """Recency preferred needs end > start and end > middle: a curve rising to the end supports it; a curve whose
    end beats its start but not its middle does not (the smaller difference decides)."""
    rising = synthetic_records((0.1, 0.1, 0.1, 0.1, 0.5, 0.95), contexts=60)
    _, table = verdicts(rising)
    assert table.set_index("quantity").loc["recency_preferred:m:t:512:generation", "verdict"] == "supported"
    humped = synthetic_records((0.1, 0.5, 0.95, 0.95, 0.6, 0.5), contexts=60)
    ushape, table = verdicts(humped)
    row, claim = ushape.iloc[0], table.set_index("quantity").loc["recency_preferred:m:t:512:generation"]
    assert claim["estimate"] == pytest.approx(min(row["recency_minus_primacy"], row["recency"]))
    assert claim["p_value"] == pytest.approx(max(row["recency_minus_primacy_p"], row["recency_p"]))
    assert claim["verdict"] != "supported"


def test_length_degradation_test_is_paired_by_context():
    """Score at the shortest length minus the longest, per context: the estimate equals the mean over contexts
    of (mean score at 512 − mean score at 1024), computed here directly with pandas; a large drop (accuracy
    0.9 → 0.3 over a baseline of 0.1) is supported; fewer contexts → no verdict; both lengths at the floor →
    no verdict."""
    rng = np.random.default_rng(1)
    def draw(p, length):
        return _logprob_records(rng.random(6) < p, rng.random(6) < 0.1, contexts=1, length=length)
    frames = [draw(p, length).assign(context=c) for c in range(40) for p, length in ((0.9, 512), (0.3, 1024))]
    records = pd.concat(frames, ignore_index=True)
    tests = depth.length_tests(records, seed=0, n_resamples=500)
    row = tests.iloc[0]
    # normalised by 1 − chance (chance 1/6 here), so perfect retrieval scores 1 whatever the number of candidates
    per_context = (records.assign(score=(records.correct - records.baseline) / (1 - records.chance))
                   .groupby(["length", "context"])["score"].mean().unstack("length"))
    assert row["difference"] == pytest.approx((per_context[512] - per_context[1024]).mean())
    assert (row["short"], row["long"], row["score"], row["no_verdict"]) == (512, 1024, "(accuracy − baseline)/(1 − chance)", "")
    table = claims.claims_table(depth.depth_claims(depth.u_shape(records, seed=0, n_resamples=300), tests))
    assert table.set_index("quantity").loc["length_degradation:m:json_kv:512-1024:logprob", "verdict"] == "supported"
    few = depth.length_tests(records[records.context < 5], seed=0, n_resamples=300)
    assert few.iloc[0]["no_verdict"].startswith("inconclusive: 5 contexts") and np.isnan(few.iloc[0]["ci_low"])
    floor = records.assign(correct=records.baseline)  # retrieval no better than the baseline at either length
    assert "floor" in depth.length_tests(floor, seed=0, n_resamples=300).iloc[0]["no_verdict"]


def test_length_score_does_not_move_with_the_number_of_candidates():
    """Perfect retrieval over a baseline at chance: (1 − 1/2)/(1 − 1/2) = 1 with two candidates and
    (1 − 1/6)/(1 − 1/6) = 1 with six, so no spurious length effect (raw accuracy − baseline would read 0.5 vs 0.83)."""
    two = _logprob_records((1,) * 6, (1, 0, 1, 0, 1, 0), contexts=20, length=256).assign(chance=0.5)
    six = _logprob_records((1,) * 6, (1, 0, 0, 0, 0, 0), contexts=20, length=512)
    row = depth.length_tests(pd.concat([two, six]), seed=0, n_resamples=300).iloc[0]
    assert row["score_short"] == pytest.approx(1.0) and row["score_long"] == pytest.approx(1.0) and row["difference"] == 0


def test_a_curve_whose_depths_land_on_two_items_gets_no_verdict():
    """JSON KV at 256 tokens holds two pairs: every depth lands on item 0 or 1, so there is no middle."""
    records = synthetic_records((1.0, 1.0, 1.0, 0.0, 0.0, 0.0), contexts=20, positions=(0, 0, 0, 1, 1, 1))
    ushape, table = verdicts(records)
    assert ushape.iloc[0]["no_verdict"] == "inconclusive: the depths land on 2 items (no middle)"
    assert set(table["verdict"]) == {"inconclusive"}


def test_live_curves_say_why_a_panel_is_empty():
    """Two tasks, one of them run only with generation: the log-probability panel of that task carries the
    'not run' note naming the model, scoring and task; panels with data carry none."""
    from helmlite.analyses.depth.figures import live_curves

    rows = [{"task": task, "model": "m", "method": method, "length": 512, "position": position, "accuracy": 0.5,
             "ci_low": 0.3, "ci_high": 0.7, "chance": 0.1, "baseline": 0.2}
            for task, methods in (("json_kv", ("generation", "multiple_choice_separate")), ("niah", ("generation",)))
            for method in methods for position in (0.0, 1.0)]
    fig = live_curves(pd.DataFrame(rows))
    texts = [[t.get_text() for t in ax.texts] for ax in fig.axes]
    assert len(texts) == 4 and texts[:3] == [[], [], []]  # rows json_kv, niah × columns generation, log-prob
    assert texts[3] == ["not run:\nm multiple_choice_separate\nis not configured for niah"]


def test_a_run_without_depth_runs_gives_empty_tables_and_says_so_in_the_figures():
    """Notebook 04 with no depth run (e.g. a config without the depth analysis): every step returns an empty
    table with its columns, no claim, and each figure says there is nothing to draw."""
    from helmlite.analyses.depth import figures as figs

    records = depth.depth_records([])
    ushape = depth.u_shape(records, seed=0, n_resamples=100)
    lengths = depth.length_tests(records, seed=0, n_resamples=100)
    table = claims.claims_table(depth.depth_claims(ushape, lengths))
    ushape = depth.with_verdicts(ushape, table)
    assert ushape.empty and {"no_verdict", "primacy_p", "u_shape_verdict", "lost_in_the_middle"} <= set(ushape.columns)
    assert table.empty
    drawn = {"u_shape": figs.u_shape(ushape), "live_curves": figs.live_curves(depth.curves(records, seed=0, n_resamples=100)),
             "length_curve": figs.length_curve(depth.length_degradation(records, seed=0, n_resamples=100))}
    said = {name: [" ".join(t.get_text().split()) for ax in fig.axes for t in ax.texts] for name, fig in drawn.items()}  # wrapped
    assert said == {"u_shape": ["no live depth curve to test"], "live_curves": [figs.NO_RUNS], "length_curve": [figs.NO_RUNS]}


def test_u_shape_points_are_labelled_with_their_curve():
    from helmlite.analyses.depth.figures import u_shape

    records = pd.concat([synthetic_records((0.9, 0.6, 0.3, 0.3, 0.6, 0.9), contexts=20).assign(model=m) for m in ("a", "b")])
    ushape, _ = verdicts(records)
    fig = u_shape(ushape)
    assert sorted(t.get_text() for t in fig.axes[0].texts) == ["a · t · 512", "b · t · 512"]


def test_published_curves_within_two_points_are_not_called_u_shaped():
    """Hand-made: start 0.61, middle 0.60, end 0.61 (one point either side) is flat within the stated tolerance;
    start 0.64, middle 0.60, end 0.63 is U-shaped; end − start of 0.01 does not make recency preferred."""
    rows = [{"model": m, "depth": d, "accuracy": a} for m, curve in (("flat", (0.61, 0.60, 0.61)), ("u", (0.64, 0.60, 0.63)))
            for d, a in zip((0.0, 0.5, 1.0), curve)]
    stats = depth.published_primacy_recency(pd.DataFrame(rows), ["model"]).set_index("model")
    assert depth.PUBLISHED_TOLERANCE == 0.02 and (stats["tolerance"] == 0.02).all()
    assert not stats.loc["flat", "u_shaped"] and stats.loc["u", "u_shaped"]
    assert not stats["prefers_recent"].any()


@pytest.mark.parametrize("parts, expected, expected_floor", [
    ({"primacy": (-0.2, 0.01), "recency": (-0.1, 0.04)}, 0.02, 0.002),    # both below 0: 2 × the smaller p (and floor)
    ({"primacy": (-0.2, 0.01), "recency": (0.05, 0.30)}, 0.01, 0.001),    # one below 0: its own p
    ({"primacy": (0.2, 0.01), "recency": (0.1, 0.04)}, 0.04, 0.003),      # both above: the larger p (the claim's test)
    ({"primacy": (-0.2, 0.6), "recency": (-0.1, 0.9)}, 1.0, 0.002),       # capped at 1
    ({"primacy": (-0.2, float("nan")), "recency": (-0.1, float("nan"))}, float("nan"), 0.0),  # no verdict: no p
])
def test_intersection_union_p_is_bonferroni_over_the_negative_parts(parts, expected, expected_floor):
    """Hand-derived: min(1, k · the smallest p of the k parts below 0); NaN (out of the Holm family) for a curve
    without a verdict, whose parts carry no p. The floor follows the part that gives p (primacy's floor 0.001,
    recency's 0.003), k times it for the corrected minimum."""
    from types import SimpleNamespace

    row = SimpleNamespace(**{name: est for name, (est, _) in parts.items()},
                          **{f"{name}_p": p for name, (_, p) in parts.items()},
                          primacy_p_floor=0.001, recency_p_floor=0.003,
                          **{f"{name}_ci_{end}": 0.0 for name in parts for end in ("low", "high")})
    p, floor = depth.claims._intersection_union(row, "u", ("primacy", "recency"))[3:]
    assert (np.isnan(p) and np.isnan(expected)) or p == pytest.approx(expected)
    assert floor == pytest.approx(expected_floor)


def test_the_summary_states_the_sweeps_tasks_lengths_contexts_and_models():
    """Issue #62: "What this run shows" says which regime its verdicts are about (hand-written expectation)."""
    records = pd.concat([_logprob_records((1,) * 6, (0,) * 6, contexts=12).assign(model=model) for model in ("b", "a")])
    assert depth.sweep_scope(records) == (
        "Live sweeps: **json_kv** at 512 tokens (12 contexts per curve, depths 0 / 0.2 / 0.4 / 0.6 / 0.8 / 1); models a, "
        "b; scored by log-prob retrieval. All are shorter than Lost in the Middle's own contexts (10–30 documents of ~100 "
        "words, ~1.6K–4.7K tokens): the verdicts are about this regime.")
    assert depth.sweep_scope(records.assign(length=2048)).endswith("scored by log-prob retrieval.")
    assert depth.sweep_scope(records.iloc[:0]) == "No live depth sweep in this run."


def test_the_u_shape_note_counts_tested_curves_and_names_why_others_get_none():
    """Hand-built table: two curves get a verdict (one U-shaped), one has too few contexts; with none untested the note
    ends after the count (the default run of 2026-12-07 printed "0 curves get none ()")."""
    ushape = pd.DataFrame({"no_verdict": ["", "", "inconclusive: 4 contexts < 10 (no interval)"],
                           "lost_in_the_middle": [True, False, False]})
    table = pd.DataFrame({"correction": ["holm"]})
    assert depth.u_shape_note(ushape, table) == ("**1 of 2** curves that get a verdict show a U-shape after Holm's correction "
                                                 "(holm); 1 get none (inconclusive: 4 contexts < 10 (no interval)).")
    assert depth.u_shape_note(ushape.iloc[:2], table) == ("**1 of 2** curves that get a verdict show a U-shape after "
                                                          "Holm's correction (holm).")


def test_published_statistics_without_the_mirror_is_an_empty_table_with_its_columns():
    """Both papers' tables are mirror-only: absent, the package returns the table the notebook writes (its columns,
    no rows) instead of the notebook typing them."""
    table = depth.published_statistics(None, None)
    assert table.empty and list(table.columns) == depth.published.PUBLISHED_COLUMNS
