"""Notebook 04 — lost in the middle (Liu et al. 2023; HELMET App. E.4): live depth sweeps and the
published curves. ``sweeps`` builds the statistics and the claims, ``figures`` draws."""
from ...claims import power_table
from . import figures
from .reference import LITM_GPT35
from .sweeps import (FLOOR_MARGIN, METRIC, MIN_CONTEXTS, PUBLISHED_TOLERANCE, SCORE_NAME, chance_level, claims, curves,
                     depth_records, length_degradation, length_tests, litm_curves, primacy_recency, published_primacy_recency,
                     read_checks, u_shape, with_verdicts)

__all__ = ["FLOOR_MARGIN", "LITM_GPT35", "METRIC", "MIN_CONTEXTS", "PUBLISHED_TOLERANCE", "SCORE_NAME", "chance_level", "claims", "curves",
           "depth_records", "figures", "length_degradation", "length_tests", "litm_curves", "power_table", "primacy_recency",
           "published_primacy_recency", "read_checks", "u_shape", "with_verdicts"]
