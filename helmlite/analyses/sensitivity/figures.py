"""Figures of notebook 02 (prompt sensitivity)."""
from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from ...plots import note_figure


def by_level(table: pd.DataFrame, title: str, xlabel: str, order=None, absent: str = "") -> plt.Figure:
    """Accuracy per factor level with 95% CIs, one panel per scenario, one line/marker set per model; a study without
    runs gets a figure that says so (``absent``)."""
    if table.empty:
        return note_figure(absent or "No runs of this study in this config.", title)
    scenarios = sorted(table["scenario"].unique())
    fig, axes = plt.subplots(1, len(scenarios), figsize=(4.2 * len(scenarios), 3.8), squeeze=False, sharey=True)
    for ax, scenario in zip(axes[0], scenarios):
        part = table[table["scenario"] == scenario]
        levels = order or list(dict.fromkeys(part["level"]))
        x = np.arange(len(levels))
        for k, (model, rows) in enumerate(part.groupby("model")):
            rows = rows.set_index("level").reindex(levels)
            offset = (k - 0.5) * 0.12
            ax.errorbar(x + offset, rows["accuracy"], yerr=[rows.accuracy - rows.ci_low, rows.ci_high - rows.accuracy],
                        marker="o", capsize=3, label=model, color=f"C{k}")
        ax.set_xticks(x, levels, rotation=30 if max(map(len, levels)) > 6 else 0, fontsize=8)
        ax.set(title=scenario, xlabel=xlabel, ylim=(-0.05, 1.05))
        ax.title.set_fontsize(9)
    axes[0][0].set_ylabel(table["metric"].iloc[0] if table["metric"].nunique() == 1 else "main metric")
    axes[0][0].legend(fontsize=7)
    fig.suptitle(title)
    fig.tight_layout()
    return fig


def seed_variance(table: pd.DataFrame) -> plt.Figure:
    """Seed SD (square root of the seed variance component, clipped at 0) per model × scenario with its
    interval, beside the raw SD of the run means (which also carries item noise); a row whose interval has no width
    (both mean squares 0: each item scored alike under every seed) says so instead of showing a certain zero."""
    labels = table["model"] + " · " + table["scenario"]
    fig, ax = plt.subplots(figsize=(7, 0.5 * len(table) + 2.0))
    y = np.arange(len(table))
    sd_low, sd_high = np.sqrt(table["ci_low"].clip(lower=0)), np.sqrt(table["ci_high"].clip(lower=0))
    ax.errorbar(table["seed_sd"], y, xerr=[table["seed_sd"] - sd_low, sd_high - table["seed_sd"]], fmt="o", capsize=3,
                label="seed SD (variance component, 95% CI)")
    ax.scatter(table["raw_sd"], y, marker="x", color="C3", label="raw SD of run means (includes item noise)")
    for k, row in enumerate(table.itertuples()):
        if row.ci_high <= row.ci_low:  # every item scored alike under every seed: no variation to size an interval
            ax.annotate("no interval: every item scored the same under each seed", (row.seed_sd, k),
                        xytext=(10, 0), textcoords="offset points", va="center", fontsize=7.5, color="0.35")
    ax.set_yticks(y, labels, fontsize=8)
    ax.set(xlabel="accuracy spread across in-context example seeds", title="How much do the chosen examples matter?")
    ax.set_xlim(left=-0.002)  # a standard deviation is never negative (and a zero one is drawn whole)
    ax.set_ylim(len(table) - 0.5, -0.5)
    ax.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.3), ncol=2, frameon=False)  # off the data
    fig.tight_layout()
    return fig


def decomposition(table: pd.DataFrame) -> plt.Figure:
    """Each component's share of the total sum of squares of run-level accuracy, per model.

    Type-II sums of squares are not additive when the design is unbalanced (one factor varied at a
    time), so the shares are drawn side by side rather than stacked as if they partitioned the total.
    """
    pivot = table.pivot_table(index="component", columns="model", values="share_of_total", aggfunc="first").fillna(0)
    fig, ax = plt.subplots(figsize=(7, 0.5 * len(pivot) * max(1, len(pivot.columns)) / 1.5 + 1.6))
    y = np.arange(len(pivot))
    height = 0.8 / max(1, len(pivot.columns))
    for k, model in enumerate(pivot.columns):
        ax.barh(y + k * height, pivot[model], height=height, color=f"C{k}", label=model)
    ax.set_yticks(y + height * (len(pivot.columns) - 1) / 2, pivot.index)
    ax.invert_yaxis()
    ax.set(xlim=(0, 1), xlabel="share of the total sum of squares (type-II; not additive)",
           title="Where does the variance come from?")
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig
