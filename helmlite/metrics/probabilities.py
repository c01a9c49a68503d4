"""Probabilities from a model's log-scores: the softmax HELM's calibration reads a multiple-choice answer's
confidence from (``max_prob``; :mod:`helmlite.evaluation.outcomes`) and lm-eval imports recompute."""
from __future__ import annotations

import numpy as np


def softmax(values) -> list[float]:
    """Probabilities from log-scores (shifted by the maximum for stability)."""
    values = np.asarray(values, dtype=float)
    exp = np.exp(values - values.max())
    return (exp / exp.sum()).tolist()
