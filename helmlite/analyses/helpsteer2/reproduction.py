"""The reproduction checks of notebook 05: hand-derived worked examples with four and five annotators beside
:func:`~helmlite.analyses.helpsteer2.aggregation.aggregate`, the dataset card's per-annotator example, and the card's
published facts (annotator counts, the share not released, the train samples kept) beside this run."""
from __future__ import annotations

import numpy as np
import pandas as pd

from ... import stats
from ...claims.reproduction import decide, published_verdict, row, table
from ...seeds import rng
from .aggregation import aggregate
from .annotations import ATTRIBUTES, MAX_ANNOTATORS, Annotations
from .reference import CARD_ANNOTATORS_RANGE, CARD_TRAIN_KEPT, PUBLISHED

#: Two prompts with two responses each (helpfulness per annotator slot; the other attributes copy it), and
#: what the card's rule gives by hand. Triples are scored by the sum of their pairwise helpfulness differences.
WORKED_EXAMPLES = (
    # prompt A, response 1 — 4 annotators [2, 4, 3, 0]: slots (0,1,2) = (2,4,3) score 2+1+1 = 4, every other
    # triple ≥ 6 → mean 3 → 3; spread 4−2 = 2 (exactly the limit: passes); naive mean 9/4 = 2.25 → 2.
    {"prompt": "example A", "helpfulness": [2, 4, 3, 0], "slots": "0 1 2", "label": 3, "naive": 2, "spread": 2,
     "fails": False, "removed_per_prompt": True, "removed_per_response": False},
    # prompt A, response 2 — 4 annotators [0, 1, 4, 4]: (1,2,3) = (1,4,4) scores 3+3+0 = 6, the others 8 →
    # mean 3 → 3; spread 4−1 = 3 > 2: fails, so prompt A loses both responses under the paper's per-prompt rule.
    {"prompt": "example A", "helpfulness": [0, 1, 4, 4], "slots": "1 2 3", "label": 3, "naive": 2, "spread": 3,
     "fails": True, "removed_per_prompt": True, "removed_per_response": True},
    # prompt B, response 1 — 5 annotators [4, 0, 4, 1, 3]: (0,2,4) = (4,4,3) scores 0+1+1 = 2 → 11/3 = 3.67 → 4,
    # where the naive mean 12/5 = 2.4 gives 2: the two careless-looking ratings (0, 1) are dropped.
    {"prompt": "example B", "helpfulness": [4, 0, 4, 1, 3], "slots": "0 2 4", "label": 4, "naive": 2, "spread": 1,
     "fails": False, "removed_per_prompt": False, "removed_per_response": False},
    # prompt B, response 2 — 5 annotators [0, 2, 4, 0, 4]: (0,1,3) = (0,2,0) and (1,2,4) = (2,4,4) both score 4;
    # the other attributes tie too, so the earliest slots (0,1,3) win → 2/3 → 1 (naive 10/5 = 2); spread 2 passes.
    {"prompt": "example B", "helpfulness": [0, 2, 4, 0, 4], "slots": "0 1 3", "label": 1, "naive": 2, "spread": 2,
     "fails": False, "removed_per_prompt": False, "removed_per_response": False},
)


def worked_examples() -> tuple[Annotations, pd.DataFrame]:
    """:data:`WORKED_EXAMPLES` as annotations (every attribute = helpfulness) and the hand-derived results."""
    ratings = np.full((len(WORKED_EXAMPLES), MAX_ANNOTATORS, len(ATTRIBUTES)), np.nan)
    for i, example in enumerate(WORKED_EXAMPLES):
        ratings[i, :len(example["helpfulness"]), :] = np.asarray(example["helpfulness"], dtype=float)[:, None]
    annotations = Annotations([e["prompt"] for e in WORKED_EXAMPLES], [f"response {i % 2 + 1}" for i in range(len(WORKED_EXAMPLES))],
                              ratings)
    expected = pd.DataFrame(WORKED_EXAMPLES)
    expected["helpfulness"] = expected["helpfulness"].map(str)
    return annotations, expected


def worked_examples_check() -> pd.DataFrame:
    """The hand-derived results beside :func:`aggregate` under both spread filters (``match`` = all agree)."""
    annotations, expected = worked_examples()
    per_prompt, per_response = aggregate(annotations, "prompt"), aggregate(annotations, "response")
    out = expected.rename(columns={"slots": "slots_by_hand", "label": "label_by_hand", "naive": "naive_by_hand"})
    out["slots"] = per_prompt["slots"]
    out["label"] = per_prompt["helpfulness"]
    out["naive"] = per_prompt["helpfulness_naive"]
    out["removed (per prompt)"] = per_prompt["removed"]
    out["removed (per response)"] = per_response["removed"]
    out["match"] = ((out["slots"] == out["slots_by_hand"]) & (out["label"] == out["label_by_hand"])
                    & (out["naive"] == out["naive_by_hand"]) & (per_prompt["helpfulness_spread"] == out["spread"])
                    & (out["removed (per prompt)"] == out["removed_per_prompt"])
                    & (out["removed (per response)"] == out["removed_per_response"]))
    return out


def card_example_check(card_annotations: Annotations, card_aggregated: pd.DataFrame) -> pd.DataFrame:
    """Aggregate the card's per-annotator example and set it beside the card's released row."""
    ours = aggregate(card_annotations)
    present = ~np.isnan(card_annotations.ratings[:, :, 0])
    rows = []
    for i in range(len(ours)):
        for j, attribute in enumerate(ATTRIBUTES):
            rows.append({"sample": i, "attribute": attribute,
                         "ratings": str(card_annotations.ratings[i, present[i], j].astype(int).tolist()),
                         "mean_of_three": ours.loc[i, f"{attribute}_mean"], "ours": int(ours.loc[i, attribute]),
                         "published": int(card_aggregated.loc[i, attribute])})
    return pd.DataFrame(rows)


def reproduction_check(card: pd.DataFrame, annotations: Annotations, aggregated: pd.DataFrame, source: str, *,
                       seed: int, n_resamples: int) -> pd.DataFrame:
    """Rows for ``tables/helpsteer2_reproduction.csv``: the card example (exact) and the card's facts."""
    rows = [row(f"card_example:{r.attribute}", r.published, r.ours, published_verdict(r.ours, r.published, 0), note="exact integer")
            for r in card.itertuples()]
    n = annotations.n_annotators
    simulated = source == "simulated"
    low, high = CARD_ANNOTATORS_RANGE
    rows.append(row("card:max_annotators", high, int(n.max()), decide(False, n.max() <= high),
                    note=f"the card's range {low}–{high}: at most {high}"))
    rows.append(row("card:min_annotators", low, int(n.min()), decide(False, n.min() >= low),
                    note=f"the card's range {low}–{high}: at least {low}" if n.min() >= low else
                    f"{int((n < low).sum())} samples with 2 annotators (the card's note on not-ratable annotations)"))
    mean = stats.interval_for(n, seed=rng(seed, "mean-annotators"), n_resamples=n_resamples)
    card_mean, tolerance = PUBLISHED["mean_annotators"][:2]
    inside = abs(mean.estimate - card_mean) <= tolerance
    rows.append(row("card:mean_annotators", card_mean, mean.estimate,
                    "by construction" if simulated else published_verdict(mean.estimate, card_mean, 0, mean.ci_low, mean.ci_high),
                    mean.ci_low, mean.ci_high,
                    note=(f"simulated: fitted to it (tolerance ±{tolerance}), {'within' if inside else 'outside'}" if simulated
                          else "the published mean inside our interval" if not mean.excludes(card_mean) else "")))
    share, tolerance = PUBLISHED["share_not_released"][:2]
    removed = stats.interval_for(aggregated["removed"].to_numpy(dtype=float), clusters=aggregated["prompt_id"].to_numpy(),
                                 seed=rng(seed, "share-removed"), n_resamples=n_resamples)
    inside = abs(removed.estimate - share) <= tolerance
    rows.append(row("row_counts:share_not_released", share, removed.estimate,
                    "by construction" if simulated else published_verdict(removed.estimate, share, tolerance),
                    removed.ci_low, removed.ci_high,
                    note=(f"simulated: fitted to it (tolerance ±{tolerance}), {'within' if inside else 'outside'}" if simulated
                          else f"tolerance ±{tolerance}")))
    kept = int((~aggregated["removed"]).sum())
    rows.append(row("card:train_samples_kept", CARD_TRAIN_KEPT, kept,
                    "not comparable" if simulated else published_verdict(kept, CARD_TRAIN_KEPT, 0),
                    note=("simulated sample count" if simulated else "" if kept == CARD_TRAIN_KEPT else
                          "the disagreements file spans train+validation and the card's count is after every filter")))
    return table(rows)
