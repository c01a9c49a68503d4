"""Prefix reuse: key/value caches of the few-shot prefix and of what a request shares with its variants, encoded
once, extended level by level and kept in a small LRU (:class:`PrefixLevels`, the half of
:class:`~helmlite.models.transformers_backend.TransformersModel` that owns them), and forks of such a cache that a
forward runs over without changing it (:func:`fork_cache`). What a level is and why a value never depends on what
was encoded before: the backend's module docstring."""
from __future__ import annotations

import copy
import functools
from collections import OrderedDict

import torch

from .._common_prefix import common_prefix
from ._base import ScoreRequest
from .packing import row_mask

#: Prefix levels kept (their key/value caches), most recently used first: a run's few-shot prefix and the level an
#: instance shares with its variants stay while their requests are scored.
PREFIX_LRU = 6


def fork_cache(cache, rows: int = 1, *, keep_new: bool = True, new_only: bool = False):
    """A key/value cache to run over ``cache`` without changing it, for ``rows`` rows. transformers' dynamic layers
    never write into their tensors — ``update`` concatenates and rebinds — so the fork shares them (as batch views,
    not copies: the concatenation in the forward makes the only copy). With ``keep_new=False`` (a forward whose
    cache is dropped after it) no layer keeps that concatenation either (:func:`read_through`), so a batch's copy
    of the prefix lives for one layer, not for the whole forward; with ``new_only`` too, a layer hands the attention
    its new keys and values alone (:func:`read_new`: a packed forward's attention reads the prefix from the fork
    itself, so the joined copy is never made). Other cache types are deep-copied."""
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
            layer.update = functools.partial(read_new if new_only else read_through, layer)
            layer.hands_new_only = new_only  # what packing.rows_attention reads to join the prefix itself
    return fork


def read_through(layer, key_states: torch.Tensor, value_states: torch.Tensor, *args, **kwargs):
    """A layer's ``update`` that returns the prefix's keys and values joined with the new ones — the very tensors
    ``DynamicLayer.update`` and ``DynamicSlidingWindowLayer.update`` (which attends over all of them and keeps only
    its window) return, so the forward's values are bit-identical — without keeping them in the layer."""
    return torch.cat([layer.keys, key_states], dim=-2), torch.cat([layer.values, value_states], dim=-2)


def read_new(layer, key_states: torch.Tensor, value_states: torch.Tensor, *args, **kwargs):
    """A layer's ``update`` for a packed forward (:func:`helmlite.models.packing.rows_attention`, which joins each row
    to ``layer.keys`` / ``layer.values`` itself): the new keys and values as they came, nothing joined or kept."""
    return key_states, value_states


def pool_key(levels: list[int], ids: list[int]) -> tuple:
    """What one-row requests must share to be pooled: their prefix levels and the deepest level's tokens."""
    return tuple(levels), tuple(ids[:levels[-1]]) if levels else ()


class PrefixLevels:
    """The prefix levels of a transformers model (mixed into
    :class:`~helmlite.models.transformers_backend.TransformersModel`, whose ``model``, ``device``, ``_encode``,
    ``reuse_prefixes``, ``min_group_tokens`` and ``encoded_tokens`` it uses): which levels a request declares, and
    their caches, built and kept."""

    @staticmethod
    def _common_length(rows: list[tuple[list[int], int]]) -> int:
        """Length of the longest token prefix shared by all rows, keeping each row's last context token."""
        first = rows[0][0]
        return min([n - 1 for _, n in rows] + [common_prefix(first, ids) for ids, _ in rows[1:]])

    @torch.no_grad()
    def _extend_prefix(self, prefix: tuple | None, ids: list[int], length: int) -> tuple:
        """(length, cache) for ``ids[:length]``, encoding only the tokens past ``prefix`` (over a fork of its cache)."""
        start, cache = prefix if prefix else (0, None)
        extra = {}
        if cache is not None:
            extra = {"cache": fork_cache(cache),
                     "position_ids": torch.arange(start, length, device=self.device).unsqueeze(0)}
        self.encoded_tokens += length - start
        out = self.model(input_ids=torch.tensor([ids[start:length]], device=self.device), use_cache=True,
                         logits_to_keep=1, **extra)
        return length, out.cache

    def _declared_lengths(self, request: ScoreRequest, rows: list[tuple[list[int], int]]) -> list[int]:
        """Token lengths of the request's prefix levels: each declared string prefix (``request.prefixes``: the
        run's instructions and in-context examples, then what it shares with other prompts of its run:
        :mod:`helmlite.evaluation.shared_prefixes`) as the longest token prefix its own encoding shares with every row, then
        the rows' common context (one question's answers). A level is kept when it adds at least
        ``min_group_tokens`` tokens to the one below, and every level leaves each row its last context token. All
        of it is a function of this request alone (``reuse_prefixes = False``: no levels)."""
        if not self.reuse_prefixes:
            return []
        limit = min(n for _, n in rows) - 1
        candidates = []
        for chars in request.prefixes:
            declared = self._encode_cached(request.prompt[:chars])
            candidates.append(min(common_prefix(declared, ids) for ids, _ in rows))
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
        row_mask.cache_clear()
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
