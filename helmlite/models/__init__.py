"""Language models: one protocol, two backends (transformers, OpenAI-compatible HTTP), a request cache."""
from __future__ import annotations

from pathlib import Path

from ._base import (Generation, GenerationRequest, LanguageModel, ModelError, Scores, ScoreRequest,
                    apply_stop)
from .embedded import EMBEDDED, model_dir, prepare, status

__all__ = ["EMBEDDED", "Generation", "GenerationRequest", "LanguageModel", "ModelError", "Scores", "ScoreRequest",
           "apply_stop", "load_model", "model_dir", "prepare", "status"]


def load_model(name: str, *, threads: int = 1, batch_size: int = 8) -> LanguageModel:
    """An embedded model name (must be prepared), ``openai:<model>`` for a server named by
    ``$HELMLITE_OPENAI_BASE_URL``, or a local transformers model directory."""
    if name in EMBEDDED:
        path = model_dir() / name
        if not path.is_dir():
            raise ModelError(f"embedded model {name!r} is not prepared; run `helmlite models prepare {name}`")
        from .transformers_backend import TransformersModel

        return TransformersModel(path, name=name, threads=threads, batch_size=batch_size)
    if name.startswith("openai:"):
        from .openai_backend import OpenAIModel

        return OpenAIModel.from_env(name.split(":", 1)[1])
    path = Path(name)
    if path.is_dir():
        if not any(path.glob("*.safetensors")) and not any(path.glob("*.bin")):
            raise ModelError(f"model directory {path} has no weights (*.safetensors or *.bin)")
        from .transformers_backend import TransformersModel

        return TransformersModel(path, threads=threads, batch_size=batch_size)
    known = ", ".join(EMBEDDED)
    raise ModelError(f"unknown model {name!r}: not an embedded model ({known}), not 'openai:<model>', "
                     "and not a local model directory")
