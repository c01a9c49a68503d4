"""The run pipeline: a run spec → its instances → adapted prompts → model calls → metrics → a run folder.

One package for what ``helmlite run`` does (HELM's ``src/helm/benchmark/`` run path, lm-eval's ``evaluator``):

* :mod:`~helmlite.evaluation.runspec` — :class:`RunSpec` (scenario, model, adapter, metrics, perturbations) and its
  stable run id;
* :mod:`~helmlite.evaluation.instances` — which test instances and in-context examples a run uses, and their variants;
* :mod:`~helmlite.evaluation.adaptation` — :class:`AdapterSpec`, example selection and prompt building per method;
* :mod:`~helmlite.evaluation.perturbations` — HELM's robustness and fairness perturbations;
* :mod:`~helmlite.evaluation.shared_prefixes` — which prompt prefixes a run's requests declare shared (encoded once);
* :mod:`~helmlite.evaluation.scoring_rules` — the main metric and decision rules a run is judged by;
* :mod:`~helmlite.evaluation.outcomes` — what a model's outputs mean for one instance, per adaptation method;
* :mod:`~helmlite.evaluation.runner` — the coordinator: :func:`execute` (one spec), :func:`execute_all` (a job's
  per-model loop), :func:`prepare_requests` (what a run would send, which the planner counts).

Names load on first use (PEP 562), so the workflow can read run specs without importing the engine. The packages below
the pipeline (``scenarios``, ``metrics``, ``models``) import nothing from it: what they need of a run (a perturbation's
kind, crfm-helm's test subsample) is passed in or lives with them (:func:`helmlite.scenarios.helm_eval_subsample`).
"""
from importlib import import_module

_EXPORTS = {
    "RunSpec": "runspec", "RunError": "runspec", "model_key": "runspec",
    "load_all": "instances", "split": "instances", "adapted_prompts": "instances", "load_instances": "instances",
    "AdapterSpec": "adaptation", "Adapted": "adaptation", "adapt": "adaptation", "METHODS": "adaptation",
    "MULTIPLE_CHOICE_METHODS": "adaptation",
    "PERTURBATIONS": "perturbations", "perturbation": "perturbations", "data_files": "perturbations",
    "outcome": "outcomes", "main_metric": "scoring_rules", "decision_rules": "scoring_rules",
    "execute": "runner", "execute_all": "runner", "prepare_requests": "runner", "RESULTS_DIR": "runner",
}
#: The face is the names above only: no other package imports a submodule of the pipeline (tests of a module's own
#: rules import it directly).
__all__ = sorted(_EXPORTS)


def __getattr__(name: str):
    """Import on first use (PEP 562)."""
    if name in _EXPORTS:
        return getattr(import_module(f".{_EXPORTS[name]}", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
