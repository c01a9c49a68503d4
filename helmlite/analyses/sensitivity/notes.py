"""What a reader of notebook 02 must know where a table has no test to show (Markdown, from the tables themselves)."""
from __future__ import annotations

import pandas as pd


def variance_note(decomposition: pd.DataFrame) -> str:
    """Why F and p are empty for a model whose fit leaves no residual degrees of freedom."""
    residual = decomposition[decomposition["component"] == "residual"]
    exact = sorted(residual.loc[residual["df"] <= 0, "model"])
    if not exact:
        return "F and p: type-II F tests against the residual of the full model."
    return (f"**No F or p for {', '.join(exact)}:** the design varies one factor at a time around one base "
            "configuration, so its runs fit the model's parameters exactly (0 residual degrees of freedom) and nothing "
            "is left to test a factor against. The shares describe these runs only; the paired tests above are the "
            "tests. More levels per factor (config/paper.yaml: 10 seeds, shots 0–16) leave degrees of freedom.")


def first_step_note(first_step: pd.DataFrame, shots: list[int]) -> str:
    """Why "the 0→1 step is the largest" has no contrast to show, or how to read the contrasts."""
    if len(first_step):
        return ("Each row: the 0→1 step minus a later step, per instance (paired bootstrap); \"the 0→1 step is the "
                "largest\" needs every row above 0.")
    levels = ", ".join(str(k) for k in sorted(shots)) or "none"
    return (f"**\"The 0→1 step is the largest\" is not tested in this run:** it compares the 0→1 step with a later one, "
            f"so it needs at least three shot counts starting at 0; this config runs {levels}. config/paper.yaml runs "
            "0, 1, 2, 4, 8 and 16.")


def seed_note(spread: pd.DataFrame) -> str:
    """How to read the seed table beside the seed claim: with two seeds its SD, interval and Cochran's Q describe seeds
    in general on one degree of freedom, and the claim is the paired difference instead."""
    pairs = spread[spread["seeds"] == 2]
    if pairs.empty:
        return "The claim reads the between-seed SD with Cochran's Q and its MDE on the SD scale (`mde_sd`)."
    return ("**Two seeds:** the SD above is |Δ|/√2 on one degree of freedom, its interval spans seeds in general, and "
            "`p_seeds_matter` is Cochran's Q, the asymptotic McNemar test; none of them is the claim. The claim is the "
            "paired difference of the two seeds (exact McNemar, the pairwise tests below) with an MDE that lets the "
            "discordance grow with the effect: see the claims table.")


#: What config/paper.yaml runs of each study, for the note of a study this config leaves out.
PAPER_LEVELS = {"seeds": "10 seeds", "shots": "0, 1, 2, 4, 8 and 16 shots", "formats": "four formats",
                "methods": "three multiple-choice methods"}


def absent_study_note(study: str) -> str:
    """Why a study's table and figure are empty: this config runs none of its levels (the default leaves the format
    study to config/paper.yaml, issue #62)."""
    return f"This config runs no {study} study: config/paper.yaml runs it ({PAPER_LEVELS[study]})."


def reversal_note(reversals: pd.DataFrame) -> str:
    """The answer to notebook 02's question "how often does 'model A beats model B' flip with a prompt choice?" for the
    report's summary: how many pairs of configurations swap the two models' order, in which studies, and how many
    swaps rest on two significant model differences (paired tests, Holm over the configurations:
    :func:`helmlite.analyses.sensitivity.studies.rank_reversals`)."""
    if reversals.empty:  # study_tests gives an empty table (with its columns) for one model
        return "**Rank reversals:** not asked — this run has one model (two are needed)."
    flips = reversals[reversals["reversal"].astype(bool)]
    where = ", ".join(sorted(flips["study"].unique())) if len(flips) else "none"
    return (f"**Rank reversals:** the two models swap order in **{len(flips)} of {len(reversals)}** pairs of prompt "
            f"choices ({where}); **{int(flips['significant'].astype(bool).sum())}** of them with both model differences "
            "significant (paired tests, Holm over the configurations).")
