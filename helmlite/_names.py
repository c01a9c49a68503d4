"""Did-you-mean suggestions for unknown names (scenarios, models, metrics, data files)."""
from __future__ import annotations

import difflib
from typing import Iterable


def did_you_mean(name: str, known: Iterable[str], cutoff: float = 0.5) -> str:
    """`` Did you mean: a, b?`` for close matches of ``name`` among ``known``, else an empty string."""
    close = difflib.get_close_matches(name, list(known), n=3, cutoff=cutoff)
    return f" Did you mean: {', '.join(close)}?" if close else ""
