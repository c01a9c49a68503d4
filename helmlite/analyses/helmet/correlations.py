"""HELMET's correlation analyses (Yen et al., ICLR 2025, arXiv 2410.02694, §3 Figs. 3 and 5, App. Figs. 6/10).

HELMET scores 59 long-context models on seven categories and asks whether cheap synthetic tasks
(Recall, NIAH, RULER) rank models the way downstream tasks do, via Spearman's ρ across the 35
instruction-tuned models at 128K. Every function takes a *models × tasks* table, so the same code
serves the released category table, per-dataset results, or a user's own helmlite runs; uncertainty
comes from bootstrapping **models** (the paper reports point estimates only).
"""
from __future__ import annotations

import os
from itertools import combinations

import numpy as np
import pandas as pd
from statsmodels.stats.multitest import multipletests

from ... import stats
from ...seeds import rng
from ..._jsonl import DataFormatError
from ...reproduction import row, table
from .reference import FIG5_ORDER

CATEGORIES = FIG5_ORDER
DOWNSTREAM = ("ICL", "Cite", "Re-rank", "LongQA", "Summ")
INSTRUCT, BASE = "♯", "♭"
_REQUIRED = ("Model", "Model type", *CATEGORIES)


def load_results(path: str | os.PathLike) -> pd.DataFrame:
    """The released ``agg_results.csv``: one row per model, category scores 0–100, ``Model type`` ♯/♭."""
    table = pd.read_csv(path)
    missing = [c for c in _REQUIRED if c not in table.columns]
    if missing:
        raise DataFormatError(f"{path}: missing column(s) {missing}; expected HELMET's agg_results.csv header "
                              f"with {list(_REQUIRED)}")
    bad_type = ~table["Model type"].isin([INSTRUCT, BASE])
    if bad_type.any():
        row = int(np.argmax(bad_type))
        raise DataFormatError(f"{path}, row {row + 2}: 'Model type' must be ♯ (instruct) or ♭ (base), "
                              f"got {table['Model type'].iloc[row]!r}")
    for column in CATEGORIES:
        values = pd.to_numeric(table[column], errors="coerce")
        if values.isna().any():
            row = int(np.argmax(values.isna()))
            raise DataFormatError(f"{path}, row {row + 2}: column {column!r} must be a number, got {table[column].iloc[row]!r}")
        table[column] = values
    return table.set_index("Model")


def spearman_matrix(table: pd.DataFrame, rows=CATEGORIES, columns=None) -> pd.DataFrame:
    """Spearman ρ between every row task and column task across models (average ranks for ties)."""
    columns = rows if columns is None else columns
    out = pd.DataFrame(index=list(rows), columns=list(columns), dtype=float)
    for r in rows:
        for c in columns:
            out.loc[r, c] = float(stats.spearman_rho(table[r].to_numpy(float), table[c].to_numpy(float)))
    return out


def synthetic_vs_downstream(table: pd.DataFrame, synthetic, downstream=DOWNSTREAM) -> pd.DataFrame:
    """Fig. 3 layout: ρ(synthetic task, downstream category) and ``Avg.`` = the mean of the row's ρ's."""
    matrix = spearman_matrix(table, synthetic, downstream)
    matrix["Avg."] = matrix.mean(axis=1)
    return matrix


def max_abs_difference(ours: pd.DataFrame, published: pd.DataFrame) -> float:
    """Largest |ours − published| over the published cells."""
    return float((ours.loc[published.index, published.columns] - published).abs().to_numpy().max())


def exclusion_candidates(table: pd.DataFrame, published: pd.DataFrame) -> pd.DataFrame:
    """For each model, the Fig. 5 reproduction without it: max and mean |Δ| to the paper (sorted)."""
    rows = []
    for model in table.index:
        ours = spearman_matrix(table.drop(index=model), published.index)
        delta = (ours - published).abs().to_numpy()[np.triu_indices(len(published), 1)]
        rows.append({"excluded": model, "max_abs_diff": delta.max(), "mean_abs_diff": delta.mean()})
    return pd.DataFrame(rows).sort_values(["max_abs_diff", "mean_abs_diff", "excluded"], ignore_index=True)


def pair_intervals(table: pd.DataFrame, pairs, *, seed: int, n_resamples: int) -> pd.DataFrame:
    """ρ for each (row, col) pair with a bootstrap CI resampling models (BCa from 20 models, else percentile)."""
    out = []
    for r, c in pairs:
        est = stats.correlation_ci(table[r].to_numpy(float), table[c].to_numpy(float), correlation="spearman",
                                   seed=rng(seed, "pair", r, c), n_resamples=n_resamples)
        out.append({"row": r, "col": c, "rho": est.estimate, "ci_low": est.ci_low, "ci_high": est.ci_high, "n": est.n})
    return pd.DataFrame(out)


def _interval(n_models: int) -> str:
    """BCa for these smooth statistics from 20 models on, percentile below (BCa's acceleration is unstable)."""
    return "bca" if n_models >= 20 else "percentile"


def _mean_rho(x, *targets, axis=-1):
    return np.mean([stats.spearman_rho(x, t, axis=axis) for t in targets], axis=0)


def average_intervals(table: pd.DataFrame, synthetic, downstream=DOWNSTREAM, *, seed: int, n_resamples: int) -> pd.DataFrame:
    """The ``Avg.`` column of Fig. 3 with a CI: the mean ρ over downstream categories, models resampled together."""
    rows = []
    targets = tuple(table[d].to_numpy(float) for d in downstream)
    for task in synthetic:
        est = stats.bootstrap_ci((table[task].to_numpy(float), *targets), _mean_rho, seed=rng(seed, "average", task),
                                 n_resamples=n_resamples, method=_interval(len(table)))
        rows.append({"row": task, "col": "Avg.", "rho": est.estimate, "ci_low": est.ci_low, "ci_high": est.ci_high, "n": est.n})
    return pd.DataFrame(rows)


def compare_predictors(table: pd.DataFrame, better: str, worse: str, downstream=DOWNSTREAM, *, seed: int,
                       n_resamples: int) -> pd.DataFrame:
    """Is ``better`` a stronger predictor than ``worse``? Paired bootstrap over models of ρ differences,
    per downstream category and for the average over them."""
    a, b = table[better].to_numpy(float), table[worse].to_numpy(float)
    targets = {d: table[d].to_numpy(float) for d in downstream}
    rows = []
    for name, target in targets.items():
        diff = stats.correlation_difference(a, b, target, correlation="spearman", interval="percentile",
                                            seed=rng(seed, "predictors", better, worse, name), n_resamples=n_resamples)
        rows.append({"target": name, **_difference_row(diff)})

    def avg_difference(x, y, *ts, axis=-1):
        return _mean_rho(x, *ts, axis=axis) - _mean_rho(y, *ts, axis=axis)

    diff = stats.paired_test((a, b, *targets.values()), avg_difference, seed=rng(seed, "predictors", better, worse, "Avg."),
                             n_resamples=n_resamples, method="percentile")
    rows.append({"target": "Avg.", **_difference_row(diff)})
    frame = pd.DataFrame(rows)
    frame.insert(0, "comparison", f"{better} − {worse}")
    return frame


def _difference_row(diff: stats.PairedComparison) -> dict:
    return {"difference": diff.estimate, "ci_low": diff.ci_low, "ci_high": diff.ci_high, "p_value": diff.p_value,
            "significant": diff.significant}


def ci_width_by_models(table: pd.DataFrame, pairs: dict[str, tuple[str, str]], sizes, *, subsets: int, seed: int,
                       n_resamples: int) -> pd.DataFrame:
    """How wide is a 95% CI on ρ with n models? For each n, ``subsets`` random model subsets of size n
    (without replacement), each with its own percentile bootstrap CI; mean and spread of the widths."""
    rows = []
    for label, (x, y) in pairs.items():
        for n in sizes:
            widths = []
            subsets_rng = rng(seed, "subsets", label, n)
            for s in range(subsets):
                pick = subsets_rng.choice(len(table), size=n, replace=False)
                sub = table.iloc[pick]
                est = stats.correlation_ci(sub[x].to_numpy(float), sub[y].to_numpy(float), correlation="spearman",
                                           seed=rng(seed, "width", label, n, s), n_resamples=n_resamples)
                widths.append(est.ci_high - est.ci_low)
            rows.append({"pair": label, "row": x, "col": y, "n_models": n, "mean_width": float(np.nanmean(widths)),
                         "p10_width": float(np.nanpercentile(widths, 10)), "p90_width": float(np.nanpercentile(widths, 90)),
                         "subsets": subsets})
    return pd.DataFrame(rows)


def group_difference(groups: dict[str, pd.DataFrame], pairs, *, seed: int, n_resamples: int) -> pd.DataFrame:
    """ρ per pair in two independent model groups (e.g. instruct vs base) and the CI of their difference
    (models resampled independently within each group; percentile interval of the difference), with
    a two-sided bootstrap p-value and Holm's correction over the pairs (statsmodels)."""
    (name_a, a), (name_b, b) = groups.items()
    rows = []
    for r, c in pairs:
        boot = {}
        est = {}
        for name, part in ((name_a, a), (name_b, b)):
            x, y = part[r].to_numpy(float), part[c].to_numpy(float)
            est[name] = float(stats.spearman_rho(x, y))
            boot[name] = stats.bootstrap_distribution((x, y), stats.spearman_rho, n_resamples=n_resamples,
                                                      seed=rng(seed, "groups", name, r, c))
        diff = boot[name_a] - boot[name_b]
        diff = diff[np.isfinite(diff)]
        low, high = np.percentile(diff, [2.5, 97.5])
        rows.append({"row": r, "col": c, f"rho_{name_a}": est[name_a], f"rho_{name_b}": est[name_b],
                     "difference": est[name_a] - est[name_b], "ci_low": low, "ci_high": high,
                     "p_value": stats.bootstrap_p_value(diff),
                     "significant": not low <= 0 <= high, f"n_{name_a}": len(a), f"n_{name_b}": len(b)})
    frame = pd.DataFrame(rows)
    frame["p_holm"] = multipletests(frame["p_value"], method="holm")[1]
    frame["significant_holm"] = frame["p_holm"] < 0.05
    return frame


def upper_pairs(order=CATEGORIES) -> list[tuple[str, str]]:
    """The off-diagonal cells of a symmetric heatmap, in reading order."""
    return list(combinations(order, 2))


def load_length_table(path: str | os.PathLike) -> pd.DataFrame:
    """Fig. 6/10 values read off the paper (long format: model, category, length, value) → models × (length, category)."""
    long = pd.read_csv(path)
    missing = {"model", "category", "length", "value"} - set(long.columns)
    if missing:
        raise DataFormatError(f"{path}: missing column(s) {sorted(missing)}")
    return long.pivot_table(index="model", columns=["length", "category"], values="value", aggfunc="first")


def _mean_offdiagonal(*columns, axis=-1):
    return np.mean([stats.spearman_rho(a, b, axis=axis) for a, b in combinations(columns, 2)], axis=0)


def correlation_by_length(wide: pd.DataFrame, lengths, categories=CATEGORIES, *, seed: int,
                          n_resamples: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Per input length: the mean off-diagonal category ρ (CI over models), each pair's ρ, and the
    paired-bootstrap change from the shortest to the longest length (same models)."""
    summary, pairs = [], []
    for length in lengths:
        part = wide[length][list(categories)].dropna()
        cols = tuple(part[c].to_numpy(float) for c in categories)
        est = stats.bootstrap_ci(cols, _mean_offdiagonal, seed=rng(seed, "length", length), n_resamples=n_resamples,
                                 method=_interval(len(part)))
        summary.append({"length": length, "mean_rho": est.estimate, "ci_low": est.ci_low, "ci_high": est.ci_high,
                        "n_models": est.n})
        for r, c in combinations(categories, 2):
            pairs.append({"length": length, "row": r, "col": c, "rho": float(stats.spearman_rho(cols[categories.index(r)], cols[categories.index(c)]))})
    first, last = lengths[0], lengths[-1]
    both = wide[[*((first, c) for c in categories), *((last, c) for c in categories)]].dropna()
    n_cat = len(categories)

    def change(*cols, axis=-1):
        return _mean_offdiagonal(*cols[n_cat:], axis=axis) - _mean_offdiagonal(*cols[:n_cat], axis=axis)

    diff = stats.paired_test(tuple(both[col].to_numpy(float) for col in both.columns), change, seed=rng(seed, "length-change"),
                             n_resamples=n_resamples, method="percentile")
    summary.append({"length": f"{last} − {first}", "mean_rho": diff.estimate, "ci_low": diff.ci_low,
                    "ci_high": diff.ci_high, "n_models": diff.n})
    return pd.DataFrame(summary), pd.DataFrame(pairs)


def category_connectedness(table: pd.DataFrame, categories=CATEGORIES, *, seed: int, n_resamples: int) -> pd.DataFrame:
    """Each category's mean ρ with the other six (how well it is predicted by / predicts the rest), CI over models."""
    rows = []
    for category in categories:
        others = tuple(table[c].to_numpy(float) for c in categories if c != category)
        est = stats.bootstrap_ci((table[category].to_numpy(float), *others), _mean_rho, seed=rng(seed, "connectedness", category),
                                 n_resamples=n_resamples, method=_interval(len(table)))
        rows.append({"category": category, "mean_rho_with_others": est.estimate, "ci_low": est.ci_low,
                     "ci_high": est.ci_high, "n": est.n})
    return pd.DataFrame(rows).sort_values("mean_rho_with_others", ascending=False, ignore_index=True)


def with_published(intervals: pd.DataFrame, published: pd.DataFrame, figure: str) -> pd.DataFrame:
    """Intervals (row, col, rho, CI) joined with the paper's cell values, for one figure."""
    out = intervals.rename(columns={"rho": "ours"})
    out.insert(0, "figure", figure)
    out.insert(3, "published", [published.loc[r, c] for r, c in zip(out["row"], out["col"])])
    return out


def reproduction(correlations: pd.DataFrame, fig3_published: pd.DataFrame, tolerance: float = 0.01) -> pd.DataFrame:
    """``tables/helmet_reproduction.csv``: one row per published Fig. 5 / Fig. 3 cell (``fig5:<row>~<col>``)."""
    rows = [row(f"{r.figure}:{r.row}~{r.col}", r.published, r.ours,
                "reproduced" if abs(r.ours - r.published) <= tolerance + 1e-9 else f"differs (> {tolerance})",
                r.ci_low, r.ci_high) for r in correlations.itertuples()]
    done = set(zip(correlations.loc[correlations["figure"] == "fig3", "row"], correlations.loc[correlations["figure"] == "fig3", "col"]))
    for r in fig3_published.index:
        for c in fig3_published.columns:
            if (r, c) not in done:
                rows.append(row(f"fig3:{r}~{c}", fig3_published.loc[r, c], np.nan,
                                "not reproducible offline: per-dataset results are only in the authors' spreadsheet"))
    return table(rows)


def separated_from_top(connected: pd.DataFrame, category: str) -> bool:
    """True when ``category``'s CI (from :func:`category_connectedness`) lies entirely below the CI of the
    best-connected category — i.e. it is demonstrably less connected."""
    top = connected.iloc[0]
    mine = connected.set_index("category").loc[category]
    return category != top["category"] and mine["ci_high"] < top["ci_low"]
