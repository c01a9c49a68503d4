"""Calibration and selective classification (Liang et al. 2022, §4.4, App. C.3).

Inputs are, per instance, the model's probability for its predicted answer (``confidence``, HELM's
``max_prob``: see :mod:`helmlite.metrics.outcomes`) and whether that answer was correct. HELM computes
these with the ``uncertainty-calibration`` package (``calibration``, Kumar et al. 2019), called from
``compute_calibration_metrics`` in ``src/helm/benchmark/metrics/basic_metrics.py``; each function below
names the call it reproduces. Where HELM sorts with numpy's default (unstable) quicksort, ties in
confidence are broken here by instance order (a stable sort), so every quantity is deterministic; the
value differs from HELM's only when tied confidences straddle a cut.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.special import expit


def expected_calibration_error(confidence, correct, n_bins: int = 10) -> float:
    """ECE with HELM's equal-mass bins (``cal.get_ece_em(max_probs, correct, num_bins=10)`` for
    ``ece_10_bin``; ``n_bins = 1`` gives ``cal.get_ece(..., num_bins=1)``, |accuracy − mean confidence|).

    HELM's bins (``calibration.get_equal_bins`` + ``fast_bin``): the sorted confidences are split into
    ``n_bins`` parts whose sizes differ by at most one; each boundary is the midpoint of the last value of
    one part and the first of the next (duplicates merged, 1.0 appended), and an instance goes to the
    first bin whose upper boundary is ≥ its confidence. **Tied confidences therefore always share one
    bin** (the lower one), so bins can be uneven or empty; empty bins weigh nothing. The ECE is
    Σ_b (n_b / n)·|accuracy_b − mean confidence_b|.

    **Biased upward at small n**: each bin's accuracy is a noisy proportion and |noise| > 0 on
    average, so even a perfectly calibrated model scores about 0.38 at n = 8, 0.15 at n = 50 and
    0.05 at n = 500 with 10 bins (issue 15). Report beside it :func:`ece_under_perfect_calibration`
    (what perfect calibration would score at these confidences) or :func:`debiased_ece`.
    """
    confidence = np.asarray(confidence, float)
    if len(confidence) == 0:
        return math.nan
    return float(ece_rows(confidence[None], np.asarray(correct, float)[None], n_bins)[0])


def ece_rows(confidence: np.ndarray, correct: np.ndarray, n_bins: int = 10, axis: int = -1) -> np.ndarray:
    """:func:`expected_calibration_error` of every row of (rows × n) arrays at once — each row binned on its own
    (a bootstrap's resamples; ``axis`` must be the last). A 1-D input gives a 0-d array."""
    single = _items_last(confidence, axis)
    confidence, correct = np.atleast_2d(confidence), np.atleast_2d(correct)
    order, segment = _equal_mass_segments(confidence, n_bins)
    rows, n = confidence.shape
    # n_b·|accuracy_b − mean confidence_b| = |Σ_b correct − Σ_b confidence|: bin sums by (row, bin) label
    labels = (segment + n * np.arange(rows)[:, None]).ravel()
    correct_sums = np.bincount(labels, np.take_along_axis(correct, order, -1).ravel(), rows * n)
    confidence_sums = np.bincount(labels, np.take_along_axis(confidence, order, -1).ravel(), rows * n)
    out = np.abs(correct_sums - confidence_sums).reshape(rows, n).sum(axis=-1) / n
    return out[0] if single else out


def _items_last(values, axis: int) -> bool:
    """Whether ``values`` is one vector of items (else rows of them); the items must lie along the last axis."""
    if axis not in (-1, np.ndim(values) - 1):
        raise ValueError("the items must lie along the last axis")
    return np.ndim(values) == 1


PLATT_EPS = 1e-12  # calibration.get_platt_scaler clips probabilities to [eps, 1 − eps] before the logit


def platt_scaler(confidence, correct) -> tuple[float, float] | None:
    """HELM's Platt scaling (``cal.get_platt_scaler(max_probs, correct, get_clf=True)``): a logistic regression
    of correctness on logit(confidence), confidences clipped to [1e-12, 1 − 1e-12], fitted by scikit-learn's
    ``LogisticRegression(C=1e10, solver="lbfgs")`` as the ``uncertainty-calibration`` package does; returns
    (coefficient, intercept) — HELM's ``platt_coef`` and ``platt_intercept`` — or None when every answer is
    right or every answer is wrong (HELM then fits nothing)."""
    from sklearn.linear_model import LogisticRegression

    confidence, correct = np.asarray(confidence, float), np.asarray(correct, int)
    if len(correct) == 0 or correct.min() == correct.max():
        return None
    clf = LogisticRegression(C=1e10, solver="lbfgs").fit(_logit(confidence)[:, None], correct)
    return float(clf.coef_[0][0]), float(clf.intercept_[0])


def _logit(confidence: np.ndarray) -> np.ndarray:
    clipped = np.clip(confidence, PLATT_EPS, 1 - PLATT_EPS)
    return np.log(clipped / (1 - clipped))


def platt_metrics(confidence, correct) -> dict[str, float]:
    """HELM's Platt-scaled calibration metrics of one run, from one fit of :func:`platt_scaler`: ``platt_ece_10``
    and ``platt_ece_1`` (``platt_ece_10_bin`` / ``platt_ece_1_bin``: :func:`expected_calibration_error` of the
    scaled confidences), ``platt_coef`` and ``platt_intercept``. When every answer is right or every answer is
    wrong HELM fits nothing and stores both ECEs as 0.0 (and no coefficient); {} without instances."""
    confidence = np.asarray(confidence, float)
    if len(confidence) == 0:
        return {}
    fitted = platt_scaler(confidence, correct)
    if fitted is None:
        return {"platt_ece_10": 0.0, "platt_ece_1": 0.0}
    coef, intercept = fitted
    scaled = expit(_logit(confidence) * coef + intercept)
    return {"platt_ece_10": expected_calibration_error(scaled, correct, 10),
            "platt_ece_1": expected_calibration_error(scaled, correct, 1), "platt_coef": coef, "platt_intercept": intercept}


def _by_confidence(confidence, correct) -> np.ndarray:
    confidence, correct = np.asarray(confidence, float), np.asarray(correct, float)
    order = np.argsort(-confidence, kind="stable")  # most confident first; ties in instance order
    return correct[order]


def selective_counts(confidence, correct, coverage: float = 0.1) -> tuple[int, int]:
    """(correct, instances) among the instances the model is most confident about, as HELM's
    ``selective_acc@10`` counts them (``cal.get_selective_stats``: ``accs[int(0.1 * n)]`` of the cumulative
    accuracies in order of decreasing confidence): the top ⌊coverage·n⌋ + 1 instances — 2 of 10, 11 of 100
    (at most n); (0, 0) without instances."""
    ranked = _by_confidence(confidence, correct)
    k = min(len(ranked), int(coverage * len(ranked)) + 1)
    return int(ranked[:k].sum()), k


def selective_accuracy(confidence, correct, coverage: float = 0.1) -> float:
    """HELM's ``selective_acc@10``: the accuracy on the :func:`selective_counts` instances (NaN without any)."""
    hits, total = selective_counts(confidence, correct, coverage)
    return hits / total if total else math.nan


def selective_coverage_accuracy_area(confidence, correct) -> float:
    """SCAA: the area under the coverage–accuracy curve, i.e. the mean over k = 1..n of the accuracy
    on the k most confident instances (El-Yaniv & Wiener 2010; HELM's selective_cov_acc_area)."""
    if len(confidence) == 0:
        return math.nan
    return float(scaa_rows(np.asarray(confidence, float), np.asarray(correct, float)))


def scaa_rows(confidence: np.ndarray, correct: np.ndarray, axis: int = -1) -> np.ndarray:
    """:func:`selective_coverage_accuracy_area` of every row of (rows × n) arrays at once (a bootstrap's
    resamples; ties in confidence in row order, as :func:`_by_confidence`)."""
    single = _items_last(confidence, axis)
    confidence, correct = np.atleast_2d(confidence), np.atleast_2d(correct)
    ranked = np.take_along_axis(correct, np.argsort(-confidence, axis=-1, kind="stable"), -1)
    out = np.mean(np.cumsum(ranked, axis=-1) / np.arange(1, ranked.shape[-1] + 1), axis=-1)
    return out[0] if single else out


def reliability_table(confidence, correct, n_bins: int = 10) -> list[dict]:
    """Per equal-mass bin (HELM's bins, as :func:`expected_calibration_error`): mean confidence, accuracy and size."""
    confidence, correct = np.asarray(confidence, float), np.asarray(correct, float)
    if len(confidence) == 0:
        return []
    order, starts = _equal_mass_bins(confidence, n_bins)
    return [{"bin": b, "confidence": float(confidence[p].mean()), "accuracy": float(correct[p].mean()), "n": len(p)}
            for b, p in enumerate(np.split(order, starts[1:])) if len(p)]


def _equal_mass_bins(confidence: np.ndarray, n_bins: int) -> tuple[np.ndarray, np.ndarray]:
    """Stable confidence order and the start of each non-empty bin in it (:func:`_equal_mass_segments` of one vector)."""
    order, segment = _equal_mass_segments(confidence[None], n_bins)
    return order[0], np.flatnonzero(np.r_[True, segment[0, 1:] != segment[0, :-1]])


def _equal_mass_segments(confidence: np.ndarray, n_bins: int) -> tuple[np.ndarray, np.ndarray]:
    """Per row of (rows × n) confidences: the stable confidence order and, for each position in it, the number
    of its non-empty bin (0, 1, ...): HELM's equal-mass bins (``calibration.get_equal_bins`` boundaries,
    ``fast_bin`` assignment with ``np.searchsorted``; a confidence above the last boundary 1.0 joins the last
    bin, as ``fast_bin``'s split does). A value's bin is the smallest boundary at or above it, so equal
    boundaries (HELM merges duplicates) name one bin."""
    order = np.argsort(confidence, axis=-1, kind="stable")
    ranked = np.take_along_axis(confidence, order, -1)
    rows, n = ranked.shape
    parts = min(n_bins, n)  # np.array_split's sizes: the first n mod parts get one more
    ends = np.cumsum(np.full(parts, n // parts) + (np.arange(parts) < n % parts))[:-1]
    bounds = np.sort(np.concatenate([(ranked[:, ends - 1] + ranked[:, ends]) / 2.0, np.ones((rows, 1))], axis=1), axis=1)
    below = (bounds[:, None, :] < ranked[:, :, None]).sum(axis=-1)  # np.searchsorted(bounds, value), row by row
    bound = np.take_along_axis(bounds, np.minimum(below, parts - 1), -1)
    return order, np.cumsum(np.c_[np.zeros((rows, 1), bool), bound[:, 1:] != bound[:, :-1]], axis=1)


def _split_bins(confidence: np.ndarray, n_bins: int) -> tuple[np.ndarray, np.ndarray]:
    """Stable confidence order and bin starts of a plain near-equal split (sizes differ by at most one)."""
    order = np.argsort(confidence, kind="stable")
    sizes = [len(part) for part in np.array_split(order, min(n_bins, len(order)))]
    return order, np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(int)


def ece_under_perfect_calibration(confidence, n_bins: int = 10, n_simulations: int = 2_000,
                                  seed: int | np.random.Generator = 0) -> dict:
    """The binned ECE a *perfectly calibrated* model with these confidences would score, by simulation.

    Each simulation draws correct_i ~ Bernoulli(confidence_i) (perfect calibration: the predicted
    answer is right with exactly the stated probability) and computes the same equal-mass binned
    ECE as :func:`expected_calibration_error` (same bins). Returns ``{"mean": ..., "q95": ...}``:
    the ECE expected from small-sample noise alone and its 95th percentile. An observed ECE near
    ``mean`` is no evidence of miscalibration; one above ``q95`` is (a one-sided 5% parametric
    bootstrap test of perfect calibration; cf. Bröcker & Smith 2007's consistency resampling).
    Vectorised over simulations; ``seed`` is an int or a Generator.
    """
    confidence = np.asarray(confidence, dtype=float)
    if len(confidence) == 0:
        return {"mean": math.nan, "q95": math.nan}
    values = _EceSimulation(confidence, n_bins, n_simulations, seed).simulate()
    return {"mean": float(values.mean()), "q95": float(np.quantile(values, 0.95))}


class _EceSimulation:
    """Binned ECEs (HELM's bins for ``confidence``) of simulated outcomes correct_i ~ Bernoulli(P(correct | c_i)),
    one row of uniform draws per simulation, shared by every model simulated (common random numbers)."""

    def __init__(self, confidence: np.ndarray, n_bins: int, n_simulations: int, seed):
        self.order, self.starts = _equal_mass_bins(confidence, n_bins)
        self.ranked = confidence[self.order]
        self.confidence_sums = np.add.reduceat(self.ranked, self.starts)
        self.uniforms = np.random.default_rng(seed).random((n_simulations, len(confidence)))  # int or Generator

    def ece(self, ranked_outcomes: np.ndarray) -> np.ndarray:
        """ECE of outcomes in confidence order (one row per simulation, or one vector)."""
        sums = np.add.reduceat(ranked_outcomes, self.starts, axis=-1)
        return np.abs(sums - self.confidence_sums).sum(axis=-1) / len(self.ranked)

    def simulate(self, accuracy=None) -> np.ndarray:
        """The ECEs of a model whose P(correct | c) is ``accuracy(c)`` (default: perfectly calibrated, c)."""
        probability = self.ranked if accuracy is None else accuracy(self.ranked)
        return self.ece((self.uniforms < probability).astype(float))


def debiased_ece(confidence, correct, n_bins: int = 10) -> float:
    """Kumar, Liang & Ma's (2019, "Verified uncertainty calibration", §5) debiased estimate of the
    **squared** ℓ2 binned calibration error, Σ_b (n_b/n)·(acc_b − conf_b)² — not of the ℓ1 ECE.

    With equal-mass bins, the plug-in (acc_b − conf_b)² overestimates (E acc_b − conf_b)² by the
    variance of acc_b; the debiased estimator subtracts its unbiased estimate, s²_b / n_b (s²_b the
    within-bin sample variance of ``correct``, = acc_b(1 − acc_b)/(n_b − 1) for 0/1 outcomes)::

        Σ_b (n_b/n) · [(acc_b − conf_b)² − s²_b / n_b]

    It is about 0 on average for a calibrated model and can be negative; sqrt(max(0, ·)) puts it on
    the ℓ2-ECE scale (which is >= the ℓ1 ECE). Bins: a plain near-equal split of the sorted confidences
    into at most n // 2 parts (ties are not merged, unlike HELM's ECE bins), so every bin has two items;
    NaN for n < 2.
    """
    confidence, correct = np.asarray(confidence, float), np.asarray(correct, float)
    n = len(confidence)
    if n < 2:
        return math.nan
    order, starts = _split_bins(confidence, min(n_bins, n // 2))
    total = 0.0
    for part in np.split(order, starts[1:]):
        y, c = correct[part], confidence[part]
        total += len(part) * ((y.mean() - c.mean()) ** 2 - y.var(ddof=1) / len(part))
    return float(total / n)


@dataclass(frozen=True)
class CalibrationTest:
    """The binned ECE's test of perfect calibration and the interval that is its dual (:func:`calibration_error_test`).

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


def calibration_error_test(confidence, correct, n_bins: int = 10, n_simulations: int = 2_000,
                           seed: int | np.random.Generator = 0, level: float = 0.95, power: float = 0.8,
                           iterations: int = 30) -> CalibrationTest:
    """Is the model miscalibrated beyond what n instances show by chance? The ECE's test and its dual interval.

    **Test** (the parametric bootstrap test of :func:`ece_under_perfect_calibration`; Bröcker & Smith
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
    simulation = _EceSimulation(confidence, n_bins, n_simulations, seed)
    observed = float(simulation.ece(correct[simulation.order]))
    null = simulation.simulate()
    tail = (1 - level) / 2
    direction = 1 if confidence.mean() > correct.mean() else -1
    models = {(name, sign): (lambda c, size, f=family, sign=sign: f(c, size, sign))
              for name, family in MISCALIBRATIONS for sign in (1, -1)}

    ranked_null = np.sort(null)

    def at_least(simulated: np.ndarray) -> float:
        """p of "ECE at least the observed one" under the simulated model."""
        return (1 + int(np.sum(simulated >= observed - 1e-12))) / (n_simulations + 1)

    def at_most(simulated: np.ndarray) -> float:
        return (1 + int(np.sum(simulated <= observed + 1e-12))) / (n_simulations + 1)

    def rejects_calibration(simulated: np.ndarray) -> np.ndarray:
        """Whether the two-sided test of perfect calibration rejects on each simulated ECE (2p < 1 − level)."""
        above = n_simulations - np.searchsorted(ranked_null, simulated - 1e-12, side="left")
        return (1 + above) / (n_simulations + 1) < tail

    def error(model, size: float) -> float:
        return float(np.mean(np.abs(model(confidence, size) - confidence)))

    def simulate(model, size):
        return simulation.simulate(lambda c: model(c, size))

    def smallest_error(reaches, model) -> float:
        """θ of the smallest size in [0, 1] whose model's simulations satisfy ``reaches`` (monotone in the size)."""
        if reaches(simulate(model, 0.0)):
            return 0.0
        if not reaches(simulate(model, 1.0)):
            return math.inf
        low, high = 0.0, 1.0
        for _ in range(iterations):
            middle = (low + high) / 2
            low, high = (low, middle) if reaches(simulate(model, middle)) else (middle, high)
        return error(model, high)

    def largest_error(model) -> float:
        """θ of the largest size in [0, 1] whose model is not rejected from above (its ECE stays at or below the
        observed one at least a share ``tail`` of the time; that share falls as the size grows)."""
        def accepted(size):
            return at_most(simulate(model, size)) >= tail

        if accepted(1.0):
            return error(model, 1.0)
        if not accepted(0.0):
            return 0.0
        low, high = 0.0, 1.0
        for _ in range(iterations):
            middle = (low + high) / 2
            low, high = (middle, high) if accepted(middle) else (low, middle)
        return error(model, low)

    largest = max(error(model, 1.0) for model in models.values())  # = mean max(c, 1 − c), the mixture's extreme
    lower = min(min(smallest_error(lambda sims: at_least(sims) >= tail, m) for m in models.values()), largest)
    upper = max(largest_error(m) for m in models.values())
    own = [m for (_, sign), m in models.items() if sign == direction]
    estimate = min(min(smallest_error(lambda sims: at_least(sims) >= 0.5, m) for m in own), largest)
    estimate = min(max(estimate, lower), upper)
    shifts = [models[(MISCALIBRATIONS[0][0], sign)] for sign in (1, -1)]
    mde = max(smallest_error(lambda sims: float(np.mean(rejects_calibration(sims))) >= power, m) for m in shifts)
    p = at_least(null)
    return CalibrationTest(observed, p, min(1.0, 2 * p), "overconfident" if direction > 0 else "underconfident",
                           estimate, lower, upper, mde, float(null.mean()), float(np.quantile(null, 0.95)), n, level,
                           min(1.0, 2 / (n_simulations + 1)))
