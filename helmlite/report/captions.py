"""The sentence a figure's caption ends with: how many units each point rests on and which 95% interval its bars are
(issue #64: every caption says what is shown, its n and what the interval is), read from the table the figure draws —
its ``n`` column and the interval (or test) column :mod:`helmlite.stats` fills — so a caption cannot name another
method than the one that ran."""
from __future__ import annotations

import pandas as pd

#: The interval names :mod:`helmlite.stats` writes (the part before any ":" or " (" remark), in words.
INTERVAL_WORDS = {
    "clopper-pearson": "Clopper–Pearson exact",
    "wilson": "Wilson score",
    "newcombe-score/mcnemar-exact": "Newcombe's paired score interval (exact McNemar test)",
    "percentile": "percentile bootstrap",
    "bca": "BCa bootstrap",
    "expanded": "expanded-percentile bootstrap",
    "cluster-percentile": "cluster bootstrap (percentile)",
    "cluster-expanded-percentile": "cluster bootstrap (expanded percentile)",
    "korn-graubard": "Korn–Graubard (clusters as the units)",
    "anova-mls": "modified large-sample interval of the variance component",
}


def interval_words(method: str) -> str | None:
    """``method`` in words ("clopper-pearson" → "Clopper–Pearson exact"); None for a row without an interval (its
    column then says why: "inconclusive: fewer than 10 contexts (no interval)")."""
    text = str(method)
    key = text.split(":")[0].split(" (")[0].strip()
    if key.startswith("inconclusive") or key in ("none", "nan", "") or "no finite bound" in text or "no interval" in text:
        return None
    return INTERVAL_WORDS.get(key, key)


def _range(values: pd.Series) -> str:
    low, high = int(values.min()), int(values.max())
    return f"{low:,}" if low == high else f"{low:,}–{high:,}"


def sample_detail(frame: pd.DataFrame, unit: str = "items", per: str = "point", *, n: str = "n",
                  interval: str | None = "interval", method: str | None = None) -> str:
    """"n = 4 items per point; 95% intervals: Clopper–Pearson exact." from ``frame``'s ``n`` and ``interval`` columns
    (a range when the points differ: "n = 3–6"); "" for an empty frame. Points without an interval are counted.
    ``method`` names the interval of a table that has no interval column (what its function's docstring says);
    ``interval=None``: the points carry no interval, and the sentence names none."""
    if frame is None or frame.empty or n not in frame:
        return ""
    text = f"n = {_range(frame[n].dropna())} {unit} per {per}"
    if method is not None:
        text += f"; 95% intervals: {method}"
    elif interval is not None and interval in frame:
        named = frame[interval].map(interval_words)
        methods = list(dict.fromkeys(named.dropna()))
        if methods:
            text += f"; 95% intervals: {', '.join(methods)}"
        if named.isna().any():
            text += f"; {int(named.isna().sum())} of {len(frame)} without an interval (the CSV says why)"
    return text + "."
