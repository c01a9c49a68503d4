"""Checking a notebook's parameters (papermill injects them untyped) with one clear message per mistake."""
from __future__ import annotations

from ..errors import UserError


class ParameterError(UserError, TypeError):
    """A notebook parameter of the wrong type or value."""


def check_parameters(values: dict, expected: dict) -> None:
    """``expected`` maps a parameter name to a type or a tuple of types (``type(None)`` allows None)."""
    for name, kind in expected.items():
        value = values[name]
        kinds = kind if isinstance(kind, tuple) else (kind,)
        if isinstance(value, bool) and bool not in kinds or not isinstance(value, kinds):
            wanted = " or ".join(k.__name__ for k in kinds)
            raise ParameterError(f"notebook parameter {name!r} must be {wanted}, got {type(value).__name__} {value!r}")
