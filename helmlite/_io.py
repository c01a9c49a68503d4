"""Atomic file writes: write to a temporary file in the target folder, then rename.

A reader (or Snakemake) never sees a half-written file where a complete one is expected:
``os.replace`` is atomic on POSIX when source and target are on the same file system. The written file
gets the permissions of any other new file (``0o666 & ~umask``, i.e. 0644 under the usual umask 022), not
``tempfile.mkstemp``'s 0600, so a colleague or a web server can read reports and figures.
"""
from __future__ import annotations

import json
import math
import os
import secrets
from contextlib import contextmanager
from pathlib import Path
from typing import IO, TYPE_CHECKING, Iterator

from .errors import UserError

if TYPE_CHECKING:
    import pandas as pd


def _new_file_beside(target: Path, attempts: int = 100) -> Path:
    """Create an empty, uniquely named ``.<name>.<random>.part`` file beside ``target``.

    ``os.open`` with mode 0o666 lets the kernel apply the process umask (and any default ACL of the folder),
    so the file ends up with the permissions of any other new file — without reading the umask through
    ``os.umask``, which would briefly change it for every thread of the process.
    """
    for _ in range(attempts):
        path = target.parent / f".{target.name}.{secrets.token_hex(6)}.part"
        try:
            os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666))
        except FileExistsError:
            continue
        return path
    raise FileExistsError(f"{target}: no free temporary name beside it after {attempts} attempts")


@contextmanager
def atomic_path(target: str | os.PathLike) -> Iterator[Path]:
    """Yield a temporary path beside ``target``; rename it onto ``target`` only on success."""
    target = Path(target)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError):
        raise UserError(f"{target}: cannot write it: a file stands where its folder {target.parent} would go") from None
    tmp_path = _new_file_beside(target)
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
    """Write a table as CSV atomically, with a fixed float format so re-runs are byte-identical. A value that is
    not defined — ±inf: an interval with no finite bound, an MDE where nothing is detectable — is written as an
    empty cell, like NaN; the row's own columns say why (its n, its interval method, a claim's evidence)."""
    numeric = frame.select_dtypes(include="number").columns
    if len(numeric):
        frame = frame.copy()
        frame[numeric] = frame[numeric].replace([math.inf, -math.inf], math.nan)
    with atomic_open(target, "w", encoding="utf-8", newline="") as handle:
        frame.to_csv(handle, index=False, float_format=float_format, lineterminator="\n")
    return Path(target)
