"""The records every interval and test returns, and how a ``seed`` argument becomes a Generator."""
from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Union

import numpy as np

#: Every ``seed`` parameter of :mod:`helmlite.stats` takes an int or a ``numpy.random.Generator``
#: (e.g. ``helmlite.seeds.rng(base_seed, "purpose", key)``); ``np.random.default_rng`` returns a
#: Generator unchanged, so a caller's generator is used (and advanced) as given.
Seed = Union[int, np.random.Generator, np.random.SeedSequence]


def alpha_of(level: float) -> float:
    """1 − level, rounded to 12 decimals so that 1 − 0.95 is the same float as 0.05 (a p-value of
    exactly 0.05 then compares the same way against either)."""
    return round(1.0 - level, 12)


def generator(seed: Seed) -> np.random.Generator:
    """``np.random.default_rng(seed)``: an int seeds a new Generator, a Generator is returned as is."""
    return np.random.default_rng(seed)


@dataclass(frozen=True)
class Estimate:
    """A point estimate with its confidence interval at ``level``.

    ``n`` counts the independent units the interval rests on (items; clusters for a cluster
    bootstrap); ``method`` names the interval actually used (e.g. ``"bca"``, ``"percentile"``,
    ``"clopper-pearson"``), which may differ from the one asked for (BCa needs n >= 20). Both are required: an
    estimate always says at which level and by which method its interval was made.
    """

    estimate: float
    ci_low: float
    ci_high: float
    n: int
    level: float
    method: str

    def as_dict(self) -> dict:
        return asdict(self)

    def excludes(self, value: float) -> bool:
        """True when ``value`` lies outside the interval."""
        return value < self.ci_low or value > self.ci_high


@dataclass(frozen=True)
class PairedComparison(Estimate):
    """A difference between two conditions on shared items, with its two-sided p-value against 0.

    :attr:`significant` is defined from the p-value alone (``p_value < 1 − level``), so a flag
    and the p-value printed beside it can never disagree. For the bootstrap methods the interval is
    built from the same resamples so that it excludes 0 exactly when ``significant`` (see
    :func:`helmlite.stats.paired_test`); for paired 0/1 outcomes the interval (Newcombe) and the test
    (exact McNemar) are different procedures and can disagree at the margin — the flag follows the test.
    """

    p_value: float = 1.0
    discordance: float | None = None  # paired 0/1 outcomes: the share of items on which the two sides differ
    #: the smallest p-value the procedure can give (a resampling test's (k + 1)/(B + 1) at k = 0, through its tail
    #: function); 0 for exact and analytic tests. A p at this floor says "p ≤ floor", not its value.
    p_floor: float = 0.0

    @property
    def significant(self) -> bool:
        """``p_value < 1 − level`` (False when the p-value is undefined)."""
        return bool(self.p_value < alpha_of(self.level))
