"""HELM's metrics (Liang et al. 2022, §4, App. C–D), one module per family."""
from .accuracy import (GENERATION_METRICS, best_over_references, bits_per_byte, exact_match, f1_score,
                       final_number_match, ndcg, normalize_text, quasi_exact_match, reciprocal_rank, rouge_2,
                       substring_match)

__all__ = ["GENERATION_METRICS", "best_over_references", "bits_per_byte", "exact_match", "f1_score",
           "final_number_match", "ndcg", "normalize_text", "quasi_exact_match", "reciprocal_rank", "rouge_2",
           "substring_match"]
