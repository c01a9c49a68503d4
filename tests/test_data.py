"""Registry and fetcher: mirror hits, checksum mismatches, offline errors, atomic writes."""
from __future__ import annotations

import hashlib
import re

import pytest
import requests

from helmlite import data
from helmlite.data import _fetch

CARD = "helpsteer2/card_example_disagreements.jsonl"  # mirror-only, pinned sha256
LITM = "litm/data/kv-retrieval-75_keys.jsonl.gz"  # downloadable, pinned sha256
UNPINNED = "helpsteer2/validation.jsonl.gz"  # downloadable, sha256 unknown offline


def test_every_entry_has_provenance():
    entries = data.registry()
    assert len(entries) >= 100
    for name, item in entries.items():
        assert item.license and item.citation, name
        assert item.url or item.canonical, f"{name}: needs a URL or a canonical source"
        assert item.sha256 is None or re.fullmatch(r"[0-9a-f]{64}", item.sha256), name
        if item.url:
            assert item.url.startswith("https://") and "{" not in item.url, name


def test_registry_hashes_match_the_mirror(mirror):
    """Every pinned entry present in the mirror hashes to its registered sha256 and size."""
    checked = 0
    for name, item in data.registry().items():
        path = mirror / name
        if item.sha256 and path.is_file():
            assert data.sha256_of(path) == item.sha256, name
            assert path.stat().st_size == item.size, name
            checked += 1
    assert checked >= 100


def test_mirror_hit_copies_and_verifies(mirrored_cache, mirror):
    path = data.fetch(CARD)
    assert path == mirrored_cache / CARD
    assert path.read_bytes() == (mirror / CARD).read_bytes()
    assert data.fetch(CARD) == path  # second call: cache hit


def test_cache_is_used_without_mirror(mirrored_cache, monkeypatch):
    data.fetch(CARD)
    monkeypatch.delenv("HELMLITE_DATA_MIRROR")
    assert data.fetch(CARD).is_file()


def _fake_mirror(tmp_path, name: str, content: bytes):
    root = tmp_path / "mirror"
    (root / name).parent.mkdir(parents=True)
    (root / name).write_bytes(content)
    return root


def test_mirror_copy_with_wrong_sha256_is_never_used(cache, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("HELMLITE_DATA_MIRROR", str(_fake_mirror(tmp_path, CARD, b"tampered\n")))
    with pytest.raises(data.FetchError, match="mirror-only"):
        data.fetch(CARD)
    assert "sha256 mismatch" in capsys.readouterr().out
    assert not (cache / CARD).exists()
    assert not list(cache.rglob("*.part"))


def test_corrupted_cache_copy_is_discarded_and_refetched(mirrored_cache, mirror):
    path = data.fetch(CARD)
    path.write_bytes(b"corrupted")
    assert data.fetch(CARD).read_bytes() == (mirror / CARD).read_bytes()


def test_offline_without_mirror_names_url_and_mirror(cache, monkeypatch):
    monkeypatch.delenv("HELMLITE_OFFLINE")

    def refuse(*args, **kwargs):
        raise requests.ConnectionError("Could not resolve host")

    monkeypatch.setattr(_fetch.requests, "get", refuse)
    with pytest.raises(data.FetchError) as error:
        data.fetch(LITM)
    message = str(error.value)
    assert data.entry(LITM).url in message and "HELMLITE_DATA_MIRROR" in message
    assert not (cache / LITM).exists()


def test_offline_flag_refuses_download_with_clear_message(cache):
    with pytest.raises(data.FetchError, match="HELMLITE_OFFLINE=1 forbids downloading"):
        data.fetch(LITM)


def test_mirror_only_file_without_mirror(cache):
    with pytest.raises(data.FetchError, match=r"mirror-only .* HELMLITE_DATA_MIRROR"):
        data.fetch(CARD)


def test_missing_mirror_directory_is_an_error(cache, tmp_path, monkeypatch):
    monkeypatch.setenv("HELMLITE_DATA_MIRROR", str(tmp_path / "nowhere"))
    with pytest.raises(data.FetchError, match="is not a directory"):
        data.fetch(CARD)


def test_unknown_name_suggests_close_matches():
    with pytest.raises(data.UnknownDataError, match="Did you mean: helmet/agg_results_128k.csv"):
        data.entry("helmet/agg_results_128.csv")


def test_interrupted_copy_leaves_nothing_behind(mirrored_cache, monkeypatch):
    def half_copy(source, target):
        with open(target, "wb") as handle:
            handle.write(b"half")
        raise OSError("disk full")

    monkeypatch.setattr(_fetch.shutil, "copyfile", half_copy)
    with pytest.raises(OSError, match="disk full"):
        data.fetch(CARD)
    assert not (mirrored_cache / CARD).exists()
    assert not [p for p in mirrored_cache.rglob("*") if p.is_file()]


class _Response:
    def __init__(self, body: bytes):
        self.body = body

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def raise_for_status(self):
        pass

    def iter_content(self, size):
        yield self.body


def test_download_verifies_pinned_sha256(cache, monkeypatch):
    monkeypatch.delenv("HELMLITE_OFFLINE")
    monkeypatch.setattr(_fetch.requests, "get", lambda *a, **k: _Response(b"not the real file"))
    with pytest.raises(data.FetchError, match="sha256 mismatch"):
        data.fetch(LITM)
    assert not (cache / LITM).exists()


def test_unpinned_download_records_its_hash_and_detects_later_changes(cache, monkeypatch):
    monkeypatch.delenv("HELMLITE_OFFLINE")
    body = b'{"prompt": "p"}\n'
    monkeypatch.setattr(_fetch.requests, "get", lambda *a, **k: _Response(body))
    path = data.fetch(UNPINNED)
    sidecar = path.with_name(path.name + ".sha256")
    assert sidecar.read_text().strip() == hashlib.sha256(body).hexdigest()
    path.write_bytes(b"changed")  # later tampering: detected, discarded, fetched again
    assert data.fetch(UNPINNED).read_bytes() == body


def test_cli_fetch_error_is_one_line(cache, capsys):
    from helmlite.cli import main

    assert main(["fetch", CARD]) == 2
    err = capsys.readouterr().err
    assert err.startswith("helmlite: error: ") and err.count("\n") == 1 and "Traceback" not in err


def test_data_readme_lists_every_source_with_license_and_citation():
    from .conftest import REPO

    assert data.sources_markdown() in (REPO / "data" / "README.md").read_text()


def test_offline_with_a_mirror_that_lacks_the_file_names_the_missing_path(cache, tmp_path, monkeypatch, capsys):
    """With HELMLITE_DATA_MIRROR set (to a folder without the file) and offline, the error says which path
    the mirror lacks — not "set HELMLITE_DATA_MIRROR" — for a mirror-only file and a downloadable one;
    `helmlite fetch` prints it as one line with exit status 2."""
    from helmlite import cli

    empty = tmp_path / "mirror"
    empty.mkdir()
    monkeypatch.setenv("HELMLITE_DATA_MIRROR", str(empty))
    for name in (CARD, "helm/datasets/mmlu/test/econometrics_test.csv"):
        with pytest.raises(data.FetchError) as error:
            data.fetch(name)
        assert f"the mirror HELMLITE_DATA_MIRROR={empty} has no {empty / name}" in str(error.value)
    assert cli.main(["fetch", CARD]) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and str(empty / CARD) in err
