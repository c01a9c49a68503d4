"""Notebook 02's claims (HELM §8.2, Figs. 31–33), stated in the claims schema (:mod:`helmlite.claims`).

Per model × scenario: the choice of in-context examples matters (the between-seed SD of accuracy > 0 — the
square root of the seed variance component — tested by Cochran's Q, with that test's MDE on the SD scale); adding the first in-context example helps (paired 0→1 step); the 0→1 step is the
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


def sensitivity_claims(spread: pd.DataFrame, steps: pd.DataFrame, first_step: pd.DataFrame, tests: pd.DataFrame,
                       *, method_pair=("multiple_choice_joint", "multiple_choice_separate"),
                       format_pair=("helm_default", "plain")) -> list[Claim]:
    """Claims from the notebook's tables (``seed_spread``, ``shot_steps``, ``first_step_contrasts`` and the
    pairwise tests with a ``study`` column)."""
    claims = []
    for r in spread.itertuples():
        # on the SD scale (accuracy points), with the MDE of the test that decides it (Cochran's Q)
        claims.append(Claim(f"The choice of in-context examples changes {r.model}'s accuracy on {r.scenario} "
                            f"(between-seed SD, {r.seeds} seeds)", f"seed_sd:{r.model}:{r.scenario}", r.seed_sd, r.sd_ci_low,
                            r.sd_ci_high, 0.0, int(r.n), "greater", p_value=r.p_seeds_matter, mde=r.mde_sd))
    for r in steps[steps["step"].str.startswith("0→")].itertuples():
        claims.append(Claim(f"The first in-context example raises {r.model}'s accuracy on {r.scenario}",
                            f"shot_step:{r.step}:{r.model}:{r.scenario}", r.difference, r.ci_low, r.ci_high, 0.0, int(r.n),
                            "greater", p_value=r.p_value, scale=_scale(r.test),
                            discordance=observed_discordance(r.discordance, int(r.n))))
    for (model, scenario), part in first_step.groupby(["model", "scenario"], sort=True):
        weakest = part.sort_values(["p_value", "difference"], ascending=[False, True]).iloc[0]
        claims.append(Claim(f"The 0→1 step is {model}'s largest on {scenario} (weakest contrast: {weakest['contrast']})",
                            f"first_step_largest:{model}:{scenario}", weakest["difference"], weakest["ci_low"],
                            weakest["ci_high"], 0.0, int(weakest["n"]), "greater", p_value=weakest["p_value"]))
    for study, (a, b), what in (("methods", method_pair, "multiple-choice method"), ("formats", format_pair, "prompt format")):
        for r in _pair(tests, study, a, b).itertuples():
            sign = 1 if r.a == b else -1  # report b − a
            low, high = sorted((sign * r.ci_low, sign * r.ci_high))
            claims.append(Claim(f"The {what} ({b} vs {a}) changes {r.model}'s accuracy on {r.scenario}",
                                f"{study}:{b}-{a}:{r.model}:{r.scenario}", sign * r.difference, low, high, 0.0, int(r.n),
                                "two-sided", p_value=r.p_value, scale=_scale(r.test),
                                discordance=observed_discordance(r.discordance, int(r.n))))
    return claims
