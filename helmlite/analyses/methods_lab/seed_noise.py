"""Lesson 6 — seeds and prompt choices as noise: how many in-context seeds does a sensitivity claim need?

HELM (§8.2) reran its few-shot prompts with three choices of in-context examples. Whether that choice matters is a
claim about the between-seed spread σ of a model's expected accuracy. With k seeds on the same n items, the kit's test
is Cochran's Q on the seeds × items matrix (:func:`helmlite.stats.seeds_matter_test`), and the smallest σ it detects
with 80% power is :func:`helmlite.stats.mde_seed_sd`. Two things shrink it: more items (each seed's accuracy is
measured better) and more seeds (more draws of the spread itself).

Simulation, to see it: each seed's accuracy is the base accuracy plus a fixed seed effect, the k effects evenly
spread and scaled to a standard deviation (n − 1 denominator) of exactly ``seed_sd`` — the σ that
:func:`~helmlite.stats.mde_seed_sd` is defined for, so at the table's MDE the test detects 80% of the time (tested).
Seed effects drawn at random around σ would detect less often: their realised spread is sometimes smaller. The items
are answered independently at each seed's accuracy. The spread of the observed seed accuracies mixes σ with the
items' binomial noise, √(p(1 − p)/n), which is why a spread seen over three seeds is no evidence by itself.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from ... import stats
from ...seeds import rng as seeded


def detectable_seed_sd(n_items=(50, 100, 400), n_seeds=(2, 3, 5, 10), accuracy: float = 0.6,
                       level: float = 0.95) -> pd.DataFrame:
    """The smallest between-seed SD detectable with 80% power: columns ``n_items, n_seeds, mde_seed_sd``."""
    within = accuracy * (1 - accuracy)
    return pd.DataFrame([{"n_items": n, "n_seeds": k, "mde_seed_sd": stats.mde_seed_sd(n, k, within, level=level)}
                         for n in n_items for k in n_seeds])


def seed_effects(n_seeds: int, seed_sd: float) -> np.ndarray:
    """``n_seeds`` fixed effects, evenly spread around 0, whose SD (n − 1 denominator) is exactly ``seed_sd``."""
    spread = np.linspace(-1.0, 1.0, n_seeds)
    return seed_sd * spread / spread.std(ddof=1)


def simulate_seed_matrix(n_seeds: int, n_items: int, accuracy: float, seed_sd: float,
                         generator: np.random.Generator) -> np.ndarray:
    """A seeds × items 0/1 matrix: each seed's accuracy is ``accuracy`` plus its fixed effect (:func:`seed_effects`,
    clipped to [0, 1]), its items answered independently at it."""
    per_seed = np.clip(accuracy + seed_effects(n_seeds, seed_sd), 0, 1)
    return (generator.random((n_seeds, n_items)) < per_seed[:, None]).astype(int)


def seeds_needed(seed_sds=(0.03, 0.05, 0.1), n_items=(100, 400), accuracy: float = 0.6, level: float = 0.95,
                 most: int = 50) -> pd.DataFrame:
    """How many seeds a sensitivity claim needs: the fewest seeds whose detectable SD (:func:`detectable_seed_sd`) is
    at most each target SD, at each number of items (NaN beyond ``most`` seeds). Columns ``seed_sd, n_items,
    seeds_needed``."""
    within = accuracy * (1 - accuracy)
    rows = []
    for n in n_items:
        detectable = {k: stats.mde_seed_sd(n, k, within, level=level) for k in range(2, most + 1)}
        for target in seed_sds:
            enough = [k for k, sd in detectable.items() if sd <= target]
            rows.append({"seed_sd": target, "n_items": n, "seeds_needed": min(enough) if enough else np.nan})
    return pd.DataFrame(rows)


def observed_spread(n_seeds: int = 3, n_items: int = 100, accuracy: float = 0.6, seed_sds=(0.0, 0.02, 0.05),
                    n_sim: int = 500, seed: int = 0) -> pd.DataFrame:
    """What k seeds show: per true seed SD, the mean observed SD of the seed accuracies, the share of simulations in
    which Cochran's Q finds that seeds matter (p < 0.05) and the items' own binomial SD. Columns ``seed_sd,
    observed_sd, detected, binomial_sd, n_seeds, n_items, n_sim``."""
    rows = []
    for seed_sd in seed_sds:
        generator = seeded(seed, "methods_lab", "seeds", seed_sd)
        spreads, found = [], []
        for _ in range(n_sim):
            matrix = simulate_seed_matrix(n_seeds, n_items, accuracy, seed_sd, generator)
            spreads.append(matrix.mean(axis=1).std(ddof=1))
            found.append(stats.seeds_matter_test(matrix)[0] < 0.05)
        rows.append({"seed_sd": seed_sd, "observed_sd": float(np.mean(spreads)), "detected": float(np.mean(found)),
                     "binomial_sd": float(np.sqrt(accuracy * (1 - accuracy) / n_items)), "n_seeds": n_seeds,
                     "n_items": n_items, "n_sim": n_sim})
    return pd.DataFrame(rows)
