"""Reading and writing run folders: a :class:`Run` read back whole (checked against its format version and counts),
the atomic write that puts stats.json last, and which runs of a list are present."""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from .._io import atomic_open, json_line, write_json
from .records import (
    FORMAT_VERSION,
    INSTANCES,
    MANIFEST,
    STATS,
    TIMINGS,
    InstanceRecord,
    Manifest,
    RunResultsError,
    RunStats,
    SpecRecord,
    Timings,
)


def scenario_label(scenario: str, args: dict) -> str:
    """A scenario's name with its argument values, e.g. ``mmlu:us_foreign_policy``, a switch by its name where it is on
    (``boolq:only_contrast``): how reports and claim names label a run's scenario, before (the planner) and after it
    runs (:attr:`Run.scenario_label`)."""
    text = ",".join(name if value is True else f"{value}" for name, value in args.items() if value is not False)
    return f"{scenario}{':' + text if text else ''}"


@dataclass
class Run:
    """A run folder read back: spec, stats, per-instance records, manifest and timings."""

    run_id: str
    spec: SpecRecord
    stats: RunStats
    records: list[InstanceRecord]
    manifest: Manifest
    timings: Timings
    folder: Path | None = None  # where it was read from (None: built in memory)

    @property
    def model(self) -> str:
        return self.stats.model

    @property
    def main_metric(self) -> str:
        return self.stats.main_metric

    @property
    def seed(self) -> int:
        """The in-context example selection seed."""
        return self.spec.seed

    @property
    def scenario_label(self) -> str:
        """The scenario's name with its argument values (:func:`scenario_label`)."""
        return scenario_label(self.stats.scenario, self.spec.args)

    def main_values(self, variant: str | None = None) -> dict[str, float]:
        """Instance id → main metric, on the instances as given or on one perturbed variant."""
        out = {}
        for record in self.records:
            value = record.value(self.main_metric, variant)
            if value is not None:
                out[record.id] = value
        return out

    def variants(self) -> list[str]:
        """Names of the perturbations present in the records."""
        return sorted({name for record in self.records for name in record.perturbed})


def write_run(folder: str | Path, records: list[InstanceRecord], stats: RunStats, manifest: dict, timings: dict) -> Path:
    """Write a run folder atomically, ``stats.json`` last (the file the workflow waits for). The manifest and timings
    are checked as :func:`read_run` checks them (:class:`Manifest`, :class:`Timings`) before anything is written, so a
    run that could not be read back is never written."""
    folder = Path(folder)
    if stats.n_instances != len(records):
        raise ValueError(f"stats count {stats.n_instances} instances but {len(records)} records were given")
    Manifest.from_json(manifest, folder / MANIFEST)
    Timings.from_json(timings, folder / TIMINGS)
    with atomic_open(folder / INSTANCES, "w", encoding="utf-8") as handle:
        for record in records:
            handle.write(json_line(record.to_json()) + "\n")
    write_json(folder / TIMINGS, {"format_version": FORMAT_VERSION, **timings})
    write_json(folder / MANIFEST, {"format_version": FORMAT_VERSION, **manifest})
    write_json(folder / STATS, stats.to_json())
    return folder


def _rebuild(folder: Path) -> str:
    """What every error about a run folder tells the reader to do."""
    return f"delete {folder} and re-run snakemake (finished requests come from the request cache)"


def _load_json(path: Path, rebuild: str) -> dict:
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as error:
        raise RunResultsError(f"{path} is missing, unreadable or truncated ({error}); {rebuild}") from None
    version = raw.get("format_version") if isinstance(raw, dict) else None
    if version != FORMAT_VERSION:
        raise RunResultsError(f"{path}: format_version {version!r}, expected {FORMAT_VERSION}; {rebuild}")
    return raw


def read_run(results_dir: str | Path, run_id: str) -> Run:
    """Read and validate one run folder (files present, same version, counts agree)."""
    folder = Path(results_dir) / run_id
    rebuild = _rebuild(folder)
    raw_stats, raw_manifest = _load_json(folder / STATS, rebuild), _load_json(folder / MANIFEST, rebuild)
    try:
        stats = RunStats.from_json(raw_stats, folder / STATS)
    except RunResultsError as error:
        raise RunResultsError(f"{error}; {rebuild}") from None
    raw_timings = _load_json(folder / TIMINGS, rebuild) if (folder / TIMINGS).exists() else {}
    try:
        manifest = Manifest.from_json(raw_manifest, folder / MANIFEST)
        timings = Timings.from_json(raw_timings, folder / TIMINGS)
    except RunResultsError as error:
        raise RunResultsError(f"{error}; {rebuild}") from None
    path = folder / INSTANCES
    try:
        records = [InstanceRecord.from_json(json.loads(line)) for line in path.read_text(encoding="utf-8").splitlines()]
    except (OSError, json.JSONDecodeError, KeyError, TypeError) as error:
        raise RunResultsError(f"{path} is unreadable or truncated ({error}); {rebuild}") from None
    ids = [record.id for record in records]
    if len(set(ids)) != len(ids):
        repeated = sorted({i for i in ids if ids.count(i) > 1})
        raise RunResultsError(f"{path}: instance id(s) appear more than once ({', '.join(repeated[:5])}); a run holds each "
                              f"instance once; {rebuild}")
    if len(records) != stats.n_instances:
        raise RunResultsError(f"{path} holds {len(records)} records but {STATS} counts {stats.n_instances}; {rebuild}")
    if stats.run_id != run_id:
        raise RunResultsError(f"{folder / STATS} belongs to run {stats.run_id!r}, not {run_id!r}; {rebuild}")
    return Run(run_id, manifest.spec, stats, records, manifest, timings, folder)


def read_stats(results_dir: str | Path, run_id: str) -> RunStats:
    """The validated ``stats.json`` of a finished run alone (its aggregates: a finished-run line, a summary), without
    reading its instances or manifest."""
    folder = Path(results_dir) / run_id
    rebuild = _rebuild(folder)
    try:
        return RunStats.from_json(_load_json(folder / STATS, rebuild), folder / STATS)
    except RunResultsError as error:
        raise RunResultsError(f"{error}; {rebuild}") from None


def read_timings(results_dir: str | Path, run_id: str) -> Timings | None:
    """The validated ``timings.json`` of a finished run (its ``stats.json`` exists), without reading its instances;
    None for a run that has not finished or kept no timings."""
    folder = Path(results_dir) / run_id
    if not (folder / STATS).exists() or not (folder / TIMINGS).exists():
        return None
    rebuild = _rebuild(folder)
    try:
        return Timings.from_json(_load_json(folder / TIMINGS, rebuild), folder / TIMINGS)
    except RunResultsError as error:
        raise RunResultsError(f"{error}; {rebuild}") from None


def read_runs(results_dir: str | Path, run_ids: list[str]) -> list[Run]:
    """Every listed run, validated (see :func:`read_run`)."""
    return [read_run(results_dir, run_id) for run_id in run_ids]


def present_runs(results_dir: str | Path, run_ids: list[str]) -> list[str]:
    """The run ids whose ``stats.json`` exists (finished runs), in the given order."""
    return [run_id for run_id in run_ids if (Path(results_dir) / run_id / STATS).exists()]
