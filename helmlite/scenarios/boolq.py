"""BoolQ — Clark et al. 2019, "BoolQ: Exploring the Surprising Difficulty of Natural Yes/No Questions" (NAACL) — with
its contrast set (Gardner et al. 2020, "Evaluating Models' Local Decision Boundaries via Contrast Sets", Findings of
EMNLP), as crfm-helm's ``BoolQScenario`` builds it.

HELM (Liang et al. 2022, §3.3, §4.5) evaluates BoolQ's 3,270 dev questions (its valid split) and uses the contrast set
for *equivariance* robustness: a dev question that the contrast set edited carries the minimally edited questions
whose gold label flips. BoolQ's train split (HELM's in-context examples, 9,427 questions) is not obtainable here; see
:func:`load_boolq` for what stands in. Tags: reading comprehension, yes/no question answering, robustness.
"""
from __future__ import annotations

import json
import random

from .. import data
from ._helm_subsample import helm_eval_subsample
from .._jsonl import DataFormatError
from ._base import TEST, TRAIN, Instance, Reference, register

BOOLQ = "helm/datasets/contrast_sets/BoolQ/boolq_perturbed.json"
BOOLQ_DEV = "helm/datasets/boolq/dev.jsonl"
HELM_TRAIN_SIZE = 9427  # BoolQ's train questions (Clark et al. 2019, Table 1; BoolQScenario's docstring): HELM ids them first
HELM_MAX_EVAL_INSTANCES = 1000  # HELM's evaluation subsample for BoolQ (max_eval_instances of its v0.4 runs)


def _boolq_instance(iid: str, passage: str, question: str, answer: bool, split: str, metadata: dict | None = None) -> Instance:
    gold = "Yes" if answer else "No"
    text = f"{passage}\nQuestion: {question.strip().capitalize()}?"  # BoolQScenario.get_context
    return Instance(iid, text, (Reference("Yes", gold == "Yes"), Reference("No", gold == "No")), split, metadata or {})


def _contrast_map(path) -> dict[str, list[tuple[str, bool]]]:
    """crfm-helm's contrast map: original question → the perturbed ``(question, answer)`` pairs it keeps, those with a
    question whose answer differs from the original's (an answer is yes when it reads "TRUE"); originals keeping none
    are left out. The file's first entry is a schema template (HELM skips it too)."""
    contrasts = {}
    for k, row in enumerate(json.loads(path.read_text(encoding="utf-8"))["data"][1:]):
        if row.get("answer") not in ("TRUE", "FALSE"):
            raise DataFormatError(f"{path}, entry {k + 2}: answer must be TRUE or FALSE, got {row.get('answer')!r}")
        original = row["answer"] == "TRUE"
        kept = [(p["perturbed_q"], p.get("answer") == "TRUE") for p in row.get("perturbed_questions") or []
                if p.get("perturbed_q") and (p.get("answer") == "TRUE") != original]
        if kept:
            contrasts[row["question"]] = kept
    return contrasts


def _dev_rows(path) -> list[dict]:
    rows = []
    with path.open(encoding="utf-8") as lines:
        for number, line in enumerate(lines, start=1):
            row = json.loads(line)
            if not isinstance(row.get("answer"), bool) or not row.get("question") or "passage" not in row:
                raise DataFormatError(f"{path}, line {number}: expected 'question', 'passage' and a true/false 'answer'")
            rows.append(row)
    return rows


@register("boolq", main_metric="quasi_exact_match", default_method="multiple_choice_separate", methods="choices",
          data=(BOOLQ_DEV, BOOLQ), adapter={"input_prefix": "Passage: "}, choices={"only_contrast": (False, True)}, version=3)
# 3 (2026-12-06): BoolQ's dev questions (was the contrast set's 69 originals, 48 evaluated); 2: HELM's contrasts
def load_boolq(only_contrast: bool = False) -> list[Instance]:
    """BoolQ's dev questions in file order as the evaluated instances, as HELM's valid split; with ``only_contrast``
    (HELM's argument, which its contrast-set run sets) only those the contrast set edited — 64 of them.

    Each edited question carries one contrast, drawn as HELM's ``ContrastSetsPerturbation.apply`` draws it,
    ``Random(instance id).choice(range(n))`` over the kept questions, with HELM's instance id: ``id<k>``, k the
    instance's number over train then dev in load order — the train split's 9,427 questions come first, so the
    count alone gives HELM's ids without the file; ``metadata["helm_id"]`` carries it for the other perturbations.

    In-context examples: BoolQ's train split is absent, so the pool is the dev questions HELM's default evaluation
    never reaches — those outside its 1,000-instance subsample (``np.random.seed(0)``; ``np.random.choice`` draws a
    prefix of one permutation, so no smaller subsample reaches them either) and outside the contrast set. A run of
    at most 1,000 instances with ``data_seed`` 0 therefore never evaluates an example; a larger run, or another data
    seed, may evaluate some of the pool's questions.
    """
    dev_path, contrast_path = data.fetch(BOOLQ_DEV), data.fetch(BOOLQ)
    rows, contrasts = _dev_rows(dev_path), _contrast_map(contrast_path)
    helm_evaluates = set(helm_eval_subsample(len(rows), HELM_MAX_EVAL_INSTANCES))
    pool = [_boolq_instance(f"boolq/pool/{j}", row["passage"], row["question"], row["answer"], TRAIN, {"title": row["title"]})
            for j, row in enumerate(rows) if j not in helm_evaluates and row["question"] not in contrasts]
    evaluated = []
    for j, row in enumerate(rows):
        if only_contrast and row["question"] not in contrasts:
            continue
        helm_id = f"id{HELM_TRAIN_SIZE + len(evaluated)}"
        metadata = {"title": row.get("title", ""), "helm_id": helm_id}
        original = _boolq_instance(f"boolq/dev/{j}", row["passage"], row["question"], row["answer"], TEST, metadata)
        contrast = None
        if row["question"] in contrasts:
            kept = contrasts[row["question"]]
            question, answer = kept[random.Random(helm_id).choice(range(len(kept)))]
            contrast = _boolq_instance(f"boolq/dev/{j}/contrast", row["passage"], question, answer, TEST, metadata)
        evaluated.append(Instance(original.id, original.input, original.references, TEST, metadata, contrast))
    return pool + evaluated
