"""Verdicts: one rule for every claim (the claims package docstring), the family-wise correction across a table, the
table's schema check, and the table as a notebook shows it."""
from __future__ import annotations

import math

import pandas as pd

from ..errors import UserError
from .families import Decision, decide_families
from .numbers import _p_claimed, at_floor, format_number, format_p, interval_p_value
from .power import _power_note, min_units, minimum_detectable_effect
from .record import COLUMNS, CORRECTIONS, EXPLORATORY, REQUIRED_COLUMNS, TABLE_VERDICTS, Claim


def interval_text(claim: Claim) -> str:
    """"95% CI [low, high] (n = N)", or "no interval (n = N)" when a bound is missing (the claim's ``note`` or the
    evidence around it says what blocked it)."""
    if all(math.isfinite(v) for v in (claim.estimate, claim.ci_low, claim.ci_high)):
        return f"{claim.level:.0%} CI [{format_number(claim.ci_low)}, {format_number(claim.ci_high)}] (n = {claim.n})"
    return f"no interval (n = {claim.n})"


def _row(claim: Claim, p_adjusted, p_claimed_adjusted, correction_note: str, mde_alpha: float) -> dict:
    """The claims-table row of ``claim`` but its verdict and evidence: its raw and adjusted p-values (its own, or from
    its interval), its MDE at ``mde_alpha`` and its family."""
    p_raw = claim.p_value if claim.p_value is not None else interval_p_value(claim)
    p_size = _p_claimed(claim)
    return {"claim": claim.claim, "quantity": claim.quantity, "estimate": claim.estimate, "ci_low": claim.ci_low,
            "ci_high": claim.ci_high, "null": claim.null, "n": claim.n, "mde": minimum_detectable_effect(claim, mde_alpha),
            "p_value": p_raw, "p_adjusted": p_raw if p_adjusted is None else p_adjusted, "correction": correction_note,
            "direction": claim.direction, "claimed_effect": claim.claimed_effect, "p_claimed": p_size,
            "p_claimed_adjusted": p_size if p_claimed_adjusted is None else p_claimed_adjusted, "p_floor": claim.p_floor,
            "family": claim.family, "role": "primary", "family_size": 1, "alpha": mde_alpha}


def verdict(claim: Claim, *, alpha: float | None = None, p_adjusted: float | None = None,
            p_claimed_adjusted: float | None = None, correction_note: str = "single claim",
            mde_alpha: float | None = None) -> dict:
    """The verdict on one claim and its evidence, as one row of the claims table (see the module docstring).

    ``alpha`` defaults to 1 − the claim's level. ``p_adjusted`` / ``p_claimed_adjusted`` are the claim's
    p-values of the null and of the claimed size adjusted for its family (:func:`claims_table` computes
    them); without them the claim's own (or interval-derived) p-values are used. ``mde_alpha``: the per-claim level
    its family decides it at (:mod:`helmlite.claims.families`; default ``alpha``), at which the MDE is computed.
    """
    alpha = 1 - claim.level if alpha is None else alpha
    mde_alpha = alpha if mde_alpha is None else mde_alpha
    low, high, null, n = claim.ci_low, claim.ci_high, claim.null, claim.n
    row = _row(claim, p_adjusted, p_claimed_adjusted, correction_note, mde_alpha)
    p_raw, p_adj, p_size, p_size_adj, mde = (row[k] for k in ("p_value", "p_adjusted", "p_claimed", "p_claimed_adjusted", "mde"))
    interval = interval_text(claim)
    c = claim.claimed_effect
    source = "" if claim.p_value is not None else " (p from the interval, normal approximation)"
    size_source = "" if claim.p_claimed is not None else " (from the interval, normal approximation)"

    def done(word: str, evidence: str) -> dict:
        if word == "supported" and low <= null <= high:
            raise AssertionError(f"claim {claim.claim!r}: 'supported' with the null {null} inside [{low}, {high}]")
        return {**row, "verdict": word, "evidence": f"{claim.note} — {evidence}" if claim.note else evidence}

    def below_alpha(p) -> bool:
        return p is not None and math.isfinite(p) and p < alpha

    if not all(math.isfinite(v) for v in (claim.estimate, low, high)):
        return done("inconclusive", f"{interval}.{_power_note(claim, mde, mde_alpha)}")
    if n < min_units(alpha):
        return done("inconclusive", f"{interval}: n = {n} is too few for any verdict — no exact two-sided test "
                                    f"can reach p < {format_number(alpha)} with fewer than {min_units(alpha)} independent "
                                    f"units (smallest p = 2·0.5^n = {format_number(2 * 0.5 ** n)}).{_power_note(claim, mde, mde_alpha)}")
    if high - low <= 0:
        return done("inconclusive", f"{interval} has zero width and so carries no uncertainty estimate (use an "
                                    f"exact interval, e.g. helmlite.stats.proportion_ci).{_power_note(claim, mde, mde_alpha)}")
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
                                    f"{_power_note(claim, mde, mde_alpha)}")
    if excludes_claimed:
        return done("inconclusive", f"{interval} excludes the claimed effect {format_number(c)}, but the adjusted p of the "
                                    f"claimed size = {format_number(p_size_adj)}{size_source} is not below α = {format_number(alpha)} "
                                    f"({correction_note}).{_power_note(claim, mde, mde_alpha)}")
    return done("inconclusive", f"{interval} includes the null {format_number(null)}.{_power_note(claim, mde, mde_alpha)}")


def exploratory(claim: Claim, decision: Decision, alpha: float) -> dict:
    """The row of a claim outside the declared primary family: estimate, interval and unadjusted p, labelled
    exploratory; no verdict (:mod:`helmlite.claims.families`). Its MDE is at ``alpha``, the level of the claim alone."""
    row = verdict(claim, alpha=alpha, correction_note=decision.note)
    tested = (f"unadjusted p {format_p(row['p_value'], claim.p_floor)}" if math.isfinite(row["p_value"])
              else "no test")
    mde = (f"MDE at n = {claim.n}: {format_number(row['mde'])} (80% power, α = {format_number(alpha)}, the claim alone)"
           if math.isfinite(row["mde"]) else f"no MDE at n = {claim.n} (nothing to size it from)")
    text = (f"exploratory — not among the primary claims the config declares, so no decision is made: "
            f"{interval_text(claim)}, {tested}; {mde}. A later run that declares it primary decides it.")
    if claim.note:
        text = f"{claim.note} — {text}"
    return {**row, "verdict": EXPLORATORY, "evidence": text, "p_adjusted": None, "p_claimed_adjusted": None,
            "role": "exploratory", "family_size": 1, "alpha": alpha}


def claims_table(claims: list[Claim], alpha: float = 0.05, correction: str = "holm", primary=None) -> pd.DataFrame:
    """Verdicts for the claims of one analysis, p-values adjusted within each family, in the :data:`COLUMNS` schema.

    A family (``Claim.family``, declared by the analysis) is every hypothesis its primary claims can reject: each
    claim's null (its two-sided p-value, interval-derived where a claim has none) and, for each claim with a claimed
    size, that size (``p_claimed``). ``primary``: the claim names the config declares primary (None: every claim);
    the others are exploratory (:mod:`helmlite.claims.families`). ``correction``: ``"holm"`` (Holm 1979, the default),
    ``"bonferroni"`` or ``"none"``, applied by statsmodels ``multipletests`` to each family's hypotheses together, so
    that "supported" and "contradicted" are both corrected; the ``correction`` column and each evidence text name it,
    the family and its size, and each claim's MDE is at its family's per-claim level (``alpha``). Each claim's
    interval should be at level 1 − ``alpha``.
    """
    if correction not in CORRECTIONS:
        raise UserError(f"claims_table: correction must be one of {CORRECTIONS}, got {correction!r}")
    if not claims:
        return pd.DataFrame(columns=COLUMNS)
    rows = []
    for claim, decision in zip(claims, decide_families(claims, alpha, correction, primary)):
        if not decision.primary:
            rows.append(exploratory(claim, decision, alpha))
            continue
        row = verdict(claim, alpha=alpha, p_adjusted=decision.p_adjusted, p_claimed_adjusted=decision.p_claimed_adjusted,
                      correction_note=decision.note, mde_alpha=decision.alpha)
        rows.append({**row, "family_size": decision.family_size})
    return pd.DataFrame(rows, columns=COLUMNS)


def check_claims_table(table: pd.DataFrame) -> None:
    """Raise ``UserError`` unless ``table`` follows the claims schema: the ten required columns first, unique claim
    names, known verdicts, and no ``supported`` row whose interval contains the null."""
    if list(table.columns[:len(REQUIRED_COLUMNS)]) != REQUIRED_COLUMNS:
        raise UserError(f"claims table: the columns must start with {REQUIRED_COLUMNS}, got {list(table.columns)}")
    repeated = sorted(set(table.loc[table["claim"].duplicated(), "claim"]))
    if repeated:
        raise UserError(f"claims table: each claim's name must be unique (a config's primary_claims and `helmlite plan "
                        f"--claims` select claims by it), repeated: {repeated}")
    unknown = set(table["verdict"]) - set(TABLE_VERDICTS)
    if unknown:
        raise UserError(f"claims table: unknown verdicts {sorted(unknown)}; expected {TABLE_VERDICTS}")
    supported = table[table["verdict"] == "supported"]
    bad = supported[(supported["ci_low"] <= supported["null"]) & (supported["null"] <= supported["ci_high"])]
    if len(bad):
        raise UserError(f"claims table: 'supported' with the null inside the interval: {list(bad['claim'])}")


def readable(table: pd.DataFrame, columns: list[str]) -> pd.DataFrame:
    """``columns`` of a claims table as a notebook shows them: numbers to three digits, and ``p_value`` / ``p_adjusted``
    as :func:`format_p` writes them — "≤ floor" for a p at a resampling floor, not a value; NaN where there is no test."""
    out = table[columns].copy()
    floors = table["p_floor"] if "p_floor" in table else pd.Series(0.0, index=table.index)
    for column in ("p_value", "p_adjusted"):
        if column in out:
            out[column] = [format_p(p, floor, None if column == "p_value" else bound).removeprefix("= ")
                           if pd.notna(bound) else math.nan  # no test: an empty cell, which a report prints as "—"
                           for p, floor, bound in zip(table["p_value"], floors, table[column])]
    return out.round(3)
