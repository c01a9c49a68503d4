"""Lost in the middle: accuracy by the position of the relevant information (Liu et al. 2023, arXiv 2307.03172;
HELMET App. E.4, Figs. 11–14).

Live sweeps run JSON KV (HELMET), Lost in the Middle's KV retrieval, multi-document QA (>= 10 documents)
and a needle in a haystack at several lengths (in each model's own tokens) with the target at depths
0 … 1, scored two ways: the papers' substring match on greedy generations, and a log-probability
retrieval score (is the gold answer more likely than distractors from the same context?), which stays
informative when tiny models cannot copy a UUID at all.

**Actual position, not nominal depth.** A depth places the target at item ``round(d·(n − 1))`` of
``n`` items; every instance records the item it landed on (``relative_position`` = index / (n − 1)),
and curves are drawn and tested at those positions (``position``: their mean over the curve's
contexts at that depth).

**Chance level.** The log-probability retrieval score picks one of the instance's references, so
chance is (correct references) / (references) — 1/6 for JSON KV at 512 tokens (six pairs), 1/10 at
1,024 — and changes with length. A substring match of a greedy generation has chance ≈ 0 (taken as 0).
Every curve carries its chance level; the length analysis reports **chance-corrected accuracy**
(acc − chance) / (1 − chance), per row then averaged; a curve is at the **floor** when its
chance-corrected mean accuracy is below :data:`FLOOR_MARGIN` (within 5% of the way from chance to
perfect), at the **ceiling** when its raw mean accuracy is above 1 − :data:`FLOOR_MARGIN`.

**Baseline: retrieval, not candidate preference.** A log-probability score over candidates that all
occur in the context rewards a model that prefers early (or late) candidates whatever it is asked — in
the default run of 2026-11-30 Gemma-3-270M picked a JSON KV dictionary's first value in 49 of 60
instances, which made "accuracy at depth 0" a preference and "HELMET recency: contradicted" an artefact.
Log-probability runs therefore also score each instance's *baseline* (the same context and candidates
with a query the context cannot answer, :mod:`helmlite.scenarios.synthetic`): its hit rate at a depth is
how often the candidate at that position wins from preference alone. The curves table gives, per depth,
accuracy, the baseline's hit rate and their difference, and the same for **P(gold)**, the probability the
model puts on the gold candidate (softmax over the instance's candidates), and the baseline's probability of
that same candidate. The position and length tests use the per-row **score** P(gold) − baseline P(gold):
how far the query moves probability onto the answer beyond where the candidate's position puts it. This is
helmlite's departure from the papers (which test accuracy): a 0/1 difference correct − baseline hit has a
variance near 0.5 per row, so ~20 contexts give MDEs of 0.2–0.5, while the probability difference of a
near-deterministic retrieval varies by a few points between contexts (measured 2026-12-01 on NIAH at 256
tokens: per-context SD 0.01–0.02 for both embedded models). Runs written before the baseline's probabilities
were stored use correct − baseline hit (in {−1, 0, 1}); a log-probability curve without a baseline gets no
verdict. Generation curves use correctness (substring match; chance ≈ 0).

**At least** :data:`MIN_CONTEXTS` **contexts.** A curve resting on fewer independent contexts gets no
interval and no verdict (its rows say ``inconclusive``): with two contexts a percentile interval is the
min and max of two values.

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

**No verdict** on a curve with fewer than :data:`MIN_CONTEXTS` contexts, at the floor or the ceiling (its answers cannot
move, whatever a probability score does), whose depths land on fewer than three distinct items, or scored by
log-probability without a baseline: its claims carry no interval and are inconclusive, with the reason.

**Length degradation.** Per model × task × scoring with two or more lengths: the mean score at the
shortest length minus that at the longest, paired by context index (each length's contexts are
independent draws, so the pairs are independent and the paired bootstrap is valid), one-sided > 0. The
number of candidates — and so chance — grows with length, so the score is normalised by it:
(correct − baseline) / (1 − chance) where there is a baseline, else (correct − chance) / (1 − chance).
No verdict when both lengths are at the floor, or both at the ceiling.

Verdicts come from :func:`helmlite.claims.claims_table`, Holm-corrected over every claim of the notebook.
"""
from __future__ import annotations

import math

import numpy as np
import pandas as pd

from ... import stats
from ...claims import Claim
from ...reproduction import row, table
from .reference import LITM_GPT35
from ...results import Run
from ...seeds import rng

METRIC = {"generation": "substring_match", "multiple_choice_separate": "exact_match"}
SCORE_NAME = {"generation": "substring match (generation)", "multiple_choice_separate": "log-prob retrieval"}
MIN_CONTEXTS = 10
# Resamples of the position and length tests, at least: with B resamples the expanded percentile bootstrap's
# smallest p-value at n contexts is 2·F_t(n−1)(z_(1/(B+1))·√((n−1)/n)) — at n = 20, 0.0046 for B = 2,000, which
# Holm over ten claims cannot use (the smallest must be below 0.005); 0.0012 for B = 20,000.
MIN_TEST_RESAMPLES = 20_000
FLOOR_MARGIN = 0.05
CURVE = ["model", "task", "length", "method"]
BASELINE_COLUMNS = ("baseline", "baseline_ci_low", "baseline_ci_high", "difference", "difference_ci_low", "difference_ci_high",
                    "probability", "baseline_probability", "probability_difference", "probability_difference_ci_low",
                    "probability_difference_ci_high")
INCONCLUSIVE = f"inconclusive: fewer than {MIN_CONTEXTS} contexts (no interval)"
NO_BASELINE = "log-probability scores without a baseline: candidate preference not removed"


def _relative_position(metadata: dict) -> float:
    if "relative_position" in metadata:
        return float(metadata["relative_position"])
    n = int(metadata["n_items"])  # runs written before relative_position was recorded
    return metadata["position"] / (n - 1) if n > 1 else 0.0


def chance_level(references, method: str) -> float:
    """Chance of a correct answer for one instance: (correct references) / (references) for the
    log-probability retrieval score (one reference is picked); 0 for a generation's substring match."""
    if method != "multiple_choice_separate" or not references:
        return 0.0
    return sum(bool(correct) for _, correct in references) / len(references)


def depth_records(runs: list[Run]) -> pd.DataFrame:
    """One row per instance: model, task, length, method, nominal depth, actual relative position of the
    target, context, correctness, chance level and — for runs that scored it — the baseline's hit (did the
    key-absent query pick this depth's gold candidate?; NaN otherwise)."""
    rows = []
    for run in runs:
        method = run.spec.method
        metric = METRIC[method]
        for r in run.records:
            baseline = r.perturbed.get("baseline")
            rows.append({"model": run.model, "task": run.stats.scenario, "length": r.metadata["target_tokens"],
                         "method": SCORE_NAME[method], "depth": r.metadata["depth"], "position": _relative_position(r.metadata),
                         "context": r.metadata["context"], "correct": float(r.metrics[metric]),
                         "chance": chance_level(r.references, method),
                         "baseline": float(baseline.metrics[metric]) if baseline is not None else math.nan,
                         "probability": gold_probability(r.probabilities, r.references),
                         "baseline_probability": gold_probability(baseline.probabilities if baseline is not None else None,
                                                                  r.references)})
    columns = [*CURVE, "depth", "position", "context", "correct", "chance", "baseline", "probability", "baseline_probability"]
    return pd.DataFrame(rows, columns=columns)


def gold_probability(probabilities, references) -> float:
    """The probability mass on the correct references (the softmax over an instance's candidates that the
    log-probability score picks from); NaN when the outcome has no probabilities (generation, older runs)."""
    if not probabilities:
        return math.nan
    return float(sum(p for p, (_, correct) in zip(probabilities, references) if correct))


def _has_baseline(part: pd.DataFrame) -> bool:
    return "baseline" in part and bool(part["baseline"].notna().all())


def _has_probabilities(part: pd.DataFrame) -> bool:
    return _has_baseline(part) and "baseline_probability" in part and bool(part["baseline_probability"].notna().all())


def score_name(part: pd.DataFrame) -> str:
    """What :func:`scores` measures for this curve."""
    if _has_probabilities(part):
        return "P(gold) − baseline P(gold)"
    return "accuracy − baseline" if _has_baseline(part) else "accuracy"


def scores(part: pd.DataFrame) -> np.ndarray:
    """The per-row quantity the position tests use (module docstring): P(gold) − the baseline's P(gold) where
    the curve has the baseline's probabilities, correct − baseline hit where it has only its hits, else
    correctness."""
    if _has_probabilities(part):
        return part["probability"].to_numpy(dtype=float) - part["baseline_probability"].to_numpy(dtype=float)
    correct = part["correct"].to_numpy(dtype=float)
    return correct - part["baseline"].to_numpy(dtype=float) if _has_baseline(part) else correct


def _length_scores(part: pd.DataFrame) -> np.ndarray:
    """Per row, on a scale that does not move with the number of candidates (which grows with length):
    :func:`scores` / (1 − chance) where there is a baseline — perfect retrieval over a baseline at chance
    scores 1 at every length — else chance-corrected correctness (correct − chance) / (1 − chance)."""
    if not _has_baseline(part):
        return chance_corrected(part["correct"], part["chance"])
    chance = part["chance"].to_numpy(dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(chance < 1, scores(part) / np.where(chance < 1, 1 - chance, 1), np.nan)


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


def chance_corrected(correct, chance) -> np.ndarray:
    """(correct − chance) / (1 − chance) per row (NaN where chance is 1: no room above it)."""
    correct, chance = np.asarray(correct, dtype=float), np.asarray(chance, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(chance < 1, (correct - chance) / np.where(chance < 1, 1 - chance, 1), np.nan)


def _flags(part: pd.DataFrame) -> tuple[float, bool, bool]:
    """Chance-corrected mean accuracy, the floor flag (accuracy − baseline hit rate where there is a baseline,
    else the chance-corrected accuracy, below :data:`FLOOR_MARGIN`: the model's answers do not follow the
    key — judged on answers, not on the probability score, which a retrieval that is always right by a small
    margin keeps small) and the ceiling flag."""
    corrected = float(np.nanmean(chance_corrected(part["correct"], part["chance"])))
    level = float((part["correct"] - part["baseline"]).mean()) if _has_baseline(part) else corrected
    return corrected, bool(level < FLOOR_MARGIN), bool(part["correct"].mean() > 1 - FLOOR_MARGIN)


def _no_verdict(contexts: int, floor: bool, needs_baseline: bool, min_contexts: int, ceiling: bool = False) -> str:
    """Why a curve gets no verdict ('' when it gets one): too few contexts, no baseline where the score needs one, or
    answers at the floor or the ceiling — a curve whose accuracy cannot move says nothing about position, whatever a
    probability score does there."""
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
            per_context[length] = mine.assign(score=_length_scores(mine)).groupby("context")["score"].mean()
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


def claims(ushape: pd.DataFrame, lengths: pd.DataFrame | None = None) -> list[Claim]:
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


#: A published curve is called U-shaped (or recency-preferring) only when the differences exceed this: the
#: binomial standard error of a difference of two accuracies over Lost in the Middle's 2,655 NQ-open questions
#: is √(2·0.5·0.5/2655) ≈ 0.014 if the two were independent (less for these paired ones, the same questions at
#: two positions), so two points is about 1.5 standard errors or more; HELMET's values, read off its figures,
#: are no finer.
PUBLISHED_TOLERANCE = 0.02


def published_primacy_recency(frame: pd.DataFrame, keys: list[str], depth: str = "depth", value: str = "accuracy",
                              tolerance: float = PUBLISHED_TOLERANCE) -> pd.DataFrame:
    """The same statistics on published curves (point values only: the papers release no per-item data):
    ``u_shaped`` when primacy and recency both exceed ``tolerance``, ``prefers_recent`` when recency exceeds
    primacy by more than it (:data:`PUBLISHED_TOLERANCE`: differences of about a point are not shapes)."""
    rows = []
    for key, part in frame.groupby(keys, sort=True):
        part = part.sort_values(depth)
        depths = part[depth].to_numpy(dtype=float)
        if len(depths) < 3:
            continue
        p, r = primacy_recency(part[value].to_numpy(dtype=float), depths)
        rows.append({**dict(zip(keys, key if isinstance(key, tuple) else (key,))), "primacy": float(p), "recency": float(r),
                     "tolerance": tolerance, "u_shaped": bool(p > tolerance and r > tolerance),
                     "prefers_recent": bool(r - p > tolerance)})
    return pd.DataFrame(rows)


def litm_curves(tables: pd.DataFrame) -> pd.DataFrame:
    """Lost in the Middle Tables 5–7 as curves: depth = gold index / (documents − 1), accuracy as a share."""
    docs = tables[tables["setting"].str.endswith("_docs")].copy()
    docs["depth"] = docs["gold_index"].astype(float) / (docs["num_docs"].astype(float) - 1)
    docs["accuracy"] = docs["accuracy"] / 100
    return docs


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


READ_CHECK = "not a reproduction: the mirror's table as read equals the cited constant"


def read_checks(litm_tables: pd.DataFrame | None) -> pd.DataFrame:
    """``tables/depth_reproduction.csv``: the Lost in the Middle GPT-3.5-Turbo numbers as read from the
    mirror beside the constants cited from the paper. These are **read checks**, not reproductions: the
    live runs use other models, so no published number is recomputed here (the papers' claims about
    the embedded models go to the claims table)."""
    rows = []
    if litm_tables is not None:
        gpt = litm_tables[litm_tables["model"] == "GPT-3.5-Turbo"]
        for key, published in LITM_GPT35.items():
            if isinstance(key, str):
                ours = float(gpt[gpt["setting"] == key]["accuracy"].iloc[0])
                quantity = f"litm_table1:{key}:GPT-3.5-Turbo"
            else:
                ours = float(gpt[(gpt["num_docs"] == 20) & (gpt["gold_index"] == key)]["accuracy"].iloc[0])
                quantity = f"litm_table6:20docs:gold{key + 1}:GPT-3.5-Turbo"
            same = abs(ours - published) < 1e-9
            rows.append(row(quantity, published, ours, "read check" if same else "differs",
                            note=READ_CHECK if same else "read check: the mirror's table differs from the cited constant"))
    return table(rows)
