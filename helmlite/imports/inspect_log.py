"""Import an inspect_ai evaluation log (``.eval`` or ``.json``) as a helmlite run.

The log is read with inspect_ai's own reader (``inspect_ai.log.read_eval_log``; the ``inspect`` extra pins the
version), so both of its formats and their versions are read as inspect reads them. An inspect log holds the task
(``eval.task``, ``eval.task_args``, ``eval.task_version``), the model, the scorers' aggregates
(``results.scores[k].metrics``) and one ``EvalSample`` per sample and epoch: ``id``, ``input``, ``choices``,
``target``, ``output.completion``, ``messages`` and ``scores`` (scorer name → ``Score(value, answer)``).

* one record per sample id: the score of the chosen scorer (default: the log's first) turned into a number as
  inspect's own metrics do (``inspect_ai.scorer.value_to_float``: ``C`` → 1, ``I`` → 0, ``P`` → 0.5, numbers as
  they are) is the per-instance metric named after the scorer and the run's main metric; over several epochs the
  sample's values are reduced by their mean, inspect's default reducer (a log scored with another reducer is
  refused); the choices (``target``'s letters marked correct) or the target texts are the references, the scorer's
  ``answer`` the prediction, the first user message sent to the model the prompt;
* run id ``inspect-<task>-<model>`` (sanitised); scenario = the task's name and arguments, method
  ``multiple_choice_joint`` for samples with choices (inspect's ``multiple_choice()`` asks for the letter in one
  prompt), else ``generation``;
* the mean over samples must equal inspect's own ``accuracy`` (or ``mean``) of that scorer, else the import is
  refused; the manifest names inspect's version, the task, the model, the log's sha256 and keeps inspect's
  aggregate and standard error beside helmlite's interval.
"""
from __future__ import annotations

import sys
from collections import defaultdict
from pathlib import Path

from ..errors import UserError
from ..results import InstanceRecord
from ._common import ImportFormatError, check_tool_mean, finite, run_id, source_files, write_imported

#: This importer's version: raise it when a change alters what it writes for the same files (the manifest records it).
VERSION = 1

_AGGREGATES = ("accuracy", "mean")  # inspect's metrics that are the mean of the per-sample values


def _read_log(path: Path):
    """inspect's EvalLog of ``path`` with its samples; missing inspect, an unreadable log or one that did not finish
    is one error naming the file."""
    try:
        from inspect_ai.log import read_eval_log
    except ImportError:
        raise UserError("import inspect: inspect_ai is not installed; install it with pip install 'helmlite[inspect]'") from None
    if not path.is_file():
        raise ImportFormatError(f"{path}: file not found (expected an inspect_ai log, .eval or .json)")
    try:
        log = read_eval_log(str(path))
    except Exception as error:  # inspect's reader raises zip, JSON and pydantic errors alike for a damaged log
        first = " ".join(str(error).split())[:200]
        raise ImportFormatError(f"{path}: inspect_ai cannot read it as an evaluation log ({type(error).__name__}: {first})") from None
    if log.status != "success":
        raise ImportFormatError(f"{path}: the evaluation's status is {log.status!r}; expected 'success' (a finished run)")
    if not log.samples:
        raise ImportFormatError(f"{path}: the log holds no samples (written with --no-log-samples?); the import needs them")
    return log


def _scorer(log, path: Path, name: str | None):
    """The EvalScore of the chosen scorer (default: the first) and inspect's mean of it (accuracy or mean)."""
    scores = list(log.results.scores) if log.results else []
    names = [s.name for s in scores]
    if not scores:
        raise ImportFormatError(f"{path}: results.scores is empty; expected the scorers' aggregates")
    chosen = next((s for s in scores if s.name == (name or names[0])), None)
    if chosen is None:
        raise ImportFormatError(f"{path}: no scorer {name!r}; the log's scorers: {', '.join(names)}")
    if chosen.reducer not in (None, "mean"):
        raise ImportFormatError(f"{path}: scorer {chosen.name!r} reduced epochs with {chosen.reducer!r}; the import "
                                f"reduces by the mean (inspect's default)")
    aggregate = next(((m, chosen.metrics[m].value) for m in _AGGREGATES if m in chosen.metrics), (None, None))
    return chosen, aggregate


def _text(content) -> str:
    """A message's or input's text: a string as it is, a list of messages or content parts joined."""
    if isinstance(content, str):
        return content
    return "\n".join(getattr(part, "text", "") or "" for part in content)


def _prompt(sample) -> str:
    users = [m for m in sample.messages or [] if getattr(m, "role", None) == "user"]
    return _text(users[0].content) if users else _text(sample.input)


def _references(sample) -> list[tuple[str, bool]]:
    targets = sample.target if isinstance(sample.target, list) else [sample.target]
    if sample.choices:
        letters = {t.strip().upper() for t in targets}
        return [(choice, chr(ord("A") + k) in letters) for k, choice in enumerate(sample.choices)]
    return [(str(t), True) for t in targets]


def _record(samples: list, scorer: str, value: float, n_epochs: int) -> InstanceRecord:
    first = samples[0]
    score = first.scores[scorer]
    answer = score.answer if isinstance(score.answer, str) else None
    letters = [chr(ord("A") + k) for k in range(len(first.choices or []))]
    completion = first.output.completion if first.output else None
    return InstanceRecord(
        id=str(first.id), input=_text(first.input), prompt=_prompt(first), n_train=0, truncated=False, prompt_tokens=0,
        references=_references(first), metadata={"inspect_id": first.id, "epochs": n_epochs},
        prediction=answer if answer is not None else (completion or "").strip(), correct=value >= 1.0,
        metrics={scorer: value}, completion=completion,
        predicted_index=letters.index(answer.strip().upper()) if answer and answer.strip().upper() in letters else None)


def _model_name(log) -> str:
    """inspect's model name; for a local model (``hf/local``, ``vllm/local``) the last component of its ``model_path``,
    so that two local models get two names."""
    path = (log.eval.model_args or {}).get("model_path")
    if log.eval.model.endswith("/local") and isinstance(path, str) and path:
        return Path(path).name
    return log.eval.model


def import_inspect(log_file: str | Path, results_dir: str | Path = "results/runs", *, model: str | None = None,
                   scorer: str | None = None, n_resamples: int = 2000, seed: int = 0) -> Path:
    """Import one inspect_ai log; return the written run folder. ``model`` renames the model (default: inspect's
    model name), ``scorer`` picks the scorer (default: the log's first). Bad input raises
    :class:`~helmlite.imports.ImportFormatError` naming the file and the field."""
    path = Path(log_file)
    log = _read_log(path)
    chosen, (aggregate_name, aggregate) = _scorer(log, path, scorer)
    from inspect_ai.scorer import value_to_float

    to_float = value_to_float()
    by_id, seen = defaultdict(list), set()
    for k, sample in enumerate(log.samples):
        where = f"samples[{k}] (id {sample.id!r}, epoch {sample.epoch})"
        if (str(sample.id), sample.epoch) in seen:
            raise ImportFormatError(f"{path}: {where} appears twice; a log holds each sample once per epoch")
        seen.add((str(sample.id), sample.epoch))
        if not sample.scores or chosen.name not in sample.scores:
            raise ImportFormatError(f"{path}: {where} has no score of scorer {chosen.name!r}")
        raw = sample.scores[chosen.name].value
        value = None if isinstance(raw, (dict, list)) else finite(to_float(raw))
        if value is None:
            raise ImportFormatError(f"{path}: {where}: scores[{chosen.name!r}].value {raw!r:.80} is not one number "
                                    f"(a dict or list of values needs --scorer for one of them, or is not a 0/1 or numeric "
                                    f"score)")
        by_id[str(sample.id)].append((sample, value))
    records = [_record([s for s, _ in pairs], chosen.name, sum(v for _, v in pairs) / len(pairs), len(pairs))
               for pairs in by_id.values()]
    reported = aggregate if isinstance(aggregate, (int, float)) else None
    if reported is None:
        print(f"helmlite: warning: {path.name}: scorer {chosen.name!r} has no accuracy or mean metric; imported "
              f"{len(records)} samples unchecked against inspect's own aggregate", file=sys.stderr)
    check_tool_mean(path, [r.metrics[chosen.name] for r in records], chosen.name, reported,
                    f"inspect's own {aggregate_name} of scorer {chosen.name!r}", "import the log inspect wrote, unedited")
    spec_model = model or _model_name(log)
    method = "multiple_choice_joint" if all(pairs[0][0].choices for pairs in by_id.values()) else "generation"
    task_args = {k: v for k, v in (log.eval.task_args or {}).items() if isinstance(v, (str, int, float, bool))}
    stderr = chosen.metrics["stderr"].value if "stderr" in chosen.metrics else None
    spec = {"scenario": log.eval.task, "model": spec_model, "args": task_args,
            "adapter": {"method": method, "solver": [step.solver for step in log.plan.steps] if log.plan else [],
                        "epochs": max(len(pairs) for pairs in by_id.values())},
            "max_instances": log.eval.config.limit if isinstance(log.eval.config.limit, int) else None, "data_seed": 0,
            "metrics": ["accuracy"], "source": "inspect_ai", "task_version": log.eval.task_version}
    source = {"tool": "inspect_ai", "version": (log.eval.packages or {}).get("inspect_ai"), "file": str(path.resolve()),
              "task": log.eval.task, "model": log.eval.model, "scorer": chosen.name, "files": source_files({path.name: path}),
              "aggregate": {"metric": chosen.name, f"inspect_{aggregate_name}": aggregate, "inspect_stderr": stderr}}
    decision = {"source": "inspect_ai", "prediction": f"the answer scorer {chosen.name!r} extracted",
                "correct": f"scorer {chosen.name!r}'s value through inspect's value_to_float, mean over epochs, >= 1"}
    return write_imported(results_dir, rid=run_id("inspect", f"{log.eval.task}-{spec_model}"), records=records,
                          scenario=log.eval.task, model=spec_model, method=method, main_metric=chosen.name,
                          metric_families=("accuracy",), n_train=0, spec=spec, source=source, decision=decision,
                          timings={"source": "inspect_ai records per-sample times; not imported"},
                          n_resamples=n_resamples, seed=seed, importer_version=VERSION)
