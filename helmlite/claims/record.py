"""A claim as a notebook states it (:class:`Claim`) and the claims table's schema (:data:`COLUMNS`)."""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

from ..errors import UserError

#: The claims-table schema: the ten columns every notebook's claims table starts with, then the rest: the p-values and
#: their correction, and the claim's family — its name, whether the claim is primary (decided) or exploratory, the
#: number of hypotheses Holm runs over in it, and ``alpha``, the level at which its MDE is computed (Holm's worst case
#: for one hypothesis of the family: α / family size).
REQUIRED_COLUMNS = ["claim", "quantity", "estimate", "ci_low", "ci_high", "null", "n", "mde", "verdict", "evidence"]


COLUMNS = REQUIRED_COLUMNS + ["p_value", "p_adjusted", "correction", "direction", "claimed_effect", "p_claimed",
                              "p_claimed_adjusted", "p_floor", "family", "role", "family_size", "alpha"]


VERDICTS = ("supported", "contradicted", "inconclusive")

#: The verdict column of a claim that is not in the declared primary family: no decision is made on it (its estimate,
#: interval and unadjusted p are reported, labelled exploratory).
EXPLORATORY = "exploratory"

#: What a claims table's ``verdict`` column may hold.
TABLE_VERDICTS = VERDICTS + (EXPLORATORY,)


DIRECTIONS = ("greater", "less", "two-sided")


SCALES = ("proportion", "paired-proportion", "correlation", "difference")


CORRECTIONS = ("holm", "bonferroni", "none")


POWER = 0.8


@dataclass(frozen=True)
class Claim:
    """One claim: the quantity tested, its estimate and ``level`` interval on ``n`` independent units.

    ``direction``: what the claim asserts about the quantity relative to ``null`` ("greater",
    "less" or "two-sided" = differs). ``claimed_effect``: optional value of the quantity the claim
    asserts at least (greater), at most (less), or a distance from the null (two-sided).
    ``p_value``: optional p-value of "quantity = null" (from the same procedure as the interval, or an
    exact test), two-sided (the calibration claim too: its test's p doubled, the p its two-sided interval is dual
    to); ``p_claimed``: optional p-value of "the quantity is as large as
    claimed" (see the module docstring; from the interval when absent). ``scale`` picks the MDE formula (see the module docstring);
    ``mde`` overrides it; ``discordance`` is the share of discordant items for "paired-proportion".
    ``n`` counts independent units: items, or clusters when the interval resamples clusters. ``p_floor``: the
    smallest p-value the test of ``p_value`` can give (a resampling test's; 0 for exact and analytic tests): a p at
    it is written "p ≤ floor". ``mde`` may also be a function of α, the per-claim level its family decides it at (a
    simulated test's MDE, recomputed at that level). ``family``: the set of claims the correction runs over, as the
    analysis declares it (:mod:`helmlite.claims.families`). ``note``: what the evidence says first (why a claim has no
    interval, e.g. a depth curve at its ceiling), so that the claim's name stays the same whatever the data show.
    """

    claim: str
    quantity: str
    estimate: float
    ci_low: float
    ci_high: float
    null: float
    n: int
    direction: str = "greater"
    p_value: float | None = None
    claimed_effect: float | None = None
    scale: str = "difference"
    mde: float | Callable[[float], float] | None = None
    level: float = 0.95
    discordance: float | None = None
    p_claimed: float | None = None
    p_floor: float = 0.0
    family: str = "claims"
    note: str = ""

    def __post_init__(self):
        if self.direction not in DIRECTIONS:
            raise UserError(f"claim {self.claim!r}: direction must be one of {DIRECTIONS}, got {self.direction!r}")
        if self.scale not in SCALES:
            raise UserError(f"claim {self.claim!r}: scale must be one of {SCALES}, got {self.scale!r}")
        if not 0 < self.level < 1:
            raise UserError(f"claim {self.claim!r}: level must lie strictly between 0 and 1, got {self.level}")
        if self.ci_low > self.ci_high:
            raise UserError(f"claim {self.claim!r}: ci_low {self.ci_low} > ci_high {self.ci_high}")
        if not (0 <= self.p_floor <= 1 or math.isnan(self.p_floor)):
            raise UserError(f"claim {self.claim!r}: p_floor must lie in [0, 1], got {self.p_floor}")
        for name in ("p_value", "p_claimed"):
            value = getattr(self, name)
            if value is not None and not (0 <= value <= 1 or math.isnan(value)):
                raise UserError(f"claim {self.claim!r}: {name} must lie in [0, 1], got {value}")
        c = self.claimed_effect
        if c is not None and ((self.direction == "greater" and not c > self.null)
                              or (self.direction == "less" and not c < self.null)
                              or (self.direction == "two-sided" and c == self.null)):
            raise UserError(f"claim {self.claim!r}: claimed_effect {c} must lie on the claimed side ({self.direction}) "
                             f"of the null {self.null}")

    @classmethod
    def from_estimate(cls, claim: str, quantity: str, estimate, null: float = 0.0, direction: str = "greater",
                      **kwargs) -> "Claim":
        """A claim from a :class:`helmlite.stats.Estimate` (its estimate, interval, n and confidence);
        the p-value of a :class:`~helmlite.stats.PairedComparison` (and its floor) is used when the null is 0."""
        if "p_value" not in kwargs and null == 0 and getattr(estimate, "p_value", None) is not None:
            kwargs["p_value"] = estimate.p_value
            kwargs.setdefault("p_floor", estimate.p_floor)
        return cls(claim, quantity, float(estimate.estimate), float(estimate.ci_low), float(estimate.ci_high),
                   null, int(estimate.n), direction, level=float(estimate.level), **kwargs)
