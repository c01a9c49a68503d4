"""Calibration and selective classification (Liang et al. 2022, §4.4, App. C.3).

Inputs are, per instance, the model's probability for its predicted answer (``confidence``) and
whether that answer was correct. Ties in confidence are broken by instance order (a stable sort), so
every quantity is deterministic.
"""
from __future__ import annotations

import math

import numpy as np


def expected_calibration_error(confidence, correct, n_bins: int = 10) -> float:
    """ECE with equal-mass bins: sort by confidence, split into ``n_bins`` bins whose sizes differ by at
    most one, and average |accuracy − mean confidence| weighted by bin size (Kumar et al. 2019's
    equal-mass binning, as HELM's ``ece_10_bin``; ``n_bins = 1`` gives |accuracy − mean confidence|)."""
    confidence, correct = np.asarray(confidence, float), np.asarray(correct, float)
    if len(confidence) == 0:
        return math.nan
    order = np.argsort(confidence, kind="stable")
    total = 0.0
    for part in np.array_split(order, min(n_bins, len(order))):
        total += len(part) * abs(correct[part].mean() - confidence[part].mean())
    return total / len(order)


def _by_confidence(confidence, correct) -> np.ndarray:
    confidence, correct = np.asarray(confidence, float), np.asarray(correct, float)
    order = np.argsort(-confidence, kind="stable")  # most confident first; ties in instance order
    return correct[order]


def selective_accuracy(confidence, correct, coverage: float = 0.1) -> float:
    """Accuracy on the ``coverage`` share of instances the model is most confident about
    (at least one instance: k = max(1, floor(coverage · n)))."""
    ranked = _by_confidence(confidence, correct)
    if len(ranked) == 0:
        return math.nan
    k = max(1, int(math.floor(coverage * len(ranked))))
    return float(ranked[:k].mean())


def selective_coverage_accuracy_area(confidence, correct) -> float:
    """SCAA: the area under the coverage–accuracy curve, i.e. the mean over k = 1..n of the accuracy
    on the k most confident instances (El-Yaniv & Wiener 2010; HELM's selective_cov_acc_area)."""
    ranked = _by_confidence(confidence, correct)
    if len(ranked) == 0:
        return math.nan
    return float(np.mean(np.cumsum(ranked) / np.arange(1, len(ranked) + 1)))


def reliability_table(confidence, correct, n_bins: int = 10) -> list[dict]:
    """Per equal-mass bin: mean confidence, accuracy and size (for reliability diagrams)."""
    confidence, correct = np.asarray(confidence, float), np.asarray(correct, float)
    order = np.argsort(confidence, kind="stable")
    return [{"bin": b, "confidence": float(confidence[p].mean()), "accuracy": float(correct[p].mean()), "n": len(p)}
            for b, p in enumerate(np.array_split(order, min(n_bins, len(order)))) if len(p)]
