"""Notebook 05's published reference values, in one place (Wang et al. 2024, HelpSteer2, and its dataset card): what
the simulator is held to, the card's annotation facts and the reported inter-annotator agreement."""
from __future__ import annotations

#: The published figures the simulator is held to: (value, tolerance, source).
PUBLISHED = {
    "mean_annotators": (3.41, 0.03, "dataset card: 'The final annotations (mean of 3.41 annotators)'"),
    "share_not_released": (0.10, 0.02, "about 10% of the annotated responses are not released — removed by the "
                                       "per-prompt spread filter or left without a label; derived from row counts, not "
                                       "a number the authors state: 23,652 disagreements rows vs 21,362 released = 9.7%"),
}

CARD_TRAIN_KEPT = 20_324  # dataset card: "... to retain only 20,324 samples" (train split)
CARD_ANNOTATORS_RANGE = (3, 5)  # dataset card: "a minimum of three annotators and up to five"

#: Quadratic-weighted Cohen's κ reported for HelpSteer2's annotation (paper, as summarised by third parties:
#: the mirror's helpsteer2/HELPSTEER2_NOTES.md; the primary text could not be obtained here):
#: (before the guideline changes, after them).
PUBLISHED_KAPPA = {"helpfulness": (0.465, 0.706), "correctness": (0.472, 0.715)}
KAPPA_SOURCE = ("paper, 'internal annotation' before → after the guideline changes, as summarised by third parties "
                "(papers.lunadong.com/paper/15718; primary text not obtained offline)")
