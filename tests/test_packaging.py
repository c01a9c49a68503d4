"""Packaging: the declared dependencies cover every import, the pins agree, and a wheel installs and works
outside the checkout (it ships the config schema and the data registry)."""
from __future__ import annotations

import ast
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tomllib
import zipfile
from importlib.metadata import packages_distributions
from pathlib import Path

import pytest
from packaging.requirements import Requirement

from .conftest import REPO

PYPROJECT = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]


def normalize(name: str) -> str:
    """PEP 503 form of a distribution name (``rouge_score`` and ``Rouge-Score`` are one project)."""
    return re.sub(r"[-_.]+", "-", name).lower()


def names(requirements: list[str]) -> set[str]:
    return {normalize(Requirement(line).name) for line in requirements}


def pins(path) -> dict[str, str]:
    """``name -> version`` of a requirements or constraints file (comments and blank lines skipped)."""
    lines = [line.split("#")[0].strip() for line in path.read_text().splitlines()]
    return {normalize(Requirement(line).name): str(Requirement(line).specifier) for line in lines if line}


def imported_distributions(folder) -> set[str]:
    """The distributions that provide the third-party modules imported anywhere under ``folder``."""
    modules = set()
    for path in folder.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                modules.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                modules.add(node.module.split(".")[0])
    modules -= set(sys.stdlib_module_names) | {"helmlite"}
    providers = packages_distributions()
    missing = sorted(m for m in modules if m not in providers)
    assert not missing, f"imported but not installed: {missing}"
    return {normalize(dist) for module in modules for dist in providers[module]}


def test_every_imported_package_is_declared():
    """pyproject's dependencies and ``models`` extra, plus the --no-deps model packages, cover helmlite's imports; and
    the ``inspect`` extra, whose inspect_ai only ``helmlite import inspect`` imports (its absence is one error naming
    the extra, tests/test_import_inspect.py)."""
    extras = PYPROJECT["optional-dependencies"]
    declared = names(PYPROJECT["dependencies"]) | names(extras["models"]) | names(extras["inspect"])
    declared |= set(pins(REPO / "requirements-models.txt"))
    assert imported_distributions(REPO / "helmlite") - declared == set()


def test_pinned_requirements_mirror_pyproject_and_agree_with_the_constraints():
    """requirements.txt pins exactly the runtime dependencies (+ models), requirements-test.txt the test extra,
    requirements-docs.txt the docs extra, and every pin is the version constraints.txt holds."""
    extras = PYPROJECT["optional-dependencies"]
    assert set(pins(REPO / "requirements.txt")) == names(PYPROJECT["dependencies"]) | names(extras["models"])
    assert set(pins(REPO / "requirements-test.txt")) == names(extras["test"])
    assert set(pins(REPO / "requirements-docs.txt")) == names(extras["docs"])
    constraints = pins(REPO / "constraints.txt")
    for name in ("requirements.txt", "requirements-test.txt", "requirements-docs.txt"):
        for package, version in pins(REPO / name).items():
            assert constraints.get(package) == version, f"{name}: {package}{version} but constraints.txt has {constraints.get(package)}"


@pytest.mark.slow
def test_a_wheel_installs_and_validates_a_config_outside_the_checkout(tmp_path):
    """Build a wheel offline, install it (without dependencies) into a fresh venv that borrows this venv's
    packages through a .pth file, and run ``helmlite`` from a folder outside the checkout."""
    source = tmp_path / "source"  # a copy, so the build leaves no build/ or egg-info in the checkout
    source.mkdir()
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy2(REPO / name, source / name)
    shutil.copytree(REPO / "helmlite", source / "helmlite", ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "--quiet"]
    subprocess.run([*pip, "wheel", "--no-deps", "--no-build-isolation", "--no-index", "-w", str(tmp_path / "dist"),
                    str(source)], check=True, env=env, timeout=300)
    (wheel,) = (tmp_path / "dist").glob("helmlite-*.whl")
    contents = zipfile.ZipFile(wheel).namelist()
    assert {"helmlite/schema.yaml", "helmlite/data/registry.yaml", "helmlite/report/site.css",  # the reports' look
            "helmlite/report/templates/helmlite_report/index.html.j2", "helmlite/report/templates/helmlite_report/conf.json"
            } <= set(contents)
    assert any(name.endswith(".dist-info/licenses/LICENSE") for name in contents)

    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, env=env, timeout=120)
    python = venv / "bin" / "python"
    subprocess.run([*pip, "--python", str(python), "install", "--no-deps", "--no-index", str(wheel)], check=True, env=env,
                   timeout=300)
    site = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"], check=True,
                          env=env, capture_output=True, text=True).stdout.strip()
    (Path(site) / "dependencies.pth").write_text(sysconfig.get_path("purelib") + "\n")

    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    run = lambda *argv: subprocess.run([str(venv / "bin" / "helmlite"), *argv], cwd=elsewhere, env=env,  # noqa: E731
                                       capture_output=True, text=True, timeout=120)
    validated = run("config", str(REPO / "config" / "config.yaml"))
    assert validated.returncode == 0, validated.stderr
    assert "config.yaml: valid; analyses: " in validated.stdout
    version = run("--version")
    assert (version.returncode, version.stdout) == (0, f"helmlite {PYPROJECT['version']}\n")
    where = subprocess.run([str(python), "-c", "import helmlite.workflow as w; print(w.SCHEMA)"], cwd=elsewhere, env=env,
                           capture_output=True, text=True, check=True).stdout.strip()
    assert where == f"{site}/helmlite/schema.yaml"  # the installed copy, not the checkout's
