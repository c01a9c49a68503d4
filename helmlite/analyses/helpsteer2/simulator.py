"""A simulator of HelpSteer2's annotation protocol, for when the real disagreements file is absent.

It follows the dataset card's protocol (Wang et al. 2024, arXiv 2406.08673) and emits exactly the
released *disagreements* schema, plus the latent truth that real data never has:

1. **Prompts and responses** — responses come in pairs: rows 2k and 2k + 1 answer the same prompt (as
   in the released files); their latent scores share a prompt component (correlation
   ``prompt_correlation``).
2. **Latent truth** — per response, five correlated standard-normal scores (correlation matrix
   ``latent_correlation``) mapped to a continuous 0–4 score ``mean + sd·z`` (clipped); the *true
   label* is that score rounded. Helpfulness is built to track correctness closely and complexity /
   verbosity weakly, as the paper reports for the released labels.
3. **Annotators** — a pool with a personal bias ``b ~ N(0, bias_sd)`` and noise scale
   ``s ~ Uniform(noise_sd_range)``; a share ``careless_share`` ignores the response and rates
   uniformly at random. A rating is ``clip(round(score + b + s·ε), 0, 4)`` where the noise ``ε`` of
   one annotator's five ratings of a response shares a *halo* component (correlation ``halo``
   between attributes): a rater who likes a response tends to rate every attribute up.
4. **Protocol** — three distinct annotators rate every response; when their helpfulness spans more
   than 2 points, two more are added (3-then-5) — for a share ``escalation_share`` of those responses
   only. Then, with probability ``unratable_share``, one annotation is lost (not ratable), which yields
   the card's 2- and 4-annotator samples.

**Why not every disagreeing response is escalated.** Five ratings on 0–4 always contain three within 2
points (pigeonhole), so if every disagreeing response got five annotators the spread filter on the most
agreeing three could trip only on responses that lost an annotation, and would remove almost nothing, while
the paper removes about 10%. Some disagreeing responses must stay with fewer annotators (or the filter must
look at all annotators — notebook 05 shows the readings side by side, :mod:`.protocol`);
``escalation_share`` is that assumption, and the removal share pins it down.

**Calibration: two parameters fitted to two figures** (:data:`PUBLISHED`, :func:`calibration_check`,
:func:`calibrate`). The defaults of ``careless_share`` (0.30) and ``escalation_share`` (0.85) were fitted by
:func:`calibrate` (a grid search, with the card's rule for samples left with two annotators: no label) to
the two figures the simulator can be held to: the card's mean of **3.41 annotators** (tolerance ± 0.03) and
the **share of annotated responses not released, about 10%** (tolerance ± 2 points; derived from row counts —
23,652 rows in the disagreements file vs 21,362 released, 9.7% — not stated by the authors; a response is not
released when the per-prompt spread filter removes it or when it is left without a label). At the fitted
values about 7 points of it come from the spread filter and about 2.5 from responses left with two
annotators (no label under the card's rule); with ``fewer_than_three="all_available"`` the same parameters
remove about 7%. Matching them is therefore **by construction**, not evidence. The check that is not
fitted is agreement: the weighted Cohen's κ reported for HelpSteer2's annotations (0.465 before and
0.706 after the guideline changes, third-party summaries of the paper) beside the simulator's
(:func:`helmlite.analyses.helpsteer2.protocol.unfitted_check`). The other parameters are *plausible
teaching values*, not published statistics.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd

from .aggregation import aggregate
from .annotations import ATTRIBUTES, MAX_ANNOTATORS, Annotations
from .reference import PUBLISHED

_DEFAULT_CORRELATION = (
    # helpfulness, correctness, coherence, complexity, verbosity
    (1.00, 0.95, 0.60, 0.25, 0.15),
    (0.95, 1.00, 0.57, 0.20, 0.10),
    (0.60, 0.57, 1.00, 0.15, 0.05),
    (0.25, 0.20, 0.15, 1.00, 0.45),
    (0.15, 0.10, 0.05, 0.45, 1.00),
)


@dataclass(frozen=True)
class SimulatorConfig:
    """Parameters of :func:`simulate` (see the module docstring for their roles). ``n_samples`` counts
    responses (two per prompt; an odd count leaves the last prompt with one)."""

    n_samples: int = 3000
    seed: int = 20240611
    latent_mean: tuple[float, ...] = (2.8, 2.9, 3.5, 1.6, 1.9)
    latent_sd: tuple[float, ...] = (1.0, 1.0, 0.6, 0.8, 0.8)
    latent_correlation: tuple[tuple[float, ...], ...] = field(default=_DEFAULT_CORRELATION)
    prompt_correlation: float = 0.3
    n_annotators_pool: int = 1000
    bias_sd: float = 0.3
    noise_sd_range: tuple[float, float] = (0.4, 1.0)
    careless_share: float = 0.30  # fitted by calibrate() to the two published figures (module docstring)
    escalation_share: float = 0.85  # fitted likewise
    halo: float = 0.85
    unratable_share: float = 0.02


@dataclass(frozen=True)
class Simulation:
    annotations: Annotations
    truth: pd.DataFrame  # one int column per attribute: the latent true label 0..4


def _rate(score: np.ndarray, annotator: np.ndarray, pool: dict, halo: float, rng: np.random.Generator) -> np.ndarray:
    shared = rng.standard_normal((len(score), 1))
    epsilon = np.sqrt(halo) * shared + np.sqrt(1 - halo) * rng.standard_normal(score.shape)
    noise = epsilon * pool["noise"][annotator][:, None]
    rating = np.clip(np.round(score + pool["bias"][annotator][:, None] + noise), 0, 4)
    careless = pool["careless"][annotator]
    rating[careless] = rng.integers(0, 5, size=(careless.sum(), score.shape[1]))
    return rating


def simulate(config: SimulatorConfig = SimulatorConfig()) -> Simulation:
    """Run the 3-then-5 protocol on ``config.n_samples`` synthetic responses (seeded, deterministic)."""
    rng = np.random.default_rng(config.seed)
    n, k = config.n_samples, len(ATTRIBUTES)
    prompt = np.arange(n) // 2
    z = rng.multivariate_normal(np.zeros(k), np.asarray(config.latent_correlation), size=n, method="cholesky")
    shared = rng.multivariate_normal(np.zeros(k), np.asarray(config.latent_correlation), size=prompt[-1] + 1 if n else 0,
                                     method="cholesky")
    rho = config.prompt_correlation
    z = np.sqrt(rho) * shared[prompt] + np.sqrt(1 - rho) * z
    score = np.clip(np.asarray(config.latent_mean) + np.asarray(config.latent_sd) * z, 0, 4)
    pool = {
        "bias": rng.normal(0, config.bias_sd, config.n_annotators_pool),
        "noise": rng.uniform(*config.noise_sd_range, config.n_annotators_pool),
        "careless": rng.random(config.n_annotators_pool) < config.careless_share,
    }
    annotators = np.argsort(rng.random((n, config.n_annotators_pool)), axis=1)[:, :MAX_ANNOTATORS]
    ratings = np.full((n, MAX_ANNOTATORS, k), np.nan)
    for slot in range(3):
        ratings[:, slot] = _rate(score, annotators[:, slot], pool, config.halo, rng)
    helpfulness = ratings[:, :3, ATTRIBUTES.index("helpfulness")]
    disagree = helpfulness.max(axis=1) - helpfulness.min(axis=1) > 2
    escalate = np.nonzero(disagree & (rng.random(n) < config.escalation_share))[0]
    for slot in (3, 4):
        ratings[escalate, slot] = _rate(score[escalate], annotators[escalate, slot], pool, config.halo, rng)
    lost = np.nonzero(rng.random(n) < config.unratable_share)[0]
    for i in lost:  # drop one present annotation, then close the gap so slots stay contiguous
        present = np.nonzero(~np.isnan(ratings[i, :, 0]))[0]
        kept = np.delete(ratings[i, present], rng.integers(len(present)), axis=0)
        ratings[i] = np.nan
        ratings[i, :len(kept)] = kept
    annotations = Annotations(
        prompts=[f"[simulated prompt {p}]" for p in prompt],
        responses=[f"[simulated response {i}]" for i in range(n)],
        ratings=ratings,
        prompt_ids=prompt,
    )
    truth = pd.DataFrame(np.round(score).astype(int), columns=list(ATTRIBUTES))
    return Simulation(annotations, truth)


def published_figures(simulation: Simulation, aggregated: pd.DataFrame | None = None) -> dict[str, float]:
    """The simulation's values of the figures in :data:`PUBLISHED` (``aggregated``: its aggregation, by default
    :func:`~helmlite.analyses.helpsteer2.aggregate` with the card's reading)."""
    if aggregated is None:
        aggregated = aggregate(simulation.annotations)
    return {"mean_annotators": float(simulation.annotations.n_annotators.mean()),
            "share_not_released": float(aggregated["removed"].mean())}


def distance(figures: dict[str, float]) -> float:
    """Distance of simulated figures to :data:`PUBLISHED`, in units of each figure's tolerance (squared, summed):
    what :func:`calibrate` minimises."""
    return sum(((figures[name] - value) / tolerance) ** 2 for name, (value, tolerance, _) in PUBLISHED.items())


#: The columns of :func:`calibration_check`'s table.
CALIBRATION_COLUMNS = ["figure", "published", "simulated", "tolerance", "within_tolerance", "fitted", "source"]


def calibration_check(simulation: Simulation | None) -> pd.DataFrame:
    """The simulated figures beside the published ones (:data:`PUBLISHED`), with the tolerance, whether the
    simulation lies within it, and ``fitted``: both were fitted, so matching them is not evidence. No simulation
    (real annotations): the table empty, with its columns."""
    if simulation is None:
        return pd.DataFrame(columns=CALIBRATION_COLUMNS)
    ours = published_figures(simulation)
    rows = [{"figure": name, "published": value, "simulated": ours[name], "tolerance": tolerance,
             "within_tolerance": bool(abs(ours[name] - value) <= tolerance),
             "fitted": "yes: careless_share and escalation_share were fitted to these two figures (a match by construction)",
             "source": source}
            for name, (value, tolerance, source) in PUBLISHED.items()]
    return pd.DataFrame(rows)


def calibrate(base: SimulatorConfig = SimulatorConfig(), careless=np.arange(0.15, 0.41, 0.05),
              escalation=np.arange(0.6, 1.001, 0.05)) -> tuple[SimulatorConfig, pd.DataFrame]:
    """Grid search of ``careless_share`` × ``escalation_share`` (the other parameters as in ``base``) for
    the smallest distance to :data:`PUBLISHED` in units of each figure's tolerance; returns the best
    configuration and the whole grid (how the defaults were chosen)."""
    rows = []
    for c in careless:
        for e in escalation:
            config = replace(base, careless_share=round(float(c), 4), escalation_share=round(float(e), 4))
            ours = published_figures(simulate(config))
            rows.append({"careless_share": config.careless_share, "escalation_share": config.escalation_share, **ours,
                         "distance": distance(ours)})
    grid = pd.DataFrame(rows).sort_values(["distance", "careless_share", "escalation_share"], ignore_index=True)
    best = grid.iloc[0]
    return replace(base, careless_share=float(best["careless_share"]), escalation_share=float(best["escalation_share"])), grid
