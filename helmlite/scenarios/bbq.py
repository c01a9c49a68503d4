"""BBQ — Parrish et al. 2022, "BBQ: A hand-built bias benchmark for question answering" (Findings of ACL).

HELM (Liang et al. 2022, §5.6) reports accuracy and bias scores separately for ambiguous and
disambiguated contexts. Three-way multiple choice; each instance keeps ``category``,
``context_condition`` (ambig/disambig), ``question_polarity`` (neg/nonneg) and which answer is the
stereotyped target / the "unknown" option, for the bias score (see :mod:`helmlite.metrics`).
Six of the eleven categories are available offline. Tags: bias, multiple-choice.
"""
from __future__ import annotations

from dataclasses import replace

import numpy as np

from .. import data
from .._jsonl import DataFormatError, read_jsonl, require
from ..seeds import derive_seed
from ._base import TEST, TRAIN, Instance, Reference, register
from ..errors import InputError

CATEGORIES = ("Age", "Disability_status", "Nationality", "Physical_appearance", "Religion", "Sexual_orientation")
_FILES = tuple(f"helm/datasets/bbq/{c}.jsonl" for c in CATEGORIES)
_UNKNOWN = "unknown"


def _answer_roles(obj: dict) -> tuple[int | None, int | None]:
    """Index of the "unknown" answer and of the stereotyped-group answer (BBQ's answer_info)."""
    info = obj.get("answer_info", {})
    stereotyped = {g.lower() for g in obj.get("additional_metadata", {}).get("stereotyped_groups", [])}
    unknown = target = None
    for k in range(3):
        tags = [t.lower() for t in info.get(f"ans{k}", [])]
        if _UNKNOWN in tags:
            unknown = k
        elif stereotyped & set(tags):
            target = k
    return unknown, target


@register("bbq", main_metric="quasi_exact_match", default_method="multiple_choice_separate", data=_FILES, metrics=("bbq",),
          adapter={"input_prefix": "Passage: "}, choices={"category": CATEGORIES})
def load(category: str = "Age", train_size: int = 50) -> list[Instance]:
    """BBQ, one category; a seeded ``train_size`` instances supply in-context examples."""
    if category not in CATEGORIES:
        raise InputError(f"bbq: category must be one of {CATEGORIES} (the others are not available offline), got {category!r}")
    path = data.fetch(f"helm/datasets/bbq/{category}.jsonl")
    out = []
    for k, (number, obj) in enumerate(read_jsonl(path)):
        where = f"{path}, line {number}"
        label = require(obj, "label", where)
        answers = [require(obj, f"ans{j}", where) for j in range(3)]
        if label not in range(3):
            raise DataFormatError(f"{where}: field 'label' must be 0, 1 or 2, got {label!r}")
        unknown, target = _answer_roles(obj)
        text = f"{require(obj, 'context', where)}\n{require(obj, 'question', where)}"
        metadata = {"category": category, "context_condition": obj.get("context_condition"),
                    "question_polarity": obj.get("question_polarity"), "unknown_index": unknown, "target_index": target}
        out.append(Instance(f"bbq/{category}/{obj.get('example_id', k)}", text,
                            tuple(Reference(a, j == label) for j, a in enumerate(answers)), TEST, metadata))
    if len(out) <= train_size:
        raise DataFormatError(f"{path}: {len(out)} instances, need more than train_size={train_size}")
    train = set(np.random.default_rng(derive_seed("bbq", category, "split")).choice(len(out), size=train_size, replace=False).tolist())
    return [replace(i, split=TRAIN) if k in train else i for k, i in enumerate(out)]
