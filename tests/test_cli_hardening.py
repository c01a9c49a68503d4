"""The mistakes a new user makes (issue: no traceback, no silent nonsense), one table row each: every one ends in one
``helmlite: error: …`` line and exit status 2 — Ctrl-C in one line and 130 — and leaves nothing half-written. The
expected lines are the commands' own words, written here by hand."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import nbformat
import pytest

from helmlite import cli

from .conftest import REPO


def _file(t, name="afile", text="x"):
    path = t / name
    path.write_text(text)
    return str(path)


def _config_with_run(t, run: str) -> str:
    """config/test.yaml with one more run under `runs:`."""
    text = (REPO / "config" / "test.yaml").read_text() + f"runs:\n  - {run}\n"
    return _file(t, "config.yaml", text)


def _notebook(t) -> str:
    """A notebook with a parameters cell (x, y)."""
    cells = [nbformat.v4.new_code_cell("x = 1\ny = 2", metadata={"tags": ["parameters"]}), nbformat.v4.new_code_cell("z = x + y")]
    path = t / "nb.ipynb"
    nbformat.write(nbformat.v4.new_notebook(cells=cells, metadata={"kernelspec": {"name": "helmlite", "display_name": "helmlite", "language": "python"}}),
                   str(path))
    return str(path)


def _broken_model(t, lacks: str) -> str:
    """A model folder with a config, a tokenizer and weights, less what ``lacks`` names: "tokenizer" (a plain
    ``model.save_pretrained`` output), "config" or "weights" (a safetensors file cut short); "nothing": whole-looking
    files the loaders refuse (an empty tokenizer.json)."""
    folder = t / "mymodel"
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps({"model_type": "llama", "vocab_size": 300}))
    (folder / "tokenizer.json").write_text("{}")
    header = json.dumps({"w": {"dtype": "F32", "shape": [4], "data_offsets": [0, 16]}}).encode()
    (folder / "model.safetensors").write_bytes(len(header).to_bytes(8, "little") + header + bytes(16))
    if lacks == "tokenizer":
        (folder / "tokenizer.json").unlink()
    elif lacks == "config":
        (folder / "config.json").unlink()
    elif lacks == "weights":
        data = (folder / "model.safetensors").read_bytes()
        (folder / "model.safetensors").write_bytes(data[:-6])
    return str(folder)


def _config_with_model(t, lacks: str) -> str:
    model = _broken_model(t, lacks)
    return _file(t, "config.yaml", f"analyses: [helm_core]\nhelm_core:\n  models: ['{model}']\n  max_instances: 5\n"
                                   "  perturbations: []\n  scenarios: [{scenario: mmlu, args: {subject: us_foreign_policy}}]\n")


NO_TOKENIZER = "model directory {t}/mymodel has no tokenizer (tokenizer.json, tokenizer.model or vocab.json + merges.txt)"
NO_CONFIG = "model directory {t}/mymodel has no config.json"
CUT_WEIGHTS = "model directory {t}/mymodel: model.safetensors is incomplete"
MISMATCH = "scenario 'nq_closed_book' does not support method 'multiple_choice_joint'; its methods: generation"
CASES = [
    # 1. a wrong result refused everywhere a run is specified
    ("multiple choice on a one-reference scenario: run",
     lambda t: ["run", "--scenario", "nq_closed_book", "--method", "multiple_choice_joint", "--model", "smollm2-135m",
                "--max-instances", "5"], MISMATCH),
    ("... prompts", lambda t: ["prompts", "--scenario", "nq_closed_book", "--method", "multiple_choice_joint"], MISMATCH),
    ("... a config's runs", lambda t: ["config", _config_with_run(
        t, "{scenario: nq_closed_book, model: smollm2-135m, adapter: {method: multiple_choice_joint}}")],
     "{t}/config.yaml: runs: " + MISMATCH),
    ("... a run spec", lambda t: ["run", "--spec-json", json.dumps(
        {"scenario": "niah", "model": "smollm2-135m", "adapter": {"method": "multiple_choice_joint"}})],
     "scenario 'niah' does not support method 'multiple_choice_joint'; its methods: generation, multiple_choice_separate"),
    # 2. numbers out of range, at parse time
    ("--threads 0", lambda t: ["run", "--threads", "0"], "run: argument --threads: must be at least 1, got 0"),
    ("--chunk-size 0", lambda t: ["run", "--chunk-size", "0"], "run: argument --chunk-size: must be at least 1, got 0"),
    ("--batch-size 0", lambda t: ["run", "--batch-size", "0"], "run: argument --batch-size: must be at least 1, got 0"),
    ("plan --cores 0", lambda t: ["plan", "--cores", "0"], "plan: argument --cores: must be at least 1, got 0"),
    ("plan --cores -2", lambda t: ["plan", "--cores", "-2"], "plan: argument --cores: must be at least 1, got -2"),
    ("import --n-resamples -5", lambda t: ["import", "lm-eval", "x.jsonl", "--n-resamples", "-5"],
     "import lm-eval: argument --n-resamples: must be at least 100, got -5"),
    ("leaderboard --n-resamples -1", lambda t: ["leaderboard", "winrates", "--table", "x.csv", "--n-resamples", "-1"],
     "leaderboard winrates: argument --n-resamples: must be at least 100, got -1"),
    ("prompts --selection-seed -1", lambda t: ["prompts", "--scenario", "mmlu", "--selection-seed", "-1"],
     "prompts: argument --selection-seed: must be at least 0, got -1"),
    ("prompts --seed -1 (the old spelling, checked alike)", lambda t: ["prompts", "--scenario", "mmlu", "--seed", "-1"],
     "prompts: argument --seed: must be at least 0, got -1"),
    # 2. paths the system refuses
    ("--results-dir is a file", lambda t: ["run", "--scenario", "nq_closed_book", "--model", "smollm2-135m",
                                            "--results-dir", _file(t)],
     "--results-dir {t}/afile: cannot be used as a folder (a file is in the way)"),
    ("--results-dir under a file", lambda t: ["run", "--scenario", "nq_closed_book", "--model", "smollm2-135m",
                                               "--results-dir", _file(t) + "/runs"],
     "--results-dir {t}/afile/runs: cannot be used as a folder ({t}/afile is a file, not a folder)"),
    ("--cache under a file", lambda t: ["run", "--scenario", "nq_closed_book", "--model", "smollm2-135m",
                                         "--results-dir", str(t / "runs"), "--cache", _file(t) + "/x.sqlite"],
     "request cache {t}/afile/x.sqlite: a file stands where its folder {t}/afile would go"),
    ("--cache is a folder", lambda t: ["run", "--scenario", "nq_closed_book", "--model", "smollm2-135m",
                                       "--results-dir", str(t / "runs"), "--cache", str(t)],
     "request cache {t}: is a folder; expected the path of a SQLite file (e.g. {t}/requests.sqlite)"),
    ("html to a path under a file", lambda t: ["html", _notebook(t), _file(t) + "/out.html"], "{t}/afile/out.html: cannot write it: a file stands where its folder {t}/afile would go"),
    # 2. helmlite notebook
    ("notebook: missing", lambda t: ["notebook", str(t / "absent.ipynb"), str(t / "out.ipynb")], "notebook: {t}/absent.ipynb not found"),
    ("notebook: bad JSON", lambda t: ["notebook", _notebook(t), str(t / "out.ipynb"), "--parameters-json", "{x: 1"],
     "notebook: --parameters-json is not valid JSON (Expecting property name enclosed in double quotes: line 1 column 2 (char 1))"),
    ("notebook: misspelt parameter", lambda t: ["notebook", _notebook(t), str(t / "out.ipynb"), "--parameters-json", '{"xx": 3}'],
     "notebook {t}/nb.ipynb: unknown parameter 'xx'; its parameters: x, y. Did you mean: x?"),
    ("notebook: unknown kernel", lambda t: ["notebook", _notebook(t), str(t / "out.ipynb"), "--kernel", "helmlit"],
     "notebook: no Jupyter kernel named 'helmlit'; installed: "),
    # 3. a model folder that cannot load: one line naming the folder and what it lacks, in run, plan and config
    ("model folder without a tokenizer: run", lambda t: ["run", "--scenario", "mmlu", "--model", _broken_model(t, "tokenizer"),
                                                         "--max-instances", "2", "--results-dir", str(t / "runs")], NO_TOKENIZER),
    ("... plan", lambda t: ["plan", "--configfile", _config_with_model(t, "tokenizer")],
     "{t}/config.yaml: helm_core: " + NO_TOKENIZER),
    ("... config", lambda t: ["config", _config_with_model(t, "tokenizer")], "{t}/config.yaml: helm_core: " + NO_TOKENIZER),
    ("model folder without config.json: run", lambda t: ["run", "--scenario", "mmlu", "--model", _broken_model(t, "config"),
                                                         "--max-instances", "2", "--results-dir", str(t / "runs")], NO_CONFIG),
    ("model folder with cut weights: run", lambda t: ["run", "--scenario", "mmlu", "--model", _broken_model(t, "weights"),
                                                      "--max-instances", "2", "--results-dir", str(t / "runs")], CUT_WEIGHTS),
    ("... config", lambda t: ["config", _config_with_model(t, "weights")], "{t}/config.yaml: helm_core: " + CUT_WEIGHTS),
    ("model folder the loaders refuse: run", lambda t: ["run", "--scenario", "mmlu", "--model", _broken_model(t, "nothing"),
                                                         "--max-instances", "2", "--results-dir", str(t / "runs")],
     "could not load a transformers model from {t}/mymodel: "),
    # 3. a design written over its own config, or onto a folder (before any planning)
    ("plan --write-config onto its own config", lambda t: ["plan", "--configfile", _file(t, "c.yaml", (REPO / "config" / "test.yaml").read_text()),
                                                           "--target-mde", "0.1", "--write-config", str(t / "c.yaml")],
     "plan --write-config: {t}/c.yaml is the config being sized (--configfile)"),
    ("plan --write-config onto a folder", lambda t: ["plan", "--configfile", str(REPO / "config" / "test.yaml"),
                                                     "--target-mde", "0.1", "--write-config", str(t)],
     "plan --write-config: {t} is a folder; give the sized config a file name"),
    # 2. a misspelt adapter key
    ("adapter key", lambda t: ["run", "--spec-json", json.dumps({"scenario": "mmlu", "model": "smollm2-135m",
                                                               "adapter": {"max_train_instance": 2}})],
     "run spec adapter: unknown key 'max_train_instance'; expected one of method, "),
]


@pytest.mark.parametrize("case,argv,message", CASES, ids=[c[0] for c in CASES])
def test_each_mistake_ends_in_one_line_and_writes_nothing(tmp_path, capsys, mirrored_cache, case, argv, message):
    args = argv(tmp_path)
    made = sorted(p.name for p in tmp_path.iterdir())  # what the case itself set up
    assert cli.main(args) == 2
    captured = capsys.readouterr()
    lines = captured.err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("helmlite: error: "), captured.err
    assert lines[0].removeprefix("helmlite: error: ").startswith(message.format(t=tmp_path))
    assert sorted(p.name for p in tmp_path.iterdir()) == made  # nothing written by the command
    assert not (tmp_path / "runs").exists() and not (tmp_path / "out.ipynb").exists()


@pytest.mark.parametrize("old, new, argv", [
    ("--seed", "--selection-seed", ["prompts", "--scenario", "mmlu", "--arg", "subject=us_foreign_policy", "--max-instances", "2"]),
    ("--adaptation", "--selection", ["prompts", "--scenario", "mmlu", "--arg", "subject=us_foreign_policy", "--max-instances", "2"]),
])
def test_a_renamed_option_keeps_its_old_spelling_for_one_release(old, new, argv, capsys, mirrored_cache):
    """The old spelling gives the same prompts as the new one and one deprecation line naming the new spelling."""
    value = "hashed" if new == "--selection" else "3"
    assert cli.main([*argv, new, value]) == 0
    expected = capsys.readouterr()
    assert expected.err == "" and expected.out
    assert cli.main([*argv, old, value]) == 0
    got = capsys.readouterr()
    assert got.out == expected.out
    assert got.err == f"helmlite: warning: {old} is renamed {new}; the old spelling goes in the next release\n"


def _documented_options() -> dict:
    """{(command, subcommand or None): the option strings its --help shows} for every command of the parser."""
    import argparse

    def subcommands(parser):
        return next(a.choices for a in parser._actions if isinstance(a, argparse._SubParsersAction))

    out = {}
    for name, command in subcommands(cli.build_parser()).items():
        nested = any(isinstance(a, argparse._SubParsersAction) for a in command._actions)
        for child, leaf in (subcommands(command).items() if nested else [(None, command)]):
            out[(name, child)] = {option for a in leaf._actions if a.help != argparse.SUPPRESS for option in a.option_strings}
    return out


def test_seeds_are_named_for_what_they_seed():
    """--bootstrap-seed seeds bootstraps (run, import, compare, leaderboard winrates), --selection-seed the in-context
    examples (prompts); no command documents a bare --seed or --adaptation any more."""
    documented = _documented_options()
    assert not any({"--seed", "--adaptation"} & options for options in documented.values())
    for key in [("run", None), ("import", "helm"), ("import", "lm-eval"), ("import", "inspect"), ("compare", None),
                ("leaderboard", "winrates")]:
        assert "--bootstrap-seed" in documented[key], key
    assert {"--selection-seed", "--selection"} <= documented[("prompts", None)]


def test_leaderboard_groups_match_in_any_case():
    from helmlite.leaderboards import group_name
    import pandas as pd

    frame = pd.DataFrame({"group": ["Accuracy", "Calibration"]})
    assert group_name(frame, "accuracy") == group_name(frame, "ACCURACY") == "Accuracy"


@pytest.mark.parametrize("command", [["fetch", "--list"], ["prompts", "--scenario", "mmlu", "--arg", "subject=us_foreign_policy"]])
def test_a_closed_pipe_ends_quietly(command, mirrored_cache):
    """`helmlite … | head -1`: the reader closes the pipe; helmlite exits 0 without a traceback."""
    head = subprocess.run(f"{sys.executable} -m helmlite {' '.join(command)} | head -1; exit ${{PIPESTATUS[0]}}",
                          shell=True, executable="/bin/bash", capture_output=True, text=True, cwd=REPO, timeout=120)
    assert (head.returncode, head.stderr) == (0, "") and len(head.stdout.splitlines()) == 1


def test_ctrl_c_ends_in_one_line_with_status_130(tmp_path, capsys, monkeypatch):
    def interrupted(args):
        raise KeyboardInterrupt

    monkeypatch.setattr(cli.config, "check", interrupted)
    assert cli.main(["config", "x.yaml"]) == 130
    assert capsys.readouterr().err == "helmlite: interrupted; nothing was half-written\n"  # no cache to resume from
    monkeypatch.setattr(cli.run, "run", interrupted)
    assert cli.main(["run", "--scenario", "mmlu", "--model", "smollm2-135m"]) == 130
    assert capsys.readouterr().err == "helmlite: interrupted; rerun resumes from the cache\n"


@pytest.mark.parametrize("module, argv", [("compare", ["compare", "a", "b"]), ("imports", ["import", "lm-eval", "x.jsonl"]),
                                          ("config", ["plan", "--configfile", "config/test.yaml"])])
def test_ctrl_c_in_a_command_without_a_request_cache_does_not_promise_one(module, argv, capsys, monkeypatch):
    def interrupted(args):
        raise KeyboardInterrupt

    monkeypatch.setattr(getattr(cli, module), "run", interrupted)
    assert cli.main(argv) == 130
    assert capsys.readouterr().err == "helmlite: interrupted; nothing was half-written\n"


def test_ctrl_c_raised_in_a_destructor_still_ends_the_command(tmp_path):
    """Python only reports a KeyboardInterrupt raised inside ``__del__`` ("Exception ignored in …") and goes on; the
    command ends there all the same, in the one line and 130."""
    script = ("import sys; from helmlite import cli\n"
              "class Pool:\n    def __del__(self):\n        raise KeyboardInterrupt\n"
              "def run(args):\n    Pool()\n    import time; time.sleep(30)\n"
              "cli.config.check = run\nsys.exit(cli.main(['config', 'x.yaml']))\n")
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stderr) == (130, "helmlite: interrupted; nothing was half-written\n")
    assert time.monotonic() - started < 20


@pytest.mark.slow
def test_ctrl_c_during_a_run_leaves_no_run_folder(tmp_path, mirrored_cache):
    """A real SIGINT while `helmlite run` scores: one line, 130, no run folder; the rerun finishes from the cache."""
    from helmlite.models import prepare

    prepare("smollm2-135m")  # once per checkout (idempotent): a fresh clone has no prepared model
    env = {**os.environ, "HELMLITE_REQUEST_CACHE": str(tmp_path / "cache.sqlite")}
    argv = [sys.executable, "-m", "helmlite", "run", "--scenario", "mmlu", "--arg", "subject=us_foreign_policy",
            "--model", "smollm2-135m", "--max-instances", "111", "--results-dir", str(tmp_path / "runs"),
            "--progress", "lines", "--chunk-size", "4"]
    inherited = signal.getsignal(signal.SIGINT)  # a child inherits an ignored SIGINT, and Python then never raises it
    process = subprocess.Popen(argv, cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))  # as a terminal's shell
    deadline = time.monotonic() + 120
    while not (tmp_path / "cache.sqlite").exists() and time.monotonic() < deadline:
        time.sleep(0.2)
    time.sleep(0.5)  # scoring has started (the cache exists once a chunk is stored; 40 items once ended within 3 s)
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=60)
    assert process.returncode == 130, f"pytest's SIGINT handler: {inherited}; stdout {out[-500:]}; stderr {err[-1500:]}"
    assert err.strip().splitlines()[-1] == "helmlite: interrupted; rerun resumes from the cache" and "Traceback" not in err
    assert not list((tmp_path / "runs").glob("*/stats.json"))
    rerun = subprocess.run(argv[:-4] + ["--progress", "none"], cwd=REPO, env=env, capture_output=True, text=True, timeout=300)
    assert rerun.returncode == 0 and "cache hits" in rerun.stdout


# --- 3. any directory -------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("environment, cache, models, requests", [
    ({}, "{repo}/data/external", "{repo}/data/models", "{repo}/results/cache/requests.sqlite"),  # the checkout
    ({"HELMLITE_HOME": "{t}/home"}, "{t}/home/data/external", "{t}/home/data/models",
     "{t}/home/results/cache/requests.sqlite"),
    ({"HELMLITE_HOME": "{t}/home", "HELMLITE_MODEL_DIR": "{t}/m"}, "{t}/home/data/external", "{t}/m",
     "{t}/home/results/cache/requests.sqlite"),
])
def test_shared_folders_follow_one_rule(tmp_path, monkeypatch, environment, cache, models, requests):
    """helmlite.home: $HELMLITE_HOME, else the checkout; each folder's own variable wins; never the working directory."""
    from helmlite.data import cache_dir
    from helmlite.models import model_dir
    from helmlite.models.cache import default_path

    for name in ("HELMLITE_HOME", "HELMLITE_DATA_CACHE", "HELMLITE_MODEL_DIR", "HELMLITE_REQUEST_CACHE"):
        monkeypatch.delenv(name, raising=False)
    for name, value in environment.items():
        monkeypatch.setenv(name, value.format(t=tmp_path))
    monkeypatch.chdir(tmp_path)
    where = {"repo": REPO, "t": tmp_path}
    assert (str(cache_dir()), str(model_dir()), str(default_path())) == (
        cache.format(**where), models.format(**where), requests.format(**where))


@pytest.mark.slow
def test_a_run_from_any_directory_uses_the_prepared_model_and_writes_only_its_run(tmp_path, mirrored_cache):
    """`cd /tmp && helmlite run … --model smollm2-135m --max-instances 3`: the checkout's prepared model is found, and
    the only thing written in the working directory is the run folder under results/runs/."""
    from helmlite.models import prepare

    prepare("smollm2-135m")  # in the checkout's model folder, where the command must find it
    env = {k: v for k, v in os.environ.items() if k not in ("HELMLITE_HOME", "HELMLITE_MODEL_DIR")}
    env["HELMLITE_REQUEST_CACHE"] = str(tmp_path / "requests.sqlite")  # the test's own, not the checkout's cache
    work = tmp_path / "anywhere"
    work.mkdir()
    done = subprocess.run([sys.executable, "-m", "helmlite", "run", "--scenario", "mmlu", "--arg", "subject=us_foreign_policy",
                           "--model", "smollm2-135m", "--max-instances", "3", "--quiet"], cwd=work, env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    written = sorted(str(p.relative_to(work)) for p in work.rglob("*") if p.is_file())
    assert len(written) == 4 and all(p.startswith("results/runs/mmlu_subject=us_foreign_policy-smollm2-135m-") for p in written)
    assert {p.rsplit("/", 1)[1] for p in written} == {"instances.jsonl", "manifest.json", "stats.json", "timings.json"}


def test_a_full_disk_is_one_line_and_keeps_what_was_stored(tmp_path, monkeypatch, capsys, mirrored_cache):
    """The request cache's file system fills up while a chunk is stored (SQLite's "database or disk is full", injected
    here on the second chunk): one error line naming the cache, exit 2, no run folder; the first chunk's answers stay
    in the cache, and a rerun after space is freed resumes from them."""
    import sqlite3

    from helmlite.models.cache import RequestCache

    original, calls = RequestCache.put_many, []

    class FullDisk:
        """The cache's connection once the disk is full: the insert fails as SQLite's does, and SQLite has already
        rolled the transaction back (what made the old code fail a second time, "cannot rollback")."""

        def __init__(self, conn):
            self.conn, self.in_transaction = conn, False

        def execute(self, sql, *args):
            return self.conn.execute(sql, *args)

        def executemany(self, sql, rows):
            self.conn.execute("ROLLBACK")
            raise sqlite3.OperationalError("database or disk is full")

    def second_chunk_fills_the_disk(self, model, items):  # through put_many's own error handling
        calls.append(len(items))
        if len(calls) != 2:
            return original(self, model, items)
        conn, self._conn = self._conn, FullDisk(self._conn)
        try:
            return original(self, model, items)
        finally:
            self._conn = conn

    monkeypatch.setattr(RequestCache, "put_many", second_chunk_fills_the_disk)
    cache = tmp_path / "cache.sqlite"
    argv = ["run", "--scenario", "mmlu", "--arg", "subject=us_foreign_policy", "--model", "smollm2-135m",
            "--max-instances", "8", "--chunk-size", "4", "--results-dir", str(tmp_path / "runs"), "--cache", str(cache),
            "--progress", "none"]
    from helmlite.models import prepare

    prepare("smollm2-135m")
    assert cli.main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"helmlite: error: request cache {cache}: the disk is full") and \
        "rerun: it resumes from the cache" in err[0]
    assert not list((tmp_path / "runs").glob("*/stats.json"))
    assert len(RequestCache(cache)) == 4  # the first chunk's answers are kept
    monkeypatch.setattr(RequestCache, "put_many", original)
    assert cli.main(argv) == 0
    assert "cache hits 4" in capsys.readouterr().out


def test_a_gpu_placement_this_machine_cannot_serve_is_one_warning_line(tmp_path, capsys, mirrored_cache):
    """`helmlite config` on a config that places a model on cuda here (no CUDA in CI): valid (a submit host may lack the
    GPU its cluster has), with one warning line naming the model, its placement and what will happen."""
    pytest.importorskip("torch")
    import torch

    if torch.cuda.is_available():
        pytest.skip("this machine has CUDA")
    config = _file(tmp_path, "cuda.yaml", "analyses: [helm_core]\nengine: {device: cuda}\nhelm_core:\n  models: [smollm2-135m]\n"
                                          "  perturbations: []\n  scenarios: [{scenario: mmlu, args: {subject: us_foreign_policy}}]\n")
    assert cli.main(["config", config]) == 0
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"helmlite: warning: {config}: smollm2-135m is placed on cuda, which this "
                                               "machine cannot serve") and "its run jobs will fail here" in err[0]
