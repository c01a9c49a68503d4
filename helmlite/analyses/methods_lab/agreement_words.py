"""Lesson 7 — "reproduced", "consistent" and equivalence: what a reproduction check can and cannot say.

Every notebook ends by setting its numbers beside the paper's, in the kit's one vocabulary
(:mod:`helmlite.claims.reproduction`): *reproduced* when ours is within a stated tolerance of the published value,
*consistent* when the published value lies inside our interval, *differs* otherwise. "Consistent" is weak: a wide
interval is consistent with almost anything, so at small n a model whose true accuracy is 10 points off the paper is
still "consistent" most of the time. Claiming the two are *the same* needs an equivalence test: both one-sided tests
of "the difference is at least the margin" rejected (Schuirmann 1987's TOST), which at level α is the (1 − 2α)
interval lying inside ± margin.

Simulation: the paper published ``published``; our model's true accuracy is ``published + offset``; we measure it on
n items (Clopper–Pearson interval) and read the verdict.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from ... import stats
from ...claims.reproduction import published_verdict
from ...seeds import rng as seeded


def equivalent(low_90: float, high_90: float, published: float, margin: float) -> bool:
    """TOST at α = 0.05: the 90% interval of our value lies inside published ± margin."""
    return published - margin <= low_90 and high_90 <= published + margin


def verdict_rates(ns=(25, 100, 400, 1600), offsets=(0.0, 0.05, 0.1), published: float = 0.6,
                  tolerance: float = 0.01, margin: float = 0.05, n_sim: int = 1000, seed: int = 0) -> pd.DataFrame:
    """Per n and true offset: the share of simulated checks read as each verdict, and the share that an equivalence
    test calls equivalent within ± ``margin``. Columns ``n, offset, reproduced, consistent, differs, equivalent``."""
    rows = []
    for n in ns:
        for offset in offsets:
            generator = seeded(seed, "methods_lab", "verdicts", n, offset)
            counts = generator.binomial(n, published + offset, n_sim)
            low, high = stats.proportion_ci(counts, n)
            low_90, high_90 = stats.proportion_ci(counts, n, 0.90)
            verdicts = [published_verdict(k / n, published, tolerance, lo, hi) for k, lo, hi in zip(counts, low, high)]
            same = [equivalent(lo, hi, published, margin) for lo, hi in zip(low_90, high_90)]
            rows.append({"n": n, "offset": offset, **{v: float(np.mean([x == v for x in verdicts]))
                                                      for v in ("reproduced", "consistent", "differs")},
                         "equivalent": float(np.mean(same))})
    return pd.DataFrame(rows)
