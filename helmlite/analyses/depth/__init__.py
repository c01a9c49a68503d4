"""Notebook 04 — lost in the middle (Liu et al. 2023; HELMET App. E.4): live depth sweeps and the published curves.
``sweeps`` turns runs into per-row records and scores, ``per_depth`` the per-depth and per-length tables,
``position_tests`` the U-shape and length tests, ``claims`` the notebook's claims, ``published`` the papers' curves,
``reproduction`` the read checks, ``reference`` the cited constants, ``figures`` draws."""
from ...claims import power_table
from . import claims, figures, per_depth, position_tests, published, reference, reproduction, sweeps
from .claims import depth_claims, u_shape_note, with_verdicts
from .per_depth import curves, length_degradation
from .position_tests import length_tests, primacy_recency, u_shape
from .published import PUBLISHED_TOLERANCE, PublishedCurves, litm_curves, published_curves, published_primacy_recency, published_statistics
from .reference import LITM_GPT35
from .reproduction import read_checks
from .sweeps import FLOOR_MARGIN, METRIC, MIN_CONTEXTS, SCORE_NAME, chance_level, depth_records, sweep_scope

__all__ = ["FLOOR_MARGIN", "LITM_GPT35", "METRIC", "MIN_CONTEXTS", "PUBLISHED_TOLERANCE", "SCORE_NAME", "chance_level",
           "curves", "depth_claims", "claims", "depth_records", "figures", "per_depth", "length_degradation", "length_tests", "litm_curves",
           "position_tests", "power_table", "primacy_recency", "published", "PublishedCurves", "published_curves", "published_primacy_recency", "published_statistics", "read_checks", "reference",
           "reproduction", "sweep_scope", "sweeps", "u_shape", "u_shape_note", "with_verdicts"]
