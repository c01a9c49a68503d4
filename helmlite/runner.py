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

import hashlib
import inspect
import json
import math
import re
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from . import stats as bootstrap
from ._io import atomic_open, write_json
from .adaptation import AdapterSpec, Adapted, adapt, select_examples
from .metrics import best_over_references, reciprocal_rank, ndcg
from .models import GenerationRequest, LanguageModel, ScoreRequest
from .provenance import git_state, package_versions
from .scenarios import TEST, TRAIN, Instance, scenario
from .seeds import derive_seed, rng

RESULTS_DIR = Path("results/runs")


class RunError(ValueError):
    """A run spec that cannot be executed (unknown name, empty scenario, bad argument)."""


@dataclass(frozen=True)
class RunSpec:
    scenario: str
    model: str
    args: tuple[tuple[str, object], ...] = ()
    adapter: AdapterSpec = field(default_factory=AdapterSpec)
    max_instances: int | None = None
    data_seed: int = 0

    @classmethod
    def from_dict(cls, spec: dict) -> "RunSpec":
        """From a config mapping: scenario, model, args (mapping), adapter (mapping), max_instances, data_seed."""
        known = {"scenario", "model", "args", "adapter", "max_instances", "data_seed"}
        unknown = set(spec) - known
        if unknown:
            raise RunError(f"run spec: unknown field(s) {sorted(unknown)}; expected {sorted(known)}")
        info = scenario(spec["scenario"])
        adapter = {"method": info.default_method, **info.adapter, **(spec.get("adapter") or {})}
        if "stop_sequences" in adapter:
            adapter["stop_sequences"] = tuple(adapter["stop_sequences"])
        try:
            adapter_spec = AdapterSpec(**adapter)
        except TypeError as error:
            raise RunError(f"run spec adapter: {error}") from None
        args = tuple(sorted((k, tuple(v) if isinstance(v, list) else v) for k, v in (spec.get("args") or {}).items()))
        return cls(spec["scenario"], spec["model"], args, adapter_spec, spec.get("max_instances"), spec.get("data_seed", 0))

    def as_dict(self) -> dict:
        return {"scenario": self.scenario, "model": self.model, "args": dict(self.args), "adapter": self.adapter.as_dict(),
                "max_instances": self.max_instances, "data_seed": self.data_seed}

    @property
    def run_id(self) -> str:
        """Readable prefix + the first 10 hex digits of the spec's sha256."""
        text = json.dumps(self.as_dict(), sort_keys=True, default=list)
        digest = hashlib.sha256(text.encode()).hexdigest()[:10]
        args = ",".join(f"{k}={v}" for k, v in self.args if not isinstance(v, tuple))
        readable = re.sub(r"[^A-Za-z0-9_.=,-]+", "_", f"{self.scenario}{':' + args if args else ''}-{self.model}-{self.adapter.method}")
        return f"{readable[:90]}-{digest}"


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
    record.update(scores=scores, probabilities=_softmax(scores), prediction=adapted.choices[best],
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


def execute(spec: RunSpec, model: LanguageModel, *, results_dir: str | Path = RESULTS_DIR) -> Path:
    """Run one spec with ``model`` (usually a :class:`~helmlite.models.cache.CachedModel`); return its folder."""
    started = time.perf_counter()
    info = scenario(spec.scenario)
    train, test = load_instances(spec, model)
    examples = select_examples(train, spec.adapter, rng(spec.scenario, json.dumps(dict(spec.args), sort_keys=True, default=list),
                                                        spec.adapter.seed, "in-context examples"))
    adapted = [adapt(instance, examples, spec.adapter, model) for instance in test]
    outputs = _execute_requests(adapted, model)
    records, latencies = [], []
    for instance, a, out in zip(test, adapted, outputs):
        record = {"id": instance.id, "input": instance.input, "prompt": a.prompt, "n_train": a.n_train,
                  "truncated": a.truncated, "prompt_tokens": out[0].prompt_tokens if out else 0,
                  "references": [[r.output, r.correct] for r in instance.references],
                  "metadata": instance.metadata}
        record.update(_interpret(instance, a, out, spec.adapter.method, info.main_metric))
        records.append(record)
        latencies.append(sum(o.latency_s for o in out))
    out_dir = Path(results_dir) / spec.run_id
    with atomic_open(out_dir / "instances.jsonl", "w", encoding="utf-8") as handle:
        for record in records:
            handle.write(json.dumps(record, sort_keys=True, ensure_ascii=False, default=str) + "\n")
    write_json(out_dir / "timings.json", {
        "wall_s": time.perf_counter() - started, "latency_s": latencies,
        "model_calls": getattr(model, "calls", None), "cache_hits": getattr(model, "hits", None)})
    write_json(out_dir / "stats.json", {
        "run_id": spec.run_id, "scenario": spec.scenario, "model": spec.model, "method": spec.adapter.method,
        "main_metric": info.main_metric if spec.adapter.method == "generation" else
        ("rr@10" if spec.adapter.method == "ranking" else "exact_match"),
        "n_instances": len(records), "n_train_examples": len(examples),
        "metrics": summarise(records, spec.run_id)})
    write_json(out_dir / "manifest.json", {
        "run_id": spec.run_id, "spec": spec.as_dict(), "model_identity": model.identity,
        "in_context_examples": [e.id for e in examples], "packages": package_versions(), "git": git_state(),
        "data_files": list(info.data)})
    return out_dir
