"""The documentation site stays true to the code (docs/, built by ``make docs``).

* the command-line reference is ``--help`` itself, every config key and every environment variable the package reads
  is documented, and the README stays an overview (≤ 1,500 words, no dated entries);
* the how-to guides' worked examples (docs/examples/) run through the whole pipeline, checked against values derived
  by hand from the examples' own definitions;
* the reviewer tutorial's ``helmlite compare`` output is what the command prints today;
* the offline link checker that ``make docs`` runs finds broken links and anchors (on hand-made pages).
"""
from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path

import pytest
import yaml

from helmlite import cli

REPO = Path(__file__).resolve().parent.parent
DOCS = REPO / "docs"


def _module(path: Path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


reference = _module(DOCS / "_ext" / "reference.py", "helmlite_docs_reference")
check_links = _module(DOCS / "check_links.py", "helmlite_docs_check_links")


@pytest.mark.parametrize("name", [name for name, _, _ in reference.commands()])
def test_the_cli_reference_of_each_command_is_its_help(name, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", reference.HELP_COLUMNS)
    with pytest.raises(SystemExit) as done:
        cli.main([name, "--help"])
    assert done.value.code == 0
    printed = capsys.readouterr().out.rstrip()
    page = reference.pages()[f"cli/{name}.md"]
    assert f"```text\n{printed}\n```" in page
    assert f"[`helmlite {name}`](cli/{name}.md)" in reference.pages()["cli.md"]


def test_the_cli_index_holds_the_top_level_help(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", reference.HELP_COLUMNS)
    with pytest.raises(SystemExit):
        cli.main(["--help"])
    printed = capsys.readouterr().out.rstrip()
    assert "--version" in printed and f"```text\n{printed}\n```" in reference.pages()["cli.md"]


def test_the_api_reference_documents_every_name_of_every_face():
    """Every package of helmlite but the CLI (documented by its --help pages) has a section, and each section's autodoc
    list is exactly its face's ``__all__`` less the submodules, which the section's table names (reference: the
    packages' own ``__all__``)."""
    import importlib
    import types

    page = reference.pages()["api.md"]
    packages = {f"helmlite.{p.parent.name}" for p in (REPO / "helmlite").glob("*/__init__.py")} - {"helmlite.cli"}
    assert packages <= {name for name, _ in reference.API_FACES}
    for name, _ in reference.API_FACES:
        face = importlib.import_module(name)
        public = list(getattr(face, "__all__", ()))
        modules = [n for n in public if isinstance(reference._attribute(face, n), types.ModuleType)]
        section = page[page.index(f": `{name}`"):]
        listed = re.search(r":members: (.*)\n", section.split("\n## ")[0])
        assert (listed.group(1).split(", ") if listed else []) == [n for n in public if n not in modules], name
        assert all(f"| `{name}.{m}` |" in section for m in modules), name


def test_every_config_key_is_documented():
    schema = yaml.safe_load((REPO / "helmlite" / "schema.yaml").read_text())
    page = reference.pages()["config.md"]
    assert [key for key in schema["properties"] if f"## `{key}`" not in page] == []
    for key, spec in schema["properties"].items():  # and every key of each section's table, with its meaning
        for sub in (spec.get("properties") or {}):
            row = re.search(rf"^\| `{re.escape(key)}\.{re.escape(sub)}` \|.*\| (.*) \|$", page, re.M)
            assert row and row.group(1).strip(), f"{key}.{sub} has no meaning in the config reference"


def test_every_environment_variable_the_package_reads_is_documented():
    source = "\n".join(path.read_text() for path in (REPO / "helmlite").rglob("*.py"))
    read = set(re.findall(r"environ(?:\.get)?\(\s*\"([A-Z_]+)\"|environ\[\"([A-Z_]+)\"\]|shared_path\(\"([A-Z_]+)\"", source))
    names = {n for group in read for n in group if n} - {"HF_HUB_DISABLE_PROGRESS_BARS"}  # set by helmlite, not read
    page = (DOCS / "reference" / "environment.md").read_text()
    assert len(names) >= 12 and [n for n in sorted(names) if f"`{n}`" not in page] == []


def test_the_readme_is_an_overview_that_links_the_six_answers():
    text = (REPO / "README.md").read_text()
    assert len(text.split()) <= 1500
    assert not re.search(r"20\d\d-\d\d-\d\d", text) and not re.search(r"(?:issue|#)\s?\d{2,}", text)
    for page in ("explanation/time-budget.md", "explanation/statistics.md", "tutorials/own-model.md",
                 "how-to/add-a-scenario.md", "cite.md"):
        assert f"(docs/{page})" in text and (DOCS / page).is_file(), page


def test_the_site_has_its_four_sections_and_lists_every_guide():
    index = (DOCS / "index.md").read_text()
    for caption in ("Tutorials", "How-to guides", "Reference", "Explanation"):
        assert f":caption: {caption}" in index
    for folder in ("tutorials", "how-to", "reference", "explanation"):
        listed = (DOCS / folder / "index.md").read_text() if folder != "tutorials" else index
        pages = [p.stem for p in (DOCS / folder).glob("*.md") if p.stem != "index"]
        assert [p for p in pages if p not in listed] == [], folder


@pytest.fixture
def uniform_model():
    """The worked backend registered (its module imported afresh: the decorator registers it) and removed afterwards."""
    import importlib

    import uniform_backend
    from helmlite.models import backends

    if "uniform:" not in backends.REGISTRY:  # a fixture before this one removed it: import it afresh
        importlib.reload(uniform_backend)
    yield backends.REGISTRY["uniform:"].load("chance", dtype="float32", threads=1, batch_size=8, device="cpu")
    backends.REGISTRY.pop("uniform:", None)


def test_the_worked_scenario_and_backend_run_end_to_end(tmp_path, uniform_model):
    """parity (docs/examples/parity_scenario.py) through the uniform backend (docs/examples/uniform_backend.py): every
    letter gets the same log-probability, so the joint method picks the first choice, "even", and the accuracy is the
    share of even numbers among the test questions (counted here from the loader's own instances)."""
    import parity_scenario
    from helmlite.evaluation import RunSpec, execute
    from helmlite.results import read_run
    from helmlite.scenarios import TEST

    spec = RunSpec.from_dict({"scenario": "parity", "model": "uniform:chance", "args": {"n": 30}})
    execute(spec, uniform_model, results_dir=tmp_path, n_resamples=200)
    stats = read_run(tmp_path, spec.run_id).stats
    test = [i for i in parity_scenario.load(n=30) if i.split == TEST]
    even = sum(i.references[0].correct for i in test)
    assert 0 < even < 30 and stats.n_instances == 30 and stats.metrics["exact_match"].mean == pytest.approx(even / 30)


def test_the_worked_metric_family_runs_in_a_run(tmp_path, uniform_model):
    """The length family (docs/examples/length_family.py) on generation runs of the uniform backend, whose completions
    are all empty: mean length 0, and 30 of 30 completions empty (Clopper–Pearson's upper end is 1, its lower end
    (α/2)^(1/n) by hand)."""
    import length_family
    import parity_scenario  # noqa: F401  (registers parity)
    from helmlite.evaluation import RunSpec, execute
    from helmlite.metrics import registry
    from helmlite.results import read_run

    length_family.declare()
    try:
        spec = RunSpec.from_dict({"scenario": "parity", "model": "uniform:chance", "args": {"n": 30},
                                  "adapter": {"method": "generation"}, "metrics": ["accuracy", "length"]})
        execute(spec, uniform_model, results_dir=tmp_path, n_resamples=200)
        metrics = read_run(tmp_path, spec.run_id).stats.metrics
        assert metrics["mean_characters"].mean == 0 and metrics["empty_completions"].mean == 1
        assert metrics["empty_completions"].ci_low == pytest.approx(0.025 ** (1 / 30))
    finally:
        registry.REGISTRY.pop("length", None)


def test_the_reviewer_tutorials_compare_output_is_current(tmp_path, capsys):
    logs = sorted((REPO / "tests" / "data" / "inspect").glob("*/*.eval"))
    assert cli.main(["import", "inspect", *map(str, logs), "--results-dir", str(tmp_path)]) == 0
    capsys.readouterr()
    assert cli.main(["compare", *map(str, sorted(tmp_path.iterdir()))]) == 0
    printed = [line.rstrip() for line in capsys.readouterr().out.splitlines() if line.strip()][:4]
    page = (DOCS / "tutorials" / "reviewer.md").read_text()
    block = re.search(r"```text\n(A = inspect.*?)```", page, re.S).group(1)
    assert [line.rstrip() for line in block.splitlines() if line.strip()] == printed


def test_the_link_checker_finds_a_missing_page_and_a_missing_anchor(tmp_path):
    (tmp_path / "a.html").write_text('<h1 id="top">A</h1><a href="b.html#there">b</a><a href="b.html#gone">x</a>'
                                     '<a href="c.html">c</a><a href="https://example.org/x">ext</a><a href="#top">up</a>')
    (tmp_path / "b.html").write_text('<section id="there"></section><img src="img/missing.png">')
    assert sorted(check_links.broken_links(tmp_path)) == ["a.html: b.html#gone (no anchor #gone)",
                                                          "a.html: c.html (no such file)",
                                                          "b.html: img/missing.png (no such file)"]
    assert check_links.main([str(tmp_path)]) == 1


def test_every_option_and_argument_has_help_text():
    """The reference is the parsers' own text, so an option without help would be a line without meaning there."""
    import argparse

    from helmlite.cli.main import build_parser

    missing = []

    def walk(parser, prefix):
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    walk(sub, f"{prefix} {name}")
            elif action.help is None and action.dest != "help":
                missing.append(f"{prefix} {'/'.join(action.option_strings) or action.dest}")

    walk(build_parser(), "helmlite")
    assert missing == []
