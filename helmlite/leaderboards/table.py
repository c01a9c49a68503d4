"""A leaderboard in long form — one row per (model, group, scenario, metric) with its value and direction — and what is
asked of it: its groups and their scenarios, one group's main columns, and how many of them each model covers."""
from __future__ import annotations

import pandas as pd

from ..errors import UserError
from .helm_rules import AGGREGATE

COLUMNS = ["model", "group", "scenario", "metric", "value", "lower_is_better"]


EXTRA = ["precise", "contaminated", "row"]


DEFAULT_GROUP = "Accuracy"


MIN_COVERAGE = 0.5  # a model with fewer than half the scenarios of the best-covered model gets a warning


def with_defaults(frame: pd.DataFrame) -> pd.DataFrame:
    """A tidy frame with the optional columns filled in (hand-built frames may carry only :data:`COLUMNS`)."""
    missing = [c for c in COLUMNS if c not in frame.columns]
    if missing:
        raise UserError(f"leaderboard frame: missing column(s) {missing}; expected {COLUMNS} (+ optional {EXTRA})")
    frame = frame.copy()
    if "precise" not in frame:
        frame["precise"] = frame["value"]
    frame["precise"] = frame["precise"].fillna(frame["value"])
    if "contaminated" not in frame:
        frame["contaminated"] = False
    frame["contaminated"] = frame["contaminated"].fillna(False).astype(bool)
    if "row" not in frame:
        frame["row"] = frame["model"].map({m: k for k, m in enumerate(dict.fromkeys(frame["model"]))})
    return frame


def groups(frame: pd.DataFrame) -> list[str]:
    return list(dict.fromkeys(frame["group"]))


def scenarios(frame: pd.DataFrame, group: str) -> list[str]:
    """The group's scenarios (the table's own names), in table order."""
    part = frame[(frame["group"] == group) & (frame["scenario"] != AGGREGATE)]
    return list(dict.fromkeys(part["scenario"]))


def group_name(frame: pd.DataFrame, group: str) -> str:
    """The table's own spelling of a metric group named in any case ("accuracy" → "Accuracy"); an unknown name stops
    with a :class:`~helmlite.errors.UserError` listing the groups."""
    spelled = {name.casefold(): name for name in groups(frame)}
    if group.casefold() not in spelled:
        raise UserError(f"leaderboard: no metric group {group!r}; the table has {groups(frame)}")
    return spelled[group.casefold()]


def select(frame: pd.DataFrame, group: str, scenario_names=None) -> pd.DataFrame:
    """The group's per-scenario rows (aggregate column excluded), optionally only some scenarios; an unknown
    group or scenario name stops with a :class:`~helmlite.errors.UserError` listing the names available."""
    group = group_name(frame, group)
    part = frame[(frame["group"] == group) & (frame["scenario"] != AGGREGATE)]
    if scenario_names is not None:
        wanted = list(dict.fromkeys(scenario_names))
        unknown = [s for s in wanted if s not in set(part["scenario"])]
        if unknown:
            raise UserError(f"leaderboard: scenario(s) {unknown} not in group {group!r}; the table has "
                            f"{scenarios(frame, group)}")
        part = part[part["scenario"].isin(wanted)]
    if part["value"].notna().sum() == 0:
        raise UserError(f"leaderboard: group {group!r} has no scores"
                        + (f" in scenarios {list(scenario_names)}" if scenario_names is not None else ""))
    return part


def coverage(frame: pd.DataFrame, group: str, scenario_names=None, *, min_share: float = MIN_COVERAGE) -> pd.DataFrame:
    """Per model: scenarios with at least one score in the group, the best-covered model's count, and a
    ``coverage_warning`` (text, empty when fine) when the model has fewer than ``min_share`` of that many —
    its win rate then rests on a few scenarios and is not comparable with the others'."""
    part = select(frame, group, scenario_names)
    counts = part.dropna(subset=["value"]).groupby("model", sort=False)["scenario"].nunique()
    counts = counts.reindex(list(dict.fromkeys(frame.loc[frame["group"] == group, "model"])), fill_value=0)
    best = int(counts.max())
    warning = [f"only {n} of the {best} scenarios of the best-covered model" if n < min_share * best else ""
               for n in counts]
    return pd.DataFrame({"model": counts.index, "scenarios": counts.to_numpy(), "best_covered": best,
                         "coverage_warning": warning}).reset_index(drop=True)
