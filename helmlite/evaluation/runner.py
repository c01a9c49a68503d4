"""The run coordinator: spec → instances → adaptation → model calls → metrics → run folder.

Like HELM's ``Runner`` (``src/helm/benchmark/runner.py``), it only coordinates: what the outputs mean
per method lives in :mod:`helmlite.evaluation.outcomes`, what a run computes in
:mod:`helmlite.metrics.families` (named by the spec's ``metrics``), every interval in
:mod:`helmlite.stats`, the folder layout in :mod:`helmlite.results`, the main-metric and decision rules in
:mod:`helmlite.evaluation.scoring_rules`, perturbed variants and their seeds in :mod:`helmlite.evaluation.perturbations`, which instances and
in-context examples a run uses in :mod:`helmlite.evaluation.instances`. :func:`execute_all` is the per-model loop of a
run job (``helmlite run``): each model loaded once for all its specs.
"""
from __future__ import annotations

import dataclasses
import gc
import time
from pathlib import Path
from typing import Callable, Sequence

from ..metrics import families
from ..models import GenerationRequest, LanguageModel, ScoreRequest, load_model
from ..models.cache import CachedModel, RequestCache
from ..results import InstanceRecord, PerturbedOutcome, read_stats, write_run
from ..results.provenance import git_state, package_versions
from ..scenarios import Instance, scenario
from .adaptation import Adapted, adapt
from .outcomes import outcome
from .instances import test_examples_variants
from .perturbations import perturbation_kinds, resources_used
from .runspec import RunSpec, model_key
from .scoring_rules import decision_rules, main_metric
from .shared_prefixes import declare_shared_prefixes, sharing_group

RESULTS_DIR = Path("results/runs")


def prepare_requests(spec: RunSpec, model: LanguageModel, instances: list[Instance] | None = None
                     ) -> tuple[list[Instance], list[Instance], dict, list, list[Adapted]]:
    """Everything a run sends to the model, without sending it: the test instances, the in-context examples,
    the variants (perturbations), the (variant, index, instance) jobs and each job's adapted requests.
    :func:`execute` runs these; the planner (:mod:`helmlite.planning`) counts their tokens, passing the scenario's
    ``instances`` it has loaded already (:func:`helmlite.evaluation.instances.test_examples_variants`)."""
    test, examples, variant_sets = test_examples_variants(spec, model, instances)
    # instance by instance, each with its variants: a perturbed or baseline prompt follows the prompt it varies, so
    # the prefix they declare shared (shared_prefixes) is still in the backend's prefix cache when it is asked again
    jobs = [(name, k, items[k]) for k in range(len(test)) for name, items in variant_sets.items() if items[k] is not None]
    peers, peer_groups = _context_peers(spec, model, instances, test, examples)
    adapted = declare_shared_prefixes([adapt(instance, examples, spec.adapter, model) for _, _, instance in jobs],
                                      [sharing_group(test[k]) for _, k, _ in jobs], peers, peer_groups)
    return test, examples, variant_sets, jobs, adapted


def _context_peers(spec: RunSpec, model: LanguageModel, instances: list[Instance] | None, test: list[Instance],
                   examples: list[Instance]) -> tuple[list[Adapted], list]:
    """The prompts (with their variants) of the instances a subsampled run leaves out of the synthetic contexts it
    keeps — a depth sweep's other depths — so that each context's shared levels do not depend on which of its depths
    ``max_instances`` kept (:func:`helmlite.evaluation.shared_prefixes.declare_shared_prefixes`); none for a run of whole
    contexts or of instances without one."""
    contexts = {sharing_group(i) for i in test if "context" in i.metadata}
    if spec.max_instances is None or not contexts:
        return [], []
    whole, _, whole_variants = test_examples_variants(dataclasses.replace(spec, max_instances=None), model, instances)
    kept = {i.id for i in test}
    peers, groups = [], []
    for k, instance in enumerate(whole):
        if instance.id in kept or sharing_group(instance) not in contexts:
            continue
        for items in whole_variants.values():
            if items[k] is not None:
                peers.append(adapt(items[k], examples, spec.adapter, model))
                groups.append(sharing_group(instance))
    return peers, groups


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


def _work_counters(model) -> dict[str, int]:
    """The counters a model keeps that exist: a :class:`~helmlite.models.cache.CachedModel`'s requests (model calls,
    cache hits) and a backend's token positions run through the network (``encoded_tokens``, the transformers
    backend's). A run's timings take their differences over the run."""
    counters = {"model_calls": getattr(model, "calls", None), "cache_hits": getattr(model, "hits", None),
                "encoded_tokens": getattr(model, "encoded_tokens", None)}
    return {key: value for key, value in counters.items() if isinstance(value, int) and not isinstance(value, bool)}


def _records(test: list[Instance], variant_sets: dict, interpreted: dict) -> list[InstanceRecord]:
    """One record per test instance, with the outcomes of its perturbed variants."""
    records = []
    for k, instance in enumerate(test):
        result, out, a = interpreted[("identity", k)]
        perturbed = {}
        for name in (n for n in variant_sets if n != "identity" and (n, k) in interpreted):
            variant = interpreted[(name, k)][0]
            perturbed[name] = PerturbedOutcome(variant.get("prediction"), variant.get("correct"), variant["metrics"],
                                               variant.get("probabilities"))
        records.append(InstanceRecord(id=instance.id, input=instance.input, prompt=a.prompt, n_train=a.n_train,
                                      truncated=a.truncated, prompt_tokens=out[0].prompt_tokens if out else 0,
                                      references=[(r.output, r.correct) for r in instance.references],
                                      metadata=instance.metadata, perturbed=perturbed, **result))
    return records


def execute(spec: RunSpec, model: LanguageModel, *, results_dir: str | Path = RESULTS_DIR, resources: dict | None = None,
            n_resamples: int = 2000, seed: int = 0) -> Path:
    """Run one spec with ``model`` (usually a :class:`~helmlite.models.cache.CachedModel`); return its folder.

    ``n_resamples`` and ``seed`` are the bootstrap settings of every interval in ``stats.json`` (the
    workflow passes the config's ``bootstrap`` section). ``resources``: what the metric families' annotation hooks may
    use, by name (``{"toxicity": scorer}``: a toxicity classifier in place of the default one)."""
    started = time.perf_counter()
    counted_before = _work_counters(model)  # a job may run several specs with one model
    info = scenario(spec.scenario)
    method, main = spec.adapter.method, main_metric(spec)
    test, examples, variant_sets, jobs, adapted = prepare_requests(spec, model)
    prepared = time.perf_counter()
    outputs = execute_requests(adapted, model)
    answered = time.perf_counter()
    interpreted = {(name, k): (outcome(instance, a, out, method, info.main_metric, adapter=spec.adapter), out, a)
                   for (name, k, instance), a, out in zip(jobs, adapted, outputs)}
    records = _records(test, variant_sets, interpreted)
    kinds = perturbation_kinds(spec.perturbations)
    for record in records:
        families.add_worst_cases(record, main, spec.metrics, kinds)
    annotations = families.annotate(spec.metrics, records, **(resources or {}))
    stats = families.run_stats(spec.metrics, records, run_id=spec.run_id, scenario=spec.scenario, model=model_key(spec.model),
                               method=method, main_metric=main, n_train=len(examples), decision=decision_rules(spec),
                               seed=seed, n_resamples=n_resamples)
    latencies = [sum(o.latency_s for o in interpreted[("identity", k)][1]) for k in range(len(test))]
    finished = time.perf_counter()
    # where the run's time went (issue 24 §4: per-run overhead, share of wall time in model calls); writing the
    # folder comes after and is not counted
    timings = {"wall_s": finished - started, "prepare_s": prepared - started, "model_s": answered - prepared,
               "metrics_s": finished - answered, "overhead_s": (finished - started) - (answered - prepared), "latency_s": latencies,
               **{key: after - counted_before[key] for key, after in _work_counters(model).items() if key in counted_before}}
    manifest = {"run_id": spec.run_id, "spec": spec.as_dict(), "model_identity": model.identity,
                "in_context_examples": [e.id for e in examples], "packages": package_versions(), "git": git_state(),
                "data_files": list(info.data), "versions": {**spec.versions, "backend": getattr(model, "code_version", 1)},
                "perturbation_resources": resources_used(spec.perturbations),
                "annotations": annotations,
                "hardware": getattr(model, "hardware", None)}
    return write_run(Path(results_dir) / spec.run_id, records, stats, manifest, timings)


def execute_all(specs: Sequence[RunSpec], cache: RequestCache, *, results_dir: str | Path = RESULTS_DIR, threads: int = 1,
                batch_size: int = 8, chunk_size: int = 32, device: str = "auto", progress: str = "bar",
                n_resamples: int = 2000, seed: int = 0, report: Callable[[str], None] = print) -> list[Path]:
    """Run every spec, loading each (model, dtype) once for all its runs, with the request cache in front of it;
    ``report`` gets one line per finished run (its main metric with the interval, n, model calls and cache hits).
    Returns the run folders in the order of ``specs``' models."""
    families.import_libraries(specs)  # the job's start-up pays the metrics' imports, not its first run
    folders = []
    for name, dtype in dict.fromkeys((spec.model, spec.dtype) for spec in specs):
        model = CachedModel(load_model(name, threads=threads, batch_size=batch_size, device=device, dtype=dtype),
                            cache, chunk_size=chunk_size, progress=progress)
        # what is alive now (torch, transformers, the model) moves to the collector's permanent generation, so its
        # full passes during the runs do not walk it: a BBQ run's preparation 0.74 -> 0.39 s (side by side, 2026-12-02);
        # unfrozen after this model's runs, so the next model's load can collect what this one leaves
        gc.collect()
        gc.freeze()
        for spec in (s for s in specs if (s.model, s.dtype) == (name, dtype)):
            calls, hits = model.calls, model.hits
            model.label = spec.run_id
            folders.append(execute(spec, model, results_dir=results_dir, n_resamples=n_resamples, seed=seed))
            report(_finished_line(results_dir, spec.run_id, model.calls - calls, model.hits - hits, folders[-1]))
        gc.unfreeze()
    return folders


def _finished_line(results_dir: str | Path, run_id: str, calls: int, hits: int, folder: Path) -> str:
    """What a run job prints when a run is written: its main metric with the interval, n, model calls, cache hits
    (from the run's ``stats.json`` alone: its instances were just written and need not be read back)."""
    stats = read_stats(results_dir, run_id)
    main = stats.metrics.get(stats.main_metric)
    shown = f"{main.mean:.3f} [{main.ci_low:.3f}, {main.ci_high:.3f}]" if main else "n/a"
    return f"{run_id}: {stats.main_metric} = {shown} (n={stats.n_instances}; model calls {calls}, cache hits {hits}) -> {folder}"
