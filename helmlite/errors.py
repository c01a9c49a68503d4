"""The one error hierarchy of helmlite.

* :class:`HelmliteError` — the base of every expected failure; the CLI catches it (and only it) and
  reports it in one line with exit status 2.
* :class:`UserError` — a bad value given by the user: config, run spec,
  scenario/model/metric name, notebook parameter, command-line argument.
* :class:`DataError` — a data file that is missing, failed verification, or does not have the expected
  shape.

Both subclass ``ValueError`` as well, so library callers can keep catching ``ValueError``; a plain
``ValueError`` from a bug is not a ``HelmliteError`` and keeps its traceback. Each module's own error
class (``ConfigError``, ``RunError``, ``FetchError``, ...) subclasses one of these. Messages about an unknown name
(scenario, model, metric, data file) end with :func:`did_you_mean`'s suggestions.
"""
import difflib
from typing import Iterable


class HelmliteError(Exception):
    """An expected failure; the message names the file, field or name and what was expected."""

    def __str__(self) -> str:
        """The message itself, also for ``KeyError`` subclasses (which would ``repr()`` it)."""
        if len(self.args) == 1 and isinstance(self.args[0], str):
            return self.args[0]
        return super().__str__()


class UserError(HelmliteError, ValueError):
    """A bad user-given value (config, run spec, name, argument); the message names the field and what was expected."""


class DataError(HelmliteError, ValueError):
    """A data file that is missing, unverifiable or malformed; the message names the file (and line or field)."""


def did_you_mean(name: str, known: Iterable[str], cutoff: float = 0.5) -> str:
    """`` Did you mean: a, b?`` for close matches of ``name`` among ``known``, else an empty string."""
    close = difflib.get_close_matches(name, list(known), n=3, cutoff=cutoff)
    return f" Did you mean: {', '.join(close)}?" if close else ""
