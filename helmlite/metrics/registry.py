"""Metric families, each declared once where it is added (issue #65, the scenarios' way): a module of
:mod:`helmlite.metrics.declared` calls :func:`metric_family` with the family's name, its place in a run spec, the runs
that get it by default, its definition version and where its run-level metrics are computed. Run specs
(:mod:`helmlite.metrics.selection`), the metrics' computation (:mod:`helmlite.metrics.families`) and the run job's
start-up read the registry; no list of family names is kept by hand.

Declarations are light (no numpy, no scipy: the Snakefile parses :mod:`helmlite.workflow` on every run); their
computations are named as ``"module:function"`` and imported when a run computes them.
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Callable

from ..errors import UserError

#: ``default_for`` value: every run gets the family whatever its method.
EVERY_RUN = "*"


@dataclass(frozen=True)
class MetricFamily:
    """One metric family (Liang et al. 2022, §4): ``name``; ``order``, its place in a run spec's canonical family
    tuple (run ids depend on it: a new family takes a new number, never renumber); ``default_for``, the adaptation
    methods whose runs get it by default (:data:`EVERY_RUN` for all); ``worst_case_of``, the perturbation kind whose
    worst case it takes (HELM §4.5–4.6; the run gets it when it has such a perturbation); ``version``, raised when a
    change to its metrics changes stored values (it enters the run id, as lm-eval's task ``metadata.version``);
    ``libraries`` its metrics import (paid at the run job's start-up); ``data_files`` the registry files it reads; and
    where its run-level metrics come from, each ``"module:function"`` of ``records``: ``bootstrapped`` (name →
    bootstrapper), ``points`` (name → value, no interval) and ``shares`` (name → (successes, total), exact interval).
    Two hooks for families that need more than the records' metrics: ``annotates``, ``"module:function"`` of
    ``(records, **resources)`` that scores the records themselves before anything is computed (adds per-instance
    metrics — toxicity's classifier, which the caller may pass in as a resource) and returns what the run's manifest
    records about how (or None); ``summary``, ``"module:function"`` of ``records`` → name → value, plain run-level
    numbers that are inputs, not estimates, stored in ``stats.json``'s ``efficiency`` block (§4.9's token counts)."""

    name: str
    order: int
    default_for: tuple[str, ...] = ()
    worst_case_of: str | None = None
    version: int = 1
    libraries: tuple[str, ...] = ()
    data_files: tuple[str, ...] = ()
    bootstrapped: str | None = None
    points: str | None = None
    shares: str | None = None
    annotates: str | None = None
    summary: str | None = None


#: The families declared so far, by name.
REGISTRY: dict[str, MetricFamily] = {}


def metric_family(**fields) -> MetricFamily:
    """Declare a family (:class:`MetricFamily`'s fields); a name or an order already taken by another is refused."""
    family = MetricFamily(**fields)
    for other in REGISTRY.values():
        if other.name != family.name and other.order == family.order:
            raise UserError(f"metric family {family.name!r}: order {family.order} is taken by {other.name!r}")
    if family.name in REGISTRY and REGISTRY[family.name] != family:
        raise UserError(f"metric family {family.name!r} is already declared differently")
    REGISTRY[family.name] = family
    return family


def declared() -> tuple[MetricFamily, ...]:
    """Every declared family in run-spec order."""
    return tuple(sorted(REGISTRY.values(), key=lambda f: f.order))


def resolve(target: str) -> Callable:
    """The function a ``"module:function"`` string names (imported on first use)."""
    module, _, name = target.partition(":")
    return getattr(importlib.import_module(module), name)
