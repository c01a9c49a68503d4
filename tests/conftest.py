"""Shared fixtures: the read-only data mirror and an isolated download cache per test."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent


def _mirror() -> Path | None:
    value = os.environ.get("HELMLITE_DATA_MIRROR") or str(REPO.parent / "shared" / "data")
    path = Path(value).absolute()
    return path if path.is_dir() else None


@pytest.fixture
def mirror() -> Path:
    """The shared mirror (CI sets HELMLITE_DATA_MIRROR=../shared/data); tests needing it skip without it."""
    path = _mirror()
    if path is None:
        pytest.skip("no data mirror: set HELMLITE_DATA_MIRROR")
    return path


@pytest.fixture
def cache(tmp_path, monkeypatch) -> Path:
    """An empty fetch cache, and no mirror or network unless a test sets them."""
    path = tmp_path / "cache"
    monkeypatch.setenv("HELMLITE_DATA_CACHE", str(path))
    monkeypatch.delenv("HELMLITE_DATA_MIRROR", raising=False)
    monkeypatch.setenv("HELMLITE_OFFLINE", "1")
    return path


@pytest.fixture
def mirrored_cache(cache, mirror, monkeypatch) -> Path:
    """An empty cache that fetches from the shared mirror."""
    monkeypatch.setenv("HELMLITE_DATA_MIRROR", str(mirror))
    return cache
