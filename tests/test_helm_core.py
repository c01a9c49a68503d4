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


def test_figures_mark_undefined_intervals_instead_of_printing_infinities():
    """The score matrix's cells say why an interval is missing (no ±inf, no NaN), and the forest plot draws a
    row without an interval as a hollow marker labelled 'no CI (n = 2)'."""
    import math

    import pandas as pd

    from helmlite.analyses.helm_core.figures import cell_text, forest

    assert cell_text(0.5, 0.12, 0.88, 6) == "0.50\n[0.12,0.88]"
    assert cell_text(170.0, -math.inf, math.inf, 2, 0) == "170\nno CI: n = 2"
    assert cell_text(0.5, math.nan, math.nan, 1) == "0.50\nno CI: n = 1"
    assert cell_text(0.5, 0.5, 0.5, 4) == "0.50\nno CI: no spread"
    table = pd.DataFrame({"scenario": ["mmlu", "boolq"], "difference": [0.2, 0.5], "ci_low": [0.05, math.nan],
                          "ci_high": [0.35, math.nan], "n": [40, 2]})
    fig = forest(table, "scenario", "difference", "t", "x")
    texts = [t.get_text() for t in fig.axes[0].texts]
    assert texts == ["no CI (n = 2)"]
    from matplotlib.collections import PathCollection

    markers = [c for c in fig.axes[0].collections if isinstance(c, PathCollection)]
    hollow = [c for c in markers if len(c.get_offsets()) and not c.get_facecolors().any()]
    assert len(hollow) == 1 and list(hollow[0].get_offsets()[0]) == [0.5, 1]


def test_score_matrix_gives_bold_no_accuracy():
    """BOLD's main metric is its toxic fraction: the matrix shows it as toxicity, not again as accuracy; MMLU's main
    metric (exact match) is its accuracy."""
    runs = [make_run("a", "bold", [0, 0, 1, 0], metric="toxic_fraction"), make_run("a", "mmlu", [1, 0, 1, 1])]
    matrix = helm_core.score_matrix(runs, seed=0, n_resamples=200)
    families = matrix.groupby("scenario")["family"].apply(set).to_dict()
    assert "accuracy" not in families["bold"] and "toxicity (toxic fraction)" in families["bold"]
    assert "accuracy" in families["mmlu"]
    assert matrix.set_index(["scenario", "family"]).loc[("bold", "toxicity (toxic fraction)"), "estimate"] == 0.25


def test_runtime_note_says_a_negative_slope_is_not_a_cost():
    """Hand-built fits: a prompt-token interval below 0 is named and explained; intervals at or above 0 are read as costs."""
    import pandas as pd

    from helmlite.analyses.helm_core import runtime_note

    table = pd.DataFrame({"term": ["Intercept", "prompt_tokens", "output_tokens"], "estimate": [0.9, -0.00195, 0.0275],
                          "ci_low": [0.89, -0.00215, 0.0236], "ci_high": [0.97, -0.00175, 0.0314], "model": ["g"] * 3})
    note = runtime_note(table)
    assert note.startswith("**Not a cost:** g's prompt_tokens (-0.00195 s/token, [-0.00215, -0.00175])")
    assert "output_tokens" not in note.split("—")[0]
    table.loc[1, ["estimate", "ci_low", "ci_high"]] = [0.0001, -0.0001, 0.0003]
    assert runtime_note(table).startswith("Every coefficient's interval includes or exceeds 0")
