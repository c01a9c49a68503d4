"""Notebook 03's inferential claims, stated in the claims schema (:mod:`helmlite.claims`); all paired over models.

The paper's own statements about synthetic and RAG rows are about printed values and are checked as such, per
dataset, on Fig. 8 (:mod:`helmlite.analyses.helmet.dataset_statements`). The first two claims here are **helmlite's
additions** — inferential versions on the one category table that can be recomputed offline:

* "no synthetic task averages above 0.8", inferentially, for Recall (the one synthetic row recomputable
  offline; NIAH/RULER need the per-dataset results in the authors' spreadsheet): Recall's ``Avg.``
  against 0.8 ("less"), with the interval of the correlations table (BCa from 20 models) and the p-value
  from the same procedure (:func:`~helmlite.analyses.helmet.average_against`);
* "the RAG category average predicts the downstream categories better than the Recall category average" —
  the paired difference of the two rows' ``Avg.`` (same resampled models for both rows); the paper's
  statement is per dataset (Fig. 8), this category-average contrast is helmlite's own.
* Fig. 5: "ICL and Cite correlate poorly with the other categories" — for each, the gap between the
  other categories' mean ρ among themselves and its mean ρ with them, paired over models; the claim
  about *both* is the intersection–union test of :func:`~helmlite.analyses.helmet.weak_connectedness`.
"""
from __future__ import annotations

import pandas as pd

from ... import stats
from ...claims import Claim, Declared

AVERAGE_LIMIT = 0.8
FAMILY = "published correlations"
WEAK = ("ICL", "Cite")  # the categories Fig. 5 calls poorly connected (:func:`weak_connectedness`'s default)
RECALL_NAME = (f"helmlite's addition, inferential: Recall's Avg. ρ is below {AVERAGE_LIMIT} (the paper's 'no synthetic "
               "task averages above 0.8' for the one synthetic row recomputable offline; NIAH/RULER need per-dataset results)")
RAG_NAME = ("helmlite's own contrast: the RAG category's Avg. ρ exceeds the Recall category's (Fig. 3 Avg., paired over "
            "models; the paper's statement is per dataset, Fig. 8)")


def weak_name(categories) -> str:
    return (f"{' and '.join(categories)} correlate poorly with the other categories (Fig. 5): the smaller of the gaps "
            "(mean ρ among the others − mean ρ with them), paired over models, intersection–union test")


def declare_claims() -> list[Declared]:
    """Notebook 03's claims: on the published results table (nothing to size)."""
    return [Declared(name, "helmet", FAMILY, what, "models", "bootstrap over models", "published")
            for name, what in ((RECALL_NAME, "Recall's Avg. ρ"), (RAG_NAME, "RAG − Recall Avg. ρ"),
                               (weak_name(WEAK), "the smaller connectedness gap of ICL and Cite"))]


def paper_claims(recall_average: stats.Estimate, recall_p: float, rag_vs_recall: pd.DataFrame,
                 weak: pd.DataFrame) -> list[Claim]:
    """The three claims, from :func:`average_against` (Recall vs 0.8), :func:`compare_predictors` (RAG vs
    Recall) and :func:`weak_connectedness` (ICL and Cite)."""
    avg = rag_vs_recall.set_index("target").loc["Avg."]
    joint = weak.set_index("category").loc["all"]
    categories = [c for c in weak["category"] if c != "all"]
    return [
        Claim(RECALL_NAME, "fig3:Recall~Avg.", recall_average.estimate, recall_average.ci_low, recall_average.ci_high,
              AVERAGE_LIMIT, recall_average.n, "less", p_value=recall_p,
              p_floor=float(getattr(recall_average, "p_floor", 0.0)), family=FAMILY),
        Claim(RAG_NAME, "fig3:Avg.:RAG−Recall", avg["difference"], avg["ci_low"], avg["ci_high"], 0.0, int(avg["n"]),
              "greater", p_value=avg["p_value"], p_floor=float(avg.get("p_floor", 0.0)), family=FAMILY),
        Claim(weak_name(categories), "fig5:min_gap(" + ",".join(categories) + ")", joint["gap"], joint["ci_low"],
              joint["ci_high"], 0.0, int(joint["n"]), "greater", p_value=joint["p_value"],
              p_floor=float(joint.get("p_floor", 0.0)), family=FAMILY),
    ]
