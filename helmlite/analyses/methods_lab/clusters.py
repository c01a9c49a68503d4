"""Lesson 5 — items that share a context: why a depth sweep's interval must resample contexts, not items.

A needle-in-a-haystack sweep asks several questions of one long context; the answers to one context move together
(a context the model reads well is read well at every depth). With m items per context and an intraclass correlation
ρ between them, the variance of the mean is (1 + (m − 1)ρ) times what independent items would give (Kish 1965's design
effect), so an interval that treats the items as independent is too narrow. The kit's interval for 0/1 rows in
clusters is Korn and Graubard's (1998; :func:`helmlite.stats.korn_graubard_ci`), built on the clusters' effective n.

Simulation: each context's accuracy is drawn from a Beta distribution with mean ``accuracy`` and intraclass
correlation ``icc`` (a beta-binomial), then its items from it.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from ... import stats
from ...seeds import rng as seeded


def simulate_contexts(n_contexts: int, per_context: int, accuracy: float, icc: float,
                      generator: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """0/1 answers and their context ids: ``n_contexts`` contexts of ``per_context`` items each."""
    if icc <= 0:
        means = np.full(n_contexts, accuracy)
    else:
        a, b = accuracy * (1 - icc) / icc, (1 - accuracy) * (1 - icc) / icc
        means = generator.beta(a, b, n_contexts)
    values = (generator.random((n_contexts, per_context)) < means[:, None]).astype(int).ravel()
    return values, np.repeat(np.arange(n_contexts), per_context)


def design_effect(per_context: int, icc: float) -> float:
    """Kish's design effect 1 + (m − 1)ρ: how many times the variance of the mean exceeds independent items'."""
    return 1 + (per_context - 1) * icc


def interval_coverage(n_contexts: int = 10, per_context: int = 8, accuracy: float = 0.6, iccs=(0.0, 0.1, 0.3),
                      n_sim: int = 500, seed: int = 0, level: float = 0.95) -> pd.DataFrame:
    """Coverage and mean width of the naive interval (Clopper–Pearson over all items, as if independent) and of the
    cluster interval (Korn–Graubard) at each intraclass correlation. Columns ``icc, design_effect, interval, coverage,
    mean_width, n_sim``."""
    rows = []
    for icc in iccs:
        generator = seeded(seed, "methods_lab", "clusters", icc)
        naive, clustered = [], []
        for _ in range(n_sim):
            values, contexts = simulate_contexts(n_contexts, per_context, accuracy, icc, generator)
            low, high = stats.proportion_ci(int(values.sum()), len(values), level)
            naive.append((low, high))
            estimate = stats.korn_graubard_ci(values, contexts, level=level)
            clustered.append((estimate.ci_low, estimate.ci_high))
        for name, bounds in (("naive (items independent)", naive), ("cluster (Korn–Graubard)", clustered)):
            bounds = np.asarray(bounds, dtype=float)
            covered = (bounds[:, 0] <= accuracy) & (accuracy <= bounds[:, 1])
            rows.append({"icc": icc, "design_effect": design_effect(per_context, icc), "interval": name,
                         "coverage": float(covered.mean()), "mean_width": float(np.mean(bounds[:, 1] - bounds[:, 0])),
                         "n_sim": n_sim})
    return pd.DataFrame(rows)
