"""``helmlite import helm|lm-eval|inspect``: runs made by crfm-helm, lm-eval or inspect_ai as helmlite runs, with
per-instance records and intervals (:mod:`helmlite.imports`)."""
from __future__ import annotations

from ..errors import HelmliteError
from .options import bootstrap_options

SOURCES = (("helm", "crfm-helm run folder(s): benchmark_output/runs/<suite>/<run>/"),
           ("lm-eval", "lm-eval --log_samples file(s): samples_<task>_<date>.jsonl"),
           ("inspect", "inspect_ai log file(s): logs/<date>_<task>_<id>.eval or .json"))


def register(sub) -> None:
    import_cmd = sub.add_parser("import", help="import runs made by crfm-helm, lm-eval or inspect_ai as helmlite runs "
                                               "(per-instance records, CIs)")
    sources = import_cmd.add_subparsers(dest="action", required=True)
    for action, paths_help in SOURCES:
        source = sources.add_parser(action, help=f"import {paths_help}")
        source.add_argument("paths", nargs="+", metavar="PATH", help=paths_help)
        source.add_argument("--results-dir", default="results/runs", help="where the run folders go (default: results/runs)")
        source.add_argument("--model", help="model name of the imported run (default: the one the tool recorded)")
        bootstrap_options(source)
        if action == "helm":
            source.add_argument("--main-metric", help="main metric (default: exact_match, else HELM's first accuracy metric)")
            source.add_argument("--split", default="test", help="HELM evaluation split to import (HELM aggregates each apart)")
            source.add_argument("--helm-version", help="crfm-helm version to record (a HELM run folder does not record it)")
        elif action == "lm-eval":
            source.add_argument("--filter", help="lm-eval filter whose responses to import (default: none, else the first)")
        else:
            source.add_argument("--scorer", help="inspect scorer whose scores to import (default: the log's first)")
        source.set_defaults(func=run)


def _import_one(args, source: str) -> list:
    from ..imports import import_helm, import_inspect, import_lm_eval

    boot = {"n_resamples": args.n_resamples, "seed": args.bootstrap_seed}
    if args.action == "helm":
        return import_helm(source, args.results_dir, model=args.model, main_metric=args.main_metric, split=args.split,
                           version=args.helm_version, **boot)
    if args.action == "lm-eval":
        return [import_lm_eval(source, args.results_dir, model=args.model, filter_name=args.filter, **boot)]
    return [import_inspect(source, args.results_dir, model=args.model, scorer=args.scorer, **boot)]


def run(args) -> None:
    from ..results import read_run

    written = []
    for source in args.paths:
        try:
            folders = _import_one(args, source)
        except HelmliteError as error:  # say what the sources before this one already wrote
            if not written:
                raise
            raise type(error)(f"{error} (imported before it: {', '.join(f.name for f in written)}; nothing of "
                              f"{source} was written)") from None
        for folder in folders:  # one line per run as soon as it is written
            run = read_run(args.results_dir, folder.name)
            main = run.stats.metrics[run.main_metric]
            print(f"{run.run_id}: {run.main_metric} = {main.mean:.3f} [{main.ci_low:.3f}, {main.ci_high:.3f}] "
                  f"(n={run.stats.n_instances}, {main.method}) -> {folder}", flush=True)
        written += folders
