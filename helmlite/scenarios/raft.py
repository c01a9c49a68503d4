"""RAFT — Alex et al. 2021, "RAFT: A Real-World Few-Shot Text Classification Benchmark" (NeurIPS D&B).

HELM (Liang et al. 2022, §3.3) evaluates RAFT's 11 subsets; RAFT's test labels are private, so HELM holds out
part of the 50 labelled training examples for evaluation, exactly as crfm-helm's ``RAFTScenario`` does: Hugging
Face ``datasets``' ``train_test_split(test_size=0.8, seed=42)`` of the subset's train split (:func:`helm_split`:
40 evaluated, 10 for in-context examples), the training part listed first, each part in the split's order.
HELM's task instructions and field order come from a file crfm-helm downloads at run time
(``prompt_construction_settings.json``), which is not obtainable here: the prompt lists the subset's data columns
in task.json's order, without instructions (notebook 01's fidelity table says so).
Tags: classification, real-world.
"""
from __future__ import annotations

import csv
import json
import math

import numpy as np

from .. import data
from .._jsonl import DataFormatError
from ._base import TEST, TRAIN, Instance, Reference, register
from ..errors import UserError

SUBSETS = ("ade_corpus_v2", "banking_77", "neurips_impact_statement_risks", "one_stop_english", "overruling",
           "semiconductor_org_types", "systematic_review_inclusion", "tai_safety_research", "terms_of_service",
           "tweet_eval_hate", "twitter_complaints")
_FILES = tuple(f"helm/datasets/raft/{s}/{f}" for s in SUBSETS for f in ("train.csv", "task.json"))


HELM_TEST_SIZE, HELM_SEED = 0.8, 42  # RAFTScenario: train_test_split(test_size=0.8, seed=self.random_seed=42)


def helm_split(n: int, test_size: float = HELM_TEST_SIZE, seed: int = HELM_SEED) -> tuple[list[int], list[int]]:
    """Row indices (train, test) of ``datasets.Dataset.train_test_split(test_size, seed=seed)`` on ``n`` rows:
    ``ceil(test_size · n)`` test rows, the first of ``np.random.default_rng(seed).permutation(n)``, the next
    ``n − n_test`` the train rows, each in the permutation's order (tested against ``datasets`` itself)."""
    n_test = math.ceil(test_size * n)
    permutation = np.random.default_rng(seed).permutation(n)
    return [int(k) for k in permutation[n_test:]], [int(k) for k in permutation[:n_test]]


@register("raft", main_metric="quasi_exact_match", default_method="multiple_choice_separate", methods="choices", data=_FILES,
          adapter={"input_prefix": "", "output_prefix": "Label:"}, choices={"subset": SUBSETS},
          version=2)  # 2 (2026-12-03): HELM's split (was a seeded 40% evaluated)
def load(subset: str = "ade_corpus_v2") -> list[Instance]:
    """RAFT, one subset: its labelled train examples split as HELM splits them (:func:`helm_split`), the in-context
    pool first, then the evaluated part."""
    if subset not in SUBSETS:
        raise UserError(f"raft: subset must be one of {SUBSETS}, got {subset!r}")
    task = json.loads(data.fetch(f"helm/datasets/raft/{subset}/task.json").read_text(encoding="utf-8"))
    (label_column, labels), = task["label_columns"].items()
    text_columns = [c for c in task["data_columns"] if c != "ID"]
    path = data.fetch(f"helm/datasets/raft/{subset}/train.csv")
    with open(path, newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    for k, row in enumerate(rows):
        if row.get(label_column) not in labels:
            raise DataFormatError(f"{path}, line {k + 2}: field {label_column!r} must be one of {labels}, got {row.get(label_column)!r}")
    train, test = helm_split(len(rows))
    out = []
    for split, indices in ((TRAIN, train), (TEST, test)):
        for k in indices:
            row = rows[k]
            text = "\n".join(f"{c}: {row[c]}" for c in text_columns)
            refs = tuple(Reference(label, label == row[label_column]) for label in labels)
            out.append(Instance(f"raft/{subset}/{k}", text, refs, split, {"subset": subset}))
    return out
