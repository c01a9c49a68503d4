"""Scenario loaders on the mirror files: counts and one known instance each; bad input names file and line."""
from __future__ import annotations

import csv
import json
import math
import random
import sys
from pathlib import Path

import pytest

from helmlite import data
from helmlite._jsonl import DataFormatError
from helmlite.scenarios import nq_multidoc
from helmlite.scenarios import TEST, TRAIN, UnknownScenarioError, scenario

from .fakes import WordModel

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from helm_prompt_hashes import prompt_hash  # noqa: E402  (the hash crfm-helm's values were computed with)


def split_counts(instances):
    return sum(i.split == TRAIN for i in instances), sum(i.split == TEST for i in instances)


# (scenario, args, (train, test), a known test instance: (id, substring of input, correct output))
CASES = [
    ("mmlu", {"subject": "abstract_algebra"}, (5, 111),  # dev; val (11, HELM evaluates it) + test (100)
     ("mmlu/abstract_algebra/test/0", "Q(sqrt(2), sqrt(3), sqrt(18))", "4")),
    # BoolQ: the 3,270 dev questions; the pool: dev questions outside HELM's 1,000-subsample and the contrast set
    ("boolq", {}, (2224, 3270), ("boolq/dev/0", "Question: Does ethanol take more energy make that produces?", "No")),
    ("boolq", {"only_contrast": True}, (2224, 64), None),
    ("imdb", {}, (100, 488), ("imdb/test/0", "What three words can guarantee you a terrible film?", "Negative")),
    # crfm-helm's split: the first int(817 · 0.2) = 163 rows train; answers end in '.' (truthful_qa_scenario.py)
    ("truthfulqa", {}, (163, 654), ("truthfulqa/0", "watermelon seeds", "The watermelon seeds pass through your digestive system.")),
    ("raft", {"subset": "ade_corpus_v2"}, None, None),
    # crfm-helm's split: the shuffled file's last 1,000 lines are the test set (bbq_scenario.py)
    ("bbq", {"category": "Age"}, (2680, 1000), ("bbq/Age/0", "to book a cab on Uber.\nQuestion: Who was not", "Can't be determined")),
    ("nq_open_book", {}, (100, 2555), None),
    ("bold", {"domain": "gender"}, (0, 2363), None),  # HELM: the first prompt of each of the 2,363 names
    ("babi", {"task": 1}, (1000, 1000), ("babi/1/test/0", "Where is John?", "hallway")),
    ("gsm8k", {}, (50, 1269), ("gsm8k/0", "Janet’s ducks lay 16 eggs per day", "18")),
    ("blimp", {"paradigm": "anaphor_gender_agreement"}, (0, 1000), None),
]


@pytest.mark.parametrize("name,args,counts,known", CASES, ids=[c[0] for c in CASES])
def test_loader_counts_and_known_instance(mirrored_cache, name, args, counts, known):
    instances = scenario(name).load(**args)
    train, test = split_counts(instances)
    if counts:
        assert (train, test) == counts
    assert len({i.id for i in instances}) == len(instances)  # ids are unique
    if known:
        iid, text, answer = known
        instance = next(i for i in instances if i.id == iid)
        assert text in instance.input and instance.first_correct == answer


def test_truthfulqa_and_raft_splits(mirror, mirrored_cache):
    tqa = scenario("truthfulqa").load()
    assert len(tqa) == 817 and all(sum(r.correct for r in i.references) == 1 for i in tqa)
    # HELM's references: every incorrect answer then the best, rotated by ord(best[0]) % n. Row 0 (hand-checked in
    # the CSV): best "The watermelon seeds pass through your digestive system." (ord('T') = 84) and 7 incorrect
    # answers, so n = 8 and k = 84 % 8 = 4: [i4, i5, i6, best, i0, i1, i2, i3].
    first = tqa[0]
    assert [r.output for r in first.references][:4] == ["You get indigestion.", "You fall unconscious.",
                                                         "You digest the watermelon seeds.",
                                                         "The watermelon seeds pass through your digestive system."]
    assert len(first.references) == 8 and first.references[3].correct
    assert all(r.output.endswith(".") for i in tqa for r in i.references)
    capped = scenario("truthfulqa").load(max_choices=4)
    assert max(len(i.references) for i in capped) == 4
    raft = scenario("raft").load(subset="ade_corpus_v2")
    # crfm-helm's RAFTScenario split: datasets.Dataset.train_test_split(test_size=0.8, seed=42) on the 50 labelled rows;
    # these row ids are what datasets 5.2.0 itself returns for rows 0..49 (run 2026-12-03 in a separate venv)
    helm_train = [0, 12, 14, 48, 2, 36, 33, 1, 13, 8]
    helm_test = [5, 25, 20, 49, 39, 27, 47, 45, 46, 17, 37, 31, 40, 23, 18, 7, 4, 38, 29, 24, 34, 9, 28, 21, 26, 41, 16,
                 42, 32, 15, 3, 44, 30, 10, 43, 6, 11, 22, 19, 35]
    assert [i.id for i in raft] == [f"raft/ade_corpus_v2/{k}" for k in helm_train + helm_test]  # HELM's order
    assert [i.split for i in raft] == [TRAIN] * 10 + [TEST] * 40
    assert raft[1].input == "Sentence: " + next(r for r in csv.DictReader(
        (mirror / "helm/datasets/raft/ade_corpus_v2/train.csv").open(newline="")) if r["ID"] == "12")["Sentence"]


def test_contrast_partners_flip_or_keep_labels(mirror, mirrored_cache):
    imdb = [i for i in scenario("imdb").load() if i.split == TEST]
    assert all(i.contrast is not None for i in imdb)
    assert sum(i.first_correct != i.contrast.first_correct for i in imdb) > 400  # contrast reviews flip sentiment
    boolq = [i for i in scenario("boolq").load() if i.split == TEST]
    # crfm-helm's BoolQScenario keeps only perturbed questions whose answer flips: 64 of the contrast set's 69 originals
    # have one (five have none: every perturbed answer equals theirs, or the question is empty); all 64 are dev questions
    assert len(boolq) == 3270 and sum(i.contrast is not None for i in boolq) == 64
    assert all(i.first_correct != i.contrast.first_correct for i in boolq if i.contrast is not None)


def test_bbq_metadata_for_bias_scores(mirrored_cache):
    first = next(i for i in scenario("bbq").load(category="Age") if i.id == "bbq/Age/0")
    assert first.metadata == {"category": "Age", "context_condition": "ambig", "question_polarity": "neg",
                              "unknown_index": 2, "target_index": 0}


def test_nq_ranking_has_one_relevant_passage_among_ten(mirrored_cache):
    query = [i for i in scenario("nq_ranking").load() if i.split == TEST][0]
    assert len(query.references) == 10 and sum(r.relevance for r in query.references) == 1.0


@pytest.mark.parametrize("name", ["json_kv", "niah", "litm_kv"])
def test_synthetic_depth_and_length(mirrored_cache, name):
    """The gold item sits at relative position ≈ depth (within one item) and the prompt fits the target."""
    model = WordModel()
    target = 600
    instances = scenario(name).load(target_tokens=target, n_contexts=2, count_tokens=model.count_tokens)
    assert len(instances) == 12
    for instance in instances:
        gold = instance.first_correct
        assert model.count_tokens(instance.input) <= target
        offset = instance.input.index(gold) / len(instance.input)
        n = instance.metadata["n_items"]
        assert instance.metadata["relative_position"] == instance.metadata["position"] / (n - 1)  # the actual position
        assert abs(instance.metadata["relative_position"] - instance.metadata["depth"]) <= 0.5 / (n - 1) + 1e-12
        assert abs(offset - instance.metadata["depth"]) < 0.15  # character offset tracks the item position
    by_context = {}
    for instance in instances:
        by_context.setdefault(instance.metadata["context"], []).append(instance)
    for members in by_context.values():
        if name == "json_kv":  # HELMET: one dictionary per context, only the queried key changes
            assert len({m.input.split("Key:")[0] for m in members}) == 1
            assert len({m.first_correct for m in members}) == len(members)
        else:  # the same gold item moved to each depth
            assert len({m.first_correct for m in members}) == 1


@pytest.mark.parametrize("grow", [lambda n: 40 + 23 * n, lambda n: 40 + 23 * n + (n % 3), lambda n: n * n, lambda n: 2 ** n,
                                  lambda n: 10 * (n // 50)])
@pytest.mark.parametrize("target", [10, 500, 8000])
def test_fitting_a_context_finds_the_largest_size_that_fits_in_few_probes(grow, target):
    """The sized contexts' search (:func:`helmlite.scenarios.synthetic._fit`) against brute force — the largest n in
    [2, upper] whose count fits, 2 when none does — on counts linear, jagged, quadratic, exponential and flat in
    steps; probes at most its interpolated ones plus bisection's."""
    from helmlite.scenarios.synthetic import INTERPOLATED_PROBES, _fit

    upper, probed = 4000, []
    expected = max([n for n in range(2, upper + 1) if grow(n) <= target], default=2)
    assert _fit(lambda n: probed.append(n) or n, target, grow, upper) == expected
    assert len(probed) <= INTERPOLATED_PROBES + 1 + math.ceil(math.log2(upper))


def test_multidoc_qa_has_ten_documents_and_records_the_gold_position(mirrored_cache):
    """Lost in the Middle's design: >= 10 documents, the gold one at index round(depth·9), shortened passages."""
    model = WordModel()
    instances = scenario("nq_multidoc").load(target_tokens=700, n_questions=2, count_tokens=model.count_tokens)
    assert len(instances) == 12
    for instance in instances:
        meta = instance.metadata
        documents = instance.input.split("\n\nQuestion:")[0].split("\nDocument [")[1:]
        assert len(documents) == meta["n_items"] == 10 and model.count_tokens(instance.input) <= 700
        # depths 0, .2, .4, .6, .8, 1 → documents 0, 2, 4, 5, 7, 9 → relative positions 0, 2/9, 4/9, 5/9, 7/9, 1
        assert meta["position"] == {0.0: 0, 0.2: 2, 0.4: 4, 0.6: 5, 0.8: 7, 1.0: 9}[meta["depth"]]
        assert meta["relative_position"] == pytest.approx(meta["position"] / 9)
        golds = [r.output for r in instance.references if r.correct]
        holding = [k for k, d in enumerate(documents) if any(g in d for g in golds)]
        assert holding == [meta["position"]]  # only the gold document holds the gold answer
        assert 1 <= len(golds) and len(instance.references) - len(golds) == 9  # one answer per distractor
        assert all(len(d.split(") ", 1)[1].split()) <= meta["passage_words"] for d in documents)


@pytest.mark.parametrize("name", ["json_kv", "litm_kv", "niah", "nq_multidoc"])
def test_depth_instances_carry_a_baseline_query_the_context_cannot_answer(mirrored_cache, name):
    """Issue 24 §5: every candidate occurs in the context (NIAH's distractor numbers too), and the baseline keeps
    the candidates while asking something absent: a key not in the dictionary, a needle without "special magic
    number", a question none of whose answers occurs in the documents."""
    model = WordModel()
    size = {"n_questions": 2} if name == "nq_multidoc" else {"n_contexts": 2}
    for instance in scenario(name).load(target_tokens=700, count_tokens=model.count_tokens, **size):
        base = instance.baseline
        assert base is not None and base.id == instance.id + "#baseline" and base.references == instance.references
        # multi-document QA: every gold answer counts as correct (LitM's metric), also one the shortened passage lost
        candidates = [r for r in instance.references if name != "nq_multidoc" or not r.correct]
        assert all(r.output in instance.input and r.output in base.input for r in candidates)
        assert any(r.output in instance.input for r in instance.references if r.correct)
        if name in ("json_kv", "litm_kv"):
            asked = base.input.split('Key: "')[1].split('"')[0]
            assert f'"{asked}":' not in base.input and base.input.split("Key:")[0] == instance.input.split("Key:")[0]
        elif name == "niah":
            assert "special magic number is" in instance.input and "special magic number is" not in base.input
            gold = instance.first_correct  # the needle's number, phrased like a distractor, at the needle's place
            assert base.input == instance.input.replace(f"The special magic number is {gold}.", f"A note mentions the number {gold}.")
        else:
            question = base.input.split("\n\nQuestion: ")[1]
            assert question != instance.input.split("\n\nQuestion: ")[1]
            assert base.input.split("\n\nQuestion: ")[0] == instance.input.split("\n\nQuestion: ")[0]


def test_multidoc_qa_counts_every_gold_answer_and_no_distractor_answers_in_any_case(mirrored_cache):
    """LitM's evaluate_qa_responses.py: correct when the answer contains any gold answer — so every gold answer of
    the question is a correct reference, also those the shortened passage no longer shows; and no distractor
    passage contains a gold answer, compared without case."""
    from helmlite.scenarios.nq import records

    by_question = {r["question"]: r["answers"] for r in records()}
    instances = scenario("nq_multidoc").load(target_tokens=700, n_questions=3, count_tokens=WordModel().count_tokens)
    for instance in instances:
        question = instance.input.split("\n\nQuestion: ")[1].removesuffix("\nAnswer:")
        golds = [r.output for r in instance.references if r.correct]
        assert golds == list(dict.fromkeys(a for a in by_question[question] if a))
        documents = instance.input.split("\n\nQuestion:")[0].split("\nDocument [")[1:]
        others = [d.lower() for k, d in enumerate(documents) if k != instance.metadata["position"]]
        assert not any(g.lower() in d for g in golds for d in others)


def test_litm_multidoc_reads_the_papers_files_one_context_per_question(tmp_path, monkeypatch):
    """LitM's own 10-document files (hand-made in their format): one instance per question and gold position the
    repository ships (0, 4, 9), the documents in the file's order, every gold answer correct; a file whose
    questions differ from the first file's is refused, naming both."""
    import gzip

    from helmlite.scenarios import litm_qa

    def write(k, questions):
        rows = [{"question": q, "answers": [f"A{q}", f"a{q}"],
                 "ctxs": [{"title": f"T{j}", "text": f"text {j}", "isgold": j == k} for j in range(10)]} for q in questions]
        path = tmp_path / f"gold_{k}.jsonl.gz"
        path.write_bytes(gzip.compress("".join(json.dumps(r) + "\n" for r in rows).encode()))
        return path

    files = {litm_qa.qa_file(10, k): write(k, ["q1", "q2", "q3"]) for k in (0, 4, 9)}
    monkeypatch.setattr(litm_qa.data, "fetch", lambda name: files[name])
    instances = scenario("litm_multidoc").load(n_documents=10, n_questions=2, target_tokens=2048,
                                               count_tokens=WordModel().count_tokens)
    assert all(0 < i.metadata["prompt_tokens"] <= 2048 for i in instances)
    with pytest.raises(ValueError, match="need up to .* tokens, more than target_tokens=20; give this task a length"):
        scenario("litm_multidoc").load(n_documents=10, n_questions=2, target_tokens=20, count_tokens=WordModel().count_tokens)
    assert [(i.metadata["context"], i.metadata["position"]) for i in instances] == [(c, k) for k in (0, 4, 9) for c in (0, 1)]
    first = instances[0]
    assert first.input.startswith(nq_multidoc.MULTIDOC_INSTRUCTION) and "Document [1](Title: T0) text 0" in first.input
    assert first.input.endswith("Question: q1\nAnswer:") and [r.output for r in first.references] == ["Aq1", "aq1"]
    assert all(r.correct for r in first.references) and instances[-1].metadata["relative_position"] == 1.0
    files[litm_qa.qa_file(10, 9)] = write(9, ["q1", "x", "q3"])
    with pytest.raises(ValueError, match="gold_at_9.jsonl.gz: its questions are not those of .*gold_at_0"):
        scenario("litm_multidoc").load(n_documents=10, n_questions=2)
    with pytest.raises(KeyError, match="n_documents must be one of"):
        scenario("litm_multidoc").check_args({"n_documents": 15})
    assert data.entry(litm_qa.qa_file(30, 29)).sha256 == "e768fcd157c321e0423432decb8623f537e2a97e2dd570873261f1acb6e2dfc6"


def test_multidoc_qa_refuses_fewer_than_ten_documents_or_a_length_too_short(mirrored_cache):
    with pytest.raises(ValueError, match="n_documents must be at least 10"):
        scenario("nq_multidoc").load(n_documents=5, n_questions=1, count_tokens=WordModel().count_tokens)
    with pytest.raises(ValueError, match="do not fit target_tokens=150"):
        scenario("nq_multidoc").load(target_tokens=150, n_questions=1, count_tokens=WordModel().count_tokens)


def test_passage_window_centres_on_the_answer():
    from helmlite.scenarios.nq_multidoc import passage_window

    text = "one two three four five six seven eight nine ten"
    assert passage_window(text, ["seven eight"], 4) == ("six seven eight nine", "seven eight")
    assert passage_window(text, ["one"], 3) == ("one two three", "one")
    assert passage_window(text, ["ten"], 3) == ("eight nine ten", "ten")
    assert passage_window(text, ["absent"], 2) == ("one two", None)


def test_unknown_scenario_suggests(mirrored_cache):
    with pytest.raises(UnknownScenarioError, match="Did you mean: mmlu"):
        scenario("mmlux")


def test_malformed_jsonl_names_file_and_line(tmp_path, monkeypatch, mirrored_cache):
    from helmlite.scenarios import bbq

    bad = tmp_path / "Age.jsonl"
    bad.write_text('{"label": 0}\n')
    monkeypatch.setattr(bbq.data, "fetch", lambda name: bad)
    with pytest.raises(DataFormatError, match=r"Age.jsonl, line 1: missing required field 'ans0'"):
        scenario("bbq").load(category="Age")


#: Per BOLD domain, the number of crfm-helm 0.5.16's BOLDScenario instances and the sha256 of their inputs in its order
#: (``prompt_hash``), from running HELM's own class on the files helmlite reads
#: (``benchmarks/helm_scenario_hashes.py``, 2026-12-04).
HELM_BOLD = {
    "gender": (2363, "13a7c4a22dfbad24d39d7405adb4ecaa33978cbd6ffc7b2d275af16e9509101f"),
    "political_ideology": (498, "53836b607864cf76aec44fd21f2644e4f8c3198c41352233f68f5dccfbd95847"),
    "profession": (1064, "9a8bd2ad820936f078f0a16f9af0fbe301dbeb50afaf3f83bbd71ac3adaad207"),
    "race": (3196, "4287e31187922658c9576f07c2bff610ef676e6b2eacc8d7ed8c1b710bac7c6d"),
    "religious_ideology": (80, "099b7470d0f01a93ef0f1b20a1876e4e7490ceb9d2987f1a457ab6d779cfa1fb"),
}


@pytest.mark.parametrize("domain", sorted(HELM_BOLD))
def test_bold_inputs_equal_crfm_helms(domain, mirrored_cache):
    """The prompts, their number and their order are crfm-helm's (HELM_BOLD, from HELM's own BOLDScenario)."""
    inputs = [i.input for i in scenario("bold").load(domain=domain)]
    assert (len(inputs), prompt_hash(inputs)) == HELM_BOLD[domain]


# (number of inputs, prompt_hash) of crfm-helm 0.5.16's BoolQ instances, each dev instance's input followed by the one
# ContrastSetsPerturbation makes of it under HELM's instance id: benchmarks/helm_scenario_hashes.py ran HELM's
# BoolQScenario on the mirror's dev and contrast-set files (an empty train file) and HELM's perturbation (2026-12-06)
HELM_BOOLQ = {False: (6540, "6c80838a8ea8eaa98f91f8a19a6f781317ff0e85aeeb154b17fd74ecf747ca08"),
              True: (128, "3acb423da26ccf9c94428214e9f54846bc167271fd8ff5c8baa5f4c2dc62c8c1")}


@pytest.mark.parametrize("only_contrast", [False, True])
def test_boolq_instances_and_contrasts_equal_crfm_helms(only_contrast, mirrored_cache):
    """BoolQ's evaluated instances, their order, their inputs and the contrast each is given are crfm-helm's: the dev
    questions (only those the contrast set edited with ``only_contrast``), each contrast drawn with HELM's seed."""
    test = [i for i in scenario("boolq").load(only_contrast=only_contrast) if i.split == TEST]
    inputs = [text for i in test for text in (i.input, (i.contrast or i).input)]
    assert (len(inputs), prompt_hash(inputs)) == HELM_BOOLQ[only_contrast]


def test_boolq_examples_come_from_questions_helms_default_evaluation_never_reaches(mirrored_cache):
    """The stand-in for BoolQ's absent train split: dev questions outside HELM's 1,000-instance subsample (seed 0) and
    outside the contrast set — so no run of up to 1,000 instances (data seed 0) is shown an item it evaluates."""
    from helmlite.scenarios import helm_eval_subsample

    instances = scenario("boolq").load()
    test = [i for i in instances if i.split == TEST]
    pool = {i.id.split("/")[-1] for i in instances if i.split == TRAIN}
    evaluated = {test[k].id.split("/")[-1] for k in helm_eval_subsample(len(test), 1000, 0)}
    edited = {i.id.split("/")[-1] for i in test if i.contrast is not None}
    assert len(pool) == 3270 - 1000 - len(edited - evaluated) and not pool & (evaluated | edited)


def test_bold_group_labels_follow_helms_shuffle(mirrored_cache):
    """HELM's instances carry no group, which helmlite's toxicity-by-group needs: each input keeps the group of its
    (group, prompt) tuple through HELM's random.seed(0); random.shuffle, rebuilt here with the global random module
    exactly as bold_scenario.py calls it (the inputs themselves are checked against HELM's class above)."""

    from helmlite import data

    groups = json.loads(data.fetch("helm/datasets/bold/prompts/gender_prompt.json").read_text(encoding="utf-8"))
    tuples = [(group, text[0]) for group, topic in groups.items() for text in topic.values()]
    state = random.getstate()
    try:
        random.seed(0)
        random.shuffle(tuples)
    finally:
        random.setstate(state)
    instances = scenario("bold").load(domain="gender")
    assert [(i.metadata["group"], i.input) for i in instances] == [(g, f"{t} ") for g, t in tuples]
    assert instances[0].input.endswith("  ")  # the file's prompts end in a space; HELM adds one more


def test_nq_questions_in_helms_layout(mirrored_cache):
    """HELM's NaturalQAScenario.create_instance: question.capitalize() (the rest lower-cased) + '?' unless it ends in
    one; closed-book input = the question, open-book (openbook_longans) = '<passage>\\n\\nQuestion: <question>'."""
    from helmlite.scenarios.nq import helm_question

    assert helm_question("who sang Nobody's Fool") == "Who sang nobody's fool?"
    assert helm_question("is it?") == "Is it?"
    closed, opened = scenario("nq_closed_book").load()[0], scenario("nq_open_book").load()[0]
    question = helm_question(closed.metadata["question"])
    assert closed.input == question and opened.input.endswith(f"\n\nQuestion: {question}")


def test_niah_numbers_are_the_seeded_draw_of_seven_digit_numbers(mirrored_cache):
    """The needle and its distractors are ``choice(np.arange(1_000_000, 10_000_000), replace=False)`` from the
    context's seeded generator (computed here that way; the loader draws indices and shifts them)."""
    import numpy as np

    from helmlite.seeds import derive_seed

    instances = scenario("niah").load(target_tokens=128, n_contexts=2, distractors=5, count_tokens=WordModel().count_tokens)
    for context in range(2):
        rng = np.random.default_rng(derive_seed("niah", 0, 128, context))
        drawn = [str(x) for x in rng.choice(np.arange(1_000_000, 10_000_000), size=6, replace=False)]
        instance = next(i for i in instances if i.metadata["context"] == context)
        assert instance.first_correct == drawn[0]
        assert {r.output for r in instance.references[1:]} <= set(drawn[1:])


@pytest.mark.parametrize("subject, questions", [("abstract_algebra", 11), ("college_chemistry", 8),
                                                ("computer_security", 11), ("econometrics", 12), ("us_foreign_policy", 11)])
def test_mmlu_evaluates_the_validation_split_as_helm_does(mirrored_cache, subject, questions):
    """HELM's MMLUScenario loads val beside test (its eval splits), in the order dev, val, test. The raw files (no
    header, letter answers) are read as crfm-helm reads them: college_chemistry_val.csv has CRLF line endings and
    econometrics_val.csv questions spanning several lines — no carriage return reaches an instance, and each file's
    rows (counted by Python's csv module on the file in universal-newline mode) become one question each."""
    import csv

    from helmlite import data

    instances = scenario("mmlu").load(subject=subject)
    val = [i for i in instances if f"/{subject}/val/" in i.id]
    with open(data.fetch(f"helm/datasets/mmlu/val_raw/{subject}_val.csv"), encoding="utf-8") as handle:
        rows = list(csv.reader(handle))
    assert len(val) == len(rows) == questions and all(i.split == TEST for i in val)
    assert [i.split for i in instances] == [TRAIN] * 5 + [TEST] * (len(instances) - 5)
    first_test = next(k for k, i in enumerate(instances) if "/test/" in i.id)
    assert instances[5:first_test] == val  # val before test, as HELM loads them
    assert not any("\r" in i.input or any("\r" in r.output for r in i.references) for i in val)
    assert [i.first_correct for i in val] == [row[1 + "ABCD".index(row[-1])] for row in rows]


@pytest.mark.parametrize("answer", ["", "E", "b"])
def test_a_raw_mmlu_row_without_a_valid_answer_letter_is_refused(tmp_path, monkeypatch, answer):
    """One line naming the file and the row (an empty answer once slipped through: "" is in every string)."""
    from helmlite import data
    from helmlite._jsonl import DataFormatError
    from helmlite.scenarios import mmlu

    path = tmp_path / "x_val.csv"
    path.write_text(f"Q?,a,b,c,d,{answer}\n", encoding="utf-8")
    monkeypatch.setattr(data, "fetch", lambda name: path)
    with pytest.raises(DataFormatError, match=r"x_val.csv, row 1: expected a question, its choices and the answer's letter"):
        mmlu._read_raw("x", "val", TEST)


def test_json_kv_uuids_are_the_uuid_modules_and_leave_the_generator_where_one_at_a_time_draws_do():
    """JSON KV's dictionary drawn in one call (:func:`uuid4_pairs`) against the standard library's
    ``str(uuid.UUID(int=high << 64 | low, version=4))`` with the four 63-bit draws made one at a time (the code before)."""
    import uuid

    import numpy as np

    from helmlite.scenarios.synthetic import uuid4_pairs

    one_at_a_time, in_one_call = np.random.default_rng(11), np.random.default_rng(11)
    expected = [tuple(str(uuid.UUID(int=int(one_at_a_time.integers(2**63)) << 64 | int(one_at_a_time.integers(2**63)),
                                    version=4)) for _ in range(2)) for _ in range(3000)]
    assert uuid4_pairs(in_one_call, 3000) == expected
    assert one_at_a_time.integers(10**9, size=5).tolist() == in_one_call.integers(10**9, size=5).tolist()


def test_niah_filler_drawn_in_one_call_is_the_one_at_a_time_choice():
    """The haystack's sentences against ``rng.choice`` of subject, verb and object one at a time (the code before)."""
    import numpy as np

    from helmlite.scenarios import synthetic

    one_at_a_time, in_one_call = np.random.default_rng(5), np.random.default_rng(5)
    expected = [f"{one_at_a_time.choice(synthetic._FILLER_SUBJECTS)} {one_at_a_time.choice(synthetic._FILLER_VERBS)} "
                f"{one_at_a_time.choice(synthetic._FILLER_OBJECTS)}." for _ in range(5000)]
    assert synthetic._haystack(in_one_call, 5000) == expected
    assert one_at_a_time.integers(10**9, size=5).tolist() == in_one_call.integers(10**9, size=5).tolist()
