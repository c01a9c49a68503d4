"""Which metric families a run computes — the third part of a run spec, as in HELM's
``RunSpec(scenario_spec, adapter_spec, metric_specs)`` (``src/helm/benchmark/run_spec.py``).

Kept apart from :mod:`helmlite.metrics.families` (which computes them) so that the workflow can build
run specs without importing the metric code. Defaults follow HELM's run specs: every run gets accuracy
and efficiency; multiple choice and generation add calibration; generation adds bias and toxicity; perturbations add
the worst-case family of their kind; a scenario may add its own (BBQ's bias scores).
"""
from __future__ import annotations

from .._names import did_you_mean
from ..adaptation import MULTIPLE_CHOICE_METHODS
from ..errors import UserError
from ..perturbations import perturbation
from ..scenarios import SCENARIO_VARIANTS

FAMILIES = ("accuracy", "robustness", "fairness", "equivariance", "calibration", "bias", "toxicity", "bbq", "efficiency")
WORST_CASE = {"robustness": "robustness", "fairness": "fairness", "equivariance": "contrast"}  # family → perturbation kind
#: Each family's definition version (lm-eval's task ``metadata.version``): raise it when a change to a family's
#: metrics changes the values a run stores; it enters the run id of every run that computes the family.
VERSIONS = {family: 1 for family in FAMILIES}


def default_families(method: str, perturbations: tuple[str, ...], extra: tuple[str, ...] = ()) -> tuple[str, ...]:
    """HELM's metric families for a method and perturbation list (plus the scenario's own, e.g. ``bbq``)."""
    chosen = {"accuracy", "efficiency", *extra}
    if method in MULTIPLE_CHOICE_METHODS:
        chosen.add("calibration")
    if method == "generation":
        chosen |= {"bias", "toxicity", "calibration"}  # HELM: ECE from exp(the completion's log-probability)
    chosen |= {family for family, kind in WORST_CASE.items() if any(perturbation_kind(p) == kind for p in perturbations)}
    return tuple(f for f in FAMILIES if f in chosen)


def check_families(names) -> tuple[str, ...]:
    """Validate family names; return them in canonical order."""
    for name in names:
        if name not in FAMILIES:
            raise UserError(f"unknown metric family {name!r}; known: {', '.join(FAMILIES)}.{did_you_mean(name, FAMILIES)}")
    return tuple(f for f in FAMILIES if f in set(names))


def perturbation_kind(name: str) -> str:
    """``robustness`` or ``fairness`` for a named perturbation; a scenario-supplied variant's own name
    (``contrast`` for contrast sets, ``baseline`` for the retrieval tasks' key-absent query)."""
    return name if name in SCENARIO_VARIANTS else perturbation(name).kind
