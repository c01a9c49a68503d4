"""helmlite: a notebook-first replication kit for language-model evaluation papers.

Public surface — :data:`PUBLIC_MODULES`, one idea each (an underscore module is private to the package); a package's
``__all__`` names what other packages and the notebooks may use of it:

* running evaluations: :mod:`~helmlite.scenarios` (loaders), :mod:`~helmlite.evaluation` (the run pipeline: run
  specs, instances, prompts under HELM's rules, perturbations, the runner), :mod:`~helmlite.models`,
  :mod:`~helmlite.metrics`, :mod:`~helmlite.results` (the run-folder contract and provenance manifests),
  :mod:`~helmlite.imports` (crfm-helm, lm-eval, inspect_ai runs), :mod:`~helmlite.compare`;
* statistics and verdicts: :mod:`~helmlite.stats`, :mod:`~helmlite.claims` (claims and reproduction checks),
  :mod:`~helmlite.leaderboards`, :mod:`~helmlite.seeds`;
* the workflow and its reports: :mod:`~helmlite.workflow`, :mod:`~helmlite.catalog`, :mod:`~helmlite.grids`,
  :mod:`~helmlite.planning`, :mod:`~helmlite.plots`, :mod:`~helmlite.report` (notebook set-up, outputs, pages),
  :mod:`~helmlite.analyses` (the logic behind each notebook), :mod:`~helmlite.cli`;
* around them: :mod:`~helmlite.data` (registry and mirror-aware fetcher), :mod:`~helmlite.home`, :mod:`~helmlite.errors`.
"""
import logging
import sys
from importlib import import_module
from importlib.metadata import PackageNotFoundError, version


def _log_handler() -> logging.Handler:
    """Where helmlite's warnings go (e.g. optional data that cannot be fetched). A library stays silent until the program
    using it says where messages go (the logging HOWTO's rule): `helmlite`'s commands add a stderr handler. In a
    notebook kernel they go to the kernel process's own stderr: under `helmlite notebook` (which starts the kernel
    without fd capture) that is the job's log, never a cell's output or the report; in an interactive Jupyter the
    user sees them."""
    if "ipykernel" not in sys.modules:
        return logging.NullHandler()
    handler = logging.StreamHandler(sys.__stderr__)
    handler.setFormatter(logging.Formatter("helmlite: %(message)s"))
    return handler


logging.getLogger(__name__).addHandler(_log_handler())

try:
    __version__ = version("helmlite")
except PackageNotFoundError:  # running from a source tree that was not installed
    __version__ = "0+unknown"

_EXPORTS = {"FetchError": "data", "fetch": "data", "Estimate": "stats", "PairedComparison": "stats",
            "bootstrap_ci": "stats", "correlation_ci": "stats", "paired_difference": "stats", "summary": "stats",
            "write_csv": "_io"}
__all__ = sorted(_EXPORTS)
#: The public modules and packages (tested against the tree: tests/test_architecture.py).
PUBLIC_MODULES = ("analyses", "catalog", "claims", "cli", "compare", "data", "errors", "evaluation", "grids", "home",
                  "imports", "leaderboards", "metrics", "models", "planning", "plots", "report", "results", "scenarios",
                  "seeds", "stats", "workflow")


def __getattr__(name: str):
    """Import on first use (PEP 562): ``import helmlite.workflow`` stays fast (the Snakefile parses on every run)."""
    if name in _EXPORTS:
        return getattr(import_module(f".{_EXPORTS[name]}", __name__), name)
    raise AttributeError(f"module 'helmlite' has no attribute {name!r}")
