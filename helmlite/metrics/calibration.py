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

import numpy as np


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
    confidence, correct = np.asarray(confidence, float), np.asarray(correct, float)
    if len(confidence) == 0:
        return math.nan
    order, starts = _equal_mass_bins(confidence, n_bins)
    total = 0.0
    for part in np.split(order, starts[1:]):
        total += len(part) * abs(correct[part].mean() - confidence[part].mean())
    return total / len(order)


def _by_confidence(confidence, correct) -> np.ndarray:
    confidence, correct = np.asarray(confidence, float), np.asarray(correct, float)
    order = np.argsort(-confidence, kind="stable")  # most confident first; ties in instance order
    return correct[order]


def selective_accuracy(confidence, correct, coverage: float = 0.1) -> float:
    """Accuracy on the instances the model is most confident about, as HELM's ``selective_acc@10``
    (``cal.get_selective_stats``: ``accs[int(0.1 * n)]`` of the cumulative accuracies in order of
    decreasing confidence), i.e. on the top ⌊coverage·n⌋ + 1 instances — 2 of 10, 11 of 100 (at most n)."""
    ranked = _by_confidence(confidence, correct)
    if len(ranked) == 0:
        return math.nan
    k = min(len(ranked), int(coverage * len(ranked)) + 1)
    return float(ranked[:k].mean())


def selective_coverage_accuracy_area(confidence, correct) -> float:
    """SCAA: the area under the coverage–accuracy curve, i.e. the mean over k = 1..n of the accuracy
    on the k most confident instances (El-Yaniv & Wiener 2010; HELM's selective_cov_acc_area)."""
    ranked = _by_confidence(confidence, correct)
    if len(ranked) == 0:
        return math.nan
    return float(np.mean(np.cumsum(ranked) / np.arange(1, len(ranked) + 1)))


def reliability_table(confidence, correct, n_bins: int = 10) -> list[dict]:
    """Per equal-mass bin (HELM's bins, as :func:`expected_calibration_error`): mean confidence, accuracy and size."""
    confidence, correct = np.asarray(confidence, float), np.asarray(correct, float)
    if len(confidence) == 0:
        return []
    order, starts = _equal_mass_bins(confidence, n_bins)
    return [{"bin": b, "confidence": float(confidence[p].mean()), "accuracy": float(correct[p].mean()), "n": len(p)}
            for b, p in enumerate(np.split(order, starts[1:])) if len(p)]


def _equal_mass_bins(confidence: np.ndarray, n_bins: int) -> tuple[np.ndarray, np.ndarray]:
    """Stable confidence order and the start of each non-empty bin in it: HELM's equal-mass bins
    (``calibration.get_equal_bins`` boundaries, ``fast_bin`` assignment with ``np.searchsorted``; a
    confidence above the last boundary 1.0 joins the last bin, as ``fast_bin``'s split does)."""
    order = np.argsort(confidence, kind="stable")
    ranked = confidence[order]
    parts = np.array_split(ranked, min(n_bins, len(ranked)))
    bounds = sorted({(parts[i][-1] + parts[i + 1][0]) / 2.0 for i in range(len(parts) - 1)} | {1.0})
    which = np.minimum(np.searchsorted(bounds, ranked), len(bounds) - 1)
    starts = np.flatnonzero(np.r_[True, which[1:] != which[:-1]])
    return order, starts


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
    n = len(confidence)
    if n == 0:
        return {"mean": math.nan, "q95": math.nan}
    order, starts = _equal_mass_bins(confidence, n_bins)
    ranked = confidence[order]
    confidence_sums = np.add.reduceat(ranked, starts)
    rng = np.random.default_rng(seed)  # an int or a Generator (returned as is)
    values = np.empty(n_simulations)
    batch = max(1, 2_000_000 // n)
    for start in range(0, n_simulations, batch):
        size = min(batch, n_simulations - start)
        outcomes = (rng.random((size, n)) < ranked).astype(float)
        values[start:start + size] = np.abs(np.add.reduceat(outcomes, starts, axis=1) - confidence_sums).sum(axis=1) / n
    return {"mean": float(values.mean()), "q95": float(np.quantile(values, 0.95))}


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
