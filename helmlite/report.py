"""Rendering reports: executed notebook → self-contained HTML, and the ``reports/index.html`` landing page."""
from __future__ import annotations

import html
import os
from pathlib import Path

from ._io import write_text
from .catalog import Analysis


def notebook_to_html(notebook: str | os.PathLike, target: str | os.PathLike) -> Path:
    """nbconvert's HTML export (images are embedded as data URIs), written atomically."""
    import nbconvert
    import nbformat

    exporter = nbconvert.HTMLExporter(embed_images=True)
    body, _ = exporter.from_notebook_node(nbformat.read(str(notebook), as_version=4))
    return write_text(target, body)


def _link(target: str, base: Path) -> str:
    return html.escape(os.path.relpath(target, base))


def index_page(analyses: list[tuple[Analysis, dict]], target: str | os.PathLike) -> Path:
    """One page linking every report, figure and table, each with its one-line caption."""
    base = Path(target).parent
    parts = ["<!doctype html><html><head><meta charset='utf-8'><title>helmlite reports</title>",
             "<style>body{font-family:system-ui,sans-serif;max-width:60rem;margin:2rem auto;line-height:1.4}"
             "li{margin:.2rem 0}code{background:#f3f3f3}</style></head><body>",
             "<h1>helmlite — regenerated analyses</h1>",
             "<p>Each section is one notebook, executed by the Snakemake workflow. Open the report first; "
             "figures come as PNG and PDF, tables as CSV.</p>"]
    for analysis, files in analyses:
        parts.append(f"<h2>{html.escape(analysis.title)}</h2><p><em>{html.escape(analysis.paper)}</em> — "
                     f"<a href='{_link(files['html'], base)}'>report</a> · "
                     f"<a href='{_link(files['notebook'], base)}'>executed notebook</a> · "
                     f"<a href='{_link(files['manifest'], base)}'>provenance manifest</a></p><h3>Figures</h3><ul>")
        for name, caption in analysis.figures.items():
            png = next(f for f in files["figures"] if f.endswith(f"/{name}.png"))
            parts.append(f"<li><a href='{_link(png, base)}'>{name}.png</a> "
                         f"(<a href='{_link(png[:-4] + '.pdf', base)}'>pdf</a>) — {html.escape(caption)}</li>")
        parts.append("</ul><h3>Tables</h3><ul>")
        for kind, tables in (("tables", analysis.tables), ("measured", analysis.measured)):
            if kind == "measured" and tables:
                parts.append("</ul><h3>Measurements (wall clock on the machine that ran the workflow)</h3><ul>")
            for name, caption in tables.items():
                csv = next(f for f in files[kind] if f.endswith(f"/{name}.csv"))
                parts.append(f"<li><a href='{_link(csv, base)}'>{name}.csv</a> — {html.escape(caption)}</li>")
        parts.append("</ul>")
    parts.append("</body></html>\n")
    return write_text(target, "\n".join(parts))
