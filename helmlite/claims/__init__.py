"""One verdict rule and one table schema for every claim a notebook tests.

A notebook states a paper's claim as a :class:`Claim` (the quantity, its estimate and interval, the
null value, the claimed direction, optionally the claimed size and a p-value) and calls
:func:`claims_table`, which writes nothing itself but returns the table every
``tables/<analysis>_claims.csv`` holds, with columns :data:`COLUMNS`::

    claim, quantity, estimate, ci_low, ci_high, null, n, mde, verdict, evidence,
    p_value, p_adjusted, correction, direction, claimed_effect, p_claimed, p_claimed_adjusted, p_floor

**Verdicts** (:func:`verdict`), decided in this order:

* ``inconclusive`` when the claim cannot be judged: no finite interval; a zero-width interval (it
  carries no uncertainty — e.g. a percentile bootstrap of 8/8 correct); or n below the smallest n at
  which any exact two-sided test of a symmetric null can reach p < α (sign / permutation / McNemar:
  the smallest p is 2·0.5ⁿ, so n >= 6 at α = 0.05).
* ``supported`` when the interval excludes the null in the claimed direction **and** the p-value of
  "quantity = null", adjusted for the family of claims in the table, is below α. A supported claim's
  interval never contains the null (asserted).
* ``contradicted`` when the interval excludes what the claim asserts **and** the matching p-value,
  adjusted for the same family, is below α: the interval lies entirely on the other side of the null
  (p of "quantity = null", whose rejection then goes the other way — Shaffer 1980 for directional
  decisions after Holm), or it excludes the claimed effect (``claimed_effect`` is the value of the
  quantity the claim asserts at least — e.g. "A beats B by 5 points": quantity = accuracy(A) −
  accuracy(B), null = 0, claimed_effect = 0.05; "greater": ci_high < claimed_effect; "less": ci_low >
  claimed_effect; "two-sided": the interval lies within null ± abs(claimed_effect − null)), with the
  p-value ``p_claimed`` of "the quantity is as large as claimed" (two-sided: twice the one-sided p;
  for "two-sided" claims twice the larger of the two one-sided p-values of an equivalence test,
  Schuirmann 1987). Without the correction a family of 25 true claims read at least one false
  "contradicted" a third of the time (``benchmarks/coverage.py``).
* ``inconclusive`` otherwise; the evidence then gives the minimum detectable effect (MDE) at this n
  and the n needed to detect the claimed effect (or, without one, the observed effect), from
  :mod:`helmlite.stats.power`.

P-values are two-sided. A resampling test's p-value has a floor, (k + 1)/(B + 1) at k = 0 through its tail function
(``p_floor``: 2/2001 for 2,000 simulations): a p at the floor says only "p ≤ floor", and the evidence writes it so
(and its adjusted p, which Holm's monotone step-down bounds the same way), never as a value. A claim without a p-value (or without ``p_claimed``) gets one from its
interval by the normal approximation (SE = width / (2·z), flagged in the evidence) so that it can
join the family. A family is every hypothesis its primary claims can reject — each claim's null and, for
claims with a claimed size, that size — adjusted together (Holm 1979 by default; statsmodels ``multipletests``); the
analysis declares each claim's family and a config may name the primary claims, the rest being reported as
exploratory without a verdict (:mod:`helmlite.claims.families`). Holm controls the family-wise error rate under any
dependence between the claims (unlike Benjamini–Hochberg, which needs positive dependence).

**MDE by scale** (80% power of the test used, at the level the claim's family decides it at — α / m for a family
of m hypotheses, Holm's worst case, the ``alpha`` column — in the claimed direction; the larger of the two directions for
two-sided claims; :mod:`helmlite.stats.power`): ``"proportion"`` — one
proportion against the null value (exact binomial test); ``"paired-proportion"`` — a difference of
accuracies on the same items (exact McNemar test, with ``discordance`` — the observed share of differing items,
:func:`observed_discordance`, where the notebook passes it — default 0.5);
``"correlation"`` — a correlation against 0 (Fisher z); ``"difference"`` (any other quantity) —
(z_α + z_β)·SE with SE from the interval's width, and n needed scaling as 1/√n.
"""
from .numbers import P_FLOOR, at_floor, claimed_size_p_value, format_number, format_p, interval_p_value
from .power import base_discordance, min_units, minimum_detectable_effect, n_needed, observed_discordance, power_table
from .declaration import POWER_FORMULAS, Declared
from .families import check_primary
from .record import (COLUMNS, CORRECTIONS, DIRECTIONS, EXPLORATORY, POWER, REQUIRED_COLUMNS, SCALES, TABLE_VERDICTS,
                     VERDICTS, Claim)
from .verdicts import check_claims_table, claims_table, readable, verdict
from . import reproduction  # the reproduction-check table and its verdict words

__all__ = ["reproduction", "COLUMNS", "CORRECTIONS", "DIRECTIONS", "EXPLORATORY", "P_FLOOR", "POWER", "REQUIRED_COLUMNS", "SCALES",
           "TABLE_VERDICTS", "VERDICTS", "Claim", "Declared", "POWER_FORMULAS", "at_floor", "check_primary", "base_discordance", "check_claims_table", "claimed_size_p_value", "claims_table", "format_number",
           "format_p", "interval_p_value", "min_units", "minimum_detectable_effect", "n_needed", "observed_discordance",
           "power_table", "readable", "verdict"]
