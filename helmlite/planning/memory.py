"""A run job's peak memory, predicted from its counted work: what a cluster job must reserve (``mem_mb``).

A job's peak is the model process after loading (``Rates.loaded_mb``: measured once per model and machine, in a
fresh process that loads the model and scores one request) plus, at its largest forward, the tensors that grow
with the work (:class:`~helmlite.models.work_counting.Work`'s ``peak_*`` counts), fp32 throughout:

* keys and values every layer holds at once — a prefix extension, a generation or a forward without a prefix,
  plus the prefix levels the backend keeps: ``peak_cached_positions × layers × 2 × kv_heads × head_dim × 4`` B;
* one layer's concatenation of a forward's positions with its prefix (a forward over a prefix keeps no other) and
  its copy repeated to every attention head (a padded, masked forward does not use the attention kernel's
  grouped-query path; a packed one does, so there the term overcounts):
  ``peak_layer_positions × 2 × (kv_heads + heads) × head_dim × 4`` B;
* attention, where the kernel materialises it: the scores and their softmax, ``peak_attention_cells × heads × 2 × 4``
  B, and the float mask, ``peak_attention_cells × 4`` B;
* the activations of a forward's positions (the MLP's two intermediate projections and the hidden state):
  ``peak_row_positions × (2 × intermediate + hidden) × 4`` B;
* the logits and their log-softmax at the positions a forward reads: ``peak_logit_positions × vocab × 2 × 4`` B.

The terms are added as if they peaked together and the sum gets :data:`MARGIN`, because the prediction still misses
what no term models (the allocator's high-water mark across a run's stages). Against real ``helmlite run`` jobs
(peak RSS, 2026-12-03, 2 threads): SmolLM2 on NIAH at 1K tokens 1,565 MB measured vs 1,415 predicted, at 4K 3,116
and 3,616 MB in two runs vs 3,470, on 20 MMLU items (joint) 1,104 vs 1,070; Gemma 3 on NIAH at 1K 2,333 vs 2,247 —
the reservation was 1.47–1.73× the measured peak. ``tests/test_planning.py`` checks it against a real run job.
"""
from __future__ import annotations

import math

from ..models import Work

MARGIN = 1.5  # the reservation over the predicted peak (see the module docstring)
STEP_MB = 256  # reservations are rounded up to this
FP32_BYTES = 4


def model_shape(config) -> dict[str, int]:
    """The sizes the memory terms need, from a transformers model config (a multimodal config's text part); an MLP
    width the config does not name (GPT-2's ``n_inner`` may be None, OPT calls it ``ffn_dim``) is taken as 4 × hidden,
    the transformer's usual ratio."""
    text = getattr(config, "text_config", None) or config
    heads, hidden = text.num_attention_heads, text.hidden_size
    intermediate = getattr(text, "intermediate_size", None) or getattr(text, "ffn_dim", None) or getattr(text, "n_inner", None)
    return {"layers": text.num_hidden_layers, "heads": heads, "kv_heads": getattr(text, "num_key_value_heads", None) or heads,
            "head_dim": getattr(text, "head_dim", None) or hidden // heads, "hidden": hidden,
            "intermediate": intermediate or 4 * hidden, "vocab": text.vocab_size}


def work_mb(work: Work, shape: dict[str, int]) -> float:
    """MB of the tensors that grow with ``work`` at its largest forward (the module docstring's terms)."""
    per_layer_position = 2 * shape["kv_heads"] * shape["head_dim"] * FP32_BYTES
    repeated = 2 * shape["heads"] * shape["head_dim"] * FP32_BYTES
    return (work.peak_cached_positions * shape["layers"] * per_layer_position
            + work.peak_layer_positions * (per_layer_position + repeated)
            + work.peak_attention_cells * (2 * shape["heads"] + 1) * FP32_BYTES
            + work.peak_row_positions * (2 * shape["intermediate"] + shape["hidden"]) * FP32_BYTES
            + work.peak_logit_positions * shape["vocab"] * 2 * FP32_BYTES) / 2**20


def reservation_mb(peak_mb: float) -> float:
    """What a job with this predicted peak reserves: times :data:`MARGIN`, rounded up to :data:`STEP_MB`; NaN when
    the peak is unknown."""
    if not peak_mb == peak_mb:
        return math.nan
    return float(math.ceil(MARGIN * peak_mb / STEP_MB) * STEP_MB)
