"""The OpenAI-compatible backend against a real llama.cpp server: llama-cpp-python's, pinned and installed by
`make test-server`, serving the GGUF that the embedded smollm2-135m model was converted from."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest

pytest.importorskip("llama_cpp.server", reason="llama-cpp-python[server] is not installed: run `make test-server`")

from helmlite.models.embedded import gguf_file  # noqa: E402
from helmlite.models.llama_server import free_port, llama_server  # noqa: E402

pytestmark = pytest.mark.server


@pytest.fixture(scope="module")
def gguf(tmp_path_factory):
    return gguf_file("smollm2-135m", tmp_path_factory.mktemp("gguf"))


def helmlite_run(url, tmp_path, scenario, method, n, *extra, check=True):
    args = [sys.executable, "-m", "helmlite", "run", "--scenario", scenario, "--model", "openai:smollm2", "--method", method,
            "--max-instances", str(n), "--results-dir", str(tmp_path / "runs"), "--cache", str(tmp_path / "cache.sqlite"),
            "--progress", "none", "--quiet", *extra]
    env = {**os.environ, "HELMLITE_OPENAI_BASE_URL": url}
    done = subprocess.run(args, env=env, capture_output=True, text=True, timeout=900)
    if check:
        assert done.returncode == 0, done.stderr[-3000:]
    return done


def run_timings(tmp_path) -> list[dict]:
    return [json.loads((p / "timings.json").read_text()) for p in sorted((tmp_path / "runs").iterdir()) if p.is_dir()]


def test_generation_runs_complete_and_rerun_from_the_cache(gguf, tmp_path, mirrored_cache):
    """A generation run (NQ closed-book) through the real server: the run folder is complete; the second time
    every request comes from the cache (no server call)."""
    with llama_server(gguf) as (url, _):
        helmlite_run(url, tmp_path, "nq_closed_book", "generation", 6)
        (first,) = run_timings(tmp_path)
        assert first["model_calls"] == 6
        (run,) = [p for p in (tmp_path / "runs").iterdir() if p.is_dir()]
        assert {"manifest.json", "instances.jsonl", "stats.json", "timings.json"} <= {p.name for p in run.iterdir()}
        records = [json.loads(line) for line in (run / "instances.jsonl").read_text().splitlines()]
        assert len(records) == 6 and all(isinstance(r["completion"], str) for r in records)
        helmlite_run(url, tmp_path, "nq_closed_book", "generation", 6)
        (again,) = run_timings(tmp_path)
        assert (again["model_calls"], again["cache_hits"]) == (0, 6)


def test_generations_carry_the_servers_log_probabilities_for_the_tokens_helm_keeps(gguf):
    """Completions and chat completions through the real server both come with token log-probabilities (the chat
    API returns them only with ``top_logprobs``: measured on llama-cpp-python 0.3.36). For " 4" the server lists the
    tokens " ", "4" and the stop token "\\n" (2026-12-04); the completion keeps the two before the stop token, as
    crfm-helm's client does. For an immediate stop the server lists no token at all: the empty completion keeps none
    (confidence exp(0) = 1, HELM's too)."""
    from helmlite.models import GenerationRequest
    from helmlite.models.backends.openai_compatible import OpenAIModel

    with llama_server(gguf) as (url, _):
        model = OpenAIModel(url, "smollm2")
        completion = model.generate([GenerationRequest("Q: 2+2?\nA: 4\n\nQ: 3+3?\nA:", 12, ("\n",))])[0]
        stopped = model.generate([GenerationRequest("Question: What is the capital of France?\nAnswer:", 12, ("\n",))])[0]
        chat = OpenAIModel(url, "smollm2", chat=True).generate([GenerationRequest("Say hi.", 4)])[0]
    assert (completion.text, completion.output_tokens) == (" 4", 2) and len(completion.token_logprobs) == 2
    assert all(v <= 0 for v in completion.token_logprobs)
    assert (stopped.text, stopped.output_tokens, stopped.token_logprobs) == ("", 0, ())  # HELM's max_prob: exp(0) = 1
    assert chat.token_logprobs is not None and len(chat.token_logprobs) == chat.output_tokens == 4


def test_log_probability_scoring_refuses_the_servers_misaligned_echo(gguf, tmp_path, mirrored_cache):
    """llama-cpp-python 0.3.36 echoes each prompt token with its log-probability under the *next* token's
    distribution (measured: "The capital of France is Paris" gives " of" −10.46 where the fp32 weights give
    −0.34, and position 1's top alternative is " of"). A log-probability run through it stops with one error
    line naming the defect instead of writing wrong scores; nothing is cached."""
    with llama_server(gguf) as (url, _):
        done = helmlite_run(url, tmp_path, "mmlu", "multiple_choice_separate", 2, "--arg", "subject=econometrics", check=False)
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert done.returncode == 2 and len(lines) == 1, done.stderr[-2000:]
    assert "echoed log-probabilities are not those of each token given the ones before it" in lines[0]
    assert _cached(tmp_path / "cache.sqlite") == 0


def test_a_killed_server_gives_one_error_and_the_rerun_resumes(gguf, tmp_path, mirrored_cache):
    """Kill the server while a 24-instance generation run is under way: the run fails with one clear line naming
    the request; after a restart the re-run asks the server only for what was not answered before."""
    cache = tmp_path / "cache.sqlite"
    port = free_port()
    with llama_server(gguf, port=port) as (url, process):
        env = {**os.environ, "HELMLITE_OPENAI_BASE_URL": url}
        args = [sys.executable, "-m", "helmlite", "run", "--scenario", "nq_closed_book", "--model", "openai:smollm2",
                "--max-instances", "24", "--chunk-size", "1", "--results-dir", str(tmp_path / "runs"), "--cache", str(cache),
                "--progress", "none", "--quiet"]
        run = subprocess.Popen(args, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        deadline = time.time() + 300
        while _cached(cache) < 4 and time.time() < deadline and run.poll() is None:
            time.sleep(0.1)
        os.killpg(process.pid, signal.SIGKILL)
        _, stderr = run.communicate(timeout=300)
    answered = _cached(cache)
    assert run.returncode == 2 and 4 <= answered < 24, stderr[-2000:]
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("helmlite: error: POST ") and "failed after" in lines[0], stderr
    with llama_server(gguf, port=port) as (url, _):
        helmlite_run(url, tmp_path, "nq_closed_book", "generation", 24, "--chunk-size", "1")
    (timings,) = run_timings(tmp_path)
    assert timings["cache_hits"] == answered and timings["model_calls"] + answered == 24


def _cached(path) -> int:
    """Requests the SQLite request cache holds (0 before it exists)."""
    import sqlite3

    if not path.exists():
        return 0
    with sqlite3.connect(path) as connection:
        try:
            return connection.execute("SELECT COUNT(*) FROM requests").fetchone()[0]
        except sqlite3.OperationalError:
            return 0
