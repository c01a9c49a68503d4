"""The reproduction of HELMET's correlation figures: which model the paper left out (fitted), every recomputed cell beside
the published one with the gap and how it prints at the paper's two decimals, and the reproduction table."""
from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal

import numpy as np
import pandas as pd

from ...claims.reproduction import published_verdict, row, table
from .correlations import spearman_matrix


def max_abs_difference(ours: pd.DataFrame, published: pd.DataFrame) -> float:
    """Largest |ours − published| over the published cells."""
    return float((ours.loc[published.index, published.columns] - published).abs().to_numpy().max())


def exclusion_candidates(table: pd.DataFrame, published: pd.DataFrame) -> pd.DataFrame:
    """For each model, the Fig. 5 reproduction without it: max and mean |Δ| to the paper (sorted)."""
    rows = []
    for model in table.index:
        ours = spearman_matrix(table.drop(index=model), published.index)
        delta = (ours - published).abs().to_numpy()[np.triu_indices(len(published), 1)]
        rows.append({"excluded": model, "max_abs_diff": delta.max(), "mean_abs_diff": delta.mean()})
    return pd.DataFrame(rows).sort_values(["max_abs_diff", "mean_abs_diff", "excluded"], ignore_index=True)


def with_published(intervals: pd.DataFrame, published: pd.DataFrame, figure: str) -> pd.DataFrame:
    """Intervals (row, col, rho, CI) joined with the paper's cell values, for one figure."""
    out = intervals.rename(columns={"rho": "ours"})
    out.insert(0, "figure", figure)
    out.insert(3, "published", [published.loc[r, c] for r, c in zip(out["row"], out["col"])])
    return out


def printed(value: float, decimals: int = 2) -> str:
    """A value as the paper prints it: two decimals, half up (``0.775`` → ``"0.78"``)."""
    if not np.isfinite(value):
        return "NaN"
    return str(Decimal(repr(float(value))).quantize(Decimal(1).scaleb(-decimals), rounding=ROUND_HALF_UP))


def _printing(ours: float, published: float) -> str:
    """A cell's note: whether it prints as the paper prints it (two decimals)."""
    shown = printed(ours)
    return f"prints {shown} as the paper" if shown == printed(published) else f"prints {shown} where the paper prints {printed(published)}"


def printed_cells(correlations: pd.DataFrame) -> pd.DataFrame:
    """The recomputed cells rounded as the paper prints them (two decimals) beside the paper's; ``same``
    says whether the printed values agree."""
    out = correlations[["figure", "row", "col", "published", "ours"]].copy()
    out["ours_printed"] = [printed(v) for v in out["ours"]]
    out["published_printed"] = [printed(v) for v in out["published"]]
    out["same"] = out["ours_printed"] == out["published_printed"]
    return out


def reproduction_table(correlations: pd.DataFrame, fig3_published: pd.DataFrame, tolerance: float = 0.01) -> pd.DataFrame:
    """``tables/helmet_reproduction.csv``: one row per published Fig. 5 / Fig. 3 cell (``fig5:<row>~<col>``), its
    verdict from :func:`helmlite.claims.reproduction.published_verdict` (``tolerance``, then the cell's interval); the note also says
    whether the cell prints as the paper prints it."""
    rows = [row(f"{r.figure}:{r.row}~{r.col}", r.published, r.ours, published_verdict(r.ours, r.published, tolerance, r.ci_low, r.ci_high),
                r.ci_low, r.ci_high, note=f"tolerance {tolerance}; {_printing(r.ours, r.published)}")
            for r in correlations.itertuples()]
    done = set(zip(correlations.loc[correlations["figure"] == "fig3", "row"], correlations.loc[correlations["figure"] == "fig3", "col"]))
    for r in fig3_published.index:
        for c in fig3_published.columns:
            if (r, c) not in done:
                rows.append(row(f"fig3:{r}~{c}", fig3_published.loc[r, c], np.nan, "not comparable",
                                note="not reproducible offline: per-dataset results are only in the authors' spreadsheet"))
    return table(rows)


def fitted_exclusion(candidates: pd.DataFrame) -> tuple[str, pd.DataFrame, float]:
    """The fitted rule for the model the paper left out of Fig. 5 (it does not name it): the model whose exclusion
    brings the recomputed figure closest to the paper (smallest max |Δ|, :func:`exclusion_candidates`); the models
    tied at that distance (within 1e-12) are returned too, and the first of them in the table's order is dropped.
    Returns (excluded model, the tied rows, the smallest max |Δ|)."""
    best = candidates["max_abs_diff"].min()
    tied = candidates[candidates["max_abs_diff"] <= best + 1e-12]
    return tied["excluded"].iloc[0], tied, best
