"""Executed notebook → one page of the site: nbconvert's ``lab`` HTML export through helmlite's template
(``templates/helmlite_report``), with images embedded, so a report is one self-contained file.

What the template and :class:`ReportOrder` change, and nothing else (cell tags, as Jupyter Book and Quarto use them):

* the cell tagged ``summary`` ("What this run shows", :mod:`helmlite.report.summary`) comes right after the first
  cell (the title and the question), although the notebook computes it last;
* every cell's code is folded (a ``<details>`` one click away); outputs stay shown;
* cells tagged ``methods`` (method notes and departures from the paper, at the notebook's end) are folded, a fold
  per heading (its title is the summary line; the code and tables that follow a heading fold with it);
* a table of contents of the section headings follows the summary (:mod:`helmlite.report.navigation`);
* the site's header (navigation and the run's facts) and footer (previous / next) frame the page;
* each captioned figure (:func:`helmlite.plots.save`'s caption) is numbered in page order, "Figure N." and its
  caption under it, the same words as its alt text;
* stderr streams (warnings, download messages) are left out: papermill writes them to the job's log, the executed
  notebook keeps them, and ``make e2e`` fails on any (:func:`helmlite.report.check_reports`);
* no script is loaded: nbconvert's default head loads RequireJS, MathJax and Mermaid from a CDN, which fails
  offline (the notebooks use none of them).
"""
from __future__ import annotations

import os
from pathlib import Path

from nbconvert.preprocessors import Preprocessor

from .._io import write_text
from ..plots import FIGURE_METADATA
from . import site
from .navigation import add_table_of_contents

TEMPLATE_DIR = Path(__file__).with_name("templates")
TEMPLATE = "helmlite_report"


def _tags(cell) -> list[str]:
    return list(cell.get("metadata", {}).get("tags", []))


def fold_title(cell) -> str | None:
    """The first Markdown heading of a cell, without the #s (None for a code cell or a cell without one)."""
    if cell.cell_type != "markdown":
        return None
    for line in cell.source.splitlines():
        if line.lstrip().startswith("#"):
            return line.lstrip("# ").strip()
    return None


class ReportOrder(Preprocessor):
    """Move the ``summary`` cells after the first cell; fold the ``methods`` cells: a run of them opens a fold at each
    cell with a heading (its title) and closes it before the next heading or the first cell without the tag."""

    def preprocess(self, nb, resources):
        summary = [cell for cell in nb.cells if "summary" in _tags(cell)]
        rest = [cell for cell in nb.cells if "summary" not in _tags(cell)]
        nb.cells = rest[:1] + summary + rest[1:]
        open_fold = None
        for cell in nb.cells:
            methods, title = "methods" in _tags(cell), fold_title(cell)
            if open_fold is not None and (not methods or title is not None):
                open_fold.metadata["helmlite_fold_close"] = True
                open_fold = None
            if methods:
                if open_fold is None:
                    cell.metadata["helmlite_fold_open"] = title or "Methods"
                open_fold = cell
        if open_fold is not None:
            open_fold.metadata["helmlite_fold_close"] = True
        number_figures(nb)
        return nb, resources


def number_figures(nb) -> int:
    """Number the captioned figures (:data:`helmlite.plots.FIGURE_METADATA`) in the order the page shows them (after
    :class:`ReportOrder` moved the summary up); returns how many. A figure shown again (the summary's headline, then
    in its own section) keeps its first number, marked ``repeated``."""
    numbers: dict[str, int] = {}
    for cell in nb.cells:
        for output in cell.get("outputs", []):
            figure = output.get("metadata", {}).get(FIGURE_METADATA)
            if "image/png" not in output.get("data", {}) or not figure:
                continue
            name = figure.get("name") or f"unnamed-{len(numbers)}"
            figure["repeated"] = name in numbers
            figure["number"] = numbers.setdefault(name, len(numbers) + 1)
    return len(numbers)


def notebook_to_html(notebook: str | os.PathLike, target: str | os.PathLike, site_pages: list[site.Page] | None = None,
                     facts: site.RunFacts | None = None, links: dict[str, str] | None = None) -> Path:
    """Render ``notebook`` as ``target`` (atomically). With ``site_pages`` and ``facts`` the page carries the site's
    header and footer (``target``'s file name is the current page; ``links``, label → href relative to it, are the
    page's own: its executed notebook and manifest); without them, the report alone."""
    import nbconvert
    import nbformat

    exporter = nbconvert.HTMLExporter(embed_images=True, template_name=TEMPLATE, extra_template_basedirs=[str(TEMPLATE_DIR)],
                                      exclude_input_prompt=True, exclude_output_prompt=True)
    exporter.register_preprocessor(ReportOrder(), enabled=True)
    current = Path(target).name
    chrome = {"css": site.style(), "header": "", "footer": ""}
    if site_pages is not None and facts is not None:
        chrome.update(header=site.header_html(site_pages, current, facts, links), footer=site.footer_html(site_pages, current))
    body, _ = exporter.from_notebook_node(nbformat.read(str(notebook), as_version=4), resources={"helmlite": chrome})
    return write_text(target, add_table_of_contents(body))
