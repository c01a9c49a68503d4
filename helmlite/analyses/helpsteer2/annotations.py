"""HelpSteer2's two released formats (Wang et al. 2024, arXiv 2406.08673; dataset card on the HF hub).

* **disagreements** (``disagreements/disagreements.jsonl.gz``): every attribute is a list of
  per-annotator integers 0–4 (2–5 entries, list position = annotator slot, no annotator ids);
* **aggregated** (``train.jsonl.gz`` / ``validation.jsonl.gz``): every attribute one integer 0–4.

Per-annotator ratings become a float array ``(samples, 5 slots, 5 attributes)`` with NaN for
absent slots, which the aggregation in :mod:`helmlite.analyses.helpsteer2` works on vectorised.
"""
from __future__ import annotations

import gzip
import json
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from ..._io import atomic_open
from ..._jsonl import DataFormatError, read_jsonl, require

ATTRIBUTES = ("helpfulness", "correctness", "coherence", "complexity", "verbosity")
MAX_ANNOTATORS = 5
SCALE = range(5)  # Likert 0..4


@dataclass(frozen=True)
class Annotations:
    """Per-annotator ratings of one disagreements file."""

    prompts: list[str]
    responses: list[str]
    ratings: np.ndarray  # (samples, MAX_ANNOTATORS, len(ATTRIBUTES)), NaN where a slot is empty
    prompt_ids: np.ndarray | None = None  # the file's prompt identity (responses to one prompt share it); None: by text

    @property
    def n_annotators(self) -> np.ndarray:
        return (~np.isnan(self.ratings[:, :, 0])).sum(axis=1)

    def __len__(self) -> int:
        return len(self.prompts)


def _rating(value, where: str, field: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value not in SCALE:
        raise DataFormatError(f"{where}: field {field!r} must hold integers 0-4, got {value!r}")
    return value


def load_disagreements(path: str | os.PathLike) -> Annotations:
    """Read the per-annotator format; every attribute must list the same number (2–5) of ints 0–4. Where the
    records carry a ``prompt_id`` (every record or none), it is the prompt identity the per-prompt filter
    groups by; without one, responses with equal prompt text share a prompt."""
    prompts, responses, rows, ids = [], [], [], []
    for number, obj in read_jsonl(path):
        where = f"{path}, line {number}"
        ids.append(obj.get("prompt_id"))
        if (ids[0] is None) != (ids[-1] is None):
            raise DataFormatError(f"{where}: field 'prompt_id' must be given in every record or in none "
                                  f"(line 1 {'lacks' if ids[0] is None else 'has'} it)")
        prompts.append(str(require(obj, "prompt", where)))
        responses.append(str(require(obj, "response", where)))
        row = np.full((MAX_ANNOTATORS, len(ATTRIBUTES)), np.nan)
        count = None
        for j, attribute in enumerate(ATTRIBUTES):
            values = require(obj, attribute, where)
            if not isinstance(values, list) or not 1 <= len(values) <= MAX_ANNOTATORS:
                raise DataFormatError(f"{where}: field {attribute!r} must be a list of 1-{MAX_ANNOTATORS} ratings, got {values!r}")
            if count is not None and len(values) != count:
                raise DataFormatError(f"{where}: field {attribute!r} has {len(values)} ratings but "
                                      f"{ATTRIBUTES[0]!r} has {count}; every attribute needs one per annotator")
            count = len(values)
            row[:count, j] = [_rating(v, where, attribute) for v in values]
        rows.append(row)
    if not rows:
        raise DataFormatError(f"{path}: no samples (empty file)")
    identity = pd.factorize(pd.Series(ids, dtype=object), sort=False)[0] if ids[0] is not None else None
    return Annotations(prompts, responses, np.stack(rows), identity)


def load_aggregated(path: str | os.PathLike) -> pd.DataFrame:
    """Read the released aggregated format into a frame (prompt, response, one int column per attribute)."""
    records = []
    for number, obj in read_jsonl(path):
        where = f"{path}, line {number}"
        record = {"prompt": str(require(obj, "prompt", where)), "response": str(require(obj, "response", where))}
        for attribute in ATTRIBUTES:
            record[attribute] = _rating(require(obj, attribute, where), where, attribute)
        records.append(record)
    if not records:
        raise DataFormatError(f"{path}: no samples (empty file)")
    return pd.DataFrame.from_records(records)


def write_disagreements(annotations: Annotations, path: str | os.PathLike) -> Path:
    """Write annotations in the released disagreements schema (gzip when the name ends in .gz)."""
    compress = str(path).endswith(".gz")
    with atomic_open(path, "wb") as raw:
        handle = gzip.GzipFile(filename="", fileobj=raw, mode="wb", mtime=0) if compress else raw
        for prompt, response, row in zip(annotations.prompts, annotations.responses, annotations.ratings):
            present = ~np.isnan(row[:, 0])
            obj = {"prompt": prompt, "response": response}
            obj.update({a: [int(v) for v in row[present, j]] for j, a in enumerate(ATTRIBUTES)})
            handle.write((json.dumps(obj) + "\n").encode("utf-8"))
        if compress:
            handle.close()
    return Path(path)
