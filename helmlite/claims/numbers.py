"""Numbers as the claims tables write them (:func:`format_number`, :func:`format_p` with a resampling floor) and the
p-values a claim without its own gets from its interval (the normal approximation)."""
from __future__ import annotations

import math

from scipy.special import ndtr, ndtri

from .record import Claim


def format_number(x) -> str:
    """A number as the claims tables write it: three significant digits (a negative zero as "0"); NaN, ±∞, and
    "< 1e-300" below :data:`P_FLOOR`."""
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "NaN"
    if isinstance(x, float) and 0 < x <= P_FLOOR:
        return f"< {P_FLOOR:.0e}"
    if isinstance(x, float) and math.isinf(x):
        return "∞" if x > 0 else "−∞"
    text = f"{x:.3g}"
    return "0" if text == "-0" else text


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
    estimate)/SE); "two-sided" (the quantity differs from the null by at least abs(c − null)): twice the
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
