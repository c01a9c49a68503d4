"""bAbI (Weston et al. 2016): 20 toy question-answering tasks, story → one-word answer, exact match.

HELM (Liang et al. 2022, §5.3) includes it as a targeted reasoning evaluation. Tags: reasoning, generation.
"""
from __future__ import annotations

import re

from .. import data
from .._jsonl import DataFormatError
from ..errors import UserError
from ._base import TEST, TRAIN, Instance, Reference, register

BABI_TASKS = {1: "single-supporting-fact", 2: "two-supporting-facts", 3: "three-supporting-facts", 4: "two-arg-relations",
              5: "three-arg-relations", 6: "yes-no-questions", 7: "counting", 8: "lists-sets", 9: "simple-negation",
              10: "indefinite-knowledge", 11: "basic-coreference", 12: "conjunction", 13: "compound-coreference",
              14: "time-reasoning", 15: "basic-deduction", 16: "basic-induction", 17: "positional-reasoning",
              18: "size-reasoning", 19: "path-finding", 20: "agents-motivations"}
_BABI = tuple(f"helm/datasets/babi/en/qa{t}_{n}_{s}.txt" for t, n in BABI_TASKS.items() for s in ("train", "test"))
# "<question>\t<answer>\t<supporting ids>" upstream; some copies use "|" instead of tabs
_BABI_QUESTION = re.compile(r"^(?P<question>[^\t|]*?)\s*[\t|](?P<answer>[^\t|]+)[\t|](?P<support>[\d ]+)$")


def _babi_questions(task: int, split: str) -> list[tuple[str, str]]:
    path = data.fetch(f"helm/datasets/babi/en/qa{task}_{BABI_TASKS[task]}_{split}.txt")
    story, out = [], []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        index, _, text = line.partition(" ")
        if not index.isdigit():
            raise DataFormatError(f"{path}, line {number}: expected '<n> <sentence>'")
        if index == "1":
            story = []
        question = _BABI_QUESTION.match(text)
        if question:
            out.append(("\n".join(story) + f"\nQuestion: {question['question'].strip()}", question["answer"].replace(",", " ")))
        else:
            story.append(text)
    return out


@register("babi", main_metric="quasi_exact_match", default_method="generation", methods="generation", data=_BABI,
          adapter={"input_prefix": "Passage: ", "max_tokens": 5})
def load_babi(task: int = 1) -> list[Instance]:
    """bAbI v1.2 (en), one of the 20 tasks: story + question → answer."""
    if task not in BABI_TASKS:
        raise UserError(f"babi: task must be 1-20, got {task!r}")
    out = []
    for split, label in (("train", TRAIN), ("test", TEST)):
        for k, (text, answer) in enumerate(_babi_questions(task, split)):
            out.append(Instance(f"babi/{task}/{split}/{k}", text, (Reference(answer, True),), label, {"task": task}))
    return out
