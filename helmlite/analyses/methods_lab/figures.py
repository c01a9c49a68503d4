"""Figures of notebook 06 (the methods lab), one per lesson; each returns a matplotlib Figure."""
from __future__ import annotations

import matplotlib.pyplot as plt
import pandas as pd
import seaborn as sns
from matplotlib.ticker import PercentFormatter


def _lines(table: pd.DataFrame, x: str, y: str, hue: str, ax: plt.Axes, legend: bool = True) -> None:
    """One line per ``hue`` level with markers; its legend small and untitled (none with ``legend=False``)."""
    sns.lineplot(data=table, x=x, y=y, hue=hue, marker="o", ax=ax, legend=legend)
    if legend:
        ax.legend(fontsize=8, title=None)


def _rate_axis(ax: plt.Axes, nominal: float) -> None:
    """A y axis of rates in percent, with the nominal rate (a level, or α) dashed."""
    ax.axhline(nominal, color="0.3", linestyle="--", linewidth=1)
    ax.yaxis.set_major_formatter(PercentFormatter(1, decimals=0))


def _rate_figure(table: pd.DataFrame, x: str, y: str, hue: str, nominal: float, **labels) -> plt.Figure:
    """One panel of rates against ``x``, a line per ``hue`` level, the nominal rate dashed; ``labels`` go to ``ax.set``."""
    fig, ax = plt.subplots(figsize=(6.4, 3.6))
    _lines(table, x, y, hue, ax)
    _rate_axis(ax, nominal)
    ax.set(**labels)
    fig.tight_layout()
    return fig


def coverage(table: pd.DataFrame, level: float = 0.95) -> plt.Figure:
    """Lesson 1: exact coverage against the true accuracy, one panel per n, both intervals, the nominal level dashed."""
    ns = sorted(table["n"].unique())
    fig, axes = plt.subplots(1, len(ns), figsize=(3.6 * len(ns), 3.4), sharey=True, squeeze=False)
    for ax, n in zip(axes[0], ns):
        sns.lineplot(data=table[table["n"] == n], x="accuracy", y="coverage", hue="interval", ax=ax, legend=ax is axes[0][0])
        _rate_axis(ax, level)
        ax.set(title=f"n = {n} items", xlabel="true accuracy", ylabel="coverage of a 95% interval")
    axes[0][0].legend(fontsize=8, title=None, loc="lower center")
    fig.tight_layout()
    return fig


def rejection(table: pd.DataFrame, alpha: float = 0.05) -> plt.Figure:
    """Lesson 2: how often each test rejects "equal accuracy", against the true difference (0: false positives)."""
    return _rate_figure(table, "difference", "rejection_rate", "test", alpha, xlabel="true accuracy difference A − B",
                        ylabel="share of simulations that reject",
                        title=f"Same {int(table['n_items'].iloc[0])} items for both models")


def multiplicity(table: pd.DataFrame, alpha: float = 0.05) -> plt.Figure:
    """Lesson 3: family-wise error rate and false discovery rate against the number of claims, per correction."""
    fig, (left, right) = plt.subplots(1, 2, figsize=(7.6, 3.4), sharey=True)
    for ax, column, title in ((left, "fwer", "at least one false discovery"), (right, "fdr", "share of discoveries that are false")):
        _lines(table, "m", column, "correction", ax, legend=ax is left)
        _rate_axis(ax, alpha)
        ax.set(xlabel="number of claims tested together", ylabel="rate" if ax is left else "", title=title)
    fig.tight_layout()
    return fig


def mde(table: pd.DataFrame) -> plt.Figure:
    """Lesson 4: the minimum detectable effect against n (log scale), per design."""
    fig, ax = plt.subplots(figsize=(6.4, 3.6))
    _lines(table, "n", "mde", "design", ax)
    ax.set_xscale("log")
    ax.set(xlabel="items (log scale)", ylabel="minimum detectable difference", title="80% power, α = 0.05")
    fig.tight_layout()
    return fig


def cluster_coverage(table: pd.DataFrame, level: float = 0.95) -> plt.Figure:
    """Lesson 5: coverage of the naive and the cluster interval against the intraclass correlation."""
    return _rate_figure(table, "icc", "coverage", "interval", level, xlabel="intraclass correlation of items in one context",
                        ylabel="coverage of a 95% interval", title="Items that share a context")


def seeds(table: pd.DataFrame) -> plt.Figure:
    """Lesson 6: the smallest detectable between-seed SD against the number of seeds, per number of items."""
    fig, ax = plt.subplots(figsize=(6.4, 3.6))
    shown = table.assign(items=table["n_items"].map(lambda n: f"{n} items"))
    _lines(shown, "n_seeds", "mde_seed_sd", "items", ax)
    ax.set(xlabel="in-context seeds", ylabel="smallest detectable seed SD", title="Does the choice of examples matter?")
    fig.tight_layout()
    return fig


def verdicts(table: pd.DataFrame) -> plt.Figure:
    """Lesson 7: share of checks read "consistent" and share found equivalent, against n, per true offset."""
    fig, (left, right) = plt.subplots(1, 2, figsize=(7.6, 3.4), sharey=True)
    shown = table.assign(offset=table["offset"].map(lambda d: f"true offset {d:+.2f}"))
    for ax, column, title in ((left, "consistent", '"consistent" (published value inside our CI)'),
                              (right, "equivalent", "equivalent within ±0.05 (TOST)")):
        _lines(shown, "n", column, "offset", ax, legend=ax is left)
        ax.set_xscale("log")
        ax.set(xlabel="items (log scale)", ylabel="share of checks" if ax is left else "", title=title)
        ax.yaxis.set_major_formatter(PercentFormatter(1, decimals=0))
    left.title.set_fontsize(9)
    right.title.set_fontsize(9)
    fig.tight_layout()
    return fig
