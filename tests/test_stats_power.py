"""Power helpers: minimum detectable effects and required n, by the power of the test the kit runs.

References: statsmodels ``NormalIndPower`` with ``proportion_effectsize`` (Cohen's h) for two independent
samples; for one proportion the Clopper–Pearson interval of statsmodels ``proportion_confint(method="beta")``
(the test rejects exactly when it excludes the null) summed over scipy's binomial pmf; for paired
proportions statsmodels ``mcnemar(exact=True)`` on every 2×2 table, summed over the multinomial
distribution of the discordant pairs; Fisher-z values derived by hand for correlations.
"""
from __future__ import annotations

import functools
import math

import numpy as np
import pytest
from scipy import stats as sps
from statsmodels.stats.contingency_tables import mcnemar
from statsmodels.stats.power import NormalIndPower
from statsmodels.stats.proportion import proportion_confint, proportion_effectsize

from helmlite import stats

Z_A, Z_B = sps.norm.ppf(0.975), sps.norm.ppf(0.8)


def clopper_pearson_power(n: int, p0: float, p1: float) -> float:
    """Independent reference: P(the 95% Clopper–Pearson interval of X ~ Bin(n, p1) excludes p0)."""
    k = np.arange(n + 1)
    low, high = proportion_confint(k, n, alpha=0.05, method="beta")
    excludes = (low > p0) | (high < p0)
    return float(sps.binom.pmf(k, n, p1)[excludes].sum())


def statsmodels_mcnemar_power(n: int, delta: float, psi: float, alpha: float = 0.05) -> float:
    """Independent reference: Σ over (discordant d, favouring a k) of P(d, k) · [statsmodels' exact McNemar p < α]."""
    power = 0.0
    for d in range(1, n + 1):
        weight = sps.binom.pmf(d, n, psi)
        rejected = [k for k in range(d + 1) if _mcnemar_p(d, k) < alpha]
        power += weight * float(np.sum(sps.binom.pmf(rejected, d, (psi + delta) / (2 * psi))))
    return power


@functools.lru_cache(maxsize=None)
def _mcnemar_p(d: int, k: int) -> float:
    return mcnemar([[0, k], [d - k, 0]], exact=True).pvalue


@pytest.mark.parametrize("n,p", [(20, 0.5), (100, 0.5), (100, 0.8), (500, 0.3), (50, 0.95)])
@pytest.mark.parametrize("direction", ["greater", "less", "two-sided"])
def test_two_sample_mde_has_80_percent_power_in_statsmodels(n, p, direction):
    """Reference: statsmodels NormalIndPower().power(Cohen's h of p → p ± MDE, n per group, α = 0.05): the
    claimed direction has power 0.8; a two-sided claim reports the harder direction (power 0.8 there, at
    least 0.8 the other way), or inf when one direction leaves [0, 1]."""
    mde = stats.mde_proportion(n, p=p, direction=direction)
    ups = {"greater": [True], "less": [False], "two-sided": [True, False]}[direction]
    targets = [p + mde if up else p - mde for up in ups]
    if not math.isfinite(mde):
        assert direction != "less" and p == 0.95  # 0.95 + anything detectable at n = 50 passes 1
        return
    powers = sorted(NormalIndPower().power(proportion_effectsize(t, p), nobs1=n, alpha=0.05, ratio=1) for t in targets)
    assert powers[0] == pytest.approx(0.8, abs=1e-4) and powers[-1] >= 0.8 - 1e-4


def test_one_proportion_mde_in_the_claimed_direction_issue_example():
    """The issue's case: at p = 0.9 nothing upward is detectable with 18 or 20 items (18/18 has p = 2·0.9¹⁸ =
    0.30), so a two-sided or "greater" claim has MDE inf; downward 0.3036 at n = 18 and 0.2665 at n = 20,
    where the reference power (Clopper–Pearson excludes 0.9) is at least 0.8."""
    for n in (18, 20):
        assert stats.mde_proportion(n, p=0.9, one_sample=True) == math.inf
        assert stats.mde_proportion(n, p=0.9, one_sample=True, direction="greater") == math.inf
    assert stats.mde_proportion(18, p=0.9, one_sample=True, direction="less") == pytest.approx(0.30358, abs=1e-4)
    assert stats.mde_proportion(20, p=0.9, one_sample=True, direction="less") == pytest.approx(0.26646, abs=1e-4)
    for n in (18, 20):
        mde = stats.mde_proportion(n, p=0.9, one_sample=True, direction="less")
        assert clopper_pearson_power(n, 0.9, 0.9 - mde) >= 0.8 - 1e-9


@pytest.mark.parametrize("p,direction", [(0.5, "greater"), (0.9, "less"), (0.05, "greater"), (0.25, "two-sided")])
def test_one_proportion_mde_is_monotone_with_at_least_the_stated_power(p, direction):
    """Reference: clopper_pearson_power. Over n = 5…150 the reported MDE never rises with n, its exact power
    is >= 0.8 at every n (Chernick & Liu's rule: every larger n keeps it), and exactly 0.8 wherever the
    saw has no tooth ahead (the MDE of n alone)."""
    previous, exact_hits = math.inf, 0
    for n in range(5, 151):
        mde = stats.mde_proportion(n, p=p, one_sample=True, direction=direction)
        assert mde <= previous + 1e-9  # the root finder's tolerance
        previous = mde
        if math.isfinite(mde):
            ups = {"greater": [True], "less": [False], "two-sided": [True, False]}[direction]
            powers = [clopper_pearson_power(n, p, p + mde if up else p - mde) for up in ups]
            assert min(powers) >= 0.8 - 1e-7
            exact_hits += abs(min(powers) - 0.8) < 1e-6
    assert exact_hits >= 20


@pytest.mark.parametrize("n,published", [(20, 0.432), (50, 0.288), (100, 0.203)])
def test_paired_mde_is_the_exact_mcnemar_80_percent_point(n, published):
    """The issue's true 80% MDEs of the exact McNemar test at ψ = 0.5 (0.432 / 0.288 / 0.203; Connor's
    approximation gave 0.417 / 0.274 / 0.196), and statsmodels' exact McNemar test summed over all tables
    gives power 0.8 there."""
    delta = stats.mde_proportion(n, paired=True, discordance=0.5)
    assert delta == pytest.approx(published, abs=1e-3)  # the issue printed 3 decimals of its own enumeration
    assert stats.mcnemar_power(n, delta, 0.5) == pytest.approx(0.8, abs=1e-6)
    if n <= 50:
        assert statsmodels_mcnemar_power(n, delta, 0.5) == pytest.approx(0.8, abs=1e-6)
    assert stats.mde_proportion(n, paired=True) == pytest.approx(delta)  # default ψ = 2p(1 − p) = 0.5
    assert stats.mde_proportion(3, paired=True, discordance=0.5) == math.inf  # 3 items cannot detect anything


def test_paired_mde_is_monotone_in_n():
    values = [stats.mde_proportion(n, paired=True, discordance=0.2) for n in range(6, 120)]
    assert all(a >= b for a, b in zip(values, values[1:]))


@pytest.mark.parametrize("kwargs", [{}, {"one_sample": True}, {"p": 0.8, "one_sample": True, "direction": "less"},
                                    {"paired": True, "discordance": 0.3}, {"paired": True, "p": 0.7}])
@pytest.mark.parametrize("effect", [0.05, 0.1, 0.2])
def test_required_n_is_the_first_n_whose_mde_reaches_the_effect(effect, kwargs):
    """Reference: the definition — required_n(e) is the first n with MDE <= e — and, for the exact tests, the
    independent power references at that n."""
    n = stats.required_n(effect, **kwargs)
    assert stats.mde_proportion(n, **kwargs) <= effect + 1e-9
    assert stats.mde_proportion(n - 1, **kwargs) > effect - 1e-9
    if kwargs.get("one_sample"):
        p = kwargs.get("p", 0.5)
        target = p - effect if kwargs.get("direction") == "less" else p + effect
        assert clopper_pearson_power(n, p, target) >= 0.8 - 1e-9


def test_required_n_hand_values_and_refusals():
    """Hand-derived: two samples at p = 0.5, effect 0.1 (two-sided, the harder direction is 0.5 → 0.4 or 0.6,
    symmetric): h = 2·asin√0.6 − 2·asin√0.5 = 0.201358, n = 2·(2.801585/0.201358)² = 387.2 → 388 per group."""
    h = 2 * math.asin(math.sqrt(0.6)) - 2 * math.asin(math.sqrt(0.5))
    assert stats.required_n(0.1) == math.ceil(2 * ((Z_A + Z_B) / h) ** 2) == 388
    with pytest.raises(ValueError, match="discordant"):
        stats.required_n(0.4, paired=True, discordance=0.3)
    with pytest.raises(ValueError, match="non-zero"):
        stats.required_n(0)
    with pytest.raises(ValueError, match="leaves"):
        stats.required_n(0.2, p=0.9, one_sample=True)  # two-sided: 0.9 + 0.2 > 1
    with pytest.raises(ValueError, match="direction"):
        stats.mde_proportion(20, direction="up")


def test_correlation_mde_and_required_n():
    """Hand-derived (Fisher z): n = 28 → tanh(2.801585/5) = 0.50821; detecting r = 0.5 needs
    ((2.801585/atanh 0.5)² + 3) = 29.3 → 30 pairs; n <= 3 detects nothing."""
    assert stats.mde_correlation(28) == pytest.approx(math.tanh((Z_A + Z_B) / 5))
    assert stats.mde_correlation(28) == pytest.approx(0.50821, abs=1e-5)
    assert stats.required_n_correlation(0.5) == 30
    assert stats.mde_correlation(30) <= 0.5 < stats.mde_correlation(29)
    assert stats.mde_correlation(3) == math.inf


def test_seed_sd_mde_for_two_seeds_is_the_two_sided_z_tests():
    """Hand-derived: with two seeds Q is McNemar's χ²(1), and λ* for 80% power at α = 0.05 is (z₀.₉₇₅ + z₀.₈)² =
    7.849 (less the far tail, < 0.01%); so σ = √(7.849·σ²_w/n). In the accuracy difference of the two seeds
    (√2·σ) at ψ = 2σ²_w it sits near the exact McNemar MDE (no continuity correction: a little smaller)."""
    z = Z_A + Z_B
    assert stats.mde_seed_sd(100, 2, 0.125) == pytest.approx(math.sqrt(z * z * 0.125 / 100), rel=1e-4)
    exact = stats.mde_proportion(100, paired=True, discordance=0.25)
    assert 0.9 * exact < math.sqrt(2) * stats.mde_seed_sd(100, 2, 0.125) < exact
    assert stats.mde_seed_sd(400, 3, 0.125) == pytest.approx(stats.mde_seed_sd(100, 3, 0.125) / 2)  # 1/√n
    assert stats.mde_seed_sd(1, 3, 0.1) == math.inf and stats.mde_seed_sd(50, 3, 0.0) == math.inf


def test_seed_sd_mde_has_its_power_under_statsmodels_cochrans_q():
    """Simulated: 3 seeds × 150 items, item rates q_i ~ U(0.3, 0.7), seed shifts −σ, 0, σ (SD σ) with σ the MDE at
    the design's expected within-item variance; statsmodels' Cochran's Q rejects at α = 0.05 in 80% ± 6% of 600 draws."""
    from statsmodels.stats.contingency_tables import cochrans_q

    generator = np.random.default_rng(7)
    n, seeds = 150, 3
    q = generator.uniform(0.3, 0.7, size=n)
    shape = np.array([-1.0, 0.0, 1.0])  # ddof-1 SD 1
    sigma = 0.0
    for _ in range(3):  # σ²_w = E[within-item variance] = mean q(1 − q) + σ²/3 for these shifts (hand-derived)
        sigma = stats.mde_seed_sd(n, seeds, float(np.mean(q * (1 - q))) + sigma ** 2 / 3)
    p = np.clip(q[:, None] + sigma * shape[None, :], 0, 1)
    rejections = [cochrans_q((generator.random((n, seeds)) < p).astype(int)).pvalue < 0.05 for _ in range(600)]
    assert np.mean(rejections) == pytest.approx(0.8, abs=0.06)
