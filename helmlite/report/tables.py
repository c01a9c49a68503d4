"""Tables as a report shows them: one call (:func:`show`) every notebook uses, so each printed table reads the same way —
no index column, headers in words, numbers at a fixed precision with no "-0.000", "—" for an empty cell with a
footnote saying why, every row shown (no pandas elision), and a link to the CSV the table comes from. The HTML is
pandas' own :class:`~pandas.io.formats.style.Styler`; this module only chooses its formats."""
from __future__ import annotations

import hashlib
import html
import math
import numbers
import os
from pathlib import Path

import numpy as np
import pandas as pd
from pandas.io.formats.style import Styler

#: The mark of an empty cell (NaN, None): the footnote under the table says why it is empty.
BLANK = "—"

#: Why a cell is empty, when the caller does not say: the value does not exist for that row (a test a scenario has no
#: pairs for, a group a run lacks) — never a failure, which raises before a table is shown.
DEFAULT_BLANK_REASON = "no value for that row (the measure does not apply to it, or its data are absent)"


def cell_text(value, digits: int = 3) -> str:
    """A cell as printed: ``BLANK`` for NaN / None, an integer as is (with thousands separators), a float at ``digits``
    decimals (or in scientific notation below 10^-digits, so a small p-value is not printed as 0), never "-0.000"."""
    if value is None or (isinstance(value, float) and math.isnan(value)) or value is pd.NA or value is pd.NaT:
        return BLANK
    if isinstance(value, (bool, np.bool_)):
        return "yes" if value else "no"
    if isinstance(value, numbers.Integral):
        return f"{int(value):,}"
    if isinstance(value, numbers.Real):
        number = float(value)
        if math.isinf(number):
            return "∞" if number > 0 else "−∞"
        if number != 0 and abs(number) < 0.5 * 10 ** -digits:
            return f"{number:.1e}"
        text = f"{number:,.{digits}f}"
        return text[1:] if text.startswith("-") and float(text[1:].replace(",", "")) == 0 else text
    return str(value)


def readable_header(name) -> str:
    """A column name in words: underscores as spaces (``ci_low`` → "ci low")."""
    return str(name).replace("_", " ")


def header_label(name) -> str:
    """A column's header as a table prints it: :func:`readable_header` with its hyphens non-breaking (U+2011), so a
    header wraps between words, never inside one such as "ECE-10" (the CSV keeps the column's own name)."""
    return readable_header(name).replace("-", "\u2011")


def csv_link(csv: str | os.PathLike, page_dir: str | os.PathLike | None = None) -> str:
    """The href of ``csv`` from the report page: relative to ``page_dir`` (default: the ``reports`` folder beside the
    CSV's folder, where the workflow renders the pages — :func:`helmlite.workflow.output_dirs`)."""
    csv = Path(csv).resolve()
    page_dir = Path(page_dir).resolve() if page_dir is not None else csv.parent.parent / "reports"
    return Path(os.path.relpath(csv, page_dir)).as_posix()


def csv_anchor(csv: str | os.PathLike, page_dir: str | os.PathLike | None = None) -> str:
    """"<a href=…>name.csv</a>": a link from the report page to the CSV."""
    return f'<a href="{html.escape(csv_link(csv, page_dir))}">{html.escape(Path(csv).name)}</a>'


def data_link(csv: str | os.PathLike, page_dir: str | os.PathLike | None = None) -> str:
    """"Data: <a href=…>name.csv</a>", the link a table's footer carries to its CSV."""
    return f"Data: {csv_anchor(csv, page_dir)}"


#: A table with more columns than this prints in a smaller type (site.css), so that it keeps every column on the page.
MANY_COLUMNS = 12
#: A table with more columns than this prints its headers upright (site.css): at about 55 px a column on an A4 page, a
#: header word such as "probability" or "helpfulness" would otherwise widen its column past the page or break inside.
UPRIGHT_HEADER_COLUMNS = 10


def styled(frame: pd.DataFrame, *, digits: int | dict[str, int] = 3, index: bool = False):
    """``frame`` as a pandas Styler with the report's formats (:func:`cell_text` per cell, per-column ``digits`` when a
    dict; columns of words aligned left, numbers right); ``index=True`` shows the index as the first column(s) (a
    pivot's row labels), else it is dropped."""
    table = frame.reset_index() if index else frame.reset_index(drop=True)
    table = table.rename(columns=header_label)
    places = {header_label(c): d for c, d in digits.items()} if isinstance(digits, dict) else {}
    default = 3 if isinstance(digits, dict) else digits
    for column in table.columns:  # a count stored as float (a column with an empty cell) prints as a count
        values = pd.to_numeric(table[column], errors="coerce") if table[column].dtype.kind == "f" else None
        if values is not None and values.notna().any() and (values.dropna() % 1 == 0).all() and column not in places:
            places[column] = 0
    formats = {column: (lambda v, d=places.get(column, default): cell_text(v, d)) for column in table.columns}
    # ids from the table's content, not pandas' random default: the same inputs render the same page
    uuid = hashlib.sha256(table.to_csv().encode()).hexdigest()[:10]
    styler = (Styler(table, uuid=uuid, cell_ids=False).format(formats).hide(axis="index")
              .set_table_styles([rule for k, column in enumerate(table.columns) for rule in _column_rules(k, table[column])]))
    classes = [name for name, limit in (("hl-upright", UPRIGHT_HEADER_COLUMNS), ("hl-many", MANY_COLUMNS))
               if len(table.columns) > limit]
    return styler.set_table_attributes(f'class="{" ".join(classes)}"') if classes else styler


#: A word longer than this (a run id, a quantity key) may break anywhere; shorter words wrap only between them.
LONG_WORD = 16


def _column_rules(k: int, values: pd.Series) -> list[dict]:
    """How column ``k`` lays out: words read left to right and wrap — a run id or a quantity key anywhere, other words
    only between them, so "inconclusive" never splits —, numbers stay right-aligned on one line ("0.006", never
    "0.0 / 06") however narrow the page."""
    if pd.api.types.is_numeric_dtype(values):
        return [{"selector": f"td.col{k}", "props": "white-space: nowrap; overflow-wrap: normal"}]
    longest = max((len(word) for value in values.dropna().astype(str) for word in value.split()), default=0)
    wrap = "anywhere" if longest > LONG_WORD else "normal"
    return [{"selector": f"td.col{k}, th.col_heading.col{k}", "props": "text-align: left"},
            {"selector": f"td.col{k}", "props": f"white-space: normal; overflow-wrap: {wrap}"}]


#: Columns that say, row by row, why a row has no interval or no comparison (helmlite.stats' interval name or the
#: reason it gave none, a curve's missing verdict, a reproduction row's note), in the order a footnote prefers them.
REASON_COLUMNS = ("no_verdict", "interval", "test", "note")

#: Columns whose empty cells that reason explains: an interval's bounds, the values a comparison did not make.
EXPLAINED_BY_REASON = ("ci_low", "ci_high", "ours", "abs_diff", "p_value", "p_adjusted")

#: Why cells of these columns are empty wherever they appear: a power table's (:func:`helmlite.claims.power_table`)
#: and a paired comparison's discordance (:func:`helmlite.stats.paired_difference`).
COLUMN_BLANKS = {"mde": "not computable: the claim has no interval or test to size it from",
                 "n_needed": "not computable for that claim (its evidence in the claims table says why)",
                 "discordance": "not a 0/1 metric: no discordant pairs to count (a paired bootstrap instead)"}


def _reason(column: str, frame: pd.DataFrame, blanks: dict[str, str]) -> str:
    """Why ``column`` has empty cells: the caller's reason; else, for an interval bound or a comparison, the table's
    own column that says why row by row; else :data:`COLUMN_BLANKS`; else :data:`DEFAULT_BLANK_REASON`."""
    if column in blanks:
        return blanks[column]
    reason = next((c for c in REASON_COLUMNS if c in frame.columns), None)
    if reason is not None and str(column).endswith(EXPLAINED_BY_REASON):
        return f"no value in that row; its {readable_header(reason)} column says why"
    return COLUMN_BLANKS.get(column, DEFAULT_BLANK_REASON)


def footnote(frame: pd.DataFrame, blanks: dict[str, str] | None = None) -> str:
    """The "—" footnote: for each column with an empty cell, why it is empty (:func:`_reason`), columns sharing a reason
    named together. Empty when no cell is."""
    reasons: dict[str, list[str]] = {}
    for column in (c for c in frame.columns if frame[c].isna().any()):
        reasons.setdefault(_reason(column, frame, blanks or {}), []).append(readable_header(column))
    if not reasons:
        return ""
    return f"{BLANK} = empty cell — " + "; ".join(f"{html.escape(', '.join(columns))}: {html.escape(reason)}"
                                                  for reason, columns in reasons.items()) + "."


def table_html(frame: pd.DataFrame, *, csv: str | os.PathLike | None = None, digits: int | dict[str, int] = 3,
               index: bool = False, blanks: dict[str, str] | None = None, note: str = "",
               page_dir: str | os.PathLike | None = None) -> str:
    """The table's HTML: the styled table, then a footer line with ``note`` (HTML), the "—" footnote and the CSV link."""
    shown = frame.reset_index() if index else frame
    parts = [note] if note else []
    if (text := footnote(shown, blanks)):
        parts.append(text)
    if csv is not None:
        parts.append(data_link(csv, page_dir))
    footer = f'<p class="hl-table-note">{" · ".join(parts)}</p>' if parts else ""
    return f'<div class="hl-table">{styled(frame, digits=digits, index=index).to_html()}{footer}</div>'


def show(frame: pd.DataFrame | pd.Series, *, csv: str | os.PathLike | None = None, digits: int | dict[str, int] = 3,
         index: bool = False, blanks: dict[str, str] | None = None, note: str = "", max_rows: int | None = None,
         keep: pd.Series | None = None, empty: str = "No rows to show.", page_dir: str | os.PathLike | None = None) -> None:
    """Display ``frame`` in the notebook as a report table (:func:`table_html`). A long table shows its first
    ``max_rows`` rows, or only the rows ``keep`` marks (a reproduction table's rows that did not reproduce), and says
    how many of how many it shows — the CSV (``csv``) holds them all. A table with no row to show is the sentence
    ``empty`` (and the CSV link), never a header alone."""
    from IPython.display import HTML, display

    if isinstance(frame, pd.Series):
        frame = frame.to_frame()
    total = len(frame)
    if keep is not None:
        frame = frame[keep.reindex(frame.index, fill_value=False).astype(bool)]
    if max_rows is not None and len(frame) > max_rows:
        frame = frame.head(max_rows)
    if len(frame) < total:
        shown = f"{len(frame)} of {total} rows shown{' (the rest in the CSV)' if csv is not None else ''}"
        note = f"{note} · {shown}" if note else shown
    if frame.empty:
        parts = [html.escape(empty), note] + ([data_link(csv, page_dir)] if csv is not None else [])
        display(HTML(f'<p class="hl-table-note">{" · ".join(p for p in parts if p)}</p>'))
        return
    display(HTML(table_html(frame, csv=csv, digits=digits, index=index, blanks=blanks, note=note, page_dir=page_dir)))
