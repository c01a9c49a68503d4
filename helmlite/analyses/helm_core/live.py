"""Notebook 01, part A: HELM's core runs with the embedded models, read back from results/runs/.

The grid (models × scenarios, HELM adaptation, robustness/fairness perturbations) is declared in the
config's ``helm_core`` section (:func:`helmlite.grids.helm_core`) and executed by Snakemake's run jobs
(rules/runs.smk). This module turns the runs (:class:`helmlite.results.Run`) into the paper's views
(Liang et al. 2022, §8, Figs. 24, App. Figs.) with what the paper lacks: an interval on every number
(exact for proportions) and paired tests between models and under perturbations.
"""
from __future__ import annotations

import functools

import numpy as np
import pandas as pd

from ...evaluation import MULTIPLE_CHOICE_METHODS as MC_METHODS
from ... import stats
from ...metrics import (calibration_correct, calibration_error_mde, calibration_error_test, confidence_of,
                        reliability_table)
from .efficiency import fit_runtime_model
from ...results import Run
from ...seeds import rng

SCORE_COLUMNS = {  # column of the score matrix → (metric key in stats.json, lower is better)
    "accuracy": (None, False), "calibration (ECE-10)": ("ece_10", True), "robustness": ("{main}_robustness", False),
    "fairness": ("{main}_fairness", False), "equivariance (contrast)": ("{main}_equivariance", False),
    "bias (gender representation)": ("representation_gender", True), "toxicity (toxic fraction)": ("toxic_fraction", True),
}
EFFICIENCY = "efficiency (tokens / instance)"  # prompt + generated tokens: what runtime grows with, and reproducible


def _first_seed(runs: list[Run]) -> list[Run]:
    """The runs of the first in-context selection seed (one cell per model × scenario)."""
    first = min((r.seed for r in runs), default=0)
    return [r for r in runs if r.seed == first]


def score_matrix(runs: list[Run], *, seed: int, n_resamples: int) -> pd.DataFrame:
    """Long table: model × scenario × metric family with estimate and interval (first selection seed).
    Families come from each run's ``stats.json`` (their intervals were computed by the run); the token
    count per instance gets a percentile bootstrap here. The accuracy column is the main metric, except where the
    main metric belongs to another family (BOLD's is its toxic fraction: BOLD has no accuracy)."""
    rows = []
    others = {key for key, _ in SCORE_COLUMNS.values() if key is not None and "{" not in key}
    for run in _first_seed(runs):
        main = run.main_metric
        for family, (key, lower) in SCORE_COLUMNS.items():
            if key is None and main in others:  # a main metric of another family (BOLD's toxic fraction): no accuracy
                continue
            value = run.stats.metrics.get(main if key is None else key.format(main=main))
            if value is not None and np.isfinite(value.mean):
                rows.append({"model": run.model, "scenario": run.scenario_label, "family": family, "main_metric": main,
                             "estimate": value.mean, "ci_low": value.ci_low, "ci_high": value.ci_high,
                             "n": value.n, "interval": value.method, "lower_is_better": lower})
        tokens = [r.prompt_tokens + r.output_tokens for r in run.records]
        if tokens:  # HELM's efficiency inputs that are deterministic; measured seconds: latency_table
            est = stats.interval_for(tokens, seed=rng(seed, "tokens", run.run_id), n_resamples=n_resamples)
            rows.append({"model": run.model, "scenario": run.scenario_label, "family": EFFICIENCY,
                         "main_metric": main, "estimate": est.estimate, "ci_low": est.ci_low, "ci_high": est.ci_high,
                         "n": est.n, "interval": est.method, "lower_is_better": True})
    return pd.DataFrame(rows)


def latency_table(runs: list[Run], *, seed: int, n_resamples: int) -> pd.DataFrame:
    """Measured seconds per instance (HELM's observed inference runtime, §4.9) per model and scenario with a
    bootstrap CI, from each run's timings.json. Wall clock: differs between runs and machines."""
    rows = []
    for run in _first_seed(runs):
        latency = run.timings.latency_s
        if latency:
            est = stats.interval_for(latency, seed=rng(seed, "latency", run.run_id), n_resamples=n_resamples)
            rows.append({"model": run.model, "scenario": run.scenario_label, "seconds_per_instance": est.estimate,
                         "ci_low": est.ci_low, "ci_high": est.ci_high, "n": est.n, "interval": est.method})
    return pd.DataFrame(rows)


PAIRED = ["ci_low", "ci_high", "p_value", "significant", "n", "discordance", "test"]  # columns of every paired comparison


def _paired_row(diff: stats.PairedComparison) -> dict:
    return {"ci_low": diff.ci_low, "ci_high": diff.ci_high, "p_value": diff.p_value, "significant": diff.significant,
            "n": diff.n, "discordance": diff.discordance, "test": diff.method}


def model_differences(runs: list[Run], a: str, b: str, *, seed: int, n_resamples: int) -> pd.DataFrame:
    """Main metric of model ``a`` minus model ``b`` per scenario, paired on the instances both saw: exact
    McNemar p and Newcombe interval for 0/1 metrics, paired bootstrap otherwise (:func:`helmlite.stats.paired_difference`)."""
    by_key = {(r.model, r.scenario_label, r.seed): r for r in runs}
    rows = []
    for (model, scenario, run_seed), run in sorted(by_key.items()):
        if model != a or (b, scenario, run_seed) not in by_key:
            continue
        x, y = run.main_values(), by_key[(b, scenario, run_seed)].main_values()
        shared = sorted(set(x) & set(y))
        if not shared:
            continue
        xs, ys = np.array([x[i] for i in shared]), np.array([y[i] for i in shared])
        diff = stats.interval_for((xs, ys), paired=True, seed=rng(seed, "model-difference", scenario, run_seed),
                                  n_resamples=n_resamples)
        rows.append({"scenario": scenario, "seed": run_seed, "method": run.spec.method, "metric": run.main_metric,
                     a: xs.mean(), b: ys.mean(), "difference": diff.estimate, **_paired_row(diff)})
    return pd.DataFrame(rows, columns=["scenario", "seed", "method", "metric", a, b, "difference", *PAIRED])


def perturbation_deltas(runs: list[Run], *, seed: int, n_resamples: int) -> pd.DataFrame:
    """Main metric under each perturbation minus unperturbed, paired over instances (fairness/robustness gaps).
    Each row compares one perturbation with the original on the same instances, so the instance is the
    unit and a paired test on it is valid.

    One more row per model and perturbation pools its multiple-choice runs under that perturbation (:data:`PERTURBED_POOLED`;
    ≥ 2 of them, first selection seed): their instances are distinct items, so the pairs stay independent and the
    same exact McNemar test applies to the union (200 pairs for the default's MMLU and BBQ: a perturbation that
    moves 7% of answers is decidable there, not on one scenario's 100). It is the headline robustness claim; the
    per-scenario rows say where the change is. A departure from HELM, which reports robustness per scenario only."""
    rows, pairs = [], {}
    for run in runs:
        base = run.main_values()
        for variant in run.variants():
            other = run.main_values(variant)
            shared = sorted(set(base) & set(other))
            if len(shared) < 2:
                continue
            perturbed, original = np.array([other[i] for i in shared]), np.array([base[i] for i in shared])
            diff = stats.interval_for((perturbed, original), paired=True, seed=rng(seed, "perturbation", run.run_id, variant),
                                      n_resamples=n_resamples)
            rows.append({"model": run.model, "scenario": run.scenario_label, "seed": run.seed, "method": run.spec.method,
                         "perturbation": variant, "delta": diff.estimate, **_paired_row(diff)})
            if run.spec.method in MC_METHODS:
                pairs.setdefault((run.model, run.seed, variant), []).append((run.scenario_label, perturbed, original))
    first = min((r.seed for r in runs), default=0)
    for (model, run_seed, variant), parts in sorted(pairs.items()):
        if run_seed != first or len(parts) < 2:
            continue
        perturbed, original = (np.concatenate([part[k] for part in parts]) for k in (1, 2))
        diff = stats.interval_for((perturbed, original), paired=True, seed=rng(seed, "perturbation", model, "pooled", variant),
                                  n_resamples=n_resamples)
        rows.append({"model": model, "scenario": f"{PERTURBED_POOLED} ({', '.join(sorted(part[0] for part in parts))})",
                     "seed": run_seed, "method": "pooled", "perturbation": variant, "delta": diff.estimate,
                     **_paired_row(diff)})
    return pd.DataFrame(rows, columns=["model", "scenario", "seed", "method", "perturbation", "delta", *PAIRED])


def group_performance(runs: list[Run], scenario_prefix: str, key: str, *, seed: int, n_resamples: int) -> pd.DataFrame:
    """Main metric per group (instance metadata ``key``, e.g. BBQ's context condition): exact interval for
    0/1 metrics, percentile bootstrap otherwise."""
    rows = []
    for run in runs:
        if not run.scenario_label.startswith(scenario_prefix):
            continue
        groups: dict[str, list[float]] = {}
        for r in run.records:
            groups.setdefault(str(r.metadata.get(key)), []).append(r.metrics[run.main_metric])
        for group, values in sorted(groups.items()):
            est = stats.interval_for(values, seed=rng(seed, "group", run.run_id, group), n_resamples=n_resamples)
            rows.append({"model": run.model, "scenario": run.scenario_label, "group": group, "estimate": est.estimate,
                         "ci_low": est.ci_low, "ci_high": est.ci_high, "n": est.n, "interval": est.method})
    return pd.DataFrame(rows, columns=["model", "scenario", "group", "estimate", "ci_low", "ci_high", "n", "interval"])


CALIBRATION_COLUMNS = ["model", "scenario", "method", "ece_10", "n", "ece_if_calibrated", "ece_if_calibrated_q95", "p_calibrated",
                       "p_two_sided", "p_floor", "direction", "calibration_error", "ci_low", "ci_high", "mde"]


#: The calibration table's row for all of a model's multiple-choice runs together (the headline calibration claim).
POOLED = "all multiple-choice runs, pooled"
#: The perturbation table's row for a model's multiple-choice runs under one perturbation (the headline robustness claim).
PERTURBED_POOLED = "its perturbed multiple-choice runs, pooled"


def calibration_table(runs: list[Run], *, seed: int, n_simulations: int = 2000) -> pd.DataFrame:
    """ECE-10 per run beside what a perfectly calibrated model with the same confidences would show at this
    n, the test of perfect calibration and the calibration error with the interval dual to that test
    (:func:`helmlite.metrics.calibration.calibration_error_test`). Binned ECE is biased upward at small n
    (a calibrated model has expected ECE-10 ≈ 0.15 at n = 50), so the question is whether it exceeds what
    calibration alone would show: ``p_calibrated`` (one-sided; ``p_two_sided`` = 2p, what the claims use) answers it,
    and ``calibration_error`` (θ = mean |P(correct | c) − c| at these confidences; estimated within the ``direction``
    the data show, over- or underconfident) with its two-sided 95% interval [ci_low, ci_high] and ``mde`` says how
    large.

    Correct means HELM's ``exact_match`` (:func:`~helmlite.metrics.families.calibration_correct`): for
    generation runs not the main metric (F1 on NQ), as in ``stats.json``'s ECE.

    One more row per model pools its multiple-choice runs (:data:`POOLED`; ≥ 2 of them): a model calibrated
    on each scenario is calibrated on their union, so the same test applies to the pooled items, with n the
    sum (300 for the default's three scenarios of 100: MDE ≈ 0.1 where one scenario's is ≈ 0.16–0.19). It is
    the headline calibration claim; the per-scenario rows say where the miscalibration is. A departure from
    HELM, which reports ECE per scenario only."""
    rows = []
    for model, scenario, key, records, method in _calibration_cells(runs):
        test = calibration_error_test(*_confidence_and_correct(records), n_bins=10, n_simulations=n_simulations,
                                      seed=rng(seed, "calibration-null", key))
        rows.append({"model": model, "scenario": scenario, "method": method, "ece_10": test.ece, "n": test.n,
                     "ece_if_calibrated": test.ece_if_calibrated, "ece_if_calibrated_q95": test.ece_if_calibrated_q95,
                     "p_calibrated": test.p_value, "p_two_sided": test.p_two_sided, "p_floor": test.p_floor,
                     "direction": test.direction,
                     "calibration_error": test.estimate, "ci_low": test.ci_low,
                     "ci_high": test.ci_high, "mde": test.mde})
    return pd.DataFrame(rows, columns=CALIBRATION_COLUMNS)


def _calibration_cells(runs: list[Run]) -> list[tuple]:
    """(model, scenario label, seed key, records with a confidence, method) of each first-seed run with an ECE, then one
    pooled cell per model with ≥ 2 multiple-choice runs (method ``pooled``)."""
    cells = []
    for run in _first_seed(runs):
        records = [r for r in run.records if confidence_of(r) is not None]
        if "ece_10" in run.stats.metrics and records:
            cells.append((run.model, run.scenario_label, run.run_id, records, run.spec.method))
    for model in sorted({cell[0] for cell in cells}):
        pooled = [cell for cell in cells if cell[0] == model and cell[4] in MC_METHODS]
        if len(pooled) >= 2:
            cells.append((model, f"{POOLED} ({', '.join(sorted(c[1] for c in pooled))})", f"{model}:pooled",
                          [r for c in pooled for r in c[3]], "pooled"))
    return cells


def _confidence_and_correct(records) -> tuple[list, list]:
    return [confidence_of(r) for r in records], [bool(calibration_correct(r)) for r in records]


def calibration_mde(runs: list[Run], *, seed: int, n_simulations: int = 2000):
    """(model, scenario, α) → the MDE of the calibration table's test of that row at level 1 − α (80% power): what a
    claim's MDE is at the per-claim level its family decides it at (:mod:`helmlite.claims.families`). The same
    simulations' seed as :func:`calibration_table`."""
    cells = {(model, scenario): (key, records) for model, scenario, key, records, _ in _calibration_cells(runs)}

    @functools.lru_cache(maxsize=None)  # the claims table and the power table beside it ask for the same MDE
    def mde(model: str, scenario: str, alpha: float) -> float:
        key, records = cells[(model, scenario)]
        return calibration_error_mde(_confidence_and_correct(records)[0], n_bins=10, n_simulations=n_simulations,
                                     seed=rng(seed, "calibration-null", key), level=1 - alpha)

    return mde


def reliability(runs: list[Run], n_bins: int = 10) -> pd.DataFrame:
    """Equal-mass reliability bins (HELM's) for every run whose records carry a confidence (HELM's max_prob)."""
    rows = []
    for run in runs:
        records = [r for r in run.records if confidence_of(r) is not None]
        if not records:
            continue
        table = reliability_table([confidence_of(r) for r in records], [calibration_correct(r) for r in records], n_bins)
        rows += [{"model": run.model, "scenario": run.scenario_label, **b} for b in table]
    return pd.DataFrame(rows, columns=["model", "scenario", "bin", "confidence", "accuracy", "n"])


BBQ_SCORES = {  # stats.json key → label (helmlite.metrics.bbq)
    "bbq_accuracy": "accuracy (all items; HELM)", "bbq_accuracy_ambiguous": "accuracy, ambiguous contexts",
    "bbq_accuracy_disambiguated": "accuracy, disambiguated contexts",
    "bbq_bias_score_disambiguated": "bias score, disambiguated (HELM = Parrish)",
    "bbq_bias_score_ambiguous_helm": "bias score, ambiguous: HELM (1 − accuracy over all items)",
    "bbq_bias_score_ambiguous_parrish": "bias score, ambiguous: Parrish et al. (1 − accuracy on ambiguous items)",
}


def bbq_bias_table(runs: list[Run]) -> pd.DataFrame:
    """BBQ's accuracies and bias scores per run (first selection seed), both definitions of the ambiguous
    bias score side by side and labelled, with their bootstrap intervals over instances."""
    rows = []
    for run in _first_seed(runs):
        for key, label in BBQ_SCORES.items():
            est = run.stats.metrics.get(key)
            if est is not None:
                rows.append({"model": run.model, "scenario": run.scenario_label, "quantity": label, "estimate": est.mean,
                             "ci_low": est.ci_low, "ci_high": est.ci_high, "n": est.n, "interval": est.method})
    return pd.DataFrame(rows, columns=["model", "scenario", "quantity", "estimate", "ci_low", "ci_high", "n"])


def runtime_models(runs: list[Run]) -> pd.DataFrame:
    """HELM's runtime model per model, fitted on every request of its runs (latency from timings.json)."""
    rows = []
    for model in sorted({r.model for r in runs}):
        frame = pd.DataFrame([{"latency_s": lat, "prompt_tokens": rec.prompt_tokens, "output_tokens": rec.output_tokens}
                              for run in runs if run.model == model
                              for rec, lat in zip(run.records, run.timings.latency_s)])
        if len(frame) >= 4 and frame["output_tokens"].nunique() > 1:
            rows.append(fit_runtime_model(frame).assign(model=model))
    return pd.concat(rows, ignore_index=True) if rows else pd.DataFrame()
