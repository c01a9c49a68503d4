"""``helmlite config`` (validate a workflow config, list its run ids) and ``helmlite plan`` (what a config will run,
cost and decide, without running a model)."""
from __future__ import annotations

import os
import shlex
import sys
from pathlib import Path

from .. import workflow
from ..errors import UserError
from ..models.devices import DTYPES
from .options import int_at_least

PLAN_DESCRIPTION = ("Every run of a config with its instances, the prompt tokens the backend will encode (after prefix "
                    "reuse) and generate, predicted seconds from this machine's measured rates (calibrated once per "
                    "model, cached), sums per analysis, and each headline claim's n and minimum detectable effect.")


def register(sub) -> None:
    config = sub.add_parser("config", help="validate a workflow config against the schema shipped with helmlite")
    config.add_argument("file", help="the workflow config to check, e.g. config/config.yaml")
    config.add_argument("--runs", action="store_true", help="print the run ids the workflow will run, one per line")
    config.set_defaults(func=run)
    plan = sub.add_parser("plan", help="what a config will run, cost and decide, without running a model",
                          description=PLAN_DESCRIPTION)
    plan.add_argument("--configfile", default="config/config.yaml", help="workflow config (default: config/config.yaml)")
    plan.add_argument("--format", choices=["table", "csv"], default="table", help="a table to read, or CSV (default: table)")
    plan.add_argument("--table", choices=["runs", "analyses", "claims"], default="analyses",
                      help="which table --format csv prints (default: analyses)")
    plan.add_argument("--cores", type=int_at_least(1), help="cores the workflow will use (default: this machine's)")
    plan.add_argument("--rates-file", default="results/planner/rates.json",
                      help="where measured rates are cached (keyed by machine, threads, library versions, weights)")
    plan.add_argument("--recalibrate", action="store_true", help="measure the rates once more; the plan uses each rate's median over the last five calibrations")
    plan.add_argument("--device", help="plan the config's transformers models on this device (engine.device: auto, cpu, "
                                       "cuda, cuda:N, mps); this machine's rates price CPU float32 runs only")
    plan.add_argument("--dtype", choices=DTYPES, help="plan them in this precision (engine.dtype; part of the run ids)")
    plan.add_argument("--target-mde", type=float, metavar="D",
                      help="design for a decision: the items each headline claim needs for a minimum detectable effect "
                           "of D (e.g. 0.05) at 80%% power, and what that design costs here")
    plan.add_argument("--claims", nargs="+", metavar="NAME",
                      help="with --target-mde: size only these claims — each a claim's name verbatim (as a report's claims "
                           "table prints it) or a part of it (case-insensitive)")
    plan.add_argument("--write-config", metavar="OUT.yaml", help="with --target-mde: write the sized config here")
    plan.set_defaults(func=run)


def run(args) -> None:
    (check if args.command == "config" else show_plan)(args)


def check(args) -> None:
    config = workflow.load_config(args.file)
    workflow.check_names(config, args.file)
    workflow.check_primary_claims(config, args.file)
    _warn_about_devices(config, args.file)
    if args.runs:  # the run ids, one per line: what the workflow will run (compare with snakemake --summary, helmlite plan)
        sys.stdout.write("".join(f"{run_id}\n" for run_id in sorted(workflow.run_specs(config))))
        return
    print(f"{args.file}: valid; analyses: {', '.join(config['analyses'])}; {workflow.plan_summary(config)}")


def _warn_about_devices(config: dict, source: str) -> None:
    """One warning line per model the config places on a GPU (``cuda``, ``cuda:N``, ``mps``) that this machine cannot
    serve: a warning, not an error — the config may be meant for a cluster whose submit host has no GPU — but its run
    jobs will fail here."""
    from ..models import served_by

    models = {spec.model for spec in workflow.run_specs(config).values() if served_by(spec.model) is None}
    placed = {model: workflow.model_placement(config, model)["device"] for model in sorted(models)}
    wanted = {model: device for model, device in placed.items() if device not in ("auto", "cpu")}
    if not wanted:
        return
    from ..models import ModelError
    try:
        from ..models.devices import resolve_device
        import torch  # noqa: F401 — an install without the models extra cannot tell: no warning then
    except ImportError:
        return

    for model, device in wanted.items():
        try:
            resolve_device(device)
        except ModelError as error:
            print(f"helmlite: warning: {source}: {model} is placed on {device}, which this machine cannot serve "
                  f"({error}); its run jobs will fail here (fine on a cluster node that has it)", file=sys.stderr)


def _placed(config: dict, args, validate: bool = True) -> dict:
    """``config`` with the command line's ``--device``/``--dtype``, which override the config's placement, every model's
    own included (a GPU need not be here); validated again unless ``validate`` is false (the config as written)."""
    placement = {key: value for key, value in (("device", args.device), ("dtype", args.dtype)) if value}
    if not placement:
        return config
    engine = config.get("engine", {})
    placed = {**config, "engine": {**engine, **placement}}
    if "models" in engine:
        placed["engine"]["models"] = {m: {**own, **placement} for m, own in engine["models"].items()}
    return workflow.validate_config(placed, "--device/--dtype") if validate else placed


def _check_output(path: str, configfile: str) -> None:
    """``--write-config`` must name a new file: not the config being sized (its comments would be lost) nor a folder."""
    target = Path(path)
    if target.is_dir():
        raise UserError(f"plan --write-config: {path} is a folder; give the sized config a file name, e.g. "
                        f"{target / 'sized.yaml'}")
    if target.exists() and target.resolve() == Path(configfile).resolve():
        raise UserError(f"plan --write-config: {path} is the config being sized (--configfile); write the design to "
                        "another file, so that the config as written stays")


def show_design(args, config: dict, cores: int) -> None:
    """``plan --target-mde D``: the design's claims table (:mod:`helmlite.planning.design`), and the sized config."""
    from datetime import datetime, timezone

    import yaml

    from .._io import write_csv, write_text
    from ..planning import job_plan
    from ..planning.design import COLUMNS, design, render

    if args.write_config:
        _check_output(args.write_config, args.configfile)
    raw = _placed(yaml.safe_load(Path(args.configfile).read_text(encoding="utf-8")) or {}, args, validate=False)
    result = design(config, raw, args.target_mde, args.claims, rates_file=args.rates_file, recalibrate=args.recalibrate,
                    cores=cores)
    if args.write_config:
        stamp = datetime.now(timezone.utc).strftime("%Y-%m-%d")
        command = shlex.join(["helmlite", "plan", "--configfile", args.configfile, "--target-mde", f"{args.target_mde:g}",
                              *(["--claims", *args.claims] if args.claims else [])])
        header = (f"# Sized by `{command}` on {stamp}.\n# Each headline claim's planned n and MDE: "
                  f"`helmlite plan --configfile {shlex.quote(args.write_config)} --format csv --table claims`.\n")
        write_text(args.write_config, header + yaml.safe_dump(result.config, sort_keys=False, allow_unicode=True))
        write_csv(workflow.planned_jobs_file(args.write_config), job_plan(result.after))
    if args.format == "csv":
        tables = {"runs": result.after.runs, "analyses": result.after.analyses, "claims": result.claims[COLUMNS]}
        sys.stdout.write(tables[args.table].to_csv(index=False))
    else:
        print(render(result, cores))
        if args.write_config:
            print(f"\nwrote {args.write_config} (run it: snakemake --cores all --configfile {args.write_config})")


def show_plan(args) -> None:
    from .._io import write_csv
    from ..planning import job_plan, plan, render

    config = workflow.load_config(args.configfile)
    workflow.check_names(config, args.configfile)
    workflow.check_primary_claims(config, args.configfile)
    config = _placed(config, args)
    cores = args.cores or os.cpu_count() or 1
    if args.target_mde is not None:
        return show_design(args, config, cores)
    if args.claims or args.write_config:
        raise UserError("plan: --claims and --write-config size a design: give --target-mde D with them")
    result = plan(config, rates_file=args.rates_file, recalibrate=args.recalibrate, cores=cores)
    write_csv(workflow.planned_jobs_file(args.configfile), job_plan(result))  # the workflow's cluster time and memory limits
    if args.format == "csv":
        claims = result.claims
        if "members" in claims:  # a config with no headline claim has an empty table
            claims = claims.assign(members=[";".join(m for m in members if m) for members in claims["members"]])
        table = {"runs": result.runs, "analyses": result.analyses, "claims": claims}[args.table]
        sys.stdout.write(table.to_csv(index=False))
    else:
        print(render(result, cores))
