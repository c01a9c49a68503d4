"""The registry of external files: where each comes from, what it must hash to, its license.

Entries live in ``registry.yaml`` beside this module, grouped by source. Each file entry carries
its canonical ``url`` (``None`` for *mirror-only* files that have no byte-identical upstream copy,
e.g. numbers read off a paper), the expected ``size`` and ``sha256`` (``None`` where the hash could
not be pinned offline), and inherits ``license``, ``citation`` and ``note`` from its source.
A file's registry name is its path inside the mirror (``helmet/agg_results_128k.csv``).
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

import yaml

from ..errors import did_you_mean
from ..errors import UserError


class UnknownDataError(UserError, KeyError):
    """A name that is not in the registry."""

    def __str__(self) -> str:  # KeyError would repr() the message
        return self.args[0]


@dataclass(frozen=True)
class DataFile:
    """One registered external file."""

    name: str
    source: str
    title: str
    url: str | None
    sha256: str | None
    size: int | None
    license: str
    citation: str
    note: str
    canonical: str | None = None

    @property
    def mirror_only(self) -> bool:
        """True when no byte-identical copy can be downloaded: the file comes from a mirror."""
        return self.url is None


@lru_cache(maxsize=1)
def _load() -> dict[str, DataFile]:
    text = resources.files(__package__).joinpath("registry.yaml").read_text(encoding="utf-8")
    entries: dict[str, DataFile] = {}
    for source in yaml.safe_load(text)["sources"]:
        for item in source["files"]:
            url = source["url"].format(upstream=item.get("upstream", "")) if source.get("url") else None
            entries[item["path"]] = DataFile(
                name=item["path"], source=source["id"], title=source["title"], url=url,
                sha256=item.get("sha256"), size=item.get("size"), license=source["license"],
                citation=source["citation"], note=source.get("note", ""), canonical=source.get("canonical"),
            )
    return entries


def registry() -> dict[str, DataFile]:
    """All registered files by name."""
    return dict(_load())


def entry(name: str) -> DataFile:
    """The registry entry for ``name``, or an error with did-you-mean suggestions."""
    entries = _load()
    if name in entries:
        return entries[name]
    hint = did_you_mean(name, entries) or " Run `helmlite fetch --list` to see every name."
    raise UnknownDataError(f"unknown data file {name!r}: not in helmlite/data/registry.yaml.{hint}")


def source_files(source_id: str) -> list[DataFile]:
    """Every file registered under one source id (e.g. ``bbq``)."""
    files = [e for e in _load().values() if e.source == source_id]
    if not files:
        raise UnknownDataError(f"unknown data source {source_id!r} in helmlite/data/registry.yaml")
    return files


def sources_markdown() -> str:
    """The registry as a Markdown table, one row per source (kept in data/README.md; a test checks it)."""
    by_source: dict[str, list[DataFile]] = {}
    for item in _load().values():
        by_source.setdefault(item.source, []).append(item)
    lines = ["| source | files | origin | license | citation |", "|---|---|---|---|---|"]
    for source, files in by_source.items():
        first = files[0]
        origin = "mirror-only: " + (first.canonical or "") if first.mirror_only else first.url.rsplit("/", 1)[0] + "/…"
        lines.append(f"| `{source}` — {first.title} | {len(files)} | {origin} | {first.license} | {first.citation} |")
    return "\n".join(lines) + "\n"
