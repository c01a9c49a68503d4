"""Import a crfm-helm run folder (``benchmark_output/runs/<suite>/<run>/``) as a helmlite run.

HELM writes per run (``src/helm/benchmark/runner.py``): ``run_spec.json`` (name, scenario spec, adapter
spec), ``scenario_state.json`` (one request state per instance × train trial × perturbation: the instance
with its references, the prompt, the completions), ``per_instance_stats.json`` (every metric per instance,
trial and perturbation) and ``stats.json`` (the aggregates). The import reads the first three and, when it
is there, ``stats.json`` to record HELM's own aggregate of the main metric beside ours:

* one helmlite run per train trial (HELM's ``train_trial_index`` is the in-context selection seed, as in
  helmlite's ``helm_compat`` adaptation); run id ``helm-<HELM run name>`` (sanitised), ``-trial<k>``
  appended when the run has several trials;
* one record per evaluated instance of one split (``test`` by default; HELM aggregates ``valid`` apart), unperturbed: prompt, completion, the
  stripped completion as prediction (joint multiple choice: the letter, mapped through HELM's
  ``output_mapping`` to ``predicted_index``), HELM's per-instance metrics (its bookkeeping counters —
  tokens, runtime, finish reasons — go to the record's token counts and ``timings.json`` instead), HELM's
  ``max_prob`` as ``confidence`` (not when every one is exactly 1, as HELM's ``HuggingFaceClient`` reports at
  temperature 0: its log-probabilities are those of the temperature-warped distribution; no calibration
  then, and the stats' ``decision`` says so), and ``correct`` = main metric ≥ 1; perturbed variants (robustness and
  fairness augmentations) become the record's ``perturbed`` outcomes, keyed by HELM's perturbation name;
* for the ``multiple_choice_separate*`` and ``language_modeling`` methods HELM scores one request per
  reference; their metrics and correctness are imported, the prediction is left empty (null);
* stats with helmlite's intervals (Clopper–Pearson for 0/1 metrics, expanded percentile bootstrap
  otherwise) and a manifest naming the source: tool, version (crfm-helm does not record its version in a
  run folder: null unless given), the run name, each file's sha256, HELM's aggregate of the main metric.
"""
from __future__ import annotations

from pathlib import Path

from ..results import InstanceRecord, PerturbedOutcome
from ._common import ImportFormatError, check_tool_mean, finite, get, load_json, run_id, source_files, write_imported

#: This importer's version: raise it when a change alters what it writes for the same files (the manifest records it).
VERSION = 1

RUN_SPEC, SCENARIO_STATE, PER_INSTANCE, STATS = "run_spec.json", "scenario_state.json", "per_instance_stats.json", "stats.json"
MAIN_METRICS = ("exact_match", "quasi_exact_match", "f1_score", "rouge_2", "math_equiv", "final_number_exact_match",
                "bits_per_byte", "RR@10", "NDCG@10")
_BOOKKEEPING = {"batch_size", "prompt_truncated", "max_prob", "logprob", "perplexity", "logprob_per_byte"}
_BOOKKEEPING_PREFIXES = ("num_", "finish_reason_", "training_", "inference_", "estimated_", "max_prob")
_SEPARATE = ("multiple_choice_separate_original", "multiple_choice_separate_calibrated", "multiple_choice_separate",
             "language_modeling")


def _is_metric(name: str) -> bool:
    return name not in _BOOKKEEPING and not name.startswith(_BOOKKEEPING_PREFIXES)


def _perturbation_name(raw, path: Path, where: str) -> str | None:
    if raw is None:
        return None
    return get(raw, "name", path, f"{where}.perturbation", str)


def _per_instance(path: Path, split: str) -> dict:
    """(instance id, trial, perturbation name) → {stat name: mean} for the instances of ``split``."""
    raw = load_json(path, "HELM's list of per-instance stats")
    if not isinstance(raw, list):
        raise ImportFormatError(f"{path}: expected a list of per-instance stats, got {type(raw).__name__}")
    out = {}
    for k, entry in enumerate(raw):
        where = f"[{k}]"
        key = (get(entry, "instance_id", path, where, str), get(entry, "train_trial_index", path, where, int, default=0),
               _perturbation_name(entry.get("perturbation") if isinstance(entry, dict) else None, path, where))
        values, in_split = {}, False
        for j, stat in enumerate(get(entry, "stats", path, where, list)):
            name = get(stat, "name", path, f"{where}.stats[{j}]", dict)
            metric = get(name, "name", path, f"{where}.stats[{j}].name", str)
            if name.get("split") != split or name.get("perturbation") is not None:
                continue
            in_split = True
            if get(stat, "count", path, f"{where}.stats[{j}]", (int, float), default=0) == 0:
                continue
            values[metric] = get(stat, "mean", path, f"{where}.stats[{j}]", (int, float))
        if in_split:
            out[key] = values
    return out


def _request_states(path: Path) -> tuple[dict, list]:
    raw = load_json(path, "HELM's scenario state (adapter_spec, request_states)")
    states = get(raw, "request_states", path, "the top level", list)
    return get(raw, "adapter_spec", path, "the top level", dict, default={}), states


def _state_key(state: dict, path: Path, where: str) -> tuple:
    instance = get(state, "instance", path, where, dict)
    return (get(instance, "id", path, f"{where}.instance", str), get(state, "train_trial_index", path, where, int, default=0),
            _perturbation_name(instance.get("perturbation"), path, f"{where}.instance"))


def _completion(state: dict, path: Path, where: str) -> str | None:
    result = get(state, "result", path, where, dict, default=None)
    if result is None:
        return None
    completions = get(result, "completions", path, f"{where}.result", list)
    if not completions:
        return None
    return get(completions[0], "text", path, f"{where}.result.completions[0]", str)


def import_helm(run_dir: str | Path, results_dir: str | Path = "results/runs", *, model: str | None = None,
                main_metric: str | None = None, split: str = "test", version: str | None = None,
                n_resamples: int = 2000, seed: int = 0) -> list[Path]:
    """Import one HELM run folder; return the written run folders (one per train trial).

    ``model`` overrides HELM's model name, ``main_metric`` the first of :data:`MAIN_METRICS` that the run
    has, ``split`` chooses HELM's evaluation split (``test`` or ``valid``; HELM aggregates each apart), ``version`` the crfm-helm version recorded in the manifest. Bad or partial input raises
    :class:`~helmlite.imports.ImportFormatError` (a :class:`~helmlite.errors.DataError`) naming the file and field.
    """
    folder = Path(run_dir)
    if not folder.is_dir():
        raise ImportFormatError(f"{folder}: not a folder; expected a HELM run folder benchmark_output/runs/<suite>/<run>/ "
                                f"with {RUN_SPEC}, {SCENARIO_STATE} and {PER_INSTANCE}")
    spec_path, state_path, stats_path = folder / RUN_SPEC, folder / SCENARIO_STATE, folder / PER_INSTANCE
    run_spec = load_json(spec_path, "HELM's run spec (name, scenario_spec, adapter_spec)")
    name = get(run_spec, "name", spec_path, "the top level", str)
    adapter = get(run_spec, "adapter_spec", spec_path, "the top level", dict)
    method = get(adapter, "method", spec_path, "adapter_spec", str)
    model = model or get(adapter, "model", spec_path, "adapter_spec", str)
    scenario_args = get(get(run_spec, "scenario_spec", spec_path, "the top level", dict), "args", spec_path, "scenario_spec",
                        dict, default={})
    scenario = name.split(":", 1)[0]
    _, states = _request_states(state_path)
    per_instance = _per_instance(stats_path, split)
    if not per_instance:
        raise ImportFormatError(f"{stats_path}: no per-instance stats for split {split!r}")

    # instance id, trial, perturbation -> the request state that produced it (the first one for separate methods)
    by_key: dict[tuple, tuple[int, dict]] = {}
    for k, state in enumerate(states):
        key = _state_key(state, state_path, f"request_states[{k}]")
        if get(state["instance"], "split", state_path, f"request_states[{k}].instance", str, default="test") == split:
            by_key.setdefault(key, (k, state))
    missing = sorted(set(per_instance) - set(by_key))
    if missing:
        raise ImportFormatError(f"{stats_path}: instance {missing[0][0]!r} (train trial {missing[0][1]}) has no request state "
                                f"in {state_path}")
    names = sorted({m for values in per_instance.values() for m in values if _is_metric(m)})
    main = main_metric or next((m for m in MAIN_METRICS if m in names), None)
    if main is None or main not in names:
        raise ImportFormatError(f"{stats_path}: no per-instance metric {main_metric or ' / '.join(MAIN_METRICS)!r}; "
                                f"found {', '.join(names) or 'none'}")
    helm_aggregate = _helm_aggregate(folder / STATS, main, split)
    check_tool_mean(stats_path, [values[main] for key, values in per_instance.items()
                                 if key[2] is None and values.get(main) is not None],
                    main, helm_aggregate, f"{STATS} (HELM's own aggregate)", "copy the run folder again")
    files = {RUN_SPEC: spec_path, SCENARIO_STATE: state_path, PER_INSTANCE: stats_path}
    if (folder / STATS).is_file():
        files[STATS] = folder / STATS
    trials = sorted({trial for _, trial, _ in per_instance})
    written = []
    for trial in trials:
        records, latencies = _trial_records(trial, per_instance, by_key, method, main, state_path)
        rid = run_id("helm", name) + (f"-trial{trial}" if len(trials) > 1 else "")
        confidence_rule, metric_families = _confidences(records)
        n_train = max((r.n_train for r in records), default=0)
        spec = {"scenario": scenario, "model": model, "args": scenario_args, "adapter": {**adapter, "seed": trial},
                "max_instances": adapter.get("max_eval_instances"), "data_seed": 0, "metrics": list(metric_families),
                "source": "crfm-helm", "helm_run_name": name}
        source = {"tool": "crfm-helm", "version": version, "folder": str(folder.resolve()), "run_name": name,
                  "train_trial_index": trial, "split": split, "files": source_files(files),
                  "aggregate": {"metric": main, "helm_mean": helm_aggregate} if helm_aggregate is not None else None}
        decision = {"source": "crfm-helm", "prediction": _decision(method),
                    "correct": f"HELM's per-instance {main} >= 1", "confidence": confidence_rule}
        written.append(write_imported(
            results_dir, rid=rid, records=records, scenario=scenario, model=model, method=method, main_metric=main,
            metric_families=metric_families, n_train=n_train, spec=spec, source=source, decision=decision,
            timings={"latency_s": latencies, "source": "HELM's per-instance inference_runtime"},
            n_resamples=n_resamples, seed=seed, importer_version=VERSION))
    return written


def _trial_records(trial: int, per_instance: dict, by_key: dict, method: str, main: str, state_path: Path
                   ) -> tuple[list, list[float]]:
    """One train trial's records in HELM's order of request states, each with its perturbed variants, and the
    per-instance inference runtimes."""
    records, latencies = [], []
    originals = [(key, values) for key, values in per_instance.items() if key[1] == trial and key[2] is None]
    order = sorted(originals, key=lambda kv: by_key[kv[0]][0])  # HELM's order of request states
    for key, values in order:
        index, state = by_key[key]
        record = _record(state, values, method, main, state_path, f"request_states[{index}]")
        records.append(record)
        latencies.append(finite(values.get("inference_runtime")) or 0.0)
    by_id = {r.id: r for r in records}
    for key, values in per_instance.items():
        if key[1] != trial or key[2] is None or key[0] not in by_id:
            continue
        index, state = by_key[key]
        variant = _record(state, values, method, main, state_path, f"request_states[{index}]")
        label = key[2] if key[2] not in by_id[key[0]].perturbed else f"{key[2]}:{index}"
        by_id[key[0]].perturbed[label] = PerturbedOutcome(variant.prediction, variant.correct, variant.metrics)
    return records, latencies


def _confidences(records: list) -> tuple[str, tuple[str, ...]]:
    """The confidence rule the manifest states and the metric families the run computes; a run whose every max_prob
    is exactly 1 has its confidences dropped (HELM's HuggingFaceClient at temperature 0: log-probabilities of the
    temperature-warped distribution)."""
    confidences = [r.confidence for r in records if r.confidence is not None]
    degenerate = bool(confidences) and all(c == 1.0 for c in confidences)
    if degenerate:
        for record in records:
            record.confidence = None
    confidence_rule = ("none: every max_prob is exactly 1 (log-probabilities of 0, as HELM's HuggingFaceClient reports "
                       "at temperature 0), so calibration is not computed" if degenerate
                       else "HELM's max_prob" if confidences else "none: HELM recorded no max_prob")
    families = ("accuracy", "calibration", "efficiency") if confidences and not degenerate else ("accuracy", "efficiency")
    return confidence_rule, families


def _decision(method: str) -> str:
    if method == "multiple_choice_joint":
        return "HELM's greedy completion, stripped (a letter of output_mapping)"
    if method in _SEPARATE:
        return f"not reconstructed for {method} (HELM scores one request per reference): prediction is null"
    return "HELM's completion, stripped"


def _record(state: dict, values: dict, method: str, main: str, path: Path, where: str) -> InstanceRecord:
    instance = state["instance"]
    references = [(get(get(ref, "output", path, f"{where}.instance.references[{j}]", dict), "text", path,
                       f"{where}.instance.references[{j}].output", str), "correct" in (ref.get("tags") or []))
                  for j, ref in enumerate(get(instance, "references", path, f"{where}.instance", list))]
    request = get(state, "request", path, where, dict)
    completion = None if method in _SEPARATE else _completion(state, path, where)
    prediction = completion.strip() if completion is not None else None
    predicted_index = None
    mapping = state.get("output_mapping") or {}
    if method == "multiple_choice_joint" and prediction in mapping:
        letters = list(mapping)
        predicted_index = letters.index(prediction)
    metrics = {name: float(value) for name, value in values.items() if _is_metric(name)}
    main_value = metrics.get(main)
    return InstanceRecord(
        id=instance["id"], input=get(get(instance, "input", path, f"{where}.instance", dict), "text", path,
                                     f"{where}.instance.input", str),
        prompt=get(request, "prompt", path, f"{where}.request", str, default=""),
        n_train=int(state.get("num_train_instances") or 0), truncated=bool(state.get("prompt_truncated")),
        prompt_tokens=int(finite(values.get("num_prompt_tokens")) or 0), references=references,
        metadata={"split": instance.get("split"), "helm_train_trial_index": state.get("train_trial_index", 0)},
        prediction=prediction, correct=None if main_value is None else bool(main_value >= 1.0), metrics=metrics,
        completion=completion, output_tokens=int(finite(values.get("num_output_tokens")) or 0),
        predicted_index=predicted_index, confidence=finite(values.get("max_prob")))


def _helm_aggregate(path: Path, main: str, split: str) -> float | None:
    """HELM's own mean of ``main`` over ``split`` (``stats.json``), or None when the file is absent."""
    if not path.is_file():
        return None
    raw = load_json(path, "HELM's list of aggregate stats")
    if not isinstance(raw, list):
        raise ImportFormatError(f"{path}: expected a list of stats, got {type(raw).__name__}")
    for k, stat in enumerate(raw):
        name = get(stat, "name", path, f"[{k}]", dict)
        if name.get("name") == main and name.get("split") == split and name.get("perturbation") is None:
            return get(stat, "mean", path, f"[{k}]", (int, float))
    return None
