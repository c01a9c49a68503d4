"""The records of a run folder and their JSON, each field type-checked on reading (one error naming the file and the
field): an instance record, the run statistics, the spec, timings and manifest."""
from __future__ import annotations

import math
from dataclasses import MISSING, asdict, dataclass, field, fields
from pathlib import Path

from ..errors import DataError

FORMAT_VERSION = 2
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
    """A run's aggregates: ``stats.json`` (validated on read like the manifest: one error names the file and field)."""

    run_id: str
    """The run's id (the folder's name)."""
    scenario: str
    """The scenario's registry name (``mmlu``; :attr:`Run.scenario_label` adds its arguments)."""
    model: str
    """The model's name as the run asked for it."""
    method: str
    """The adaptation method."""
    main_metric: str
    """The metric the run is judged by (:mod:`helmlite.evaluation.scoring_rules`)."""
    metric_families: tuple[str, ...]
    """The metric families computed (:mod:`helmlite.metrics.selection`)."""
    n_instances: int
    """Test instances evaluated (the records in ``instances.jsonl``)."""
    n_train_examples: int
    """In-context examples every test instance was shown."""
    metrics: dict[str, MetricStat]
    """Metric name → its estimate, interval, n and the interval's method."""
    efficiency: dict[str, float]
    """Tokens per instance (prompt, output) and the like."""
    bootstrap: dict
    """``n_resamples`` and ``seed``: the settings of every bootstrap interval in the file."""
    format_version: int = FORMAT_VERSION
    """The run-folder format's version."""
    decision: dict = field(default_factory=dict)
    """The selection and decision rules the run used (:func:`helmlite.evaluation.scoring_rules.decision_rules`)."""

    def to_json(self) -> dict:
        out = asdict(self)
        out["metric_families"] = list(self.metric_families)
        return out

    @classmethod
    def from_json(cls, raw, path: Path = Path(STATS)) -> "RunStats":
        values = _typed(cls, raw, path)
        try:
            values["metrics"] = {name: MetricStat.from_dict(m) for name, m in values["metrics"].items()}
        except (KeyError, TypeError, ValueError) as error:
            raise RunResultsError(f"{path}: field 'metrics' holds an entry without mean, ci_low, ci_high, n and "
                                  f"method ({error})") from None
        return cls(**values)


def _typed(cls, raw, path: Path):
    """``cls`` (a record dataclass of this module) from the JSON object ``raw`` of file ``path``: every field's JSON type
    checked, and the elements of its lists (:data:`_ELEMENT_TYPES`; a mapping's values are not), unknown and missing
    fields refused — one :class:`RunResultsError` naming the file and the field."""
    if not isinstance(raw, dict):
        raise RunResultsError(f"{path}: expected a JSON object, got {type(raw).__name__}")
    known = {f.name: f for f in fields(cls)}
    unknown = sorted(set(raw) - set(known) - {"format_version"})
    if unknown:
        raise RunResultsError(f"{path}: unknown field(s) {unknown}; expected some of {sorted(known)}")
    values = {}
    for name, spec in known.items():
        if name not in raw:
            if spec.default is MISSING and spec.default_factory is MISSING:
                raise RunResultsError(f"{path}: field {name!r} is missing")
            continue
        value, kinds = raw[name], _FIELD_TYPES[cls.__name__][name]
        if value is None and type(None) in kinds:
            values[name] = None
            continue
        if isinstance(value, bool) and bool not in kinds or not isinstance(value, tuple(k for k in kinds if k is not type(None))):
            expected = " or ".join("null" if k is type(None) else k.__name__ for k in kinds)
            raise RunResultsError(f"{path}: field {name!r} must be {expected}, got {type(value).__name__} {value!r:.60}")
        elements = _ELEMENT_TYPES.get(cls.__name__, {}).get(name)
        if elements is not None:
            bad = next((k for k, item in enumerate(value) if isinstance(item, bool) or not isinstance(item, elements)), None)
            if bad is not None:
                expected = " or ".join(k.__name__ for k in elements)
                raise RunResultsError(f"{path}: field {name!r}[{bad}] must be {expected}, got {type(value[bad]).__name__} "
                                      f"{value[bad]!r:.60}")
        values[name] = tuple(value) if list in kinds and tuple in kinds else value
    return values


@dataclass(frozen=True)
class SpecRecord:
    """A run's spec as ``manifest.json`` keeps it: :meth:`helmlite.evaluation.runspec.RunSpec.as_dict` for a native run, the source
    tool's task and settings for an imported one (:mod:`helmlite.imports`)."""

    scenario: str
    """The scenario's registry name (an imported run: the source tool's scenario or task name)."""
    model: str
    """The model's name as the run was asked for it (``smollm2-135m``, ``openai:<name>``, a model directory)."""
    adapter: dict
    """The adapter's settings (:class:`helmlite.evaluation.adaptation.AdapterSpec` fields: ``method``, ``seed``,
    ``max_train_instances``, …); an imported run's may carry its tool's own (lm-eval's ``num_fewshot``, ``filter``)."""
    args: dict = field(default_factory=dict)
    """The scenario's arguments (``subject``, ``target_tokens``, …)."""
    max_instances: int | None = None
    """The test subsample's size (None: every test instance)."""
    data_seed: int = 0
    """The test subsample's seed (HELM's: 0)."""
    perturbations: tuple[str, ...] = ()
    """Perturbations and scenario-supplied variants the run also evaluated."""
    metrics: tuple[str, ...] = ()
    """The metric families computed (:mod:`helmlite.metrics.selection`)."""
    dtype: str = "float32"
    """The transformers backend's precision (written only when it is not float32)."""
    source: str | None = None
    """The tool that made an imported run (``crfm-helm``, ``lm-eval``); None for a native run."""
    helm_run_name: str | None = None
    """An imported crfm-helm run's run name."""
    task_version: int | float | str | None = None
    """An imported lm-eval run's task version (lm-eval writes numbers such as 1.0, or strings)."""

    @classmethod
    def from_json(cls, raw, path: Path) -> "SpecRecord":
        values = _typed(cls, raw, path)
        if not isinstance(values["adapter"].get("method"), str):
            raise RunResultsError(f"{path}: field 'adapter.method' must be a method name, got {values['adapter'].get('method')!r}")
        return cls(**values)

    @property
    def method(self) -> str:
        """The adaptation method (``multiple_choice_separate``, ``generation``, …)."""
        return self.adapter["method"]

    @property
    def seed(self) -> int:
        """The in-context example selection seed (HELM's train trial index)."""
        return self.adapter.get("seed", 0)

    @property
    def shots(self) -> int | None:
        """The number of in-context examples asked for (``max_train_instances``)."""
        return self.adapter.get("max_train_instances")


@dataclass(frozen=True)
class Timings:
    """``timings.json``: where a run's wall-clock time went — the one file that differs between two runs of the same
    spec. A native run fills the seconds and latencies (and the request counts when it ran through the request cache);
    an imported one the latencies its tool recorded, if any, and ``source``. Values are checked by type, and
    ``latency_s``'s elements are numbers."""

    wall_s: float | None = None
    """Seconds from the run's start to its stats (writing the folder not included)."""
    prepare_s: float | None = None
    """Seconds loading instances, perturbing and adapting prompts."""
    model_s: float | None = None
    """Seconds in model calls (through the request cache)."""
    metrics_s: float | None = None
    """Seconds interpreting outputs and computing metrics and intervals."""
    overhead_s: float | None = None
    """``wall_s − model_s``: all that is not model calls (issue 24's per-run overhead)."""
    latency_s: tuple[float, ...] = ()
    """Per test instance, the seconds its requests took (HELM's observed inference runtime)."""
    model_calls: int | None = None
    """Requests the model answered in this run (not the request cache)."""
    cache_hits: int | None = None
    """Requests the request cache answered in this run."""
    encoded_tokens: int | None = None
    """Token positions the model ran through its network in this run, padding excluded (a local transformers model;
    None for a backend that does not count them): fewer than its prompts' tokens where a few-shot prefix is encoded
    once for every instance, 0 where the request cache answered everything."""
    source: str | None = None
    """An imported run: where its latencies come from (or that its tool recorded none)."""

    @classmethod
    def from_json(cls, raw, path: Path) -> "Timings":
        return cls(**_typed(cls, raw, path))


@dataclass(frozen=True)
class Manifest:
    """``manifest.json``: what made the run — its spec, the model's identity, the code and data behind it."""

    run_id: str
    """The run's id (the folder's name)."""
    spec: SpecRecord
    """The run's spec (:class:`SpecRecord`)."""
    model_identity: dict
    """The model's identity (backend, name, weights' sha256, dtype; an imported run: its tool and model name)."""
    in_context_examples: tuple[str, ...] = ()
    """The ids of the in-context examples every test instance was shown."""
    packages: dict = field(default_factory=dict)
    """Versions of the packages that computed the run (:func:`helmlite.results.provenance.package_versions`)."""
    git: dict = field(default_factory=dict)
    """The project's commit and whether its tree was clean."""
    data_files: tuple[str, ...] = ()
    """Registry names of the data files the scenario read."""
    versions: dict = field(default_factory=dict)
    """The definition versions behind the results (:attr:`helmlite.evaluation.runspec.RunSpec.versions`)."""
    perturbation_resources: dict = field(default_factory=dict)
    """Which file served each run-time perturbation word list (HELM's own or a stand-in)."""
    annotations: dict = field(default_factory=dict)
    """What each metric family's annotation hook noted about the run, by family (:func:`helmlite.metrics.families.annotate`;
    ``toxicity``: the classifier used, its name and whether it is an offline proxy); empty when no family has one."""
    hardware: dict | None = None
    """Where the model ran (device, its name, dtype, torch and CUDA versions: :func:`helmlite.models.devices.device_record`);
    None for a server or an imported run."""
    imported_from: dict | None = None
    """An imported run: its tool, version, files with sha256 and the tool's own aggregate."""
    imported_by: dict | None = None
    """An imported run: the helmlite version that imported it."""

    @classmethod
    def from_json(cls, raw, path: Path) -> "Manifest":
        values = _typed(cls, raw, path)
        values["spec"] = SpecRecord.from_json(values["spec"], Path(f"{path}: spec"))
        return cls(**values)


_FIELD_TYPES = {  # per record and field, the JSON types accepted (a list read as a tuple where both are given)
    "RunStats": {**{name: (str,) for name in ("run_id", "scenario", "model", "method", "main_metric")},
                 "metric_families": (list, tuple), "n_instances": (int,), "n_train_examples": (int,), "metrics": (dict,),
                 "efficiency": (dict,), "bootstrap": (dict,), "format_version": (int,), "decision": (dict,)},
    "SpecRecord": {"scenario": (str,), "model": (str,), "adapter": (dict,), "args": (dict,), "max_instances": (int, type(None)),
                   "data_seed": (int,), "perturbations": (list, tuple), "metrics": (list, tuple), "dtype": (str,),
                   "source": (str, type(None)), "helm_run_name": (str, type(None)), "task_version": (int, float, str, type(None))},
    "Timings": {**{name: (float, int, type(None)) for name in ("wall_s", "prepare_s", "model_s", "metrics_s", "overhead_s")},
                "latency_s": (list, tuple), "model_calls": (int, type(None)), "cache_hits": (int, type(None)),
                "encoded_tokens": (int, type(None)), "source": (str, type(None))},
    "Manifest": {"run_id": (str,), "spec": (dict,), "model_identity": (dict,), "in_context_examples": (list, tuple),
                 "packages": (dict,), "git": (dict,), "data_files": (list, tuple), "versions": (dict,),
                 "perturbation_resources": (dict,), "annotations": (dict,), "hardware": (dict, type(None)),
                 "imported_from": (dict, type(None)), "imported_by": (dict, type(None))},
}


_ELEMENT_TYPES = {  # per record and list field, the JSON type of its elements
    "RunStats": {"metric_families": (str,)},
    "SpecRecord": {"perturbations": (str,), "metrics": (str,)},
    "Timings": {"latency_s": (float, int)},
    "Manifest": {"in_context_examples": (str,), "data_files": (str,)},
}
