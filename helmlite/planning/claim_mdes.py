"""The claims a config's runs will test, with the n each gets and its minimum detectable effect — before any model
runs.

Which claims there are, their names and families, comes from the analyses' own declarations
(``helmlite/analyses/<name>/claims.py``, :class:`helmlite.claims.declaration.Declared`): this module keeps only the
power formulas. Each MDE is for the decision the notebook makes: its own test at 80% power, at the level the claim's
family decides it at — α / m for a family of m hypotheses (Holm's worst case, :mod:`helmlite.claims.families`), α =
0.05 for an exploratory claim or one alone — with *planning values* where the test's power depends on the data:

* paired 0/1 differences (exact McNemar): the share of discordant items ψ = :data:`PLANNING_DISCORDANCE`
  = 0.25. Measured here (2026-12-01): the two embedded models disagree on 14 of 100 MMLU (US foreign policy)
  items, so 0.25 leaves room; a perturbation or a prompt change of one model moves fewer answers than a
  change of model. 0.5 (the largest, the power module's default) would need ~190 items for an MDE of 0.15.
  The notebooks report each claim's MDE at its *observed* ψ (:func:`helmlite.claims.observed_discordance`);
* the calibration test (ECE, :func:`helmlite.metrics.calibration.calibration_error_test`) on a model's
  multiple-choice runs pooled, as notebook 01 claims it: confidences spread uniformly over [1/k, 1] for k
  answer choices of each run; the n for a 5-point effect scales its MDE as 1/√n (and above
  :data:`CALIBRATION_SIMULATED` items, so does the MDE itself);
* depth curves (paired bootstrap over contexts): generation curves score a coin per row (0/1 accuracy 0.5,
  variance 0.25); log-probability curves with a baseline score P(gold) − baseline P(gold) per row
  (:mod:`helmlite.analyses.depth.sweeps`), planned with SD :data:`PLANNING_SCORE_SD` = 0.1 — five times the
  per-context SD measured on NIAH at 256 tokens on 2026-12-01 (0.01–0.02 for both embedded models). The U-shape and
  recency claims are intersection–union tests whose parts include end − start, the contrast with the larger variance
  (2·var: sd √0.5 or 1.0), which the planner uses for both (the power of needing *both* parts significant is lower
  still: these MDEs are optimistic). The length claim compares per-context means over the curve's m depths at two
  lengths: sd √(2·var/m). MDE = (z₁₋α/₂ + z₀.₈)·sd/√n for the two-sided bootstrap test the notebook runs (the normal
  approximation the claims schema uses for this scale);
* "the 0 → 1 step is the largest" (an intersection–union test: the weakest per-instance contrast of the 0→1 step
  with a later step decides): the contrast with the next step, which shares the 1-shot level, has SD √(3ψ)
  (:func:`step_contrast`);
* the in-context seed claim: with two seeds their paired difference (exact McNemar at the planning ψ, as notebook 02
  tests it); with three or more the between-seed SD of accuracy (the square root of the seed variance component),
  tested by Cochran's Q; its MDE on that scale from Q's noncentral χ² (:func:`helmlite.stats.mde_seed_sd`) at the
  within-item variance two seeds show at the planning ψ (ψ/2), as notebook 02 computes it at the observed one.

Where the config's runs are already in its results folder, a pilot (:mod:`.pilot`) replaces these planning values
for each claim whose runs it holds; each row's ``planning`` says which values it used.

Requests two runs share (a base configuration that another analysis also runs with a perturbation) cost time
once, at the first run that asks for them (:mod:`helmlite.planning`); each run's claims still count all its items.
"""
from __future__ import annotations

import math

import numpy as np
from scipy.special import ndtri

from ..claims import min_units
from ..errors import UserError
from ..metrics import calibration_error_mde
from ..stats import power
from ..workflow.claim_names import check_primary, declarations

PLANNING_DISCORDANCE = 0.25
TARGET_MDE = 0.15  # a headline claim is decidable when its MDE is at most this
EFFECT = 0.05  # "n needed for a 5-point difference"
#: Above this many pooled items the ECE test's MDE is simulated on this many, drawn in the runs' proportions, and
#: scaled by √(simulated / n): the 1/√n scaling its n needed uses (a paper-scale pool of 30,000 items took 7 s).
CALIBRATION_SIMULATED = 2000
#: The ECE test's simulations, as many as notebook 01's (:func:`helmlite.analyses.helm_core.calibration_table`): the
#: smallest two-sided p they allow, 2/2001, is also the level below which neither can decide (a family of > 50).
CALIBRATION_SIMULATIONS = 2000
PLANNING_SCORE_SD = 0.1  # per-row SD of a log-probability depth score, P(gold) − baseline P(gold) (module docstring)
POWER = 0.8
ALPHA = 0.05  # the family-wise level every notebook decides at (:func:`helmlite.claims.claims_table`)


def _needed(effect: float, required) -> float:
    """``required()``, the n needed for ``effect``, or NaN where the planning values cannot give that effect (a paired
    difference larger than the discordance)."""
    try:
        return float(required())
    except UserError:
        return math.nan


def paired(n: int, effect: float = EFFECT, base_discordance: float | None = None,
           level: float = 1 - ALPHA) -> tuple[float, float, float]:
    """(MDE, n needed for ``effect``, the discordance ψ at the MDE) of a paired 0/1 difference (exact two-sided McNemar
    at ``level``): at the planning ψ held fixed, or, with a pilot's ``base_discordance`` ψ0, with the discordance
    growing with the effect (ψ0 + abs(δ)), as the notebooks and ``helmlite compare`` report it (:mod:`.pilot`)."""
    if not n >= 1:  # no items, or unknown (NaN: the run's data are absent here)
        return math.nan, math.nan, math.nan
    if base_discordance is None:
        return (power.mde_proportion(n, paired=True, discordance=PLANNING_DISCORDANCE, level=level),
                _needed(effect, lambda: power.required_n(effect, paired=True, discordance=PLANNING_DISCORDANCE,
                                                         level=level)), PLANNING_DISCORDANCE)
    mde = power.mde_paired_growing(int(n), base_discordance, level=level)
    return (mde, _needed(effect, lambda: power.required_n(effect, paired=True, level=level,
                                                          discordance=min(1.0, base_discordance + effect))),
            min(1.0, base_discordance + mde) if math.isfinite(mde) else math.nan)


def _scaled_n(n: int, mde: float, effect: float) -> float:
    """The n at which an MDE that scales as 1/√n reaches ``effect``."""
    return math.ceil(n * (mde / effect) ** 2) if math.isfinite(mde) else math.nan


def calibration(parts: list[tuple[int, int]], effect: float = EFFECT, seed: int = 0,
                pools: list[np.ndarray] | None = None, level: float = 1 - ALPHA) -> tuple[float, float]:
    """(MDE, n needed for ``effect``) of the ECE test at ``level`` on the items of ``parts`` — (n items, k choices) per
    run, pooled — with planning confidences U(1/k, 1), or drawn from a pilot's confidences per run (``pools``)."""
    n = sum(count for count, _ in parts)
    if not n >= 2:  # NaN: a run's data are absent here
        return math.nan, math.nan
    simulated = [(max(1, round(count * CALIBRATION_SIMULATED / n)) if n > CALIBRATION_SIMULATED else count, k)
                 for count, k in parts]
    n_simulated = sum(count for count, _ in simulated)
    rng = np.random.default_rng(seed)
    confidence = np.concatenate([rng.uniform(1 / max(k, 2), 1.0, size=count) if pools is None
                                 else rng.choice(pools[j], size=count) for j, (count, k) in enumerate(simulated)])
    mde = calibration_error_mde(confidence, n_simulations=CALIBRATION_SIMULATIONS, seed=seed, level=level)
    mde *= math.sqrt(n_simulated / n)
    return mde, _scaled_n(n, mde, effect)


def seed_sd(n: int, seeds: int, effect: float = EFFECT, within_variance: float | None = None,
            level: float = 1 - ALPHA) -> tuple[float, float]:
    """(MDE, n needed for ``effect``) of the between-seed SD of accuracy under Cochran's Q at ``level`` with ``seeds``
    seeds on ``n`` items, at ``within_variance`` (a pilot's, :mod:`.pilot`) or the within-item variance two seeds have
    at the planning ψ (ψ/2; :func:`helmlite.stats.mde_seed_sd`)."""
    if not n >= 2:
        return math.nan, math.nan
    mde = power.mde_seed_sd(n, seeds, PLANNING_DISCORDANCE / 2 if within_variance is None else within_variance,
                            level=level)
    return mde, _scaled_n(n, mde, effect)


def _normal(n: int, sd: float, effect: float, level: float) -> tuple[float, float]:
    """(MDE, n needed for ``effect``) of a mean of ``n`` paired per-unit scores of SD ``sd`` under a two-sided test at
    ``level``: (z₁₋α/₂ + z₀.₈)·sd/√n (the interval a claim reads)."""
    if not n >= 2:
        return math.nan, math.nan
    z = float(ndtri(1 - (1 - level) / 2) + ndtri(POWER))
    return z * sd / math.sqrt(n), math.ceil((z * sd / effect) ** 2)


def step_contrast(n: int, effect: float = EFFECT, contrast_sd: float | None = None,
                  level: float = 1 - ALPHA) -> tuple[float, float]:
    """(MDE, n needed for ``effect``) of the mean per-instance contrast (x₁ − x₀) − (x₂ − x₁) of the 0→1 step with
    the next step, which shares the 1-shot level: with every pair of levels disagreeing on a share ψ of the items
    (the planning discordance) each step's difference has variance ψ and the two steps covariance −ψ/2, so the
    contrast's variance is 3ψ (the weakest contrast decides the claim; a later step not sharing a level gives 2ψ); or
    a pilot's SD of the contrast (``contrast_sd``, :mod:`.pilot`)."""
    sd = math.sqrt(3 * PLANNING_DISCORDANCE) if contrast_sd is None else contrast_sd
    return _normal(n, sd, effect, level)


def depth_curve(n: int, baseline: bool, depths: int = 1, effect: float = EFFECT, contrast_sd: float | None = None,
                level: float = 1 - ALPHA) -> tuple[float, float]:
    """(MDE, contexts needed for ``effect``) of a paired contrast over ``n`` contexts: end − start of a curve
    (``depths=1``), or the difference of per-context means over ``depths`` depths at two lengths; at the planning
    per-row variance, or at a pilot's SD of the per-context contrast (``contrast_sd``, :mod:`.pilot`)."""
    sd = math.sqrt(2 * (PLANNING_SCORE_SD ** 2 if baseline else 0.25) / depths) if contrast_sd is None else contrast_sd
    return _normal(n, sd, effect, level)


def _planning_note(kind: str) -> str:
    return {"paired": f"planning ψ = {PLANNING_DISCORDANCE}", "calibration": "planning confidences U(1/k, 1)",
            "seed_sd": f"planning within-item variance ψ/2 = {PLANNING_DISCORDANCE / 2}",
            "step": f"planning contrast variance 3ψ = {3 * PLANNING_DISCORDANCE}",
            "depth_accuracy": "planning per-row variance 0.25 (a coin)",
            "depth_baseline": f"planning per-row SD {PLANNING_SCORE_SD}",
            "published": "a published table: nothing to size"}[kind]


def family_levels(declared: list, primary: dict | None) -> list[tuple[str, int, float]]:
    """Per declaration: its role (``primary`` / ``exploratory``), its family's hypothesis count and the per-claim α it is
    decided at (α / m; :mod:`helmlite.claims.families`). A claim that no design can decide (``no_verdict``) has no
    p-value in the notebook and so leaves its family, as it does there; one left without a p-value only at run time
    (a curve at its floor) is counted — the most the notebook can correct over."""
    primary = primary or {}

    def is_primary(d) -> bool:
        return primary.get(d.analysis) is None or d.name in primary[d.analysis]

    sizes: dict[tuple, int] = {}
    for d in declared:
        if is_primary(d):
            sizes[(d.analysis, d.family)] = sizes.get((d.analysis, d.family), 0) + (0 if d.no_verdict else d.hypotheses)
    out = []
    for d in declared:
        size = max(sizes.get((d.analysis, d.family), 1), 1)
        out.append(("primary", size, ALPHA / size) if is_primary(d) else ("exploratory", 1, ALPHA))
    return out


def _observed(pilot, d) -> tuple:
    """(value, note) of the pilot's observation the declaration asks for; (None, None) without one."""
    if pilot is None or not d.pilot or not d.n >= 1:
        return None, None
    method, *args = d.pilot
    return getattr(pilot, method)(*args) or (None, None)


def _values(d, effect: float, level: float, observed) -> tuple[float, float, float]:
    """(MDE, n needed for ``effect``, discordance at the MDE or NaN) of one declaration by its power formula."""
    detail = dict(d.detail)
    if d.power == "paired":
        return paired(d.n, effect, observed, level)
    if d.power == "calibration":
        return (*calibration(list(detail["parts"]), effect, pools=observed, level=level), math.nan)
    if d.power == "seed_sd":
        return (*seed_sd(d.n, detail["seeds"], effect, observed, level), math.nan)
    if d.power == "step":
        return (*step_contrast(d.n, effect, observed, level), math.nan)
    if d.power in ("depth_accuracy", "depth_baseline"):
        return (*depth_curve(d.n, d.power == "depth_baseline", detail.get("depths", 1), effect, observed, level), math.nan)
    return math.nan, math.nan, math.nan  # published: nothing to size


def headline_claims(runs: list[dict], effect: float = EFFECT, pilot=None, analyses=None,
                    primary: dict | None = None) -> list[dict]:
    """One row per claim the enabled ``analyses`` (default: those of the ``runs``) declare for the planned runs
    (``runs``: the planner's per-run rows): analysis, claim (the name the report prints), quantity and test (what is
    tested, and how), family, role, family_size,
    alpha (the per-claim level), n, mde, discordance (paired claims: ψ at the MDE), effect, n_needed (for ``effect``,
    never fewer than a verdict needs), decidable, planning (the values its MDE used: the fixed planning values, or a
    :class:`.pilot.Pilot`'s observations), unit, pooled, members (the runs it reads), min_n and no_verdict.
    ``primary``: analysis key → the claims its config section declares primary (``primary_claims``)."""
    analyses = list(dict.fromkeys(r["analysis"] for r in runs)) if analyses is None else list(analyses)
    declared = declarations(runs, analyses)
    check_primary(declared, primary)
    rows = []
    for d, (role, size, alpha) in zip(declared, family_levels(declared, primary)):
        value, note = _observed(pilot, d)
        mde, needed, discordance = _values(d, effect, 1 - alpha, value)
        least = max(min_units(alpha), d.min_n)
        if d.no_verdict:
            mde, needed = math.nan, math.nan
        rows.append({"analysis": d.analysis, "claim": d.name, "quantity": d.quantity, "test": d.test, "family": d.family,
                     "role": role, "family_size": size,
                     "alpha": alpha, "n": d.n, "mde": mde, "discordance": discordance, "effect": effect,
                     "n_needed": max(needed, least) if math.isfinite(needed) else needed,
                     "decidable": bool(math.isfinite(mde) and mde <= TARGET_MDE and d.n >= least),
                     "planning": d.no_verdict or note or _planning_note(d.power), "unit": d.unit, "pooled": d.pooled,
                     "members": list(d.members), "min_n": least, "no_verdict": d.no_verdict})
    return rows
