"""HELM's subsample of a scenario's evaluation instances (``downsample_eval_instances`` in crfm-helm's
``src/helm/benchmark/runner.py``), in a module of its own so scenarios (BoolQ's in-context pool) and the run's instance
selection use the one definition."""
from __future__ import annotations

import numpy as np


def helm_eval_subsample(n: int, size: int, seed: int = 0) -> list[int]:
    """Indices of the evaluation instances HELM keeps when there are more than ``max_eval_instances``:
    ``downsample_eval_instances`` (``src/helm/benchmark/runner.py``) calls ``np.random.seed(0)`` and
    ``np.random.choice(all_eval_instances, max_eval_instances, replace=False)`` and keeps the sampled
    order. ``np.random.RandomState(seed)`` is the same legacy stream without touching numpy's global
    state; HELM always uses seed 0 (helmlite's ``data_seed``, default 0)."""
    if size >= n:
        return list(range(n))
    return [int(i) for i in np.random.RandomState(seed).choice(n, size, replace=False)]
