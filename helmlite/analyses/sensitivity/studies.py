"""Prompt sensitivity (Liang et al. 2022, §8.2, Figs. 31–33): in-context example seeds, number of shots,
prompt formats and the multiple-choice adaptation method — with the significance tests the paper omits.

The grid is declared in the config's ``sensitivity`` section (:func:`helmlite.grids.sensitivity`): four
*studies*, each varying one factor from a base configuration (seed 0, HELM's default format and shots,
the scenario's default method).
Every run of one model × scenario sees the same test instances (the subsample depends on the scenario
only), so every comparison between configurations is paired over instances.
"""
from __future__ import annotations

from itertools import combinations

import numpy as np
import pandas as pd
from statsmodels.stats.multitest import multipletests

from ... import stats
from ...results import Run
from ...seeds import rng



FACTOR_COLUMNS = ["study", "run_id", "model", "scenario", "level", "seed", "shots", "method", "metric", "accuracy", "ci_low",
                  "ci_high", "n", "interval"]


def factor_table(runs: list[Run], levels: dict[str, str], study: str) -> pd.DataFrame:
    """One row per run of a study: model, scenario, factor level and the main metric with its interval."""
    rows = []
    for run in runs:  # none: the table's columns all the same, so an absent study's CSV still has its header
        m = run.stats.metrics[run.main_metric]
        rows.append({"study": study, "run_id": run.run_id, "model": run.model, "scenario": run.scenario_label,
                     "level": levels[run.run_id], "seed": run.spec.seed, "shots": run.spec.shots,
                     "method": run.spec.method, "metric": run.main_metric, "accuracy": m.mean, "ci_low": m.ci_low,
                     "ci_high": m.ci_high, "n": m.n, "interval": m.method})
    return pd.DataFrame(rows, columns=FACTOR_COLUMNS)


def _aligned(runs: list[Run]) -> tuple[list[str], np.ndarray]:
    """Instances shared by all runs and a (runs × instances) matrix of their main-metric values."""
    values = [r.main_values() for r in runs]
    shared = sorted(set.intersection(*(set(v) for v in values)))
    return shared, np.array([[v[i] for i in shared] for v in values], dtype=float)


def _by_model_scenario(runs: list[Run]) -> dict[tuple[str, str], list[Run]]:
    groups: dict[tuple, list[Run]] = {}
    for run in runs:
        groups.setdefault((run.model, run.scenario_label), []).append(run)
    return dict(sorted(groups.items()))


def seed_spread(runs: list[Run], *, seed: int, n_resamples: int) -> pd.DataFrame:
    """Per model × scenario over in-context seeds: the seed variance component of the seeds × items design
    ((MS_seed − MS_residual) / n_items, with an interval that can include 0) and on the SD scale (its square
    root, the interval's bounds clipped at 0), the test that seeds matter (Cochran's Q for 0/1 outcomes) with its
    MDE on the SD scale at the observed mean within-item variance across seeds
    (:func:`helmlite.stats.mde_seed_sd`; floored at one item varying), and — labelled as raw — the SD and range of the
    run means, which also carry item noise and overstate the seed effect."""
    rows = []
    for (model, scenario), members in _by_model_scenario(runs).items():
        if len(members) < 2:
            continue
        shared, matrix = _aligned(sorted(members, key=lambda r: r.seed))
        component = stats.seed_variance_component(matrix, n_resamples=n_resamples, seed=rng(seed, "seed-variance", model, scenario))
        means = matrix.mean(axis=1)
        within = max(float(matrix.var(axis=0, ddof=1).mean()), 1 / (len(shared) * len(members)))  # ≥ one item varying
        p_seeds, p_floor = stats.seeds_matter_test(matrix)
        rows.append({"model": model, "scenario": scenario, "seeds": len(members), "n": len(shared),
                     "seed_variance": component.estimate, "seed_sd": float(np.sqrt(max(component.estimate, 0.0))),
                     "ci_low": component.ci_low, "ci_high": component.ci_high, "interval": component.method,
                     "sd_ci_low": float(np.sqrt(max(component.ci_low, 0.0))), "sd_ci_high": float(np.sqrt(max(component.ci_high, 0.0))),
                     "within_item_variance": within,
                     "mde_sd": stats.mde_seed_sd(len(shared), len(members), within),
                     "p_seeds_matter": p_seeds, "p_floor": p_floor,
                     "raw_min": means.min(), "raw_max": means.max(), "raw_range": np.ptp(means), "raw_sd": means.std(ddof=1)})
    return pd.DataFrame(rows)


def shot_steps(runs: list[Run], *, seed: int, n_resamples: int) -> pd.DataFrame:
    """Consecutive steps in the number of shots, each a paired difference on the same instances
    (:func:`helmlite.stats.paired_difference`: exact McNemar and Newcombe interval for 0/1 metrics)."""
    rows = []
    for (model, scenario), members in _by_model_scenario(runs).items():
        members = sorted(members, key=lambda r: r.spec.shots)
        shots = [r.spec.shots for r in members]
        if len(members) < 2:
            continue
        shared, matrix = _aligned(members)
        for k in range(len(members) - 1):
            diff = stats.interval_for((matrix[k + 1], matrix[k]), paired=True, seed=rng(seed, "shot-step", model, scenario, k),
                                      n_resamples=n_resamples)
            rows.append({"model": model, "scenario": scenario, "step": f"{shots[k]}→{shots[k + 1]}", "difference": diff.estimate,
                         "ci_low": diff.ci_low, "ci_high": diff.ci_high, "p_value": diff.p_value, "p_floor": diff.p_floor,
                         "n": diff.n, "discordance": diff.discordance, "test": diff.method})
    return pd.DataFrame(rows, columns=["model", "scenario", "step", "difference", "ci_low", "ci_high", "p_value", "p_floor",
                                       "n", "discordance", "test"])


def first_step_contrasts(runs: list[Run], *, seed: int, n_resamples: int) -> pd.DataFrame:
    """Is the 0→1 step larger than each later step? Per instance, (x₁ − x₀) − (x_{k+1} − x_k), paired
    bootstrap over instances (p from the same resamples). "The largest jump is 0→1" holds only if every
    contrast is positive (an intersection–union test: each at level α, no correction needed)."""
    rows = []
    for (model, scenario), members in _by_model_scenario(runs).items():
        members = sorted(members, key=lambda r: r.spec.shots)
        shots = [r.spec.shots for r in members]
        if len(members) < 3 or shots[0] != 0:
            continue
        shared, matrix = _aligned(members)
        first = matrix[1] - matrix[0]
        for k in range(1, len(members) - 1):
            diff = stats.interval_for((first, matrix[k + 1] - matrix[k]), paired=True, seed=rng(seed, "first-step", model, scenario, k),
                                      n_resamples=n_resamples)
            rows.append({"model": model, "scenario": scenario, "contrast": f"(0→{shots[1]}) − ({shots[k]}→{shots[k + 1]})",
                         "difference": diff.estimate, "ci_low": diff.ci_low, "ci_high": diff.ci_high,
                         "p_value": diff.p_value, "p_floor": diff.p_floor, "n": diff.n})
    return pd.DataFrame(rows, columns=["model", "scenario", "contrast", "difference", "ci_low", "ci_high", "p_value",
                                       "p_floor", "n"])


def pairwise_tests(runs: list[Run], factor_of, *, seed: int, n_resamples: int) -> pd.DataFrame:
    """Every pair of configurations of one model × scenario: paired difference and p-value, then Holm and
    Benjamini–Yekutieli corrections across all pairs (statsmodels ``multipletests``). BY, not BH: pairs
    that share a configuration are dependent in ways BH's PRDS condition does not cover."""
    rows = []
    for (model, scenario), members in _by_model_scenario(runs).items():
        for a, b in combinations(sorted(members, key=factor_of), 2):
            shared, matrix = _aligned([a, b])
            diff = stats.interval_for((matrix[0], matrix[1]), paired=True, seed=rng(seed, "pair", a.run_id, b.run_id),
                                      n_resamples=n_resamples)
            rows.append({"model": model, "scenario": scenario, "a": factor_of(a), "b": factor_of(b),
                         "difference": diff.estimate, "ci_low": diff.ci_low, "ci_high": diff.ci_high, "p_value": diff.p_value,
                         "p_floor": diff.p_floor, "n": diff.n, "discordance": diff.discordance, "test": diff.method})
    frame = pd.DataFrame(rows)
    if len(frame):
        frame["p_holm"] = multipletests(frame["p_value"], method="holm")[1]
        frame["p_by"] = multipletests(frame["p_value"], method="fdr_by")[1]
        frame["significant_holm"] = frame["p_holm"] < 0.05
        frame["significant_by"] = frame["p_by"] < 0.05
    return frame


def rank_reversals(runs: list[Run], factor_of, models: tuple[str, str], *, seed: int, n_resamples: int) -> pd.DataFrame:
    """Pairs of configurations of one scenario where the two models swap order, and whether both model
    differences are significant (paired tests, Holm-corrected over all configurations)."""
    a, b = models
    diffs = []
    by = {(r.model, r.scenario_label, factor_of(r)): r for r in runs}
    for (model, scenario, config), run in sorted(by.items()):
        if model != a or (b, scenario, config) not in by:
            continue
        shared, matrix = _aligned([run, by[(b, scenario, config)]])
        d = stats.interval_for((matrix[0], matrix[1]), paired=True, seed=rng(seed, "reversal", scenario, config),
                               n_resamples=n_resamples)
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


def significance_counts(tests: pd.DataFrame, reversals: pd.DataFrame) -> pd.DataFrame:
    """Per study: how many configuration pairs were tested, how many have a raw p below 0.05, how many stay
    significant after Holm and after Benjamini–Yekutieli, and how many rank reversals there are and how many of them
    are significant (``tests``: :func:`pairwise_tests` with a ``study`` column; ``reversals``: :func:`rank_reversals`
    with one, possibly empty)."""
    counts = tests.groupby("study").agg(pairs=("p_value", "size"), raw_p_below_05=("p_value", lambda p: int((p < 0.05).sum())),
                                        holm=("significant_holm", "sum"), benjamini_yekutieli=("significant_by", "sum"))
    counts = counts.join(reversals.groupby("study").agg(reversals=("reversal", "sum"), significant_reversals=("significant", "sum")))
    return counts.reset_index()


def variance_decomposition(frame: pd.DataFrame, factors=("scenario", "seed", "shots", "format", "method"),
                           value: str = "accuracy") -> pd.DataFrame:
    """ANOVA-style decomposition of run-level accuracy over the factors that vary (HELM §8.2's sources of variation):
    :func:`helmlite.stats.anova_table` (type-II sums of squares, statsmodels), in the columns notebook 02 prints.

    A factor's share is its sum of squares over the total. Shares are not tests: a factor with no effect still
    "explains" about (levels − 1)·σ² — read its F and p (reported where the residual has degrees of freedom) before
    its share.
    """
    table = stats.anova_table(frame, value, list(factors))
    out = table.rename(columns={"PR(>F)": "p_value", "share": "share_of_total"})
    out["df"] = out["df"].astype(int)
    return out[["component", "sum_sq", "df", "levels", "F", "p_value", "share_of_total"]]


def runs_by_study(runs: list[Run], run_levels: dict, studies) -> tuple[dict[str, list[Run]], dict[str, pd.DataFrame]]:
    """The runs of each study in ``studies`` and its factor table (:func:`factor_table`), from each run id's
    (study, level) labels in ``run_levels`` (the workflow's notebook parameter); a study without runs gets an empty
    table with the same columns."""
    by_id = {run.run_id: run for run in runs}
    grouped, tables = {}, {}
    for study in studies:
        levels = {run_id: level for run_id in by_id for s, level in run_levels.get(run_id, []) if s == study}
        grouped[study] = [by_id[run_id] for run_id in levels]
        tables[study] = factor_table(grouped[study], levels, study)
    return grouped, tables


def best_levels(table: pd.DataFrame) -> pd.DataFrame:
    """Per scenario (rows) and model (columns), the factor level with the highest accuracy (the first on a tie, in the
    table's order)."""
    winners = table.loc[table.groupby(["model", "scenario"])["accuracy"].idxmax(), ["model", "scenario", "level", "accuracy"]]
    return winners.pivot(index="scenario", columns="model", values="level")


def study_tests(studies: dict[str, list[Run]], tables: dict[str, pd.DataFrame], models: list[str], *, seed: int,
                n_resamples: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Every study's pairwise tests between its levels (:func:`pairwise_tests`) and, with two models, its rank
    reversals (:func:`rank_reversals`, the second model against the first), each row labelled with its study."""
    tests, reversals = [], []
    for study, runs in studies.items():
        if not runs:
            continue
        level = tables[study].set_index("run_id")["level"].to_dict()

        def factor_of(r, level=level):
            return level[r.run_id]

        tests.append(pairwise_tests(runs, factor_of, seed=seed, n_resamples=n_resamples).assign(study=study))
        if len(models) == 2:
            rv = rank_reversals(runs, factor_of, (models[1], models[0]), seed=seed, n_resamples=n_resamples)
            reversals.append(rv.assign(study=study))
    tests = pd.concat(tests, ignore_index=True)
    reversals = pd.concat(reversals, ignore_index=True) if reversals else pd.DataFrame(columns=["study", "reversal", "significant"])
    return tests, reversals
