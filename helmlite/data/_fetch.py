"""Fetch a registered file: cache dir → mirror dir → download, always sha256-verified, atomically.

* cache: ``$HELMLITE_DATA_CACHE`` or ``data/external/`` in helmlite's home (:mod:`helmlite.home`: the checkout's, git-ignored);
* mirror: ``$HELMLITE_DATA_MIRROR``, a folder laid out like the registry names (e.g. ``../shared/data``);
* download: the entry's canonical URL, unless ``$HELMLITE_OFFLINE=1`` or the entry is mirror-only.

A file whose sha256 does not match its registry entry is never used: a bad cache copy is deleted
and fetched again, a bad mirror copy is skipped. Files whose hash could not be pinned in the
registry (``sha256: null``) are trusted on first fetch; the hash seen then is recorded in a
``<file>.sha256`` sidecar and every later use is verified against it.
"""
from __future__ import annotations

import hashlib
import logging
import os
import shutil
from pathlib import Path

import requests

from .._io import atomic_path, write_text
from ..errors import DataError
from ..home import shared_path
from ._registry import DataFile, entry

CONNECT_TIMEOUT_S = 10
READ_TIMEOUT_S = 120


class FetchError(DataError, RuntimeError):
    """A registered file could not be obtained or failed verification; ``name``: the registered file's name."""

    def __init__(self, message: str, name: str | None = None):
        super().__init__(message)
        self.name = name


def cache_dir() -> Path:
    """Where fetched files live: ``$HELMLITE_DATA_CACHE`` or ``data/external/`` in helmlite's home (:mod:`helmlite.home`)."""
    return shared_path("HELMLITE_DATA_CACHE", "data/external")


def mirror_dir() -> Path | None:
    """The local mirror named by ``$HELMLITE_DATA_MIRROR`` (None when unset); it must exist."""
    value = os.environ.get("HELMLITE_DATA_MIRROR")
    if not value:
        return None
    path = Path(value).expanduser().absolute()
    if not path.is_dir():
        raise FetchError(f"HELMLITE_DATA_MIRROR={value!r} is not a directory ({path} does not exist); "
                         "point it at a mirror folder such as ../shared/data, or unset it")
    return path


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _sidecar(path: Path) -> Path:
    return path.with_name(path.name + ".sha256")


def _expected_sha(item: DataFile, cached: Path) -> str | None:
    if item.sha256:
        return item.sha256
    side = _sidecar(cached)
    return side.read_text().strip() if side.exists() else None


def _verified_cache_hit(item: DataFile, cached: Path) -> bool:
    expected = _expected_sha(item, cached)
    if expected is None:  # unpinned file without its recorded hash: cannot be trusted
        return False
    if sha256_of(cached) == expected:
        return True
    print(f"helmlite: cached {cached} does not match its sha256 ({expected[:12]}…); discarding it and fetching again")
    return False


def _install(item: DataFile, target: Path, produce) -> Path:
    """Write via ``produce(tmp_path)`` into a temp file, verify, then rename onto ``target``."""
    with atomic_path(target) as tmp:
        produce(tmp)
        got = sha256_of(tmp)
        if item.sha256 and got != item.sha256:
            raise FetchError(f"{item.name}: sha256 mismatch (expected {item.sha256}, got {got}); the file was not used", item.name)
        if not item.sha256:
            write_text(_sidecar(target), got + "\n")
    return target


def _from_mirror(item: DataFile, target: Path, mirror: Path) -> Path | None:
    source = mirror / item.name
    if not source.is_file():
        return None
    try:
        return _install(item, target, lambda tmp: shutil.copyfile(source, tmp))
    except FetchError as error:
        print(f"helmlite: mirror copy {source} rejected: {error}")
        return None


def _missing(item: DataFile, mirror: Path | None) -> str:
    """Where the file was looked for, and how to provide it: the exact path the mirror lacks, or how to set one."""
    if mirror is not None:
        return (f"the mirror HELMLITE_DATA_MIRROR={mirror} has no {mirror / item.name} (put the file there, or point "
                f"the variable at a mirror that holds it)")
    return (f"no mirror is set (HELMLITE_DATA_MIRROR unset): set it to a folder that holds {item.name}, "
            f"e.g. HELMLITE_DATA_MIRROR=../shared/data")


def _download(item: DataFile, target: Path, mirror: Path | None) -> Path:
    def produce(tmp: Path) -> None:
        with requests.get(item.url, stream=True, timeout=(CONNECT_TIMEOUT_S, READ_TIMEOUT_S)) as response:
            response.raise_for_status()
            with open(tmp, "wb") as handle:
                for block in response.iter_content(1 << 20):
                    handle.write(block)

    try:
        return _install(item, target, produce)
    except requests.RequestException as error:
        raise FetchError(f"could not download {item.name} from {item.url} ({type(error).__name__}), and "
                         f"{_missing(item, mirror)}; or place the file at {target}", item.name) from None


def fetch(name: str) -> Path:
    """Return a verified local path for the registered file ``name``, fetching it if needed."""
    item = entry(name)
    target = cache_dir() / item.name
    if target.is_file() and _verified_cache_hit(item, target):
        return target
    target.unlink(missing_ok=True)
    mirror = mirror_dir()
    if mirror is not None and (path := _from_mirror(item, target, mirror)) is not None:
        return path
    if item.mirror_only:
        raise FetchError(f"{item.name} is mirror-only ({item.note.split(':')[0]}; canonical source: {item.canonical}), "
                         f"and {_missing(item, mirror)}", item.name)
    if os.environ.get("HELMLITE_OFFLINE") == "1":
        raise FetchError(f"{item.name} is not cached, HELMLITE_OFFLINE=1 forbids downloading {item.url}, and "
                         f"{_missing(item, mirror)}", item.name)
    return _download(item, target, mirror)


def try_fetch(name: str) -> Path | None:
    """Like :func:`fetch`, but ``None`` when the file cannot be obtained (for optional data). Why is logged as a warning
    of the ``helmlite`` logger: ``helmlite``'s commands print it on stderr (the job's log in the workflow); in a
    notebook it is left out of the report, whose own text says what the missing file means."""
    try:
        return fetch(name)
    except FetchError as error:
        logging.getLogger(__name__).warning("optional data %s unavailable: %s", name, error)
        return None
