"""ECE's small-sample bias: the ECE expected under perfect calibration, and Kumar et al.'s debiased estimator.

References: the existing loop implementation ``expected_calibration_error`` (same bins), simulated
perfectly calibrated and miscalibrated models, and a hand-derived debiased value.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

from helmlite.metrics.calibration import debiased_ece, ece_under_perfect_calibration, expected_calibration_error


def test_simulated_perfect_calibration_equals_the_binned_ece_loop():
    """Reference: expected_calibration_error on the very outcomes the vectorised simulation draws
    (same generator stream; confidences passed in sorted order, which the stable sort keeps)."""
    confidence = np.random.default_rng(0).uniform(0.3, 1.0, 37)
    result = ece_under_perfect_calibration(confidence, n_bins=10, n_simulations=300, seed=5)
    ranked = np.sort(confidence, kind="stable")
    outcomes = np.random.default_rng(5).random((300, 37)) < ranked
    values = [expected_calibration_error(ranked, row.astype(float), 10) for row in outcomes]
    assert result["mean"] == pytest.approx(np.mean(values), abs=1e-12)
    assert result["q95"] == pytest.approx(np.quantile(values, 0.95), abs=1e-12)


@pytest.mark.parametrize("n", [8, 50, 500])
def test_binned_ece_of_a_calibrated_model_is_its_simulated_expectation_and_debiased_is_about_zero(n):
    """Perfectly calibrated data sets (correct ~ Bernoulli(confidence)), 2,000 of them: the average
    binned ECE matches ece_under_perfect_calibration's mean (an independent seed; within 4 Monte-Carlo
    SE) and is far above 0 at small n (the upward bias); the debiased squared error averages 0 (within
    4 SE; its tiny negative bias from within-bin spread of confidences is far below that)."""
    rng = np.random.default_rng(n)
    confidence = rng.uniform(0.25, 1.0, n)
    expected = ece_under_perfect_calibration(confidence, n_simulations=4000, seed=1)
    binned, debiased = [], []
    for _ in range(2000):
        correct = (rng.random(n) < confidence).astype(float)
        binned.append(expected_calibration_error(confidence, correct))
        debiased.append(debiased_ece(confidence, correct))
    binned, debiased = np.array(binned), np.array(debiased)
    assert abs(binned.mean() - expected["mean"]) < 4 * binned.std() / math.sqrt(2000)
    assert expected["mean"] > {8: 0.25, 50: 0.1, 500: 0.03}[n]
    assert abs(debiased.mean()) < 4 * debiased.std() / math.sqrt(2000)
    assert expected["q95"] > expected["mean"]


def test_a_miscalibrated_model_stands_out_from_small_sample_bias():
    """An overconfident model (accuracy = confidence − 0.2) at n = 500: the binned ECE exceeds the
    95th percentile under perfect calibration, and the debiased squared error is about 0.2² = 0.04."""
    rng = np.random.default_rng(9)
    confidence = rng.uniform(0.5, 1.0, 500)
    correct = (rng.random(500) < confidence - 0.2).astype(float)
    assert expected_calibration_error(confidence, correct) > ece_under_perfect_calibration(confidence)["q95"]
    assert debiased_ece(confidence, correct) == pytest.approx(0.04, abs=0.015)


def test_debiased_ece_hand_derived():
    """Hand-derived, two bins of two: bin 1 (0.1)² − var([1, 0])/2 = 0.01 − 0.25 = −0.24; bin 2
    (1 − 0.8)² − 0 = 0.04; weighted mean −0.1 (negative estimates are reported as they are)."""
    assert debiased_ece([0.6, 0.6, 0.8, 0.8], [1, 0, 1, 1], n_bins=2) == pytest.approx(-0.1)
    assert math.isnan(debiased_ece([0.7], [1]))
    assert math.isnan(ece_under_perfect_calibration([])["mean"])


def test_ece_under_perfect_calibration_uses_helms_tie_merging_bins():
    """Hand-derived, 2 bins over confidences (0.5, 0.5, 0.5, 0.9): HELM's bins put the three tied 0.5s in one
    bin. Bin {0.5 ×3}: S ~ Binomial(3, 0.5), E|S/3 − 0.5| = 2/8·0.5 + 6/8·(1/6) = 0.25, weight 3/4; bin {0.9}:
    E|Y − 0.9| = 0.9·0.1 + 0.1·0.9 = 0.18, weight 1/4 → 0.1875 + 0.045 = 0.2325 (a plain split {0.5, 0.5},
    {0.5, 0.9} would give 0.125 + 0.135 = 0.26)."""
    result = ece_under_perfect_calibration([0.5, 0.5, 0.5, 0.9], n_bins=2, n_simulations=40_000, seed=3)
    assert result["mean"] == pytest.approx(0.2325, abs=0.004)


def test_calibration_error_test_is_the_ece_test_with_its_dual_interval():
    """Reference: ece_under_perfect_calibration with the same seed draws the same calibrated simulations,
    so the test's p is their share at or above the observed ECE ((k + 1)/(B + 1), counted here); the
    interval's lower end is 0 exactly when the two-sided p (2p) >= 0.05; the estimate lies inside [ci_low, ci_high];
    the upper end, a bound from the data, stays below the largest calibration error the confidences allow,
    mean max(c, 1 − c)."""
    from helmlite.metrics.calibration import _EceSimulation, calibration_error_test

    rng = np.random.default_rng(3)
    for n, shift in ((20, 0.0), (60, 0.0), (60, 0.3), (200, 0.1)):
        confidence = rng.uniform(0.3, 1.0, n)
        correct = rng.random(n) < np.clip(confidence - shift, 0, 1)
        test = calibration_error_test(confidence, correct, n_simulations=999, seed=7)
        null = _EceSimulation(confidence, 10, 999, 7).simulate()
        assert test.ece == pytest.approx(expected_calibration_error(confidence, correct))
        assert test.p_value == pytest.approx((1 + np.sum(null >= test.ece - 1e-12)) / 1000)
        assert (test.ci_low > 0) == (test.p_two_sided < 0.05) and test.p_two_sided == pytest.approx(min(1, 2 * test.p_value))
        assert test.ci_low <= test.estimate <= test.ci_high < np.mean(np.maximum(confidence, 1 - confidence))
        assert test.mde > 0  # inf at n = 20: no shift is detected with 80% power by the two-sided test
    expected = ece_under_perfect_calibration(confidence, n_simulations=999, seed=7)
    assert (test.ece_if_calibrated, test.ece_if_calibrated_q95) == pytest.approx((expected["mean"], expected["q95"]))


def test_calibration_error_test_finds_a_strong_miscalibration():
    """30 points overconfident on 200 instances (confidences U(0.6, 1), true calibration error 0.3): p at its
    floor 1/(B + 1) and the two-sided interval excludes 0 and ends well below θ_max (~0.8) in every one of 30 seeded
    data sets; the estimate is
    median-unbiased, so its median over them is near 0.3 (accepted ±0.03)."""
    from helmlite.metrics.calibration import calibration_error_test

    estimates = []
    for k in range(30):
        rng = np.random.default_rng(100 + k)
        confidence = rng.uniform(0.6, 1.0, 200)
        correct = rng.random(200) < confidence - 0.3
        test = calibration_error_test(confidence, correct, n_simulations=299, seed=k)
        assert test.p_value == pytest.approx(1 / 300) and test.ci_low > 0.14 and test.ci_high < 0.45
        assert test.p_two_sided == test.p_floor == pytest.approx(2 / 300)  # at the floor: read "p ≤ 2/(B + 1)"
        estimates.append(test.estimate)
    assert np.median(estimates) == pytest.approx(0.3, abs=0.03)


def test_calibration_interval_with_confidences_on_both_sides_of_one_half():
    """The reviewer's case: confidences 0.1 and 0.9 (20 each) with every outcome reversed — the most
    miscalibrated data these confidences allow. Hand-derived: θ_max = mean max(c, 1 − c) = 0.9, and the
    ECE is 0.9 (the tied confidences make two bins, |1 − 0.1| and |0 − 0.9|); the interval is finite,
    excludes 0, ends at 0.9 and holds its estimate; p is at its floor 1/(B + 1)."""
    from helmlite.metrics.calibration import calibration_error_test

    confidence = np.r_[np.full(20, 0.1), np.full(20, 0.9)]
    correct = np.r_[np.ones(20), np.zeros(20)]
    test = calibration_error_test(confidence, correct, n_simulations=499, seed=0)
    assert test.ece == pytest.approx(0.9)
    assert test.ci_high == pytest.approx(0.9) and 0 < test.ci_low <= test.estimate <= test.ci_high
    assert test.p_value == pytest.approx(1 / 500)


def test_binned_ece_by_bin_sums_equals_the_per_bin_loop_with_ties():
    """Reference: a plain loop over HELM's equal-mass bins (np.array_split of the sorted confidences,
    boundaries at the midpoints, duplicates merged, 1.0 appended; np.searchsorted assignment) — as
    crfm-helm's ``get_equal_bins`` + ``fast_bin`` — on 300 random cases with many tied confidences."""
    rng = np.random.default_rng(7)

    def loop_ece(confidence, correct, n_bins):
        ranked = np.sort(confidence)
        parts = np.array_split(ranked, min(n_bins, len(ranked)))
        bounds = sorted({(parts[i][-1] + parts[i + 1][0]) / 2.0 for i in range(len(parts) - 1)} | {1.0})
        which = np.minimum(np.searchsorted(bounds, confidence), len(bounds) - 1)
        return sum((which == b).sum() * abs(correct[which == b].mean() - confidence[which == b].mean())
                   for b in set(which)) / len(confidence)

    for _ in range(300):
        n = int(rng.integers(1, 60))
        confidence = rng.choice(np.r_[rng.uniform(0.25, 1, 5), 1.0], size=n)  # few distinct values: ties everywhere
        correct = (rng.random(n) < confidence).astype(float)
        for n_bins in (1, 10):
            assert expected_calibration_error(confidence, correct, n_bins) == pytest.approx(
                loop_ece(confidence, correct, n_bins), abs=1e-12)


def test_calibration_bootstrap_on_pairs_equals_the_bootstrap_on_records():
    """stats.json's ECE interval bins every resample row at once (ece_rows over the (confidence, correct) pairs
    read once); the plain path — the same draws, each resample's records written out and binned one at a time by
    expected_calibration_error, then the percentile interval of those values — gives the same estimate and interval."""
    from types import SimpleNamespace

    from helmlite import stats
    from helmlite.metrics import families
    from helmlite.seeds import rng as derive
    from helmlite.stats.estimates import generator

    rng = np.random.default_rng(3)
    records = [SimpleNamespace(confidence=float(c), probabilities=None, correct=bool(rng.random() < c), metrics={},
                               prompt_tokens=1, output_tokens=1) for c in rng.uniform(0.3, 1, 80)]
    fast = families.compute(("calibration",), records, run_id="r", seed=0, n_resamples=300)["metrics"]["ece_10"]
    draws = generator(derive(0, "r", "bootstrap", "ece_10")).integers(0, len(records), size=(300, len(records)))
    plain = [expected_calibration_error(*families._confidences([records[i] for i in row]), 10) for row in draws]
    low, high = stats.percentile_interval(np.array(plain))
    assert fast.estimate == pytest.approx(expected_calibration_error(*families._confidences(records), 10), abs=1e-12)
    assert (fast.ci_low, fast.ci_high) == pytest.approx((low, high), abs=1e-12)


def test_platt_scaling_is_the_unpenalised_logistic_fit_helm_uses():
    """HELM's Platt scaler is scikit-learn's LogisticRegression(C=1e10) on logit(confidence); with so weak a
    penalty it is the maximum-likelihood logistic regression, which statsmodels' Logit fits independently:
    same coefficient and intercept (to lbfgs's stopping tolerance, 1e-4 on the gradient: a few 1e-4 here), and the
    Platt-scaled ECE is the ECE of statsmodels' fitted probabilities."""
    import statsmodels.api as sm

    from helmlite.metrics.calibration import platt_metrics, platt_scaler

    rng = np.random.default_rng(5)
    confidence = rng.uniform(0.25, 0.99, 300)
    correct = rng.random(300) < confidence ** 2  # overconfident
    logit = np.log(confidence / (1 - confidence))
    reference = sm.Logit(correct.astype(float), sm.add_constant(logit)).fit(disp=0)
    coef, intercept = platt_scaler(confidence, correct)
    assert (coef, intercept) == pytest.approx((reference.params[1], reference.params[0]), abs=2e-3)
    fitted = reference.predict(sm.add_constant(logit))
    metrics = platt_metrics(confidence, correct)
    assert (metrics["platt_coef"], metrics["platt_intercept"]) == (coef, intercept)
    for bins in (10, 1):
        assert metrics[f"platt_ece_{bins}"] == pytest.approx(expected_calibration_error(fitted, correct, bins), abs=1e-3)
    # a 1-bin ECE after an intercept-fitted logistic regression is 0: the fit's mean probability equals the accuracy
    assert metrics["platt_ece_1"] == pytest.approx(0.0, abs=1e-3)
    # crfm-helm's own calibration package on these inputs (cal.get_platt_scaler, get_ece_em, get_ece; run in crfm-helm
    # 0.5.16's venv on 2026-12-01): the same fit to the last digit, and the same Platt-scaled ECEs
    assert (coef, intercept) == pytest.approx((1.2045734900521263, -0.9019756317519317), abs=1e-9)
    assert metrics["platt_ece_10"] == pytest.approx(0.05163432284033817, abs=1e-9)
    assert metrics["platt_ece_1"] == pytest.approx(9.347710527307651e-05, abs=1e-9)
    # HELM's rule when every answer is right (or wrong): no scaler, Platt ECE stored as 0.0
    assert platt_scaler(confidence, np.ones(300, bool)) is None
    assert platt_metrics(confidence, np.ones(300, bool)) == {"platt_ece_10": 0.0, "platt_ece_1": 0.0}


def test_platt_metrics_are_point_values_in_stats_json():
    """The calibration family adds platt_ece_10/_1, platt_coef and platt_intercept as point values (NaN interval,
    its method says so); the ECE stays bootstrapped."""
    from types import SimpleNamespace

    from helmlite.metrics import families
    from helmlite.metrics.calibration import platt_metrics

    rng = np.random.default_rng(3)
    records = [SimpleNamespace(confidence=float(c), probabilities=None, correct=bool(rng.random() < c), metrics={},
                               prompt_tokens=1, output_tokens=1) for c in rng.uniform(0.3, 1, 80)]
    metrics = families.compute(("calibration",), records, run_id="r", seed=0, n_resamples=100)["metrics"]
    assert {"platt_ece_10", "platt_ece_1", "platt_coef", "platt_intercept"} <= set(metrics)
    point = metrics["platt_ece_10"]
    assert point.estimate == platt_metrics(*families._confidences(records))["platt_ece_10"]
    assert math.isnan(point.ci_low) and point.method == families.POINT_METHOD and point.n == 80
    assert not math.isnan(metrics["ece_10"].ci_low)


def _exact_bounds(n: int, correct: int, tail: float = 0.025) -> tuple[float, float]:
    """Confidences all 0.5, so the binned ECE is |K/n − 0.5| (one bin) and every miscalibration family of
    helmlite.metrics.calibration gives P(correct) = 0.5 − θ (or 0.5 + θ) for calibration error θ: the interval's
    ends by scipy's exact binomial law instead of simulation. Lower: the smallest θ with P(ECE ≥ observed) ≥ tail;
    upper: the largest θ with P(ECE ≤ observed) ≥ tail."""
    from scipy.optimize import brentq
    from scipy.stats import binom

    observed = abs(correct / n - 0.5)
    k = np.arange(n + 1)

    def share(theta, at_least):
        ece = np.abs(k / n - 0.5)
        mask = ece >= observed - 1e-12 if at_least else ece <= observed + 1e-12
        return float(binom.pmf(k, n, 0.5 - theta)[mask].sum())

    lower = 0.0 if share(0.0, True) >= tail else brentq(lambda t: share(t, True) - tail, 0.0, 0.5)
    upper = brentq(lambda t: share(t, False) - tail, 0.0, 0.5)
    return lower, upper


@pytest.mark.parametrize("correct, direction", [(30, "overconfident"), (38, "overconfident"), (64, "underconfident")])
def test_calibration_interval_is_two_sided_and_matches_the_exact_binomial_bounds(correct, direction):
    """n = 100 confidences of 0.5 with 30, 38 or 64 correct (ECE 0.20, 0.12, 0.14): the Monte-Carlo interval
    (2,000 simulations) is within 0.02 of the exact bounds from scipy's binomial law, its upper end is a bound from
    the data (not θ_max = 0.5), the estimate lies inside, p_two_sided doubles the one-sided p, and the direction is
    read off mean confidence vs accuracy."""
    from helmlite.metrics.calibration import calibration_error_test

    outcomes = np.r_[np.ones(correct), np.zeros(100 - correct)]
    test = calibration_error_test(np.full(100, 0.5), outcomes, n_simulations=2000, seed=1)
    lower, upper = _exact_bounds(100, correct)
    assert test.ci_low == pytest.approx(lower, abs=0.02) and test.ci_high == pytest.approx(upper, abs=0.02)
    assert test.ci_high < 0.45 and test.ci_low <= test.estimate <= test.ci_high
    assert test.p_two_sided == pytest.approx(min(1, 2 * test.p_value)) and test.direction == direction
    assert (test.ci_low > 0) == (test.p_two_sided < 0.05)
