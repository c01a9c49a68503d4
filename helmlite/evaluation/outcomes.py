"""Per-instance outcomes: what the model's outputs mean for one instance, per adaptation method
(Liang et al. 2022, §7 and App. C.1; HELM ``basic_metrics.py``).

* ``generation`` — the stripped completion is the prediction; every accuracy metric of the scenario
  is the best over the correct references (HELM's ``max`` over references);
* ``ranking`` — passages ordered by P(yes) normalised over {yes, no} (helmlite's order: HELM orders by the
  generated label, then its log-probability); RR@10 and NDCG@10 (HELM's MS MARCO metrics);
* multiple choice and language modelling — the choice with the highest score wins (first maximum on
  ties); the score is, per method (HELM's ``BasicReferenceMetric.evaluate_references``):
  ``multiple_choice_separate`` the log-probability per token (``separate_score="per_token"``, HELM) or
  summed (``"sum"``); ``…_calibrated`` the summed log-probability minus the choice's log-probability
  after the output prefix alone (Zhao et al. 2021; HELM); joint and language modelling the summed
  log-probability. HELM gives tied maxima fractional credit; helmlite credits the first (ties between
  floating-point log-probabilities do not occur in practice);
* ``multiple_choice_joint`` with ``joint_decision="helm_greedy"`` — HELM's rule: the greedy one-token
  completion, stripped, must be one of the letters and name a reference whose text is a correct one's
  (``compute_reference_metrics``: ``output_mapping`` then ``exact_match``).

``confidence`` is what HELM's calibration metrics use as the model's probability for its answer
(``max_prob``): the largest softmax probability over the choices' scores, except for HELM's greedy
joint rule and for generation, where it is exp(log-probability of the generated completion) over the
whole vocabulary (``evaluate_reference_metrics.py``: ``np.exp(sorted_completions[0].logprob)``), summed over the
tokens crfm-helm's client keeps (``truncate_sequence``: those before the first token that starts with a stop
sequence; :func:`helmlite.models._base.helm_kept_tokens`), so 1 for a completion that stops at once. Under the default
``joint_decision="letter_logprob"`` the confidence is the largest softmax probability over the letters' scores,
which HELM does not compute for joint runs.
"""
from __future__ import annotations

import math

import numpy as np

from ..metrics import GENERATION_METRICS, best_over_references, ndcg, reciprocal_rank, softmax
from ..scenarios import Instance
from .adaptation import Adapted, AdapterSpec

GENERATION_ACCURACY = ("exact_match", "quasi_exact_match", "f1")


def outcome(instance: Instance, adapted: Adapted, outputs: list, method: str, main_metric: str, *,
            adapter: AdapterSpec | None = None) -> dict:
    """The :class:`~helmlite.results.InstanceRecord` fields that depend on the model's outputs:
    prediction, correctness, per-instance metrics and the raw scores or completion. ``adapter`` chooses
    the decision rules (``joint_decision``, ``separate_score``; defaults of :class:`AdapterSpec`)."""
    adapter = adapter or AdapterSpec(method=method)
    if method == "generation":
        return _generation(instance, outputs[0], main_metric)
    if method == "ranking":
        return _ranking(instance, outputs)
    if method == "multiple_choice_joint" and adapter.joint_decision == "helm_greedy":
        return _joint_greedy(instance, adapted, outputs[0])
    scores = choice_scores(outputs, method, adapter.separate_score)
    best = int(np.argmax(scores))
    correct = bool(instance.references[best].correct)
    probabilities = softmax(scores)
    return {"scores": scores, "probabilities": probabilities, "confidence": max(probabilities),
            "prediction": adapted.choices[best], "predicted_index": best, "metrics": {"exact_match": float(correct)},
            "correct": correct}


def choice_scores(outputs: list, method: str, separate_score: str = "per_token") -> list[float]:
    """The score each choice is ranked by (module docstring): per-token or summed log-probability for
    separate, calibrated difference for ``…_calibrated``, summed log-probability otherwise."""
    first = outputs[0]
    if method == "multiple_choice_separate_calibrated":
        return [a - b for a, b in zip(first.logprobs, outputs[1].logprobs)]
    if method == "multiple_choice_separate" and separate_score == "per_token":
        return [total / max(1, n) for total, n in zip(first.logprobs, first.token_counts)]
    return list(first.logprobs)


def _joint_greedy(instance: Instance, adapted: Adapted, generation) -> dict:
    """HELM's joint multiple-choice rule: the stripped one-token completion maps through the letters to a
    reference text, which must equal (after stripping) a correct reference's text."""
    prediction = generation.text.strip()
    index = adapted.choices.index(prediction) if prediction in adapted.choices else None
    mapped = instance.references[index].output if index is not None else None
    correct = bool(mapped) and any(r.correct and r.output.strip() == mapped.strip() for r in instance.references)
    logprobs = generation.token_logprobs  # HELM's max_prob: exp(the kept tokens' log-probability), 1 when none is kept
    confidence = math.exp(sum(logprobs)) if logprobs is not None else None  # None: the backend reports no log-probabilities
    return {"completion": generation.text, "prediction": prediction, "predicted_index": index, "confidence": confidence,
            "output_tokens": generation.output_tokens, "metrics": {"exact_match": float(correct)}, "correct": correct}


def _generation(instance: Instance, generation, main_metric: str) -> dict:
    prediction = generation.text.strip()
    correct_refs = [r.output for r in instance.references if r.correct]
    metrics = {}
    if correct_refs:  # BOLD-style prompts have no reference: toxicity and bias only
        # the main metric too where it compares with references (a family's metric, such as toxicity's, does not)
        names = set(GENERATION_ACCURACY) | ({main_metric} & set(GENERATION_METRICS))
        metrics = {name: best_over_references(name, prediction, correct_refs) for name in sorted(names)}
    logprobs = generation.token_logprobs
    # HELM's max_prob: exp(the completion's log-probability), its kept tokens' sum (0, so 1, when it stopped at once)
    confidence = math.exp(sum(logprobs)) if logprobs is not None else None
    return {"completion": generation.text, "prediction": prediction, "output_tokens": generation.output_tokens,
            "metrics": metrics, "confidence": confidence if metrics else None,
            "correct": bool(metrics.get(main_metric, 0.0) >= 1.0) if metrics else None}


def _ranking(instance: Instance, outputs: list) -> dict:
    p_yes = [softmax(s.logprobs)[0] for s in outputs]
    order = sorted(range(len(p_yes)), key=lambda k: (-p_yes[k], k))
    relevance = [instance.references[k].relevance or 0.0 for k in order]
    rr = reciprocal_rank(relevance, 10)
    return {"p_yes": p_yes, "ranking": order, "prediction": instance.references[order[0]].output[:80],
            "metrics": {"rr@10": rr, "ndcg@10": ndcg(relevance, 10)}, "correct": rr == 1.0}
