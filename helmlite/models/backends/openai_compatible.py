"""OpenAI-compatible HTTP backend (vLLM, llama.cpp server, any ``/v1/completions`` server).

* scoring: ``/v1/completions`` with ``echo=true, logprobs=1``: the server returns the prompt's tokens
  with their log-probabilities and text offsets; the continuation's tokens are those whose offset lies
  at or after the end of the context (trailing spaces moved onto the continuation, as lm-eval does);
* generation: ``/v1/completions`` (raw prompts, what HELM's adaptation produces) or, with
  ``chat=True``, ``/v1/chat/completions`` with the prompt as one user message. The completion keeps the tokens
  crfm-helm's completions client keeps (``OpenAIClient._make_completion_request``, v0.5.16, the client behind its
  ``VLLMClient``): a null token log-probability counts as 0, and ``truncate_sequence`` cuts the text at each stop
  sequence in turn and at ``<|endoftext|>`` (:func:`~._base.apply_stop`) and keeps the tokens before the first whose text starts with one — their
  log-probabilities sum to the completion's, HELM's ``max_prob`` = exp(it), 1 when none is kept. A server that
  sends more than ``max_tokens`` kept tokens is cut to the first ``max_tokens`` of them, the text rejoined from their
  pieces (``truncate_sequence``'s last step). Two departures: a response whose text is not empty but lists no token
  has no confidence here (HELM's sum over no token gives 1); and chat completions: crfm-helm's OpenAI/vLLM chat
  client asks for no log-probabilities and lists no token, so its ``max_prob`` is 1 for every chat completion and
  neither its token rule nor its ``max_tokens`` cut ever applies there, while helmlite asks for them and applies
  both, as for completions.

Settings come from the environment: ``HELMLITE_OPENAI_BASE_URL`` (e.g. ``http://127.0.0.1:8000/v1``),
``HELMLITE_OPENAI_API_KEY`` (optional), ``HELMLITE_OPENAI_TOKENIZER`` (optional local tokenizer directory
for exact lengths; otherwise lengths are estimated at 3 characters per token, conservatively).

Failures are retried by :mod:`tenacity`: HTTP 429 and 5xx, timeouts, dropped connections, malformed JSON
and log-probability lists of the wrong length. The wait before a retry is the server's ``Retry-After``
when it sends one — seconds (``Retry-After: 30``) or an HTTP date (``Retry-After: Wed, 21 Oct 2026
07:28:00 GMT``), RFC 9110 §10.2.3 — up to ``max_retry_after_s`` (default 60 s;
``HELMLITE_OPENAI_MAX_RETRY_AFTER_S``), else exponential backoff (``backoff_s`` doubling up to
``max_backoff_s``) with seeded jitter. After ``max_retries`` retries the request fails with one error
naming it; nothing partial is returned (and so nothing partial is cached).
"""
from __future__ import annotations

import email.utils
import hashlib
import math
import os
import random
import time
from datetime import datetime, timezone
from typing import Sequence

import requests
from tenacity import RetryError, Retrying, retry_if_exception_type, stop_after_attempt

from .._base import (Generation, GenerationRequest, ModelError, Scores, ScoreRequest, apply_stop, helm_kept_tokens,
                    split_context)
from .registry import backend
from ..devices import DEFAULT_DTYPE


class _Retry(Exception):
    """A failure worth retrying (with an optional server-requested delay)."""

    def __init__(self, reason: str, delay: float | None = None):
        super().__init__(reason)
        self.delay = delay


def retry_after_seconds(value: str | None, now: datetime | None = None) -> float | None:
    """Seconds a ``Retry-After`` header asks to wait: a non-negative number of seconds or an HTTP date
    (RFC 9110 §10.2.3; a date in the past means 0). None when absent or unreadable."""
    if value is None or not value.strip():
        return None
    text = value.strip()
    try:
        seconds = float(text)
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(text)
        except (TypeError, ValueError, IndexError):
            return None
        if when.tzinfo is None:  # HTTP dates are GMT
            when = when.replace(tzinfo=timezone.utc)
        return max(0.0, (when - (now or datetime.now(timezone.utc))).total_seconds())
    return seconds if math.isfinite(seconds) and seconds >= 0 else None


#: Mean log-probability per token of the last cycle of a six-times repeated phrase below which a server's echo is
#: taken as misaligned (aligned, SmolLM2-135M: −0.34; llama-cpp-python 0.3.36 on the same weights: −3.2). See OpenAIModel._check_echo_alignment.
ECHO_ALIGNMENT_FLOOR = -2.0
#: The end-of-text token crfm-helm's completions client adds to a request's stop sequences when it keeps tokens
#: (``OpenAIClient.END_OF_TEXT``: the server may send tokens past it).
END_OF_TEXT = "<|endoftext|>"


def server_tokens(logprobs: dict | None) -> tuple[list[str], list[float]] | None:
    """The generated tokens' texts and log-probabilities as an OpenAI-compatible server reports them — the
    completions API's ``tokens``/``token_logprobs`` (a null log-probability read as 0, as crfm-helm's client reads
    it) or the chat API's ``content`` list of ``{token, logprob}`` — or None when the response has neither (the
    request's ``validate`` has checked their shape: :func:`logprobs_problem`)."""
    logprobs = logprobs or {}
    if isinstance(logprobs.get("tokens"), list) and isinstance(logprobs.get("token_logprobs"), list):
        pairs = list(zip(logprobs["tokens"], logprobs["token_logprobs"]))
    elif isinstance(logprobs.get("content"), list):
        pairs = [(entry.get("token") or "", entry.get("logprob")) for entry in logprobs["content"]]
    else:
        return None
    return [str(token) for token, _ in pairs], [float(value or 0.0) for _, value in pairs]


def logprobs_problem(logprobs) -> str | None:
    """What is wrong with a generation's ``logprobs`` (None when nothing is): token and log-probability lists of
    different lengths, or a chat ``content`` entry that is not a ``{token, logprob}`` object."""
    if not isinstance(logprobs, dict):
        return None if logprobs is None else "logprobs is not an object"
    tokens, values = logprobs.get("tokens"), logprobs.get("token_logprobs")
    if isinstance(tokens, list) and isinstance(values, list) and len(tokens) != len(values):
        return f"logprobs of the wrong length ({len(tokens)} tokens, {len(values)} logprobs)"
    content = logprobs.get("content")
    if isinstance(content, list) and not all(isinstance(entry, dict) and isinstance(entry.get("logprob", 0.0), (int, float, type(None)))
                                             for entry in content):
        return "logprobs.content entries are not {token, logprob} objects"
    return None


class OpenAIModel:
    code_version = 3  # raise when a change alters the answer to the same request (helmlite.models.cache)

    def __init__(self, base_url: str, model: str, *, api_key: str | None = None, tokenizer: str | None = None,
                 chat: bool = False, timeout_s: float = 60.0, max_retries: int = 5, backoff_s: float = 0.5,
                 max_backoff_s: float = 8.0, max_retry_after_s: float = 60.0, max_context: int = 8192):
        self.base_url = base_url.rstrip("/")
        self.model = model
        self.chat = chat
        self.timeout_s = timeout_s
        self.max_retries = max_retries
        self.backoff_s = backoff_s
        self.max_backoff_s = max_backoff_s
        self.max_retry_after_s = max_retry_after_s
        self._max_context = max_context
        self._session = requests.Session()
        if api_key:
            self._session.headers["Authorization"] = f"Bearer {api_key}"
        self._tokenizer = None
        if tokenizer:
            from transformers import AutoTokenizer

            self._tokenizer = AutoTokenizer.from_pretrained(tokenizer)
        self._echo_checked = False
        self._jitter = random.Random(0)
        self._sleep = time.sleep  # tests replace it to record the waits

    @classmethod
    def from_env(cls, model: str) -> "OpenAIModel":
        base_url = os.environ.get("HELMLITE_OPENAI_BASE_URL")
        if not base_url:
            raise ModelError(f"openai:{model}: set HELMLITE_OPENAI_BASE_URL (e.g. http://127.0.0.1:8000/v1) to the server")
        cap = os.environ.get("HELMLITE_OPENAI_MAX_RETRY_AFTER_S")
        try:
            max_retry_after_s = 60.0 if cap is None else float(cap)
        except ValueError:
            max_retry_after_s = -1.0
        if not (math.isfinite(max_retry_after_s) and max_retry_after_s >= 0):
            raise ModelError(f"HELMLITE_OPENAI_MAX_RETRY_AFTER_S={cap!r}: expected a non-negative number of seconds")
        return cls(base_url, model, api_key=os.environ.get("HELMLITE_OPENAI_API_KEY"),
                   tokenizer=os.environ.get("HELMLITE_OPENAI_TOKENIZER"),
                   chat=os.environ.get("HELMLITE_OPENAI_CHAT") == "1", max_retry_after_s=max_retry_after_s)

    @property
    def identity(self) -> dict:
        return {"backend": "openai", "base_url": self.base_url, "model": self.model, "chat": self.chat}

    @property
    def max_context(self) -> int:
        return self._max_context

    def count_tokens(self, text: str) -> int:
        if self._tokenizer is not None:
            return len(self._tokenizer(text)["input_ids"])
        return len(text) // 3 + 1

    def truncate_left(self, text: str, max_tokens: int) -> str:
        if self._tokenizer is not None:
            ids = self._tokenizer(text, add_special_tokens=False)["input_ids"]
            return text if len(ids) <= max_tokens else self._tokenizer.decode(ids[len(ids) - max_tokens:])
        return text[-3 * max_tokens:]

    def apply_chat_template(self, user_message: str) -> str:
        raise ModelError(f"openai:{self.model}: chat formatting happens on the server; set HELMLITE_OPENAI_CHAT=1")

    # --- HTTP with retries ------------------------------------------------------------------------------
    def _wait(self, state) -> float:
        """Seconds before the next attempt: the server's ``Retry-After`` up to ``max_retry_after_s``, else
        exponential backoff (``backoff_s · 2^(attempt-1)`` up to ``max_backoff_s``) times a seeded jitter in [0.5, 1]."""
        error = state.outcome.exception() if state.outcome is not None else None
        if isinstance(error, _Retry) and error.delay is not None:
            return min(error.delay, self.max_retry_after_s)
        backoff = min(self.max_backoff_s, self.backoff_s * 2 ** (state.attempt_number - 1))
        return backoff * (0.5 + self._jitter.random() / 2)

    def _attempt(self, path: str, payload: dict, validate, what: str) -> dict:
        try:
            response = self._session.post(f"{self.base_url}{path}", json=payload, timeout=self.timeout_s)
        except (requests.ConnectionError, requests.Timeout) as error:
            raise _Retry(f"{type(error).__name__}") from None
        if response.status_code == 429 or response.status_code >= 500:
            after = response.headers.get("Retry-After")
            raise _Retry(f"HTTP {response.status_code}" + (f" (Retry-After: {after})" if after else ""),
                         retry_after_seconds(after))
        if response.status_code >= 400:
            raise ModelError(f"{what} was refused: HTTP {response.status_code}: {response.text[:200]}")
        try:
            body = response.json()
        except ValueError:
            raise _Retry("malformed JSON") from None
        problem = validate(body)
        if problem:
            raise _Retry(problem)
        return body

    def _post(self, path: str, payload: dict, validate) -> dict:
        digest = hashlib.sha256(repr(sorted(payload.items())).encode()).hexdigest()[:12]
        what = f"POST {self.base_url}{path} (model {self.model}, request {digest})"
        retrying = Retrying(stop=stop_after_attempt(self.max_retries + 1), wait=self._wait,
                            retry=retry_if_exception_type(_Retry), sleep=lambda seconds: self._sleep(seconds))
        try:
            return retrying(self._attempt, path, payload, validate, what)
        except RetryError as error:
            last = error.last_attempt.exception()
            raise ModelError(f"{what} failed after {self.max_retries + 1} attempts; last error: {last}") from None

    # --- operations ---------------------------------------------------------------------------------------
    def _score_one(self, context: str, continuation: str) -> tuple[tuple[float, ...], int]:
        context, continuation = split_context(context, continuation)
        text = context + continuation

        def validate(body):
            try:
                lp = body["choices"][0]["logprobs"]
                tokens, values, offsets = lp["tokens"], lp["token_logprobs"], lp["text_offset"]
            except (KeyError, IndexError, TypeError):
                return "response without choices[0].logprobs tokens/token_logprobs/text_offset"
            if not (len(tokens) == len(values) == len(offsets)):
                return f"logprobs of the wrong length ({len(tokens)} tokens, {len(values)} logprobs, {len(offsets)} offsets)"
            if not any(len(context) <= o < len(text) for o in offsets):
                return "echoed tokens do not cover the continuation"
            return None

        body = self._post("/completions", {"model": self.model, "prompt": text, "max_tokens": 1, "echo": True,
                                           "logprobs": 1, "temperature": 0.0}, validate)
        lp = body["choices"][0]["logprobs"]
        picked = [v for v, o in zip(lp["token_logprobs"], lp["text_offset"]) if len(context) <= o < len(text)]
        n_prompt = sum(1 for o in lp["text_offset"] if o < len(context))
        return tuple(float(v) for v in picked), n_prompt

    def _check_echo_alignment(self) -> None:
        """Once per model, before the first scoring request: are the server's echoed log-probabilities those of
        each token given the tokens *before* it? A text that repeats one cycle of words is near-certain after
        its first cycles, so an aligned server gives its last cycle log-probabilities near 0 (the stub server
        −0.5; SmolLM2-135M through transformers −0.34 per token, measured 2026-12-01). llama-cpp-python's server
        (0.3.36, with or without ``--logits_all``) reports for each echoed token its log-probability under the
        distribution that predicts the *next* token (its ``top_logprobs`` show it: after " capital" the top entry
        is " of"; upstream issue abetlen/llama-cpp-python#1983, open), so the last cycle scores far below (measured on the same weights: −3.2 per token). Then every log-probability score would be
        wrong: refuse with one error instead of returning them."""
        if self._echo_checked:
            return
        cycle = " one two three four five"
        text = cycle * 6
        body = self._post("/completions", {"model": self.model, "prompt": text, "max_tokens": 1, "echo": True,
                                           "logprobs": 1, "temperature": 0.0}, lambda body: None)
        lp = (body.get("choices") or [{}])[0].get("logprobs") or {}
        last = [v for v, o in zip(lp.get("token_logprobs") or [], lp.get("text_offset") or [])
                if v is not None and len(text) - len(cycle) <= o < len(text)]
        if last and sum(last) / len(last) < ECHO_ALIGNMENT_FLOOR:
            raise ModelError(f"{self.base_url}: the server's echoed log-probabilities are not those of each token given "
                             f"the ones before it (a repeated phrase scores {sum(last) / len(last):.1f} per token, expected "
                             "near 0; llama-cpp-python's server takes each token's value from the next token's "
                             "distribution): log-probability scoring through it would be wrong — use generation "
                             "(method: generation) or a server whose echo is aligned (vLLM)")
        self._echo_checked = True

    def score(self, requests_: Sequence[ScoreRequest]) -> list[Scores]:
        if requests_:
            self._check_echo_alignment()
        out = []
        for request in requests_:
            started = time.perf_counter()
            per = [self._score_one(request.prompt, c) for c in request.continuations]
            out.append(Scores(tuple(sum(v) for v, _ in per), tuple(v for v, _ in per), tuple(len(v) for v, _ in per),
                              per[0][1] if per else 0, time.perf_counter() - started))
        return out

    def _generate_one(self, request: GenerationRequest) -> Generation:
        params = {"model": self.model, "max_tokens": request.max_tokens, "temperature": request.temperature,
                  "seed": request.seed, **({"logprobs": True, "top_logprobs": 1} if self.chat else {"logprobs": 1})}
        if request.stop:
            params["stop"] = list(request.stop)

        def validate(body):
            try:
                choice = body["choices"][0]
                text = choice["message"]["content"] if self.chat else choice["text"]
            except (KeyError, IndexError, TypeError):
                return "response without choices[0] text"
            if not isinstance(text, str):
                return "response text is not a string"
            return logprobs_problem(choice.get("logprobs"))

        started = time.perf_counter()
        if self.chat:
            body = self._post("/chat/completions", {**params, "messages": [{"role": "user", "content": request.prompt}]}, validate)
            choice = body["choices"][0]
            text, stops = choice["message"]["content"], request.stop
        else:
            body = self._post("/completions", {**params, "prompt": request.prompt}, validate)
            choice = body["choices"][0]
            text, stops = choice["text"], (*request.stop, END_OF_TEXT)
        latency = time.perf_counter() - started
        usage = body.get("usage") or {}
        prompt_tokens = int(usage.get("prompt_tokens", self.count_tokens(request.prompt)))
        text, tokens = apply_stop(text, stops), server_tokens(choice.get("logprobs"))
        if tokens is None or (text and not tokens[0]):  # no log-probabilities for the text the server sent
            return Generation(text, prompt_tokens, int(usage.get("completion_tokens", 0)), None, latency)
        kept = helm_kept_tokens(tokens[0], stops)
        if kept > request.max_tokens:  # a server that sent more tokens than asked: truncate_sequence's last cut
            kept, text = request.max_tokens, "".join(tokens[0][:request.max_tokens])
        return Generation(text, prompt_tokens, kept, tuple(tokens[1][:kept]), latency)

    def generate(self, requests_: Sequence[GenerationRequest]) -> list[Generation]:
        return [self._generate_one(r) for r in requests_]


@backend("openai:")
def load(model: str, *, dtype: str = DEFAULT_DTYPE, **placement) -> OpenAIModel:
    """``openai:<model>``: the server named by ``$HELMLITE_OPENAI_BASE_URL`` (:meth:`OpenAIModel.from_env`); the server
    keeps its own precision and device, so a dtype other than the default is refused and the placement ignored."""
    if dtype != DEFAULT_DTYPE:
        raise ModelError(f"dtype {dtype!r}: a server model (openai:{model}) runs in the server's own precision; set it there")
    return OpenAIModel.from_env(model)
