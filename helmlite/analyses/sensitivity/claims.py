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

from ...claims import Claim, observed_discordance


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
        claims.append(Claim(f"The choice of in-context examples changes {model}'s accuracy on {scenario} ({r.a} − {r.b}, "
                            "paired)", f"seed_difference:{r.a}-{r.b}:{model}:{scenario}", r.difference, r.ci_low,
                            r.ci_high, 0.0, int(r.n), "two-sided", p_value=r.p_value, scale=_scale(r.test),
                            discordance=observed_discordance(r.discordance, int(r.n)), p_floor=getattr(r, "p_floor", 0.0)))
    return claims


def sensitivity_claims(spread: pd.DataFrame, steps: pd.DataFrame, first_step: pd.DataFrame, tests: pd.DataFrame,
                       *, method_pair=("multiple_choice_joint", "multiple_choice_separate"),
                       format_pair=("helm_default", "plain")) -> list[Claim]:
    """Claims from the notebook's tables (``seed_spread``, ``shot_steps``, ``first_step_contrasts`` and the
    pairwise tests with a ``study`` column)."""
    claims = []
    for r in spread.itertuples():
        if r.seeds == 2:  # two seeds: one paired difference, the pairwise table's own test (exact McNemar)
            claims += _seed_pair_claims(tests, r.model, r.scenario)
            continue
        # three or more seeds: on the SD scale (accuracy points), with the MDE of the test that decides it (Cochran's Q)
        claims.append(Claim(f"The choice of in-context examples changes {r.model}'s accuracy on {r.scenario} "
                            f"(between-seed SD, {r.seeds} seeds)", f"seed_sd:{r.model}:{r.scenario}", r.seed_sd, r.sd_ci_low,
                            r.sd_ci_high, 0.0, int(r.n), "greater", p_value=r.p_seeds_matter, mde=r.mde_sd))
    for r in steps[steps["step"].str.startswith("0→")].itertuples():
        claims.append(Claim(f"The first in-context example raises {r.model}'s accuracy on {r.scenario}",
                            f"shot_step:{r.step}:{r.model}:{r.scenario}", r.difference, r.ci_low, r.ci_high, 0.0, int(r.n),
                            "greater", p_value=r.p_value, scale=_scale(r.test),
                            discordance=observed_discordance(r.discordance, int(r.n)), p_floor=getattr(r, "p_floor", 0.0)))
    for (model, scenario), part in first_step.groupby(["model", "scenario"], sort=True):
        weakest = part.sort_values(["p_value", "difference"], ascending=[False, True]).iloc[0]
        claims.append(Claim(f"The 0→1 step is {model}'s largest on {scenario} (weakest contrast: {weakest['contrast']})",
                            f"first_step_largest:{model}:{scenario}", weakest["difference"], weakest["ci_low"],
                            weakest["ci_high"], 0.0, int(weakest["n"]), "greater", p_value=weakest["p_value"],
                            p_floor=float(weakest.get("p_floor", 0.0))))
    for study, (a, b), what in (("methods", method_pair, "multiple-choice method"), ("formats", format_pair, "prompt format")):
        for r in _pair(tests, study, a, b).itertuples():
            sign = 1 if r.a == b else -1  # report b − a
            low, high = sorted((sign * r.ci_low, sign * r.ci_high))
            claims.append(Claim(f"The {what} ({b} vs {a}) changes {r.model}'s accuracy on {r.scenario}",
                                f"{study}:{b}-{a}:{r.model}:{r.scenario}", sign * r.difference, low, high, 0.0, int(r.n),
                                "two-sided", p_value=r.p_value, scale=_scale(r.test),
                                discordance=observed_discordance(r.discordance, int(r.n)), p_floor=getattr(r, "p_floor", 0.0)))
    return claims
