"""What a run will cost the model, counted without running it: the transformers backend's own batching and
prefix reuse, with every forward pass replaced by a count — the backend's token-counting hook, which the planner
(:mod:`helmlite.planning`) reaches through :func:`helmlite.models.work_counter`.

:class:`WorkCounter` is a :class:`~helmlite.models.transformers_backend.TransformersModel` that loads the
tokenizer and the config but no weights, and counts, instead of computing, what the real backend would
run: positions through the network (rows × padded width of a padded forward, so padding counts as the real
forward pays it; the packed positions of a packed one),
forward calls, and decoding steps. It pools, pads, reuses prefixes and merges one-token continuations
exactly as the real backend does, because it *is* the real backend with three methods replaced (a forward, a
prefix extension, one request's generation). A run's requests are counted in the request cache's chunks
(:class:`~helmlite.models.cache.CachedModel` sends a run to the model ``chunk_size`` requests at a time); the
prefix LRU is kept across those calls and released after the run, as the runner does.

Generation is counted at ``max_tokens`` decoding steps per request (each is decoded on its own) — an upper bound
(a request stops early at a stop sequence or end of text), so planned generation time errs on the long side —
except one-token greedy requests, which the backend answers in pooled scoring forwards and which count as those.
"""
from __future__ import annotations

import operator
from dataclasses import dataclass, fields
from pathlib import Path
from types import SimpleNamespace
from typing import Sequence

import torch

from ._base import Generation, GenerationRequest, ScoreRequest
from .encodings import Encodings
from .packing import packing, read_positions, serves_rows_attention
from .transformers_backend import NEXT_TOKEN, TransformersModel


@dataclass
class Work:
    """Counted model work of a set of requests."""

    requests: int = 0
    score_positions: int = 0   # positions of every scoring forward: rows × padded width, or packed (prefix extensions included)
    score_forwards: int = 0    # scoring forward calls
    prefill_positions: int = 0  # prompt tokens of every generate call past its cached prefix
    decode_steps: int = 0      # max_tokens of every generation HF generate decodes (each on its own)
    generate_calls: int = 0    # HF generate calls, one per such request (each pays the call's set-up)
    encoded_tokens: int = 0    # tokens run through the model, without padding (what prefix reuse saves shows here)
    prefix_row_positions: int = 0  # rows × cached prefix length of every scoring forward over a prefix cache
    projected_positions: int = 0   # positions every scoring forward projects to the vocabulary (logits_to_keep)
    # the largest single forward, for memory (helmlite.planning.memory): maxima, not sums
    peak_cached_positions: int = 0  # positions whose keys/values every layer holds at once (a prefix extension, a
    #                                 generation, a forward without a prefix), plus the prefix levels kept
    peak_layer_positions: int = 0   # rows × (prefix + width) of a forward over a prefix: one layer's concatenation
    peak_attention_cells: int = 0   # rows × queries × keys of one forward (per attention head)
    peak_row_positions: int = 0     # rows × width of one forward (the activations of its positions)
    peak_logit_positions: int = 0   # rows × positions one forward projects to the vocabulary

    def __add__(self, other: "Work") -> "Work":
        return Work(**{f.name: (max if f.name.startswith("peak_") else operator.add)(getattr(self, f.name), getattr(other, f.name))
                       for f in fields(self)})

    def scaled(self, factor: float) -> "Work":
        """This work with every sum multiplied by ``factor`` (rounded) and the peaks as they are: the work of a run
        whose counted sample is ``1/factor`` of its instances (:mod:`helmlite.planning.sampling`)."""
        return Work(**{f.name: getattr(self, f.name) if f.name.startswith("peak_") else round(getattr(self, f.name) * factor)
                       for f in fields(self)})

    def _forward(self, rows: int, start: int, width: int, *, over_prefix: bool, projected: int = 1) -> None:
        """Record one forward of ``rows`` rows of ``width`` new positions after ``start`` cached ones. Over a prefix
        (a scoring forward) only one layer at a time holds the rows' concatenation; otherwise every layer keeps
        the new positions' keys and values for the forward's length."""
        if over_prefix:
            self.peak_layer_positions = max(self.peak_layer_positions, rows * (start + width))
        else:
            self.peak_cached_positions = max(self.peak_cached_positions, rows * (start + width))
        self.peak_attention_cells = max(self.peak_attention_cells, rows * width * (start + width))
        self.peak_row_positions = max(self.peak_row_positions, rows * width)
        self.peak_logit_positions = max(self.peak_logit_positions, rows * projected)

    def _packed(self, lengths: list[int], start: int, *, over_prefix: bool, projected: int) -> None:
        """Record one packed forward of rows of ``lengths`` after ``start`` cached positions. Over
        a prefix one layer at a time holds the packed positions' concatenation with the prefix and, while one row's
        attention runs, that row's; otherwise every layer keeps the packed positions' keys and values. Attention
        runs one row at a time."""
        total, longest = sum(lengths), max(lengths)
        if over_prefix:
            self.peak_layer_positions = max(self.peak_layer_positions, start + total + start + longest)
        else:
            self.peak_cached_positions = max(self.peak_cached_positions, total)
        self.peak_attention_cells = max(self.peak_attention_cells, longest * (start + longest))
        self.peak_row_positions = max(self.peak_row_positions, total)
        self.peak_logit_positions = max(self.peak_logit_positions, projected)


class WorkCounter(TransformersModel):
    """The transformers backend with its forward passes replaced by counts (see the module docstring)."""

    def __init__(self, path: str | Path, *, name: str | None = None, batch_size: int = 8, reuse_prefixes: bool = True,
                 min_group_tokens: int = 16, exact_paths: bool = True):
        from transformers import AutoConfig, AutoTokenizer, GenerationConfig

        self.path = Path(path)
        self.tokenizer = AutoTokenizer.from_pretrained(str(path))
        config = AutoConfig.from_pretrained(str(path))
        try:  # as from_pretrained finds it: the model's generation_config.json, else the model config's defaults
            generation_config = GenerationConfig.from_pretrained(str(path))
        except OSError:
            generation_config = GenerationConfig.from_model_config(config)
        self.model = SimpleNamespace(config=config, generation_config=generation_config, dtype=torch.float32)
        self.device = "cpu"
        self.batch_size = batch_size
        self.exact_paths = exact_paths  # False: a run on a GPU or in half precision, where the backend reuses no
        self.reuse_prefixes = reuse_prefixes and exact_paths  # prefix and packs no rows (its plain batched forwards)
        self.min_group_tokens = min_group_tokens
        self.encoded_tokens = 0
        self.name = name or self.path.name
        self._identity = None
        self._prefix_token = self.tokenizer.bos_token_id if self.tokenizer.bos_token_id is not None else self.tokenizer.eos_token_id
        if self.tokenizer.pad_token_id is None:
            self.tokenizer.pad_token = self.tokenizer.eos_token
        self.work = Work()
        self.on_progress = None
        self.release_prefixes()
        self._packs_rows = exact_paths and serves_rows_attention(config)
        self._encodings = Encodings(self.tokenizer)

    def _encode(self, text: str) -> list[int]:
        """The backend's encoding, without tokenizing what was tokenized before (:class:`.encodings.Encodings`)."""
        return self._encodings.ids(text)

    def count_tokens(self, text: str) -> int:
        """The backend's count, a text's trailing whitespace encoded after its stripped part (adaptation counts a
        prompt that scoring then encodes without its trailing space)."""
        stripped = text.rstrip()
        if not stripped or stripped == text:
            return len(self._encode(text))
        return len(self._encode_pair(stripped, text[len(stripped):]))

    def _encode_pair(self, context: str, continuation: str) -> list[int]:
        """A context's ids reused for each of its continuations (:meth:`.encodings.Encodings.pair`): ten candidate
        values after an 8,000-token JSON dictionary tokenize the dictionary once."""
        ids = self._encodings.pair(context, continuation)
        return super()._encode_pair(context, continuation) if ids is None else ids

    def _forward_logprobs(self, rows, prefix=None, alternatives=None):
        start = prefix[0] if prefix else 0
        width = max(len(ids) for ids, _ in rows) - start
        self.work.score_positions += len(rows) * width
        self.work.prefix_row_positions += len(rows) * start  # each row's concatenation of, and attention over, the prefix cache
        self.work.score_forwards += 1
        self.work.encoded_tokens += sum(len(ids) - start for ids, _ in rows)
        keep = read_positions(rows, start)
        self.work.projected_positions += len(rows) * len(keep)  # logits_to_keep applies to every row of the batch
        self.work._forward(len(rows), start, width, over_prefix=prefix is not None, projected=len(keep))
        return self._no_values(rows, alternatives)

    def _forward_packed(self, rows, prefix, alternatives):
        start = prefix[0] if prefix else 0
        lengths, _, keep = packing(rows, start)
        self.work.score_positions += sum(lengths)
        self.work.prefix_row_positions += len(lengths) * start  # each packed row (a filler too) attends over the prefix
        self.work.score_forwards += 1
        self.work.encoded_tokens += sum(len(ids) - 1 - start for ids, _ in rows)
        self.work.projected_positions += len(keep)
        self.work._packed(lengths, start, over_prefix=prefix is not None, projected=len(keep))
        return self._no_values(rows, alternatives)

    @staticmethod
    def _no_values(rows, alternatives):
        """Placeholders in the shapes a forward's values have (the counter computes none)."""
        return [torch.zeros(1) if tokens is NEXT_TOKEN else [0.0] * len(tokens) if tokens is not None else [0.0] * (len(ids) - n)
                for (ids, n), tokens in zip(rows, alternatives or [None] * len(rows))]

    def _hold_beside_kept_levels(self, positions: int) -> None:
        """Record a cache of ``positions`` held in every layer while the prefix LRU holds its levels."""
        kept = sum(len(tokens) for _, tokens in self._prefix_lru)
        self.work.peak_cached_positions = max(self.work.peak_cached_positions, kept + positions)

    def _extend_prefix(self, prefix, ids, length):
        start = prefix[0] if prefix else 0
        self.work.score_positions += length - start
        self.work.score_forwards += 1
        self.work.projected_positions += 1  # logits_to_keep=1
        self.work.encoded_tokens += length - start
        self.work._forward(1, start, length - start, over_prefix=False)
        self._hold_beside_kept_levels(length)
        return length, None

    def _generate_one(self, request, ids, prefix):
        start = prefix[0] if prefix else 0
        self.work.prefill_positions += len(ids) - start
        self.work.decode_steps += request.max_tokens
        self.work.generate_calls += 1
        self.work.encoded_tokens += len(ids) - start
        self.work._forward(1, start, len(ids) - start + request.max_tokens, over_prefix=False)
        self._hold_beside_kept_levels(len(ids) + request.max_tokens)
        return Generation("", len(ids), request.max_tokens, (0.0,) * request.max_tokens, 0.0)

    def count(self, requests: Sequence, chunk_size: int) -> Work:
        """The work of ``requests`` (generation and scoring requests of one run, in the runner's order), sent
        in the request cache's chunks."""
        before, self.work = self.work, Work()
        generations = [r for r in requests if isinstance(r, GenerationRequest)]
        scores = [r for r in requests if isinstance(r, ScoreRequest)]
        for batch, call in ((generations, self.generate), (scores, self.score)):
            for start in range(0, len(batch), chunk_size):
                call(batch[start:start + chunk_size])
        self.release_prefixes()  # as the runner does when a run's requests are answered
        counted, self.work = self.work, before
        counted.requests = len(requests)
        return counted
