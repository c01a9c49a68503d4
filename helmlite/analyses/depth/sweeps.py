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
(acc − chance) / (1 − chance), per row then averaged. A curve's **floor** and **ceiling** flags are judged on the
quantity its tests use (:func:`_flags`): for the default's log-probability curves, P(gold) − baseline P(gold) —
at the floor when the query fills less than :data:`FLOOR_MARGIN` of the room above the baseline, at the ceiling when
P(gold) averages above 1 − :data:`FLOOR_MARGIN`; for accuracy curves, chance-corrected accuracy below
:data:`FLOOR_MARGIN` (within 5% of the way from chance to perfect) and raw accuracy above 1 − :data:`FLOOR_MARGIN`.

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

The position and length tests: :mod:`helmlite.analyses.depth.position_tests`; the claims and their verdicts:
:mod:`helmlite.analyses.depth.claims`.
"""
from __future__ import annotations

import math

import numpy as np
import pandas as pd

from ...results import Run

METRIC = {"generation": "substring_match", "multiple_choice_separate": "exact_match"}
SCORE_NAME = {"generation": "substring match (generation)", "multiple_choice_separate": "log-prob retrieval"}
MIN_CONTEXTS = 10
FLOOR_MARGIN = 0.05
LITM_SHORTEST_TOKENS = 1600  # Lost in the Middle's shortest multi-document contexts (10 documents), ~1.6K tokens
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


def length_scores(part: pd.DataFrame) -> np.ndarray:
    """Per row, on a scale that does not move with the number of candidates (which grows with length):
    :func:`scores` / (1 − chance) where there is a baseline — perfect retrieval over a baseline at chance
    scores 1 at every length — else chance-corrected correctness (correct − chance) / (1 − chance)."""
    if not _has_baseline(part):
        return chance_corrected(part["correct"], part["chance"])
    chance = part["chance"].to_numpy(dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(chance < 1, scores(part) / np.where(chance < 1, 1 - chance, 1), np.nan)


def chance_corrected(correct, chance) -> np.ndarray:
    """(correct − chance) / (1 − chance) per row (NaN where chance is 1: no room above it)."""
    correct, chance = np.asarray(correct, dtype=float), np.asarray(chance, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(chance < 1, (correct - chance) / np.where(chance < 1, 1 - chance, 1), np.nan)


def _flags(part: pd.DataFrame) -> tuple[float, bool, bool]:
    """Chance-corrected mean accuracy and the floor and ceiling flags, judged on the quantity the curve's tests use
    (:func:`scores`; issue #62):

    * P(gold) − baseline P(gold) (log-probability with the baseline's probabilities): at the **floor** when the query
      fills less than :data:`FLOOR_MARGIN` of the room the baseline leaves (mean P(gold) − baseline P(gold) <
      FLOOR_MARGIN · (1 − mean baseline P(gold))) — the model does not retrieve, so there is nothing for position to
      modulate; at the **ceiling** when mean P(gold) > 1 − FLOOR_MARGIN — the gold candidate holds all the probability
      at every depth and the score can move only through the baseline. Accuracy does not enter: a retrieval that is
      always right by a moderate margin (Gemma-3's needle at 512 tokens: accuracy 1.0, P(gold) 0.27 over a baseline of
      0.22) is at neither end of its score.
    * accuracy − baseline hit (runs without the baseline's probabilities): floor below FLOOR_MARGIN, ceiling when
      mean accuracy > 1 − FLOOR_MARGIN;
    * accuracy (generation, or no baseline): floor when the chance-corrected accuracy is below FLOOR_MARGIN, ceiling
      as above."""
    corrected = float(np.nanmean(chance_corrected(part["correct"], part["chance"])))
    if _has_probabilities(part):
        probability, baseline = float(part["probability"].mean()), float(part["baseline_probability"].mean())
        return corrected, bool(probability - baseline < FLOOR_MARGIN * (1 - baseline)), bool(probability > 1 - FLOOR_MARGIN)
    level = float((part["correct"] - part["baseline"]).mean()) if _has_baseline(part) else corrected
    return corrected, bool(level < FLOOR_MARGIN), bool(part["correct"].mean() > 1 - FLOOR_MARGIN)


def sweep_scope(records: pd.DataFrame) -> str:
    """One Markdown sentence for the report's summary: which tasks at which lengths (each model's own tokens), how
    many contexts and depths, which models and scorings the live sweeps ran — the regime every verdict below is about
    (Lost in the Middle's own contexts held 10–30 documents, ~1.6K–4.7K tokens)."""
    if records.empty:
        return "No live depth sweep in this run."
    parts = []
    for task, part in records.groupby("task", sort=True):
        lengths = ", ".join(f"{int(length):,}" for length in sorted(part["length"].unique()))
        contexts = part.groupby(["model", "length"])["context"].nunique().min()
        depths = " / ".join(f"{d:g}" for d in sorted(part["depth"].unique()))
        parts.append(f"**{task}** at {lengths} tokens ({contexts} contexts per curve, depths {depths})")
    models = ", ".join(sorted(records["model"].unique()))
    methods = ", ".join(sorted(records["method"].unique()))
    shorter = (" All are shorter than Lost in the Middle's own contexts (10–30 documents of ~100 words, ~1.6K–4.7K "
               "tokens): the verdicts are about this regime.") if records["length"].max() < LITM_SHORTEST_TOKENS else ""
    return f"Live sweeps: {'; '.join(parts)}; models {models}; scored by {methods}.{shorter}"
