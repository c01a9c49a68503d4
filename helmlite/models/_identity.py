"""What identifies a model directory's weights: the sha256 over its weight files, recorded at preparation.

Torch-free, so that listing or checking models (and parsing the Snakefile) does not import torch.
"""
from __future__ import annotations

import hashlib
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
