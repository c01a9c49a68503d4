"""Figures of notebook 04 (lost in the middle)."""
from __future__ import annotations

import matplotlib.pyplot as plt
import pandas as pd


def live_curves(curves: pd.DataFrame) -> plt.Figure:
    """Accuracy vs depth, one line per length, panels = task × (model, scoring), with 95% CIs."""
    curves = curves.assign(column=curves["model"] + "\n" + curves["method"])
    tasks, columns = sorted(curves["task"].unique()), sorted(curves["column"].unique())
    fig, axes = plt.subplots(len(tasks), len(columns), figsize=(3.0 * len(columns), 2.5 * len(tasks)), squeeze=False,
                             sharex=True, sharey=True)
    lengths = sorted(curves["length"].unique())
    colours = {length: plt.cm.viridis(k / max(1, len(lengths) - 1)) for k, length in enumerate(lengths)}
    for i, task in enumerate(tasks):
        for j, column in enumerate(columns):
            ax = axes[i][j]
            part = curves[(curves["task"] == task) & (curves["column"] == column)]
            for length, line in part.groupby("length"):
                ax.errorbar(line["depth"], line["accuracy"], yerr=[line.accuracy - line.ci_low, line.ci_high - line.accuracy],
                            marker="o", ms=3, capsize=2, color=colours[length], label=f"{length} tok")
            if i == 0:
                ax.set_title(column, fontsize=8)
            if j == 0:
                ax.set_ylabel(f"{task}\naccuracy", fontsize=8)
            ax.set_ylim(-0.05, 1.05)
    for ax in axes[-1]:
        ax.set_xlabel("depth of the target (0 = start)")
    handles = [plt.Line2D([], [], color=colours[length], marker="o", ms=3, label=f"{length} tokens") for length in lengths]
    fig.legend(handles=handles, loc="upper right", ncol=len(lengths), fontsize=8, title="context length", title_fontsize=8)
    fig.suptitle("Live depth sweeps (95% bootstrap CIs over contexts)", x=0.02, ha="left")
    fig.tight_layout(rect=(0, 0, 1, 0.97))
    return fig


def u_shape(table: pd.DataFrame) -> plt.Figure:
    """Primacy vs recency per curve with CIs; the upper-right quadrant (both > 0) is lost-in-the-middle."""
    fig, ax = plt.subplots(figsize=(6.5, 5.5))
    for k, (method, part) in enumerate(table.groupby("method")):
        ax.errorbar(part["primacy"], part["recency"], fmt="o", color=f"C{k}", alpha=0.8, label=method,
                    xerr=[part.primacy - part.primacy_ci_low, part.primacy_ci_high - part.primacy],
                    yerr=[part.recency - part.recency_ci_low, part.recency_ci_high - part.recency])
    ax.axhline(0, color="grey", lw=0.8)
    ax.axvline(0, color="grey", lw=0.8)
    ax.set(xlabel="primacy = acc(start) − acc(middle)", ylabel="recency = acc(end) − acc(middle)",
           title="U-shape test: both CIs above 0 = lost in the middle")
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig


def published(litm: pd.DataFrame | None, helmet: pd.DataFrame | None) -> plt.Figure:
    """The published curves: LitM multi-document QA (Tables 5–7) and HELMET JSON KV by length (Fig. 11)."""
    fig, (left, right) = plt.subplots(1, 2, figsize=(12, 4.4))
    if litm is None:
        left.text(0.5, 0.5, "Lost in the Middle tables are mirror-only\nand were not found.", ha="center", va="center",
                  transform=left.transAxes)
    else:
        for k, ((docs, model), part) in enumerate(litm[litm["num_docs"] == 20].groupby(["num_docs", "model"])):
            left.plot(part["depth"], part["accuracy"], marker="o", label=model, color=plt.cm.tab10(k % 10))
        left.set(title="Lost in the Middle, 20 documents (Table 6)", xlabel="depth of the gold document", ylabel="accuracy")
        left.legend(fontsize=6)
    if helmet is None:
        right.text(0.5, 0.5, "HELMET Figs. 11–14 values are mirror-only\nand were not found.", ha="center", va="center",
                   transform=right.transAxes)
    else:
        mean = helmet.groupby(["dataset", "length", "depth"], as_index=False)["value"].mean()
        part = mean[mean["dataset"] == "json_kv"]
        lengths = sorted(part["length"].unique(), key=lambda s: int(s.rstrip("k")))
        for k, length in enumerate(lengths):
            line = part[part["length"] == length]
            right.plot(line["depth"], line["value"], marker="o", color=plt.cm.viridis(k / max(1, len(lengths) - 1)), label=length)
        right.set(title="HELMET JSON KV (Fig. 11), mean over models", xlabel="depth", ylabel="accuracy", ylim=(0, 1.02))
        right.legend(fontsize=7)
    fig.tight_layout()
    return fig


def length_curve(table: pd.DataFrame) -> plt.Figure:
    """Accuracy averaged over depth against length, per model and task."""
    tasks = sorted(table["task"].unique())
    fig, axes = plt.subplots(1, len(tasks), figsize=(3.6 * len(tasks), 3.4), squeeze=False, sharey=True)
    for ax, task in zip(axes[0], tasks):
        for k, ((model, method), part) in enumerate(table[table["task"] == task].groupby(["model", "method"])):
            ax.errorbar(part["length"], part["accuracy"], yerr=[part.accuracy - part.ci_low, part.ci_high - part.accuracy],
                        marker="o", capsize=2, label=f"{model} · {method}", color=f"C{k}")
        ax.set_xscale("log", base=2)
        ax.set(title=task, xlabel="context length (model tokens)", ylim=(-0.05, 1.05))
    axes[0][0].set_ylabel("accuracy (mean over depths)")
    axes[0][-1].legend(fontsize=6)
    fig.tight_layout()
    return fig
