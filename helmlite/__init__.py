"""helmlite: a notebook-first replication kit for language-model evaluation papers.

Public surface (everything else is private to its module):

* :mod:`helmlite.data` — registry of external files and the verifying, mirror-aware fetcher;
* :mod:`helmlite.stats` — seeded, vectorised bootstrap CIs (percentile, BCa), paired bootstrap,
  correlation CIs;
* :mod:`helmlite.plots` — the figure style and ``save(fig, name)``;
* :mod:`helmlite.provenance` — manifests of what produced each output;
* :mod:`helmlite.analyses` — the logic behind each notebook.
"""
from importlib.metadata import PackageNotFoundError, version

from .data import FetchError, fetch
from .stats import Estimate, PairedComparison, bootstrap_ci, correlation_ci, paired_difference, summary

try:
    __version__ = version("helmlite")
except PackageNotFoundError:  # running from a source tree that was not installed
    __version__ = "0+unknown"

__all__ = ["Estimate", "FetchError", "PairedComparison", "bootstrap_ci", "correlation_ci", "fetch",
           "paired_difference", "summary"]
