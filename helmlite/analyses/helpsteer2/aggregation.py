"""HelpSteer2's annotation aggregation: the dataset card's rule (Wang et al. 2024, arXiv 2406.08673).

Protocol (dataset card, "Annotation methodology"): every response is rated 0–4 on five attributes by
at least three annotators, and by up to five "if the initial annotators do not agree with each other
sufficiently (2 points or less on helpfulness)"; the released label is "the mean of the three
annotators who agree with each other most, rounded to the nearest integer"; samples whose
annotators still disagree are filtered out (train keeps 20,324 samples).

Definitions used here (the card leaves them open, so they are stated precisely):

* **most agreeing three** — among all 3-subsets of the sample's annotators, the one with the smallest
  total pairwise absolute difference in *helpfulness* (the attribute the protocol judges agreement
  on); ties broken by the smallest total pairwise L1 difference over all five attributes, then by the
  earliest annotator slots (lexicographically smallest slot triple).
* **spread filter** — a response *fails* when its retained helpfulness ratings span more than 2 points
  (max − min > 2; a span of exactly 2 passes). The paper applies the filter per prompt: a prompt's
  responses are removed together, "for both responses to a common prompt", when either fails
  (``spread_filter="prompt"``, the default; responses share a prompt by the file's prompt identity —
  a ``prompt_id`` field where the file has one, else equal prompt text: the released disagreements file
  has no id, and its row order is not documented, so consecutive rows are not assumed to pair). ``spread_filter="response"``
  removes each failing response alone (the option kept for comparison).
* **spread of what** — ``spread_over="most_agreeing_three"`` (the default: the card's "annotators who
  agree with each other most" are what the label is made of) or ``"all_annotators"`` (every rating of the
  response). Five ratings on 0–4 always contain three within 2 points (three of them fall in {0, 1, 2}
  or in {2, 3, 4}), so under the default a response with five annotators never fails: only responses
  left with three or four can. Notebook 05 shows which reading reproduces the paper's ~10%
  (:mod:`helmlite.analyses.helpsteer2.protocol`).
* **rounding** — half up (``floor(mean + 0.5)``). A mean of three integers is never a half; only
  two-annotator samples can be.
* **fewer than three annotators** — the card notes that "a small proportion of samples only
  [have] annotations by 2 annotators" (others were not ratable). The card's recipe (the mean of the three
  most agreeing annotators) gives such a sample **no label**: by default (``fewer_than_three="no_label"``)
  its label columns are empty, ``rule = "no_label"``, and it is removed (with its prompt under the per-prompt
  rule); ``fewer_than_three="all_available"`` aggregates both ratings instead (``rule = "all_available"``).
  Either way the report counts them; none is dropped silently.
"""
from __future__ import annotations

from itertools import combinations

import numpy as np
import pandas as pd

from ...errors import UserError
from .annotations import ATTRIBUTES, MAX_ANNOTATORS, Annotations

SPREAD_LIMIT = 2
TRIPLES = np.array(list(combinations(range(MAX_ANNOTATORS), 3)))  # lexicographic order = tie-break order
HELPFULNESS = ATTRIBUTES.index("helpfulness")


def _pairwise_spread(values: np.ndarray) -> np.ndarray:
    """|a−b| + |a−c| + |b−c| over the three annotator slots held on axis 2."""
    a, b, c = (np.take(values, k, axis=2) for k in range(3))
    return np.abs(a - b) + np.abs(a - c) + np.abs(b - c)


def most_agreeing_three(ratings: np.ndarray) -> np.ndarray:
    """Slot indices ``(samples, 3)`` of the most agreeing three annotators (see module docstring).

    Samples with fewer than three annotators get ``-1`` in every position.
    """
    picked = ratings[:, TRIPLES, :]  # (samples, 10 triples, 3 slots, attributes); NaN where a slot is empty
    primary = _pairwise_spread(picked[..., HELPFULNESS])  # ≤ 8
    secondary = _pairwise_spread(picked).sum(axis=-1)  # ≤ 40
    key = np.nan_to_num(primary * 100 + secondary, nan=np.inf)  # lexicographic (primary, secondary)
    best = np.argmin(key, axis=1)  # the first minimum = earliest slots among ties
    chosen = TRIPLES[best].copy()
    chosen[np.isinf(key.min(axis=1))] = -1
    return chosen


def round_half_up(values: np.ndarray) -> np.ndarray:
    return np.floor(np.asarray(values, dtype=float) + 0.5)


SPREAD_FILTERS = ("prompt", "response")
SPREAD_OVER = ("most_agreeing_three", "all_annotators")
FEWER_THAN_THREE = ("no_label", "all_available")


def prompt_ids(prompts) -> np.ndarray:
    """An integer id per response: equal prompt texts share an id (numbered in order of first appearance)."""
    codes, _ = pd.factorize(pd.Series(list(prompts), dtype=object), sort=False)
    return codes


def _check_choice(name: str, value: str, choices: tuple[str, ...]) -> None:
    if value not in choices:
        raise UserError(f"{name} must be one of {choices}, got {value!r}")


def aggregate(annotations: Annotations, spread_filter: str = "prompt", *, spread_over: str = "most_agreeing_three",
              fewer_than_three: str = "no_label") -> pd.DataFrame:
    """One row per sample: the released label of every attribute and how it was obtained.

    Columns: ``prompt_id`` (responses to one prompt share it: the file's prompt identity, else equal prompt
    text), ``n_annotators``, ``rule`` ("top3" / "no_label" / "all_available" — see the module docstring for
    samples with fewer than three), ``slots`` (retained annotator slots), ``helpfulness_spread`` (max − min of
    the helpfulness ``spread_over`` looks at), ``fails_spread`` (that spread > 2), ``removed`` (failing, or
    without a label, by ``spread_filter``: "prompt" — the paper's rule, every response of such a prompt;
    "response" — that response alone), and per attribute ``<a>_mean`` (unrounded mean of the retained
    ratings), ``<a>`` (rounded label, a float so that it can be empty without one) and ``<a>_naive`` (the naive alternative: mean of
    *all* annotators, rounded).
    """
    _check_choice("spread_filter", spread_filter, SPREAD_FILTERS)
    _check_choice("spread_over", spread_over, SPREAD_OVER)
    _check_choice("fewer_than_three", fewer_than_three, FEWER_THAN_THREE)
    ratings = annotations.ratings
    n = annotations.n_annotators
    if (n < 2).any():
        first = int(np.argmax(n < 2))
        raise UserError(f"sample {first} has {n[first]} rating(s); aggregation needs at least 2 annotators")
    chosen = most_agreeing_three(ratings)
    top3 = chosen[:, 0] >= 0
    keep = np.zeros(ratings.shape[:2], dtype=bool)
    rows = np.nonzero(top3)[0]
    keep[rows[:, None], chosen[top3]] = True
    keep[~top3] = ~np.isnan(ratings[~top3, :, 0])  # fewer than three: every available rating
    retained = np.where(keep[:, :, None], ratings, np.nan)
    frame = pd.DataFrame({
        "prompt_id": annotations.prompt_ids if annotations.prompt_ids is not None else prompt_ids(annotations.prompts),
        "n_annotators": n,
        "rule": np.where(top3, "top3", fewer_than_three),
        "slots": [" ".join(map(str, np.nonzero(k)[0])) for k in keep],
    })
    looked_at = retained if spread_over == "most_agreeing_three" else ratings
    spread = np.nanmax(looked_at[:, :, HELPFULNESS], axis=1) - np.nanmin(looked_at[:, :, HELPFULNESS], axis=1)
    frame["helpfulness_spread"] = spread.astype(int)
    frame["fails_spread"] = spread > SPREAD_LIMIT
    unusable = frame["fails_spread"] | (frame["rule"] == "no_label")
    if spread_filter == "prompt":
        frame["removed"] = unusable.groupby(frame["prompt_id"]).transform("any").astype(bool)
    else:
        frame["removed"] = unusable
    means = np.nanmean(retained, axis=1)
    naive = np.nanmean(ratings, axis=1)
    labelled = top3 | (fewer_than_three == "all_available")
    for j, attribute in enumerate(ATTRIBUTES):
        frame[f"{attribute}_mean"] = np.where(labelled, means[:, j], np.nan)
        frame[attribute] = np.where(labelled, round_half_up(means[:, j]), np.nan)  # float: empty where no label
        frame[f"{attribute}_naive"] = round_half_up(naive[:, j]).astype(int)
    return frame


