"""Depth sweeps with and without prefix reuse (issue #62 §2): tokens the model encodes and seconds, side by side.

A depth sweep asks each context at several depths, each with its key-absent baseline: the prompts of one context
share their text up to the needle (or gold document) — across depths, and between a query and its baseline. The
runner declares those shared levels (:mod:`helmlite.shared_prefixes`) and the transformers backend encodes each once
and reuses its key/value cache. This script builds the default config's depth runs (SmolLM2, fp32 on CPU, one
thread) for a few contexts and scores the *same* requests twice — reuse off (every prompt encoded whole) and on —
then prints tokens encoded, seconds, their ratios and how far the per-token log-probabilities of the two sides differ
(bit-identical rows, largest absolute difference).

    HELMLITE_DATA_MIRROR=../shared/data .venv/bin/python benchmarks/depth_prefix_reuse.py [--contexts 4] [--length 512]
"""
from __future__ import annotations

import argparse
import dataclasses
import time

from helmlite import workflow
from helmlite.models import ScoreRequest, load_model
from helmlite.runner import prepare_requests
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
    print(f"{'task':12} {'requests':>8} {'tokens off':>10} {'tokens on':>9} {'ratio':>6} {'s off':>7} {'s on':>6} "
          f"{'speed-up':>8} {'identical rows':>14} {'max |Δ logprob|':>15}")
    for task in TASKS:
        *_, adapted = prepare_requests(depth_spec(task, options.contexts, options.length), model)
        requests = [r for a in adapted for r in a.requests if isinstance(r, ScoreRequest)]
        off, tokens_off, seconds_off = score(model, requests, reuse=False)
        on, tokens_on, seconds_on = score(model, requests, reuse=True)
        if len(off) != len(on) or any(a.token_counts != b.token_counts for a, b in zip(off, on)):
            raise SystemExit(f"{task}: the two sides scored different items (token counts differ)")
        rows = [(a, b) for x, y in zip(off, on) for a, b in zip(x.token_logprobs, y.token_logprobs)]
        identical = sum(a == b for a, b in rows)
        largest = max((abs(u - v) for a, b in rows for u, v in zip(a, b)), default=0.0)
        print(f"{task:12} {len(requests):8d} {tokens_off:10,d} {tokens_on:9,d} {tokens_off / tokens_on:5.2f}x "
              f"{seconds_off:7.1f} {seconds_on:6.1f} {seconds_off / seconds_on:7.2f}x {identical:>7d} of {len(rows):<4d} "
              f"{largest:15.2e}")


if __name__ == "__main__":
    main()
