"""Progress a person can follow: per request, with an ETA, as a terminal bar or as log lines.

:class:`~helmlite.models.cache.CachedModel` sends a run to its model a chunk (32 requests) at a time; a
backend that reports progress inside a call (``on_progress(fraction)``, which the transformers backend does
after every forward batch) moves the display within the chunk, so a run of 10 or 30 requests no longer jumps
0 → 100%. Two displays: ``"bar"`` — a tqdm bar with tqdm's rate and ETA (an interactive terminal); ``"lines"``
— one line every ``interval_s`` seconds and one at the end, ``<label>: 40/100 requests (40%), 12 s, ETA 18 s``
(what a Snakemake run job prints into the output it shows and the job log keeps); ``"none"``.
"""
from __future__ import annotations

import sys
import time

from tqdm.auto import tqdm

MODES = ("bar", "lines", "none")


class ProgressLines:
    """Requests done out of ``total`` as a line every ``interval_s`` seconds (and at the end), with the ETA
    extrapolated from the rate so far."""

    def __init__(self, total: int, label: str, interval_s: float = 30.0, stream=None, clock=time.monotonic):
        self.total, self.label, self.interval_s = total, label, interval_s
        self.stream = stream or sys.stdout
        self.clock = clock
        self.started = self.last = clock()
        self.n = 0.0

    def update(self, n: float) -> None:
        self.n = min(self.total, self.n + n)
        now = self.clock()
        if now - self.last >= self.interval_s:
            self.last = now
            self._print(now)

    def _print(self, now: float) -> None:
        elapsed = now - self.started
        eta = elapsed * (self.total - self.n) / self.n if self.n > 0 else float("nan")
        share = self.n / self.total if self.total else 1.0
        print(f"{self.label}: {self.n:.0f}/{self.total} requests ({share:.0%}), {elapsed:.0f} s, ETA {eta:.0f} s",
              file=self.stream, flush=True)

    def close(self) -> None:
        self._print(self.clock())


class _Silent:
    def update(self, n: float) -> None:
        pass

    def close(self) -> None:
        pass


def progress(mode: str, total: int, label: str):
    """A display for ``total`` requests: ``mode`` is one of :data:`MODES`."""
    if mode == "bar":
        return tqdm(total=total, desc=label, leave=False)
    if mode == "lines":
        return ProgressLines(total, label)
    return _Silent()
