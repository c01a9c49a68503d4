"""The headline claims a config's runs will test, with the n each gets and its minimum detectable effect —
before any model runs (issue: powered default).

The MDEs use the notebooks' own tests (:mod:`helmlite.stats.power`, :mod:`helmlite.claims`) at 80% power
and the 95% level, with *planning values* where the test's power depends on the data:

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
  per-context SD measured on NIAH at 256 tokens on 2026-12-01 (0.01–0.02 for both embedded models). The U-shape and recency claims are intersection–union tests whose parts include end − start,
  the contrast with the larger variance (2·var: sd √0.5 or 1.0), which the planner uses for both (the power
  of needing *both* parts significant is lower still: these MDEs are optimistic). The length claim compares
  per-context means over the curve's m depths at two lengths: sd √(2·var/m). MDE = (z₀.₉₅ + z₀.₈)·sd/√n, the
  normal approximation the claims schema uses for this scale;
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

from ..adaptation import MULTIPLE_CHOICE_METHODS as MC_METHODS
from ..errors import UserError
from ..metrics import calibration_error_test
from ..perturbations import PERTURBATIONS
from ..stats import power

PLANNING_DISCORDANCE = 0.25
TARGET_MDE = 0.15  # the bar: a headline claim is decidable when its MDE is at most this
EFFECT = 0.05  # "n needed for a 5-point difference"
#: Above this many pooled items the ECE test's MDE is simulated on this many, drawn in the runs' proportions, and
#: scaled by √(simulated / n): the 1/√n scaling its n needed uses (a paper-scale pool of 30,000 items took 7 s).
CALIBRATION_SIMULATED = 2000
PLANNING_SCORE_SD = 0.1  # per-row SD of a log-probability depth score, P(gold) − baseline P(gold) (module docstring)
POWER, LEVEL = 0.8, 0.95


def _needed(effect: float, required) -> float:
    """``required()``, the n needed for ``effect``, or NaN where the planning values cannot give that effect (a paired
    difference larger than the discordance)."""
    try:
        return float(required())
    except UserError:
        return math.nan


def paired(n: int, effect: float = EFFECT, base_discordance: float | None = None) -> tuple[float, float]:
    """(MDE, n needed for ``effect``) of a paired 0/1 difference (exact McNemar): at the planning ψ held fixed, or,
    with a pilot's ``base_discordance`` ψ0, with the discordance growing with the effect (ψ0 + |δ|), as the notebooks
    and ``helmlite compare`` report it (:mod:`.pilot`)."""
    if not n >= 1:  # no items, or unknown (NaN: the run's data are absent here)
        return math.nan, math.nan
    if base_discordance is None:
        return (power.mde_proportion(n, paired=True, discordance=PLANNING_DISCORDANCE),
                _needed(effect, lambda: power.required_n(effect, paired=True, discordance=PLANNING_DISCORDANCE)))
    return (power.mde_paired_growing(int(n), base_discordance),
            _needed(effect, lambda: power.required_n(effect, paired=True, discordance=min(1.0, base_discordance + effect))))


def _scaled_n(n: int, mde: float, effect: float) -> float:
    """The n at which an MDE that scales as 1/√n reaches ``effect``."""
    return math.ceil(n * (mde / effect) ** 2) if math.isfinite(mde) else math.nan


def calibration(parts: list[tuple[int, int]], effect: float = EFFECT, seed: int = 0,
                pools: list[np.ndarray] | None = None) -> tuple[float, float]:
    """(MDE, n needed for ``effect``) of the ECE test on the items of ``parts`` — (n items, k choices) per
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
    mde = calibration_error_test(confidence, rng.random(n_simulated) < confidence, n_simulations=500, seed=seed).mde
    mde *= math.sqrt(n_simulated / n)
    return mde, _scaled_n(n, mde, effect)


def seed_sd(n: int, seeds: int, effect: float = EFFECT, within_variance: float | None = None) -> tuple[float, float]:
    """(MDE, n needed for ``effect``) of the between-seed SD of accuracy under Cochran's Q with ``seeds`` seeds
    on ``n`` items, at ``within_variance`` (a pilot's, :mod:`.pilot`) or the within-item variance two seeds have at
    the planning ψ (ψ/2; :func:`helmlite.stats.mde_seed_sd`)."""
    if not n >= 2:
        return math.nan, math.nan
    mde = power.mde_seed_sd(n, seeds, PLANNING_DISCORDANCE / 2 if within_variance is None else within_variance)
    return mde, _scaled_n(n, mde, effect)


def _normal(n: int, sd: float, one_sided: bool, effect: float) -> tuple[float, float]:
    """(MDE, n needed for ``effect``) of a mean of ``n`` paired per-unit scores of SD ``sd``: (z_α + z₀.₈)·sd/√n,
    z_α one-sided at :data:`LEVEL` or two-sided (the interval a claim reads)."""
    if not n >= 2:
        return math.nan, math.nan
    z = float(ndtri(LEVEL if one_sided else 1 - (1 - LEVEL) / 2) + ndtri(POWER))
    return z * sd / math.sqrt(n), math.ceil((z * sd / effect) ** 2)


def step_contrast(n: int, effect: float = EFFECT, contrast_sd: float | None = None) -> tuple[float, float]:
    """(MDE, n needed for ``effect``) of the mean per-instance contrast (x₁ − x₀) − (x₂ − x₁) of the 0→1 step with
    the next step, which shares the 1-shot level: with every pair of levels disagreeing on a share ψ of the items
    (the planning discordance) each step's difference has variance ψ and the two steps covariance −ψ/2, so the
    contrast's variance is 3ψ (the weakest contrast decides the claim; a later step not sharing a level gives 2ψ); or
    a pilot's SD of the contrast (``contrast_sd``, :mod:`.pilot`)."""
    sd = math.sqrt(3 * PLANNING_DISCORDANCE) if contrast_sd is None else contrast_sd
    return _normal(n, sd, one_sided=False, effect=effect)


def depth_curve(n: int, baseline: bool, depths: int = 1, effect: float = EFFECT,
                contrast_sd: float | None = None) -> tuple[float, float]:
    """(MDE, contexts needed for ``effect``) of a one-sided paired contrast over ``n`` contexts: end − start
    of a curve (``depths=1``), or the difference of per-context means over ``depths`` depths at two lengths; at the
    planning per-row variance, or at a pilot's SD of the per-context contrast (``contrast_sd``, :mod:`.pilot`)."""
    sd = math.sqrt(2 * (PLANNING_SCORE_SD ** 2 if baseline else 0.25) / depths) if contrast_sd is None else contrast_sd
    return _normal(n, sd, one_sided=True, effect=effect)


def _label(run: dict) -> str:
    return run["scenario_label"]


def _perturbed(core: list[dict], model: str, name: str) -> list[dict]:
    """``model``'s multiple-choice runs under HELM's perturbation ``name`` (robustness, dialect, gender, race)."""
    return [r for r in core if r["model"] == model and name in r["perturbations"]]


def _planning_note(kind: str) -> str:
    return {"paired": f"planning ψ = {PLANNING_DISCORDANCE}", "calibration": "planning confidences U(1/k, 1)",
            "seed_sd": f"planning within-item variance ψ/2 = {PLANNING_DISCORDANCE / 2}",
            "step": f"planning contrast variance 3ψ = {3 * PLANNING_DISCORDANCE}",
            "depth_accuracy": "planning per-row variance 0.25 (a coin)",
            "depth_baseline": f"planning per-row SD {PLANNING_SCORE_SD}"}[kind]


class _Claims:
    """The rows :func:`headline_claims` returns, each with what sizing it needs: its runs (``members``), whether its n
    counts ``instances`` or ``contexts`` (``unit``) and whether its runs' n add up (``pooled``) or each run needs it."""

    def __init__(self, effect: float, pilot):
        self.effect, self.pilot, self.rows = effect, pilot, []

    def add(self, analysis: str, claim: str, n: int, values: tuple[float, float], members: list[dict], kind: str,
            unit: str = "instances", pooled: bool = False, planning: str | None = None):
        mde, needed = values
        self.rows.append({"analysis": analysis, "claim": claim, "n": n, "mde": mde, "effect": self.effect,
                          "n_needed": needed, "decidable": bool(math.isfinite(mde) and mde <= TARGET_MDE),
                          "planning": planning or _planning_note(kind), "unit": unit, "pooled": pooled,
                          "members": [r.get("run_id") for r in members]})

    def observed(self, what: str, *runs) -> tuple:
        """(value, note) of the pilot's :class:`.pilot.Pilot` method ``what`` on ``runs``; (None, None) without a pilot
        or where it has no such runs (the claim keeps its planning value)."""
        return (getattr(self.pilot, what)(*runs) if self.pilot is not None else None) or (None, None)

    def add_calibration(self, claim: str, members: list[dict]):
        """Notebook 01's ECE claim on ``members`` pooled, its confidences a pilot's where the runs exist."""
        n = sum(r["instances"] for r in members)
        pools, note = self.observed("confidences", [r.get("run_id") for r in members]) if n >= 2 else (None, None)
        self.add("helm_core", claim, n, calibration([(r["instances"], r["choices"]) for r in members], self.effect,
                                                    pools=pools), members, "calibration", pooled=len(members) > 1,
                 planning=note)

    def add_paired(self, analysis: str, claim: str, n: int, members: list[dict], pairs: list[tuple], pooled: bool = False):
        """A paired 0/1 claim; ``pairs``: (run a, perturbation, run b, perturbation) rows, which a pilot may inform."""
        base, note = self.observed("paired_base_discordance", pairs) if n >= 1 else (None, None)
        self.add(analysis, claim, n, paired(n, self.effect, base), members, "paired", pooled=pooled, planning=note)


def _pair(a: dict, b: dict) -> tuple:
    return a.get("run_id"), None, b.get("run_id"), None


def _depth_claims(out: _Claims, depth: list[dict]) -> None:
    """Notebook 04's headline claims of the depth runs: U-shape / recency per curve, length degradation per model,
    task and scoring with two lengths or more."""
    for run in depth:
        baseline = "baseline" in run["perturbations"]
        what = "P(gold) − baseline P(gold)" if baseline else "accuracy"
        contrast_sd, note = out.observed("depth_contrast_sd", run.get("run_id"))
        out.add("depth", f"U-shape / recency of {what}: {run['model']} · {run['scenario']} · {run['length']} tok · "
                f"{run['method']}", run["contexts"], depth_curve(run["contexts"], baseline, effect=out.effect,
                                                                 contrast_sd=contrast_sd), [run],
                "depth_baseline" if baseline else "depth_accuracy", unit="contexts", planning=note)
        if run.get("positions", 3) < 3:  # e.g. JSON KV at 256 tokens: two pairs, every depth on one of them
            out.rows[-1].update(claim=out.rows[-1]["claim"] + f" — the depths land on {run['positions']} items: no middle",
                                mde=math.nan, decidable=False)
    curves: dict[tuple, list[dict]] = {}
    for run in depth:
        curves.setdefault((run["model"], run["scenario"], run["method"]), []).append(run)
    for (model, task, method), members in sorted(curves.items()):
        if len({r["length"] for r in members}) >= 2:
            n = min(r["contexts"] for r in members)
            depths = min(r["instances"] // max(r["contexts"], 1) for r in members)
            baseline = all("baseline" in r["perturbations"] for r in members)
            ends = sorted(members, key=lambda r: r["length"])  # notebook 04 tests the shortest against the longest
            contrast_sd, note = out.observed("length_contrast_sd", ends[0].get("run_id"), ends[-1].get("run_id"))
            out.add("depth", f"length degradation: {model} · {task} · {method}", n,
                    depth_curve(n, baseline, depths, out.effect, contrast_sd), members,
                    "depth_baseline" if baseline else "depth_accuracy", unit="contexts", planning=note)


def headline_claims(runs: list[dict], effect: float = EFFECT, pilot=None) -> list[dict]:
    """One row per headline claim of the planned runs (``runs``: the planner's per-run rows with ``run_id``,
    ``analysis``, ``model``, ``scenario_label``, ``method``, ``instances``, ``contexts``, ``choices``,
    ``perturbations``, ``study``/``level`` labels and ``length``): analysis, claim, n, mde, effect, n_needed (for
    ``effect``), decidable, planning (the values its MDE used: the fixed planning values, or a :class:`.pilot.Pilot`'s
    observations), unit, pooled, members (the runs it reads)."""
    out = _Claims(effect, pilot)
    core = [r for r in runs if r["analysis"] == "helm_core" and r["method"] in MC_METHODS]
    by_scenario: dict[str, list[dict]] = {}
    for run in core:
        by_scenario.setdefault(_label(run), []).append(run)
    for label, members in sorted(by_scenario.items()):
        models = sorted({r["model"] for r in members})
        if len(models) >= 2:
            first, second = (next(r for r in members if r["model"] == m) for m in models[:2])
            n = min(r["instances"] for r in members)
            out.add_paired("helm_core", f"instruct vs base differ on {label}", n, members, [_pair(first, second)])
        for run in sorted(members, key=lambda r: r["model"]):
            for name in PERTURBATIONS:
                if name in run["perturbations"] and _perturbed(core, run["model"], name) == [run]:
                    out.add_paired("helm_core", f"{name} perturbation lowers {run['model']}'s accuracy on {label}",
                                   run["instances"], [run], [(run.get("run_id"), None, run.get("run_id"), name)])
            if sum(r["model"] == run["model"] for r in core) < 2:
                out.add_calibration(f"{run['model']} is miscalibrated on {label} (ECE test)", [run])
    for model in sorted({r["model"] for r in core}):
        for name in PERTURBATIONS:
            perturbed = _perturbed(core, model, name)
            if len(perturbed) >= 2:  # notebook 01's headline perturbation claims pool a model's perturbed multiple-choice runs
                out.add_paired("helm_core", f"{name} perturbation lowers {model}'s accuracy on its {len(perturbed)} "
                               "perturbed multiple-choice runs, pooled", sum(r["instances"] for r in perturbed), perturbed,
                               [(r.get("run_id"), None, r.get("run_id"), name) for r in perturbed], pooled=True)
        pooled = [r for r in core if r["model"] == model]
        if len(pooled) >= 2:  # notebook 01's headline calibration claim pools a model's multiple-choice runs
            out.add_calibration(f"{model} is miscalibrated on its {len(pooled)} multiple-choice runs, pooled (ECE test)",
                                pooled)
    studies = {"methods": ("multiple_choice_joint", "multiple_choice_separate", "joint vs separate"),
               "shots": ("0", "1", "0 → 1 shots"), "formats": ("helm_default", "plain", "format helm_default vs plain")}
    sensitivity = [r for r in runs if r.get("labels")]  # a run shared with notebook 01 keeps its study labels
    cells: dict[tuple, dict[str, dict]] = {}
    for run in sensitivity:
        for study, level in run.get("labels", []):
            cells.setdefault((study, run["model"], _label(run)), {})[level] = run
    for (study, model, label), levels in sorted(cells.items()):
        members = list(levels.values())
        n = min(r["instances"] for r in members)
        if study == "seeds" and len(levels) == 2:  # notebook 02 tests two seeds as one paired difference
            out.add_paired("sensitivity", f"in-context seed matters for {model} on {label} (2 seeds; paired difference, "
                           "exact McNemar)", n, members, [_pair(*members)])
        elif study == "seeds" and len(levels) >= 3:
            within, note = out.observed("seed_within_variance", [r.get("run_id") for r in members])
            out.add("sensitivity", f"in-context seed matters for {model} on {label} ({len(levels)} seeds; between-seed SD "
                    "of accuracy, Cochran's Q)", n, seed_sd(n, len(levels), effect, within), members, "seed_sd",
                    planning=note)
        elif study in studies and studies[study][0] in levels and studies[study][1] in levels:
            a, b = levels[studies[study][0]], levels[studies[study][1]]
            out.add_paired("sensitivity", f"{studies[study][2]} changes {model}'s accuracy on {label}",
                           min(a["instances"], b["instances"]), [a, b], [_pair(a, b)])
            if study == "shots" and len(levels) >= 3:
                after = levels[min((k for k in levels if k.isdigit() and int(k) > 1), key=int)]  # the step after 0 → 1
                contrast_sd, note = out.observed("step_contrast_sd", a.get("run_id"), b.get("run_id"), after.get("run_id"))
                out.add("sensitivity", f"the 0 → 1 step is {model}'s largest on {label} (weakest contrast with a later "
                        "step)", n, step_contrast(n, effect, contrast_sd), members, "step", planning=note)
    _depth_claims(out, [r for r in runs if r["analysis"] == "depth"])
    return out.rows
