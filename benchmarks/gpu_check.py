"""The GPU check of issue "Paper scale on real hardware": SmolLM2 on MMLU's five HELM subjects on CUDA against the CPU.

Three placements of the same run specs (MMLU, every validation and test item of abstract algebra, college chemistry,
computer security, econometrics and US foreign policy — 567 items, HELM's order; the scenario's default method,
log-probability of each answer; no request cache): fp32 on the CPU (the reference), fp32 on CUDA, bf16 on CUDA. For
each CUDA placement it reports the share of items whose predicted answer is the CPU's (goal for fp32: >= 99%), the
largest |Δ log-probability| of any answer, accuracy, and throughput (items per second of model time) beside the CPU's.

Without CUDA it prints one line and exits 0 (a CPU machine skips cleanly; tests/test_devices.py checks it). With
``$OUT`` set, the summary is also written to ``$OUT/gpu_check.json``.

    HELMLITE_DATA_MIRROR=../shared/data bash benchmarks/gpu_check.sh [--max-instances N] [--threads N]
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile


PLACEMENTS = [("cpu fp32", "cpu", "float32"), ("cuda fp32", "cuda", "float32"), ("cuda bf16", "cuda", "bfloat16")]
"""(label, device, dtype) of the three runs, the CPU reference first."""


def run_all(device: str, dtype: str, max_instances: int | None, threads: int, folder: str) -> tuple[list, float]:
    """Every subject's records for one placement, and the seconds spent in the runs' model calls."""
    from helmlite.models import load_model
    from helmlite.results import read_run
    from helmlite.evaluation import execute
    from helmlite.evaluation import RunSpec
    from helmlite.scenarios.mmlu import SUBJECTS

    model = load_model("smollm2-135m", threads=threads, device=device, dtype=dtype)
    records, seconds = [], 0.0
    for subject in SUBJECTS:
        spec = RunSpec.from_dict({"scenario": "mmlu", "model": "smollm2-135m", "args": {"subject": subject},
                                  "max_instances": max_instances, "dtype": dtype})
        run = read_run(folder, execute(spec, model, results_dir=folder, n_resamples=50).name)
        records += run.records
        seconds += run.timings.model_s
    return records, seconds


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--max-instances", type=int, help="per subject (default: all)")
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 1, help="torch threads of the CPU reference")
    args = parser.parse_args()
    import torch

    if not torch.cuda.is_available():
        print(f"gpu_check: skipped, torch {torch.__version__} sees no CUDA device (CUDA build: {torch.version.cuda or 'none'})")
        return 0
    from helmlite.models.embedded import prepare

    prepare("smollm2-135m")
    results = {}
    with tempfile.TemporaryDirectory(prefix="gpu-check-") as folder:
        for label, device, dtype in PLACEMENTS:
            records, seconds = run_all(device, dtype, args.max_instances, args.threads, os.path.join(folder, label.replace(" ", "_")))
            results[label] = (records, seconds)
    reference, cpu_seconds = results["cpu fp32"]
    summary = {"card": torch.cuda.get_device_name(0), "torch": torch.__version__, "cuda": torch.version.cuda,
               "items": len(reference), "cpu_items_per_s": len(reference) / cpu_seconds, "placements": {}}
    for label in ("cuda fp32", "cuda bf16"):
        records, seconds = results[label]
        same = sum(a.predicted_index == b.predicted_index for a, b in zip(reference, records))
        delta = max(abs(x - y) for a, b in zip(reference, records) for x, y in zip(a.scores, b.scores))
        summary["placements"][label] = {
            "same_prediction_share": same / len(reference), "max_abs_delta_logprob": delta,
            "accuracy": sum(r.correct for r in records) / len(records), "items_per_s": len(records) / seconds,
            "speedup_over_cpu": cpu_seconds / seconds}
    summary["cpu_accuracy"] = sum(r.correct for r in reference) / len(reference)
    text = json.dumps(summary, indent=1)
    print(text)
    if os.environ.get("OUT"):
        with open(os.path.join(os.environ["OUT"], "gpu_check.json"), "w", encoding="utf-8") as handle:
            handle.write(text + "\n")
    fp32 = summary["placements"]["cuda fp32"]["same_prediction_share"]
    print(f"fp32 CUDA vs CPU: {fp32:.1%} of predictions the same (goal >= 99%)", file=sys.stderr)
    return 0 if fp32 >= 0.99 else 1


if __name__ == "__main__":
    sys.exit(main())
