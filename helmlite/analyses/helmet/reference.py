"""Published Spearman correlations from HELMET (Yen et al., ICLR 2025, arXiv 2410.02694), as cited constants.

These are the numbers notebook 03 checks itself against, transcribed from the paper's heatmaps
(two decimals, as printed). Everything larger (Figs. 6, 8–14) stays mirror-only in the data registry.

* **Figure 3** — Spearman ρ between synthetic tasks (rows) and downstream categories (columns) over
  the instruction-tuned models at 128K; ``Avg.`` is the mean of the row's five correlations.
* **Figure 5** — Spearman ρ between HELMET's seven categories over the same models (symmetric).
"""
from __future__ import annotations

FIG3_COLUMNS = ("ICL", "Cite", "Re-rank", "LongQA", "Summ", "Avg.")
FIG3: dict[str, tuple[float, ...]] = {
    "NIAH": (0.44, 0.71, 0.75, 0.76, 0.72, 0.68),
    "RULER MK": (0.48, 0.73, 0.84, 0.79, 0.87, 0.74),
    "RULER MV": (0.61, 0.71, 0.77, 0.83, 0.79, 0.74),
    "RULER All": (0.51, 0.77, 0.85, 0.79, 0.83, 0.75),
    "Recall": (0.61, 0.74, 0.85, 0.82, 0.85, 0.77),
    "RAG": (0.50, 0.72, 0.85, 0.92, 0.89, 0.78),
}

FIG5_ORDER = ("Recall", "RAG", "Cite", "Re-rank", "LongQA", "Summ", "ICL")
FIG5: dict[tuple[str, str], float] = {
    ("Recall", "RAG"): 0.88, ("Recall", "Cite"): 0.74, ("Recall", "Re-rank"): 0.85, ("Recall", "LongQA"): 0.82,
    ("Recall", "Summ"): 0.85, ("Recall", "ICL"): 0.61,
    ("RAG", "Cite"): 0.72, ("RAG", "Re-rank"): 0.85, ("RAG", "LongQA"): 0.92, ("RAG", "Summ"): 0.89, ("RAG", "ICL"): 0.50,
    ("Cite", "Re-rank"): 0.84, ("Cite", "LongQA"): 0.72, ("Cite", "Summ"): 0.82, ("Cite", "ICL"): 0.34,
    ("Re-rank", "LongQA"): 0.87, ("Re-rank", "Summ"): 0.89, ("Re-rank", "ICL"): 0.36,
    ("LongQA", "Summ"): 0.85, ("LongQA", "ICL"): 0.51,
    ("Summ", "ICL"): 0.38,
}


def fig5_matrix():
    """Figure 5 as a symmetric pandas DataFrame in the paper's order (diagonal 1)."""
    import pandas as pd

    frame = pd.DataFrame(1.0, index=list(FIG5_ORDER), columns=list(FIG5_ORDER))
    for (a, b), rho in FIG5.items():
        frame.loc[a, b] = frame.loc[b, a] = rho
    return frame


def fig3_matrix():
    """Figure 3 as a DataFrame (rows: synthetic tasks; columns: downstream categories and Avg.)."""
    import pandas as pd

    return pd.DataFrame.from_dict(FIG3, orient="index", columns=list(FIG3_COLUMNS))
