"""The same weights through two backends: smollm2-135m's Q4_1 GGUF served by llama.cpp (llama-cpp-python's server,
helmlite's OpenAI-compatible backend) vs its fp32 conversion through transformers (the embedded model). Where do
tokenisation, per-token log-probabilities and multiple-choice predictions differ? (issue 29 §1)

    python benchmarks/compare_llama_cpp.py [--instances 100]   # needs `make test-server`'s llama-cpp-python

Prints, per probe text, the tokens and each token's log-probability from both backends; then, on MMLU (separate
scoring, HELM's prompt), the per-token log-probability differences over every scored continuation token, the
agreement of the predicted answers and each backend's accuracy. Nothing is hidden: a difference is printed as
measured (README, "llama.cpp server").
"""
from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

import numpy as np

from helmlite.models import ScoreRequest, load_model
from helmlite.models.embedded import gguf_file
from helmlite.models.llama_server import llama_server
from helmlite.models.openai_backend import OpenAIModel

PROBES = (("The capital of France", " is Paris."), ("Question: What is 2 + 2?\nAnswer:", " 4"),
          ("The following are multiple choice questions (with answers).\n\nQuestion: Water boils at\nA. 50 C\nB. 100 C\nAnswer:",
           " B"))


def mmlu_run(model: str, results: Path, n: int, env: dict) -> list[dict]:
    """One helmlite run of HELM's 5-shot MMLU (us_foreign_policy), separate scoring; its instance records."""
    import json
    import os
    import subprocess
    import sys

    subprocess.run([sys.executable, "-m", "helmlite", "run", "--scenario", "mmlu", "--arg", "subject=us_foreign_policy",
                    "--model", model, "--method", "multiple_choice_separate", "--max-instances", str(n),
                    "--results-dir", str(results), "--cache", str(results / "cache.sqlite"), "--progress", "none", "--quiet"],
                   check=True, env={**os.environ, **env})
    (run,) = [p for p in results.iterdir() if p.is_dir()]
    return [json.loads(line) for line in (run / "instances.jsonl").read_text().splitlines()]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--instances", type=int, default=100)
    args = parser.parse_args()
    local = load_model("smollm2-135m")
    with tempfile.TemporaryDirectory() as work:
        work = Path(work)
        gguf = gguf_file("smollm2-135m", work)
        with llama_server(gguf) as (url, _):
            served = OpenAIModel(url, "smollm2", tokenizer=str(local.path))
            print(f"server {url}: {gguf.name} (llama.cpp); transformers: {local.path} (fp32 conversion of that file)\n")
            for context, continuation in PROBES:
                request = ScoreRequest(context, (continuation,))
                (a,), (b,) = local.score([request]), served.score([request])
                ids = local.tokenizer(context + continuation)["input_ids"][len(local.tokenizer(context)["input_ids"]):]
                print(f"{context[-40:]!r} + {continuation!r}: tokens {[local.tokenizer.decode([t]) for t in ids]}")
                print(f"  transformers fp32 : {np.round(a.token_logprobs[0], 3).tolist()}")
                print(f"  llama.cpp Q4_1    : {np.round(b.token_logprobs[0], 3).tolist()}")
            theirs = mmlu_run("openai:smollm2", work / "served", args.instances, {"HELMLITE_OPENAI_BASE_URL": url,
                                                                                    "HELMLITE_OPENAI_TOKENIZER": str(local.path)})
        ours = mmlu_run("smollm2-135m", work / "local", args.instances, {})
    by_id = {r["id"]: r for r in theirs}
    deltas = np.concatenate([np.subtract(a["scores"], by_id[a["id"]]["scores"]) for a in ours])
    agree = sum(a["predicted_index"] == by_id[a["id"]]["predicted_index"] for a in ours)
    same_prompt = sum(a["prompt"] == by_id[a["id"]]["prompt"] for a in ours)
    n = len(ours)
    print(f"\nMMLU us_foreign_policy (HELM's 5-shot prompt), {n} instances, separate scoring:")
    print(f"  identical prompts: {same_prompt} of {n}")
    print(f"  per-choice log-probability (summed over the answer's tokens), transformers − llama.cpp, over {len(deltas)} "
          f"choices: mean {deltas.mean():+.4f}, median |Δ| {np.median(np.abs(deltas)):.4f}, max |Δ| {np.abs(deltas).max():.4f}")
    print(f"  same predicted answer: {agree} of {n} ({agree / n:.0%})")
    print(f"  accuracy: transformers fp32 {np.mean([bool(a['correct']) for a in ours]):.3f}, "
          f"llama.cpp Q4_1 {np.mean([bool(r['correct']) for r in theirs]):.3f}")


if __name__ == "__main__":
    main()
