"""Families: which claims a correction runs over, which are decided (primary) and which only reported (exploratory).

Each analysis declares the family of each of its claims (``Claim.family``: e.g. notebook 01's claims on the live runs
form one family and its claims on the published leaderboard another — different data, different questions). A config
may name an analysis's **primary** claims (``primary_claims`` in its section: a pre-registration of the decisions the
run is designed for). Then:

* the correction (Holm 1979 by default) runs within each family over the hypotheses of its primary claims — each
  claim's null and, for a claim with a claimed size, that size (statsmodels ``multipletests``);
* every other claim is **exploratory**: its estimate, interval and unadjusted p are reported, labelled so, and no
  verdict is given (the table's verdict says ``exploratory``).

Without a declaration every claim of the table is primary, and its family is what its analysis declares.

The MDE of a claim is computed at **the level its family decides it at**: Holm's first step, α / m for a family of m
hypotheses, the worst case any one hypothesis meets (it is exactly the level when the other nulls hold); Bonferroni's
is the same; without a correction, or alone in its family, α. The planner sizes the same decision
(:mod:`helmlite.planning.claim_mdes`), so a design sized for an MDE D reaches 80% power inside its family.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import UserError
from .numbers import _p_claimed, interval_p_value
from .record import Claim


@dataclass(frozen=True)
class Decision:
    """How one claim of a table is decided: its family, whether it is primary, the family's hypothesis count, the
    per-claim α its MDE uses, its adjusted p-values (None where it has none) and the note that names the correction."""

    family: str
    primary: bool
    family_size: int
    alpha: float
    p_adjusted: float | None
    p_claimed_adjusted: float | None
    note: str


def check_primary(claims: list[Claim], primary, where: str = "primary_claims") -> set[str] | None:
    """The set of primary claim names (None: every claim is primary). A name that is no claim of ``claims`` is an
    error naming ``where`` and listing the claims' names — a pre-registration that names nothing decides nothing."""
    if primary is None:
        return None
    names = {c.claim for c in claims}
    unknown = [name for name in primary if name not in names]
    if unknown:
        listing = "; ".join(sorted(names)) or "(none)"
        raise UserError(f"{where}: {unknown[0]!r} is not a claim of this analysis (names are the claims table's 'claim' "
                        f"column, verbatim); its claims: {listing}")
    return set(primary)


def _raw_p_values(claims: list[Claim]) -> tuple[np.ndarray, np.ndarray]:
    nulls = np.array([c.p_value if c.p_value is not None else interval_p_value(c) for c in claims], float)
    sizes = np.array([_p_claimed(c) for c in claims], float)
    return nulls, sizes


def decide_families(claims: list[Claim], alpha: float, correction: str, primary=None) -> list[Decision]:
    """One :class:`Decision` per claim (see the module docstring): the correction within each family over its primary
    claims' hypotheses with a finite p."""
    from statsmodels.stats.multitest import multipletests

    chosen = check_primary(claims, primary)
    nulls, sizes = _raw_p_values(claims)
    adjusted_nulls, adjusted_sizes = nulls.copy(), sizes.copy()
    is_primary = np.array([chosen is None or c.claim in chosen for c in claims])
    families = [c.family for c in claims]
    notes, counts = {}, {}
    for family in dict.fromkeys(families):
        members = np.array([f == family for f in families]) & is_primary
        raw = np.concatenate([nulls[members], sizes[members]])
        usable = np.isfinite(raw)
        m = int(usable.sum())
        adjusted = raw.copy()
        if correction != "none" and m > 1:
            adjusted[usable] = multipletests(raw[usable], alpha=alpha, method=correction)[1]
        k = int(members.sum())
        adjusted_nulls[members], adjusted_sizes[members] = adjusted[:k], adjusted[k:]
        claimed = int(np.isfinite(raw[k:]).sum())
        what = f"{m} hypotheses: {m - claimed} nulls, {claimed} claimed sizes" if claimed else f"{m} claims"
        label = f"family '{family}'" + ("" if chosen is None else ", primary claims")
        notes[family] = (f"{correction} over {what} ({label})" if correction != "none" and m > 1 else
                         (f"single claim ({label})" if m <= 1 else f"no correction over {what} ({label})"))
        counts[family] = max(m, 1)

    def finite(p):
        return float(p) if np.isfinite(p) else None

    out = []
    for k, claim in enumerate(claims):
        if not is_primary[k]:
            out.append(Decision(claim.family, False, 1, alpha, None, None,
                                "exploratory (not among the primary claims the config declares): unadjusted"))
            continue
        m = counts[claim.family]
        per_claim = alpha / m if correction != "none" else alpha
        out.append(Decision(claim.family, True, m, per_claim, finite(adjusted_nulls[k]), finite(adjusted_sizes[k]),
                            notes[claim.family]))
    return out
