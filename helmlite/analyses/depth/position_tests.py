"""The position and length tests of notebook 04 (Liu et al. 2023; HELMET App. E.4), on the score of
:func:`helmlite.analyses.depth.sweeps.scores`.

**U-shape test.** For one curve, primacy = acc(start) − acc(middle) and recency = acc(end) −
acc(middle), where start/end are the first and last item (relative position 0 and 1) and middle is the
mean over the depths whose position is closest to 0.5. Each context is queried at every depth, so
both are paired differences over contexts (:func:`helmlite.stats.paired_difference`: exact McNemar
with Newcombe's interval when both sides are 0/1, else the expanded-percentile paired bootstrap). The
claim "this curve is lost in the middle" needs *both* > 0: an intersection–union test (Berger 1982)
whose quantity is min(primacy, recency), whose p-value is the larger of the two p-values (against the claim,
where min(primacy, recency) < 0: the smallest p-value of the k negative parts times k, Bonferroni for choosing it;
two-sided part p-values make this conservative, never liberal; no p for a curve without a verdict) and whose interval is [min of the
lower bounds, min of the upper bounds] (it covers min(primacy, recency) with at least the nominal level). HELMET's claim — models prefer recent context and struggle with the middle and
earlier — is the same kind of test on end − start > 0 **and** end − middle > 0.

**No verdict** on a curve with fewer than :data:`MIN_CONTEXTS` contexts, at the floor or the ceiling of the score its
tests use (:func:`helmlite.analyses.depth.sweeps._flags`: P(gold) − baseline P(gold) for log-probability curves, not
their accuracy), whose depths land on fewer than three distinct items, or scored by log-probability without a
baseline: its claims carry no interval and are inconclusive, with the reason.

**Length degradation.** Per model × task × scoring with two or more lengths: the mean score at the
shortest length minus that at the longest, paired by context index (each length's contexts are
independent draws, so the pairs are independent and the paired bootstrap is valid), one-sided > 0. The
number of candidates — and so chance — grows with length, so the score is normalised by it:
(correct − baseline) / (1 − chance) where there is a baseline, else (correct − chance) / (1 − chance).
No verdict when both lengths are at the floor, or both at the ceiling.
"""
from __future__ import annotations

import math

import numpy as np
import pandas as pd

from ... import stats
from ...seeds import rng
from .sweeps import CURVE, MIN_CONTEXTS, NO_BASELINE, SCORE_NAME, _flags, _has_baseline, length_scores, score_name, scores

# Resamples of the position and length tests, at least: with B resamples the expanded percentile bootstrap's
# smallest p-value at n contexts is 2·F_t(n−1)(z_(1/(B+1))·√((n−1)/n)) — at n = 20, 0.0046 for B = 2,000, which
# Holm over ten claims cannot use (the smallest must be below 0.005); 0.0012 for B = 20,000.
MIN_TEST_RESAMPLES = 20_000


def _middle_depths(depths: np.ndarray) -> np.ndarray:
    gap = np.abs(depths - 0.5)
    return depths[np.isclose(gap, gap.min())]


def primacy_recency(wide: np.ndarray, depths: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Vectorised primacy and recency from a (…, depths) array of accuracies; ``depths`` are the positions
    (start = the smallest, end = the largest, middle = the mean of those closest to 0.5)."""
    start = wide[..., np.argmin(depths)]
    end = wide[..., np.argmax(depths)]
    middle = wide[..., np.isin(depths, _middle_depths(depths))].mean(axis=-1)
    return start - middle, end - middle


def _no_verdict(contexts: int, floor: bool, needs_baseline: bool, min_contexts: int, ceiling: bool = False) -> str:
    """Why a curve gets no verdict ('' when it gets one): too few contexts, no baseline where the score needs one, or
    a score at its floor or its ceiling (:func:`helmlite.analyses.depth.sweeps._flags`) — a score that cannot move
    says nothing about position."""
    if contexts < min_contexts:
        return f"inconclusive: {contexts} contexts < {min_contexts} (no interval)"
    if needs_baseline:
        return f"inconclusive: {NO_BASELINE}"
    if floor:
        return "inconclusive: at the floor (no verdict)"
    return "inconclusive: at the ceiling (no verdict)" if ceiling else ""


U_SHAPE_TESTS = ("primacy", "recency", "recency_minus_primacy")


U_SHAPE_COLUMNS = [*CURVE, "contexts", "start_position", "middle_position", "end_position", "score", "mean_accuracy",
                   "mean_baseline", "mean_score", "chance", "chance_corrected", "floor", "ceiling", "no_verdict",
                   *(f"{name}{part}" for name in U_SHAPE_TESTS for part in ("", "_ci_low", "_ci_high", "_p", "_p_floor", "_method"))]


def u_shape(records: pd.DataFrame, *, seed: int, n_resamples: int, min_contexts: int = MIN_CONTEXTS) -> pd.DataFrame:
    """Per curve: primacy (start − middle), recency (end − middle) and end − start of the curve's score
    (accuracy − baseline where it has one; see the module docstring) at the actual positions, paired over
    contexts, with intervals and p-values only when the curve gets a verdict (``no_verdict`` says why
    not: fewer than ``min_contexts`` contexts, at the floor, log-probability without a baseline); chance
    level, chance-corrected mean accuracy, mean baseline hit, floor and ceiling flags. Verdicts are not
    decided here: :func:`claims` states them and :func:`helmlite.claims.claims_table` decides them (Holm)."""
    rows = []
    for key, part in records.groupby(CURVE, sort=True):
        part = part.assign(score=scores(part))
        wide = part.pivot_table(index="context", columns="depth", values="score", aggfunc="mean").dropna()
        positions = part.groupby("depth")["position"].mean().reindex(wide.columns).to_numpy(dtype=float)
        if len(wide) == 0 or len(positions) < 3:
            continue
        values = wide.to_numpy()
        start = values[:, np.argmin(positions)]
        end = values[:, np.argmax(positions)]
        middle_at = np.isin(positions, _middle_depths(positions))
        middle = values[:, middle_at].mean(axis=1)
        corrected, floor, ceiling = _flags(part)
        baseline = _has_baseline(part)
        reason = _no_verdict(len(wide), floor, key[3] == SCORE_NAME["multiple_choice_separate"] and not baseline, min_contexts,
                             ceiling)
        items = len(np.unique(np.round(positions, 9)))
        if items < 3:  # e.g. JSON KV at 256 tokens holds two pairs: start, middle and end cannot be told apart
            reason = f"inconclusive: the depths land on {items} items (no middle)"
        out = {**dict(zip(CURVE, key)), "contexts": len(wide), "start_position": positions.min(),
               "middle_position": float(positions[middle_at].mean()), "end_position": positions.max(),
               "score": score_name(part), "mean_accuracy": float(part["correct"].mean()),
               "mean_baseline": float(part["baseline"].mean()) if baseline else math.nan, "mean_score": float(values.mean()),
               "chance": float(part["chance"].mean()), "chance_corrected": corrected, "floor": floor, "ceiling": ceiling,
               "no_verdict": reason}
        for name, a, b in zip(U_SHAPE_TESTS, (start, end, end), (middle, middle, start)):
            est = stats.interval_for((a, b), paired=True, n_resamples=max(n_resamples, MIN_TEST_RESAMPLES),
                                     seed=rng(seed, "u-shape", name, *key))
            out[name] = est.estimate
            out[f"{name}_ci_low"] = math.nan if reason else est.ci_low
            out[f"{name}_ci_high"] = math.nan if reason else est.ci_high
            out[f"{name}_p"] = math.nan if reason else est.p_value
            out[f"{name}_p_floor"] = est.p_floor
            out[f"{name}_method"] = reason or est.method
        rows.append(out)
    return pd.DataFrame(rows, columns=U_SHAPE_COLUMNS)


def length_tests(records: pd.DataFrame, *, seed: int, n_resamples: int, min_contexts: int = MIN_CONTEXTS) -> pd.DataFrame:
    """Per model × task × scoring with at least two lengths: mean score at the shortest length minus that at
    the longest (see the module docstring), paired by context index; interval and p-value only when both
    lengths have ``min_contexts`` contexts and the scoring has a baseline where it needs one."""
    rows = []
    for key, part in records.groupby(["model", "task", "method"], sort=True):
        lengths = sorted(part["length"].unique())
        if len(lengths) < 2:
            continue
        per_context, floors, ceilings = {}, [], []
        for length in (lengths[0], lengths[-1]):
            mine = part[part["length"] == length]
            per_context[length] = mine.assign(score=length_scores(mine)).groupby("context")["score"].mean()
            _, floor, ceiling = _flags(mine)
            floors.append(floor)
            ceilings.append(ceiling)
        short, long_ = per_context[lengths[0]].align(per_context[lengths[-1]], join="inner")
        needs_baseline = key[2] == SCORE_NAME["multiple_choice_separate"] and not _has_baseline(part)
        reason = _no_verdict(len(short), all(floors), needs_baseline, min_contexts, all(ceilings))
        est = stats.interval_for((short.to_numpy(), long_.to_numpy()), paired=True, n_resamples=max(n_resamples, MIN_TEST_RESAMPLES),
                                 seed=rng(seed, "length-test", *key))
        rows.append({"model": key[0], "task": key[1], "method": key[2], "short": lengths[0], "long": lengths[-1],
                     "score": f"({score_name(part)})/(1 − chance)" if _has_baseline(part) else "chance-corrected accuracy",
                     "score_short": float(short.mean()), "score_long": float(long_.mean()), "difference": est.estimate,
                     "ci_low": math.nan if reason else est.ci_low, "ci_high": math.nan if reason else est.ci_high,
                     "p_value": math.nan if reason else est.p_value, "p_floor": est.p_floor, "contexts": len(short),
                     "no_verdict": reason, "test": reason or est.method})
    return pd.DataFrame(rows, columns=["model", "task", "method", "short", "long", "score", "score_short", "score_long",
                                       "difference", "ci_low", "ci_high", "p_value", "p_floor", "contexts", "no_verdict",
                                       "test"])
