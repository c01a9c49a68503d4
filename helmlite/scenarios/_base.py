"""Frozen scenario records and the scenario registry.

A scenario turns raw files (fetched through :mod:`helmlite.data`) into :class:`Instance` records,
HELM-style (Liang et al. 2022, §3): an input, references tagged correct or not, a split, metadata
(subject, group, depth, …) and optional partners the scenario supplies: a *contrast* (a minimally edited input
whose label may change — Gardner et al. 2020; HELM's equivariance robustness) and a *baseline* (the same
candidates asked about something the context does not contain — see :data:`SCENARIO_VARIANTS`).
"""
from __future__ import annotations

import inspect
from dataclasses import dataclass, field
from typing import Callable

from ..errors import did_you_mean
from ..errors import UserError

TRAIN, TEST = "train", "test"
# Variants a scenario supplies with its instances (a run asks for them in ``perturbations``, like HELM's
# perturbations), by name → Instance attribute. ``contrast``: Gardner et al.'s contrast sets. ``baseline``:
# the retrieval tasks' key-absent query over the same context and candidates — what a model picks from
# position or candidate preference alone, which a depth curve subtracts (issue: candidate bias).
SCENARIO_VARIANTS = {"contrast": "contrast", "baseline": "baseline"}


@dataclass(frozen=True)
class Reference:
    output: str
    correct: bool = False
    relevance: float | None = None  # graded relevance, for ranking scenarios


@dataclass(frozen=True)
class Instance:
    id: str
    input: str
    references: tuple[Reference, ...]
    split: str
    metadata: dict = field(default_factory=dict, compare=False, hash=False)
    contrast: "Instance | None" = None
    baseline: "Instance | None" = None  # same references, a query the context cannot answer (key-independent preference)

    @property
    def correct_references(self) -> tuple[Reference, ...]:
        return tuple(r for r in self.references if r.correct)

    @property
    def first_correct(self) -> str | None:
        correct = self.correct_references
        return correct[0].output if correct else None


@dataclass(frozen=True)
class ScenarioInfo:
    """A registered scenario: its loader and the defaults that go with it."""

    name: str
    load: Callable[..., list[Instance]]
    description: str
    main_metric: str
    default_method: str
    data: tuple[str, ...] = ()  # registry names the loader reads (for prefetching)
    adapter: dict = field(default_factory=dict)  # prompt-format defaults for this scenario (AdapterSpec fields)
    metrics: tuple[str, ...] = ()  # metric families beyond the method's defaults (helmlite.metrics.families)
    adapter_args: Callable[..., dict] | None = None  # AdapterSpec defaults that depend on the scenario's arguments
    choices: dict = field(default_factory=dict)  # argument name → the values it accepts (subjects, categories, ...)
    version: int = 1  # raised when the loader's instances change (lm-eval's task metadata.version): enters the run id
    methods: tuple[str, ...] = ()  # the adaptation methods whose scores mean something here (:func:`methods_for`)

    def check_method(self, method: str) -> None:
        """Refuse a method the scenario does not support — e.g. a multiple-choice method on a scenario whose
        instances have one reference, which would offer that one answer as the only option and score every run
        1.0 — with one :class:`UnsupportedMethodError` naming the scenario, the method and the supported ones."""
        if method not in self.methods:
            raise UnsupportedMethodError(f"scenario {self.name!r} does not support method {method!r}; its methods: "
                                         f"{', '.join(self.methods)}")

    def check_args(self, args: dict) -> None:
        """Unknown argument names and values outside an argument's choices: one :class:`UnknownScenarioError`
        with a did-you-mean, before any data is read (a config is checked at ``helmlite config`` and at
        Snakemake start-up, not when its run job fails)."""
        accepted = [p for p in inspect.signature(self.load).parameters if p != "count_tokens"]
        for name, value in args.items():
            if name not in accepted:
                raise UnknownScenarioError(f"scenario {self.name!r}: unknown argument {name!r}; accepted: {accepted}."
                                           f"{did_you_mean(name, accepted)}")
            if name in self.choices and value not in self.choices[name]:
                raise UnknownScenarioError(f"scenario {self.name!r}: {name} must be one of {list(self.choices[name])}, got "
                                           f"{value!r}.{did_you_mean(str(value), [str(c) for c in self.choices[name]])}")

    def adapter_defaults(self, args: dict) -> dict:
        """The scenario's AdapterSpec defaults for these arguments: ``adapter`` plus what ``adapter_args``
        derives from them (e.g. MMLU's instructions name the subject, as HELM's ``get_mmlu_spec``)."""
        if self.adapter_args is None:
            return dict(self.adapter)
        accepted = inspect.signature(self.adapter_args).parameters
        return {**self.adapter, **self.adapter_args(**{k: v for k, v in args.items() if k in accepted})}


class UnknownScenarioError(UserError, KeyError):
    def __str__(self) -> str:
        return self.args[0]


class UnsupportedMethodError(UserError):
    """A run asks a scenario for an adaptation method it does not support."""


#: The methods of each family of scenarios: ``choices`` — instances whose references are the answer options (HELM's
#: multiple-choice scenarios; HELM itself generates the label for some, so generation too); ``retrieval`` — the
#: depth tasks, generated or scored by the log-probability of each candidate in the context (separate scoring: a
#: lettered list of a context's candidates is not a question these tasks ask); ``generation`` — one or more
#: reference answers and no options; ``language_modeling`` and ``ranking`` — their own method only.
METHOD_FAMILIES = {
    "choices": ("generation", "multiple_choice_joint", "multiple_choice_separate", "multiple_choice_separate_calibrated"),
    "retrieval": ("generation", "multiple_choice_separate"),
    "generation": ("generation",),
    "language_modeling": ("language_modeling",),
    "ranking": ("ranking",),
}


_REGISTRY: dict[str, ScenarioInfo] = {}


def register(name: str, *, main_metric: str, default_method: str, methods: str, data: tuple[str, ...] = (),
             adapter: dict | None = None, metrics: tuple[str, ...] = (), adapter_args: Callable[..., dict] | None = None,
             choices: dict | None = None, version: int = 1):
    """Decorator: register a loader ``f(**args) -> list[Instance]`` under ``name``, with the family of methods it supports
    (a key of :data:`METHOD_FAMILIES`); raise ``version`` whenever a change to the loader changes the instances it
    returns (their runs then get new ids and are run again)."""
    supported = METHOD_FAMILIES[methods]
    if default_method not in supported:
        raise ValueError(f"scenario {name!r}: default method {default_method!r} is not one of its methods {supported}")

    def wrap(load):
        _REGISTRY[name] = ScenarioInfo(name, load, (load.__doc__ or "").strip().splitlines()[0], main_metric,
                                       default_method, data, dict(adapter or {}), tuple(metrics), adapter_args,
                                       dict(choices or {}), version, supported)
        return load
    return wrap


def scenario(name: str) -> ScenarioInfo:
    if name not in _REGISTRY:
        raise UnknownScenarioError(f"unknown scenario {name!r}; known: {', '.join(sorted(_REGISTRY))}."
                                   f"{did_you_mean(name, _REGISTRY)}")
    return _REGISTRY[name]


def scenarios() -> dict[str, ScenarioInfo]:
    return dict(_REGISTRY)
