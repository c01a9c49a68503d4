"""Calibration and selective classification (Liang et al. 2022, §4.4, App. C.3).

Inputs are, per instance, the model's probability for its predicted answer (``confidence``, HELM's
``max_prob``: see :mod:`helmlite.evaluation.outcomes`) and whether that answer was correct. HELM computes
these with the ``uncertainty-calibration`` package (``calibration``, Kumar et al. 2019), called from
``compute_calibration_metrics`` in ``src/helm/benchmark/metrics/basic_metrics.py``; each function below
names the call it reproduces. Where HELM sorts with numpy's default (unstable) quicksort, ties in
confidence are broken here by instance order (a stable sort), so every quantity is deterministic; the
value differs from HELM's only when tied confidences straddle a cut.
"""
from __future__ import annotations

import math

import numpy as np
from scipy.special import expit

from ..stats import calibration_test
from ..stats.calibration_test import CalibrationTest


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
        self.n_simulations = n_simulations

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


def calibration_error_test(confidence, correct, n_bins: int = 10, n_simulations: int = 2_000,
                           seed: int | np.random.Generator = 0, level: float = 0.95, power: float = 0.8,
                           iterations: int = 30) -> CalibrationTest:
    """The test of perfect calibration by HELM's binned ECE (``n_bins`` equal-mass bins) and its dual interval of the
    calibration error: :func:`helmlite.stats.calibration_test.simulated_calibration_test` over ``n_simulations``
    simulations of these bins (seeded by ``seed``)."""
    confidence = np.asarray(confidence, float)
    simulation = _EceSimulation(confidence, n_bins, n_simulations, seed) if len(confidence) else None
    return calibration_test.simulated_calibration_test(confidence, correct, simulation, level=level, power=power,
                                                   iterations=iterations)


def calibration_error_mde(confidence, n_bins: int = 10, n_simulations: int = 2_000, seed: int | np.random.Generator = 0,
                          level: float = 0.95, power: float = 0.8) -> float:
    """The MDE of :func:`calibration_error_test` alone, at ``level`` (e.g. 1 − α / m, the level a claim's family decides
    it at): :func:`helmlite.stats.calibration_test.simulated_calibration_mde` over the same simulations of these bins."""
    confidence = np.asarray(confidence, float)
    if not len(confidence):
        return float("nan")
    return calibration_test.simulated_calibration_mde(confidence, _EceSimulation(confidence, n_bins, n_simulations, seed),
                                                      level=level, power=power)
