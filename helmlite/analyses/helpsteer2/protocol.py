"""Readings of HelpSteer2's 3-then-5 protocol, and the simulator against a figure it was not fitted to
(Wang et al. 2024, arXiv 2406.08673; the dataset card's "Annotation methodology").

The card says every response gets three annotators and "up to five ... if the initial annotators do not
agree with each other sufficiently (2 points or less on helpfulness)", and that samples whose annotators
still disagree were filtered out. Two things are left open, and they decide whether the filter can
remove the paper's ~10%:

* **escalation** — *full*: every disagreeing response gets two more annotators; *partial*: only a share of
  them does (the simulator's ``escalation_share``, fitted);
* **what the filter looks at** — the *most agreeing three* (the annotators the label is made of) or *all
  annotators*. Five ratings on 0–4 always contain three within 2 points, so with full escalation the filter
  on the most agreeing three removes only responses that lost an annotation.

:func:`protocol_readings` runs the simulator under each of the four readings — once with the default
parameters, and once with the careless share refitted to the published figures for that reading — and reports
annotators per response, the share not released and the annotators' agreement (weighted κ of the initial three),
so that a reader sees which readings can reproduce both published figures. :func:`unfitted_check` sets the
simulator's agreement beside the published κ, the one figure the simulator was not fitted to.
"""
from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd

from ...claims.reproduction import decide
from .aggregation import HELPFULNESS, aggregate
from .label_statistics import mean_pairwise_kappa
from .reference import KAPPA_SOURCE, PUBLISHED, PUBLISHED_KAPPA
from .simulator import SimulatorConfig, distance, published_figures, simulate

#: (reading, full escalation?, spread_over) — the default reading is the card's rule with partial escalation.
READINGS = (
    ("partial escalation, filter on the most agreeing three (default)", False, "most_agreeing_three"),
    ("full escalation, filter on the most agreeing three", True, "most_agreeing_three"),
    ("partial escalation, filter on all annotators", False, "all_annotators"),
    ("full escalation, filter on all annotators", True, "all_annotators"),
)
CARELESS_GRID = tuple(np.round(np.arange(0.0, 0.51, 0.05), 2))

def initial_kappa(annotations, attribute: int = HELPFULNESS) -> float:
    """Weighted κ of the initial three annotators (slots 0–2, mean over the three slot pairs), over
    responses that kept three — the point value of :func:`helmlite.analyses.helpsteer2.agreement`'s
    "initial three" row."""
    ratings = annotations.ratings[:, :3, attribute]
    full = ~np.isnan(ratings).any(axis=1)
    return float(mean_pairwise_kappa(*(ratings[full, k] for k in range(3))))


def _figures(config: SimulatorConfig, spread_over: str) -> dict:
    sim = simulate(config)
    out = aggregate(sim.annotations, spread_over=spread_over)
    return {**published_figures(sim, out), "share_failing_per_response": float(out["fails_spread"].mean()),
            "share_without_label": float((out["rule"] == "no_label").mean()), "kappa_helpfulness": initial_kappa(sim.annotations)}


def protocol_readings(config: SimulatorConfig = SimulatorConfig(), careless_grid=CARELESS_GRID) -> pd.DataFrame:
    """One row per reading × setting: ``setting`` "default parameters" (``config`` as fitted to the default
    reading) or "careless share refitted" (the grid value closest to both published figures for that reading,
    :func:`.simulator.distance`, what :func:`.simulator.calibrate` minimises; partial escalation keeps ``config.escalation_share``, which is not
    refitted). Columns: the parameters, annotators per response, share not released (removed per prompt — the
    paper's rule — by the spread filter or for want of a label), share failing the spread filter per response, share
    left without a label (two annotators), the initial three's weighted κ on helpfulness, and whether the two
    figures are met within their tolerances."""
    (annotators, a_tol, _), (removed, r_tol, _) = PUBLISHED["mean_annotators"], PUBLISHED["share_not_released"]
    rows = []
    for reading, full, spread_over in READINGS:
        escalation = 1.0 if full else config.escalation_share
        base = replace(config, escalation_share=escalation)
        grid = {c: _figures(replace(base, careless_share=float(c)), spread_over) for c in careless_grid}
        refit = min(grid, key=lambda c: (distance(grid[c]), c))
        for setting, careless, figures in (("default parameters", config.careless_share, _figures(base, spread_over)),
                                           ("careless share refitted", refit, grid[refit])):
            rows.append({"reading": reading, "setting": setting, "escalation_share": escalation, "spread_over": spread_over,
                         "careless_share": float(careless), **figures,
                         "annotators_within_tolerance": abs(figures["mean_annotators"] - annotators) <= a_tol,
                         "removal_within_tolerance": abs(figures["share_not_released"] - removed) <= r_tol})
    return pd.DataFrame(rows)


def _against_published(low: float, high: float, before: float, after: float) -> tuple[str, str]:
    """The verdict in :data:`helmlite.claims.reproduction.VERDICTS`' words (``consistent``: a published κ lies inside the
    interval; else ``differs``) and a note saying where the interval lies."""
    word = decide(False, low <= after <= high or low <= before <= high)
    if low <= after <= high:
        where = "the interval holds the value after the guideline changes"
    elif low <= before <= high:
        where = "the interval holds the value before the guideline changes"
    elif high < min(before, after):
        where = "below both published values (these annotators agree less than HelpSteer2's)"
    elif low > max(before, after):
        where = "above both published values"
    else:
        where = "between the two published values"
    return word, where


def unfitted_check(agreement: pd.DataFrame) -> pd.DataFrame:
    """The simulator against figures it was not fitted to: the initial three's weighted κ (from
    :func:`helmlite.analyses.helpsteer2.agreement`, with its cluster-bootstrap CI) beside the published κ
    before and after the guideline changes, per attribute the paper reports; ``verdict`` is ``consistent`` or
    ``differs`` (:data:`helmlite.claims.reproduction.VERDICTS`) and ``note`` says where the interval lies. Slot pairs are not annotator pairs (no ids are released), so the comparison is approximate."""
    rows = []
    initial = agreement[(agreement["measure"] == "quadratic-weighted kappa") & (agreement["stage"] == "initial three")]
    for attribute, (before, after) in PUBLISHED_KAPPA.items():
        r = initial[initial["attribute"] == attribute].iloc[0]
        verdict, note = _against_published(r["ci_low"], r["ci_high"], before, after)
        rows.append({"quantity": f"weighted kappa, {attribute}, initial three", "fitted": False, "simulated": r["estimate"],
                     "ci_low": r["ci_low"], "ci_high": r["ci_high"], "published_before": before, "published_after": after,
                     "verdict": verdict, "note": note, "source": KAPPA_SOURCE})
    return pd.DataFrame(rows)
