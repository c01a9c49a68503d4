"""The run-folder contract: the only code that knows the layout of ``results/runs/<run_id>/``.

Modelled on HELM's fixed per-run files (``stats.json`` beside ``per_instance_stats.json``,
``src/helm/benchmark/runner.py``): every run folder holds

* ``instances.jsonl`` — one :class:`InstanceRecord` per test instance (prompt, completion or scores,
  prediction, references, per-instance metrics, tokens, perturbed variants): kept beside the
  aggregates because paired bootstrap and error analysis need them;
* ``stats.json`` — :class:`RunStats`: every metric's estimate with its interval and the interval's
  method, the metric families computed, the bootstrap settings;
* ``manifest.json`` — the run spec, model identity, versions, git commit, in-context example ids;
* ``timings.json`` — wall-clock latencies and cache counters (the one file that differs between runs).

Every file carries ``format_version``; a reader refuses a folder written in another version, a
truncated file or counts that disagree, with one message that names the file and how to rebuild it.
Writes are atomic (temp file + rename) and ``instances.jsonl`` is written first, ``stats.json`` —
what Snakemake waits for — after it.
"""
from __future__ import annotations

import json
import math
from dataclasses import MISSING, asdict, dataclass, field, fields
from pathlib import Path

from ._io import atomic_open, json_line, write_json
from .errors import DataError

FORMAT_VERSION = 1
INSTANCES, STATS, MANIFEST, TIMINGS = "instances.jsonl", "stats.json", "manifest.json", "timings.json"


class RunResultsError(DataError):
    """A results folder that is missing, incomplete, corrupted or of another format version."""


@dataclass(frozen=True)
class MetricStat:
    """One metric of a run: estimate, interval, number of items and the interval's method."""

    mean: float
    ci_low: float
    ci_high: float
    n: int
    method: str

    @classmethod
    def from_dict(cls, raw: dict) -> "MetricStat":
        return cls(*(math.nan if raw.get(k) is None else raw[k] for k in ("mean", "ci_low", "ci_high")),
                   int(raw["n"]), raw["method"])


@dataclass(frozen=True)
class PerturbedOutcome:
    """What the model did on one perturbed (or contrast) variant of an instance."""

    prediction: str | None
    correct: bool | None
    metrics: dict[str, float]
    probabilities: list[float] | None = None  # multiple choice: one per reference (the depth baseline's P(gold))

    def to_json(self) -> dict:
        return {k: v for k, v in asdict(self).items() if k != "probabilities" or v is not None}


@dataclass
class InstanceRecord:
    """One evaluated test instance (HELM's ``per_instance_stats`` with the request and its outputs)."""

    id: str
    input: str
    prompt: str
    n_train: int
    truncated: bool
    prompt_tokens: int
    references: list[tuple[str, bool]]
    metadata: dict
    prediction: str | None
    correct: bool | None
    metrics: dict[str, float]
    completion: str | None = None  # generation
    output_tokens: int = 0
    scores: list[float] | None = None  # multiple choice: one log-probability per choice
    probabilities: list[float] | None = None
    predicted_index: int | None = None
    confidence: float | None = None  # the probability calibration metrics use (HELM's max_prob; multiple choice and generation)
    p_yes: list[float] | None = None  # ranking: P(yes) per candidate passage
    ranking: list[int] | None = None
    toxicity: float | None = None
    perturbed: dict[str, PerturbedOutcome] = field(default_factory=dict)

    def to_json(self) -> dict:
        """The JSON object of one line of ``instances.jsonl``: required fields always (``prediction`` and
        ``correct`` may be null), optional ones only when set."""
        out = {k: v for k, v in asdict(self).items() if k in _REQUIRED or (v is not None and not (k == "perturbed" and not v))}
        out["references"] = [list(r) for r in self.references]
        if self.perturbed:
            out["perturbed"] = {name: variant.to_json() for name, variant in self.perturbed.items()}
        return out

    @classmethod
    def from_json(cls, raw: dict) -> "InstanceRecord":
        known = {f.name for f in fields(cls)}
        unknown = set(raw) - known
        if unknown:
            raise KeyError(f"unknown field(s) {sorted(unknown)}")
        record = cls(**raw)
        record.references = [(str(o), bool(c)) for o, c in record.references]
        record.perturbed = {name: PerturbedOutcome(**p) for name, p in (raw.get("perturbed") or {}).items()}
        return record

    def value(self, metric: str, variant: str | None = None) -> float | None:
        """Metric ``metric`` on the instance as given (``variant=None``) or on a perturbed variant."""
        metrics = self.metrics if variant is None else (self.perturbed[variant].metrics if variant in self.perturbed else {})
        return metrics.get(metric)


_REQUIRED = {f.name for f in fields(InstanceRecord) if f.default is MISSING and f.default_factory is MISSING}


@dataclass(frozen=True)
class RunStats:
    """A run's aggregates: ``stats.json``."""

    run_id: str
    scenario: str
    model: str
    method: str
    main_metric: str
    metric_families: tuple[str, ...]
    n_instances: int
    n_train_examples: int
    metrics: dict[str, MetricStat]
    efficiency: dict[str, float]
    bootstrap: dict  # n_resamples and seed purpose of every bootstrap interval in the file
    format_version: int = FORMAT_VERSION
    decision: dict = field(default_factory=dict)  # selection and decision rules the run used (run_rules.decision_rules)

    def to_json(self) -> dict:
        out = asdict(self)
        out["metric_families"] = list(self.metric_families)
        return out

    @classmethod
    def from_json(cls, raw: dict) -> "RunStats":
        raw = dict(raw)
        raw["metrics"] = {name: MetricStat.from_dict(m) for name, m in raw["metrics"].items()}
        raw["metric_families"] = tuple(raw["metric_families"])
        return cls(**raw)


@dataclass
class Run:
    """A run folder read back: spec, stats, per-instance records, manifest and timings."""

    run_id: str
    spec: dict
    stats: RunStats
    records: list[InstanceRecord]
    manifest: dict
    timings: dict

    @property
    def model(self) -> str:
        return self.stats.model

    @property
    def main_metric(self) -> str:
        return self.stats.main_metric

    @property
    def seed(self) -> int:
        """The in-context example selection seed."""
        return self.spec["adapter"]["seed"]

    @property
    def scenario(self) -> str:
        """Scenario name with its argument values, e.g. ``mmlu:us_foreign_policy``."""
        args = ",".join(f"{v}" for v in self.spec.get("args", {}).values())
        return f"{self.stats.scenario}{':' + args if args else ''}"

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
    """Write a run folder atomically, ``stats.json`` last (the file the workflow waits for)."""
    folder = Path(folder)
    if stats.n_instances != len(records):
        raise ValueError(f"stats count {stats.n_instances} instances but {len(records)} records were given")
    with atomic_open(folder / INSTANCES, "w", encoding="utf-8") as handle:
        for record in records:
            handle.write(json_line(record.to_json()) + "\n")
    write_json(folder / TIMINGS, {"format_version": FORMAT_VERSION, **timings})
    write_json(folder / MANIFEST, {"format_version": FORMAT_VERSION, **manifest})
    write_json(folder / STATS, stats.to_json())
    return folder


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
    rebuild = f"delete {folder} and re-run snakemake (finished requests come from the request cache)"
    raw_stats, manifest = _load_json(folder / STATS, rebuild), _load_json(folder / MANIFEST, rebuild)
    timings = _load_json(folder / TIMINGS, rebuild) if (folder / TIMINGS).exists() else {}
    try:
        stats = RunStats.from_json(raw_stats)
        spec = manifest["spec"]
    except (KeyError, TypeError) as error:
        raise RunResultsError(f"{folder / STATS}: unexpected content ({error}); {rebuild}") from None
    path = folder / INSTANCES
    try:
        records = [InstanceRecord.from_json(json.loads(line)) for line in path.read_text(encoding="utf-8").splitlines()]
    except (OSError, json.JSONDecodeError, KeyError, TypeError) as error:
        raise RunResultsError(f"{path} is unreadable or truncated ({error}); {rebuild}") from None
    if len(records) != stats.n_instances:
        raise RunResultsError(f"{path} holds {len(records)} records but {STATS} counts {stats.n_instances}; {rebuild}")
    if stats.run_id != run_id:
        raise RunResultsError(f"{folder / STATS} belongs to run {stats.run_id!r}, not {run_id!r}; {rebuild}")
    return Run(run_id, spec, stats, records, manifest, timings)


def read_runs(results_dir: str | Path, run_ids: list[str]) -> list[Run]:
    """Every listed run, validated (see :func:`read_run`)."""
    return [read_run(results_dir, run_id) for run_id in run_ids]


def present_runs(results_dir: str | Path, run_ids: list[str]) -> list[str]:
    """The run ids whose ``stats.json`` exists (finished runs), in the given order."""
    return [run_id for run_id in run_ids if (Path(results_dir) / run_id / STATS).exists()]
