"""Token ids for the planner, each text's as the tokenizer gives them, without tokenizing what was tokenized before
(issue 52 §4: tokenizing was most of a paper-scale plan's time).

A plan encodes many texts that share long beginnings: the prompts of one run share their instructions and
in-context examples, a perturbed prompt shares all but its question with the one before it, a scored context is the
prompt without its trailing space, ten candidate values follow one 8,000-token dictionary, and sizing a synthetic
context encodes the same dictionary at several lengths. :class:`Encodings` keeps each text's ids (a memo), and
encodes a new text as the previous text's ids up to a *word boundary* inside the part the two share, then the rest.

A word boundary (:func:`word_cut`) is a token that starts at one space between two non-space characters. Byte-level
BPE with GPT-2's pre-tokenizer (SmolLM2) starts a pre-token there, and SentencePiece-style BPE (Gemma-3) starts a
``▁word`` piece there; neither merges across it, so the ids before it are the same whatever follows. The equality
is not assumed: ``tests/test_planning.py`` checks the ids against the tokenizer's own on real prompts of both
embedded models, and the paper config's plan counts the same tokens as tokenizing every text whole (2026-12-06:
89,527,412 tokens to encode both ways). A text without such a boundary in the shared part is encoded whole.
"""
from __future__ import annotations

import bisect

from .._common_prefix import common_prefix

MEMO = 20_000  # texts whose ids are kept (emptied when full; the ids are never modified by their users)
CUT_BACK = 4  # a text's own boundary, for what is appended to it, lies at least this many tokens before its end
SCAN = 256  # tokens searched backwards for a boundary before encoding a text whole
MIN_SHARED = 64  # characters two texts must share before the earlier one's ids are reused


def word_cut(text: str, offsets: list[tuple[int, int]], end: int, back: int = 0) -> tuple[int, int] | None:
    """(token index, character index of its space) of the last token of ``text``'s encoding (``offsets``: its
    tokens' character spans, a tokenizer's ``offset_mapping``) that starts a word at a space ``p`` with ``p + 1 <
    end`` — the characters around the space lie before ``end`` — and at least ``back`` tokens before the end;
    None if the :data:`SCAN` tokens before that hold none. Offsets may include a word's leading space (Gemma-3) or
    not (SmolLM2)."""
    last = min(bisect.bisect_right(offsets, end - 2, key=lambda span: span[0]) - 1, len(offsets) - 1 - back)
    for token_index in range(last, max(1, last - SCAN), -1):
        start = offsets[token_index][0]
        space = start if text[start] == " " else start - 1
        if 0 < space and space + 1 < end and text[space] == " " and offsets[token_index - 1][1] <= space \
                and not text[space - 1].isspace() and not text[space + 1].isspace():
            return token_index, space
    return None


class Encodings:
    """A tokenizer's ids of texts (with its special tokens, as the transformers backend encodes them), memoised,
    each new text encoded after the previous one's shared part (see the module docstring)."""

    def __init__(self, tokenizer):
        self.tokenizer = tokenizer
        self._backend = getattr(tokenizer, "backend_tokenizer", None)  # a fast tokenizer's Rust tokenizer
        self._known: dict[str, tuple[list[int], tuple[int, int] | None]] = {}  # text → ids, own boundary
        self._last: tuple[str, list[int], list[tuple[int, int]]] = ("", [], [])

    def ids(self, text: str) -> list[int]:
        return self._ids_and_cut(text)[0]

    def pair(self, context: str, continuation: str) -> list[int] | None:
        """The ids of ``context + continuation``: the context's up to its own boundary near its end, then the rest
        with the continuation; None when the context has no boundary (encode the two whole)."""
        ids, cut = self._ids_and_cut(context)
        if cut is None:
            return None
        token_index, space = cut
        return ids[:token_index] + self._encode(context[space:] + continuation, special_tokens=False)[0]

    def _encode(self, text: str, special_tokens: bool) -> tuple[list[int], list[tuple[int, int]]]:
        """(ids, offsets) of ``text`` as ``tokenizer(text, add_special_tokens=...)`` gives them: a fast tokenizer's
        Rust tokenizer called directly (the transformers call around it took a fifth of a paper plan's tokenizing)."""
        if self._backend is not None:
            encoding = self._backend.encode(text, add_special_tokens=special_tokens)
            return encoding.ids, encoding.offsets
        encoding = self.tokenizer(text, add_special_tokens=special_tokens, return_offsets_mapping=True)
        return encoding["input_ids"], encoding["offset_mapping"]

    def _ids_and_cut(self, text: str) -> tuple[list[int], tuple[int, int] | None]:
        known = self._known.get(text)
        if known is None:
            if len(self._known) >= MEMO:
                self._known.clear()
            ids, offsets = self._encode_after_last(text)
            self._last = (text, ids, offsets)
            known = self._known[text] = (ids, word_cut(text, offsets, len(text), CUT_BACK))
        return known

    def _encode_after_last(self, text: str) -> tuple[list[int], list[tuple[int, int]]]:
        """``text``'s ids and offsets: the previous text's up to their last boundary in the part both share, then
        the rest of ``text`` encoded; the whole text encoded when they share less than :data:`MIN_SHARED`
        characters or no boundary."""
        last_text, last_ids, last_offsets = self._last
        shared = common_prefix(last_text, text)
        cut = word_cut(last_text, last_offsets, shared) if shared >= MIN_SHARED else None
        if cut is None:
            return self._encode(text, special_tokens=True)
        token_index, space = cut
        rest_ids, rest_offsets = self._encode(text[space:], special_tokens=False)
        return (last_ids[:token_index] + rest_ids,
                last_offsets[:token_index] + [(start + space, stop + space) for start, stop in rest_offsets])
