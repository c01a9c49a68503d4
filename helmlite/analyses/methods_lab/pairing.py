"""Lesson 2 — paired or unpaired? Two models answer the same items; which test compares them?

The items are shared, so the two models' answers are correlated: an easy item is right for both. The exact McNemar
test (McNemar 1947; :func:`helmlite.stats.paired_binary_test`) looks only at the items where the two disagree, and so
cancels what the items share. lm-eval's ``scripts/model_comparator.py`` instead treats the two columns as independent
samples: its ``calculate_z_value`` divides the difference of accuracies by √(se₁² + se₂²), each se the sample SD of
the 0/1 scores over √n (lm-eval's ``mean_stderr``). On paired items that test keeps its level here but loses power
(its issue 3831 reports an unpaired p = 0.080 where the paired test gives 0.008, on n = 220; that example's data are
not here, so the lesson shows the same mistake on simulated pairs).

The simulation is the McNemar model itself: a share ``discordance`` ψ of the items is answered differently by the
two models; model A is right on (ψ + δ)/2 of all items where B is wrong and B on (ψ − δ)/2 where A is wrong, so that
accuracy(A) − accuracy(B) = δ exactly in expectation; the other items are right for both or wrong for both.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
from scipy.stats import norm

from ... import stats
from ...seeds import rng as seeded


def simulate_pairs(n_items: int, accuracy: float, difference: float, discordance: float, n_sim: int,
                   generator: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """0/1 answers of models A and B on ``n_items`` shared items, ``n_sim`` times: arrays of shape (n_sim, n_items),
    with accuracy(A) = ``accuracy`` and accuracy(A) − accuracy(B) = ``difference`` in expectation."""
    if not 0 <= abs(difference) <= discordance <= 1:
        raise ValueError(f"need |difference| <= discordance <= 1, got {difference} and {discordance}")
    both = (accuracy - (discordance + difference) / 2) / (1 - discordance)  # P(right) on an item they agree on
    if not 0 <= both <= 1:
        raise ValueError(f"accuracy {accuracy} cannot be reached with discordance {discordance}")
    differs = generator.random((n_sim, n_items)) < discordance
    a_wins = generator.random((n_sim, n_items)) < (discordance + difference) / (2 * discordance)
    agreed = generator.random((n_sim, n_items)) < both
    a = np.where(differs, a_wins, agreed).astype(int)
    b = np.where(differs, ~a_wins, agreed).astype(int)
    return a, b


def unpaired_z_p(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Two-sided p of lm-eval's comparator on each row: z = (acc_a − acc_b)/√(se_a² + se_b²), se = sample SD/√n."""
    n = a.shape[-1]
    se = np.sqrt(a.var(axis=-1, ddof=1) / n + b.var(axis=-1, ddof=1) / n)
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.where(se > 0, (a.mean(axis=-1) - b.mean(axis=-1)) / se, 0.0)
    return 2 * norm.sf(np.abs(z))


def rejection_rates(n_items: int = 100, differences=(0.0, 0.05, 0.1, 0.15), accuracy: float = 0.6,
                    discordance: float = 0.2, n_sim: int = 1000, seed: int = 0, alpha: float = 0.05) -> pd.DataFrame:
    """How often each test rejects "equal accuracy" at level ``alpha``: at difference 0 its false-positive rate, above
    0 its power. Columns ``difference, test, rejection_rate, n_items, n_sim``."""
    rows = []
    for difference in differences:
        a, b = simulate_pairs(n_items, accuracy, difference, discordance, n_sim,
                              seeded(seed, "methods_lab", "pairing", difference))
        paired = np.array([stats.paired_binary_test(x, y) for x, y in zip(a, b)])
        for test, p in (("exact McNemar (paired)", paired), ("lm-eval's z-test (unpaired)", unpaired_z_p(a, b))):
            rows.append({"difference": difference, "test": test, "rejection_rate": float(np.mean(p < alpha)),
                         "n_items": n_items, "n_sim": n_sim})
    return pd.DataFrame(rows)
