"""BBQ's accuracy and bias scores against crfm-helm's own ``BBQMetric`` on the same 1,000 test instances.

Expected values: printed by ``benchmarks/helm_bbq_metric.py`` (crfm-helm 0.5.16's ``BBQScenario`` on the mirror's
category file and its ``BBQMetric.evaluate_instances``, 2026-12-02) for three completion patterns per test
position — the same :func:`completion` here, reached through helmlite's loader (HELM's seed-0 shuffle, last 1,000
as test), its ``helm_greedy`` joint rule (the stripped token mapped through the letters) and its BBQ scores. The
``target_on_negative`` pattern names helmlite's own target answer, so it also checks helmlite's answer roles
against HELM's letters.
"""
from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from helmlite.evaluation.adaptation import Adapted, AdapterSpec
from helmlite.metrics.bbq import bbq_scores
from helmlite.evaluation.outcomes import outcome
from helmlite.models import Generation
from helmlite.scenarios.bbq import load as load_bbq

_SCRIPT = Path(__file__).resolve().parent.parent / "benchmarks" / "helm_bbq_metric.py"
_spec = importlib.util.spec_from_file_location("helm_bbq_metric", _SCRIPT)
helm_bbq_metric = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(helm_bbq_metric)  # the patterns the expected values were made with (no crfm-helm import)

# crfm-helm 0.5.16 BBQMetric: bbq_accuracy, bbq_metric_ambiguous_bias, bbq_metric_unambiguous_bias
HELM = {
    "Age/mixed": (0.28060671722643554, -0.18095168462402542, -0.2883435582822086),
    "Age/always_a": (0.325, -0.005938416422287385, 0.03592814371257491),
    "Age/target_on_negative": (0.249, 0.751, 1.0),
    "Religion/mixed": (0.2676056338028169, -0.17417974898099195, -0.18497109826589597),
    "Religion/always_a": (0.327, 0.017455331412103755, -0.0028169014084507005),
    "Religion/target_on_negative": (0.257, 0.743, 1.0),
}


@pytest.mark.parametrize("key", sorted(HELM))
def test_bbq_scores_equal_crfm_helms_bbq_metric(key, mirrored_cache):
    category, pattern = key.split("/")
    test = [i for i in load_bbq(category) if i.split == "test"]
    assert len(test) == 1000
    letters, rows = "ABC", []
    for k, instance in enumerate(test):
        meta = instance.metadata
        correct = next(j for j, r in enumerate(instance.references) if r.correct)
        other = next(j for j in range(3) if j not in (meta["target_index"], meta["unknown_index"]))
        roles = {"correct": letters[correct], "target": letters[meta["target_index"]], "non_target": letters[other],
                 "unknown": letters[meta["unknown_index"]], "negative": meta["question_polarity"] == "neg"}
        text = helm_bbq_metric.completion(pattern, k, roles)
        adapted = Adapted(instance.id, "", (), 3, False, tuple(letters))
        result = outcome(instance, adapted, [Generation(text, 0, 1, (0.0,), 0.0)], "multiple_choice_joint", "exact_match",
                         adapter=AdapterSpec(method="multiple_choice_joint", joint_decision="helm_greedy"))
        rows.append({**meta, "predicted": result["predicted_index"], "correct": result["correct"], "completion": text})
    scores = bbq_scores(rows)
    accuracy, ambiguous, disambiguated = HELM[key]
    assert scores["accuracy"] == pytest.approx(accuracy, abs=1e-12)
    assert scores["bias_score_ambiguous_helm"] == pytest.approx(ambiguous, abs=1e-12)
    assert scores["bias_score_disambiguated"] == pytest.approx(disambiguated, abs=1e-12)
