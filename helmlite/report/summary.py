"""The "What this run shows" block every report opens with: the claims' verdicts with estimate, interval and
MDE in plain words, the reproduction checks' verdicts, and the headline figure.

A notebook computes its claims and reproduction check last, so it shows this block in its last cell, tagged
``summary``; the HTML report moves that cell right after the title (:mod:`helmlite.report.render`). The block's
words come from the tables the notebook wrote, so the report and ``tables/*_claims.csv`` cannot disagree.
"""
from __future__ import annotations

import html
import math
import re
from pathlib import Path

import pandas as pd

from ..claims import format_number, format_p
from ..plots import FIGURE_METADATA, display_width
from ..claims.reproduction import VERDICTS as REPRODUCTION_VERDICTS

#: The display metadata that marks the summary's copy of the headline figure, so that it is not counted as one more
#: figure of the notebook (:func:`helmlite.report.figures_shown`).
HEADLINE_METADATA = {"helmlite": "headline"}

#: A headline figure at most this high for its width prints on page one (120 mm high, then ≥ 86% of the page's width).
WIDE_HEADLINE = 0.75

#: The claim verdicts in the order a reader wants them: what the data decided first, then what was not to be decided.
_VERDICT_ORDER = ("supported", "contradicted", "inconclusive", "exploratory")


def _number(value: float) -> str:
    """As the claims tables write numbers (:func:`helmlite.claims.format_number`: ∞ for an MDE no n reaches), with a
    dash where there is no value."""
    return "—" if value is None or math.isnan(value) else format_number(value)


def _no_interval_reason(row) -> str:
    """Why a claim has no interval, from its evidence ("inconclusive: too few contexts … (no verdict)")."""
    note = str(getattr(row, "evidence", "")).split(" — ")[0]
    return (note.removeprefix("inconclusive: ").removesuffix(" (no verdict)") if note.startswith("inconclusive: ")
            else "see the claims table's evidence")


def estimate_text(row) -> str:
    """"estimate [low, high]", or "estimate (no interval)" when a bound is missing."""
    if math.isfinite(row.ci_low) and math.isfinite(row.ci_high):
        return f"{_number(row.estimate)} [{_number(row.ci_low)}, {_number(row.ci_high)}]"
    return f"{_number(row.estimate)} (no interval)"


def meaning(row) -> str:
    """One claim's verdict in words a student follows (from the claims table's columns; :mod:`helmlite.claims`
    decides the verdict, this only says it)."""
    interval = f"the 95% interval [{_number(row.ci_low)}, {_number(row.ci_high)}]"
    bounded = math.isfinite(row.ci_low) and math.isfinite(row.ci_high)
    if row.verdict == "exploratory":
        p_value = getattr(row, "p_value", math.nan)
        tested = (f"unadjusted p {format_p(p_value, getattr(row, 'p_floor', 0.0)).removeprefix('= ')}"
                  if math.isfinite(p_value) else "no test")
        return (f"Exploratory — not among the primary claims this run's config declares, so no decision is made: "
                f"estimate {_number(row.estimate)}, {interval if bounded else f'no interval ({_no_interval_reason(row)})'}, "
                f"{tested}.")
    if row.verdict == "supported":
        return f"The data support it: {interval} lies on the claimed side of {_number(row.null)}, and the test agrees."
    if row.verdict == "contradicted":
        return f"The data go against it: {interval} excludes what the claim asserts, and the test agrees."
    if not bounded:
        return f"No verdict: no interval was computed ({_no_interval_reason(row)})."
    excludes = row.ci_low > row.null or row.ci_high < row.null
    correction = getattr(row, "correction", None)
    adjusted = getattr(row, "p_adjusted", math.nan)
    if excludes and isinstance(correction, str) and not correction.startswith("none") and math.isfinite(adjusted):
        method, _, family = correction.partition(" over ")  # "holm over 3 claims"
        shown = format_p(getattr(row, "p_value", math.nan), getattr(row, "p_floor", 0.0), adjusted)
        why = (f"{interval} excludes {_number(row.null)}, but after {method.capitalize()}'s correction"
               f"{f' over {family}' if family else ''} the test does not (adjusted p {shown})")
    else:
        why = f"{interval} includes {_number(row.null)}"
    direction = getattr(row, "direction", "two-sided")
    if (direction == "greater" and row.estimate < row.null) or (direction == "less" and row.estimate > row.null):
        return (f"Too uncertain to decide, and leaning against the claim: {why}; the estimate ({_number(row.estimate)}) "
                f"lies on the other side of {_number(row.null)} from what the claim says ({direction}), so more data "
                "would count against it, not for it.")
    planning = (" — the share of items on which the two sides differ growing with the effect (the claims table's "
                "evidence gives the MDE at the observed share too)" if "growing with the effect" in str(getattr(row, "evidence", "")) else "")
    level = (f" at α = {_number(row.alpha)}, its family's level" if math.isfinite(getattr(row, "alpha", math.nan))
             else "")
    if math.isfinite(row.mde):
        return (f"Too uncertain to decide: {why}; at n = {int(row.n)} only an effect of about {_number(row.mde)} would be "
                f"detected reliably (80% power{level}{planning}).")
    return f"Too uncertain to decide: {why}; at n = {int(row.n)} no effect size reaches 80% power{level}{planning}."


def family_label(row) -> str:
    """Which family a claim's verdict belongs to and its size ("live runs, 9 hypotheses"), or "exploratory"."""
    if getattr(row, "role", "primary") == "exploratory":
        return "exploratory"
    size = getattr(row, "family_size", math.nan)
    counted = f", {int(size)} hypothes{'is' if size == 1 else 'es'}" if isinstance(size, (int, float)) and math.isfinite(size) else ""
    return f"{getattr(row, 'family', '')}{counted}"


def counts_sentence(claims: pd.DataFrame | None, reproduction: pd.DataFrame | None) -> str:
    """"<b>2 supported</b>, <b>1 contradicted</b>, <b>9 inconclusive</b> of 12 claims · reproduction check: …" (HTML);
    the words name each table's verdicts in their fixed order."""
    parts = []
    if claims is not None and len(claims):
        counts = claims["verdict"].value_counts()
        shown = [v for v in _VERDICT_ORDER if v != "exploratory" or counts.get(v, 0)]
        parts.append(", ".join(f"<b>{int(counts.get(v, 0))} {v}</b>" for v in shown) + f" of {len(claims)} claims"
                     + _families_sentence(claims))
    if reproduction is not None and len(reproduction):
        counts = reproduction["verdict"].value_counts()
        parts.append("reproduction check: " + ", ".join(
            f"<b>{int(counts[v])} {v}</b>" for v in REPRODUCTION_VERDICTS if counts.get(v, 0)) + f" of {len(reproduction)} published values")
    return " · ".join(parts) if parts else "This run tests no claim and has no published value to check."


def _families_sentence(claims: pd.DataFrame) -> str:
    """" (Holm within each family: live runs, 9 hypotheses; published leaderboard, 7)" — the families the verdicts were
    corrected over; empty for a table without families."""
    if "family" not in claims or "role" not in claims:
        return ""
    primary = claims[claims["role"] == "primary"].drop_duplicates("family")
    if primary.empty:
        return ""
    return " (corrected within each family: " + "; ".join(family_label(row) for row in primary.itertuples()) + ")"


def claim_anchor(claim: str) -> str:
    """The id of a claim's row in its report ("claim-" and the claim's words in lower case joined by "-"), which the
    index and the claims' mentions link to."""
    return "claim-" + "-".join(re.findall(r"[a-z0-9]+", str(claim).lower()))


#: The claims table's columns: (class of its <col>, header). Their widths are fixed in site.css, so the last column
#: ("what it means") keeps its room on screen and on paper.
_CLAIM_COLUMNS = (("verdict", "verdict"), ("claim", "claim"), ("family", "family"), ("estimate", "estimate [95% CI]"),
                  ("n", "n"), ("mde", "MDE"), ("meaning", "what it means"))


def claims_html(claims: pd.DataFrame) -> str:
    """The claims as a table: verdict, claim, its family (and size) or "exploratory", estimate [95% interval], n, MDE and
    what the verdict means; decided claims first; each row's id is :func:`claim_anchor` of its claim; a note says what an
    empty MDE means when one is."""
    order = {verdict: i for i, verdict in enumerate(_VERDICT_ORDER)}
    rows = []
    for row in claims.assign(_order=claims["verdict"].map(order)).sort_values("_order", kind="stable").itertuples():
        rows.append(f"<tr id='{claim_anchor(row.claim)}'><td class='hl-verdict-{html.escape(row.verdict)}'>{html.escape(row.verdict)}</td>"
                    f"<td>{html.escape(str(row.claim))}</td><td>{html.escape(family_label(row))}</td>"
                    f"<td>{estimate_text(row)}</td>"
                    f"<td>{int(row.n)}</td><td>{_number(row.mde)}</td><td>{html.escape(meaning(row))}</td></tr>")
    columns = "".join(f"<col class='hl-c-{key}'>" for key, _ in _CLAIM_COLUMNS)
    headers = "".join(f"<th>{html.escape(label)}</th>" for _, label in _CLAIM_COLUMNS)
    blank = ("<p class='hl-table-note'>— in MDE: no minimum detectable effect, for want of an interval or a test to "
             "size it from; ∞: no effect size reaches 80% power at this n.</p>") if claims["mde"].isna().any() else ""
    return (f"<table class='hl-claims'><colgroup>{columns}</colgroup><thead><tr>{headers}</tr></thead><tbody>"
            + "".join(rows) + "</tbody></table>" + blank)


def reproduction_html(reproduction: pd.DataFrame, limit: int = 8) -> str:
    """The published values ours differ from (up to ``limit``, each with its note), then how many are only
    consistent (inside our interval or range, outside the tolerance); a sentence when every comparable one reproduced."""
    differs = reproduction[reproduction["verdict"] == "differs"]
    consistent = int((reproduction["verdict"] == "consistent").sum())
    if differs.empty and not consistent:
        return "<p>Every comparable published value is reproduced.</p>" if len(reproduction) else ""
    parts = []
    if len(differs):
        items = "".join(f"<li>{html.escape(str(r.quantity))} — published {_number(r.published)}, ours {_number(r.ours)}"
                        + (f" ({html.escape(str(r.note))})" if isinstance(r.note, str) else "") + "</li>"
                        for r in differs.head(limit).itertuples())
        more = f"<li>… and {len(differs) - limit} more in the reproduction table below</li>" if len(differs) > limit else ""
        parts.append(f"<p>Published values ours <b>differs</b> from:</p><ul>{items}{more}</ul>")
    if consistent:
        parts.append(f"<p>{consistent} published value{'s are' if consistent > 1 else ' is'} <b>consistent</b>: outside "
                     "the tolerance, but inside our interval or range (the reproduction table below lists them).</p>")
    return "".join(parts)


def show(claims: pd.DataFrame | None = None, reproduction: pd.DataFrame | None = None, headline: str | Path | None = None,
         note: str | None = None, caption: str | None = None, data: str | None = None) -> None:
    """Display the block in the running notebook: the verdict counts, the headline figure (the PNG that
    :func:`helmlite.plots.save` wrote, with ``caption``), the claims table in words and the reproduction misses, then
    ``data`` (HTML: the links to the tables' CSVs). ``note`` (Markdown) follows the counts — e.g. the run's scope, or
    that the input is simulated. A notebook calls it through :meth:`helmlite.report.Outputs.summary`."""
    from IPython.display import HTML, Image, Markdown, display

    display(HTML("<div class='hl-summary'><h2>What this run shows</h2><p class='hl-verdicts'>"
                 + counts_sentence(claims, reproduction) + "</p></div>"))
    if note:
        display(Markdown(note))
    if headline is not None:
        data_png = Path(headline).read_bytes()
        # a wide headline is printed low enough (site.css: 120 mm) to stay on page one under the verdicts at nearly
        # the page's width; a squarer or taller one would shrink to unreadable text there, so it takes the next page
        height_over_width = int.from_bytes(data_png[20:24], "big") / int.from_bytes(data_png[16:20], "big")
        figure = {"name": Path(headline).stem, "first_page": height_over_width <= WIDE_HEADLINE,
                  **({"caption": caption} if caption else {})}
        display(Image(data=data_png, format="png", width=display_width(data_png)),
                metadata={**HEADLINE_METADATA, FIGURE_METADATA: figure})
    parts = []
    if claims is not None and len(claims):
        parts.append(claims_html(claims))
    if reproduction is not None and len(reproduction):
        parts.append(reproduction_html(reproduction))
    if data:
        parts.append(f"<p class='hl-data'>{data}</p>")
    if parts:
        display(HTML("<div class='hl-summary'>" + "".join(parts) + "</div>"))
