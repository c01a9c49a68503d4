"""Language models: one protocol, the transformers backend in this process and backends registered by name prefix
(:mod:`.backends`; ``openai:`` for OpenAI-compatible servers), a request cache."""
from __future__ import annotations

from pathlib import Path

from ._base import (Generation, GenerationRequest, LanguageModel, ModelError, Scores, ScoreRequest,
                    apply_stop)
from ..errors import did_you_mean
from ._identity import local_model_key, model_dir_problem
from .devices import DEFAULT_DTYPE, check_dtype
from .embedded import EMBEDDED, model_dir, prepare, status
from .backends import REGISTRY, backend, served_by
from . import openai_backend  # noqa: F401  (registers "openai:")

#: The public surface: the protocol and records, the loaders, and the submodules other packages use (the request cache,
#: the embedded models, the transformers backend with its packing and prefix-cache halves, whitespace tokens).
__all__ = ["EMBEDDED", "Generation", "GenerationRequest", "LanguageModel", "ModelError", "Scores", "ScoreRequest",
           "apply_stop", "backend", "load_model", "served_by", "local_model_key", "model_dir", "model_dir_problem", "prepare", "status",
           "unknown_model_message",
           "backends", "cache", "devices", "embedded", "openai_backend", "packing", "prefix_cache", "transformers_backend", "whitespace"]


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
    servers = ", ".join(f"'{prefix}<model>'" for prefix in REGISTRY)
    return (f"unknown model {name!r}: not an embedded model ({', '.join(EMBEDDED)}), not a server model ({servers}), "
            f"and not a local model directory.{did_you_mean(name, EMBEDDED, 0.4)}")
