"""RAFT — Alex et al. 2021, "RAFT: A Real-World Few-Shot Text Classification Benchmark" (NeurIPS D&B).

HELM (Liang et al. 2022, §3.3) evaluates RAFT's 11 subsets; RAFT's test labels are private, so —
as HELM does — part of the 50 labelled training examples is held out for evaluation. Here a seeded
40% of each subset's train.csv (20 of 50) is the test split, the rest supplies in-context examples.
Tags: classification, real-world.
"""
from __future__ import annotations

import csv
import json

import numpy as np

from .. import data
from .._jsonl import DataFormatError
from ..seeds import derive_seed
from ._base import TEST, TRAIN, Instance, Reference, register
from ..errors import InputError

SUBSETS = ("ade_corpus_v2", "banking_77", "neurips_impact_statement_risks", "one_stop_english", "overruling",
           "semiconductor_org_types", "systematic_review_inclusion", "tai_safety_research", "terms_of_service",
           "tweet_eval_hate", "twitter_complaints")
_FILES = tuple(f"helm/datasets/raft/{s}/{f}" for s in SUBSETS for f in ("train.csv", "task.json"))


@register("raft", main_metric="quasi_exact_match", default_method="multiple_choice_separate", data=_FILES,
          adapter={"input_prefix": "", "output_prefix": "Label:"}, choices={"subset": SUBSETS})
def load(subset: str = "ade_corpus_v2", test_share: float = 0.4) -> list[Instance]:
    """RAFT, one subset; labelled train examples split into in-context pool and held-out test."""
    if subset not in SUBSETS:
        raise InputError(f"raft: subset must be one of {SUBSETS}, got {subset!r}")
    task = json.loads(data.fetch(f"helm/datasets/raft/{subset}/task.json").read_text(encoding="utf-8"))
    (label_column, labels), = task["label_columns"].items()
    text_columns = [c for c in task["data_columns"] if c != "ID"]
    path = data.fetch(f"helm/datasets/raft/{subset}/train.csv")
    with open(path, newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    is_test = np.random.default_rng(derive_seed("raft", subset, "split")).random(len(rows)) < test_share
    out = []
    for k, row in enumerate(rows):
        gold = row.get(label_column)
        if gold not in labels:
            raise DataFormatError(f"{path}, line {k + 2}: field {label_column!r} must be one of {labels}, got {gold!r}")
        text = "\n".join(f"{c}: {row[c]}" for c in text_columns)
        refs = tuple(Reference(label, label == gold) for label in labels)
        out.append(Instance(f"raft/{subset}/{k}", text, refs, TEST if is_test[k] else TRAIN, {"subset": subset}))
    return out
