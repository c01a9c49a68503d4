"""Depth analysis: the U-shape statistic on synthetic curves with known shape, published curves, prefix reuse."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from helmlite.analyses import depth
from helmlite.models import GenerationRequest, load_model

DEPTHS = (0.0, 0.2, 0.4, 0.6, 0.8, 1.0)


def synthetic_records(curve, contexts=60, seed=0):
    """Per-context correctness drawn from a known accuracy-by-depth curve."""
    rng = np.random.default_rng(seed)
    return pd.DataFrame([{"model": "m", "task": "t", "length": 512, "method": "gen", "depth": d, "context": c,
                          "correct": float(rng.random() < p)} for c in range(contexts) for d, p in zip(DEPTHS, curve)])


@pytest.mark.parametrize("curve,lost,primacy_sign,recency_sign", [
    ((0.9, 0.6, 0.3, 0.3, 0.6, 0.9), True, 1, 1),     # U-shape: both primacy and recency > 0
    ((0.6, 0.6, 0.6, 0.6, 0.6, 0.6), False, 0, 0),    # flat: neither
    ((0.3, 0.3, 0.3, 0.3, 0.6, 0.9), False, 0, 1),    # recency only
])
def test_u_shape_statistic_on_known_curves(curve, lost, primacy_sign, recency_sign):
    row = depth.u_shape(synthetic_records(curve), seed=0, n_resamples=1000).iloc[0]
    # middle = mean of depths 0.4 and 0.6 (closest to 0.5); 60 contexts → sampling error ≈ ±0.1
    assert row["primacy"] == pytest.approx(curve[0] - (curve[2] + curve[3]) / 2, abs=0.15)
    assert row["recency"] == pytest.approx(curve[5] - (curve[2] + curve[3]) / 2, abs=0.15)
    assert bool(row["lost_in_the_middle"]) is lost
    for sign, low, high in ((primacy_sign, "primacy_ci_low", "primacy_ci_high"), (recency_sign, "recency_ci_low", "recency_ci_high")):
        if sign > 0:
            assert row[low] > 0
        else:
            assert row[low] <= 0 <= row[high] or row[high] < 0.1


def test_primacy_recency_hand_derived():
    primacy, recency = depth.primacy_recency(np.array([0.8, 0.5, 0.4, 0.6, 0.5, 0.7]), np.array(DEPTHS))
    # middle = (0.4 + 0.6) / 2 = 0.5 → primacy 0.3, recency 0.2
    assert primacy == pytest.approx(0.3) and recency == pytest.approx(0.2)


def test_published_litm_curve_gpt35():
    table = pd.DataFrame({"source": "Table 6", "setting": "20_docs", "num_docs": 20, "model": "GPT-3.5-Turbo",
                          "gold_index": [0, 4, 9, 14, 19], "accuracy": [75.8, 57.2, 53.8, 55.4, 63.2]})
    curves = depth.litm_curves(table)
    stats = depth.published_primacy_recency(curves, ["model"]).iloc[0]
    # depths 0, 4/19, 9/19, 14/19, 1; middle = the depth closest to 0.5 (9/19) → 0.538
    assert stats["primacy"] == pytest.approx(0.758 - 0.538) and stats["recency"] == pytest.approx(0.632 - 0.538)
    assert stats["u_shaped"] and not stats["prefers_recent"]


def test_generation_with_and_without_prefix_reuse_agree(tiny_model_dir):
    """Several queries of one long context: the same greedy answers whether the context is re-encoded or reused."""
    model = load_model(str(tiny_model_dir))
    context = "The cat sat on the mat. Paris is in France. " * 12
    requests = [GenerationRequest(context + f"Question {k}: what is two plus two?\nAnswer:", max_tokens=5) for k in range(4)]
    model.min_prefix_tokens = 0
    plain = [g.text for g in model.generate(requests)]
    model.min_prefix_tokens = 16
    encoded = [model._encode(r.prompt) for r in requests]
    reused = [g.text for g in model._generate_with_prefix(requests, encoded, model._shared_prefix([(e, len(e)) for e in encoded]))]
    assert plain == reused
