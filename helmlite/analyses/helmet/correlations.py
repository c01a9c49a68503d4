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
from ..._jsonl import DataFormatError
from ...errors import UserError
from ...seeds import rng
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


def pair_intervals(table: pd.DataFrame, pairs, *, seed: int, n_resamples: int) -> pd.DataFrame:
    """ρ for each (row, col) pair with a bootstrap CI resampling models (BCa from 20 models, else percentile)."""
    out = []
    for r, c in pairs:
        est = stats.interval_for((table[r].to_numpy(float), table[c].to_numpy(float)), statistic=stats.spearman_rho,
                                 seed=rng(seed, "pair", r, c), n_resamples=n_resamples)
        out.append({"row": r, "col": c, "rho": est.estimate, "ci_low": est.ci_low, "ci_high": est.ci_high, "n": est.n,
                    "interval": est.method})
    return pd.DataFrame(out)


def _rho_difference(x1, x2, y, axis=-1):
    """ρ(x1, y) − ρ(x2, y): is x1 the better predictor of y (Spearman; vectorised over resamples)?"""
    return stats.spearman_rho(x1, y, axis=axis) - stats.spearman_rho(x2, y, axis=axis)


def _mean_rho(x, *targets, axis=-1):
    return np.mean([stats.spearman_rho(x, t, axis=axis) for t in targets], axis=0)


def average_intervals(table: pd.DataFrame, synthetic, downstream=DOWNSTREAM, *, seed: int, n_resamples: int) -> pd.DataFrame:
    """The ``Avg.`` column of Fig. 3 with a CI: the mean ρ over downstream categories, models resampled together
    — the same interval as the claim of :func:`average_against` (one interval per quantity)."""
    rows = []
    for task in synthetic:
        est, _ = average_against(table, task, 0.0, downstream, seed=seed, n_resamples=n_resamples)
        rows.append({"row": task, "col": "Avg.", "rho": est.estimate, "ci_low": est.ci_low, "ci_high": est.ci_high, "n": est.n,
                     "interval": est.method})
    return pd.DataFrame(rows)


def compare_predictors(table: pd.DataFrame, better: str, worse: str, downstream=DOWNSTREAM, *, seed: int,
                       n_resamples: int) -> pd.DataFrame:
    """Is ``better`` a stronger predictor than ``worse``? Paired bootstrap over models of ρ differences,
    per downstream category and for the average over them. One method for the interval, the p-value and
    the flag: the interval the kit's policy picks (:func:`helmlite.stats.interval_for`: BCa from 20 models, else
    percentile) and the p-value from the same resamples (dual: ``significant`` = p < 0.05 = the interval excludes 0)."""
    a, b = table[better].to_numpy(float), table[worse].to_numpy(float)
    targets = {d: table[d].to_numpy(float) for d in downstream}
    rows = []
    for name, target in targets.items():
        diff = stats.interval_for((a, b, target), statistic=_rho_difference, paired=True,
                                  seed=rng(seed, "predictors", better, worse, name), n_resamples=n_resamples)
        rows.append({"target": name, **_difference_row(diff)})

    def avg_difference(x, y, *ts, axis=-1):
        return _mean_rho(x, *ts, axis=axis) - _mean_rho(y, *ts, axis=axis)

    diff = stats.interval_for((a, b, *targets.values()), statistic=avg_difference, paired=True,
                              seed=rng(seed, "predictors", better, worse, "Avg."), n_resamples=n_resamples)
    rows.append({"target": "Avg.", **_difference_row(diff)})
    frame = pd.DataFrame(rows)
    frame.insert(0, "comparison", f"{better} − {worse}")
    return frame


def _difference_row(diff: stats.PairedComparison) -> dict:
    return {"difference": diff.estimate, "ci_low": diff.ci_low, "ci_high": diff.ci_high, "p_value": diff.p_value,
            "p_floor": diff.p_floor, "significant": diff.significant, "n": diff.n, "interval": diff.method}


def ci_width_by_models(table: pd.DataFrame, pairs: dict[str, tuple[str, str]], sizes, *, subsets: int, seed: int,
                       n_resamples: int) -> pd.DataFrame:
    """How wide is a 95% CI on ρ with n models? For each n, ``subsets`` random model subsets of size n
    (without replacement), each with its own bootstrap CI; mean and spread of the widths, and ``intervals``:
    how many subsets got which interval (BCa from 20 models, the percentile interval below, or where a BCa end is
    unbounded — :data:`helmlite.stats.bootstrap.BCA_FALLBACK`; every width is finite). Every n must be
    strictly smaller than the number of models: a "subset" of all of them is the same set every time."""
    too_big = [n for n in sizes if n >= len(table)]
    if too_big:
        raise UserError(f"ci_width_by_models: subset sizes must be smaller than the {len(table)} models (every subset "
                         f"of all of them is the full set), got {too_big}")
    rows = []
    for label, (x, y) in pairs.items():
        for n in sizes:
            widths, methods = [], []
            subsets_rng = rng(seed, "subsets", label, n)
            for s in range(subsets):
                pick = subsets_rng.choice(len(table), size=n, replace=False)
                sub = table.iloc[pick]
                est = stats.interval_for((sub[x].to_numpy(float), sub[y].to_numpy(float)), statistic=stats.spearman_rho,
                                         seed=rng(seed, "width", label, n, s), n_resamples=n_resamples)
                widths.append(est.ci_high - est.ci_low)
                methods.append(est.method)
            used = pd.Series(methods).value_counts().sort_index()
            rows.append({"pair": label, "row": x, "col": y, "n_models": n, "mean_width": float(np.mean(widths)),
                         "p10_width": float(np.percentile(widths, 10)), "p90_width": float(np.percentile(widths, 90)),
                         "subsets": subsets, "intervals": ", ".join(f"{m}: {k}" for m, k in used.items())})
    return pd.DataFrame(rows)


def group_difference(groups: dict[str, pd.DataFrame], pairs, *, seed: int, n_resamples: int) -> pd.DataFrame:
    """ρ per pair in two independent model groups (e.g. instruct vs base) and the CI of their difference
    (:func:`helmlite.stats.interval_for` with ``versus``: models resampled independently within each group; the
    percentile interval of the difference and the two-sided p-value from the same resamples, so ``significant`` and
    the interval agree), with Holm's correction over the pairs (statsmodels)."""
    (name_a, a), (name_b, b) = groups.items()
    rows = []
    for r, c in pairs:
        x_a, y_a, x_b, y_b = (part[col].to_numpy(float) for part in (a, b) for col in (r, c))
        diff = stats.interval_for((x_a, y_a), statistic=stats.spearman_rho, versus=(x_b, y_b),
                                  seed=rng(seed, "groups", r, c), n_resamples=n_resamples)
        est = {name_a: float(stats.spearman_rho(x_a, y_a)), name_b: float(stats.spearman_rho(x_b, y_b))}
        low, high, p = diff.ci_low, diff.ci_high, diff.p_value  # p < 0.05 exactly when the interval excludes 0
        rows.append({"row": r, "col": c, f"rho_{name_a}": est[name_a], f"rho_{name_b}": est[name_b],
                     "difference": est[name_a] - est[name_b], "ci_low": low, "ci_high": high,
                     "p_value": p, "significant": bool(p < 0.05), f"n_{name_a}": len(a), f"n_{name_b}": len(b)})
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
        est = stats.interval_for(cols, statistic=_mean_offdiagonal, seed=rng(seed, "length", length), n_resamples=n_resamples)
        summary.append({"length": length, "mean_rho": est.estimate, "ci_low": est.ci_low, "ci_high": est.ci_high,
                        "n_models": est.n, "interval": est.method})
        for r, c in combinations(categories, 2):
            pairs.append({"length": length, "row": r, "col": c, "rho": float(stats.spearman_rho(cols[categories.index(r)], cols[categories.index(c)]))})
    first, last = lengths[0], lengths[-1]
    both = wide[[*((first, c) for c in categories), *((last, c) for c in categories)]].dropna()
    n_cat = len(categories)

    def change(*cols, axis=-1):
        return _mean_offdiagonal(*cols[n_cat:], axis=axis) - _mean_offdiagonal(*cols[:n_cat], axis=axis)

    diff = stats.interval_for(tuple(both[col].to_numpy(float) for col in both.columns), statistic=change, paired=True,
                              seed=rng(seed, "length-change"),
                              n_resamples=n_resamples)
    summary.append({"length": f"{last} − {first}", "mean_rho": diff.estimate, "ci_low": diff.ci_low,
                    "ci_high": diff.ci_high, "n_models": diff.n, "interval": diff.method})
    return pd.DataFrame(summary), pd.DataFrame(pairs)


#: The columns of :func:`correlation_by_length`'s summary (what :func:`by_length_from` returns empty).
BY_LENGTH_COLUMNS = ["length", "mean_rho", "ci_low", "ci_high", "n_models", "interval"]


def by_length_from(path: str | os.PathLike | None, lengths, *, seed: int,
                   n_resamples: int) -> tuple[pd.DataFrame, pd.DataFrame | None]:
    """:func:`correlation_by_length` of the Fig. 6 table at ``path`` (mirror-only: None when absent), or an empty
    summary with its columns and no pairs when the file is absent."""
    if path is None:
        return pd.DataFrame(columns=BY_LENGTH_COLUMNS), None
    return correlation_by_length(load_length_table(path), lengths, seed=seed, n_resamples=n_resamples)


def category_connectedness(table: pd.DataFrame, categories=CATEGORIES, *, seed: int, n_resamples: int) -> pd.DataFrame:
    """Each category's mean ρ with the other six (how well it is predicted by / predicts the rest), CI over models."""
    rows = []
    for category in categories:
        others = tuple(table[c].to_numpy(float) for c in categories if c != category)
        est = stats.interval_for((table[category].to_numpy(float), *others), statistic=_mean_rho, seed=rng(seed, "connectedness", category),
                                 n_resamples=n_resamples)
        rows.append({"category": category, "mean_rho_with_others": est.estimate, "ci_low": est.ci_low,
                     "ci_high": est.ci_high, "n": est.n})
    return pd.DataFrame(rows).sort_values("mean_rho_with_others", ascending=False, ignore_index=True)


def _connectedness(index: int, others: list[int], *cols, axis=-1):
    """Mean ρ of column ``index`` with each of ``others``."""
    return np.mean([stats.spearman_rho(cols[index], cols[o], axis=axis) for o in others], axis=0)


def _among(others: list[int], *cols, axis=-1):
    """Mean ρ over the pairs within ``others``."""
    return np.mean([stats.spearman_rho(cols[a], cols[b], axis=axis) for a, b in combinations(others, 2)], axis=0)


def weak_connectedness(table: pd.DataFrame, weak=("ICL", "Cite"), categories=CATEGORIES, *, seed: int,
                       n_resamples: int) -> pd.DataFrame:
    """"``weak`` correlate poorly with the other categories", tested **paired** over models.

    For each weak category X, the gap = (mean ρ among the other categories, the ones not in ``weak``) −
    (mean ρ of X with those categories): both sides come from the same resampled models (the interval the
    kit's policy picks — BCa from 20 models — and the p-value from the same resamples). The reference is every other category, not the
    best-connected one, which would be chosen by the data (a selected maximum is biased upward); the
    gap to the best-connected category is given beside it (``gap_to_top``, ``top``) for comparison.
    A last row ``all`` is the intersection–union test that *every* weak category is below (Berger 1982):
    the smallest gap, the largest p-value and the interval [min of the lower ends, min of the upper
    ends], which covers the smallest true gap with at least the nominal level.
    """
    categories = list(categories)
    cols = tuple(table[c].to_numpy(float) for c in categories)
    others = [k for k, c in enumerate(categories) if c not in weak]
    strengths = {c: float(_connectedness(k, [o for o in range(len(categories)) if o != k], *cols))
                 for k, c in enumerate(categories) if c not in weak}
    top = max(strengths, key=strengths.get)
    top_index, top_others = categories.index(top), [o for o in range(len(categories)) if o != categories.index(top)]
    rows = []
    for name in weak:
        index = categories.index(name)

        def gap(*c, axis=-1, index=index):
            return _among(others, *c, axis=axis) - _connectedness(index, others, *c, axis=axis)

        def gap_top(*c, axis=-1, index=index):
            mine = [o for o in range(len(categories)) if o != index]
            return _connectedness(top_index, top_others, *c, axis=axis) - _connectedness(index, mine, *c, axis=axis)

        est = stats.interval_for(cols, statistic=gap, paired=True, seed=rng(seed, "weak", name), n_resamples=n_resamples)
        vs_top = stats.interval_for(cols, statistic=gap_top, paired=True, seed=rng(seed, "weak-top", name), n_resamples=n_resamples)
        rows.append({"category": name, "gap": est.estimate, "ci_low": est.ci_low, "ci_high": est.ci_high,
                     "p_value": est.p_value, "p_floor": est.p_floor, "n": est.n, "top": top, "gap_to_top": vs_top.estimate,
                     "gap_to_top_ci_low": vs_top.ci_low, "gap_to_top_ci_high": vs_top.ci_high,
                     "gap_to_top_p_value": vs_top.p_value})
    frame = pd.DataFrame(rows)
    joint = {"category": "all", "gap": frame["gap"].min(), "ci_low": frame["ci_low"].min(),
             "ci_high": frame["ci_high"].min(), "p_value": frame["p_value"].max(),
             "p_floor": frame.loc[frame["p_value"].idxmax(), "p_floor"], "n": int(frame["n"].min()),
             "top": top, "gap_to_top": frame["gap_to_top"].min(), "gap_to_top_ci_low": frame["gap_to_top_ci_low"].min(),
             "gap_to_top_ci_high": frame["gap_to_top_ci_high"].min(), "gap_to_top_p_value": frame["gap_to_top_p_value"].max()}
    return pd.concat([frame, pd.DataFrame([joint])], ignore_index=True)


def average_against(table: pd.DataFrame, task: str, null: float, downstream=DOWNSTREAM, *, seed: int,
                    n_resamples: int) -> tuple[stats.Estimate, float]:
    """Fig. 3's ``Avg.`` for ``task`` (mean ρ with the downstream categories) with its bootstrap interval over
    models (BCa from 20 models, else percentile: ``method="auto"``) and the two-sided p-value of "Avg. =
    ``null``" from the same procedure: the test of Avg. − ``null`` against 0, whose BCa interval is the
    Avg.'s shifted by ``null`` (BCa is translation-equivariant), so the interval does not depend on ``null``. The
    estimate carries that p and its resampling floor (``p_floor``: a p there reads "p ≤ floor")."""
    x = table[task].to_numpy(float)
    targets = tuple(table[d].to_numpy(float) for d in downstream)

    def shifted(*cols, axis=-1):
        return _mean_rho(*cols, axis=axis) - null

    test = stats.interval_for((x, *targets), statistic=shifted, paired=True, seed=rng(seed, "average", task), n_resamples=n_resamples)
    return (stats.PairedComparison(test.estimate + null, test.ci_low + null, test.ci_high + null, test.n, test.level,
                                   test.method, p_value=test.p_value, p_floor=test.p_floor), test.p_value)
