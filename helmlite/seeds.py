"""Seeds derived with hashlib from named parts (never Python's salted ``hash()`` or global state)."""
from __future__ import annotations

import hashlib

import numpy as np


def derive_seed(*parts: object) -> int:
    """A 63-bit seed from the SHA-256 of the parts' text, e.g. ``derive_seed(run_id, "bootstrap")``."""
    text = "\x1f".join(str(part) for part in parts)
    return int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest()[:8], "big") >> 1


def rng(*parts: object) -> np.random.Generator:
    """A numpy Generator seeded by :func:`derive_seed` of the parts."""
    return np.random.default_rng(derive_seed(*parts))
