"""MMLU — Hendrycks et al. 2021, "Measuring Massive Multitask Language Understanding" (ICLR).

HELM (Liang et al. 2022, §3.3) evaluates five subjects: abstract algebra, college chemistry,
computer security, econometrics and US foreign policy. Four-way multiple choice; the dev split
(5 questions per subject) supplies the in-context examples, test is evaluated.
Tags: knowledge, multiple-choice. Data: the mirror's copy (header row, answer as 0–3).
"""
from __future__ import annotations

import csv

from .. import data
from .._jsonl import DataFormatError
from ._base import TEST, TRAIN, Instance, Reference, register
from ..errors import UserError

SUBJECTS = ("abstract_algebra", "college_chemistry", "computer_security", "econometrics", "us_foreign_policy")
_FILES = tuple(f"helm/datasets/mmlu/{split}/{s}_{split}.csv" for s in SUBJECTS for split in ("dev", "test"))


def _read(subject: str, split: str, label: str) -> list[Instance]:
    path = data.fetch(f"helm/datasets/mmlu/{split}/{subject}_{split}.csv")
    out = []
    with open(path, newline="", encoding="utf-8") as handle:
        for number, row in enumerate(csv.DictReader(handle), start=2):
            try:
                choices = [row[f"choice{k}"] for k in range(4)]
                answer = int(row["answer"])
                question = row["question"]
            except (KeyError, ValueError, TypeError) as error:
                raise DataFormatError(f"{path}, line {number}: expected question, choice0-3 and an answer 0-3 ({error})") from None
            if answer not in range(4):
                raise DataFormatError(f"{path}, line {number}: field 'answer' must be 0-3, got {answer}")
            # as HELM's MMLUScenario.answer_to_reference: every choice whose text equals the answer's is correct
            refs = tuple(Reference(c, correct=c == choices[answer]) for c in choices)
            out.append(Instance(f"mmlu/{subject}/{split}/{number - 2}", question, refs, label, {"subject": subject}))
    return out


def _instructions(subject: str = "abstract_algebra") -> dict:
    """HELM's MMLU instructions (``get_mmlu_spec``): they name the subject."""
    return {"instructions": f"The following are multiple choice questions (with answers) about {str(subject).replace('_', ' ')}."}


@register("mmlu", main_metric="exact_match", default_method="multiple_choice_separate", methods="choices", data=_FILES, adapter_args=_instructions,
          choices={"subject": SUBJECTS})
def load(subject: str = "abstract_algebra") -> list[Instance]:
    """MMLU, one of HELM's five subjects (dev → train, test → test)."""
    if subject not in SUBJECTS:
        raise UserError(f"mmlu: subject must be one of {SUBJECTS}, got {subject!r}")
    return _read(subject, "dev", TRAIN) + _read(subject, "test", TEST)
