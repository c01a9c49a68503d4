"""Atomic file writes: write to a temporary file in the target folder, then rename.

A reader (or Snakemake) never sees a half-written file where a complete one is expected:
``os.replace`` is atomic on POSIX when source and target are on the same file system.
"""
from __future__ import annotations

import json
import math
import os
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import IO, TYPE_CHECKING, Iterator

if TYPE_CHECKING:
    import pandas as pd


@contextmanager
def atomic_path(target: str | os.PathLike) -> Iterator[Path]:
    """Yield a temporary path beside ``target``; rename it onto ``target`` only on success."""
    target = Path(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".part", dir=target.parent)
    os.close(fd)
    tmp_path = Path(tmp)
    try:
        yield tmp_path
        os.replace(tmp_path, target)
    finally:
        tmp_path.unlink(missing_ok=True)


@contextmanager
def atomic_open(target: str | os.PathLike, mode: str = "w", **kwargs) -> Iterator[IO]:
    """``open`` for writing whose result appears at ``target`` only once the block succeeds."""
    with atomic_path(target) as tmp, open(tmp, mode, **kwargs) as handle:
        yield handle


def write_text(target: str | os.PathLike, text: str) -> Path:
    with atomic_open(target, "w", encoding="utf-8", newline="\n") as handle:
        handle.write(text)
    return Path(target)


def _finite(obj):
    """NaN/inf → None, recursively (strict JSON has no NaN)."""
    if isinstance(obj, float) and not math.isfinite(obj):
        return None
    if isinstance(obj, dict):
        return {k: _finite(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_finite(v) for v in obj]
    return obj


def json_line(obj) -> str:
    """One deterministic, strict JSON line (sorted keys, NaN → null)."""
    return json.dumps(_finite(obj), sort_keys=True, ensure_ascii=False, default=str, allow_nan=False)


def write_json(target: str | os.PathLike, obj) -> Path:
    """Deterministic, strict JSON: sorted keys, two-space indent, NaN → null, trailing newline."""
    return write_text(target, json.dumps(_finite(obj), indent=2, sort_keys=True, ensure_ascii=False, default=str,
                                         allow_nan=False) + "\n")


def write_csv(target: str | os.PathLike, frame: pd.DataFrame, float_format: str = "%.6g") -> Path:
    """Write a table as CSV atomically, with a fixed float format so re-runs are byte-identical."""
    with atomic_open(target, "w", encoding="utf-8", newline="") as handle:
        frame.to_csv(handle, index=False, float_format=float_format, lineterminator="\n")
    return Path(target)
