"""TruthfulQA — Lin et al. 2022, "TruthfulQA: Measuring How Models Mimic Human Falsehoods" (ACL).

HELM (Liang et al. 2022, §3.5) uses the multiple-choice form with a single correct answer (``mc_single``).
The instances are crfm-helm's (``truthful_qa_scenario.py``, v0.5.16): the first 20% of the CSV's rows
(``int(817 · 0.2)`` = 163) in file order train, the other 654 are evaluated (HELM's valid split, here
``test``); every answer is stripped and gets a final "." unless it ends in one; the references are *all*
incorrect answers then the best one, rotated left by ``ord(best[0]) % n``. ``max_choices`` (helmlite's
option, off by default) keeps only the first ``max_choices − 1`` incorrect answers before the rotation.
Tags: truthfulness, multiple-choice.
"""
from __future__ import annotations

import csv

from .. import data
from .._jsonl import DataFormatError
from ._base import TEST, TRAIN, Instance, Reference, register

FILE = "helm/datasets/truthfulqa/TruthfulQA.csv"


TRAIN_RATIO = 0.2  # TruthfulQAScenario.TRAIN_RATIO


def _formatted(answer: str) -> str:
    """HELM's ``format_str``: stripped, with a final '.' unless it already ends in one."""
    answer = answer.strip()
    return answer if answer.endswith(".") else answer + "."


def _references(best: str, incorrect: list[str]) -> tuple[Reference, ...]:
    """HELM's ``get_references``: the incorrect answers, then the best, rotated left by ord(best[0]) % n."""
    references = [Reference(a, False) for a in incorrect] + [Reference(best, True)]
    k = ord(best[0]) % len(references)
    return tuple(references[k:] + references[:k])


@register("truthfulqa", main_metric="exact_match", default_method="multiple_choice_separate", methods="choices", data=(FILE,))
def load(max_choices: int | None = None) -> list[Instance]:
    """TruthfulQA mc_single as crfm-helm builds it (module docstring); ``max_choices`` caps the options."""
    path = data.fetch(FILE)
    with open(path, newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    n_train = int(len(rows) * TRAIN_RATIO)
    out = []
    for k, row in enumerate(rows):
        try:
            question, best = row["Question"].strip(), _formatted(row["Best Answer"])
            incorrect = [_formatted(a) for a in row["Incorrect Answers"].split(";") if a.strip()]
        except (KeyError, AttributeError):
            raise DataFormatError(f"{path}, line {k + 2}: expected Question, Best Answer and Incorrect Answers") from None
        if max_choices is not None:
            incorrect = incorrect[: max_choices - 1]
        out.append(Instance(f"truthfulqa/{k}", question, _references(best, incorrect), TRAIN if k < n_train else TEST,
                            {"category": row.get("Category", "")}))
    return out
