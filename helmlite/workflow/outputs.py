"""What a config makes: the enabled analyses, their output folders and files, each notebook's parameters, the data
to fetch, and when the last invocation started (for the index's wall time)."""
from __future__ import annotations

import os
import time
from pathlib import Path

from ..catalog import ANALYSES, Analysis


def enabled(config: dict) -> list[Analysis]:
    return [ANALYSES[key] for key in config["analyses"]]


def output_dirs(config: dict) -> dict[str, str]:
    """figures/, tables/, reports/ under ``output_dir``; Snakemake logs, per-job benchmarks and tables of
    wall-clock measurements (``measured``: they differ between runs, unlike tables/) under its results/."""
    root = config["output_dir"]
    dirs = {kind: os.path.normpath(os.path.join(root, kind)) for kind in ("figures", "tables", "reports")}
    dirs.update({kind: os.path.normpath(os.path.join(root, "results", kind)) for kind in ("logs", "benchmarks", "measured")})
    return dirs


def outputs(config: dict, analysis: Analysis) -> dict[str, list[str] | str]:
    """Every file the notebook writes, by kind."""
    dirs = output_dirs(config)
    return {
        "notebook": f"{dirs['reports']}/{analysis.notebook}.ipynb",
        "figures": [f"{dirs['figures']}/{name}.{ext}" for name in analysis.figures for ext in ("png", "pdf")],
        "tables": [f"{dirs['tables']}/{name}.csv" for name in analysis.tables],
        "measured": [f"{dirs['measured']}/{name}.csv" for name in analysis.measured],
        "manifest": f"{dirs['tables']}/{analysis.manifest}.json",
    }


def _start_file(config: dict) -> Path:
    return Path(output_dirs(config)["logs"], "workflow-start.txt")


def record_start(config: dict) -> None:
    """Note when this Snakemake invocation started (the Snakefile's ``onstart``, which a dry run skips), for the
    index's wall time."""
    from .._io import write_text

    write_text(_start_file(config), f"{time.time():.3f}\n")


def workflow_start(config: dict) -> float | None:
    """When the last Snakemake invocation on ``config``'s outputs started (seconds since the epoch), or None."""
    try:
        return float(_start_file(config).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
