"""The published depth curves (Lost in the Middle's Tables 1, 5–7; HELMET's Figs. 11–14) and the same statistics on them:
per-position averages without per-item results, so shapes are judged against a tolerance, not an interval."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from ... import data
from .position_tests import primacy_recency

#: The mirror's files of published depth curves (registry names; neither is downloadable: mirror-only).
LITM_TABLES = "litm/paper_tables/litm_tables_1_5_6_7_multidoc_qa.csv"
HELMET_DEPTH = "helmet/paper_figures/helmet_fig11-14_depth_by_length.csv"

#: A published curve is called U-shaped (or recency-preferring) only when the differences exceed this: the
#: binomial standard error of a difference of two accuracies over Lost in the Middle's 2,655 NQ-open questions
#: is √(2·0.5·0.5/2655) ≈ 0.014 if the two were independent (less for these paired ones, the same questions at
#: two positions), so two points is about 1.5 standard errors or more; HELMET's values, read off its figures,
#: are no finer.
PUBLISHED_TOLERANCE = 0.02


@dataclass(frozen=True)
class PublishedCurves:
    """The papers' depth tables as notebook 04 reads them; a table whose file is absent here is None (the figures and
    tables say which), and ``paths`` holds the files found (the manifest's inputs)."""

    litm_tables: pd.DataFrame | None  # Lost in the Middle Tables 1, 5–7 as released (the read checks)
    litm: pd.DataFrame | None         # Tables 5–7 as curves (:func:`litm_curves`)
    helmet: pd.DataFrame | None       # HELMET Figs. 11–14: depth by length
    paths: dict[str, Path]

    @property
    def missing(self) -> list[str]:
        """The papers whose tables are absent."""
        return [paper for paper, table in (("Lost in the Middle", self.litm), ("HELMET", self.helmet)) if table is None]


def published_curves() -> PublishedCurves:
    """Both papers' published depth tables from the data registry (:func:`helmlite.data.try_fetch`: None where a file
    cannot be obtained here, e.g. offline without the mirror)."""
    paths = {"litm_tables": data.try_fetch(LITM_TABLES), "helmet_depth": data.try_fetch(HELMET_DEPTH)}
    litm_tables = pd.read_csv(paths["litm_tables"]) if paths["litm_tables"] else None
    helmet = pd.read_csv(paths["helmet_depth"]) if paths["helmet_depth"] else None
    return PublishedCurves(litm_tables, litm_curves(litm_tables) if litm_tables is not None else None, helmet,
                           {name: path for name, path in paths.items() if path})


def published_primacy_recency(frame: pd.DataFrame, keys: list[str], depth: str = "depth", value: str = "accuracy",
                              tolerance: float = PUBLISHED_TOLERANCE) -> pd.DataFrame:
    """The same statistics on published curves (point values only: the papers release no per-item data):
    ``u_shaped`` when primacy and recency both exceed ``tolerance``, ``prefers_recent`` when recency exceeds
    primacy by more than it (:data:`PUBLISHED_TOLERANCE`: differences of about a point are not shapes)."""
    rows = []
    for key, part in frame.groupby(keys, sort=True):
        part = part.sort_values(depth)
        depths = part[depth].to_numpy(dtype=float)
        if len(depths) < 3:
            continue
        p, r = primacy_recency(part[value].to_numpy(dtype=float), depths)
        rows.append({**dict(zip(keys, key if isinstance(key, tuple) else (key,))), "primacy": float(p), "recency": float(r),
                     "tolerance": tolerance, "u_shaped": bool(p > tolerance and r > tolerance),
                     "prefers_recent": bool(r - p > tolerance)})
    return pd.DataFrame(rows)


def litm_curves(tables: pd.DataFrame) -> pd.DataFrame:
    """Lost in the Middle Tables 5–7 as curves: depth = gold index / (documents − 1), accuracy as a share."""
    docs = tables[tables["setting"].str.endswith("_docs")].copy()
    docs["depth"] = docs["gold_index"].astype(float) / (docs["num_docs"].astype(float) - 1)
    docs["accuracy"] = docs["accuracy"] / 100
    return docs


#: The columns of :func:`published_statistics` (Lost in the Middle's curves keyed by source, documents and model;
#: HELMET's by figure, dataset, model and length).
PUBLISHED_COLUMNS = ["source", "num_docs", "model", "primacy", "recency", "tolerance", "u_shaped", "prefers_recent", "paper",
                     "figure", "dataset", "length"]


def published_statistics(litm: pd.DataFrame | None, helmet: pd.DataFrame | None) -> pd.DataFrame:
    """:func:`published_primacy_recency` of each paper's curves that are present (mirror-only: None when absent),
    one table with a ``paper`` column, in :data:`PUBLISHED_COLUMNS`; empty with those columns when neither is."""
    parts = []
    if litm is not None:
        parts.append(published_primacy_recency(litm, ["source", "num_docs", "model"]).assign(paper="Lost in the Middle"))
    if helmet is not None:
        parts.append(published_primacy_recency(helmet, ["figure", "dataset", "model", "length"], value="value")
                     .assign(paper="HELMET"))
    return pd.concat(parts, ignore_index=True).reindex(columns=PUBLISHED_COLUMNS) if parts else pd.DataFrame(columns=PUBLISHED_COLUMNS)
