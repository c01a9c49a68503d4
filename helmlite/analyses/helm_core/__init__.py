"""Notebook 01 — HELM core (Liang et al. 2022): live runs of the embedded models and the published v0.4.0
leaderboard. ``live`` analyses run folders, ``published`` the leaderboard table (read with :mod:`helmlite.leaderboards`),
``claims`` states the notebook's claims, ``reproduction`` sets the recomputed win rates beside the published ones,
``fidelity`` says where the live scenarios depart from HELM's, ``reference`` holds the cited constants, ``figures``
draws."""
from . import claims, fidelity, figures, published, reference, reproduction
from .efficiency import runtime_note
from .fidelity import fidelity_table
from .live import (EFFICIENCY, SCORE_COLUMNS, bbq_bias_table, calibration_mde, calibration_table, group_performance, latency_table,
                   model_differences, perturbation_deltas, reliability, runtime_models, score_matrix)

__all__ = ["EFFICIENCY", "SCORE_COLUMNS", "bbq_bias_table", "calibration_mde", "calibration_table", "claims", "fidelity", "fidelity_table",
           "figures", "group_performance", "latency_table", "model_differences", "perturbation_deltas", "published",
           "reference", "reliability", "reproduction", "runtime_models", "runtime_note", "score_matrix"]
