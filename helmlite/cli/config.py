"""``helmlite config`` (validate a workflow config, list its run ids) and ``helmlite plan`` (what a config will run,
cost and decide, without running a model)."""
from __future__ import annotations

import os
import sys

from .. import workflow
from ..models.devices import DTYPES
from .options import int_at_least

PLAN_DESCRIPTION = ("Every run of a config with its instances, the prompt tokens the backend will encode (after prefix "
                    "reuse) and generate, predicted seconds from this machine's measured rates (calibrated once per "
                    "model, cached), sums per analysis, and each headline claim's n and minimum detectable effect.")


def register(sub) -> None:
    config = sub.add_parser("config", help="validate a workflow config against the schema shipped with helmlite")
    config.add_argument("file")
    config.add_argument("--runs", action="store_true", help="print the run ids the workflow will run, one per line")
    config.set_defaults(func=run)
    plan = sub.add_parser("plan", help="what a config will run, cost and decide, without running a model",
                          description=PLAN_DESCRIPTION)
    plan.add_argument("--configfile", default="config/config.yaml", help="workflow config (default: config/config.yaml)")
    plan.add_argument("--format", choices=["table", "csv"], default="table")
    plan.add_argument("--table", choices=["runs", "analyses", "claims"], default="analyses",
                      help="which table --format csv prints (default: analyses)")
    plan.add_argument("--cores", type=int_at_least(1), help="cores the workflow will use (default: this machine's)")
    plan.add_argument("--rates-file", default="results/planner/rates.json",
                      help="where measured rates are cached (keyed by machine, threads, library versions, weights)")
    plan.add_argument("--recalibrate", action="store_true", help="measure the rates once more; the plan uses each rate's median over the last five calibrations")
    plan.add_argument("--device", help="plan the config's transformers models on this device (engine.device: auto, cpu, "
                                       "cuda, cuda:N, mps); this machine's rates price CPU float32 runs only")
    plan.add_argument("--dtype", choices=DTYPES, help="plan them in this precision (engine.dtype; part of the run ids)")
    plan.set_defaults(func=run)


def run(args) -> None:
    (check if args.command == "config" else show_plan)(args)


def check(args) -> None:
    config = workflow.load_config(args.file)
    workflow.check_names(config, args.file)
    if args.runs:  # the run ids, one per line: what the workflow will run (compare with snakemake --summary, helmlite plan)
        sys.stdout.write("".join(f"{run_id}\n" for run_id in sorted(workflow.run_specs(config))))
        return
    print(f"{args.file}: valid; analyses: {', '.join(config['analyses'])}; {workflow.plan_summary(config)}")


def show_plan(args) -> None:
    from .._io import write_csv
    from ..planning import job_plan, plan, render

    config = workflow.load_config(args.configfile)
    workflow.check_names(config, args.configfile)
    placement = {key: value for key, value in (("device", args.device), ("dtype", args.dtype)) if value}
    if placement:  # a command-line placement overrides the config's, every model's own included (a GPU need not be here)
        engine = config["engine"]
        config = workflow.validate_config(
            {**config, "engine": {**engine, **placement,
                                  "models": {m: {**own, **placement} for m, own in engine.get("models", {}).items()}}},
            "--device/--dtype")
    cores = args.cores or os.cpu_count() or 1
    result = plan(config, rates_file=args.rates_file, recalibrate=args.recalibrate, cores=cores)
    write_csv(workflow.planned_jobs_file(args.configfile), job_plan(result))  # the workflow's cluster time and memory limits
    if args.format == "csv":
        table = {"runs": result.runs, "analyses": result.analyses, "claims": result.claims}[args.table]
        sys.stdout.write(table.to_csv(index=False))
    else:
        print(render(result, cores))
