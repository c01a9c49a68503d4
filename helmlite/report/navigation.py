"""Finding things in a report: a table of contents of its section headings, placed right after "What this run shows"
(the verdicts and the headline figure stay first), each entry linking to its heading's anchor; and a one-line scope
of the live runs a report analyses (:func:`run_scope`), for the summary to state up front."""
from __future__ import annotations

import html
import re
from collections import Counter


def _anchor(text: str, taken: set[str]) -> str:
    """An id for a heading without one: its words joined by "-", made unique on the page."""
    base = "-".join(re.findall(r"\w+", text.lower())) or "section"
    anchor, k = base, 1
    while anchor in taken:
        k += 1
        anchor = f"{base}-{k}"
    taken.add(anchor)
    return anchor


def _nested(entries: list[tuple[str, str, str]]) -> str:
    """The contents' items: each h2, the h3 headings under it in a sub-list (an h3 before any h2 stands alone)."""
    parts, open_sub = [], False
    for level, anchor, title in entries:
        link = f"<a href='#{html.escape(anchor, quote=True)}'>{html.escape(title)}</a>"
        if level == "h3" and parts:
            parts.append(("" if open_sub else "<ul>") + f"<li class='hl-toc-h3'>{link}</li>")
            open_sub = True
            continue
        parts.append(("</ul></li>" if open_sub else "</li>" if parts else "") + f"<li class='hl-toc-{level}'>{link}")
        open_sub = False
    return "".join(parts) + ("</ul></li>" if open_sub else "</li>" if parts else "")


def add_table_of_contents(page: str) -> str:
    """``page`` (a rendered report) with a "Contents" block listing its h2 and h3 headings — outside the summary and
    the site's header — inserted after the last cell tagged ``summary``; headings get an id where they have none. A
    page without a summary cell or without headings is returned as it is."""
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(page, "html.parser")
    summaries = soup.select("div.celltag_summary")
    if not summaries:
        return page
    taken = {tag["id"] for tag in soup.select("[id]")}
    entries = []
    for heading in soup.select("main h2, main h3") or soup.select("h2, h3"):
        if heading.find_parent(class_="hl-summary") or heading.find_parent("header"):
            continue
        for link in heading.select("a.anchor-link"):
            link.decompose()  # nbconvert's pilcrow, not part of the title
        title = heading.get_text(" ", strip=True)
        if not heading.get("id"):
            heading["id"] = _anchor(title, taken)
        entries.append((heading.name, heading["id"], title))
    if not entries:
        return page
    toc = BeautifulSoup(f"<nav class='hl-toc' aria-label='Contents'><h2>Contents</h2><ul>{_nested(entries)}</ul></nav>",
                        "html.parser")
    summaries[-1].insert_after(toc)
    return str(soup)


def run_scope(runs) -> str:
    """The live runs a report analyses, in one line: the models, and per scenario the instances evaluated (one
    model's run, its first seed) — e.g. "2 models (gemma-3-270m, smollm2-135m); mmlu 100 items, bbq 100 items"."""
    if not runs:
        return "No live run is analysed."
    models = sorted({run.model for run in runs})
    items: Counter = Counter()
    for run in runs:
        label = run.scenario_label
        items[label] = max(items[label], len({record.id for record in run.records}))
    scenarios = ", ".join(f"{label} {count:,} items" for label, count in items.items())
    return f"{len(models)} model{'s' if len(models) != 1 else ''} ({', '.join(models)}); {scenarios}"
