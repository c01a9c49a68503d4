"""HELM's accuracy metrics (Liang et al. 2022, §4.2 and App. C.1).

Normalisation (HELM ``normalize_text``, after the QuAC/SQuAD evaluation scripts): lower-case, remove
punctuation, remove the articles a/an/the, collapse whitespace. Exact match compares raw stripped
strings; quasi-exact match and F1 compare normalised ones; a prediction is scored against every
correct reference and the best score counts. Exact match, quasi-exact match and F1 follow crfm-helm's
``evaluate_reference_metrics.py`` (v0.5.x; ``basic_metrics.py`` in v0.4.0) line for line, including its
edge cases: an empty prediction scores 0, and F1 is on token sets.
"""
from __future__ import annotations

import math
import re
import string
from typing import Sequence

from ..errors import did_you_mean
from ..errors import UserError

_ARTICLES = re.compile(r"\b(a|an|the)\b", re.UNICODE)
_PUNCTUATION = set(string.punctuation)


def normalize_text(text: str) -> str:
    """Lower-case, strip punctuation and articles, collapse whitespace (HELM / SQuAD)."""
    text = "".join(ch for ch in text.lower() if ch not in _PUNCTUATION)
    return " ".join(_ARTICLES.sub(" ", text).split())


def exact_match(prediction: str, reference: str) -> float:
    """HELM's ``exact_match``: the stripped strings are equal; an empty prediction scores 0."""
    return float(bool(prediction) and prediction.strip() == reference.strip())


def quasi_exact_match(prediction: str, reference: str) -> float:
    """HELM's ``quasi_exact_match``: the normalised strings are equal; an empty prediction scores 0."""
    return float(bool(prediction) and normalize_text(prediction) == normalize_text(reference))


def f1_score(prediction: str, reference: str) -> float:
    """HELM's ``f1_score``: NLTK's ``f_measure`` on the **sets** of normalised tokens, 0 when either side has
    none (``f_measure`` gives None there). Not SQuAD's F1, which counts repeated tokens (a multiset) and
    scores two empty answers 1: "the cat the cat" against "cat" is 1.0 here, 2/3 in SQuAD."""
    from nltk.metrics.scores import f_measure

    value = f_measure(set(normalize_text(reference).split()), set(normalize_text(prediction).split()))
    return 0.0 if value is None else float(value)


def substring_match(prediction: str, reference: str) -> float:
    """Lost in the Middle's metric (``best_subspan_em``): the normalised gold answer occurs in the normalised
    prediction. One departure: a gold answer that normalises to nothing (only articles or punctuation) scores 0
    here; LitM's substring test would count it as found in every prediction."""
    return float(normalize_text(reference) in normalize_text(prediction)) if normalize_text(reference) else 0.0


def rouge_2(prediction: str, reference: str) -> float:
    """ROUGE-2 F-measure via the ``rouge-score`` package (stemming on, as HELM)."""
    from rouge_score import rouge_scorer

    return rouge_scorer.RougeScorer(["rouge2"], use_stemmer=True).score(reference, prediction)["rouge2"].fmeasure


def final_number_match(prediction: str, reference: str) -> float:
    """GSM8K: the last number in the prediction equals the reference number."""
    numbers = re.findall(r"-?\d[\d,]*\.?\d*", prediction)
    if not numbers:
        return 0.0
    return float(numbers[-1].replace(",", "").rstrip(".") == reference.replace(",", ""))


GENERATION_METRICS = {"exact_match": exact_match, "quasi_exact_match": quasi_exact_match, "f1": f1_score,
                      "substring_match": substring_match, "rouge_2": rouge_2, "final_number_match": final_number_match}


def metric(name: str):
    """A generation metric by name, or a clear error with suggestions."""
    if name not in GENERATION_METRICS:
        raise UserError(f"unknown metric {name!r}; known: {', '.join(GENERATION_METRICS)}.{did_you_mean(name, GENERATION_METRICS)}")
    return GENERATION_METRICS[name]


def best_over_references(name: str, prediction: str, references: Sequence[str]) -> float:
    """The metric against each correct reference, best one (HELM takes the max over references)."""
    fn = metric(name)
    if not references:
        return math.nan
    return max(fn(prediction, r) for r in references)


def reciprocal_rank(ranked_relevance: Sequence[float], k: int = 10) -> float:
    """RR@k: 1 / rank of the first relevant item within the top k, else 0 (HELM's MS MARCO)."""
    for rank, relevance in enumerate(ranked_relevance[:k], start=1):
        if relevance > 0:
            return 1.0 / rank
    return 0.0


def ndcg(ranked_relevance: Sequence[float], k: int = 10) -> float:
    """NDCG@k with graded relevance and gain = relevance, discount log2(rank + 1) (Järvelin & Kekäläinen 2002).

    Matches ``sklearn.metrics.ndcg_score`` for a single query.
    """
    gains = list(ranked_relevance)
    dcg = sum(g / math.log2(r + 2) for r, g in enumerate(gains[:k]))
    ideal = sum(g / math.log2(r + 2) for r, g in enumerate(sorted(gains, reverse=True)[:k]))
    return dcg / ideal if ideal > 0 else 0.0


def bits_per_byte(total_logprob_nats: float, text: str) -> float:
    """Language-modelling bits per byte: −log2 P(text) / UTF-8 bytes (HELM's BPB, §4.2)."""
    n_bytes = len(text.encode("utf-8"))
    if n_bytes == 0:
        return math.nan
    return -total_logprob_nats / math.log(2) / n_bytes
