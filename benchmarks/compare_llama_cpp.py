"""The same weights through two backends: smollm2-135m's Q4_1 GGUF served by llama.cpp (llama-cpp-python's server,
helmlite's OpenAI-compatible backend) vs its fp32 conversion through transformers (the embedded model). Where do
tokenisation, per-token log-probabilities and multiple-choice predictions differ? (issue 29 §1)

    python benchmarks/compare_llama_cpp.py [--instances 100]   # needs `make test-server`'s llama-cpp-python

1. Echoed log-probabilities, token by token, on probe texts: transformers' log p(token | the tokens before it),
   the server's ``token_logprobs`` and, beside them, the value the server's ``top_logprobs`` give the token at the
   *previous* position (where the token is that position's top entry) — which shows that llama-cpp-python 0.3.36
   reports each token's value from the next token's distribution (so helmlite refuses log-probability scoring
   through it: ``OpenAIModel._check_echo_alignment``).
2. Multiple choice by generation (HELM's joint prompt, the answer letter generated greedily: ``joint_decision:
   helm_greedy``) on MMLU us_foreign_policy through both backends: identical prompts, agreement of the predicted
   letters, accuracy each.
"""
from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

import numpy as np

from helmlite.models import ScoreRequest, load_model
from helmlite.models.embedded import gguf_file
from helmlite.models.llama_server import llama_server

PROBES = ("The capital of France is Paris", "Question: What is 2 + 2?\nAnswer: 4", " one two three four five" * 3)
JOINT = {"method": "multiple_choice_joint", "joint_decision": "helm_greedy"}


def echo(url: str, text: str) -> dict:
    import requests

    body = requests.post(f"{url}/completions", json={"model": "smollm2", "prompt": text, "max_tokens": 1, "echo": True,
                                                     "logprobs": 1, "temperature": 0.0}, timeout=120).json()
    return body["choices"][0]["logprobs"]


def mmlu_joint_run(model: str, results: Path, n: int, env: dict) -> list:
    """One helmlite run of HELM's 5-shot MMLU (us_foreign_policy), the answer letter generated; its records."""
    import json
    import os
    import subprocess
    import sys

    from helmlite.results import read_run

    spec = {"scenario": "mmlu", "args": {"subject": "us_foreign_policy"}, "model": model, "max_instances": n,
            "adapter": JOINT}
    subprocess.run([sys.executable, "-m", "helmlite", "run", "--spec-json", json.dumps(spec), "--results-dir", str(results),
                    "--cache", str(results / "cache.sqlite"), "--progress", "none", "--quiet"], check=True,
                   env={**os.environ, **env})
    (run,) = [p for p in results.iterdir() if p.is_dir()]
    return read_run(results, run.name).records


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--instances", type=int, default=100)
    args = parser.parse_args()
    local = load_model("smollm2-135m")
    with tempfile.TemporaryDirectory() as work:
        work = Path(work)
        gguf = gguf_file("smollm2-135m", work)
        with llama_server(gguf) as (url, _):
            print(f"server {url}: {gguf.name} (llama.cpp); transformers: {local.path} (fp32 conversion of that file)\n")
            for text in PROBES:
                lp = echo(url, text)
                first = lp["tokens"][0]
                (ours,) = local.score([ScoreRequest(first, (text[len(first):],))])
                shifted = [lp["top_logprobs"][i - 1].get(t) if i and lp["top_logprobs"][i - 1] else None
                           for i, t in enumerate(lp["tokens"])]
                print(f"{text!r}")
                print(f"  tokens (server)                 : {lp['tokens'][1:len(ours.token_logprobs[0]) + 1]}")
                print(f"  transformers fp32 log p         : {np.round(ours.token_logprobs[0], 2).tolist()}")
                print(f"  server token_logprobs           : {[round(v, 2) for v in lp['token_logprobs'][1:len(ours.token_logprobs[0]) + 1]]}")
                print(f"  server top_logprobs[i-1][token] : {[None if v is None else round(v, 2) for v in shifted[1:len(ours.token_logprobs[0]) + 1]]}")
            theirs = mmlu_joint_run("openai:smollm2", work / "served", args.instances,
                                    {"HELMLITE_OPENAI_BASE_URL": url, "HELMLITE_OPENAI_TOKENIZER": str(local.path)})
        ours = mmlu_joint_run("smollm2-135m", work / "local", args.instances, {})
    by_id = {r.id: r for r in theirs}
    n = len(ours)
    same_prompt = sum(a.prompt == by_id[a.id].prompt for a in ours)
    agree = sum(a.prediction == by_id[a.id].prediction for a in ours)
    print(f"\nMMLU us_foreign_policy (HELM's 5-shot joint prompt, the letter generated greedily), {n} instances:")
    print(f"  identical prompts: {same_prompt} of {n}")
    print(f"  same predicted letter: {agree} of {n} ({agree / n:.0%})")
    print(f"  accuracy: transformers fp32 {np.mean([bool(a.correct) for a in ours]):.3f}, "
          f"llama.cpp Q4_1 {np.mean([bool(r.correct) for r in theirs]):.3f}")


if __name__ == "__main__":
    main()
