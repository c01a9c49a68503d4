"""The OpenAI-compatible backend's retries (tenacity) against the stub server on 127.0.0.1: ``Retry-After``
in seconds and as an HTTP date is honoured up to a configurable cap; without it, bounded exponential backoff."""
from __future__ import annotations

import email.utils
import time
from datetime import datetime, timedelta, timezone

import pytest

from helmlite.models import GenerationRequest, ModelError, ScoreRequest
from helmlite.models.backends.openai_compatible import OpenAIModel, retry_after_seconds

from .stub_server import stub_server


def http_date(seconds_from_now: float) -> str:
    return email.utils.format_datetime(datetime.now(timezone.utc) + timedelta(seconds=seconds_from_now), usegmt=True)


def recording(model: OpenAIModel) -> list[float]:
    """Replace the model's sleep with one that records the waits (the test does not wait)."""
    waits: list[float] = []
    model._sleep = waits.append
    return waits


NOW = datetime(2026, 10, 21, 7, 28, 0, tzinfo=timezone.utc)


@pytest.mark.parametrize("header,seconds", [
    ("30", 30.0), ("0", 0.0), ("2.5", 2.5), (" 7 ", 7.0),
    ("Wed, 21 Oct 2026 07:28:30 GMT", 30.0),  # IMF-fixdate
    ("Wednesday, 21-Oct-26 07:29:00 GMT", 60.0),  # obsolete RFC 850 form
    ("Wed Oct 21 07:28:10 2026", 10.0),  # obsolete asctime form
    ("Wed, 21 Oct 2026 07:00:00 GMT", 0.0),  # in the past: retry now
    (None, None), ("", None), ("soon", None), ("-5", None), ("nan", None), ("inf", None),
])
def test_retry_after_header_forms(header, seconds):
    assert retry_after_seconds(header, now=NOW) == seconds


@pytest.mark.parametrize("script,expected", [
    (["429:30"], [30.0]),  # today's bug: a 30 s Retry-After was retried after 4-8 s
    (["503:12"], [12.0]),  # 5xx with Retry-After too (RFC 9110 names 503)
    (["429:300"], [45.0]),  # capped
    (["429:1", "429:2"], [1.0, 2.0]),
])
def test_retry_after_seconds_is_honoured_up_to_the_cap(script, expected):
    with stub_server() as (url, state):
        state.script = list(script)
        model = OpenAIModel(url, "stub", max_retry_after_s=45.0)
        waits = recording(model)
        assert model.score([ScoreRequest("The cat sat on the", (" mat",))])[0].logprobs == (-0.5,)
        assert waits == expected and len(state.requests) == len(script) + 2  # + the echo-alignment probe, + the request


def test_retry_after_http_date_is_honoured_up_to_the_cap():
    with stub_server() as (url, state):
        state.script = [f"429:{http_date(20)}", f"503:{http_date(600)}"]
        model = OpenAIModel(url, "stub", max_retry_after_s=90.0)
        waits = recording(model)
        assert model.generate([GenerationRequest("hi")])[0].text.startswith(" stub answer")
        assert 18.0 <= waits[0] <= 20.0 and waits[1] == 90.0  # the date has one-second resolution


def test_retry_after_is_waited_for_real():
    with stub_server() as (url, state):
        state.script = ["429:1"]
        started = time.monotonic()
        OpenAIModel(url, "stub", backoff_s=0.001, max_backoff_s=0.01).score([ScoreRequest("a b", (" c",))])
        assert time.monotonic() - started >= 1.0  # never shortened by jitter or the backoff cap


def test_without_retry_after_backoff_doubles_with_jitter_up_to_its_cap():
    with stub_server() as (url, state):
        state.script = ["500", "429:soon", "close", "malformed", "500"]
        model = OpenAIModel(url, "stub", max_retries=5, backoff_s=1.0, max_backoff_s=4.0)
        waits = recording(model)
        model.score([ScoreRequest("a b", (" c",))])
        bases = [1.0, 2.0, 4.0, 4.0, 4.0]
        assert len(waits) == 5 and all(0.5 * b <= w <= b for w, b in zip(waits, bases))


def test_retries_stop_after_max_retries_naming_the_last_error():
    with stub_server() as (url, state):
        state.script = ["429:5"] * 4
        model = OpenAIModel(url, "stub", max_retries=2)
        waits = recording(model)
        with pytest.raises(ModelError, match=r"failed after 3 attempts; last error: HTTP 429 \(Retry-After: 5\)"):
            model.score([ScoreRequest("a b", (" c",))])
        assert waits == [5.0, 5.0] and len(state.requests) == 3


def test_the_cap_comes_from_the_environment(monkeypatch):
    monkeypatch.setenv("HELMLITE_OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    assert OpenAIModel.from_env("m").max_retry_after_s == 60.0
    monkeypatch.setenv("HELMLITE_OPENAI_MAX_RETRY_AFTER_S", "5")
    assert OpenAIModel.from_env("m").max_retry_after_s == 5.0
    for bad in ("-1", "soon", "inf"):
        monkeypatch.setenv("HELMLITE_OPENAI_MAX_RETRY_AFTER_S", bad)
        with pytest.raises(ModelError, match="HELMLITE_OPENAI_MAX_RETRY_AFTER_S=.*expected a non-negative number of seconds"):
            OpenAIModel.from_env("m")
