"""What each analysis notebook reads and writes, with a one-line caption per output.

The single source of truth for the workflow (rule inputs/outputs in ``rules/notebooks.smk``), the
fetch step (``helmlite fetch --for-config``) and ``reports/index.html``.
"""
from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Analysis:
    key: str
    notebook: str  # file stem under notebooks/ and reports/
    title: str
    paper: str
    figures: dict[str, str] = field(default_factory=dict)  # name (no extension) → caption
    tables: dict[str, str] = field(default_factory=dict)  # name (no extension) → caption
    data: tuple[str, ...] = ()  # registry names the notebook needs (fetched before it runs)

    @property
    def manifest(self) -> str:
        return f"{self.key}_manifest"


HELPSTEER2 = Analysis(
    key="helpsteer2",
    notebook="05_helpsteer2_aggregation",
    title="HelpSteer2 annotation aggregation",
    paper="Wang et al. 2024, HelpSteer2 (arXiv 2406.08673)",
    figures={
        "helpsteer2_protocol": "Annotators per sample (3-then-5 protocol) and the share removed by the spread filter, with CIs.",
        "helpsteer2_distributions": "Score distributions per attribute: every individual rating vs the released (aggregated) labels.",
        "helpsteer2_correlations": "Pearson correlations among released attributes, and each attribute vs helpfulness with bootstrap CIs.",
        "helpsteer2_agreement": "Inter-annotator agreement (quadratic-weighted kappa, Krippendorff's alpha) before vs after keeping the most agreeing three.",
        "helpsteer2_error_vs_truth": "Simulated data: error of the released label vs a naive mean of all annotators, against the latent truth.",
    },
    tables={
        "helpsteer2_card_example": "The dataset card's example aggregated by helmlite, beside the card's released row.",
        "helpsteer2_annotator_counts": "Samples by number of annotators.",
        "helpsteer2_removal": "Share of samples removed by the spread filter (overall and per aggregation rule), with CIs.",
        "helpsteer2_distributions": "Score distributions before/after aggregation (counts and shares).",
        "helpsteer2_correlations": "Pearson r of each attribute with helpfulness, bootstrap CIs.",
        "helpsteer2_agreement": "Agreement before/after keeping the most agreeing three, bootstrap CIs.",
        "helpsteer2_error_vs_truth": "MAE against the latent truth: most agreeing three vs naive mean (simulated data; empty for real data).",
        "helpsteer2_reproduction": "Reproduction check: card example and the card's published facts vs ours.",
    },
    data=("helpsteer2/card_example_disagreements.jsonl", "helpsteer2/card_example_aggregated.jsonl"),
)

ANALYSES: dict[str, Analysis] = {a.key: a for a in (HELPSTEER2,)}


def analysis(key: str) -> Analysis:
    if key not in ANALYSES:
        raise KeyError(f"unknown analysis {key!r}; known: {', '.join(ANALYSES)}")
    return ANALYSES[key]
