"""Accuracy and the tested score per depth and per length, with their intervals (notebook 04's curves and its
length-degradation table); the module docstring of :mod:`helmlite.analyses.depth.sweeps` says what each column is."""
from __future__ import annotations

import math

import numpy as np
import pandas as pd

from ... import stats
from ...seeds import rng
from .sweeps import BASELINE_COLUMNS, CURVE, INCONCLUSIVE, MIN_CONTEXTS, _has_baseline, _has_probabilities, chance_corrected


def curves(records: pd.DataFrame, min_contexts: int = MIN_CONTEXTS, *, seed: int = 0, n_resamples: int = 2000) -> pd.DataFrame:
    """Accuracy per depth for every model × task × length × method, at the target's actual mean position,
    with the curve's chance level. Each context is queried once per depth, so a point is a proportion
    over independent contexts: exact (Clopper–Pearson) interval — only with at least ``min_contexts``
    contexts; below that the interval is NaN and ``interval`` says inconclusive. Where the curve has a
    baseline: its hit rate at that depth (Clopper–Pearson) and accuracy − baseline (paired over contexts:
    exact McNemar's Newcombe interval); where it has the baseline's probabilities: the mean P(gold), the
    baseline's P(gold) of the same candidate and their difference (paired bootstrap over contexts, the
    score the position tests use)."""
    rows = []
    keys = [*CURVE, "depth"]
    contexts = records.groupby(CURVE)["context"].nunique()
    for key, part in records.groupby(keys, sort=True):
        est = stats.interval_for(part["correct"].to_numpy())
        enough = contexts.loc[key[:-1]] >= min_contexts
        row = {**dict(zip(keys, key)), "position": part["position"].mean(), "position_min": part["position"].min(),
               "position_max": part["position"].max(), "accuracy": est.estimate,
               "ci_low": est.ci_low if enough else math.nan, "ci_high": est.ci_high if enough else math.nan,
               "n": est.n, "contexts": int(contexts.loc[key[:-1]]), "chance": part["chance"].mean(),
               "interval": est.method if enough else INCONCLUSIVE}
        row.update(dict.fromkeys(BASELINE_COLUMNS, math.nan))
        if _has_baseline(part):
            base = stats.interval_for(part["baseline"].to_numpy())
            diff = stats.interval_for((part["correct"].to_numpy(), part["baseline"].to_numpy()), paired=True)
            row.update(baseline=base.estimate, difference=diff.estimate)
            if enough:
                row.update(baseline_ci_low=base.ci_low, baseline_ci_high=base.ci_high, difference_ci_low=diff.ci_low,
                           difference_ci_high=diff.ci_high)
        if _has_probabilities(part):
            gain = stats.interval_for((part["probability"].to_numpy(), part["baseline_probability"].to_numpy()), paired=True,
                                      n_resamples=n_resamples, seed=rng(seed, "depth-curve", *key))
            row.update(probability=float(part["probability"].mean()),
                       baseline_probability=float(part["baseline_probability"].mean()), probability_difference=gain.estimate)
            if enough:
                row.update(probability_difference_ci_low=gain.ci_low, probability_difference_ci_high=gain.ci_high)
        rows.append(row)
    columns = [*keys, "position", "position_min", "position_max", "accuracy", "ci_low", "ci_high", "n", "contexts", "chance",
               "interval", *BASELINE_COLUMNS]
    return pd.DataFrame(rows, columns=columns)


def length_degradation(records: pd.DataFrame, *, seed: int, n_resamples: int, min_contexts: int = MIN_CONTEXTS) -> pd.DataFrame:
    """Accuracy averaged over depths per model × task × method × length, raw and **chance-corrected**
    ((correct − chance) / (1 − chance) per row, then averaged), the latter with contexts as the units
    (every context is queried at every depth: its rows are not independent) and the Korn–Graubard interval
    on the corrected range [−chance/(1 − chance), 1] (:func:`helmlite.stats.cluster_mean_estimate`), which
    covers at the floor where substring-match curves of small models sit — only with at
    least ``min_contexts`` contexts (else NaN and ``interval`` says inconclusive)."""
    rows = []
    keys = ["model", "task", "method", "length"]
    for key, part in records.groupby(keys, sort=True):
        chance = part["chance"].to_numpy(dtype=float)
        corrected = chance_corrected(part["correct"], chance)
        contexts = part["context"].nunique()
        usable = chance < 1
        bottom = float(np.min(-chance[usable] / (1 - chance[usable]))) if usable.any() else 0.0
        est = stats.interval_for(corrected, clusters=part["context"].to_numpy(), bounds=(bottom, 1.0), n_resamples=n_resamples,
                                 seed=rng(seed, "length", *key))
        enough = contexts >= min_contexts
        rows.append({**dict(zip(keys, key)), "accuracy": part["correct"].mean(), "chance": chance.mean(),
                     "chance_corrected": est.estimate, "ci_low": est.ci_low if enough else math.nan,
                     "ci_high": est.ci_high if enough else math.nan, "contexts": contexts,
                     "interval": est.method if enough else INCONCLUSIVE})
    return pd.DataFrame(rows)
