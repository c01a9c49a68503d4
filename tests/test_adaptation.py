"""HELM adaptation on hand-made instances: exact prompts per method, class balance, truncation."""
from __future__ import annotations

import numpy as np
import pytest

from helmlite.adaptation import AdapterSpec, adapt, select_examples
from helmlite.models import GenerationRequest, ModelError, ScoreRequest
from helmlite.scenarios import Instance, Reference

from .fakes import WordModel


def mc(iid, question, choices, answer, split="train"):
    return Instance(iid, question, tuple(Reference(c, k == answer) for k, c in enumerate(choices)), split)


TRAIN = [mc("t1", "2+2?", ["3", "4"], 1), mc("t2", "Sky colour?", ["blue", "red"], 0)]
TEST = mc("q", "1+1?", ["2", "5"], 0, "test")


def test_generation_prompt_is_helms_layout():
    spec = AdapterSpec(method="generation", instructions="Answer briefly.", max_train_instances=2, max_tokens=3)
    qa = [Instance("e", "Capital of France?", (Reference("Paris", True),), "train")]
    out = adapt(Instance("x", "Capital of Italy?", (Reference("Rome", True),), "test"), qa, spec, WordModel())
    assert out.prompt == "Answer briefly.\n\nQuestion: Capital of France?\nAnswer: Paris\n\nQuestion: Capital of Italy?\nAnswer:"
    assert out.requests == (GenerationRequest(out.prompt, 3, ("\n",), 0.0, 0),)


def test_joint_lists_lettered_choices_and_scores_letters():
    out = adapt(TEST, TRAIN, AdapterSpec(method="multiple_choice_joint"), WordModel())
    assert out.prompt == ("Question: 2+2?\nA. 3\nB. 4\nAnswer: B\n\n"
                          "Question: Sky colour?\nA. blue\nB. red\nAnswer: A\n\n"
                          "Question: 1+1?\nA. 2\nB. 5\nAnswer:")
    assert out.requests == (ScoreRequest(out.prompt, (" A", " B")),) and out.choices == ("A", "B")


def test_separate_scores_choice_texts_and_calibrated_adds_the_null_prompt():
    separate = adapt(TEST, TRAIN, AdapterSpec(method="multiple_choice_separate"), WordModel())
    assert separate.prompt == "Question: 2+2?\nAnswer: 4\n\nQuestion: Sky colour?\nAnswer: blue\n\nQuestion: 1+1?\nAnswer:"
    assert separate.requests == (ScoreRequest(separate.prompt, (" 2", " 5")),)
    calibrated = adapt(TEST, TRAIN, AdapterSpec(method="multiple_choice_separate_calibrated"), WordModel())
    assert calibrated.requests[1] == ScoreRequest("Answer:", (" 2", " 5"))


def test_language_modeling_scores_each_reference_alone():
    pair = Instance("b", "", (Reference("Cats sleep.", True), Reference("Cats sleeps.", False)), "test")
    out = adapt(pair, [], AdapterSpec(method="language_modeling"), WordModel())
    assert out.requests == (ScoreRequest("", ("Cats sleep.", "Cats sleeps.")),)


def test_chat_template_wraps_the_prompt_and_base_models_refuse():
    spec = AdapterSpec(method="multiple_choice_separate", max_train_instances=0, chat_template=True)
    out = adapt(TEST, [], spec, WordModel(chat=True))
    assert out.prompt == "<user>Question: 1+1?\nAnswer:</user><assistant>"
    with pytest.raises(ModelError, match="no chat template"):
        adapt(TEST, [], spec, WordModel(chat=False))


def test_class_balanced_selection_visits_labels_by_frequency():
    # labels: A ×6, B ×3, C ×1 → with 5 examples the sampler cycles A, B, C, A, B
    train = [Instance(f"{label}{k}", f"text {label}{k}", (Reference(label, True),), "train")
             for label, count in (("A", 6), ("B", 3), ("C", 1)) for k in range(count)]
    picked = select_examples(train, AdapterSpec(max_train_instances=5), np.random.default_rng(0))
    assert [e.references[0].output for e in picked] == ["A", "B", "C", "A", "B"]
    again = select_examples(train, AdapterSpec(max_train_instances=5), np.random.default_rng(0))
    assert [e.id for e in picked] == [e.id for e in again]  # seeded


def test_joint_balances_by_correct_letter():
    train = [mc(f"t{k}", f"q{k}", ["x", "y", "z"], k % 3) for k in range(9)]
    picked = select_examples(train, AdapterSpec(method="multiple_choice_joint", max_train_instances=3), np.random.default_rng(1))
    assert sorted(e.references.index(next(r for r in e.references if r.correct)) for e in picked) == [0, 1, 2]


def test_examples_are_dropped_then_the_input_is_truncated_from_the_left():
    long = Instance("long", " ".join(f"w{k}" for k in range(50)), (Reference("ok", True),), "test")
    examples = [Instance(f"e{k}", "short question here", (Reference("yes", True),), "train") for k in range(3)]
    spec = AdapterSpec(method="generation", max_train_instances=3, max_tokens=5)
    fits = adapt(long, examples, spec, WordModel(max_context=70))  # 3 examples ≈ 18 words + 53: one must go
    assert fits.n_train == 2 and not fits.truncated
    cut = adapt(long, examples, spec, WordModel(max_context=40))
    assert cut.n_train == 0 and cut.truncated
    assert cut.prompt.endswith("w49\nAnswer:") and "w0 " not in cut.prompt
    assert WordModel().count_tokens(cut.prompt) <= 40 - 5
    with pytest.raises(ModelError, match="exceeds the model's context"):
        adapt(long, [], spec, WordModel(max_context=6))
