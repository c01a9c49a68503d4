"""Notebook 03 — HELMET (Yen et al. 2025): synthetic-vs-downstream Spearman correlations from the released
128K table. ``correlations`` computes, ``claims`` states the inferential claims, ``reproduction`` sets the recomputed
cells beside the paper's, ``dataset_statements`` checks the paper's per-dataset statements on Fig. 8's printed values,
``reference`` holds the paper's published cells, ``figures`` draws."""
from ...claims import power_table
from . import claims, dataset_statements, figures, reference, reproduction
from .claims import AVERAGE_LIMIT, paper_claims
from .correlations import (BASE, CATEGORIES, DOWNSTREAM, INSTRUCT, average_against, average_intervals, by_length_from,
                           category_connectedness,
                           ci_width_by_models, compare_predictors, correlation_by_length, group_difference, load_length_table,
                           load_results, pair_intervals, spearman_matrix, synthetic_vs_downstream, upper_pairs,
                           weak_connectedness)
from .reproduction import (exclusion_candidates, fitted_exclusion, max_abs_difference, printed, printed_cells, reproduction_table,
                           with_published)

__all__ = ["AVERAGE_LIMIT", "BASE", "CATEGORIES", "DOWNSTREAM", "INSTRUCT", "average_against", "average_intervals", "by_length_from",
           "category_connectedness", "ci_width_by_models", "claims", "compare_predictors", "correlation_by_length",
           "dataset_statements", "exclusion_candidates", "figures", "fitted_exclusion", "group_difference", "load_length_table", "load_results",
           "max_abs_difference", "pair_intervals", "paper_claims", "power_table", "printed", "printed_cells", "reference",
           "reproduction", "reproduction_table", "spearman_matrix", "synthetic_vs_downstream", "upper_pairs",
           "weak_connectedness", "with_published"]
