"""Per-instance outcomes: what the model's outputs mean for one instance, per adaptation method
(Liang et al. 2022, §7 and App. C.1; HELM ``basic_metrics.py``).

* ``generation`` — the stripped completion is the prediction; every accuracy metric of the scenario
  is the best over the correct references (HELM's ``max`` over references);
* ``ranking`` — passages ordered by P(yes) normalised over {yes, no}; RR@10 and NDCG@10 (HELM's
  MS MARCO metrics);
* multiple choice and language modelling — the choice with the highest score wins (first maximum on
  ties); ``…_calibrated`` subtracts each choice's score after the output prefix alone (Zhao et al. 2021).
"""
from __future__ import annotations

import numpy as np

from ..adaptation import Adapted
from ..scenarios import Instance
from .accuracy import best_over_references, ndcg, reciprocal_rank

GENERATION_ACCURACY = ("exact_match", "quasi_exact_match", "f1")


def softmax(values) -> list[float]:
    """Probabilities from log-scores (shifted by the maximum for stability)."""
    values = np.asarray(values, dtype=float)
    exp = np.exp(values - values.max())
    return (exp / exp.sum()).tolist()


def outcome(instance: Instance, adapted: Adapted, outputs: list, method: str, main_metric: str) -> dict:
    """The :class:`~helmlite.results.InstanceRecord` fields that depend on the model's outputs:
    prediction, correctness, per-instance metrics and the raw scores or completion."""
    if method == "generation":
        return _generation(instance, outputs[0], main_metric)
    if method == "ranking":
        return _ranking(instance, outputs)
    scores = list(outputs[0].logprobs)
    if method == "multiple_choice_separate_calibrated":
        scores = [a - b for a, b in zip(scores, outputs[1].logprobs)]
    best = int(np.argmax(scores))
    correct = bool(instance.references[best].correct)
    return {"scores": scores, "probabilities": softmax(scores), "prediction": adapted.choices[best], "predicted_index": best,
            "metrics": {"exact_match": float(correct)}, "correct": correct}


def _generation(instance: Instance, generation, main_metric: str) -> dict:
    prediction = generation.text.strip()
    correct_refs = [r.output for r in instance.references if r.correct]
    metrics = {}
    if correct_refs:  # BOLD-style prompts have no reference: toxicity and bias only
        names = set(GENERATION_ACCURACY) | ({main_metric} - {"toxic_fraction"})
        metrics = {name: best_over_references(name, prediction, correct_refs) for name in sorted(names)}
    return {"completion": generation.text, "prediction": prediction, "output_tokens": generation.output_tokens,
            "metrics": metrics, "correct": bool(metrics.get(main_metric, 0.0) >= 1.0) if metrics else None}


def _ranking(instance: Instance, outputs: list) -> dict:
    p_yes = [softmax(s.logprobs)[0] for s in outputs]
    order = sorted(range(len(p_yes)), key=lambda k: (-p_yes[k], k))
    relevance = [instance.references[k].relevance or 0.0 for k in order]
    rr = reciprocal_rank(relevance, 10)
    return {"p_yes": p_yes, "ranking": order, "prediction": instance.references[order[0]].output[:80],
            "metrics": {"rr@10": rr, "ndcg@10": ndcg(relevance, 10)}, "correct": rr == 1.0}
