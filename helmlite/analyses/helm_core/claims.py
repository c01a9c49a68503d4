"""Notebook 01's claims, stated once in the claims schema (:mod:`helmlite.claims`).

Live runs (the embedded models): the instruction-tuned model differs from the base model per multiple-choice
scenario (paired, exact McNemar on 0/1 metrics). In every profile, generation and ranking scenarios (NQ, BOLD,
``nq_ranking``) stay in the model-difference table and out of the claims and their Holm family: notebook 01's headline
claims are the multiple-choice ones, which the configs size; HELM's robustness perturbation, and each of its fairness
perturbations a config runs (dialect, gender, race), lowers accuracy (paired on the same instances; one claim per model
and perturbation on its perturbed multiple-choice runs pooled, per scenario when it has one such run); the model is miscalibrated beyond what a perfectly calibrated model shows at the same n — the test of perfect calibration by its ECE-10 (Monte-Carlo p, doubled: two-sided) on the
model's multiple-choice runs pooled (one claim per model; per scenario when it has one such run), with the
calibration error θ = mean |P(correct | c) − c| and the two-sided interval dual to that test, so interval
and verdict cannot disagree (:func:`helmlite.metrics.calibration.calibration_error_test`).

Published leaderboard (Liang et al. 2022, §8.1): accuracy correlates strongly with robustness and with
fairness (Fig. 24), weakly with toxicity and bias; text-davinci-002 wins more than 90% of head-to-head
accuracy comparisons among the paper's models. Correlation claims use the mean over scenarios of the
per-scenario Pearson r across models, with a bootstrap that resamples models (all scenarios together),
so an interval reflects which models happen to be on the leaderboard. "Strong" is read as r ≥ 0.7 and
"weak" as |r| < 0.3 (conventional thresholds; the paper gives none).
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from ... import stats
from ...adaptation import MULTIPLE_CHOICE_METHODS
from ...claims import Claim, observed_discordance
from ...perturbations import PERTURBATIONS
from ...seeds import rng
from .live import PERTURBED_POOLED, POOLED
from .published import RELATED
from ...leaderboards import RankingView

STRONG, WEAK = 0.7, 0.3


def live_claims(model_differences: pd.DataFrame, perturbation_deltas: pd.DataFrame,
                calibration: pd.DataFrame) -> list[Claim]:
    """Claims on the live runs, from the tables of :mod:`helmlite.analyses.helm_core.live`."""
    claims = []
    for row in model_differences[model_differences["method"].isin(MULTIPLE_CHOICE_METHODS)].itertuples():
        claims.append(Claim(f"The two models differ on {row.scenario} (instruct vs base)", f"live:model_difference:{row.scenario}",
                            row.difference, row.ci_low, row.ci_high, 0.0, int(row.n), "two-sided", p_value=row.p_value,
                            scale="paired-proportion" if "mcnemar" in row.test else "difference",
                            discordance=observed_discordance(row.discordance, int(row.n))))
    for name, perturbation in PERTURBATIONS.items():  # robustness, then the fairness perturbations (dialect, ...)
        deltas = perturbation_deltas[perturbation_deltas["perturbation"] == name]
        pooled_deltas = deltas["scenario"].str.startswith(PERTURBED_POOLED)
        # a model with a pooled row gets that one claim (its per-scenario rows stay in the deltas table)
        for row in deltas[pooled_deltas | ~deltas["model"].isin(deltas.loc[pooled_deltas, "model"])].itertuples():
            label = "robustness" if name == "robustness" else f"{name} ({perturbation.kind})"
            claims.append(Claim(f"HELM's {label} perturbation lowers {row.model}'s accuracy on {row.scenario}",
                                f"live:{name}_delta:{row.model}:{row.scenario}", row.delta, row.ci_low, row.ci_high, 0.0,
                                int(row.n), "less", p_value=row.p_value,
                                scale="paired-proportion" if "mcnemar" in row.test else "difference",
                                discordance=observed_discordance(row.discordance, int(row.n))))
    pooled = calibration["scenario"].str.startswith(POOLED)
    for row in calibration[pooled | ~calibration["model"].isin(calibration.loc[pooled, "model"])].itertuples():
        # the test of perfect calibration (ECE against calibrated simulations) and the interval dual to it; a model
        # with a pooled row gets that one claim (its per-scenario rows stay in the calibration table)
        claims.append(Claim(f"{row.model} is miscalibrated on {row.scenario} beyond small-sample bias",
                            f"live:calibration_error:{row.model}:{row.scenario}", row.calibration_error, row.ci_low,
                            row.ci_high, 0.0, int(row.n), "greater", p_value=row.p_two_sided, mde=row.mde,
                            p_floor=row.p_floor))
    return claims


def _masked_mean_pearson(*columns, axis=-1):
    """Mean over scenarios of Pearson r between paired columns (accuracy_k, other_k), each over the models
    present in both (NaN = missing), vectorised over resamples."""
    k = len(columns) // 2
    out = []
    for x, y in zip(columns[:k], columns[k:]):
        mask = np.isfinite(x) & np.isfinite(y)
        count = mask.sum(axis=axis, keepdims=True)
        xm = np.where(mask, x, 0.0).sum(axis=axis, keepdims=True) / np.maximum(count, 1)
        ym = np.where(mask, y, 0.0).sum(axis=axis, keepdims=True) / np.maximum(count, 1)
        dx, dy = np.where(mask, x - xm, 0.0), np.where(mask, y - ym, 0.0)
        denominator = np.sqrt((dx**2).sum(axis=axis) * (dy**2).sum(axis=axis))
        with np.errstate(invalid="ignore", divide="ignore"):
            out.append(np.where(denominator > 0, (dx * dy).sum(axis=axis) / denominator, np.nan))
    return np.nanmean(np.stack(out), axis=0)


def relationship(frame: pd.DataFrame, group: str, *, seed: int, n_resamples: int, models=None) -> stats.Estimate:
    """Mean over scenarios of Pearson r(accuracy, ``group``'s metric) across models, with a bootstrap over models
    (the kit's interval policy: a smooth statistic, BCa from 20 models; cells HELM leaves out of its rankings are
    missing here too)."""
    accuracy = RankingView(frame, "Accuracy", None, models).displayed
    other = RankingView(frame, group, None, models).displayed.reindex(accuracy.index)
    pairs = []
    for scenario, metric in accuracy.columns:
        column = next(((scenario, m) for m in RELATED[group] if (scenario, m) in other.columns), None)
        if column is not None and other[column].notna().sum() >= 5:
            pairs.append((accuracy[(scenario, metric)].to_numpy(float), other[column].to_numpy(float)))
    columns = tuple(x for x, _ in pairs) + tuple(y for _, y in pairs)
    return stats.interval_for(columns, statistic=_masked_mean_pearson, n_resamples=n_resamples,
                              seed=rng(seed, "relationship-claim", group))


def published_claims(frame: pd.DataFrame, accuracy_intervals_paper: pd.DataFrame, *, seed: int,
                     n_resamples: int) -> list[Claim]:
    """The paper's §8.1 claims on the published v0.4.0 leaderboard."""
    claims = []
    for group, figure in (("Robustness", "Fig. 24"), ("Fairness", "Fig. 24")):
        est = relationship(frame, group, seed=seed, n_resamples=n_resamples)
        claims.append(Claim(f"Accuracy and {group.lower()} are strongly correlated across models ({figure})",
                            f"published:mean_r:Accuracy~{group}", est.estimate, est.ci_low, est.ci_high, 0.0, est.n,
                            "greater", claimed_effect=STRONG, scale="correlation"))
    for group in ("Toxicity", "Bias"):
        est = relationship(frame, group, seed=seed, n_resamples=n_resamples)
        # |r| with the interval of r folded at 0 (conservative when the interval straddles 0)
        low, high = sorted((abs(est.ci_low), abs(est.ci_high)))
        low = 0.0 if est.ci_low <= 0 <= est.ci_high else low
        claims.append(Claim(f"{group} is only weakly related to accuracy (|mean r| < {WEAK})",
                            f"published:abs_mean_r:Accuracy~{group}", abs(est.estimate), low, high, WEAK, est.n, "less",
                            scale="correlation"))
    davinci = accuracy_intervals_paper.set_index("model").loc["text-davinci-002"]
    claims.append(Claim("text-davinci-002 wins more than 90% of accuracy head-to-head comparisons among the paper's models",
                        "published:accuracy_win_rate:text-davinci-002", davinci["win_rate"], davinci["ci_low"],
                        davinci["ci_high"], 0.9, int(davinci["scenarios"]), "greater"))
    return claims
