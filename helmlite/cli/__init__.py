"""The ``helmlite`` command line, one module per command group (as inspect_ai's and lm-eval's ``_cli/``): ``main``
registers the groups and turns every expected failure into one line; ``options`` holds what commands share; each
group module has ``register(subparsers)`` and ``run(args)`` — ``data_and_models`` (fetch, models), ``run`` (run,
prompts), ``leaderboard``, ``imports`` (import), ``compare``, ``config`` (config, plan), ``reports`` (notebook,
html, index)."""
from .main import INTERRUPTED, build_parser, main
from .options import MIN_RESAMPLES
from .reports import NotebookError

__all__ = ["INTERRUPTED", "MIN_RESAMPLES", "NotebookError", "build_parser", "main"]
