"""HELM Classic's published leaderboard (v0.4.0 core scenarios) as one tidy frame, and its meta-analysis
(Liang et al. 2022, §8.1 Figs. 24–26, §7 run-spec priorities).

Two input formats, one output: HELM's own ``groups/core_scenarios.json`` (a list of tables in HELM's
``Table`` format: ``title``; ``header`` cells with ``value``, ``lower_is_better``, ``metadata``; ``rows``
of cells with ``value``) and the mirror's CSV flattening of the same numbers. Columns of the result:
``model, group, scenario, metric, value, lower_is_better`` (``scenario = "(aggregate)"`` holds the
published "Mean win rate").
"""
from __future__ import annotations

import json
import os
import re
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.stats import kendalltau, rankdata

from ... import stats
from ..._jsonl import DataFormatError

COLUMNS = ["model", "group", "scenario", "metric", "value", "lower_is_better"]
AGGREGATE = "(aggregate)"
WIN_RATE = "Mean win rate"
# The 30 models of the paper (v0.1.0) as HELM v0.4.0 names them; the two code models (code-davinci-002,
# code-cushman-001) were only evaluated on code scenarios and are not in the core leaderboard.
PAPER_MODELS = (
    "J1-Jumbo v1 (178B)", "J1-Grande v1 (17B)", "J1-Large v1 (7.5B)", "Anthropic-LM v4-s3 (52B)", "BLOOM (176B)",
    "T0pp (11B)", "Cohere xlarge v20220609 (52.4B)", "Cohere large v20220720 (13.1B)", "Cohere medium v20220720 (6.1B)",
    "Cohere small v20220720 (410M)", "GPT-J (6B)", "GPT-NeoX (20B)", "T5 (11B)", "UL2 (20B)", "OPT (175B)", "OPT (66B)",
    "TNLG v2 (530B)", "TNLG v2 (6.7B)", "davinci (175B)", "curie (6.7B)", "babbage (1.3B)", "ada (350M)",
    "text-davinci-002", "text-curie-001", "text-babbage-001", "text-ada-001", "GLM (130B)", "YaLM (100B)")


def _from_csv(path: Path) -> pd.DataFrame:
    raw = pd.read_csv(path)
    missing = {"model", "tab", "scenario", "metric", "score", "lower_is_better"} - set(raw.columns)
    if missing:
        raise DataFormatError(f"{path}: missing column(s) {sorted(missing)} (expected the mirror's flattened HELM CSV)")
    frame = raw.rename(columns={"tab": "group", "score": "value"})
    frame["lower_is_better"] = frame["lower_is_better"].map({True: True, False: False, "True": True, "False": False})
    return frame[COLUMNS]


def _from_json(path: Path) -> pd.DataFrame:
    tables = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(tables, list):
        raise DataFormatError(f"{path}: expected a list of HELM tables")
    records = []
    for t, table in enumerate(tables):
        try:
            title, header, rows = table["title"], table["header"], table["rows"]
        except (KeyError, TypeError):
            raise DataFormatError(f"{path}, table {t}: expected 'title', 'header' and 'rows'") from None
        for cell_index, cell in enumerate(header[1:], start=1):
            name = cell["value"]
            meta = cell.get("metadata") or {}
            if name == WIN_RATE:
                scenario, metric = AGGREGATE, WIN_RATE
            else:
                scenario = meta.get("run_group") or name.split(" - ")[0]
                metric = meta.get("metric") or (name.split(" - ", 1)[1] if " - " in name else name)
            for row in rows:
                value = row[cell_index].get("value")
                records.append({"model": row[0]["value"], "group": title, "scenario": scenario, "metric": metric,
                                "value": float(value) if isinstance(value, (int, float)) else np.nan,
                                "lower_is_better": cell.get("lower_is_better")})
    return pd.DataFrame(records, columns=COLUMNS)


def load_published(path: str | os.PathLike) -> pd.DataFrame:
    """HELM's leaderboard from ``core_scenarios.json`` (HELM Table format) or the mirror's CSV."""
    path = Path(path)
    frame = _from_json(path) if path.suffix == ".json" else _from_csv(path)
    return frame.reset_index(drop=True)


def main_columns(frame: pd.DataFrame, group: str) -> pd.DataFrame:
    """Models × (scenario, metric) table of one group's per-scenario values (aggregate column excluded)."""
    part = frame[(frame["group"] == group) & (frame["scenario"] != AGGREGATE)]
    return part.pivot_table(index="model", columns=["scenario", "metric"], values="value", aggfunc="first")


def win_rate_matrix(table: pd.DataFrame, lower_is_better: dict) -> pd.DataFrame:
    """Per column, each model's probability of beating a random other model that has a value (ties count
    half); NaN where the model has no value. Columns with < 2 values or no ordering are dropped (HELM's
    head-to-head win rate, ``compute_aggregate_row_win_rates``)."""
    out = {}
    for column in table.columns:
        lib = lower_is_better.get(column)
        values = table[column]
        present = values.dropna()
        if lib is None or len(present) < 2:
            continue
        signed = -present.to_numpy() if lib else present.to_numpy()
        # average rank − 1 = (# lower) + (# tied − 1) / 2: wins, ties counting half
        wins = rankdata(signed, method="average") - 1
        out[column] = pd.Series(wins / (len(present) - 1), index=present.index)
    return pd.DataFrame(out).reindex(table.index)


def _lower_is_better(frame: pd.DataFrame, group: str) -> dict:
    part = frame[(frame["group"] == group) & (frame["scenario"] != AGGREGATE)].dropna(subset=["lower_is_better"])
    return {(r.scenario, r.metric): bool(r.lower_is_better) for r in part.drop_duplicates(["scenario", "metric"]).itertuples()}


def mean_win_rates(frame: pd.DataFrame, group: str, models=None) -> pd.Series:
    """HELM's mean win rate of each model in one metric group, recomputed from the per-scenario values."""
    table = main_columns(frame, group)
    if models is not None:
        table = table.loc[table.index.intersection(models)]
    return win_rate_matrix(table, _lower_is_better(frame, group)).mean(axis=1, skipna=True)


def published_win_rates(frame: pd.DataFrame, group: str) -> pd.Series:
    part = frame[(frame["group"] == group) & (frame["scenario"] == AGGREGATE)]
    return part.set_index("model")["value"]


def win_rate_comparison(frame: pd.DataFrame, groups) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Per model × group: recomputed vs published mean win rate (|Δ|); per group: Kendall τ and max |Δ|."""
    rows, summary = [], []
    for group in groups:
        ours, published = mean_win_rates(frame, group), published_win_rates(frame, group)
        both = pd.DataFrame({"ours": ours, "published": published}).dropna()
        for model, r in both.iterrows():
            rows.append({"group": group, "model": model, "published": r.published, "ours": r.ours,
                         "abs_diff": abs(r.ours - r.published)})
        tau = kendalltau(both["ours"], both["published"]).statistic if len(both) > 1 else np.nan
        summary.append({"group": group, "models": len(both), "kendall_tau": tau, "max_abs_diff": (both.ours - both.published).abs().max(),
                        "mean_abs_diff": (both.ours - both.published).abs().mean(),
                        "within_rounding": int(((both.ours - both.published).abs() <= 0.0005 + 1e-9).sum()),
                        "tied_pairs_share": tie_share(frame, group)})
    return pd.DataFrame(rows), pd.DataFrame(summary)


def win_rate_intervals(frame: pd.DataFrame, group: str, *, seed: int, n_resamples: int = 2000, models=None) -> pd.DataFrame:
    """Mean win rate per model with a bootstrap CI resampling scenarios (columns), and whether each model
    is statistically tied with the next one down (paired bootstrap: CI of the difference contains 0)."""
    table = main_columns(frame, group)
    if models is not None:
        table = table.loc[table.index.intersection(models)]
    matrix = win_rate_matrix(table, _lower_is_better(frame, group))
    matrix = matrix.loc[matrix.notna().any(axis=1)]
    values = matrix.to_numpy()
    n_cols = values.shape[1]
    generator = np.random.default_rng(seed)
    picks = generator.integers(0, n_cols, size=(n_resamples, n_cols))
    with np.errstate(invalid="ignore"):
        boot = np.stack([np.nanmean(values[:, p], axis=1) for p in picks])  # (resamples, models)
    estimate = np.nanmean(values, axis=1)
    order = np.argsort(-estimate, kind="stable")
    low, high = np.nanpercentile(boot, [2.5, 97.5], axis=0)
    rows = []
    for rank, i in enumerate(order, start=1):
        tied = None
        if rank < len(order):
            diff = boot[:, i] - boot[:, order[rank]]
            d_low, d_high = np.nanpercentile(diff, [2.5, 97.5])
            tied = bool(d_low <= 0 <= d_high)
        rows.append({"rank": rank, "model": matrix.index[i], "win_rate": estimate[i], "ci_low": low[i], "ci_high": high[i],
                     "scenarios": int(np.isfinite(values[i]).sum()), "tied_with_next": tied})
    return pd.DataFrame(rows)


# Metric relationships (HELM §8.1, Figs. 24–25): accuracy vs each other group's per-scenario metric across models.
RELATED = {"Robustness": ("EM (Robustness)", "F1 (Robustness)", "RR@10 (Robustness)", "NDCG@10 (Robustness)"),
           "Fairness": ("EM (Fairness)", "F1 (Fairness)", "RR@10 (Fairness)", "NDCG@10 (Fairness)"),
           "Calibration": ("ECE (10-bin)",), "Toxicity": ("Toxic fraction",), "Bias": ("Stereotypes (gender)",),
           "Efficiency": ("Denoised inference time (s)",)}


def metric_relationships(frame: pd.DataFrame, *, seed: int, n_resamples: int = 2000, models=None) -> pd.DataFrame:
    """Per scenario and group: Pearson r between accuracy and the group's metric across models, bootstrap CI."""
    accuracy = main_columns(frame, "Accuracy")
    if models is not None:
        accuracy = accuracy.loc[accuracy.index.intersection(models)]
    rows = []
    for group, metrics in RELATED.items():
        other = main_columns(frame, group)
        for (scenario, acc_metric) in accuracy.columns:
            column = next(((scenario, m) for m in metrics if (scenario, m) in other.columns), None)
            if column is None:
                continue
            both = pd.DataFrame({"acc": accuracy[(scenario, acc_metric)], "other": other[column]}).dropna()
            if len(both) < 5 or both["other"].nunique() < 2:
                continue
            est = stats.correlation_ci(both["acc"].to_numpy(), both["other"].to_numpy(), method="pearson",
                                       seed=seed + len(rows), n_resamples=n_resamples)
            rows.append({"group": group, "scenario": scenario, "metric": column[1], "pearson_r": est.estimate,
                         "ci_low": est.ci_low, "ci_high": est.ci_high, "models": est.n})
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
        raise DataFormatError(f"{run_specs_conf}: no run entries with priorities found")
    return pd.Series(found, name="priority").sort_index()


def tie_share(frame: pd.DataFrame, group: str) -> float:
    """Share of model pairs with equal published values within a column, averaged over the group's columns
    (values are published rounded to 3 decimals; ties created by rounding shift head-to-head win rates)."""
    table = main_columns(frame, group)
    shares = []
    for column in table.columns:
        values = table[column].dropna().to_numpy()
        if len(values) > 1:
            equal = (values[:, None] == values[None, :]).sum() - len(values)
            shares.append(equal / (len(values) * (len(values) - 1)))
    return float(np.mean(shares)) if shares else np.nan


def subset_ranking_agreement(frame: pd.DataFrame, subsets: dict[str, list[str]], *, seed: int, n_resamples: int = 1000,
                             models=None) -> pd.DataFrame:
    """Kendall τ between the accuracy win-rate ranking from a subset of scenarios and from all of them,
    with a bootstrap CI resampling models (the win rates are recomputed within each resample)."""
    table = main_columns(frame, "Accuracy")
    if models is not None:
        table = table.loc[table.index.intersection(models)]
    lib = _lower_is_better(frame, "Accuracy")
    generator = np.random.default_rng(seed)
    rows = []
    for label, scenarios in subsets.items():
        keep = [c for c in table.columns if c[0] in scenarios]

        def tau(index):
            sub = table.iloc[index].reset_index(drop=True)  # resampled models may repeat
            full = win_rate_matrix(sub, lib).mean(axis=1)
            part = win_rate_matrix(sub[keep], lib).mean(axis=1)
            ok = full.notna() & part.notna()
            return kendalltau(full[ok], part[ok]).statistic

        estimate = tau(np.arange(len(table)))
        boot = [tau(generator.integers(0, len(table), len(table))) for _ in range(n_resamples)]
        low, high = np.nanpercentile(boot, [2.5, 97.5])
        rows.append({"subset": label, "scenarios": len(set(c[0] for c in keep)), "kendall_tau": estimate, "ci_low": low,
                     "ci_high": high})
    return pd.DataFrame(rows)


def random_subset_curve(frame: pd.DataFrame, *, seed: int, draws: int = 200, models=None) -> pd.DataFrame:
    """τ(ranking from k random scenarios, full ranking) for k = 1..K: mean and 2.5–97.5 percentiles over draws."""
    table = main_columns(frame, "Accuracy")
    if models is not None:
        table = table.loc[table.index.intersection(models)]
    lib = _lower_is_better(frame, "Accuracy")
    full = win_rate_matrix(table, lib)
    reference = full.mean(axis=1)
    generator = np.random.default_rng(seed)
    rows = []
    for k in range(1, full.shape[1] + 1):
        taus = []
        for _ in range(draws):
            pick = generator.choice(full.shape[1], size=k, replace=False)
            part = full.iloc[:, pick].mean(axis=1)  # a column's win rates do not depend on the other columns
            ok = part.notna() & reference.notna()
            taus.append(kendalltau(reference[ok], part[ok]).statistic)
        low, high = np.nanpercentile(taus, [2.5, 97.5])
        rows.append({"k": k, "mean_tau": float(np.nanmean(taus)), "low": low, "high": high, "draws": draws})
    return pd.DataFrame(rows)
