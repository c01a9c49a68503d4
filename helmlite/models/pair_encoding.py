"""How a transformers model tokenizes what it scores (mixed into
:class:`~helmlite.models.transformers_backend.TransformersModel`, whose ``tokenizer``, ``name``, ``max_context`` and
``_prefix_token`` it uses): lm-evaluation-harness's ``_encode_pair`` — trailing spaces of the context move to the
continuation, the pair is encoded whole, and the continuation's tokens are those after the context's encoding."""
from __future__ import annotations

from ._base import ModelError, split_context


class PairEncoding:
    """Encodings of prompts and of (context, continuation) pairs."""

    #: The last context encoded and its token count: a request's continuations (the four answer letters of a joint
    #: multiple-choice prompt) share their context, which is then encoded once, not once per continuation.
    _last_context: tuple[str, int] = ("", 0)

    def _encode(self, text: str) -> list[int]:
        return self.tokenizer(text, add_special_tokens=True)["input_ids"]

    def count_tokens(self, text: str) -> int:
        return len(self._encode(text))

    def truncate_left(self, text: str, max_tokens: int) -> str:
        ids = self.tokenizer(text, add_special_tokens=False)["input_ids"]
        return text if len(ids) <= max_tokens else self.tokenizer.decode(ids[len(ids) - max_tokens:])

    def _encode_pair(self, context: str, continuation: str) -> list[int]:
        """Token ids of a context and its continuation encoded together (their boundary's merges as the model sees them)."""
        return self._encode(context + continuation)

    def _pair_tokens(self, context: str, continuation: str) -> tuple[list[int], int]:
        """Token ids of context+continuation and the number that belong to the context."""
        context, continuation = split_context(context, continuation)
        if not context:
            cont = self.tokenizer(continuation, add_special_tokens=False)["input_ids"]
            return [self._prefix_token] + cont, 1
        whole = self._encode_pair(context, continuation)
        if self._last_context[0] != context:  # a request's continuations share their context: encoded once
            self._last_context = (context, len(self._encode(context)))
        n_context = self._last_context[1]
        if n_context >= len(whole):
            raise ModelError(f"{self.name}: continuation {continuation!r} adds no tokens to its context")
        if len(whole) > self.max_context:
            raise ModelError(f"{self.name}: a prompt of {len(whole)} tokens exceeds the context of {self.max_context}")
        return whole, n_context
