"""Lesson 4 — power and the minimum detectable effect: how n moves it, and what the planner does with it.

The minimum detectable effect (MDE) at n items is the smallest true difference the test that will be run detects
with 80% power at level α (Cohen 1988, ch. 6; the kit computes it for the exact tests it runs,
:func:`helmlite.stats.mde_proportion`). It shrinks as 1/√n: four times the items halve it. Three designs:

* one model's accuracy against a fixed value (exact binomial test);
* two models on *different* items (two independent samples);
* two models on the *same* items (exact McNemar test): only the share of items on which the two models disagree
  (the discordance ψ) carries information, so with ψ small the paired design needs far fewer items.

``helmlite plan --target-mde D`` inverts this: the n each claim needs for an MDE of D (:func:`helmlite.stats.required_n`).
"""
from __future__ import annotations

import pandas as pd

from ... import stats

DESIGNS = {
    "one model vs a fixed value": {"one_sample": True},
    "two models, different items": {},
    "two models, same items (ψ = {psi})": {"paired": True},
}


def _designs(discordance: float):
    """(label, keyword arguments of :func:`helmlite.stats.mde_proportion` / ``required_n``) of each design."""
    for design, options in DESIGNS.items():
        yield design.format(psi=discordance), {**options, **({"discordance": discordance} if options.get("paired") else {})}


def mde_by_n(ns=(25, 50, 100, 200, 400, 800, 1600), accuracy: float = 0.5, discordance: float = 0.2,
             level: float = 0.95) -> pd.DataFrame:
    """The MDE of each design at each n, at 80% power: columns ``n, design, mde``."""
    return pd.DataFrame([{"n": n, "design": design, "mde": stats.mde_proportion(n, accuracy, level=level, **options)}
                         for design, options in _designs(discordance) for n in ns])


def items_needed(effects=(0.02, 0.05, 0.1), accuracy: float = 0.5, discordance: float = 0.2,
                 level: float = 0.95) -> pd.DataFrame:
    """What ``helmlite plan --target-mde`` answers: the items each design needs to detect each effect with 80% power.
    Columns ``effect, design, n_needed``."""
    return pd.DataFrame([{"effect": effect, "design": design,
                          "n_needed": stats.required_n(effect, accuracy, level=level, **options)}
                         for design, options in _designs(discordance) for effect in effects])
