"""Notebook 04 — lost in the middle (Liu et al. 2023; HELMET App. E.4): live depth sweeps and the
published curves. ``sweeps`` builds the grid and the statistics, ``figures`` draws."""
from . import figures
from .sweeps import (METRIC, SCORE_NAME, curves, depth_records, length_degradation, litm_curves,
                     primacy_recency, published_primacy_recency, u_shape)

__all__ = ["METRIC", "SCORE_NAME", "curves", "depth_records", "figures", "length_degradation", "litm_curves",
           "primacy_recency", "published_primacy_recency", "u_shape"]
