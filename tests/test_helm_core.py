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


def test_score_matrix_colours_each_metric_on_its_own_scale_and_direction():
    """Hand-derived: accuracy 0.3/0.5/0.7 → 0, 0.5, 1; ECE (lower is better) 0.05/0.25 → 1, 0; a family with
    one value → 0.5; a missing estimate stays missing. An ECE of 0.2 no longer looks like an accuracy of 0.8."""
    import math

    import pandas as pd

    from helmlite.analyses.helm_core.figures import within_metric_goodness

    matrix = pd.DataFrame({"family": ["accuracy"] * 3 + ["calibration"] * 2 + ["bias", "accuracy"],
                           "estimate": [0.3, 0.5, 0.7, 0.05, 0.25, 0.4, math.nan],
                           "lower_is_better": [False] * 3 + [True, True, True, False]})
    goodness = within_metric_goodness(matrix)
    assert goodness[:6].tolist() == pytest.approx([0.0, 0.5, 1.0, 1.0, 0.0, 0.5]) and math.isnan(goodness[6])


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
