"""A model stand-in with no weights and no tokenizer, for adapting prompts without a model: `helmlite prompts`
(HELM's dry run) and the planner's instance counts for models it cannot load."""
from __future__ import annotations

from ._base import ModelError


class WhitespaceTokens:
    """A model stand-in for :func:`helmlite.evaluation.instances.adapted_prompts`: no weights and no tokenizer. Token counts are
    whitespace-separated words and the context is unbounded, so prompts are never truncated."""

    identity = {"backend": "none", "name": "whitespace-tokens"}
    max_context = 10 ** 12

    @staticmethod
    def count_tokens(text: str) -> int:
        return len(text.split())

    @staticmethod
    def truncate_left(text: str, max_tokens: int) -> str:
        return " ".join(text.split()[-max_tokens:])

    @staticmethod
    def apply_chat_template(user_message: str) -> str:
        raise ModelError("prompts: a chat template needs the model's tokenizer; drop chat_template to see the raw prompts")
