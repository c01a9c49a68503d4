"""Reports as a person reads them (issue #64): tables through one helper (no NaN, no "-0.000", a footnote for every
"—", every row, a link to the CSV), numbered and captioned figures with alt text, anchors on claims, a table of
contents, text large enough to read. Expected values are hand-derived from the small inputs each test builds."""
from __future__ import annotations

import math

import matplotlib.pyplot as plt
import nbformat
import numpy as np
import pandas as pd
import pytest

from helmlite import plots, report
from helmlite.errors import DataError
from helmlite.report import checks, navigation, render, summary, tables


@pytest.mark.parametrize("value, digits, text", [
    (float("nan"), 3, "—"), (None, 3, "—"), (pd.NA, 3, "—"),
    (-0.0, 3, "0.000"), (-0.00001, 3, "-1.0e-05"),  # a small negative is not printed as "-0.000" nor as a zero
    (0.12345, 3, "0.123"), (0.12345, 2, "0.12"), (1234.5, 1, "1,234.5"),
    (np.int64(4000), 3, "4,000"), (7, 3, "7"), (np.True_, 3, "yes"), (False, 3, "no"),
    (1e-6, 3, "1.0e-06"), (math.inf, 3, "∞"), (-math.inf, 3, "−∞"), ("text", 3, "text"),
])
def test_a_cell_prints_at_its_precision_and_an_empty_one_as_a_dash(value, digits, text):
    assert tables.cell_text(value, digits) == text


def _frame() -> pd.DataFrame:
    return pd.DataFrame({"ci_low": [math.nan, 0.25, -0.0], "n": [3, 4000, 5], "p_value": [1e-6, 0.2, math.nan]})


def test_a_report_table_has_no_nan_no_index_readable_headers_a_footnote_and_its_csv_link(tmp_path):
    csv = tmp_path / "tables" / "demo_thing.csv"
    page = tables.table_html(_frame(), csv=csv, blanks={"ci_low": "no pairs to resample"})
    assert "nan" not in page.lower() and "-0.000" not in page
    assert ">ci low</th>" in page and ">p value</th>" in page and "row_heading" not in page  # no index column
    assert "— = empty cell — ci low: no pairs to resample; p value: " + tables.DEFAULT_BLANK_REASON in page
    assert 'Data: <a href="../tables/demo_thing.csv">demo_thing.csv</a>' in page  # from reports/ beside tables/
    assert page == tables.table_html(_frame(), csv=csv, blanks={"ci_low": "no pairs to resample"})  # no random ids


@pytest.mark.parametrize("columns, classes", [(10, None), (11, "hl-upright"), (13, "hl-upright hl-many")])
def test_a_wide_table_is_marked_for_upright_headers_and_smaller_type_in_print(columns, classes):
    """More than 10 columns: upright headers in print (a header word never breaks or widens its column past the page);
    more than 12: smaller type too (site.css; the browser test measures the printed tables)."""
    page = tables.table_html(pd.DataFrame({f"column {k}": [k] for k in range(columns)}))
    assert (f'class="{classes}"' in page) if classes else ("hl-upright" not in page and "hl-many" not in page)


def test_a_header_never_breaks_at_its_hyphens_and_the_csv_keeps_the_name():
    page = tables.table_html(pd.DataFrame({"calibration_error (ECE-10)": [0.25]}))
    assert ">calibration error (ECE\u201110)</th>" in page and "ECE-10" not in page


def test_a_count_stored_as_float_prints_as_a_count_and_a_measure_keeps_its_decimals():
    frame = pd.DataFrame({"n_needed": [1159.0, math.nan], "estimate": [1.0, 0.5]})
    page = tables.table_html(frame)
    assert ">1,159</td>" in page and ">1.000</td>" in page and ">0.500</td>" in page


def test_show_keeps_the_rows_asked_for_says_how_many_and_never_shows_a_header_alone(monkeypatch):
    shown = []
    monkeypatch.setattr("IPython.display.display", lambda obj: shown.append(obj.data))
    frame = pd.DataFrame({"quantity": ["a", "b", "c"], "verdict": ["reproduced", "differs", "reproduced"]})
    tables.show(frame, keep=frame["verdict"] != "reproduced", csv="/x/tables/t.csv")
    assert ">b</td>" in shown[0] and ">a</td>" not in shown[0] and "1 of 3 rows shown (the rest in the CSV)" in shown[0]
    tables.show(frame.head(2), max_rows=1)
    assert "1 of 2 rows shown" in shown[1] and "(the rest" not in shown[1]
    tables.show(frame.iloc[0:0], empty="Every published value was reproduced.", csv="/x/tables/t.csv")
    assert "<table" not in shown[2] and "Every published value was reproduced." in shown[2] and "t.csv" in shown[2]


def test_claim_rows_carry_anchors():
    claims = pd.DataFrame([{"claim": "HELM: instruct > base (MMLU)", "verdict": "supported", "estimate": 0.1, "ci_low": 0.05,
                            "ci_high": 0.15, "null": 0.0, "n": 100, "mde": 0.08, "direction": "greater"}])
    assert summary.claim_anchor("HELM: instruct > base (MMLU)") == "claim-helm-instruct-base-mmlu"
    page = summary.claims_html(claims)
    assert "<tr id='claim-helm-instruct-base-mmlu'>" in page and "<table class='hl-claims'><colgroup>" in page


def _captioned_notebook(tmp_path, caption: str | None = "What is shown, n = 5.", name: str | None = None):
    v4 = nbformat.v4
    png = tmp_path / "f.png"
    fig, ax = plt.subplots(figsize=(3, 2))
    ax.plot([0, 1], [0, 1])
    fig.savefig(png)
    plt.close(fig)
    import base64

    data = {"image/png": base64.b64encode(png.read_bytes()).decode()}
    figure = {plots.FIGURE_METADATA: {"caption": caption, **({"name": name} if name else {})}} if caption else {}
    cells = [v4.new_markdown_cell("# 09 — Demo"),
             v4.new_markdown_cell("## Part one"),
             v4.new_code_cell("fig()", outputs=[v4.new_output("display_data", data=data, metadata=dict(figure))]),
             v4.new_markdown_cell("### Cochran's Q: a subsection"),
             v4.new_code_cell("show()", metadata={"tags": ["summary"]},
                              outputs=[v4.new_output("display_data", data={"text/html": "<div class='hl-summary'><h2>What this run shows</h2></div>"}),
                                       v4.new_output("display_data", data=data, metadata={**figure, "helmlite": "headline"})])]
    path = tmp_path / "09_demo.ipynb"
    nbformat.write(v4.new_notebook(cells=cells, metadata={"kernelspec": {"name": "python3", "display_name": "py"}}), str(path))
    return path


def test_figures_are_numbered_in_page_order_with_caption_and_alt_text_and_the_page_has_contents(tmp_path):
    page = report.notebook_to_html(_captioned_notebook(tmp_path), tmp_path / "09_demo.html").read_text()
    assert "No description has been provided" not in page
    assert page.count('alt="Figure 1. What is shown, n = 5."') == 1 and page.count('alt="Figure 2. What is shown, n = 5."') == 1
    assert page.index("<b>Figure 1.</b>") < page.index("<b>Figure 2.</b>")  # the summary's headline comes first
    contents = page.index("<nav aria-label=\"Contents\" class=\"hl-toc\">")
    assert page.index("What this run shows") < contents < page.index("<b>Figure 2.</b>")
    assert '<a href="#Part-one">Part one</a>' in page and "hl-toc-h3" in page  # nbconvert's own heading ids
    assert "<a href=\"#Cochran's-Q:-a-subsection\">Cochran's Q: a subsection</a>" in page  # an apostrophe kept in the link


def test_the_headline_figure_shown_again_in_its_section_keeps_its_number(tmp_path):
    """The summary shows the headline figure, its section shows it again: one number, the second marked a repeat."""
    page = report.notebook_to_html(_captioned_notebook(tmp_path, name="demo_a"), tmp_path / "09_demo.html").read_text()
    assert "<b>Figure 2" not in page and page.count('id="figure-1"') == 1
    assert page.index("<b>Figure 1.</b>") < page.index("<b>Figure 1 (repeated from the summary).</b>")


def test_a_figure_shown_without_a_caption_is_reported(tmp_path):
    assert checks.uncaptioned_figures(_captioned_notebook(tmp_path, caption=None)) == ["cell 2", "cell 4"]
    assert checks.uncaptioned_figures(_captioned_notebook(tmp_path)) == []


def test_figure_numbers_follow_the_reordered_page():
    v4 = nbformat.v4
    image = {"image/png": "iVBORw0KGgo="}
    nb = v4.new_notebook(cells=[v4.new_code_cell("a", outputs=[v4.new_output("display_data", data=image, metadata={plots.FIGURE_METADATA: {"caption": "a"}})]),
                                v4.new_code_cell("b", outputs=[v4.new_output("display_data", data=image, metadata={})])])
    assert render.number_figures(nb) == 1 and nb.cells[0].outputs[0].metadata[plots.FIGURE_METADATA]["number"] == 1


@pytest.mark.parametrize("width, fontsize, small", [(6, 4, True), (6, 8, False), (14, 10, True), (14, 13, False)])
def test_save_refuses_text_too_small_to_read_at_page_width(tmp_path, width, fontsize, small):
    """Hand-derived: a 14-inch figure is shown 7 inches wide, halving its text (10 pt → 5 pt, under 6; 13 → 6.5)."""
    fig, ax = plt.subplots(figsize=(width, 3))
    ax.plot([0, 1], [0, 1])
    ax.tick_params(labelsize=fontsize)
    ax.set_title("t", fontsize=12 * max(1, width / 7))
    ax.xaxis.label.set_size(12 * max(1, width / 7))
    assert bool(plots.small_text(fig)) is small
    if small:
        with pytest.raises(DataError, match="below 6 pt at page width"):
            plots.save(fig, "small", tmp_path)
    else:
        assert [p.name for p in plots.save(fig, "fine", tmp_path)] == ["fine.png", "fine.pdf"]
    plt.close(fig)


def test_run_scope_names_the_models_and_the_items_per_scenario():
    class Run:
        def __init__(self, model, label, ids):
            self.model, self.scenario_label = model, label
            self.records = [type("R", (), {"id": i})() for i in ids]

    runs = [Run("b", "mmlu", range(100)), Run("a", "mmlu", range(100)), Run("a", "bbq", [1, 1, 2])]
    assert navigation.run_scope(runs) == "2 models (a, b); mmlu 100 items, bbq 2 items"
    assert navigation.run_scope([]) == "No live run is analysed."


def test_the_summary_shows_the_headline_with_its_sections_caption_and_links_the_claims_csv(tmp_path, monkeypatch):
    """Outputs.summary: the headline figure carries the caption the figure was shown with (its n included) and its
    name; the block ends with a link to the claims CSV, relative to the reports folder."""
    from helmlite.catalog import HELPSTEER2

    shown = []
    monkeypatch.setattr("IPython.display.display", lambda obj, metadata=None: shown.append((obj, metadata)))
    monkeypatch.setattr(plots, "_show", lambda png, caption=None: None)
    out = report.Outputs(HELPSTEER2, str(tmp_path / "tables"), str(tmp_path / "figures"))
    fig, ax = plt.subplots(figsize=(3, 2))
    ax.plot([0, 1], [0, 1])
    out.figure("protocol", fig, "n = 12 annotations.")
    reproduction = pd.DataFrame({"quantity": ["a"], "published": [1.0], "ours": [1.0], "verdict": ["reproduced"],
                                 "note": [""]})
    out.table("reproduction", reproduction)
    out.summary(reproduction=reproduction, headline="protocol")
    figure = next(metadata[plots.FIGURE_METADATA] for _, metadata in shown if metadata)
    assert figure == {"name": "helpsteer2_protocol", "first_page": True,  # 3 × 2 inches: wide enough for page one
                      "caption": HELPSTEER2.figures["helpsteer2_protocol"] + " n = 12 annotations."}
    assert 'Data: <a href="../tables/helpsteer2_reproduction.csv">helpsteer2_reproduction.csv</a>' in shown[-1][0].data


def test_a_caption_names_its_n_and_the_interval_that_ran():
    """Hand-built tables as helmlite.stats fills them: the n range, the interval names in words, rows without one
    counted; a table without an interval column gets the method its function documents."""
    from helmlite.report import captions

    frame = pd.DataFrame({"n": [3, 6, 4], "interval": ["clopper-pearson", "expanded: no finite bound at n = 4 (too few units)",
                                                       "inconclusive: fewer than 10 contexts (no interval)"]})
    assert captions.sample_detail(frame, per="bar") == ("n = 3–6 items per bar; 95% intervals: Clopper–Pearson exact; "
                                                        "2 of 3 without an interval (the CSV says why).")
    paired = pd.DataFrame({"n": [200, 200], "test": ["newcombe-score/mcnemar-exact"] * 2})
    assert captions.sample_detail(paired, "paired items", "scenario", interval="test") == (
        "n = 200 paired items per scenario; 95% intervals: Newcombe's paired score interval (exact McNemar test).")
    assert captions.sample_detail(pd.DataFrame({"n": [1500]}), "prompts", method="cluster bootstrap over prompts") == (
        "n = 1,500 prompts per point; 95% intervals: cluster bootstrap over prompts.")
    assert captions.sample_detail(frame.iloc[0:0]) == ""
    assert captions.sample_detail(frame, "contexts", "curve", interval=None) == "n = 3–6 contexts per curve."


def test_the_contents_nest_each_sections_subsections():
    """Hand-built headings: h2 entries are the items, the h3 entries under one sit in its own sub-list."""
    entries = [("h2", "a", "A"), ("h3", "b", "B"), ("h3", "c", "C"), ("h2", "d", "D"), ("h2", "e", "E"), ("h3", "f", "F")]
    assert navigation._nested(entries) == (
        "<li class='hl-toc-h2'><a href='#a'>A</a><ul><li class='hl-toc-h3'><a href='#b'>B</a></li>"
        "<li class='hl-toc-h3'><a href='#c'>C</a></li></ul></li><li class='hl-toc-h2'><a href='#d'>D</a></li>"
        "<li class='hl-toc-h2'><a href='#e'>E</a><ul><li class='hl-toc-h3'><a href='#f'>F</a></li></ul></li>")


def test_an_empty_interval_points_to_the_column_that_says_why():
    """Hand-built reproduction-style table: the empty bounds and comparison cite the table's own note column; a column
    the caller explains keeps the caller's words; two columns with one reason are named together."""
    frame = pd.DataFrame({"quantity": ["a", "b"], "ours": [0.5, math.nan], "ci_low": [0.4, math.nan],
                          "ci_high": [0.6, math.nan], "extra": [math.nan, 1.0], "note": ["", "no per-item data"]})
    assert tables.footnote(frame, {"extra": "not measured"}) == (
        "— = empty cell — ours, ci low, ci high: no value in that row; its note column says why; extra: not measured.")


def test_a_figure_with_nothing_to_draw_is_a_sentence_in_its_place(tmp_path, monkeypatch):
    """Outputs.figure(absent=…): the file the workflow lists is written, the report shows the sentence (no numbered
    empty figure), and figures_shown counts it as the figure's place."""
    from helmlite.catalog import SENSITIVITY
    from helmlite.report.outputs import ABSENT_METADATA

    shown = []
    monkeypatch.setattr("IPython.display.display", lambda obj, metadata=None: shown.append((obj, metadata)))
    monkeypatch.setattr(plots, "_show", lambda png, caption=None: shown.append(("png", png)))
    out = report.Outputs(SENSITIVITY, str(tmp_path / "tables"), str(tmp_path / "figures"))
    out.figure("formats", plots.note_figure("no formats study"), absent="This config runs no formats study.")
    assert (tmp_path / "figures" / "sensitivity_formats.png").is_file() and len(shown) == 1
    assert shown[0][0].data == "*No figure: This config runs no formats study.*"
    assert shown[0][1] == {**ABSENT_METADATA, "name": "sensitivity_formats"}
    v4 = nbformat.v4
    nb = v4.new_notebook(cells=[v4.new_code_cell("f()", outputs=[v4.new_output(
        "display_data", data={"text/markdown": shown[0][0].data}, metadata=shown[0][1])])])
    nbformat.write(nb, str(tmp_path / "n.ipynb"))
    assert report.figures_shown(tmp_path / "n.ipynb") == 1


def test_an_empty_mde_in_the_claims_table_is_explained():
    claims = pd.DataFrame([{"claim": "c", "verdict": "inconclusive", "estimate": 0.1, "ci_low": math.nan,
                            "ci_high": math.nan, "null": 0.0, "n": 2, "mde": math.nan, "direction": "greater",
                            "evidence": "inconclusive: at the floor (no verdict) — no interval (n = 2)."}])
    page = summary.claims_html(claims)
    assert "<td>—</td>" in page and "— in MDE: no minimum detectable effect" in page
    assert "MDE: no minimum" not in summary.claims_html(claims.assign(mde=0.2, ci_low=0.0, ci_high=0.2))


def test_a_notebooks_setup_checks_its_parameters_and_returns_its_outputs(tmp_path, capsys):
    """report.setup: the common parameters and the analysis's own checked in one call (a wrong type named), the
    notebook's Outputs and bootstrap settings returned, the settings printed."""
    from helmlite.catalog import HELM_CORE
    from helmlite.report.parameters import ParameterError

    namespace = {"n_resamples": 200, "seed": 0, "figures_dir": str(tmp_path / "f"), "tables_dir": str(tmp_path / "t"),
                 "budget_draws": 10, "measured_dir": str(tmp_path / "m")}
    out, boot = report.setup(namespace, HELM_CORE, {"budget_draws": int, "measured_dir": str}, note="a note")
    assert boot == {"n_resamples": 200} and out.measured_dir == str(tmp_path / "m") and out.analysis is HELM_CORE
    assert capsys.readouterr().out == "bootstrap: 200 resamples (a note), base seed 0\n"
    with pytest.raises(ParameterError, match="notebook parameter 'budget_draws' must be int, got str 'ten'"):
        report.setup({**namespace, "budget_draws": "ten"}, HELM_CORE, {"budget_draws": int})
    with pytest.raises(ParameterError, match="notebook parameter 'seed' must be int"):
        report.setup({**namespace, "seed": 1.5}, HELM_CORE)
