"""Which metric families a run computes — the third part of a run spec, as in HELM's
``RunSpec(scenario_spec, adapter_spec, metric_specs)`` (``src/helm/benchmark/run_spec.py``).

Kept apart from :mod:`helmlite.metrics.families` (which computes them) so that the workflow can build
run specs without importing the metric code. Defaults follow HELM's run specs: every run gets accuracy
and efficiency; multiple choice and generation add calibration; generation adds bias and toxicity; perturbations add
the worst-case family of their kind; a scenario may add its own (BBQ's bias scores).
"""
from __future__ import annotations

from ..errors import did_you_mean
from ..errors import UserError
from . import declared  # noqa: F401  (every family declares itself on import)
from .registry import EVERY_RUN, REGISTRY, declared as declared_families


def family_names() -> tuple[str, ...]:
    """The declared families' names in run-spec order (:mod:`helmlite.metrics.registry`)."""
    return tuple(family.name for family in declared_families())


def family_version(name: str) -> int:
    """A family's definition version (lm-eval's task ``metadata.version``): raised when a change to its metrics
    changes the values a run stores; it enters the run id of every run that computes the family."""
    return REGISTRY[name].version


def default_families(method: str, kinds=(), extra: tuple[str, ...] = ()) -> tuple[str, ...]:
    """HELM's metric families for a method and the kinds of its perturbations (``robustness``, ``fairness`` or a
    scenario variant's name; :func:`helmlite.evaluation.perturbations.perturbation_kind`), plus the scenario's own
    (e.g. ``bbq``): the families declared for every run or for the method, and the worst case of each kind the run
    has. The metrics package takes kinds, not perturbation names: what a perturbation is, the run pipeline knows."""
    kinds = set(kinds)
    chosen = {*extra} | {family.name for family in declared_families()
                         if EVERY_RUN in family.default_for or method in family.default_for
                         or (family.worst_case_of is not None and family.worst_case_of in kinds)}
    return tuple(f for f in family_names() if f in chosen)


def check_families(names) -> tuple[str, ...]:
    """Validate family names; return them in canonical order."""
    known = family_names()
    for name in names:
        if name not in known:
            raise UserError(f"unknown metric family {name!r}; known: {', '.join(known)}.{did_you_mean(name, known)}")
    return tuple(f for f in known if f in set(names))

