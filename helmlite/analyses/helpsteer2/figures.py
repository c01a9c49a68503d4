"""Figures of notebook 05 (HelpSteer2 aggregation); each returns a matplotlib Figure."""
from __future__ import annotations

import textwrap

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns
from matplotlib.ticker import MaxNLocator, PercentFormatter

from ... import plots
from .annotations import ATTRIBUTES


def source_tag(source: str) -> str:
    """The title prefix every figure from the loaded annotations carries: "SIMULATED data" or "REAL data"."""
    return f"{source.upper()} data"


def protocol(counts: pd.DataFrame, removal: pd.DataFrame, source: str) -> plt.Figure:
    """Annotators per sample (the 3-then-5 protocol) and the share removed by the spread filter, per prompt
    (the paper's rule) and per response, with 95% CIs."""
    fig, (left, right) = plt.subplots(2, 1, figsize=(7.0, 7.6), gridspec_kw={"height_ratios": [3, 4]})
    sns.barplot(data=counts, x="n_annotators", y="samples", ax=left, color="C0")
    for patch, share in zip(left.patches, counts["share"]):
        left.annotate(f"{share:.1%}", (patch.get_x() + patch.get_width() / 2, patch.get_height()),
                      ha="center", va="bottom", fontsize=8)
    left.set(xlabel="annotators per sample", ylabel="samples", title=f"{source_tag(source)}: annotators per sample")
    subsets = list(dict.fromkeys(removal["subset"]))
    for k, (spread_filter, part) in enumerate(removal.groupby("filter", sort=False)):
        part = part.set_index("subset").reindex(subsets)
        y = np.arange(len(subsets)) + (k - 0.5) * 0.3
        right.errorbar(part["share_removed"], y, fmt="o", color=f"C{3 + k}", label=spread_filter,
                       xerr=[part["share_removed"] - part["ci_low"], part["ci_high"] - part["share_removed"]])
    samples = removal.drop_duplicates("subset").set_index("subset")["samples"]
    right.set_yticks(np.arange(len(subsets)), [f"{s} (n={samples[s]:,})" for s in subsets], fontsize=8)
    right.invert_yaxis()
    right.set(xlabel="share removed (retained helpfulness spread > 2, or no label), 95% CI",
              title="Not released: spread filter or no label")
    right.set_xlim(left=-0.01)  # a share of 0 is drawn whole, not cut in half at the axis
    right.xaxis.set_major_formatter(PercentFormatter(1, decimals=0))
    right.xaxis.set_major_locator(MaxNLocator(5))
    right.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.22), ncol=2, frameon=False)  # below: covers no marker
    fig.tight_layout()
    return fig


def distributions(table: pd.DataFrame, source: str) -> plt.Figure:
    """Share of each score per attribute: pooled individual ratings vs released labels (the title says
    whether the annotations are simulated)."""
    cols = 3
    fig, grid = plt.subplots(-(-len(ATTRIBUTES) // cols), cols, figsize=(7.2, 2.6 * -(-len(ATTRIBUTES) // cols) + 0.6),
                             sharey=True, squeeze=False)
    axes = list(grid.flat)
    for k, (ax, attribute) in enumerate(zip(axes, ATTRIBUTES)):
        sns.barplot(data=table[table["attribute"] == attribute], x="score", y="share", hue="stage", ax=ax, legend=k == 0)
        ax.set(title=attribute, xlabel="score", ylabel="share" if k % cols == 0 else "")
    handles, names = axes[0].get_legend_handles_labels()
    axes[0].get_legend().remove()
    for ax in axes[len(ATTRIBUTES):]:  # the spare slot holds the legend, so it covers no bar
        ax.set_axis_off()
        ax.legend(handles, names, fontsize=8, loc="center")
    fig.suptitle(f"{source_tag(source)}: rating distributions before and after aggregation")
    fig.tight_layout()
    return fig


def correlations(aggregated: pd.DataFrame, with_helpfulness: pd.DataFrame, source: str) -> plt.Figure:
    """Pearson correlations among released attributes (heatmap) and with helpfulness (95% CIs); the title says
    whether the annotations are simulated."""
    kept = aggregated.loc[~aggregated["removed"], list(ATTRIBUTES)]
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 3.8), gridspec_kw={"width_ratios": [4, 3]})
    sns.heatmap(kept.corr(method="pearson"), annot=True, fmt=".2f", vmin=-1, vmax=1, cmap="vlag", ax=left,
                square=True, cbar_kws={"shrink": 0.8, "label": "Pearson r"})
    left.set_title("Released labels: Pearson r")
    y = np.arange(len(with_helpfulness))
    r = with_helpfulness["pearson_r"]
    right.errorbar(r, y, xerr=[r - with_helpfulness["ci_low"], with_helpfulness["ci_high"] - r], fmt="o")
    right.set_yticks(y, with_helpfulness["attribute"])
    right.invert_yaxis()
    right.axvline(0, color="grey", lw=0.8)
    right.set(xlim=(-0.1, 1), xlabel="r with helpfulness (95% bootstrap CI)", title="Attribute vs helpfulness")
    fig.suptitle(f"{source_tag(source)}: correlations of the released labels", fontsize=10)
    fig.tight_layout()
    return fig


def agreement(table: pd.DataFrame, source: str) -> plt.Figure:
    """Inter-annotator agreement before vs after keeping the most agreeing three, with 95% CIs; the title says
    whether the annotations are simulated."""
    measures = table["measure"].unique()
    fig, axes = plt.subplots(1, len(measures), figsize=(7.2, 3.8), sharey=True)
    for ax, measure in zip(np.atleast_1d(axes), measures):
        part = table[table["measure"] == measure]
        stages = list(part["stage"].unique())
        for k, stage in enumerate(stages):
            rows = part[part["stage"] == stage]
            y = np.arange(len(rows)) + (k - 0.5) * 0.3
            ax.errorbar(rows["estimate"], y, fmt="o", label=stage, color=f"C{k}",
                        xerr=[rows["estimate"] - rows["ci_low"], rows["ci_high"] - rows["estimate"]])
        ax.set_yticks(np.arange(len(ATTRIBUTES)), ATTRIBUTES)
        ax.set(title=measure, xlabel="agreement (95% CI)")
    np.atleast_1d(axes)[0].legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=3, frameon=False)
    np.atleast_1d(axes)[0].invert_yaxis()
    fig.suptitle(f"{source_tag(source)}: agreement between annotator slots", fontsize=10)
    fig.tight_layout()
    return fig


def error_against_truth(table: pd.DataFrame | None) -> plt.Figure:
    """MAE against the latent truth: most agreeing three vs naive mean (simulated data only)."""
    if table is None:
        return plots.note_figure("Real data has no latent truth:\nthis comparison needs simulated input.", size=(7, 3.4))
    fig, ax = plt.subplots(figsize=(7, 3.4))
    long = table.melt(id_vars="attribute", value_vars=["mae_most_agreeing_three", "mae_naive_mean"],
                      var_name="label", value_name="mae")
    long["label"] = long["label"].map({"mae_most_agreeing_three": "mean of most agreeing three",
                                       "mae_naive_mean": "naive mean of all annotators"})
    sns.barplot(data=long, x="attribute", y="mae", hue="label", ax=ax)
    for i, r in enumerate(table.itertuples()):
        ax.annotate(f"Δ={r.difference:+.3f}\n[{r.ci_low:+.3f}, {r.ci_high:+.3f}]", (i, max(r.mae_most_agreeing_three, r.mae_naive_mean)),
                    ha="center", va="bottom", fontsize=7)
    ax.set(ylabel="MAE vs latent true label", xlabel="", title="Why keep the most agreeing three (simulated data)")
    ax.set_ylim(0, long["mae"].max() * 1.35)
    ax.legend(fontsize=8, loc="lower right")
    fig.tight_layout()
    return fig


def careless_curve(curve: pd.DataFrame, calibrated: float | None = None) -> plt.Figure:
    """MAE difference (most agreeing three − naive mean) against the share of careless annotators, per
    attribute, with 95% cluster-bootstrap CIs over prompts; below 0 the top-3 rule is closer to the truth."""
    if curve.empty:
        return plots.note_figure("Real data has no latent truth:\nthis curve needs simulated input.", size=(7.5, 4))
    fig, ax = plt.subplots(figsize=(7.5, 4))
    for k, attribute in enumerate(ATTRIBUTES):
        part = curve[curve["attribute"] == attribute].sort_values("careless_share")
        offset = (k - 2) * 0.004
        ax.errorbar(part["careless_share"] + offset, part["difference"], marker="o", ms=3, capsize=2, color=f"C{k}",
                    yerr=[part["difference"] - part["ci_low"], part["ci_high"] - part["difference"]], label=attribute)
    ax.axhline(0, color="grey", lw=0.8)
    if calibrated is not None:
        ax.axvline(calibrated, color="grey", ls=":", lw=1)
        ax.annotate("calibrated simulator", (calibrated, ax.get_ylim()[1]), fontsize=7, ha="center", va="top")
    ax.xaxis.set_major_formatter(PercentFormatter(1, decimals=0))
    ax.set(xlabel="share of careless annotators (simulator)", ylabel="MAE(top-3) − MAE(naive mean)",
           title="When does keeping the most agreeing three help? (simulated; below 0 = top-3 closer)")
    ax.legend(fontsize=7, ncol=5, loc="lower left")
    fig.tight_layout()
    return fig


def protocol_readings(readings: pd.DataFrame, target: float = 0.10, annotators: float = 3.41) -> plt.Figure:
    """Simulated: share removed and annotators per response under each reading of the protocol, with the
    default parameters and with the careless share refitted for that reading; the published figures as lines."""
    fig, (left, right) = plt.subplots(2, 1, figsize=(7.0, 7.6), sharey=True)
    labels = list(dict.fromkeys(readings["reading"]))
    y = np.arange(len(labels))
    for k, (setting, part) in enumerate(readings.groupby("setting", sort=False)):
        part = part.set_index("reading").reindex(labels)
        offset = (k - 0.5) * 0.3
        left.barh(y + offset, part["share_not_released"], height=0.3, color=f"C{k}", label=setting)
        # points, not bars: the axis starts at 3 annotators, where a bar's length would mean nothing
        right.scatter(part["mean_annotators"], y + offset, color=f"C{k}", label=setting, zorder=3)
        for x, yy, c, kappa in zip(part["mean_annotators"], y + offset, part["careless_share"], part["kappa_helpfulness"]):
            right.annotate(f"careless {c:.0%}, κ {kappa:.2f}", (x, yy), va="center", fontsize=7.5, xytext=(6, 0),
                           textcoords="offset points")
    left.axvline(target, color="grey", ls="--", lw=1, label=f"~{target:.0%} not released (row counts)")
    right.axvline(annotators, color="grey", ls=":", lw=1, label=f"card: mean {annotators} annotators")
    wrapped = [textwrap.fill(label, 26) for label in labels]  # two short lines: the panels keep their width
    left.set_yticks(y, wrapped, fontsize=8)
    right.tick_params(axis="y", labelleft=True, labelsize=8)
    left.invert_yaxis()
    left.xaxis.set_major_formatter(PercentFormatter(1, decimals=0))
    left.set(xlabel="share not released (spread filter or no label, per prompt)", title="SIMULATED: removal under each reading")
    right.set(xlim=(3.0, 3.8), xlabel="annotators per response", title="SIMULATED: annotators (and the fit's κ)")
    handles, names = left.get_legend_handles_labels()
    extra, extra_names = right.get_legend_handles_labels()
    keep = [k for k, name in enumerate(extra_names) if name not in names]
    fig.legend(handles + [extra[k] for k in keep], names + [extra_names[k] for k in keep], loc="lower center", ncol=4,
               fontsize=8, frameon=False)
    fig.tight_layout(rect=(0, 0.05, 1, 1))
    return fig
