"""Notebook 05 — HelpSteer2 (Wang et al. 2024): the card's annotation aggregation. ``annotations`` reads
and writes per-annotator files, ``source`` picks the real file or the ``simulator``, ``aggregation``
implements the card's rule and its statistics, ``protocol`` compares readings of the protocol and holds the
simulator against a figure it was not fitted to, ``figures`` draws."""
from . import figures, protocol
from .aggregation import (SPREAD_FILTERS, SPREAD_LIMIT, WORKED_EXAMPLES, agreement, aggregate, annotator_counts,
                          card_example_check, careless_conclusion, careless_curve, empty_error_table, error_against_truth,
                          helpfulness_correlations, most_agreeing_three, prompt_ids, quadratic_kappa, rating_distributions,
                          removal_summary, reproduction_check, round_half_up, worked_examples, worked_examples_check)
from .annotations import ATTRIBUTES, Annotations, load_aggregated, load_disagreements, write_disagreements
from .reference import PUBLISHED
from .simulator import SimulatorConfig, calibrate, calibration_check, simulate
from .source import load_input

__all__ = ["ATTRIBUTES", "Annotations", "PUBLISHED", "SPREAD_FILTERS", "SPREAD_LIMIT", "SimulatorConfig", "WORKED_EXAMPLES",
           "agreement", "aggregate", "annotator_counts", "calibrate", "calibration_check", "card_example_check",
           "careless_conclusion", "careless_curve", "empty_error_table", "error_against_truth", "figures", "protocol",
           "helpfulness_correlations", "load_aggregated", "load_disagreements", "load_input", "most_agreeing_three",
           "prompt_ids", "quadratic_kappa", "rating_distributions", "removal_summary", "reproduction_check",
           "round_half_up", "simulate", "worked_examples", "worked_examples_check", "write_disagreements"]
