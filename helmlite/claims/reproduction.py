"""The reproduction-check table every notebook ends with (one format for every analysis), and its one vocabulary.

Columns ``quantity, published, ours, abs_diff, ci_low, ci_high, verdict`` — one row per published
number; ``quantity`` names the figure/table and cell (e.g. ``fig5:RAG~Re-rank``) — and ``note``, which says in words
what the verdict rests on (the tolerance used, how the value prints, why a quantity cannot be compared). The verdict
is one of :data:`VERDICTS`, the same words in every analysis, decided by one rule (:func:`decide`; :func:`published_verdict`
for one value): ``reproduced``, ``consistent``, ``differs`` or ``not comparable``.
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


def decide(reproduced: bool, inside: bool, comparable: bool = True) -> str:
    """The one verdict rule, for a value or a whole group of them: ``not comparable`` when the published quantity cannot
    be recomputed, else ``reproduced`` when ours matches within the stated tolerance, else ``consistent`` when the
    published value lies inside our interval or range (for a group: every one), else ``differs``."""
    if not comparable:
        return "not comparable"
    if reproduced:
        return "reproduced"
    return "consistent" if inside else "differs"


def published_verdict(ours: float, published: float, tolerance: float, ci_low: float = math.nan, ci_high: float = math.nan) -> str:
    """:func:`decide` for one value: reproduced when |ours − published| ≤ ``tolerance``, consistent when the
    published value lies in [``ci_low``, ``ci_high``]; ``not comparable`` when either value is missing (NaN)."""
    comparable = not (math.isnan(ours) or math.isnan(published))
    return decide(comparable and abs(ours - published) <= tolerance + 1e-12,
                  comparable and ci_low <= published <= ci_high, comparable)


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
