"""Run grids: the run specs each analysis needs, built from its config section.

One module builds every analysis's runs so that the spec shape is written once (:func:`run_spec`), the
catalog refers to these functions directly, and the workflow, the CLI and the notebooks derive the
same run ids. A grid returns :class:`GridRun` items: a run spec mapping plus labels that say which
study and factor level the run serves (a run shared by several studies — e.g. prompt sensitivity's
base configuration — appears once per study with the same spec).

Sections arrive validated, with the schema's defaults filled in (helmlite/schema.yaml is the one place
defaults live). Kept free of pandas, scipy and torch: the Snakefile calls it on every ``snakemake`` invocation.
"""
from __future__ import annotations

from typing import NamedTuple

STUDIES = ("seeds", "shots", "formats", "methods")  # prompt sensitivity (HELM §8.2)


class GridRun(NamedTuple):
    spec: dict
    study: str | None = None
    level: str | None = None
    source: tuple = ()  # where in the config section the run's entry is: (list key, index), e.g. ("scenarios", 0)


def run_spec(entry: dict, model: str, section: dict, **adapter) -> dict:
    """The run spec of one config entry (``scenario``, ``args``, ``max_instances``, ``adapter``,
    ``perturbations``, ``metrics``) for ``model``; section-wide defaults fill what the entry leaves out,
    keyword arguments override adapter fields."""
    spec = {"scenario": entry["scenario"], "args": dict(entry.get("args", {})), "model": model,
            "adapter": {**entry.get("adapter", {}), **adapter},
            "max_instances": entry.get("max_instances", section.get("max_instances"))}
    perturbations = entry.get("perturbations", section.get("perturbations"))
    if perturbations:
        spec["perturbations"] = list(perturbations)
    if entry.get("metrics"):
        spec["metrics"] = list(entry["metrics"])
    return spec


def helm_core(section: dict) -> list[GridRun]:
    """Notebook 01: every model × scenario entry × in-context selection seed (HELM's core grid)."""
    return [GridRun(run_spec(entry, model, section, seed=seed), source=("scenarios", k))
            for k, entry in enumerate(section["scenarios"]) for model in section["models"] for seed in section["seeds"]]


def sensitivity(section: dict) -> list[GridRun]:
    """Notebook 02: four studies, each varying one factor from the base configuration (seed 0, HELM's
    default format and shots, the scenario's default method)."""
    out = []
    for model in section["models"]:
        for i, entry in enumerate(section["seed_scenarios"]):
            out += [GridRun(run_spec(entry, model, section, seed=s), "seeds", f"seed {s}", ("seed_scenarios", i))
                    for s in section["seeds"]]
        for i, entry in enumerate(section["shot_scenarios"]):
            out += [GridRun(run_spec({k: v for k, v in entry.items() if k != "shots"}, model, section, max_train_instances=k),
                            "shots", str(k), ("shot_scenarios", i)) for k in entry.get("shots", section["shots"])]
        for i, entry in enumerate(section["format_scenarios"]):
            out += [GridRun(run_spec(entry, model, section, **fmt), "formats", name, ("format_scenarios", i))
                    for name, fmt in section["formats"].items() if not fmt.get("chat_template") or model in section["chat_models"]]
        for i, entry in enumerate(section["method_scenarios"]):
            out += [GridRun(run_spec(entry, model, section, method=method), "methods", method, ("method_scenarios", i))
                    for method in section["methods"]]
    return out


def depth(section: dict) -> list[GridRun]:
    """Notebook 04: every task × length × model × scoring method (a task's own ``lengths``/``methods`` override
    the section's). Log-probability runs also score each instance's baseline (the same candidates under a
    query the context cannot answer: ``perturbations: [baseline]``), which the analysis subtracts."""
    out = []
    for i, task in enumerate(section["tasks"]):
        for length in task.get("lengths", section["lengths"]):
            entry = {**task, "args": {**task.get("args", {}), "target_tokens": length}}
            entry.pop("lengths", None)
            entry.pop("methods", None)
            for method in task.get("methods", section["methods"]):
                entry["perturbations"] = ["baseline"] if method == "multiple_choice_separate" else []
                out += [GridRun(run_spec(entry, model, {}, method=method), source=("tasks", i)) for model in section["models"]]
    return out
