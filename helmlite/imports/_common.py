"""What every importer shares: strict JSON reading with errors naming file and field, run ids, and writing a
run folder through :func:`helmlite.results.write_run` with intervals from :mod:`helmlite.metrics.families`."""
from __future__ import annotations

import hashlib
import json
import math
import re
from pathlib import Path

from .. import __version__
from .._jsonl import DataFormatError
from ..data import sha256_of
from ..metrics import families
from ..metrics.selection import family_version
from ..results import InstanceRecord, write_run

MISSING = object()


class ImportFormatError(DataFormatError):
    """A source file of another tool that is missing, truncated or lacks a field the import needs."""


def load_json(path: Path, expected: str):
    """The parsed JSON of ``path``; a missing, unreadable or truncated file is an :class:`ImportFormatError`."""
    if not path.is_file():
        raise ImportFormatError(f"{path}: file not found (expected {expected})")
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise ImportFormatError(f"{path}: cannot read it ({error})") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        truncated = " — truncated?" if error.pos >= len(text.rstrip()) else ""
        raise ImportFormatError(f"{path}: not valid JSON ({error.msg} at line {error.lineno}, column {error.colno}{truncated}); "
                                f"expected {expected}") from None


def get(obj, key, path: Path, where: str, kind: type | tuple[type, ...] | None = None, default=MISSING):
    """``obj[key]`` checked for presence (unless ``default`` is given) and type, else an error naming the file,
    the place in it (``where``, e.g. ``request_states[3].result``) and the field."""
    if not isinstance(obj, dict):
        raise ImportFormatError(f"{path}: {where} is {type(obj).__name__}, expected an object with field {key!r}")
    if key not in obj or obj[key] is None:
        if default is not MISSING:
            return default
        raise ImportFormatError(f"{path}: {where} has no field {key!r}")
    value = obj[key]
    if kind is not None and (not isinstance(value, kind) or (isinstance(value, bool) and bool not in _tuple(kind))):
        names = " or ".join(k.__name__ for k in _tuple(kind))
        raise ImportFormatError(f"{path}: {where}.{key} is {type(value).__name__}, expected {names}")
    return value


def _tuple(kind) -> tuple:
    return kind if isinstance(kind, tuple) else (kind,)


def run_id(prefix: str, name: str) -> str:
    """A folder-safe, stable run id: ``<prefix>-<name>`` with characters outside ``[A-Za-z0-9_.=,-]`` replaced
    by ``_``; names over 150 characters are cut and end with 10 hex digits of the full name's sha256."""
    readable = re.sub(r"[^A-Za-z0-9_.=,-]+", "_", f"{prefix}-{name}")
    if len(readable) > 150:
        readable = f"{readable[:139]}-{hashlib.sha256(name.encode()).hexdigest()[:10]}"
    return readable


def source_files(paths: dict[str, Path]) -> dict:
    """File name → sha256 of each source file read (the manifest's record of what was imported)."""
    return {label: {"path": str(path.resolve()), "sha256": sha256_of(path)} for label, path in paths.items()}


def write_imported(results_dir: str | Path, *, rid: str, records: list[InstanceRecord], scenario: str, model: str,
                   method: str, main_metric: str, metric_families: tuple[str, ...], n_train: int, spec: dict,
                   source: dict, decision: dict, timings: dict, n_resamples: int, seed: int, importer_version: int) -> Path:
    """Compute every metric of ``metric_families`` over ``records`` (the intervals a native run gets) and write
    the run folder; ``source`` (tool, version, files with sha256, the tool's own aggregates) goes into the
    manifest beside ``spec``, and the versions behind it: the importer's (``importer_version``, each importer's
    ``VERSION``: raised when a change alters what it writes for the same files) and the metric families'."""
    if not records:
        raise ImportFormatError(f"{source.get('folder') or source.get('file')}: no evaluated instance to import")
    if not any(main_metric in r.metrics for r in records):
        raise ImportFormatError(f"{source.get('folder') or source.get('file')}: no instance has the main metric {main_metric!r}")
    stats = families.run_stats(metric_families, records, run_id=rid, scenario=scenario, model=model, method=method,
                               main_metric=main_metric, n_train=n_train, decision=decision, seed=seed, n_resamples=n_resamples)
    manifest = {"run_id": rid, "spec": spec, "imported_from": source, "imported_by": {"helmlite": __version__},
                "model_identity": {"backend": source["tool"], "model": model},
                "versions": {"importer": {source["tool"]: importer_version},
                             "metrics": {family: family_version(family) for family in metric_families}}}
    return write_run(Path(results_dir) / rid, records, stats, manifest, timings)


def check_tool_mean(path: Path, values: list[float], metric: str, reported, where_reported: str, fix: str) -> None:
    """Refuse an import whose mean of ``metric`` over ``values`` differs (beyond 1e-6) from the tool's own
    aggregate ``reported`` (None: nothing to check): the per-instance file is cut short or from another run."""
    if reported is None or not values:
        return
    mean = sum(values) / len(values)
    if not abs(mean - reported) <= 1e-6:
        raise ImportFormatError(f"{path}: mean {metric} of its {len(values)} instances is {mean:.6f}, but {where_reported} "
                                f"says {reported:.6f}: the per-instance file is incomplete (cut short?) or from another "
                                f"run; {fix}")


def finite(value) -> float | None:
    """``value`` as a float when it is a finite number, else None."""
    try:
        out = float(value)
    except (TypeError, ValueError):
        return None
    return out if math.isfinite(out) else None
