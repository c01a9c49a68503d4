"""helmlite.stats vs scipy.stats.bootstrap: 10,000 resamples over 1,000 items, timed side by side.

    .venv/bin/python benchmarks/bootstrap_speed.py
"""
from __future__ import annotations

import statistics
import time

import numpy as np
from scipy import stats as scipy_stats

from helmlite import stats


def timed(fn, repeats: int = 5) -> float:
    values = []
    for _ in range(repeats):
        started = time.perf_counter()
        fn()
        values.append(time.perf_counter() - started)
    return statistics.median(values)


def main() -> None:
    data = np.random.default_rng(0).normal(size=1000)
    for method, scipy_method in (("percentile", "percentile"), ("bca", "BCa")):
        ours = timed(lambda: stats.bootstrap_ci(data, np.mean, n_resamples=10_000, method=method, seed=1))
        theirs = timed(lambda: scipy_stats.bootstrap((data,), np.mean, n_resamples=10_000, method=scipy_method,
                                                     vectorized=True, random_state=1))
        print(f"{method:10} helmlite {ours:.3f} s   scipy {theirs:.3f} s   ratio {theirs / ours:.2f}x   "
              f"(goal: helmlite ≤ 0.2 s → {'met' if ours <= 0.2 else 'NOT met'})")


if __name__ == "__main__":
    main()
