"""The error of the plan's sampling (issue "Paper scale on real hardware" §4): runs of more than
``helmlite.planning.SAMPLE_ABOVE`` test instances are counted on ``SAMPLE_INSTANCES`` of them and scaled; this counts
such runs of a config both ways and prints, per run, the sampled / full ratio of the tokens to encode, the decoding
steps and the predicted seconds (this machine's cached rates).

One run per (scenario and arguments, method, perturbations) of one model, each counted on its own (the plan's
deduplication of requests across runs is left out on both sides, so the ratio is the sampling's alone).

    HELMLITE_DATA_MIRROR=../shared/data python benchmarks/plan_sampling_error.py [--configfile config/paper.yaml]
        [--model smollm2-135m] [--limit 12]
"""
from __future__ import annotations

import argparse
import time

import pandas as pd


def _distinct_requests(adapted) -> list:
    """A run's requests once each, in order (as the plan counts them)."""
    return list(dict.fromkeys(r for a in adapted for r in a.requests))


def main() -> None:
    from helmlite import workflow
    from helmlite.data import FetchError
    from helmlite.evaluation import load_all, split
    from helmlite.models import model_path, work_counter
    from helmlite.planning.sampling import SAMPLE_ABOVE, counted_sample
    from helmlite.planning.rates import model_rates
    from helmlite.evaluation import prepare_requests

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--configfile", default="config/paper.yaml")
    parser.add_argument("--model", default="smollm2-135m")
    parser.add_argument("--limit", type=int, default=12, help="runs to count (the first of each kind, in run-id order)")
    args = parser.parse_args()
    config = workflow.load_config(args.configfile)
    engine = config["engine"]
    counter = work_counter(args.model, batch_size=engine["batch_size"])
    rates = model_rates(args.model, model_path(args.model), threads=engine["threads"], batch_size=engine["batch_size"],
                        counter=counter)[0]
    kinds, rows = set(), []
    for run_id, spec in sorted(workflow.run_specs(config).items()):
        kind = (spec.scenario, repr(spec.args), spec.adapter.method, spec.perturbations)
        if spec.model != args.model or kind in kinds or len(rows) >= args.limit:
            continue
        try:
            everything = load_all(spec, counter)
        except FetchError as error:  # a run whose data cannot be obtained here: the plan cannot count it either
            print(f"skipped {run_id}: {error.name} cannot be obtained here", flush=True)
            continue
        test = split(spec, everything)[1]
        if len(test) <= SAMPLE_ABOVE:
            continue
        kinds.add(kind)
        sample = counted_sample(spec, everything, test)
        started = time.perf_counter()
        full = counter.count(_distinct_requests(prepare_requests(spec, counter, everything)[4]), engine["chunk_size"])
        full_s = time.perf_counter() - started
        scaled = counter.count(_distinct_requests(prepare_requests(sample.spec, counter, sample.instances)[4]),
                               engine["chunk_size"]).scaled(sample.factor)
        rows.append({"run_id": run_id, "instances": len(test), "method": spec.adapter.method,
                     "perturbations": ",".join(spec.perturbations) or "-",
                     "tokens_full": full.encoded_tokens, "tokens_ratio": scaled.encoded_tokens / max(full.encoded_tokens, 1),
                     "steps_ratio": scaled.decode_steps / full.decode_steps if full.decode_steps else float("nan"),
                     "seconds_ratio": rates.seconds(scaled) / rates.seconds(full), "full_count_s": round(full_s, 1)})
        print(rows[-1], flush=True)
    table = pd.DataFrame(rows)
    print(table.to_string(index=False, float_format=lambda v: f"{v:.3f}"))
    print(f"\nseconds ratio: median {table['seconds_ratio'].median():.3f}, range {table['seconds_ratio'].min():.3f}-"
          f"{table['seconds_ratio'].max():.3f}; tokens ratio range {table['tokens_ratio'].min():.3f}-"
          f"{table['tokens_ratio'].max():.3f}")


if __name__ == "__main__":
    main()
