"""Local causal LMs through Hugging Face ``transformers``: the embedded models and any HF model directory; fp32 on
the CPU by default (other devices and dtypes: :mod:`helmlite.models.devices`).
Scoring follows lm-evaluation-harness's ``loglikelihood`` (:mod:`helmlite.models.pair_encoding`): trailing spaces of
the context move to the continuation, the pair is encoded whole and the continuation's tokens are those after the
context's encoding. Only the continuation positions are projected to the vocabulary (``logits_to_keep``), so a
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
prefix and to its own tokens only (:func:`rows_attention`); a model type that attention was not checked on
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

import json
import time
from pathlib import Path
from typing import Sequence

import torch

from ._base import (Generation, GenerationRequest, ModelError, Scores, ScoreRequest, apply_stop, helm_kept_tokens,
                    unloadable)
from ._identity import IDENTITY_FILE, weights_sha256
from .devices import device_record, resolve_device, torch_dtype
from .greedy_settings import greedy_is_argmax
from .packing import ROWS_ATTENTION, merge_one_token_rows, packing, read_positions, rows_attention, serves_rows_attention
from .pair_encoding import PairEncoding
from .prefix_cache import PrefixLevels, fork_cache, pool_key

#: A request's rows go through the model in slices of at most this many, in the request's order — a constant, not
#: the batch size, so how a row is computed depends on its request alone (the rows and padded width of a forward
#: change its floats in the last digits: measured on SmolLM2, fp32).
SCORE_ROWS_PER_FORWARD = 16
#: The ``alternatives`` of a row read for its whole next-token distribution: a one-token greedy generation, a row of
#: its prompt and a placeholder token whose predecessor's distribution is read; a packed forward does not run the
#: placeholder (:meth:`TransformersModel.generate`).
NEXT_TOKEN = object()


def _logprobs(logits: torch.Tensor) -> torch.Tensor:
    """Log-probabilities over the vocabulary, in float32 whatever the weights' dtype: what every scoring and
    generation path (and the planner's timing, :meth:`TransformersModel.vocabulary_logprobs`) reads."""
    return torch.log_softmax(logits.float(), dim=-1)


class TransformersModel(PairEncoding, PrefixLevels):
    """A ``LanguageModel`` over a local model directory (or hub id, where the hub is reachable)."""

    code_version = 5  # raise when a change alters the answer to the same request (helmlite.models.cache)

    def __init__(self, path: str | Path, *, name: str | None = None, threads: int = 1, batch_size: int = 8,
                 dtype: str | torch.dtype = "float32", device: str = "cpu", reuse_prefixes: bool = True,
                 min_group_tokens: int = 16):
        """``device``, ``dtype``: :mod:`helmlite.models.devices` (or a ``torch.dtype``). Packing and prefix reuse are
        proven exact in fp32/fp64 on the CPU only; elsewhere every request runs in a plain padded batch."""
        from transformers import AutoModelForCausalLM, AutoTokenizer

        self.path = Path(path)
        self.device = resolve_device(device)
        weights_dtype = torch_dtype(dtype) if isinstance(dtype, str) else dtype
        torch.set_num_threads(threads)
        try:
            self.tokenizer = AutoTokenizer.from_pretrained(str(path))
            self.model = AutoModelForCausalLM.from_pretrained(str(path), dtype=weights_dtype).to(self.device).eval()
        except Exception as error:  # noqa: BLE001 — a folder can pass model_dir_problem and still not load (a cut *.bin)
            raise unloadable(path, error) from None
        self.exact_paths = self.device == "cpu" and weights_dtype in (torch.float32, torch.float64)
        self.batch_size = batch_size
        self.reuse_prefixes = reuse_prefixes and self.exact_paths  # False: every prompt whole (the plain path tests use)
        self.min_group_tokens = min_group_tokens  # nested scoring groups (one query's candidates) share at least this many
        self.encoded_tokens = 0  # tokens actually run through the model (prefix reuse makes this smaller)
        self.on_progress = None  # called with the share of the current call done, after every forward batch
        self.name = name or self.path.name
        self._identity = None
        self.release_prefixes()
        self._prefix_token = self.tokenizer.bos_token_id if self.tokenizer.bos_token_id is not None else self.tokenizer.eos_token_id
        if self.tokenizer.pad_token_id is None:
            self.tokenizer.pad_token = self.tokenizer.eos_token
        self._packs_rows = self.exact_paths and serves_rows_attention(self.model.config)
        if self._packs_rows:
            from transformers import AttentionInterface
            AttentionInterface.register(ROWS_ATTENTION, rows_attention)

    def _start_progress(self, total: int) -> None:
        self._progress_total, self._progress_done = max(total, 1), 0

    def _advance(self, units: int) -> None:
        """Report progress within a ``score``/``generate`` call (:mod:`helmlite.models.progress`)."""
        self._progress_done += units
        if self.on_progress is not None:
            self.on_progress(min(1.0, self._progress_done / self._progress_total))

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
    def hardware(self) -> dict:
        """Where the model runs, for the manifest (not part of the identity: see :mod:`helmlite.models.devices`)."""
        return device_record(self.device, str(self.model.dtype).removeprefix("torch."))

    @property
    def max_context(self) -> int:
        config = self.model.config
        value = getattr(config, "max_position_embeddings", None) or getattr(getattr(config, "text_config", None), "max_position_embeddings", None)
        return int(value or 2048)

    @torch.no_grad()
    def vocabulary_logprobs(self, hidden: torch.Tensor) -> torch.Tensor:
        """What scoring does to each position it reads after the layers: the output embedding, then the log-softmax
        over the vocabulary in float32. ``hidden``: (rows, positions, hidden size) in the model's dtype. The planner
        times it on its own (:func:`helmlite.planning.rates.calibrate`: a large vocabulary's projection is a cost of
        its own)."""
        return _logprobs(self.model.get_output_embeddings()(hidden))

    @property
    def hidden_size(self) -> int:
        """The width of the hidden states the output embedding reads."""
        return self.model.get_output_embeddings().in_features

    @property
    def dtype(self) -> torch.dtype:
        """The precision the weights run in."""
        return self.model.dtype

    @property
    def config(self):
        """The transformers model config (layer and head counts, widths, vocabulary: what a forward's memory depends
        on, :func:`helmlite.planning.memory.model_shape`)."""
        return self.model.config

    def apply_chat_template(self, user_message: str) -> str:
        if not self.tokenizer.chat_template:
            raise ModelError(f"{self.name} has no chat template (a base model); use plain prompts")
        return self.tokenizer.apply_chat_template([{"role": "user", "content": user_message}], tokenize=False,
                                                  add_generation_prompt=True)

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
        keep = read_positions(rows, start)
        pad = self.tokenizer.pad_token_id
        input_ids = torch.tensor([ids[start:] + [pad] * (width - len(ids) + start) for ids, _ in rows], device=self.device)
        mask = torch.tensor([[1] * len(ids) + [0] * (width - len(ids) + start) for ids, _ in rows], device=self.device)
        extra = {}
        if cache is not None:
            batch_cache = fork_cache(cache, len(rows), keep_new=False)
            positions = torch.arange(start, start + width, device=self.device).unsqueeze(0).expand(len(rows), -1)
            extra = {"cache": batch_cache, "position_ids": positions}
        self.encoded_tokens += sum(len(ids) - start for ids, _ in rows)
        logits = self.model(input_ids=input_ids, attention_mask=mask, logits_to_keep=torch.tensor(keep, device=self.device),
                            **extra).logits
        return self._read_logprobs(_logprobs(logits), keep, rows, alternatives,
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
        padding (:func:`packing`), each row attending to the prefix and to itself only (:func:`rows_attention`):
        a row's values do not depend on the rows packed with it (tested bit for bit, one thread)."""
        start, cache = prefix if prefix else (0, None)
        lengths, offsets, keep = packing(rows, start)
        tokens = [t for ids, _ in rows for t in ids[start:-1]]
        tokens += [self.tokenizer.pad_token_id] * (sum(lengths) - len(tokens))
        positions = [start + k for length in lengths for k in range(length)]
        extra = {}
        if cache is not None:
            fork = fork_cache(cache, keep_new=False, new_only=True)
            extra = {"cache": fork, "packed_prefix": fork}
        self.encoded_tokens += sum(len(ids) - 1 - start for ids, _ in rows)
        config = self.model.config
        implementation, config._attn_implementation = config._attn_implementation, ROWS_ATTENTION
        try:
            logits = self.model(input_ids=torch.tensor([tokens], device=self.device),
                                position_ids=torch.tensor([positions], device=self.device),
                                logits_to_keep=torch.tensor(keep, device=self.device), packed_rows=tuple(lengths), **extra).logits
        finally:
            config._attn_implementation = implementation
        return self._read_logprobs(_logprobs(logits), keep, rows, alternatives,
                                   [(0, offset - start) for offset in offsets])

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
        :func:`rows_attention` does not serve (not in :data:`PACKED_MODEL_TYPES`), each row in a forward of its own."""
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
            unique, alternatives, where = merge_one_token_rows(rows)
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
                pooled.setdefault(pool_key(levels, unique[0][0]), []).append(i)
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
            extra = {"cache": fork_cache(cache)}
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
        steps = _logprobs(torch.stack([s[0] for s in out.logits]))  # (steps, vocab)
        return self._decode(request, out.sequences[0, len(ids):].tolist(), steps, len(ids), latency)

    @property
    def _greedy_is_argmax(self) -> bool:
        """Whether one-token greedy requests may take the packed forwards (:func:`greedy_is_argmax`)."""
        return greedy_is_argmax(self.model.generation_config)

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
                pooled.setdefault(pool_key(levels, ids), []).append((i, ids, levels))
                continue
            results[i] = self._generate_one(request, ids, self._prefix_cache(ids, levels))
            self._advance(1)
        for members in pooled.values():
            answers = self._generate_pooled([requests[i] for i, _, _ in members], [ids for _, ids, _ in members], members[0][2])
            for (i, _, _), answer in zip(members, answers):
                results[i] = answer
        return results
