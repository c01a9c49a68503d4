"""Notebook 02 — prompt sensitivity (HELM §8.2, Figs. 31-33): in-context seeds, shots, formats and
multiple-choice methods. ``studies`` builds the grid and the statistics, ``figures`` draws."""
from . import figures
from .studies import (STUDIES, factor_table, grid, pairwise_tests, rank_reversals, seed_spread, shot_steps, studies,
                      variance_decomposition)

__all__ = ["STUDIES", "factor_table", "figures", "grid", "pairwise_tests", "rank_reversals", "seed_spread", "shot_steps",
           "studies", "variance_decomposition"]
