"""Which column of a leaderboard file plays which role (model, scenario, metric, score, …): the synonyms recognised,
case-insensitively, and the roles a user names with ``--columns ROLE=COLUMN,…`` (:func:`parse_columns`)."""
from __future__ import annotations

from pathlib import Path

import pandas as pd

from ..errors import did_you_mean
from ..errors import DataError

_MODEL_NAMES = ("model", "model/adapter", "model_name", "model_id")


_ALIASES = {
    "model": _MODEL_NAMES,
    "scenario": ("scenario", "benchmark", "benchmark_id", "benchmark_name", "task", "dataset", "scenario_name"),
    "metric": ("metric", "metric_name", "measure"),
    "score": ("score", "value", "result", "mean", "score_pct", "score (%)", "score_percent", "percent"),
    "lower_is_better": ("lower_is_better", "lower_better", "is_lower_better", "lower is better"),
    "group": ("group", "tab", "metric_group"),
    "description": ("stats_description", "description"),
    "contaminated": ("contaminated", "contamination", "contamination_level"),
}


class LeaderboardFormatError(DataError):
    """A leaderboard file whose layout or values are not a table this module reads; the message names the
    file, the columns found and the columns expected."""


#: The roles ``--columns`` can name (a long table's columns): the four required, then the optional ones.
COLUMN_ROLES = ("model", "scenario", "metric", "score", "lower_is_better", "group", "description", "contaminated")


def _find(columns, role: str) -> str | None:
    """The column playing ``role``: one of its synonyms (case-insensitive), and for ``lower_is_better`` any
    name ending in it (``metric_lower_is_better``)."""
    lowered = {str(c).strip().lower(): c for c in columns}
    found = next((lowered[a] for a in _ALIASES[role] if a in lowered), None)
    if found is None and role == "lower_is_better":
        found = next((c for name, c in lowered.items() if name.endswith("lower_is_better")), None)
    return found


def parse_columns(text: str | None) -> dict[str, str]:
    """``model=COL,scenario=COL,metric=COL,score=COL[,lower_is_better=COL,...]`` → {role: column}."""
    if not text:
        return {}
    out = {}
    for part in text.split(","):
        role, sep, column = part.partition("=")
        role = role.strip()
        if not sep or not column.strip():
            raise LeaderboardFormatError(f"--columns: expected ROLE=COLUMN pairs separated by commas, got {part!r}")
        if role not in COLUMN_ROLES:
            raise LeaderboardFormatError(f"--columns: unknown role {role!r}; the roles are {', '.join(COLUMN_ROLES)}."
                                         f"{did_you_mean(role, COLUMN_ROLES)}")
        out[role] = column.strip()
    return out


def _columns(raw: pd.DataFrame, path: Path, given: dict[str, str]) -> dict[str, str | None]:
    """Each role's column: the one ``given`` names (which must exist), else the synonym found."""
    missing = [column for column in given.values() if column not in raw.columns]
    if missing:
        raise LeaderboardFormatError(f"{path}: --columns names {missing}, which the table lacks; its columns are "
                                     f"{list(map(str, raw.columns))}")
    return {role: given.get(role) or _find(raw.columns, role) for role in _ALIASES}


def _expected() -> str:
    return ("HELM JSON tables (.json: list of {title, header, rows}); a wide CSV (a 'Model' column and '<scenario> - "
            "<metric>' columns); or a long CSV with columns model, scenario, metric, score (+ optional lower_is_better, "
            "group, stats_description)")
