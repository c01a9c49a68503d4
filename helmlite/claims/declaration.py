"""A claim as its analysis declares it before any data: what the planner sizes and ``plan --claims`` selects.

Each analysis states its claims once (``helmlite/analyses/<name>/claims.py``): a function gives each claim its name —
the one string the report prints in its claims table and ``helmlite plan --claims`` accepts — and ``declare_claims``
turns the runs a config will make into :class:`Declared` records. The notebook builds its :class:`~helmlite.claims.Claim`
rows with the same name functions, so the planner never restates a claim in its own words; it keeps only the power
formulas (:mod:`helmlite.planning.claim_mdes`), picked by ``power``.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

#: The power formulas a declaration may ask for (:mod:`helmlite.planning.claim_mdes`); ``published`` claims read a
#: published table and have nothing to size.
POWER_FORMULAS = ("paired", "calibration", "seed_sd", "step", "depth_accuracy", "depth_baseline", "published")


@dataclass(frozen=True)
class Declared:
    """One claim of an analysis, as declared for the runs of a config.

    ``name``: the claims table's ``claim``, verbatim. ``family``: the set the analysis's correction runs over.
    ``quantity``: what is tested, in words. ``unit``: what ``n`` counts — ``items`` (a run's instances; paired claims
    pair them), ``contexts`` (a depth sweep's) or ``models`` (a published table's rows). ``test``: the test that decides
    it. ``power``: the planning formula (:data:`POWER_FORMULAS`). ``members``: the run ids it reads; ``pooled``: whether
    their items add up (else each run needs ``n``). ``hypotheses``: what it adds to its family (2 with a claimed size).
    ``pilot``: the :class:`helmlite.planning.pilot.Pilot` method and arguments whose observation replaces the planning
    value. ``detail``: the formula's other inputs (seeds, depths, the runs' answer choices). ``no_verdict``: why no
    design can decide it (empty when one can). ``min_n``: the fewest units its analysis gives a verdict on (the depth
    tests' minimum contexts; the exact tests' minimum is the planner's, at the family's level).
    """

    name: str
    analysis: str
    family: str
    quantity: str
    unit: str
    test: str
    power: str
    n: float = math.nan
    members: tuple = ()
    pooled: bool = False
    hypotheses: int = 1
    pilot: tuple = ()
    detail: tuple = ()
    no_verdict: str = ""
    min_n: int = 0

    def __post_init__(self):
        if self.power not in POWER_FORMULAS:
            raise ValueError(f"claim {self.name!r}: power must be one of {POWER_FORMULAS}, got {self.power!r}")
        if self.unit not in ("items", "contexts", "models"):
            raise ValueError(f"claim {self.name!r}: unit must be items, contexts or models, got {self.unit!r}")
