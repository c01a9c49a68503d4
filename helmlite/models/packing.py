"""Packed forwards: one-row scoring requests over one prefix laid end to end in a single sequence without padding,
each row attending to the prefix and to its own tokens only — so a row's values are those of the row run alone
(:mod:`helmlite.models.transformers_backend` uses it; :mod:`helmlite.planning` counts its layout). The attention
function is registered with transformers as :data:`ROWS_ATTENTION` for the forward's duration."""
from __future__ import annotations

import functools
import itertools

import torch

#: A packed forward (one-row requests over one prefix) holds at least this many positions — a filler row of padding
#: tokens makes up the rest — and projects at least this many to the vocabulary: a matrix product gives a position
#: the same floats whatever else it holds only from 16 rows on (fewer take another MKL path; measured for every
#: projection of both embedded models, fp32, one thread).
MIN_POSITIONS = 16


#: Model types whose attention layers :func:`rows_attention` serves (checked against the plain forward: the tiny
#: test Llama, SmolLM2, Gemma 3 with its sliding-window layers); another model runs each one-row request alone.
PACKED_MODEL_TYPES = ("llama", "gemma3_text")


#: The attention implementation name a packed forward switches the model to for its duration.
ROWS_ATTENTION = "helmlite_rows"


def read_positions(rows: list, start: int) -> list[int]:
    """The suffix positions (past ``start``) whose next-token distributions the rows read: each continuation
    token's predecessor."""
    return sorted({p - start for ids, n in rows for p in range(n - 1, len(ids) - 1)})


def packing(rows: list, start: int) -> tuple[list[int], list[int], list[int]]:
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
def row_mask(length: int, cached: int, window: int | None, device: str = "cpu") -> torch.Tensor:
    """Which keys a packed row's queries see: the ``cached`` prefix positions before it and its own positions up to
    each query (causal), within ``window`` positions back on a sliding-window layer (transformers' rule: a key is
    seen while query − key < window). The last few masks are kept (a forward's layers reuse its rows' masks);
    :meth:`TransformersModel.release_prefixes` drops them."""
    back = (torch.arange(length, device=device).unsqueeze(1)
            - torch.arange(-cached, length, device=device).unsqueeze(0))  # query − key position
    seen = back >= 0
    return seen & (back < window) if window is not None else seen


def rows_attention(module, query: torch.Tensor, key: torch.Tensor, value: torch.Tensor, attention_mask, *,
                    packed_rows: tuple[int, ...], packed_prefix=None, scaling: float | None = None,
                    sliding_window: int | None = None, dropout: float = 0.0, **kwargs) -> tuple[torch.Tensor, None]:
    """Attention for a packed forward (a transformers attention function, registered as :data:`ROWS_ATTENTION`):
    the queries are ``packed_rows`` rows laid end to end after the cached prefix, and each row attends to the prefix
    and to its own earlier positions only — one scaled-dot-product call per row on that row's keys, so a row's
    values are those of the row run alone over its prefix, whatever else the forward packs. Keys and values come
    grouped (grouped-query attention: ``enable_gqa``, no copy repeated to every head). ``key`` and ``value`` hold the
    prefix and the packed rows, or — where ``packed_prefix``, the forward's cache fork, has a layer marked
    ``hands_new_only`` (:func:`helmlite.models.prefix_cache.fork_cache` with ``new_only``) — the packed rows only,
    the prefix read from that layer: the same tensors either way, without joining the whole prefix to every forward's keys first."""
    layer = packed_prefix.layers[module.layer_idx] if packed_prefix is not None else None
    if layer is not None and getattr(layer, "hands_new_only", False):
        prefix, new = (layer.keys, layer.values), (key, value)
    else:
        start = key.shape[2] - query.shape[2]
        prefix, new = (key[:, :, :start], value[:, :, :start]), (key[:, :, start:], value[:, :, start:])
    cached = prefix[0].shape[2]
    grouped = getattr(module, "num_key_value_groups", 1) > 1
    out, offset = [], 0
    for length in packed_rows:
        own = slice(offset, offset + length)
        keys, values = ((torch.cat([before, t[:, :, own]], dim=2) if cached else t[:, :, own])
                        for before, t in zip(prefix, new))
        out.append(torch.nn.functional.scaled_dot_product_attention(
            query[:, :, offset:offset + length], keys, values, attn_mask=row_mask(length, cached, sliding_window, str(query.device)),
            scale=scaling, enable_gqa=grouped))
        offset += length
    return torch.cat(out, dim=2).transpose(1, 2).contiguous(), None


def merge_one_token_rows(rows: list[tuple[list[int], int]]):
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


def serves_rows_attention(config) -> bool:
    """Whether a model's one-row requests can run packed (:func:`rows_attention`): a model type that attention was
    checked on (:data:`PACKED_MODEL_TYPES`), with scaled-dot-product attention (or none set yet: a config the planner
    reads without weights, for which ``from_pretrained`` picks it on these types) and no attention-logit
    soft-capping (which that kernel cannot apply)."""
    return (config.model_type in PACKED_MODEL_TYPES and config._attn_implementation in ("sdpa", None)
            and getattr(config, "attn_logit_softcapping", None) is None)
