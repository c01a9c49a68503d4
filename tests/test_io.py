"""Atomic writes: files appear whole or not at all, with the permissions of any other new file."""
from __future__ import annotations

import os
import stat

import pandas as pd
import pytest

from helmlite._io import atomic_path, write_csv, write_json, write_text


def _write_through_atomic_path(target):
    with atomic_path(target) as tmp:
        tmp.write_bytes(b"\x89PNG")  # what a figure writer (savefig to a path) does


WRITERS = {
    "write_text": lambda target: write_text(target, "text\n"),
    "write_json": lambda target: write_json(target, {"a": 1.0, "b": float("nan")}),
    "write_csv": lambda target: write_csv(target, pd.DataFrame({"x": [1, 2], "y": [0.5, 0.25]})),
    "atomic_path": _write_through_atomic_path,
}


@pytest.fixture
def umask():
    """Set the process umask for one test and restore the previous one afterwards."""
    previous = os.umask(0o022)
    try:
        yield os.umask
    finally:
        os.umask(previous)


@pytest.mark.parametrize("mask,mode", [(0o022, 0o644), (0o027, 0o640), (0o077, 0o600)])
@pytest.mark.parametrize("writer", WRITERS)
def test_written_files_get_the_mode_the_umask_allows(tmp_path, umask, writer, mask, mode):
    """0o666 & ~umask (0644 under the usual 022), not mkstemp's 0600, so reports and figures are readable."""
    umask(mask)
    target = tmp_path / "out" / "file"
    WRITERS[writer](target)
    assert stat.S_IMODE(target.stat().st_mode) == mode
    assert [p.name for p in target.parent.iterdir()] == ["file"]  # no temporary file left behind


def test_a_rewrite_replaces_a_private_file_with_a_readable_one(tmp_path, umask):
    target = tmp_path / "table.csv"
    target.write_text("old\n")
    target.chmod(0o600)
    write_text(target, "new\n")
    assert target.read_text() == "new\n" and stat.S_IMODE(target.stat().st_mode) == 0o644


def test_a_failed_write_leaves_the_old_file_and_no_temporary_file(tmp_path):
    target = tmp_path / "stats.json"
    write_json(target, {"n": 1})
    with pytest.raises(RuntimeError, match="interrupted"), atomic_path(target) as tmp:
        tmp.write_text("half")
        raise RuntimeError("interrupted")
    assert target.read_text() == '{\n  "n": 1\n}\n'
    assert [p.name for p in tmp_path.iterdir()] == ["stats.json"]


def test_write_csv_leaves_undefined_values_empty(tmp_path):
    """Hand-built: ±inf (no finite bound, nothing detectable) is written as an empty cell like NaN; other
    values, text columns and the caller's frame are untouched."""
    import math

    import pandas as pd

    from helmlite._io import write_csv

    frame = pd.DataFrame({"claim": ["a", "b"], "ci_low": [-math.inf, 0.25], "mde": [math.inf, 0.1], "n": [2, 40]})
    path = write_csv(tmp_path / "t.csv", frame)
    assert path.read_text() == "claim,ci_low,mde,n\na,,,2\nb,0.25,0.1,40\n"
    assert math.isinf(frame["mde"][0])
