"""The power table a notebook prints beside its claims table (shared by the analyses' public ``power_table``).

For each :class:`helmlite.claims.Claim`: its n (independent units), the minimum detectable effect at
that n (80% power, two-sided, the claim's level; :func:`helmlite.claims.minimum_detectable_effect`)
and the n needed to detect a difference of ``effect`` from the null in the claimed direction (5
points on a 0–1 scale by default), by the claim's scale (see :mod:`helmlite.claims`).
"""
from __future__ import annotations

import math

import pandas as pd

from .. import claims as _claims
from ..errors import InputError
from .. import stats


def n_needed(claim: _claims.Claim, effect: float, alpha: float = 0.05) -> float:
    """Units needed to detect a difference ``effect`` from the claim's null (80% power, two-sided at its
    level), never fewer than :func:`helmlite.claims.min_units`; NaN when not computable."""
    level, p = claim.level, (claim.null if 0 < claim.null < 1 else 0.5)
    try:
        if claim.scale == "proportion":
            needed = stats.required_n(effect, p=p, level=level, one_sample=True)
        elif claim.scale == "paired-proportion":
            needed = stats.required_n(effect, p=0.5, level=level, paired=True, discordance=claim.discordance)
        elif claim.scale == "correlation":
            needed = stats.required_n_correlation(effect, level=level)
        else:  # the interval's standard error scales as 1/sqrt(n)
            mde = _claims.minimum_detectable_effect(claim)
            if not (math.isfinite(mde) and mde > 0 and claim.n > 0):
                return math.nan
            needed = math.ceil(claim.n * (mde / effect) ** 2)
    except InputError:
        return math.nan
    return float(max(needed, _claims.min_units(alpha)))


def power_table(claims: list[_claims.Claim], effect: float = 0.05, alpha: float = 0.05) -> pd.DataFrame:
    """One row per claim: ``claim, quantity, n, mde, effect, n_needed`` (``n_needed``: units needed to
    detect ``effect``; NaN when not computable, e.g. no finite interval to scale from)."""
    rows = []
    for claim in claims:
        rows.append({"claim": claim.claim, "quantity": claim.quantity, "n": claim.n,
                     "mde": _claims.minimum_detectable_effect(claim), "effect": effect,
                     "n_needed": n_needed(claim, effect, alpha)})
    return pd.DataFrame(rows, columns=["claim", "quantity", "n", "mde", "effect", "n_needed"])
