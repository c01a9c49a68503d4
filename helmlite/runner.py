"""Run specs and their execution: one frozen, hashable spec → one results folder.

Like HELM's ``RunSpec`` (``src/helm/benchmark/run_spec.py``), everything that changes a result is in
the spec, and the spec's hash names the folder ``results/runs/<run_id>/``:

* ``instances.jsonl`` — one record per test instance (prompt, completion or scores, prediction,
  references, per-instance metrics, tokens, truncation) — kept beside the aggregates because paired
  bootstrap and error analysis need them;
* ``stats.json`` — every metric's mean with a bootstrap CI;
* ``manifest.json`` — the spec, model identity, versions, git commit, seeds;
* ``timings.json`` — wall-clock latencies and cache counts (the only file that differs between runs).

Seeds derive from the spec with hashlib: the test subsample depends on the scenario and
``data_seed`` only, the in-context examples on the scenario and the adapter's ``seed`` — never on
the model — so every model sees the same items and examples, and comparisons can be paired.
"""
from __future__ import annotations

import inspect
import json
import math
import time
from pathlib import Path

import numpy as np

from . import stats as bootstrap
from ._io import atomic_open, json_line, write_json
from .adaptation import Adapted, adapt, select_examples
from .metrics import best_over_references, ndcg, reciprocal_rank
from .metrics.bbq import bbq_scores
from .metrics.bias import counts_per_text, metrics_from_counts
from .metrics.calibration import expected_calibration_error, selective_accuracy, selective_coverage_accuracy_area
from .metrics.toxicity import THRESHOLD, default_scorer
from .models import GenerationRequest, LanguageModel, ScoreRequest
from .perturbations import perturb_instance, perturbation, resources_used
from .provenance import git_state, package_versions
from .runspec import RunError, RunSpec
from .scenarios import TEST, TRAIN, Instance, scenario
from .seeds import derive_seed, rng

RESULTS_DIR = Path("results/runs")


def load_instances(spec: RunSpec, model: LanguageModel) -> tuple[list[Instance], list[Instance]]:
    """The run's training pool and its (subsampled) test instances."""
    info = scenario(spec.scenario)
    kwargs = dict(spec.args)
    parameters = inspect.signature(info.load).parameters
    unknown = set(kwargs) - set(parameters)
    if unknown:
        raise RunError(f"scenario {spec.scenario!r}: unknown argument(s) {sorted(unknown)}; accepted: "
                       f"{[p for p in parameters if p != 'count_tokens']}")
    if "count_tokens" in parameters:
        kwargs["count_tokens"] = model.count_tokens
    instances = info.load(**kwargs)
    train = [i for i in instances if i.split == TRAIN]
    test = [i for i in instances if i.split == TEST]
    if not test:
        raise RunError(f"scenario {spec.scenario!r} with {dict(spec.args)} has no test instances")
    if spec.max_instances is not None and len(test) > spec.max_instances:
        order = rng(spec.scenario, json.dumps(dict(spec.args), sort_keys=True, default=list), spec.data_seed, "instances")
        keep = np.sort(order.choice(len(test), size=spec.max_instances, replace=False))
        test = [test[i] for i in keep]
    return train, test


def _softmax(values) -> list[float]:
    values = np.asarray(values, dtype=float)
    exp = np.exp(values - values.max())
    return (exp / exp.sum()).tolist()


def _interpret(instance: Instance, adapted: Adapted, outputs: list, method: str, main_metric: str) -> dict:
    """Per-instance prediction, correctness and metrics from the model's outputs."""
    correct_refs = [r.output for r in instance.references if r.correct]
    record: dict = {}
    if method == "generation":
        generation = outputs[0]
        prediction = generation.text.strip()
        record.update(completion=generation.text, prediction=prediction, output_tokens=generation.output_tokens)
        metrics = {}
        if correct_refs:
            names = {"exact_match", "quasi_exact_match", "f1", main_metric} - {"toxic_fraction"}
            metrics = {name: best_over_references(name, prediction, correct_refs) for name in sorted(names)}
        record.update(metrics=metrics, correct=bool(metrics.get(main_metric, 0.0) >= 1.0) if metrics else None)
        return record
    if method == "ranking":
        p_yes = [_softmax(s.logprobs)[0] for s in outputs]
        order = sorted(range(len(p_yes)), key=lambda k: (-p_yes[k], k))
        relevance = [instance.references[k].relevance or 0.0 for k in order]
        rr = reciprocal_rank(relevance, 10)
        record.update(p_yes=p_yes, ranking=order, prediction=instance.references[order[0]].output[:80],
                      metrics={"rr@10": rr, "ndcg@10": ndcg(relevance, 10)}, correct=rr == 1.0)
        return record
    scores = list(outputs[0].logprobs)
    if method == "multiple_choice_separate_calibrated":
        scores = [a - b for a, b in zip(scores, outputs[1].logprobs)]
    best = int(np.argmax(scores))  # first maximum on ties
    correct = bool(instance.references[best].correct)
    record.update(scores=scores, probabilities=_softmax(scores), prediction=adapted.choices[best], predicted_index=best,
                  metrics={"exact_match": float(correct)}, correct=correct)
    return record


def _execute_requests(adapted: list[Adapted], model: LanguageModel) -> list[list]:
    """Send every request of the run in two batched calls (generation, scoring); regroup per instance."""
    flat = [(i, r) for i, a in enumerate(adapted) for r in a.requests]
    gen = [(i, r) for i, r in flat if isinstance(r, GenerationRequest)]
    sco = [(i, r) for i, r in flat if isinstance(r, ScoreRequest)]
    out: list[list] = [[] for _ in adapted]
    for batch, call in ((gen, model.generate), (sco, model.score)):
        if batch:
            for (i, _), result in zip(batch, call([r for _, r in batch])):
                out[i].append(result)
    return out


def summarise(records: list[dict], run_id: str, n_resamples: int = 2000) -> dict:
    """Every per-instance metric's mean with a bootstrap CI (seeded from the run id)."""
    names = sorted({m for r in records for m in (r.get("metrics") or {})})
    out = {}
    for name in names:
        values = np.array([r["metrics"].get(name, math.nan) for r in records], dtype=float)
        values = values[np.isfinite(values)]
        if len(values):
            est = bootstrap.bootstrap_ci(values, seed=derive_seed(run_id, "bootstrap", name) % 2**32,
                                         n_resamples=n_resamples, method="percentile")
            out[name] = {"mean": est.estimate, "ci_low": est.ci_low, "ci_high": est.ci_high, "n": est.n}
    return out


def run_level(records: list[dict], fn, run_id: str, name: str, n_resamples: int = 300) -> dict:
    """A metric defined on the whole set of instances (ECE, bias scores), with a percentile bootstrap CI
    over instances (a loop over resamples: these metrics are not vectorised)."""
    estimate = fn(records)
    generator = rng(run_id, "run-level", name)
    values = [fn([records[i] for i in generator.integers(0, len(records), len(records))]) for _ in range(n_resamples)]
    values = np.array([v for v in values if v is not None and not math.isnan(v)])
    low, high = np.percentile(values, [2.5, 97.5]) if len(values) else (math.nan, math.nan)
    return {"mean": estimate, "ci_low": float(low), "ci_high": float(high), "n": len(records)}


def _variants(spec: RunSpec, test: list[Instance]) -> dict[str, list[Instance | None]]:
    """The test set as given and under each requested perturbation (None where an instance has no contrast)."""
    variants: dict[str, list[Instance | None]] = {"identity": list(test)}
    for name in spec.perturbations:
        variants[name] = [i.contrast for i in test] if name == "contrast" else [perturb_instance(i, name) for i in test]
    return variants


def _worst_case(record: dict, main: str, names: list[str]) -> float | None:
    """HELM's worst case over {identity} ∪ perturbations: the minimum of the main metric."""
    values = [record["metrics"].get(main)] + [record["perturbed"][n]["metrics"].get(main)
                                              for n in names if n in record.get("perturbed", {})]
    values = [v for v in values if v is not None]
    return min(values) if len(values) > 1 else None


def _add_worst_cases(record: dict, main: str, perturbations: tuple[str, ...]) -> None:
    fairness = [p for p in perturbations if p not in ("robustness", "contrast") and perturbation(p).kind == "fairness"]
    for label, names in (("robustness", ["robustness"]), ("fairness", fairness), ("equivariance", ["contrast"])):
        value = _worst_case(record, main, names)
        if value is not None:
            record["metrics"][f"{main}_{label}"] = value


def _run_metrics(spec: RunSpec, records: list[dict]) -> dict:
    """Metrics defined over the whole run: calibration, bias, toxicity fraction, BBQ bias scores."""
    run_id, method = spec.run_id, spec.adapter.method
    metrics = {}
    if method in ("multiple_choice_joint", "multiple_choice_separate", "multiple_choice_separate_calibrated"):
        def conf(rs):
            return [max(r["probabilities"]) for r in rs], [r["correct"] for r in rs]
        metrics["ece_10"] = run_level(records, lambda rs: expected_calibration_error(*conf(rs), 10), run_id, "ece_10")
        metrics["ece_1"] = run_level(records, lambda rs: expected_calibration_error(*conf(rs), 1), run_id, "ece_1")
        metrics["selective_acc@10"] = run_level(records, lambda rs: selective_accuracy(*conf(rs), 0.1), run_id, "acc10")
        metrics["scaa"] = run_level(records, lambda rs: selective_coverage_accuracy_area(*conf(rs)), run_id, "scaa")
    if method == "generation":
        counts = counts_per_text([r["completion"] for r in records])
        index = list(range(len(records)))
        for name in metrics_from_counts(counts):
            metrics[name] = run_level(index, lambda rows, name=name: metrics_from_counts(counts, rows)[name], run_id, name)
    if records and all("target_index" in r["metadata"] and "predicted_index" in r for r in records):  # BBQ-style items
        rows = [{**r["metadata"], "predicted": r["predicted_index"], "correct": r["correct"]} for r in records]
        for name in bbq_scores(rows):
            metrics[f"bbq_{name}"] = run_level(rows, lambda rs, name=name: bbq_scores(rs)[name], run_id, name)
    return metrics


def _cache_counters(model) -> dict[str, int]:
    """A :class:`~helmlite.models.cache.CachedModel`'s request counters (model calls, cache hits); {} otherwise."""
    calls, hits = getattr(model, "calls", None), getattr(model, "hits", None)
    return {"model_calls": calls, "cache_hits": hits} if isinstance(calls, int) and isinstance(hits, int) else {}


def execute(spec: RunSpec, model: LanguageModel, *, results_dir: str | Path = RESULTS_DIR, toxicity=None) -> Path:
    """Run one spec with ``model`` (usually a :class:`~helmlite.models.cache.CachedModel`); return its folder."""
    started = time.perf_counter()
    counted_before = _cache_counters(model)  # a job may run several specs with one model
    info = scenario(spec.scenario)
    method = spec.adapter.method
    main = info.main_metric if method == "generation" else ("rr@10" if method == "ranking" else "exact_match")
    train, test = load_instances(spec, model)
    examples = select_examples(train, spec.adapter, rng(spec.scenario, json.dumps(dict(spec.args), sort_keys=True, default=list),
                                                        spec.adapter.seed, "in-context examples"))
    variants = _variants(spec, test)
    jobs = [(name, k, instance) for name, items in variants.items() for k, instance in enumerate(items) if instance is not None]
    adapted = [adapt(instance, examples, spec.adapter, model) for _, _, instance in jobs]
    outputs = _execute_requests(adapted, model)
    interpreted = {(name, k): (_interpret(instance, a, out, method, info.main_metric), out, a)
                   for (name, k, instance), a, out in zip(jobs, adapted, outputs)}
    scorer = toxicity or (default_scorer() if method == "generation" else None)
    records, latencies = [], []
    for k, instance in enumerate(test):
        result, out, a = interpreted[("identity", k)]
        record = {"id": instance.id, "input": instance.input, "prompt": a.prompt, "n_train": a.n_train,
                  "truncated": a.truncated, "prompt_tokens": out[0].prompt_tokens if out else 0,
                  "references": [[r.output, r.correct] for r in instance.references], "metadata": instance.metadata,
                  **result}
        perturbed = {name: interpreted[(name, k)][0] for name in variants if name != "identity" and (name, k) in interpreted}
        if perturbed:
            record["perturbed"] = {name: {key: r[key] for key in ("prediction", "correct", "metrics") if key in r}
                                   for name, r in perturbed.items()}
            _add_worst_cases(record, main, spec.perturbations)
        records.append(record)
        latencies.append(sum(o.latency_s for o in out))
    if scorer is not None:
        scores = scorer.score([r["completion"] for r in records])
        for record, score in zip(records, scores):
            record["toxicity"] = score
            record["metrics"]["toxic_fraction"] = float(score >= THRESHOLD)
    run_metrics = _run_metrics(spec, records)
    out_dir = Path(results_dir) / spec.run_id
    with atomic_open(out_dir / "instances.jsonl", "w", encoding="utf-8") as handle:
        for record in records:
            handle.write(json_line(record) + "\n")
    write_json(out_dir / "timings.json", {
        "wall_s": time.perf_counter() - started, "latency_s": latencies,
        **{key: after - before for (key, after), before in zip(_cache_counters(model).items(), counted_before.values())}})
    write_json(out_dir / "stats.json", {
        "run_id": spec.run_id, "scenario": spec.scenario, "model": spec.model, "method": method, "main_metric": main,
        "n_instances": len(records), "n_train_examples": len(examples),
        "metrics": {**summarise(records, spec.run_id), **run_metrics},
        # HELM's efficiency inputs that are deterministic; observed runtimes live in timings.json
        "efficiency": {"mean_prompt_tokens": float(np.mean([r["prompt_tokens"] for r in records])),
                       "mean_output_tokens": float(np.mean([r.get("output_tokens", 0) for r in records])),
                       "runtime": "timings.json (wall-clock, the one file that differs between runs)"}})
    write_json(out_dir / "manifest.json", {
        "run_id": spec.run_id, "spec": spec.as_dict(), "model_identity": model.identity,
        "in_context_examples": [e.id for e in examples], "packages": package_versions(), "git": git_state(),
        "data_files": list(info.data), "perturbation_resources": resources_used(spec.perturbations),
        "toxicity_scorer": {"name": scorer.name, "proxy": scorer.proxy} if scorer else None})
    return out_dir
