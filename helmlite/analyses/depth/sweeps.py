"""Lost in the middle: accuracy by the depth of the relevant information (Liu et al. 2023, arXiv 2307.03172;
HELMET App. E.4, Figs. 11–14).

Live sweeps run JSON KV (HELMET), Lost in the Middle's KV retrieval, multi-document QA and a needle in a
haystack at several lengths (in each model's own tokens) with the target at depths 0 … 1, scored two
ways: the papers' substring match on greedy generations, and a log-probability retrieval score (is the
gold answer more likely than distractors from the same context?), which stays informative when tiny
models cannot copy a UUID at all.

**U-shape test.** For one curve, primacy = acc(start) − acc(middle) and recency = acc(end) − acc(middle),
where start/end are depths 0 and 1 and middle is the mean of the depths closest to 0.5. Items are
paired by their context (each context is queried at every depth), so the CIs come from a paired
bootstrap over contexts. A curve "shows lost-in-the-middle" only when both CIs lie above 0.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from ... import stats
from ...results import Run
from ...seeds import rng

METRIC = {"generation": "substring_match", "multiple_choice_separate": "exact_match"}
SCORE_NAME = {"generation": "substring match (generation)", "multiple_choice_separate": "log-prob retrieval"}


def depth_records(runs: list[Run]) -> pd.DataFrame:
    """One row per instance: model, task, length, method, depth, context and correctness."""
    rows = []
    for run in runs:
        method = run.spec["adapter"]["method"]
        metric = METRIC[method]
        for r in run.records:
            rows.append({"model": run.model, "task": run.stats.scenario, "length": r.metadata["target_tokens"],
                         "method": SCORE_NAME[method], "depth": r.metadata["depth"], "context": r.metadata["context"],
                         "correct": float(r.metrics[metric])})
    return pd.DataFrame(rows)


def curves(records: pd.DataFrame) -> pd.DataFrame:
    """Accuracy per depth for every model × task × length × method. Each context is queried once per depth,
    so a point is a proportion over independent contexts: exact (Clopper–Pearson) interval."""
    rows = []
    keys = ["model", "task", "length", "method", "depth"]
    for key, part in records.groupby(keys, sort=True):
        est = stats.proportion_estimate(part["correct"].to_numpy())
        rows.append({**dict(zip(keys, key)), "accuracy": est.estimate, "ci_low": est.ci_low, "ci_high": est.ci_high,
                     "n": est.n, "interval": est.method})
    return pd.DataFrame(rows)


def _middle_depths(depths: np.ndarray) -> np.ndarray:
    gap = np.abs(depths - 0.5)
    return depths[np.isclose(gap, gap.min())]


def primacy_recency(wide: np.ndarray, depths: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Vectorised primacy and recency from a (…, depths) array of accuracies."""
    start = wide[..., np.argmin(depths)]
    end = wide[..., np.argmax(depths)]
    middle = wide[..., np.isin(depths, _middle_depths(depths))].mean(axis=-1)
    return start - middle, end - middle


def u_shape(records: pd.DataFrame, *, seed: int, n_resamples: int) -> pd.DataFrame:
    """Primacy and recency with bootstrap CIs for every curve, resampling contexts (each context is queried
    at every depth, so its rows stay together); the LitM verdict."""
    rows = []
    for key, part in records.groupby(["model", "task", "length", "method"], sort=True):
        table = part.pivot_table(index="context", columns="depth", values="correct", aggfunc="mean").dropna()
        depths = table.columns.to_numpy(dtype=float)
        if len(table) < 2 or len(depths) < 3:
            continue
        values = table.to_numpy()
        columns = tuple(values.T)  # one array per depth, resampled together over contexts
        est = {}
        for side, index in (("primacy", 0), ("recency", 1)):
            def statistic(*cols, axis=-1, index=index):
                return primacy_recency(np.stack([c.mean(axis=axis) for c in cols], axis=-1), depths)[index]

            est[side] = stats.bootstrap_ci(columns, statistic, method="percentile", n_resamples=n_resamples,
                                           seed=rng(seed, "u-shape", side, *key))
        p_low, r_low = est["primacy"].ci_low, est["recency"].ci_low
        rows.append({"model": key[0], "task": key[1], "length": key[2], "method": key[3], "contexts": len(table),
                     "primacy": est["primacy"].estimate, "primacy_ci_low": p_low, "primacy_ci_high": est["primacy"].ci_high,
                     "recency": est["recency"].estimate, "recency_ci_low": r_low, "recency_ci_high": est["recency"].ci_high,
                     "mean_accuracy": values.mean(), "lost_in_the_middle": bool(p_low > 0 and r_low > 0),
                     "floor": bool(values.mean() < 0.05), "ceiling": bool(values.mean() > 0.95)})
    return pd.DataFrame(rows)


def published_primacy_recency(frame: pd.DataFrame, keys: list[str], depth: str = "depth", value: str = "accuracy") -> pd.DataFrame:
    """The same statistics on published curves (point values only: the papers release no per-item data)."""
    rows = []
    for key, part in frame.groupby(keys, sort=True):
        part = part.sort_values(depth)
        depths = part[depth].to_numpy(dtype=float)
        if len(depths) < 3:
            continue
        p, r = primacy_recency(part[value].to_numpy(dtype=float), depths)
        rows.append({**dict(zip(keys, key if isinstance(key, tuple) else (key,))), "primacy": float(p), "recency": float(r),
                     "u_shaped": bool(p > 0 and r > 0), "prefers_recent": bool(r > p)})
    return pd.DataFrame(rows)


def litm_curves(tables: pd.DataFrame) -> pd.DataFrame:
    """Lost in the Middle Tables 5–7 as curves: depth = gold index / (documents − 1), accuracy as a share."""
    docs = tables[tables["setting"].str.endswith("_docs")].copy()
    docs["depth"] = docs["gold_index"].astype(float) / (docs["num_docs"].astype(float) - 1)
    docs["accuracy"] = docs["accuracy"] / 100
    return docs


def length_degradation(records: pd.DataFrame, *, seed: int, n_resamples: int) -> pd.DataFrame:
    """Accuracy averaged over depth, per model × task × method × length, with a cluster bootstrap over
    contexts (every context is queried at every depth: its rows are not independent)."""
    rows = []
    keys = ["model", "task", "method", "length"]
    for key, part in records.groupby(keys, sort=True):
        est = stats.cluster_bootstrap_ci(part["correct"].to_numpy(), part["context"].to_numpy(), n_resamples=n_resamples,
                                         seed=rng(seed, "length", *key))
        rows.append({**dict(zip(keys, key)), "accuracy": est.estimate, "ci_low": est.ci_low, "ci_high": est.ci_high, "n": est.n,
                     "contexts": part["context"].nunique()})
    return pd.DataFrame(rows)
