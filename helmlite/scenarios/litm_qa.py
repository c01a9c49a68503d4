"""Lost in the Middle's own multi-document QA design (Liu et al. 2023, §2.1; the upstream ``qa_data`` files).

For 10, 20 and 30 documents the upstream repository ships one file per gold position
(``nq-open-<n>_total_documents_gold_at_<k>.jsonl.gz``): every NQ-open question with its gold passage at
index ``k`` among ``n − 1`` **retrieved** distractors (Contriever hits that do not contain an answer — the
hard negatives the offline ``nq_multidoc`` cannot build). The files hold the same questions in the same
order, so one question across the files is one context queried at every gold position.

Scored as the paper scores it: a greedy generation is correct when it contains **any** of the question's
gold answers after normalisation (``best_subspan_em`` of ``scripts/evaluate_qa_responses.py``, on the first
line of the answer — helmlite's default stop sequence). Generation only: the retrieved passages carry no
candidate answers for a log-probability score. The prompts are the paper's, as long as their documents make
them (roughly 1.6K, 3.2K and 4.7K model tokens for 10, 20 and 30 documents of ~100 words): the length a config
gives (``target_tokens``) is the budget they must fit — a prompt longer than it is an error naming the
length needed — and each instance records its own ``prompt_tokens``.
"""
from __future__ import annotations

from .. import data
from .._jsonl import DataFormatError, read_jsonl, require
from ..errors import UserError
from ._base import TEST, Instance, Reference, register
from .nq_multidoc import multidoc_prompt
from .synthetic import PLAIN, TokenCounter, approx_tokens, position_metadata

#: The gold positions the upstream repository ships a file for, per number of documents.
GOLD_POSITIONS = {10: (0, 4, 9), 20: (0, 4, 9, 14, 19), 30: (0, 4, 9, 14, 19, 24, 29)}


def qa_file(n_documents: int, gold_index: int) -> str:
    """The registry name of the upstream file with ``n_documents`` documents and the gold one at ``gold_index``."""
    return f"litm/data/nq-open-{n_documents}_total_documents_gold_at_{gold_index}.jsonl.gz"


def _questions(path, n_questions: int, n_documents: int, gold_index: int) -> list[dict]:
    out = []
    for number, obj in read_jsonl(path):
        if len(out) == n_questions:
            break
        where = f"{path}, line {number}"
        ctxs = require(obj, "ctxs", where)
        if not isinstance(ctxs, list) or len(ctxs) != n_documents:
            raise DataFormatError(f"{where}: field 'ctxs' must list {n_documents} documents, got "
                                  f"{len(ctxs) if isinstance(ctxs, list) else type(ctxs).__name__}")
        if not ctxs[gold_index].get("isgold"):
            raise DataFormatError(f"{where}: document {gold_index} is not marked isgold (the file name says the gold "
                                  f"passage is there)")
        out.append({"question": require(obj, "question", where), "answers": list(require(obj, "answers", where)),
                    "documents": [{"title": require(c, "title", where), "text": require(c, "text", where)} for c in ctxs]})
    return out


@register("litm_multidoc", main_metric="substring_match", default_method="generation", methods="retrieval",
          data=tuple(qa_file(n, k) for n, positions in GOLD_POSITIONS.items() for k in positions),
          adapter={**PLAIN, "max_tokens": 100}, choices={"n_documents": tuple(GOLD_POSITIONS)})
def load_litm_multidoc(n_documents: int = 20, n_questions: int = 100, target_tokens: int = 8192,
                       count_tokens: TokenCounter = approx_tokens) -> list[Instance]:
    """Lost in the Middle's multi-document QA with retrieved distractors (its 10/20/30-document files): the
    first ``n_questions`` questions at every gold position the repository ships; correct = the generation
    contains any gold answer (LitM's ``best_subspan_em``)."""
    if n_questions < 1:
        raise UserError(f"litm_multidoc: n_questions must be at least 1, got {n_questions}")
    positions = GOLD_POSITIONS[n_documents]
    files = {k: _questions(data.fetch(qa_file(n_documents, k)), n_questions, n_documents, k) for k in positions}
    first = files[positions[0]]
    out = []
    for k, rows in files.items():
        if [r["question"] for r in rows] != [r["question"] for r in first]:
            raise DataFormatError(f"{qa_file(n_documents, k)}: its questions are not those of "
                                  f"{qa_file(n_documents, positions[0])} in the same order (one question = one context)")
        for context, row in enumerate(rows):
            prompt = multidoc_prompt(row["question"], row["documents"])
            tokens = count_tokens(prompt)
            meta = {"depth": k / (n_documents - 1), "context": context, "target_tokens": target_tokens, "prompt_tokens": tokens,
                    "n_documents": n_documents, **position_metadata(k, n_documents)}
            out.append(Instance(f"litm_multidoc/{n_documents}/{context}/{k}", prompt,
                                tuple(Reference(a, True) for a in dict.fromkeys(row["answers"]) if a), TEST, meta))
    longest = max(i.metadata["prompt_tokens"] for i in out)
    if longest > target_tokens:
        raise UserError(f"litm_multidoc: the paper's {n_documents}-document prompts need up to {longest} tokens, more than "
                         f"target_tokens={target_tokens}; give this task a length of at least {longest}")
    return out
