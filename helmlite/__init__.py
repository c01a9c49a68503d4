"""helmlite: a notebook-first replication kit for language-model evaluation papers.

Public surface (everything else is private to its module):

* :mod:`helmlite.data` — registry of external files and the verifying, mirror-aware fetcher;
* :mod:`helmlite.stats` — seeded, vectorised bootstrap CIs (percentile, BCa), paired bootstrap,
  correlation CIs;
* :mod:`helmlite.plots` — the figure style and ``save(fig, name)``; ``write_csv`` — deterministic, atomic tables;
* :mod:`helmlite.results` — the run-folder contract (read, write, validate runs);
* :mod:`helmlite.provenance` — manifests of what produced each output;
* :mod:`helmlite.analyses` — the logic behind each notebook.
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


def __getattr__(name: str):
    """Import on first use (PEP 562): ``import helmlite.workflow`` stays fast (the Snakefile parses on every run)."""
    if name in _EXPORTS:
        return getattr(import_module(f".{_EXPORTS[name]}", __name__), name)
    raise AttributeError(f"module 'helmlite' has no attribute {name!r}")
