"""The claims of notebook 04 (issue #54): per curve, Lost in the Middle's U-shape and HELMET's recency preference as
intersection–union tests (Berger 1982) of the position tests' parts, and per model × task the length degradation;
verdicts come from :func:`helmlite.claims.claims_table`, Holm-corrected over every claim of the notebook."""
from __future__ import annotations

import math

import pandas as pd

from ...claims import Claim
from .sweeps import SCORE_NAME


def _label(r) -> str:
    return f"{r.model} · {r.task} · {r.length} tok · {r.method}"


def _method_key(method: str) -> str:
    return "logprob" if method == SCORE_NAME["multiple_choice_separate"] else "generation"


def _quantity(r, what: str) -> str:
    return f"{what}:{r.model}:{r.task}:{r.length}:{_method_key(r.method)}"


def _intersection_union(r, what: str, parts: tuple[str, str]) -> tuple[float, float, float, float, float]:
    """(estimate, low, high, p, p_floor) of "both parts > 0" (Berger 1982): the smaller estimate and [min low, min high].
    The p-value: for the claim ("both > 0") the larger of the two, as the intersection–union test needs both;
    where the smaller estimate is below 0 — the evidence *against* the claim, which one part below 0 gives —
    the smallest p-value among the k parts whose estimates are below 0, Bonferroni-corrected for choosing it:
    min(1, k·p) (the uncorrected minimum was not corrected for the choice); NaN — the claim leaves the Holm family — when
    the curve has no verdict and its parts no p-value. ``p_floor``: the floor of the part that gives p (k times it
    for the corrected minimum), so that a p at a resampling floor reads "p ≤ floor"."""
    a, b = parts
    estimates = {name: getattr(r, name) for name in parts}
    p_values = {name: getattr(r, f"{name}_p") for name in parts}
    floors = {name: getattr(r, f"{name}_p_floor") for name in parts}
    estimate = min(estimates.values())
    against = [name for name in parts if estimates[name] < 0]
    if any(math.isnan(value) for value in p_values.values()):  # a curve without a verdict: no p, out of the family
        p, floor = math.nan, 0.0
    elif estimate >= 0:
        chosen = max(parts, key=lambda name: p_values[name])
        p, floor = p_values[chosen], floors[chosen]
    else:
        chosen = min(against, key=lambda name: p_values[name])
        p, floor = min(1.0, len(against) * p_values[chosen]), min(1.0, len(against) * floors[chosen])
    return (estimate, min(getattr(r, f"{a}_ci_low"), getattr(r, f"{b}_ci_low")),
            min(getattr(r, f"{a}_ci_high"), getattr(r, f"{b}_ci_high")), p, floor)


def depth_claims(ushape: pd.DataFrame, lengths: pd.DataFrame | None = None) -> list[Claim]:
    """The notebook's claims, for :func:`helmlite.claims.claims_table` (``n`` counts contexts):

    * Lost in the Middle: "the curve is U-shaped" (primacy > 0 and recency > 0);
    * HELMET: "recent context is preferred; the middle and earlier are harder" (end − start > 0 and
      end − middle > 0) — both intersection–union tests (module docstring);
    * length degradation: the score falls from the shortest to the longest length (``lengths``, from
      :func:`length_tests`).

    A curve without a verdict (``no_verdict``) carries no interval, so its claims are inconclusive, and
    the claim text says why."""
    out = []
    for r in ushape.itertuples():
        why = f" — {r.no_verdict}" if r.no_verdict else ""
        scored = "" if r.score == "accuracy" else f" of {r.score}"
        est, low, high, p, floor = _intersection_union(r, "u", ("primacy", "recency"))
        out.append(Claim(f"Lost in the Middle: U-shape{scored}, primacy > 0 and recency > 0 ({_label(r)}){why}",
                         _quantity(r, "u_shape_min_primacy_recency"), est, low, high, 0.0, int(r.contexts), "greater",
                         p_value=p, p_floor=floor))
        est, low, high, p, floor = _intersection_union(r, "recency", ("recency_minus_primacy", "recency"))
        out.append(Claim(f"HELMET: recent context preferred{scored}, end − start > 0 and end − middle > 0 ({_label(r)}){why}",
                         _quantity(r, "recency_preferred"), est, low, high, 0.0, int(r.contexts), "greater", p_value=p,
                         p_floor=floor))
    for r in (lengths.itertuples() if lengths is not None else ()):
        why = f" — {r.no_verdict}" if r.no_verdict else ""
        out.append(Claim(f"Longer context lowers the {r.score} ({r.model} · {r.task} · {r.method}: {r.short} → {r.long} tokens){why}",
                         f"length_degradation:{r.model}:{r.task}:{r.short}-{r.long}:{_method_key(r.method)}", r.difference,
                         r.ci_low, r.ci_high, 0.0, int(r.contexts), "greater", p_value=r.p_value, p_floor=r.p_floor))
    return out


def with_verdicts(ushape: pd.DataFrame, claims_table: pd.DataFrame) -> pd.DataFrame:
    """The U-shape table with each curve's verdicts from the claims table (``u_shape_verdict``,
    ``recency_verdict``) and the Holm-adjusted p-values; ``lost_in_the_middle`` = U-shape supported."""
    verdicts = claims_table.set_index("quantity")
    out = ushape.copy()
    for column, what in (("u_shape", "u_shape_min_primacy_recency"), ("recency", "recency_preferred")):
        keys = [_quantity(r, what) for r in out.itertuples()]
        out[f"{column}_verdict"] = [verdicts.loc[k, "verdict"] for k in keys]
        out[f"{column}_p_adjusted"] = [verdicts.loc[k, "p_adjusted"] for k in keys]
    out["lost_in_the_middle"] = out["u_shape_verdict"] == "supported"
    return out
