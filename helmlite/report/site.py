"""One small site: the header every page shares (navigation between the index and the reports, and the run's
facts), the footer's previous / next links, and the site's style sheet.

Every link is relative and every style is inline, so the site works from ``file://`` and from any static web
server, offline: no CDN, no script.
"""
from __future__ import annotations

import html
import json
import math
import time
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import pandas as pd

from .. import workflow
from ..catalog import Analysis

INDEX = "index.html"


@dataclass(frozen=True)
class Page:
    """One page of the site: its file name in the reports folder, a short label for the navigation bar and a title."""

    href: str
    label: str
    title: str


@dataclass(frozen=True)
class RunFacts:
    """What a reader of a page should know about the run that made it: of the whole workflow on the index, of one
    analysis on its report (``scope`` says which), so that a report's facts are final when it is rendered.

    ``commits``: the git commit(s) the notebooks ran at, from their provenance manifests. ``run_jobs_s``: the run jobs'
    measured seconds, summed over jobs (Snakemake's ``benchmark:`` files, start-up included), and ``planned_s`` the
    same jobs' prediction by ``helmlite plan`` (its jobs file, :func:`helmlite.workflow.planned_jobs_file`); None
    where absent (no run job, or no plan written for the config). ``notebooks_s``: the notebook jobs' seconds.
    ``wall_s``: on the index, the Snakemake invocation's wall time from its start to the index (None elsewhere or
    when the workflow did not record its start)."""

    scope: str
    date: str
    commits: tuple[str, ...]
    configfile: str
    models: tuple[str, ...]
    run_jobs: int
    run_jobs_s: float | None
    planned_s: float | None
    notebooks_s: float | None
    wall_s: float | None = None


def pages(config: dict) -> list[Page]:
    """The index, then each enabled analysis's report in the catalog's order: "01 HELM core", … (the title up to its
    colon) in the navigation bar, the whole title on hover and in the footer."""
    return [Page(INDEX, "Index", "helmlite reports")] + [
        Page(f"{a.notebook}.html", f"{a.notebook[:2]} {a.title.split(':')[0]}", a.title) for a in workflow.enabled(config)]


def _benchmark_seconds(files: list[Path]) -> float | None:
    """The sum of the last ``s`` of each Snakemake benchmark file (None when one is missing)."""
    if not files or not all(path.is_file() for path in files):
        return None
    return sum(float(pd.read_csv(path, sep="\t")["s"].iloc[-1]) for path in files)


def _planned_seconds(configfile: str, jobs: list[str]) -> float | None:
    """The plan's predicted seconds of ``jobs`` (None without a plan for the config or with a job it cannot predict)."""
    planned = workflow.planned_job_seconds(configfile)
    return sum(planned[job] for job in jobs) if jobs and all(job in planned for job in jobs) else None


def _notebook_date(notebook: Path) -> str | None:
    """When papermill finished the executed notebook (its ``metadata.papermill.end_time``), to the minute, in UTC."""
    try:
        end = json.loads(notebook.read_text(encoding="utf-8"))["metadata"]["papermill"]["end_time"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return None if not end else f"{end[:10]} {end[11:16]} UTC"


def _commit(manifest: Path) -> str | None:
    """The git commit a notebook ran at, from its provenance manifest (``(modified)`` when the checkout had changes)."""
    try:
        git = json.loads(manifest.read_text(encoding="utf-8"))["git"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if not git.get("commit"):
        return "no git checkout"
    return git["commit"][:10] + (" (modified)" if git.get("dirty") else "")


def run_facts(config: dict, configfile: str, analysis: Analysis | None = None) -> RunFacts:
    """The facts of the workflow run whose outputs ``config`` names (read after its notebooks ran): of one
    ``analysis`` (its notebook and its run jobs), or of the whole run (with the invocation's wall time)."""
    dirs = workflow.output_dirs(config)
    analyses = [analysis] if analysis is not None else workflow.enabled(config)
    run_ids = {run_id for a in analyses for run_id in workflow.analysis_runs(config, a)}
    jobs = [job for job, batch in workflow.run_batches(config).items() if {spec.run_id for spec in batch} <= run_ids]
    notebooks = [Path(workflow.outputs(config, a)["notebook"]) for a in analyses]
    dates = sorted(filter(None, map(_notebook_date, notebooks)))
    commits = tuple(dict.fromkeys(filter(None, (_commit(Path(workflow.outputs(config, a)["manifest"])) for a in analyses))))
    specs = workflow.run_specs(config)
    started = workflow.workflow_start(config) if analysis is None else None
    return RunFacts(scope="this analysis" if analysis is not None else "all analyses",
                    date=dates[-1] if dates else "not run yet", commits=commits, configfile=configfile,
                    models=tuple(sorted({specs[run_id].model for run_id in run_ids if run_id in specs})), run_jobs=len(jobs),
                    run_jobs_s=_benchmark_seconds([Path(dirs["benchmarks"], "runs", f"{job}.tsv") for job in jobs]),
                    planned_s=_planned_seconds(configfile, jobs),
                    notebooks_s=_benchmark_seconds([Path(dirs["benchmarks"], f"{n.stem}.tsv") for n in notebooks]),
                    wall_s=None if started is None else time.time() - started)


def _seconds(value: float | None) -> str:
    return "—" if value is None or not math.isfinite(value) else f"{value:,.0f} s"


def facts_html(facts: RunFacts) -> str:
    """The run's facts as one line of labelled items."""
    if facts.run_jobs == 0:
        runs = "none (no model runs)"
    else:
        plan = (f"{_seconds(facts.planned_s)} planned by <code>helmlite plan</code>" if facts.planned_s is not None else
                f"no plan (<code>helmlite plan --configfile {html.escape(facts.configfile)}</code> predicts it)")
        runs = f"{facts.run_jobs} jobs, {_seconds(facts.run_jobs_s)} measured (summed over jobs) · {plan}"
    items = [("ran", html.escape(facts.date)),
             ("commit", ", ".join(f"<code>{html.escape(c)}</code>" for c in facts.commits) or "unknown"),
             ("config", f"<code>{html.escape(facts.configfile)}</code>"),
             ("models", html.escape(", ".join(facts.models)) or "none"),
             (f"run jobs ({facts.scope})", runs), ("notebooks", _seconds(facts.notebooks_s))]
    if facts.wall_s is not None:
        items.append(("wall time", f"{_seconds(facts.wall_s)} (this snakemake invocation, to this page)"))
    return "<p class='hl-facts'>" + " ".join(f"<span><b>{label}</b> {value}</span>" for label, value in items) + "</p>"


def header_html(site: list[Page], current: str, facts: RunFacts, links: dict[str, str] | None = None) -> str:
    """The navigation bar (the current page marked), the run's facts and the page's own ``links`` (label → href:
    a report's executed notebook and provenance manifest)."""
    nav = []
    for page in site:
        mark = " aria-current='page'" if page.href == current else ""
        nav.append(f"<a href='{html.escape(page.href)}' title='{html.escape(page.title)}'{mark}>{html.escape(page.label)}</a>")
    own = " · ".join(f"<a href='{html.escape(href)}'>{html.escape(label)}</a>" for label, href in (links or {}).items())
    return (f"<header class='hl-site'><nav><span class='hl-brand'>helmlite</span>{''.join(nav)}"
            f"{f'<span class=hl-own>{own}</span>' if own else ''}</nav>{facts_html(facts)}</header>")


def footer_html(site: list[Page], current: str) -> str:
    """Previous page · index · next page (the index once, where it is also the previous page)."""
    hrefs = [page.href for page in site]
    at = hrefs.index(current)
    parts = []
    if at > 0:
        parts.append(f"<a href='{html.escape(site[at - 1].href)}'>← {html.escape(site[at - 1].title)}</a>")
    if current != INDEX and at - 1 != hrefs.index(INDEX):
        parts.append(f"<a href='{INDEX}'>Index</a>")
    if at + 1 < len(site):
        parts.append(f"<a href='{html.escape(site[at + 1].href)}'>{html.escape(site[at + 1].title)} →</a>")
    return f"<footer class='hl-site'><nav>{' · '.join(parts)}</nav></footer>"


def style() -> str:
    """The site's style sheet (``site.css`` beside this module), to inline in every page."""
    return resources.files(__package__).joinpath("site.css").read_text(encoding="utf-8")
