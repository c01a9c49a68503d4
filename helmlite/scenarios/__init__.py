"""Scenarios: frozen Instance/Reference records and one loader module per dataset family.

Every loader reads its files through :mod:`helmlite.data` and registers itself by name; use
:func:`scenario` to look one up (``scenario("mmlu").load(subject="econometrics")``).
"""
from . import bbq, blimp, bold, contrast_sets, litm_qa, mmlu, nq, raft, reasoning, synthetic, truthfulqa  # noqa: F401  (registration)
from ._base import SCENARIO_VARIANTS, TEST, TRAIN, Instance, Reference, ScenarioInfo, UnknownScenarioError, scenario, scenarios

__all__ = ["SCENARIO_VARIANTS", "TEST", "TRAIN", "Instance", "Reference", "ScenarioInfo", "UnknownScenarioError", "scenario",
           "scenarios"]
