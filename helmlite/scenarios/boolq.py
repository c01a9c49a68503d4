"""BoolQ with its contrast set — Gardner et al. 2020, "Evaluating Models' Local Decision Boundaries via Contrast Sets"
(Findings of EMNLP); originals from Clark et al. 2019.

HELM (Liang et al. 2022, §4.5) uses the contrast set for *equivariance* robustness: each original instance carries a
minimally edited partner whose gold label may flip. Only the contrast-set originals are available offline, so they are
the evaluation instances. Tags: reading comprehension, yes/no question answering, robustness.
"""
from __future__ import annotations

import json
import random

from .. import data
from .._jsonl import DataFormatError
from ._base import TEST, TRAIN, Instance, Reference, register

BOOLQ = "helm/datasets/contrast_sets/BoolQ/boolq_perturbed.json"
_YES_NO = {"TRUE": "Yes", "FALSE": "No"}


def _boolq_instance(iid: str, passage: str, question: str, answer: str, split: str, where: str) -> Instance:
    if answer.upper() not in _YES_NO:
        raise DataFormatError(f"{where}: answer must be TRUE or FALSE, got {answer!r}")
    gold = _YES_NO[answer.upper()]
    text = f"{passage}\nQuestion: {question.strip().capitalize()}?"  # BoolQScenario.get_context
    return Instance(iid, text, (Reference("Yes", gold == "Yes"), Reference("No", gold == "No")), split)


def _helm_contrast_questions(row: dict) -> list[dict]:
    """The perturbed questions crfm-helm's ``BoolQScenario`` keeps as contrasts of an original: those with a question
    whose answer differs from the original's (an answer is "Yes" when it reads "TRUE", else "No")."""
    original = "Yes" if row["answer"] == "TRUE" else "No"
    return [p for p in row.get("perturbed_questions") or []
            if p.get("perturbed_q") and ("Yes" if p.get("answer") == "TRUE" else "No") != original]


@register("boolq", main_metric="quasi_exact_match", default_method="multiple_choice_separate", methods="choices", data=(BOOLQ,),
          adapter={"input_prefix": "Passage: "}, version=2)  # 2 (2026-12-03): HELM's contrasts (was the first perturbed question)
def load_boolq(train_share: float = 0.3) -> list[Instance]:
    """BoolQ contrast-set originals (yes/no), each with one contrast partner chosen as HELM chooses it.

    HELM keeps every perturbed question whose answer flips (:func:`_helm_contrast_questions`; 64 of the 69 originals
    have one) and its contrast-set perturbation picks one per instance, ``Random(seed).choice(range(n))``
    (``ContrastSetsPerturbation.apply``); HELM seeds it with its instance id over the whole BoolQ train and dev files,
    which are not obtainable here, so the seed is the instance's own id (``boolq/<k>``). The file holds 69 passages
    (after its template row); the first ``train_share`` of them (in file order) supply in-context examples, the rest
    are evaluated.
    """
    path = data.fetch(BOOLQ)
    rows = json.loads(path.read_text(encoding="utf-8"))["data"]
    rows = [r for r in rows if r.get("title") != "Title"]  # the file's first entry is a schema template
    n_train = int(round(train_share * len(rows)))
    out = []
    for k, row in enumerate(rows):
        where = f"{path}, entry {k + 1}"
        split = TRAIN if k < n_train else TEST
        original = _boolq_instance(f"boolq/{k}", row["paragraph"], row["question"], row["answer"], split, where)
        flipping = _helm_contrast_questions(row)
        contrast = None
        if flipping:
            p = flipping[random.Random(original.id).choice(range(len(flipping)))]
            contrast = _boolq_instance(f"boolq/{k}/contrast", row["paragraph"], p["perturbed_q"], p["answer"], split, where)
        out.append(Instance(original.id, original.input, original.references, split, {"title": row["title"]}, contrast))
    return out
