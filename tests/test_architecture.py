"""The package's shape, read from its source (AST): no import cycle, no private name or non-exported submodule
reached from another package, every module under 400 lines and every function under 80, the command-line
package's modules under 200, and ``helmlite/__init__.py``'s list of public modules true to the tree.

Rules (issue #50; anchors: inspect_ai's ``scorer/__init__.py`` re-exports its private modules, lm-eval's registry):

* a package is a folder with ``__init__.py``; a module belongs to the package of its folder;
* a module may import anything of its own package and of the packages that contain it (``helmlite._io`` is private
  to ``helmlite`` and so open to every module under it);
* from any other package only what the package exports: a name of its ``__init__``, or a submodule its ``__all__``
  names — never a ``_private`` module or name;
* imports count wherever they stand (module level, inside a function, under ``TYPE_CHECKING``): a cycle through a
  function-level import is still a cycle of ideas.
"""
from __future__ import annotations

import ast
import re
import importlib
import json
from collections import defaultdict
from functools import lru_cache
from pathlib import Path

import pytest
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import connected_components

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "helmlite"
MAX_MODULE_LINES, MAX_FUNCTION_LINES, MAX_CLI_MODULE_LINES = 400, 80, 200
#: Functions allowed past MAX_FUNCTION_LINES, each with the reason (none today).
LONG_FUNCTION_EXCEPTIONS: dict[str, str] = {}


def _modules() -> dict[str, Path]:
    out = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return out


MODULES = _modules()


def _package_of(module: str) -> str:
    return module if MODULES[module].name == "__init__.py" else module.rsplit(".", 1)[0]


def _absolute(module: str, node: ast.ImportFrom) -> str | None:
    if not node.level:
        return node.module
    base = _package_of(module).split(".")
    base = base[:len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def _lazy_imports(module: str, tree: ast.Module) -> list[tuple[str, str | None, int]]:
    """The imports a package's ``__init__`` makes on first use (PEP 562) from a literal ``{name: "submodule"}`` table
    (``_EXPORTS``, ``_LAZY``), which ``import_module`` reads as strings."""
    out = []
    for node in tree.body:
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Dict) and \
                any(getattr(t, "id", "") in ("_EXPORTS", "_LAZY") for t in node.targets):
            for key, value in zip(node.value.keys, node.value.values):
                out.append((f"{_package_of(module)}.{value.value}", key.value, node.lineno))
    return out


def _imports(module: str) -> list[tuple[str, str | None, int]]:
    """(imported helmlite module, imported name or None, line) for every import in ``module``'s source, including the
    lazy ones a package's ``__init__`` names as strings."""
    tree = ast.parse(MODULES[module].read_text())
    out = _lazy_imports(module, tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            target = _absolute(module, node)
            if target and target.split(".")[0] == "helmlite":
                for alias in node.names:
                    sub = f"{target}.{alias.name}"
                    out.append((sub, None, node.lineno) if sub in MODULES else (target, alias.name, node.lineno))
        elif isinstance(node, ast.Import):
            out += [(alias.name, None, node.lineno) for alias in node.names if alias.name.split(".")[0] == "helmlite"]
    return [(target, name, line) for target, name, line in out if target in MODULES]


@lru_cache(maxsize=None)
def _exported(package: str) -> frozenset[str]:
    return frozenset(getattr(importlib.import_module(package), "__all__", ()))


def _within(module: str, package: str) -> bool:
    return f"{module}.".startswith(f"{package}.")


def _violations(module: str, imports: list | None = None) -> list[str]:
    out = []
    for target, name, line in _imports(module) if imports is None else imports:
        owner = _package_of(target)
        where = f"{MODULES[module].relative_to(ROOT)}:{line}"
        if name and name.startswith("_") and not name.startswith("__") and _package_of(module) != owner:
            out.append(f"{where}: private name {name} of {target}")  # private to its folder, subpackages included
            continue
        if _within(module, owner):
            continue
        leaf = target.rsplit(".", 1)[-1]
        if name and name.startswith("_") and not name.startswith("__"):
            out.append(f"{where}: private name {name} of {target}")
        if target != owner and leaf.startswith("_"):
            out.append(f"{where}: private module {target}")
        elif target != owner and leaf not in _exported(owner):
            out.append(f"{where}: {target} is not exported by {owner} (add it to its __all__ or import from {owner})")
    return out


@pytest.mark.parametrize("module, imported, expected", [
    # the issue's own cases (before the change): a private name and a private module across packages, a submodule
    # its package does not export; then what stays allowed: a package's face, a private module of a containing package
    ("helmlite.planning.rates", ("helmlite.models", "TransformersModel"), None),
    ("helmlite.planning.rates", ("helmlite.models.packing", "_private_helper"), "private name _private_helper"),
    ("helmlite.metrics.selection", ("helmlite.scenarios._base", None), "private module helmlite.scenarios._base"),
    ("helmlite.cli.run", ("helmlite.analyses.helm_core.live", None), "is not exported by helmlite.analyses.helm_core"),
    ("helmlite.cli.run", ("helmlite.models", "load_model"), None),
    ("helmlite.scenarios.mmlu", ("helmlite._jsonl", None), None),
    # a private name of a top-level module is private to helmlite's own folder, not to every subpackage
    ("helmlite.cli.run", ("helmlite.evaluation.runspec", "_private"), "private name _private"),
    ("helmlite.evaluation.runner", ("helmlite.evaluation.runspec", "_private"), None),
])
def test_the_rule_flags_what_it_should(module, imported, expected):
    """The checker itself on hand-made imports: each expected problem is reported, allowed imports are not."""
    found = _violations(module, [(imported[0], imported[1], 1)])
    assert (not found) if expected is None else (len(found) == 1 and expected in found[0]), found


def test_no_module_reaches_a_private_name_or_an_unexported_submodule_of_another_package():
    problems = [problem for module in MODULES for problem in _violations(module)]
    assert not problems, "\n".join(problems)


def _cycles(modules: dict[str, list[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (scipy's, an independent implementation)."""
    names = sorted(modules)
    index = {name: k for k, name in enumerate(names)}
    rows, cols = zip(*[(index[a], index[b]) for a in names for b in modules[a] if b != a]) or ((), ())
    graph = csr_matrix(([1] * len(rows), (rows, cols)), shape=(len(names), len(names)))
    count, labels = connected_components(graph, directed=True, connection="strong")
    groups = defaultdict(list)
    for name, label in zip(names, labels):
        groups[label].append(name)
    return [group for group in groups.values() if len(group) > 1]


def test_the_cycle_finder_finds_a_cycle():
    """The finder itself, on hand-made graphs: a → b → c → a is one cycle; a chain has none."""
    assert _cycles({"a": ["b"], "b": ["c"], "c": ["a"], "d": ["a"]}) == [["a", "b", "c"]]
    assert _cycles({"a": ["b"], "b": ["c"], "c": []}) == []


def test_no_import_cycle():
    """Every import counts, a submodule's import of its own package's face too (issue #65: ``planning`` defined
    ``plan()`` in its ``__init__`` and its submodules imported it back inside functions — a cycle this test once left
    out). A package's face re-exports its submodules; a submodule imports its siblings, never its face."""
    graph = {module: sorted({target for target, _, _ in _imports(module)}) for module in MODULES}
    assert not _cycles(graph), _cycles(graph)


def test_no_two_packages_depend_on_each_other():
    """The packages form layers: collapsing every module to its top-level package (``helmlite.metrics.families`` →
    ``helmlite.metrics``; a root module is its own), no two depend on each other, directly or round a loop (issue #65:
    ``metrics`` read the pipeline's adapter and perturbation kinds and ``scenarios`` its subsample, while the pipeline
    imported both)."""
    def package(module: str) -> str:
        return ".".join(module.split(".")[:2])

    graph = defaultdict(set)
    for module in MODULES:
        graph[package(module)] |= {package(target) for target, _, _ in _imports(module) if target.startswith("helmlite.")}
    assert not _cycles({name: sorted(targets - {name}) for name, targets in graph.items()})


def test_module_and_function_sizes():
    too_long = []
    for module, path in MODULES.items():
        lines = len(path.read_text().splitlines())
        limit = MAX_CLI_MODULE_LINES if _within(module, "helmlite.cli") else MAX_MODULE_LINES
        if lines > limit:
            too_long.append(f"{path.relative_to(ROOT)}: {lines} lines > {limit}")
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                length = node.end_lineno - node.lineno + 1
                if length > MAX_FUNCTION_LINES and f"{module}.{node.name}" not in LONG_FUNCTION_EXCEPTIONS:
                    too_long.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.name}: {length} lines > {MAX_FUNCTION_LINES}")
    assert not too_long, "\n".join(too_long)


def test_the_package_lists_its_public_modules_truthfully():
    """``helmlite.PUBLIC_MODULES`` names exactly the public (non-underscore) modules and packages at the top level."""
    import helmlite

    on_disk = {module.split(".")[1] for module in MODULES if module.count(".") >= 1
               and not module.split(".")[1].startswith("_")}
    assert set(helmlite.PUBLIC_MODULES) == on_disk




def test_the_planner_reaches_the_models_package_only_through_its_face():
    """planning/ counts tokens through the backend's hook (``helmlite.models.work_counter``) and imports no backend
    module: of the models package, only its face (issue #65)."""
    reached = sorted({(module, target) for module in MODULES if module.startswith("helmlite.planning")
                      for target, _, _ in _imports(module) if target.startswith("helmlite.models.")})
    assert reached == []
    # nor by the back door: a script it runs in a subprocess (the loaded-memory probe) or the wrapped transformers
    # model's attributes (``model.model``: the backend's public methods serve the calibration instead)
    for module, path in MODULES.items():
        if module.startswith("helmlite.planning"):
            text = path.read_text(encoding="utf-8")
            assert not re.search(r"(?:from|import) helmlite\.models\.", text), module
            assert "model.model" not in text, module

#: The root keeps the cross-cutting modules only (errors, home, seeds, plots, catalog, grids, compare, file I/O); the
#: run pipeline lives in helmlite/evaluation/ (issue #65: at most 12 modules at the root, __init__ and __main__ counted).
MAX_ROOT_MODULES = 12


def test_the_root_holds_only_the_cross_cutting_modules():
    root = sorted(path.name for path in PACKAGE.glob("*.py"))
    assert len(root) <= MAX_ROOT_MODULES, root
    pipeline = {"runspec.py", "instances.py", "adaptation.py", "perturbations.py", "shared_prefixes.py", "runner.py",
                "outcomes.py", "scoring_rules.py"}
    assert not pipeline & set(root) and pipeline <= {p.name for p in (PACKAGE / "evaluation").glob("*.py")}

ANALYSES = sorted(p.name for p in (PACKAGE / "analyses").iterdir() if (p / "__init__.py").exists())
ROLES = ("claims.py", "reproduction.py", "reference.py", "figures.py")
#: Roles an analysis does not have, with the reason (an empty module would be a stub).
NO_ROLE = {
    ("helpsteer2", "claims.py"): "notebook 05 reproduces the card's aggregation and tests no statistical claim",
    ("sensitivity", "reference.py"): "HELM §8.2 reports its sensitivity findings as figures of models the kit cannot run: "
                                     "no published number is cited or recomputed",
    ("sensitivity", "reproduction.py"): "as above: notebook 02 tests HELM's claims on the embedded models (claims.py)",
    ("methods_lab", "claims.py"): "notebook 06 teaches with simulations; it tests no claim about a model",
    ("methods_lab", "reference.py"): "notebook 06 reproduces no paper: it cites no published number",
    ("methods_lab", "reproduction.py"): "as above: there is no published value to check",
}


@pytest.mark.parametrize("analysis", ANALYSES)
def test_every_analysis_package_has_the_same_roles(analysis):
    """Every analysis package has claims, reproduction, reference and figures modules beside its computation (the
    exceptions in :data:`NO_ROLE` say why), and its face exports each of them."""
    folder = PACKAGE / "analyses" / analysis
    missing = [role for role in ROLES if not (folder / role).exists() and (analysis, role) not in NO_ROLE]
    assert not missing, f"helmlite/analyses/{analysis} lacks {missing}"
    stale = [role for role in ROLES if (folder / role).exists() and (analysis, role) in NO_ROLE]
    assert not stale, f"{stale} exist: remove them from NO_ROLE"
    exported = _exported(f"helmlite.analyses.{analysis}")
    assert {role[:-3] for role in ROLES if (folder / role).exists()} <= exported


def _notebook_imports(path: Path) -> list[tuple[str, str | None]]:
    """(module, name) for every helmlite import in a notebook's code cells."""
    out = []
    for cell in json.loads(path.read_text())["cells"]:
        if cell["cell_type"] != "code":
            continue
        for node in ast.walk(ast.parse("".join(cell["source"]))):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "helmlite":
                out += [(node.module, alias.name) for alias in node.names]
            elif isinstance(node, ast.Import):
                out += [(alias.name, None) for alias in node.names if alias.name.split(".")[0] == "helmlite"]
    return out


def _public_to_a_notebook(module: str, name: str | None) -> bool:
    """A package's exported name, or a public top-level module of helmlite (and its names)."""
    import helmlite

    if module not in MODULES or any(part.startswith("_") for part in module.split(".")) or (name or "x").startswith("_"):
        return False
    if MODULES[module].name == "__init__.py":
        exported = set(helmlite.PUBLIC_MODULES) | set(helmlite.__all__) if module == "helmlite" else _exported(module)
        return name is None or name in exported
    return module.count(".") == 1  # helmlite.<module>: a public top-level module


@pytest.mark.parametrize("notebook", sorted((ROOT / "notebooks").glob("*.ipynb")), ids=lambda p: p.stem)
def test_notebooks_use_only_public_faces(notebook):
    """A notebook imports helmlite's public modules and its own analysis package's face (the names its ``__init__``
    exports) — never a submodule past a package's face, a private name, or another analysis's package."""
    from helmlite.catalog import ANALYSES

    own = next(a.key for a in ANALYSES.values() if a.notebook == notebook.stem)
    imports = _notebook_imports(notebook)
    bad = [f"{module}:{name}" for module, name in imports if not _public_to_a_notebook(module, name)]
    analyses = {(name if module == "helmlite.analyses" else module.split(".")[2])
                for module, name in imports if module.startswith("helmlite.analyses")}
    assert not bad, f"{notebook.name} imports {bad}"
    assert analyses == {own}, f"{notebook.name} uses the analysis packages {analyses}, not only its own ({own})"


def _workflow_imports() -> list[tuple[str, str, str]]:
    """(file, module, name) of every ``from helmlite… import …`` line in the Snakefile and rules/*.smk (Snakemake's
    language is not Python, so these are read line by line)."""
    import re

    out = []
    for path in [ROOT / "Snakefile", *sorted((ROOT / "rules").glob("*.smk"))]:
        text = path.read_text()
        for match in re.finditer(r"^\s*from (helmlite[\w.]*) import (\([^)]*\)|[^\n]+)", text, re.M):
            names = match.group(2).strip("()").replace("\n", " ").split(",")
            out += [(path.name, match.group(1), name.strip().split(" as ")[0]) for name in names if name.strip()]
        out += [(path.name, name.strip().split(" as ")[0], None)
                for match in re.finditer(r"^\s*import (helmlite[\w., ]*)$", text, re.M) for name in match.group(1).split(",")]
    return out


def test_the_workflow_uses_only_public_faces():
    """The Snakefile and its rules import what helmlite's packages export, as the notebooks do."""
    imports = _workflow_imports()
    assert imports, "the rules import helmlite somewhere"
    bad = [f"{file}: {module}:{name}" for file, module, name in imports if not _public_to_a_notebook(module, name)]
    assert not bad, bad


def test_the_architecture_page_names_every_public_module():
    """The architecture page's module table (``| module | owns |``) names each public module or package of the tree."""
    import helmlite

    text = (ROOT / "docs" / "reference" / "architecture.md").read_text()
    table = text[text.index("| module | owns |"):]
    table = table[:table.index("\n\n")]
    import re

    missing = [name for name in helmlite.PUBLIC_MODULES
               if f"helmlite/{name}/" not in table and f"{name}.py`" not in table]
    assert not missing, f"the architecture page's table lacks {missing}"
    named = re.findall(r"`(helmlite/[\w/<>]+?(?:\.py)?)`", table)
    absent = [path for path in named if "<" not in path and not (ROOT / path).exists()]
    assert not absent, f"the architecture page's table names {absent}, which the tree lacks"
    rows = [row.split("|")[1] for row in table.splitlines()[2:]]
    assert len(rows) == len(set(rows)), "a module has two rows"
    for path in named:
        assert sum(f"`{path}`" in row for row in rows) == 1, f"{path} is named in more than one row"


def test_no_file_of_the_package_is_ignored_by_git():
    """A package module that .gitignore matches (``results/`` once matched ``helmlite/results/``) works in the
    checkout that made it and is missing from every clone."""
    import shutil
    import subprocess

    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    files = [str(path.relative_to(ROOT)) for path in PACKAGE.rglob("*") if path.is_file() and "__pycache__" not in path.parts]
    ignored = subprocess.run(["git", "check-ignore", "--no-index", *files], cwd=ROOT, capture_output=True, text=True).stdout
    assert not ignored.split(), f"ignored by .gitignore: {ignored.split()}"


def test_where_a_new_thing_goes_names_real_places():
    """The architecture page's "Where a new thing goes": every path it names exists, and each registry it names is the one the
    code uses (scenarios found on import, metric_family, backend)."""
    import re

    text = (ROOT / "docs" / "reference" / "architecture.md").read_text(encoding="utf-8")
    section = text[text.index("## Where a new thing goes"):text.index("`tests/test_architecture.py` checks that every path")]
    paths = re.findall(r"`((?:helmlite|notebooks|tests)/[^`]*)`", section)
    assert len(paths) >= 8, paths
    assert not [p for p in paths if not (ROOT / p).exists()], paths
    from helmlite.metrics.registry import metric_family
    from helmlite.models import backend

    assert "metric_family(...)" in section and metric_family.__module__ == "helmlite.metrics.registry"
    assert '@backend("<prefix>:")' in section and backend.__module__ == "helmlite.models.backends.registry"
