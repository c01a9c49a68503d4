"""Reference pages generated from the code at build time, so they cannot drift from it.

* ``reference/cli/<command>.md`` — one page per ``helmlite`` command: its one-line summary and its ``--help`` text,
  exactly as argparse prints it at 80 columns (``tests/test_docs.py`` compares the two);
* ``explanation/fidelity.md`` — each notebook's *Methods and departures* section, read from the notebook itself: where
  the kit departs from the paper or from HELM's code, in the words the report prints;
* ``reference/config.md`` — every key of ``helmlite/schema.yaml`` (the schema the Snakefile validates a config
  with): type, default, allowed values and its description;
* ``reference/api.md`` — the Python API: every name of each package face's ``__all__`` (:data:`API_FACES`), from its
  docstring, and the submodules the face names with their first docstring line.

The pages are written into ``docs/reference/generated/`` (git-ignored) when the builder starts, before Sphinx reads
the sources; a page is rewritten only when its text changed, so an incremental build stays incremental.
"""
from __future__ import annotations

import argparse
import importlib
import inspect
import json
import os
import types
from contextlib import contextmanager
from pathlib import Path

HELP_COLUMNS = "80"
GENERATED = Path(__file__).resolve().parents[1] / "reference" / "generated"


@contextmanager
def help_width():
    """argparse wraps help at ``$COLUMNS``: a fixed width, so the pages and ``--help`` in the test agree."""
    before = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = HELP_COLUMNS
    try:
        yield
    finally:
        if before is None:
            del os.environ["COLUMNS"]
        else:
            os.environ["COLUMNS"] = before


def commands() -> list[tuple[str, str, argparse.ArgumentParser]]:
    """(name, one-line summary, parser) of every ``helmlite`` command, in ``helmlite --help``'s order; a command with
    subcommands (``models list``) lists them after it."""
    from helmlite.cli.main import build_parser

    parser = build_parser()
    out = []
    for action in parser._subparsers._group_actions:  # argparse keeps no public list of subparsers
        summaries = {choice.dest: choice.help for choice in action._choices_actions}
        for name, sub in action.choices.items():
            out.append((name, summaries.get(name) or "", sub))
    return out


def help_text(parser: argparse.ArgumentParser) -> str:
    with help_width():
        return parser.format_help()


def _nested(parser: argparse.ArgumentParser) -> list[tuple[str, argparse.ArgumentParser]]:
    actions = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return [(f"{parser.prog} {name}".removeprefix("helmlite "), sub) for a in actions for name, sub in a.choices.items()]


def command_page(name: str, summary: str, parser: argparse.ArgumentParser) -> str:
    parts = [f"# helmlite {name}\n", f"{summary[:1].upper()}{summary[1:]}.\n" if summary else "",
             "```text", help_text(parser).rstrip(), "```\n"]
    for sub_name, sub in _nested(parser):
        parts += [f"## helmlite {sub_name}\n", "```text", help_text(sub).rstrip(), "```\n"]
    return "\n".join(parts)


def cli_index() -> str:
    from helmlite.cli.main import build_parser

    rows = "\n".join(f"| [`helmlite {name}`](cli/{name}.md) | {summary} |" for name, summary, _ in commands())
    toc = "\n".join(f"cli/{name}" for name, _, _ in commands())
    return (f"# Command line\n\nEvery command of `helmlite`, generated from its parser: the text of each page is what "
            f"`helmlite <command> --help` prints.\n\n| command | what it does |\n|---|---|\n{rows}\n\n"
            f"## helmlite\n\nThe options before any command, as `helmlite --help` prints them:\n\n"
            f"```text\n{help_text(build_parser()).rstrip()}\n```\n\n"
            f"```{{toctree}}\n:hidden:\n\n{toc}\n```\n")


def _type(spec: dict) -> str:
    if "enum" in spec:
        return "one of " + ", ".join(f"`{v}`" for v in spec["enum"])
    kind = spec.get("type", "object" if "properties" in spec else "")
    kind = " or ".join(kind) if isinstance(kind, list) else kind
    if kind == "array" and "items" in spec:
        return f"list of ({_type(spec['items'])})" if "enum" in spec["items"] else f"list of {_type(spec['items']) or 'values'}"
    bounds = [f"≥ {spec['minimum']}" if "minimum" in spec else "", f"≤ {spec['maximum']}" if "maximum" in spec else ""]
    return " ".join([kind, *filter(None, bounds)]).strip()


def _cell(text) -> str:
    return " ".join(str(text).split()).replace("|", "\\|")


def _rows(properties: dict, prefix: str, defs: dict) -> list[str]:
    rows = []
    for key, spec in properties.items():
        spec = defs.get(spec.get("$ref", "").rsplit("/", 1)[-1], spec) if "$ref" in spec else spec
        default = f"`{json.dumps(spec['default'])}`" if "default" in spec else ""
        rows.append(f"| `{prefix}{key}` | {_cell(_type(spec))} | {default} | {_cell(spec.get('description', ''))} |")
        if "properties" in spec:
            rows += _rows(spec["properties"], f"{prefix}{key}.", defs)
        elif "properties" in spec.get("items", {}):  # a list of entries: each entry's keys, as key[].entry_key
            rows += _rows(spec["items"]["properties"], f"{prefix}{key}[].", defs)
    return rows


def config_page() -> str:
    import yaml

    from helmlite.workflow.config import SCHEMA  # the schema file the Snakefile validates with
    schema = yaml.safe_load(Path(SCHEMA).read_text(encoding="utf-8"))
    defs = schema.get("$defs", {})
    parts = ["# Configuration keys\n",
             "Every key a workflow config (`config/*.yaml`) may set, generated from `helmlite/schema.yaml`, the schema "
             "the Snakefile and `helmlite config` validate a config with. A key left out takes its default; a key the "
             "schema does not name is an error.\n"]
    for key, spec in schema["properties"].items():
        parts.append(f"## `{key}`\n")
        parts.append(f"{_cell(spec.get('description', ''))}\n")
        details = [f"Type: {_cell(_type(spec))}."] + ([f"Default: `{json.dumps(spec['default'])}`."] if "default" in spec else [])
        parts.append(" ".join(details) + "\n")
        nested = spec.get("properties") or spec.get("items", {}).get("properties")
        if nested:
            parts += ["| key | type | default | meaning |", "|---|---|---|---|", *_rows(nested, f"{key}.", defs), ""]
    shared = [(name, spec) for name, spec in defs.items() if "properties" in spec]
    if shared:
        parts.append("## Shared entry shapes\n\nEntries that several sections use (`$defs` in the schema).\n")
        for name, spec in shared:
            parts += [f"### `{name}`\n", "| key | type | default | meaning |", "|---|---|---|---|",
                      *_rows(spec["properties"], "", defs), ""]
    return "\n".join(parts)


def fidelity_page() -> str:
    """Each notebook's markdown from its "## Methods and departures" heading to its end, under the notebook's name."""
    from helmlite.catalog import ANALYSES

    notebooks = Path(__file__).resolve().parents[2] / "notebooks"
    parts = ["# Fidelity: where the kit departs from each paper\n",
             "Each analysis ends its report with *Methods and departures*: how it computes what it shows and where that "
             "differs from the paper or from HELM's code. This page collects those sections, read from the notebooks "
             "themselves, so it says what the reports say.\n"]
    for analysis in ANALYSES.values():
        cells = json.loads((notebooks / f"{analysis.notebook}.ipynb").read_text(encoding="utf-8"))["cells"]
        texts = ["".join(c["source"]) for c in cells if c["cell_type"] == "markdown"]
        start = next((k for k, text in enumerate(texts) if text.lstrip().startswith("## Methods and departures")), None)
        if start is None:
            continue
        parts.append(f"## {analysis.notebook}\n")
        for text in texts[start:]:
            text = text.replace("## Methods and departures", "", 1) if text.lstrip().startswith("## Methods") else text
            parts.append(text.rstrip() + "\n")  # its ### headings sit under the notebook's ## heading
    return "\n".join(parts)


#: The faces the API page documents, in reading order: (module, heading). Each face's ``__all__`` is its public surface
#: (``tests/test_architecture.py`` keeps other packages to it); the page documents every name in it.
API_FACES = (("helmlite.stats", "Statistics"), ("helmlite.claims", "Claims and verdicts"),
             ("helmlite.results", "Run folders"), ("helmlite.evaluation", "The run pipeline"),
             ("helmlite.scenarios", "Scenarios"), ("helmlite.models", "Models and backends"),
             ("helmlite.metrics", "Metric families"), ("helmlite.compare", "Paired comparison"),
             ("helmlite.planning", "Planning"), ("helmlite.data", "Data registry and fetcher"),
             ("helmlite.imports", "Importing other tools' runs"), ("helmlite.leaderboards", "Leaderboards"),
             ("helmlite.report", "Reports"), ("helmlite.analyses", "Analyses"), ("helmlite.workflow", "Workflow"))


def _attribute(face: types.ModuleType, name: str):
    """``face.name``, or its submodule of that name (a face may list a submodule it does not import itself)."""
    return getattr(face, name) if hasattr(face, name) else importlib.import_module(f"{face.__name__}.{name}")


def api_page() -> str:
    """One section per face of :data:`API_FACES`: its docstring, its functions and classes (autodoc, every name of
    ``__all__`` that is not a module, in ``__all__``'s order) and the submodules its ``__all__`` names."""
    parts = ["# Python API\n\nThe public faces of helmlite's packages, generated from their `__all__` and docstrings: what "
             "notebooks and your own code may import. The rest is private (`tests/test_architecture.py` enforces it); "
             "the [architecture page](../architecture.md) says which package owns what.\n"]
    for name, heading in API_FACES:
        face = importlib.import_module(name)
        public = list(getattr(face, "__all__", ()))
        modules = [n for n in public if isinstance(_attribute(face, n), types.ModuleType)]
        members = [n for n in public if n not in modules]
        parts.append(f"## {heading}: `{name}`\n\n```{{eval-rst}}\n.. automodule:: {name}\n"
                     + (f"   :members: {', '.join(members)}\n" if members else "   :no-members:\n") + "```\n")
        if modules:
            rows = [f"| `{name}.{n}` | {_cell((inspect.getdoc(_attribute(face, n)) or '').split(chr(10) * 2)[0])} |"
                    for n in modules]
            parts.append("Submodules it names:\n\n| module | what it holds |\n|---|---|\n" + "\n".join(rows) + "\n")
    return "\n".join(parts)


def pages() -> dict[str, str]:
    out = {"cli.md": cli_index(), "config.md": config_page(), "fidelity.md": fidelity_page(), "api.md": api_page()}
    out.update({f"cli/{name}.md": command_page(name, summary, parser) for name, summary, parser in commands()})
    return out


def _write(app) -> None:
    for relative, text in pages().items():
        path = GENERATED / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")


def setup(app):
    app.connect("builder-inited", _write)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
