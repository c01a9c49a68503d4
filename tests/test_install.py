"""An install without the `models` extra: a fresh venv with helmlite and its base dependencies only (no torch,
no transformers) runs `helmlite run --model openai:…` against the stub OpenAI-compatible server. It installs
packages (~1-3 min with pip's cache), so it runs under `make test-server` (HELMLITE_TEST_INSTALL=1)."""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

from .conftest import REPO
from .stub_server import stub_server

pytestmark = pytest.mark.skipif(os.environ.get("HELMLITE_TEST_INSTALL") != "1",
                                reason="builds a venv without torch: run `make test-server` (HELMLITE_TEST_INSTALL=1)")


def test_openai_backend_in_a_venv_without_torch(tmp_path, mirrored_cache):
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = venv / "bin" / "python"
    subprocess.run([str(python), "-m", "pip", "install", "--quiet", "-c", str(REPO / "constraints.txt"), "-e", str(REPO)],
                   check=True, capture_output=True, text=True)
    missing = subprocess.run([str(python), "-c", "import importlib.util as u; print(u.find_spec('torch'), u.find_spec('transformers'))"],
                             check=True, capture_output=True, text=True).stdout.split()
    assert missing == ["None", "None"]  # the models extra is really absent
    with stub_server() as (url, state):
        env = {**os.environ, "HELMLITE_OPENAI_BASE_URL": url}
        for scenario, method, extra in (("nq_closed_book", "generation", []),
                                        ("mmlu", "multiple_choice_separate", ["--arg", "subject=econometrics"])):
            done = subprocess.run([str(venv / "bin" / "helmlite"), "run", "--scenario", scenario, "--model", "openai:stub",
                                   "--method", method, "--max-instances", "3", "--results-dir", str(tmp_path / "runs"),
                                   "--cache", str(tmp_path / "cache.sqlite"), "--progress", "none", *extra],
                                  env=env, capture_output=True, text=True, timeout=600)
            assert done.returncode == 0, done.stderr[-2000:]
        assert state.requests
    runs = [p for p in (tmp_path / "runs").iterdir() if p.is_dir()]
    assert len(runs) == 2 and all((p / "stats.json").is_file() for p in runs)
