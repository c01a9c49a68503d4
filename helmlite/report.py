"""Rendering reports: executed notebook → self-contained HTML, and the ``reports/index.html`` landing page
(what the run decided first — every decided claim and how many are inconclusive — then, per analysis,
its report, a thumbnail per figure and its tables)."""
from __future__ import annotations

import html
import json
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


def figures_shown(notebook: str | os.PathLike) -> int:
    """How many PNG images an executed notebook's outputs hold (what its HTML report will show)."""
    import nbformat

    cells = nbformat.read(str(notebook), as_version=4).cells
    return sum("image/png" in output.get("data", {}) for cell in cells for output in cell.get("outputs", []))


def _claims_tables(analysis: Analysis, files: dict) -> list[str]:
    return [f for f in files["tables"] if Path(f).stem.endswith("_claims") and Path(f).stem in analysis.tables]


def _decided(analyses: list[tuple[Analysis, dict]]) -> list[str]:
    """The "what this run decided" section: each claims table's supported / contradicted rows, and the count
    of inconclusive ones (with the reason a reader should look at the power table)."""
    import pandas as pd

    parts = ["<h2>What this run decided</h2><ul>"]
    for analysis, files in analyses:
        for path in _claims_tables(analysis, files):
            if not Path(path).is_file():
                continue
            table = pd.read_csv(path)
            decided = table[table["verdict"].isin(["supported", "contradicted"])]
            parts.append(f"<li><strong>{html.escape(analysis.title)}</strong> ({html.escape(Path(path).name)}): "
                         f"{len(decided)} decided, {int((table['verdict'] == 'inconclusive').sum())} inconclusive "
                         f"of {len(table)} claims<ul>")
            for row in decided.itertuples():
                parts.append(f"<li><em>{html.escape(row.verdict)}</em>: {html.escape(str(row.claim))} — "
                             f"{row.estimate:.3g} [{row.ci_low:.3g}, {row.ci_high:.3g}], n = {row.n}</li>")
            parts.append("</ul></li>")
    parts.append("</ul><p>Inconclusive claims name their minimum detectable effect and the n needed in the "
                 "claims table's evidence and in each notebook's power table.</p>")
    return parts


def _simulated_tag(manifest: str | os.PathLike) -> str:
    """"<strong>SIMULATED data</strong> — " when the analysis's provenance manifest says its input was simulated
    (``parameters.source``, as notebook 05 records it), else ""."""
    try:
        parameters = json.loads(Path(manifest).read_text(encoding="utf-8")).get("parameters", {})
    except (OSError, ValueError):
        return ""
    return "<strong>SIMULATED data</strong> — " if parameters.get("source") == "simulated" else ""


def index_page(analyses: list[tuple[Analysis, dict]], target: str | os.PathLike) -> Path:
    """One page linking every report, figure and table, each with its one-line caption."""
    base = Path(target).parent
    parts = ["<!doctype html><html><head><meta charset='utf-8'><title>helmlite reports</title>",
             "<style>body{font-family:system-ui,sans-serif;max-width:60rem;margin:2rem auto;line-height:1.4}"
             "li{margin:.2rem 0}code{background:#f3f3f3}figure{display:inline-block;width:15rem;margin:.4rem;"
             "vertical-align:top;font-size:.85rem}figure img{width:100%;border:1px solid #ddd}</style></head><body>",
             "<h1>helmlite — regenerated analyses</h1>",
             "<p>Each section is one notebook, executed by the Snakemake workflow. Open the report first; "
             "figures come as PNG and PDF, tables as CSV.</p>"] + _decided(analyses)
    for analysis, files in analyses:
        tag = _simulated_tag(files["manifest"])
        parts.append(f"<h2>{html.escape(analysis.title)}</h2><p><em>{html.escape(analysis.paper)}</em> — "
                     f"<a href='{_link(files['html'], base)}'>report</a> · "
                     f"<a href='{_link(files['notebook'], base)}'>executed notebook</a> · "
                     f"<a href='{_link(files['manifest'], base)}'>provenance manifest</a></p><h3>Figures</h3>")
        for name, caption in analysis.figures.items():
            png = next(f for f in files["figures"] if f.endswith(f"/{name}.png"))
            parts.append(f"<figure><a href='{_link(png, base)}'><img src='{_link(png, base)}' alt='{name}' "
                         f"loading='lazy'></a><figcaption><a href='{_link(png, base)}'>{name}.png</a> "
                         f"(<a href='{_link(png[:-4] + '.pdf', base)}'>pdf</a>) — {tag}{html.escape(caption)}</figcaption>"
                         f"</figure>")
        parts.append("<h3>Tables</h3><ul>")
        for kind, tables in (("tables", analysis.tables), ("measured", analysis.measured)):
            if kind == "measured" and tables:
                parts.append("</ul><h3>Measurements (wall clock on the machine that ran the workflow)</h3><ul>")
            for name, caption in tables.items():
                csv = next(f for f in files[kind] if f.endswith(f"/{name}.csv"))
                parts.append(f"<li><a href='{_link(csv, base)}'>{name}.csv</a> — {tag}{html.escape(caption)}</li>")
        parts.append("</ul>")
    parts.append("</body></html>\n")
    return write_text(target, "\n".join(parts))


def check_figures_shown(config_path: str | os.PathLike) -> None:
    """Fail unless every executed notebook of the config's workflow shows each of its catalogued figures:
    its image outputs equal the catalog's figure count (run after the workflow, e.g. by ``make e2e``)."""
    from . import workflow
    from .errors import DataError

    config = workflow.load_config(config_path)
    problems = []
    for analysis in workflow.enabled(config):
        notebook = workflow.outputs(config, analysis)["notebook"]
        shown = figures_shown(notebook)
        print(f"{notebook}: {shown} figures shown, {len(analysis.figures)} catalogued")
        if shown != len(analysis.figures):
            problems.append(f"{notebook} shows {shown} figures, the catalog lists {len(analysis.figures)}")
    if problems:
        raise DataError("; ".join(problems))
