"""Faults: crashes mid-run, concurrent cache writers, corrupted state, a misbehaving server; determinism."""
from __future__ import annotations

import json
import multiprocessing
import os
import signal
import sqlite3
import subprocess
import sys
import time

import pytest

from helmlite.results import FORMAT_VERSION, RunResultsError, read_run
from helmlite.models import GenerationRequest, ModelError, ScoreRequest
from helmlite.models.cache import CachedModel, RequestCache
from helmlite.models.backends.openai_compatible import OpenAIModel

from .conftest import REPO
from .fakes import WordModel
from .stub_server import stub_server

RUN = [sys.executable, "-m", "helmlite.cli", "run", "--scenario", "mmlu", "--arg", "subject=us_foreign_policy",
       "--model", "smollm2-135m", "--max-instances", "16", "--chunk-size", "2", "--quiet"]


def outputs(folder):
    (run,) = list(folder.iterdir())
    return {p.name: p.read_bytes() for p in sorted(run.iterdir()) if p.name != "timings.json"}, run


def cached(path) -> int:
    try:
        with sqlite3.connect(path, timeout=1) as conn:
            return conn.execute("SELECT COUNT(*) FROM requests").fetchone()[0]
    except sqlite3.Error:
        return 0


@pytest.mark.slow
def test_sigkill_mid_run_then_resume_is_byte_identical(mirrored_cache, tmp_path):
    from helmlite.models import prepare

    prepare("smollm2-135m")
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    cache = tmp_path / "killed.sqlite"
    process = subprocess.Popen(RUN + ["--cache", str(cache), "--results-dir", str(tmp_path / "killed")], cwd=REPO, env=env,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 120
    while cached(cache) < 6 and time.time() < deadline and process.poll() is None:
        time.sleep(0.05)
    process.send_signal(signal.SIGKILL)
    process.wait()
    done_before = cached(cache)
    assert 6 <= done_before < 16, "the kill should land after some chunks and before the end"
    assert not (tmp_path / "killed").exists() or not any((tmp_path / "killed").rglob("stats.json"))  # nothing half-done
    assert not list(tmp_path.rglob("*.part"))
    subprocess.run(RUN + ["--cache", str(cache), "--results-dir", str(tmp_path / "killed")], cwd=REPO, env=env, check=True,
                   capture_output=True)
    resumed, run_dir = outputs(tmp_path / "killed")
    timings = json.loads((run_dir / "timings.json").read_text())
    # only what the cache lacked reached the model, each distinct request once (two of the 16 items ask the same)
    assert timings["model_calls"] == cached(cache) - done_before and timings["cache_hits"] == 16 - timings["model_calls"]
    subprocess.run(RUN + ["--cache", str(tmp_path / "fresh.sqlite"), "--results-dir", str(tmp_path / "fresh")], cwd=REPO,
                   env=env, check=True, capture_output=True)
    uninterrupted, _ = outputs(tmp_path / "fresh")
    assert resumed == uninterrupted


SNAKEMAKE_CONFIG = """\
output_dir: {root}/out
analyses: [helm_core]
engine: {{results_dir: {root}/runs, cache: {root}/cache.sqlite, chunk_size: 2}}
helm_core:
  models: [smollm2-135m]
  max_instances: 16
  perturbations: []
  scenarios:
    - {{scenario: mmlu, args: {{subject: us_foreign_policy}}}}
"""


def _snakemake(config, *args, check=True, env=None):
    # targets and flags before --configfile, which takes every following argument as a config file
    return subprocess.run([sys.executable, "-m", "snakemake", *args, "--cores", "1", "--configfile", str(config)],
                          cwd=REPO, capture_output=True, text=True, check=check, env=env)


@pytest.mark.slow
def test_sigkill_of_snakemake_then_resume_is_byte_identical(mirrored_cache, tmp_path):
    """Kill the whole Snakemake process group mid-run: Snakemake must not take the run as done, the re-run
    (after `--unlock`, as README says) makes no model call for requests cached before the kill, and the
    outputs equal an uninterrupted Snakemake run's byte for byte."""
    from helmlite import data, workflow
    from helmlite.models import prepare

    prepare("smollm2-135m")
    configs = {}
    for tag in ("killed", "fresh"):
        configs[tag] = tmp_path / f"{tag}.yaml"
        configs[tag].write_text(SNAKEMAKE_CONFIG.format(root=tmp_path / tag))
    config = workflow.load_config(configs["killed"])
    for name in workflow.required_data(config):  # fetched here, so Snakemake's fetch jobs have nothing to do
        data.fetch(name)
    (run_id,) = workflow.run_specs(config)
    target = lambda tag: str(tmp_path / tag / "runs" / run_id / "stats.json")  # noqa: E731
    process = subprocess.Popen([sys.executable, "-m", "snakemake", target("killed"), "--cores", "1",
                                "--configfile", str(configs["killed"])], cwd=REPO, start_new_session=True,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    cache = tmp_path / "killed" / "cache.sqlite"
    deadline = time.time() + 180
    while cached(cache) < 6 and time.time() < deadline and process.poll() is None:
        time.sleep(0.05)
    os.killpg(process.pid, signal.SIGKILL)
    process.wait()
    done_before = cached(cache)
    assert 6 <= done_before < 16, "the kill should land after some chunks and before the end"
    assert not (tmp_path / "killed" / "runs" / run_id / "stats.json").exists()
    assert not list(tmp_path.rglob("*.part")) and not list(tmp_path.rglob("*.tmp*"))
    _snakemake(configs["killed"], "--unlock", target("killed"))
    plan = _snakemake(configs["killed"], "--dry-run", target("killed")).stdout
    assert "Nothing to be done" not in plan  # the interrupted job is still to do
    _snakemake(configs["killed"], "--rerun-incomplete", target("killed"))
    resumed, run_dir = outputs(tmp_path / "killed" / "runs")
    timings = json.loads((run_dir / "timings.json").read_text())
    # only what the cache lacked reached the model, each distinct request once (two of the 16 items ask the same)
    distinct = cached(tmp_path / "killed" / "cache.sqlite")
    assert timings["model_calls"] == distinct - done_before and timings["cache_hits"] == 16 - timings["model_calls"]
    # the uninterrupted run from a shell without the venv on PATH (as a SLURM job may start): the rules find
    # helmlite beside Snakemake's own interpreter
    bare = {**os.environ, "PATH": "/usr/bin:/bin"}
    _snakemake(configs["fresh"], target("fresh"), env=bare)
    uninterrupted, _ = outputs(tmp_path / "fresh" / "runs")
    assert resumed == uninterrupted
    assert "Nothing to be done" in _snakemake(configs["killed"], "--dry-run", target("killed")).stdout


def _writer(path, name, n):
    cache = RequestCache(path)
    model = CachedModel(WordModel(name), cache, chunk_size=1, progress=False)
    model.score([ScoreRequest(f"{name} prompt {k}", (" a", " b")) for k in range(n)])


def test_two_processes_share_the_cache_without_losing_entries(tmp_path):
    path = tmp_path / "shared.sqlite"
    RequestCache(path).close()
    ctx = multiprocessing.get_context("spawn")
    workers = [ctx.Process(target=_writer, args=(str(path), name, 150)) for name in ("first", "second")]
    for w in workers:
        w.start()
    for w in workers:
        w.join(120)
    assert [w.exitcode for w in workers] == [0, 0]  # no "database is locked"
    assert len(RequestCache(path)) == 300


def _fresh_writer(path, name, n, barrier):
    barrier.wait()  # every process opens the not-yet-existing database at the same moment
    _writer(path, name, n)


@pytest.mark.slow
def test_many_processes_create_a_fresh_cache_at_once(tmp_path):
    """A cold `snakemake --cores 2` starts its first run jobs together on a cache that does not exist yet:
    creating it must not look like corruption to the others (found by the workflow timing script)."""
    path = tmp_path / "fresh.sqlite"
    ctx = multiprocessing.get_context("spawn")
    barrier = ctx.Barrier(6)
    workers = [ctx.Process(target=_fresh_writer, args=(str(path), f"w{k}", 20, barrier)) for k in range(6)]
    for w in workers:
        w.start()
    for w in workers:
        w.join(120)
    assert [w.exitcode for w in workers] == [0] * 6
    assert not list(tmp_path.glob("*.corrupt")) and len(RequestCache(path)) == 120


def test_truncated_results_file_is_reported_not_used(tmp_path):
    run = tmp_path / "run"
    run.mkdir()
    stats = {"run_id": "run", "n_instances": 1, "scenario": "mmlu", "model": "m", "method": "generation", "main_metric": "x",
             "metric_families": ["accuracy"], "n_train_examples": 0, "metrics": {}, "efficiency": {}, "bootstrap": {},
             "format_version": FORMAT_VERSION}
    (run / "stats.json").write_text(json.dumps({**stats, "format_version": 0}))
    manifest = {"run_id": "run", "spec": {"scenario": "mmlu", "model": "m", "args": {}, "adapter": {"seed": 0, "method": "generation"}},
                "model_identity": {}, "format_version": FORMAT_VERSION}
    (run / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(RunResultsError, match=rf"stats.json: format_version 0, expected {FORMAT_VERSION}; delete .* re-run snakemake"):
        read_run(tmp_path, "run")
    (run / "stats.json").write_text(json.dumps({**stats, "n_instances": 3}))
    record = {"id": "a", "input": "", "prompt": "", "n_train": 0, "truncated": False, "prompt_tokens": 1, "references": [],
              "metadata": {}, "prediction": "y", "correct": True, "metrics": {"x": 1.0}}
    (run / "instances.jsonl").write_text(json.dumps(record) + "\n" + json.dumps(record)[:20])
    with pytest.raises(RunResultsError, match=r"instances.jsonl is unreadable or truncated .* delete .* re-run snakemake"):
        read_run(tmp_path, "run")
    (run / "instances.jsonl").write_text(json.dumps(record) + "\n")
    with pytest.raises(RunResultsError, match="holds 1 records but stats.json counts 3"):
        read_run(tmp_path, "run")
    (run / "stats.json").write_text(json.dumps(stats))
    assert read_run(tmp_path, "run").main_values() == {"a": 1.0}


@pytest.mark.parametrize("script,recovers", [
    (["500", "500"], True), (["429"], True), (["close"], True), (["malformed"], True), (["short"], True),
    (["timeout"], True), (["500"] * 5, False), (["malformed"] * 5, False),
])
def test_server_faults_are_retried_then_reported(script, recovers):
    with stub_server() as (url, state):
        state.script = list(script)
        model = OpenAIModel(url, "stub", max_retries=3, backoff_s=0.001, max_backoff_s=0.01, timeout_s=0.2)
        started = time.time()
        if recovers:
            assert model.score([ScoreRequest("The cat sat on the", (" mat",))])[0].logprobs == (-0.5,)
        else:
            with pytest.raises(ModelError, match=r"POST .*/completions \(model stub, request [0-9a-f]{12}\) failed after 4 attempts"):
                model.score([ScoreRequest("The cat sat on the", (" mat",))])
        assert len(state.requests) <= 4 and time.time() - started < 10  # bounded


def test_client_errors_are_not_retried():
    with stub_server() as (url, state):
        state.script = ["400"]
        with pytest.raises(ModelError, match="was refused: HTTP 400"):
            OpenAIModel(url, "stub", backoff_s=0.001).generate([GenerationRequest("hi")])
        assert len(state.requests) == 1


def test_a_failing_chunk_records_nothing(tmp_path):
    with stub_server() as (url, state):
        model = OpenAIModel(url, "stub", max_retries=0, backoff_s=0.001)
        cache = RequestCache(tmp_path / "c.sqlite")
        cached_model = CachedModel(model, cache, chunk_size=4, progress=False)
        state.script = ["ok", "ok", "500"]  # the third request of the chunk fails
        with pytest.raises(ModelError):
            cached_model.score([ScoreRequest(f"p{k} x", (" y",)) for k in range(4)])
        assert len(cache) == 0


def _run_cli(args, seed, tmp_path, tag):
    env = {**os.environ, "PYTHONHASHSEED": str(seed)}
    subprocess.run([sys.executable, "-m", "helmlite.cli", "run", *args, "--quiet", "--cache", str(tmp_path / f"{tag}.sqlite"),
                    "--results-dir", str(tmp_path / tag)], cwd=REPO, env=env, check=True, capture_output=True)
    return outputs(tmp_path / tag)[0]


def test_pythonhashseed_and_fresh_runs_change_nothing(mirrored_cache, tmp_path, tiny_model_dir):
    args = ["--scenario", "boolq", "--model", str(tiny_model_dir), "--max-instances", "6"]
    first = _run_cli(args, 1, tmp_path, "a")
    assert first == _run_cli(args, 2, tmp_path, "b")


def test_a_record_without_prediction_or_correctness_round_trips(tmp_path):
    """BOLD-style generations have no reference: ``correct`` is null and must read back as None."""
    from helmlite.results import InstanceRecord

    record = InstanceRecord(id="a", input="", prompt="p", n_train=0, truncated=False, prompt_tokens=1, references=[],
                            metadata={}, prediction=None, correct=None, metrics={}, completion="text")
    assert InstanceRecord.from_json(json.loads(json.dumps(record.to_json()))) == record


def test_manifest_and_timings_are_typed_and_checked_on_read(tmp_path):
    """Issue 27 §1: a run folder's stats, manifest, spec and timings are read into typed records (results.RunStats,
    Manifest, SpecRecord, Timings); a missing field, a field of the wrong type or an unknown field is one error naming
    the file and the field — and write_run refuses a manifest or timings it could not read back, writing nothing."""
    from helmlite.results import InstanceRecord, MetricStat, RunStats, write_run

    record = InstanceRecord(id="a", input="", prompt="", n_train=0, truncated=False, prompt_tokens=1, references=[],
                            metadata={}, prediction="y", correct=True, metrics={"x": 1.0})
    stats = RunStats(run_id="run", scenario="mmlu", model="m", method="generation", main_metric="x",
                     metric_families=("accuracy",), n_instances=1, n_train_examples=0,
                     metrics={"x": MetricStat(1.0, 0.0, 1.0, 1, "clopper-pearson")}, efficiency={}, bootstrap={})
    spec = {"scenario": "mmlu", "model": "m", "args": {"subject": "anatomy"}, "adapter": {"seed": 2, "method": "generation",
            "max_train_instances": 5}, "perturbations": ["robustness"]}
    manifest = {"run_id": "run", "spec": spec, "model_identity": {"backend": "none"}}
    write_run(tmp_path / "run", [record], stats, manifest, {"wall_s": 1.5, "latency_s": [0.5], "model_calls": 1})
    run = read_run(tmp_path, "run")
    assert (run.spec.method, run.spec.seed, run.spec.shots, run.spec.perturbations) == ("generation", 2, 5, ("robustness",))
    assert run.timings.latency_s == (0.5,) and run.timings.model_calls == 1 and run.timings.model_s is None
    assert run.manifest.spec == run.spec and run.scenario_label == "mmlu:anatomy"
    for broken, field in (({**manifest, "spec": {**spec, "model": 3}}, "'model' must be str"),
                          ({k: v for k, v in manifest.items() if k != "model_identity"}, "'model_identity' is missing"),
                          ({**manifest, "notes": "x"}, r"unknown field\(s\) \['notes'\]"),
                          ({**manifest, "spec": {**spec, "adapter": {"seed": 0}}}, "spec: field 'adapter.method'"),
                          ({**manifest, "spec": {**spec, "perturbations": ["robustness", 7]}},
                           r"field 'perturbations'\[1\] must be str, got int 7"),
                          ({**manifest, "in_context_examples": [["a"]]}, r"field 'in_context_examples'\[0\] must be str")):
        with pytest.raises(RunResultsError, match=rf"manifest.json.*{field}"):  # refused before anything is written
            write_run(tmp_path / "refused", [record], stats, broken, {"wall_s": 1.5})
        assert not (tmp_path / "refused").exists()
        (tmp_path / "run" / "manifest.json").write_text(json.dumps({"format_version": FORMAT_VERSION, **broken}))
        with pytest.raises(RunResultsError, match=rf"manifest.json.*{field}"):  # and a file edited later, on read
            read_run(tmp_path, "run")
    for timings, field in (({"wall_s": "fast"}, r"field 'wall_s' must be float or int or null"),
                           ({"latency_s": [0.5, None]}, r"field 'latency_s'\[1\] must be float or int, got NoneType")):
        with pytest.raises(RunResultsError, match=rf"timings.json: {field}"):
            write_run(tmp_path / "refused", [record], stats, manifest, timings)
        write_run(tmp_path / "run", [record], stats, manifest, {"wall_s": 1.5})
        (tmp_path / "run" / "timings.json").write_text(json.dumps({"format_version": FORMAT_VERSION, **timings}))
        with pytest.raises(RunResultsError, match=rf"timings.json: {field}"):
            read_run(tmp_path, "run")
    write_run(tmp_path / "run", [record], stats, manifest, {"wall_s": 1.5})
    raw = json.loads((tmp_path / "run" / "stats.json").read_text())
    for broken, field in (({**raw, "main_metric": 1}, r"stats.json: field 'main_metric' must be str, got int"),
                          ({**raw, "metric_families": ["accuracy", None]}, r"field 'metric_families'\[1\] must be str"),
                          ({**raw, "metrics": {"x": {"mean": 1.0}}}, r"stats.json: field 'metrics' holds an entry without")):
        (tmp_path / "run" / "stats.json").write_text(json.dumps(broken))
        with pytest.raises(RunResultsError, match=field):
            read_run(tmp_path, "run")
