"""Figures of notebook 01 (HELM core): live score matrix, metric relationships, win rates, budget curve."""
from __future__ import annotations

import textwrap

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns

from ... import plots
from .live import EFFICIENCY


def cell_text(estimate: float, low: float, high: float, n: int, digits: int = 2) -> str:
    """'estimate\\n[low, high]', or the estimate and why it has no interval: too few units for a finite one,
    or resamples that never varied (a zero-width interval carries no uncertainty estimate)."""
    if not (np.isfinite(low) and np.isfinite(high)):
        return f"{estimate:.{digits}f}\nno CI: n = {n}"
    if high - low <= 0:
        return f"{estimate:.{digits}f}\nno CI: no spread"
    return f"{estimate:.{digits}f}\n[{low:.{digits}f},{high:.{digits}f}]"


#: Scenarios per heatmap panel: five 1-inch cells beside the family labels make a panel about a page wide
#: (:data:`helmlite.plots.PAGE_WIDTH_IN`), so its two-line cells print at their size.
SCENARIOS_PER_PANEL = 5


def score_heatmaps(matrix: pd.DataFrame) -> plt.Figure:
    """Per model: metric families × scenarios, each cell 'estimate\n[low, high]' (:func:`cell_text`), in panels of
    :data:`SCENARIOS_PER_PANEL` scenarios one under the other. Families run down the rows so that a page-wide figure
    of both models also fits one printed page (scenarios across and families down, the four panels of eight families
    were 16 in tall and printed at 0.58 scale: issue #64). Colour says how good a cell is on its own metric's
    direction: the estimate where higher is better, 1 − the estimate where lower is (ECE, toxic fraction, gender
    representation); token counts are not coloured."""
    models = sorted(matrix["model"].unique())
    families = list(matrix["family"].unique())
    scenarios = sorted(matrix["scenario"].unique())
    chunks = [scenarios[k:k + SCENARIOS_PER_PANEL] for k in range(0, len(scenarios), SCENARIOS_PER_PANEL)]
    panels = [(model, chunk) for model in models for chunk in chunks]
    fig, grid = plt.subplots(len(panels), 2, figsize=(2.6 + 1.0 * SCENARIOS_PER_PANEL, len(panels) * (0.5 * len(families) + 1.2)),
                             squeeze=False, gridspec_kw={"width_ratios": [1, 0.03]})
    for spare in grid[1:, 1]:
        spare.axis("off")
    for k, (ax, (model, chunk)) in enumerate(zip(grid[:, 0], panels)):
        part = matrix[(matrix["model"] == model) & matrix["scenario"].isin(chunk)]
        goodness = np.where(part["lower_is_better"].astype(bool), 1 - part["estimate"], part["estimate"])
        values = part.assign(goodness=goodness).pivot_table(index="family", columns="scenario", values="goodness") \
            .reindex(index=families, columns=chunk)
        digits = np.where(part.family == EFFICIENCY, 0, 2)
        texts = [cell_text(e, lo, hi, n, d) for e, lo, hi, n, d in zip(part.estimate, part.ci_low, part.ci_high, part.n, digits)]
        labels = part.assign(text=texts).pivot_table(index="family", columns="scenario", values="text", aggfunc="first") \
            .reindex(index=families, columns=chunk)
        shown = values.copy()
        if EFFICIENCY in shown.index:  # tokens, not a 0–1 score: annotated but not coloured
            shown.loc[EFFICIENCY] = np.nan
        sns.heatmap(shown.astype(float), annot=labels.fillna(""), fmt="", cmap="viridis", vmin=0, vmax=1, ax=ax,
                    annot_kws={"fontsize": 7.5}, linewidths=0.5, cbar=k == 0, cbar_ax=grid[0, 1] if k == 0 else None,
                    cbar_kws={"label": "how good (1 = best; ECE, toxicity,\nbias as 1 − value; tokens not coloured)"})
        if EFFICIENCY in labels.index:  # seaborn leaves NaN cells unannotated: write these by hand
            row_index = list(labels.index).index(EFFICIENCY)
            for column, text in enumerate(labels.loc[EFFICIENCY]):
                if isinstance(text, str):
                    ax.text(column + 0.5, row_index + 0.5, text, ha="center", va="center", fontsize=7.5)
        ax.set(title=model if len(chunks) == 1 else f"{model} ({chunks.index(chunk) + 1} of {len(chunks)})", xlabel="", ylabel="")
        ax.grid(False)  # empty cells (a metric that does not apply) stay blank
        ax.tick_params(axis="both", labelsize=8)
        ax.tick_params(axis="x", rotation=20)
        for label in ax.get_xticklabels():
            label.set_horizontalalignment("right")
    fig.suptitle("HELM core metrics, live runs\n(estimate and 95% CI: exact for shares of items, bootstrap otherwise)")
    fig.tight_layout()
    return fig


def accuracy_vs(matrix: pd.DataFrame, others=("robustness", "fairness")) -> plt.Figure:
    """HELM Fig. 24 style: per scenario, accuracy against robustness / fairness, both with CIs."""
    fig, axes = plt.subplots(1, len(others), figsize=(3.6 * len(others), 3.9), squeeze=False)
    for ax, family in zip(axes[0], others):
        acc = matrix[matrix["family"] == "accuracy"].set_index(["model", "scenario"])
        other = matrix[matrix["family"] == family].set_index(["model", "scenario"])
        both = acc.merge(other, left_index=True, right_index=True, suffixes=("_acc", "_other")).reset_index()
        if both.empty:
            ax.set_title(f"Accuracy vs {family}")
            plots.note_panel(ax, f"No {family} perturbation in this run's config:\nconfig/paper.yaml runs HELM's.")
            continue
        colors = {model: f"C{k}" for k, model in enumerate(sorted(both["model"].unique()))}
        for model, part in both.groupby("model"):
            ax.errorbar(part["estimate_acc"], part["estimate_other"], fmt="o", color=colors[model], label=model, alpha=0.85,
                        xerr=[part.estimate_acc - part.ci_low_acc, part.ci_high_acc - part.estimate_acc],
                        yerr=[part.estimate_other - part.ci_low_other, part.ci_high_other - part.estimate_other])
        ax.plot([0, 1], [0, 1], color="grey", ls="--", lw=0.8, gid=plots.REFERENCE)
        ax.set(xlim=(-0.05, 1.05), ylim=(-0.05, 1.05), xlabel="accuracy", ylabel=f"{family} (worst case)",
               title=f"Accuracy vs {family}")
        plots.annotate_points(ax, both["estimate_acc"], both["estimate_other"], both["scenario"], fontsize=6.5,
                              colors=both["model"].map(colors))
        ax.legend(fontsize=7.5)
    fig.tight_layout()
    return fig


def forest(table: pd.DataFrame, label: str, value: str, title: str, xlabel: str,
           empty: str = "No rows in this run's config.") -> plt.Figure:
    """Point estimates with CIs, one row per label; red rows exclude 0. A row without a finite interval is
    drawn as a hollow grey marker labelled "no CI" (with its n), so it does not look exact. An empty table draws
    one panel that says ``empty`` (why there is nothing to show)."""
    if table.empty:
        return plots.note_figure(empty, title, size=(6, 1.8))
    table = table.reset_index(drop=True)
    for column in (value, "ci_low", "ci_high", *(["n"] if "n" in table else [])):  # empty tables are object-typed
        table[column] = pd.to_numeric(table[column], errors="coerce")
    labels = [textwrap.fill(str(text), 38) for text in table[label]]  # a label wraps rather than widening the figure
    lines = max((text.count("\n") + 1 for text in labels), default=1)
    fig, ax = plt.subplots(figsize=(7.0, (0.22 + 0.14 * lines) * len(table) + 1.4))
    y = np.arange(len(table))
    defined = np.isfinite(table["ci_low"]) & np.isfinite(table["ci_high"])
    colors = np.where((table["ci_low"] > 0) | (table["ci_high"] < 0), "C3", "C0")
    ax.errorbar(table[value][defined], y[defined], xerr=[(table[value] - table["ci_low"])[defined],
                                                         (table["ci_high"] - table[value])[defined]],
                fmt="none", ecolor=colors[defined])
    ax.scatter(table[value][defined], y[defined], c=colors[defined], zorder=3)
    ax.scatter(table[value][~defined], y[~defined], facecolors="none", edgecolors="grey", zorder=3,
               label="no CI (too few units)" if (~defined).any() else None)
    for k in np.flatnonzero(~defined):
        n = f" (n = {int(table['n'][k])})" if "n" in table and np.isfinite(table["n"][k]) else ""
        ax.annotate(f"no CI{n}", (table[value][k], y[k]), xytext=(6, -3), textcoords="offset points", fontsize=7,
                    color="grey")
    if (~defined).any():
        ax.legend(fontsize=7, loc="lower right")
    ax.axvline(0, color="grey", lw=0.8)
    ax.set_yticks(y, labels, fontsize=8)
    ax.invert_yaxis()
    ax.set(title=title, xlabel=xlabel)
    fig.tight_layout()
    return fig


def reliability_diagrams(table: pd.DataFrame) -> plt.Figure:
    """Equal-mass reliability diagrams per classification scenario and model (a note when no run records a
    confidence, e.g. imported runs whose tool kept none)."""
    scenarios = sorted(table["scenario"].unique())
    if not scenarios:
        return plots.note_figure("No run records a confidence: no reliability diagram.", size=(5, 2))
    cols = min(2, len(scenarios))
    rows = int(np.ceil(len(scenarios) / cols))
    fig, axes = plt.subplots(rows, cols, figsize=(3.5 * cols, 3.1 * rows), squeeze=False)
    for ax, scenario in zip(axes.flat, scenarios):
        for k, (model, part) in enumerate(table[table["scenario"] == scenario].groupby("model")):
            ax.plot(part["confidence"], part["accuracy"], marker="o", color=f"C{k}", label=model, ms=3)
        ax.plot([0, 1], [0, 1], color="grey", ls="--", lw=0.8)
        ax.set(title=scenario, xlim=(0, 1), ylim=(-0.02, 1.02), xlabel="confidence", ylabel="accuracy")
        ax.title.set_fontsize(9)
    for ax in list(axes.flat)[len(scenarios):]:
        ax.set_axis_off()
    axes.flat[0].legend(fontsize=7)
    fig.suptitle("Reliability (10 equal-mass bins)")
    fig.tight_layout()
    return fig


def win_rate_agreement(rows: pd.DataFrame, summary: pd.DataFrame) -> plt.Figure:
    """Recomputed (HELM v0.4.0 rules) vs published mean win rate, one panel per metric group; grey bars
    show the range of win rates that tie-breaking on the rounded values allows (when the table has them)."""
    groups = list(summary["group"])
    cols = 3  # three a row: the eight groups' panels fit one printed page (two a row made 13.7 in, printed at 0.67)
    rows_n = int(np.ceil(len(groups) / cols))
    fig, axes = plt.subplots(rows_n, cols, figsize=(7.2, 2.75 * rows_n + 0.4), squeeze=False, sharex=True, sharey=True)
    for ax, group in zip(axes.flat, groups):
        part = rows[rows["group"] == group]
        s = summary.set_index("group").loc[group]
        if {"tie_range_low", "tie_range_high"} <= set(part.columns):
            ax.vlines(part["published"], part["tie_range_low"], part["tie_range_high"], color="0.75", lw=1.5,
                      label="tie range (rounded values)")
        ax.scatter(part["published"], part["ours"], s=10, zorder=3, label="recomputed")
        ax.plot([0, 1], [0, 1], color="grey", lw=0.8, ls="--")
        title = f"{group}\nτ={s.kendall_tau:.2f}, max|Δ|={s.max_abs_diff:.3f}"
        if "within_tie_range" in s:
            title += f"\nin tie range {int(s.within_tie_range)}/{int(s.models)}"
        ax.set(title=title, xlim=(0, 1), ylim=(0, 1), xticks=[0, 0.5, 1], yticks=[0, 0.5, 1])
        ax.title.set_fontsize(8)
    for column in range(cols):  # the lowest panel of each column carries the x axis (one below it may be empty)
        lowest = axes[(len(groups) - 1 - column) // cols, column] if column < len(groups) else None
        if lowest is not None:
            lowest.xaxis.set_tick_params(labelbottom=True)
            lowest.set_xlabel("published")
    for ax in axes[:, 0]:
        ax.set_ylabel("recomputed")
    axes.flat[0].legend(fontsize=7, loc="upper left")
    for ax in list(axes.flat)[len(groups):]:
        ax.set_axis_off()
    fig.suptitle("HELM mean win rate: recomputed with HELM v0.4.0's rules vs published (v0.4.0)")
    fig.tight_layout()
    return fig


#: Models the ranking figure shows (the leaderboard's top; the table below it and the CSV hold all of them).
RANKING_TOP = 30


def win_rate_ranking(table: pd.DataFrame, top: int = RANKING_TOP) -> plt.Figure:
    """Mean win rate with bootstrap CIs (resampling scenarios); hollow markers = statistically tied with the next."""
    part = table.head(top).reset_index(drop=True)
    fig, ax = plt.subplots(figsize=(8, 0.27 * len(part) + 1.4))
    y = np.arange(len(part))
    ax.errorbar(part["win_rate"], y, xerr=[part.win_rate - part.ci_low, part.ci_high - part.win_rate], fmt="none", ecolor="C0")
    tied = part["tied_with_next"].fillna(False).astype(bool)
    ax.scatter(part.loc[~tied, "win_rate"], y[~tied], color="C0", zorder=3, label="separated from the next rank")
    ax.scatter(part.loc[tied, "win_rate"], y[tied], facecolors="white", edgecolors="C0", zorder=3, label="tied with the next rank")
    ax.set_yticks(y, [f"{r}. {m}" for r, m in zip(part["rank"], part["model"])], fontsize=7)
    ax.invert_yaxis()
    ax.set(xlabel="accuracy mean win rate (95% CI, scenarios resampled)", xlim=(0, 1), title="Who is really ahead?")
    ax.legend(fontsize=7, loc="lower left")
    fig.tight_layout()
    return fig


def relationships(table: pd.DataFrame) -> plt.Figure:
    """Pearson r between accuracy and each group's metric, per scenario, with CIs (HELM Figs. 24–25): one panel per
    group, two panels a row, so the figure is a page wide and its scenario labels readable."""
    groups = list(table["group"].unique())
    rows = -(-len(groups) // 2)
    fig, axes = plt.subplots(rows, 2, figsize=(7.2, 3.6 * rows), sharey=True, squeeze=False)
    scenarios = sorted(table["scenario"].unique())
    y = np.arange(len(scenarios))
    for ax, group in zip(axes.flat, groups):
        part = table[table["group"] == group].set_index("scenario").reindex(scenarios)
        ax.errorbar(part["pearson_r"], y, xerr=[part.pearson_r - part.ci_low, part.ci_high - part.pearson_r], fmt="o", ms=3)
        ax.axvline(0, color="grey", lw=0.8)
        ax.set(title=group, xlim=(-1.05, 1.05), xticks=[-1, -0.5, 0, 0.5, 1], xlabel="r with accuracy")
        ax.set_yticks(y, scenarios, fontsize=7.5)
    for ax in list(axes.flat)[len(groups):]:
        ax.set_visible(False)
    axes[0][0].invert_yaxis()
    fig.suptitle("Accuracy vs other metrics across models (Pearson r, 95% CI over models)")
    fig.tight_layout()
    return fig


def budget_curve(curve: pd.DataFrame, named: pd.DataFrame) -> plt.Figure:
    """How well do k random scenarios (or HELM's priority-1 set) recover the full accuracy ranking?"""
    fig, ax = plt.subplots(figsize=(7, 4))
    ax.plot(curve["k"], curve["mean_tau"], marker="o", label="k random scenarios (mean)")
    ax.fill_between(curve["k"], curve["low"], curve["high"], alpha=0.2, label="2.5–97.5% of random draws")
    for k, r in enumerate(named.itertuples()):
        ax.errorbar([r.scenarios], [r.kendall_tau], yerr=[[r.kendall_tau - r.ci_low], [r.ci_high - r.kendall_tau]], fmt="s",
                    color=f"C{k + 2}", capsize=3, label=f"{r.subset} (CI over models)")
    ax.set(xlabel="scenarios used", ylabel="Kendall τ with the full ranking", ylim=(0, 1.02),
           title="Budget: ranking models with fewer scenarios")
    ax.legend(fontsize=7, loc="lower right")
    fig.tight_layout()
    return fig
