"""HELM's adaptation: turning instances into prompts and model requests (Liang et al. 2022, §7, App. J).

An :class:`AdapterSpec` fixes everything about the prompt. In-context examples are chosen once per
run (shared by every test instance, as HELM does) with HELM's class-balanced sampler: labels are
visited in order of decreasing frequency (ties in a seeded order), one random example per label in
turn, until ``max_train_instances`` are picked. When a prompt would not fit the model's context,
examples are dropped from the end one at a time, and only then is the test input truncated from the
left; both are recorded per instance.

Methods (HELM §7 "adaptation"; lm-eval's ``loglikelihood`` for the scoring ones):

* ``generation`` — greedy decoding after the output prefix, cut at the stop sequences;
* ``multiple_choice_joint`` — all choices listed with letters in the prompt; the model's answer is
  the letter with the highest log-probability (constrained decoding of HELM's one-token answer);
* ``multiple_choice_separate`` — each choice's text scored as the continuation of the prompt
  (sum of token log-probabilities), the best one wins;
* ``multiple_choice_separate_calibrated`` — as separate, minus the choice's log-probability after the
  output prefix alone (Zhao et al. 2021's calibration as used by HELM);
* ``language_modeling`` — each reference scored as text on its own (BLiMP minimal pairs);
* ``ranking`` — each (query, passage) pair asks "Does the passage answer the query?"; passages are
  ranked by P(Yes) normalised over {Yes, No} (HELM's MS MARCO adaptation).
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from string import ascii_uppercase
from typing import Sequence

import numpy as np

from .models import GenerationRequest, LanguageModel, ModelError, ScoreRequest
from .scenarios import Instance
from .errors import InputError

METHODS = ("generation", "multiple_choice_joint", "multiple_choice_separate", "multiple_choice_separate_calibrated",
           "language_modeling", "ranking")


@dataclass(frozen=True)
class AdapterSpec:
    method: str = "generation"
    instructions: str = ""
    input_prefix: str = "Question: "
    input_suffix: str = "\n"
    output_prefix: str = "Answer:"
    output_suffix: str = "\n"
    instance_separator: str = "\n"
    max_train_instances: int = 5
    seed: int = 0
    max_tokens: int = 10
    stop_sequences: tuple[str, ...] = ("\n",)
    temperature: float = 0.0
    chat_template: bool = False

    def __post_init__(self):
        if self.method not in METHODS:
            raise InputError(f"adapter method must be one of {METHODS}, got {self.method!r}")
        if self.max_train_instances < 0:
            raise InputError("adapter max_train_instances must be ≥ 0")

    def as_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class Adapted:
    """The prompt(s) and requests for one instance, with what the adaptation had to give up."""

    instance_id: str
    prompt: str
    requests: tuple  # GenerationRequest or ScoreRequest, interpreted by helmlite.runner
    n_train: int
    truncated: bool
    choices: tuple[str, ...] = field(default=())  # what each scored continuation stands for


def label_of(instance: Instance, method: str) -> str | None:
    """The class of a training instance for balanced sampling: its correct letter (joint) or output."""
    correct = [k for k, r in enumerate(instance.references) if r.correct]
    if not correct:
        return None
    return ascii_uppercase[correct[0]] if method == "multiple_choice_joint" else instance.references[correct[0]].output


def select_examples(train: Sequence[Instance], spec: AdapterSpec, rng: np.random.Generator) -> list[Instance]:
    """HELM's class-balanced in-context example sampler (``in_context_learning_adapter.sample_examples``)."""
    wanted = min(len(train), spec.max_train_instances)
    by_label: dict[str, list[Instance]] = {}
    unlabelled = []
    for instance in train:
        label = label_of(instance, spec.method)
        (by_label.setdefault(label, []) if label is not None else unlabelled).append(instance)
    counts: dict[int, list[str]] = {}
    for label in sorted(by_label):
        counts.setdefault(len(by_label[label]), []).append(label)
    ordered = []
    for count in sorted(counts, reverse=True):  # most frequent labels first; ties in a seeded order
        labels = counts[count]
        ordered += [labels[i] for i in rng.permutation(len(labels))]
    pools = {label: list(by_label[label]) for label in ordered}
    examples = []
    while len(examples) < wanted and any(pools.values()):
        for label in ordered:
            if len(examples) == wanted:
                break
            if pools[label]:
                examples.append(pools[label].pop(int(rng.integers(len(pools[label])))))
    if len(examples) < wanted and unlabelled:
        picks = rng.choice(len(unlabelled), size=min(len(unlabelled), wanted - len(examples)), replace=False)
        examples += [unlabelled[i] for i in picks]
    return examples


def _choices_block(instance: Instance) -> str:
    return "".join(f"{ascii_uppercase[k]}. {r.output}\n" for k, r in enumerate(instance.references))


def _block(instance: Instance, spec: AdapterSpec, answer: str | None) -> str:
    """One example (``answer`` given) or the test query (``answer`` None), HELM's layout."""
    text = spec.input_prefix + instance.input + spec.input_suffix
    if spec.method == "multiple_choice_joint":
        text += _choices_block(instance)
    text += spec.output_prefix
    if answer is not None:
        text += " " + answer + spec.output_suffix
    return text


def _example_answer(instance: Instance, spec: AdapterSpec) -> str:
    return label_of(instance, spec.method) or ""


def _ranking_input(query: str, passage: str) -> str:
    return f"Passage: {passage}\nQuery: {query}\nDoes the passage answer the query?"


def _ranking_examples(train: Sequence[Instance], spec: AdapterSpec) -> list[tuple[str, str]]:
    """HELM's MS MARCO adaptation shows one relevant and one irrelevant passage per example query."""
    out = []
    for instance in train:
        relevant = next((r for r in instance.references if r.correct), None)
        other = next((r for r in instance.references if not r.correct), None)
        if relevant and other and len(out) < spec.max_train_instances:
            out += [(_ranking_input(instance.input, relevant.output), "Yes"), (_ranking_input(instance.input, other.output), "No")]
    return out[: spec.max_train_instances]


def _prefix(examples_text: Sequence[str], spec: AdapterSpec) -> str:
    head = spec.instructions + "\n\n" if spec.instructions else ""
    return head + "".join(e + spec.instance_separator for e in examples_text)


def adapt(instance: Instance, examples: Sequence[Instance], spec: AdapterSpec, model: LanguageModel) -> Adapted:
    """Build the requests for one test instance, dropping examples / truncating to fit the context."""
    if spec.method == "language_modeling":
        choices = tuple(r.output for r in instance.references)
        return Adapted(instance.id, "", (ScoreRequest("", choices),), 0, False, choices)
    if spec.method == "ranking":
        shown = [f"{spec.input_prefix}{q}{spec.input_suffix}{spec.output_prefix} {a}{spec.output_suffix}"
                 for q, a in _ranking_examples(examples, spec)]
        prefix = _prefix(shown, spec)
        prompts = [prefix + spec.input_prefix + _ranking_input(instance.input, r.output) + spec.input_suffix + spec.output_prefix
                   for r in instance.references]
        prompts = [_wrap(p, spec, model) for p in prompts]
        return Adapted(instance.id, prompts[0], tuple(ScoreRequest(p, (" Yes", " No")) for p in prompts), len(shown),
                       False, tuple(r.output for r in instance.references))
    shown = [_block(e, spec, _example_answer(e, spec)) for e in examples]
    continuations = _continuations(instance, spec)
    budget = model.max_context - (spec.max_tokens if spec.method == "generation" else
                                  max(model.count_tokens(c) for c in continuations))
    query = _block(instance, spec, None)
    while True:
        prompt = _wrap(_prefix(shown, spec) + query, spec, model)
        if model.count_tokens(prompt) <= budget or not shown:
            break
        shown = shown[:-1]
    truncated = False
    if model.count_tokens(prompt) > budget:  # no examples left: cut the test input from the left
        overflow = model.count_tokens(prompt) - budget
        keep = model.count_tokens(instance.input) - overflow - 1
        if keep <= 0:
            raise ModelError(f"{instance.id}: the prompt exceeds the model's context of {model.max_context} tokens "
                             "even with no in-context examples and the input fully truncated")
        cut = Instance(instance.id, model.truncate_left(instance.input, keep), instance.references, instance.split)
        prompt = _wrap(_prefix([], spec) + _block(cut, spec, None), spec, model)
        truncated = True
    if spec.method == "generation":
        request = GenerationRequest(prompt, spec.max_tokens, tuple(spec.stop_sequences), spec.temperature, spec.seed)
        return Adapted(instance.id, prompt, (request,), len(shown), truncated)
    requests = [ScoreRequest(prompt, continuations)]
    if spec.method == "multiple_choice_separate_calibrated":
        requests.append(ScoreRequest(_wrap(spec.output_prefix, spec, model), continuations))
    labels = tuple(ascii_uppercase[k] for k in range(len(continuations))) if spec.method == "multiple_choice_joint" \
        else tuple(r.output for r in instance.references)
    return Adapted(instance.id, prompt, tuple(requests), len(shown), truncated, labels)


def _continuations(instance: Instance, spec: AdapterSpec) -> tuple[str, ...]:
    if spec.method == "multiple_choice_joint":
        return tuple(" " + ascii_uppercase[k] for k in range(len(instance.references)))
    if spec.method in ("multiple_choice_separate", "multiple_choice_separate_calibrated"):
        return tuple(" " + r.output for r in instance.references)
    return ()


def _wrap(prompt: str, spec: AdapterSpec, model: LanguageModel) -> str:
    return model.apply_chat_template(prompt) if spec.chat_template else prompt
