"""This machine's model rates, measured once per model and cached with the machine's identity.

The planner predicts a run's seconds from its counted work (:class:`~helmlite.models.work_counting.Work`) with
a linear cost model per model: seconds = position_s · positions + projected_s · positions projected to the vocabulary
+ prefix_row_s · rows × cached prefix length + forward_s · forward calls + step_s · decoding steps (+ a generate
call's set-up). The projection term matters for a large vocabulary: Gemma 3 projects a position to its 262k entries
in about what 1.6 positions through its layers take (2.3–2.5 vs 1.4–1.5 ms, one thread, 2026-12-04), and a packed
forward projects at least 16. Without the term, a forward's cost was measured on one such packed forward, and Gemma's
separate-method runs (forwards that project a few positions) were predicted at 1.24–1.34× their compute measured in
the default workflow at 03:23 that day (docs/explanation/time-budget.md has the current comparison).
The prefix term prices what a row over a reused prefix pays besides its own positions (the cache concatenated for
its batch, attention over the prefix): without it a rate measured on short rows after a long few-shot prefix
over-predicted runs of long rows after a short shared prefix (the default's NIAH runs: 1.5× for SmolLM2 on
2026-12-01). The rates come from timing the real model on small workloads whose work is counted by the same
counter (:func:`calibrate`). They are cached in a JSON file keyed by the machine
(CPU model, logical CPUs, torch threads, torch and transformers versions), the model's weights, the batch size and
the source of the backend, its counter and this module (:func:`planner_source_sha`), so a different machine, thread
count, library version or any change to how the backend computes, how its work is counted or how the rates are
measured calibrates afresh. The file keeps the last :data:`KEPT_CALIBRATIONS` calibrations per key (``helmlite plan
--recalibrate`` adds one) and the plan uses each rate's median over them: this machine's speed varies between
calibrations (up to ~25% for Gemma 3 on 2026-12-04), and a median lets a slow spell's calibration be outvoted.
"""
from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import time
from dataclasses import asdict, dataclass, fields
from pathlib import Path

import numpy as np
import torch

from .._io import write_text
from ..models import GenerationRequest, ScoreRequest, TransformersModel, Work, WorkCounter, counting_source_files, cpu_model

RATES_FILE = Path("results/planner/rates.json")  # not results/cache/: a cold-run benchmark deletes that
#: Calibrations kept per machine, model, batch size and planner source; the plan takes each rate's median over them
#: (:func:`median_rates`).
KEPT_CALIBRATIONS = 5
_WORDS = ("river village library engineer committee gardener road student harbour orchestra light letter market "
          "bridge festival boat corridor maps answer question policy state power trade law court vote city").split()


def machine_identity(threads: int) -> dict:
    import torch
    import transformers

    return {"cpu": cpu_model(), "logical_cpus": os.cpu_count(), "threads": threads, "torch": torch.__version__,
            "transformers": transformers.__version__}


@dataclass(frozen=True)
class Rates:
    """Seconds per unit of counted work on this machine, for one model (see the module docstring)."""

    position_s: float
    forward_s: float
    step_s: float
    generate_call_s: float  # a generate call's fixed cost (HF generate's set-up, stop-string matching)
    load_s: float  # loading the model (a run job's start-up, with the imports)
    prefix_row_s: float = 0.0  # per row and cached prefix position of a scoring forward over a reused prefix
    loaded_mb: float | None = None  # a run job's resident memory once the model is loaded and has scored (planning.memory)
    projected_s: float = 0.0  # per position a scoring forward projects to the vocabulary (Gemma 3: 262k entries)

    def seconds(self, work: Work) -> float:
        return (self.position_s * (work.score_positions + work.prefill_positions) + self.forward_s * work.score_forwards
                + self.prefix_row_s * work.prefix_row_positions + self.projected_s * work.projected_positions
                + self.step_s * work.decode_steps
                + self.generate_call_s * work.generate_calls)


def planner_source_sha() -> str:
    """sha256 (first 16 hex digits) of the transformers backend's (with its packing and prefix-cache modules), the work
    counter's and this module's source files:
    rates measured with other code — faster or slower, counted differently, or with other terms and workloads — are
    not reused (a backend's ``code_version`` changes only when its answers do)."""
    digest = hashlib.sha256()
    for source in (*counting_source_files(), Path(__file__)):
        digest.update(Path(source).read_bytes())
    return digest.hexdigest()[:16]


def _text(rng: np.random.Generator, words: int) -> str:
    return " ".join(rng.choice(_WORDS, size=words))


def _workloads(max_context: int) -> dict[str, list]:
    """The calibration workloads; the shared prefix is 300 words, a long row 120 and a long continuation 40, or less
    where the model's context is short."""
    rng = np.random.default_rng(0)
    prefix = _text(rng, min(300, max_context // 16))
    shared = [ScoreRequest(f"{prefix}\nQuestion: {_text(rng, 15)}\nAnswer:", tuple(" " + _text(rng, 5) for _ in range(4)),
                           (len(prefix),)) for _ in range(16)]  # the prefix declared as the adapter declares a few-shot one
    tiny = [ScoreRequest(_text(rng, 3), (" " + _text(rng, 1),))]
    tiny_rows = [ScoreRequest(_text(rng, 3), (" " + _text(rng, 2), " " + _text(rng, 2)))]  # two rows, padded: few projected
    long_continuation = [ScoreRequest(_text(rng, 3), (" " + _text(rng, min(40, max_context // 16)),))]  # most projected
    long_rows = [ScoreRequest(_text(rng, min(120, max_context // 8)), (" " + _text(rng, 3),))  # no shared prefix
                 for _ in range(8)]
    prompt = _text(rng, 60)
    return {"shared": shared, "tiny": tiny, "tiny_rows": tiny_rows, "long_continuation": long_continuation,
            "long_rows": long_rows, "single": [GenerationRequest(prompt, max_tokens=16)],
            "short_single": [GenerationRequest(prompt, max_tokens=2)]}


def _timed(call, requests, repeats: int = 1) -> float:
    """Seconds per call of ``call(requests)`` (the median of ``repeats``)."""
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        call(requests)
        times.append(time.perf_counter() - started)
    return float(np.median(times))


def _timed_in_rounds(calls: dict[str, tuple], repeats: dict[str, int], before=lambda: None) -> dict[str, float]:
    """Seconds per call of each ``calls[name] = (call, requests)``: the median of its ``repeats[name]`` timings, taken
    in rounds that each time every workload once more until it has its repeats (repeats a: 2, b: 3 are timed
    a, b, a, b, b rather than a, a, b, b, b), each after ``before()`` (untimed: the calibration forgets the prefixes
    the last call kept, so every timing encodes what its counted work counts). A slow spell of the machine shorter
    than the calibration then touches a few timings of every workload, which their medians ignore, instead of all
    the timings of one workload (this machine: Gemma 3's decoding step measured 0.124 s in one calibration against
    0.094-0.098 s in those before and after, 2026-12-04)."""
    times: dict[str, list[float]] = {name: [] for name in calls}
    for round_ in range(max(repeats.values())):
        for name, (call, requests) in calls.items():
            if round_ < repeats[name]:
                before()
                times[name].append(_timed(call, requests))
    return {name: float(np.median(values)) for name, values in times.items()}


_LOADED_RSS = """
import resource, sys
import helmlite.cli, helmlite.evaluation.runner, helmlite.metrics.families  # what a run job imports besides the backend
from helmlite.models import ScoreRequest
from helmlite.models import TransformersModel
TransformersModel(sys.argv[1], threads=int(sys.argv[2])).score([ScoreRequest("The cat sat on the", (" mat",))])
# VmHWM: this process image's own peak. ru_maxrss would also count the parent's memory at fork (Linux carries the
# pre-exec peak over an exec), so a planner holding a model would inflate it.
status = open("/proc/self/status").read() if sys.platform == "linux" else ""
hwm = [line.split()[1] for line in status.splitlines() if line.startswith("VmHWM:")]
print(int(hwm[0]) / 1024 if hwm else resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
"""


def loaded_mb(path: str | Path, *, threads: int) -> float:
    """Peak resident memory (MB) of a fresh Python process that imports the backend, loads the model and scores one
    request: a run job's floor before its work (measured in its own process, so the planner's own memory and
    models loaded before do not count)."""
    done = subprocess.run([sys.executable, "-c", _LOADED_RSS, str(path), str(threads)], capture_output=True, text=True,
                          check=True)
    return float(done.stdout.split()[-1])


def _projection_s(model: TransformersModel) -> float:
    """Seconds per position projected to the vocabulary: the model's output embedding and the log-softmax the backend
    takes of it, timed on 16 and 144 hidden states (median of 5 each), per added position. What a projection costs
    whatever its positions (reading the weights) stays in the forward's cost."""
    generator = torch.Generator().manual_seed(0)
    seconds = {}
    for positions in (16, 144):
        hidden = torch.randn(1, positions, model.hidden_size, generator=generator, dtype=model.dtype)
        seconds[positions] = _timed(model.vocabulary_logprobs, hidden, repeats=5)
    return max(0.0, (seconds[144] - seconds[16]) / 128)


def calibrate(path: str | Path, *, threads: int, batch_size: int) -> Rates:
    """Time the real model and solve for the rates: the cost of a position projected to the vocabulary timed on its
    own (:func:`_projection_s`); the costs of a forward call, of a position and of a row's cached prefix position
    together, by non-negative least squares on relative errors over five scoring workloads that mix them differently
    (one row of a few tokens and one request of two short continuations, median of 10; one row with a ~40-word
    continuation, median of 5; eight rows of ~120 words with no shared prefix and a shared few-shot-like prefix with
    16 questions × 4 answers, median of 3), after what their projected positions cost; a decoding step from one
    generation of 16 tokens against one of 2 (median of 3 each); a generate call's fixed cost from the latter (after
    what the rates already found explain). The workloads are timed in interleaved rounds (:func:`_timed_in_rounds`),
    each from a cold prefix cache, as the counter counts them."""
    from scipy.optimize import nnls

    started = time.perf_counter()
    model = TransformersModel(path, threads=threads, batch_size=batch_size)
    load_s = time.perf_counter() - started
    counter = WorkCounter(path, batch_size=batch_size)
    loads = _workloads(model.max_context)
    model.score(loads["tiny"])  # warm-up (first-call allocations)
    work = {name: counter.count(requests, chunk_size=len(requests)) for name, requests in loads.items()}
    scoring = {"tiny": 10, "tiny_rows": 10, "long_continuation": 5, "long_rows": 3, "shared": 3}  # workload: repeats
    times = _timed_in_rounds({**{k: (model.score, loads[k]) for k in scoring},
                              **{k: (model.generate, loads[k]) for k in ("single", "short_single")}},
                             {**scoring, "single": 3, "short_single": 3}, before=model.release_prefixes)
    long_, short = times["single"], times["short_single"]
    projected_s = _projection_s(model)
    counts = np.array([[work[k].score_forwards, work[k].score_positions, work[k].prefix_row_positions] for k in scoring],
                      dtype=float)
    measured = np.array([times[k] for k in scoring])
    rest = measured - projected_s * np.array([work[k].projected_positions for k in scoring])
    forward_s, position_s, prefix_row_s = (float(x) for x in nnls(counts / measured[:, None], rest / measured)[0])
    steps = work["single"].decode_steps - work["short_single"].decode_steps
    step_s = max(0.0, (long_ - short) / steps)
    call_s = max(0.0, short - position_s * work["short_single"].prefill_positions - step_s * work["short_single"].decode_steps)
    return Rates(position_s, forward_s, step_s, call_s, load_s, prefix_row_s, loaded_mb(path, threads=threads), projected_s)


def median_rates(calibrations: list[Rates]) -> Rates:
    """Each rate's median over ``calibrations`` (a rate no calibration measured, such as ``loaded_mb``, stays None)."""
    values = {}
    for field in fields(Rates):
        measured = [getattr(c, field.name) for c in calibrations if getattr(c, field.name) is not None]
        values[field.name] = float(np.median(measured)) if measured else None
    return Rates(**values)


def model_rates(name: str, path: str | Path, *, threads: int, batch_size: int, rates_file: str | Path = RATES_FILE,
                recalibrate: bool = False, counter: WorkCounter | None = None,
                measure: bool = True) -> tuple[Rates | None, bool]:
    """This machine's rates for a model directory: the median (:func:`median_rates`) of the calibrations
    ``rates_file`` holds for this machine, model weights, threads and batch size and the planner's source
    (:func:`planner_source_sha`: a backend that computes differently, e.g. packs rows it used to pad, runs at other
    rates); with none stored, or with ``recalibrate``, one more is measured (~10–40 s; SmolLM2 38 s on 2026-12-04) and stored beside the last
    :data:`KEPT_CALIBRATIONS` - 1. So a calibration taken in a slow spell of the machine (consecutive calibrations
    here differed by up to ~25%) stops setting the plan once two more have been added. The medians are taken rate by
    rate, so the forward and position costs (which trade off in one calibration's fit) may come from different
    calibrations; the plan's check against measured runs (:func:`helmlite.planning.check_against_measured`) shows
    whether the combination still fits. ``counter``: the model's counter, when the caller has one (for the model's
    identity; loading a tokenizer takes seconds). ``measure=False``: never calibrate — None when none is stored (a
    quick answer, ``helmlite compare``'s). Returns (rates, measured now)."""
    counter = counter or WorkCounter(path, name=name)
    key = json.dumps({"machine": machine_identity(threads), "model": counter.identity, "batch_size": batch_size,
                      "source": planner_source_sha()}, sort_keys=True)
    rates_file = Path(rates_file)
    stored = json.loads(rates_file.read_text()) if rates_file.is_file() else {}
    calibrations = [Rates(**c) for c in stored.get(key, [])]
    if calibrations and not recalibrate:
        return median_rates(calibrations), False
    if not measure:
        return None, False
    calibrations = [*calibrations, calibrate(path, threads=threads, batch_size=batch_size)][-KEPT_CALIBRATIONS:]
    stored[key] = [asdict(c) for c in calibrations]
    rates_file.parent.mkdir(parents=True, exist_ok=True)
    write_text(rates_file, json.dumps(stored, indent=1, sort_keys=True) + "\n")
    return median_rates(calibrations), True
