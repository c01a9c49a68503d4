"""Importing inspect_ai logs: the real ``.eval`` logs under tests/data/inspect/ (recipe:
benchmarks/inspect_import_fixture.py, inspect-ai 0.3.285, two models, 10 MMLU items) reproduce inspect's own
accuracy exactly, in both of inspect's log formats; bad input gets one clear error and exit status 2."""
from __future__ import annotations

from pathlib import Path

import pytest
from inspect_ai.log import read_eval_log, write_eval_log

from helmlite import cli
from helmlite.data import sha256_of
from helmlite.errors import DataError
from helmlite.imports import ImportFormatError, import_inspect
from helmlite.results import read_run

DATA = Path(__file__).parent / "data" / "inspect"
MODELS = ("smollm2-135m", "gemma3-270m")
BOOT = {"n_resamples": 200, "seed": 0}


def log_file(model: str) -> Path:
    return next((DATA / model).glob("*.eval"))


@pytest.mark.parametrize("model", MODELS)
def test_import_reproduces_inspects_accuracy_and_samples(tmp_path, model):
    log = read_eval_log(str(log_file(model)))
    run = read_run(tmp_path, import_inspect(log_file(model), tmp_path, **BOOT).name)
    accuracy = log.results.scores[0].metrics["accuracy"].value
    assert run.run_id == f"inspect-mmlu-{model}" and run.model == model and run.scenario_label == "mmlu:us_foreign_policy"
    assert run.main_metric == "pattern" and run.stats.n_instances == len(log.samples) == 10
    assert run.stats.metrics["pattern"].mean == accuracy  # exactly inspect's number
    assert run.stats.metrics["pattern"].method == "clopper-pearson"
    for record, sample in zip(run.records, log.samples):
        score = sample.scores["pattern"]
        assert record.id == sample.id and record.input == sample.input and record.completion == sample.output.completion
        assert record.metrics == {"pattern": 1.0 if score.value == "C" else 0.0} and record.correct == (score.value == "C")
        assert [text for text, _ in record.references] == sample.choices
        assert [ok for _, ok in record.references] == [letter == sample.target for letter in "ABCD"]
        assert record.prompt.startswith(sample.input) and record.prompt.endswith("\nAnswer:")
    source = run.manifest.imported_from
    assert source["tool"] == "inspect_ai" and source["version"] == "0.3.285" and source["task"] == "mmlu"
    assert source["model"] == "hf/local" and source["files"][log_file(model).name]["sha256"] == sha256_of(log_file(model))
    assert source["aggregate"] == {"metric": "pattern", "inspect_accuracy": accuracy,
                                   "inspect_stderr": log.results.scores[0].metrics["stderr"].value}
    assert run.spec.source == "inspect_ai" and run.spec.args == {"subject": "us_foreign_policy"}
    assert run.manifest.versions == {"importer": {"inspect_ai": 1}, "metrics": {"accuracy": 1}}  # issue 27 §2


def test_json_and_eval_logs_import_to_the_same_run(tmp_path):
    """inspect's two formats: the same log written as .json by inspect itself imports to identical records and stats."""
    as_json = tmp_path / "log.json"
    write_eval_log(read_eval_log(str(log_file("smollm2-135m"))), str(as_json))
    a = read_run(tmp_path / "a", import_inspect(log_file("smollm2-135m"), tmp_path / "a", **BOOT).name)
    b = read_run(tmp_path / "b", import_inspect(as_json, tmp_path / "b", **BOOT).name)
    assert a.stats == b.stats and a.records == b.records


def _rewritten(tmp_path: Path, edit, suffix: str = ".eval") -> Path:
    log = read_eval_log(str(log_file("smollm2-135m")))
    edit(log)
    path = tmp_path / f"edited{suffix}"
    write_eval_log(log, str(path))
    return path


def _flip_first_score(log):
    log.samples[0].scores["pattern"].value = "I" if log.samples[0].scores["pattern"].value == "C" else "C"


def _drop_samples(log):
    log.samples = []


def _error_status(log):
    log.status = "error"


def _duplicate_sample(log):
    log.samples.append(log.samples[0])


def _dict_value(log):
    log.samples[3].scores["pattern"].value = {"first": "C", "second": "I"}


@pytest.mark.parametrize("case, message", [
    ("absent", "absent.eval: file not found (expected an inspect_ai log, .eval or .json)"),
    ("truncated", "inspect_ai cannot read it as an evaluation log"),
    ("score edited", "mean pattern of its 10 instances is 0.400000, but inspect's own accuracy of scorer 'pattern' says 0.500000"),
    ("no samples", "the log holds no samples"),
    ("status error", "the evaluation's status is 'error'; expected 'success'"),
    ("unknown scorer", "no scorer 'nope'; the log's scorers: pattern"),
    ("duplicate sample", "(id 'mmlu/us_foreign_policy/test/0', epoch 1) appears twice; a log holds each sample once per epoch"),
    ("dict value", "samples[3] (id 'mmlu/us_foreign_policy/test/3', epoch 1): scores['pattern'].value {'first': 'C'"),
])
def test_bad_logs_get_one_clear_error_and_exit_2(tmp_path, capsys, case, message):
    path, extra = {"absent": lambda: (tmp_path / "absent.eval", []),
                   "truncated": lambda: (_truncated(tmp_path), []),
                   "score edited": lambda: (_rewritten(tmp_path, _flip_first_score), []),
                   "no samples": lambda: (_rewritten(tmp_path, _drop_samples), []),
                   "status error": lambda: (_rewritten(tmp_path, _error_status), []),
                   "duplicate sample": lambda: (_rewritten(tmp_path, _duplicate_sample, ".json"), []),  # .eval keys samples
                   "dict value": lambda: (_rewritten(tmp_path, _dict_value), []),
                   "unknown scorer": lambda: (log_file("smollm2-135m"), ["--scorer", "nope"])}[case]()
    if not extra:
        with pytest.raises(ImportFormatError) as error:
            import_inspect(path, tmp_path / "out", **BOOT)
        assert message in str(error.value) and str(path) in str(error.value) and isinstance(error.value, DataError)
    assert cli.main(["import", "inspect", str(path), "--results-dir", str(tmp_path / "out"), *extra]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and message in err[0]
    assert not (tmp_path / "out").exists()  # nothing half-written


def _truncated(tmp_path: Path) -> Path:
    path = tmp_path / "cut.eval"
    data = log_file("smollm2-135m").read_bytes()
    path.write_bytes(data[: len(data) // 2])
    return path
