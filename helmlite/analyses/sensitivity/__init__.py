"""Notebook 02 — prompt sensitivity (HELM §8.2, Figs. 31-33): in-context seeds, shots, formats and
multiple-choice methods. ``studies`` computes the statistics, ``figures`` draws."""
from . import claims, figures
from .notes import absent_study_note, first_step_note, reversal_note, seed_note, variance_note
from .studies import (best_levels, factor_table, first_step_contrasts, pairwise_tests, rank_reversals, runs_by_study,
                      seed_spread, shot_steps, significance_counts, study_tests, variance_decomposition)

__all__ = ["absent_study_note", "best_levels", "claims", "factor_table", "figures", "first_step_contrasts", "first_step_note", "pairwise_tests", "rank_reversals", "reversal_note", "runs_by_study",
           "seed_note", "seed_spread", "shot_steps", "significance_counts", "study_tests", "variance_decomposition", "variance_note"]
