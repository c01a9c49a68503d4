"""Any leaderboard table → one tidy frame: HELM's JSON tables, wide CSV exports and long-format tables.

Result columns (:data:`COLUMNS` + :data:`EXTRA`): ``model, group, scenario, metric, value, lower_is_better,
precise, contaminated, row``. One row per model × group × scenario × metric; ``scenario == "(aggregate)"``
with ``metric == "Mean win rate"`` holds a published win rate when the table has one.

Layouts (chosen from the file, never guessed silently; anything else stops with
:class:`LeaderboardFormatError` naming the columns found and the columns expected):

* **HELM JSON** (``.json``): HELM's ``groups/<group>.json``, e.g. v0.4.0's ``core_scenarios.json`` — a
  list of ``Table`` objects (``presentation/table.py``): ``title`` (the metric group), ``header`` cells
  (``value``, ``lower_is_better``, ``metadata: {run_group, metric, perturbation}``), ``rows`` of cells
  (``value``, ``description``, ``contamination_level``). A single table object is accepted too.
  Values are HELM's unrounded cell means; hidden cells have no ``value``.
* **Wide CSV**: a model column (``Model``, ``Model/adapter`` or ``model``) and one column per scenario
  metric named as HELM's headers name them, ``"<scenario> - <metric>"`` (optionally ``Mean win rate``).
  One table is one metric group (``group`` argument, default ``"Accuracy"``).
* **Long CSV/TSV**: one row per model × scenario × metric with columns (case-insensitive, aliases in
  brackets) ``model``, ``scenario`` [benchmark, task, dataset], ``metric`` [metric_name], a score column
  ``score`` [value, result, mean; ``score_pct`` / ``percent`` / a name with ``%`` = percent], and
  optionally ``lower_is_better``, ``group`` [tab, metric_group], ``stats_description`` [description],
  ``contaminated``. The mirror's flattening of HELM v0.4.0 is such a table.

Normalisation:

* **Directions** come from HELM's schema where it defines the metric (:mod:`.helm_rules`; Coverage,
  Density, Compression and the general-information counts get none and are never ranked), else from the
  table's ``lower_is_better``; a metric with neither stops with an error.
* **Percent or fraction** (CSV layouts; HELM's JSON holds HELM's own fractions) is decided per column
  (group × scenario × metric): a value written with ``%``,
  or a score column named as percent, is divided by 100; otherwise a column of a metric that HELM's schema
  defines as a fraction (EM, F1, ECE, toxic fraction, …), or of a metric the schema does not know, whose
  values lie in [0, 100] with some above 1 is read as percent and divided by 100. Metrics on other scales
  (seconds, token counts, Likert ratings, QAFactEval, BERTScore, density) are left as they are. The columns
  rescaled are listed in ``frame.attrs["percent_columns"]``. A percent column whose values are all ≤ 1
  cannot be told from fractions and is kept; win rates are unaffected either way (they use ranks only).
* **precise**: HELM's cell text ``"min=…, mean=…, max=…, sum=S (n)"`` (``stats_description``) gives the
  cell mean as ``S / n`` with 1/n of the display rounding (the value itself is rounded to 3 decimals);
  used when it agrees with the value within that rounding, else the value.
* **contaminated**: strongly contaminated cells — ``contamination_level == "strong"`` (JSON), the ``☠``
  mark in the cell text, a true ``contaminated`` column, or HELM's ``contamination.yaml`` points.
* **row**: each model's position for tie-breaking under HELM v0.4.0's rule: the table's row order for
  HELM JSON; for other layouts an approximation of HELM's order (rows sorted by model name
  ``creator/model``): creator organisation first (:data:`.helm_rules.CREATORS`; models HELM Classic did
  not list come first, as HELM placed models missing from its schema), then the table's order.
"""
from __future__ import annotations

import json
import os
import re
from pathlib import Path

import numpy as np
import pandas as pd

from . import helm_rules
from .columns import LeaderboardFormatError, _columns, _expected
from .helm_rules import AGGREGATE, WIN_RATE
from .table import COLUMNS, DEFAULT_GROUP, EXTRA

_SUM = re.compile(r"sum=(-?\d+(?:\.\d+)?(?:e[-+]?\d+)?)\s*\((\d+)\)")


# ----------------------------------------------------------------------------------------------------------- parse

def _truthy(value) -> bool | None:
    """true/false/1/0/yes/no (and contamination levels: strong → True, weak → False); blank → None."""
    if value is None or (isinstance(value, float) and np.isnan(value)):
        return None
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    text = str(value).strip().lower()
    if text in ("", "none", "nan", "null"):
        return None
    if text in ("true", "1", "1.0", "yes", "y", "t", "strong"):
        return True
    if text in ("false", "0", "0.0", "no", "n", "f", "weak", "medium"):
        return False
    raise ValueError(text)


def _precise(value: float, description) -> float:
    if not isinstance(description, str) or not np.isfinite(value):
        return value
    found = _SUM.search(description)
    if not found or int(found.group(2)) == 0:
        return value
    mean = float(found.group(1)) / int(found.group(2))
    return mean if abs(mean - value) <= 0.0005 + 1e-9 else value


def _from_json(path: Path) -> pd.DataFrame:
    try:
        tables = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as error:
        raise LeaderboardFormatError(f"{path}: not valid JSON ({error.msg}, line {error.lineno}); expected {_expected()}") from None
    if isinstance(tables, dict):
        tables = [tables]
    if not isinstance(tables, list) or not tables:
        raise LeaderboardFormatError(f"{path}: expected a list of HELM tables ({{title, header, rows}})")
    records = []
    for t, table in enumerate(tables):
        if not isinstance(table, dict) or not {"title", "header", "rows"} <= set(table):
            found = sorted(table) if isinstance(table, dict) else type(table).__name__
            raise LeaderboardFormatError(f"{path}, table {t}: found {found}; expected keys 'title', 'header', 'rows'")
        title, header, rows = table["title"], table["header"], table["rows"]
        for cell_index, cell in enumerate(header[1:], start=1):
            name = str(cell.get("value", ""))
            meta = cell.get("metadata") or {}
            if name == WIN_RATE or (name.startswith("Mean ") and not meta.get("run_group")):
                scenario, metric = AGGREGATE, name  # the table's own aggregate ("Mean win rate", "Mean score")
            else:
                scenario = meta.get("run_group") or (name.split(" - ", 1)[0] if " - " in name else title)
                metric = meta.get("metric") or (name.split(" - ", 1)[1] if " - " in name else name)
                if meta.get("perturbation") and not metric.endswith(f"({meta['perturbation']})"):
                    metric = f"{metric} ({meta['perturbation']})"
            for row_index, row in enumerate(rows):
                if len(row) != len(header):
                    raise LeaderboardFormatError(f"{path}, table {title!r}, row {row_index}: {len(row)} cells for "
                                                 f"{len(header)} header cells")
                value = row[cell_index].get("value")
                description = row[cell_index].get("description")
                level = row[cell_index].get("contamination_level")
                records.append({"model": str(row[0].get("value")), "group": title, "scenario": scenario, "metric": metric,
                                "value": float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else np.nan,
                                "lower_is_better": cell.get("lower_is_better"), "description": description,
                                "contaminated": level == "strong" or None, "row": row_index})
    frame = pd.DataFrame(records)
    frame["precise"] = frame["value"]  # HELM's JSON holds the unrounded means
    return frame


#: What a number cut mid-way can leave as a file's last field: nothing, "-", "0.", "1.5e", "1.5e-".
_CUT_NUMBER = re.compile(r"|-|-?\d+\.|-?\d+(\.\d+)?[eE][+-]?")


def _read_csv(path: Path) -> pd.DataFrame:
    """The table as text cells; a row with fewer or more fields than the header (e.g. a file cut mid-row,
    which pandas would silently pad with empty cells) is refused with its line number, and so is a last
    row without a line ending whose last field looks like a number cut short (:data:`_CUT_NUMBER`; a file
    that merely lacks its final newline, as HELMET's CSVs do, is read)."""
    import csv

    sep = "\t" if path.suffix in (".tsv", ".tab") else ","
    try:
        with path.open(newline="", encoding="utf-8") as handle:
            rows = list(csv.reader(handle, delimiter=sep))
        frame = pd.read_csv(path, sep=sep, dtype=str, keep_default_na=False)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError, csv.Error) as error:
        raise LeaderboardFormatError(f"{path}: not a readable CSV table ({error}); expected {_expected()}") from None
    width = len(rows[0]) if rows else 0
    with path.open("rb") as handle:
        handle.seek(max(0, path.stat().st_size - 1))
        ends_with_newline = handle.read(1) in (b"\n", b"\r", b"")
    last = rows[-1] if len(rows) > 1 else None
    if last and not ends_with_newline and _CUT_NUMBER.fullmatch(last[-1].strip()):
        raise LeaderboardFormatError(f"{path}: line {len(rows)} ends in {last[-1]!r} without a line ending — the file "
                                     f"looks cut short inside its last row; expected complete rows of {_expected()}")
    for number, row in enumerate(rows[1:], start=2):
        if row and len(row) != width:
            cut = " — the file looks cut short" if number == len(rows) else ""
            raise LeaderboardFormatError(f"{path}: line {number} has {len(row)} fields, the header {width}{cut}; "
                                         f"expected complete rows of {_expected()}")
    return frame


def _numbers(column: pd.Series, where: str) -> tuple[pd.Series, pd.Series]:
    """Numeric values of a text column and which were written with '%'; empty/'-'/'nan' cells are missing."""
    text = column.astype(str).str.strip()
    percent = text.str.endswith("%")
    cleaned = text.str.rstrip("%").str.strip().replace({"": np.nan, "-": np.nan, "—": np.nan, "nan": np.nan,
                                                          "NaN": np.nan, "None": np.nan, "null": np.nan})
    values = pd.to_numeric(cleaned, errors="coerce").astype(float)  # integer scores (percent) are rescaled later
    bad = cleaned.notna() & values.isna()
    if bad.any():
        example = text[bad].iloc[0]
        raise LeaderboardFormatError(f"{where}: {int(bad.sum())} value(s) are not numbers, e.g. {example!r}")
    return values, percent


def _from_long(raw: pd.DataFrame, path: Path, found: dict, group: str | None) -> pd.DataFrame:
    score_name = found["score"]
    values, percent = _numbers(raw[score_name], f"{path}, column {score_name!r}")
    lowered = str(score_name).lower()
    if "%" in lowered or "pct" in lowered or "percent" in lowered:
        percent[:] = True
    frame = pd.DataFrame({
        "model": raw[found["model"]].astype(str).str.strip(),
        "group": raw[found["group"]].astype(str).str.strip() if found["group"] else (group or DEFAULT_GROUP),
        "scenario": raw[found["scenario"]].astype(str).str.strip(),
        "metric": raw[found["metric"]].astype(str).str.strip(),
        "value": values, "_percent": percent,
        "description": raw[found["description"]] if found["description"] else None,
    })
    for role in ("lower_is_better", "contaminated"):
        if found[role]:
            try:
                frame[role] = [_truthy(v) for v in raw[found[role]]]
            except ValueError as error:
                raise LeaderboardFormatError(f"{path}, column {found[role]!r}: expected true/false, got {error.args[0]!r}") from None
        else:
            frame[role] = None
    frame["precise"] = [_precise(v, d) for v, d in zip(frame["value"], frame["description"])]
    return frame


def _from_wide(raw: pd.DataFrame, path: Path, model_column: str, group: str | None) -> pd.DataFrame:
    records = []
    undirected, text_columns = [], []
    for column in raw.columns:
        if column == model_column:
            continue
        name = str(column).strip()
        try:
            values, percent = _numbers(raw[column], f"{path}, column {name!r}")
        except LeaderboardFormatError:
            text_columns.append(name)
            continue
        if name == WIN_RATE:
            scenario, metric = AGGREGATE, WIN_RATE
        elif " - " in name:
            scenario, metric = (part.strip() for part in name.split(" - ", 1))
        else:
            scenario, metric = name, ""
            undirected.append(name)
            continue
        for model, value, pct in zip(raw[model_column], values, percent):
            records.append({"model": str(model).strip(), "group": group or DEFAULT_GROUP, "scenario": scenario,
                            "metric": metric, "value": value, "_percent": bool(pct), "lower_is_better": None,
                            "contaminated": None, "description": None})
    if undirected:
        raise LeaderboardFormatError(
            f"{path}: wide table columns {undirected} name no metric; expected columns named '<scenario> - <metric>' "
            f"(metric from HELM's schema, e.g. 'MMLU - EM'), or a long table with columns model, scenario, metric, score, "
            f"lower_is_better")
    if not records:
        raise LeaderboardFormatError(f"{path}: found columns {list(map(str, raw.columns))} but no numeric score column "
                                     f"(text columns: {text_columns}); expected {_expected()}")
    frame = pd.DataFrame(records)
    frame["precise"] = frame["value"]
    return frame


# ------------------------------------------------------------------------------------------------------ normalise

def _directions(frame: pd.DataFrame, path, *, none_is_unranked: bool) -> pd.Series:
    """HELM's schema first, then the table's own lower_is_better. In HELM's JSON a header without
    ``lower_is_better`` means "no meaningful order" (not ranked); elsewhere it is a missing direction."""
    out, missing = [], set()
    for metric, given in zip(frame["metric"], frame["lower_is_better"]):
        if metric == WIN_RATE:
            out.append(False)
            continue
        known, direction = helm_rules.metric_direction(metric)
        if known:
            out.append(direction)
        elif given is not None and not (isinstance(given, float) and np.isnan(given)):
            out.append(bool(given))
        else:
            out.append(None)
            if not none_is_unranked:
                missing.add(metric)
    if missing:
        raise LeaderboardFormatError(
            f"{path}: metric(s) {sorted(missing)} are not in HELM's schema and the table gives no lower_is_better for "
            f"them; expected a lower_is_better column (true/false) in a long table")
    return pd.Series(out, index=frame.index, dtype=object)


def _rescale_percent(frame: pd.DataFrame) -> list[str]:
    rescaled = []
    for key, part in frame.groupby(["group", "scenario", "metric"], sort=False):
        values = part["value"].dropna()
        if values.empty:
            continue
        kind = helm_rules.scale_kind(key[2])
        explicit = bool(part["_percent"].any())
        looks = kind != "other" and values.min() >= 0 and 1 < values.max() <= 100
        if explicit or looks:
            frame.loc[part.index, ["value", "precise"]] = part[["value", "precise"]] / 100
            rescaled.append(" / ".join(key))
    return rescaled


def _row_order(frame: pd.DataFrame) -> pd.Series:
    first = {m: k for k, m in enumerate(dict.fromkeys(frame["model"]))}
    order = sorted(first, key=lambda m: (helm_rules.creator(m) or "", first[m]))
    return frame["model"].map({m: k for k, m in enumerate(order)})


def load_leaderboard(path: str | os.PathLike, *, group: str | None = None, columns: dict[str, str] | None = None
                     ) -> pd.DataFrame:
    """Read a leaderboard in any supported layout (see the module docstring) into the tidy frame.

    ``group`` names the metric group of a single-group table (a wide CSV, or a long table without a group
    column); default ``"Accuracy"``. ``columns`` maps roles (:data:`COLUMN_ROLES`) to a long table's column
    names where its names are none of the synonyms; the frame's ``attrs["columns"]`` says which column played
    each role. Raises :class:`LeaderboardFormatError` for an unknown layout, non-numeric scores, a metric
    without a direction or a table without any score."""
    path = Path(path)
    if not path.is_file():
        raise LeaderboardFormatError(f"{path}: file not found; expected {_expected()}")
    is_json = path.suffix.lower() == ".json"
    if is_json:
        frame = _from_json(path)
        frame["_percent"] = False
        used = {}
    else:
        raw = _read_csv(path)
        found = _columns(raw, path, columns or {})
        if found["model"] and found["scenario"] and found["metric"] and found["score"]:
            frame = _from_long(raw, path, found, group)
            used = {role: column for role, column in found.items() if column is not None}
        elif found["model"] and not found["scenario"] and not found["metric"] and len(raw.columns) > 1:
            frame = _from_wide(raw, path, found["model"], group)
            used = {"model": found["model"]}
        else:
            raise LeaderboardFormatError(
                f"{path}: found columns {list(map(str, raw.columns))}; expected {_expected()}, or name them with "
                f"--columns model=COL,scenario=COL,metric=COL,score=COL")
    if frame["value"].notna().sum() == 0:
        raise LeaderboardFormatError(f"{path}: the table has no numeric scores")
    repeated = frame.duplicated(["model", "group", "scenario", "metric"], keep=False)
    if repeated.any():
        first = frame.loc[repeated].iloc[0]
        raise LeaderboardFormatError(
            f"{path}: {int(repeated.sum())} rows repeat a model × group × scenario × metric, e.g. "
            f"({first['model']!r}, {first['group']!r}, {first['scenario']!r}, {first['metric']!r}); expected one row each "
            "(a column such as a subject, split or seed that tells them apart must be averaged first)")
    frame["lower_is_better"] = _directions(frame, path, none_is_unranked=is_json)
    percent_columns = [] if is_json else _rescale_percent(frame)  # HELM's JSON holds fractions as computed
    marked = np.array([isinstance(d, str) and helm_rules.CONTAMINATION_STRONG_SYMBOL in d for d in frame["description"]], dtype=bool)
    flagged = np.array([v is True for v in frame["contaminated"]], dtype=bool)
    listed = np.array([helm_rules.is_strongly_contaminated(m, s) for m, s in zip(frame["model"], frame["scenario"])], dtype=bool)
    frame["contaminated"] = flagged | marked | listed
    if "row" not in frame or frame["row"].isna().any():
        frame["row"] = _row_order(frame)
    frame = frame[COLUMNS + EXTRA].reset_index(drop=True)
    frame.attrs["percent_columns"] = percent_columns
    frame.attrs["source"] = str(path)
    frame.attrs["columns"] = used
    return frame


# -------------------------------------------------------------------------------------------------------- queries
