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

METRIC = {"generation": "substring_match", "multiple_choice_separate": "exact_match"}
SCORE_NAME = {"generation": "substring match (generation)", "multiple_choice_separate": "log-prob retrieval"}


def grid(section: dict) -> list[dict]:
    """Every task × length × model × scoring method (generation and log-probability retrieval)."""
    specs = []
    for task in section["tasks"]:
        for length in task.get("lengths", section["lengths"]):
            for model in section["models"]:
                for method in section.get("methods", ["generation", "multiple_choice_separate"]):
                    args = {**task.get("args", {}), "target_tokens": length}
                    specs.append({"scenario": task["scenario"], "args": args, "model": model, "adapter": {"method": method}})
    return specs


def depth_records(runs: list[dict]) -> pd.DataFrame:
    """One row per instance: model, task, length, method, depth, context and correctness."""
    rows = []
    for run in runs:
        method = run["spec"]["adapter"]["method"]
        metric = METRIC[method]
        for r in run["records"]:
            rows.append({"model": run["model"], "task": run["stats"]["scenario"], "length": r["metadata"]["target_tokens"],
                         "method": SCORE_NAME[method], "depth": r["metadata"]["depth"], "context": r["metadata"]["context"],
                         "correct": float(r["metrics"][metric])})
    return pd.DataFrame(rows)


def curves(records: pd.DataFrame, *, seed: int, n_resamples: int) -> pd.DataFrame:
    """Accuracy per depth with a bootstrap CI over contexts, for every model × task × length × method."""
    rows = []
    keys = ["model", "task", "length", "method", "depth"]
    for k, (key, part) in enumerate(records.groupby(keys, sort=True)):
        est = stats.summary(part["correct"].to_numpy(), seed=seed + k, n_resamples=n_resamples, method="percentile")
        rows.append({**dict(zip(keys, key)), "accuracy": est.estimate, "ci_low": est.ci_low, "ci_high": est.ci_high, "n": est.n})
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
    """Primacy and recency with paired-bootstrap CIs over contexts for every curve; the LitM verdict."""
    rows = []
    for k, (key, part) in enumerate(records.groupby(["model", "task", "length", "method"], sort=True)):
        table = part.pivot_table(index="context", columns="depth", values="correct", aggfunc="mean").dropna()
        depths = table.columns.to_numpy(dtype=float)
        if len(table) < 2 or len(depths) < 3:
            continue
        values = table.to_numpy()
        primacy, recency = primacy_recency(values.mean(axis=0), depths)
        picks = np.random.default_rng(seed + k).integers(0, len(table), size=(n_resamples, len(table)))
        boot_p, boot_r = primacy_recency(values[picks].mean(axis=1), depths)
        p_low, p_high = np.percentile(boot_p, [2.5, 97.5])
        r_low, r_high = np.percentile(boot_r, [2.5, 97.5])
        rows.append({"model": key[0], "task": key[1], "length": key[2], "method": key[3], "contexts": len(table),
                     "primacy": primacy, "primacy_ci_low": p_low, "primacy_ci_high": p_high,
                     "recency": recency, "recency_ci_low": r_low, "recency_ci_high": r_high,
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
    """Accuracy averaged over depth, per model × task × method × length, with a bootstrap CI over items."""
    rows = []
    keys = ["model", "task", "method", "length"]
    for k, (key, part) in enumerate(records.groupby(keys, sort=True)):
        est = stats.summary(part["correct"].to_numpy(), seed=seed + k, n_resamples=n_resamples, method="percentile")
        rows.append({**dict(zip(keys, key)), "accuracy": est.estimate, "ci_low": est.ci_low, "ci_high": est.ci_high, "n": est.n})
    return pd.DataFrame(rows)
