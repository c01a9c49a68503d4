"""The claims of notebook 04 (issue #54): per curve, Lost in the Middle's U-shape and HELMET's recency preference as
intersection–union tests (Berger 1982) of the position tests' parts, and per model × task the length degradation;
verdicts come from :func:`helmlite.claims.claims_table`, Holm-corrected over every claim of the notebook."""
from __future__ import annotations

import math

import pandas as pd

from ...claims import Claim, Declared
from .sweeps import MIN_CONTEXTS, SCORE_NAME

FAMILY = "depth"
BASELINE_SCORE = {"multiple_choice_separate": "P(gold) − baseline P(gold)", "generation": "accuracy − baseline"}


def _curve(model: str, task: str, length, method: str) -> str:
    return f"{model} · {task} · {length} tok · {method}"


def _of(score: str) -> str:
    return "" if score == "accuracy" else f" of {score}"


def u_shape_name(model: str, task: str, length, method: str, score: str) -> str:
    """Lost in the Middle's claim on one curve (``method``: its scoring, :data:`SCORE_NAME`'s words)."""
    return f"Lost in the Middle: U-shape{_of(score)}, primacy > 0 and recency > 0 ({_curve(model, task, length, method)})"


def recency_name(model: str, task: str, length, method: str, score: str) -> str:
    """HELMET's recency claim on one curve."""
    return (f"HELMET: recent context preferred{_of(score)}, end − start > 0 and end − middle > 0 "
            f"({_curve(model, task, length, method)})")


def length_name(model: str, task: str, method: str, score: str, short, long) -> str:
    """The length-degradation claim of one model × task × scoring."""
    return f"Longer context lowers the {score} ({model} · {task} · {method}: {short} → {long} tokens)"


def _label(r) -> str:
    return _curve(r.model, r.task, r.length, r.method)


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
        est, low, high, p, floor = _intersection_union(r, "u", ("primacy", "recency"))
        out.append(Claim(u_shape_name(r.model, r.task, r.length, r.method, r.score),
                         _quantity(r, "u_shape_min_primacy_recency"), est, low, high, 0.0, int(r.contexts), "greater",
                         p_value=p, p_floor=floor, family=FAMILY, note=r.no_verdict))
        est, low, high, p, floor = _intersection_union(r, "recency", ("recency_minus_primacy", "recency"))
        out.append(Claim(recency_name(r.model, r.task, r.length, r.method, r.score), _quantity(r, "recency_preferred"),
                         est, low, high, 0.0, int(r.contexts), "greater", p_value=p, p_floor=floor, family=FAMILY,
                         note=r.no_verdict))
    for r in (lengths.itertuples() if lengths is not None else ()):
        out.append(Claim(length_name(r.model, r.task, r.method, r.score, r.short, r.long),
                         f"length_degradation:{r.model}:{r.task}:{r.short}-{r.long}:{_method_key(r.method)}", r.difference,
                         r.ci_low, r.ci_high, 0.0, int(r.contexts), "greater", p_value=r.p_value, p_floor=r.p_floor,
                         family=FAMILY, note=r.no_verdict))
    return out


def _score(run: dict) -> str:
    """The score notebook 04 tests on a planned run's curve (:func:`helmlite.analyses.depth.sweeps.score_name`)."""
    return BASELINE_SCORE[run["method"]] if "baseline" in run["perturbations"] else "accuracy"


def declare_claims(runs: list[dict]) -> list[Declared]:
    """Notebook 04's claims for the depth runs a config will make (the planner's run rows with ``scenario`` — the task
    —, ``length``, ``method``, ``contexts``, ``instances``, ``positions``, ``perturbations``), by the rules of
    :func:`depth_claims`: per curve the U-shape and recency claims (end − start planned: the contrast with the larger
    variance), per model × task × scoring with two lengths or more the length claim (shortest against longest)."""
    out = []
    for run in runs:
        score, method = _score(run), SCORE_NAME[run["method"]]
        power = "depth_baseline" if "baseline" in run["perturbations"] else "depth_accuracy"
        positions = run.get("positions", 3)
        blocked = f"the depths land on {positions} items: no middle" if positions < 3 else ""  # NaN (absent data): False
        for name in (u_shape_name, recency_name):
            out.append(Declared(name(run["model"], run["scenario"], run["length"], method, score), "depth", FAMILY,
                                f"per-context contrasts of {score} between depths", "contexts",
                                "paired bootstrap over contexts, intersection–union", power, run["contexts"],
                                (run["run_id"],), pilot=("depth_contrast_sd", run["run_id"]), no_verdict=blocked,
                                min_n=MIN_CONTEXTS))
    curves: dict[tuple, list[dict]] = {}
    for run in runs:
        curves.setdefault((run["model"], run["scenario"], run["method"]), []).append(run)
    for (model, task, method), members in sorted(curves.items()):
        if len({r["length"] for r in members}) < 2:
            continue
        ends = sorted(members, key=lambda r: r["length"])  # notebook 04 tests the shortest against the longest
        baseline = all("baseline" in r["perturbations"] for r in members)
        score = f"({_score(ends[0])})/(1 − chance)" if baseline else "chance-corrected accuracy"
        depths = min(r["instances"] // max(r["contexts"], 1) for r in members)
        out.append(Declared(length_name(model, task, SCORE_NAME[method], score, ends[0]["length"], ends[-1]["length"]),
                            "depth", FAMILY, f"per-context mean {score}, shortest − longest length", "contexts",
                            "paired bootstrap over contexts", "depth_baseline" if baseline else "depth_accuracy",
                            min(r["contexts"] for r in members), tuple(r["run_id"] for r in members),
                            pilot=("length_contrast_sd", ends[0]["run_id"], ends[-1]["run_id"]),
                            detail=(("depths", depths),), min_n=MIN_CONTEXTS))
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


def u_shape_note(ushape: pd.DataFrame, claims_table: pd.DataFrame) -> str:
    """How many curves that get a verdict show Lost in the Middle's U-shape after the family's correction, and why the
    others get none (Markdown for notebook 04; ``ushape`` from :func:`with_verdicts`)."""
    untested = ushape[ushape["no_verdict"] != ""]
    tested = ushape[ushape["no_verdict"] == ""]
    correction = claims_table["correction"].iloc[0] if len(claims_table) else "no claims"
    note = (f"**{int(tested['lost_in_the_middle'].sum())} of {len(tested)}** curves that get a verdict show a U-shape "
            f"after Holm's correction ({correction})")
    if len(untested):
        note += f"; {len(untested)} get none ({', '.join(sorted(set(untested['no_verdict'])))})"
    return note + "."
