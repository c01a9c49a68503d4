"""HELM's metrics (Liang et al. 2022, §4, App. C–D), one module per family.

What analyses import comes from here: the accuracy metrics directly, the calibration test and reliability table
(:mod:`.calibration`) and the per-record confidence and correctness calibration uses (:mod:`.families`) on first use
(PEP 562), so that ``import helmlite.workflow`` — the Snakefile parses on every run — does not pay for scipy.
"""
from importlib import import_module

from .accuracy import (GENERATION_METRICS, best_over_references, bits_per_byte, exact_match, f1_score,
                       final_number_match, ndcg, normalize_text, quasi_exact_match, reciprocal_rank, rouge_2,
                       substring_match)

_LAZY = {"calibration_error_test": "calibration", "calibration_error_mde": "calibration", "reliability_table": "calibration", "calibration_correct": "families",
         "confidence_of": "families", "softmax": "probabilities"}

__all__ = ["GENERATION_METRICS", "best_over_references", "bits_per_byte", "exact_match", "f1_score",
           "final_number_match", "ndcg", "normalize_text", "quasi_exact_match", "reciprocal_rank", "rouge_2",
           "substring_match", *sorted(_LAZY),
           "calibration", "families", "selection"]  # the submodules other packages use


def __getattr__(name: str):
    if name in _LAZY:
        return getattr(import_module(f".{_LAZY[name]}", __name__), name)
    raise AttributeError(f"module 'helmlite.metrics' has no attribute {name!r}")
