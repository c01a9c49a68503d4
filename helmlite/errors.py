"""The error type for a bad value given by the user (run spec, scenario argument, metric or method name).

A ``ValueError`` subclass, so library callers can keep catching ``ValueError``; the CLI reports it in one
line (a plain ``ValueError`` from a bug keeps its traceback).
"""


class InputError(ValueError):
    """A bad user-given value; the message names the field and what was expected."""
