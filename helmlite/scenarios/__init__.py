"""Scenarios: frozen Instance/Reference records and one loader module per dataset family.

Every loader reads its files through :mod:`helmlite.data` and registers itself by name; use
:func:`scenario` to look one up (``scenario("mmlu").load(subject="econometrics")``).
"""
import importlib
import pkgutil

from ._base import (METHOD_FAMILIES, SCENARIO_VARIANTS, TEST, TRAIN, Instance, Reference, ScenarioInfo, UnknownScenarioError,
                    UnsupportedMethodError, register, scenario, scenarios)
from ._helm_subsample import helm_eval_subsample

# every loader module registers itself on import: import them all, without a hand-kept list
for _module in pkgutil.iter_modules(__path__):
    if not _module.name.startswith("_"):
        importlib.import_module(f"{__name__}.{_module.name}")

__all__ = ["METHOD_FAMILIES", "SCENARIO_VARIANTS", "TEST", "TRAIN", "Instance", "Reference", "ScenarioInfo",
           "UnknownScenarioError", "UnsupportedMethodError", "helm_eval_subsample", "register", "scenario", "scenarios"]
