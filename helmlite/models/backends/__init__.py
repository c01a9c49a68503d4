"""Backends registered by model-name prefix, found on first use (the scenarios' way): every module of this package
other than :mod:`.registry` registers its loader with ``@backend("<prefix>:")`` when it is imported, and the first
lookup of a model name imports them all (:func:`.registry.discover`) — a new backend is one new module here plus its
test, with no list to edit. :mod:`.openai_compatible` serves ``openai:<model>`` (vLLM, llama.cpp and other
OpenAI-compatible servers).

A backend module must not import torch at module level: an install without the ``models`` extra (servers only)
imports this package."""
from __future__ import annotations

from .registry import REGISTRY, Backend, backend, discover, served_by

__all__ = ["REGISTRY", "Backend", "backend", "discover", "served_by"]
