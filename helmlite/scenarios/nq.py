"""NaturalQuestions (open) — Kwiatkowski et al. 2019; the oracle file of Liu et al. 2023 ("Lost in the Middle").

Each question comes with its gold Wikipedia passage, which gives HELM's two settings (Liang et al.
2022, §3.3): **open-book** (the passage is in the prompt) and **closed-book** (question only), both
scored by F1 / exact match against any gold answer. A **passage-ranking** scenario is built from the
same file in the style of HELM's MS MARCO: for each query, its gold passage among passages of other
questions; the model scores each (query, passage) pair and is evaluated with RR@10.
Tags: question answering, knowledge, retrieval.
"""
from __future__ import annotations

import numpy as np

from .. import data
from .._jsonl import read_jsonl, require
from ..seeds import derive_seed
from ._base import TEST, TRAIN, Instance, Reference, register

FILE = "litm/data/nq-open-oracle.jsonl.gz"


def records() -> list[dict]:
    """Question, answers and gold passage of every line (validated)."""
    path = data.fetch(FILE)
    out = []
    for number, obj in read_jsonl(path):
        where = f"{path}, line {number}"
        ctxs = require(obj, "ctxs", where)
        gold = next((c for c in ctxs if c.get("isgold")), ctxs[0] if ctxs else None)
        out.append({"question": require(obj, "question", where), "answers": list(require(obj, "answers", where)),
                    "title": gold["title"] if gold else "", "text": gold["text"] if gold else ""})
    return out


def _split(n: int, train_size: int, purpose: str) -> np.ndarray:
    rng = np.random.default_rng(derive_seed("nq", purpose, "split"))
    is_train = np.zeros(n, dtype=bool)
    is_train[rng.choice(n, size=train_size, replace=False)] = True
    return is_train


def helm_question(question: str) -> str:
    """HELM's ``NaturalQAScenario.create_instance``: the question ``capitalize()``-d, with a final '?' added."""
    question = question.capitalize()
    return question if question.endswith("?") else question + "?"


def _qa(open_book: bool, train_size: int) -> list[Instance]:
    """Instances in HELM's layout: closed-book the question alone, open-book (HELM's ``openbook_longans``)
    ``<passage>\n\nQuestion: <question>`` after the ``Passage: `` prefix — the oracle file's gold passage in
    place of NaturalQuestions' long answer."""
    rows = records()
    is_train = _split(len(rows), train_size, "qa")
    out = []
    for k, row in enumerate(rows):
        question = helm_question(row["question"])
        text = f"{row['text']}\n\nQuestion: {question}" if open_book else question
        refs = tuple(Reference(a, True) for a in row["answers"])
        out.append(Instance(f"nq/{k}", text, refs, TRAIN if is_train[k] else TEST, {"question": row["question"]}))
    return out


@register("nq_open_book", main_metric="f1", default_method="generation", methods="generation", data=(FILE,),
          adapter={"input_prefix": "Passage: ", "max_tokens": 10})
def load_open_book(train_size: int = 100) -> list[Instance]:
    """NaturalQuestions open-book: gold passage + question → short answer."""
    return _qa(True, train_size)


@register("nq_closed_book", main_metric="f1", default_method="generation", methods="generation", data=(FILE,), adapter={"max_tokens": 10})
def load_closed_book(train_size: int = 100) -> list[Instance]:
    """NaturalQuestions closed-book: question → short answer."""
    return _qa(False, train_size)


@register("nq_ranking", main_metric="rr@10", default_method="ranking", methods="ranking", data=(FILE,),
          adapter={"input_prefix": "", "max_train_instances": 2})
def load_ranking(candidates: int = 10, train_size: int = 100) -> list[Instance]:
    """NQ passage ranking: each query's gold passage among ``candidates - 1`` passages of other questions."""
    rows = records()
    is_train = _split(len(rows), train_size, "ranking")
    out = []
    for k, row in enumerate(rows):
        rng = np.random.default_rng(derive_seed("nq_ranking", k))
        others = rng.choice(np.delete(np.arange(len(rows)), k), size=candidates - 1, replace=False)
        passages = [(row, 1.0)] + [(rows[j], 0.0) for j in others]
        order = rng.permutation(len(passages))
        refs = tuple(Reference(f"{passages[i][0]['title']}: {passages[i][0]['text']}", passages[i][1] > 0,
                               relevance=passages[i][1]) for i in order)
        out.append(Instance(f"nq_ranking/{k}", row["question"], refs, TRAIN if is_train[k] else TEST))
    return out
