"""A simulator of HelpSteer2's annotation protocol, for when the real disagreements file is absent.

It follows the dataset card's protocol (Wang et al. 2024, arXiv 2406.08673) and emits exactly the
released *disagreements* schema, plus the latent truth that real data never has:

1. **Latent truth** — per sample, five correlated standard-normal scores (correlation matrix
   ``latent_correlation``) mapped to a continuous 0–4 score ``mean + sd·z`` (clipped); the *true
   label* is that score rounded. Helpfulness is built to track correctness closely and complexity /
   verbosity weakly, as the paper reports for the released labels.
2. **Annotators** — a pool with a personal bias ``b ~ N(0, bias_sd)`` and noise scale
   ``s ~ Uniform(noise_sd_range)``; a share ``careless_share`` ignores the response and rates
   uniformly at random. A rating is ``clip(round(score + b + s·ε), 0, 4)`` where the noise ``ε`` of
   one annotator's five ratings of a response shares a *halo* component (correlation ``halo``
   between attributes): a rater who likes a response tends to rate every attribute up.
3. **Protocol** — three distinct annotators rate every sample; when their helpfulness spans more
   than 2 points two more are added (3-then-5). Then, with probability ``unratable_share``, one
   annotation is lost (marked not ratable), which yields the card's 2- and 4-annotator samples.

The defaults are *plausible teaching values*, tuned so that the mean number of annotators comes out
near the card's 3.41; they are not statistics published by the paper.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .annotations import ATTRIBUTES, MAX_ANNOTATORS, Annotations

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
    """Parameters of :func:`simulate` (see the module docstring for their roles)."""

    n_samples: int = 3000
    seed: int = 20240611
    latent_mean: tuple[float, ...] = (2.8, 2.9, 3.5, 1.6, 1.9)
    latent_sd: tuple[float, ...] = (1.0, 1.0, 0.6, 0.8, 0.8)
    latent_correlation: tuple[tuple[float, ...], ...] = field(default=_DEFAULT_CORRELATION)
    n_annotators_pool: int = 1000
    bias_sd: float = 0.3
    noise_sd_range: tuple[float, float] = (0.4, 1.0)
    careless_share: float = 0.25
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
    z = rng.multivariate_normal(np.zeros(k), np.asarray(config.latent_correlation), size=n, method="cholesky")
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
    escalate = np.nonzero(helpfulness.max(axis=1) - helpfulness.min(axis=1) > 2)[0]
    for slot in (3, 4):
        ratings[escalate, slot] = _rate(score[escalate], annotators[escalate, slot], pool, config.halo, rng)
    lost = np.nonzero(rng.random(n) < config.unratable_share)[0]
    for i in lost:  # drop one present annotation, then close the gap so slots stay contiguous
        present = np.nonzero(~np.isnan(ratings[i, :, 0]))[0]
        kept = np.delete(ratings[i, present], rng.integers(len(present)), axis=0)
        ratings[i] = np.nan
        ratings[i, :len(kept)] = kept
    annotations = Annotations(
        prompts=[f"[simulated prompt {i}]" for i in range(n)],
        responses=[f"[simulated response {i}]" for i in range(n)],
        ratings=ratings,
    )
    truth = pd.DataFrame(np.round(score).astype(int), columns=list(ATTRIBUTES))
    return Simulation(annotations, truth)
