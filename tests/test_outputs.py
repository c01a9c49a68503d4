"""Figures, manifests and the notebook itself (executed through papermill on a small simulated input)."""
from __future__ import annotations

import json

import matplotlib.pyplot as plt
import pandas as pd
import pytest

from helmlite import plots
from helmlite.results import provenance
from helmlite.catalog import HELPSTEER2

from .conftest import REPO


def _figure():
    fig, ax = plt.subplots()
    ax.plot([0, 1], [1, 0])
    return fig


def test_save_writes_png_and_pdf_with_identical_bytes_twice(tmp_path):
    first = plots.save(_figure(), "line", tmp_path / "a")
    second = plots.save(_figure(), "line", tmp_path / "b")
    assert [p.suffix for p in first] == [".png", ".pdf"]
    assert first[0].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and first[1].read_bytes()[:5] == b"%PDF-"
    for a, b in zip(first, second):
        assert a.read_bytes() == b.read_bytes()


def test_manifest_records_versions_git_and_input_hashes(tmp_path):
    source = tmp_path / "in.txt"
    source.write_text("abc")
    path = provenance.write_manifest(tmp_path / "m.json", step="unit", inputs={"x": source}, seeds={"bootstrap": 1})
    manifest = json.loads(path.read_text())
    # sha256("abc") (FIPS 180-2 test vector)
    assert manifest["inputs"]["x"]["sha256"] == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    assert manifest["packages"]["numpy"] and manifest["seeds"] == {"bootstrap": 1}
    assert set(manifest["git"]) == {"commit", "dirty"}


@pytest.mark.slow
def test_notebook_05_runs_through_papermill(tmp_path, mirrored_cache):
    """Execute the committed notebook on 200 simulated samples; every catalogued output must appear."""
    import papermill

    figures, tables = tmp_path / "figures", tmp_path / "tables"
    papermill.execute_notebook(
        str(REPO / "notebooks" / f"{HELPSTEER2.notebook}.ipynb"), str(tmp_path / "out.ipynb"), kernel_name="helmlite",
        parameters={"source": "simulated", "n_simulated": 200, "n_resamples": 200, "figures_dir": str(figures),
                    "tables_dir": str(tables)}, cwd=str(REPO), progress_bar=False)
    for name in HELPSTEER2.figures:
        assert (figures / f"{name}.png").stat().st_size > 10_000 and (figures / f"{name}.pdf").is_file()
    for name in HELPSTEER2.tables:
        assert (tables / f"{name}.csv").is_file()
    from helmlite.report import figures_shown

    assert figures_shown(tmp_path / "out.ipynb") == len(HELPSTEER2.figures)  # each figure is shown in the report
    for name in set(HELPSTEER2.tables) - set(HELPSTEER2.fixed):  # the fixed ones do not come from the input
        table = pd.read_csv(tables / f"{name}.csv")
        assert table.columns[0] == "data_source" and (table.empty or set(table["data_source"]) == {"simulated"}), name
    reproduction = pd.read_csv(tables / "helpsteer2_reproduction.csv")
    card = reproduction[reproduction["quantity"].str.startswith("card_example:")]
    assert len(card) == 5 and (card["verdict"] == "reproduced").all()
    banner = json.loads((tables / "helpsteer2_manifest.json").read_text())["notes"][0]
    assert banner.startswith("**Data source: SIMULATED**")


def test_a_failing_notebook_ends_in_one_line(tmp_path, capsys):
    """`helmlite notebook` (what the workflow's notebook rules run): a cell that raises — here as a results
    reader does on a truncated instances.jsonl — ends the command with exit status 2 and one stderr line
    naming the notebook and the error, and leaves no output notebook behind; a good one is written."""
    import nbformat

    from helmlite import cli

    def notebook(code: str):
        path = tmp_path / f"nb{len(list(tmp_path.glob('*.ipynb')))}.ipynb"
        nbformat.write(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(code)]), str(path))
        return path

    bad = notebook("raise ValueError('results/runs/r/instances.jsonl: line 3: truncated (re-run the run job)')")
    assert cli.main(["notebook", str(bad), str(tmp_path / "out.ipynb")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1] == (f"helmlite: error: {bad}: ValueError: results/runs/r/instances.jsonl: line 3: truncated "
                       f"(re-run the run job)")
    assert not (tmp_path / "out.ipynb").exists() and not list(tmp_path.glob(".out.ipynb.*"))
    good = notebook("x = 1 + 1")
    assert cli.main(["notebook", str(good), str(tmp_path / "out.ipynb"), "--parameters-json", "{}"]) == 0
    assert (tmp_path / "out.ipynb").is_file()


@pytest.mark.slow
@pytest.mark.parametrize("tool, pattern", [("lm-eval", "lm_eval/{model}/samples_*.jsonl"), ("inspect", "inspect/{model}/*.eval")])
def test_notebook_01_runs_on_imported_runs(tmp_path, mirrored_cache, tool, pattern):
    """The README's import example with lm-eval's and inspect_ai's runs (HELM's runs go through the README's own lines
    in tests/test_readme.py): import two models' real logs, run notebook 01 on their run ids; it completes and
    compares the two models paired on the same 10 items."""
    import papermill

    from helmlite import cli

    data = REPO / "tests" / "data"
    sources = [str(next(data.glob(pattern.format(model=m)))) for m in ("smollm2-135m", "gemma3-270m")]
    runs = tmp_path / "imported"
    assert cli.main(["import", tool, *sources, "--results-dir", str(runs), "--n-resamples", "200"]) == 0
    papermill.execute_notebook(str(REPO / "notebooks" / "01_helm_core.ipynb"), str(tmp_path / "out.ipynb"),
                               kernel_name="helmlite", cwd=str(REPO), progress_bar=False,
                               parameters={"results_dir": str(runs), "run_ids": sorted(p.name for p in runs.iterdir()),
                                           "n_resamples": 200, "budget_draws": 20, "figures_dir": str(tmp_path / "f"),
                                           "tables_dir": str(tmp_path / "t"), "measured_dir": str(tmp_path / "m")})
    difference = pd.read_csv(tmp_path / "t" / "helm_core_model_difference.csv")
    assert len(difference) == 1 and difference["n"].iloc[0] == 10


def test_reproduction_verdicts_are_one_vocabulary():
    """Issue 27 §4: helmlite.claims.reproduction.published_verdict's three words, hand-checked; a word outside the vocabulary is
    refused, so no analysis writes free text into the verdict column."""
    import math

    import pytest

    from helmlite.claims import reproduction

    assert reproduction.published_verdict(0.502, 0.5, 0.01) == "reproduced"
    assert reproduction.published_verdict(0.53, 0.5, 0.01, 0.1, 0.8) == "consistent"
    assert reproduction.published_verdict(0.53, 0.5, 0.01, 0.51, 0.8) == "differs"
    assert reproduction.published_verdict(math.nan, 0.5, 0.01) == "not comparable"
    # the one rule behind every verdict, for one value or a whole group (HELM's win-rate groups, HelpSteer2's κ)
    assert [reproduction.decide(True, False), reproduction.decide(False, True), reproduction.decide(False, False),
            reproduction.decide(True, True, comparable=False)] == ["reproduced", "consistent", "differs", "not comparable"]
    with pytest.raises(ValueError, match="not one of"):
        reproduction.row("q", 1.0, 1.0, "reproduced (prints 1.00)")
