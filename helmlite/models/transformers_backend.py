"""Local causal LMs through Hugging Face ``transformers``: the embedded models and any HF model directory.

Runs fp32 on CPU by default (bf16 changed log-probabilities between batched and single requests).
Scoring follows lm-evaluation-harness's ``loglikelihood``: trailing spaces of the context move to the
continuation, the pair is encoded whole and the continuation's tokens are those after the context's
encoding. Only the continuation positions are projected to the vocabulary (``logits_to_keep``), so a
262k-token vocabulary never materialises logits for every position.

**Prefix reuse, a function of the request alone.** HELM's adaptation puts the same few-shot prefix before every
test instance, and a depth sweep's query shares its context with its baseline. A :class:`ScoreRequest` declares
the string prefixes it shares (``prefixes``: the instructions and in-context examples, then what an instance shares
with its variants); each becomes a level of *tokens* (the longest token prefix its encoding shares with the rows —
splitting at a string boundary does not reproduce the full prompt's tokens), then the request's own common context
(one question's answers). Each level is encoded once, extending the one before, and kept in a small LRU, so a run's
few-shot prefix is encoded once per job for every instance and perturbed variant; a request's continuations run
over its deepest level in forwards that hold no other request's rows, except one-row requests over the same levels,
which run ``batch_size`` at a time *packed*: their suffixes concatenated into one sequence without padding between
them (a filler row only where the forward would be shorter than :data:`MIN_POSITIONS`), each row attending to the
prefix and to its own tokens only (:func:`_rows_attention`); a model type that attention was not checked on
(:data:`PACKED_MODEL_TYPES`) runs each one-row request in a forward of its own. So a stored value depends on its
request only — not on the chunk, the batch size or what the cache held (tested bit for bit) — and equals the
no-reuse path within float rounding (tested on both embedded models; ``reuse_prefixes=False`` turns reuse off).
One-token continuations of the same context (the answer letters of a joint multiple-choice prompt) are read from one
forward pass, as lm-evaluation-harness's logits cache does. A forward over a prefix keeps no copy of it: its
concatenation with the prefix lives for one layer. Generation decodes each request on its own over its declared
prefix levels (HF ``generate``, no padding), except one-token greedy requests (HELM's multiple-choice-joint
answers), which take the packed forwards one-row scoring takes; either way a generation depends on its request
alone.
"""
from __future__ import annotations

import copy
import functools
import itertools
import json
import time
from collections import OrderedDict
from pathlib import Path
from typing import Sequence

import torch

from ._base import (Generation, GenerationRequest, ModelError, Scores, ScoreRequest, apply_stop, helm_kept_tokens,
                    split_context)
from ._identity import IDENTITY_FILE, weights_sha256

#: A request's rows go through the model in slices of at most this many, in the request's order — a constant, not
#: the batch size, so how a row is computed depends on its request alone (the rows and padded width of a forward
#: change its floats in the last digits: measured on SmolLM2, fp32).
SCORE_ROWS_PER_FORWARD = 16
#: A packed forward (one-row requests over one prefix) holds at least this many positions — a filler row of padding
#: tokens makes up the rest — and projects at least this many to the vocabulary: a matrix product gives a position
#: the same floats whatever else it holds only from 16 rows on (fewer take another MKL path; measured for every
#: projection of both embedded models, fp32, one thread).
MIN_POSITIONS = 16
#: Model types whose attention layers :func:`_rows_attention` serves (checked against the plain forward: the tiny
#: test Llama, SmolLM2, Gemma 3 with its sliding-window layers); another model runs each one-row request alone.
PACKED_MODEL_TYPES = ("llama", "gemma3_text")
#: The attention implementation name a packed forward switches the model to for its duration.
ROWS_ATTENTION = "helmlite_rows"
#: The ``alternatives`` of a row read for its whole next-token distribution: a one-token greedy generation, a row of
#: its prompt and a placeholder token whose predecessor's distribution is read; a packed forward does not run the
#: placeholder (:meth:`TransformersModel.generate`).
NEXT_TOKEN = object()
#: generation_config settings at the values that add no logits processor to greedy decoding (transformers 5.x's
#: ``_get_logits_processor``); any other value sends one-token greedy requests to HF ``generate``.
_NEUTRAL_GENERATION_SETTINGS = {
    "repetition_penalty": (None, 1.0), "encoder_repetition_penalty": (None, 1.0), "no_repeat_ngram_size": (None, 0),
    "encoder_no_repeat_ngram_size": (None, 0), "bad_words_ids": (None,), "sequence_bias": (None,), "min_length": (None, 0),
    "min_new_tokens": (None, 0), "forced_bos_token_id": (None,), "forced_eos_token_id": (None,), "suppress_tokens": (None,),
    "begin_suppress_tokens": (None,), "guidance_scale": (None, 1.0), "exponential_decay_length_penalty": (None,),
    "renormalize_logits": (None, False), "remove_invalid_values": (None, False),
}
#: Prefix levels kept (their key/value caches), most recently used first: a run's few-shot prefix and the level an
#: instance shares with its variants stay while their requests are scored.
PREFIX_LRU = 6

def _read_positions(rows: list, start: int) -> list[int]:
    """The suffix positions (past ``start``) whose next-token distributions the rows read: each continuation
    token's predecessor."""
    return sorted({p - start for ids, n in rows for p in range(n - 1, len(ids) - 1)})


def _packing(rows: list, start: int) -> tuple[list[int], list[int], list[int]]:
    """The layout of a packed forward over ``start`` cached positions: each row's length in it (its suffix without
    its last token, which no position it reads takes as input), a filler row that brings the forward to
    :data:`MIN_POSITIONS`, each row's offset, and the packed positions projected to the vocabulary — every row's read
    positions, filled up with others to :data:`MIN_POSITIONS` (their logits are dropped)."""
    lengths = [len(ids) - 1 - start for ids, _ in rows]
    offsets = [0, *itertools.accumulate(lengths)][:-1]
    filler = MIN_POSITIONS - sum(lengths)
    lengths += [filler] if filler > 0 else []
    read = {offset + p - start for offset, (ids, n) in zip(offsets, rows) for p in range(n - 1, len(ids) - 1)}
    others = [p for p in range(sum(lengths)) if p not in read][:max(0, MIN_POSITIONS - len(read))]
    return lengths, offsets, sorted(read | set(others))


@functools.lru_cache(maxsize=64)
def _row_mask(length: int, cached: int, window: int | None, device: str = "cpu") -> torch.Tensor:
    """Which keys a packed row's queries see: the ``cached`` prefix positions before it and its own positions up to
    each query (causal), within ``window`` positions back on a sliding-window layer (transformers' rule: a key is
    seen while query − key < window). The last few masks are kept (a forward's layers reuse its rows' masks);
    :meth:`TransformersModel.release_prefixes` drops them."""
    back = (torch.arange(length, device=device).unsqueeze(1)
            - torch.arange(-cached, length, device=device).unsqueeze(0))  # query − key position
    seen = back >= 0
    return seen & (back < window) if window is not None else seen


def _rows_attention(module, query: torch.Tensor, key: torch.Tensor, value: torch.Tensor, attention_mask, *,
                    packed_rows: tuple[int, ...], scaling: float | None = None, sliding_window: int | None = None,
                    dropout: float = 0.0, **kwargs) -> tuple[torch.Tensor, None]:
    """Attention for a packed forward (a transformers attention function, registered as :data:`ROWS_ATTENTION`):
    the queries are ``packed_rows`` rows laid end to end after the cached prefix, and each row attends to the prefix
    and to its own earlier positions only — one scaled-dot-product call per row on that row's keys, so a row's
    values are those of the row run alone over its prefix, whatever else the forward packs. Keys and values come
    grouped (grouped-query attention: ``enable_gqa``, no copy repeated to every head)."""
    cached = key.shape[2] - query.shape[2]
    grouped = getattr(module, "num_key_value_groups", 1) > 1
    out, offset = [], 0
    for length in packed_rows:
        own = slice(cached + offset, cached + offset + length)
        keys, values = ((torch.cat([t[:, :, :cached], t[:, :, own]], dim=2) if cached else t[:, :, own]) for t in (key, value))
        out.append(torch.nn.functional.scaled_dot_product_attention(
            query[:, :, offset:offset + length], keys, values, attn_mask=_row_mask(length, cached, sliding_window, str(query.device)),
            scale=scaling, enable_gqa=grouped))
        offset += length
    return torch.cat(out, dim=2).transpose(1, 2).contiguous(), None


def _fork_cache(cache, rows: int = 1, *, keep_new: bool = True):
    """A key/value cache to run over ``cache`` without changing it, for ``rows`` rows. transformers' dynamic layers
    never write into their tensors — ``update`` concatenates and rebinds — so the fork shares them (as batch views,
    not copies: the concatenation in the forward makes the only copy). With ``keep_new=False`` (a forward whose
    cache is dropped after it) no layer keeps that concatenation either (:func:`_read_through`), so a batch's copy
    of the prefix lives for one layer, not for the whole forward. Other cache types are deep-copied."""
    from transformers.cache_utils import DynamicLayer, DynamicSlidingWindowLayer

    if not all(type(layer) in (DynamicLayer, DynamicSlidingWindowLayer) for layer in cache.layers):
        fork = copy.deepcopy(cache)
        fork.batch_repeat_interleave(rows)
        return fork
    fork = copy.copy(cache)
    fork.layers = [copy.copy(layer) for layer in cache.layers]
    for layer in fork.layers:
        if rows > 1 and layer.keys is not None and layer.keys.numel():
            layer.keys, layer.values = (t.expand(rows, *t.shape[1:]) for t in (layer.keys, layer.values))
        if not keep_new and not getattr(layer, "record_past", False):
            layer.update = functools.partial(_read_through, layer)
    return fork


def _read_through(layer, key_states: torch.Tensor, value_states: torch.Tensor, *args, **kwargs):
    """A layer's ``update`` that returns the prefix's keys and values joined with the new ones — the very tensors
    ``DynamicLayer.update`` and ``DynamicSlidingWindowLayer.update`` (which attends over all of them and keeps only
    its window) return, so the forward's values are bit-identical — without keeping them in the layer."""
    return torch.cat([layer.keys, key_states], dim=-2), torch.cat([layer.values, value_states], dim=-2)


def _pool_key(levels: list[int], ids: list[int]) -> tuple:
    """What one-row requests must share to be pooled: their prefix levels and the deepest level's tokens."""
    return tuple(levels), tuple(ids[:levels[-1]]) if levels else ()


def _common_prefix(a: list[int], b: list[int]) -> int:
    """Length of the longest common prefix of two token lists."""
    return next((k for k, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))


class TransformersModel:
    """A ``LanguageModel`` over a local model directory (or hub id, where the hub is reachable)."""

    code_version = 5  # raise when a change alters the answer to the same request (helmlite.models.cache)

    def __init__(self, path: str | Path, *, name: str | None = None, threads: int = 1, batch_size: int = 8,
                 dtype: torch.dtype = torch.float32, device: str = "cpu", reuse_prefixes: bool = True,
                 min_group_tokens: int = 16):
        from transformers import AutoModelForCausalLM, AutoTokenizer

        self.path = Path(path)
        torch.set_num_threads(threads)
        try:
            self.tokenizer = AutoTokenizer.from_pretrained(str(path))
            self.model = AutoModelForCausalLM.from_pretrained(str(path), dtype=dtype).to(device).eval()
        except OSError as error:
            raise ModelError(f"could not load a transformers model from {path}: {error}") from None
        self.device = device
        self.batch_size = batch_size
        self.reuse_prefixes = reuse_prefixes  # False: every prompt encoded whole (the plain path tests compare with)
        self.min_group_tokens = min_group_tokens  # nested scoring groups (one query's candidates) share at least this many
        self.encoded_tokens = 0  # tokens actually run through the model (prefix reuse makes this smaller)
        self.on_progress = None  # called with the share of the current call done, after every forward batch
        self.name = name or self.path.name
        self._identity = None
        self.release_prefixes()
        self._prefix_token = self.tokenizer.bos_token_id if self.tokenizer.bos_token_id is not None else self.tokenizer.eos_token_id
        if self.tokenizer.pad_token_id is None:
            self.tokenizer.pad_token = self.tokenizer.eos_token
        self._packs_rows = self._serves_rows_attention(self.model.config)
        if self._packs_rows:
            from transformers import AttentionInterface

            AttentionInterface.register(ROWS_ATTENTION, _rows_attention)

    @staticmethod
    def _serves_rows_attention(config) -> bool:
        """Whether one-row requests run packed (:meth:`_forward_packed`): a model type :func:`_rows_attention` was
        checked on, with scaled-dot-product attention (or none set yet: a config the planner reads without weights,
        for which ``from_pretrained`` picks it on these types) and no attention-logit soft-capping (which that kernel
        cannot apply)."""
        return (config.model_type in PACKED_MODEL_TYPES and config._attn_implementation in ("sdpa", None)
                and getattr(config, "attn_logit_softcapping", None) is None)

    def _start_progress(self, total: int) -> None:
        self._progress_total, self._progress_done = max(total, 1), 0

    def _advance(self, units: int) -> None:
        """Report progress within a ``score``/``generate`` call (:mod:`helmlite.models.progress`)."""
        self._progress_done += units
        if self.on_progress is not None:
            self.on_progress(min(1.0, self._progress_done / self._progress_total))

    # --- identity and tokenizer ---------------------------------------------------------------------
    @property
    def identity(self) -> dict:
        if self._identity is None:
            recorded = self.path / IDENTITY_FILE
            if recorded.is_file():
                sha = json.loads(recorded.read_text())["weights_sha256"]
            elif self.path.is_dir():
                sha = weights_sha256(self.path)
            else:  # a hub id: the resolved revision identifies the weights
                sha = f"revision:{getattr(self.model.config, '_commit_hash', None)}"
            self._identity = {"backend": "transformers", "name": self.name, "weights_sha256": sha,
                              "dtype": str(self.model.dtype)}
        return self._identity

    @property
    def max_context(self) -> int:
        config = self.model.config
        value = getattr(config, "max_position_embeddings", None) or getattr(getattr(config, "text_config", None), "max_position_embeddings", None)
        return int(value or 2048)

    def _encode(self, text: str) -> list[int]:
        return self.tokenizer(text, add_special_tokens=True)["input_ids"]

    def count_tokens(self, text: str) -> int:
        return len(self._encode(text))

    def truncate_left(self, text: str, max_tokens: int) -> str:
        ids = self.tokenizer(text, add_special_tokens=False)["input_ids"]
        return text if len(ids) <= max_tokens else self.tokenizer.decode(ids[len(ids) - max_tokens:])

    def apply_chat_template(self, user_message: str) -> str:
        if not self.tokenizer.chat_template:
            raise ModelError(f"{self.name} has no chat template (a base model); use plain prompts")
        return self.tokenizer.apply_chat_template([{"role": "user", "content": user_message}], tokenize=False,
                                                  add_generation_prompt=True)

    # --- scoring ------------------------------------------------------------------------------------
    def _pair_tokens(self, context: str, continuation: str) -> tuple[list[int], int]:
        """Token ids of context+continuation and the number that belong to the context."""
        context, continuation = split_context(context, continuation)
        if not context:
            cont = self.tokenizer(continuation, add_special_tokens=False)["input_ids"]
            return [self._prefix_token] + cont, 1
        whole = self._encode(context + continuation)
        n_context = len(self._encode(context))
        if n_context >= len(whole):
            raise ModelError(f"{self.name}: continuation {continuation!r} adds no tokens to its context")
        if len(whole) > self.max_context:
            raise ModelError(f"{self.name}: a prompt of {len(whole)} tokens exceeds the context of {self.max_context}")
        return whole, n_context

    @torch.no_grad()
    def _forward_logprobs(self, rows: list[tuple[list[int], int]], prefix: tuple | None = None,
                          alternatives: list[tuple[int, ...] | None] | None = None) -> list[list[float]]:
        """Per-token log-probabilities of each row's tokens after its context (one batched forward, the rows padded
        to the longest).

        With ``prefix = (length, cache)`` the first ``length`` tokens of every row are taken from the
        prefix's key/value cache and only the suffixes are run. A row with ``alternatives`` (several
        one-token continuations of one context) returns the log-probability of each alternative token at
        its last position instead; one whose alternatives are :data:`NEXT_TOKEN` returns that position's whole
        distribution (a tensor over the vocabulary).
        """
        start, cache = prefix if prefix else (0, None)
        width = max(len(ids) for ids, _ in rows) - start
        keep = _read_positions(rows, start)
        pad = self.tokenizer.pad_token_id
        input_ids = torch.tensor([ids[start:] + [pad] * (width - len(ids) + start) for ids, _ in rows], device=self.device)
        mask = torch.tensor([[1] * len(ids) + [0] * (width - len(ids) + start) for ids, _ in rows], device=self.device)
        extra = {}
        if cache is not None:
            batch_cache = _fork_cache(cache, len(rows), keep_new=False)
            positions = torch.arange(start, start + width, device=self.device).unsqueeze(0).expand(len(rows), -1)
            extra = {"cache": batch_cache, "position_ids": positions}
        self.encoded_tokens += sum(len(ids) - start for ids, _ in rows)
        logits = self.model(input_ids=input_ids, attention_mask=mask, logits_to_keep=torch.tensor(keep, device=self.device),
                            **extra).logits
        return self._read_logprobs(torch.log_softmax(logits.float(), dim=-1), keep, rows, alternatives,
                                   [(r, -start) for r in range(len(rows))])

    @staticmethod
    def _read_logprobs(logprobs: torch.Tensor, keep: list[int], rows: list, alternatives: list | None, at: list) -> list:
        """What each row reads from a forward's log-probabilities over the projected positions ``keep`` (see
        :meth:`_forward_logprobs`); ``at[r]`` is the row's batch index and the shift from a token position of the row
        to its position in the forward."""
        where = {p: k for k, p in enumerate(keep)}
        out = []
        for (ids, n), tokens, (batch, shift) in zip(rows, alternatives or [None] * len(rows), at):
            if tokens is NEXT_TOKEN:  # a copy: a view would keep the whole forward's log-probabilities alive
                out.append(logprobs[batch, where[len(ids) - 2 + shift]].clone())
            elif tokens is not None:
                out.append(logprobs[batch, where[len(ids) - 2 + shift], list(tokens)].tolist())
            else:
                out.append([float(logprobs[batch, where[p + shift], ids[p + 1]]) for p in range(n - 1, len(ids) - 1)])
        return out

    @torch.no_grad()
    def _forward_packed(self, rows: list[tuple[list[int], int]], prefix: tuple | None, alternatives: list) -> list:
        """What :meth:`_forward_logprobs` returns for ``rows``, from one forward that packs them end to end without
        padding (:func:`_packing`), each row attending to the prefix and to itself only (:func:`_rows_attention`):
        a row's values do not depend on the rows packed with it (tested bit for bit, one thread)."""
        start, cache = prefix if prefix else (0, None)
        lengths, offsets, keep = _packing(rows, start)
        tokens = [t for ids, _ in rows for t in ids[start:-1]]
        tokens += [self.tokenizer.pad_token_id] * (sum(lengths) - len(tokens))
        positions = [start + k for length in lengths for k in range(length)]
        extra = {"cache": _fork_cache(cache, keep_new=False)} if cache is not None else {}
        self.encoded_tokens += sum(len(ids) - 1 - start for ids, _ in rows)
        config = self.model.config
        implementation, config._attn_implementation = config._attn_implementation, ROWS_ATTENTION
        try:
            logits = self.model(input_ids=torch.tensor([tokens], device=self.device),
                                position_ids=torch.tensor([positions], device=self.device),
                                logits_to_keep=torch.tensor(keep, device=self.device), packed_rows=tuple(lengths), **extra).logits
        finally:
            config._attn_implementation = implementation
        return self._read_logprobs(torch.log_softmax(logits.float(), dim=-1), keep, rows, alternatives,
                                   [(0, offset - start) for offset in offsets])

    @staticmethod
    def _common_length(rows: list[tuple[list[int], int]]) -> int:
        """Length of the longest token prefix shared by all rows, keeping each row's last context token."""
        first = rows[0][0]
        return min([n - 1 for _, n in rows] + [_common_prefix(first, ids) for ids, _ in rows[1:]])

    @torch.no_grad()
    def _extend_prefix(self, prefix: tuple | None, ids: list[int], length: int) -> tuple:
        """(length, cache) for ``ids[:length]``, encoding only the tokens past ``prefix`` (over a fork of its cache)."""
        start, cache = prefix if prefix else (0, None)
        extra = {}
        if cache is not None:
            extra = {"cache": _fork_cache(cache),
                     "position_ids": torch.arange(start, length, device=self.device).unsqueeze(0)}
        self.encoded_tokens += length - start
        out = self.model(input_ids=torch.tensor([ids[start:length]], device=self.device), use_cache=True,
                         logits_to_keep=1, **extra)
        return length, out.cache

    @staticmethod
    def _merge_one_token_rows(rows: list[tuple[list[int], int]]):
        """Rows that add one token to the same context (the answer letters of a multiple-choice-joint prompt)
        become one row read at several vocabulary entries: one forward instead of one per choice.

        Returns the rows to run, the alternative tokens of each (None for an ordinary row) and, per input
        row, where its value is found: ``(run row, index among its alternatives or None)``.
        """
        unique, alternatives, where, merged = [], [], [], {}
        for ids, n in rows:
            if len(ids) - n == 1:
                key = tuple(ids[:-1])
                if key not in merged:
                    merged[key] = len(unique)
                    unique.append((ids, n))
                    alternatives.append([])
                k = merged[key]
                where.append((k, len(alternatives[k])))
                alternatives[k].append(ids[-1])
            else:
                where.append((len(unique), None))
                unique.append((ids, n))
                alternatives.append(None)
        return unique, [tuple(a) if a is not None else None for a in alternatives], where

    def _declared_lengths(self, request: ScoreRequest, rows: list[tuple[list[int], int]]) -> list[int]:
        """Token lengths of the request's prefix levels: each declared string prefix (``request.prefixes``: the
        run's instructions and in-context examples, then what it shares with other prompts of its run:
        :mod:`helmlite.shared_prefixes`) as the longest token prefix its own encoding shares with every row, then
        the rows' common context (one question's answers). A level is kept when it adds at least
        ``min_group_tokens`` tokens to the one below, and every level leaves each row its last context token. All
        of it is a function of this request alone (``reuse_prefixes = False``: no levels)."""
        if not self.reuse_prefixes:
            return []
        limit = min(n for _, n in rows) - 1
        candidates = []
        for chars in request.prefixes:
            declared = self._encode_cached(request.prompt[:chars])
            candidates.append(min(_common_prefix(declared, ids) for ids, _ in rows))
        if len(rows) > 1:
            candidates.append(self._common_length(rows))
        levels: list[int] = []
        for length in candidates:
            length = min(length, limit)
            floor = (levels[-1] if levels else 0) + self.min_group_tokens
            if length >= floor:
                levels.append(length)
        return levels

    def release_prefixes(self) -> None:
        """Forget every kept prefix (its key/value cache and encoding). The runner calls this when a run's requests
        are answered: the next run's prompts have other few-shot prefixes, and a job that runs many specs would
        otherwise hold up to :data:`PREFIX_LRU` earlier runs' caches (~28 MB each for a 5-shot MMLU prefix on
        SmolLM2) as peak memory."""
        self._prefix_lru: OrderedDict[tuple, tuple] = OrderedDict()
        _row_mask.cache_clear()
        self._prefix_ids: dict[str, list[int]] = {}

    def _encode_cached(self, text: str) -> list[int]:
        """The encoding of a declared prefix (one per run's few-shot prefix, reused by all its requests)."""
        if text not in self._prefix_ids:
            if len(self._prefix_ids) > 64:
                self._prefix_ids.clear()
            self._prefix_ids[text] = self._encode(text)
        return self._prefix_ids[text]

    def _prefix_cache(self, ids: list[int], levels: list[int]) -> tuple | None:
        """(length, key/value cache) of ``ids[:levels[-1]]``, built level by level — the first from scratch, each
        next one extending the one before — each level kept in a small LRU keyed by its tokens and the levels below it, so a run's
        few-shot prefix is encoded once for all its instances and variants and a value never depends on what
        was encoded before it."""
        prefix = None
        for depth, length in enumerate(levels):
            key = (tuple(levels[:depth]), tuple(ids[:length]))  # a level's cache depends on the levels it extends
            if key in self._prefix_lru:
                self._prefix_lru.move_to_end(key)
                prefix = self._prefix_lru[key]
                continue
            prefix = self._extend_prefix(prefix, ids, length)
            self._prefix_lru[key] = prefix
            while len(self._prefix_lru) > PREFIX_LRU:
                self._prefix_lru.popitem(last=False)
        return prefix

    def _score_over(self, rows: list[tuple[list[int], int]], alternatives: list, prefix: tuple | None) -> list[list[float]]:
        """One request's rows over its ``prefix`` (or none), in slices of :data:`SCORE_ROWS_PER_FORWARD` in their
        order: such a forward holds rows of one request only, so its padded width and row count — which change a
        row's floats in the last digits — are fixed by the request, never by what else a call or batch holds."""
        out: list = []
        for at in range(0, len(rows), SCORE_ROWS_PER_FORWARD):
            out += self._forward_logprobs(rows[at:at + SCORE_ROWS_PER_FORWARD], prefix, alternatives[at:at + SCORE_ROWS_PER_FORWARD])
            self._advance(len(rows[at:at + SCORE_ROWS_PER_FORWARD]))
        return out

    def _score_pooled(self, rows: list[tuple[list[int], int]], alternatives: list, prefix: tuple | None) -> list[list[float]]:
        """One-row requests over the same ``prefix``, ``batch_size`` at a time in packed forwards
        (:meth:`_forward_packed`), whose values do not depend on which rows share them; on a model
        :func:`_rows_attention` does not serve (not in :data:`PACKED_MODEL_TYPES`), each row in a forward of its own."""
        out: list = []
        step = self.batch_size if self._packs_rows else 1
        for at in range(0, len(rows), step):
            batch = slice(at, at + step)
            if self._packs_rows:
                out += self._forward_packed(rows[batch], prefix, alternatives[batch])
            else:
                out += self._forward_logprobs(rows[batch], prefix, alternatives[batch])
            self._advance(len(rows[batch]))
        return out

    def score(self, requests: Sequence[ScoreRequest]) -> list[Scores]:
        """Log-probabilities of every continuation, each a function of its request alone (batch and chunk
        composition change no stored value). Per request: its declared prefix levels (:meth:`_declared_lengths`)
        are encoded once and reused across requests (:meth:`_prefix_cache`), its continuations are scored over the
        deepest level in forwards of their own (:meth:`_score_over`), one-token continuations of the context
        share a single row (multiple-choice-joint letters), and one-row requests over the same prefix share packed
        forwards (:meth:`_score_pooled`). A request that repeats an earlier one is scored once."""
        started = time.perf_counter()
        plans = []
        for request in requests:
            rows = [self._pair_tokens(request.prompt, c) for c in request.continuations]
            unique, alternatives, where = self._merge_one_token_rows(rows)
            plans.append((rows, unique, alternatives, where, self._declared_lengths(request, unique) if unique else []))
        first = {}  # a repeated request is scored once
        for i, request in enumerate(requests):
            first.setdefault(request, i)
        self._start_progress(sum(len(plans[i][1]) for i in first.values()))
        values: list[list | None] = [None] * len(requests)
        pooled: dict[tuple, list[int]] = {}  # one-row requests by their prefix levels and the deepest level's tokens
        for i in first.values():
            _, unique, alternatives, _, levels = plans[i]
            if len(unique) == 1:
                pooled.setdefault(_pool_key(levels, unique[0][0]), []).append(i)
            elif unique:
                values[i] = self._score_over(unique, alternatives, self._prefix_cache(unique[0][0], levels))
        for members in pooled.values():
            prefix = self._prefix_cache(plans[members[0]][1][0][0], plans[members[0]][4])
            merged = self._score_pooled([plans[m][1][0] for m in members], [plans[m][2][0] for m in members], prefix)
            for m, row_values in zip(members, merged):
                values[m] = [row_values]
        results = []
        elapsed = (time.perf_counter() - started) / max(1, len(requests))
        for i, request in enumerate(requests):
            rows, where, source = plans[i][0], plans[i][3], first[request]
            mine = [values[source][k] if choice is None else [values[source][k][choice]] for k, choice in where]
            prompt_tokens = rows[0][1] if rows else 0
            results.append(Scores(tuple(sum(v) for v in mine), tuple(tuple(v) for v in mine), tuple(len(v) for v in mine),
                                  prompt_tokens, elapsed))
        return results

    # --- generation ---------------------------------------------------------------------------------
    def _decode(self, request: GenerationRequest, new: list[int], step_logprobs, prompt_tokens: int, latency: float) -> Generation:
        """Cut at end-of-sequence/padding, then as crfm-helm's client does (``truncate_sequence``): the text at the first
        stop sequence, the tokens — their count and their log-probabilities, the completion's confidence — before the
        first token whose own text starts with one (:func:`helm_kept_tokens`). A completion that stops at once keeps no
        token: log-probability 0, HELM's ``max_prob`` 1. The log-probabilities are the model's own distribution's, as
        the OpenAI-compatible servers behind crfm-helm's API clients report them. crfm-helm's ``HuggingFaceClient``
        departs there: it serves temperature 0 by sampling at 1e-7 and reports the log-probabilities of that
        sharpened distribution, 0 for every chosen token, so its ``max_prob`` is 1 for every greedy completion of a
        local model (every one in the crfm-helm runs under ``tests/data/helm/``; :mod:`helmlite.imports.helm` drops
        such confidences). Two smaller departures from that client remain: generation here stops at the first token
        whose text holds a stop sequence (``stop_strings``), where HELM's stops only when the generated ids end with
        the stop's own ids (one-token stop: as end of sequence), so after a token such as SmolLM2's ``" \n"`` HELM
        generates on and counts more output tokens (the text is cut at the same place; the confidence would sum more
        tokens too, were its log-probabilities not all 0); and the text drops special tokens, which HELM's keeps
        (except its end-of-text token)."""
        stops = {self.tokenizer.eos_token_id, self.tokenizer.pad_token_id}
        length = next((t for t, token in enumerate(new) if token in stops), len(new))
        text = apply_stop(self.tokenizer.decode(new[:length], skip_special_tokens=True), request.stop)
        kept = helm_kept_tokens([self.tokenizer.decode([token]) for token in new[:length]], request.stop)
        return Generation(text, prompt_tokens, kept, tuple(float(step_logprobs[t, new[t]]) for t in range(kept)), latency)

    def _generate_kwargs(self, request: GenerationRequest) -> dict:
        return dict(max_new_tokens=request.max_tokens, do_sample=request.temperature > 0,
                    temperature=request.temperature if request.temperature > 0 else None, top_p=None, top_k=None,
                    output_logits=True, return_dict_in_generate=True, pad_token_id=self.tokenizer.pad_token_id,
                    stop_strings=list(request.stop) or None, tokenizer=self.tokenizer if request.stop else None)

    @torch.no_grad()
    def _generate_one(self, request: GenerationRequest, ids: list[int], prefix: tuple | None) -> Generation:
        """One request decoded on its own (no padding), after its prefix's key/value cache (a fork)."""
        start, extra = 0, {}
        if prefix is not None:
            start, cache = prefix
            extra = {"cache": _fork_cache(cache)}
        if request.temperature > 0:
            torch.manual_seed(request.seed)
        input_ids = torch.tensor([ids], device=self.device)
        started = time.perf_counter()
        out = self.model.generate(input_ids=input_ids, attention_mask=torch.ones_like(input_ids), **extra,
                                  **self._generate_kwargs(request))
        latency = time.perf_counter() - started
        self.encoded_tokens += len(ids) - start
        # the model's own distribution at each step (raw logits, as an OpenAI-compatible server reports log-probs), not the
        # temperature-scaled one a sampled generation draws from
        steps = torch.log_softmax(torch.stack([s[0].float() for s in out.logits]), dim=-1)  # (steps, vocab)
        return self._decode(request, out.sequences[0, len(ids):].tolist(), steps, len(ids), latency)

    @property
    def _greedy_is_argmax(self) -> bool:
        """Whether HF ``generate``'s greedy first token is the argmax of the model's own distribution: no setting of
        the model's ``generation_config`` adds a logits processor that changes it (a repetition penalty, banned or
        suppressed tokens, a forced or minimum-length end of text, classifier-free guidance). Only then do one-token
        greedy requests take the packed forwards; otherwise HF ``generate`` answers them, processors and all."""
        config = self.model.generation_config
        return all(getattr(config, name, None) in neutral for name, neutral in _NEUTRAL_GENERATION_SETTINGS.items())

    def _generate_pooled(self, requests: list[GenerationRequest], encoded: list[list[int]], levels: list[int]) -> list[Generation]:
        """One-token greedy generations over the same prefix levels (HELM's multiple-choice-joint answers:
        ``max_tokens=1``, temperature 0) in the packed forwards scoring uses (:meth:`_score_pooled`): each prompt is
        a row whose last position's distribution is read (a placeholder token after it stands for the continuation;
        a packed forward does not run it), and the generated token is that distribution's argmax, as greedy
        decoding takes it. A row's values depend on its
        prompt and prefix only — not on which requests share its forward (tested bit for bit) — and equal a
        decoding of the request alone within float rounding. A generation's latency is its share of its forwards' time."""
        started = time.perf_counter()
        rows = [(ids + [self.tokenizer.pad_token_id], len(ids)) for ids in encoded]
        distributions = self._score_pooled(rows, [NEXT_TOKEN] * len(rows), self._prefix_cache(encoded[0], levels))
        latency = (time.perf_counter() - started) / len(requests)
        out = []
        for request, ids, distribution in zip(requests, encoded, distributions):
            token = int(torch.argmax(distribution))
            out.append(self._decode(request, [token], distribution.unsqueeze(0), len(ids), latency))
        return out

    def generate(self, requests: Sequence[GenerationRequest]) -> list[Generation]:
        """Each generation a function of its request alone — its text and its log-probabilities — as a score is.
        A request decodes over its declared prefix levels (:meth:`_declared_lengths`; a run's few-shot prefix is
        encoded once and kept in the prefix cache). One-token greedy requests over the same levels are answered in
        packed forwards (:meth:`_generate_pooled`: one forward for up to ``batch_size`` of them, as one-row scoring
        requests are); any other request is decoded on its own (HF ``generate``, no padding), which gives up batched
        decoding — on a CPU a step of eight rows cost little more than one."""
        results: list[Generation | None] = [None] * len(requests)
        self._start_progress(len(requests))
        pooled: dict[tuple, list[tuple[int, list[int], list[int]]]] = {}
        poolable = self._greedy_is_argmax  # once per call: the model's generation settings do not change within it
        for i, request in enumerate(requests):
            ids = self._encode(request.prompt)
            levels = self._declared_lengths(request, [(ids, len(ids))])
            if request.max_tokens == 1 and request.temperature == 0 and poolable:
                pooled.setdefault(_pool_key(levels, ids), []).append((i, ids, levels))
                continue
            results[i] = self._generate_one(request, ids, self._prefix_cache(ids, levels))
            self._advance(1)
        for members in pooled.values():
            answers = self._generate_pooled([requests[i] for i, _, _ in members], [ids for _, ids, _ in members], members[0][2])
            for (i, _, _), answer in zip(members, answers):
                results[i] = answer
        return results
