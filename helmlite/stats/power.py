"""Power: the minimum detectable effect (MDE) at a given n, and the n needed for a given effect.

Each MDE is the power of **the test the kit actually runs** on that design, computed exactly where
that test is exact (two-sided at level ``level``, α = 1 − level, power ``power``):

* **one proportion against a null p** — the exact two-sided binomial test that is dual to the
  Clopper–Pearson interval (reject when 2·min(P(X ≤ k), P(X ≥ k)) < α under p); its power is a
  binomial sum over the rejection region (:func:`binomial_power`).
* **paired proportions** (two systems on the same n items) — the exact McNemar test: given d
  discordant items, the count favouring a is Binomial(d, 1/2) under the null; the number of
  discordant items is Binomial(n, ψ), ψ = ``discordance``, and a true difference δ = p_a − p_b makes
  the count Binomial(d, (ψ + δ)/(2ψ)); power sums over both (:func:`mcnemar_power`; Connor's 1987
  normal approximation gave MDEs 3–4% too small, with exact power 0.75–0.77).
* **two independent samples** of n each — no exact test of this design is run by the kit; Cohen's
  (1988, §6.2) arcsine approximation, a two-sided z test detecting abs(h) = (z_α + z_β)·√(2/n) with
  h = 2·asin√p₂ − 2·asin√p₁ (statsmodels ``NormalIndPower`` is its reference).
* **a seed variance component** (S seeds × n items, Cochran's Q) — Q = n·Σⱼ(p̂ⱼ − p̄)²/σ²_w with σ²_w the
  mean within-item variance across seeds (Cochran's denominator); seed effects of SD σ make Q approximately
  noncentral χ²(S − 1, λ = n·(S − 1)·σ²/σ²_w) (:func:`mde_seed_sd`; for S = 2 this is McNemar's χ² and
  σ = abs(p_a − p_b)/√2).
* **correlations** — Fisher's z, atanh(r)·√(n − 3) ~ N(atanh(ρ)·√(n − 3), 1): the MDE is
  tanh((z_α + z_β)/√(n − 3)) (Cohen 1988, §3.2).

**Direction.** ``direction="greater"`` (the proportion rises from p, or a beats b), ``"less"``, or
``"two-sided"``: the larger of the two directions' MDEs — a two-sided claim must be detectable
whichever way it goes, so a direction that runs into 0 or 1 makes it ``inf``.

**Monotone in n.** The exact power of a discrete test is saw-toothed in n (Chernick & Liu 2002, *The
American Statistician* 56:149–155): n + 1 items can have less power than n. Following their advice the
reported MDE at n is the smallest effect that **every** sample size ≥ n detects with the stated power,
and :func:`required_n` is the smallest n from which on the power never falls below it; so the MDE never
rises with n and ``mde(required_n(e)) <= e``. The exact power at the reported MDE is therefore at least
``power`` (and above it at the teeth of the saw; ``benchmarks/coverage.py`` prints how far).

An MDE of ``inf`` means no effect of that kind is detectable at this n.
"""
from __future__ import annotations

import math
from functools import lru_cache

import numpy as np
from scipy.optimize import brentq
from scipy.special import ndtri
from scipy.stats import binom, chi2, ncx2

from ..errors import UserError

DIRECTIONS = ("greater", "less", "two-sided")
_TOL = 1e-9


def _z(level: float, power: float) -> tuple[float, float]:
    _check_level(level, power)
    return float(ndtri(1 - (1 - level) / 2)), float(ndtri(power))


def _check_level(level: float, power: float) -> None:
    if not 0 < level < 1 or not 0 < power < 1:
        raise UserError(f"level and power must lie strictly between 0 and 1, got level={level}, power={power}")


def _check_direction(direction: str) -> None:
    if direction not in DIRECTIONS:
        raise UserError(f"direction must be one of {DIRECTIONS}, got {direction!r}")


def _discordance(p: float, discordance: float | None) -> float:
    psi = 2 * p * (1 - p) if discordance is None else float(discordance)
    if not 0 < psi <= 1:
        raise UserError(f"discordance (share of items on which the two systems differ) must lie in (0, 1], got {psi}")
    return psi


def _check_p(p: float) -> None:
    if not 0 < p < 1:
        raise UserError(f"baseline proportion p must lie strictly between 0 and 1, got {p}")


# --- exact power of the two exact tests -----------------------------------------------------------------------

def binomial_power(n: int, p0: float, p1: float, level: float = 0.95) -> float:
    """Exact power of the two-sided binomial test of p = ``p0`` (dual to Clopper–Pearson: reject when
    2·min(P(X <= k), P(X >= k)) < α) when the truth is ``p1``: the Binomial(n, p1) mass of its rejection region."""
    return float(_binomial_curve(np.array([int(n)]), p0, p1, level)[0]) if n > 0 else 0.0


def _mcnemar_lower_critical(d: np.ndarray, alpha: float) -> np.ndarray:
    """For each number d of discordant items, the largest count c with 2·P(Bin(d, ½) <= c) < α (−1 if none):
    the exact McNemar test rejects when the count favouring a is <= c or >= d − c."""
    c = binom.ppf(alpha / 2, d, 0.5) - 1  # largest c with cdf(c) < α/2, up to one step
    c = np.where(binom.cdf(c + 1, d, 0.5) < alpha / 2, c + 1, c)
    return np.where(binom.cdf(c, d, 0.5) < alpha / 2, c, c - 1)


def mcnemar_power(n: int, delta: float, discordance: float, level: float = 0.95) -> float:
    """Exact power of the exact two-sided McNemar test on ``n`` pairs with a share ``discordance`` (ψ) of
    discordant pairs and a true difference ``delta`` = p_a − p_b (abs(δ) <= ψ): Σ_d Bin(d; n, ψ) ·
    P(reject | d), the count favouring a being Binomial(d, (ψ + δ)/(2ψ))."""
    if abs(delta) > float(discordance) + 1e-12:
        raise UserError(f"mcnemar_power: |delta| = {abs(delta)} exceeds the discordance {discordance}")
    return float(_mcnemar_curve(np.array([int(n)]), delta, float(discordance), level)[0]) if n > 0 else 0.0


# --- monotone MDEs (Chernick & Liu 2002) --------------------------------------------------------------------

def _window(n: int) -> np.ndarray:
    """The sample sizes whose power the reported MDE at n must reach: n and the next min(n // 2, 200) + 50.
    The saw's teeth are local: beyond 1.5·n + 50 the exact MDE is well below the one at n, and 250 sizes
    span more than two teeth for any null in [0.01, 0.99] (their period is about 1/min(p, 1 − p))."""
    return np.arange(n, n + min(n // 2, 200) + 51)


def _binomial_critical(sizes: np.ndarray, p0: float, alpha: float) -> tuple[np.ndarray, np.ndarray]:
    """Per sample size m, the binomial test's rejection region {k <= low} ∪ {k >= high}: ``low`` the largest k
    with P(X <= k) < α/2 (−1 if none), ``high`` the smallest k with P(X >= k) < α/2 (m + 1 if none), X ~ Bin(m, p0)."""
    low = binom.ppf(alpha / 2, sizes, p0) - 1  # within one step of the answer
    low = np.where(binom.cdf(low + 1, sizes, p0) < alpha / 2, low + 1, low)
    low = np.where(binom.cdf(low, sizes, p0) < alpha / 2, low, low - 1)
    high = binom.isf(alpha / 2, sizes, p0) + 1
    high = np.where(binom.sf(high - 2, sizes, p0) < alpha / 2, high - 1, high)
    high = np.where(binom.sf(high - 1, sizes, p0) < alpha / 2, high, high + 1)
    return low, np.minimum(high, sizes + 1)


def _binomial_curve(sizes: np.ndarray, p0: float, p1: float, level: float) -> np.ndarray:
    """Exact power of the binomial test of p = p0 at each sample size in ``sizes`` when the truth is p1."""
    low, high = _binomial_critical(sizes, p0, 1 - level)
    return binom.cdf(low, sizes, p1) + binom.sf(high - 1, sizes, p1)


def _mcnemar_curve(sizes: np.ndarray, delta: float, psi: float, level: float) -> np.ndarray:
    """Exact McNemar power at each sample size in ``sizes``: the rejection probability given d discordant
    pairs does not depend on n, so power(n) = Σ_d Bin(d; n, ψ)·P(reject | d) for all n at once (d only
    within 12 standard deviations of the number of discordant pairs: the rest carries < 1e-30 of the mass)."""
    spread = 12 * np.sqrt(sizes.max() * psi * (1 - psi)) + 2
    d = np.arange(max(0, int(sizes.min() * psi - spread)), int(min(sizes.max(), sizes.max() * psi + spread)) + 1)
    c = _mcnemar_lower_critical(d, 1 - level)
    share = min(1.0, max(0.0, (psi + delta) / (2 * psi)))
    reject = np.where(c >= 0, binom.cdf(c, d, share) + binom.sf(d - c - 1, d, share), 0.0)
    return binom.pmf(d[None, :], sizes[:, None], psi) @ reject


def _monotone_mde(curve, n: int, limit: float, target: float) -> float:
    """Smallest effect in (0, limit] that every sample size in the window of n detects with power >= target
    (``curve(sizes, effect)`` gives the exact power per size, increasing in the effect); inf if none.
    Solved at n alone first; the window only moves it where a later size has less power (a tooth)."""
    single = np.array([n])
    if curve(single, limit)[0] < target:
        return math.inf
    effect = float(brentq(lambda e: curve(single, e)[0] - target, _TOL, limit, xtol=1e-10, rtol=1e-10))
    sizes = _window(n)
    if curve(sizes, effect).min() >= target - 1e-9:
        return effect
    if curve(sizes, limit).min() < target:
        return math.inf
    return float(brentq(lambda e: curve(sizes, e).min() - target, effect, limit, xtol=1e-10, rtol=1e-10))


@lru_cache(maxsize=4096)
def _binomial_mde(n: int, p: float, up: bool, level: float, power: float) -> float:
    def curve(sizes, effect):
        return _binomial_curve(sizes, p, p + effect if up else p - effect, level)

    return _monotone_mde(curve, n, (1 - p) if up else p, power)


@lru_cache(maxsize=4096)
def _mcnemar_mde(n: int, psi: float, level: float, power: float) -> float:
    return _monotone_mde(lambda sizes, effect: _mcnemar_curve(sizes, effect, psi, level), n, psi, power)


@lru_cache(maxsize=4096)
def mde_paired_growing(n: int, base_discordance: float, level: float = 0.95, power: float = 0.8) -> float:
    """Smallest paired difference δ the exact two-sided McNemar test detects with ``power`` on ``n`` pairs when the
    discordance grows with the effect: ψ = ψ0 + abs(δ) (ψ0 = ``base_discordance``, the items on which the two sides
    differ both ways — observed as ψ − abs(δ̂)). Holding the observed ψ fixed instead caps δ at ψ, so a claim with few
    discordant items gets an MDE that is the discordance itself; here the planning model lets a larger difference
    bring its own discordant items. ``inf`` when even ψ = 1 is not enough."""
    _check_level(level, power)
    if not 0 < base_discordance < 1:
        raise UserError(f"mde_paired_growing: base discordance must lie in (0, 1), got {base_discordance}")
    return _monotone_mde(lambda sizes, effect: _mcnemar_curve(sizes, effect, min(1.0, base_discordance + effect), level),
                         int(n), 1 - base_discordance, power)


def _arcsine_mde(n: float, p: float, up: bool, level: float, power: float) -> float:
    z_a, z_b = _z(level, power)
    h = (z_a + z_b) * math.sqrt(2 / n)
    angle = math.asin(math.sqrt(p)) + (h / 2 if up else -h / 2)
    if not 0 <= angle <= math.pi / 2:
        return math.inf
    return abs(math.sin(angle) ** 2 - p)


def mde_proportion(n: float, p: float = 0.5, level: float = 0.95, power: float = 0.8, paired: bool = False,
                   discordance: float | None = None, *, one_sample: bool = False, direction: str = "two-sided") -> float:
    """Minimum detectable difference in a proportion at n items, by the power of the kit's test (module docstring).

    ``one_sample=True``: one sample of ``n`` against the null value ``p`` (exact binomial test, exact power).
    ``paired=True``: two systems on the same ``n`` items, the exact McNemar test with ``discordance`` ψ
    (default 2p(1 − p)), exact power. Otherwise two independent samples of ``n`` each with baseline ``p``
    (arcsine approximation). ``direction``: "greater" (p rises), "less", or "two-sided" (the larger of
    the two). Monotone (non-increasing) in n; ``inf`` when nothing is detectable at this n.
    """
    _check_level(level, power)
    _check_direction(direction)
    if n <= 0:
        return math.inf
    if paired:
        return _mcnemar_mde(int(n), _discordance(p, discordance), level, power)  # symmetric in the direction
    _check_p(p)
    ups = {"greater": (True,), "less": (False,), "two-sided": (True, False)}[direction]
    if one_sample:
        return max(_binomial_mde(int(n), p, up, level, power) for up in ups)
    return max(_arcsine_mde(n, p, up, level, power) for up in ups)


def required_n(effect: float, p: float = 0.5, level: float = 0.95, power: float = 0.8, paired: bool = False,
               discordance: float | None = None, *, one_sample: bool = False, direction: str = "two-sided") -> int:
    """Items needed to detect a difference ``effect``: the smallest n with ``mde_proportion(n, ...) <= effect``,
    i.e. from which on the exact power never drops below ``power`` (Chernick & Liu 2002). Two independent
    samples: n = 2·((z_α + z_β)/abs(h))² per group (Cohen 1988). The same arguments as :func:`mde_proportion`."""
    effect = abs(float(effect))
    if effect == 0 or not math.isfinite(effect):
        raise UserError(f"required_n: effect must be a finite non-zero difference, got {effect}")
    _check_level(level, power)
    _check_direction(direction)
    ups = {"greater": (True,), "less": (False,), "two-sided": (True, False)}[direction]
    targets = []
    if paired:
        psi = _discordance(p, discordance)
        if effect > psi:
            raise UserError(f"required_n: a paired difference of {effect} needs at least that share of discordant "
                             f"items, but discordance is {psi}")
    else:
        _check_p(p)
        targets = [p + effect if up else p - effect for up in ups]
        if not all(0 <= t <= 1 for t in targets):
            raise UserError(f"required_n: p {'+' if ups == (True,) else ('−' if ups == (False,) else '±')} {effect} "
                             f"leaves [0, 1] for p = {p}")
    if not paired and not one_sample:
        z_a, z_b = _z(level, power)
        return max(math.ceil(2 * ((z_a + z_b) / abs(2 * math.asin(math.sqrt(t)) - 2 * math.asin(math.sqrt(p)))) ** 2
                             - 1e-9) for t in targets)

    def curve(sizes: np.ndarray) -> np.ndarray:
        if paired:
            return _mcnemar_curve(sizes, effect, psi, level)
        return np.min([_binomial_curve(sizes, p, t, level) for t in targets], axis=0)

    # the first n whose own power reaches the target (bisection), then on to the first whose whole window does
    high = 1
    while curve(np.array([high]))[0] < power:
        high *= 2
    low = high // 2
    while high - low > 1:
        middle = (low + high) // 2
        low, high = (low, middle) if curve(np.array([middle]))[0] >= power else (middle, high)
    while curve(_window(high)).min() < power - 1e-9:
        high += 1
    return high


def mde_correlation(n: float, level: float = 0.95, power: float = 0.8) -> float:
    """Smallest abs(ρ) detectable (against 0) with n pairs: tanh((z_α + z_β)/√(n − 3)) (Fisher z;
    Cohen 1988, §3.2); ``inf`` for n <= 3."""
    z_a, z_b = _z(level, power)
    return math.inf if n <= 3 else math.tanh((z_a + z_b) / math.sqrt(n - 3))


def required_n_correlation(r: float, level: float = 0.95, power: float = 0.8) -> int:
    """Pairs needed to detect a correlation ``r`` against 0: ((z_α + z_β)/atanh|r|)² + 3 (Fisher z)."""
    z_a, z_b = _z(level, power)
    if not 0 < abs(r) < 1:
        raise UserError(f"required_n_correlation: r must lie in (-1, 1) and be non-zero, got {r}")
    return math.ceil(((z_a + z_b) / math.atanh(abs(r))) ** 2 + 3 - 1e-9)


def mde_seed_sd(n_items: int, n_seeds: int, within_variance: float, level: float = 0.95, power: float = 0.8) -> float:
    """Smallest between-seed SD σ of the expected score that Cochran's Q test (at α = 1 − level, one-sided on Q)
    detects with ``power`` on ``n_items`` items scored under ``n_seeds`` seeds, when the mean within-item
    variance across seeds is ``within_variance`` (σ²_w; for 0/1 scores of two seeds, half the share of
    discordant items). Q ~ χ²(S − 1, λ) with λ = n·(S − 1)·σ²/σ²_w (module docstring), so
    σ = √(λ*·σ²_w / (n·(S − 1))) where λ* gives the noncentral χ² its power; ``inf`` below 2 items or seeds
    or without within-item variance."""
    _check_level(level, power)
    if n_items < 2 or n_seeds < 2 or not within_variance > 0:
        return math.inf
    df = n_seeds - 1
    critical = float(chi2.ppf(level, df))
    noncentrality = brentq(lambda lam: float(ncx2.sf(critical, df, lam)) - power, 1e-9, 1e4, xtol=1e-10)
    return math.sqrt(noncentrality * within_variance / (n_items * df))
