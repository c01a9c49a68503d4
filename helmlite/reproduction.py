"""The reproduction-check table every notebook ends with (format fixed by DESIGN.md).

Columns ``quantity, published, ours, abs_diff, ci_low, ci_high, verdict`` — one row per published
number; ``quantity`` names the figure/table and cell (e.g. ``fig5:RAG~Re-rank``).
"""
from __future__ import annotations

import math

import pandas as pd

COLUMNS = ["quantity", "published", "ours", "abs_diff", "ci_low", "ci_high", "verdict"]


def row(quantity: str, published: float, ours: float, verdict: str, ci_low: float = math.nan,
        ci_high: float = math.nan) -> dict:
    """One reproduction-check row; ``abs_diff`` is derived."""
    return {"quantity": quantity, "published": published, "ours": ours, "abs_diff": abs(ours - published),
            "ci_low": ci_low, "ci_high": ci_high, "verdict": verdict}


def table(rows: list[dict]) -> pd.DataFrame:
    """The rows as a frame with the fixed column order."""
    return pd.DataFrame(rows, columns=COLUMNS)
