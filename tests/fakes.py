"""A deterministic stand-in model: whitespace tokens, log-probabilities from a hash of the text."""
from __future__ import annotations

import hashlib

from helmlite.models import Generation, ModelError, Scores


class WordModel:
    """Tokens are whitespace-separated words; scores are a fixed function of (prompt, continuation)."""

    def __init__(self, name: str = "word-model", max_context: int = 10_000, chat: bool = False):
        self.name = name
        self._max_context = max_context
        self.chat = chat
        self.calls = []

    @property
    def identity(self) -> dict:
        return {"backend": "fake", "name": self.name}

    @property
    def max_context(self) -> int:
        return self._max_context

    def count_tokens(self, text: str) -> int:
        return len(text.split())

    def truncate_left(self, text: str, max_tokens: int) -> str:
        return " ".join(text.split()[-max_tokens:])

    def apply_chat_template(self, message: str) -> str:
        if not self.chat:
            raise ModelError(f"{self.name} has no chat template")
        return f"<user>{message}</user><assistant>"

    @staticmethod
    def value(prompt: str, continuation: str) -> float:
        return -int(hashlib.sha256((prompt + "|" + continuation).encode()).hexdigest()[:6], 16) / 2**24 * 10

    def score(self, requests):
        self.calls += list(requests)
        return [Scores(tuple(self.value(r.prompt, c) for c in r.continuations), tuple((self.value(r.prompt, c),) for c in r.continuations),
                       tuple(1 for _ in r.continuations), self.count_tokens(r.prompt), 0.0) for r in requests]

    def generate(self, requests):
        self.calls += list(requests)
        return [Generation(" answer " + str(len(r.prompt)), self.count_tokens(r.prompt), 2, (-0.5, -0.5), 0.0) for r in requests]


def make_run(model: str, scenario: str, values, *, run_id: str | None = None, metric: str = "exact_match", **adapter):
    """A :class:`helmlite.results.Run` whose instances i0, i1, … have the given main-metric values
    (for analysis tests that need runs without executing a model)."""
    from helmlite.results import InstanceRecord, Manifest, MetricStat, Run, RunStats, SpecRecord, Timings

    records = [InstanceRecord(id=f"i{k}", input="", prompt="", n_train=0, truncated=False, prompt_tokens=1, references=[],
                              metadata={}, prediction=None, correct=bool(v), metrics={metric: float(v)})
               for k, v in enumerate(values)]
    run_id = run_id or f"{model}-{scenario}-{sorted(adapter.items())}"
    mean = sum(float(v) for v in values) / len(values)
    stats = RunStats(run_id=run_id, scenario=scenario, model=model, method="multiple_choice_separate", main_metric=metric,
                     metric_families=("accuracy",), n_instances=len(records), n_train_examples=0,
                     metrics={metric: MetricStat(mean, 0.0, 1.0, len(records), "clopper-pearson")}, efficiency={},
                     bootstrap={"n_resamples": 0, "seed": 0})
    spec = SpecRecord(scenario, model, {"seed": 0, "max_train_instances": 5, "method": stats.method, **adapter})
    return Run(run_id, spec, stats, records, Manifest(run_id, spec, {"backend": "none", "name": model}), Timings())
