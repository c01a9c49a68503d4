"""Where and in which precision the transformers backend runs: device names (``auto``, ``cpu``, ``cuda``, ``cuda:N``,
``mps``), floating-point types (``float32``, ``bfloat16``, ``float16``) and what a run's manifest records of them.

The precision is part of a run's identity (it changes scores: bf16 rounds every activation to 8 bits of mantissa, and
its results may change between batched and single requests where kernels sum in another order by batch shape — not on
this CPU, where batch sizes 1 and 8 gave bit-identical bf16 scores: docs/how-to/configs-and-clusters.md, "Devices and precision"); the device is recorded but not part of the identity,
since fp32 gives the same answers on any device up to floating-point summation order (``benchmarks/gpu_check.sh``
measures how far CUDA and CPU agree).
"""
from __future__ import annotations

import platform
from pathlib import Path

from ._base import ModelError

DTYPES = ("float32", "bfloat16", "float16")
DEFAULT_DTYPE = "float32"
DEVICE_CHOICES = "auto, cpu, cuda, cuda:N or mps"


def check_dtype(dtype: str) -> str:
    """``dtype`` if it is one of :data:`DTYPES`, else one :class:`ModelError` naming the choices."""
    if dtype not in DTYPES:
        raise ModelError(f"dtype must be one of {', '.join(DTYPES)}, got {dtype!r}")
    return dtype


def torch_dtype(dtype: str):
    """The ``torch.dtype`` named by ``dtype`` (checked)."""
    import torch

    return getattr(torch, check_dtype(dtype))


def resolve_device(device: str) -> str:
    """The torch device a run uses: ``auto`` → ``cuda`` when torch sees a CUDA device, else ``cpu``; an explicit
    device is checked against what torch sees, with one :class:`ModelError` when it is not available here."""
    import torch

    if device == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    if device == "cpu":
        return device
    if device == "mps":
        if not torch.backends.mps.is_available():
            raise ModelError("device 'mps' requested but torch sees no Apple GPU (Metal) on this machine")
        return device
    kind, _, index = device.partition(":")
    if kind != "cuda" or (index and not index.isdigit()):
        raise ModelError(f"device must be {DEVICE_CHOICES}, got {device!r}")
    if not torch.cuda.is_available():
        raise ModelError(f"device {device!r} requested but torch {torch.__version__} sees no CUDA device "
                         f"(CUDA build: {torch.version.cuda or 'none'}); use --device cpu or auto")
    if index and int(index) >= torch.cuda.device_count():
        raise ModelError(f"device {device!r} requested but torch sees {torch.cuda.device_count()} CUDA device(s)")
    return device


def cpu_model() -> str:
    """The CPU's model name (``/proc/cpuinfo``), else what :mod:`platform` reports (on Linux often only ``x86_64``)."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def device_record(device: str, dtype: str) -> dict:
    """What a run's manifest records of its hardware: the device, its name (the GPU's, else the CPU's), the dtype and
    the torch and CUDA versions."""
    import torch

    if device.startswith("cuda"):
        name = torch.cuda.get_device_name(torch.device(device))
    else:
        name = cpu_model()
    return {"device": device, "device_name": name, "dtype": dtype, "torch": torch.__version__,
            "cuda": torch.version.cuda}
