"""Notebook 03 — HELMET (Yen et al. 2025): synthetic-vs-downstream Spearman correlations from the released
128K table. ``correlations`` computes, ``claims`` states the inferential claims, ``fig8`` checks the paper's
per-dataset statements on Fig. 8's printed values, ``reference`` holds the paper's published cells, ``figures``
draws."""
from ...claims import power_table
from . import fig8, figures, reference
from .claims import AVERAGE_LIMIT, paper_claims
from .correlations import (BASE, CATEGORIES, DOWNSTREAM, INSTRUCT, average_against, average_intervals, category_connectedness,
                           ci_width_by_models, compare_predictors, correlation_by_length, exclusion_candidates,
                           group_difference, load_length_table, load_results, max_abs_difference, pair_intervals, printed,
                           printed_cells, reproduction, spearman_matrix, synthetic_vs_downstream, upper_pairs,
                           weak_connectedness, with_published)

__all__ = ["AVERAGE_LIMIT", "BASE", "CATEGORIES", "DOWNSTREAM", "INSTRUCT", "average_against", "average_intervals",
           "category_connectedness", "ci_width_by_models", "compare_predictors", "correlation_by_length",
           "exclusion_candidates", "fig8", "figures", "group_difference", "load_length_table", "load_results", "max_abs_difference",
           "pair_intervals", "paper_claims", "power_table", "printed", "printed_cells", "reference", "reproduction",
           "spearman_matrix", "synthetic_vs_downstream", "upper_pairs", "weak_connectedness", "with_published"]
