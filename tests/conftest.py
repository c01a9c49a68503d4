"""Shared fixtures: the read-only data mirror and an isolated download cache per test."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent


def _mirror() -> Path | None:
    value = os.environ.get("HELMLITE_DATA_MIRROR") or str(REPO.parent / "shared" / "data")
    path = Path(value).absolute()
    return path if path.is_dir() else None


MIRROR = _mirror()  # read once, before any test changes the environment


@pytest.fixture
def mirror() -> Path:
    """The shared mirror (CI sets HELMLITE_DATA_MIRROR=../shared/data); tests needing it skip without it."""
    if MIRROR is None:
        pytest.skip("no data mirror: set HELMLITE_DATA_MIRROR")
    return MIRROR


@pytest.fixture
def cache(tmp_path, monkeypatch) -> Path:
    """An empty fetch cache, and no mirror or network unless a test sets them."""
    path = tmp_path / "cache"
    monkeypatch.setenv("HELMLITE_DATA_CACHE", str(path))
    monkeypatch.delenv("HELMLITE_DATA_MIRROR", raising=False)
    monkeypatch.setenv("HELMLITE_OFFLINE", "1")
    return path


@pytest.fixture
def mirrored_cache(cache, mirror, monkeypatch) -> Path:
    """An empty cache that fetches from the shared mirror."""
    monkeypatch.setenv("HELMLITE_DATA_MIRROR", str(mirror))
    return cache


@pytest.fixture(scope="session")
def tiny_model_dir(tmp_path_factory):
    """A model directory we build: a 2-layer random Llama with GPT-2's byte-level BPE trained on a toy corpus."""
    import torch
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers, decoders
    from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

    path = tmp_path_factory.mktemp("tiny-llama")
    raw = Tokenizer(models.BPE())
    raw.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    raw.decoder = decoders.ByteLevel()
    corpus = ["The cat sat on the mat.", "Question: what is two plus two?\nAnswer: four", "Paris is in France."] * 20
    raw.train_from_iterator(corpus, trainers.BpeTrainer(vocab_size=300, special_tokens=["<s>", "</s>"],
                                                        initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=raw, bos_token="<s>", eos_token="</s>")
    tokenizer.save_pretrained(path)
    torch.manual_seed(0)
    config = LlamaConfig(vocab_size=raw.get_vocab_size(), hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                         num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=256,
                         bos_token_id=0, eos_token_id=1)
    LlamaForCausalLM(config).save_pretrained(path)
    return path
