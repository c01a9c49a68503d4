"""A run spec: scenario, model, adapter settings, instance count, perturbations and metric families — and
its stable id (HELM's ``RunSpec`` = scenario spec + adapter spec + metric specs, ``src/helm/benchmark/run_spec.py``).

Kept apart from :mod:`helmlite.evaluation.runner` (which executes runs) so that the workflow can enumerate a
config's runs without importing the engine (the Snakefile parses on every ``snakemake`` call).
"""
from __future__ import annotations

import hashlib
import json
import re
import dataclasses
from dataclasses import dataclass, field
from pathlib import Path

from . import adaptation
from ..errors import did_you_mean
from .adaptation import AdapterSpec
from ..errors import UserError
from ..metrics.selection import family_version
from ..metrics.selection import check_families, default_families
from ..models.devices import DEFAULT_DTYPE, DTYPES
from .perturbations import perturbation, perturbation_kinds
from ..scenarios import SCENARIO_VARIANTS, scenario


class RunError(UserError):
    """A run spec that cannot be executed (unknown name, empty scenario, bad argument)."""


def model_key(model: str) -> str:
    """How a spec's model enters its run id: an embedded model's or a server model's name as given; a local model
    directory's folder name and weights hash (:func:`helmlite.models._identity.local_model_key`), so moving the folder
    keeps its runs' ids."""
    from ..models import EMBEDDED, local_model_key, served_by

    if model in EMBEDDED or served_by(model) is not None or not Path(model).is_dir():
        return model
    return local_model_key(Path(model))


@dataclass(frozen=True)
class RunSpec:
    scenario: str
    model: str
    args: tuple[tuple[str, object], ...] = ()
    adapter: AdapterSpec = field(default_factory=AdapterSpec)
    max_instances: int | None = None
    data_seed: int = 0
    perturbations: tuple[str, ...] = ()  # "robustness", "dialect", "gender", "race", "contrast", "baseline"
    metrics: tuple[str, ...] = ()  # metric families (helmlite.metrics.selection); from_dict fills the defaults
    dtype: str = DEFAULT_DTYPE  # the transformers backend's precision: part of the run's identity (it changes scores)

    def __post_init__(self):
        """Instance count, data seed and the scenario's support for the method checked; metric families validated
        when given, else the scenario's and method's defaults."""
        count = self.max_instances
        if count is not None and (isinstance(count, bool) or not isinstance(count, int) or count < 1):
            raise RunError(f"run spec: max_instances must be a whole number >= 1 (or absent for all instances), "
                           f"got {count!r}")
        if isinstance(self.data_seed, bool) or not isinstance(self.data_seed, int) or self.data_seed < 0:
            raise RunError(f"run spec: data_seed must be a whole number >= 0, got {self.data_seed!r}")
        if self.dtype not in DTYPES:
            raise RunError(f"run spec: dtype must be one of {', '.join(DTYPES)}, got {self.dtype!r}")
        info = scenario(self.scenario)
        info.check_method(self.adapter.method)
        families = check_families(self.metrics) if self.metrics else default_families(
            self.adapter.method, perturbation_kinds(self.perturbations).values(), info.metrics)
        object.__setattr__(self, "metrics", families)

    @classmethod
    def from_dict(cls, spec: dict) -> "RunSpec":
        """From a config mapping: scenario, model, args (mapping), adapter (mapping), max_instances, data_seed,
        perturbations, metrics (family names; default: the scenario's and method's, see ``default_families``), dtype
        (``float32``, ``bfloat16``, ``float16``; default float32)."""
        known = {"scenario", "model", "args", "adapter", "max_instances", "data_seed", "perturbations", "metrics", "dtype"}
        unknown = set(spec) - known
        if unknown:
            raise RunError(f"run spec: unknown field(s) {sorted(unknown)}; expected {sorted(known)}")
        info = scenario(spec["scenario"])
        if not isinstance(spec.get("args") or {}, dict):
            raise RunError(f"run spec: args must be a mapping of scenario arguments, got {spec.get('args')!r}")
        info.check_args(dict(spec.get("args") or {}))
        adapter = {"method": info.default_method, **info.adapter_defaults(dict(spec.get("args") or {})), **(spec.get("adapter") or {})}
        if "stop_sequences" in adapter:
            adapter["stop_sequences"] = tuple(adapter["stop_sequences"])
        fields = [f.name for f in dataclasses.fields(AdapterSpec)]
        for key in adapter:
            if key not in fields:
                raise RunError(f"run spec adapter: unknown key {key!r}; expected one of {', '.join(fields)}."
                               f"{did_you_mean(key, fields)}")
        adapter_spec = AdapterSpec(**adapter)
        args = tuple(sorted((k, tuple(v) if isinstance(v, list) else v) for k, v in (spec.get("args") or {}).items()))
        perturbations = tuple(spec.get("perturbations") or ())
        for name in perturbations:
            if name not in SCENARIO_VARIANTS:
                perturbation(name)  # validates the name
        return cls(spec["scenario"], spec["model"], args, adapter_spec, spec.get("max_instances"), spec.get("data_seed", 0),
                   perturbations, tuple(spec.get("metrics") or ()), spec.get("dtype", DEFAULT_DTYPE))

    def as_dict(self) -> dict:
        out = {"scenario": self.scenario, "model": self.model, "args": dict(self.args), "adapter": self.adapter.as_dict(),
               "max_instances": self.max_instances, "data_seed": self.data_seed}
        if self.perturbations:
            out["perturbations"] = list(self.perturbations)
        out["metrics"] = list(self.metrics)
        if self.dtype != DEFAULT_DTYPE:  # only then: the ids of float32 runs stay those made before dtype existed
            out["dtype"] = self.dtype
        return out

    @property
    def versions(self) -> dict:
        """The definition versions behind the run's results: its scenario loader's, the prompt layout's
        (:data:`helmlite.evaluation.adaptation.LAYOUT_VERSION`), each perturbation's and each metric family's (what lm-eval keeps
        as a task's ``metadata.version``)."""
        return {"scenario": scenario(self.scenario).version, "adaptation": adaptation.LAYOUT_VERSION,
                "perturbations": {p: perturbation(p).version for p in self.perturbations if p not in SCENARIO_VARIANTS},
                "metrics": {family: family_version(family) for family in self.metrics}}

    def _changed_versions(self) -> dict:
        """The versions above 1: a definition still at its first version adds nothing to the run id, so the ids of
        runs made before versions existed stay valid for every definition that has not changed since."""
        versions = self.versions
        out = {kind: versions[kind] for kind in ("scenario", "adaptation") if versions[kind] != 1}
        for kind in ("perturbations", "metrics"):
            changed = {name: v for name, v in versions[kind].items() if v != 1}
            if changed:
                out[kind] = changed
        return out

    @property
    def run_id(self) -> str:
        """Readable prefix + the first 10 hex digits of the sha256 of the spec and its changed definition versions
        (:meth:`versions`): a raised version gives every run it affects a new id, so the workflow runs it again. A local
        model directory enters as its name and weights' hash (:func:`model_key`), not its path."""
        identity = self.as_dict()
        model = model_key(self.model)
        identity["model"] = model
        changed = self._changed_versions()
        if changed:
            identity["versions"] = changed
        text = json.dumps(identity, sort_keys=True, default=list)
        digest = hashlib.sha256(text.encode()).hexdigest()[:10]
        args = ",".join(f"{k}={v}" for k, v in self.args if not isinstance(v, tuple))
        precision = f"-{self.dtype}" if self.dtype != DEFAULT_DTYPE else ""
        readable = re.sub(r"[^A-Za-z0-9_.=,-]+", "_",
                          f"{self.scenario}{':' + args if args else ''}-{model}{precision}-{self.adapter.method}")
        return f"{readable[:90]}-{digest}"
