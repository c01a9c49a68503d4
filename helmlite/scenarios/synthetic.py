"""Synthetic long-context retrieval with the target at a chosen depth, length measured in model tokens.

* ``json_kv`` — HELMET's JSON key-value retrieval (Yen et al. 2025, App. E.4): one JSON object of random
  UUID keys → UUID values per context, queried for the key at depth d (0 = first pair, 1 = last), so
  the six queries of a context share the whole dictionary and differ only in the key asked for.
* ``litm_kv`` — Lost in the Middle's KV retrieval (Liu et al. 2023, §3): the upstream 75/140-key
  files, resized to the target length, with the gold pair moved to each depth.
* ``niah`` — needle in a haystack (Kamradt 2023; RULER's NIAH): a "special magic number" sentence
  inside generated filler text.

(Lost in the Middle's multi-document QA over real NQ passages, ``nq_multidoc``, shares this protocol and these helpers;
it lives in :mod:`helmlite.scenarios.nq_multidoc`.)

One *context* is queried at every depth (HELMET's protocol), so instances of a context share their
prompt prefix up to the needle-dependent part. References hold the gold answer (correct) and
distractors that occur in the same context, for a log-probability retrieval score when generation is
at floor.

**Baseline (key-absent query).** A log-probability score over candidates that all occur in the context
rewards a model that prefers some *positions* (the first value of a dictionary) whatever it is asked:
in the default run of 2026-11-30, Gemma-3-270M picked the dictionary's first value in 49 of 60 JSON KV
instances. Every instance therefore carries a :attr:`~helmlite.scenarios.Instance.baseline`: the same
context and the same candidates with a query the context cannot answer — a key absent from the
dictionary (JSON KV, LitM KV), a needle sentence that no longer says "special magic number" (its number
stays where the needle was, phrased like the haystack's other numbers: NIAH), a question of another NQ
example none of whose answers occurs in the documents (multi-document QA). The baseline's hit rate at a
depth is how often the model picks the candidate at that position from preference alone; the depth
analysis tests accuracy − baseline. A run asks for it with ``perturbations: [baseline]`` (the depth grid
adds it to every log-probability run).

**Depth vs position.** A depth d places the target at item index ``round(d·(n − 1))`` among ``n``
items, so with few items several depths land on the same item. Every instance records the item it
actually landed on: ``metadata["position"]`` (the index), ``metadata["n_items"]`` (n) and
``metadata["relative_position"]`` = index / (n − 1) (0 = first item, 1 = last), which the analysis
uses instead of the nominal depth.
"""
from __future__ import annotations

import json
from dataclasses import replace
from typing import Callable

import numpy as np

from .. import data
from .._jsonl import read_jsonl, require
from ..seeds import derive_seed
from ._base import TEST, Instance, Reference, register
from ..errors import UserError

DEPTHS = (0.0, 0.2, 0.4, 0.6, 0.8, 1.0)
# the instance input is the whole task prompt: no few-shot, no extra prefixes
PLAIN = {"input_prefix": "", "input_suffix": "", "output_prefix": "", "output_suffix": "", "max_train_instances": 0}
KV_INSTRUCTION = "Extract the value corresponding to the specified key in the JSON object below."
LITM_FILES = {75: "litm/data/kv-retrieval-75_keys.jsonl.gz", 140: "litm/data/kv-retrieval-140_keys.jsonl.gz"}
TokenCounter = Callable[[str], int]


def approx_tokens(text: str) -> int:
    """Fallback token count (≈4 characters per token) when no model tokenizer is given."""
    return max(1, len(text) // 4)


def depth_index(depth: float, n: int) -> int:
    """Index of the item at relative depth ``depth`` among ``n`` items (0 → first, 1 → last)."""
    if not 0.0 <= depth <= 1.0:
        raise UserError(f"depth must be within [0, 1], got {depth}")
    return int(round(depth * (n - 1)))


def position_metadata(index: int, n_items: int) -> dict:
    """The target's actual place: its index, the number of items and index / (n − 1)."""
    return {"position": index, "n_items": n_items, "relative_position": index / (n_items - 1) if n_items > 1 else 0.0}


def kv_prompt(pairs: list[tuple[str, str]], key: str) -> str:
    body = json.dumps(dict(pairs), indent=1)
    return f"{KV_INSTRUCTION}\n\nJSON data:\n{body}\n\nKey: \"{key}\"\nCorresponding value:"


INTERPOLATED_PROBES = 6  # :func:`_fit`'s probes by interpolation before it bisects


def _fit(build: Callable[[int], str], target_tokens: int, count: TokenCounter, upper: int) -> int:
    """Largest n ≤ upper whose ``build(n)`` fits ``target_tokens`` (at least 2).

    The prompt's token count grows with n, so the answer is bracketed by the sizes probed so far. The first
    :data:`INTERPOLATED_PROBES` probes land where a straight line through the two nearest probed sizes meets the
    target (counts grow almost linearly in n: the answer is usually found in three or four), later ones bisect, so
    a count far from linear costs at most that many probes more than bisection. Bisection's own first probes are
    prompts many times the target's length (the pools are far larger than what fits), and counting them was most of
    the time a long-context scenario took to load; the answer is the same, since the count is monotone in n."""
    counts: dict[int, int] = {}

    def fits(n: int) -> bool:
        counts[n] = count(build(n))
        return counts[n] <= target_tokens

    low, high = 2, upper  # the answer lies in [low, high]
    if low >= high or not fits(low):
        return low
    while low < high:
        interpolate = len(counts) <= INTERPOLATED_PROBES
        guess = _interpolated(counts, low, high, target_tokens) if interpolate else (low + high + 1) // 2
        if fits(guess):
            low = guess
        else:
            high = guess - 1
    return low


def _interpolated(counts: dict[int, int], low: int, high: int, target_tokens: int) -> int:
    """The size in (low, high] where the line through ``low``'s count and the nearest other probed count (above
    the bracket if one is probed, else below) reaches ``target_tokens``; a short step when only ``low`` is probed."""
    above = [n for n in counts if n > high]
    other = min(above) if above else max((n for n in counts if n < low), default=None)
    if other is None or counts[other] == counts[low]:
        return min(high, low + 8)
    slope = (counts[other] - counts[low]) / (other - low)
    step = int((target_tokens - counts[low]) // slope) if slope > 0 else 1
    return min(high, max(low + 1, low + step))


def _absent_key(seed: int, pairs: list[tuple[str, str]]) -> str:
    """A UUID key that is not among the dictionary's keys (the baseline's query)."""
    rng = np.random.default_rng(seed)
    keys = {k for k, _ in pairs}
    while True:
        key = uuid4_string(int(rng.integers(2**63)), int(rng.integers(2**63)))
        if key not in keys:
            return key


def with_baseline(instance: Instance, baseline_input: str) -> Instance:
    """``instance`` carrying its baseline: the same references and metadata, an unanswerable query."""
    baseline = Instance(f"{instance.id}#baseline", baseline_input, instance.references, instance.split, instance.metadata)
    return replace(instance, baseline=baseline)


def _kv_instances(name: str, pairs: list[tuple[str, str]], gold: tuple[str, str], context: int, depths, target_tokens: int,
                  distractors: int, rng: np.random.Generator, extra: dict) -> list[Instance]:
    out = []
    others = [v for k, v in pairs if k != gold[0]]
    absent = _absent_key(derive_seed(name, target_tokens, context, "absent key"), pairs)
    for depth in depths:
        placed = [p for p in pairs if p[0] != gold[0]]
        index = depth_index(depth, len(placed) + 1)
        placed.insert(index, gold)
        picks = rng.choice(len(others), size=min(distractors, len(others)), replace=False)
        refs = (Reference(gold[1], True),) + tuple(Reference(others[i], False) for i in picks)
        meta = {"depth": depth, "context": context, "target_tokens": target_tokens, **position_metadata(index, len(placed)),
                **extra}
        out.append(with_baseline(Instance(f"{name}/{target_tokens}/{context}/{depth:.2f}", kv_prompt(placed, gold[0]), refs,
                                           TEST, meta), kv_prompt(placed, absent)))
    return out


def uuid4_string(high: int, low: int) -> str:
    """``str(uuid.UUID(int=high << 64 | low, version=4))`` without building the object (a JSON KV dictionary of 8,000
    tokens draws thousands): RFC 4122's variant bits (10) and version nibble (4) set as :class:`uuid.UUID` sets them."""
    value = ((high << 64 | low) & ~(0xc000 << 48) | 0x8000 << 48) & ~(0xf000 << 64) | 4 << 76
    digits = f"{value:032x}"
    return f"{digits[:8]}-{digits[8:12]}-{digits[12:16]}-{digits[16:20]}-{digits[20:]}"


def uuid4_pairs(rng: np.random.Generator, count: int) -> list[tuple[str, str]]:
    """``count`` (key, value) pairs of UUID strings, each from two 63-bit draws of ``rng`` (high, low), drawn in one
    call: the same numbers, and the same state after, as drawing them one at a time (tested)."""
    return [(uuid4_string(a, b), uuid4_string(c, d)) for a, b, c, d in rng.integers(2**63, size=(count, 4)).tolist()]


@register("json_kv", main_metric="substring_match", default_method="generation", methods="retrieval",
          adapter={**PLAIN, "max_tokens": 28, "stop_sequences": ("\n", '",')})
def load_json_kv(target_tokens: int = 1024, n_contexts: int = 5, depths=DEPTHS, distractors: int = 9, seed: int = 0,
                 count_tokens: TokenCounter = approx_tokens) -> list[Instance]:
    """HELMET JSON KV: UUID dictionary sized to ``target_tokens``, the queried key at each depth."""
    out = []
    for context in range(n_contexts):
        rng = np.random.default_rng(derive_seed("json_kv", seed, target_tokens, context))
        pool = uuid4_pairs(rng, max(8, target_tokens // 2))
        n = _fit(lambda m: kv_prompt(pool[:m], pool[0][0]), target_tokens, count_tokens, len(pool))
        pairs = pool[:n]
        absent = _absent_key(derive_seed("json_kv", seed, target_tokens, context, "absent key"), pairs)
        for depth in depths:
            index = depth_index(depth, n)
            key, value = pairs[index]
            others = [v for k, v in pairs if k != key]
            picks = rng.choice(len(others), size=min(distractors, len(others)), replace=False)
            refs = (Reference(value, True),) + tuple(Reference(others[i], False) for i in picks)
            meta = {"depth": depth, "context": context, "target_tokens": target_tokens, **position_metadata(index, n)}
            out.append(with_baseline(Instance(f"json_kv/{target_tokens}/{context}/{depth:.2f}", kv_prompt(pairs, key), refs,
                                               TEST, meta), kv_prompt(pairs, absent)))
    return out


@register("litm_kv", main_metric="substring_match", default_method="generation", methods="retrieval", data=tuple(LITM_FILES.values()),
          adapter={**PLAIN, "max_tokens": 28, "stop_sequences": ("\n", '",')})
def load_litm_kv(source_keys: int = 75, target_tokens: int = 1024, n_contexts: int = 5, depths=DEPTHS,
                 distractors: int = 9, count_tokens: TokenCounter = approx_tokens) -> list[Instance]:
    """Lost in the Middle KV retrieval (upstream file), resized to ``target_tokens``, gold at each depth."""
    if source_keys not in LITM_FILES:
        raise UserError(f"litm_kv: source_keys must be one of {sorted(LITM_FILES)}, got {source_keys!r}")
    path = data.fetch(LITM_FILES[source_keys])
    out = []
    for context, (number, obj) in enumerate(read_jsonl(path)):
        if context >= n_contexts:
            break
        where = f"{path}, line {number}"
        records = [tuple(r) for r in require(obj, "ordered_kv_records", where)]
        gold = (require(obj, "key", where), require(obj, "value", where))
        others = [r for r in records if r[0] != gold[0]]
        n = _fit(lambda m: kv_prompt(others[: m - 1] + [gold], gold[0]), target_tokens, count_tokens, len(records))
        rng = np.random.default_rng(derive_seed("litm_kv", source_keys, target_tokens, context))
        out += _kv_instances("litm_kv", others[: n - 1] + [gold], gold, context, depths, target_tokens, distractors, rng,
                             {"source_keys": source_keys})
    return out


_FILLER_SUBJECTS = ("The river", "A small village", "The old library", "An engineer", "The committee", "A gardener",
                    "The northern road", "A quiet student", "The harbour", "An orchestra")
_FILLER_VERBS = ("described", "considered", "remembered", "ignored", "celebrated", "measured", "painted", "repaired")
_FILLER_OBJECTS = ("the morning light", "a forgotten letter", "the spring market", "an unusual bridge",
                   "the winter festival", "a wooden boat", "the long corridor", "a set of maps")
NEEDLE_QUESTION = "What is the special magic number mentioned in the text above?"


def _haystack(rng: np.random.Generator, n: int) -> list[str]:
    """``n`` filler sentences, subject, verb and object drawn for each in turn — in one call with a bound per column,
    the same draws (and state after) as ``rng.choice`` of each list one at a time (tested)."""
    picks = rng.integers(0, [len(_FILLER_SUBJECTS), len(_FILLER_VERBS), len(_FILLER_OBJECTS)], size=(n, 3)).tolist()
    return [f"{_FILLER_SUBJECTS[s]} {_FILLER_VERBS[v]} {_FILLER_OBJECTS[o]}." for s, v, o in picks]


def niah_prompt(sentences: list[str]) -> str:
    return "Read the text and answer the question.\n\n" + " ".join(sentences) + f"\n\nQuestion: {NEEDLE_QUESTION}\nAnswer:"


def number_sentence(number: str) -> str:
    """A haystack sentence carrying a distractor number (the baseline's needle reads the same way)."""
    return f"A note mentions the number {number}."


def _numbered_haystack(filler: list[str], numbers: list[str], seed: int) -> list[str]:
    """``filler`` with every number of ``numbers`` put in place of a filler sentence at seeded positions
    (as many as fit: at most len(filler) − 1), so the distractor candidates occur in the context."""
    sentences = list(filler)
    rng = np.random.default_rng(seed)
    for at, number in zip(rng.choice(len(sentences), size=min(len(numbers), len(sentences) - 1), replace=False), numbers):
        sentences[int(at)] = number_sentence(number)
    return sentences


@register("niah", main_metric="substring_match", default_method="generation", methods="retrieval", adapter={**PLAIN, "max_tokens": 12})
def load_niah(target_tokens: int = 1024, n_contexts: int = 5, depths=DEPTHS, distractors: int = 9, seed: int = 0,
              count_tokens: TokenCounter = approx_tokens) -> list[Instance]:
    """Needle in a haystack: a 7-digit magic number sentence at each depth of generated filler text, with the
    ``distractors`` other candidate numbers placed in the haystack (:func:`number_sentence`), so a candidate
    is never ruled out by not occurring. Baseline: the needle's number phrased like the distractors."""
    out = []
    for context in range(n_contexts):
        rng = np.random.default_rng(derive_seed("niah", seed, target_tokens, context))
        # seven-digit numbers; drawing indices and shifting them draws exactly what choosing from
        # np.arange(1_000_000, 10_000_000) draws, without building that 72 MB array (0.3 s a run)
        numbers = [str(x + 1_000_000) for x in rng.choice(9_000_000, size=distractors + 1, replace=False)]
        needle = f"The special magic number is {numbers[0]}."
        pool = _haystack(rng, max(8, target_tokens // 6))
        placed = derive_seed("niah", seed, target_tokens, context, "distractor positions")
        n = _fit(lambda m: niah_prompt(_numbered_haystack(pool[:m], numbers[1:], placed) + [needle]), target_tokens,
                 count_tokens, len(pool))
        haystack = _numbered_haystack(pool[:n], numbers[1:], placed)
        present = [x for x in numbers[1:] if number_sentence(x) in haystack]
        refs = (Reference(numbers[0], True),) + tuple(Reference(x, False) for x in present)
        for depth in depths:
            index = depth_index(depth, n + 1)
            meta = {"depth": depth, "context": context, "target_tokens": target_tokens, **position_metadata(index, n + 1)}
            instance = Instance(f"niah/{target_tokens}/{context}/{depth:.2f}",
                                niah_prompt(haystack[:index] + [needle] + haystack[index:]), refs, TEST, meta)
            out.append(with_baseline(instance, niah_prompt(haystack[:index] + [number_sentence(numbers[0])] + haystack[index:])))
    return out
