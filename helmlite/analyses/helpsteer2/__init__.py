"""Notebook 05 — HelpSteer2 (Wang et al. 2024): the card's annotation aggregation. ``annotations`` reads and writes
per-annotator files, ``source`` picks the real file or the ``simulator``; ``aggregation`` is the card's rule,
``label_statistics`` what the labels and annotators show, ``experiments`` the simulator-only comparisons with the latent
truth, ``protocol`` compares readings of the protocol and holds the simulator against a figure it was not fitted to,
``reproduction`` the worked examples and the card's facts, ``reference`` the published values, ``figures`` draws."""
from . import aggregation, experiments, figures, label_statistics, protocol, reference, reproduction, simulator
from .aggregation import SPREAD_FILTERS, SPREAD_LIMIT, aggregate, most_agreeing_three, prompt_ids, round_half_up
from .label_statistics import (agreement, annotator_counts, helpfulness_correlations, quadratic_kappa, rating_distributions,
                        removal_summary)
from .annotations import ATTRIBUTES, Annotations, load_aggregated, load_disagreements, write_disagreements
from .experiments import careless_conclusion, careless_curve, empty_careless_curve, empty_error_table, error_against_truth
from .reference import PUBLISHED
from .reproduction import WORKED_EXAMPLES, card_example_check, reproduction_check, worked_examples, worked_examples_check
from .simulator import SimulatorConfig, calibrate, calibration_check, simulate
from .source import load_input

__all__ = ["ATTRIBUTES", "Annotations", "PUBLISHED", "aggregation", "experiments", "label_statistics", "reference", "reproduction",
           "simulator", "SPREAD_FILTERS", "SPREAD_LIMIT", "SimulatorConfig", "WORKED_EXAMPLES",
           "agreement", "aggregate", "annotator_counts", "calibrate", "calibration_check", "card_example_check",
           "careless_conclusion", "careless_curve", "empty_careless_curve", "empty_error_table", "error_against_truth", "figures", "protocol",
           "helpfulness_correlations", "load_aggregated", "load_disagreements", "load_input", "most_agreeing_three",
           "prompt_ids", "quadratic_kappa", "rating_distributions", "removal_summary", "reproduction_check",
           "round_half_up", "simulate", "worked_examples", "worked_examples_check", "write_disagreements"]
