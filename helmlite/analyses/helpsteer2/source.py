"""Choosing notebook 05's input: the real HelpSteer2 disagreements file when it can be had, else the simulator."""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from ... import data
from ...errors import UserError
from .annotations import Annotations, load_disagreements
from .simulator import SimulatorConfig, simulate

DISAGREEMENTS = "helpsteer2/disagreements/disagreements.jsonl.gz"
SOURCES = ("auto", "real", "simulated")


@dataclass(frozen=True)
class Input:
    annotations: Annotations
    truth: pd.DataFrame | None  # latent true labels: simulated data only
    source: str  # "real" or "simulated"
    path: Path | None
    banner: str

    def label(self, frame: pd.DataFrame) -> pd.DataFrame:
        """``frame`` with a first column ``data_source`` ("simulated" / "real"): every table made from the
        loaded annotations says where they came from."""
        return frame.assign(data_source=self.source)[["data_source", *frame.columns]]


def _real(path: Path) -> Input:
    sha = data.sha256_of(path)
    banner = (f"**Data source: REAL** — HelpSteer2 `disagreements.jsonl.gz` ({path}, sha256 `{sha[:16]}…`), "
              "the released per-annotator ratings (CC-BY-4.0).")
    return Input(load_disagreements(path), None, "real", path, banner)


def _simulated(config: SimulatorConfig, reason: str) -> Input:
    sim = simulate(config)
    banner = (f"**Data source: SIMULATED** — {reason} These {config.n_samples:,} samples come from "
              f"`helmlite.analyses.helpsteer2.simulate` (seed {config.seed}): three annotators per response and, for "
              f"{config.escalation_share:.0%} of the responses whose helpfulness spans more than 2 points, two more — "
              "a *partial* reading of the card's 3-then-5 protocol (with every such response escalated the spread filter "
              "could hardly remove anything: section 2b). Its careless share and escalation share were **fitted** to the "
              "card's mean of 3.41 annotators and the paper's ~10% removal, so those two match by construction. Numbers "
              "below describe the simulator, **not HelpSteer2**; the aggregation code is the same that runs on the real file.")
    return Input(sim.annotations, sim.truth, "simulated", None, banner)


def load_input(source: str = "auto", *, disagreements_path: str | os.PathLike | None = None,
               simulator: SimulatorConfig = SimulatorConfig()) -> Input:
    """``real``: the disagreements file (an explicit path, else the registry; error if unavailable);
    ``simulated``: the simulator; ``auto``: real when obtainable, else simulated (and the banner says why)."""
    if source not in SOURCES:
        raise UserError(f"HelpSteer2 source must be one of {SOURCES}, got {source!r}")
    if source == "simulated":
        return _simulated(simulator, "Simulated input was requested (source='simulated').")
    if disagreements_path:
        return _real(Path(disagreements_path))
    if source == "real":
        return _real(data.fetch(DISAGREEMENTS))
    path = data.try_fetch(DISAGREEMENTS)
    if path is None:
        return _simulated(simulator, "The real disagreements file is not cached, not in the mirror and could not be "
                                     "downloaded (Hugging Face only).")
    return _real(path)
