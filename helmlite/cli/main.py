"""The ``helmlite`` program: the parser each command group registers into, and :func:`main`, which turns every
expected failure into one line.

Every expected failure — a :class:`~helmlite.errors.HelmliteError` (bad config, unknown name, missing data, malformed
file) or a command-line usage mistake — ends with exactly one line ``helmlite: error: …`` on stderr and exit status 2,
never a traceback; Ctrl-C ends with one line and 130. ``python -m helmlite`` is the same command.
"""
from __future__ import annotations

import argparse
import contextlib
import os
import sys

from .. import __version__
from ..errors import HelmliteError
from . import compare, config, data_and_models, imports, leaderboard, reports, run
from .options import Parser

DESCRIPTION = ("``helmlite`` command line: ``fetch``, ``models``, ``run``, ``prompts``, ``leaderboard``, ``import``, "
               "``compare``, ``config``, ``plan``, ``notebook``, ``html``, ``index``.")
#: The command groups, in the order ``helmlite --help`` lists their commands.
GROUPS = (data_and_models, run, leaderboard, imports, compare, config, reports)
#: The one line Ctrl-C leaves: every write is atomic, so nothing is half written; a command that sends requests to a
#: model (:data:`RESUMABLE`) commits its answers to the request cache per chunk, so a rerun computes only what is missing.
INTERRUPTED = "helmlite: interrupted; nothing was half-written"
RESUMABLE = {"run": "helmlite: interrupted; rerun resumes from the cache"}


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(prog="helmlite", description=DESCRIPTION)
    parser.add_argument("--version", action="version", version=f"helmlite {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    for group in GROUPS:
        group.register(sub)
    return parser


def _log_to_stderr() -> None:
    """helmlite's warnings (e.g. optional data that cannot be fetched) as "helmlite: …" lines on stderr, once."""
    import logging

    logger = logging.getLogger("helmlite")
    if not any(getattr(handler, "_helmlite_cli", False) for handler in logger.handlers):
        handler = logging.StreamHandler()
        handler.setFormatter(logging.Formatter("helmlite: %(message)s"))
        handler._helmlite_cli = True
        logger.addHandler(handler)


def main(argv: list[str] | None = None) -> int:
    """Run the command; 0 on success, 2 (with one line on stderr) on a usage mistake or any :class:`HelmliteError`.

    ``--help`` and ``--version`` print and exit through ``SystemExit(0)``, as with any argparse program.
    """
    _log_to_stderr()
    interrupted = INTERRUPTED
    try:
        args = build_parser().parse_args(argv)
        interrupted = RESUMABLE.get(args.command, INTERRUPTED)
        with _interrupt_ends_quietly(interrupted):
            args.func(args)
            sys.stdout.flush()  # a closed pipe shows here, inside the handlers below
    except HelmliteError as error:
        return _error_line(str(error))
    except KeyboardInterrupt:
        print(interrupted, file=sys.stderr)
        return 130
    except BrokenPipeError:  # `helmlite prompts … | head -1`: the reader has what it wanted
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # Python's own advice: no second error at exit
        return 0
    except OSError as error:  # a path the system refuses (unwritable, not a folder, a folder where a file goes)
        where = f"{error.filename}: " if error.filename else ""
        return _error_line(f"{where}{error.strerror or error}")
    return 0


def _error_line(message: str) -> int:
    """Print ``helmlite: error: <message>`` on one line (even for multi-line messages: YAML errors); return 2."""
    print(f"helmlite: error: {' '.join(message.split())}", file=sys.stderr)
    return 2


@contextlib.contextmanager
def _interrupt_ends_quietly(message: str):
    """Ctrl-C ends the command with ``message`` (:data:`INTERRUPTED` or its :data:`RESUMABLE` form) and exit status 130, even where Python would swallow the
    KeyboardInterrupt: raised inside a ``__del__`` (e.g. a thread pool's), it is only reported as "Exception ignored"
    and the run went on (seen once in 11 tries), so such an interrupt ends the process at once."""
    previous = sys.unraisablehook

    def hook(unraisable):
        if isinstance(unraisable.exc_value, KeyboardInterrupt):
            print(message, file=sys.stderr, flush=True)
            os._exit(130)
        previous(unraisable)

    sys.unraisablehook = hook
    try:
        yield
    finally:
        sys.unraisablehook = previous
