"""Provenance manifests: what produced a table or figure (versions, git hash, seeds, inputs + sha256).

Following lm-evaluation-harness's ``add_env_info``: every table/figure-producing step writes one
small JSON manifest beside its outputs. It holds no timestamps, so identical inputs give an
identical manifest.
"""
from __future__ import annotations

import os
import platform
import subprocess
from importlib import metadata
from pathlib import Path

from .._io import write_json
from ..data import sha256_of

PACKAGES = ("helmlite", "numpy", "pandas", "scipy", "statsmodels", "matplotlib", "seaborn", "torch",
            "transformers", "snakemake", "papermill", "krippendorff", "scikit-learn")


def package_versions(names=PACKAGES) -> dict[str, str | None]:
    versions = {}
    for name in names:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = None
    return versions


def git_state(cwd: str | os.PathLike = ".") -> dict[str, str | bool | None]:
    """The commit checked out and whether tracked files differ from it (None outside a git checkout)."""
    def git(*args):
        return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=True).stdout.strip()

    try:
        return {"commit": git("rev-parse", "HEAD"), "dirty": bool(git("status", "--porcelain", "--untracked-files=no"))}
    except (OSError, subprocess.CalledProcessError):
        return {"commit": None, "dirty": None}


def build_manifest(*, step: str, inputs: dict[str, str | os.PathLike] | None = None, seeds: dict | None = None,
                   parameters: dict | None = None, outputs: list[str | os.PathLike] | None = None,
                   notes: list[str] | None = None) -> dict:
    """The manifest of one step; ``inputs`` maps a label to a file whose sha256 is recorded."""
    return {
        "step": step,
        "python": platform.python_version(),
        "packages": package_versions(),
        "git": git_state(),
        "seeds": seeds or {},
        "parameters": parameters or {},
        "inputs": {label: {"path": str(path), "sha256": sha256_of(Path(path))} for label, path in (inputs or {}).items()},
        "outputs": sorted(str(p) for p in (outputs or [])),
        "notes": notes or [],
    }


def write_manifest(target: str | os.PathLike, **kwargs) -> Path:
    """Build and atomically write a manifest (see :func:`build_manifest`)."""
    return write_json(target, build_manifest(**kwargs))
