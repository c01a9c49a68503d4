"""Import lm-evaluation-harness's ``--log_samples`` output (``samples_<task>_<date>.jsonl``) as a helmlite run.

lm-eval writes one JSON line per document and filter: ``doc_id``, ``doc``, ``target``, ``arguments`` (the
requests: ``{"gen_args_0": {"arg_0": context, "arg_1": continuation}, ...}``, or a list of pairs in older
versions), ``resps``/``filtered_resps`` (multiple choice: one ``[log-likelihood, is_greedy]`` per choice;
generation: the generated text), ``filter``, ``metrics`` (the names) and one value per metric
(``acc``, ``acc_norm``, ``exact_match``, ...). Beside it, ``results_<date>.json`` holds the aggregates, the
model name, the number of shots and lm-eval's version; the import reads it when it is there.

* one record per document (of the filter ``none``, or the first filter in the file, or the one named):
  multiple choice — the per-choice log-likelihoods as ``scores`` (their softmax as ``probabilities``, the
  largest as ``confidence``), the choice with the largest log-likelihood as ``prediction`` and
  ``predicted_index``, the continuations (leading space stripped) as references, lm-eval's per-document
  ``acc`` and ``acc_norm`` as metrics and ``correct`` = ``acc`` (main metric); generation — the filtered
  response as prediction and lm-eval's per-document metrics;
* run id ``lm-eval-<task>-<model>`` (sanitised; ``-<filter>`` appended for a filter other than ``none``);
  the model name comes from ``model`` or the results file (a local path's last component);
* stats with helmlite's intervals and a manifest naming the source: lm-eval's version, each file's
  sha256, lm-eval's own aggregate and standard error of the main metric.
"""
from __future__ import annotations

import re
import sys
from pathlib import Path

import numpy as np

from .._jsonl import DataFormatError, read_jsonl
from ..metrics import softmax
from ..results import InstanceRecord
from ._common import ImportFormatError, check_tool_mean, finite, get, load_json, run_id, source_files, write_imported

#: This importer's version: raise it when a change alters what it writes for the same files (the manifest records it).
VERSION = 1

_NAME = re.compile(r"^samples_(?P<task>.+?)_(?P<date>\d{4}-\d{2}-\d{2}T[0-9.:-]+)$")


def _task_and_results(path: Path) -> tuple[str, Path | None]:
    """The task name and the matching ``results_<date>.json`` (same folder, same date) from the file name."""
    stem = path.name.removesuffix(".gz").removesuffix(".jsonl")
    match = _NAME.match(stem)
    if not match:
        return stem.removeprefix("samples_"), None
    results = path.parent / f"results_{match['date']}.json"
    return match["task"], results if results.is_file() else None


def _requests(arguments, path: Path, where: str) -> list[tuple[str, object]]:
    """(context, continuation or generation arguments) per request, from either of lm-eval's layouts."""
    if isinstance(arguments, dict):
        out = []
        for key in sorted(arguments, key=lambda k: int(re.sub(r"\D", "", k) or 0)):
            args = get(arguments, key, path, f"{where}.arguments", dict)
            out.append((get(args, "arg_0", path, f"{where}.arguments.{key}", str), args.get("arg_1")))
        return out
    if isinstance(arguments, list):
        out = []
        for k, args in enumerate(arguments):
            if not isinstance(args, list) or not args or not isinstance(args[0], str):
                raise ImportFormatError(f"{path}: {where}.arguments[{k}] is not a [context, continuation] list")
            out.append((args[0], args[1] if len(args) > 1 else None))
        return out
    raise ImportFormatError(f"{path}: {where}.arguments is {type(arguments).__name__}, expected an object or a list")


def _log_likelihoods(responses, path: Path, where: str) -> list[float] | None:
    """Per-choice log-likelihoods when ``filtered_resps`` is multiple choice's ``[[ll, is_greedy], ...]``, else None."""
    if not isinstance(responses, list) or not responses or not all(isinstance(r, list) and r for r in responses):
        return None
    values = [finite(r[0]) for r in responses]
    if any(v is None for v in values):
        raise ImportFormatError(f"{path}: {where}.filtered_resps holds a log-likelihood that is not a finite number")
    return values


def _gold(target, choices: list[str]) -> set[int]:
    """Indices of the correct choices from lm-eval's ``target`` (an index, its string, a list, or the choice text)."""
    targets = target if isinstance(target, list) else [target]
    out = set()
    for t in targets:
        if isinstance(t, bool):
            continue
        if isinstance(t, int) or (isinstance(t, str) and t.strip().isdigit()):
            out.add(int(t))
        elif isinstance(t, str) and t.strip() in choices:
            out.add(choices.index(t.strip()))
    return out


def _model_name(results: dict | None, results_path: Path | None, model: str | None, samples: Path) -> str:
    if model:
        return model
    name = (results or {}).get("model_name")
    if not isinstance(name, str) or not name:
        where = f"{results_path} has no field 'model_name'" if results_path else f"no results_<date>.json beside {samples}"
        raise ImportFormatError(f"{where}: give the model name with --model")
    return Path(name).name if name.startswith(("/", "./", "../")) else name


def _limit(limit) -> int | None:
    """lm-eval's ``--limit`` as a count of instances: a whole number (the config stores 10 as 10.0); None for none or
    for a fraction of the task (below 1, which lm-eval reads as a share)."""
    if isinstance(limit, (int, float)) and not isinstance(limit, bool) and limit >= 1 and float(limit).is_integer():
        return int(limit)
    return None


def _samples_of(path: Path, filter_name: str | None) -> tuple[str, Path | None, dict | None, list, str]:
    """The samples file read and checked: its task, the results file beside it (or None) and its contents, the file's
    numbered lines, and the filter whose responses are imported (``filter_name``, else ``none``, else the first)."""
    if not path.is_file():
        raise ImportFormatError(f"{path}: file not found (expected lm-eval --log_samples output, samples_<task>_<date>.jsonl)")
    task, results_path = _task_and_results(path)
    results = load_json(results_path, "lm-eval's results (results, n-shot, model_name)") if results_path else None
    if results is not None and not isinstance(results, dict):
        raise ImportFormatError(f"{results_path}: expected a JSON object, got {type(results).__name__}")
    try:
        lines = list(read_jsonl(path))
    except DataFormatError as error:
        raise ImportFormatError(f"{error} (lm-eval --log_samples output expected)") from None
    if not lines:
        raise ImportFormatError(f"{path}: no samples (an empty file; expected lm-eval --log_samples output)")
    filters = list(dict.fromkeys(str(obj.get("filter", "none")) for _, obj in lines))
    chosen = filter_name or ("none" if "none" in filters else filters[0])
    if chosen not in filters:
        raise ImportFormatError(f"{path}: no samples of filter {chosen!r}; the file has {', '.join(filters)}")
    return task, results_path, results, lines, chosen


def _filter_records(path: Path, lines: list, chosen: str, n_shot) -> tuple[list[InstanceRecord], bool]:
    """One record per document of filter ``chosen`` (each doc_id once), and whether they are multiple choice (a task's
    samples are all multiple choice or all generation)."""
    records, seen, kinds = [], set(), set()
    for number, obj in lines:
        if str(obj.get("filter", "none")) != chosen:
            continue
        where = f"line {number}"
        doc_id = str(get(obj, "doc_id", path, where, (int, str)))
        if doc_id in seen:
            raise ImportFormatError(f"{path}: {where}: doc_id {doc_id} appears twice for filter {chosen!r}")
        seen.add(doc_id)
        records.append(_record(obj, doc_id, path, where, n_shot))
        kinds.add("mc" if records[-1].scores is not None else "generation")
    if len(kinds) > 1:
        raise ImportFormatError(f"{path}: mixes multiple-choice and generation samples; expected one task's output")
    return records, kinds == {"mc"}


def import_lm_eval(samples: str | Path, results_dir: str | Path = "results/runs", *, model: str | None = None,
                   filter_name: str | None = None, n_resamples: int = 2000, seed: int = 0) -> Path:
    """Import one lm-eval samples file; return the written run folder.

    ``model`` names the model (default: the results file's ``model_name``), ``filter_name`` the lm-eval
    filter whose responses to import (default ``none``, else the file's first). Bad or partial input raises
    :class:`~helmlite.imports.ImportFormatError` (a :class:`~helmlite.errors.DataError`) naming the file,
    line and field.
    """
    path = Path(samples)
    task, results_path, results, lines, chosen = _samples_of(path, filter_name)
    model = _model_name(results, results_path, model, path)
    n_shot = (results or {}).get("n-shot", {}).get(task)
    config = (results or {}).get("config") or {}
    records, multiple_choice = _filter_records(path, lines, chosen, n_shot)
    expected = (((results or {}).get("n-samples") or {}).get(task) or {}).get("effective")
    if isinstance(expected, int) and len(records) != expected:
        raise ImportFormatError(f"{path}: {len(records)} samples of filter {chosen!r}, but {results_path.name} says lm-eval "
                                f"evaluated {expected} (n-samples.effective): the samples file is incomplete (cut short?) "
                                f"or from another run; export both files of one run again")
    metric_names = list(dict.fromkeys(m for r in records for m in r.metrics))
    main = "acc" if "acc" in metric_names else (metric_names[0] if metric_names else None)
    if main is None:
        raise ImportFormatError(f"{path}: line {lines[0][0]} has no metric value (expected the fields named in 'metrics', e.g. acc)")
    reported = ((results or {}).get("results") or {}).get(task) or {}
    _check_against_tool(path, results_path, records, main, chosen, expected, reported.get(f"{main},{chosen}"))
    for record in records:
        value = record.metrics.get(main)
        record.correct = None if value is None else bool(value >= 1.0)
    method = "multiple_choice_separate" if multiple_choice else "generation"
    metric_families = ("accuracy", "calibration") if multiple_choice else ("accuracy",)
    aggregate = {"metric": main, "filter": chosen, "lm_eval_mean": reported.get(f"{main},{chosen}"),
                 "lm_eval_stderr": reported.get(f"{main}_stderr,{chosen}")} if reported else None
    files = {path.name: path, **({results_path.name: results_path} if results_path else {})}
    rid = run_id("lm-eval", f"{task}-{model}") + ("" if chosen == "none" else f"-{run_id('filter', chosen)}")
    fewshot_seed = config.get("fewshot_seed") if isinstance(config.get("fewshot_seed"), int) else 0
    spec = {"scenario": task, "model": model, "args": {},
            "adapter": {"method": method, "seed": fewshot_seed, "num_fewshot": n_shot, "filter": chosen},
            "max_instances": _limit(config.get("limit")), "data_seed": 0, "metrics": list(metric_families), "source": "lm-eval",
            "task_version": ((results or {}).get("versions") or {}).get(task)}
    source = {"tool": "lm-eval", "version": (results or {}).get("lm_eval_version"), "file": str(path.resolve()),
              "task": task, "filter": chosen, "model_args": config.get("model_args"), "files": source_files(files),
              "aggregate": aggregate}
    decision = ({"source": "lm-eval", "prediction": "the choice with the largest summed log-likelihood (acc's rule)",
                 "correct": f"lm-eval's per-document {main}", "confidence": "softmax of the choices' log-likelihoods"}
                if multiple_choice else {"source": "lm-eval", "prediction": f"the response of filter {chosen!r}",
                                         "correct": f"lm-eval's per-document {main} >= 1"})
    return write_imported(results_dir, rid=rid, records=records, scenario=task, model=model, method=method, main_metric=main,
                          metric_families=metric_families, n_train=int(n_shot or 0), spec=spec, source=source,
                          decision=decision, timings={"source": "lm-eval records no per-document times"},
                          n_resamples=n_resamples, seed=seed, importer_version=VERSION)


def _check_against_tool(path: Path, results_path: Path | None, records: list[InstanceRecord], main: str, chosen: str,
                        expected, reported) -> None:
    """Refuse samples whose mean disagrees with lm-eval's own aggregate (a file cut at a line boundary, or
    from another run); say on stderr, in one line, what could not be checked."""
    check_tool_mean(path, [r.metrics[main] for r in records if r.metrics.get(main) is not None], main,
                    reported if isinstance(reported, (int, float)) else None,
                    f"{results_path.name if results_path else ''} (filter {chosen!r})", "export both files of one run again")
    missing = [what for what, value in (("the sample count (n-samples)", expected), (f"the mean {main}", reported))
               if not isinstance(value, (int, float))]
    if missing:
        where = f"{results_path.name} lacks" if results_path else "no results_<date>.json beside it to check"
        print(f"helmlite: warning: {path.name}: {where} {' and '.join(missing)}; imported {len(records)} samples "
              f"unchecked against lm-eval's own aggregate", file=sys.stderr)


def _record(obj: dict, doc_id: str, path: Path, where: str, n_shot) -> InstanceRecord:
    requests = _requests(get(obj, "arguments", path, where), path, where)
    if not requests:
        raise ImportFormatError(f"{path}: {where}.arguments is empty")
    responses = get(obj, "filtered_resps", path, where, list)
    metric_names = get(obj, "metrics", path, where, list, default=None)
    if metric_names is None:  # older versions: every numeric field that is not part of the sample itself
        metric_names = [k for k, v in obj.items() if k not in _SAMPLE_FIELDS and finite(v) is not None]
    metrics = {}
    for name in metric_names:
        value = finite(get(obj, name, path, where))
        if value is None:
            raise ImportFormatError(f"{path}: {where}.{name} is not a number")
        metrics[str(name)] = value
    context = requests[0][0]
    text_input = context.rsplit("\n\n", 1)[-1]  # the last block: the document after the few-shot examples
    common = dict(id=doc_id, input=text_input, prompt=context, n_train=int(n_shot or 0), truncated=False, prompt_tokens=0,
                  metadata={"doc_id": obj["doc_id"], "doc_hash": obj.get("doc_hash")}, metrics=metrics)
    scores = _log_likelihoods(responses, path, where)
    if scores is not None:
        if len(scores) != len(requests):
            raise ImportFormatError(f"{path}: {where}.filtered_resps has {len(scores)} log-likelihoods for "
                                    f"{len(requests)} requests in arguments")
        choices = [str(c if isinstance(c, str) else "").removeprefix(" ") for _, c in requests]
        gold = _gold(obj.get("target"), choices)
        best = int(np.argmax(scores))
        probabilities = softmax(scores)
        return InstanceRecord(**common, references=[(c, k in gold) for k, c in enumerate(choices)], prediction=choices[best],
                              correct=None, scores=scores, probabilities=probabilities, predicted_index=best,
                              confidence=max(probabilities))
    text = responses[0] if responses and isinstance(responses[0], str) else None
    if text is None:
        raise ImportFormatError(f"{path}: {where}.filtered_resps is neither [[log-likelihood, is_greedy], ...] nor [text]")
    target = obj.get("target")
    references = [(str(t), True) for t in (target if isinstance(target, list) else [target]) if t is not None]
    return InstanceRecord(**common, references=references, prediction=text.strip(), correct=None, completion=text)


_SAMPLE_FIELDS = {"doc_id", "doc", "target", "arguments", "resps", "filtered_resps", "filter", "metrics", "doc_hash",
                  "prompt_hash", "target_hash"}
