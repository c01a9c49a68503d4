"""A worked example of a new backend (docs/how-to/add-a-backend.md; tests/test_docs.py runs it end to end).

``uniform:<name>`` is a chance-level baseline: every continuation gets the same log-probability and every generation
is empty. Multiple choice by log-probability then picks the first option (ties go to the first), so its accuracy is the
share of items whose first option is correct — the floor a real model must beat. A backend is a loader registered
under a name prefix; what it loads implements :class:`helmlite.models.LanguageModel`.
"""
import time

from helmlite.models import Generation, Scores, backend


class UniformModel:
    """Equal log-probabilities for every continuation; empty generations. Counts whitespace words as tokens."""

    code_version = 1  # raise when a change alters the answer to the same request (it keys the request cache)
    max_context = 10 ** 9

    def __init__(self, name: str):
        self.name = name

    @property
    def identity(self) -> dict:
        return {"backend": "uniform", "model": self.name}

    def count_tokens(self, text: str) -> int:
        return len(text.split())

    def truncate_left(self, text: str, max_tokens: int) -> str:
        return " ".join(text.split()[-max_tokens:])

    def apply_chat_template(self, user_message: str) -> str:
        return user_message

    def generate(self, requests):
        return [Generation("", self.count_tokens(r.prompt), 0, (), 0.0) for r in requests]

    def score(self, requests):
        started = time.perf_counter()
        return [Scores(logprobs=tuple(0.0 for _ in r.continuations),
                       token_logprobs=tuple((0.0,) * max(1, self.count_tokens(c)) for c in r.continuations),
                       token_counts=tuple(max(1, self.count_tokens(c)) for c in r.continuations),
                       prompt_tokens=self.count_tokens(r.prompt), latency_s=time.perf_counter() - started)
                for r in requests]


@backend("uniform:")
def load(model: str, *, dtype: str, threads: int, batch_size: int, device: str) -> UniformModel:
    """``uniform:<name>``: the placement arguments mean nothing to a model without weights."""
    return UniformModel(model)
