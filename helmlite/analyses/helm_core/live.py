"""Notebook 01, part A: HELM's core runs with the embedded models, read back from results/runs/.

The grid (models × scenarios, HELM adaptation, robustness/fairness perturbations) is declared in the
config's ``helm_core`` section and executed by Snakemake's run jobs (rules/runs.smk). This
module turns the runs' per-instance records into the paper's views (Liang et al. 2022, §8, Figs. 24,
App. Figs.) with what the paper lacks: a bootstrap CI on every number and paired tests between models.
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd

from ... import stats
from ...metrics.calibration import reliability_table
from ...metrics.efficiency import fit_runtime_model

FAMILIES = {  # column of the score matrix → (metric key in stats.json, lower is better)
    "accuracy": (None, False), "calibration (ECE-10)": ("ece_10", True), "robustness": ("{main}_robustness", False),
    "fairness": ("{main}_fairness", False), "equivariance (contrast)": ("{main}_equivariance", False),
    "bias (gender representation)": ("representation_gender", True), "toxicity (toxic fraction)": ("toxic_fraction", True),
}
EFFICIENCY = "efficiency (tokens / instance)"  # prompt + generated tokens: what runtime grows with, and reproducible


def grid(section: dict) -> list[dict]:
    """Run specs of the config's ``helm_core`` section: every model × scenario entry × selection seed."""
    specs = []
    for entry in section["scenarios"]:
        for model in section["models"]:
            for seed in section.get("seeds", [0]):
                adapter = {**entry.get("adapter", {}), "seed": seed}
                specs.append({"scenario": entry["scenario"], "args": entry.get("args", {}), "model": model, "adapter": adapter,
                              "max_instances": entry.get("max_instances", section.get("max_instances")),
                              "perturbations": entry.get("perturbations", section.get("perturbations", []))})
    return specs


def scenario_label(stats_json: dict, spec: dict) -> str:
    args = ",".join(f"{v}" for v in spec.get("args", {}).values())
    return f"{stats_json['scenario']}{':' + args if args else ''}"


class RunResultsError(ValueError):
    """A results folder that is incomplete or corrupted; the message says which file and how to rebuild it."""


def _read_records(folder: Path, expected: int) -> list[dict]:
    path = folder / "instances.jsonl"
    rebuild = f"delete {folder} and re-run snakemake (finished requests come from the cache)"
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
        records = [json.loads(line) for line in lines]
    except (OSError, json.JSONDecodeError) as error:
        raise RunResultsError(f"{path} is unreadable or truncated ({error}); {rebuild}") from None
    if len(records) != expected:
        raise RunResultsError(f"{path} holds {len(records)} records but stats.json counts {expected}; {rebuild}")
    return records


def load_runs(results_dir: str | Path, run_ids: list[str]) -> list[dict]:
    """Each run's stats, manifest spec, per-instance records and timings (validated against each other)."""
    runs = []
    for run_id in run_ids:
        folder = Path(results_dir) / run_id
        try:
            stats_json = json.loads((folder / "stats.json").read_text())
            spec = json.loads((folder / "manifest.json").read_text())["spec"]
        except (OSError, json.JSONDecodeError, KeyError) as error:
            raise RunResultsError(f"{folder}: stats.json/manifest.json unreadable ({error}); delete the folder and "
                                  "re-run snakemake") from None
        records = _read_records(folder, stats_json["n_instances"])
        timings = json.loads((folder / "timings.json").read_text()) if (folder / "timings.json").exists() else {}
        runs.append({"run_id": run_id, "stats": stats_json, "spec": spec, "records": records, "timings": timings,
                     "model": stats_json["model"], "scenario": scenario_label(stats_json, spec), "seed": spec["adapter"]["seed"]})
    return runs


def score_matrix(runs: list[dict]) -> pd.DataFrame:
    """Long table: model × scenario × metric family with estimate and CI (first selection seed)."""
    rows = []
    for run in runs:
        if run["seed"] != min(r["seed"] for r in runs):
            continue
        main = run["stats"]["main_metric"]
        for family, (key, lower) in FAMILIES.items():
            value = run["stats"]["metrics"].get(main if key is None else key.format(main=main))
            if value and value.get("mean") is not None:
                rows.append({"model": run["model"], "scenario": run["scenario"], "family": family, "main_metric": main,
                             "estimate": value["mean"], "ci_low": value["ci_low"], "ci_high": value["ci_high"],
                             "n": value["n"], "lower_is_better": lower})
        tokens = [r["prompt_tokens"] + r.get("output_tokens", 0) for r in run["records"]]
        if tokens:  # HELM's efficiency inputs that are deterministic; measured seconds: latency_table
            est = stats.summary(tokens, seed=0, n_resamples=1000, method="percentile")
            rows.append({"model": run["model"], "scenario": run["scenario"], "family": EFFICIENCY,
                         "main_metric": main, "estimate": est.estimate, "ci_low": est.ci_low, "ci_high": est.ci_high,
                         "n": est.n, "lower_is_better": True})
    return pd.DataFrame(rows)


def latency_table(runs: list[dict]) -> pd.DataFrame:
    """Measured seconds per instance (HELM's observed inference runtime, §4.9) per model and scenario with a
    bootstrap CI, from each run's timings.json. Wall clock: differs between runs and machines."""
    rows = []
    for run in runs:
        latency = run["timings"].get("latency_s")
        if run["seed"] == min(r["seed"] for r in runs) and latency:
            est = stats.summary(latency, seed=0, n_resamples=1000, method="percentile")
            rows.append({"model": run["model"], "scenario": run["scenario"], "seconds_per_instance": est.estimate,
                         "ci_low": est.ci_low, "ci_high": est.ci_high, "n": est.n})
    return pd.DataFrame(rows)


def main_values(run: dict, variant: str | None = None) -> dict[str, float]:
    main = run["stats"]["main_metric"]
    out = {}
    for r in run["records"]:
        metrics = r["metrics"] if variant is None else r.get("perturbed", {}).get(variant, {}).get("metrics", {})
        if main in metrics:
            out[r["id"]] = metrics[main]
    return out


def model_differences(runs: list[dict], a: str, b: str, *, seed: int, n_resamples: int) -> pd.DataFrame:
    """Paired bootstrap of main-metric(a) − main-metric(b) per scenario, on the instances both models saw."""
    by_key = {(r["model"], r["scenario"], r["seed"]): r for r in runs}
    rows = []
    for (model, scenario, run_seed), run in sorted(by_key.items()):
        if model != a or (b, scenario, run_seed) not in by_key:
            continue
        x, y = main_values(run), main_values(by_key[(b, scenario, run_seed)])
        shared = sorted(set(x) & set(y))
        diff = stats.paired_difference([x[i] for i in shared], [y[i] for i in shared], seed=seed + len(rows),
                                       n_resamples=n_resamples)
        rows.append({"scenario": scenario, "seed": run_seed, "metric": run["stats"]["main_metric"], f"{a}": np.mean([x[i] for i in shared]),
                     f"{b}": np.mean([y[i] for i in shared]), "difference": diff.estimate, "ci_low": diff.ci_low,
                     "ci_high": diff.ci_high, "p_value": diff.p_value, "significant": diff.excludes(0.0), "n": diff.n})
    return pd.DataFrame(rows)


def perturbation_deltas(runs: list[dict], *, seed: int, n_resamples: int) -> pd.DataFrame:
    """Main metric under each perturbation minus unperturbed, paired over instances (fairness/robustness gaps)."""
    rows = []
    for run in runs:
        base = main_values(run)
        variants = sorted({v for r in run["records"] for v in r.get("perturbed", {})})
        for variant in variants:
            other = main_values(run, variant)
            shared = sorted(set(base) & set(other))
            if len(shared) < 2:
                continue
            diff = stats.paired_difference([other[i] for i in shared], [base[i] for i in shared], seed=seed + len(rows),
                                           n_resamples=n_resamples)
            rows.append({"model": run["model"], "scenario": run["scenario"], "seed": run["seed"], "perturbation": variant,
                         "delta": diff.estimate, "ci_low": diff.ci_low, "ci_high": diff.ci_high, "n": diff.n})
    return pd.DataFrame(rows)


def group_performance(runs: list[dict], scenario_prefix: str, key: str, *, seed: int, n_resamples: int) -> pd.DataFrame:
    """Main metric per group (instance metadata ``key``, e.g. BBQ's context condition) with bootstrap CIs."""
    rows = []
    for run in runs:
        if not run["scenario"].startswith(scenario_prefix):
            continue
        main = run["stats"]["main_metric"]
        groups: dict[str, list[float]] = {}
        for r in run["records"]:
            groups.setdefault(str(r["metadata"].get(key)), []).append(r["metrics"][main])
        for group, values in sorted(groups.items()):
            est = stats.summary(values, seed=seed, n_resamples=n_resamples, method="percentile")
            rows.append({"model": run["model"], "scenario": run["scenario"], "group": group, "estimate": est.estimate,
                         "ci_low": est.ci_low, "ci_high": est.ci_high, "n": est.n})
    return pd.DataFrame(rows)


def reliability(runs: list[dict], n_bins: int = 10) -> pd.DataFrame:
    """Equal-mass reliability bins for every run with choice probabilities."""
    rows = []
    for run in runs:
        records = [r for r in run["records"] if "probabilities" in r]
        if not records:
            continue
        table = reliability_table([max(r["probabilities"]) for r in records], [r["correct"] for r in records], n_bins)
        rows += [{"model": run["model"], "scenario": run["scenario"], **b} for b in table]
    return pd.DataFrame(rows)


def runtime_models(runs: list[dict]) -> pd.DataFrame:
    """HELM's runtime model per model, fitted on every request of its runs (latency from timings.json)."""
    rows = []
    for model in sorted({r["model"] for r in runs}):
        frame = pd.DataFrame([{"latency_s": lat, "prompt_tokens": rec["prompt_tokens"], "output_tokens": rec.get("output_tokens", 0)}
                              for run in runs if run["model"] == model
                              for rec, lat in zip(run["records"], run["timings"].get("latency_s", []))])
        if len(frame) >= 4 and frame["output_tokens"].nunique() > 1:
            rows.append(fit_runtime_model(frame).assign(model=model))
    return pd.concat(rows, ignore_index=True) if rows else pd.DataFrame()
