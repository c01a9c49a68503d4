"""Figures of notebook 04 (lost in the middle)."""
from __future__ import annotations

import matplotlib.pyplot as plt
import pandas as pd

from ... import plots

NO_RUNS = "no live depth runs under the results folder (run snakemake first)"


def _length_colours(lengths) -> dict:
    """One colour per context length, short to long along viridis, stopping at green (0.75): its pale yellow end
    is hard to see on white."""
    lengths = list(lengths)
    return {length: plt.cm.viridis(0.75 * k / max(1, len(lengths) - 1)) for k, length in enumerate(lengths)}


def live_curves(curves: pd.DataFrame) -> plt.Figure:
    """Accuracy vs the target's actual position, one line per length, panels = task × (model, scoring):
    95% CIs where a curve has >= 10 contexts (hollow markers without bars below that), and each
    curve's chance level as a dashed line in its colour and, for log-probability curves, the baseline's hit
    rate (the same candidates under a key-absent query) dotted. A panel whose task × (model, scoring) was not run
    says so; without any curve, one panel says so."""
    if curves.empty:
        return plots.note_figure(NO_RUNS)
    curves = curves.assign(column=curves["model"] + "\n" + curves["method"])
    tasks, columns = sorted(curves["task"].unique()), sorted(curves["column"].unique())
    panels = [(task, column) for task in tasks for column in columns]  # two a row: the figure stays a page wide
    rows = -(-len(panels) // 2)
    fig, grid = plt.subplots(rows, 2, figsize=(7.0, 2.6 * rows + 1.5), squeeze=False, sharex=True, sharey=True,
                             layout="constrained")
    for ax in grid.flat[len(panels):]:
        ax.set_visible(False)
    lengths = sorted(curves["length"].unique())
    colours = _length_colours(lengths)
    for k, (task, column) in enumerate(panels):
        ax = grid.flat[k]
        part = curves[(curves["task"] == task) & (curves["column"] == column)]
        if part.empty:  # this model × scoring was not run on this task: say so, not a blank panel
            ax.text(0.5, 0.5, f"not run:\n{column.replace(chr(10), ' ')}\nis not configured for {task}", ha="center",
                    va="center", fontsize=7, color="grey", transform=ax.transAxes)
        for length, line in part.groupby("length"):
            line = line.sort_values("position")
            colour = colours[length]
            if line["ci_low"].notna().all():
                ax.errorbar(line["position"], line["accuracy"], yerr=[line.accuracy - line.ci_low, line.ci_high - line.accuracy],
                            marker="o", ms=3, capsize=2, color=colour)
            else:
                ax.plot(line["position"], line["accuracy"], marker="o", ms=3, mfc="none", lw=0.8, color=colour)
            ax.axhline(line["chance"].mean(), color=colour, ls="--", lw=0.8, alpha=0.8)
            if "baseline" in line and line["baseline"].notna().all():  # the key-absent query's hit rate per depth
                ax.plot(line["position"], line["baseline"], ls=":", marker="x", ms=3, lw=1.0, color=colour)
        ax.set_title(f"{task} · {column}", fontsize=8)  # column: "model\nscoring"
        if k % 2 == 0:
            ax.set_ylabel("accuracy", fontsize=8)
        if k >= len(panels) - 2:  # the lowest panel of each column
            ax.set_xlabel("target's actual relative position\n(0 = first item, 1 = last)", fontsize=8)
        ax.set_ylim(-0.05, 1.05)
    handles = [plt.Line2D([], [], color=colours[length], marker="o", ms=3, label=f"{length} tokens") for length in lengths]
    handles += [plt.Line2D([], [], color="grey", ls="--", lw=0.8, label="chance level"),
                plt.Line2D([], [], color="grey", ls=":", marker="x", ms=3, lw=1.0, label="baseline (key absent)"),
                plt.Line2D([], [], color="grey", marker="o", mfc="none", ms=3, lw=0.8, label="< 10 contexts: no CI")]
    fig.suptitle("Live depth sweeps (95% exact CIs over contexts)", x=0.02, ha="left")
    fig.legend(handles=handles, loc="outside lower center", ncol=3, fontsize=7)
    return fig


def retrieval_scores(curves: pd.DataFrame) -> plt.Figure:
    """The score the position tests use on log-probability curves with a baseline: P(gold) − the baseline's
    P(gold) of the same candidate against the target's actual position, panels = task × model, one line per
    length, 95% paired-bootstrap CIs over contexts (hollow markers without bars below 10 contexts)."""
    part = curves[curves["probability_difference"].notna()]
    if part.empty:
        return plots.note_figure("no log-probability curve with the baseline's probabilities in these runs")
    tasks, models = sorted(part["task"].unique()), sorted(part["model"].unique())
    lengths = sorted(part["length"].unique())
    colours = _length_colours(lengths)
    fig, axes = plt.subplots(len(tasks), len(models), figsize=(max(6.0, 3.2 * len(models)), 2.6 * len(tasks) + 1.0),
                             squeeze=False, sharex=True, sharey=True)
    for i, task in enumerate(tasks):
        for j, model in enumerate(models):
            ax = axes[i][j]
            for length, line in part[(part["task"] == task) & (part["model"] == model)].groupby("length"):
                line = line.sort_values("position")
                y = line["probability_difference"]
                if line["probability_difference_ci_low"].notna().all():
                    ax.errorbar(line["position"], y, yerr=[y - line.probability_difference_ci_low,
                                                           line.probability_difference_ci_high - y],
                                marker="o", ms=3, capsize=2, color=colours[length], label=f"{length} tokens")
                else:
                    ax.plot(line["position"], y, marker="o", ms=3, mfc="none", lw=0.8, color=colours[length],
                            label=f"{length} tokens (< 10 contexts: no CI)")
            ax.axhline(0, color="grey", lw=0.8)
            ax.set_title(f"{model} · {task}", fontsize=8)
            if j == 0:
                ax.set_ylabel("P(gold) − baseline P(gold)", fontsize=8)
            ax.legend(fontsize=6)
    fig.supxlabel("actual relative position of the target (0 = first item, 1 = last)", fontsize=9)
    fig.suptitle("Retrieval score the position tests use (log-probability; 95% paired-bootstrap CIs over contexts)", fontsize=9)
    fig.tight_layout()
    return fig


def _curve_label(r) -> str:
    return f"{r.model} · {r.task} · {r.length}"


def u_shape(table: pd.DataFrame) -> plt.Figure:
    """Primacy vs recency per curve of its score (P(gold) − baseline P(gold) for log-probability curves with the
    baseline's probabilities, accuracy for generation) with CIs, each point labelled model · task · length;
    hollow markers: curves with no verdict (fewer than 10 contexts, at the floor, fewer than three distinct items,
    or no baseline — the table's ``no_verdict``), no CI; filled red: U-shape supported after Holm's correction.
    Upper right (both > 0) = lost in the middle."""
    if table.empty:
        return plots.note_figure("no live depth curve to test")
    fig, ax = plt.subplots(figsize=(7.0, 5.5))
    for k, (method, part) in enumerate(table.groupby("method")):
        tested = part[part["primacy_ci_low"].notna()]
        untested = part[part["primacy_ci_low"].isna()]
        ax.errorbar(tested["primacy"], tested["recency"], fmt="o", color=f"C{k}", alpha=0.8,
                    label=f"{method} ({len(tested)} curves with CIs)" if len(tested) else None,
                    xerr=[tested.primacy - tested.primacy_ci_low, tested.primacy_ci_high - tested.primacy],
                    yerr=[tested.recency - tested.recency_ci_low, tested.recency_ci_high - tested.recency])
        if len(untested):
            ax.scatter(untested["primacy"], untested["recency"], facecolors="none", edgecolors=f"C{k}", alpha=0.6,
                       label=f"{method} ({len(untested)} curves with no verdict: see no_verdict)")
    if "lost_in_the_middle" in table and table["lost_in_the_middle"].any():
        hit = table[table["lost_in_the_middle"]]
        ax.scatter(hit["primacy"], hit["recency"], color="C3", zorder=3, label="U-shape supported (Holm)")
    ax.axhline(0, color="grey", lw=0.8)
    ax.axvline(0, color="grey", lw=0.8)
    ax.set(xlabel="primacy = score(first item) − score(middle)", ylabel="recency = score(last item) − score(middle)",
           title="U-shape test: upper right = lost in the middle")
    ax.margins(0.15)
    plots.annotate_points(ax, table["primacy"], table["recency"], [_curve_label(r) for r in table.itertuples()])
    ax.legend(fontsize=7)
    fig.tight_layout()
    return fig


def published(litm: pd.DataFrame | None, helmet: pd.DataFrame | None) -> plt.Figure:
    """The published curves: LitM multi-document QA (Tables 5–7) and HELMET JSON KV by length (Fig. 11)."""
    fig, (left, right) = plt.subplots(2, 1, figsize=(7.0, 8.6))  # one above the other: a page wide
    if litm is None:
        left.text(0.5, 0.5, "Lost in the Middle tables are mirror-only\nand were not found.", ha="center", va="center",
                  transform=left.transAxes)
    else:
        for k, ((docs, model), part) in enumerate(litm[litm["num_docs"] == 20].groupby(["num_docs", "model"])):
            # a longer-context variant ("GPT-3.5-Turbo (16K)") nearly coincides with its base model: drawn dashed and
            # hollow, so both lines stay visible
            variant = "(" in model
            left.plot(part["depth"], part["accuracy"], marker="s" if variant else "o", ls="--" if variant else "-",
                      mfc="none" if variant else None, label=model, color=plt.cm.tab10(k % 10))
        left.set(title="Lost in the Middle, 20 documents (Table 6)", xlabel="depth of the gold document", ylabel="accuracy")
        left.legend(fontsize=7, loc="center left", bbox_to_anchor=(1.01, 0.5))
    if helmet is None:
        right.text(0.5, 0.5, "HELMET Figs. 11–14 values are mirror-only\nand were not found.", ha="center", va="center",
                   transform=right.transAxes)
    else:
        mean = helmet.groupby(["dataset", "length", "depth"], as_index=False)["value"].mean()
        part = mean[mean["dataset"] == "json_kv"]
        lengths = sorted(part["length"].unique(), key=lambda s: int(s.rstrip("k")))
        colours = _length_colours(lengths)
        for length in lengths:
            line = part[part["length"] == length]
            right.plot(line["depth"], line["value"], marker="o", color=colours[length], label=length)
        right.set(title="HELMET JSON KV (Fig. 11), mean over models", xlabel="depth", ylabel="accuracy", ylim=(0, 1.02))
        right.legend(fontsize=7, loc="center left", bbox_to_anchor=(1.01, 0.5))
    fig.tight_layout()
    return fig


def length_curve(table: pd.DataFrame) -> plt.Figure:
    """Chance-corrected accuracy (averaged over depths) against length, per model, scoring and task; 95%
    cluster-bootstrap CIs over contexts where a point has >= 10 contexts (hollow markers: fewer, no CI)."""
    if table.empty:
        return plots.note_figure(NO_RUNS)
    tasks = sorted(table["task"].unique())
    fig, axes = plt.subplots(1, len(tasks), figsize=(3.6 * len(tasks), 3.4), squeeze=False, sharey=True)
    series = {key: k for k, key in enumerate(sorted(set(zip(table["model"], table["method"]))))}
    for ax, task in zip(axes[0], tasks):
        for (model, method), part in table[table["task"] == task].groupby(["model", "method"]):
            k = series[(model, method)]
            part = part.sort_values("length")
            y = part["chance_corrected"]
            ax.plot(part["length"], y, color=f"C{k}", lw=0.8)
            tested = part[part["ci_low"].notna()]
            ax.errorbar(tested["length"], tested["chance_corrected"], fmt="o", capsize=2, color=f"C{k}",
                        yerr=[tested.chance_corrected - tested.ci_low, tested.ci_high - tested.chance_corrected])
            untested = part[part["ci_low"].isna()]
            ax.scatter(untested["length"], untested["chance_corrected"], facecolors="none", edgecolors=f"C{k}")
        ax.axhline(0, color="grey", ls="--", lw=0.8)
        ax.set_xscale("log", base=2)
        ticks = sorted(table.loc[table["task"] == task, "length"].unique())  # every length run, as a plain number
        ax.set_xticks(ticks, [f"{t:,}" for t in ticks], minor=False)
        ax.xaxis.set_minor_locator(plt.NullLocator())
        ax.set(title=task, xlabel="context length (model tokens)", ylim=(-0.55, 1.05))
    axes[0][0].set_ylabel("chance-corrected accuracy\n(acc − chance) / (1 − chance)")
    handles = [plt.Line2D([], [], color=f"C{k}", marker="o", label=f"{model} · {method}") for (model, method), k in series.items()]
    fig.legend(handles=handles, loc="lower center", ncol=min(4, len(handles)), fontsize=7)
    fig.tight_layout(rect=(0, 0.06 * ((len(handles) + 3) // 4) + 0.02, 1, 1))
    return fig
