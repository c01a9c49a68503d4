"""Backends by name prefix (issue #65, the scenarios' way: a new one is a module of :mod:`helmlite.models.backends` that
registers itself, found the first time a name is looked up — :func:`discover`). A model name
that starts with a registered prefix — ``openai:<model>`` for an OpenAI-compatible server — goes to that backend's
loader; any other name is an embedded model or a local model directory, run in this process by transformers
(:func:`helmlite.models.load_model`). Who asks: the loader, the run id (a server model's name is its key), the
config check (a server model needs no weights), the run command (no local device to resolve for a server) and the
planner, which counts a run's tokens through the backend's counting hook (:func:`helmlite.models.work_counter`)."""
from __future__ import annotations

import importlib
import pkgutil
from dataclasses import dataclass
from typing import Callable

from ...errors import UserError


@dataclass(frozen=True)
class Backend:
    """A registered backend: the name ``prefix`` it serves and ``load(model, *, dtype, threads, batch_size, device)``,
    which gets the name past the prefix and the placement the run asks for (a server keeps its own; it may refuse a
    placement it cannot honour, with one clear error); and optionally ``counter(model, *, batch_size)``, the
    planner's token-counting hook: what counts a run's work for that model without running it — an object that
    sizes prompts as the model does (``count_tokens``, ``truncate_left``, ``max_context``, ``apply_chat_template``,
    as :class:`~helmlite.models.whitespace.WhitespaceTokens` has) and returns a run's
    :class:`~helmlite.models.work_counting.Work` from ``count(requests, chunk_size)``. Without one the planner
    counts instances only. Either way a served model's runs are not priced: this machine's rates time the
    transformers backend here, not a server (:func:`helmlite.planning.planner.priced_here`)."""

    prefix: str
    load: Callable
    counter: Callable | None = None


#: The backends registered so far, by prefix.
REGISTRY: dict[str, Backend] = {}


def backend(prefix: str, *, counter: Callable | None = None) -> Callable:
    """Register the decorated loader for model names that start with ``prefix`` (which ends with ":"), with its
    token-counting hook ``counter`` if it has one; a prefix serves one backend."""
    if not prefix.endswith(":"):
        raise UserError(f"backend prefix {prefix!r} must end with ':' (as in 'openai:')")

    def register(load: Callable) -> Callable:
        if prefix in REGISTRY and REGISTRY[prefix].load is not load:
            raise UserError(f"backend prefix {prefix!r} is already registered ({REGISTRY[prefix].load.__module__})")
        REGISTRY[prefix] = Backend(prefix, load, counter)
        return load

    return register


_discovered = False


def discover() -> dict[str, Backend]:
    """Import every module of the :mod:`helmlite.models.backends` package but this one, once (each registers its
    prefix), and return the registry. Run at the first lookup rather than when the package is imported, so a backend
    module may import what it needs from :mod:`helmlite.models` (the face is complete by then)."""
    global _discovered
    if not _discovered:
        package = importlib.import_module(__package__)
        for module in pkgutil.iter_modules(package.__path__):
            if module.name != __name__.rsplit(".", 1)[1]:
                importlib.import_module(f"{__package__}.{module.name}")
        _discovered = True  # only once every module imported: a backend whose import failed fails again, not silently
    return REGISTRY


def served_by(name: str) -> Backend | None:
    """The registered backend whose prefix ``name`` starts with, or None for a model this process runs (embedded or a
    local directory)."""
    return next((b for prefix, b in discover().items() if name.startswith(prefix)), None)
