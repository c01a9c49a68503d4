"""HELM's own rules for live runs (issue 16 §3), each on hand-built inputs with hand-derived values:
decision rules per method, calibration confidence, BBQ, the fairness gender perturbation, BOLD sampling,
the ``helm_compat`` test subsample in the runner and ``helmlite prompts``."""
from __future__ import annotations

import json
import math
import random

import pytest

from helmlite import cli
from helmlite.evaluation import perturbations as P
from helmlite.evaluation.adaptation import AdapterSpec, Adapted
from helmlite.scenarios import helm_eval_subsample
from helmlite.metrics.calibration import expected_calibration_error, selective_accuracy
from helmlite.evaluation.outcomes import outcome
from helmlite.models import Generation, Scores
from helmlite.evaluation.scoring_rules import decision_rules
from helmlite.evaluation.instances import adapted_prompts, load_instances
from helmlite.evaluation.runspec import RunSpec
from helmlite.scenarios import Instance, Reference

from .fakes import WordModel

QUESTION = Instance("q", "Pick", (Reference("a"), Reference("bb", True), Reference("ccc")), "test")


def scores(logprobs, counts):
    return Scores(tuple(logprobs), tuple((v,) for v in logprobs), tuple(counts), 10, 0.0)


def test_separate_picks_by_log_probability_per_token_and_keeps_the_sum_as_an_option():
    """Sums −2, −3, −4.5 over 1, 3 and 3 tokens: per token −2, −1, −1.5 → choice 1 (HELM); summed → choice 0."""
    adapted = Adapted("q", "", (), 0, False, ("a", "bb", "ccc"))
    out = [scores([-2.0, -3.0, -4.5], [1, 3, 3])]
    helm = outcome(QUESTION, adapted, out, "multiple_choice_separate", "exact_match")
    assert helm["scores"] == [-2.0, -1.0, -1.5] and helm["predicted_index"] == 1 and helm["correct"]
    # confidence: max softmax over the per-token scores = e^−1 / (e^−2 + e^−1 + e^−1.5)
    assert helm["confidence"] == pytest.approx(math.exp(-1) / (math.exp(-2) + math.exp(-1) + math.exp(-1.5)))
    summed = outcome(QUESTION, adapted, out, "multiple_choice_separate", "exact_match",
                     adapter=AdapterSpec(method="multiple_choice_separate", separate_score="sum"))
    assert summed["predicted_index"] == 0 and not summed["correct"]
    # calibrated: summed minus the null prompt's summed log-probability, as HELM (no per-token division)
    calibrated = outcome(QUESTION, adapted, out + [scores([-1.0, -5.0, -1.0], [1, 3, 3])],
                         "multiple_choice_separate_calibrated", "exact_match")
    assert calibrated["scores"] == [-1.0, 2.0, -3.5] and calibrated["predicted_index"] == 1


@pytest.mark.parametrize("text,index,correct,kept", [(" B", 1, True, 1), ("B", 1, True, 1), (" A", 0, False, 1),
                                                     (" The", None, False, 1), ("", None, False, 0), (" b", None, False, 1)])
def test_helm_greedy_joint_exact_matches_the_stripped_letter(text, index, correct, kept):
    """HELM: strip the greedy completion, map a letter to its reference text, exact-match against the
    correct references; anything that is not a letter (or a lower-case one) is wrong. A greedy newline is the empty
    completion with no token kept (the request's stop sequence), so its confidence is HELM's exp(0) = 1."""
    adapted = Adapted("q", "", (), 0, False, ("A", "B", "C"))
    generation = Generation(text, 10, kept, (math.log(0.4),) * kept, 0.0)
    out = outcome(QUESTION, adapted, [generation], "multiple_choice_joint", "exact_match",
                  adapter=AdapterSpec(method="multiple_choice_joint", joint_decision="helm_greedy"))
    assert out["predicted_index"] == index and out["correct"] is correct and out["metrics"] == {"exact_match": float(correct)}
    assert out["confidence"] == pytest.approx(0.4 if kept else 1.0)  # HELM's max_prob: exp(log-probability of the completion)
    assert out["prediction"] == text.strip() and out["completion"] == text


def test_letter_logprob_joint_confidence_is_the_softmax_over_letters():
    adapted = Adapted("q", "", (), 0, False, ("A", "B", "C"))
    out = outcome(QUESTION, adapted, [scores([math.log(0.1), math.log(0.3), math.log(0.1)], [1, 1, 1])],
                  "multiple_choice_joint", "exact_match")
    assert out["predicted_index"] == 1 and out["confidence"] == pytest.approx(0.6)


def test_decision_rules_are_recorded():
    joint = RunSpec.from_dict({"scenario": "mmlu", "model": "m", "adapter": {"method": "multiple_choice_joint",
                                                                             "joint_decision": "helm_greedy"}})
    assert decision_rules(joint) == {"selection": "helm_compat", "joint_decision": "helm_greedy",
                                     "confidence": "exp(log-probability of the greedy completion)"}
    separate = RunSpec.from_dict({"scenario": "mmlu", "model": "m", "adapter": {"selection": "hashed"}})
    assert decision_rules(separate)["separate_score"] == "per_token" and decision_rules(separate)["selection"] == "hashed"
    assert joint.run_id != RunSpec.from_dict({"scenario": "mmlu", "model": "m",
                                              "adapter": {"method": "multiple_choice_joint"}}).run_id


# Confidences (two decimals, so with ties) and outcomes of one simulated run, with the values the
# uncertainty-calibration package that HELM calls (0.1.4) returns: get_ece_em(…, num_bins=10) = 0.18,
# get_ece(…, num_bins=1) = 0.0591304…, get_selective_stats(…)[1] = 1.0.
CONF = [0.8, 0.97, 0.46, 0.74, 0.77, 0.47, 0.25, 0.98, 0.47, 0.49, 0.92, 0.69, 0.6, 0.83, 0.27, 0.78, 0.53, 0.32, 0.75, 0.95,
        0.41, 0.72, 0.47]
CORRECT = [1, 1, 1, 0, 1, 0, 0, 1, 0, 0, 1, 0, 1, 1, 1, 1, 1, 0, 1, 1, 1, 1, 1]


def test_calibration_matches_the_package_helm_calls():
    assert expected_calibration_error(CONF, CORRECT, 10) == pytest.approx(0.18, abs=1e-12)
    assert expected_calibration_error(CONF, CORRECT, 1) == pytest.approx(0.0591304347826086, abs=1e-12)
    assert selective_accuracy(CONF, CORRECT, 0.1) == 1.0  # top int(2.3) + 1 = 3: 0.98, 0.97, 0.95, all correct


def test_gender_perturbation_is_helms_pronoun_mode():
    """HELM's golden pronoun example, and HELM's regex quirks: a pronoun at the very start or end of the text
    is not matched, and the character after a match is consumed; gender terms are left alone."""
    rng = random.Random(0)
    assert P.perturbation("gender").steps == (P.helm_gender_pronouns,)
    text = "Did she mention that he was coming with his parents and their friends?"
    assert P.helm_gender_pronouns(text, rng, {}) == "Did she mention that she was coming with her parents and their friends?"
    assert P.helm_gender_pronouns("He told his son about him", rng, {}) == "He told her son about him"
    assert P.helm_gender_pronouns("I saw him himself.", rng, {}) == "I saw her herself."
    assert P.helm_gender_pronouns(" HE and he he.", rng, {}) == " SHE and she he."
    perturbed = P.perturb_instance(Instance("i", "Was it his?", (Reference("Yes, his dad.", True),), "test"), "gender")
    assert perturbed.input == "Was it her?" and perturbed.references[0].output == "Yes, her dad."


@pytest.mark.parametrize("dialect, gender, race, fairness", [
    (1.0, 1.0, 1.0, 1.0), (1.0, 0.0, 1.0, 0.0), (1.0, 1.0, 0.0, 0.0), (0.0, 1.0, 1.0, 0.0)])
def test_fairness_is_the_worst_case_over_dialect_gender_and_race(dialect, gender, race, fairness):
    """HELM's fairness metric for an instance: the minimum of the main metric over the original and every fairness
    perturbation together (dialect, gender and race: ``PerturbationSpec``s of one ``fairness`` group, aggregated by
    HELM's worst case), by hand; the robustness variant (wrong here) enters only the robustness worst case."""
    from types import SimpleNamespace

    from helmlite.evaluation.perturbations import perturbation_kinds
    from helmlite.metrics.families import add_worst_cases

    variants = {"dialect": dialect, "gender": gender, "race": race, "robustness": 0.0}
    record = SimpleNamespace(metrics={"exact_match": 1.0},
                             perturbed={name: SimpleNamespace(metrics={"exact_match": v}) for name, v in variants.items()})
    kinds = perturbation_kinds(variants)
    add_worst_cases(record, "exact_match", ("fairness", "robustness"), kinds)
    assert record.metrics == {"exact_match": 1.0, "exact_match_fairness": fairness, "exact_match_robustness": 0.0}
    wrong = SimpleNamespace(metrics={"exact_match": 0.0},  # the original wrong: every worst case is 0
                            perturbed={name: SimpleNamespace(metrics={"exact_match": 1.0}) for name in variants})
    add_worst_cases(wrong, "exact_match", ("fairness", "robustness"), kinds)
    assert wrong.metrics == {"exact_match": 0.0, "exact_match_fairness": 0.0, "exact_match_robustness": 0.0}


def test_bold_samples_at_temperature_0_9(mirrored_cache):
    spec = RunSpec.from_dict({"scenario": "bold", "model": "m", "max_instances": 2})
    assert spec.adapter.temperature == 0.9 and spec.adapter.max_tokens == 20
    assert decision_rules(spec)["sampling"] == "temperature 0.9, seeded per instance"


def test_helm_compat_subsample_keeps_helms_sampled_order(mirrored_cache):
    spec = RunSpec.from_dict({"scenario": "mmlu", "model": "m", "args": {"subject": "econometrics"}, "max_instances": 10})
    _, test = load_instances(spec, WordModel())
    # HELM's eval instances: econometrics' 12 validation questions, then its 114 test questions (MMLUScenario's load
    # order); np.random.seed(0); np.random.choice(126, 10, replace=False) (numpy's legacy global stream, as HELM's
    # downsample_eval_instances calls it): 8, 50, 43, 24, 63, 99, 54, 91, 7, 112
    evaluated = [f"mmlu/econometrics/val/{k}" for k in range(12)] + [f"mmlu/econometrics/test/{k}" for k in range(114)]
    assert [i.id for i in test] == [evaluated[k] for k in (8, 50, 43, 24, 63, 99, 54, 91, 7, 112)]
    assert [i.id for i in test] == [evaluated[k] for k in helm_eval_subsample(126, 10)]
    hashed = RunSpec.from_dict({"scenario": "mmlu", "model": "m", "args": {"subject": "econometrics"}, "max_instances": 10,
                                "adapter": {"selection": "hashed"}})
    ids = [evaluated.index(i.id) for i in load_instances(hashed, WordModel())[1]]
    assert ids == sorted(ids)


def test_mmlu_instructions_name_the_subject():
    spec = RunSpec.from_dict({"scenario": "mmlu", "model": "m", "args": {"subject": "us_foreign_policy"}})
    assert spec.adapter.instructions == "The following are multiple choice questions (with answers) about us foreign policy."
    assert RunSpec.from_dict({"scenario": "mmlu", "model": "m"}).adapter.instructions.endswith("about abstract algebra.")
    custom = RunSpec.from_dict({"scenario": "mmlu", "model": "m", "adapter": {"instructions": "Answer."}})
    assert custom.adapter.instructions == "Answer."


def test_prompts_command_writes_jsonl_without_a_model(mirrored_cache, capsys):
    argv = ["prompts", "--scenario", "mmlu", "--arg", "subject=computer_security", "--method", "multiple_choice_joint",
            "--max-instances", "3"]
    assert cli.main(argv) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    spec = RunSpec.from_dict({"scenario": "mmlu", "model": "none", "args": {"subject": "computer_security"}, "max_instances": 3,
                              "adapter": {"method": "multiple_choice_joint"}})
    assert [(line["id"], line["prompt"]) for line in lines] == adapted_prompts(spec)
    assert len(lines) == 3 and set(lines[0]) == {"id", "prompt"}
    assert lines[0]["prompt"].startswith("The following are multiple choice questions (with answers) about computer security.\n\n")
    assert lines[0]["prompt"].endswith("\nAnswer:")
    assert cli.main(["prompts", "--scenario", "mmlu", "--arg", "subject=computer_security", "--selection", "hashed"]) == 0
    assert len(capsys.readouterr().out.splitlines()) == 111  # every evaluated item without --max-instances: 11 val + 100 test
    assert cli.main(["prompts", "--scenario", "nope"]) == 2
    assert "unknown scenario 'nope'" in capsys.readouterr().err


def test_bbq_bias_table_shows_both_ambiguous_scores(mirrored_cache, tmp_path):
    from helmlite.analyses.helm_core import bbq_bias_table, calibration_table
    from helmlite.results import read_run
    from helmlite.evaluation.runner import execute

    spec = RunSpec.from_dict({"scenario": "bbq", "model": "w", "args": {"category": "Age"}, "max_instances": 12})
    execute(spec, WordModel(), results_dir=tmp_path, n_resamples=100)
    run = read_run(tmp_path, spec.run_id)
    table = bbq_bias_table([run])
    quantities = set(table["quantity"])
    assert {"bias score, ambiguous: HELM (1 − accuracy over all items)",
            "bias score, ambiguous: Parrish et al. (1 − accuracy on ambiguous items)"} <= quantities
    assert all(r.confidence is not None for r in run.records) and run.stats.decision["selection"] == "helm_compat"
    assert len(calibration_table([run], seed=0, n_simulations=50)) == 1


def test_calibration_table_pools_a_models_multiple_choice_runs(mirrored_cache, tmp_path):
    """Two MC runs of one model: their rows plus a pooled row whose ECE and test are those of the concatenated
    items (checked against calibration_error_test on the same list); the claims keep only the pooled row."""
    from helmlite.analyses import helm_core
    from helmlite.analyses.helm_core import calibration_table
    from helmlite.analyses.helm_core import claims as helm_claims
    from helmlite.analyses.helm_core.live import POOLED
    from helmlite.metrics.calibration import calibration_error_test
    from helmlite.metrics.families import confidence_of
    from helmlite.results import read_run
    from helmlite.evaluation.runner import execute
    from helmlite.seeds import rng

    runs = []
    for scenario, args in (("bbq", {"category": "Age"}), ("mmlu", {"subject": "computer_security"})):
        spec = RunSpec.from_dict({"scenario": scenario, "model": "w", "args": args, "max_instances": 12})
        execute(spec, WordModel(), results_dir=tmp_path, n_resamples=100)
        runs.append(read_run(tmp_path, spec.run_id))
    table = calibration_table(runs, seed=0, n_simulations=50)
    assert len(table) == 3 and table["scenario"].iloc[2] == f"{POOLED} (bbq:Age, mmlu:computer_security)"
    records = [r for run in runs for r in run.records if confidence_of(r) is not None]
    expected = calibration_error_test([confidence_of(r) for r in records], [bool(r.correct) for r in records],  # MC: = exact match
                                      n_bins=10, n_simulations=50, seed=rng(0, "calibration-null", f"{runs[0].model}:pooled"))
    assert table["n"].iloc[2] == 24 and table["ece_10"].iloc[2] == pytest.approx(expected.ece)
    assert table["p_calibrated"].iloc[2] == pytest.approx(expected.p_value)
    import pandas as pd

    empty = pd.DataFrame(columns=["scenario", "method", "difference", "ci_low", "ci_high", "n", "p_value", "discordance", "test"])
    deltas = pd.DataFrame(columns=["model", "scenario", "seed", "method", "perturbation", "delta", "ci_low", "ci_high",
                                   "n", "p_value", "discordance", "test"])
    (claim,) = helm_claims.live_claims(empty, deltas, table, pair=("", ""),
                                       calibration_mde=helm_core.calibration_mde(runs, seed=0, n_simulations=50))
    assert claim.n == 24 and POOLED in claim.claim
    # its MDE at a family's level is the test's own at that level, on the pooled items (the same simulations' seed)
    from helmlite.metrics import calibration_error_mde

    assert claim.mde(0.01) == pytest.approx(calibration_error_mde(
        [confidence_of(r) for r in records], n_simulations=50, seed=rng(0, "calibration-null", f"{runs[0].model}:pooled"),
        level=0.99))


def test_perturbation_deltas_pool_a_models_perturbed_multiple_choice_runs(mirrored_cache, tmp_path):
    """Two MC runs of one model under HELM's robustness perturbation: their rows plus a pooled row whose
    difference and exact McNemar test are those of the concatenated pairs (checked against
    stats.paired_difference on the same arrays, itself checked against statsmodels' exact McNemar); the claims
    keep only the pooled row for that model."""
    import numpy as np
    import pandas as pd

    from helmlite import stats
    from helmlite.analyses.helm_core import claims as helm_claims
    from helmlite.analyses.helm_core import perturbation_deltas
    from helmlite.analyses.helm_core.live import PERTURBED_POOLED
    from helmlite.results import read_run
    from helmlite.evaluation.runner import execute

    runs = []
    for scenario, args in (("bbq", {"category": "Age"}), ("mmlu", {"subject": "computer_security"})):
        spec = RunSpec.from_dict({"scenario": scenario, "model": "w", "args": args, "max_instances": 12,
                                  "perturbations": ["robustness"]})
        execute(spec, WordModel(), results_dir=tmp_path, n_resamples=100)
        runs.append(read_run(tmp_path, spec.run_id))
    deltas = perturbation_deltas(runs, seed=0, n_resamples=100)
    assert len(deltas) == 3 and deltas["scenario"].iloc[2] == f"{PERTURBED_POOLED} (bbq:Age, mmlu:computer_security)"
    pairs = [(run.main_values("robustness")[i], run.main_values()[i]) for run in runs for i in sorted(run.main_values())]
    expected = stats.paired_binary_difference(np.array([p for p, _ in pairs]), np.array([o for _, o in pairs]))
    pooled = deltas.iloc[2]
    assert pooled["n"] == 24 and pooled["delta"] == pytest.approx(expected.estimate)
    assert pooled["p_value"] == pytest.approx(expected.p_value) and pooled["ci_low"] == pytest.approx(expected.ci_low)
    empty = pd.DataFrame(columns=["scenario", "method", "difference", "ci_low", "ci_high", "n", "p_value", "discordance", "test"])
    calibration = pd.DataFrame(columns=["model", "scenario", "method", "calibration_error", "ci_low", "ci_high", "n",
                                        "p_calibrated", "p_two_sided", "p_floor", "mde"])
    (claim,) = helm_claims.live_claims(empty, deltas, calibration, pair=("", ""), calibration_mde=None)
    assert claim.n == 24 and PERTURBED_POOLED in claim.claim
