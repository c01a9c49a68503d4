"""Experiments on the simulator only (notebook 05), where the latent truth is known: is the card's rule (the mean
of the most agreeing three) closer to the truth than the naive mean of every annotator, and how does that depend
on the share of careless annotators? Real data has no latent truth, so these tables are empty there."""
from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd

from ... import stats
from ...seeds import rng
from .aggregation import aggregate
from .annotations import ATTRIBUTES
from .simulator import simulate


def error_against_truth(aggregated: pd.DataFrame, truth: pd.DataFrame, *, seed: int, n_resamples: int) -> pd.DataFrame:
    """Simulated data only: mean absolute error of the released label vs the naive mean of all
    annotators, both against the latent true label, over kept samples; the gap (top-3 − naive) with a
    paired cluster bootstrap over **prompts** (the two responses of a prompt share it: their rows are
    not independent). ``n`` counts prompts."""
    kept = ~aggregated["removed"].to_numpy()
    prompts = aggregated["prompt_id"].to_numpy()[kept]
    rows = []
    for attribute in ATTRIBUTES:
        true = truth[attribute].to_numpy()[kept]
        top3_error = np.abs(aggregated[attribute].to_numpy()[kept] - true)
        naive_error = np.abs(aggregated[f"{attribute}_naive"].to_numpy()[kept] - true)
        diff = stats.interval_for((top3_error, naive_error), paired=True, clusters=prompts, seed=rng(seed, "error", attribute),
                                  n_resamples=n_resamples)
        rows.append({"attribute": attribute, "mae_most_agreeing_three": top3_error.mean(),
                     "mae_naive_mean": naive_error.mean(), "difference": diff.estimate, "ci_low": diff.ci_low,
                     "ci_high": diff.ci_high, "p_value": diff.p_value, "n": diff.n, "interval": diff.method})
    return pd.DataFrame(rows)


def careless_curve(config, shares, *, seed: int, n_resamples: int) -> pd.DataFrame:
    """The lesson of :func:`error_against_truth` as a curve: for each share of careless annotators (the
    other simulator parameters as in ``config``, a :class:`~helmlite.analyses.helpsteer2.SimulatorConfig`),
    the MAE difference top-3 − naive mean per attribute with its cluster-bootstrap CI over prompts.
    Below 0: keeping the most agreeing three is closer to the truth."""
    frames = []
    for share in shares:
        sim = simulate(replace(config, careless_share=float(share)))
        table = error_against_truth(aggregate(sim.annotations), sim.truth, seed=seed, n_resamples=n_resamples)
        frames.append(table.assign(careless_share=float(share)))
    out = pd.concat(frames, ignore_index=True)
    return out[["careless_share", *[c for c in out.columns if c != "careless_share"]]]


def careless_conclusion(curve: pd.DataFrame, attribute: str = "helpfulness") -> str:
    """The lesson worded conditionally, from :func:`careless_curve`: at which careless shares the top-3
    rule is closer to the truth (CI below 0), where the naive mean is (CI above 0), and where they cannot
    be told apart."""
    part = curve[curve["attribute"] == attribute].sort_values("careless_share")
    better = part[part["ci_high"] < 0]["careless_share"].tolist()
    worse = part[part["ci_low"] > 0]["careless_share"].tolist()
    tied = part[(part["ci_low"] <= 0) & (part["ci_high"] >= 0)]["careless_share"].tolist()

    def shares(values):
        return ", ".join(f"{v:.0%}" for v in values)

    parts = []
    if better:
        parts.append(f"keeping the most agreeing three is closer to the latent truth than the naive mean of all annotators "
                     f"when the share of careless annotators is {shares(better)}")
    if worse:
        parts.append(f"the naive mean is closer at {shares(worse)}")
    if tied:
        parts.append(f"the two cannot be told apart at {shares(tied)}")
    return (f"On {attribute}, in this simulator: " + "; ".join(parts) + " (95% cluster-bootstrap CIs over prompts). "
            "Whether the rule helps depends on how many annotators are careless — which the real file does not reveal.")


def empty_error_table() -> pd.DataFrame:
    """The columns of :func:`error_against_truth`, no rows (real data has no latent truth)."""
    return pd.DataFrame(columns=["attribute", "mae_most_agreeing_three", "mae_naive_mean", "difference", "ci_low",
                                 "ci_high", "p_value", "n", "interval"])


def empty_careless_curve() -> pd.DataFrame:
    """The columns of :func:`careless_curve`, no rows (real data has no latent truth to draw the curve against)."""
    return pd.DataFrame(columns=["careless_share", *empty_error_table().columns])
