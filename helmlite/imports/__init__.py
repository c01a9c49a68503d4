"""Runs made elsewhere, as helmlite runs: crfm-helm run folders, lm-evaluation-harness ``--log_samples`` output and
inspect_ai evaluation logs.

Each importer reads the other tool's files, writes a run folder through :func:`helmlite.results.write_run`
(per-instance records, stats with helmlite's intervals, a manifest naming the source with its files'
sha256) and returns where it wrote; the notebooks' analyses (paired model differences, calibration) then
work on them as on native runs. Bad or partial input raises :class:`ImportFormatError` (a
:class:`~helmlite.errors.DataError`) naming the file and the field. CLI: ``helmlite import helm|lm-eval|inspect``.
"""
from ._common import ImportFormatError
from .helm import import_helm
from .inspect_log import import_inspect
from .lm_eval import import_lm_eval

__all__ = ["ImportFormatError", "import_helm", "import_inspect", "import_lm_eval"]
