"""Backends register by name prefix (issue #65): adding one is a module with ``@backend("<prefix>:")`` — here a test
registers an echo backend in a few lines and every place that asks "who serves this name?" follows."""
from __future__ import annotations

import pytest

from helmlite import models
from helmlite.errors import UserError
from helmlite.models import backends
from helmlite.evaluation.runspec import model_key


@pytest.fixture
def echo_backend():
    """A backend for ``echo:<model>`` whose model records the placement it was loaded with, and whose token-counting
    hook records what the planner asked (removed afterwards)."""
    def count(model, *, batch_size):
        return {"counter for": model, "batch_size": batch_size}

    @models.backend("echo:", counter=count)
    def load(model, *, dtype, threads, batch_size, device):
        return {"model": model, "dtype": dtype, "threads": threads, "batch_size": batch_size, "device": device}

    yield load
    backends.REGISTRY.pop("echo:")


def test_a_registered_backend_serves_its_prefix_everywhere(echo_backend):
    assert models.load_model("echo:tiny", threads=3) == {"model": "tiny", "dtype": "float32", "threads": 3,
                                                        "batch_size": 8, "device": "cpu"}
    assert models.unknown_model_message("echo:tiny") is None  # a config naming it checks without weights
    assert model_key("echo:tiny") == "echo:tiny"  # its run id keeps the name as given
    assert models.served_by("echo:tiny").prefix == "echo:" and models.served_by("smollm2-135m") is None
    assert "'echo:<model>'" in models.unknown_model_message("ech0:tiny")  # the error lists the registered prefixes


def test_the_planner_counts_through_the_hook_a_backend_registers(echo_backend):
    assert models.work_counter("echo:tiny", batch_size=4) == {"counter for": "tiny", "batch_size": 4}
    assert models.work_counter("openai:qwen") is None  # a server without a hook: whitespace counts, no price
    assert models.work_counter("no-such-model") is None


def test_openai_registers_itself_and_refuses_a_precision_it_cannot_set():
    assert models.served_by("openai:qwen").prefix == "openai:"
    with pytest.raises(models.ModelError, match="runs in the server's own precision"):
        models.load_model("openai:qwen", dtype="bfloat16")


def test_a_prefix_serves_one_backend(echo_backend):
    with pytest.raises(UserError, match="'echo:' is already registered"):
        models.backend("echo:")(lambda model, **placement: None)
    with pytest.raises(UserError, match="must end with ':'"):
        models.backend("echo")


def test_a_plan_counts_a_served_model_through_its_hook_and_never_prices_it(tmp_path, mirrored_cache, monkeypatch):
    """``plan()`` on a config whose model a registered backend serves: each run's tokens are what the backend's hook
    counted (reference: the hook's own tally of the requests it was given), its seconds are NaN (this machine's rates
    time the transformers backend here, not a server) and nothing is calibrated (calibrating raises here)."""
    from helmlite import planning, workflow
    from helmlite.models import Work, WhitespaceTokens
    from helmlite.planning import rates

    tallies = []

    class WordCounter(WhitespaceTokens):
        def count(self, requests, chunk_size):
            words = sum(self.count_tokens(r.prompt) + sum(self.count_tokens(c) for c in getattr(r, "continuations", ()))
                        for r in requests)
            tallies.append(words)
            return Work(requests=len(requests), score_positions=words, encoded_tokens=words, score_forwards=1)

    @models.backend("words:", counter=lambda model, *, batch_size: WordCounter())
    def load(model, **placement):
        raise AssertionError("planning loads no model")

    def no_calibration(*args, **kwargs):
        raise AssertionError("a served model is never calibrated")

    monkeypatch.setattr(rates, "calibrate", no_calibration)
    try:
        (tmp_path / "c.yaml").write_text(
            f"output_dir: {tmp_path / 'out'}\nanalyses: [helm_core]\n"
            "helm_core: {models: ['words:any'], max_instances: 4, perturbations: [], "
            "scenarios: [{scenario: mmlu, args: {subject: us_foreign_policy}}]}\n")
        result = planning.plan(workflow.load_config(tmp_path / "c.yaml"), rates_file=tmp_path / "rates.json")
    finally:
        backends.REGISTRY.pop("words:")
    runs = result.runs
    assert list(runs["model"]) == ["words:any"] and list(runs["instances"]) == [4]
    assert list(runs["tokens_to_encode"]) == tallies and tallies[0] > 4 * 50  # a 5-shot MMLU prompt: hundreds of words
    assert runs["predicted_s"].isna().all() and result.calibrated == []
    assert not (tmp_path / "rates.json").exists()


def test_a_backend_module_dropped_into_the_package_serves_the_command_line(tmp_path, mirrored_cache):
    """Adding a backend is one file: a copy of the package with the worked example (docs/examples/uniform_backend.py)
    saved as ``helmlite/models/backends/uniform.py`` — no other edit — runs ``helmlite run --model uniform:chance``,
    and the run's manifest names the backend (reference: the example's own identity)."""
    import os
    import shutil
    import subprocess
    import sys
    from pathlib import Path

    repo = Path(__file__).resolve().parent.parent
    copy = tmp_path / "kit"
    shutil.copytree(repo / "helmlite", copy / "helmlite", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(repo / "docs" / "examples" / "uniform_backend.py", copy / "helmlite" / "models" / "backends" / "uniform.py")
    env = {**os.environ, "PYTHONPATH": str(copy)}
    done = subprocess.run([sys.executable, "-m", "helmlite", "run", "--model", "uniform:chance", "--scenario", "mmlu",
                           "--arg", "subject=us_foreign_policy", "--max-instances", "3", "--results-dir", str(tmp_path / "runs"),
                           "--cache", str(tmp_path / "cache.sqlite"), "--n-resamples", "100", "--quiet"],
                          cwd=tmp_path, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
    (folder,) = (tmp_path / "runs").iterdir()
    manifest = (folder / "manifest.json").read_text()
    assert '"backend": "uniform"' in manifest and '"model": "uniform:chance"' in manifest
    assert not (repo / "helmlite" / "models" / "backends" / "uniform.py").exists()  # the package itself is untouched
