"""Figures of notebook 03 (HELMET correlations); each returns a matplotlib Figure."""
from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns

from ... import plots

_HEATMAP = dict(annot=True, fmt=".2f", vmin=0, vmax=1, cmap="Blues", square=True, linewidths=0.5,
                cbar_kws={"shrink": 0.75, "label": "Spearman ρ"})


def _lower_mask(matrix: pd.DataFrame) -> np.ndarray:
    return np.triu(np.ones(matrix.shape, dtype=bool), k=1)


def fig5(ours: pd.DataFrame, published: pd.DataFrame, n_models: int, all_models: pd.DataFrame | None = None,
         n_all: int | None = None) -> plt.Figure:
    """Fig. 5 recomputed (lower triangle, the paper's layout) beside ours − paper in thousandths; with ``all_models``,
    a third panel gives the difference when every released instruct model is kept. Two panels a row, the third
    centred below: a page wide and, printed, one page high (stacked, the three were 15 in tall and printed at 0.6
    scale, their numbers at ~4 pt: issue #64)."""
    panels = 2 if all_models is None else 3
    fig = plt.figure(figsize=(7.4, 3.8 * ((panels + 1) // 2)))
    grid = fig.add_gridspec((panels + 1) // 2, 4)
    axes = [fig.add_subplot(place) for place in [grid[0, 0:2], grid[0, 2:4], grid[1, 1:3]][:panels]]
    sns.heatmap(ours, mask=_lower_mask(ours), ax=axes[0], **{**_HEATMAP, "annot_kws": {"fontsize": 7},
                                                             "cbar_kws": {"shrink": 0.7, "label": "Spearman ρ"}})
    axes[0].set_title(f"Fig. 5 recomputed (ρ)\n{n_models} instruct models, 128K", fontsize=8)
    deltas = [(ours - published, f"{n_models} models")]
    if all_models is not None:
        deltas.append((all_models - published, f"all {n_all} models"))
    for ax, (delta, label) in zip(axes[1:], deltas):
        thousandths = (delta * 1000).round() + 0.0  # + 0.0: a difference that rounds to zero prints "+0", not "-0"
        sns.heatmap(thousandths, mask=_lower_mask(delta) | np.eye(len(delta), dtype=bool), ax=ax, annot=True, fmt="+.0f",
                    annot_kws={"fontsize": 7}, vmin=-60, vmax=60, cmap="vlag", square=True, linewidths=0.5,
                    cbar_kws={"shrink": 0.7, "label": "× 0.001"})
        largest = np.nanmax(np.abs(delta.to_numpy() - np.diag(np.diag(delta))))
        ax.set_title(f"{label} − paper\n(× 0.001; max |Δ| {largest:.3f})", fontsize=8)
    fig.tight_layout()
    return fig


def fig3(combined: pd.DataFrame, ours_rows: list[str]) -> plt.Figure:
    """Fig. 3 layout: the paper's NIAH/RULER rows (no data offline) and our recomputed Recall/RAG rows."""
    labels = combined.copy()
    labels.index = [f"{r} (ours)" if r in ours_rows else f"{r} (paper)" for r in combined.index]
    fig, ax = plt.subplots(figsize=(7.5, 4.8))
    sns.heatmap(labels, ax=ax, **_HEATMAP)
    ax.axhline(len(combined) - len(ours_rows), color="black", lw=2)
    ax.set_title("Fig. 3: synthetic tasks vs downstream categories (Spearman ρ)")
    ax.set(xlabel="downstream category (Avg. = mean of the row)", ylabel="synthetic task")
    fig.tight_layout()
    return fig


def intervals(table: pd.DataFrame, threshold: float = 0.8) -> plt.Figure:
    """Every recomputed correlation with its 95% bootstrap CI (models resampled) and the paper's value."""
    table = table.reset_index(drop=True)
    fig, ax = plt.subplots(figsize=(8, 0.28 * len(table) + 1.2))
    y = np.arange(len(table))
    ax.errorbar(table["ours"], y, xerr=[table["ours"] - table["ci_low"], table["ci_high"] - table["ours"]], fmt="o",
                ms=4, label="ours, 95% CI (resampling models)")
    ax.scatter(table["published"], y, marker="x", color="C3", zorder=3, label="paper")
    ax.axvline(threshold, color="grey", ls="--", lw=1)
    ax.set_yticks(y, [f"{f}: {r} ~ {c}" for f, r, c in zip(table["figure"], table["row"], table["col"])], fontsize=8)
    ax.invert_yaxis()
    ax.set(xlabel="Spearman ρ", xlim=(-0.1, 1.05), title="How certain are HELMET's correlations?")
    ax.legend(loc="lower left", fontsize=8)
    fig.tight_layout()
    return fig


def ci_width(table: pd.DataFrame, full: dict[str, float] | None = None, n_full: int | None = None) -> plt.Figure:
    """CI width of ρ against the number of models, for a strong and a weak pair (random subsets strictly
    smaller than the model set); ``full``: the width with every model (one set, no spread) as a marker."""
    fig, ax = plt.subplots(figsize=(7, 4))
    for k, (label, part) in enumerate(table.groupby("pair", sort=False)):
        name = f"{label}: {part['row'].iloc[0]} ~ {part['col'].iloc[0]}"
        ax.plot(part["n_models"], part["mean_width"], marker="o", color=f"C{k}", label=name)
        ax.fill_between(part["n_models"], part["p10_width"], part["p90_width"], color=f"C{k}", alpha=0.2)
        if full and label in full:
            ax.scatter([n_full], [full[label]], marker="*", s=90, color=f"C{k}", zorder=3,
                       label=f"{label}: all {n_full} models (one set)")
    ax.set(xlabel="models in the study", ylabel="width of 95% CI on ρ", ylim=(0, None),
           title="How many models does a correlation study need?")
    ax.legend(fontsize=8, title="mean over random subsets (band: 10th–90th pct.)", title_fontsize=8)
    fig.tight_layout()
    return fig


def base_vs_instruct(table: pd.DataFrame) -> plt.Figure:
    """ρ over base models against ρ over instruct models per category pair (above), and the difference with CI
    (below)."""
    fig, (left, right) = plt.subplots(2, 1, figsize=(7.0, 4.6 + 0.24 * len(table) + 1.2),
                                      gridspec_kw={"height_ratios": [4.6, 0.24 * len(table) + 1.2]})
    left.scatter(table["rho_instruct"], table["rho_base"])
    left.plot([-0.2, 1], [-0.2, 1], color="grey", lw=0.8, ls="--")
    labelled = table[table["significant"] | (table["difference"].abs() > 0.25)]
    plots.annotate_points(left, labelled["rho_instruct"], labelled["rho_base"],
                          [f"{r}~{c}" for r, c in zip(labelled["row"], labelled["col"])], fontsize=7)
    left.set(xlabel=f"ρ over instruct models (n={table['n_instruct'].iloc[0]})",
             ylabel=f"ρ over base models (n={table['n_base'].iloc[0]})", title="Same pairs, two model families (labelled: |Δ| > 0.25)")
    y = np.arange(len(table))
    colors = np.where(table["significant"], "C3", "C0")
    right.errorbar(table["difference"], y, xerr=[table["difference"] - table["ci_low"], table["ci_high"] - table["difference"]],
                   fmt="none", ecolor=colors)
    right.scatter(table["difference"], y, c=colors, zorder=3)
    right.axvline(0, color="grey", lw=0.8)
    right.set_yticks(y, [f"{r} ~ {c}" for r, c in zip(table["row"], table["col"])], fontsize=8)
    right.invert_yaxis()
    right.set(xlabel="ρ(instruct) − ρ(base), 95% percentile CI\n(red: excludes 0, p < 0.05 uncorrected)",
              title="Difference")
    fig.tight_layout()
    return fig


def by_length(summary: pd.DataFrame | None, pairs: pd.DataFrame | None) -> plt.Figure:
    """Mean category correlation by input length (Fig. 6 values), with CIs; faint lines = single pairs; a note when
    the values are absent (an empty summary)."""
    if summary is None or summary.empty:
        return plots.note_figure("The length-resolved values (HELMET Fig. 6) are mirror-only\nand were not found: "
                                 "set HELMLITE_DATA_MIRROR.", size=(7, 4))
    fig, ax = plt.subplots(figsize=(7, 4))
    levels = summary[~summary["length"].str.contains("−")]
    x = np.arange(len(levels))
    for _, part in pairs.groupby(["row", "col"]):
        ax.plot(x, part["rho"], color="grey", alpha=0.25, lw=0.8)
    ax.errorbar(x, levels["mean_rho"], yerr=[levels["mean_rho"] - levels["ci_low"], levels["ci_high"] - levels["mean_rho"]],
                marker="o", color="C0", capsize=3, label="mean over the 21 category pairs, 95% CI")
    ax.set_xticks(x, levels["length"])
    ax.set(xlabel="input length", ylabel="Spearman ρ between categories", ylim=(-0.5, 1),
           title="Do category correlations change with length?")
    ax.legend(fontsize=8, loc="lower left")
    fig.tight_layout()
    return fig


def fig8_averages(fig8: pd.DataFrame | None, limit: float = 0.8) -> plt.Figure:
    """Fig. 8's printed ``Avg.`` per row (mean ρ with the five downstream categories), synthetic and RAG
    datasets in two colours, category rows hatched, the 0.8 line of the paper's statement."""
    if fig8 is None:
        return plots.note_figure("HELMET Fig. 8 values are mirror-only\nand were not found.", size=(7.5, 6.0))
    fig, ax = plt.subplots(figsize=(7.5, 6.0))
    rows = fig8.sort_values("Avg.")
    colours = {"synthetic": "C0", "RAG": "C1"}
    y = np.arange(len(rows))
    ax.barh(y, rows["Avg."], color=[colours[k] for k in rows["kind"]],
            hatch=["//" if a else "" for a in rows["aggregate"]], edgecolor="white")
    ax.set_yticks(y, rows.index, fontsize=8)
    ax.axvline(limit, color="grey", ls="--", lw=1)
    handles = [plt.Rectangle((0, 0), 1, 1, color=c, label=f"{k} dataset") for k, c in colours.items()]
    handles += [plt.Rectangle((0, 0), 1, 1, facecolor="lightgrey", hatch="//", edgecolor="white", label="category row (an average)"),
                plt.Line2D([], [], color="grey", ls="--", label=f"{limit} (the paper's statement)")]
    ax.legend(handles=handles, fontsize=7, loc="lower right")
    ax.set(xlim=(0.4, 0.85), xlabel="Avg. Spearman ρ with the downstream categories (printed, two decimals)",
           title="HELMET Fig. 8: synthetic and RAG datasets vs downstream (paper's values)")
    fig.tight_layout()
    return fig
