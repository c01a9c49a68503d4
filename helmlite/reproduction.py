"""The reproduction-check table every notebook ends with (one format for every analysis), and its one vocabulary.

Columns ``quantity, published, ours, abs_diff, ci_low, ci_high, verdict`` — one row per published
number; ``quantity`` names the figure/table and cell (e.g. ``fig5:RAG~Re-rank``) — and ``note``, which says in words
what the verdict rests on (the tolerance used, how the value prints, why a quantity cannot be compared). The verdict
is one of :data:`VERDICTS`, the same words in every analysis; :func:`verdict` gives ``reproduced``, ``consistent``,
``differs`` or, when a value is missing, ``not comparable``.
"""
from __future__ import annotations

import math

import pandas as pd

COLUMNS = ["quantity", "published", "ours", "abs_diff", "ci_low", "ci_high", "verdict", "note"]

#: Every word a reproduction check may write, and what it means.
VERDICTS = {
    "reproduced": "ours equals the published value within the stated tolerance (the note names it)",
    "consistent": "outside the tolerance, but the published value lies inside our interval or range",
    "differs": "neither: ours and the published value disagree",
    "by construction": "a simulated input was fitted to the published value, so agreeing is no evidence",
    "not comparable": "the published quantity cannot be recomputed here (the note says why)",
    "read check": "a cited constant read back from the data mirror, not a reproduction",
}


def verdict(ours: float, published: float, tolerance: float, ci_low: float = math.nan, ci_high: float = math.nan) -> str:
    """``reproduced`` when |ours − published| ≤ ``tolerance``, else ``consistent`` when the published value lies in
    [``ci_low``, ``ci_high``], else ``differs``; ``not comparable`` when either value is missing (NaN)."""
    if math.isnan(ours) or math.isnan(published):
        return "not comparable"
    if abs(ours - published) <= tolerance + 1e-12:
        return "reproduced"
    if ci_low <= published <= ci_high:
        return "consistent"
    return "differs"


def row(quantity: str, published: float, ours: float, verdict: str, ci_low: float = math.nan,
        ci_high: float = math.nan, note: str = "") -> dict:
    """One reproduction-check row; ``abs_diff`` is derived and ``verdict`` must be one of :data:`VERDICTS`."""
    if verdict not in VERDICTS:
        raise ValueError(f"reproduction verdict {verdict!r} is not one of {list(VERDICTS)}")
    return {"quantity": quantity, "published": published, "ours": ours, "abs_diff": abs(ours - published),
            "ci_low": ci_low, "ci_high": ci_high, "verdict": verdict, "note": note}


def table(rows: list[dict]) -> pd.DataFrame:
    """The rows as a frame with the fixed column order."""
    return pd.DataFrame(rows, columns=COLUMNS)
