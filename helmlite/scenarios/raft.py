"""RAFT — Alex et al. 2021, "RAFT: A Real-World Few-Shot Text Classification Benchmark" (NeurIPS D&B).

HELM (Liang et al. 2022, §3.3) evaluates RAFT's 11 subsets; RAFT's test labels are private, so HELM holds out
part of the 50 labelled training examples for evaluation, exactly as crfm-helm's ``RAFTScenario`` does: Hugging
Face ``datasets``' ``train_test_split(test_size=0.8, seed=42)`` of the subset's train split (:func:`helm_split`:
40 evaluated, 10 for in-context examples), the training part listed first, each part in the split's order.
HELM's task instructions and field order come from ``prompt_construction_settings.json``, two JSON lines crfm-helm
downloads at run time (``raft_scenario.get_raft_prompt_settings``); the mirror holds the file of oughtinc/raft-baselines,
whose example prompts HELM's RAFT scenario cites (byte identity with crfm-helm's download is unverified). Each instance
is the subset's fields in that order, ``"<field>: <value>"`` one per line, and the run's instructions are the subset's
(:func:`prompt_settings`), as crfm-helm's ``get_raft_spec`` builds them. HELM's adapter spec for RAFT is generation
(``get_generation_adapter_spec(instructions, input_noun=None, output_noun="Label", max_tokens=30)``: no input prefix,
output prefix "Label: ", stop at a newline, 5 in-context examples, greedy): the default here too; the
multiple-choice methods remain available (every label a reference).
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
SETTINGS = "helm/datasets/raft/prompt_construction_settings.jsonl"
_FILES = tuple(f"helm/datasets/raft/{s}/{f}" for s in SUBSETS for f in ("train.csv", "task.json")) + (SETTINGS,)


HELM_TEST_SIZE, HELM_SEED = 0.8, 42  # RAFTScenario: train_test_split(test_size=0.8, seed=self.random_seed=42)


def helm_split(n: int, test_size: float = HELM_TEST_SIZE, seed: int = HELM_SEED) -> tuple[list[int], list[int]]:
    """Row indices (train, test) of ``datasets.Dataset.train_test_split(test_size, seed=seed)`` on ``n`` rows:
    ``ceil(test_size · n)`` test rows, the first of ``np.random.default_rng(seed).permutation(n)``, the next
    ``n − n_test`` the train rows, each in the permutation's order (tested against ``datasets`` itself)."""
    n_test = math.ceil(test_size * n)
    permutation = np.random.default_rng(seed).permutation(n)
    return [int(k) for k in permutation[n_test:]], [int(k) for k in permutation[:n_test]]


def prompt_settings(subset: str) -> tuple[list[str], str]:
    """The subset's field order and task instructions, read as crfm-helm reads its ``prompt_construction_settings.json``
    (``get_raft_prompt_settings``: the file's two lines, field orderings then instructions, each a JSON object by
    subset)."""
    if subset not in SUBSETS:
        raise UserError(f"raft: subset must be one of {SUBSETS}, got {subset!r}")
    path = data.fetch(SETTINGS)
    lines = path.read_text(encoding="utf-8").strip().split("\n")
    if len(lines) != 2:
        raise DataFormatError(f"{path}: expected two JSON lines (field orderings, then instructions), got {len(lines)} lines")
    try:
        orderings, instructions = (json.loads(line) for line in lines)
        return list(orderings[subset]), str(instructions[subset])
    except (json.JSONDecodeError, KeyError, TypeError) as error:
        raise DataFormatError(f"{path}: no field ordering and instructions for subset {subset!r} ({error})") from None


def _instructions(subset: str = "ade_corpus_v2") -> dict:
    """HELM's RAFT instructions (``get_raft_spec``): the subset's task description."""
    return {"instructions": prompt_settings(subset)[1]}


@register("raft", main_metric="quasi_exact_match", default_method="generation", methods="choices", data=_FILES,
          adapter={"input_prefix": "", "output_prefix": "Label:", "max_tokens": 30}, adapter_args=_instructions,
          choices={"subset": SUBSETS},
          version=3)  # 3 (2026-12-05): HELM's field order; 2 (2026-12-03): HELM's split (was a seeded 40% evaluated)
def load(subset: str = "ade_corpus_v2") -> list[Instance]:
    """RAFT, one subset: its labelled train examples split as HELM splits them (:func:`helm_split`), the in-context
    pool first, then the evaluated part."""
    if subset not in SUBSETS:
        raise UserError(f"raft: subset must be one of {SUBSETS}, got {subset!r}")
    task = json.loads(data.fetch(f"helm/datasets/raft/{subset}/task.json").read_text(encoding="utf-8"))
    (label_column, labels), = task["label_columns"].items()
    text_columns, _ = prompt_settings(subset)
    path = data.fetch(f"helm/datasets/raft/{subset}/train.csv")
    with open(path, newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    missing = [c for c in text_columns if rows and c not in rows[0]]
    if missing:
        raise DataFormatError(f"{path}: the prompt settings' fields {missing} are not columns of the file ({list(rows[0])})")
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
