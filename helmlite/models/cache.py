"""SQLite request cache keyed by model identity + the full request, and a caching model wrapper.

* Key: sha256 of canonical JSON ``{"model": identity, "request": request}`` — two models never share
  an entry (identity holds the weights' sha256, or the server URL + model name) — plus ``"code": N`` when the
  backend's :attr:`code_version` is above 1: a backend change that alters what it answers for the same request
  raises its ``code_version``, and its cached answers stop matching (entries of unchanged backends stay valid).
* Concurrency: WAL journal and a generous busy timeout, so two run jobs (``snakemake --cores 2``)
  share one cache without "database is locked" failures; ``INSERT OR IGNORE`` keeps the first answer.
* Determinism: :class:`CachedModel` splits a run's requests into fixed *chunks* (in request order)
  and commits each chunk's new results in one transaction. Only the requests a chunk lacks reach the model,
  so a run resumed after a crash, and a run that grew (more items of the same spec), compute only what is new;
  the transformers backend's scores and generations depend on their request alone (tested bit for bit), so what
  else shares a forward changes nothing. A computed chunk returns what the cache then holds, so a run whose
  requests another job answered first (two runs share requests) uses that job's answers — exactly what a re-run
  from the cache will see (a server whose answers depend on the batch keeps the first one stored).
* A full disk is one error naming the cache and what to do (the answers stored so far are kept, a rerun resumes).
* A corrupted database is detected on open (``PRAGMA quick_check``), moved aside and rebuilt; opening
  is serialised across processes (a lock file), so a database being created is never taken for corrupt.
"""
from __future__ import annotations

import fcntl
import hashlib
import json
import os
import sqlite3
import threading
from dataclasses import asdict
from pathlib import Path
from typing import Callable, Sequence

from ..errors import UserError
from ..home import shared_path
from ._base import Generation, GenerationRequest, LanguageModel, Scores, ScoreRequest
from .progress import progress as make_progress

class CacheFullError(UserError):
    """The request cache's file system is full: nothing of the chunk was stored, what was stored before is kept."""


_SCHEMA = "CREATE TABLE IF NOT EXISTS requests (key TEXT PRIMARY KEY, model TEXT NOT NULL, response TEXT NOT NULL)"


def default_path() -> Path:
    """``$HELMLITE_REQUEST_CACHE`` or ``results/cache/requests.sqlite`` in helmlite's home (:mod:`helmlite.home`)."""
    return shared_path("HELMLITE_REQUEST_CACHE", "results/cache/requests.sqlite")


def request_key(identity: dict, request: dict, code_version: int = 1) -> str:
    """The cache key of one request to the model ``identity`` answered by backend code ``code_version``."""
    key = {"model": identity, "request": request, **({"code": code_version} if code_version != 1 else {})}
    text = json.dumps(key, sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class RequestCache:
    """A key → JSON response store in one SQLite file."""

    def __init__(self, path: str | os.PathLike | None = None):
        self.path = Path(path) if path else default_path()
        if self.path.is_dir():
            raise UserError(f"request cache {self.path}: is a folder; expected the path of a SQLite file (e.g. "
                            f"{self.path / 'requests.sqlite'})")
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except (FileExistsError, NotADirectoryError):
            raise UserError(f"request cache {self.path}: a file stands where its folder {self.path.parent} would go") from None
        self._lock = threading.Lock()
        try:
            self._conn = self._open()
        except sqlite3.OperationalError as error:
            raise UserError(f"request cache {self.path}: cannot open it as a SQLite database ({error})") from None

    def _connect(self) -> sqlite3.Connection:
        conn = sqlite3.connect(self.path, timeout=120, isolation_level=None, check_same_thread=False)
        conn.execute("PRAGMA busy_timeout = 120000")
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA synchronous = NORMAL")
        conn.execute(_SCHEMA)
        return conn

    def _open(self) -> sqlite3.Connection:
        """Connect, creating the database if needed, and check it. Opening is serialised across processes
        by a lock file, so a database another job is still creating never looks corrupted; a busy or
        locked database (``OperationalError``) is contention and is raised, never moved aside."""
        with open(self.path.with_name(self.path.name + ".lock"), "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
            try:
                conn = self._connect()
                if conn.execute("PRAGMA quick_check").fetchone()[0] == "ok":
                    return conn
                conn.close()
            except sqlite3.OperationalError:
                raise
            except sqlite3.DatabaseError:  # "file is not a database", "database disk image is malformed"
                pass
            corrupt = self.path.with_name(self.path.name + ".corrupt")
            os.replace(self.path, corrupt)
            for suffix in ("-wal", "-shm"):
                Path(str(self.path) + suffix).unlink(missing_ok=True)
            print(f"helmlite: request cache {self.path} was corrupted; moved it to {corrupt} and started a new one")
            return self._connect()

    def get_many(self, keys: Sequence[str]) -> dict[str, dict]:
        found = {}
        with self._lock:
            for start in range(0, len(keys), 500):
                part = list(keys[start:start + 500])
                marks = ",".join("?" * len(part))
                for key, response in self._conn.execute(f"SELECT key, response FROM requests WHERE key IN ({marks})", part):
                    found[key] = json.loads(response)
        return found

    def put_many(self, model: str, items: dict[str, dict]) -> None:
        """Store several responses in one transaction (all or none)."""
        rows = [(key, model, json.dumps(value, sort_keys=True)) for key, value in items.items()]
        with self._lock:
            try:
                self._conn.execute("BEGIN IMMEDIATE")
                self._conn.executemany("INSERT OR IGNORE INTO requests (key, model, response) VALUES (?, ?, ?)", rows)
                self._conn.execute("COMMIT")
            except BaseException as error:
                if self._conn.in_transaction:  # SQLite has rolled back itself after some errors (a full disk)
                    self._conn.execute("ROLLBACK")
                if isinstance(error, sqlite3.OperationalError) and "full" in str(error):
                    raise CacheFullError(f"request cache {self.path}: the disk is full ({error}); the answers stored so "
                                         "far are kept — free some space and rerun: it resumes from the cache") from None
                raise

    def __len__(self) -> int:
        with self._lock:
            return self._conn.execute("SELECT COUNT(*) FROM requests").fetchone()[0]

    def close(self) -> None:
        self._conn.close()


def _generation(d: dict) -> Generation:
    return Generation(d["text"], d["prompt_tokens"], d["output_tokens"],
                      tuple(d["token_logprobs"]) if d["token_logprobs"] is not None else None, d["latency_s"])


def _scores(d: dict) -> Scores:
    return Scores(tuple(d["logprobs"]), tuple(tuple(t) for t in d["token_logprobs"]), tuple(d["token_counts"]),
                  d["prompt_tokens"], d["latency_s"])


class CachedModel:
    """A ``LanguageModel`` that answers from the cache and sends the inner model only the requests the cache lacks
    (chunk by chunk: a chunk of a grown run computes its new requests only).

    ``calls`` counts requests actually sent to the inner model (a resumed run's count shows the work
    it did not repeat); ``hits`` counts requests answered from the cache. ``progress``: ``"bar"`` (True),
    ``"lines"`` or ``"none"`` (False) — see :mod:`helmlite.models.progress`; ``label`` names what is running
    (the CLI sets it to the run id).
    """

    def __init__(self, inner: LanguageModel, cache: RequestCache, *, chunk_size: int = 32, progress: bool | str = True):
        self.inner = inner
        self.cache = cache
        self.chunk_size = chunk_size
        self.progress = {True: "bar", False: "none"}.get(progress, progress)
        self.label: str | None = None
        self.calls = 0
        self.hits = 0
        self._model_key = json.dumps(inner.identity, sort_keys=True)

    def __getattr__(self, name):  # identity, max_context, count_tokens, truncate_left, apply_chat_template
        return getattr(self.inner, name)

    def _run(self, requests: Sequence, compute: Callable, decode: Callable, label: str) -> list:
        version = getattr(self.inner, "code_version", 1)
        keys = [request_key(self.inner.identity, r.key(), version) for r in requests]
        results = [None] * len(requests)
        chunks = range(0, len(requests), self.chunk_size)
        bar = make_progress(self.progress, len(requests), f"{self.label or self.inner.identity.get('name')} ({label})")
        for start in chunks:
            chunk_keys = keys[start:start + self.chunk_size]
            found = self.cache.get_many(chunk_keys)
            missing = list(dict.fromkeys(k for k in chunk_keys if k not in found))  # each new request once
            self.hits += len(chunk_keys) - len(missing)  # a repeat of a new request is answered by its first
            bar.update(len(chunk_keys) - len(missing))
            if missing:  # only the requests the cache lacks reach the model: a grown run reuses what it asked
                first = {}
                for offset, k in enumerate(chunk_keys):
                    first.setdefault(k, start + offset)
                size, reported = len(missing), [0.0]

                def advance(fraction: float, size=size, reported=reported) -> None:  # the backend's progress in this chunk
                    bar.update(fraction * size - reported[0])
                    reported[0] = fraction * size

                self.inner.on_progress = advance
                try:
                    outputs = compute([requests[first[k]] for k in missing])
                finally:
                    self.inner.on_progress = None
                bar.update(size - reported[0])
                self.calls += len(outputs)
                self.cache.put_many(self._model_key, dict(zip(missing, (asdict(o) for o in outputs))))
                # what the cache holds (the first answer stored wins): another job may have stored some of these
                # requests first (a backend whose answers depend on the batch, e.g. a server, may differ there)
                found = {**found, **self.cache.get_many(missing)}
            results[start:start + len(chunk_keys)] = [decode(found[k]) for k in chunk_keys]
        bar.close()
        return results

    def generate(self, requests: Sequence[GenerationRequest]) -> list[Generation]:
        return self._run(requests, self.inner.generate, _generation, "generate")

    def score(self, requests: Sequence[ScoreRequest]) -> list[Scores]:
        return self._run(requests, self.inner.score, _scores, "score")
