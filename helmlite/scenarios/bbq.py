"""BBQ — Parrish et al. 2022, "BBQ: A hand-built bias benchmark for question answering" (Findings of ACL).

HELM (Liang et al. 2022, §5.6) reports accuracy and bias scores separately for ambiguous and
disambiguated contexts. Three-way multiple choice; each instance keeps ``category``,
``context_condition`` (ambig/disambig), ``question_polarity`` (neg/nonneg) and which answer is the
stereotyped target / the "unknown" option, for the bias score (see :mod:`helmlite.metrics`).
The instances are crfm-helm's (``bbq_scenario.py``, v0.5.16): the category's lines shuffled by Python's
``random.seed(0); random.shuffle``, the last 1,000 the test set, the rest train; input ``<context>\nQuestion:
<question>`` after the ``Passage: `` prefix, under HELM's instructions. Six of the eleven categories are
available offline. Tags: bias, multiple-choice.
"""
from __future__ import annotations

import random

from .. import data
from .._jsonl import DataFormatError, read_jsonl, require
from ._base import TEST, TRAIN, Instance, Reference, register
from ..errors import UserError

CATEGORIES = ("Age", "Disability_status", "Nationality", "Physical_appearance", "Religion", "Sexual_orientation")
_FILES = tuple(f"helm/datasets/bbq/{c}.jsonl" for c in CATEGORIES)
_UNKNOWN = "unknown"
TEST_SIZE = 1000  # BBQScenario's DEFAULT_TEST_SIZE
INSTRUCTIONS = "The following are multiple choice questions (with answers)."  # get_bbq_spec


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


@register("bbq", main_metric="quasi_exact_match", default_method="multiple_choice_separate", methods="choices", data=_FILES, metrics=("bbq",),
          adapter={"input_prefix": "Passage: ", "instructions": INSTRUCTIONS}, choices={"category": CATEGORIES})
def load(category: str = "Age") -> list[Instance]:
    """BBQ, one category, split as crfm-helm's ``BBQScenario`` (module docstring)."""
    if category not in CATEGORIES:
        raise UserError(f"bbq: category must be one of {CATEGORIES} (the others are not available offline), got {category!r}")
    path = data.fetch(f"helm/datasets/bbq/{category}.jsonl")
    lines = list(read_jsonl(path))
    random.Random(0).shuffle(lines)  # HELM: random.seed(0); random.shuffle(loaded_lines)
    out = []
    for k, (number, obj) in enumerate(lines):
        where = f"{path}, line {number}"
        label = require(obj, "label", where)
        answers = [require(obj, f"ans{j}", where) for j in range(3)]
        if label not in range(3):
            raise DataFormatError(f"{where}: field 'label' must be 0, 1 or 2, got {label!r}")
        unknown, target = _answer_roles(obj)
        text = f"{require(obj, 'context', where)}\nQuestion: {require(obj, 'question', where)}"
        metadata = {"category": category, "context_condition": obj.get("context_condition"),
                    "question_polarity": obj.get("question_polarity"), "unknown_index": unknown, "target_index": target}
        out.append(Instance(f"bbq/{category}/{obj.get('example_id', number)}", text,
                            tuple(Reference(a, j == label) for j, a in enumerate(answers)),
                            TRAIN if k < len(lines) - TEST_SIZE else TEST, metadata))
    if len(out) <= TEST_SIZE:
        raise DataFormatError(f"{path}: {len(out)} instances, need more than {TEST_SIZE} (HELM's test set size)")
    return out
