"""Notebook 03 — HELMET (Yen et al. 2025): synthetic-vs-downstream Spearman correlations from the released
128K table. ``correlations`` computes, ``reference`` holds the paper's published cells, ``figures`` draws."""
from . import figures, reference
from .correlations import (CATEGORIES, DOWNSTREAM, INSTRUCT, average_intervals, category_connectedness, ci_width_by_models,
                           compare_predictors, correlation_by_length, exclusion_candidates, group_difference,
                           load_length_table, load_results, max_abs_difference, pair_intervals, reproduction,
                           separated_from_top, spearman_matrix, synthetic_vs_downstream, upper_pairs, with_published)

__all__ = ["CATEGORIES", "DOWNSTREAM", "INSTRUCT", "average_intervals", "category_connectedness", "ci_width_by_models",
           "compare_predictors", "correlation_by_length", "exclusion_candidates", "figures", "group_difference",
           "load_length_table", "load_results", "max_abs_difference", "pair_intervals", "reference", "reproduction",
           "separated_from_top", "spearman_matrix", "synthetic_vs_downstream", "upper_pairs", "with_published"]
