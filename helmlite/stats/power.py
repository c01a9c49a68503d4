"""Power: the minimum detectable effect (MDE) at a given n, and the n needed for a given effect.

All two-sided at level ``level`` (α = 1 − level) with power ``power``; z_α = Φ⁻¹(1 − α/2),
z_β = Φ⁻¹(power). Normal approximations, stated per design:

* **unpaired proportions** (two samples of n each, or one sample against a null p): on Cohen's
  (1988, §6.2) arcsine scale h = 2·asin√p₂ − 2·asin√p₁, where the variance no longer depends on p,
  a two-sided z test detects |h| = (z_α + z_β)·√(2/n) (two samples) or (z_α + z_β)·√(1/n) (one
  sample); the MDE is the smallest |p₂ − p| with that h, in whichever direction from p is possible.
  statsmodels ``NormalIndPower`` (with ``proportion_effectsize``) is the test's reference.
* **paired proportions** (two systems on the same n items, exact McNemar test): Connor (1987),
  n = [z_α·√ψ + z_β·√(ψ − δ²)]² / δ², with ψ the share of discordant items (``discordance``;
  default 2p(1 − p), the share when the two systems' errors are independent) and δ = p_a − p_b
  (|δ| <= ψ). The MDE solves this equation for δ.
* **correlations**: Fisher's z, atanh(r)·√(n − 3) ~ N(atanh(ρ)·√(n − 3), 1), so the MDE is
  tanh((z_α + z_β)/√(n − 3)) (Cohen 1988, §3.2).

An MDE of ``inf`` means no effect of that kind is detectable at this n.
"""
from __future__ import annotations

import math

from scipy.optimize import brentq
from scipy.special import ndtri

from ..errors import InputError


def _z(level: float, power: float) -> tuple[float, float]:
    if not 0 < level < 1 or not 0 < power < 1:
        raise InputError(f"level and power must lie strictly between 0 and 1, got level={level}, power={power}")
    return float(ndtri(1 - (1 - level) / 2)), float(ndtri(power))


def _discordance(p: float, discordance: float | None) -> float:
    psi = 2 * p * (1 - p) if discordance is None else float(discordance)
    if not 0 < psi <= 1:
        raise InputError(f"discordance (share of items on which the two systems differ) must lie in (0, 1], got {psi}")
    return psi


def _check_p(p: float) -> None:
    if not 0 < p < 1:
        raise InputError(f"baseline proportion p must lie strictly between 0 and 1, got {p}")


def mde_proportion(n: float, p: float = 0.5, level: float = 0.95, power: float = 0.8, paired: bool = False,
                   discordance: float | None = None, *, one_sample: bool = False) -> float:
    """Minimum detectable difference in a proportion at n items (see the module docstring for the formulas).

    ``paired=False``: two independent samples of ``n`` each with baseline ``p`` (``one_sample=True``:
    one sample of ``n`` against the null value ``p``), on Cohen's arcsine scale. ``paired=True``: two
    systems on the same ``n`` items, McNemar's test, Connor (1987) with ``discordance`` ψ (default
    2p(1 − p)). Returns ``inf`` when nothing is detectable at this n.
    """
    z_a, z_b = _z(level, power)
    if n <= 0:
        return math.inf
    if paired:
        psi = _discordance(p, discordance)

        def excess(delta):  # > 0 while delta is too small to be detected
            return z_a * math.sqrt(psi) + z_b * math.sqrt(max(0.0, psi - delta**2)) - delta * math.sqrt(n)

        if excess(psi) > 0:
            return math.inf
        return float(brentq(excess, 1e-12, psi, xtol=1e-14, rtol=1e-12))
    _check_p(p)
    h = (z_a + z_b) * math.sqrt((1 if one_sample else 2) / n)
    angle = math.asin(math.sqrt(p))
    candidates = []
    if angle + h / 2 <= math.pi / 2:
        candidates.append(math.sin(angle + h / 2) ** 2 - p)
    if angle - h / 2 >= 0:
        candidates.append(p - math.sin(angle - h / 2) ** 2)
    return min(candidates) if candidates else math.inf


def required_n(effect: float, p: float = 0.5, level: float = 0.95, power: float = 0.8, paired: bool = False,
               discordance: float | None = None, *, one_sample: bool = False) -> int:
    """Items needed to detect a difference ``effect`` in a proportion (the inverse of :func:`mde_proportion`).

    Unpaired: n = ((z_α + z_β)/|h|)² · (2, or 1 with ``one_sample``), |h| the larger arcsine distance
    of p ± effect from p (Cohen 1988); per group for two samples. Paired: Connor's (1987) formula.
    Rounded up; ``mde_proportion(required_n(e, ...), ...) <= e``.
    """
    z_a, z_b = _z(level, power)
    effect = abs(float(effect))
    if effect == 0 or not math.isfinite(effect):
        raise InputError(f"required_n: effect must be a finite non-zero difference, got {effect}")
    if paired:
        psi = _discordance(p, discordance)
        if effect > psi:
            raise InputError(f"required_n: a paired difference of {effect} needs at least that share of discordant "
                             f"items, but discordance is {psi}")
        return math.ceil(((z_a * math.sqrt(psi) + z_b * math.sqrt(psi - effect**2)) / effect) ** 2 - 1e-9)
    _check_p(p)
    angle = math.asin(math.sqrt(p))
    distances = [abs(2 * math.asin(math.sqrt(q)) - 2 * angle) for q in (p + effect, p - effect) if 0 <= q <= 1]
    if not distances:
        raise InputError(f"required_n: p ± {effect} leaves [0, 1] for p = {p}")
    return math.ceil(((z_a + z_b) / max(distances)) ** 2 * (1 if one_sample else 2) - 1e-9)


def mde_correlation(n: float, level: float = 0.95, power: float = 0.8) -> float:
    """Smallest |ρ| detectable (against 0) with n pairs: tanh((z_α + z_β)/√(n − 3)) (Fisher z;
    Cohen 1988, §3.2); ``inf`` for n <= 3."""
    z_a, z_b = _z(level, power)
    return math.inf if n <= 3 else math.tanh((z_a + z_b) / math.sqrt(n - 3))


def required_n_correlation(r: float, level: float = 0.95, power: float = 0.8) -> int:
    """Pairs needed to detect a correlation ``r`` against 0: ((z_α + z_β)/atanh|r|)² + 3 (Fisher z)."""
    z_a, z_b = _z(level, power)
    if not 0 < abs(r) < 1:
        raise InputError(f"required_n_correlation: r must lie in (-1, 1) and be non-zero, got {r}")
    return math.ceil(((z_a + z_b) / math.atanh(abs(r))) ** 2 + 3 - 1e-9)
