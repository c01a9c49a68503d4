"""HELMET's per-dataset statements, checked as the paper states them: on the printed values of Figure 8
(Yen et al. 2025, App. E.1: Spearman ρ of every synthetic and RAG dataset with the downstream categories
over the instruction-tuned models at 128K, two decimals; ``Avg.`` = the row's mean).

The paper makes two statements from these rows. Both are about **printed point values**: the per-model,
per-dataset scores behind Fig. 8 are only in the authors' spreadsheet, so no interval can be computed on
them and these checks carry none — they say whether the statement is true of the printed numbers:

* "no synthetic task averages above 0.8": every synthetic row's ``Avg.`` ≤ 0.8 (:func:`synthetic_average_check`);
* "RAG correlates better with downstream tasks than synthetic tasks", per dataset: each RAG dataset's
  ``Avg.`` against each synthetic dataset's (:func:`rag_vs_synthetic`), counting the pairs where the RAG
  dataset is above, tied (equal as printed) or below.

Rows: the datasets of each kind (HELMET's dataset map: NQ, TriviaQA, HotpotQA, PopQA are RAG; NIAH, the
RULER tasks, CWE, FWE, VT and JSON KV are synthetic) and, apart from them, the category rows the figure also
prints (``RULER``: the mean of the 13 RULER tasks; ``Recall``; ``RAG``), which are averages of datasets and
are not compared as datasets.
"""
from __future__ import annotations

import os

import pandas as pd

from ..._jsonl import DataFormatError

FIG8 = "helmet/paper_figures/helmet_fig8_synthetic_rag_vs_downstream_spearman.csv"
RAG_DATASETS = ("NQ", "TriviaQA", "HotpotQA", "PopQA")
AGGREGATE_ROWS = {"RULER": "synthetic", "Recall": "synthetic", "RAG": "RAG"}


def load_fig8(path: str | os.PathLike) -> pd.DataFrame:
    """Fig. 8 in long form (row, col, spearman_rho) → rows × columns, with ``kind`` (synthetic / RAG) and
    ``aggregate`` (a category row, not a dataset)."""
    long = pd.read_csv(path)
    missing = {"row", "col", "spearman_rho"} - set(long.columns)
    if missing:
        raise DataFormatError(f"{path}: missing column(s) {sorted(missing)}; expected row, col, spearman_rho")
    wide = long.pivot(index="row", columns="col", values="spearman_rho")
    if "Avg." not in wide.columns:
        raise DataFormatError(f"{path}: no 'Avg.' column (the row means Fig. 8 prints)")
    wide = wide.reindex(list(dict.fromkeys(long["row"])))
    wide["kind"] = ["RAG" if r in RAG_DATASETS else AGGREGATE_ROWS.get(r, "synthetic") for r in wide.index]
    wide["aggregate"] = wide.index.isin(list(AGGREGATE_ROWS))
    return wide


def synthetic_average_check(fig8: pd.DataFrame, limit: float = 0.8) -> pd.DataFrame:
    """Every synthetic row (datasets and category rows) with its printed ``Avg.`` and whether it is at most
    ``limit`` — the statement "no synthetic task averages above 0.8" on the figure that states it."""
    rows = fig8[fig8["kind"] == "synthetic"]
    return pd.DataFrame({"row": rows.index, "aggregate": rows["aggregate"].to_numpy(), "average": rows["Avg."].to_numpy(),
                         "limit": limit, "at_most_limit": (rows["Avg."] <= limit).to_numpy()})


def rag_vs_synthetic(fig8: pd.DataFrame, column: str = "Avg.") -> pd.DataFrame:
    """Per RAG dataset: its printed ρ in ``column`` and how many synthetic datasets it is above, tied with
    and below, naming those it is not above — the per-dataset statement "RAG beats synthetic"."""
    datasets = fig8[~fig8["aggregate"]]
    synthetic = datasets[datasets["kind"] == "synthetic"][column]
    rows = []
    for name, value in datasets[datasets["kind"] == "RAG"][column].items():
        not_above = synthetic[synthetic >= value]
        rows.append({"rag_dataset": name, "column": column, "rho": value, "synthetic_datasets": len(synthetic),
                     "above": int((synthetic < value).sum()), "tied": int((synthetic == value).sum()),
                     "below": int((synthetic > value).sum()),
                     "not_above": ", ".join(f"{k} ({v:.2f})" for k, v in not_above.sort_values(ascending=False).items())})
    return pd.DataFrame(rows)


def statements(fig8: pd.DataFrame, limit: float = 0.8) -> pd.DataFrame:
    """``tables/helmet_fig8_statements.csv``: the two statements, what was compared and whether each is
    true of the printed values (no interval: see the module docstring)."""
    averages = synthetic_average_check(fig8, limit)
    above = averages[~averages["at_most_limit"]]
    pairs = rag_vs_synthetic(fig8)
    total = int(pairs["synthetic_datasets"].sum())
    wins = int(pairs["above"].sum())
    top = averages.loc[averages["average"].idxmax()]
    return pd.DataFrame([
        {"statement": f"No synthetic task averages above {limit} (§3 on Fig. 3; checked on every synthetic row of Fig. 8)",
         "compared": f"{len(averages)} synthetic rows' Avg. (datasets and the RULER/Recall category rows)",
         "true_of_printed_values": above.empty,
         "detail": (f"largest: {top['row']} {top['average']:.2f}" if above.empty else
                    "above: " + ", ".join(f"{r.row} {r.average:.2f}" for r in above.itertuples()))},
        {"statement": "RAG datasets correlate with the downstream categories better than synthetic datasets "
                      "(App. E.1, Fig. 8, per dataset)",
         "compared": f"{len(pairs)} RAG × {pairs['synthetic_datasets'].iloc[0]} synthetic datasets' Avg. ({total} pairs)",
         "true_of_printed_values": wins == total,
         "detail": f"RAG above in {wins} of {total} pairs, tied in {int(pairs['tied'].sum())}, below in "
                   f"{int(pairs['below'].sum())}; " + "; ".join(f"{r.rag_dataset} not above {r.not_above}"
                                                            for r in pairs.itertuples() if r.not_above)},
    ])


#: The columns of the statements table and of the per-RAG-dataset table (what :func:`checked` returns empty).
STATEMENT_COLUMNS = ["statement", "compared", "true_of_printed_values", "detail"]
PAIR_COLUMNS = ["rag_dataset", "column", "rho", "synthetic_datasets", "above", "tied", "below", "not_above"]


def checked(path: str | os.PathLike | None) -> tuple[pd.DataFrame | None, pd.DataFrame, pd.DataFrame]:
    """Fig. 8 read from ``path`` (mirror-only: None when absent) with its two tables — :func:`statements` and
    :func:`rag_vs_synthetic` —, or (None, and both tables empty with their columns) when the file is absent."""
    if path is None:
        return None, pd.DataFrame(columns=STATEMENT_COLUMNS), pd.DataFrame(columns=PAIR_COLUMNS)
    fig8 = load_fig8(path)
    return fig8, statements(fig8), rag_vs_synthetic(fig8)
