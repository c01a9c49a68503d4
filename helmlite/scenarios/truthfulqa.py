"""TruthfulQA — Lin et al. 2022, "TruthfulQA: Measuring How Models Mimic Human Falsehoods" (ACL).

HELM (Liang et al. 2022, §3.5) uses the multiple-choice form with a single correct answer: the best
answer among the incorrect ones. Here each question offers the best answer and up to three incorrect
answers in a seeded order; a seeded 20% of the 817 questions supply in-context examples.
Tags: truthfulness, multiple-choice.
"""
from __future__ import annotations

import csv

import numpy as np

from .. import data
from .._jsonl import DataFormatError
from ..seeds import derive_seed
from ._base import TEST, TRAIN, Instance, Reference, register

FILE = "helm/datasets/truthfulqa/TruthfulQA.csv"


@register("truthfulqa", main_metric="exact_match", default_method="multiple_choice_separate", data=(FILE,))
def load(max_choices: int = 4, train_share: float = 0.2) -> list[Instance]:
    """TruthfulQA multiple choice (best answer vs up to ``max_choices - 1`` incorrect answers)."""
    path = data.fetch(FILE)
    with open(path, newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    rng = np.random.default_rng(derive_seed("truthfulqa", "split"))
    is_train = rng.random(len(rows)) < train_share
    out = []
    for k, row in enumerate(rows):
        try:
            best, question = row["Best Answer"].strip(), row["Question"].strip()
            wrong = [a.strip() for a in row["Incorrect Answers"].split(";") if a.strip()][: max_choices - 1]
        except (KeyError, AttributeError):
            raise DataFormatError(f"{path}, line {k + 2}: expected Question, Best Answer and Incorrect Answers") from None
        choices = [Reference(best, True)] + [Reference(w, False) for w in wrong]
        order = np.random.default_rng(derive_seed("truthfulqa", "order", k)).permutation(len(choices))
        out.append(Instance(f"truthfulqa/{k}", question, tuple(choices[i] for i in order),
                            TRAIN if is_train[k] else TEST, {"category": row.get("Category", "")}))
    return out
