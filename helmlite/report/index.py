"""``reports/index.html``, the site's landing page: what the run decided first (every decided claim of every
analysis, each linking to its row in its report, and every analysis's claim and reproduction-check verdicts counted,
with its undecided claims folded beneath, each linking to its row too),
then per analysis its report, a readable thumbnail per figure (each opens the full PNG; the PDF beside it) and its
tables."""
from __future__ import annotations

import html
import json
import os
from pathlib import Path

from .._io import write_text
from ..plots import display_width
from ..catalog import Analysis
from ..claims.reproduction import VERDICTS as REPRODUCTION_VERDICTS
from . import site
from .summary import claim_anchor, estimate_text


def _link(target: str, base: Path) -> str:
    return html.escape(os.path.relpath(target, base))


def _named_table(analysis: Analysis, files: dict, suffix: str) -> str | None:
    """The analysis's table ``<key>_<suffix>.csv`` (its claims or reproduction check), if the catalog lists it and the
    run wrote it."""
    found = [f for f in files["tables"] if Path(f).stem == f"{analysis.key}_{suffix}" and Path(f).stem in analysis.tables]
    return found[0] if found and Path(found[0]).is_file() else None


def _counts(table, verdicts: tuple[str, ...]) -> str:
    counts = table["verdict"].value_counts()
    return ", ".join(f"{int(counts[v])} {v}" for v in verdicts if counts.get(v, 0))


def _decided(analyses: list[tuple[Analysis, dict]], base: Path) -> list[str]:
    """The "what this run decided" section: each claims table's supported / contradicted rows, each linking to its row
    in the report (:func:`helmlite.report.summary.claim_anchor`), then per analysis its claims' verdicts and its
    reproduction check's, counted."""
    import pandas as pd

    rows, counts = [], []
    for analysis, files in analyses:
        page = _link(files["html"], base)
        report = f"<a href='{page}'>{html.escape(analysis.title)}</a>"
        facts, folded = [], ""
        if (claims_csv := _named_table(analysis, files, "claims")) is not None:
            table = pd.read_csv(claims_csv)
            facts.append(f"claims (<a href='{_link(claims_csv, base)}'>{html.escape(Path(claims_csv).name)}</a>): "
                         f"{_counts(table, ('supported', 'contradicted', 'inconclusive', 'exploratory')) or 'none'} of {len(table)}")
            decided = table["verdict"].isin(["supported", "contradicted"])
            for row in table[decided].itertuples():
                rows.append(f"<tr><td class='hl-verdict-{html.escape(row.verdict)}'>{html.escape(row.verdict)}</td>"
                            f"<td><a href='{page}#{claim_anchor(row.claim)}'>{html.escape(str(row.claim))}</a></td>"
                            f"<td>{estimate_text(row)}, n&nbsp;=&nbsp;{row.n}</td><td>{report}</td></tr>")
            if (~decided).any():
                folded = _undecided(table[~decided], page)
        if (reproduction_csv := _named_table(analysis, files, "reproduction")) is not None:
            table = pd.read_csv(reproduction_csv)
            facts.append(f"reproduction check (<a href='{_link(reproduction_csv, base)}'>{html.escape(Path(reproduction_csv).name)}</a>): "
                         f"{_counts(table, REPRODUCTION_VERDICTS) or 'no row'} of {len(table)}")
        simulated = " (simulated data)" if _simulated_tag(files["manifest"]) else ""
        counts.append(f"<li>{report}{simulated}: "
                      + ("; ".join(facts) if facts else "no claims, no reproduction check") + folded + "</li>")
    table = ("<table class='hl-decided'><thead><tr><th>verdict</th><th>claim</th><th>estimate [95% CI]</th>"
             "<th>report</th></tr></thead><tbody>" + "".join(rows) + "</tbody></table>") if rows else \
        "<p>No claim was decided in this run.</p>"
    return ["<h2>What this run decided</h2>", table, f"<ul>{''.join(counts)}</ul>",
            "<p>Inconclusive claims name their minimum detectable effect and the n needed in each report's "
            "\"What this run shows\" table and power table; exploratory claims are those a config did not declare "
            "primary.</p>"]


def _undecided(claims, page: str) -> str:
    """The claims a run did not decide (inconclusive, exploratory), folded: each with its verdict and estimate, linking
    to its row in the report."""
    items = "".join(f"<li><span class='hl-verdict-{html.escape(row.verdict)}'>{html.escape(row.verdict)}</span> — "
                    f"<a href='{page}#{claim_anchor(row.claim)}'>{html.escape(str(row.claim))}</a>: "
                    f"{estimate_text(row)}, n&nbsp;=&nbsp;{row.n}</li>" for row in claims.itertuples())
    return (f"<details class='hl-undecided'><summary>the {len(claims)} claim{'s' if len(claims) != 1 else ''} not decided, "
            f"each linking to its row</summary><ul>{items}</ul></details>")


def _simulated_tag(manifest: str | os.PathLike) -> str:
    """"<strong>SIMULATED data</strong> — " when the analysis's provenance manifest says its input was simulated
    (``parameters.source``, as notebook 05 records it), else ""."""
    try:
        parameters = json.loads(Path(manifest).read_text(encoding="utf-8")).get("parameters", {})
    except (OSError, ValueError):
        return ""
    return "<strong>SIMULATED data</strong> — " if parameters.get("source") == "simulated" else ""


def _figures(analysis: Analysis, files: dict, base: Path, tag: str) -> list[str]:
    parts = ["<h3>Figures</h3><div class='hl-figures'>"]
    for name, caption in analysis.figures.items():
        png = next(f for f in files["figures"] if f.endswith(f"/{name}.png"))
        wide = " class='hl-wide'" if _shown_width(png) > WIDE_PX else ""
        parts.append(f"<figure{wide}><a href='{_link(png, base)}'><img src='{_link(png, base)}' alt='{html.escape(caption, quote=True)}'></a><figcaption><b><a href='{_link(png, base)}'>{html.escape(name)}.png</a> "
                     f"(<a href='{_link(png[:-4] + '.pdf', base)}'>pdf</a>)</b>{'' if name in analysis.fixed else tag}"
                     f"{html.escape(caption)}</figcaption>"
                     f"</figure>")
    parts.append("</div>")
    return parts


#: A figure shown wider than this (CSS pixels, at its size on paper) gets two columns of the index's grid: a
#: 3-column thumbnail of a wide heatmap is unreadable.
WIDE_PX = 1000


def _shown_width(png: str) -> int:
    try:
        with open(png, "rb") as handle:
            return display_width(handle.read(24))
    except OSError:
        return 0


def _tables(analysis: Analysis, files: dict, base: Path, tag: str) -> list[str]:
    parts = ["<h3>Tables</h3><ul class='hl-tables'>"]
    for kind, tables in (("tables", analysis.tables), ("measured", analysis.measured)):
        if kind == "measured" and tables:
            parts.append("</ul><h3>Measurements (wall clock on the machine that ran the workflow)</h3><ul class='hl-tables'>")
        for name, caption in tables.items():
            csv = next(f for f in files[kind] if f.endswith(f"/{name}.csv"))
            shown = "" if name in analysis.fixed else tag
            parts.append(f"<li><a href='{_link(csv, base)}'>{html.escape(name)}.csv</a> — {shown}{html.escape(caption)}</li>")
    parts.append("</ul>")
    return parts


def index_page(analyses: list[tuple[Analysis, dict]], target: str | os.PathLike, site_pages: list[site.Page] | None = None,
               facts: site.RunFacts | None = None) -> Path:
    """The landing page; with ``site_pages`` and ``facts``, framed by the site's header and footer."""
    base = Path(target).parent
    parts = ["<!doctype html><html lang='en'><head><meta charset='utf-8'>",
             "<meta name='viewport' content='width=device-width, initial-scale=1'><title>helmlite reports</title>",
             "<link rel='icon' href='data:,'>",  # no favicon request: a 404 in the console on a web server
             f"<style>{site.style()}</style></head><body class='hl-index'>"]
    if site_pages is not None and facts is not None:
        parts.append(site.header_html(site_pages, site.INDEX, facts))
    parts += ["<main><h1>helmlite — regenerated analyses</h1>",
              "<p>Each section below is one notebook, executed by the Snakemake workflow: open its report for the "
              "question, the verdicts and the figures; figures come as PNG and PDF, tables as CSV.</p>"]
    parts += _decided(analyses, base)
    for analysis, files in analyses:
        tag = _simulated_tag(files["manifest"])
        parts.append(f"<h2>{html.escape(analysis.title)}</h2><p><em>{html.escape(analysis.paper)}</em> — "
                     f"<a href='{_link(files['html'], base)}'><b>report</b></a> · "
                     f"<a href='{_link(files['notebook'], base)}'>executed notebook</a> · "
                     f"<a href='{_link(files['manifest'], base)}'>provenance manifest</a></p>")
        parts += _figures(analysis, files, base, tag) + _tables(analysis, files, base, tag)
    parts.append("</main>")
    if site_pages is not None:
        parts.append(site.footer_html(site_pages, site.INDEX))
    parts.append("</body></html>\n")
    return write_text(target, "\n".join(parts))
