"""HELM's head-to-head mean win rate on any leaderboard table, with HELM v0.4.0's rules and a bootstrap CI.

HELM's definition (``summarize.py``, ``compute_aggregate_row_win_rates``): per column (scenario × metric),
a model's win rate is the share of the other models with a value that it beats; the model's *mean win rate*
is the mean over the columns where it has a value. Columns without a direction or with fewer than two
values are skipped. Which cells count (:mod:`.helm_rules`): strongly contaminated cells and the values
HELM hid for models with log-prob issues are left out; metrics without a direction in HELM's schema
(Coverage, Density, Compression) are not ranked.

Ties (``tie_rule``):

* ``"v0.4.0"`` — the rule that produced the v0.4.0 leaderboard: the ``(value, row_index)`` pairs are
  sorted (descending when lower is better) and a model's wins are its position; there is no half credit,
  so exact ties go to the row later in the table for higher-is-better columns and to the earlier row for
  lower-is-better columns.
* ``"half"`` — the rule of HELM v0.5.4 and later (v0.5.16 checked): tied models share the average position (a
  tie counts half a win), and strongly contaminated cells are ranked like any other (v0.4.0 left them out;
  v0.5.0–v0.5.3 already ranked them but still broke ties by row order).
  Shown as a sensitivity.

:func:`tie_ranges` gives, per model, the range of win rates that breaking the ties in the *displayed*
(rounded) values allows: rounding is monotone, so only models with equal displayed values can be in either
order in the unrounded data.
"""
from __future__ import annotations

import os

import numpy as np
import pandas as pd

from .. import stats
from ..errors import UserError
from ..seeds import rng
from . import helm_rules
from .reading import load_leaderboard
from .table import MIN_COVERAGE, group_name, select, with_defaults

_CHUNK = 256  # resamples whose pairwise comparisons are held in memory at once


def check_tie_rule(tie_rule: str) -> str:
    if tie_rule not in helm_rules.TIE_RULES:
        raise UserError(f"tie_rule must be one of {list(helm_rules.TIE_RULES)}, got {tie_rule!r}")
    return tie_rule


# --------------------------------------------------------------------------------------- the rules, vectorised

def _pairwise(values: np.ndarray, lower_is_better: bool):
    """For values (..., n) with NaN = missing: (greater, equal, present) where greater[..., i, j] says i beats j."""
    signed = -values if lower_is_better else values
    present = np.isfinite(signed)
    both = present[..., :, None] & present[..., None, :]
    a, b = signed[..., :, None], signed[..., None, :]
    with np.errstate(invalid="ignore"):
        greater = (a > b) & both
        equal = (a == b) & both
    equal &= ~np.eye(values.shape[-1], dtype=bool)
    return greater, equal, present


def column_win_rates(values: np.ndarray, rows: np.ndarray, lower_is_better: bool, tie_rule: str = "v0.4.0") -> np.ndarray:
    """Win rates (..., n) of one column's values (..., n) (NaN = no value); ``rows`` (..., n) are the
    tie-breaking positions of the v0.4.0 rule. NaN where a model has no value or the column < 2 values."""
    greater, equal, present = _pairwise(values, lower_is_better)
    if check_tie_rule(tie_rule) == "half":
        wins = greater.sum(-1) + 0.5 * equal.sum(-1)
    else:  # sorted((value, row), reverse=lower_is_better): position = wins
        r = np.asarray(rows, dtype=float)
        later = (r[..., :, None] < r[..., None, :]) if lower_is_better else (r[..., :, None] > r[..., None, :])
        wins = greater.sum(-1) + (equal & later).sum(-1)
    n = present.sum(-1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(present & (n >= 2), wins / np.maximum(n - 1, 1), np.nan)


def column_tie_ranges(values: np.ndarray, lower_is_better: bool) -> tuple[np.ndarray, np.ndarray]:
    """Lowest and highest win rate each model can get when the ties among ``values`` are broken either way."""
    greater, equal, present = _pairwise(values, lower_is_better)
    n = present.sum(-1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        low = np.where(present & (n >= 2), greater.sum(-1) / np.maximum(n - 1, 1), np.nan)
        high = np.where(present & (n >= 2), (greater.sum(-1) + equal.sum(-1)) / np.maximum(n - 1, 1), np.nan)
    return low, high


def win_rate_matrix(table: pd.DataFrame, lower_is_better: dict, tie_rule: str = "v0.4.0", rows=None) -> pd.DataFrame:
    """Models × columns win rates of a models × (scenario, metric) table. ``lower_is_better`` maps a
    column to True/False (None or absent: not ranked); ``rows`` are the v0.4.0 tie-breaking positions
    (default: the table's row order). Columns with < 2 values or no direction are dropped."""
    rows = np.arange(len(table)) if rows is None else np.asarray(rows, dtype=float)
    out = {}
    for column in table.columns:
        lib = lower_is_better.get(column)
        values = table[column].to_numpy(dtype=float)
        if lib is None or np.isfinite(values).sum() < 2:
            continue
        out[column] = column_win_rates(values, rows, bool(lib), tie_rule)
    return pd.DataFrame(out, index=table.index)


def tie_ranges(table: pd.DataFrame, lower_is_better: dict) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Per column, the lowest and highest win rate that tie-breaking on ``table``'s values allows."""
    low, high = {}, {}
    for column in table.columns:
        lib = lower_is_better.get(column)
        values = table[column].to_numpy(dtype=float)
        if lib is None or np.isfinite(values).sum() < 2:
            continue
        low[column], high[column] = column_tie_ranges(values, bool(lib))
    return pd.DataFrame(low, index=table.index), pd.DataFrame(high, index=table.index)


# ------------------------------------------------------------------------------------------- a group's view

class RankingView:
    """One metric group of a tidy leaderboard as HELM ranks it.

    ``precise`` / ``displayed``: models × (scenario, metric) values used for ranking (the cell means
    recovered as precisely as the table allows, and the values as displayed), NaN where a cell is missing,
    strongly contaminated or hidden by HELM; ``directions``: lower_is_better per column (unranked columns
    removed); ``rows``: the v0.4.0 tie-breaking positions; ``skipped``: counts of cells left out and why."""

    def __init__(self, frame: pd.DataFrame, group: str, scenario_names=None, models=None, *, hide_logprob_issues: bool = True,
                 skip_contaminated: bool = True):
        frame = with_defaults(frame)
        group = group_name(frame, group)  # "accuracy" names the table's "Accuracy"
        part = select(frame, group, scenario_names)
        # every model of the group, also one without a score in the chosen scenarios (it gets no win rate)
        everyone = list(dict.fromkeys(frame.loc[frame["group"] == group, "model"]))
        if models is not None:
            wanted = set(models)
            everyone = [m for m in everyone if m in wanted]
            part = part[part["model"].isin(wanted)]
            if not everyone:
                raise UserError(f"leaderboard: none of the models {sorted(wanted)[:5]} are in group {group!r}")
        part = part.copy()
        hidden = np.array([hide_logprob_issues and helm_rules.is_hidden(m, x) for m, x in zip(part["model"], part["metric"])], dtype=bool)
        # v0.4.0 left strongly contaminated cells out (is_cell_valid); v0.5.0 and later rank them (their summarize.py
        # carries "TODO: need to exclude contaminated numbers"): skip_contaminated=False follows those
        contaminated = part["contaminated"].to_numpy(dtype=bool) & skip_contaminated
        drop = hidden | contaminated
        self.skipped = {"contaminated": int((contaminated & part["value"].notna().to_numpy()).sum()),
                        "hidden": int((hidden & ~contaminated & part["value"].notna().to_numpy()).sum())}
        part.loc[drop, ["value", "precise"]] = np.nan
        order = everyone
        directions = part.drop_duplicates(["scenario", "metric"]).set_index(["scenario", "metric"])["lower_is_better"]
        unranked = [c for c, d in directions.items() if d is None or (isinstance(d, float) and np.isnan(d))]
        self.unranked = unranked
        self.directions = {c: bool(d) for c, d in directions.items() if c not in unranked}
        columns = [c for c in directions.index if c in self.directions]
        if not columns:
            raise UserError(f"leaderboard: group {group!r} has no metric with a direction to rank "
                            f"(unranked: {[f'{s} - {m}' for s, m in unranked]})")

        def pivot(field):
            return part.pivot_table(index="model", columns=["scenario", "metric"], values=field, aggfunc="first",
                                    dropna=False).reindex(index=order, columns=pd.MultiIndex.from_tuples(columns))

        self.group = group
        self.precise, self.displayed = pivot("precise"), pivot("value")
        rows = frame.loc[frame["group"] == group].drop_duplicates("model").set_index("model")["row"]  # this table's order
        self.rows = rows.reindex(order).to_numpy(dtype=float)
        self.scenario_of = np.array([c[0] for c in columns])

    def win_rates(self, tie_rule: str = "v0.4.0") -> pd.DataFrame:
        return win_rate_matrix(self.precise, self.directions, tie_rule, self.rows)

    def tie_ranges(self) -> tuple[pd.Series, pd.Series]:
        low, high = tie_ranges(self.displayed, self.directions)
        return low.mean(axis=1, skipna=True), high.mean(axis=1, skipna=True)

def mean_win_rates(frame: pd.DataFrame, group: str, models=None, *, tie_rule: str = "v0.4.0", scenarios=None,
                   hide_logprob_issues: bool = True) -> pd.Series:
    """HELM's mean win rate of each model in one metric group, recomputed from the per-scenario values with
    HELM v0.4.0's rules (NaN for a model without any ranked value, as HELM shows none)."""
    view = RankingView(frame, group, scenarios, models, hide_logprob_issues=hide_logprob_issues,
                       skip_contaminated=check_tie_rule(tie_rule) == "v0.4.0")
    return view.win_rates(tie_rule).mean(axis=1, skipna=True)


def winrates(frame: pd.DataFrame, group: str = "Accuracy", scenarios=None, tie_rule: str = "v0.4.0", *,
             n_resamples: int = 2000, seed: int = 0, level: float = 0.95, models=None,
             hide_logprob_issues: bool = True) -> pd.DataFrame:
    """Per model: mean win rate, its bootstrap CI over scenarios, the number of scenarios it has a ranked
    value in, and a coverage warning (fewer than half the ranked scenarios of the best-covered model: its win
    rate rests on few comparisons and is not comparable with the others'); sorted best first.

    The CI treats scenarios as the independent units (each scenario's columns together) and the win rates
    as values in [0, 1]: the Korn–Graubard interval (:func:`helmlite.stats.cluster_mean_estimate` with
    ``bounds=(0, 1)``), which covers at win rates of 1.0, where resampling scenarios collapses (coverage
    0.906 for text-davinci-002, 11 of whose 16 scenario win rates are 1.0); the column win rates themselves
    are fixed: they compare models within a column)."""
    view = RankingView(frame, group, scenarios, models, hide_logprob_issues=hide_logprob_issues,
                       skip_contaminated=check_tie_rule(tie_rule) == "v0.4.0")
    matrix = view.win_rates(tie_rule)
    values = matrix.to_numpy()
    clusters = np.array([c[0] for c in matrix.columns], dtype=object)
    covered = np.array([len(set(clusters[np.isfinite(v)])) for v in values])
    best = int(covered.max()) if len(covered) else 0
    rows = []
    for model, v, n in zip(matrix.index, values, covered):
        has = np.isfinite(v)
        if not has.any():
            rows.append({"model": model, "mean_win_rate": np.nan, "ci_low": np.nan, "ci_high": np.nan, "scenarios": 0,
                         "coverage_warning": "no ranked score in this group"})
            continue
        est = stats.interval_for(v[has], clusters=clusters[has], bounds=(0.0, 1.0), level=level,
                                 n_resamples=n_resamples, seed=rng(seed, "winrates-ci", group, tie_rule, model))
        warning = f"only {n} of the {best} scenarios of the best-covered model" if n < MIN_COVERAGE * best else ""
        rows.append({"model": model, "mean_win_rate": est.estimate, "ci_low": est.ci_low, "ci_high": est.ci_high,
                     "scenarios": int(n), "coverage_warning": warning})
    out = pd.DataFrame(rows)
    return out.sort_values("mean_win_rate", ascending=False, kind="stable", na_position="last").reset_index(drop=True)


def winrates_table(table_path: str | os.PathLike, group: str = "Accuracy", scenarios=None, tie_rule: str = "v0.4.0", *,
                   n_resamples: int = 2000, seed: int = 0, level: float = 0.95,
                   columns: dict[str, str] | None = None) -> pd.DataFrame:
    """:func:`winrates` of a leaderboard file in any layout :func:`~.leaderboard.load_leaderboard` reads
    (``columns``: its role → column mapping for a long table). Columns ``model, mean_win_rate, ci_low,
    ci_high, scenarios, coverage_warning``; ``scenarios`` takes the table's own scenario names (a list, or
    one comma-separated string as ``--scenarios a,b`` gives it); ``attrs["columns"]`` the columns read."""
    if isinstance(scenarios, str):
        scenarios = [name.strip() for name in scenarios.split(",") if name.strip()]
    frame = load_leaderboard(table_path, group=group, columns=columns)
    table = winrates(frame, group, scenarios, tie_rule, n_resamples=n_resamples, seed=seed, level=level)
    table.attrs["columns"] = frame.attrs["columns"]
    return table


# ------------------------------------------------------------------------------- resampled models, vectorised

def resampled_mean_win_rates(view: RankingView, index: np.ndarray, columns=None, tie_rule: str = "v0.4.0") -> np.ndarray:
    """Mean win rates (batch, n) when the models are ``index`` (batch, n) — a resample of the view's models,
    repeats allowed (repeated models are told apart by their position for the v0.4.0 tie rule) — over
    ``columns`` (positions in the view; default all)."""
    index = np.asarray(index, dtype=int)
    columns = range(view.precise.shape[1]) if columns is None else columns
    values = view.precise.to_numpy(dtype=float)
    rows = view.rows[index] * (index.shape[-1] + 1) + np.arange(index.shape[-1])
    directions = [view.directions[c] for c in view.precise.columns]
    total = np.zeros(index.shape)
    count = np.zeros(index.shape)
    for c in columns:
        rates = column_win_rates(values[index, c], rows, directions[c], tie_rule)
        total += np.nan_to_num(rates)
        count += np.isfinite(rates)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(count > 0, total / np.maximum(count, 1), np.nan)


def kendall_tau_b(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Kendall's τ-b along the last axis (as ``scipy.stats.kendalltau``), pairs with a NaN left out."""
    x, y = np.broadcast_arrays(np.asarray(x, dtype=float), np.asarray(y, dtype=float))
    ok = np.isfinite(x) & np.isfinite(y)
    pair = ok[..., :, None] & ok[..., None, :]
    with np.errstate(invalid="ignore"):
        sx = np.where(pair, np.sign(x[..., :, None] - x[..., None, :]), 0.0)
        sy = np.where(pair, np.sign(y[..., :, None] - y[..., None, :]), 0.0)
        den = np.sqrt((sx**2).sum(axis=(-1, -2)) * (sy**2).sum(axis=(-1, -2)))
        return np.where(den > 0, (sx * sy).sum(axis=(-1, -2)) / np.where(den > 0, den, 1), np.nan)


def in_chunks(function, index: np.ndarray) -> np.ndarray:
    """``function`` over a (batch, n) array in chunks of rows (bounds the (chunk, n, n) comparisons held)."""
    index = np.atleast_2d(index)
    return np.concatenate([function(index[start:start + _CHUNK]) for start in range(0, len(index), _CHUNK)])
