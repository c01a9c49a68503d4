"""HELM core part A: helpers on fake runs (the published leaderboard is tested in test_helm_published.py)."""
from __future__ import annotations

import pytest

from helmlite.analyses import helm_core


def test_grid_and_paired_model_difference():
    specs = helm_core.grid({"models": ["a", "b"], "scenarios": [{"scenario": "mmlu"}], "seeds": [0, 1], "max_instances": 5})
    assert len(specs) == 4 and {s["adapter"]["seed"] for s in specs} == {0, 1}
    records = lambda values: [{"id": f"i{k}", "metrics": {"exact_match": v}} for k, v in enumerate(values)]  # noqa: E731
    runs = [{"model": m, "scenario": "mmlu", "seed": 0, "stats": {"main_metric": "exact_match"}, "records": records(v)}
            for m, v in (("a", [1] * 20), ("b", [0] * 18 + [1] * 2))]
    diff = helm_core.model_differences(runs, "a", "b", seed=0, n_resamples=500).iloc[0]
    assert diff["difference"] == pytest.approx(0.9) and diff["significant"]
