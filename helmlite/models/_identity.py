"""What identifies a model directory's weights — the sha256 over its weight files, recorded at preparation — and whether
a directory holds a loadable model at all (:func:`model_dir_problem`).

Torch-free, so that listing or checking models (and parsing the Snakefile) does not import torch.
"""
from __future__ import annotations

import hashlib
import json
from pathlib import Path

from ._base import ModelError

IDENTITY_FILE = "helmlite_model.json"


def weights_sha256(path: Path) -> str:
    """sha256 over the weight files of a model directory (sorted names, streamed)."""
    digest = hashlib.sha256()
    files = sorted(p for p in path.iterdir() if p.suffix in (".safetensors", ".bin"))
    if not files:
        raise ModelError(f"{path}: no weight files (*.safetensors or *.bin) in the model directory")
    for file in files:
        digest.update(file.name.encode())
        with open(file, "rb") as handle:
            for block in iter(lambda: handle.read(1 << 22), b""):
                digest.update(block)
    return digest.hexdigest()


#: Files any of which lets ``AutoTokenizer`` load a tokenizer from a model directory (a fast tokenizer's JSON, a
#: SentencePiece model, or a BPE / WordPiece vocabulary).
TOKENIZER_FILES = (("tokenizer.json",), ("tokenizer.model",), ("vocab.json", "merges.txt"), ("vocab.txt",),
                   ("spiece.model",))


def _safetensors_problem(file: Path) -> str | None:
    """Why a safetensors file is not whole (its header's tensors run past its end, or the header itself is cut);
    None when it is. Reads the header only (the format: an 8-byte little-endian length, then that much JSON)."""
    size = file.stat().st_size
    with open(file, "rb") as handle:
        head = handle.read(8)
        if len(head) < 8:
            return f"{file.name} is cut short ({size} bytes: no header)"
        length = int.from_bytes(head, "little")
        if 8 + length > size:
            return f"{file.name} is cut short (its header says {length} bytes, the file has {size})"
        try:
            header = json.loads(handle.read(length))
            end = max((entry["data_offsets"][1] for key, entry in header.items() if key != "__metadata__"), default=0)
        except (ValueError, TypeError, KeyError, IndexError, AttributeError):
            return f"{file.name} has an unreadable header"
    if 8 + length + end != size:
        return f"{file.name} is incomplete ({size:,} bytes where its header describes {8 + length + end:,})"
    return None


def model_dir_problem(path: Path) -> str | None:
    """What a local model directory lacks for a transformers model to load from it — a readable ``config.json`` with a
    ``model_type``, a tokenizer, complete weights — in one sentence naming the folder; None when nothing is missing.
    Torch-free and quick (it reads headers, not weights), so a config is checked before any run starts."""
    config = path / "config.json"
    if not config.is_file():
        return f"model directory {path} has no config.json (save the model with `model.save_pretrained(DIR)`)"
    try:
        model_type = json.loads(config.read_text(encoding="utf-8")).get("model_type")
    except (ValueError, UnicodeDecodeError, AttributeError):
        return f"model directory {path}: config.json is not a JSON object"
    if not model_type:
        return f"model directory {path}: config.json names no model_type"
    if not any(all((path / name).is_file() for name in names) for names in TOKENIZER_FILES):
        return (f"model directory {path} has no tokenizer (tokenizer.json, tokenizer.model or vocab.json + merges.txt): "
                "save it beside the weights with `tokenizer.save_pretrained(DIR)`")
    weights = sorted(path.glob("*.safetensors")) + sorted(path.glob("*.bin"))
    if not weights:
        return f"model directory {path} has no weights (*.safetensors or *.bin)"
    index = path / "model.safetensors.index.json"
    if index.is_file():
        try:
            shards = set(json.loads(index.read_text(encoding="utf-8")).get("weight_map", {}).values())
        except (ValueError, AttributeError, TypeError):
            return f"model directory {path}: model.safetensors.index.json is not a readable weight index"
        absent = sorted(shard for shard in shards if not (path / shard).is_file())
        if absent:
            return f"model directory {path} lacks the weight shard(s) its index lists: {', '.join(absent)}"
    for file in (w for w in weights if w.suffix == ".safetensors"):
        problem = _safetensors_problem(file)
        if problem:
            return f"model directory {path}: {problem}"
    return None


def local_model_key(path: Path) -> str:
    """What names a local model directory in run ids: its folder's name and the first 12 hex digits of its weights'
    sha256 (``mymodel@3f9a…``), never where the folder lies — moving a checkpoint keeps every run id (and the request
    cache, keyed by the same name and hash). The hash is the one recorded at preparation (:data:`IDENTITY_FILE`), or
    computed once and remembered by the weight files' sizes and modification times
    (``results/cache/model_hashes.json`` in helmlite's home; ``$HELMLITE_MODEL_HASHES``)."""
    recorded = path / IDENTITY_FILE
    if recorded.is_file():
        return f"{path.name}@{json.loads(recorded.read_text())['weights_sha256'][:12]}"
    from .._io import write_json
    from ..home import shared_path

    files = sorted(p for p in path.iterdir() if p.suffix in (".safetensors", ".bin"))
    stamp = [[p.name, p.stat().st_size, p.stat().st_mtime_ns] for p in files]
    memo_file = shared_path("HELMLITE_MODEL_HASHES", "results/cache/model_hashes.json")
    try:
        memo = json.loads(memo_file.read_text()) if memo_file.is_file() else {}
    except ValueError:  # a memo another process was writing, or a broken one: recompute
        memo = {}
    entry = memo.get(str(path.resolve()))
    if not entry or entry.get("stamp") != stamp:
        entry = {"stamp": stamp, "sha256": weights_sha256(path)}
        memo[str(path.resolve())] = entry
        try:  # a memo only saves time: a home that cannot be written to costs a re-hash next time, nothing else
            write_json(memo_file, memo)
        except OSError:
            pass
    return f"{path.name}@{entry['sha256'][:12]}"
