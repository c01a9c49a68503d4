"""One figure style for every notebook, and ``save(fig, name)`` → ``figures/<name>.png`` and ``.pdf``.

Files are written atomically and without timestamps or software-version metadata, so the same
figure drawn twice gives the same bytes. Inside a notebook (an IPython kernel) ``save`` also shows the
PNG it wrote as the cell's output, so the executed notebook and its HTML report carry every figure.
"""
from __future__ import annotations

import os
import textwrap
from pathlib import Path

import matplotlib
import numpy as np

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import seaborn as sns  # noqa: E402

from ._io import atomic_path  # noqa: E402
from .errors import DataError  # noqa: E402

_PNG_METADATA = {"Software": None}
_PDF_METADATA = {"Creator": None, "Producer": None, "CreationDate": None}
DPI = 150


def use_style() -> None:
    """Apply the project style: seaborn whitegrid, colour-blind palette, readable sizes."""
    sns.set_theme(context="notebook", style="whitegrid", palette="colorblind", font_scale=0.95)
    plt.rcParams.update({
        "figure.dpi": 100, "savefig.dpi": DPI, "savefig.bbox": "tight", "axes.titleweight": "bold",
        "axes.titlesize": 11, "figure.titlesize": 12, "pdf.fonttype": 42, "svg.hashsalt": "helmlite",
    })


#: The ``gid`` of an artist drawn for reference, not as data (a diagonal, a chance level in data coordinates): a panel
#: with nothing else is empty. Lines spanning the axes (``axhline``, ``axvspan``) are references without it.
REFERENCE = "reference"


def _finite(values) -> bool:
    """Whether ``values`` hold at least one finite, unmasked number."""
    return np.ma.masked_invalid(np.ma.asarray(values, dtype=float)).count() > 0


def _shows_data(ax: plt.Axes) -> bool:
    """Whether ``ax`` draws data: a line, marker, bar, area, mesh or image with a finite value, placed in data
    coordinates and not marked as a :data:`REFERENCE`."""
    from matplotlib.collections import PathCollection, QuadMesh

    def placed(artist, transform) -> bool:
        return artist.get_gid() != REFERENCE and transform.contains_branch(ax.transData)

    if any(placed(line, line.get_transform()) and _finite(line.get_xydata()) for line in ax.lines):
        return True
    for collection in ax.collections:
        if isinstance(collection, QuadMesh):  # a heatmap: its cells' values
            shown = collection.get_array() is not None and _finite(collection.get_array())
        elif isinstance(collection, PathCollection):  # markers: their positions
            shown = placed(collection, collection.get_offset_transform()) and _finite(collection.get_offsets())
        else:  # error bars, areas: their vertices
            shown = placed(collection, collection.get_transform()) and any(
                len(path.vertices) and _finite(path.vertices) for path in collection.get_paths())
        if shown:
            return True
    if any(placed(patch, patch.get_transform()) for patch in ax.patches):
        return True
    return any(_finite(image.get_array()) for image in ax.images)


def empty_panels(fig: plt.Figure) -> list[str]:
    """The visible axes of ``fig`` that show no data (:func:`_shows_data`: reference lines and empty or all-NaN artists
    do not count) and hold no text note or table, by title (or position)."""
    return [ax.get_title() or f"panel {k + 1}" for k, ax in enumerate(fig.axes)
            if ax.get_visible() and ax.axison and not _shows_data(ax) and not ax.texts and not ax.tables]


def note_panel(ax: plt.Axes, note: str) -> None:
    """Say in ``ax`` why it has no data (e.g. "no fairness perturbation in this config"), instead of an empty frame."""
    wrapped = "\n".join(textwrap.fill(line, 60) for line in note.splitlines())  # the note's own breaks kept
    ax.text(0.5, 0.5, wrapped, ha="center", va="center", fontsize=9, color="0.35", transform=ax.transAxes)
    ax.set(xticks=[], yticks=[])


def note_figure(note: str, title: str = "", size: tuple[float, float] = (6, 2.5)) -> plt.Figure:
    """A figure that only says why its data are absent (no runs of that kind, mirror-only values not found)."""
    fig, ax = plt.subplots(figsize=size)
    note_panel(ax, note)
    ax.set_title(title)
    return fig


#: The smallest text a saved figure may carry — tick labels, annotations, legends — in points at the size it is read
#: at: a figure wider than :data:`PAGE_WIDTH_IN` (a printed page's text width, the widest a report shows it) is
#: shrunk to it, and its text with it.
MIN_TEXT_PT = 6.0
PAGE_WIDTH_IN = 7.0


def small_text(fig: plt.Figure) -> list[str]:
    """The visible texts of ``fig`` (tick labels, annotations, legend entries, titles) smaller than
    :data:`MIN_TEXT_PT` once the figure is shown at most :data:`PAGE_WIDTH_IN` wide, each as "'text' (N.N pt)"."""
    fig.canvas.draw()  # tick labels exist once drawn
    scale = min(1.0, PAGE_WIDTH_IN / fig.get_figwidth())
    texts = list(fig.texts)
    for ax in fig.axes:
        if not ax.get_visible():
            continue
        texts += ax.texts + ax.get_xticklabels() + ax.get_yticklabels() + [ax.title, ax.xaxis.label, ax.yaxis.label]
        legend = ax.get_legend()
        texts += legend.get_texts() if legend is not None else []
    small = {f"{t.get_text().strip()[:30]!r} ({t.get_fontsize() * scale:.1f} pt)" for t in texts
             if t.get_visible() and t.get_text().strip() and t.get_fontsize() * scale < MIN_TEXT_PT}
    return sorted(small)


def save(fig: plt.Figure, name: str, outdir: str | os.PathLike = "figures", caption: str | None = None,
         show: bool = True) -> list[Path]:
    """Write ``fig`` as ``<outdir>/<name>.png`` and ``.pdf`` (atomic, metadata-free); return the paths. A figure with an
    empty panel is refused (:class:`DataError` naming the figure and the panel): draw no panel there, or say why in it
    (:func:`note_panel`); so is one with text too small to read (:func:`small_text`). In a notebook the PNG is shown
    (``show``) with ``caption`` as its caption and alt text (the report numbers it: :mod:`helmlite.report.render`)."""
    empty = empty_panels(fig)
    if empty:
        raise DataError(f"figure {name}: panel {', '.join(repr(t) for t in empty)} has nothing drawn and no note: "
                        "drop the panel or say in it why its data are absent (helmlite.plots.note_panel)")
    small = small_text(fig)
    if small:
        raise DataError(f"figure {name}: {len(small)} text(s) below {MIN_TEXT_PT:g} pt at page width "
                        f"({PAGE_WIDTH_IN:g} in), e.g. {', '.join(small[:3])}: enlarge the font or narrow the figure")
    paths = []
    for ext, metadata in (("png", _PNG_METADATA), ("pdf", _PDF_METADATA)):
        target = Path(outdir) / f"{name}.{ext}"
        with atomic_path(target) as tmp:
            fig.savefig(tmp, format=ext, metadata=metadata)
        paths.append(target)
    if show:
        _show(paths[0], caption)
    return paths


#: The display metadata key under which a shown figure carries its caption and name ({"caption": …, "name": …}); the
#: report renders the caption as the figure's caption and alt text, and numbers a figure shown twice (the headline in
#: the summary and in its section) once.
FIGURE_METADATA = "helmlite_figure"


def _show(png: Path, caption: str | None = None) -> None:
    """Display the written PNG (with its caption, :data:`FIGURE_METADATA`) as the cell's output when running in a
    notebook kernel (a no-op elsewhere)."""
    try:
        from IPython import get_ipython
    except ImportError:
        return
    shell = get_ipython()
    if shell is None or getattr(shell, "kernel", None) is None:
        return
    from IPython.display import Image, display

    data = png.read_bytes()
    display(Image(data=data, format="png", width=display_width(data)),
            metadata={FIGURE_METADATA: {"caption": caption, "name": png.stem}} if caption else None)


def display_width(png: bytes, screen_dpi: int = 100) -> int:
    """The width in CSS pixels at which a PNG written at :data:`DPI` shows at its size on paper (``screen_dpi`` pixels
    an inch): the width in its IHDR header (bytes 16–20, PNG specification §11.2.2) scaled by screen_dpi / DPI."""
    return round(int.from_bytes(png[16:20], "big") * screen_dpi / DPI)


def annotate_points(ax: plt.Axes, xs, ys, labels, fontsize: float = 7, colors=None, line_pt: float | None = None) -> None:
    """Label points without stacking labels on one another: each label sits just above-right of its point, and one
    whose spot another label already takes (within a label's width and a line) moves up a line until it is free —
    a greedy placement in display space, enough for the tens of points a report labels. ``colors``: one per label."""
    line = line_pt or fontsize * 1.3
    ax.autoscale_view()  # the positions below are read through the axes' current limits
    scale = ax.figure.dpi / 72  # points → display pixels
    taken: list[tuple[float, float, float]] = []  # x, y (pixels) and width of each placed label
    colors = list(colors) if colors is not None else [None] * len(list(labels))
    for x, y, text, color in sorted(zip(xs, ys, labels, colors), key=lambda p: (p[1], p[0])):
        px, py = ax.transData.transform((x, y))
        width = 0.6 * fontsize * len(str(text)) * scale
        shift = 0.0
        while any(abs(px - tx) < max(width, tw) and abs(py + shift - ty) < line * scale for tx, ty, tw in taken):
            shift += line * scale
        taken.append((px, py + shift, width))
        ax.annotate(str(text), (x, y), xytext=(3, 2 + shift / scale), textcoords="offset points", fontsize=fontsize,
                    color=color)
