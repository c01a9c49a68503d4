"""Language models: one protocol, the transformers backend in this process and backends registered by name prefix
(:mod:`.backends`, each found on import; ``openai:`` for OpenAI-compatible servers), a request cache."""
from __future__ import annotations

from importlib import import_module
from pathlib import Path

from ._base import (Generation, GenerationRequest, LanguageModel, ModelError, Scores, ScoreRequest,
                    apply_stop)
from ..errors import did_you_mean
from ._identity import local_model_key, model_dir_problem
from .devices import DEFAULT_DTYPE, check_dtype, cpu_model, resolve_device
from .whitespace import WhitespaceTokens
from .embedded import EMBEDDED, model_dir, prepare, status
from .backends import backend, discover, served_by

#: Names that need torch, imported on first use (PEP 562): an install without the ``models`` extra (OpenAI-compatible
#: servers only) imports this package without torch.
_LAZY = {"TransformersModel": "transformers_backend", "Work": "work_counting", "WorkCounter": "work_counting"}
#: The transformers backend's source files, with its token-counting hook's: what the planner's measured rates depend on.
COUNTING_SOURCES = ("transformers_backend", "packing", "prefix_cache", "pair_encoding", "work_counting", "encodings")

#: The public surface: the protocol and records, the loaders, the planner's token-counting hook (:func:`work_counter`),
#: and the submodules other packages use (the request cache, the embedded models, the transformers backend with its
#: packing and prefix-cache halves).
__all__ = ["COUNTING_SOURCES", "EMBEDDED", "Generation", "GenerationRequest", "LanguageModel", "ModelError", "Scores",
           "ScoreRequest", "WhitespaceTokens", "apply_stop", "backend", "counting_source_files", "cpu_model", "load_model",
           "local_model_key", "model_dir", "model_dir_problem", "model_path", "prepare", "resolve_device", "served_by",
           "status", "unknown_model_message", "work_counter", *sorted(_LAZY),
           "backends", "cache", "devices", "embedded", "packing", "prefix_cache", "transformers_backend",
           "whitespace"]


def __getattr__(name: str):
    """Import on first use (PEP 562): the names of :data:`_LAZY`, which need torch."""
    if name in _LAZY:
        return getattr(import_module(f".{_LAZY[name]}", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def model_path(name: str) -> Path | None:
    """The local weights of ``name``: a prepared embedded model's folder or a model directory; None for a server model
    or an embedded model not prepared yet."""
    path = model_dir() / name if name in EMBEDDED else Path(name)
    return path if served_by(name) is None and path.is_dir() else None


def work_counter(name: str, *, batch_size: int = 8, exact_paths: bool = True):
    """The token-counting hook the planner calls: for a model of a registered backend, the counter that backend
    registered (``@backend(prefix, counter=...)``; None when it has none); for an embedded model or a model directory,
    a :class:`~.work_counting.WorkCounter` (the transformers backend with its forwards replaced by counts;
    ``exact_paths=False`` for a GPU or half-precision run, which reuses no prefix and packs no rows), or None when its
    weights are not there."""
    served = served_by(name)
    if served is not None:
        return served.counter(name[len(served.prefix):], batch_size=batch_size) if served.counter else None
    path = model_path(name)
    if path is None:
        return None
    from .work_counting import WorkCounter

    return WorkCounter(path, name=name, batch_size=batch_size, exact_paths=exact_paths)


def counting_source_files() -> list[Path]:
    """The files of :data:`COUNTING_SOURCES`: the planner keys its cached rates by their contents."""
    here = Path(__file__).resolve().parent
    return [here / f"{module}.py" for module in COUNTING_SOURCES]


def load_model(name: str, *, threads: int = 1, batch_size: int = 8, device: str = "cpu",
               dtype: str = DEFAULT_DTYPE) -> LanguageModel:
    """An embedded model name (must be prepared), ``openai:<model>`` for a server named by
    ``$HELMLITE_OPENAI_BASE_URL``, or a local transformers model directory; ``device`` and ``dtype`` place a
    transformers model (:mod:`helmlite.models.devices`; a server keeps its own)."""
    check_dtype(dtype)
    served = served_by(name)
    if served is not None:
        return served.load(name[len(served.prefix):], dtype=dtype, threads=threads, batch_size=batch_size, device=device)
    if name in EMBEDDED:
        path = model_dir() / name
        if not path.is_dir():
            raise ModelError(f"embedded model {name!r} is not prepared in {model_dir()}; run `helmlite models prepare {name}` "
                             "(or point $HELMLITE_HOME or $HELMLITE_MODEL_DIR at the folder that holds it)")
    else:
        problem = unknown_model_message(name)
        if problem:
            raise ModelError(problem)
        path = Path(name)
    from .transformers_backend import TransformersModel

    return TransformersModel(path, name=name if name in EMBEDDED else None, threads=threads, batch_size=batch_size,
                             device=device, dtype=dtype)


def unknown_model_message(name: str) -> str | None:
    """Why ``name`` names no model (None when it does): an embedded model, ``openai:<model>`` or a local
    directory that holds a loadable model (:func:`helmlite.models._identity.model_dir_problem`). Cheap (no engine
    import, no weights read), so a config can be checked before any run starts."""
    if name in EMBEDDED or served_by(name) is not None:
        return None
    if Path(name).is_dir():
        return model_dir_problem(Path(name))
    servers = ", ".join(f"'{prefix}<model>'" for prefix in discover())
    return (f"unknown model {name!r}: not an embedded model ({', '.join(EMBEDDED)}), not a server model ({servers}), "
            f"and not a local model directory.{did_you_mean(name, EMBEDDED, 0.4)}")
