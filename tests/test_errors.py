"""Bad input: each case stops with one clear message naming the file/field and what was expected.

The table lists the case, the call that must fail, and text the message must contain.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from helmlite import data, workflow
from helmlite._jsonl import DataFormatError
from helmlite.evaluation.adaptation import AdapterSpec, adapt
from helmlite.analyses.helpsteer2 import load_disagreements
from helmlite.errors import DataError, HelmliteError, UserError
from helmlite.metrics import best_over_references
from helmlite.models import ModelError, load_model
from helmlite.report.parameters import ParameterError, check_parameters as check
from helmlite.evaluation.runner import RunSpec, execute
from helmlite.evaluation.runspec import RunError
from helmlite.scenarios import Instance, Reference, UnknownScenarioError, scenario

from .fakes import WordModel

REPO = Path(__file__).resolve().parent.parent


def write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return path


def bad_config(tmp_path):
    return workflow.load_config(write(tmp_path, "c.yaml", "analyses: [helpsteer2]\nbootstrap: {n_resamples: ten}\n"))


CASES = [
    ("malformed JSONL line", DataFormatError, r"d.jsonl, line 2: malformed JSON",
     lambda t: load_disagreements(write(t, "d.jsonl", json.dumps({"prompt": "p", "response": "r", **{a: [1, 2, 3] for a in
                                  ("helpfulness", "correctness", "coherence", "complexity", "verbosity")}}) + '\n{oops\n'))),
    ("missing required field", DataFormatError, r"d.jsonl, line 1: missing required field 'response'",
     lambda t: load_disagreements(write(t, "d.jsonl", '{"prompt": "p"}\n'))),
    ("wrong type", DataFormatError, r"field 'helpfulness' must hold integers 0-4, got '3'",
     lambda t: load_disagreements(write(t, "d.jsonl", json.dumps({"prompt": "p", "response": "r", "helpfulness": ["3"]}) + "\n"))),
    ("empty dataset", DataFormatError, r"d.jsonl: no samples \(empty file\)", lambda t: load_disagreements(write(t, "d.jsonl", "\n"))),
    ("unknown scenario", UnknownScenarioError, r"unknown scenario 'boolqq'.*Did you mean: boolq", lambda t: scenario("boolqq")),
    ("unknown model", ModelError, r"unknown model 'smollm2-13m': not an embedded model", lambda t: load_model("smollm2-13m")),
    ("unknown metric", ValueError, r"unknown metric 'f_1'.*Did you mean: f1", lambda t: best_over_references("f_1", "a", ["a"])),
    ("unknown data file", data.UnknownDataError, r"Did you mean: helmet/agg_results_128k.csv",
     lambda t: data.entry("helmet/agg_results.csv")),
    ("invalid config value", workflow.ConfigError, r"c.yaml: invalid configuration at bootstrap.n_resamples: 'ten' is not of type 'integer'$",
     bad_config),
    ("notebook parameter of the wrong type", ParameterError, r"notebook parameter 'n_resamples' must be int, got str 'many'",
     lambda t: check({"n_resamples": "many"}, {"n_resamples": int})),
    ("mirror directory that does not exist", data.FetchError, r"HELMLITE_DATA_MIRROR='/nonexistent/mirror' is not a directory",
     "mirror"),
    ("model directory missing its weights", ModelError, r"has no weights \(\*.safetensors or \*.bin\)",
     lambda t: load_model(str(write(t, "tokenizer.json", "{}").parent if write(t, "config.json", '{"model_type": "llama"}')
                              else None))),
    ("prompt longer than the context after truncation", ModelError, r"exceeds the model's context of 3 tokens",
     lambda t: adapt(Instance("x", "a b c d e", (Reference("y", True),), "test"), [], AdapterSpec(max_tokens=2),
                     WordModel(max_context=3))),
    ("scenario with no instances after filtering", RunError, r"scenario 'blimp' with .* has no test instances", "empty"),
    ("unknown scenario argument", UnknownScenarioError, r"unknown argument 'subjct'; accepted: \['subject'\]. Did you mean: subject\?",
     lambda t: execute(RunSpec.from_dict({"scenario": "mmlu", "model": "w", "args": {"subjct": "x"}}), WordModel(), results_dir=t)),
]


@pytest.mark.parametrize("case,error,message,call", CASES, ids=[c[0] for c in CASES])
def test_bad_input_gets_one_clear_error(tmp_path, monkeypatch, mirrored_cache, case, error, message, call):
    if call == "mirror":
        monkeypatch.setenv("HELMLITE_DATA_MIRROR", "/nonexistent/mirror")
        call = lambda t: data.fetch("helmet/agg_results_128k.csv")  # noqa: E731
    if call == "empty":
        from dataclasses import replace

        from helmlite.scenarios import _base

        empty = replace(scenario("blimp"), load=lambda paradigm="x": [])  # a loader whose filter keeps nothing
        monkeypatch.setitem(_base._REGISTRY, "blimp", empty)
        call = lambda t: execute(RunSpec.from_dict({"scenario": "blimp", "model": "w"}), WordModel(), results_dir=t)  # noqa: E731
    with pytest.raises(error, match=message):
        call(tmp_path)
    assert not list(tmp_path.rglob("*.part"))  # nothing half-written


HIERARCHY = [
    (workflow.ConfigError, UserError, ()), (RunError, UserError, ()), (ParameterError, UserError, (TypeError,)),
    (UnknownScenarioError, UserError, (KeyError,)), (data.UnknownDataError, UserError, (KeyError,)),
    (data.FetchError, DataError, (RuntimeError,)), (DataFormatError, DataError, ()),
    (ModelError, HelmliteError, (RuntimeError,)),
]


@pytest.mark.parametrize("error,base,kept", HIERARCHY, ids=[h[0].__name__ for h in HIERARCHY])
def test_every_error_class_is_in_the_one_hierarchy(error, base, kept):
    """User errors and data errors under one HelmliteError (what the CLI catches); the builtin bases callers
    may already catch are kept, and str() is the message itself (a KeyError would quote it)."""
    assert issubclass(error, base) and all(issubclass(error, builtin) for builtin in kept)
    assert str(error("no such thing: 'x'")) == "no such thing: 'x'"


def test_user_and_data_errors_are_distinct_value_errors():
    assert issubclass(UserError, ValueError) and issubclass(DataError, ValueError)
    assert not issubclass(UserError, DataError) and not issubclass(DataError, UserError)


def test_cli_exits_non_zero_with_one_line(tmp_path, capsys):
    from helmlite.cli import main

    assert main(["run", "--scenario", "nope", "--model", "smollm2-135m"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("helmlite: error: unknown scenario 'nope'") and "Traceback" not in err


@pytest.mark.parametrize("argv,message", [
    (["run", "--spec-json", "{not json"], "helmlite: error: --spec-json: not valid JSON"),
    (["run", "--spec-json", "[]"], "helmlite: error: run spec: expected a mapping"),
    (["run", "--spec-json", '{"scenario": "mmlu", "model": "w", "adapter": {"method": "joint"}}'], "helmlite: error: adapter method must be one of"),
    (["run", "--scenario", "mmlu", "--model", "smollm2-135m", "--max-instances", "-1"],
     "helmlite: error: run: argument --max-instances: must be at least 1, got -1"),
    (["run", "--scenario", "mmlu", "--model", "smollm2-135m", "--max-instances", "0"],
     "helmlite: error: run: argument --max-instances: must be at least 1, got 0"),
    (["run", "--spec-json", '{"scenario": "mmlu", "model": "w", "max_instances": "two"}'],
     "helmlite: error: run spec: max_instances must be a whole number >= 1 (or absent for all instances), got 'two'"),
])
def test_cli_bad_run_specs_get_one_line(argv, message, capsys, mirrored_cache):
    """User mistakes end in one line and exit status 2; bugs (plain ValueError) would keep their traceback."""
    from helmlite.cli import main

    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith(message) and "Traceback" not in err


@pytest.mark.parametrize("line,replacement,message", [
    ("  models: [smollm2-135m, gemma3-270m]", "  models: [gpt-5-nano, gemma3-270m]", "helm_core: unknown model 'gpt-5-nano'"),
    ("    - {scenario: mmlu, args: {subject: computer_security}}", "    - {scenario: mmlux, args: {subject: computer_security}}",
     "helm_core: unknown scenario 'mmlux'; known: "),
    ("analyses:", "analysess:", "invalid configuration at top level: Additional properties are not allowed"),
])
def test_config_names_are_checked_by_helmlite_config_and_snakemake(tmp_path, capsys, line, replacement, message):
    """A config naming an unknown model or scenario (or a typo'd key) is refused by `helmlite config` and at
    Snakemake start-up with one line and exit status 2 (not 'valid', not a traceback with the schema)."""
    import subprocess
    import sys

    from helmlite.cli import main

    text = (REPO / "config" / "test.yaml").read_text()
    assert line in text
    config = tmp_path / "bad.yaml"
    config.write_text(text.replace(line, replacement, 1))
    assert main(["config", str(config)]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1 and "Traceback" not in err
    if "mmlux" in replacement:
        assert "Did you mean: mmlu?" in err
    done = subprocess.run([sys.executable, "-m", "snakemake", "--dry-run", "--cores", "1", "--configfile", str(config)],
                          cwd=REPO, capture_output=True, text=True)
    assert done.returncode == 2 and message in done.stderr and "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) <= 2  # Snakemake's own "config extended" note, then our line
