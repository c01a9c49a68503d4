"""Power helpers: minimum detectable effects and required n.

References: statsmodels ``NormalIndPower`` with ``proportion_effectsize`` (Cohen's h) for unpaired
proportions, Connor's (1987) equation and the exact power of the exact McNemar test (binomial sums)
for paired proportions, and hand-derived Fisher-z values for correlations.
"""
from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats as sps
from statsmodels.stats.power import NormalIndPower
from statsmodels.stats.proportion import proportion_effectsize

from helmlite import stats

Z_A, Z_B = sps.norm.ppf(0.975), sps.norm.ppf(0.8)


@pytest.mark.parametrize("n,p", [(20, 0.5), (100, 0.5), (100, 0.8), (500, 0.3), (50, 0.95)])
@pytest.mark.parametrize("one_sample", [False, True])
def test_unpaired_mde_has_80_percent_power_in_statsmodels(n, p, one_sample):
    """Reference: statsmodels NormalIndPower().power(Cohen's h of p → p ± MDE, n, α = 0.05), ratio=1
    (two samples of n) or ratio=0 (one sample): the MDE's easier direction has power 0.8 (the far tail
    adds < 1e-5), the other at most 0.8."""
    mde = stats.mde_proportion(n, p=p, one_sample=one_sample)
    powers = sorted(NormalIndPower().power(proportion_effectsize(target, p), nobs1=n, alpha=0.05,
                                           ratio=0 if one_sample else 1)
                    for target in (p + mde, p - mde) if 0 <= target <= 1)
    assert powers[-1] == pytest.approx(0.8, abs=1e-4) and powers[0] <= 0.8 + 1e-4


def test_unpaired_mde_hand_values_and_direction():
    """Hand-derived: at p = 0.5 the arcsine MDE is sin²(π/4 + h/2) − 1/2 with h = 2.8016·√(2/n)."""
    h = (Z_A + Z_B) * math.sqrt(2 / 100)
    assert stats.mde_proportion(100) == pytest.approx(math.sin(math.pi / 4 + h / 2) ** 2 - 0.5)
    # near 1 only the downward move is possible
    assert stats.mde_proportion(8, p=0.95) == pytest.approx(0.95 - math.sin(math.asin(math.sqrt(0.95))
                                                                      - (Z_A + Z_B) * math.sqrt(2 / 8) / 2) ** 2)
    assert stats.mde_proportion(0) == math.inf


def test_paired_mde_solves_connors_equation_and_has_exact_mcnemar_power():
    """References: Connor (1987), n = [z_α√ψ + z_β√(ψ − δ²)]²/δ² (hand-derived δ = 0.195776 at n = 100,
    ψ = 0.5), and the exact power of the exact McNemar test at that δ, summed over the binomial
    distribution of discordant items (normal approximation: within a few points of 0.8)."""
    delta = stats.mde_proportion(100, paired=True, discordance=0.5)
    assert delta == pytest.approx(0.195776, abs=1e-6)
    assert ((Z_A * math.sqrt(0.5) + Z_B * math.sqrt(0.5 - delta**2)) / delta) ** 2 == pytest.approx(100)
    p10 = (0.5 + delta) / 2  # discordant in favour of a; p01 = ψ − p10
    power = 0.0
    for d in range(101):
        k = np.arange(d + 1)
        p_values = np.minimum(1, 2 * sps.binom.cdf(np.minimum(k, d - k), d, 0.5)) if d else np.ones(1)
        power += sps.binom.pmf(d, 100, 0.5) * np.sum(sps.binom.pmf(k, d, p10 / 0.5)[p_values < 0.05])
    assert 0.72 <= power <= 0.85
    assert stats.mde_proportion(100, paired=True) == pytest.approx(delta)  # default ψ = 2p(1 − p) = 0.5
    assert stats.mde_proportion(3, paired=True, discordance=0.5) == math.inf  # 3 items cannot detect anything


@pytest.mark.parametrize("kwargs", [{}, {"one_sample": True}, {"p": 0.8}, {"paired": True, "discordance": 0.3},
                                    {"paired": True, "p": 0.7}])
@pytest.mark.parametrize("effect", [0.05, 0.1, 0.2])
def test_required_n_is_the_smallest_n_whose_mde_reaches_the_effect(effect, kwargs):
    """Reference: mde_proportion itself — required_n(e) is the first n with MDE <= e."""
    n = stats.required_n(effect, **kwargs)
    assert stats.mde_proportion(n, **kwargs) <= effect + 1e-9
    assert stats.mde_proportion(n - 1, **kwargs) > effect - 1e-9


def test_required_n_hand_values_and_refusals():
    """Hand-derived: two samples at p = 0.5, effect 0.1: h = 2·asin√0.6 − 2·asin√0.5 = 0.201358,
    n = 2·(2.801585/0.201358)² = 387.2 → 388 per group (the familiar ~390)."""
    h = 2 * math.asin(math.sqrt(0.6)) - 2 * math.asin(math.sqrt(0.5))
    assert stats.required_n(0.1) == math.ceil(2 * ((Z_A + Z_B) / h) ** 2) == 388
    with pytest.raises(ValueError, match="discordant"):
        stats.required_n(0.4, paired=True, discordance=0.3)
    with pytest.raises(ValueError, match="non-zero"):
        stats.required_n(0)


def test_correlation_mde_and_required_n():
    """Hand-derived (Fisher z): n = 28 → tanh(2.801585/5) = 0.50821; detecting r = 0.5 needs
    ((2.801585/atanh 0.5)² + 3) = 29.3 → 30 pairs; n <= 3 detects nothing."""
    assert stats.mde_correlation(28) == pytest.approx(math.tanh((Z_A + Z_B) / 5))
    assert stats.mde_correlation(28) == pytest.approx(0.50821, abs=1e-5)
    assert stats.required_n_correlation(0.5) == 30
    assert stats.mde_correlation(30) <= 0.5 < stats.mde_correlation(29)
    assert stats.mde_correlation(3) == math.inf
