"""Notebook 01 — HELM core (Liang et al. 2022): live runs of the embedded models and the published
v0.4.0 leaderboard. ``live`` analyses run folders, ``published`` the leaderboard table, ``figures`` draws."""
from . import claims, figures, published
from .efficiency import runtime_note
from .live import (EFFICIENCY, SCORE_COLUMNS, bbq_bias_table, calibration_table, group_performance, latency_table, model_differences, perturbation_deltas,
                   reliability, runtime_models, score_matrix)

__all__ = ["EFFICIENCY", "SCORE_COLUMNS", "bbq_bias_table", "calibration_table", "claims", "figures", "group_performance", "latency_table", "model_differences",
           "perturbation_deltas", "published", "reliability", "runtime_models", "runtime_note",
           "score_matrix"]
