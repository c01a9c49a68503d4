"""Notebook 05 — HelpSteer2 (Wang et al. 2024): the card's annotation aggregation. ``annotations`` reads
and writes per-annotator files, ``source`` picks the real file or the ``simulator``, ``aggregation``
implements the card's rule and its statistics, ``figures`` draws."""
from . import figures
from .aggregation import (SPREAD_LIMIT, agreement, aggregate, annotator_counts, card_example_check, empty_error_table,
                          error_against_truth, helpfulness_correlations, most_agreeing_three, quadratic_kappa,
                          rating_distributions, removal_summary, reproduction_check, round_half_up)
from .annotations import ATTRIBUTES, Annotations, load_aggregated, load_disagreements, write_disagreements
from .simulator import SimulatorConfig, simulate
from .source import load_input

__all__ = ["ATTRIBUTES", "Annotations", "SPREAD_LIMIT", "SimulatorConfig", "agreement", "aggregate", "annotator_counts",
           "card_example_check", "empty_error_table", "error_against_truth", "figures", "helpfulness_correlations",
           "load_aggregated", "load_disagreements", "load_input", "most_agreeing_three", "quadratic_kappa",
           "rating_distributions", "removal_summary", "reproduction_check", "round_half_up", "simulate",
           "write_disagreements"]
