"""What a run is judged by and how its answers were chosen: the main-metric rule (HELM's ``main_name`` per
scenario for generation, RR@10 for ranking, exact match for multiple choice) and the decision rules a run records in
``stats.json`` (``decision``) so that a reader knows how its predictions and confidences were made."""
from __future__ import annotations

from .runspec import RunSpec
from ..scenarios import scenario


def main_metric(spec: RunSpec) -> str:
    """The metric a run is judged by: the scenario's for generation, RR@10 for ranking, else exact match."""
    method = spec.adapter.method
    return scenario(spec.scenario).main_metric if method == "generation" else ("rr@10" if method == "ranking" else "exact_match")


def decision_rules(spec: RunSpec) -> dict:
    """What a reader of ``stats.json`` needs to know about how answers were chosen: the example selection
    and test subsampling, the decision rule of the method and where the calibration confidence comes from."""
    adapter, method = spec.adapter, spec.adapter.method
    out = {"selection": adapter.selection}
    if method == "multiple_choice_joint":
        out["joint_decision"] = adapter.joint_decision
        out["confidence"] = ("exp(log-probability of the greedy completion)" if adapter.joint_decision == "helm_greedy"
                             else "softmax over the letters' log-probabilities")
    elif method == "multiple_choice_separate":
        out["separate_score"] = adapter.separate_score
        out["confidence"] = f"softmax over the choices' {'per-token' if adapter.separate_score == 'per_token' else 'summed'} log-probabilities"
    elif method == "multiple_choice_separate_calibrated":
        out["confidence"] = "softmax over the calibrated log-probability differences"
    elif method == "generation":
        out["confidence"] = "exp(log-probability of the completion); correct = its exact match (HELM's calibration)"
        if adapter.temperature > 0:
            out["sampling"] = f"temperature {adapter.temperature}, seeded per instance"
    return out
