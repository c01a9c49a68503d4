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

import functools

import numpy as np
import pandas as pd

from ... import stats
from ...evaluation import MULTIPLE_CHOICE_METHODS
from ...claims import Claim, Declared, observed_discordance
from ...evaluation import PERTURBATIONS
from ...seeds import rng
from .live import PERTURBED_POOLED, POOLED
from .published import RELATED
from ...leaderboards import RankingView

STRONG, WEAK = 0.7, 0.3


#: The families of notebook 01's claims: the live runs' claims, and the published leaderboard's (other data, other
#: questions; each corrected on its own, :mod:`helmlite.claims.families`).
LIVE, PUBLISHED = "live runs", "published leaderboard"


def model_difference_name(a: str, b: str, scenario: str) -> str:
    """The claim "the two models differ on ``scenario``" (accuracy of ``a`` − ``b``, paired)."""
    return f"The two models differ on {scenario} ({a} − {b}, paired)"


def perturbation_name(name: str, model: str, scenario: str) -> str:
    """The claim "HELM's perturbation ``name`` lowers ``model``'s accuracy on ``scenario``" (a scenario label, or the
    pooled label of :func:`pooled_label`)."""
    label = "robustness" if name == "robustness" else f"{name} ({PERTURBATIONS[name].kind})"
    return f"HELM's {label} perturbation lowers {model}'s accuracy on {scenario}"


def calibration_name(model: str, scenario: str) -> str:
    """The claim "``model`` is miscalibrated on ``scenario``" (its ECE test)."""
    return f"{model} is miscalibrated on {scenario} beyond small-sample bias"


def pooled_label(prefix: str, scenarios) -> str:
    """The scenario label of a model's multiple-choice runs pooled (``prefix``: :data:`POOLED` or
    :data:`PERTURBED_POOLED`), naming the scenarios."""
    return f"{prefix} ({', '.join(sorted(scenarios))})"


def _multiple_choice(frame: pd.DataFrame) -> pd.DataFrame:
    """The rows of the first selection seed's multiple-choice runs, and the pooled rows (headline claims only: the
    generation scenarios serve the tables, not the claims; a model's other seeds repeat its question)."""
    first = frame["seed"].min() if "seed" in frame and len(frame) else None
    keep = frame["method"].isin(MULTIPLE_CHOICE_METHODS) | (frame["method"] == "pooled")
    return frame[keep & ((frame["seed"] == first) if first is not None else True)]


def _one_claim_per_model(frame: pd.DataFrame, prefix: str) -> pd.DataFrame:
    """A model with a pooled row gets that one claim (its per-scenario rows stay in the table)."""
    pooled = frame["scenario"].str.startswith(prefix)
    return frame[pooled | ~frame["model"].isin(frame.loc[pooled, "model"])]


def live_claims(model_differences: pd.DataFrame, perturbation_deltas: pd.DataFrame, calibration: pd.DataFrame, *,
                pair: tuple[str, str], calibration_mde) -> list[Claim]:
    """Claims on the live runs, from the tables of :mod:`helmlite.analyses.helm_core.live`, named as
    :func:`declare_claims` declares them. ``pair``: the models (a, b) of the model-difference table (a − b).
    ``calibration_mde``: (model, scenario, α) → the ECE test's MDE at α
    (:func:`helmlite.analyses.helm_core.calibration_mde`), so that its MDE is at its family's level."""
    claims = []
    a, b = pair
    for row in _multiple_choice(model_differences).itertuples():
        claims.append(Claim(model_difference_name(a, b, row.scenario), f"live:model_difference:{row.scenario}",
                            row.difference, row.ci_low, row.ci_high, 0.0, int(row.n), "two-sided", p_value=row.p_value,
                            scale="paired-proportion" if "mcnemar" in row.test else "difference",
                            discordance=observed_discordance(row.discordance, int(row.n)), family=LIVE))
    for name in PERTURBATIONS:  # robustness, then the fairness perturbations (dialect, ...)
        deltas = _multiple_choice(perturbation_deltas[perturbation_deltas["perturbation"] == name])
        for row in _one_claim_per_model(deltas, PERTURBED_POOLED).itertuples():
            claims.append(Claim(perturbation_name(name, row.model, row.scenario),
                                f"live:{name}_delta:{row.model}:{row.scenario}", row.delta, row.ci_low, row.ci_high, 0.0,
                                int(row.n), "less", p_value=row.p_value,
                                scale="paired-proportion" if "mcnemar" in row.test else "difference",
                                discordance=observed_discordance(row.discordance, int(row.n)), family=LIVE))
    for row in _one_claim_per_model(_multiple_choice(calibration), POOLED).itertuples():
        # the test of perfect calibration (ECE against calibrated simulations) and the interval dual to it
        claims.append(Claim(calibration_name(row.model, row.scenario),
                            f"live:calibration_error:{row.model}:{row.scenario}", row.calibration_error, row.ci_low,
                            row.ci_high, 0.0, int(row.n), "greater", p_value=row.p_two_sided,
                            mde=functools.partial(calibration_mde, row.model, row.scenario),
                            p_floor=row.p_floor, family=LIVE))
    return claims


def declare_claims(runs: list[dict]) -> list[Declared]:
    """Notebook 01's claims for the runs a config will make (the planner's run rows: ``run_id``, ``model``,
    ``scenario_label``, ``method``, ``instances``, ``choices``, ``perturbations``, ``seed``), the rules of
    :func:`live_claims` and :func:`published_claims`: per multiple-choice scenario the two models' difference (exactly
    two models); per model and perturbation its perturbed multiple-choice runs pooled (one run: that scenario); per
    model its calibration on its multiple-choice runs pooled (one run: that scenario)."""
    first = min((r.get("seed", 0) for r in runs), default=0)
    core = [r for r in runs if r["method"] in MULTIPLE_CHOICE_METHODS and r.get("seed", 0) == first]
    models = sorted({r["model"] for r in runs})
    out = []

    def paired(name, what, members, pairs, pooled=False):
        n = sum(r["instances"] for r in members) if pooled else min(r["instances"] for r in members)
        out.append(Declared(name, "helm_core", LIVE, what, "items", "exact McNemar (paired)", "paired", n,
                            tuple(r["run_id"] for r in members), pooled, pilot=("paired_base_discordance", pairs)))

    if len(models) == 2:
        a, b = models[1], models[0]  # as notebook 01 pairs them
        for label in sorted({r["scenario_label"] for r in core}):
            members = [next((r for r in core if r["model"] == m and r["scenario_label"] == label), None) for m in (a, b)]
            if None not in members:
                paired(model_difference_name(a, b, label), f"accuracy of {a} − {b} on {label}", members,
                       ((members[0]["run_id"], None, members[1]["run_id"], None),))
    for model in sorted({r["model"] for r in core}):
        own = sorted((r for r in core if r["model"] == model), key=lambda r: r["scenario_label"])
        for name in PERTURBATIONS:
            perturbed = [r for r in own if name in r["perturbations"]]
            if not perturbed:
                continue
            label = pooled_label(PERTURBED_POOLED, [r["scenario_label"] for r in perturbed]) if len(perturbed) > 1 \
                else perturbed[0]["scenario_label"]
            paired(perturbation_name(name, model, label), f"{model}'s accuracy under {name} − unperturbed on {label}",
                   perturbed, tuple((r["run_id"], None, r["run_id"], name) for r in perturbed), pooled=len(perturbed) > 1)
        label = pooled_label(POOLED, [r["scenario_label"] for r in own]) if len(own) > 1 else own[0]["scenario_label"]
        out.append(Declared(calibration_name(model, label), "helm_core", LIVE, f"{model}'s calibration error on {label}",
                            "items", "ECE test of perfect calibration (simulated, two-sided)", "calibration",
                            sum(r["instances"] for r in own), tuple(r["run_id"] for r in own), len(own) > 1,
                            pilot=("confidences", [r["run_id"] for r in own]),
                            detail=(("parts", tuple((r["instances"], r["choices"]) for r in own)),)))
    return out + published_declarations()


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


STRONG_GROUPS, WEAK_GROUPS = ("Robustness", "Fairness"), ("Toxicity", "Bias")
WIN_RATE_NAME = "text-davinci-002 wins more than 90% of accuracy head-to-head comparisons among the paper's models"


def strong_name(group: str) -> str:
    return f"Accuracy and {group.lower()} are strongly correlated across models (Fig. 24)"


def weak_name(group: str) -> str:
    return f"{group} is only weakly related to accuracy (|mean r| < {WEAK})"


def published_declarations() -> list[Declared]:
    """The §8.1 claims on the published leaderboard: read from its table (nothing to size)."""
    def declared(name, what, hypotheses=1):
        return Declared(name, "helm_core", PUBLISHED, what, "models", "bootstrap over models", "published",
                        hypotheses=hypotheses)

    return ([declared(strong_name(g), f"mean r(accuracy, {g.lower()})", 2) for g in STRONG_GROUPS]
            + [declared(weak_name(g), f"|mean r(accuracy, {g.lower()})|") for g in WEAK_GROUPS]
            + [declared(WIN_RATE_NAME, "text-davinci-002's accuracy win rate")])


def published_claims(frame: pd.DataFrame, accuracy_intervals_paper: pd.DataFrame, *, seed: int,
                     n_resamples: int) -> list[Claim]:
    """The paper's §8.1 claims on the published v0.4.0 leaderboard."""
    claims = []
    for group in STRONG_GROUPS:
        est = relationship(frame, group, seed=seed, n_resamples=n_resamples)
        claims.append(Claim(strong_name(group), f"published:mean_r:Accuracy~{group}", est.estimate, est.ci_low,
                            est.ci_high, 0.0, est.n, "greater", claimed_effect=STRONG, scale="correlation",
                            family=PUBLISHED))
    for group in WEAK_GROUPS:
        est = relationship(frame, group, seed=seed, n_resamples=n_resamples)
        # |r| with the interval of r folded at 0 (conservative when the interval straddles 0)
        low, high = sorted((abs(est.ci_low), abs(est.ci_high)))
        low = 0.0 if est.ci_low <= 0 <= est.ci_high else low
        claims.append(Claim(weak_name(group), f"published:abs_mean_r:Accuracy~{group}", abs(est.estimate), low, high,
                            WEAK, est.n, "less", scale="correlation", family=PUBLISHED))
    davinci = accuracy_intervals_paper.set_index("model").loc["text-davinci-002"]
    claims.append(Claim(WIN_RATE_NAME, "published:accuracy_win_rate:text-davinci-002", davinci["win_rate"],
                        davinci["ci_low"], davinci["ci_high"], 0.9, int(davinci["scenarios"]), "greater",
                        family=PUBLISHED))
    return claims
