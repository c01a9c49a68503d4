"""Notebook 02's claims (HELM §8.2, Figs. 31–33), stated in the claims schema (:mod:`helmlite.claims`).

Per model × scenario: the choice of in-context examples matters — with two seeds, their paired difference (exact
McNemar, the pairwise table's test, MDE with the discordance growing with the effect); with three or more, the between-seed SD of
accuracy > 0 (the square root of the seed variance component), tested by Cochran's Q, with that test's MDE on the
SD scale; adding the first in-context example helps (paired 0→1 step); the 0→1 step is the
largest (every per-instance contrast of the 0→1 step with a later step > 0 — an intersection–union
test, so the weakest contrast decides); the multiple-choice method matters (joint vs separate, paired);
the prompt format matters (HELM's default vs the plain format, paired).
"""
from __future__ import annotations

import pandas as pd

from ... import stats
from ...claims import Claim, Declared, observed_discordance


FAMILY = "prompt sensitivity"
#: The two-level studies whose paired difference is a claim: (first level, second level, what the study varies).
PAIRED_STUDIES = {"methods": ("multiple_choice_joint", "multiple_choice_separate", "multiple-choice method"),
                  "formats": ("helm_default", "plain", "prompt format")}


def seed_pair_name(model: str, scenario: str, a: str, b: str) -> str:
    return f"The choice of in-context examples changes {model}'s accuracy on {scenario} ({a} − {b}, paired)"


def seed_sd_name(model: str, scenario: str, seeds: int) -> str:
    return f"The choice of in-context examples changes {model}'s accuracy on {scenario} (between-seed SD, {seeds} seeds)"


def first_example_name(model: str, scenario: str) -> str:
    return f"The first in-context example raises {model}'s accuracy on {scenario}"


def first_step_largest_name(model: str, scenario: str, step: str) -> str:
    return f"The {step} step is {model}'s largest on {scenario}"


def paired_study_name(study: str, model: str, scenario: str) -> str:
    a, b, what = PAIRED_STUDIES[study]
    return f"The {what} ({b} vs {a}) changes {model}'s accuracy on {scenario}"


def _scale(test: str) -> str:
    return "paired-proportion" if "mcnemar" in test else "difference"


def _pair(tests: pd.DataFrame, study: str, a: str, b: str) -> pd.DataFrame:
    part = tests[tests["study"] == study]
    return part[((part["a"] == a) & (part["b"] == b)) | ((part["a"] == b) & (part["b"] == a))]


def _seed_pair_claims(tests: pd.DataFrame, model: str, scenario: str) -> list[Claim]:
    """With two seeds the question "does the choice of in-context examples change accuracy" is one paired difference:
    seed 0 − seed 1 on the same items, its Newcombe interval, exact McNemar p and MDE with the share of differing items
    growing from the observed one with the effect (:func:`helmlite.claims.base_discordance`) — the same numbers as the
    pairwise-tests table. (The between-seed SD of two seeds is |Δ|/√2 with one degree of
    freedom; its interval and Cochran's Q MDE describe seeds in general, not these two, and an MDE held at the SD
    scale is not reachable when only a few items differ.)"""
    part = tests[(tests["study"] == "seeds") & (tests["model"] == model) & (tests["scenario"] == scenario)]
    claims = []
    for r in part.itertuples():
        claims.append(Claim(seed_pair_name(model, scenario, r.a, r.b), f"seed_difference:{r.a}-{r.b}:{model}:{scenario}",
                            r.difference, r.ci_low, r.ci_high, 0.0, int(r.n), "two-sided", p_value=r.p_value,
                            scale=_scale(r.test), discordance=observed_discordance(r.discordance, int(r.n)),
                            p_floor=getattr(r, "p_floor", 0.0), family=FAMILY))
    return claims


def sensitivity_claims(spread: pd.DataFrame, steps: pd.DataFrame, first_step: pd.DataFrame,
                       tests: pd.DataFrame) -> list[Claim]:
    """Claims from the notebook's tables (``seed_spread``, ``shot_steps``, ``first_step_contrasts`` and the
    pairwise tests with a ``study`` column), named as :func:`declare_claims` declares them."""
    claims = []
    for r in spread.itertuples():
        if r.seeds == 2:  # two seeds: one paired difference, the pairwise table's own test (exact McNemar)
            claims += _seed_pair_claims(tests, r.model, r.scenario)
            continue
        # three or more seeds: on the SD scale (accuracy points), with the MDE of the test that decides it (Cochran's Q)
        claims.append(Claim(seed_sd_name(r.model, r.scenario, r.seeds), f"seed_sd:{r.model}:{r.scenario}", r.seed_sd,
                            r.sd_ci_low, r.sd_ci_high, 0.0, int(r.n), "greater", p_value=r.p_seeds_matter,
                            p_floor=getattr(r, "p_floor", 0.0), family=FAMILY,
                            mde=lambda alpha, r=r: stats.mde_seed_sd(int(r.n), int(r.seeds), r.within_item_variance,
                                                                     level=1 - alpha)))
    for r in steps[steps["step"].str.startswith("0→")].itertuples():
        claims.append(Claim(first_example_name(r.model, r.scenario), f"shot_step:{r.step}:{r.model}:{r.scenario}",
                            r.difference, r.ci_low, r.ci_high, 0.0, int(r.n), "greater", p_value=r.p_value,
                            scale=_scale(r.test), discordance=observed_discordance(r.discordance, int(r.n)),
                            p_floor=getattr(r, "p_floor", 0.0), family=FAMILY))
    for (model, scenario), part in first_step.groupby(["model", "scenario"], sort=True):
        weakest = part.sort_values(["p_value", "difference"], ascending=[False, True]).iloc[0]
        step = weakest["contrast"].split(")")[0].lstrip("(")  # "(0→1) − (1→2)" → "0→1"
        claims.append(Claim(first_step_largest_name(model, scenario, step),
                            f"first_step_largest:{model}:{scenario}:weakest {weakest['contrast']}", weakest["difference"],
                            weakest["ci_low"], weakest["ci_high"], 0.0, int(weakest["n"]), "greater",
                            p_value=weakest["p_value"], p_floor=float(weakest.get("p_floor", 0.0)), family=FAMILY))
    for study, (a, b, _) in PAIRED_STUDIES.items():
        for r in _pair(tests, study, a, b).itertuples():
            sign = 1 if r.a == b else -1  # report b − a
            low, high = sorted((sign * r.ci_low, sign * r.ci_high))
            claims.append(Claim(paired_study_name(study, r.model, r.scenario), f"{study}:{b}-{a}:{r.model}:{r.scenario}",
                                sign * r.difference, low, high, 0.0, int(r.n), "two-sided", p_value=r.p_value,
                                scale=_scale(r.test), discordance=observed_discordance(r.discordance, int(r.n)),
                                p_floor=getattr(r, "p_floor", 0.0), family=FAMILY))
    return claims


def _shots(level: str) -> int | None:
    return int(level) if str(level).isdigit() else None


def declare_claims(runs: list[dict]) -> list[Declared]:
    """Notebook 02's claims for the runs a config will make (the planner's run rows, each with its ``labels``: the
    (study, level) pairs of the grid), by the rules of :func:`sensitivity_claims`: per model × scenario, two seeds →
    their paired difference, three or more → the between-seed SD (Cochran's Q); the first shot step (from 0 shots);
    with three shot levels or more, "the first step is the largest" (its contrast with the next step decides the
    planning: :func:`helmlite.planning.claim_mdes.step_contrast`); the method and format studies' paired differences."""
    cells: dict[tuple, dict[str, dict]] = {}
    for run in runs:
        for study, level in run.get("labels", []):
            cells.setdefault((study, run["model"], run["scenario_label"]), {})[str(level)] = run
    out = []

    def paired(name, what, members, pairs):
        out.append(Declared(name, "sensitivity", FAMILY, what, "items", "exact McNemar (paired)", "paired",
                            min(r["instances"] for r in members), tuple(r["run_id"] for r in members),
                            pilot=("paired_base_discordance", pairs)))

    for (study, model, label), levels in sorted(cells.items()):
        members = list(levels.values())
        if study == "seeds" and len(levels) == 2:
            (a, run_a), (b, run_b) = sorted(levels.items())
            paired(seed_pair_name(model, label, a, b), f"accuracy at seed {a} − seed {b}", [run_a, run_b],
                   ((run_a["run_id"], None, run_b["run_id"], None),))
        elif study == "seeds" and len(levels) > 2:
            out.append(Declared(seed_sd_name(model, label, len(levels)), "sensitivity", FAMILY, "between-seed SD of accuracy",
                                "items", "Cochran's Q", "seed_sd", min(r["instances"] for r in members),
                                tuple(r["run_id"] for r in members), pilot=("seed_within_variance", [r["run_id"] for r in members]),
                                detail=(("seeds", len(levels)),)))
        elif study == "shots":
            shots = sorted((k for k in levels if _shots(k) is not None), key=int)
            if len(shots) < 2 or shots[0] != "0":
                continue
            zero, one = levels[shots[0]], levels[shots[1]]
            paired(first_example_name(model, label), f"accuracy at {shots[1]} − 0 shots", [zero, one],
                   ((one["run_id"], None, zero["run_id"], None),))
            if len(shots) >= 3:
                two = levels[shots[2]]
                out.append(Declared(first_step_largest_name(model, label, f"0→{shots[1]}"), "sensitivity", FAMILY,
                                    "the weakest contrast of the first step with a later one", "items",
                                    "paired bootstrap, intersection–union", "step",
                                    min(r["instances"] for r in (zero, one, two)),
                                    tuple(r["run_id"] for r in (zero, one, two)),
                                    pilot=("step_contrast_sd", zero["run_id"], one["run_id"], two["run_id"])))
        elif study in PAIRED_STUDIES and all(level in levels for level in PAIRED_STUDIES[study][:2]):
            a, b = (levels[level] for level in PAIRED_STUDIES[study][:2])
            paired(paired_study_name(study, model, label), f"accuracy with {PAIRED_STUDIES[study][1]} − "
                   f"{PAIRED_STUDIES[study][0]}", [a, b], ((a["run_id"], None, b["run_id"], None),))
    return out
