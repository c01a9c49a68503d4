"""``helmlite compare``: is run A better than run B on the same items? The paired verdict for two or more runs
(:mod:`helmlite.compare`)."""
from __future__ import annotations

import json
import sys

from .options import bootstrap_options


def register(sub) -> None:
    compare = sub.add_parser(
        "compare", help="is run A better than run B on the same items? the paired verdict for two or more runs",
        description="Pair two or more runs (native, or imported from crfm-helm, lm-eval or inspect_ai) on their instance "
                    "ids and give, per pair and metric: n, each run's mean with its interval, the difference with its "
                    "interval and p-value (0/1 scores: exact McNemar and Newcombe; continuous: paired bootstrap), the "
                    "minimum detectable effect, the n needed for the observed difference and the verdict on \"1st > "
                    "2nd\" (supported / contradicted / inconclusive), Holm-corrected over all pairs and metrics, and for "
                    "native runs the predicted time to run that n of both on this machine (helmlite plan's rates). "
                    "Exit status 0 whatever the verdict; 2 with one line on bad input.")
    compare.add_argument("runs", nargs="+", metavar="RUN", help="a run folder, or a run id under --results-dir")
    compare.add_argument("--results-dir", default="results/runs", help="where run ids are looked up (default: results/runs)")
    compare.add_argument("--metric", action="append", help="per-instance metric to compare (repeatable; default: the "
                                                           "runs' main metric)")
    compare.add_argument("--alpha", type=float, default=0.05, help="level of the tests; intervals at 1 − alpha (default 0.05)")
    compare.add_argument("--on-missing", choices=["error", "drop"], default="error",
                         help="an instance not in every run: an error (default), or drop it and say how many were dropped")
    compare.add_argument("--format", choices=["table", "csv", "json"], default="table",
                         help="a table with the verdicts explained, CSV or JSON (default: table)")
    compare.add_argument("--rates-file", default="results/planner/rates.json",
                         help="this machine's measured rates, as helmlite plan caches them (compare never measures them: "
                              "without them the time column says n/a)")
    bootstrap_options(compare, resamples=10_000, resamples_help="paired bootstrap resamples (continuous scores)",
                      seed_help="base seed of the bootstraps", old_seed="--seed")
    compare.set_defaults(func=run)


def run(args) -> None:
    from ..compare import compare_runs, differences, load_run, render, with_time_to_detect

    runs = [load_run(run, args.results_dir) for run in args.runs]
    table = compare_runs(runs, args.metric, alpha=args.alpha, on_missing=args.on_missing, n_resamples=args.n_resamples,
                         seed=args.bootstrap_seed)
    table = with_time_to_detect(table, runs, rates_file=args.rates_file)
    for line in differences(runs):
        print(f"helmlite: warning: {line}", file=sys.stderr)
    if args.format == "csv":
        sys.stdout.write(table.to_csv(index=False, lineterminator="\n"))
    elif args.format == "json":
        rows = json.loads(table.to_json(orient="records"))  # NaN -> null
        print(json.dumps({"alpha": args.alpha, "runs": [run.run_id for run in runs], "comparisons": rows}, indent=1,
                         ensure_ascii=False))
    else:
        sys.stdout.write(render(table, runs, args.alpha))
