"""One verdict rule and one table schema for every claim a notebook tests.

A notebook states a paper's claim as a :class:`Claim` (the quantity, its estimate and interval, the
null value, the claimed direction, optionally the claimed size and a p-value) and calls
:func:`claims_table`, which writes nothing itself but returns the table every
``tables/<analysis>_claims.csv`` holds, with columns :data:`COLUMNS`::

    claim, quantity, estimate, ci_low, ci_high, null, n, mde, verdict, evidence,
    p_value, p_adjusted, correction, direction, claimed_effect, p_claimed, p_claimed_adjusted, p_floor

**Verdicts** (:func:`verdict`), decided in this order:

* ``inconclusive`` when the claim cannot be judged: no finite interval; a zero-width interval (it
  carries no uncertainty — e.g. a percentile bootstrap of 8/8 correct); or n below the smallest n at
  which any exact two-sided test of a symmetric null can reach p < α (sign / permutation / McNemar:
  the smallest p is 2·0.5ⁿ, so n >= 6 at α = 0.05).
* ``supported`` when the interval excludes the null in the claimed direction **and** the p-value of
  "quantity = null", adjusted for the family of claims in the table, is below α. A supported claim's
  interval never contains the null (asserted).
* ``contradicted`` when the interval excludes what the claim asserts **and** the matching p-value,
  adjusted for the same family, is below α: the interval lies entirely on the other side of the null
  (p of "quantity = null", whose rejection then goes the other way — Shaffer 1980 for directional
  decisions after Holm), or it excludes the claimed effect (``claimed_effect`` is the value of the
  quantity the claim asserts at least — e.g. "A beats B by 5 points": quantity = accuracy(A) −
  accuracy(B), null = 0, claimed_effect = 0.05; "greater": ci_high < claimed_effect; "less": ci_low >
  claimed_effect; "two-sided": the interval lies within null ± |claimed_effect − null|), with the
  p-value ``p_claimed`` of "the quantity is as large as claimed" (two-sided: twice the one-sided p;
  for "two-sided" claims twice the larger of the two one-sided p-values of an equivalence test,
  Schuirmann 1987). Without the correction a family of 25 true claims read at least one false
  "contradicted" a third of the time (``benchmarks/coverage.py``).
* ``inconclusive`` otherwise; the evidence then gives the minimum detectable effect (MDE) at this n
  and the n needed to detect the claimed effect (or, without one, the observed effect), from
  :mod:`helmlite.stats.power`.

P-values are two-sided. A resampling test's p-value has a floor, (k + 1)/(B + 1) at k = 0 through its tail function
(``p_floor``: 2/2001 for 2,000 simulations): a p at the floor says only "p ≤ floor", and the evidence writes it so
(and its adjusted p, which Holm's monotone step-down bounds the same way), never as a value. A claim without a p-value (or without ``p_claimed``) gets one from its
interval by the normal approximation (SE = width / (2·z), flagged in the evidence) so that it can
join the family. The family is every hypothesis the table can reject — each claim's null and, for
claims with a claimed size, that size — adjusted together (Holm 1979 by default; statsmodels
``multipletests``). Holm controls the family-wise error rate under any dependence between the claims
(unlike Benjamini–Hochberg, which needs positive dependence).

**MDE by scale** (80% power of the test used, at the interval's level — before the family's correction,
which a large family makes stricter — in the claimed direction; the larger of the two directions for
two-sided claims; :mod:`helmlite.stats.power`): ``"proportion"`` — one
proportion against the null value (exact binomial test); ``"paired-proportion"`` — a difference of
accuracies on the same items (exact McNemar test, with ``discordance`` — the observed share of differing items,
:func:`observed_discordance`, where the notebook passes it — default 0.5);
``"correlation"`` — a correlation against 0 (Fisher z); ``"difference"`` (any other quantity) —
(z_α + z_β)·SE with SE from the interval's width, and n needed scaling as 1/√n.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.special import ndtr, ndtri

from .errors import UserError
from .stats import power as _power

#: The claims-table schema: the ten columns every notebook's claims table starts with, then seven more.
REQUIRED_COLUMNS = ["claim", "quantity", "estimate", "ci_low", "ci_high", "null", "n", "mde", "verdict", "evidence"]
COLUMNS = REQUIRED_COLUMNS + ["p_value", "p_adjusted", "correction", "direction", "claimed_effect", "p_claimed",
                              "p_claimed_adjusted", "p_floor"]
VERDICTS = ("supported", "contradicted", "inconclusive")
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
    exact test): two-sided, or one-sided where the null lies on the edge of what the quantity can be (a
    calibration error θ >= 0 against θ = 0, whose test can only reject upward); ``p_claimed``: optional p-value of "the quantity is as large as
    claimed" (see the module docstring; from the interval when absent). ``scale`` picks the MDE formula (see the module docstring);
    ``mde`` overrides it; ``discordance`` is the share of discordant items for "paired-proportion".
    ``n`` counts independent units: items, or clusters when the interval resamples clusters. ``p_floor``: the
    smallest p-value the test of ``p_value`` can give (a resampling test's; 0 for exact and analytic tests): a p at
    it is written "p ≤ floor".
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
    mde: float | None = None
    level: float = 0.95
    discordance: float | None = None
    p_claimed: float | None = None
    p_floor: float = 0.0

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


def format_number(x) -> str:
    """A number as the claims tables write it: three significant digits; NaN, ±∞, and "< 1e-300" below :data:`P_FLOOR`."""
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "NaN"
    if isinstance(x, float) and 0 < x <= P_FLOOR:
        return f"< {P_FLOOR:.0e}"
    if isinstance(x, float) and math.isinf(x):
        return "∞" if x > 0 else "−∞"
    return f"{x:.3g}"


def at_floor(p, floor) -> bool:
    """Whether ``p`` lies at a resampling test's floor (``floor`` > 0; a relative tolerance of 1e-9 for the
    floating-point arithmetic of (k + 1)/(B + 1))."""
    return floor is not None and math.isfinite(floor) and floor > 0 and p is not None and math.isfinite(p) \
        and p <= floor * (1 + 1e-9)


def format_p(p, floor: float = 0.0, bound=None) -> str:
    """``p = value``, or ``p ≤ floor`` when ``p`` lies at a resampling floor (:func:`at_floor`), which then bounds ``bound``
    (a p adjusted by a monotone procedure, Holm's or Bonferroni's) the same way: ``≤ bound``."""
    value = p if bound is None else bound
    if at_floor(p, floor):
        return f"≤ {format_number(floor if bound is None else bound)}"
    text = format_number(value)
    return text if text.startswith("<") else f"= {text}"


def min_units(alpha: float = 0.05) -> int:
    """Smallest n at which an exact two-sided test of a symmetric null (sign, permutation, exact
    McNemar) can give p < alpha: its smallest p-value is 2·0.5ⁿ (6 at α = 0.05)."""
    return math.floor(math.log2(2 / alpha)) + 1


def _z(level: float) -> float:
    return float(ndtri(1 - (1 - level) / 2))


def _se(claim: Claim) -> float:
    """The standard error the interval implies by the normal approximation, (ci_high − ci_low)/(2·z);
    NaN for a zero-width or non-finite interval."""
    width = claim.ci_high - claim.ci_low
    if not (math.isfinite(width) and width > 0 and math.isfinite(claim.estimate)):
        return math.nan
    return width / (2 * _z(claim.level))


#: The smallest p-value the normal approximation reports: below it the tail underflows to 0 in double precision,
#: and a p of 0 would claim certainty no approximation gives (printed "< 1e-300").
P_FLOOR = 1e-300


def interval_p_value(claim: Claim) -> float:
    """Two-sided p-value of "quantity = null" from the interval by the normal approximation
    (SE = (ci_high − ci_low)/(2·z_{1−α/2})), never below :data:`P_FLOOR`; NaN for a zero-width or non-finite
    interval."""
    se = _se(claim)
    return max(P_FLOOR, float(2 * ndtr(-abs(claim.estimate - claim.null) / se))) if math.isfinite(se) else math.nan


def claimed_size_p_value(claim: Claim) -> float:
    """p-value of "the quantity is as large as claimed" from the interval (normal approximation), on the
    scale of the claim's two-sided interval: "greater": 2·Φ((estimate − c)/SE); "less": 2·Φ((c −
    estimate)/SE); "two-sided" (the quantity differs from the null by at least |c − null|): twice the
    larger one-sided p of the equivalence test against null ± margin (Schuirmann 1987). Capped at 1;
    NaN without a claimed effect or a usable interval. The interval excludes the claimed size exactly
    when this p < 1 − level."""
    se, c = _se(claim), claim.claimed_effect
    if c is None or not math.isfinite(se):
        return math.nan
    if claim.direction == "greater":
        one_sided = ndtr((claim.estimate - c) / se)
    elif claim.direction == "less":
        one_sided = ndtr((c - claim.estimate) / se)
    else:
        margin = abs(c - claim.null)
        one_sided = max(ndtr((claim.estimate - (claim.null + margin)) / se),
                        ndtr(((claim.null - margin) - claim.estimate) / se))
    return max(P_FLOOR, float(min(1.0, 2 * one_sided)))


def _p_claimed(claim: Claim) -> float:
    return claim.p_claimed if claim.p_claimed is not None else claimed_size_p_value(claim)


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
    """A paired-proportion claim's two-way discordance ψ0 = ψ − |δ̂| (the items on which the sides differ in both
    directions, at least 1/n): the planning model of its MDE and n needed lets the discordance grow with the effect,
    ψ = ψ0 + |δ| (:func:`helmlite.stats.mde_paired_growing`), instead of holding the observed ψ fixed — which caps δ
    at ψ, so a claim with few discordant items got an MDE that was its discordance. None without an observed ψ."""
    if claim.discordance is None or claim.scale != "paired-proportion":
        return None
    return min(1 - 1 / max(claim.n, 2), max(claim.discordance - abs(claim.estimate - claim.null), 1 / max(claim.n, 1)))


def _baseline(claim: Claim) -> float:
    return claim.null if 0 < claim.null < 1 else 0.5


def minimum_detectable_effect(claim: Claim) -> float:
    """MDE at the claim's n (80% power of the test used, in the claimed direction — the larger of the two
    for a two-sided claim — at its level), by its scale (see the module docstring)."""
    if claim.mde is not None:
        return float(claim.mde)
    n, level = claim.n, claim.level
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
    """Units needed to detect a difference ``effect`` from the claim's null (80% power of the test used,
    at its level, in its direction), by the claim's scale, never fewer than :func:`min_units` (below
    which no verdict is possible); NaN when not computable (e.g. p ± effect leaves [0, 1])."""
    effect = abs(float(effect))
    if not (effect > 0 and math.isfinite(effect)):
        return math.nan
    level = claim.level
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
            mde = minimum_detectable_effect(claim)
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
    effect, which = _effect(claim)
    needed = n_needed(claim, effect, alpha)
    if math.isinf(mde):
        bound = (f": with {claim.discordance:.3g} of the pairs discordant no difference reaches 80% power"
                 if claim.scale == "paired-proportion" and claim.discordance is not None else "")
        text = f" MDE at n = {claim.n}: none — no effect is detectable at this n{bound} (80% power, {claim.direction}, {claim.level:.0%} level)"
    else:
        text = f" MDE at n = {claim.n}: {format_number(mde)} (80% power, {claim.direction}, {claim.level:.0%} level)"
    base = base_discordance(claim)
    if base is not None:
        text += (f" with the discordance growing with the effect (ψ0 + |δ|, ψ0 = {format_number(base)} differing both "
                 f"ways; at the observed {format_number(claim.discordance)} held fixed: "
                 f"{format_number(_power.mde_proportion(claim.n, paired=True, discordance=claim.discordance, level=claim.level, power=POWER))})")
    if claim.claimed_effect is None and _against(claim) and math.isfinite(claim.ci_low) and math.isfinite(claim.ci_high):
        return text + (f"; the estimate ({format_number(claim.estimate)}) lies on the other side of "
                       f"{format_number(claim.null)} from the claim ({claim.direction}): more data would count "
                       "against it, not for it.")
    if math.isnan(needed):
        return text + f"; n needed to detect {which} ({format_number(effect)}): not computable."
    return text + f"; about n = {int(needed)} needed to detect {which} ({format_number(effect)})."


def verdict(claim: Claim, *, alpha: float | None = None, p_adjusted: float | None = None,
            p_claimed_adjusted: float | None = None, correction_note: str = "single claim") -> dict:
    """The verdict on one claim and its evidence, as one row of the claims table (see the module docstring).

    ``alpha`` defaults to 1 − the claim's level. ``p_adjusted`` / ``p_claimed_adjusted`` are the claim's
    p-values of the null and of the claimed size adjusted for its family (:func:`claims_table` computes
    them); without them the claim's own (or interval-derived) p-values are used.
    """
    alpha = 1 - claim.level if alpha is None else alpha
    low, high, null, n = claim.ci_low, claim.ci_high, claim.null, claim.n
    p_raw = claim.p_value if claim.p_value is not None else interval_p_value(claim)
    p_adj = p_raw if p_adjusted is None else p_adjusted
    p_size = _p_claimed(claim)
    p_size_adj = p_size if p_claimed_adjusted is None else p_claimed_adjusted
    mde = minimum_detectable_effect(claim)
    interval = f"{claim.level:.0%} CI [{format_number(low)}, {format_number(high)}] (n = {n})"
    c = claim.claimed_effect
    row = {"claim": claim.claim, "quantity": claim.quantity, "estimate": claim.estimate, "ci_low": low,
           "ci_high": high, "null": null, "n": n, "mde": mde, "p_value": p_raw, "p_adjusted": p_adj,
           "correction": correction_note, "direction": claim.direction, "claimed_effect": c, "p_claimed": p_size,
           "p_claimed_adjusted": p_size_adj, "p_floor": claim.p_floor}
    source = "" if claim.p_value is not None else " (p from the interval, normal approximation)"
    size_source = "" if claim.p_claimed is not None else " (from the interval, normal approximation)"

    def done(word: str, evidence: str) -> dict:
        if word == "supported" and low <= null <= high:
            raise AssertionError(f"claim {claim.claim!r}: 'supported' with the null {null} inside [{low}, {high}]")
        return {**row, "verdict": word, "evidence": evidence}

    def below_alpha(p) -> bool:
        return p is not None and math.isfinite(p) and p < alpha

    if not all(math.isfinite(v) for v in (claim.estimate, low, high)):
        return done("inconclusive", f"no finite interval ({interval}).{_power_note(claim, mde, alpha)}")
    if n < min_units(alpha):
        return done("inconclusive", f"{interval}: n = {n} is too few for any verdict — no exact two-sided test "
                                    f"can reach p < {format_number(alpha)} with fewer than {min_units(alpha)} independent "
                                    f"units (smallest p = 2·0.5^n = {format_number(2 * 0.5 ** n)}).{_power_note(claim, mde, alpha)}")
    if high - low <= 0:
        return done("inconclusive", f"{interval} has zero width and so carries no uncertainty estimate (use an "
                                    f"exact interval, e.g. helmlite.stats.proportion_ci).{_power_note(claim, mde, alpha)}")
    if claim.direction == "greater":
        other_side, excludes_claimed, excludes_null = high < null, c is not None and high < c, low > null
    elif claim.direction == "less":
        other_side, excludes_claimed, excludes_null = low > null, c is not None and low > c, high < null
    else:
        margin = None if c is None else abs(c - null)
        other_side = False
        excludes_claimed = margin is not None and null - margin < low and high < null + margin
        excludes_null = low > null or high < null
    floor_note = (" (the resampling floor: no resample as extreme as the observed value)"
                  if at_floor(p_raw, claim.p_floor) else "")
    null_test = (f"p {format_p(p_raw, claim.p_floor)}{floor_note}{source}, "
                 f"adjusted p {format_p(p_raw, claim.p_floor, p_adj)}")
    size_test = f"p of the claimed size = {format_number(p_size)}{size_source}, adjusted p = {format_number(p_size_adj)}"
    if other_side and below_alpha(p_adj):
        return done("contradicted", f"{interval} lies entirely on the other side of the null {format_number(null)} "
                                    f"(the claim says {claim.direction}); {null_test} < α = {format_number(alpha)} "
                                    f"({correction_note}).")
    if excludes_claimed and below_alpha(p_size_adj):
        side = {"greater": "below", "less": "above", "two-sided": "within ± the size of"}[claim.direction]
        return done("contradicted", f"{interval} lies {side} the claimed effect {format_number(c)}: the claimed size is "
                                    f"excluded" + (" although the effect goes the claimed way" if excludes_null else "")
                                    + f"; {size_test} < α = {format_number(alpha)} ({correction_note}).")
    if excludes_null and not other_side and below_alpha(p_adj):
        return done("supported", f"{interval} excludes the null {format_number(null)} ({claim.direction}); {null_test} "
                                 f"< α = {format_number(alpha)} ({correction_note}).")
    if other_side or excludes_null:
        where = "lies on the other side of" if other_side else "excludes"
        return done("inconclusive", f"{interval} {where} the null {format_number(null)}, but the adjusted p "
                                    f"{format_p(p_raw, claim.p_floor, p_adj)}"
                                    f"{source} is not below α = {format_number(alpha)} ({correction_note})."
                                    f"{_power_note(claim, mde, alpha)}")
    if excludes_claimed:
        return done("inconclusive", f"{interval} excludes the claimed effect {format_number(c)}, but the adjusted p of the "
                                    f"claimed size = {format_number(p_size_adj)}{size_source} is not below α = {format_number(alpha)} "
                                    f"({correction_note}).{_power_note(claim, mde, alpha)}")
    return done("inconclusive", f"{interval} includes the null {format_number(null)}.{_power_note(claim, mde, alpha)}")


def claims_table(claims: list[Claim], alpha: float = 0.05, correction: str = "holm") -> pd.DataFrame:
    """Verdicts for a family of claims, p-values adjusted across the family, in the :data:`COLUMNS` schema.

    The family is every hypothesis the table can reject: each claim's null (its two-sided p-value,
    interval-derived where a claim has none) and, for each claim with a claimed size, that size
    (``p_claimed``). ``correction``: ``"holm"`` (Holm 1979, the default), ``"bonferroni"`` or ``"none"``,
    applied by statsmodels ``multipletests`` to all of them together, so that "supported" and
    "contradicted" are both corrected; the ``correction`` column and each evidence text name it and the
    family size. Each claim's interval should be at level 1 − ``alpha``.
    """
    if correction not in CORRECTIONS:
        raise UserError(f"claims_table: correction must be one of {CORRECTIONS}, got {correction!r}")
    if not claims:
        return pd.DataFrame(columns=COLUMNS)
    nulls = [c.p_value if c.p_value is not None else interval_p_value(c) for c in claims]
    raw = np.array(nulls + [_p_claimed(c) for c in claims], dtype=float)
    adjusted = raw.copy()
    usable = np.isfinite(raw)
    m = int(usable.sum())
    if correction != "none" and m > 1:
        from statsmodels.stats.multitest import multipletests

        adjusted[usable] = multipletests(raw[usable], alpha=alpha, method=correction)[1]
    sizes = int(np.isfinite(raw[len(claims):]).sum())
    family = f"{m} hypotheses: {m - sizes} nulls, {sizes} claimed sizes" if sizes else f"{m} claims"
    note = f"{correction} over {family}" if correction != "none" and m > 1 else \
        ("single claim" if m <= 1 else f"no correction over {family}")

    def finite(p):
        return float(p) if np.isfinite(p) else None

    rows = [verdict(c, alpha=alpha, p_adjusted=finite(adjusted[k]), p_claimed_adjusted=finite(adjusted[len(claims) + k]),
                    correction_note=note) for k, c in enumerate(claims)]
    return pd.DataFrame(rows, columns=COLUMNS)


def check_claims_table(table: pd.DataFrame) -> None:
    """Raise ``UserError`` unless ``table`` follows the claims schema: the ten required columns first,
    known verdicts, and no ``supported`` row whose interval contains the null."""
    if list(table.columns[:len(REQUIRED_COLUMNS)]) != REQUIRED_COLUMNS:
        raise UserError(f"claims table: the columns must start with {REQUIRED_COLUMNS}, got {list(table.columns)}")
    unknown = set(table["verdict"]) - set(VERDICTS)
    if unknown:
        raise UserError(f"claims table: unknown verdicts {sorted(unknown)}; expected {VERDICTS}")
    supported = table[table["verdict"] == "supported"]
    bad = supported[(supported["ci_low"] <= supported["null"]) & (supported["null"] <= supported["ci_high"])]
    if len(bad):
        raise UserError(f"claims table: 'supported' with the null inside the interval: {list(bad['claim'])}")


def readable(table: pd.DataFrame, columns: list[str]) -> pd.DataFrame:
    """``columns`` of a claims table as a notebook shows them: numbers to three digits, and ``p_value`` / ``p_adjusted``
    as :func:`format_p` writes them — "≤ floor" for a p at a resampling floor, not a value."""
    out = table[columns].copy()
    floors = table["p_floor"] if "p_floor" in table else pd.Series(0.0, index=table.index)
    for column in ("p_value", "p_adjusted"):
        if column in out:
            out[column] = [format_p(p, floor, None if column == "p_value" else bound).removeprefix("= ")
                           for p, floor, bound in zip(table["p_value"], floors, table[column])]
    return out.round(3)


def power_table(claims: list[Claim], effect: float = 0.05, alpha: float = 0.05) -> pd.DataFrame:
    """The table a notebook prints beside its claims: one row per claim with ``claim, quantity, n, mde,
    effect, n_needed`` — its independent units, the minimum detectable effect at that n (80% power) and
    the units needed to detect ``effect`` (5 points on a 0–1 scale by default; NaN when not computable)."""
    rows = [{"claim": c.claim, "quantity": c.quantity, "n": c.n, "mde": minimum_detectable_effect(c), "effect": effect,
             "n_needed": n_needed(c, effect, alpha)} for c in claims]
    return pd.DataFrame(rows, columns=["claim", "quantity", "n", "mde", "effect", "n_needed"])
