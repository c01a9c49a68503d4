"""Notebook 03's claims, stated in the claims schema (:mod:`helmlite.claims`); all paired over models.

* Fig. 3: "no synthetic task averages above 0.8" — only the **synthetic** rows count (NIAH, RULER,
  Recall; RAG is not synthetic), and of those only Recall can be recomputed offline (NIAH/RULER need
  the per-dataset results in the authors' spreadsheet), so the claim is tested on Recall's ``Avg.``
  against 0.8 ("less"), percentile interval and p-value from the same resamples.
* Fig. 3: "RAG predicts downstream performance better than synthetic recall" — the paired difference
  of the two rows' ``Avg.`` (same resampled models for both rows).
* Fig. 5: "ICL and Cite correlate poorly with the other categories" — for each, the gap between the
  other categories' mean ρ among themselves and its mean ρ with them, paired over models; the claim
  about *both* is the intersection–union test of :func:`~helmlite.analyses.helmet.weak_connectedness`.
"""
from __future__ import annotations

import pandas as pd

from ... import stats
from ...claims import Claim

AVERAGE_LIMIT = 0.8


def paper_claims(recall_average: stats.Estimate, recall_p: float, rag_vs_recall: pd.DataFrame,
                 weak: pd.DataFrame) -> list[Claim]:
    """The three claims, from :func:`average_against` (Recall vs 0.8), :func:`compare_predictors` (RAG vs
    Recall) and :func:`weak_connectedness` (ICL and Cite)."""
    avg = rag_vs_recall.set_index("target").loc["Avg."]
    joint = weak.set_index("category").loc["all"]
    names = " and ".join(c for c in weak["category"] if c != "all")
    return [
        Claim(f"No synthetic task averages above {AVERAGE_LIMIT} (Fig. 3): Recall, the one synthetic row recomputable "
              "offline (RAG is not synthetic; NIAH/RULER need per-dataset results)", "fig3:Recall~Avg.",
              recall_average.estimate, recall_average.ci_low, recall_average.ci_high, AVERAGE_LIMIT, recall_average.n,
              "less", p_value=recall_p),
        Claim("RAG predicts downstream categories better than synthetic recall (Fig. 3 Avg., paired over models)",
              "fig3:Avg.:RAG−Recall", avg["difference"], avg["ci_low"], avg["ci_high"], 0.0, int(avg["n"]), "greater",
              p_value=avg["p_value"]),
        Claim(f"{names} correlate poorly with the other categories (Fig. 5): the smaller of the two gaps "
              "(mean ρ among the others − mean ρ with them), paired over models, intersection–union test",
              "fig5:min_gap(" + ",".join(c for c in weak["category"] if c != "all") + ")", joint["gap"], joint["ci_low"],
              joint["ci_high"], 0.0, int(joint["n"]), "greater", p_value=joint["p_value"]),
    ]
