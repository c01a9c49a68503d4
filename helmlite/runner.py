"""The run coordinator: spec → instances → adaptation → model calls → metrics → run folder.

Like HELM's ``Runner`` (``src/helm/benchmark/runner.py``), it only coordinates: what the outputs mean
per method lives in :mod:`helmlite.metrics.outcomes`, what a run computes in
:mod:`helmlite.metrics.families` (named by the spec's ``metrics``), every interval in
:mod:`helmlite.stats`, the folder layout in :mod:`helmlite.results`, the main-metric and decision rules in
:mod:`helmlite.run_rules`, perturbed variants and their seeds in :mod:`helmlite.perturbations`.

The test subsample and the in-context examples never depend on the model, so every model sees the same
items and examples and comparisons can be paired. With ``adapter.selection="helm_compat"`` (default)
both follow crfm-helm exactly — the subsample is ``np.random.seed(data_seed)`` + ``np.random.choice``
in sampled order (HELM: seed 0), the examples ``random.seed(adapter.seed)`` (HELM's train trial index);
see :func:`helmlite.adaptation.helm_eval_subsample` and :func:`helmlite.adaptation.helm_sample_examples`.
With ``"hashed"`` the subsample comes from a generator derived with hashlib from (scenario, arguments,
``data_seed``), kept in file order, and the examples from one derived from (scenario, arguments, ``seed``).
"""
from __future__ import annotations

import inspect
import json
import time
from pathlib import Path

import numpy as np

from .adaptation import Adapted, adapt, helm_eval_subsample, select_examples
from .metrics import families
from .metrics.outcomes import outcome
from .models import GenerationRequest, LanguageModel, ScoreRequest
from .models.whitespace import WhitespaceTokens
from .perturbations import helm_perturbation_seeds, resources_used, variants
from .provenance import git_state, package_versions
from .results import InstanceRecord, PerturbedOutcome, write_run
from .run_rules import decision_rules, main_metric
from .runspec import RunError, RunSpec
from .scenarios import TEST, TRAIN, Instance, scenario
from .seeds import rng
from .shared_prefixes import declare_shared_prefixes

RESULTS_DIR = Path("results/runs")


def _load_all(spec: RunSpec, model: LanguageModel) -> list[Instance]:
    """Every instance of the run's scenario, in its loader's order."""
    info = scenario(spec.scenario)
    kwargs = dict(spec.args)
    info.check_args(kwargs)
    parameters = inspect.signature(info.load).parameters
    if "count_tokens" in parameters:
        kwargs["count_tokens"] = model.count_tokens
    return info.load(**kwargs)


def load_instances(spec: RunSpec, model: LanguageModel) -> tuple[list[Instance], list[Instance]]:
    """The run's training pool and its (subsampled) test instances."""
    return _split(spec, _load_all(spec, model))


def _split(spec: RunSpec, instances: list[Instance]) -> tuple[list[Instance], list[Instance]]:
    train = [i for i in instances if i.split == TRAIN]
    test = [i for i in instances if i.split == TEST]
    if not test:
        raise RunError(f"scenario {spec.scenario!r} with {dict(spec.args)} has no test instances")
    if spec.max_instances is not None and len(test) > spec.max_instances:
        if spec.adapter.selection == "helm_compat":
            keep = helm_eval_subsample(len(test), spec.max_instances, spec.data_seed)
        else:
            order = rng(spec.scenario, json.dumps(dict(spec.args), sort_keys=True, default=list), spec.data_seed, "instances")
            keep = np.sort(order.choice(len(test), size=spec.max_instances, replace=False))
        test = [test[i] for i in keep]
    return train, test


def in_context_examples(spec: RunSpec, train: list[Instance]) -> list[Instance]:
    """The run's in-context examples (shared by every test instance), per ``spec.adapter.selection``."""
    return select_examples(train, spec.adapter, rng(spec.scenario, json.dumps(dict(spec.args), sort_keys=True, default=list),
                                                    spec.adapter.seed, "in-context examples"))


def adapted_prompts(spec: RunSpec, model: LanguageModel | None = None, variant: str = "identity") -> list[tuple[str, str]]:
    """``(instance id, prompt)`` for every (subsampled) test instance of ``spec`` without running a model —
    HELM's dry run, lm-eval's ``--write_out`` — as given or under one of the spec's perturbations (``variant``).
    With no ``model`` a whitespace stand-in counts tokens, so nothing is truncated and scenarios that size inputs in
    tokens count words instead. For separate multiple choice and ranking the prompt is the text before the scored
    continuation."""
    model = model or WhitespaceTokens()
    if variant != "identity" and variant not in spec.perturbations:
        raise RunError(f"prompts: the run has no perturbation {variant!r} (it has {list(spec.perturbations) or 'none'})")
    _, examples, variants = _test_examples_variants(spec, model)
    return [(instance.id, adapt(instance, examples, spec.adapter, model).prompt) for instance in variants[variant]
            if instance is not None]


def _test_examples_variants(spec: RunSpec, model: LanguageModel) -> tuple[list[Instance], list[Instance], dict]:
    """The run's test instances, its in-context examples and the test set's variants (perturbations seeded by
    :func:`helm_perturbation_seeds` over the scenario's whole load order)."""
    instances = _load_all(spec, model)
    train, test = _split(spec, instances)
    return test, in_context_examples(spec, train), variants(spec, test, helm_perturbation_seeds(spec, instances))


def prepare_requests(spec: RunSpec, model: LanguageModel) -> tuple[list[Instance], list[Instance], dict, list, list[Adapted]]:
    """Everything a run sends to the model, without sending it: the test instances, the in-context examples,
    the variants (perturbations), the (variant, index, instance) jobs and each job's adapted requests.
    :func:`execute` runs these; the planner (:mod:`helmlite.planning`) counts their tokens."""
    test, examples, variants = _test_examples_variants(spec, model)
    # instance by instance, each with its variants: a perturbed or baseline prompt follows the prompt it varies, so
    # the prefix they declare shared (shared_prefixes) is still in the backend's prefix cache when it is asked again
    jobs = [(name, k, items[k]) for k in range(len(test)) for name, items in variants.items() if items[k] is not None]
    adapted = declare_shared_prefixes([adapt(instance, examples, spec.adapter, model) for _, _, instance in jobs])
    return test, examples, variants, jobs, adapted


def execute_requests(adapted: list[Adapted], model: LanguageModel) -> list[list]:
    """Send every request of the run in two batched calls (generation, scoring); regroup per instance. The
    model's kept prefixes are released afterwards (they belong to this run's prompts)."""
    flat = [(i, r) for i, a in enumerate(adapted) for r in a.requests]
    gen = [(i, r) for i, r in flat if isinstance(r, GenerationRequest)]
    sco = [(i, r) for i, r in flat if isinstance(r, ScoreRequest)]
    out: list[list] = [[] for _ in adapted]
    for batch, call in ((gen, model.generate), (sco, model.score)):
        if batch:
            for (i, _), result in zip(batch, call([r for _, r in batch])):
                out[i].append(result)
    release = getattr(model, "release_prefixes", None)  # a backend that keeps per-run prefix caches
    if release is not None:
        release()
    return out


def _cache_counters(model) -> dict[str, int]:
    """A :class:`~helmlite.models.cache.CachedModel`'s request counters (model calls, cache hits); {} otherwise."""
    calls, hits = getattr(model, "calls", None), getattr(model, "hits", None)
    return {"model_calls": calls, "cache_hits": hits} if isinstance(calls, int) and isinstance(hits, int) else {}


def _records(test: list[Instance], variants: dict, interpreted: dict) -> list[InstanceRecord]:
    """One record per test instance, with the outcomes of its perturbed variants."""
    records = []
    for k, instance in enumerate(test):
        result, out, a = interpreted[("identity", k)]
        perturbed = {}
        for name in (n for n in variants if n != "identity" and (n, k) in interpreted):
            variant = interpreted[(name, k)][0]
            perturbed[name] = PerturbedOutcome(variant.get("prediction"), variant.get("correct"), variant["metrics"],
                                               variant.get("probabilities"))
        records.append(InstanceRecord(id=instance.id, input=instance.input, prompt=a.prompt, n_train=a.n_train,
                                      truncated=a.truncated, prompt_tokens=out[0].prompt_tokens if out else 0,
                                      references=[(r.output, r.correct) for r in instance.references],
                                      metadata=instance.metadata, perturbed=perturbed, **result))
    return records


def execute(spec: RunSpec, model: LanguageModel, *, results_dir: str | Path = RESULTS_DIR, toxicity=None,
            n_resamples: int = 2000, seed: int = 0) -> Path:
    """Run one spec with ``model`` (usually a :class:`~helmlite.models.cache.CachedModel`); return its folder.

    ``n_resamples`` and ``seed`` are the bootstrap settings of every interval in ``stats.json`` (the
    workflow passes the config's ``bootstrap`` section)."""
    started = time.perf_counter()
    counted_before = _cache_counters(model)  # a job may run several specs with one model
    info = scenario(spec.scenario)
    method, main = spec.adapter.method, main_metric(spec)
    test, examples, variants, jobs, adapted = prepare_requests(spec, model)
    prepared = time.perf_counter()
    outputs = execute_requests(adapted, model)
    answered = time.perf_counter()
    interpreted = {(name, k): (outcome(instance, a, out, method, info.main_metric, adapter=spec.adapter), out, a)
                   for (name, k, instance), a, out in zip(jobs, adapted, outputs)}
    records = _records(test, variants, interpreted)
    for record in records:
        families.add_worst_cases(record, main, spec.metrics)
    scorer = families.score_toxicity(spec.metrics, records, toxicity)
    stats = families.run_stats(spec.metrics, records, run_id=spec.run_id, scenario=spec.scenario, model=spec.model,
                               method=method, main_metric=main, n_train=len(examples), decision=decision_rules(spec),
                               seed=seed, n_resamples=n_resamples)
    latencies = [sum(o.latency_s for o in interpreted[("identity", k)][1]) for k in range(len(test))]
    finished = time.perf_counter()
    # where the run's time went (issue 24 §4: per-run overhead, share of wall time in model calls); writing the
    # folder comes after and is not counted
    timings = {"wall_s": finished - started, "prepare_s": prepared - started, "model_s": answered - prepared,
               "metrics_s": finished - answered, "overhead_s": (finished - started) - (answered - prepared), "latency_s": latencies,
               **{key: after - before for (key, after), before in zip(_cache_counters(model).items(), counted_before.values())}}
    manifest = {"run_id": spec.run_id, "spec": spec.as_dict(), "model_identity": model.identity,
                "in_context_examples": [e.id for e in examples], "packages": package_versions(), "git": git_state(),
                "data_files": list(info.data), "versions": spec.versions, "perturbation_resources": resources_used(spec.perturbations),
                "toxicity_scorer": {"name": scorer.name, "proxy": scorer.proxy} if scorer else None}
    return write_run(Path(results_dir) / spec.run_id, records, stats, manifest, timings)
