"""Reading JSON Lines (plain or gzip) with errors that name the file, the line and the problem."""
from __future__ import annotations

import gzip
import json
import os
from pathlib import Path
from typing import Iterator

from .errors import DataError


class DataFormatError(DataError):
    """Input data that does not have the expected shape; the message names file, line and field."""


def open_text(path: str | os.PathLike):
    """Open a text file for reading, transparently decompressing ``.gz``."""
    path = Path(path)
    if not path.is_file():
        raise DataFormatError(f"{path}: file not found")
    return gzip.open(path, "rt", encoding="utf-8") if path.suffix == ".gz" else open(path, encoding="utf-8")


def read_jsonl(path: str | os.PathLike) -> Iterator[tuple[int, dict]]:
    """Yield ``(line_number, object)`` for every non-blank line; each must be a JSON object."""
    with open_text(path) as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
            except json.JSONDecodeError as error:
                raise DataFormatError(f"{path}, line {number}: malformed JSON ({error.msg} at column {error.colno})") from None
            if not isinstance(obj, dict):
                raise DataFormatError(f"{path}, line {number}: expected a JSON object, got {type(obj).__name__}")
            yield number, obj


def require(obj: dict, field: str, where: str):
    """``obj[field]``, or a DataFormatError naming ``where`` and the missing field."""
    if field not in obj:
        raise DataFormatError(f"{where}: missing required field {field!r}")
    return obj[field]
