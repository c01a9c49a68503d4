"""The reports site (helmlite.report): the summary block's words, the report's order and folds, the shared header and
footer, the index page, the checks on executed notebooks, and plots.save's refusal of an empty panel. Every expected
value is derived by hand from the small inputs built here."""
from __future__ import annotations

import json

import matplotlib.pyplot as plt
import nbformat
import pandas as pd
import pytest

from helmlite import plots, report
from helmlite.catalog import Analysis
from helmlite.errors import DataError
from helmlite.report import render, site, summary


def _claims() -> pd.DataFrame:
    """Four claims: one supported, one contradicted, two inconclusive (one with an MDE, one without)."""
    return pd.DataFrame({"claim": ["A beats B", "B beats C", "C beats D", "D beats E"],
                         "estimate": [0.1, -0.2, 0.0, 0.01], "ci_low": [0.05, -0.3, -0.1, -0.05],
                         "ci_high": [0.15, -0.1, 0.1, 0.07], "null": [0.0] * 4, "n": [200] * 4,
                         "mde": [0.08, 0.08, 0.0912, float("nan")],
                         "verdict": ["supported", "contradicted", "inconclusive", "inconclusive"],
                         "family": ["live runs"] * 4, "role": ["primary"] * 4, "family_size": [4] * 4, "alpha": [0.0125] * 4})


def _reproduction() -> pd.DataFrame:
    return pd.DataFrame({"quantity": ["fig1:a", "fig1:b", "fig1:c", "fig1:d"], "published": [0.5, 0.6, 0.7, 0.8],
                         "ours": [0.5, 0.65, 0.9, float("nan")], "verdict": ["reproduced", "consistent", "differs", "not comparable"],
                         "note": ["tolerance 0.01", "inside our CI", "tolerance 0.01", "no per-item data"]})


# --- the "What this run shows" block ---------------------------------------------------------------------------------

def test_counts_sentence_names_every_verdict_in_order():
    sentence = summary.counts_sentence(_claims(), _reproduction())
    assert sentence == ("<b>1 supported</b>, <b>1 contradicted</b>, <b>2 inconclusive</b> of 4 claims (corrected within "
                        "each family: live runs, 4 hypotheses) · reproduction check: <b>1 reproduced</b>, <b>1 consistent"
                        "</b>, <b>1 differs</b>, <b>1 not comparable</b> of 4 published values")
    exploratory = _claims().assign(verdict=["supported", "exploratory", "inconclusive", "exploratory"],
                                   role=["primary", "exploratory", "primary", "exploratory"])
    assert summary.counts_sentence(exploratory, None).startswith(
        "<b>1 supported</b>, <b>0 contradicted</b>, <b>1 inconclusive</b>, <b>2 exploratory</b> of 4 claims")
    assert summary.counts_sentence(None, None) == "This run tests no claim and has no published value to check."


@pytest.mark.parametrize("row, words", [
    (0, "The data support it: the 95% interval [0.05, 0.15] lies on the claimed side of 0, and the test agrees."),
    (1, "The data go against it: the 95% interval [-0.3, -0.1] excludes what the claim asserts, and the test agrees."),
    (2, "Too uncertain to decide: the 95% interval [-0.1, 0.1] includes 0; at n = 200 only an effect of about 0.0912 "
        "would be detected reliably (80% power at α = 0.0125, its family's level)."),
    (3, "Too uncertain to decide: the 95% interval [-0.05, 0.07] includes 0; at n = 200 no effect size reaches 80% power "
        "at α = 0.0125, its family's level."),
])
def test_each_verdict_in_words(row, words):
    assert summary.meaning(next(_claims().iloc[[row]].itertuples())) == words


def test_a_claim_without_an_interval_says_why_it_has_no_verdict():
    row = _claims().iloc[[2]].assign(evidence="inconclusive: at the ceiling (no verdict) — no interval (n = 20). No MDE "
                                              "and no n needed: …", ci_low=float("nan"), ci_high=float("nan"),
                                     mde=float("nan"))
    assert summary.meaning(next(row.itertuples())) == "No verdict: no interval was computed (at the ceiling)."


def test_an_exploratory_claim_is_reported_without_a_verdict():
    row = _claims().iloc[[0]].assign(verdict="exploratory", role="exploratory", p_value=0.012, p_floor=0.0)
    assert summary.meaning(next(row.itertuples())) == (
        "Exploratory — not among the primary claims this run's config declares, so no decision is made: estimate 0.1, "
        "the 95% interval [0.05, 0.15], unadjusted p 0.012.")
    assert "<td>exploratory</td>" in summary.claims_html(row)


def test_an_interval_excluding_the_null_but_not_the_corrected_test_says_so():
    """Notebook 03's case: [0.00681, 0.306] excludes 0, Holm over three claims leaves p = 0.0974."""
    row = _claims().iloc[[0]].assign(verdict="inconclusive", ci_low=0.00681, ci_high=0.306, mde=0.214,
                                     p_adjusted=0.0974, correction="holm over 3 claims")  # helmlite.claims' wording
    assert summary.meaning(next(row.itertuples())) == (
        "Too uncertain to decide: the 95% interval [0.00681, 0.306] excludes 0, but after Holm's correction over 3 "
        "claims the test does not (adjusted p = 0.0974); at n = 200 only an effect of about 0.214 would be detected "
        "reliably (80% power at α = 0.0125, its family's level).")


def test_claims_table_puts_decided_claims_first():
    claims = _claims().iloc[[2, 0, 3, 1]]  # inconclusive first in the input
    table = summary.claims_html(claims)
    order = [table.index(claim) for claim in ("A beats B", "B beats C", "C beats D", "D beats E")]
    assert order == sorted(order)
    assert ("<td class='hl-verdict-supported'>supported</td><td>A beats B</td><td>live runs, 4 hypotheses</td>"
            "<td>0.1 [0.05, 0.15]</td><td>200</td>") in table


def test_reproduction_lists_what_differs_and_counts_what_is_consistent():
    text = summary.reproduction_html(_reproduction())
    assert "<li>fig1:c — published 0.7, ours 0.9 (tolerance 0.01)</li>" in text
    assert "<p>1 published value is <b>consistent</b>: outside the tolerance" in text
    assert "fig1:a" not in text and "fig1:b" not in text and "fig1:d" not in text
    assert summary.reproduction_html(_reproduction().iloc[[0]]) == "<p>Every comparable published value is reproduced.</p>"


# --- plots.save refuses an empty panel ------------------------------------------------------------------------------

def test_save_refuses_an_empty_panel_and_accepts_a_note(tmp_path):
    fig, (full, empty) = plt.subplots(1, 2)
    full.plot([0, 1], [0, 1])
    empty.set_title("Accuracy vs fairness")
    with pytest.raises(DataError, match="figure demo: panel 'Accuracy vs fairness' has nothing drawn and no note"):
        plots.save(fig, "demo", tmp_path)
    assert not list(tmp_path.iterdir())  # nothing written
    plots.note_panel(empty, "No fairness perturbation in this run's config")
    assert [p.name for p in plots.save(fig, "demo", tmp_path)] == ["demo.png", "demo.pdf"]
    plt.close(fig)


def _old_accuracy_vs_fairness(ax):
    """The panel issue #48 found: a reference diagonal, no data, no note."""
    ax.plot([0, 1], [0, 1], color="grey", ls="--", gid=plots.REFERENCE)


@pytest.mark.parametrize("draw", [
    _old_accuracy_vs_fairness,
    lambda ax: ax.axhline(0.5),  # a chance level alone
    lambda ax: ax.axvspan(0, 1, alpha=0.2),
    lambda ax: ax.plot([], []),
    lambda ax: ax.plot([float("nan")], [float("nan")]),
    lambda ax: ax.scatter([], []),
    lambda ax: ax.errorbar([], [], yerr=[]),
    lambda ax: __import__("seaborn").heatmap(__import__("numpy").full((2, 2), float("nan")), ax=ax, cbar=False),
], ids=["reference diagonal", "axhline", "axvspan", "empty line", "NaN line", "empty scatter", "empty errorbar", "NaN heatmap"])
def test_a_panel_of_references_or_empty_artists_is_empty(draw):
    import warnings

    fig, ax = plt.subplots()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # seaborn's all-NaN warning
        draw(ax)
    assert plots.empty_panels(fig) == ["panel 1"]
    plt.close(fig)


@pytest.mark.parametrize("draw", [
    lambda ax: ax.plot([0, 1], [0, 1]),
    lambda ax: ax.scatter([1], [2]),
    lambda ax: ax.bar(["a"], [1]),
    lambda ax: ax.fill_between([0, 1], [0, 1]),
    lambda ax: ax.imshow([[1.0, 2.0]]),
    lambda ax: __import__("seaborn").heatmap([[1.0, float("nan")]], ax=ax, cbar=False),
], ids=["line", "scatter", "bar", "area", "image", "heatmap with a value"])
def test_a_panel_with_data_is_not_empty(draw):
    fig, ax = plt.subplots()
    draw(ax)
    assert plots.empty_panels(fig) == []
    plt.close(fig)


def test_save_accepts_a_hidden_slot(tmp_path):
    fig, (full, unused) = plt.subplots(1, 2)
    full.bar(["a"], [1])
    unused.axis("off")  # a grid's unused slot draws no panel
    assert len(plots.save(fig, "grid", tmp_path)) == 2
    plt.close(fig)


def test_accuracy_vs_fairness_says_why_its_panel_is_empty():
    from helmlite.analyses.helm_core import figures

    matrix = pd.DataFrame({"model": ["m", "m"], "scenario": ["mmlu", "mmlu"], "family": ["accuracy", "robustness"],
                           "estimate": [0.5, 0.4], "ci_low": [0.4, 0.3], "ci_high": [0.6, 0.5]})
    fig = figures.accuracy_vs(matrix)
    assert plots.empty_panels(fig) == []
    fairness = fig.axes[1]
    assert fairness.texts[0].get_text() == "No fairness perturbation in this run's config:\nconfig/paper.yaml runs HELM's."
    assert not fairness.lines  # no reference diagonal on a panel without data
    plt.close(fig)


# --- the report page ------------------------------------------------------------------------------------------------

def _notebook(tmp_path):
    """Title, parameters, a section whose code prints to stdout and stderr, the summary (last), a visible methods
    heading and two folds: a heading with a code cell after it, and a second heading."""
    v4 = nbformat.v4
    cells = [v4.new_markdown_cell("# 09 — Demo\n\n**The question.** Does A beat B?"),
             v4.new_code_cell("x = 1", metadata={"tags": ["parameters"]}),
             v4.new_markdown_cell("## Section"),
             v4.new_code_cell("print('hello')", outputs=[v4.new_output("stream", name="stdout", text="hello\n"),
                                                         v4.new_output("stream", name="stderr", text="UserWarning: noise\n")]),
             v4.new_code_cell("show()", metadata={"tags": ["summary"]},
                              outputs=[v4.new_output("display_data", data={"text/markdown": "## What this run shows"})]),
             v4.new_markdown_cell("## Methods and departures"),
             v4.new_markdown_cell("### Fold one\n\nfirst", metadata={"tags": ["methods"]}),
             v4.new_code_cell("table()", metadata={"tags": ["methods"]}),
             v4.new_markdown_cell("### Fold two\n\nsecond", metadata={"tags": ["methods"]})]
    path = tmp_path / "09_demo.ipynb"
    nbformat.write(v4.new_notebook(cells=cells, metadata={"kernelspec": {"name": "python3", "display_name": "py"}}), str(path))
    return path


def test_report_order_moves_the_summary_and_groups_the_folds(tmp_path):
    nb = nbformat.read(str(_notebook(tmp_path)), as_version=4)
    ordered, _ = render.ReportOrder().preprocess(nb, {})
    sources = [cell.source for cell in ordered.cells]
    assert sources[:3] == ["# 09 — Demo\n\n**The question.** Does A beat B?", "show()", "x = 1"]
    marks = [(cell.metadata.get("helmlite_fold_open"), cell.metadata.get("helmlite_fold_close")) for cell in ordered.cells]
    assert marks[-4:] == [(None, None), ("Fold one", None), (None, True), ("Fold two", True)]


def test_report_html_folds_code_drops_stderr_and_loads_no_script(tmp_path):
    pages = [site.Page("index.html", "Index", "helmlite reports"), site.Page("08_before.html", "08", "Before"),
             site.Page("09_demo.html", "09", "Demo")]
    facts = site.RunFacts(scope="this analysis", date="2026-12-05 12:00 UTC", commits=("abc1234567",),
                          configfile="config/test.yaml", models=("smollm2-135m",), run_jobs=2, run_jobs_s=12.3,
                          planned_s=None, notebooks_s=45.6)
    page = report.notebook_to_html(_notebook(tmp_path), tmp_path / "09_demo.html", pages, facts,
                                   {"executed notebook": "09_demo.ipynb"}).read_text()
    assert '<a href="09_demo.ipynb">executed notebook</a>' in page
    assert "<script src" not in page and "cdnjs" not in page  # offline: no CDN, no script file
    assert page.count("<details class=\"hl-code\">") == 3  # every code cell folded; the summary call not shown
    assert page.count("<details class=\"hl-methods\">") == 2
    assert "UserWarning" not in page and "hello" in page  # stderr goes to the job's log, stdout stays
    assert page.index("What this run shows") < page.index("## Section".replace("## ", "")) < page.index("Fold one")
    assert '<a href="index.html" title="helmlite reports">Index</a>' in page  # (nbconvert writes attributes its own way)
    assert '<a aria-current="page" href="09_demo.html" title="Demo">09</a>' in page
    assert '<a href="08_before.html">← Before</a> · <a href="index.html">Index</a></nav></footer>' in page
    assert "<b>config</b> <code>config/test.yaml</code>" in page
    assert ("<b>run jobs (this analysis)</b> 2 jobs, 12 s measured (summed over jobs) · no plan (<code>helmlite plan "
            "--configfile config/test.yaml</code> predicts it)") in page


def test_footer_links_previous_index_and_next():
    pages = [site.Page("index.html", "Index", "Reports"), site.Page("01_a.html", "01", "A"), site.Page("02_b.html", "02", "B")]
    assert site.footer_html(pages, "index.html") == "<footer class='hl-site'><nav><a href='01_a.html'>A →</a></nav></footer>"
    assert site.footer_html(pages, "01_a.html") == ("<footer class='hl-site'><nav><a href='index.html'>← Reports</a> · "
                                                    "<a href='02_b.html'>B →</a></nav></footer>")  # the index once
    assert site.footer_html(pages, "02_b.html") == ("<footer class='hl-site'><nav><a href='01_a.html'>← A</a> · "
                                                    "<a href='index.html'>Index</a></nav></footer>")


def test_run_facts_sum_the_benchmarks_and_read_the_plan(tmp_path, monkeypatch):
    """config/test.yaml's run jobs and notebooks, each with a benchmark file of 10 s (the last row counts: an earlier
    one of 99 s does not) and a plan of 7 s per job: the index's facts count every job, a report's only its own."""
    from helmlite import workflow
    from helmlite.catalog import HELM_CORE

    monkeypatch.chdir(tmp_path)
    config = workflow.load_config(str(_repo() / "config" / "test.yaml"))
    config["output_dir"] = "out"
    dirs = workflow.output_dirs(config)
    jobs = workflow.run_batches(config)
    own = [job for job, batch in jobs.items() if {s.run_id for s in batch} <= set(workflow.analysis_runs(config, HELM_CORE))]
    assert 0 < len(own) < len(jobs)
    (tmp_path / dirs["benchmarks"] / "runs").mkdir(parents=True)
    for job in jobs:
        (tmp_path / dirs["benchmarks"] / "runs" / f"{job}.tsv").write_text("s\th:m:s\n99\t0:01:39\n10\t0:00:10\n")
    for analysis in workflow.enabled(config):
        (tmp_path / dirs["benchmarks"] / f"{analysis.notebook}.tsv").write_text("s\th:m:s\n10\t0:00:10\n")
    everything = site.run_facts(config, "config/test.yaml")
    assert (everything.run_jobs, everything.run_jobs_s, everything.planned_s) == (len(jobs), 10.0 * len(jobs), None)
    assert (everything.notebooks_s, everything.date) == (10.0 * len(workflow.enabled(config)), "not run yet")
    plan = workflow.planned_jobs_file("config/test.yaml")
    plan.parent.mkdir(parents=True)
    plan.write_text("job,runs,predicted_s,predicted_mem_mb\n" + "".join(f"{job},1,7,1000\n" for job in jobs))
    report = site.run_facts(config, "config/test.yaml", HELM_CORE)
    assert (report.scope, report.run_jobs, report.run_jobs_s, report.planned_s, report.notebooks_s) == (
        "this analysis", len(own), 10.0 * len(own), 7.0 * len(own), 10.0)
    assert set(report.models) == {workflow.run_specs(config)[r].model for r in workflow.analysis_runs(config, HELM_CORE)}
    assert (report.commits, report.wall_s) == ((), None)  # no manifest yet; a report has no wall time
    manifest = tmp_path / workflow.outputs(config, HELM_CORE)["manifest"]
    manifest.parent.mkdir(parents=True)
    manifest.write_text(json.dumps({"git": {"commit": "0123456789abcdef", "dirty": True}}))
    workflow.record_start(config)  # as the Snakefile's onstart does
    everything = site.run_facts(config, "config/test.yaml")
    assert everything.commits == ("0123456789 (modified)",) and 0 <= everything.wall_s < 60


def _repo():
    from .conftest import REPO

    return REPO


# --- the index ------------------------------------------------------------------------------------------------------

def test_index_page_shows_thumbnails_and_what_the_run_decided(tmp_path):
    """Hand-built: an analysis with two figures and a claims table of one supported, one contradicted and
    two inconclusive claims. The page puts the decided verdicts first (with their claims), counts the
    inconclusive ones, and shows a thumbnail per figure."""
    analysis = Analysis(key="demo", notebook="09_demo", title="Demo analysis", paper="A paper",
                        figures={"demo_a": "first", "demo_b": "second"},
                        tables={"demo_claims": "claims", "demo_reproduction": "reproduction"})
    (tmp_path / "tables").mkdir()
    _claims().to_csv(tmp_path / "tables" / "demo_claims.csv", index=False)
    pd.DataFrame({"quantity": ["x", "y"], "verdict": ["reproduced", "differs"]}).to_csv(tmp_path / "tables" / "demo_reproduction.csv", index=False)
    files = {"html": str(tmp_path / "reports/09_demo.html"), "notebook": str(tmp_path / "reports/09_demo.ipynb"),
             "manifest": str(tmp_path / "tables/demo_manifest.json"),
             "figures": [str(tmp_path / f"figures/demo_{k}.{ext}") for k in "ab" for ext in ("png", "pdf")],
             "tables": [str(tmp_path / "tables/demo_claims.csv"), str(tmp_path / "tables/demo_reproduction.csv")], "measured": []}
    page = report.index_page([(analysis, files)], tmp_path / "reports" / "index.html").read_text()
    decided = page.index("What this run decided")
    assert decided < page.index("<h2>Demo analysis")
    assert ("<li><a href='09_demo.html'>Demo analysis</a>: claims (<a href='../tables/demo_claims.csv'>demo_claims.csv</a>): "
            "1 supported, 1 contradicted, 2 inconclusive of 4; reproduction check (<a href='../tables/demo_reproduction.csv'>"
            "demo_reproduction.csv</a>): 1 reproduced, 1 differs of 2"
            "<details class='hl-undecided'><summary>the 2 claims not decided, each linking to its row</summary>") in page
    assert ("<td class='hl-verdict-supported'>supported</td><td><a href='09_demo.html#claim-a-beats-b'>A beats B</a></td>"
            "<td>0.1 [0.05, 0.15], n&nbsp;=&nbsp;200</td>" in page and "#claim-b-beats-c'>B beats C</a>" in page)
    decided_table = page[page.index("<table class='hl-decided'>"):page.index("</table>")]
    assert "C beats D" not in decided_table  # an undecided claim is linked from the folded list, not the table
    for claim in _claims().claim:  # every claim links to its row
        assert f"<a href='09_demo.html#{report.summary.claim_anchor(claim)}'>{claim}</a>" in page
    assert page.count("<img src='../figures/demo_") == 2
    assert "SIMULATED" not in page  # no manifest: nothing says the input was simulated
    (tmp_path / "tables/demo_manifest.json").write_text(json.dumps({"parameters": {"source": "simulated"}}))
    page = report.index_page([(analysis, files)], tmp_path / "reports" / "index.html").read_text()
    assert page.count("<strong>SIMULATED data</strong> — ") == 4  # two figure captions and two table captions
    assert "Demo analysis</a> (simulated data): claims (" in page
    fixed = Analysis(**{**analysis.__dict__, "fixed": ("demo_claims",)})  # e.g. a dataset card's own example
    page = report.index_page([(fixed, files)], tmp_path / "reports" / "index.html").read_text()
    assert page.count("<strong>SIMULATED data</strong> — ") == 3


# --- checks on executed notebooks -----------------------------------------------------------------------------------

def test_stray_outputs_and_figures_shown(tmp_path):
    v4 = nbformat.v4
    png = {"image/png": "iVBORw0KGgo="}
    cells = [v4.new_code_cell("a", outputs=[v4.new_output("display_data", data=png)]),
             v4.new_code_cell("b", outputs=[v4.new_output("display_data", data=png, metadata=summary.HEADLINE_METADATA),
                                            v4.new_output("stream", name="stderr", text="UserWarning: No artists\nmore\n")]),
             v4.new_code_cell("c", outputs=[v4.new_output("error", ename="ValueError", evalue="bad", traceback=[])])]
    path = tmp_path / "nb.ipynb"
    nbformat.write(v4.new_notebook(cells=cells), str(path))
    assert report.figures_shown(path) == 1  # the summary's copy of the headline figure is not one more figure
    assert report.stray_outputs(path) == ["cell 1: stderr: UserWarning: No artists", "cell 2: ValueError: bad"]


def test_display_width_reads_the_png_header(tmp_path):
    """A PNG 900 pixels wide (a 6-inch figure at 150 dpi) shows 600 CSS pixels wide at 100 pixels an inch."""
    import numpy as np

    plt.imsave(tmp_path / "f.png", np.zeros((10, 900)))
    assert plots.display_width((tmp_path / "f.png").read_bytes()) == 600


def test_forest_of_an_empty_table_says_why():
    from helmlite.analyses.helm_core import figures

    empty = pd.DataFrame(columns=["label", "delta", "ci_low", "ci_high"])
    fig = figures.forest(empty, "label", "delta", "Deltas", "x", empty="A paired comparison needs exactly two models.")
    assert [t.get_text() for t in fig.axes[0].texts] == ["A paired comparison needs exactly two models."]
    plt.close(fig)


@pytest.mark.slow
def test_a_notebooks_log_lines_reach_the_job_log_not_its_outputs(tmp_path, capfd):
    """`helmlite notebook` (the workflow's notebook rule): helmlite's warning inside the kernel — here optional data that
    cannot be fetched — goes to the command's stderr (the job's log) and into no cell output; so the check passes."""
    from helmlite import cli

    v4 = nbformat.v4
    cell = v4.new_code_cell("import logging\nimport helmlite\nlogging.getLogger('helmlite.data').warning('optional data x unavailable')")
    source = tmp_path / "nb.ipynb"
    nbformat.write(v4.new_notebook(cells=[cell], metadata={"kernelspec": {"name": "helmlite", "display_name": "helmlite",
                                                                             "language": "python"}}), str(source))
    assert cli.main(["notebook", str(source), str(tmp_path / "out.ipynb")]) == 0
    assert "helmlite: optional data x unavailable" in capfd.readouterr().err
    assert report.stray_outputs(tmp_path / "out.ipynb") == []


def test_each_notebook_opens_with_its_catalog_title_and_a_question():
    """The report, the index and the navigation name an analysis the same way; every report opens with the question."""
    from helmlite.catalog import ANALYSES

    from .conftest import REPO

    for analysis in ANALYSES.values():
        first = nbformat.read(str(REPO / "notebooks" / f"{analysis.notebook}.ipynb"), as_version=4).cells[0].source
        assert first.splitlines()[0] == f"# {analysis.notebook[:2]} — {analysis.title}"
        assert "**The question.**" in first and len(first.split()) < 160


def test_the_summary_says_when_the_estimate_leans_against_the_claim_and_which_planning_model_the_mde_uses():
    """Issue #54 items 4 and 5 in the report's words (hand-written): SmolLM2's robustness claim says "lowers"
    (direction less), the estimate is +0.03 — more data would count against it; a paired claim's MDE names its
    planning model; an adjusted p at a resampling floor is written as a bound."""
    against = _claims().iloc[[2]].assign(estimate=0.03, direction="less", ci_low=-0.05, ci_high=0.11)
    assert summary.meaning(next(against.itertuples())) == (
        "Too uncertain to decide, and leaning against the claim: the 95% interval [-0.05, 0.11] includes 0; the estimate "
        "(0.03) lies on the other side of 0 from what the claim says (less), so more data would count against it, not "
        "for it.")
    paired = _claims().iloc[[2]].assign(direction="two-sided", evidence="MDE at n = 200: 0.0912 (80% power) with the "
                                        "discordance growing with the effect (ψ0 + |δ|, ...)")
    assert summary.meaning(next(paired.itertuples())).endswith(
        "(80% power at α = 0.0125, its family's level — the share of items on which the two sides differ growing with "
        "the effect (the claims table's evidence gives the MDE at the observed share too)).")
    floored = _claims().iloc[[0]].assign(verdict="inconclusive", p_value=2 / 2001, p_floor=2 / 2001, p_adjusted=0.06,
                                         correction="holm over 30 claims")
    assert "(adjusted p ≤ 0.06)" in summary.meaning(next(floored.itertuples()))


def test_a_claim_the_plan_does_not_name_verbatim_is_reported(tmp_path, monkeypatch):
    """``make e2e``'s name check: a claims table's claim that the plan of the same config does not declare under the
    same name is listed (here a name with a data-dependent suffix, as the depth claims once carried)."""
    import pandas as pd

    from helmlite import planning, workflow
    from helmlite.report import checks

    config = workflow.validate_config({"analyses": ["helmet"], "output_dir": str(tmp_path)}, "<test>")
    declared = planning.claim_mdes.declarations([], ["helmet"])
    monkeypatch.setattr(planning, "plan", lambda config, **kwargs: type("P", (), {"claims": pd.DataFrame(
        {"claim": [d.name for d in declared]})})())
    tables = tmp_path / "tables"
    tables.mkdir()
    pd.DataFrame({"claim": [declared[0].name, declared[1].name + " — at the ceiling"]}).to_csv(tables / "helmet_claims.csv")
    assert checks.unplanned_claims(config) == [f"{tables}/helmet_claims.csv: {declared[1].name} — at the ceiling"]
