"""HELM adaptation on hand-made instances: exact prompts per method, class balance, truncation."""
from __future__ import annotations

import random
from dataclasses import replace

import numpy as np
import pytest

from helmlite.evaluation.adaptation import AdapterSpec, adapt, helm_sample_examples, select_examples
from helmlite.scenarios import helm_eval_subsample
from helmlite.errors import UserError
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
    # the instructions and the example are declared shareable: 17 + 44 characters (hand-counted)
    assert out.requests == (GenerationRequest(out.prompt, 3, ("\n",), 0.0, 0, (61,)),)


def test_joint_lists_lettered_choices_and_scores_letters():
    out = adapt(TEST, TRAIN, AdapterSpec(method="multiple_choice_joint"), WordModel())
    assert out.prompt == ("Question: 2+2?\nA. 3\nB. 4\nAnswer: B\n\n"
                          "Question: Sky colour?\nA. blue\nB. red\nAnswer: A\n\n"
                          "Question: 1+1?\nA. 2\nB. 5\nAnswer:")
    # the in-context examples are declared shareable: everything before the test question (hand-derived)
    examples = len(out.prompt) - len("Question: 1+1?\nA. 2\nB. 5\nAnswer:")
    assert out.requests == (ScoreRequest(out.prompt, (" A", " B"), (examples,)),) and out.choices == ("A", "B")


def test_separate_scores_choice_texts_and_calibrated_adds_the_null_prompt():
    separate = adapt(TEST, TRAIN, AdapterSpec(method="multiple_choice_separate"), WordModel())
    assert separate.prompt == "Question: 2+2?\nAnswer: 4\n\nQuestion: Sky colour?\nAnswer: blue\n\nQuestion: 1+1?\nAnswer:"
    examples = len(separate.prompt) - len("Question: 1+1?\nAnswer:")
    assert separate.requests == (ScoreRequest(separate.prompt, (" 2", " 5"), (examples,)),)
    calibrated = adapt(TEST, TRAIN, AdapterSpec(method="multiple_choice_separate_calibrated"), WordModel())
    # crfm-helm's MultipleChoiceCalibratedAdapter builds construct_prompt([], input "Answer:") under
    # get_multiple_choice_separate_adapter_spec (instructions "", input prefix "", output prefix " "): the
    # calibration prompt is "Answer:" then " <answer>", whatever the scenario's prefixes or instructions
    assert calibrated.requests[1] == ScoreRequest("Answer:", (" 2", " 5"))
    instructed = adapt(TEST, TRAIN, AdapterSpec(method="multiple_choice_separate_calibrated", instructions="Pick one."),
                       WordModel())
    assert instructed.requests[1] == ScoreRequest("Answer:", (" 2", " 5"))


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
    picked = select_examples(train, AdapterSpec(max_train_instances=5, selection="hashed"), np.random.default_rng(0))
    assert [e.references[0].output for e in picked] == ["A", "B", "C", "A", "B"]
    again = select_examples(train, AdapterSpec(max_train_instances=5, selection="hashed"), np.random.default_rng(0))
    assert [e.id for e in picked] == [e.id for e in again]  # seeded


def test_joint_balances_by_correct_letter():
    train = [mc(f"t{k}", f"q{k}", ["x", "y", "z"], k % 3) for k in range(9)]
    picked = select_examples(train, AdapterSpec(method="multiple_choice_joint", max_train_instances=3, selection="hashed"),
                             np.random.default_rng(1))
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


# --- helm_compat: crfm-helm's selection, subsampling and prompts, hand-derived ------------------------------
# A tiny MMLU-like set. HELM's sample_examples groups training items by their correct answer TEXT: here five
# labels "4", "9", "Paris", "blue", "cold" (sorted: digits < upper case < lower case), one item each, so the
# only random step before the picks is random.seed(0); random.shuffle(labels).
MMLU_TRAIN = [mc("t0", "2+2?", ["3", "4", "5", "6"], 1), mc("t1", "Sky?", ["blue", "red", "green", "grey"], 0),
              mc("t2", "Capital of France?", ["Rome", "Paris", "Oslo", "Bern"], 1),
              mc("t3", "Opposite of hot?", ["warm", "cool", "cold", "mild"], 2), mc("t4", "3*3?", ["6", "8", "9", "12"], 2)]
MMLU_TEST = mc("q", "1+1?", ["1", "2", "3", "4"], 1, "test")
HELM_JOINT = AdapterSpec(method="multiple_choice_joint", max_train_instances=5,
                         instructions="The following are multiple choice questions (with answers) about arithmetic.")


def test_helm_compat_selection_is_pythons_random_seeded_with_the_trial_index():
    labels = ["4", "9", "Paris", "blue", "cold"]
    random.Random(0).shuffle(labels)  # the derivation: HELM's random.seed(0) then random.shuffle
    assert labels == ["Paris", "9", "4", "cold", "blue"]  # → t2, t4, t0, t3, t1 (each pool has one item)
    assert [e.id for e in select_examples(MMLU_TRAIN, HELM_JOINT)] == ["t2", "t4", "t0", "t3", "t1"]
    # the same ids crfm-helm 0.5.16's sample_examples returns for trial indices 1 and 2 and for 3 shots
    assert [e.id for e in helm_sample_examples(MMLU_TRAIN, 5, 1)] == ["t2", "t1", "t3", "t0", "t4"]
    assert [e.id for e in helm_sample_examples(MMLU_TRAIN, 5, 2)] == ["t2", "t4", "t1", "t3", "t0"]
    assert [e.id for e in helm_sample_examples(MMLU_TRAIN, 3, 0)] == ["t2", "t4", "t0"]
    # the hashed selection groups by letter (B ×2, C ×2, then A ×1) and cycles B, C, A, B, C
    hashed = select_examples(MMLU_TRAIN, replace(HELM_JOINT, selection="hashed"), np.random.default_rng(0))
    assert [e.id for e in hashed] == ["t2", "t4", "t1", "t0", "t3"]


def test_helm_compat_frequent_labels_first_ties_shuffled_unlabelled_last():
    """Labels yes ×3, no ×2, maybe ×2, two unlabelled. Counts → [yes], then shuffle(["maybe", "no"]); cycle
    yes, maybe, no, yes, maybe … with random.randrange picks; checked against crfm-helm 0.5.16."""
    pool = [gen("y1", "yes"), gen("n1", "no"), gen("y2", "yes"), gen("m1", "maybe"), gen("n2", "no"), gen("y3", "yes"),
            gen("m2", "maybe"), gen("u1", None), gen("u2", None)]
    assert [e.id for e in helm_sample_examples(pool, 5, 0)] == ["y2", "m1", "n2", "y3", "m2"]
    assert [e.id for e in helm_sample_examples(pool, 5, 1)] == ["y3", "n1", "m2", "y1", "n2"]
    # where HELM's cycle would never end (labelled pools exhausted), helmlite goes on to the unlabelled ones
    few = [gen("y1", "yes"), gen("u1", None), gen("u2", None), gen("u3", None)]
    assert [e.id for e in helm_sample_examples(few, 1, 0)] == ["y1"]  # as HELM
    assert [e.id for e in helm_sample_examples(few, 3, 0)][0] == "y1" and len(helm_sample_examples(few, 3, 0)) == 3


def test_helm_compat_prompt_bytes():
    """crfm-helm's MMLU joint layout: instructions + "\\n" (format_instructions), blocks joined by "\\n",
    each example "Question: …\\nA. …\\n…Answer: X\\n", the test block ending "Answer:" (output prefix rstripped)."""
    out = adapt(MMLU_TEST, select_examples(MMLU_TRAIN, HELM_JOINT), HELM_JOINT, WordModel())
    assert out.prompt == (
        "The following are multiple choice questions (with answers) about arithmetic.\n\n"
        "Question: Capital of France?\nA. Rome\nB. Paris\nC. Oslo\nD. Bern\nAnswer: B\n\n"
        "Question: 3*3?\nA. 6\nB. 8\nC. 9\nD. 12\nAnswer: C\n\n"
        "Question: 2+2?\nA. 3\nB. 4\nC. 5\nD. 6\nAnswer: B\n\n"
        "Question: Opposite of hot?\nA. warm\nB. cool\nC. cold\nD. mild\nAnswer: C\n\n"
        "Question: Sky?\nA. blue\nB. red\nC. green\nD. grey\nAnswer: A\n\n"
        "Question: 1+1?\nA. 1\nB. 2\nC. 3\nD. 4\nAnswer:")


def test_helm_eval_subsample_is_numpys_legacy_seed_0_in_sampled_order():
    """HELM: np.random.seed(0); np.random.choice(eval_instances, k, replace=False) = permutation(n)[:k]."""
    assert helm_eval_subsample(20, 5) == [18, 1, 19, 8, 10]
    assert helm_eval_subsample(100, 10) == [26, 86, 2, 55, 75, 93, 16, 73, 54, 95]
    assert helm_eval_subsample(5, 10) == [0, 1, 2, 3, 4]
    state = np.random.get_state()
    try:
        np.random.seed(0)
        objects = [object() for _ in range(20)]
        chosen = list(np.random.choice(np.array(objects, dtype=object), 5, replace=False))
    finally:
        np.random.set_state(state)
    assert chosen == [objects[i] for i in helm_eval_subsample(20, 5)]


def test_helm_greedy_joint_asks_for_one_greedy_token():
    spec = replace(HELM_JOINT, joint_decision="helm_greedy")
    out = adapt(MMLU_TEST, [], spec, WordModel())
    # no examples: the instructions and their blank line (76 + 2 characters) are what other prompts share; HELM asks
    # for one token (get_multiple_choice_adapter_spec's max_tokens=1) at temperature 0 with the stop sequence "\n"
    # (get_multiple_choice_joint_adapter_spec; crfm-helm 0.5.16 common_adapter_specs.py)
    assert out.requests == (GenerationRequest(out.prompt, 1, ("\n",), 0.0, 0, (78,)),) and out.choices == ("A", "B", "C", "D")


def test_sampled_generation_gets_a_seed_per_instance():
    spec = AdapterSpec(method="generation", max_train_instances=0, temperature=0.9, max_tokens=20, stop_sequences=())
    a = adapt(Instance("a", "x", (), "test"), [], spec, WordModel()).requests[0]
    b = adapt(Instance("b", "x", (), "test"), [], spec, WordModel()).requests[0]
    assert a.temperature == 0.9 and a.seed != b.seed
    assert a.seed == adapt(Instance("a", "x", (), "test"), [], spec, WordModel()).requests[0].seed
    assert adapt(Instance("a", "x", (), "test"), [], replace(spec, temperature=0.0), WordModel()).requests[0].seed == 0


def test_adapter_rejects_unknown_rules():
    with pytest.raises(UserError, match="selection must be one of"):
        AdapterSpec(selection="helm")
    with pytest.raises(UserError, match="joint_decision"):
        AdapterSpec(joint_decision="greedy")


def gen(iid, output):
    return Instance(iid, f"q {iid}", (Reference(output, True),) if output else (), "train")
