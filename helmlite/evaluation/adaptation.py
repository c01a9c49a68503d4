"""HELM's adaptation: turning instances into prompts and model requests (Liang et al. 2022, §7, App. J).

An :class:`AdapterSpec` fixes everything about the prompt. In-context examples are chosen once per
run (shared by every test instance, as HELM does) with HELM's class-balanced sampler: labels are
visited in order of decreasing frequency (ties in a random order), one random example per label in
turn, until ``max_train_instances`` are picked. Two implementations (``AdapterSpec.selection``):

* ``helm_compat`` (default) — crfm-helm's own ``InContextLearningAdapter.sample_examples``
  (``src/helm/benchmark/adaptation/adapters/in_context_learning_adapter.py``) step by step: Python's
  Mersenne Twister seeded with the train trial index (``random.seed(seed)``; a private
  ``random.Random(seed)`` gives the same stream without touching global state), labels = the first
  correct reference's **text** for every method (for multiple choice: the answer text, not its
  letter), labels sorted, grouped by count, each group shuffled with ``random.shuffle``, one
  ``random.randrange`` pick per label in ``itertools.cycle`` order, the rest from the unlabelled
  instances with ``random.sample``. With the test-set subsampling of
  :func:`helmlite.scenarios.helm_eval_subsample` and HELM's prompt layout this gives crfm-helm's prompts byte for byte (``helmlite prompts``).
* ``hashed`` — helmlite's variant with a numpy generator derived with hashlib from (scenario,
  arguments, seed), and multiple-choice-joint examples balanced by their correct **letter**. It exists
  because HELM's rule has known flaws: on MMLU every answer text is unique, so "class balance" is a
  plain shuffle and the five examples may all answer "C" (a letter bias the joint prompt then
  teaches); ``random.seed(trial)`` gives every scenario of one trial the same permutation stream; and
  HELM's test subsample is ``np.random.seed(0)`` for every scenario and trial.

When a prompt would not fit the model's context, examples are dropped from the end one at a time, and
only then is the test input truncated from the left; both are recorded per instance (HELM truncates
the whole prompt from the right instead — it never happens on the default configurations).

Methods (HELM §7 "adaptation"; lm-eval's ``loglikelihood`` for the scoring ones):

* ``generation`` — greedy decoding after the output prefix, cut at the stop sequences;
* ``multiple_choice_joint`` — all choices listed with letters in the prompt. Decision rule
  (``joint_decision``): ``letter_logprob`` (default) takes the letter " A", " B", … with the highest
  log-probability (constrained decoding); ``helm_greedy`` is HELM's own rule — greedy decoding of one
  token (``max_tokens=1`` in HELM's multiple-choice adapter spec), stripped and exact-matched against
  the letters, so a model that emits anything else ("The", "\n") is scored wrong;
* ``multiple_choice_separate`` — each choice's text scored as the continuation of the prompt; the
  best one wins by ``separate_score``: ``per_token`` (default; HELM's ``BasicReferenceMetric``:
  log-probability / number of tokens, which does not favour short answers) or ``sum``;
* ``multiple_choice_separate_calibrated`` — as separate, minus the choice's log-probability after the bare
  prompt "Answer:" (HELM's calibration prompt, whatever the scenario's prefixes; Zhao et al. 2021);
* ``language_modeling`` — each reference scored as text on its own (BLiMP minimal pairs);
* ``ranking`` — each (query, passage) pair asks "Does the passage answer the query?" (HELM's binary ranking
  prompt); passages are ranked by P(Yes) normalised over {Yes, No}. That ordering is helmlite's: HELM generates
  the label and ranks by it, then by its log-probability (``ranking_metrics.py``).
"""
from __future__ import annotations

import random
from dataclasses import asdict, dataclass, field
from itertools import cycle
from string import ascii_uppercase
from typing import Sequence

import numpy as np

from .._common_prefix import common_prefix
from ..models import GenerationRequest, LanguageModel, ModelError, ScoreRequest
from ..scenarios import Instance
from ..errors import did_you_mean
from ..errors import UserError
from ..seeds import derive_seed

METHODS = ("generation", "multiple_choice_joint", "multiple_choice_separate", "multiple_choice_separate_calibrated",
           "language_modeling", "ranking")
MULTIPLE_CHOICE_METHODS = tuple(m for m in METHODS if m.startswith("multiple_choice_"))
SELECTIONS = ("helm_compat", "hashed")  # in-context example selection and test subsampling (module docstring)
JOINT_DECISIONS = ("letter_logprob", "helm_greedy")  # multiple_choice_joint: best letter log-prob, or HELM's greedy token
#: The prompt layout's version (instructions, prefixes, example and choice formatting, truncation): raise it when a
#: change alters the prompts of runs whose specs are unchanged, so their ids change and the workflow runs them again
#: (:attr:`helmlite.evaluation.runspec.RunSpec.versions`).
LAYOUT_VERSION = 1
SEPARATE_SCORES = ("per_token", "sum")  # multiple_choice_separate: HELM's log-prob per token, or the summed log-prob


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
    selection: str = "helm_compat"
    joint_decision: str = "letter_logprob"
    separate_score: str = "per_token"

    def __post_init__(self):
        if self.method not in METHODS:
            raise UserError(f"adapter method must be one of {METHODS}, got {self.method!r}."
                             f"{did_you_mean(str(self.method), METHODS)}")
        if self.max_train_instances < 0:
            raise UserError("adapter max_train_instances must be ≥ 0")
        for name, allowed in (("selection", SELECTIONS), ("joint_decision", JOINT_DECISIONS), ("separate_score", SEPARATE_SCORES)):
            if getattr(self, name) not in allowed:
                raise UserError(f"adapter {name} must be one of {allowed}, got {getattr(self, name)!r}")

    def as_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class Adapted:
    """The prompt(s) and requests for one instance, with what the adaptation had to give up."""

    instance_id: str
    prompt: str
    requests: tuple  # GenerationRequest or ScoreRequest, interpreted by helmlite.evaluation.runner
    n_train: int
    truncated: bool
    choices: tuple[str, ...] = field(default=())  # what each scored continuation stands for


def label_of(instance: Instance, method: str) -> str | None:
    """The class of a training instance for balanced sampling: its correct letter (joint) or output."""
    correct = [k for k, r in enumerate(instance.references) if r.correct]
    if not correct:
        return None
    return ascii_uppercase[correct[0]] if method == "multiple_choice_joint" else instance.references[correct[0]].output


def select_examples(train: Sequence[Instance], spec: AdapterSpec, rng: np.random.Generator | None = None) -> list[Instance]:
    """The in-context examples of a run: :func:`helm_sample_examples` (``selection="helm_compat"``, seeded
    by ``spec.seed`` = HELM's train trial index) or the hashed variant (``rng`` required)."""
    if spec.selection == "helm_compat":
        return helm_sample_examples(train, spec.max_train_instances, spec.seed)
    if rng is None:
        raise UserError("select_examples: the hashed selection needs a generator (rng)")
    return _hashed_examples(train, spec, rng)


def helm_sample_examples(train: Sequence[Instance], max_train_instances: int, seed: int) -> list[Instance]:
    """crfm-helm's ``InContextLearningAdapter.sample_examples(all_train_instances, seed=train_trial_index)``
    (``src/helm/benchmark/adaptation/adapters/in_context_learning_adapter.py``, ``sample_train=True``),
    reproduced call for call so that the same Mersenne Twister draws pick the same examples in the same
    order. Two departures, both where HELM would fail: when every labelled pool is exhausted before
    ``max_train_instances`` are picked HELM's ``cycle`` loop never ends (helmlite moves on to the
    unlabelled instances), and ``random.sample`` is asked for no more unlabelled instances than exist."""
    rng = random.Random(seed)  # HELM: random.seed(seed) on the module generator — the same stream
    remaining = min(len(train), max_train_instances)
    unlabeled: list[Instance] = []
    label_to_instances: dict[str, list[Instance]] = {}
    for instance in train:
        label = instance.first_correct  # HELM: instance.first_correct_reference.output.text
        if label is not None:
            label_to_instances.setdefault(label, []).append(instance)
        else:
            unlabeled.append(instance)
    counts_to_labels: dict[int, list[str]] = {}
    for label, instances in sorted(label_to_instances.items(), key=lambda item: item[0]):
        counts_to_labels.setdefault(len(instances), []).append(label)
    sorted_labels: list[str] = []
    for count in sorted(counts_to_labels, reverse=True):  # most frequent labels first
        labels = counts_to_labels[count]
        rng.shuffle(labels)  # ties broken by shuffling
        sorted_labels.extend(labels)
    examples: list[Instance] = []
    labels_iterable = cycle(sorted_labels)
    while remaining > 0:
        next_label = next(labels_iterable, None)
        if not next_label:  # as HELM: no labels (or an empty label text) ends the labelled phase
            break
        instances = label_to_instances[next_label]
        if len(instances) == 0:
            if not any(label_to_instances.values()):
                break  # HELM loops forever here
            continue
        examples.append(instances.pop(rng.randrange(len(instances))))  # without replacement
        remaining -= 1
    examples += rng.sample(unlabeled, min(remaining, len(unlabeled)))
    return examples


def _hashed_examples(train: Sequence[Instance], spec: AdapterSpec, rng: np.random.Generator) -> list[Instance]:
    """helmlite's class-balanced sampler with a hashed numpy generator; joint examples balanced by letter."""
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
        return Adapted(instance.id, prompts[0], tuple(ScoreRequest(p, (" Yes", " No"), _shared(p, prefix, spec, model))
                                                      for p in prompts), len(shown),
                       False, tuple(r.output for r in instance.references))
    shown = [_block(e, spec, _example_answer(e, spec)) for e in examples]
    continuations = _continuations(instance, spec)
    budget = model.max_context - (spec.max_tokens if spec.method == "generation" else
                                  1 if spec.joint_decision == "helm_greedy" and spec.method == "multiple_choice_joint" else
                                  max(model.count_tokens(c) for c in continuations))
    query = _block(instance, spec, None)
    while True:
        prompt = _wrap(_prefix(shown, spec) + query, spec, model)
        length = model.count_tokens(prompt)
        if length <= budget or not shown:
            break
        shown = shown[:-1]
    truncated = False
    if length > budget:  # no examples left: cut the test input from the left
        overflow = length - budget
        keep = model.count_tokens(instance.input) - overflow - 1
        if keep <= 0:
            raise ModelError(f"{instance.id}: the prompt exceeds the model's context of {model.max_context} tokens "
                             "even with no in-context examples and the input fully truncated")
        cut = Instance(instance.id, model.truncate_left(instance.input, keep), instance.references, instance.split)
        prompt = _wrap(_prefix([], spec) + _block(cut, spec, None), spec, model)
        truncated = True
    shared = _shared(prompt, _prefix(shown, spec), spec, model)
    if spec.method == "generation":
        request = GenerationRequest(prompt, spec.max_tokens, tuple(spec.stop_sequences), spec.temperature,
                                    sampling_seed(spec, instance), shared)
        return Adapted(instance.id, prompt, (request,), len(shown), truncated)
    if spec.method == "multiple_choice_joint" and spec.joint_decision == "helm_greedy":
        # HELM's multiple-choice-joint request (common_adapter_specs: get_multiple_choice_adapter_spec's max_tokens 1,
        # get_multiple_choice_joint_adapter_spec's temperature 0 and stop sequence "\n"; a greedy newline is the empty
        # completion, with no token kept)
        letters = tuple(ascii_uppercase[k] for k in range(len(continuations)))
        return Adapted(instance.id, prompt, (GenerationRequest(prompt, 1, ("\n",), 0.0, spec.seed, shared),), len(shown),
                       truncated, letters)
    requests = [ScoreRequest(prompt, continuations, shared)]
    if spec.method == "multiple_choice_separate_calibrated":
        # crfm-helm's MultipleChoiceCalibratedAdapter: construct_prompt([], input "Answer:") under HELM's separate
        # adapter spec (no instructions, no input prefix, output prefix " "), i.e. "Answer:" then the answer
        requests.append(ScoreRequest(_wrap("Answer:", spec, model), continuations))
    labels = tuple(ascii_uppercase[k] for k in range(len(continuations))) if spec.method == "multiple_choice_joint" \
        else tuple(r.output for r in instance.references)
    return Adapted(instance.id, prompt, tuple(requests), len(shown), truncated, labels)


def sampling_seed(spec: AdapterSpec, instance: Instance) -> int:
    """The sampling seed of one generation request: the adapter's seed when decoding is greedy (it does not
    matter), else one derived with hashlib from (seed, instance id), so that sampled generations (BOLD at
    temperature 0.9, as HELM) are reproducible and independent across instances."""
    return spec.seed if spec.temperature <= 0 else derive_seed("sampling", spec.seed, instance.id)


def _continuations(instance: Instance, spec: AdapterSpec) -> tuple[str, ...]:
    if spec.method == "multiple_choice_joint":
        return tuple(" " + ascii_uppercase[k] for k in range(len(instance.references)))
    if spec.method in ("multiple_choice_separate", "multiple_choice_separate_calibrated"):
        return tuple(" " + r.output for r in instance.references)
    return ()


def _shared(prompt: str, prefix: str, spec: AdapterSpec, model: LanguageModel) -> tuple[int, ...]:
    """The prompt's declared shareable prefix (:class:`~helmlite.models.ScoreRequest` ``prefixes``): as much of it as
    the instructions and in-context examples make, wrapped as the prompt is (a chat template's head included)."""
    if not prefix:
        return ()
    return (common_prefix(prompt, _wrap(prefix, spec, model)),)


def _wrap(prompt: str, spec: AdapterSpec, model: LanguageModel) -> str:
    return model.apply_chat_template(prompt) if spec.chat_template else prompt
