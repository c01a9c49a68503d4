"""HelpSteer2's annotation aggregation and the analyses of notebook 05 (Wang et al. 2024, arXiv 2406.08673).

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

from ... import stats
from ...seeds import rng
from ...reproduction import decide, row, table, verdict
from .annotations import ATTRIBUTES, MAX_ANNOTATORS, Annotations
from .reference import CARD_ANNOTATORS_RANGE, CARD_TRAIN_KEPT, PUBLISHED
from ...errors import UserError

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


# --- analyses shown in notebook 05 ------------------------------------------------------------------

def annotator_counts(annotations: Annotations) -> pd.DataFrame:
    """How many samples have 2, 3, 4 and 5 annotators (the card: 3 to 5, mean 3.41)."""
    counts = pd.Series(annotations.n_annotators).value_counts().sort_index()
    return pd.DataFrame({"n_annotators": counts.index.astype(int), "samples": counts.values,
                         "share": counts.values / len(annotations)})


def removal_summary(aggregated: pd.DataFrame, *, seed: int = 0, n_resamples: int = 2000) -> pd.DataFrame:
    """Share of samples not released — removed by the spread filter or for want of a label — per prompt (the
    paper's rule: ``removed``) and per response (failing or unlabelled itself) — overall and per aggregation rule
    and annotator count. Responses of a
    prompt are removed together under the per-prompt rule, so its interval treats prompts as the units
    (Korn–Graubard, :func:`helmlite.stats.cluster_mean_estimate`); the per-response share gets the exact (Clopper–Pearson) interval."""
    rows = []
    groups = [("all", aggregated)] + [(f"rule={rule}", part) for rule, part in aggregated.groupby("rule", sort=True)]
    groups += [(f"annotators={k}", part) for k, part in aggregated.groupby("n_annotators", sort=True)]
    for label, part in groups:
        per_response = (part["fails_spread"] | (part["rule"] == "no_label")).to_numpy(dtype=float)
        for spread_filter, values in (("per prompt (paper)", part["removed"].to_numpy(dtype=float)), ("per response", per_response)):
            if spread_filter == "per prompt (paper)" and len(part) > 1:
                est = stats.interval_for(values, clusters=part["prompt_id"].to_numpy(), n_resamples=n_resamples,
                                         seed=rng(seed, "removal", label))
            else:
                est = stats.interval_for(values)
            rows.append({"subset": label, "filter": spread_filter, "samples": len(part), "removed": int(values.sum()),
                         "share_removed": est.estimate, "ci_low": est.ci_low, "ci_high": est.ci_high, "interval": est.method})
    return pd.DataFrame(rows)


def rating_distributions(annotations: Annotations, aggregated: pd.DataFrame) -> pd.DataFrame:
    """Share of each score 0–4 per attribute: every individual rating vs the released labels."""
    kept = aggregated[~aggregated["removed"]]
    rows = []
    for j, attribute in enumerate(ATTRIBUTES):
        individual = annotations.ratings[:, :, j]
        individual = individual[~np.isnan(individual)].astype(int)
        for stage, values in (("individual ratings", individual), ("released label", kept[attribute].to_numpy().astype(int))):
            counts = np.bincount(values, minlength=5)
            for score, count in enumerate(counts):
                rows.append({"attribute": attribute, "stage": stage, "score": score, "count": int(count),
                             "share": count / counts.sum()})
    return pd.DataFrame(rows)


def helpfulness_correlations(aggregated: pd.DataFrame, *, seed: int, n_resamples: int) -> pd.DataFrame:
    """Pearson r of each released attribute with helpfulness over kept samples, with a cluster-bootstrap CI over
    **prompts** (the two responses of a prompt share it; :func:`helmlite.stats.cluster_bootstrap_statistic`);
    ``n`` counts prompts."""
    kept = aggregated[~aggregated["removed"]]
    rows = []
    for attribute in ATTRIBUTES[1:]:
        est = stats.interval_for((kept[attribute].to_numpy(float), kept["helpfulness"].to_numpy(float)),
                                 statistic=stats.pearson_r, clusters=kept["prompt_id"].to_numpy(),
                                 seed=rng(seed, "correlation", attribute), n_resamples=n_resamples)
        rows.append({"attribute": attribute, "pearson_r": est.estimate, "ci_low": est.ci_low, "ci_high": est.ci_high,
                     "n": est.n})
    return pd.DataFrame(rows)


def quadratic_kappa(a: np.ndarray, b: np.ndarray, axis: int = -1) -> np.ndarray:
    """Cohen's κ with quadratic weights, vectorised: 1 − E[(a−b)²] / (var a + var b + (ā − b̄)²).

    With weights (i−j)², the expected disagreement under independent marginals is
    E[(a−b')²] = var(a) + var(b) + (mean a − mean b)² (population variances) on the 0–4 rating scale,
    so this equals ``sklearn.metrics.cohen_kappa_score(a, b, weights="quadratic", labels=range(5))``
    (Cohen 1968). Without ``labels`` sklearn weights by the index among the labels *present*, which
    differs from the rating distance when a score is unused (e.g. ratings {0, 2, 4}).
    """
    observed = np.mean((a - b) ** 2, axis=axis)
    expected = np.var(a, axis=axis) + np.var(b, axis=axis) + (np.mean(a, axis=axis) - np.mean(b, axis=axis)) ** 2
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(expected > 0, 1 - observed / np.where(expected > 0, expected, 1), np.nan)


def mean_pairwise_kappa(r0, r1, r2, axis=-1):
    """Quadratic-weighted κ averaged over the three pairs of three raters' columns."""
    return (quadratic_kappa(r0, r1, axis) + quadratic_kappa(r0, r2, axis) + quadratic_kappa(r1, r2, axis)) / 3


def _ordinal_alpha(*raters, axis=-1):
    """Krippendorff's α (ordinal) per resample, via the ``krippendorff`` package (NaN = missing)."""
    import krippendorff

    stacked = np.stack(raters, axis=-2)  # (..., raters, units)
    flat = stacked.reshape(-1, *stacked.shape[-2:])
    values = [krippendorff.alpha(reliability_data=m, level_of_measurement="ordinal", value_domain=list(range(5)))
              for m in flat]
    return np.asarray(values).reshape(stacked.shape[:-2]) if stacked.ndim > 2 else float(values[0])


def agreement(annotations: Annotations, aggregated: pd.DataFrame, *, seed: int, n_resamples: int,
              n_resamples_alpha: int = 300) -> pd.DataFrame:
    """Inter-annotator agreement before vs after keeping the most agreeing three, with bootstrap CIs.

    * quadratic-weighted Cohen's κ averaged over the three slot pairs (no annotator ids are
      released, so "annotator" means list position): *initial three* = slots 0–2, *most agreeing
      three* = the retained triple; over samples aggregated by the top-3 rule.
    * Krippendorff's α (ordinal) over *all* annotations (every slot, missing = NaN) vs the retained
      triple. α's resamples run the package once each, so it uses fewer resamples.

    Intervals: the percentile interval of the cluster bootstrap over **prompts** (the two responses of a
    prompt share it; :func:`helmlite.stats.cluster_bootstrap_statistic`); ``n`` counts prompts.
    """
    top3 = aggregated["rule"].to_numpy() == "top3"
    prompts = aggregated["prompt_id"].to_numpy()
    ratings = annotations.ratings[top3]
    slots = np.array([list(map(int, s.split())) for s in aggregated.loc[top3, "slots"]])
    retained = np.take_along_axis(ratings, slots[:, :, None], axis=1)
    rows = []
    for j, attribute in enumerate(ATTRIBUTES):
        kappa, alpha = "quadratic-weighted kappa", "Krippendorff alpha (ordinal)"
        cases = [
            (kappa, "initial three", tuple(ratings[:, k, j] for k in range(3)), prompts[top3], n_resamples),
            (kappa, "most agreeing three", tuple(retained[:, k, j] for k in range(3)), prompts[top3], n_resamples),
            (alpha, "all annotations", tuple(annotations.ratings[:, k, j] for k in range(5)), prompts, n_resamples_alpha),
            (alpha, "most agreeing three", tuple(retained[:, k, j] for k in range(3)), prompts[top3], n_resamples_alpha),
        ]
        for measure, stage, data, clusters, resamples in cases:
            statistic = mean_pairwise_kappa if measure == kappa else _ordinal_alpha
            est = stats.interval_for(data, statistic=statistic, clusters=clusters, n_resamples=resamples,
                                     seed=rng(seed, "agreement", attribute, measure, stage))
            rows.append({"attribute": attribute, "measure": measure, "stage": stage, "estimate": est.estimate,
                         "ci_low": est.ci_low, "ci_high": est.ci_high, "n": est.n})
    return pd.DataFrame(rows)


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
    from dataclasses import replace

    from .simulator import simulate

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


# --- hand-derived examples with four and five annotators ---------------------------------------------

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


# --- reproduction check --------------------------------------------------------------------------


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
    rows = [row(f"card_example:{r.attribute}", r.published, r.ours, verdict(r.ours, r.published, 0), note="exact integer")
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
                    "by construction" if simulated else verdict(mean.estimate, card_mean, 0, mean.ci_low, mean.ci_high),
                    mean.ci_low, mean.ci_high,
                    note=(f"simulated: fitted to it (tolerance ±{tolerance}), {'within' if inside else 'outside'}" if simulated
                          else "the published mean inside our interval" if not mean.excludes(card_mean) else "")))
    share, tolerance = PUBLISHED["share_not_released"][:2]
    removed = stats.interval_for(aggregated["removed"].to_numpy(dtype=float), clusters=aggregated["prompt_id"].to_numpy(),
                                 seed=rng(seed, "share-removed"), n_resamples=n_resamples)
    inside = abs(removed.estimate - share) <= tolerance
    rows.append(row("row_counts:share_not_released", share, removed.estimate,
                    "by construction" if simulated else verdict(removed.estimate, share, tolerance),
                    removed.ci_low, removed.ci_high,
                    note=(f"simulated: fitted to it (tolerance ±{tolerance}), {'within' if inside else 'outside'}" if simulated
                          else f"tolerance ±{tolerance}")))
    kept = int((~aggregated["removed"]).sum())
    rows.append(row("card:train_samples_kept", CARD_TRAIN_KEPT, kept,
                    "not comparable" if simulated else verdict(kept, CARD_TRAIN_KEPT, 0),
                    note=("simulated sample count" if simulated else "" if kept == CARD_TRAIN_KEPT else
                          "the disagreements file spans train+validation and the card's count is after every filter")))
    return table(rows)


def empty_error_table() -> pd.DataFrame:
    """The columns of :func:`error_against_truth`, no rows (real data has no latent truth)."""
    return pd.DataFrame(columns=["attribute", "mae_most_agreeing_three", "mae_naive_mean", "difference", "ci_low",
                                 "ci_high", "p_value", "n"])
