"""HELM core part A: helpers on fake runs (the published leaderboard is tested in test_helm_published.py)."""
from __future__ import annotations

import pytest

from helmlite.analyses import helm_core

from .fakes import make_run


def test_paired_model_difference_uses_the_exact_mcnemar_test():
    """20 shared items, 18 discordant all in a's favour: difference 0.9, exact McNemar p = 2 · 0.5^18
    (statsmodels ``mcnemar(exact=True)`` gives the same)."""
    runs = [make_run(m, "mmlu", v) for m, v in (("a", [1] * 20), ("b", [0] * 18 + [1] * 2))]
    diff = helm_core.model_differences(runs, "a", "b", seed=0, n_resamples=500).iloc[0]
    assert diff["difference"] == pytest.approx(0.9) and diff["significant"]
    assert diff["p_value"] == pytest.approx(2 * 0.5**18)
