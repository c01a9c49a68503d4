"""The model interface: three operations, as in lm-evaluation-harness's ``LM`` (``lm_eval/api/model.py``).

* ``generate`` — greedy (or seeded sampling) continuation of a prompt until ``max_tokens`` or a stop
  sequence, with the per-token log-probabilities of what was generated;
* ``score`` — summed and per-token log-probabilities of each continuation given a prompt;
* tokenizer access (``count_tokens``, ``truncate_left``) for lengths and truncation.

Backends: :mod:`helmlite.models.transformers_backend` (the embedded models and any HF model directory)
and :mod:`helmlite.models.backends.openai_compatible` (vLLM / llama.cpp servers). :class:`CachedModel` adds the
SQLite request cache in front of either.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Protocol, Sequence, runtime_checkable

from ..errors import HelmliteError


@dataclass(frozen=True)
class GenerationRequest:
    """A completion of ``prompt``; ``prefixes`` as for :class:`ScoreRequest` (the few-shot prefix a backend may
    encode once), part of the request and of its cache key."""

    prompt: str
    max_tokens: int = 16
    stop: tuple[str, ...] = ()
    temperature: float = 0.0
    seed: int = 0
    prefixes: tuple[int, ...] = ()

    def key(self) -> dict:
        return {"kind": "generate", **asdict(self)}


@dataclass(frozen=True)
class ScoreRequest:
    """Log-probabilities of each continuation after ``prompt``. ``prefixes``: lengths (in characters, increasing) of
    string prefixes of the prompt that other requests share — the run's instructions and in-context examples, then
    what an instance shares with its perturbed or baseline variants. A backend may encode each once and reuse it;
    they are part of the request (and of its cache key), so how it is computed depends on the request alone."""

    prompt: str
    continuations: tuple[str, ...]
    prefixes: tuple[int, ...] = ()

    def key(self) -> dict:
        return {"kind": "score", **asdict(self)}


@dataclass(frozen=True)
class Generation:
    text: str
    prompt_tokens: int
    output_tokens: int
    token_logprobs: tuple[float, ...] | None
    latency_s: float


@dataclass(frozen=True)
class Scores:
    logprobs: tuple[float, ...]  # summed log-probability of each continuation
    token_logprobs: tuple[tuple[float, ...], ...]
    token_counts: tuple[int, ...]
    prompt_tokens: int
    latency_s: float


class ModelError(HelmliteError, RuntimeError):
    """A model could not be loaded or a request could not be served; the message names which."""


def unloadable(path, error: Exception) -> ModelError:
    """The one line a model folder that the loaders refuse gives (an empty ``tokenizer.json``, a cut ``*.bin``): the
    folder, the loader's error type and the first words of its message — never the loaders' traceback."""
    words = " ".join(str(error).split()[:40]) or type(error).__name__
    return ModelError(f"could not load a transformers model from {path}: {type(error).__name__}: {words}")


@runtime_checkable
class LanguageModel(Protocol):
    #: The backend code's version: raise it when a change alters what the backend answers for the same request (the
    #: request cache then stops reusing the old answers; :func:`helmlite.models.cache.request_key`).
    code_version: int

    @property
    def identity(self) -> dict:
        """What makes outputs reproducible: backend, name and weights sha256 (or server URL + model)."""

    @property
    def max_context(self) -> int: ...

    def count_tokens(self, text: str) -> int: ...

    def truncate_left(self, text: str, max_tokens: int) -> str: ...

    def apply_chat_template(self, user_message: str) -> str:
        """The prompt as one user turn in the model's chat format (ModelError if it has none)."""

    def generate(self, requests: Sequence[GenerationRequest]) -> list[Generation]: ...

    def score(self, requests: Sequence[ScoreRequest]) -> list[Scores]: ...


def apply_stop(text: str, stop: Sequence[str]) -> str:
    """Cut ``text`` at each stop sequence in turn, in the request's order: crfm-helm's ``truncate_sequence``
    (``clients/client.py``, v0.5.16) and lm-eval's ``generate_until`` (``s.split(term)[0]`` per term) both do, so with
    overlapping stop sequences the order matters ("abc" with ("b", "ab") → "a", not ""). An empty stop sequence is
    skipped, as lm-eval skips it."""
    for sequence in stop:
        if sequence:
            text = text.split(sequence, 1)[0]
    return text


def helm_kept_tokens(pieces: Sequence[str], stop: Sequence[str]) -> int:
    """How many leading generated tokens crfm-helm keeps (``clients/client.py`` ``truncate_sequence``, v0.5.16): the
    tokens before the first whose own text (``pieces``: each token decoded alone) *starts with* a stop sequence. The
    completion's log-probability, and so HELM's ``max_prob`` = exp(it), sums those tokens only, while its text is
    cut at the stop sequence wherever it falls (:func:`apply_stop`): a token that holds the stop after other text
    (``"A\n"``) is kept."""
    return next((t for t, piece in enumerate(pieces) if any(piece.startswith(s) for s in stop if s)), len(pieces))


def split_context(context: str, continuation: str) -> tuple[str, str]:
    """Move trailing whitespace of the context onto the continuation (lm-eval's ``_encode_pair``)."""
    stripped = context.rstrip()
    return stripped, context[len(stripped):] + continuation
