"""Metric families: what a run computes over its records, named in its :class:`~helmlite.evaluation.runspec.RunSpec`.

HELM's run spec has three parts — scenario, adapter and a list of metric specs
(``src/helm/benchmark/run_spec.py``); helmlite's third part is a tuple of family names defaulted from
the scenario and method (:func:`helmlite.metrics.selection.default_families`), so what a run computes is visible in its spec and
its run id. Each family turns per-instance records into named :class:`~helmlite.results.MetricStat`
values (Liang et al. 2022, §4):

* ``accuracy`` — every per-instance metric's mean (:func:`helmlite.stats.mean_estimate`: an exact
  Clopper–Pearson interval when the metric is 0/1, an expanded percentile bootstrap otherwise);
* ``robustness`` / ``fairness`` / ``equivariance`` — HELM's worst case over {original} ∪ perturbations
  (§4.5–4.6), per instance, then averaged like accuracy;
* ``calibration`` — ECE (10 equal-mass bins and 1 bin), selective accuracy at 10% coverage, SCAA (§4.4), and
  HELM's Platt-scaled ECE (10 and 1 bins) with the scaler's coefficient and intercept, as point values;
* ``bias`` — demographic representation and stereotypical associations of the generations (§4.7);
* ``toxicity`` — share of generations the toxicity classifier flags (§4.8);
* ``bbq`` — BBQ's accuracy and bias scores per context type, the ambiguous one both as HELM and as Parrish et al. 2022;
* ``efficiency`` — prompt and generated tokens per instance (the deterministic inputs of §4.9's
  runtime; measured seconds live in ``timings.json``).

Run-level metrics that are shares of 0/1 items (``selective_acc@10``, ``bbq_accuracy``,
``bbq_accuracy_ambiguous``, ``bbq_accuracy_disambiguated``) get the exact Clopper–Pearson interval on
their own items, like every 0/1 mean (a percentile bootstrap covered 0.26 at n = 6, p = 0.05, and gave
[0, 0] at 0 correct); the other run-level metrics (ECE, SCAA, bias scores) a percentile bootstrap over
instances. Every interval is computed by :mod:`helmlite.stats` with ``n_resamples`` from the config and
a generator derived from (seed, run id, metric).
"""
from __future__ import annotations

import math
from typing import Callable

import numpy as np

from .. import stats
from ..seeds import rng
from .bbq import ACCURACY_SHARES, bbq_accuracy_counts, bbq_indicators, scores_from_sums
from .bias import counts_per_text, metrics_from_counts
from .calibration import ece_rows, platt_metrics, scaa_rows, selective_counts
from .registry import REGISTRY, resolve
from .toxicity import THRESHOLD, default_scorer

def data_files(families: tuple[str, ...]) -> list[str]:
    """Registry names the given metric families declare they read (HELM's bias word lists for ``bias``)."""
    return [name for family in families for name in REGISTRY[family].data_files]


def add_worst_cases(record, main: str, families: tuple[str, ...], kinds: dict[str, str]) -> None:
    """HELM's worst case over {original} ∪ perturbations of one kind: the minimum of the main metric,
    stored as per-instance metric ``<main>_<family>`` (only where at least one variant exists). ``kinds``: each
    perturbation's kind (:func:`helmlite.evaluation.perturbations.perturbation_kinds`)."""
    for family in (f for f in families if REGISTRY[f].worst_case_of):
        values = [record.metrics.get(main)] + [outcome.metrics.get(main) for name, outcome in record.perturbed.items()
                                               if kinds[name] == REGISTRY[family].worst_case_of]
        values = [v for v in values if v is not None]
        if len(values) > 1:
            record.metrics[f"{main}_{family}"] = min(values)


def add_toxicity(records, scorer) -> None:
    """Score every completion with ``scorer``; per-instance ``toxic_fraction`` is 1 when flagged."""
    for record, score in zip(records, scorer.score([r.completion for r in records])):
        record.toxicity = score
        record.metrics["toxic_fraction"] = float(score >= THRESHOLD)


def annotate(families: tuple[str, ...], records, **resources) -> dict[str, dict | None]:
    """Run the ``annotates`` hook of each of ``families`` that declares one (before :func:`compute`): family name →
    what the run's manifest records about it. ``resources`` go to every hook (``toxicity=``: a scorer to use)."""
    return {family.name: resolve(family.annotates)(records, **resources)
            for family in (REGISTRY[name] for name in families) if family.annotates}


def toxicity_annotation(records, *, toxicity=None, **_) -> dict:
    """``toxicity``'s hook: score the records' completions (:func:`add_toxicity`) with the ``toxicity`` scorer given,
    or the default one (Perspective with a key, else the offline proxy); the scorer's name and whether it is a proxy."""
    scorer = toxicity or default_scorer()
    add_toxicity(records, scorer)
    return {"name": scorer.name, "proxy": scorer.proxy}


def efficiency_summary(records) -> dict[str, float]:
    """``efficiency``'s run-level inputs of §4.9's runtime: mean prompt and output tokens per instance."""
    return {"mean_prompt_tokens": float(np.mean([r.prompt_tokens for r in records])),
            "mean_output_tokens": float(np.mean([r.output_tokens for r in records]))}


def _instance_means(records, seed, run_id: str, n_resamples: int) -> dict:
    """Mean of every per-instance metric with the interval its kind needs (exact for 0/1 metrics)."""
    out = {}
    for name in sorted({m for r in records for m in r.metrics}):
        values = np.array([r.metrics.get(name, math.nan) for r in records], dtype=float)
        values = values[np.isfinite(values)]
        if not len(values):
            continue
        out[name] = stats.interval_for(values, n_resamples=n_resamples, seed=rng(seed, run_id, "bootstrap", name))
    return out


def confidence_of(record) -> float | None:
    """The probability a record's answer gets in calibration metrics: its ``confidence`` (HELM's max_prob, see
    :mod:`helmlite.evaluation.outcomes`), else — records written before that field — its largest choice probability."""
    if record.confidence is not None:
        return record.confidence
    return max(record.probabilities) if record.probabilities else None


def calibration_correct(record) -> bool | None:
    """Whether a record counts as correct in calibration metrics: HELM's ``compute_calibration_metrics`` reads
    each instance's ``exact_match`` (for generation the stripped completion equals a reference — not the
    main metric, F1 on NQ; for multiple choice the chosen answer is correct, as ``correct``)."""
    if "exact_match" in record.metrics:
        return record.metrics["exact_match"] >= 1.0
    return record.correct


def _confidences(records) -> tuple[list[float], list[bool]]:
    return _usable([(confidence_of(r), calibration_correct(r)) for r in records])


def _usable(pairs: list[tuple[float | None, bool | None]]) -> tuple[list[float], list[bool]]:
    usable = [(c, k) for c, k in pairs if c is not None]
    return [c for c, _ in usable], [bool(k) for _, k in usable]


Bootstrapper = Callable[..., "stats.Estimate"]  # (seed=, n_resamples=) → the metric's percentile bootstrap


def calibration_bootstrapped(records) -> dict[str, Bootstrapper]:
    """ECE-10, ECE-1 and SCAA with a percentile bootstrap over the records that have a confidence, each resample
    binned on its own (vectorised: :func:`~helmlite.metrics.calibration.ece_rows`)."""
    confidence, correct = (np.asarray(values, float) for values in _confidences(records))

    def of(statistic) -> Bootstrapper:
        if not len(confidence):
            return lambda **_: stats.Estimate(math.nan, math.nan, math.nan, 0, 0.95, "percentile")
        # binned statistics: not smooth, so the percentile interval at any n (stats.interval_for)
        return lambda **kw: stats.interval_for((confidence, correct), statistic=statistic, smooth=False, **kw)

    return {"ece_10": of(lambda c, k, axis=-1: ece_rows(c, k, 10, axis)),
            "ece_1": of(lambda c, k, axis=-1: ece_rows(c, k, 1, axis)), "scaa": of(scaa_rows)}


def calibration_shares(records) -> dict[str, tuple[int, int]]:
    return {"selective_acc@10": selective_counts(*_confidences(records), 0.1)}


def _weighted(n_items: int, statistic) -> Bootstrapper:
    return lambda **kw: stats.bootstrap_weighted(n_items, statistic, **kw)


def bias_bootstrapped(records) -> dict[str, Bootstrapper]:
    """HELM's bias numbers with a percentile bootstrap over the records (sums of per-text counts per resample)."""
    counts = counts_per_text([r.completion for r in records])
    return {name: _weighted(len(records), lambda w, name=name: metrics_from_counts(counts, w, names={name})[name])
            for name in metrics_from_counts(counts)}


def _bbq_rows(records) -> list[dict]:
    return [{**r.metadata, "predicted": r.predicted_index, "correct": r.correct, "completion": r.completion} for r in records]


def bbq_bootstrapped(records) -> dict[str, Bootstrapper]:
    """BBQ's bias scores with a percentile bootstrap over the records (sums of per-row indicators per resample)."""
    indicators = bbq_indicators(_bbq_rows(records))
    return {f"bbq_{name}": _weighted(len(records), lambda w, name=name: scores_from_sums(w @ indicators)[name])
            for name in scores_from_sums(indicators.sum(axis=0)) if name not in ACCURACY_SHARES}


def bbq_shares(records) -> dict[str, tuple[int, int]]:
    return {f"bbq_{name}": counts for name, counts in bbq_accuracy_counts(_bbq_rows(records)).items()}


def platt_points(records) -> dict[str, float]:
    """HELM's Platt-scaled calibration metrics of the run (:func:`~helmlite.metrics.calibration.platt_metrics`)."""
    return platt_metrics(*_confidences(records))


# a family's point values carry no interval: HELM reports them as such, and a bootstrap would refit the scaler per
# resample (calibration's Platt-scaled ECE)
POINT_METHOD = "point value (no interval)"
_GENERATION_LIBRARIES = ("nltk.metrics.scores", "rouge_score.rouge_scorer")  # F1 and ROUGE of generated text


def import_libraries(specs) -> None:
    """Import the libraries that the metric families of ``specs`` (run specs) declare (0.02–0.3 s each), so that a
    run job pays them at its start-up, when it loads the model, not in its first run."""
    import importlib

    names = [name for spec in specs for family in spec.metrics for name in REGISTRY[family].libraries]
    names += [name for spec in specs if spec.adapter.method == "generation" for name in _GENERATION_LIBRARIES]
    for name in dict.fromkeys(names):
        importlib.import_module(name)


def compute(families: tuple[str, ...], records, *, run_id: str, seed: int, n_resamples: int) -> dict:
    """Every metric the families define, name → :class:`~helmlite.stats.Estimate`, and the families' plain run-level
    numbers (their ``summary`` hooks: the efficiency inputs)."""
    out = _instance_means(records, seed, run_id, n_resamples)
    for family in (REGISTRY[name] for name in families) if records else ():
        if family.bootstrapped:
            for name, bootstrap in resolve(family.bootstrapped)(records).items():
                out[name] = bootstrap(n_resamples=n_resamples, seed=rng(seed, run_id, "bootstrap", name))
        if family.points:
            for name, value in resolve(family.points)(records).items():
                out[name] = stats.Estimate(value, math.nan, math.nan, len(records), 0.95, POINT_METHOD)
        if family.shares:
            for name, (successes, total) in resolve(family.shares)(records).items():
                out[name] = stats.interval_for(np.repeat([1.0, 0.0], [successes, total - successes]))
    summaries = {}
    for family in (REGISTRY[name] for name in families) if records else ():
        summaries.update(resolve(family.summary)(records) if family.summary else {})
    return {"metrics": out, "efficiency": summaries}


def run_stats(families: tuple[str, ...], records, *, run_id: str, scenario: str, model: str, method: str,
              main_metric: str, n_train: int, decision: dict, seed: int, n_resamples: int):
    """A run's ``stats.json`` (:class:`~helmlite.results.RunStats`) from its records: every metric of ``families``
    (:func:`compute`) with its interval — the one builder for native runs (:func:`helmlite.evaluation.runner.execute`) and
    imported ones (:mod:`helmlite.imports`)."""
    from ..results import MetricStat, RunStats

    computed = compute(families, records, run_id=run_id, seed=seed, n_resamples=n_resamples)
    return RunStats(
        run_id=run_id, scenario=scenario, model=model, method=method, main_metric=main_metric,
        metric_families=families, n_instances=len(records), n_train_examples=n_train,
        metrics={name: MetricStat(e.estimate, e.ci_low, e.ci_high, e.n, e.method) for name, e in computed["metrics"].items()},
        efficiency=computed["efficiency"], bootstrap={"n_resamples": n_resamples, "seed": seed}, decision=decision)
