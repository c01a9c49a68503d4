"""Prompt sensitivity (Liang et al. 2022, §8.2, Figs. 31–33): in-context example seeds, number of shots,
prompt formats and the multiple-choice adaptation method — with the significance tests the paper omits.

The grid is declared in the config's ``sensitivity`` section: four *studies*, each varying one factor
from a base configuration (seed 0, HELM's default format and shots, the scenario's default method).
Every run of one model × scenario sees the same test instances (the subsample depends on the scenario
only), so every comparison between configurations is paired over instances.
"""
from __future__ import annotations

from itertools import combinations

import numpy as np
import pandas as pd
from statsmodels.stats.multitest import multipletests

from ... import stats
from ..helm_core.live import main_values

STUDIES = ("seeds", "shots", "formats", "methods")


def studies(section: dict) -> dict[str, list[tuple[str, dict]]]:
    """For each study, (factor level, run spec) pairs: one factor varied from the base configuration."""
    out: dict[str, list[tuple[str, dict]]] = {study: [] for study in STUDIES}

    def spec(entry, model, **adapter):
        return {"scenario": entry["scenario"], "args": entry.get("args", {}), "model": model,
                "max_instances": entry.get("max_instances", section.get("max_instances")),
                "adapter": {**entry.get("adapter", {}), **adapter}}

    for model in section["models"]:
        for entry in section.get("seed_scenarios", []):
            out["seeds"] += [(f"seed {s}", spec(entry, model, seed=s)) for s in section["seeds"]]
        for entry in section.get("shot_scenarios", []):
            out["shots"] += [(str(k), spec(entry, model, max_train_instances=k)) for k in entry.get("shots", section["shots"])]
        for entry in section.get("format_scenarios", []):
            out["formats"] += [(name, spec(entry, model, **fmt)) for name, fmt in section["formats"].items()
                               if not fmt.get("chat_template") or model in section.get("chat_models", [])]
        for entry in section.get("method_scenarios", []):
            out["methods"] += [(method, spec(entry, model, method=method)) for method in section["methods"]]
    return out


def grid(section: dict) -> list[dict]:
    """Every run of the four studies (a configuration shared by studies is one run id)."""
    return [spec for members in studies(section).values() for _, spec in members]


def factor_table(runs: list[dict], level: dict[str, str], study: str) -> pd.DataFrame:
    """One row per run of a study: model, scenario, factor level and the main metric with its CI."""
    rows = []
    for run in runs:
        main = run["stats"]["main_metric"]
        m = run["stats"]["metrics"][main]
        rows.append({"study": study, "run_id": run["run_id"], "model": run["model"], "scenario": run["scenario"],
                     "level": level[run["run_id"]], "seed": run["spec"]["adapter"]["seed"],
                     "shots": run["spec"]["adapter"]["max_train_instances"], "method": run["spec"]["adapter"]["method"],
                     "metric": main, "accuracy": m["mean"], "ci_low": m["ci_low"], "ci_high": m["ci_high"], "n": m["n"]})
    return pd.DataFrame(rows)


def _aligned(runs: list[dict]) -> tuple[list[str], np.ndarray]:
    """Instances shared by all runs and a (runs × instances) matrix of their main-metric values."""
    values = [main_values(r) for r in runs]
    shared = sorted(set.intersection(*(set(v) for v in values)))
    return shared, np.array([[v[i] for i in shared] for v in values], dtype=float)


def seed_spread(runs: list[dict], *, seed: int, n_resamples: int) -> pd.DataFrame:
    """Per model × scenario over in-context seeds: range, SD, and a bootstrap CI of the seed-to-seed variance
    (instances resampled, the same resample for every seed, so the variance reflects the seeds only)."""
    rows = []
    groups: dict[tuple, list[dict]] = {}
    for run in runs:
        groups.setdefault((run["model"], run["scenario"]), []).append(run)
    for (model, scenario), members in sorted(groups.items()):
        if len(members) < 2:
            continue
        members = sorted(members, key=lambda r: r["spec"]["adapter"]["seed"])
        shared, matrix = _aligned(members)
        generator = np.random.default_rng(seed)
        picks = generator.integers(0, len(shared), size=(n_resamples, len(shared)))
        boot_var = matrix[:, picks].mean(axis=2).var(axis=0, ddof=1)  # (resamples,)
        means = matrix.mean(axis=1)
        low, high = np.percentile(boot_var, [2.5, 97.5])
        rows.append({"model": model, "scenario": scenario, "seeds": len(members), "min": means.min(), "max": means.max(),
                     "range": np.ptp(means), "sd": means.std(ddof=1), "variance": means.var(ddof=1),
                     "variance_ci_low": low, "variance_ci_high": high, "n": len(shared)})
    return pd.DataFrame(rows)


def shot_steps(runs: list[dict], *, seed: int, n_resamples: int) -> pd.DataFrame:
    """Consecutive steps in the number of shots (paired CIs) and how often 0→1 is the largest step."""
    rows = []
    groups: dict[tuple, list[dict]] = {}
    for run in runs:
        groups.setdefault((run["model"], run["scenario"]), []).append(run)
    for (model, scenario), members in sorted(groups.items()):
        members = sorted(members, key=lambda r: r["spec"]["adapter"]["max_train_instances"])
        shots = [r["spec"]["adapter"]["max_train_instances"] for r in members]
        if len(members) < 2:
            continue
        shared, matrix = _aligned(members)
        picks = np.random.default_rng(seed).integers(0, len(shared), size=(n_resamples, len(shared)))
        boot = matrix[:, picks].mean(axis=2)  # (configs, resamples)
        steps = np.diff(boot, axis=0)
        largest_first = float(np.mean(np.argmax(steps, axis=0) == 0))
        for k in range(len(members) - 1):
            est = matrix[k + 1].mean() - matrix[k].mean()
            low, high = np.percentile(steps[k], [2.5, 97.5])
            rows.append({"model": model, "scenario": scenario, "step": f"{shots[k]}→{shots[k + 1]}", "difference": est,
                         "ci_low": low, "ci_high": high, "p_first_step_largest": largest_first if k == 0 else np.nan,
                         "n": len(shared)})
    return pd.DataFrame(rows, columns=["model", "scenario", "step", "difference", "ci_low", "ci_high",
                                       "p_first_step_largest", "n"])


def pairwise_tests(runs: list[dict], factor_of, *, seed: int, n_resamples: int) -> pd.DataFrame:
    """Every pair of configurations of one model × scenario: paired bootstrap difference and p-value,
    then Holm and Benjamini–Hochberg corrections across all pairs (statsmodels ``multipletests``)."""
    rows = []
    groups: dict[tuple, list[dict]] = {}
    for run in runs:
        groups.setdefault((run["model"], run["scenario"]), []).append(run)
    for (model, scenario), members in sorted(groups.items()):
        for a, b in combinations(sorted(members, key=factor_of), 2):
            shared, matrix = _aligned([a, b])
            diff = stats.paired_difference(matrix[0], matrix[1], seed=seed + len(rows), n_resamples=n_resamples,
                                           method="percentile")
            rows.append({"model": model, "scenario": scenario, "a": factor_of(a), "b": factor_of(b),
                         "difference": diff.estimate, "ci_low": diff.ci_low, "ci_high": diff.ci_high, "p_value": diff.p_value,
                         "n": diff.n})
    frame = pd.DataFrame(rows)
    if len(frame):
        frame["p_holm"] = multipletests(frame["p_value"], method="holm")[1]
        frame["p_bh"] = multipletests(frame["p_value"], method="fdr_bh")[1]
        frame["significant_holm"] = frame["p_holm"] < 0.05
        frame["significant_bh"] = frame["p_bh"] < 0.05
    return frame


def rank_reversals(runs: list[dict], factor_of, models: tuple[str, str], *, seed: int, n_resamples: int) -> pd.DataFrame:
    """Pairs of configurations of one scenario where the two models swap order, and whether both model
    differences are significant (paired bootstrap, Holm-corrected over all configurations)."""
    a, b = models
    diffs = []
    by = {(r["model"], r["scenario"], factor_of(r)): r for r in runs}
    for (model, scenario, config), run in sorted(by.items()):
        if model != a or (b, scenario, config) not in by:
            continue
        shared, matrix = _aligned([run, by[(b, scenario, config)]])
        d = stats.paired_difference(matrix[0], matrix[1], seed=seed + len(diffs), n_resamples=n_resamples, method="percentile")
        diffs.append({"scenario": scenario, "config": config, "difference": d.estimate, "p_value": d.p_value})
    frame = pd.DataFrame(diffs)
    if frame.empty:
        return pd.DataFrame(columns=["scenario", "config_1", "config_2", "reversal", "significant"])
    frame["significant"] = multipletests(frame["p_value"], method="holm")[0]
    rows = []
    for scenario, part in frame.groupby("scenario"):
        for (_, x), (_, y) in combinations(part.iterrows(), 2):
            reversal = np.sign(x.difference) * np.sign(y.difference) < 0
            rows.append({"scenario": scenario, "config_1": x.config, "config_2": y.config, "difference_1": x.difference,
                         "difference_2": y.difference, "reversal": bool(reversal),
                         "significant": bool(reversal and x.significant and y.significant)})
    return pd.DataFrame(rows)


def variance_decomposition(frame: pd.DataFrame, factors=("scenario", "seed", "shots", "format", "method"),
                           value: str = "accuracy") -> pd.DataFrame:
    """ANOVA-style decomposition of run-level accuracy with statsmodels OLS and categorical factors.

    Each factor's type-II sum of squares is the increase in residual sum of squares when that factor
    alone is dropped from the full model (computed from the fits directly, so it stays defined when the
    design leaves no residual degrees of freedom); its share is that sum over the total sum of squares.
    """
    import statsmodels.formula.api as smf

    used = [f for f in factors if frame[f].nunique() > 1]
    data = frame[[value, *used]].copy()
    for f in used:
        data[f] = data[f].astype(str)

    def rss(terms):
        formula = f"{value} ~ " + (" + ".join(f"C({t})" for t in terms) if terms else "1")
        return smf.ols(formula, data=data).fit().ssr

    total = ((data[value] - data[value].mean()) ** 2).sum()
    full = rss(used)
    rows = [{"component": f, "sum_sq": rss([g for g in used if g != f]) - full, "levels": data[f].nunique()} for f in used]
    rows.append({"component": "residual", "sum_sq": full, "levels": np.nan})
    out = pd.DataFrame(rows)
    out["share_of_total"] = out["sum_sq"] / total if total > 0 else np.nan
    return out
