"""The binned ECE's test of perfect calibration and the calibration-error interval that is its dual, by simulation.

The statistic — HELM's equal-mass binned ECE — is the metric's own (:mod:`helmlite.metrics.calibration`, which
builds the :class:`EceSimulator` over its bins and calls :func:`simulated_calibration_test`); the test, the inversion
over families of miscalibrated models and the power are statistics and live here (issue #50).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Protocol

import numpy as np
from scipy.special import expit


class EceSimulator(Protocol):
    """Binned ECEs of simulated outcomes, all models sharing one set of uniform draws (common random numbers):
    ``order`` sorts the instances by confidence, ``ece`` scores outcomes in that order, ``simulate(accuracy)`` the
    ``n_simulations`` outcome vectors of a model with P(correct | c) = accuracy(c) (default: calibrated)."""

    order: np.ndarray
    n_simulations: int

    def ece(self, ranked_outcomes: np.ndarray) -> np.ndarray: ...

    def simulate(self, accuracy: Callable | None = None) -> np.ndarray: ...


@dataclass(frozen=True)
class CalibrationTest:
    """The binned ECE's test of perfect calibration and the interval that is its dual (:func:`simulated_calibration_test`).

    ``ece``: the observed ECE (HELM's bins). ``p_value``: the one-sided Monte-Carlo p of "perfectly calibrated", the
    share of calibrated simulations with an ECE at least as large, (k + 1)/(B + 1); ``p_two_sided``: min(1, 2·p), the
    p-value the two-sided interval is dual to (ci_low > 0 exactly when p_two_sided < 1 − level). ``estimate``,
    ``ci_low``, ``ci_high``: the calibration error θ = mean_i |P(correct | c_i) − c_i| at the observed confidences — its
    median-unbiased estimate within the miscalibrations of the data's ``direction`` ("overconfident" when the mean
    confidence exceeds the accuracy, else "underconfident") and the two-sided ``level`` interval obtained by inverting
    the same statistic's test from both sides over every family. ``mde``: the smallest θ the two-sided test detects
    with ``power`` in a model off by a constant shift, in the harder of the two directions. ``ece_if_calibrated`` /
    ``..._q95``: the mean and 95th percentile of a calibrated model's ECE here. ``n``: instances. ``p_floor``: the
    smallest ``p_two_sided`` B simulations can give, 2/(B + 1) — a p at it reads "p ≤ p_floor".
    """

    ece: float
    p_value: float
    p_two_sided: float
    direction: str
    estimate: float
    ci_low: float
    ci_high: float
    mde: float
    ece_if_calibrated: float
    ece_if_calibrated_q95: float
    n: int
    level: float
    p_floor: float


def _shifted(confidence: np.ndarray, size: float, sign: int) -> np.ndarray:
    """P(correct | c) of a model overconfident (sign +1) or underconfident (−1) by ``size`` everywhere."""
    return np.clip(confidence - sign * size, 0.0, 1.0)


def _tempered(confidence: np.ndarray, size: float, sign: int) -> np.ndarray:
    """P(correct | c) = σ(logit(c)/T): temperature T = 1/(1 − size) (overconfident, sign +1) or 1 − size
    (underconfident, −1); size 0 is calibration, size → 1 the most miscalibrated (Guo et al. 2017, §4.2)."""
    size = min(size, 1 - 1e-9)
    temperature = 1 / (1 - size) if sign > 0 else 1 - size
    logit = np.log(np.clip(confidence, 1e-12, 1 - 1e-12) / np.clip(1 - confidence, 1e-12, 1))
    return expit(logit / temperature)


def _mixed(confidence: np.ndarray, size: float, sign: int) -> np.ndarray:
    """P(correct | c) = (1 − size)·c + size·e(c), a mixture with a deterministic extreme: e(c) = 1[c < 1/2]
    (sign +1: wrong exactly when confident — at size 1 the largest calibration error, mean max(c, 1 − c)) or
    1[c >= 1/2] (−1: right exactly when confident)."""
    extreme = (confidence < 0.5) if sign > 0 else (confidence >= 0.5)
    return (1 - size) * confidence + size * extreme.astype(float)


#: Families of miscalibrated models the calibration interval inverts its test over: (name, P(correct | c) of
#: size s in [0, 1], s = 0 calibrated). The constant shift comes first: the MDE is stated for it.
MISCALIBRATIONS = (("constant shift", _shifted), ("temperature", _tempered), ("mixture with an extreme", _mixed))


class _Inversion:
    """The test of one miscalibrated model against the observed ECE, from below and from above, and the bisections over
    a family's size that invert it (the steps of :func:`simulated_calibration_test`)."""

    def __init__(self, confidence: np.ndarray, simulation: EceSimulator, observed: float, null: np.ndarray, tail: float):
        self.confidence, self.simulation, self.observed, self.tail = confidence, simulation, observed, tail
        self.count = simulation.n_simulations
        self.ranked_null = np.sort(null)

    def at_least(self, simulated: np.ndarray) -> float:
        """p of "ECE at least the observed one" under the simulated model."""
        return (1 + int(np.sum(simulated >= self.observed - 1e-12))) / (self.count + 1)

    def at_most(self, simulated: np.ndarray) -> float:
        return (1 + int(np.sum(simulated <= self.observed + 1e-12))) / (self.count + 1)

    def rejects_calibration(self, simulated: np.ndarray) -> np.ndarray:
        """Whether the two-sided test of perfect calibration rejects on each simulated ECE (2p < 1 − level)."""
        above = self.count - np.searchsorted(self.ranked_null, simulated - 1e-12, side="left")
        return (1 + above) / (self.count + 1) < self.tail

    def error(self, model, size: float) -> float:
        return float(np.mean(np.abs(model(self.confidence, size) - self.confidence)))

    def simulate(self, model, size):
        return self.simulation.simulate(lambda c: model(c, size))

    def smallest_error(self, reaches, model, iterations: int) -> float:
        """θ of the smallest size in [0, 1] whose model's simulations satisfy ``reaches`` (monotone in the size)."""
        if reaches(self.simulate(model, 0.0)):
            return 0.0
        if not reaches(self.simulate(model, 1.0)):
            return math.inf
        low, high = 0.0, 1.0
        for _ in range(iterations):
            middle = (low + high) / 2
            low, high = (low, middle) if reaches(self.simulate(model, middle)) else (middle, high)
        return self.error(model, high)

    def largest_error(self, model, iterations: int) -> float:
        """θ of the largest size in [0, 1] whose model is not rejected from above (its ECE stays at or below the
        observed one at least a share ``tail`` of the time; that share falls as the size grows)."""
        def accepted(size):
            return self.at_most(self.simulate(model, size)) >= self.tail

        if accepted(1.0):
            return self.error(model, 1.0)
        if not accepted(0.0):
            return 0.0
        low, high = 0.0, 1.0
        for _ in range(iterations):
            middle = (low + high) / 2
            low, high = (middle, high) if accepted(middle) else (low, middle)
        return self.error(model, low)


def _shift_mde(test: _Inversion, power: float, iterations: int) -> float:
    """The smallest θ that the two-sided test detects with ``power`` in a model off by a constant shift, in the harder
    of the two directions."""
    shifts = [lambda c, size, sign=sign: MISCALIBRATIONS[0][1](c, size, sign) for sign in (1, -1)]
    return max(test.smallest_error(lambda sims: float(np.mean(test.rejects_calibration(sims))) >= power, m, iterations)
               for m in shifts)


def simulated_calibration_mde(confidence, simulation: EceSimulator, *, level: float = 0.95, power: float = 0.8,
                              iterations: int = 30) -> float:
    """The ``mde`` of :func:`simulated_calibration_test` alone (it does not depend on the outcomes): what a planner, or
    a claim decided at another level than the interval's (its family's, α / m), needs, without inverting the test for
    an interval. ``inf`` where ``simulation``'s B cannot reach the level (2/(B + 1) ≥ 1 − level)."""
    confidence = np.asarray(confidence, float)
    if len(confidence) == 0:
        return math.nan
    test = _Inversion(confidence, simulation, math.inf, simulation.simulate(), (1 - level) / 2)
    return _shift_mde(test, power, iterations)


def simulated_calibration_test(confidence, correct, simulation: EceSimulator, *, level: float = 0.95, power: float = 0.8,
                           iterations: int = 30) -> CalibrationTest:
    """Is the model miscalibrated beyond what n instances show by chance? The ECE's test and its dual interval.

    **Test** (the parametric bootstrap test of :func:`helmlite.metrics.calibration.ece_under_perfect_calibration`; Bröcker & Smith
    2007): simulate correct_i ~ Bernoulli(c_i) ``n_simulations`` times and compute the same binned ECE;
    p = (1 + #{ECE_sim >= ECE_obs}) / (B + 1), never 0. It holds its level (0.030–0.058 at α = 0.05 for
    n = 8–500 in ``benchmarks/coverage.py``). The claims use the two-sided p = min(1, 2p), the p the interval below
    is dual to.

    **Interval, the test's dual from both sides** (Lehmann & Romano 2005, §3.5): for each model of a miscalibration
    family (:data:`MISCALIBRATIONS`: overconfident or underconfident by a constant shift, P(correct | c) = clip(c ∓ s,
    0, 1), by a temperature, σ(logit(c)/T) (Guo et al. 2017), or by mixing c with a deterministic extreme), whose
    calibration error at these confidences is θ = mean_i |P(correct | c_i) − c_i|, test "this model" with the same
    statistic: rejected from below when its simulated ECEs reach the observed one less than a share (1 − level)/2 of
    the time, from above when they stay at or below it less than that share. The θ of every model rejected from
    neither side, over every family and both directions, spans [L, U]: an equal-tailed two-sided ``level`` interval,
    valid whichever family holds; L > 0 exactly when p_two_sided < 1 − level. (Before, the upper end was θ_max =
    mean_i max(c_i, 1 − c_i), the largest error the confidences allow, not an estimate.) The point estimate is the
    smallest θ whose model has p = 1/2 (median-unbiased) within the families of the data's direction — the mean
    confidence against the accuracy says which way the model errs, so underconfident models do not pull the estimate
    of an overconfident one down (a data-chosen family: the interval does not use the choice). Every model shares one
    set of uniform draws (common random numbers); each size is found by bisection (``iterations`` steps per quantity,
    family and direction). Coverage of θ on shifted and tempered models, and the test's level:
    ``benchmarks/coverage.py`` (section 9).
    """
    confidence, correct = np.asarray(confidence, float), np.asarray(correct, float)
    n = len(confidence)
    if n == 0:
        return CalibrationTest(math.nan, math.nan, math.nan, "", *(math.nan,) * 6, 0, level, math.nan)
    observed = float(simulation.ece(correct[simulation.order]))
    null = simulation.simulate()
    tail = (1 - level) / 2
    direction = 1 if confidence.mean() > correct.mean() else -1
    models = {(name, sign): (lambda c, size, f=family, sign=sign: f(c, size, sign))
              for name, family in MISCALIBRATIONS for sign in (1, -1)}
    test = _Inversion(confidence, simulation, observed, null, tail)
    largest = max(test.error(model, 1.0) for model in models.values())  # = mean max(c, 1 − c), the mixture's extreme
    lower = min(min(test.smallest_error(lambda sims: test.at_least(sims) >= tail, m, iterations) for m in models.values()),
                largest)
    upper = max(test.largest_error(m, iterations) for m in models.values())
    own = [m for (_, sign), m in models.items() if sign == direction]
    estimate = min(min(test.smallest_error(lambda sims: test.at_least(sims) >= 0.5, m, iterations) for m in own), largest)
    estimate = min(max(estimate, lower), upper)
    mde = _shift_mde(test, power, iterations)
    p = test.at_least(null)
    return CalibrationTest(observed, p, min(1.0, 2 * p), "overconfident" if direction > 0 else "underconfident",
                           estimate, lower, upper, mde, float(null.mean()), float(np.quantile(null, 0.95)), n, level,
                           min(1.0, 2 / (test.count + 1)))
