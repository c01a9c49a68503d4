"""A local llama.cpp server (llama-cpp-python's ``python -m llama_cpp.server``) for the OpenAI-compatible backend:
start it on 127.0.0.1, wait until it answers, always stop it. Used by ``make test-server`` and
``benchmarks/compare_llama_cpp.py``; any other OpenAI-compatible server (vLLM, llama.cpp's own ``llama-server``)
is used the same way through ``HELMLITE_OPENAI_BASE_URL``."""
from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

import requests

from ._base import ModelError

READY_TIMEOUT_S = 120


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def llama_server(gguf: str | os.PathLike, *, port: int | None = None, n_ctx: int = 4096, threads: int = 2,
                 ready_timeout_s: float = READY_TIMEOUT_S) -> Iterator[tuple[str, subprocess.Popen]]:
    """Serve ``gguf`` and yield (its ``/v1`` base URL, the server process). Ready when ``GET /v1/models``
    answers; a server that exits first or is not ready after ``ready_timeout_s`` is a :class:`ModelError` with
    its last output. The process group is terminated on exit, killed if it does not stop within 10 s."""
    port = port or free_port()
    command = [sys.executable, "-m", "llama_cpp.server", "--model", str(Path(gguf)), "--host", "127.0.0.1",
               "--port", str(port), "--n_ctx", str(n_ctx), "--n_threads", str(threads), "--seed", "0"]
    log = tempfile.TemporaryFile(mode="w+")  # not a pipe: the server's start-up output would fill one and block it
    process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, text=True, start_new_session=True)
    url = f"http://127.0.0.1:{port}/v1"

    def tail() -> str:
        log.seek(0)
        return log.read()[-2000:]

    try:
        deadline = time.monotonic() + ready_timeout_s
        while True:
            if process.poll() is not None:
                raise ModelError(f"llama.cpp server exited with status {process.returncode} before it was ready: {tail()}")
            try:
                if requests.get(f"{url}/models", timeout=2).ok:
                    break
            except requests.RequestException:
                pass
            if time.monotonic() > deadline:
                raise ModelError(f"llama.cpp server on {url} not ready after {ready_timeout_s:.0f} s: {tail()}")
            time.sleep(0.5)
        yield url, process
    finally:
        stop(process)
        log.close()


def stop(process: subprocess.Popen) -> None:
    """Terminate a server started by :func:`llama_server` (and its children), killing it after 10 s."""
    if process.poll() is not None:
        return
    os.killpg(process.pid, signal.SIGTERM)
    try:
        process.wait(10)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()
