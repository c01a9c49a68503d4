"""Depth sweeps with and without prefix reuse (issue #62 §2): tokens the model encodes and seconds, side by side.

A depth sweep asks each context at several depths, each with its key-absent baseline: the prompts of one context
share their text up to the needle (or gold document) — across depths, and between a query and its baseline. The
runner declares those shared levels (:mod:`helmlite.evaluation.shared_prefixes`) and the transformers backend encodes each once
and reuses its key/value cache. This script builds the default config's depth runs (SmolLM2, fp32 on CPU, one
thread) for a few contexts and scores the *same* requests three ways — reuse off (every continuation's prompt encoded
whole), each prompt encoded once for its candidates but shared with no other prompt, and with the levels shared up to
the needle (the runner's requests) — then prints tokens encoded, seconds and how far each side's per-token
log-probabilities are from those without reuse (bit-identical rows, largest absolute difference).

    HELMLITE_DATA_MIRROR=../shared/data .venv/bin/python benchmarks/depth_prefix_reuse.py [--contexts 4] [--length 512]
"""
from __future__ import annotations

import argparse
import dataclasses
import time

from helmlite import workflow
from helmlite.models import ScoreRequest, load_model
from helmlite.evaluation import prepare_requests
from helmlite.planning.design import CONTEXT_COUNTS, context_count_arg

TASKS = ("nq_multidoc", "niah")


def depth_spec(task: str, contexts: int, length: int):
    """The default config's depth run spec for SmolLM2, with ``task`` at ``length`` tokens and ``contexts`` contexts."""
    specs = workflow.run_specs(workflow.load_config("config/config.yaml")).values()
    spec = next(s for s in specs if s.model == "smollm2-135m" and "baseline" in s.perturbations)
    args = {**{k: v for k, v in spec.args if k not in CONTEXT_COUNTS}, "target_tokens": length, context_count_arg(task): contexts}
    return dataclasses.replace(spec, scenario=task, args=tuple(sorted(args.items())))


def score(model, requests, reuse: bool):
    """(results, tokens encoded, seconds) of scoring ``requests`` with prefix reuse on or off, from a cold backend."""
    model.release_prefixes()
    model.reuse_prefixes, model.encoded_tokens = reuse, 0
    started = time.perf_counter()
    results = model.score(requests)
    return results, model.encoded_tokens, time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--contexts", type=int, default=4)
    parser.add_argument("--length", type=int, default=512)
    options = parser.parse_args()
    model = load_model("smollm2-135m", threads=1)
    print(f"SmolLM2-135M, fp32, CPU, 1 thread; {options.contexts} contexts at {options.length} tokens, depths 0 / 0.5 / 1 "
          "with their baselines\n")
    print(f"{'task':12} {'requests':>8} {'side':34} {'tokens':>8} {'seconds':>8} {'identical rows':>15} {'max |Δ logprob|':>15}")
    for task in TASKS:
        *_, adapted = prepare_requests(depth_spec(task, options.contexts, options.length), model)
        requests = [r for a in adapted for r in a.requests if isinstance(r, ScoreRequest)]
        own = [dataclasses.replace(r, prefixes=()) for r in requests]  # no level shared with another prompt
        sides = {"off: every continuation encoded whole": score(model, own, reuse=False),
                 "each prompt once for its candidates": score(model, own, reuse=True),
                 "+ levels shared up to the needle": score(model, requests, reuse=True)}
        reference = next(iter(sides.values()))[0]
        for side, (results, tokens, seconds) in sides.items():
            if len(results) != len(reference) or any(a.token_counts != b.token_counts for a, b in zip(reference, results)):
                raise SystemExit(f"{task}: '{side}' scored other items than the side without reuse (token counts differ)")
            rows = [(a, b) for x, y in zip(reference, results) for a, b in zip(x.token_logprobs, y.token_logprobs)]
            identical = sum(a == b for a, b in rows)
            largest = max((abs(u - v) for a, b in rows for u, v in zip(a, b)), default=0.0)
            print(f"{task:12} {len(requests):8d} {side:34} {tokens:8,d} {seconds:8.1f} {identical:>7d} of {len(rows):<5d} "
                  f"{largest:15.2e}")
        (_, own_tokens, own_seconds), (_, shared_tokens, shared_seconds) = list(sides.values())[1:]
        print(f"{task:12} shared levels: {own_tokens / shared_tokens:.2f}x fewer tokens, {own_seconds / shared_seconds:.2f}x "
              "faster than each prompt once\n")


if __name__ == "__main__":
    main()
