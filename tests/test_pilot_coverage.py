"""Coverage of the pilot's upper limits (helmlite.planning.pilot): each covers its parameter with probability ≥ 0.8, so a
design sized on it reaches 80% power with at least that probability. Paired discordance, seed variance and the step
contrast's SD by exact enumeration over every pilot outcome; the SDs of contrasts over contexts by simulation (4,000 pilots per cell, Monte-Carlo SE ≈ 0.006: a
cell passes at ≥ 0.79, twice that SE below 0.8; the lowest seen is 0.878). Each test prints its table (pytest -s)."""
from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy.stats import binom, multinomial

from helmlite.planning import pilot
from helmlite.stats import proportion_ci

SIZES = (30, 50, 100)


def _enumerated(n: int, p_first: float, p_second: float, covers) -> float:
    """P(covers(k₁, k₂)) over every outcome (k₁, k₂, rest) of n draws from the three-way multinomial."""
    covered = 0.0
    for first in range(n + 1):
        counts = [(first, second, n - first - second) for second in range(n + 1 - first)]
        probabilities = multinomial.pmf(counts, n, [p_first, p_second, 1 - p_first - p_second])
        covered += sum(probability for (_, second, _), probability in zip(counts, probabilities) if covers(first, second))
    return covered


def _paired_coverage(n: int, p_b: float, p_c: float) -> float:
    """P(the pilot's limit ≥ ψ0 = 2·min(p_b, p_c)) over every (b, c) of a pilot of n pairs (the production function)."""
    return _enumerated(n, p_b, p_c, lambda b, c: pilot.upper_base_discordance(b, c, n) >= 2 * min(p_b, p_c))


def test_the_discordance_limit_covers_by_exact_enumeration():
    """ψ0 = 0.05–0.3 with the two models equal or 5–10 points apart (δ = p_b − p_c), pilots of 30/50/100 pairs."""
    rows = []
    for n, psi0, delta in itertools.product(SIZES, (0.05, 0.1, 0.176, 0.3), (0.0, 0.05, 0.1)):
        p_c = psi0 / 2
        rows.append((n, psi0, delta, _paired_coverage(n, p_c + delta, p_c)))
    print("\nn  psi0   delta  coverage of 2·min(U_b, U_c)")
    for row in rows:
        print("%3d  %.3f  %.2f   %.3f" % row)
    assert min(row[3] for row in rows) >= 0.8


def test_the_one_sided_limit_is_clopper_pearsons_at_that_level():
    """upper_proportion(k, n, c) is the upper end of the two-sided (2c − 1) Clopper–Pearson interval; by hand for
    k = 0: 1 − (1 − c)^(1/n) (scipy's beta quantile agrees)."""
    assert pilot.upper_proportion(0, 50, 0.9) == pytest.approx(1 - 0.1 ** (1 / 50))
    assert pilot.upper_proportion(7, 50, 0.9) == pytest.approx(proportion_ci(7, 50, level=0.8)[1])


def test_the_seed_variance_limit_covers_by_exact_enumeration():
    """Each item varies across S seeds with probability q (then k of S seeds right, k uniform on 1..S−1): the mean
    within-item variance is q·E[k(S − k)/(S(S − 1))]; the limit v_max·U(varying) covers it — exactly for S = 3, where
    every varying item has variance v_max, conservatively for S = 5."""
    rows = []
    for seeds, n, q in itertools.product((3, 5), SIZES, (0.05, 0.15, 0.3, 0.5)):
        ks = np.arange(1, seeds)
        truth = q * float(np.mean(ks * (seeds - ks) / (seeds * (seeds - 1))))
        varying = np.arange(n + 1)
        matrix_limits = np.array([pilot.upper_within_variance(_matrix(seeds, n, k)) for k in varying])
        rows.append((seeds, n, q, float(np.sum(binom.pmf(varying, n, q)[matrix_limits >= truth]))))
    print("\nS  n    q     coverage of the within-item variance limit")
    for row in rows:
        print("%d  %3d  %.2f  %.3f" % row)
    assert min(row[3] for row in rows) >= 0.8


def _matrix(seeds: int, n: int, varying: int) -> np.ndarray:
    """A seeds × n 0/1 matrix whose first ``varying`` items vary (one seed right), the rest all right."""
    matrix = np.ones((seeds, n))
    matrix[0, :varying] = 0
    return matrix


def _step_contrasts(psi: float):
    """(draw n contrasts, true SD) of the 0 → 1 step contrast (x₁ − x₀) − (x₂ − x₁) when every pair of shot levels
    disagrees on about a share ψ of the items (patterns with one or two levels right share 1.5ψ)."""
    patterns = np.array(list(itertools.product((0, 1), repeat=3)))
    p = np.full(8, 1.5 * psi / 6)
    p[0] = p[7] = (1 - 1.5 * psi) / 2
    values = (patterns[:, 1] - patterns[:, 0]) - (patterns[:, 2] - patterns[:, 1])
    sd = float(np.sqrt(np.sum(p * (values - np.sum(p * values)) ** 2)))
    return (lambda rng, n: values[rng.choice(8, size=n, p=p)]), sd


def _accuracy_contrasts(instances: int, accuracy: float):
    """Per-context end − start accuracy over ``instances`` items per depth (the end at ``accuracy``, the start 10% lower)."""
    start = 0.9 * accuracy
    sd = float(np.sqrt(accuracy * (1 - accuracy) / instances + start * (1 - start) / instances))
    return (lambda rng, n: rng.binomial(instances, accuracy, n) / instances - rng.binomial(instances, start, n) / instances), sd


def _probability_contrasts(a: float, b: float, scale: float):
    """Per-context P(gold) differences: scale·Beta(a, b) minus its mean (bounded, skewed as the depth runs' are)."""
    variance = a * b / ((a + b) ** 2 * (a + b + 1))
    return (lambda rng, n: scale * rng.beta(a, b, n)), float(scale * np.sqrt(variance))


def test_the_step_contrast_limit_covers_by_exact_enumeration():
    """The 0 → 1 step contrast takes |c| = 1 or 2 with shares (p₁, p₂) when every pair of shot levels disagrees on a
    share ψ of the items (:func:`_step_contrasts`); the limit depends on the counts of |c| = 1 and |c| = 2 only, so
    every pilot outcome is enumerated: coverage of the true SD at ψ = 0.05–0.4, n = 30/50/100."""
    rows = []
    for psi, n in itertools.product((0.05, 0.1, 0.25, 0.4), SIZES):
        _, sd = _step_contrasts(psi)
        p = np.full(8, 1.5 * psi / 6)  # patterns 001..110 (the two all-equal ones give c = 0)
        values = np.abs([(b - a) - (c - b) for a, b, c in itertools.product((0, 1), repeat=3)])
        p_one, p_two = float(p[values == 1].sum()), float(p[values == 2].sum())
        coverage = _enumerated(n, p_one, p_two, lambda k1, k2: pilot.upper_sd_of_steps(
            np.r_[np.ones(k1), 2 * np.ones(k2), np.zeros(n - k1 - k2)]) >= sd)
        rows.append((psi, n, coverage))
    print("\npsi   n    coverage of the step contrast's SD limit")
    for row in rows:
        print("%.2f  %3d  %.3f" % row)
    assert min(row[2] for row in rows) >= 0.8


CONTRASTS = {"accuracy, 3 per depth, 0.5": _accuracy_contrasts(3, 0.5),
             "accuracy, 3 per depth, 0.9": _accuracy_contrasts(3, 0.9),
             "accuracy, 5 per depth, 0.95": _accuracy_contrasts(5, 0.95),
             "P(gold) difference, Beta(0.7, 3)": _probability_contrasts(0.7, 3, 0.05),
             "P(gold) difference, Beta(2, 5)": _probability_contrasts(2, 5, 0.2)}


def test_the_contrast_sd_limit_covers_by_simulation():
    rng = np.random.default_rng(20261206)
    rows = []
    for name, (draw, sd) in CONTRASTS.items():
        for n in SIZES:
            rows.append((name, n, float(np.mean([pilot.upper_sd(draw(rng, n)) >= sd for _ in range(4000)]))))
    print("\ncontrast                              n    coverage of Bonett's limit (nominal 0.9)")
    for row in rows:
        print("%-36s %3d  %.3f" % row)
    assert min(row[2] for row in rows) >= 0.8 - 0.01  # 4,000 pilots: Monte-Carlo SE 0.006 at 0.8


def test_the_sd_limit_by_hand_on_a_small_sample():
    """Bonett (2006) on y = (0, 1, 2, 3, 4, 5, 6, 7, 8, 9): s² = 9.1667, n = 10, trim 1/(2√6) = 0.204 → 2 values cut at
    each end, m = 4.5, γ̂₄ = 10·Σ(y − 4.5)⁴/(82.5)² = 10·1208.625/6806.25 = 1.7758; z = Φ⁻¹(0.9) = 1.2816,
    c = 10/8.7184 = 1.1470, se = c·√((1.7758 − 0.7)/9) = 0.3965; upper SD = √(exp(ln(1.1470·9.1667) + 1.2816·0.3965))
    = √(10.514·1.6626) = 4.1811."""
    assert pilot.upper_sd(np.arange(10.0)) == pytest.approx(4.1811, abs=2e-3)
