"""HELM Classic's published leaderboard (v0.4.0 core scenarios): the published "Mean win rate" recomputed
with HELM v0.4.0's own rules, and the paper's meta-analyses with intervals (Liang et al. 2022, §8.1
Figs. 24–26, §7 run-spec priorities).

Tables are read by :mod:`.leaderboard` (HELM's ``core_scenarios.json``, wide CSV exports, long tables such
as the mirror's flattening); the win-rate rules live in :mod:`.winrates` and the cited HELM constants in
:mod:`helmlite.leaderboards.helm_rules`. :func:`win_rate_comparison` sets the recomputation beside the published column and,
per model, the range of win rates that tie-breaking on the displayed (rounded) values allows;
:func:`explain_gaps` states what the remaining differences are.
"""
from __future__ import annotations

import os
import re
from pathlib import Path

import numpy as np
import pandas as pd

from ... import stats
from ...errors import DataError
from ...leaderboards import AGGREGATE, COLUMNS, TIE_RULES, WIN_RATE, load_leaderboard
from ...leaderboards.winrates import (
    RankingView,
    in_chunks,
    kendall_tau_b,
    mean_win_rates,
    resampled_mean_win_rates,
    win_rate_matrix,
    winrates,
    winrates_table,
)
from ...seeds import rng
from .reference import PAPER_MODELS, REPRODUCTION_TARGETS

__all__ = ["AGGREGATE", "COLUMNS", "PAPER_MODELS", "REPRODUCTION_TARGETS", "TIE_RULES", "WIN_RATE",
           "load_published", "main_columns", "mean_win_rates", "metric_relationships", "published_win_rates",
           "random_subset_curve", "scenario_priorities", "subset_ranking_agreement", "tie_share",
           "win_rate_intervals", "win_rate_matrix", "winrates", "winrates_table"]


def load_published(path: str | os.PathLike) -> pd.DataFrame:
    """The published leaderboard in any layout :func:`~.leaderboard.load_leaderboard` reads."""
    return load_leaderboard(path)


def main_columns(frame: pd.DataFrame, group: str) -> pd.DataFrame:
    """Models × (scenario, metric) table of one group's displayed per-scenario values (aggregate column
    excluded; every cell as published, before HELM's ranking rules)."""
    part = frame[(frame["group"] == group) & (frame["scenario"] != AGGREGATE)]
    if part.empty:
        raise DataError(f"leaderboard: no per-scenario values in group {group!r}; groups: {sorted(set(frame['group']))}")
    return part.pivot_table(index="model", columns=["scenario", "metric"], values="value", aggfunc="first")


def published_win_rates(frame: pd.DataFrame, group: str) -> pd.Series:
    """The group's published "Mean win rate" per model (NaN where HELM showed none)."""
    part = frame[(frame["group"] == group) & (frame["scenario"] == AGGREGATE) & (frame["metric"] == WIN_RATE)]
    if part["value"].notna().sum() == 0:
        raise DataError(f"leaderboard: group {group!r} has no published '{WIN_RATE}' column to compare with")
    return part.set_index("model")["value"]


def win_rate_intervals(frame: pd.DataFrame, group: str, *, seed: int, n_resamples: int = 2000, models=None,
                       tie_rule: str = "v0.4.0") -> pd.DataFrame:
    """Mean win rate per model with a CI over scenarios (Korn–Graubard for values in [0, 1],
    :func:`helmlite.stats.cluster_mean_estimate`), and whether each model is statistically tied with the
    next one down: the paired difference of their column win rates over the columns both have, scenarios
    resampled, has a CI containing 0 (:func:`helmlite.stats.cluster_paired_difference`)."""
    view = RankingView(frame, group, None, models)
    matrix = view.win_rates(tie_rule)
    matrix = matrix.loc[matrix.notna().any(axis=1)]
    if matrix.empty:
        raise DataError(f"win_rate_intervals: no model has a ranked value in group {group!r}")
    values = matrix.to_numpy()
    clusters = np.array([c[0] for c in matrix.columns], dtype=object)
    estimate = np.nanmean(values, axis=1)
    order = np.argsort(-estimate, kind="stable")
    names = list(matrix.index)
    rows = []
    for rank, i in enumerate(order, start=1):
        has = np.isfinite(values[i])
        ci = stats.interval_for(values[i, has], clusters=clusters[has], bounds=(0.0, 1.0), n_resamples=n_resamples,
                                seed=rng(seed, "win-rate-intervals", group, names[i]))
        tied = None
        if rank < len(order):
            j = order[rank]
            diff = stats.interval_for((values[i], values[j]), paired=True, clusters=clusters, n_resamples=n_resamples,
                                      seed=rng(seed, "win-rate-next", group, names[i], names[j]))
            tied = not diff.significant
        rows.append({"rank": rank, "model": names[i], "win_rate": estimate[i], "ci_low": ci.ci_low, "ci_high": ci.ci_high,
                     "scenarios": int(ci.n), "tied_with_next": tied})
    return pd.DataFrame(rows)


# Metric relationships (HELM §8.1, Figs. 24–25): accuracy vs each other group's per-scenario metric across models.
RELATED = {"Robustness": ("EM (Robustness)", "F1 (Robustness)", "RR@10 (Robustness)", "NDCG@10 (Robustness)"),
           "Fairness": ("EM (Fairness)", "F1 (Fairness)", "RR@10 (Fairness)", "NDCG@10 (Fairness)"),
           "Calibration": ("ECE (10-bin)",), "Toxicity": ("Toxic fraction",), "Bias": ("Stereotypes (gender)",),
           "Efficiency": ("Denoised inference time (s)",)}


def metric_relationships(frame: pd.DataFrame, *, seed: int, n_resamples: int = 2000, models=None) -> pd.DataFrame:
    """Per scenario and group: Pearson r between accuracy and the group's metric across models, bootstrap CI
    over models (``interval`` names it: BCa from 20 models, else — or where a BCa end is unbounded — the
    percentile interval; cells HELM leaves out of its rankings — contaminated or hidden — are left out here too)."""
    accuracy = RankingView(frame, "Accuracy", None, models).displayed
    available = set(frame["group"])
    rows = []
    for group, metrics in RELATED.items():
        if group not in available:
            continue
        other = RankingView(frame, group, None, models).displayed
        for (scenario, acc_metric) in accuracy.columns:
            column = next(((scenario, m) for m in metrics if (scenario, m) in other.columns), None)
            if column is None:
                continue
            both = pd.DataFrame({"acc": accuracy[(scenario, acc_metric)], "other": other[column]}).dropna()
            if len(both) < 5 or both["other"].nunique() < 2:
                continue
            est = stats.interval_for((both["acc"].to_numpy(), both["other"].to_numpy()), statistic=stats.pearson_r,
                                     seed=rng(seed, "metric-relationships", group, scenario), n_resamples=n_resamples)
            rows.append({"group": group, "scenario": scenario, "metric": column[1], "pearson_r": est.estimate,
                         "ci_low": est.ci_low, "ci_high": est.ci_high, "models": est.n, "interval": est.method})
    if not rows:
        raise DataError("metric_relationships: no scenario has accuracy and another group's metric for ≥ 5 models "
                        f"(groups in the table: {sorted(available)})")
    return pd.DataFrame(rows)


# (run-entry prefix, required substring) → core scenario
_PRIORITY_GROUPS = (
    ("boolq:", "", "BoolQ"), ("narrative_qa:", "", "NarrativeQA"), ("quac:", "", "QuAC"),
    ("natural_qa:", "mode=openbook_longans", "NaturalQuestions (open-book)"),
    ("natural_qa:", "mode=closedbook", "NaturalQuestions (closed-book)"), ("commonsense:", "dataset=hellaswag", "HellaSwag"),
    ("commonsense:", "dataset=openbookqa", "OpenbookQA"), ("truthful_qa:", "", "TruthfulQA"), ("mmlu:", "", "MMLU"),
    ("msmarco:", "track=regular", "MS MARCO (regular)"), ("msmarco:", "track=trec", "MS MARCO (TREC)"),
    ("summarization_cnndm:", "", "CNN/DailyMail"), ("summarization_xsum", "", "XSUM"), ("imdb:", "", "IMDB"),
    ("civil_comments:", "", "CivilComments"), ("raft:", "", "RAFT"))


def scenario_priorities(run_specs_conf: str | os.PathLike) -> pd.Series:
    """Each core scenario's priority in HELM v0.1.0's ``run_specs.conf`` (the lowest over its canonical run entries)."""
    text = Path(run_specs_conf).read_text(encoding="utf-8")
    found: dict[str, int] = {}
    for description, priority in re.findall(r'description:\s*"([^"]+)",\s*priority:\s*(\d+)', text):
        if "data_augmentation=contrast_sets" in description:
            continue
        for prefix, needle, scenario in _PRIORITY_GROUPS:
            if description.startswith(prefix) and needle in description:
                found[scenario] = min(found.get(scenario, 99), int(priority))
    if not found:
        raise DataError(f"{run_specs_conf}: no run entries with priorities found")
    return pd.Series(found, name="priority").sort_index()


def tie_share(frame: pd.DataFrame, group: str) -> float:
    """Share of model pairs with equal displayed values within a column, averaged over the group's columns
    (values are published rounded to 3 decimals; HELM ranked the unrounded ones, so every such tie is a
    pair whose order the table does not tell)."""
    table = main_columns(frame, group)
    shares = []
    for column in table.columns:
        values = table[column].dropna().to_numpy()
        if len(values) > 1:
            equal = (values[:, None] == values[None, :]).sum() - len(values)
            shares.append(equal / (len(values) * (len(values) - 1)))
    return float(np.mean(shares)) if shares else np.nan


def subset_ranking_agreement(frame: pd.DataFrame, subsets: dict[str, list[str]], *, seed: int, n_resamples: int = 1000,
                             models=None, tie_rule: str = "v0.4.0") -> pd.DataFrame:
    """Kendall τ between the accuracy win-rate ranking from a subset of scenarios and from all of them,
    with a percentile bootstrap CI resampling models (:func:`helmlite.stats.bootstrap_ci`; the win rates
    are recomputed within each resample, vectorised over resamples). A subset of every scenario is the full ranking:
    τ = 1 by construction, said in ``note`` instead of an interval that would only look like evidence."""
    if not subsets:
        raise DataError("subset_ranking_agreement: no subsets given")
    view = RankingView(frame, "Accuracy", None, models)
    n_models = view.precise.shape[0]
    rows = []
    for label, scenario_names in subsets.items():
        keep = [k for k, c in enumerate(view.precise.columns) if c[0] in set(scenario_names)]
        if not keep:
            raise DataError(f"subset_ranking_agreement: subset {label!r} names no Accuracy scenario of the table "
                            f"({sorted(set(view.scenario_of))})")

        def tau(index, axis=-1):
            index = np.asarray(index, dtype=int)

            def batch(part):
                full = resampled_mean_win_rates(view, part, None, tie_rule)
                sub = resampled_mean_win_rates(view, part, keep, tie_rule)
                return kendall_tau_b(full, sub)

            out = in_chunks(batch, index)
            return out[0] if index.ndim == 1 else out

        scenarios = len({view.precise.columns[k][0] for k in keep})
        if len(keep) == view.precise.shape[1]:  # the subset is every scenario: its ranking is the full one
            rows.append({"subset": label, "scenarios": scenarios, "kendall_tau": 1.0, "ci_low": 1.0, "ci_high": 1.0,
                         "note": f"all {scenarios} scenarios: the full ranking itself, tau = 1 by construction"})
            continue
        # not smooth: each resample re-ranks the models by win rates, a step function of the resample
        est = stats.interval_for(np.arange(n_models, dtype=float), statistic=tau, n_resamples=n_resamples, smooth=False,
                                 seed=rng(seed, "subset-ranking", label))
        rows.append({"subset": label, "scenarios": scenarios, "kendall_tau": est.estimate, "ci_low": est.ci_low,
                     "ci_high": est.ci_high, "note": ""})
    return pd.DataFrame(rows)


def random_subset_curve(frame: pd.DataFrame, *, seed: int, draws: int = 200, models=None,
                        tie_rule: str = "v0.4.0") -> pd.DataFrame:
    """τ(ranking from k random scenario columns, full ranking) for k = 1..K: mean and 2.5–97.5 percentiles
    over ``draws`` random subsets per k (Monte Carlo over subsets, vectorised over draws)."""
    view = RankingView(frame, "Accuracy", None, models)
    full = view.win_rates(tie_rule).to_numpy()  # a column's win rates do not depend on the other columns
    reference = np.nanmean(full, axis=1)
    n_columns = full.shape[1]
    rows = []
    for k in range(1, n_columns + 1):
        generator = rng(seed, "random-subset-curve", k)
        pick = np.argsort(generator.random((draws, n_columns)), axis=1)[:, :k]  # k distinct columns per draw
        chosen = np.zeros((draws, n_columns), dtype=bool)
        np.put_along_axis(chosen, pick, True, axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            values = np.where(chosen[:, None, :], full[None, :, :], np.nan)  # (draws, models, columns)
            counts = np.isfinite(values).sum(axis=2)
            part = np.where(counts > 0, np.nansum(values, axis=2) / np.maximum(counts, 1), np.nan)
        taus = kendall_tau_b(reference[None, :], part)
        low, high = np.nanpercentile(taus, [2.5, 97.5])
        rows.append({"k": k, "mean_tau": float(np.nanmean(taus)), "low": low, "high": high, "draws": draws})
    return pd.DataFrame(rows)
