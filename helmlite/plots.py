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


def save(fig: plt.Figure, name: str, outdir: str | os.PathLike = "figures") -> list[Path]:
    """Write ``fig`` as ``<outdir>/<name>.png`` and ``.pdf`` (atomic, metadata-free); return the paths. A figure with an
    empty panel is refused (:class:`DataError` naming the figure and the panel): draw no panel there, or say why in it
    (:func:`note_panel`)."""
    empty = empty_panels(fig)
    if empty:
        raise DataError(f"figure {name}: panel {', '.join(repr(t) for t in empty)} has nothing drawn and no note: "
                        "drop the panel or say in it why its data are absent (helmlite.plots.note_panel)")
    paths = []
    for ext, metadata in (("png", _PNG_METADATA), ("pdf", _PDF_METADATA)):
        target = Path(outdir) / f"{name}.{ext}"
        with atomic_path(target) as tmp:
            fig.savefig(tmp, format=ext, metadata=metadata)
        paths.append(target)
    _show(paths[0])
    return paths


def _show(png: Path) -> None:
    """Display the written PNG as the cell's output when running in a notebook kernel (a no-op elsewhere)."""
    try:
        from IPython import get_ipython
    except ImportError:
        return
    shell = get_ipython()
    if shell is None or getattr(shell, "kernel", None) is None:
        return
    from IPython.display import Image, display

    data = png.read_bytes()
    display(Image(data=data, format="png", width=display_width(data)))


def display_width(png: bytes, screen_dpi: int = 100) -> int:
    """The width in CSS pixels at which a PNG written at :data:`DPI` shows at its size on paper (``screen_dpi`` pixels
    an inch): the width in its IHDR header (bytes 16–20, PNG specification §11.2.2) scaled by screen_dpi / DPI."""
    return round(int.from_bytes(png[16:20], "big") * screen_dpi / DPI)
