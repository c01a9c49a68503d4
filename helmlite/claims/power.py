"""What a claim's n can detect: its minimum detectable effect and the n a given effect needs (80% power of the test
used, by the claim's scale; :mod:`helmlite.stats.power`), the evidence text that says so, and the power table a
notebook prints beside its claims."""
from __future__ import annotations

import math

import pandas as pd
from scipy.special import ndtri

from ..errors import UserError
from ..stats import power as _power
from .numbers import _se, _z, format_number
from .record import POWER, Claim


def _effect(claim: Claim) -> tuple[float, str]:
    if claim.claimed_effect is not None:
        return abs(claim.claimed_effect - claim.null), "the claimed effect"
    return abs(claim.estimate - claim.null), "the observed effect"


def observed_discordance(share, n: int) -> float | None:
    """The discordance a paired-proportion claim's MDE uses: the observed share of items on which the two
    sides differ (what the exact McNemar test's power depends on), at least 1/n (an observed 0 says the
    share is below 1/n, not that it is 0); None when unknown (NaN, or not a 0/1 comparison)."""
    if share is None or not math.isfinite(float(share)) or n < 1:
        return None
    return min(1.0, max(float(share), 1.0 / n))


def base_discordance(claim: Claim) -> float | None:
    """A paired-proportion claim's two-way discordance ψ0 = ψ − abs(δ̂) (the items on which the sides differ in both
    directions, at least 1/n): the planning model of its MDE and n needed lets the discordance grow with the effect,
    ψ = ψ0 + abs(δ) (:func:`helmlite.stats.mde_paired_growing`), instead of holding the observed ψ fixed — which caps δ
    at ψ, so a claim with few discordant items got an MDE that was its discordance. None without an observed ψ."""
    if claim.discordance is None or claim.scale != "paired-proportion":
        return None
    return min(1 - 1 / max(claim.n, 2), max(claim.discordance - abs(claim.estimate - claim.null), 1 / max(claim.n, 1)))


def _baseline(claim: Claim) -> float:
    return claim.null if 0 < claim.null < 1 else 0.5


def _test_level(claim: Claim, alpha: float | None) -> float:
    """The level of the test a claim is decided by: 1 − ``alpha`` (the per-claim α of its family, Holm's worst case
    α / m), or the claim's own level when no α is given."""
    return claim.level if alpha is None else 1 - float(alpha)


def minimum_detectable_effect(claim: Claim, alpha: float | None = None) -> float:
    """MDE at the claim's n (80% power of the test used, in the claimed direction — the larger of the two
    for a two-sided claim), by its scale (see the module docstring), at the per-claim level ``alpha`` its family
    decides it at (default: 1 − the claim's level, a claim alone)."""
    if callable(claim.mde):
        return float(claim.mde(1 - _test_level(claim, alpha)))
    if claim.mde is not None:
        return float(claim.mde)
    n, level = claim.n, _test_level(claim, alpha)
    if claim.scale == "proportion":
        return _power.mde_proportion(n, p=_baseline(claim), level=level, power=POWER, one_sample=True,
                                     direction=claim.direction)
    if claim.scale == "paired-proportion":
        base = base_discordance(claim)
        if base is not None:  # the planning model: discordance grows with the effect
            return _power.mde_paired_growing(int(n), base, level=level, power=POWER)
        return _power.mde_proportion(n, p=0.5, level=level, power=POWER, paired=True, discordance=claim.discordance)
    if claim.scale == "correlation":
        return _power.mde_correlation(n, level=level, power=POWER)
    se = _se(claim)
    return (_z(level) + float(ndtri(POWER))) * se if math.isfinite(se) else math.nan


def n_needed(claim: Claim, effect: float, alpha: float = 0.05) -> float:
    """Units needed to detect a difference ``effect`` from the claim's null (80% power of the test used at the
    per-claim level ``alpha``, in its direction), by the claim's scale, never fewer than :func:`min_units` (below
    which no verdict is possible); NaN when not computable (e.g. p ± effect leaves [0, 1])."""
    effect = abs(float(effect))
    if not (effect > 0 and math.isfinite(effect)):
        return math.nan
    level = 1 - float(alpha)
    try:
        if claim.scale == "proportion":
            needed = _power.required_n(effect, p=_baseline(claim), level=level, power=POWER, one_sample=True,
                                       direction=claim.direction)
        elif claim.scale == "paired-proportion":
            base = base_discordance(claim)
            needed = _power.required_n(effect, p=0.5, level=level, power=POWER, paired=True,
                                       discordance=claim.discordance if base is None else min(1.0, base + effect))
        elif claim.scale == "correlation":
            needed = _power.required_n_correlation(min(effect, 0.999), level=level, power=POWER)
        else:  # the interval's standard error scales as 1/sqrt(n)
            mde = minimum_detectable_effect(claim, alpha)
            if not (math.isfinite(mde) and mde > 0 and claim.n > 0):
                return math.nan
            needed = math.ceil(claim.n * (mde / effect) ** 2)
    except UserError:
        return math.nan
    return float(max(needed, min_units(alpha)))


def _against(claim: Claim) -> bool:
    """Whether the estimate lies on the other side of the null from what a directional claim asserts."""
    return ((claim.direction == "greater" and claim.estimate < claim.null)
            or (claim.direction == "less" and claim.estimate > claim.null))


def _power_note(claim: Claim, mde: float, alpha: float) -> str:
    """The evidence's power sentence: the MDE at the claim's n and the n needed, both at the per-claim ``alpha``."""
    effect, which = _effect(claim)
    needed = n_needed(claim, effect, alpha)
    at = f"80% power, {claim.direction}, α = {format_number(alpha)}"
    unsized = math.isnan(mde) and math.isnan(needed)
    if unsized:
        text = " No MDE and no n needed: without an interval or a test there is nothing to size them from"
    elif math.isinf(mde):
        bound = (f": with {claim.discordance:.3g} of the pairs discordant no difference reaches 80% power"
                 if claim.scale == "paired-proportion" and claim.discordance is not None else "")
        text = f" MDE at n = {claim.n}: none — no effect is detectable at this n{bound} ({at})"
    else:
        text = f" MDE at n = {claim.n}: {format_number(mde)} ({at})"
    base = base_discordance(claim)
    if base is not None:
        text += (f" with the discordance growing with the effect (ψ0 + |δ|, ψ0 = {format_number(base)} differing both "
                 f"ways; at the observed {format_number(claim.discordance)} held fixed: "
                 f"{format_number(_power.mde_proportion(claim.n, paired=True, discordance=claim.discordance, level=1 - alpha, power=POWER))})")
    if _against(claim) and math.isfinite(claim.estimate):  # with or without an interval or a claimed size
        return text + (f"; the estimate ({format_number(claim.estimate)}) lies on the other side of "
                       f"{format_number(claim.null)} from the claim ({claim.direction}): more data would count "
                       "against it, not for it.")
    if unsized:
        return text + "."
    if math.isnan(needed):
        return text + f"; n needed to detect {which} ({format_number(effect)}): not computable."
    return text + f"; about n = {int(needed)} needed to detect {which} ({format_number(effect)})."


def power_table(claims: list[Claim], table: pd.DataFrame, effect: float = 0.05) -> pd.DataFrame:
    """The table a notebook prints beside its claims: one row per claim with ``claim, quantity, n, alpha, mde,
    effect, n_needed`` — its independent units, the per-claim level its family decides it at (``table``: the claims
    table of :func:`helmlite.claims.claims_table`, whose ``alpha`` column holds it), the minimum detectable effect at
    that n and level (80% power) and the units needed to detect ``effect`` (5 points on a 0–1 scale by default; NaN
    when not computable)."""
    alphas = dict(zip(table["claim"], table["alpha"]))
    rows = [{"claim": c.claim, "quantity": c.quantity, "n": c.n, "alpha": alphas[c.claim],
             "mde": minimum_detectable_effect(c, alphas[c.claim]), "effect": effect,
             "n_needed": n_needed(c, effect, alphas[c.claim])} for c in claims]
    return pd.DataFrame(rows, columns=["claim", "quantity", "n", "alpha", "mde", "effect", "n_needed"])


def min_units(alpha: float = 0.05) -> int:
    """Smallest n at which an exact two-sided test of a symmetric null (sign, permutation, exact
    McNemar) can give p < alpha: its smallest p-value is 2·0.5ⁿ (6 at α = 0.05)."""
    return math.floor(math.log2(2 / alpha)) + 1
