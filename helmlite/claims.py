"""One verdict rule and one table schema for every claim a notebook tests.

A notebook states a paper's claim as a :class:`Claim` (the quantity, its estimate and interval, the
null value, the claimed direction, optionally the claimed size and a p-value) and calls
:func:`claims_table`, which writes nothing itself but returns the table every
``tables/<analysis>_claims.csv`` holds, with columns :data:`COLUMNS`::

    claim, quantity, estimate, ci_low, ci_high, null, n, mde, verdict, evidence,
    p_value, p_adjusted, correction, direction, claimed_effect

**Verdicts** (:func:`verdict`), decided in this order:

* ``inconclusive`` when the claim cannot be judged: no finite interval; a zero-width interval (it
  carries no uncertainty — e.g. a percentile bootstrap of 8/8 correct); or n below the smallest n at
  which any exact two-sided test of a symmetric null can reach p < α (sign / permutation / McNemar:
  the smallest p is 2·0.5ⁿ, so n >= 6 at α = 0.05).
* ``contradicted`` when the interval excludes what the claim asserts: it lies entirely on the other
  side of the null, or it excludes the claimed effect (``claimed_effect`` is the value of the quantity
  the claim asserts at least — e.g. "A beats B by 5 points": quantity = accuracy(A) − accuracy(B),
  null = 0, claimed_effect = 0.05; "greater": ci_high < claimed_effect; "less": ci_low >
  claimed_effect; "two-sided": the interval lies within null ± |claimed_effect − null|).
* ``supported`` when the interval excludes the null in the claimed direction **and** the p-value,
  adjusted for the family of claims in the table (Holm 1979 by default; statsmodels
  ``multipletests``), is below α. A supported claim's interval never contains the null (asserted).
* ``inconclusive`` otherwise; the evidence then gives the minimum detectable effect (MDE) at this n
  and the n needed to detect the claimed effect (or, without one, the observed effect), from
  :mod:`helmlite.stats.power`.

P-values are two-sided. A claim without a p-value gets one from its interval by the normal
approximation (SE = width / (2·z), flagged in the evidence) so that it can join the Holm family.
Holm controls the family-wise error rate under any dependence between the claims (unlike
Benjamini–Hochberg, which needs positive dependence).

**MDE by scale** (80% power, two-sided at the interval's level): ``"proportion"`` — one proportion
against the null value (arcsine scale, one sample); ``"paired-proportion"`` — a difference of
accuracies on the same items (McNemar, Connor 1987, with ``discordance``, default 0.5);
``"correlation"`` — a correlation against 0 (Fisher z); ``"difference"`` (any other quantity) —
(z_α + z_β)·SE with SE from the interval's width, and n needed scaling as 1/√n.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.special import ndtr, ndtri

from .errors import InputError
from .stats import power as _power

#: The claims-table schema: the ten columns every notebook's claims table starts with, then five more.
REQUIRED_COLUMNS = ["claim", "quantity", "estimate", "ci_low", "ci_high", "null", "n", "mde", "verdict", "evidence"]
COLUMNS = REQUIRED_COLUMNS + ["p_value", "p_adjusted", "correction", "direction", "claimed_effect"]
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
    ``p_value``: optional two-sided p-value of "quantity = null" (from the same procedure as the
    interval, or an exact test). ``scale`` picks the MDE formula (see the module docstring);
    ``mde`` overrides it; ``discordance`` is the share of discordant items for "paired-proportion".
    ``n`` counts independent units: items, or clusters when the interval resamples clusters.
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

    def __post_init__(self):
        if self.direction not in DIRECTIONS:
            raise InputError(f"claim {self.claim!r}: direction must be one of {DIRECTIONS}, got {self.direction!r}")
        if self.scale not in SCALES:
            raise InputError(f"claim {self.claim!r}: scale must be one of {SCALES}, got {self.scale!r}")
        if not 0 < self.level < 1:
            raise InputError(f"claim {self.claim!r}: level must lie strictly between 0 and 1, got {self.level}")
        if self.ci_low > self.ci_high:
            raise InputError(f"claim {self.claim!r}: ci_low {self.ci_low} > ci_high {self.ci_high}")
        if self.p_value is not None and not (0 <= self.p_value <= 1 or math.isnan(self.p_value)):
            raise InputError(f"claim {self.claim!r}: p_value must lie in [0, 1], got {self.p_value}")
        c = self.claimed_effect
        if c is not None and ((self.direction == "greater" and not c > self.null)
                              or (self.direction == "less" and not c < self.null)
                              or (self.direction == "two-sided" and c == self.null)):
            raise InputError(f"claim {self.claim!r}: claimed_effect {c} must lie on the claimed side ({self.direction}) "
                             f"of the null {self.null}")

    @classmethod
    def from_estimate(cls, claim: str, quantity: str, estimate, null: float = 0.0, direction: str = "greater",
                      **kwargs) -> "Claim":
        """A claim from a :class:`helmlite.stats.Estimate` (its estimate, interval, n and confidence);
        the p-value of a :class:`~helmlite.stats.PairedComparison` is used when the null is 0."""
        if "p_value" not in kwargs and null == 0 and getattr(estimate, "p_value", None) is not None:
            kwargs["p_value"] = estimate.p_value
        return cls(claim, quantity, float(estimate.estimate), float(estimate.ci_low), float(estimate.ci_high),
                   null, int(estimate.n), direction, level=float(estimate.confidence), **kwargs)


def _fmt(x) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "NaN"
    if isinstance(x, float) and math.isinf(x):
        return "∞" if x > 0 else "−∞"
    return f"{x:.3g}"


def min_units(alpha: float = 0.05) -> int:
    """Smallest n at which an exact two-sided test of a symmetric null (sign, permutation, exact
    McNemar) can give p < alpha: its smallest p-value is 2·0.5ⁿ (6 at α = 0.05)."""
    return math.floor(math.log2(2 / alpha)) + 1


def _z(level: float) -> float:
    return float(ndtri(1 - (1 - level) / 2))


def interval_p_value(claim: Claim) -> float:
    """Two-sided p-value of "quantity = null" from the interval by the normal approximation
    (SE = (ci_high − ci_low)/(2·z_{1−α/2})); NaN for a zero-width or non-finite interval."""
    width = claim.ci_high - claim.ci_low
    if not (math.isfinite(width) and width > 0 and math.isfinite(claim.estimate)):
        return math.nan
    z = (claim.estimate - claim.null) / (width / (2 * _z(claim.level)))
    return float(2 * ndtr(-abs(z)))


def _effect(claim: Claim) -> tuple[float, str]:
    if claim.claimed_effect is not None:
        return abs(claim.claimed_effect - claim.null), "the claimed effect"
    return abs(claim.estimate - claim.null), "the observed effect"


def minimum_detectable_effect(claim: Claim) -> float:
    """MDE at the claim's n (80% power, two-sided at its level), by its scale (see the module docstring)."""
    if claim.mde is not None:
        return float(claim.mde)
    n, level = claim.n, claim.level
    if claim.scale == "proportion":
        p = claim.null if 0 < claim.null < 1 else 0.5
        return _power.mde_proportion(n, p=p, level=level, power=POWER, one_sample=True)
    if claim.scale == "paired-proportion":
        return _power.mde_proportion(n, p=0.5, level=level, power=POWER, paired=True, discordance=claim.discordance)
    if claim.scale == "correlation":
        return _power.mde_correlation(n, level=level, power=POWER)
    width = claim.ci_high - claim.ci_low
    if not (math.isfinite(width) and width > 0):
        return math.nan
    return (_z(level) + float(ndtri(POWER))) * width / (2 * _z(level))


def _n_needed(claim: Claim, mde: float, alpha: float) -> tuple[int | None, str]:
    """Units needed to detect the claimed (else observed) effect: the power formula's n, and never fewer
    than :func:`min_units` (below which no verdict is possible)."""
    needed, which = _n_by_formula(claim, mde)
    return (None if needed is None else max(needed, min_units(alpha))), which


def _n_by_formula(claim: Claim, mde: float) -> tuple[int | None, str]:
    effect, which = _effect(claim)
    if not (effect > 0 and math.isfinite(effect)):
        return None, which
    try:
        if claim.scale == "proportion":
            p = claim.null if 0 < claim.null < 1 else 0.5
            return _power.required_n(effect, p=p, level=claim.level, power=POWER, one_sample=True), which
        if claim.scale == "paired-proportion":
            return _power.required_n(effect, p=0.5, level=claim.level, power=POWER, paired=True,
                                     discordance=claim.discordance), which
        if claim.scale == "correlation":
            return _power.required_n_correlation(min(effect, 0.999), level=claim.level, power=POWER), which
    except InputError:
        return None, which
    if not (math.isfinite(mde) and mde > 0 and claim.n > 0):
        return None, which
    return math.ceil(claim.n * (mde / effect) ** 2), which


def _power_note(claim: Claim, mde: float, alpha: float) -> str:
    needed, which = _n_needed(claim, mde, alpha)
    effect, _ = _effect(claim)
    text = f" MDE at n = {claim.n}: {_fmt(mde)} (80% power, two-sided, {claim.level:.0%} level)"
    if needed is None:
        return text + f"; n needed to detect {which} ({_fmt(effect)}): not computable."
    return text + f"; about n = {needed} needed to detect {which} ({_fmt(effect)})."


def verdict(claim: Claim, *, alpha: float | None = None, p_adjusted: float | None = None,
            correction_note: str = "single claim") -> dict:
    """The verdict on one claim and its evidence, as one row of the claims table (see the module docstring).

    ``alpha`` defaults to 1 − the claim's level. ``p_adjusted`` is the claim's p-value adjusted for
    its family (:func:`claims_table` computes it); without it the claim's own (or interval-derived)
    p-value is used.
    """
    alpha = 1 - claim.level if alpha is None else alpha
    low, high, null, n = claim.ci_low, claim.ci_high, claim.null, claim.n
    p_raw = claim.p_value if claim.p_value is not None else interval_p_value(claim)
    p_adj = p_raw if p_adjusted is None else p_adjusted
    mde = minimum_detectable_effect(claim)
    interval = f"{claim.level:.0%} CI [{_fmt(low)}, {_fmt(high)}] (n = {n})"
    c = claim.claimed_effect
    row = {"claim": claim.claim, "quantity": claim.quantity, "estimate": claim.estimate, "ci_low": low,
           "ci_high": high, "null": null, "n": n, "mde": mde, "p_value": p_raw, "p_adjusted": p_adj,
           "correction": correction_note, "direction": claim.direction, "claimed_effect": c}
    source = "" if claim.p_value is not None else " (p from the interval, normal approximation)"

    def done(word: str, evidence: str) -> dict:
        if word == "supported" and low <= null <= high:
            raise AssertionError(f"claim {claim.claim!r}: 'supported' with the null {null} inside [{low}, {high}]")
        return {**row, "verdict": word, "evidence": evidence}

    if not all(math.isfinite(v) for v in (claim.estimate, low, high)):
        return done("inconclusive", f"no finite interval ({interval}).{_power_note(claim, mde, alpha)}")
    if n < min_units(alpha):
        return done("inconclusive", f"{interval}: n = {n} is too few for any verdict — no exact two-sided test "
                                    f"can reach p < {_fmt(alpha)} with fewer than {min_units(alpha)} independent "
                                    f"units (smallest p = 2·0.5^n = {_fmt(2 * 0.5 ** n)}).{_power_note(claim, mde, alpha)}")
    if high - low <= 0:
        return done("inconclusive", f"{interval} has zero width and so carries no uncertainty estimate (use an "
                                    f"exact interval, e.g. helmlite.stats.proportion_ci).{_power_note(claim, mde, alpha)}")
    if claim.direction == "greater":
        other_side, excludes_claimed = high < null, c is not None and high < c
        excludes_null = low > null
    elif claim.direction == "less":
        other_side, excludes_claimed = low > null, c is not None and low > c
        excludes_null = high < null
    else:
        margin = None if c is None else abs(c - null)
        other_side = False
        excludes_claimed = margin is not None and null - margin < low and high < null + margin
        excludes_null = low > null or high < null
    if other_side:
        return done("contradicted", f"{interval} lies entirely on the other side of the null {_fmt(null)} "
                                    f"(the claim says {claim.direction}).")
    if excludes_claimed:
        side = {"greater": "below", "less": "above", "two-sided": "within ± the size of"}[claim.direction]
        return done("contradicted", f"{interval} lies {side} the claimed effect {_fmt(c)}: the claimed size is "
                                    f"excluded" + (" although the effect goes the claimed way." if excludes_null else "."))
    if excludes_null and p_adj is not None and p_adj < alpha:
        return done("supported", f"{interval} excludes the null {_fmt(null)} ({claim.direction}); p = {_fmt(p_raw)}"
                                 f"{source}, adjusted p = {_fmt(p_adj)} < α = {_fmt(alpha)} ({correction_note}).")
    if excludes_null:
        return done("inconclusive", f"{interval} excludes the null {_fmt(null)}, but the adjusted p = {_fmt(p_adj)}"
                                    f"{source} is not below α = {_fmt(alpha)} ({correction_note})."
                                    f"{_power_note(claim, mde, alpha)}")
    return done("inconclusive", f"{interval} includes the null {_fmt(null)}.{_power_note(claim, mde, alpha)}")


def claims_table(claims: list[Claim], alpha: float = 0.05, correction: str = "holm") -> pd.DataFrame:
    """Verdicts for a family of claims, p-values adjusted across the family, in the :data:`COLUMNS` schema.

    ``correction``: ``"holm"`` (Holm 1979, the default), ``"bonferroni"`` or ``"none"``, applied by
    statsmodels ``multipletests`` to the claims' two-sided p-values (interval-derived where a claim
    has none); the ``correction`` column and each evidence text name it and the family size. Each
    claim's interval should be at level 1 − ``alpha``.
    """
    if correction not in CORRECTIONS:
        raise InputError(f"claims_table: correction must be one of {CORRECTIONS}, got {correction!r}")
    if not claims:
        return pd.DataFrame(columns=COLUMNS)
    raw = np.array([c.p_value if c.p_value is not None else interval_p_value(c) for c in claims], dtype=float)
    adjusted = raw.copy()
    usable = np.isfinite(raw)
    m = int(usable.sum())
    if correction != "none" and m > 1:
        from statsmodels.stats.multitest import multipletests

        adjusted[usable] = multipletests(raw[usable], alpha=alpha, method=correction)[1]
    note = f"{correction} over {m} claims" if correction != "none" and m > 1 else \
        ("single claim" if m <= 1 else f"no correction over {m} claims")
    rows = [verdict(c, alpha=alpha, p_adjusted=float(p) if np.isfinite(p) else None, correction_note=note)
            for c, p in zip(claims, adjusted)]
    return pd.DataFrame(rows, columns=COLUMNS)


def check_claims_table(table: pd.DataFrame) -> None:
    """Raise ``InputError`` unless ``table`` follows the claims schema: the ten required columns first,
    known verdicts, and no ``supported`` row whose interval contains the null."""
    if list(table.columns[:len(REQUIRED_COLUMNS)]) != REQUIRED_COLUMNS:
        raise InputError(f"claims table: the columns must start with {REQUIRED_COLUMNS}, got {list(table.columns)}")
    unknown = set(table["verdict"]) - set(VERDICTS)
    if unknown:
        raise InputError(f"claims table: unknown verdicts {sorted(unknown)}; expected {VERDICTS}")
    supported = table[table["verdict"] == "supported"]
    bad = supported[(supported["ci_low"] <= supported["null"]) & (supported["null"] <= supported["ci_high"])]
    if len(bad):
        raise InputError(f"claims table: 'supported' with the null inside the interval: {list(bad['claim'])}")


def n_needed(claim: Claim, effect: float, alpha: float = 0.05) -> float:
    """Units needed to detect a difference ``effect`` from the claim's null (80% power, two-sided at its
    level), by the claim's scale, never fewer than :func:`min_units`; NaN when not computable."""
    level, p = claim.level, (claim.null if 0 < claim.null < 1 else 0.5)
    try:
        if claim.scale == "proportion":
            needed = _power.required_n(effect, p=p, level=level, power=POWER, one_sample=True)
        elif claim.scale == "paired-proportion":
            needed = _power.required_n(effect, p=0.5, level=level, power=POWER, paired=True, discordance=claim.discordance)
        elif claim.scale == "correlation":
            needed = _power.required_n_correlation(effect, level=level, power=POWER)
        else:  # the interval's standard error scales as 1/sqrt(n)
            mde = minimum_detectable_effect(claim)
            if not (math.isfinite(mde) and mde > 0 and claim.n > 0):
                return math.nan
            needed = math.ceil(claim.n * (mde / effect) ** 2)
    except InputError:
        return math.nan
    return float(max(needed, min_units(alpha)))


def power_table(claims: list[Claim], effect: float = 0.05, alpha: float = 0.05) -> pd.DataFrame:
    """The table a notebook prints beside its claims: one row per claim with ``claim, quantity, n, mde,
    effect, n_needed`` — its independent units, the minimum detectable effect at that n (80% power) and
    the units needed to detect ``effect`` (5 points on a 0–1 scale by default; NaN when not computable)."""
    rows = [{"claim": c.claim, "quantity": c.quantity, "n": c.n, "mde": minimum_detectable_effect(c), "effect": effect,
             "n_needed": n_needed(c, effect, alpha)} for c in claims]
    return pd.DataFrame(rows, columns=["claim", "quantity", "n", "mde", "effect", "n_needed"])
