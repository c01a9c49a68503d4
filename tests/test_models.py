"""Model backends and the request cache: identity-keyed cache, resume without repeats, OpenAI stub, HF stand-in."""
from __future__ import annotations

import math
from dataclasses import replace

import pytest

from helmlite.models import GenerationRequest, ModelError, ScoreRequest, apply_stop, load_model
from helmlite.models.cache import CachedModel, RequestCache, request_key
from helmlite.models.backends.openai_compatible import OpenAIModel

from .fakes import WordModel
from .stub_server import stub_server

SCORE = [ScoreRequest(f"Question {k}\nAnswer:", (" yes", " no")) for k in range(10)]


def test_cache_keys_differ_by_model_identity_and_request():
    a, b = WordModel("a").identity, WordModel("b").identity
    request = SCORE[0].key()
    assert request_key(a, request) != request_key(b, request)
    assert request_key(a, request) != request_key(a, SCORE[1].key())
    assert request_key(a, request) == request_key(dict(reversed(list(a.items()))), request)  # canonical JSON


def test_two_models_never_share_entries(tmp_path):
    cache = RequestCache(tmp_path / "c.sqlite")
    first, second = WordModel("first"), WordModel("second")
    CachedModel(first, cache, progress=False).score(SCORE)
    again = CachedModel(second, cache, progress=False)
    again.score(SCORE)
    assert len(second.calls) == len(SCORE) and again.hits == 0
    assert len(cache) == 2 * len(SCORE)


def test_rerun_makes_zero_model_calls_and_returns_identical_results(tmp_path):
    cache = RequestCache(tmp_path / "c.sqlite")
    model = WordModel()
    first = CachedModel(model, cache, chunk_size=4, progress=False).score(SCORE)
    inner = WordModel()
    rerun = CachedModel(inner, RequestCache(tmp_path / "c.sqlite"), chunk_size=4, progress=False)
    assert rerun.score(SCORE) == first
    assert inner.calls == [] and rerun.hits == len(SCORE)


def test_partially_cached_chunks_are_recomputed_whole(tmp_path):
    """A chunk is the unit of work: after an interruption the same chunks are formed again."""
    cache = RequestCache(tmp_path / "c.sqlite")
    CachedModel(WordModel(), cache, chunk_size=4, progress=False).score(SCORE[:4])  # chunk 1 finished before a "crash"
    inner = WordModel()
    resumed = CachedModel(inner, cache, chunk_size=4, progress=False)
    resumed.score(SCORE)
    assert resumed.hits == 4 and inner.calls == SCORE[4:]


class NoisyWordModel(WordModel):
    """WordModel whose scores differ in the last digits, as another batch composition would give."""

    def score(self, requests):
        return [replace(s, logprobs=tuple(v + 1e-9 for v in s.logprobs)) for s in super().score(requests)]


def test_a_computed_chunk_returns_what_the_cache_holds(tmp_path):
    """Another job stored some requests first (INSERT OR IGNORE keeps its answer): a computed chunk returns
    those stored answers, so the run equals a later re-run from the cache, byte for byte."""
    cache = RequestCache(tmp_path / "c.sqlite")
    earlier = CachedModel(WordModel(), cache, chunk_size=4, progress=False).score(SCORE[:2])
    mixed = CachedModel(NoisyWordModel(), cache, chunk_size=4, progress=False).score(SCORE[:4])
    assert mixed[:2] == earlier and mixed[2:] != CachedModel(WordModel(), RequestCache(tmp_path / "d.sqlite"),
                                                             chunk_size=4, progress=False).score(SCORE[:4])[2:]
    rerun = CachedModel(WordModel(), RequestCache(tmp_path / "c.sqlite"), chunk_size=4, progress=False).score(SCORE[:4])
    assert rerun == mixed


def test_corrupted_cache_is_moved_aside_and_rebuilt(tmp_path, capsys):
    path = tmp_path / "c.sqlite"
    cache = RequestCache(path)
    CachedModel(WordModel(), cache, progress=False).score(SCORE)
    cache.close()
    path.write_bytes(path.read_bytes()[:1000])  # truncated database file
    rebuilt = RequestCache(path)
    assert len(rebuilt) == 0 and (tmp_path / "c.sqlite.corrupt").exists()
    assert "was corrupted" in capsys.readouterr().out


def test_apply_stop():
    assert apply_stop(" Paris\nQuestion", ("\n",)) == " Paris"
    assert apply_stop("abc", ()) == "abc"
    # overlapping stops are applied in turn: crfm-helm 0.5.16's truncate_sequence on text "abc" with stop sequences
    # ["b", "ab"] returned "a" (run 2026-12-04); cutting at the earliest match of any would give ""
    assert apply_stop("abc", ("b", "ab")) == "a" and apply_stop("abc", ("ab", "b")) == ""
    assert apply_stop("a. b\n", ("\n", ".")) == "a"


#: Generated tokens (each token's own text, log-probabilities −0.1, −0.2, …) and stop sequences, and what crfm-helm
#: 0.5.16's ``clients/client.py`` ``truncate_sequence`` returns for them — (text, tokens kept, log-probability) — run
#: 2026-12-04 on its own source with its unrelated imports (colorlog, pyhocon, sqlitedict, retrying) stubbed.
HELM_TRUNCATIONS = [
    (["A", "\n", "B"], ("\n",), ("A", 1, -0.1)),
    (["\n"], ("\n",), ("", 0, 0.0)),  # a greedy newline: nothing kept, so HELM's max_prob is exp(0) = 1
    (["\n\n", "x"], ("\n",), ("", 0, 0.0)),
    ([" A\n", "B"], ("\n",), (" A", 2, -0.3)),  # the stop inside a token: text cut, tokens kept
    (["A", "B"], (), ("AB", 2, -0.3)),
    (["A", "##", "B"], ("\n", "##"), ("A", 1, -0.1)),
    (["A", "B", "\n"], ("B\n", "\n"), ("A", 2, -0.3)),
]


@pytest.mark.parametrize("pieces, stop, expected", HELM_TRUNCATIONS)
def test_generations_keep_the_tokens_crfm_helm_keeps(pieces, stop, expected):
    from helmlite.models._base import helm_kept_tokens

    kept = helm_kept_tokens(pieces, stop)
    assert (apply_stop("".join(pieces), stop), kept, round(sum(-0.1 * (t + 1) for t in range(kept)), 6)) == expected


def test_the_transformers_backend_decodes_as_crfm_helm_truncates(tiny_model_dir):
    """The backend's decoding of generated tokens: the text cut at the stop sequence, the tokens (count and
    log-probabilities) before the first token that starts with one — here a newline token, then end of text."""
    import torch

    model = load_model(str(tiny_model_dir))
    new = model.tokenizer(" cat\n dog", add_special_tokens=False)["input_ids"]
    pieces = [model.tokenizer.decode([t]) for t in new]
    newline = next(t for t, piece in enumerate(pieces) if piece.startswith("\n"))
    assert 0 < newline < len(new) - 1
    steps = torch.log_softmax(torch.randn(len(new) + 1, model.model.config.vocab_size, generator=torch.Generator().manual_seed(0)), -1)
    request = GenerationRequest("x", max_tokens=len(new) + 1, stop=("\n",))
    out = model._decode(request, [*new, model.tokenizer.eos_token_id], steps, 1, 0.0)
    assert out.text == " cat" and out.output_tokens == newline
    assert out.token_logprobs == tuple(float(steps[t, new[t]]) for t in range(newline))
    alone = model._decode(GenerationRequest("x", 1, ("\n",)), new[newline:newline + 1], steps, 1, 0.0)  # a greedy newline
    assert (alone.text, alone.output_tokens, alone.token_logprobs) == ("", 0, ())


def test_openai_backend_scores_continuations_and_generates(monkeypatch):
    with stub_server() as (url, state):
        model = OpenAIModel(url, "stub-model", backoff_s=0.001)
        scores = model.score([ScoreRequest("The cat sat on the", (" mat", " old mat"))])[0]
        # stub: −0.5 per word token; " mat" is one token, " old mat" two
        assert scores.logprobs == (-0.5, -1.0) and scores.token_counts == (1, 2) and scores.prompt_tokens == 5
        probe, scored = state.requests[0], state.requests[1]  # the echo-alignment probe comes first, once
        assert probe["prompt"] == " one two three four five" * 6 and probe["echo"] is True
        assert scored["echo"] is True and scored["prompt"] == "The cat sat on the mat"
        model.score([ScoreRequest("The cat sat on the", (" mat",))])
        assert len([r for r in state.requests if r.get("prompt") == probe["prompt"]]) == 1
        generation = model.generate([GenerationRequest("Q?", max_tokens=5, stop=("\n",))])[0]
        # the stub sends [" stub", " answer", "\n", "more"] with log-probabilities [-0.2, null, ...]: HELM's client keeps
        # the two tokens before the newline token and reads the null as 0
        assert generation.text == " stub answer" and generation.output_tokens == 2
        assert generation.token_logprobs == (-0.2, 0.0)
        # the stub ignores max_tokens; crfm-helm 0.5.16's truncate_sequence, run on this response with max_tokens=1
        # (2026-12-04), cuts it to its first token and that token's text: " stub", logprob -0.2
        cut = model.generate([GenerationRequest("Q?", max_tokens=1, stop=("\n",))])[0]
        assert (cut.text, cut.output_tokens, cut.token_logprobs) == (" stub", 1, (-0.2,))
        # a newline inside the first token: HELM's stop cut keeps every token (none starts with "\n"), so its max_tokens
        # cut rejoins the first two and the newline comes back — truncate_sequence returned " A\nB", logprob -0.2
        state.script.append("inside")
        rejoined = model.generate([GenerationRequest("Q?", max_tokens=2, stop=("\n",))])[0]
        assert (rejoined.text, rejoined.output_tokens, rejoined.token_logprobs) == (" A\nB", 2, (-0.2, 0.0))
        state.script.append("newline")
        stopped = model.generate([GenerationRequest("Q?", max_tokens=5, stop=("\n",))])[0]
        assert (stopped.text, stopped.output_tokens, stopped.token_logprobs) == ("", 0, ())  # confidence exp(0) = 1
        state.script.append("eot")  # " Paris<|endoftext|>junk": text and tokens end at crfm-helm's end of text
        ended = model.generate([GenerationRequest("Q?", max_tokens=5, stop=("\n",))])[0]
        assert (ended.text, ended.output_tokens, ended.token_logprobs) == (" Paris", 1, (-0.2,))
        state.script.append("untokenized")  # text " Paris" but no token listed: no confidence, the usage's count
        bare = model.generate([GenerationRequest("Q?", max_tokens=5, stop=("\n",))])[0]
        assert (bare.text, bare.output_tokens, bare.token_logprobs) == (" Paris", 1, None)
        chat = OpenAIModel(url, "stub-model", chat=True, backoff_s=0.001)
        answer = chat.generate([GenerationRequest("Hi")])[0]
        assert answer.text == "stub chat answer" and answer.token_logprobs == (-0.1,)
        state.script.append("badchat")  # a content entry that is not an object: retried
        asked = len(state.requests)
        assert chat.generate([GenerationRequest("Hi")])[0].token_logprobs == (-0.1,) and len(state.requests) == asked + 2
        assert state.requests[-1]["messages"] == [{"role": "user", "content": "Hi"}]
    assert model.identity == {"backend": "openai", "base_url": url, "model": "stub-model", "chat": False}


#: A server's ``logprobs`` for a generation and the request's stop sequences, and the (kept tokens' log-probabilities)
#: crfm-helm 0.5.16 takes from it: its completions client (``OpenAIClient._make_completion_request``) reads a null
#: log-probability as 0 and truncates with the stop sequences plus ``<|endoftext|>`` (``truncate_sequence``: the tokens
#: before the first whose text starts with one). The four completions cases were run through crfm-helm's own
#: ``truncate_sequence`` on 2026-12-04 (its unrelated imports stubbed), which returned these log-probabilities. The chat
#: API's ``content`` list is read by the same rule (crfm-helm's chat client asks for no log-probabilities at all).
SERVER_GENERATIONS = [
    ({"tokens": ["A", "B"], "token_logprobs": [-0.5, None]}, (), (-0.5, 0.0)),
    ({"tokens": ["A", "<|endoftext|>", "junk"], "token_logprobs": [-0.5, -0.1, -2.0]}, (), (-0.5,)),
    # no token *starts with* the newline, so every token is kept (HELM warns that it could not strip the tokens)
    ({"tokens": [" A", ".\n", "B"], "token_logprobs": [-0.5, -0.1, -2.0]}, ("\n",), (-0.5, -0.1, -2.0)),
    ({"tokens": ["\n\n", "B"], "token_logprobs": [-0.5, -0.1]}, ("\n",), ()),
    ({"content": [{"token": "A", "logprob": -0.5}, {"token": "\n", "logprob": -0.1}]}, ("\n",), (-0.5,)),
]


@pytest.mark.parametrize("logprobs, stop, expected", SERVER_GENERATIONS)
def test_openai_generations_keep_the_tokens_crfm_helms_client_keeps(logprobs, stop, expected):
    from helmlite.models._base import helm_kept_tokens
    from helmlite.models.backends.openai_compatible import END_OF_TEXT, server_tokens

    pieces, values = server_tokens(logprobs)
    assert tuple(values[:helm_kept_tokens(pieces, (*stop, END_OF_TEXT))]) == expected


def test_openai_generations_without_log_probabilities_have_no_confidence_and_mismatched_lists_are_retried():
    from helmlite.models.backends.openai_compatible import server_tokens

    assert server_tokens(None) is None and server_tokens({"text_offset": [0]}) is None
    with stub_server() as (url, state):
        state.script.append("mismatched")
        model = OpenAIModel(url, "stub-model", backoff_s=0.001)
        assert model.generate([GenerationRequest("Q?", stop=("\n",))])[0].token_logprobs == (-0.2, 0.0)
        assert len(state.requests) == 2  # the first answer had 4 tokens and 3 log-probabilities: asked again
        state.script.append("nologprobs")  # "logprobs": null — the text, the usage's token count, no confidence
        bare = model.generate([GenerationRequest("Q?", stop=("\n",))])[0]
        assert (bare.text, bare.output_tokens, bare.token_logprobs) == (" stub answer", 4, None)


def test_openai_from_env_requires_base_url(monkeypatch):
    monkeypatch.delenv("HELMLITE_OPENAI_BASE_URL", raising=False)
    with pytest.raises(ModelError, match="set HELMLITE_OPENAI_BASE_URL"):
        load_model("openai:some-model")


def test_unknown_model_and_directory_without_weights(tmp_path):
    with pytest.raises(ModelError, match="unknown model 'gpt-9'"):
        load_model("gpt-9")
    (tmp_path / "config.json").write_text('{"model_type": "llama"}')
    (tmp_path / "tokenizer.json").write_text("{}")
    with pytest.raises(ModelError, match="has no weights"):
        load_model(str(tmp_path))


def test_transformers_backend_on_a_local_model_directory(tiny_model_dir):
    model = load_model(str(tiny_model_dir))
    assert model.identity["backend"] == "transformers" and len(model.identity["weights_sha256"]) == 64
    requests = [ScoreRequest("The cat sat on the", (" mat", " mat.")), ScoreRequest("Question: what is two plus two?\nAnswer:", (" four",))]
    batched = model.score(requests)
    single = [model.score([r])[0] for r in requests]
    for b, s in zip(batched, single):
        assert b.token_counts == s.token_counts
        assert all(math.isclose(x, y, abs_tol=1e-4) for x, y in zip(b.logprobs, s.logprobs))
    # the sum of per-token log-probabilities is the continuation's log-probability (chain rule)
    assert batched[0].logprobs[1] == pytest.approx(sum(batched[0].token_logprobs[1]), abs=1e-6)
    out = model.generate([GenerationRequest("The cat", max_tokens=4), GenerationRequest("Paris is in", max_tokens=4)])
    alone = model.generate([GenerationRequest("Paris is in", max_tokens=4)])
    assert out[1].text == alone[0].text and out[0].output_tokens <= 4
    assert len(out[0].token_logprobs) == out[0].output_tokens
    with pytest.raises(ModelError, match="no chat template"):
        model.apply_chat_template("hi")


def test_prefix_reuse_matches_the_plain_forward(tiny_model_dir):
    """Encoding the shared few-shot prefix once — and, one level down, each question once for its three
    answers — gives the same per-token log-probabilities as full forwards of every row, within 1e-5; so do one-row
    requests (a joint prompt's one-token letters) packed together over the prefix."""
    model = load_model(str(tiny_model_dir))
    prefix = "Question: what is two plus two?\nAnswer: four\n\n" * 8
    requests = [ScoreRequest(prefix + f"Question: {k} cats sat on {k} mats in Paris?\nAnswer:", (" four", " mat.", " Paris is"),
                             (len(prefix),)) for k in range(5)]  # the few-shot prefix declared, as the adapter does
    letters = [ScoreRequest(prefix + f"Question: {k} cats sat on {'many ' * k}mats?\nAnswer:", (" cat", " mat", " is", " two"),
                            (len(prefix),)) for k in range(5)]  # one row each, pooled over the prefix
    model.reuse_prefixes = False
    plain = model.score(requests)
    encoded = {0: model.encoded_tokens}
    plain += model.score(letters)
    for min_prefix in (24, 4):  # 24: the few-shot prefix only; 4: each question's tokens are shared too
        model.reuse_prefixes, model.min_group_tokens = True, min_prefix
        model.release_prefixes()
        model.encoded_tokens = 0
        reused = model.score(requests)
        encoded[min_prefix] = model.encoded_tokens
        reused += model.score(letters)
        for a, b in zip(plain, reused):
            assert a.token_counts == b.token_counts
            assert all(math.isclose(x, y, abs_tol=1e-5) for u, v in zip(a.token_logprobs, b.token_logprobs) for x, y in zip(u, v))
    question = len(model.tokenizer("Question: 1 cats sat on 1 mats in Paris?\nAnswer:")["input_ids"])
    assert encoded[24] < encoded[0] / 3
    assert encoded[24] - encoded[4] >= 5 * 2 * (question - 6)  # two of three rows per question skip its tokens


def test_a_run_releases_its_prefixes_once_its_requests_are_answered(tiny_model_dir):
    """The runner releases the backend's kept prefixes once a run's requests are answered, so peak memory holds
    one run's prefix caches, not the last PREFIX_LRU runs'. Within the run the few-shot prefix was encoded once
    (fewer tokens through the model than the three prompts hold)."""
    from helmlite.evaluation.adaptation import Adapted
    from helmlite.evaluation.runner import execute_requests

    model = load_model(str(tiny_model_dir))
    prefix = "Question: what is two plus two?\nAnswer: four\n\n" * 8
    prompts = [prefix + f"Question: {k} cats?\nAnswer:" for k in range(3)]
    adapted = [Adapted(f"id{k}", p, (ScoreRequest(p, (" four", " mat."), (len(prefix),)),), 8, False) for k, p in enumerate(prompts)]
    model.encoded_tokens = 0
    execute_requests(adapted, model)
    assert model.encoded_tokens < sum(len(model.tokenizer(p)["input_ids"]) for p in prompts)
    assert not model._prefix_lru and not model._prefix_ids


def _in_chunks(model, call, requests, chunk, batch, order=None):
    """``call`` (the model's ``score`` or ``generate``) on ``requests`` sent ``chunk`` at a time in ``order``, with
    batch size ``batch`` and an empty prefix cache; the outputs in the requests' own order."""
    model.batch_size, model._prefix_lru = batch, type(model._prefix_lru)()
    order = order or list(range(len(requests)))
    out = {}
    for at in range(0, len(order), chunk):
        part = order[at:at + chunk]
        out.update(zip(part, call([requests[i] for i in part])))
    return [out[i] for i in range(len(requests))]


def test_stored_scores_depend_on_the_request_alone(tiny_model_dir):
    """Issue 24 §4: the same requests scored in chunks of 1, 2, 3 or all, with batch sizes 1, 3 and 8, in reverse
    order, or after another run's requests filled the backend's prefix cache, give bit-identical log-probabilities
    (a row's forward layout and prefix levels come from its own request; the reference is the one-chunk run)."""
    model = load_model(str(tiny_model_dir))
    prefix = "Question: what is two plus two?\nAnswer: four\n\n" * 8
    requests = [ScoreRequest(prefix + f"Question: {k} cats sat on {'a ' * k}mat?\nAnswer:",
                             (" four", " mat.", " Paris is a city", " A")[: 1 + k % 4], (len(prefix),)) for k in range(9)]
    requests += [ScoreRequest(f"Plain {k} text without a prefix", (" yes", " no")) for k in range(3)]

    def scored(chunk, batch, order=None):
        return [o.token_logprobs for o in _in_chunks(model, model.score, requests, chunk, batch, order)]

    reference = scored(len(requests), 8)
    for chunk, batch in ((1, 8), (2, 3), (3, 1), (5, 8)):
        assert scored(chunk, batch) == reference, (chunk, batch)
    assert scored(4, 8, order=list(range(len(requests)))[::-1]) == reference
    model.score([ScoreRequest(prefix + "Question: another run?\nAnswer:", (" x", " y z"), (len(prefix),))])  # warm cache
    out = model.score(requests)
    assert [o.token_logprobs for o in out] == reference


def test_packed_layout_and_row_masks_by_hand():
    """Hand-derived: rows of 10 and 7 tokens over a 4-token prefix, reading their last two and last one positions,
    pack as inputs of 10 − 1 − 4 = 5 and 2 tokens (the last token is read, never run), a filler of 16 − 7 = 9, offsets
    0 and 5; the read positions 3, 4 (row one: token positions 7, 8) and 6 (row two: position 5) are filled up to 16
    with others — here every one of the forward's 16 positions. A row of 2 queries after 3 cached keys sees all of them and itself causally; with a window of
    2 each query sees only keys less than 2 positions back."""
    from helmlite.models.packing import MIN_POSITIONS, packing as _packing, row_mask as _row_mask

    assert MIN_POSITIONS == 16
    rows = [(list(range(10)), 8), (list(range(100, 107)), 6)]
    lengths, offsets, keep = _packing(rows, 4)
    assert (lengths, offsets) == ([5, 2, 9], [0, 5])
    assert keep == list(range(16))  # the 3 read positions and the 13 others of the 16
    assert _row_mask(2, 3, None).tolist() == [[True, True, True, True, False], [True, True, True, True, True]]
    assert _row_mask(2, 3, 2).tolist() == [[False, False, True, True, False], [False, False, False, True, True]]


@pytest.mark.parametrize("name", ["smollm2-135m", "gemma3-270m"])
def test_projections_give_a_row_the_same_floats_from_min_positions_on(name):
    """The packed path's premise, checked on this machine's kernels for every projection shape of the embedded model
    (its config; random weights and inputs, one thread): a row's product is bit-identical in a forward of 16, 17, 64 or
    800 rows — so a packed row's values do not depend on what else its forward holds once it has MIN_POSITIONS."""
    import torch

    from helmlite.models import prepare
    from helmlite.models.packing import MIN_POSITIONS
    from helmlite.planning.memory import model_shape
    from transformers import AutoConfig

    shape = model_shape(AutoConfig.from_pretrained(str(prepare(name))))
    hidden, heads, kv, head_dim = shape["hidden"], shape["heads"], shape["kv_heads"], shape["head_dim"]
    projections = {(hidden, heads * head_dim), (hidden, kv * head_dim), (heads * head_dim, hidden),
                   (hidden, shape["intermediate"]), (shape["intermediate"], hidden), (hidden, shape["vocab"])}
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        generator = torch.Generator().manual_seed(0)
        for fan_in, fan_out in projections:
            weight = torch.randn(fan_out, fan_in, generator=generator)
            x = torch.randn(800, fan_in, generator=generator)
            full = torch.nn.functional.linear(x, weight)
            for rows in (MIN_POSITIONS, 17, 64):
                assert torch.equal(torch.nn.functional.linear(x[:rows], weight), full[:rows]), (fan_in, fan_out, rows)
    finally:
        torch.set_num_threads(threads)


@pytest.mark.parametrize("packed", [True, False])
def test_pooled_one_row_requests_do_not_depend_on_their_batch_mates(tiny_model_dir, packed):
    """The pooled path's premise: one-row requests over one prefix (twelve questions of different token lengths, one
    continuation each) give bit-identical log-probabilities whether a packed forward holds 1, 2, 3, 5, 8 or 12 of
    them (chunks × batch sizes); a short question gives the same alone (its forward filled up to MIN_POSITIONS by a
    filler row) as packed with the others; the reference is one call with batch size 8. A model
    the packed attention does not serve (``packed=False``) runs each row alone, to the same values within float
    rounding (compared once, from the packed run). Measured the same way on both embedded models (SmolLM2, Gemma 3; fp32, one thread)."""
    model = load_model(str(tiny_model_dir))
    assert model._packs_rows  # a Llama: packed by default
    model._packs_rows = packed
    packs = []
    forward_packed = model._forward_packed
    model._forward_packed = lambda rows, prefix, alternatives: packs.append(len(rows)) or forward_packed(rows, prefix, alternatives)
    prefix = "Question: what is two plus two?\nAnswer: four\n\n" * 8
    requests = [ScoreRequest(prefix + f"Question: {k} cats sat on {'a ' * (k % 7)}mat?\nAnswer:", (" four",), (len(prefix),))
                for k in range(10, 22)]
    assert len({len(model._pair_tokens(r.prompt, " four")[0]) for r in requests}) > 4  # rows of many lengths

    def scored(chunk, batch):
        return [o.token_logprobs for o in _in_chunks(model, model.score, requests, chunk, batch)]

    reference = scored(len(requests), 8)
    for chunk, batch in ((1, 8), (2, 3), (3, 1), (5, 8), (12, 2), (12, 12)):
        assert scored(chunk, batch) == reference, (chunk, batch)
    # chunks × batch sizes pack 8 + 4, 1, 2, 1, 5 + 5 + 2, 2 and 12 rows (none when each row runs alone)
    assert set(packs) == ({1, 2, 4, 5, 8, 12} if packed else set())
    short = ScoreRequest(prefix + "Q:", (" four",), (len(prefix),))
    row = model._pair_tokens(short.prompt, " four")
    assert len(row[0]) - 1 - model._declared_lengths(short, [row])[-1] < 16  # alone, its forward holds a filler row
    assert model.score([short])[0].token_logprobs == model.score(requests + [short])[-1].token_logprobs
    if packed:  # each row alone (the path of a model the packed attention does not serve): the same within rounding
        model._packs_rows = False
        alone = scored(len(requests), 8)
        assert [v for r in alone for t in r for v in t] == pytest.approx([v for r in reference for t in r for v in t], abs=1e-5)


def test_generations_depend_on_the_request_alone(tiny_model_dir):
    """Issue 24 §4, for generation: the same greedy requests generated in chunks of 1, 2 or all, with batch sizes 1
    and 8, in reverse order, or after another request filled the prefix cache, give bit-identical texts and
    log-probabilities (the reference is one call). Longer generations are decoded on their own over their declared
    prefix; one-token ones (every third, and one without a prefix) share pooled forwards, whose composition
    changes with the chunk and batch size."""
    model = load_model(str(tiny_model_dir))
    prefix = "Question: what is two plus two?\nAnswer: four\n\n" * 8
    requests = [GenerationRequest(prefix + f"Question: {k} cats sat on {'a ' * k}mat?\nAnswer:", max_tokens=(1, 1, 4)[k % 3],
                                  prefixes=(len(prefix),)) for k in range(12)]
    requests += [GenerationRequest("Plain text without a prefix", max_tokens=4), GenerationRequest("Plain text, one token", max_tokens=1)]

    def generated(chunk, batch, order=None):
        return [(g.text, g.token_logprobs) for g in _in_chunks(model, model.generate, requests, chunk, batch, order)]

    reference = generated(len(requests), 8)
    assert all(len(logprobs) > 0 for _, logprobs in reference)
    for chunk, batch in ((1, 8), (2, 1), (5, 3)):
        assert generated(chunk, batch) == reference, (chunk, batch)
    assert generated(3, 8, order=list(range(len(requests)))[::-1]) == reference
    model.generate([GenerationRequest(prefix + "Question: another run?\nAnswer:", 2, prefixes=(len(prefix),))])
    assert [(g.text, g.token_logprobs) for g in model.generate(requests)] == reference


def test_one_token_greedy_generations_equal_decoding_each_request_alone(tiny_model_dir):
    """HELM's joint multiple-choice answers (``max_tokens=1``, temperature 0) take pooled forwards; each equals the
    same prompt decoded alone by HF ``generate`` on the whole prompt, without prefix reuse (an independent path): the
    same token and its log-probability within fp32 rounding. A stop sequence still cuts the text."""
    import torch

    model = load_model(str(tiny_model_dir), batch_size=4)
    prefix = "Question: what is two plus two?\nAnswer: four\n\n" * 6
    prompts = [prefix + f"Question: is {k} {'very ' * k}large?\nAnswer:" for k in range(7)]
    out = model.generate([GenerationRequest(p, max_tokens=1, prefixes=(len(prefix),)) for p in prompts])
    for prompt, answer in zip(prompts, out):
        ids = model._encode(prompt)
        whole = model.model.generate(input_ids=torch.tensor([ids]), attention_mask=torch.ones(1, len(ids), dtype=torch.long),
                                     max_new_tokens=1, do_sample=False, output_logits=True, return_dict_in_generate=True,
                                     pad_token_id=model.tokenizer.pad_token_id)
        token = int(whole.sequences[0, -1])
        assert answer.text == model.tokenizer.decode([token], skip_special_tokens=True)
        assert answer.token_logprobs[0] == pytest.approx(float(torch.log_softmax(whole.logits[0][0].float(), -1)[token]), abs=1e-5)
        assert answer.prompt_tokens == len(ids) and answer.output_tokens == 1
    first = out[0].text
    stopped = model.generate([GenerationRequest(prompts[0], max_tokens=1, stop=(first,), prefixes=(len(prefix),))])[0]
    assert first and stopped.text == ""


def test_one_token_greedy_generations_keep_the_models_generation_settings(tiny_model_dir):
    """A model whose generation_config adds a logits processor (here: the plain greedy answer's token suppressed)
    answers one-token greedy requests through HF ``generate``, processors and all: the same token as ``generate`` on
    the whole prompt with that config — not the pooled argmax, which the suppression rules out."""
    import torch

    model = load_model(str(tiny_model_dir))
    prompt = "Question: what is two plus two?\nAnswer:"
    ids = model._encode(prompt)
    plain = model.generate([GenerationRequest(prompt, max_tokens=1)])[0]
    with torch.no_grad():
        distribution = torch.log_softmax(model.model(input_ids=torch.tensor([ids])).logits[0, -1].float(), -1)
    best = int(torch.argmax(distribution))
    assert plain.token_logprobs[0] == pytest.approx(float(distribution[best]), abs=1e-5)
    model.model.generation_config.suppress_tokens = [best]
    assert not model._greedy_is_argmax
    answer = model.generate([GenerationRequest(prompt, max_tokens=1)])[0]
    whole = model.model.generate(input_ids=torch.tensor([ids]), attention_mask=torch.ones(1, len(ids), dtype=torch.long),
                                 max_new_tokens=1, do_sample=False, pad_token_id=model.tokenizer.pad_token_id)
    chosen = int(whole[0, -1])
    assert chosen != best
    assert answer.token_logprobs[0] == pytest.approx(float(distribution[chosen]), abs=1e-5)  # the model's own log-prob


def test_a_pooled_forward_keeps_no_copy_of_the_prefix(tiny_model_dir):
    """A scoring forward's fork of the prefix cache (``keep_new=False``) returns the same concatenations as
    transformers' own ``DynamicLayer.update`` — the logits are bit-identical to a fork that keeps them — but its
    layers still hold only the prefix afterwards (the batch's copy of the prefix is not kept for the whole forward)."""
    import torch

    from helmlite.models.prefix_cache import fork_cache as _fork_cache

    model = load_model(str(tiny_model_dir))
    prefix = "Question: what is two plus two?\nAnswer: four\n\n" * 4
    ids = model._encode(prefix + "Question: and three?\nAnswer: three")
    length, cache = model._extend_prefix(None, ids, len(model._encode(prefix)) - 1)
    suffix = torch.tensor([ids[length:]] * 3)
    positions = torch.arange(length, len(ids)).unsqueeze(0).expand(3, -1)
    logits = {}
    for keep in (True, False):
        fork = _fork_cache(cache, 3, keep_new=keep)
        logits[keep] = model.model(input_ids=suffix, cache=fork, position_ids=positions).logits
        assert fork.get_seq_length() == (len(ids) if keep else length)
    assert torch.equal(logits[True], logits[False])


def test_common_prefix_agrees_with_the_standard_librarys():
    """The prefix levels' token-list common prefix (bisection on slice equality) against ``os.path.commonprefix``
    (an independent implementation) on random lists and strings that share prefixes of every length, empty ones
    included."""
    import os
    import random

    from helmlite._common_prefix import common_prefix

    rng = random.Random(0)
    for _ in range(500):
        shared = [rng.randrange(5) for _ in range(rng.randrange(40))]
        a = shared + [rng.randrange(5) for _ in range(rng.randrange(8))]
        b = shared + [rng.randrange(5) for _ in range(rng.randrange(8))]
        assert common_prefix(a, b) == len(os.path.commonprefix([a, b]))
        text_a, text_b = "".join(map(str, a)), "".join(map(str, b))
        assert common_prefix(text_a, text_b) == len(os.path.commonprefix([text_a, text_b]))


def test_a_forward_over_a_forked_prefix_cache_leaves_the_cache_as_it_was(tiny_model_dir):
    """The prefix cache is forked, not copied (its tensors shared, expanded to the batch as views): after a
    three-row forward and a generation over forks of it, its layers hold the same tensors, values and lengths,
    and scoring over it again gives the first scores bit for bit."""
    import torch

    from helmlite.models.prefix_cache import fork_cache as _fork_cache

    model = load_model(str(tiny_model_dir))
    prefix = "Question: what is two plus two?\nAnswer: four\n\n" * 4
    ids = model._encode(prefix + "Question: and three?\nAnswer:")
    length, cache = model._extend_prefix(None, ids, len(model._encode(prefix)) - 1)
    before = [(layer.keys, layer.keys.clone(), layer.values.clone()) for layer in cache.layers]
    fork = _fork_cache(cache, 3)
    assert all(f.keys.shape[0] == 3 and f.keys.data_ptr() == layer.keys.data_ptr() for f, layer in zip(fork.layers, cache.layers))
    rows = [(ids + extra, len(ids)) for extra in ([11], [12, 13], [14, 15, 16])]
    first = model._forward_logprobs(rows, (length, cache))
    model._generate_one(GenerationRequest(model.tokenizer.decode(ids), 3), ids, (length, cache))
    for layer, (tensor, keys, values) in zip(cache.layers, before):
        assert layer.keys is tensor and torch.equal(layer.keys, keys) and torch.equal(layer.values, values)
    assert cache.get_seq_length() == length
    assert model._forward_logprobs(rows, (length, cache)) == first


def test_sampled_generations_store_the_models_own_log_probabilities(tiny_model_dir):
    """A generation sampled at temperature 2 stores each generated token's log-probability under the model's own
    distribution — equal to log_softmax of a direct forward of the prompt and the generated tokens (independent
    computation with torch) — not under the temperature-scaled distribution it was drawn from (which differs)."""
    import torch

    model = load_model(str(tiny_model_dir))
    prompt = "Question: what is two plus two?\nAnswer:"
    out = model.generate([GenerationRequest(prompt, max_tokens=4, temperature=2.0, seed=3)])[0]
    ids = model._encode(prompt)
    torch.manual_seed(3)  # the same draw through HF generate itself, for the generated token ids
    generated = model.model.generate(input_ids=torch.tensor([ids]), attention_mask=torch.ones(1, len(ids), dtype=torch.long),
                                     do_sample=True, temperature=2.0, top_k=None, top_p=None, max_new_tokens=4,
                                     pad_token_id=model.tokenizer.pad_token_id)[0, len(ids):].tolist()
    assert out.output_tokens == len(generated) == len(out.token_logprobs) == 4
    with torch.no_grad():
        logits = model.model(input_ids=torch.tensor([ids + generated])).logits[0].float()
    positions = range(len(ids) - 1, len(ids) + len(generated) - 1)
    raw = [float(torch.log_softmax(logits[p], -1)[t]) for p, t in zip(positions, generated)]
    scaled = [float(torch.log_softmax(logits[p] / 2.0, -1)[t]) for p, t in zip(positions, generated)]
    assert list(out.token_logprobs) == pytest.approx(raw, abs=1e-4)
    assert max(abs(a - b) for a, b in zip(raw, scaled)) > 1e-2


def test_one_token_continuations_share_one_forward(tiny_model_dir):
    """Joint multiple choice: the answer letters of one prompt are read from one forward pass; each value
    equals log_softmax of a direct forward of the prompt alone (independent computation with torch)."""
    import torch

    model = load_model(str(tiny_model_dir))
    prompt = "Question: what is two plus two?\nAnswer:"
    letters = (" cat", " mat", " is", " two")
    assert all(len(model.tokenizer(c, add_special_tokens=False)["input_ids"]) == 1 for c in letters)
    model.encoded_tokens = 0
    scores = model.score([ScoreRequest(prompt, letters)])[0]
    ids = model.tokenizer(prompt, add_special_tokens=True)["input_ids"]
    assert model.encoded_tokens == len(ids)  # one row, packed: the prompt (the answer token is read, never run)
    with torch.no_grad():
        direct = torch.log_softmax(model.model(input_ids=torch.tensor([ids])).logits[0, -1], dim=-1)
    expected = [float(direct[model.tokenizer(c, add_special_tokens=False)["input_ids"][0]]) for c in letters]
    assert scores.logprobs == pytest.approx(expected, abs=1e-5)
    assert scores.token_counts == (1, 1, 1, 1)


#: How far two fp32 computations of one log-probability in different orders (a prompt encoded whole; its prefix from a
#: cache) may differ: each is ~1e-5 from the fp64 value (measured below), so up to ~2e-5 apart. Measured plain vs
#: reuse: 5.2e-6 (2026-12-03), 1.05e-5 on Gemma 3 (2026-12-04, another host of this machine type). Whether reuse adds
#: error of its own is the fp64 comparison's to decide.
FP32_ORDERS = 2.5e-5


@pytest.mark.slow
@pytest.mark.parametrize("name", ["smollm2-135m", "gemma3-270m"])
def test_prefix_reuse_is_exact_on_the_embedded_models(name):
    """One ~620-token context (longer than Gemma 3's 512-token sliding window) queried with suffixes of
    different lengths, the context declared shared: prefix reuse gives the plain path's per-token log-probabilities
    and the same greedy generations with their log-probabilities, within :data:`FP32_ORDERS` (the plain path encodes
    every prompt whole) — requests of two continuations and one-row requests (packed together, and the same scored
    alone) alike, generations of four tokens and of one (packed; a one-token generation is the first token of the
    plain four-token one). A one-row request asks for the first continuation of a two-row request, so the plain
    path and the fp64 reference run the two-row requests only. Against the same model in fp64 (an independent
    reference: the plain path at double precision, run last at two threads), reuse is as exact as the plain path —
    fp32 itself is ~1e-5 from it (measured 2026-12-03: plain 1.0e-5 / 1.05e-5, reuse 1.26e-5 / 0.98e-5 on Gemma 3 /
    SmolLM2; plain vs reuse 5.2e-6 / 3.8e-6)."""
    import torch

    from helmlite.models import prepare
    from helmlite.models.transformers_backend import TransformersModel

    model = load_model(str(prepare(name)), batch_size=8)
    assert model._packs_rows  # one-row requests below run packed
    context = "".join(f"Key {k:03d} is paired with value {(37 * k) % 1000:03d}. " for k in range(44))
    questions = ["Key 007", "Key 013", "Which value goes with key 042 in the list above"]
    prompts = [f"{context}\n{q}. Answer: value" for q in questions]
    pairs = [ScoreRequest(p, (" 259 and more", " 1"), (len(context),)) for p in prompts]  # the context declared
    requests = pairs + [ScoreRequest(p, (" 259 and more",), (len(context),)) for p in prompts]  # one row each: packed
    model.reuse_prefixes = False
    plain_pairs = model.score(pairs)
    plain = [s.token_logprobs for s in plain_pairs] + [s.token_logprobs[:1] for s in plain_pairs]
    plain_generations = [model.generate([GenerationRequest(p, max_tokens=4)])[0] for p in prompts]
    model.reuse_prefixes = True
    reused = model.score(requests)
    assert [s.token_logprobs for r in requests for s in model.score([r])] == [s.token_logprobs for s in reused]  # alone = packed
    assert model._prefix_lru  # the context's cache was built and reused
    for a, b in zip(plain, reused):
        assert [len(v) for v in a] == list(b.token_counts)
        for x, y in zip(a, b.token_logprobs):
            assert x == pytest.approx(y, abs=FP32_ORDERS)
    assert min(len(model._encode(p)) for p in prompts) > 512  # past Gemma 3's sliding window
    # the kept caches are forked, never written: Gemma 3's sliding-window layers too (their update keeps only the
    # window's last positions, on a fork) — every kept tensor is unchanged by the generations over it
    kept = [(layer, layer.keys, layer.keys.clone(), layer.values.clone()) for _, cache in model._prefix_lru.values()
            for layer in cache.layers]
    if name == "gemma3-270m":
        assert {type(layer).__name__ for layer, *_ in kept} >= {"DynamicSlidingWindowLayer", "DynamicLayer"}
    generations = model.generate([GenerationRequest(p, max_tokens=m, prefixes=(len(context),)) for m in (4, 1) for p in prompts])
    for a, b, c in zip(plain_generations, generations[:3], generations[3:]):
        assert a.text == b.text and a.token_logprobs == pytest.approx(b.token_logprobs, abs=FP32_ORDERS)
        assert c.output_tokens == 1 and a.text.startswith(c.text)
        assert a.token_logprobs[:1] == pytest.approx(c.token_logprobs, abs=FP32_ORDERS)
    for layer, tensor, keys, values in kept:
        assert layer.keys is tensor and torch.equal(layer.keys, keys) and torch.equal(layer.values, values)
    threads = torch.get_num_threads()
    try:
        exact = TransformersModel(prepare(name), batch_size=8, dtype=torch.float64, threads=2)
        exact.reuse_prefixes = False
        reference = [s.token_logprobs for s in exact.score(pairs)]
    finally:
        torch.set_num_threads(threads)
    reference += [v[:1] for v in reference]
    error = {path: max(abs(v - w) for values, truth in zip(scores, reference) for u, x in zip(values, truth) for v, w in zip(u, x))
             for path, scores in (("plain", plain), ("reused", [s.token_logprobs for s in reused]))}
    assert error["plain"] > 1e-7 and error["reused"] <= 2 * error["plain"], error  # fp32's own error, not reuse's


def test_progress_lines_report_requests_and_an_eta():
    """Hand-derived with a fake clock: 40 of 100 requests after 30 s → ETA 30·60/40 = 45 s; a line at most every
    30 s, and one at the end."""
    import io

    from helmlite.models.progress import ProgressLines

    now = [0.0]
    out = io.StringIO()
    lines = ProgressLines(100, "run-x", interval_s=30, stream=out, clock=lambda: now[0])
    now[0] = 10.0
    lines.update(10)  # 10 s: too soon for a line
    now[0] = 30.0
    lines.update(30)
    now[0] = 50.0
    lines.update(60)  # 20 s after the last line: none
    lines.close()
    assert out.getvalue().splitlines() == ["run-x: 40/100 requests (40%), 30 s, ETA 45 s",
                                           "run-x: 100/100 requests (100%), 50 s, ETA 0 s"]


def test_progress_moves_within_a_chunk(tiny_model_dir, tmp_path, monkeypatch):
    """The transformers backend reports after every forward batch, so the display moves inside one chunk of
    requests instead of jumping 0 → 100% (issue 23 §5), and ends exactly at the number of requests."""
    from helmlite.models import cache as cache_module
    from helmlite.models.transformers_backend import TransformersModel

    updates = []

    class Recorder:
        def update(self, n):
            updates.append(n)

        def close(self):
            pass

    monkeypatch.setattr(cache_module, "make_progress", lambda mode, total, label: Recorder())
    model = CachedModel(TransformersModel(tiny_model_dir, batch_size=2), RequestCache(tmp_path / "c.sqlite"), chunk_size=32)
    requests = [ScoreRequest(f"The cat sat on the mat {k} times.", (" four", " Paris is")) for k in range(6)]
    model.score(requests)
    moving = [n for n in updates if n > 0]
    assert len(moving) >= 3 and sum(updates) == pytest.approx(len(requests))
    assert model.inner.on_progress is None  # detached after the call


TORCHLESS = """
import sys

class NoModelsExtra:  # an install without the `models` extra: torch and transformers are absent
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("torch", "transformers"):
            raise ModuleNotFoundError(f"No module named {name!r}")

sys.meta_path.insert(0, NoModelsExtra())
from helmlite.cli import main
code = main(sys.argv[1:])
assert "torch" not in sys.modules and "transformers" not in sys.modules, "torch was imported"
sys.exit(code)
"""


def test_openai_runs_work_without_torch(tmp_path, mirrored_cache):
    """`helmlite run --model openai:…` in an install without torch and transformers (their imports fail, as
    in a venv without the `models` extra): a generation run and a log-probability run against the stub
    OpenAI-compatible server finish, and the run folders are complete."""
    import os
    import subprocess
    import sys

    with stub_server() as (url, state):
        env = {**os.environ, "HELMLITE_OPENAI_BASE_URL": url}
        for scenario, method in (("nq_closed_book", "generation"), ("mmlu", "multiple_choice_separate")):
            args = ["run", "--scenario", scenario, "--model", "openai:stub", "--method", method, "--max-instances", "3",
                    "--results-dir", str(tmp_path / "runs"), "--cache", str(tmp_path / "cache.sqlite"), "--progress", "none"]
            if scenario == "mmlu":
                args += ["--arg", "subject=econometrics"]
            done = subprocess.run([sys.executable, "-c", TORCHLESS, *args], env=env, capture_output=True, text=True,
                                  timeout=300)
            assert done.returncode == 0, done.stderr[-2000:]
        assert state.requests  # the server answered
    runs = sorted(p for p in (tmp_path / "runs").iterdir() if p.is_dir())
    assert len(runs) == 2
    for run in runs:
        assert {"manifest.json", "instances.jsonl", "stats.json"} <= {p.name for p in run.iterdir()}, run
