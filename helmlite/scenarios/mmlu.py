"""MMLU — Hendrycks et al. 2021, "Measuring Massive Multitask Language Understanding" (ICLR).

HELM (Liang et al. 2022, §3.3) evaluates five subjects: abstract algebra, college chemistry,
computer security, econometrics and US foreign policy. Four-way multiple choice; the dev split
(5 questions per subject) supplies the in-context examples; validation and test are evaluated, as HELM's
``MMLUScenario`` loads ``val`` beside ``test`` (its eval splits; the load order dev, val, test, which HELM's
test subsampling and perturbation seeds follow).
Tags: knowledge, multiple-choice. Data: the mirror's dev and test copies (header row, answer as 0–3) and its
validation files in the raw Hendrycks layout (no header, letter answers), read as crfm-helm's ``process_csv`` reads
them (``csv.reader`` on a file opened in universal-newline mode, so CRLF lines read as LF lines).
"""
from __future__ import annotations

import csv

from .. import data
from .._jsonl import DataFormatError
from ._base import TEST, TRAIN, Instance, Reference, register
from ..errors import UserError

SUBJECTS = ("abstract_algebra", "college_chemistry", "computer_security", "econometrics", "us_foreign_policy")
_FILES = tuple(f"helm/datasets/mmlu/{split}/{s}_{split}.csv" for s in SUBJECTS for split in ("dev", "test")) + \
    tuple(f"helm/datasets/mmlu/val_raw/{s}_val.csv" for s in SUBJECTS)


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


def _read_raw(subject: str, split: str, label: str) -> list[Instance]:
    """A split in the raw Hendrycks layout (``question, A, B, C, D, letter``), as crfm-helm's ``process_csv``: every
    choice whose text equals the answer's is correct."""
    path = data.fetch(f"helm/datasets/mmlu/{split}_raw/{subject}_{split}.csv")
    out = []
    with open(path, encoding="utf-8") as handle:  # universal newlines, as crfm-helm opens it
        for number, row in enumerate(csv.reader(handle, delimiter=","), start=1):
            if len(row) < 3 or row[-1] not in tuple("ABCDE"[:len(row) - 2]):  # a tuple: "" is in every string
                raise DataFormatError(f"{path}, row {number}: expected a question, its choices and the answer's letter, "
                                      f"got {len(row)} fields ending in {row[-1] if row else ''!r}")
            choices = row[1:-1]
            correct = choices["ABCDE".index(row[-1])]
            refs = tuple(Reference(c, correct=c == correct) for c in choices)
            out.append(Instance(f"mmlu/{subject}/{split}/{number - 1}", row[0], refs, label, {"subject": subject}))
    return out


def _instructions(subject: str = "abstract_algebra") -> dict:
    """HELM's MMLU instructions (``get_mmlu_spec``): they name the subject."""
    return {"instructions": f"The following are multiple choice questions (with answers) about {str(subject).replace('_', ' ')}."}


@register("mmlu", main_metric="exact_match", default_method="multiple_choice_separate", methods="choices", data=_FILES, adapter_args=_instructions,
          choices={"subject": SUBJECTS}, version=2)  # 2 (2026-12-05): validation evaluated beside test, as HELM
def load(subject: str = "abstract_algebra") -> list[Instance]:
    """MMLU, one of HELM's five subjects (dev → train; val, then test → evaluated)."""
    if subject not in SUBJECTS:
        raise UserError(f"mmlu: subject must be one of {SUBJECTS}, got {subject!r}")
    return _read(subject, "dev", TRAIN) + _read_raw(subject, "val", TEST) + _read(subject, "test", TEST)
