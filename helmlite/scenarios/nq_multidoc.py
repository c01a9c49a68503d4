"""Lost in the Middle's multi-document QA (Liu et al. 2023, §2) over real NQ-open passages, ``nq_multidoc``: the gold
passage among at least :data:`MIN_DOCUMENTS` documents (the paper used 10, 20 and 30) at each depth, passages shortened
to fit the length. Depths, positions and the key-absent baseline follow :mod:`helmlite.scenarios.synthetic`.
"""
from __future__ import annotations

import re

import numpy as np

from ..errors import UserError
from ..seeds import derive_seed
from ._base import TEST, Instance, Reference, register
from .synthetic import DEPTHS, PLAIN, TokenCounter, approx_tokens, depth_index, position_metadata, with_baseline


MULTIDOC_INSTRUCTION = ("Write a high-quality answer for the given question using only the provided search results "
                        "(some of which might be irrelevant).")


def multidoc_prompt(question: str, documents: list[dict]) -> str:
    """Lost in the Middle's multi-document QA prompt (``qa.prompt`` in the upstream repository)."""
    docs = "\n".join(f"Document [{k + 1}](Title: {d['title']}) {d['text']}" for k, d in enumerate(documents))
    return f"{MULTIDOC_INSTRUCTION}\n\n{docs}\n\nQuestion: {question}\nAnswer:"


MIN_DOCUMENTS = 10  # Lost in the Middle used 10, 20 and 30 documents
MIN_WORDS = 10  # shortest passage (words) a document is cut to


def _word_spans(text: str) -> list[tuple[int, int]]:
    return [m.span() for m in re.finditer(r"\S+", text)]


def passage_window(text: str, answers, width: int) -> tuple[str, str | None]:
    """``width`` consecutive words of ``text`` around the first answer found in it (centred on it),
    and that answer; the first ``width`` words and None when no answer occurs in the text."""
    spans = _word_spans(text)
    found = min(((text.find(a), a) for a in answers if a and a in text), default=None)
    if len(spans) <= width:
        return " ".join(text.split()), found[1] if found else None
    if found is None:
        return " ".join(text[a:b] for a, b in spans[:width]), None
    pos, answer = found
    first = next(k for k, (a, b) in enumerate(spans) if b > pos)
    last = next(k for k, (a, b) in enumerate(spans) if b >= pos + len(answer))
    start = max(0, min(first - (width - (last - first + 1)) // 2, len(spans) - width))
    window = " ".join(text[a:b] for a, b in spans[start:start + width])
    return window, answer if answer in window else None


def _contains_any(text: str, answers) -> bool:
    """Does ``text`` contain any of ``answers``, ignoring case (a distractor must not answer the question in any
    capitalisation)?"""
    lowered = text.lower()
    return any(a and a.lower() in lowered for a in answers)


def _document(row: dict, width: int) -> tuple[dict, str | None]:
    text, answer = passage_window(row["text"], row["answers"], width)
    return {"title": row["title"], "text": text}, answer


def _documents(gold: dict, pool: list[dict], width: int, n_documents: int):
    """The gold passage and ``n_documents - 1`` distractor passages of other questions, each cut to ``width`` words
    around its own answer: (gold document, the gold answers, distractor documents, their answers). A distractor
    never contains a gold answer in any capitalisation, nor repeats another's answer."""
    gold_doc, _ = _document(gold, width)
    golds = [a for a in dict.fromkeys(gold["answers"]) if a]  # any gold answer counts (LitM's best_subspan_em)
    taken, docs, answers = {a.lower() for a in gold["answers"]}, [], []
    for row in pool:
        doc, answer = _document(row, width)
        if answer is None or answer.lower() in taken or row["question"] == gold["question"] or \
                _contains_any(doc["text"], gold["answers"]):
            continue
        taken.add(answer.lower())
        docs.append(doc)
        answers.append(answer)
        if len(docs) == n_documents - 1:
            break
    return gold_doc, golds, docs, answers


def _widest_passages(gold: dict, pool: list[dict], n_documents: int, depths, target_tokens: int,
                     count_tokens: TokenCounter) -> int:
    """The largest passage width (words, at least :data:`MIN_WORDS`) at which the prompt fits ``target_tokens`` with
    the gold passage at every depth (bisection); one :class:`UserError` when even the narrowest does not fit."""
    def longest(width: int) -> int:
        gold_doc, _, docs, _ = _documents(gold, pool, width, n_documents)
        return max(count_tokens(multidoc_prompt(gold["question"], docs[:i] + [gold_doc] + docs[i:]))
                   for i in {depth_index(d, n_documents) for d in depths})

    upper = max(MIN_WORDS, max(len(r["text"].split()) for r in [gold] + pool[:4 * n_documents]))
    if longest(MIN_WORDS) > target_tokens:
        raise UserError(f"nq_multidoc: {n_documents} documents of {MIN_WORDS} words do not fit target_tokens="
                         f"{target_tokens}; use a longer length (>= 512 tokens for 10 documents) or fewer documents")
    low, high = MIN_WORDS, upper
    while low < high:
        mid = (low + high + 1) // 2
        if longest(mid) <= target_tokens:
            low = mid
        else:
            high = mid - 1
    return low


@register("nq_multidoc", main_metric="substring_match", default_method="generation", methods="retrieval", data=("litm/data/nq-open-oracle.jsonl.gz",),
          adapter={**PLAIN, "max_tokens": 16})
def load_nq_multidoc(target_tokens: int = 1024, n_questions: int = 5, n_documents: int = MIN_DOCUMENTS, depths=DEPTHS,
                     distractors: int = 9, seed: int = 0, count_tokens: TokenCounter = approx_tokens) -> list[Instance]:
    """Multi-document QA (Liu et al. 2023, §2): the gold passage among ``n_documents - 1`` passages of
    *other* questions, at each depth.

    **At least 10 documents** (Lost in the Middle used 10, 20 and 30): with fewer, the six depths fall on
    two or three documents and primacy and recency cannot be told apart. To fit ``n_documents`` into
    ``target_tokens``, every passage is **shortened** to the same number of words (the largest that fits,
    at least :data:`MIN_WORDS`), a window centred on the passage's own answer, so each document still
    answers its question (the paper's passages are 100-word Wikipedia chunks; at 1,024 tokens ours are
    ~60 words, at 512 ~25). Lost in the Middle used retrieved distractors (Contriever hits without the
    answer); those files (7–22 MB each) are not in the offline mirror, so distractors here are gold passages
    of random other questions that do not contain the gold answer — easier to dismiss, which makes the task
    easier. With internet, ``litm_multidoc`` (:mod:`helmlite.scenarios.litm_qa`) runs the paper's own files
    (``config/paper.yaml``).

    References: every gold answer of the question (correct: a generation that contains any of them is right,
    as LitM's ``best_subspan_em``, also one the shortened passage no longer shows) and the answers of up to
    ``distractors`` distractor passages (no distractor passage contains a gold answer in any capitalisation),
    each of which occurs in its own passage (for the log-probability retrieval score, whose chance level is
    then 1 / (1 + distractors) for a single gold answer). Baseline: the same documents and candidates with
    the question of another NQ example, none of whose answers occurs in any document.
    """
    from .nq import records

    if n_documents < MIN_DOCUMENTS:
        raise UserError(f"nq_multidoc: n_documents must be at least {MIN_DOCUMENTS} (Lost in the Middle used 10, 20 "
                         f"and 30; with fewer the depths collapse onto a few documents), got {n_documents}")
    rows = records()
    out = []
    for question in range(n_questions):
        rng = np.random.default_rng(derive_seed("nq_multidoc", seed, target_tokens, question))
        order = [int(i) for i in rng.permutation(len(rows))]
        # the gold question: the first whose answer is short enough to survive the shortest passage
        first = next(k for k, i in enumerate(order) if any(a and a in rows[i]["text"] and len(a.split()) <= MIN_WORDS // 2
                                                           for a in rows[i]["answers"]))
        gold, pool = rows[order[first]], [rows[i] for k, i in enumerate(order) if k != first]

        low = _widest_passages(gold, pool, n_documents, depths, target_tokens, count_tokens)
        gold_doc, golds, docs, answers = _documents(gold, pool, low, n_documents)
        refs = tuple(Reference(a, True) for a in golds) + tuple(Reference(a, False) for a in answers[:distractors])
        texts = [d["text"] for d in docs + [gold_doc]]
        unanswerable = next(r["question"] for r in pool[4 * n_documents:] if r["question"] != gold["question"]
                            and not any(_contains_any(t, r["answers"]) for t in texts))
        for depth in depths:
            index = depth_index(depth, n_documents)
            documents = docs[:index] + [gold_doc] + docs[index:]
            meta = {"depth": depth, "context": question, "target_tokens": target_tokens, "passage_words": low,
                    **position_metadata(index, n_documents)}
            out.append(with_baseline(Instance(f"nq_multidoc/{target_tokens}/{question}/{depth:.2f}",
                                               multidoc_prompt(gold["question"], documents), refs, TEST, meta),
                                      multidoc_prompt(unanswerable, documents)))
    return out
