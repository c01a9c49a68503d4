"""What the released labels and their annotators show (notebook 05): how many annotators each sample has, what
the spread filter removes, the rating distributions before and after aggregation, attributes' correlation with
helpfulness and inter-annotator agreement (Wang et al. 2024, arXiv 2406.08673, §2 and the dataset card). Every
interval that a prompt's two responses share resamples prompts."""
from __future__ import annotations

import numpy as np
import pandas as pd

from ... import stats
from ...seeds import rng
from .annotations import ATTRIBUTES, Annotations


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
