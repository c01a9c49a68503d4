"""``helmlite`` command line: ``fetch``, ``models``, ``run``, ``prompts``, ``leaderboard``, ``import``, ``compare``, ``config``,
``plan``, ``notebook``, ``html``, ``index``.

Every expected failure — a :class:`~helmlite.errors.HelmliteError` (bad config, unknown name, missing
data, malformed file) or a command-line usage mistake — ends with exactly one line ``helmlite: error: …``
on stderr and exit status 2, never a traceback. ``python -m helmlite`` is the same command.
"""
from __future__ import annotations

import argparse
import contextlib
import gc
import json
import os
import sys
from pathlib import Path

from . import __version__, data, workflow
from .catalog import ANALYSES
from ._names import did_you_mean
from .errors import HelmliteError, UserError


def _fetch(args) -> None:
    if args.list:
        for name, item in sorted(data.registry().items()):
            origin = "mirror-only" if item.mirror_only else item.url
            print(f"{name}\t{item.license}\t{origin}")
        return
    names = list(args.names)
    if args.all:
        names += sorted(data.registry())
    for source in args.source or ():
        names += [item.name for item in data.source_files(source)]
    if args.for_config:
        names += workflow.required_data(workflow.load_config(args.for_config))
    if not names:
        raise UserError("fetch: name files to fetch, or use --all / --source ID / --for-config FILE / --list")
    for name in dict.fromkeys(names):
        print(f"{name} -> {data.fetch(name)}")


def _models(args) -> None:
    from . import models

    if args.action == "list":
        for row in models.status():
            state = "prepared" if row["prepared"] else ("not prepared" if row["installed"] else "not installed")
            print(f"{row['name']:14} {state:13} {row['package']:38} {row['license']:20} {row['description']}")
        print(f"(prepared models live in {models.model_dir()}; `helmlite models prepare NAME` prepares one)")
        return
    names = list(models.EMBEDDED) if args.all else args.names
    if not names:
        raise UserError("models prepare: name a model (" + ", ".join(models.EMBEDDED) + ") or use --all")
    for name in names:
        print(f"{name} -> {models.prepare(name)}")


def _run(args) -> None:
    from .metrics import families
    from .models import load_model
    from .models.cache import CachedModel, RequestCache
    from .results import read_run
    from .runner import RunSpec, execute

    if args.spec_json:
        try:
            raw = json.loads(args.spec_json)
        except json.JSONDecodeError as error:
            raise UserError(f"--spec-json: not valid JSON ({error}); expected a run spec object or a list of them") from None
    elif args.spec:
        raw = _read_spec_file(args.spec)
    else:
        raw = {"scenario": args.scenario, "model": args.model, "max_instances": args.max_instances,
               "args": dict(_key_value(a) for a in args.arg or ()),
               "adapter": {"method": args.method} if args.method else {}}
        if not args.scenario or not args.model:
            raise UserError("run: give --spec FILE, --spec-json JSON, or --scenario and --model")
    items = raw if isinstance(raw, list) else [raw]
    if not items or not all(isinstance(item, dict) for item in items):
        raise UserError("run spec: expected a mapping (scenario, model, ...) or a non-empty list of them")
    specs = [RunSpec.from_dict(item) for item in items]
    _writable_folder(args.results_dir, "--results-dir")  # before any model loads, not after the first run
    if args.quiet or args.progress != "bar":  # transformers' own "Loading weights" bar, too, only where bars are wanted
        os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
        try:
            from transformers.utils import logging as transformers_logging
        except ImportError:  # an install without the models extra (OpenAI-compatible servers only)
            pass
        else:
            transformers_logging.disable_progress_bar()
    cache = RequestCache(args.cache)
    families.import_libraries(specs)  # the job's start-up pays the metrics' imports, not its first run
    for name in dict.fromkeys(spec.model for spec in specs):  # each model is loaded once for all its runs
        model = CachedModel(load_model(name, threads=args.threads, batch_size=args.batch_size), cache,
                            chunk_size=args.chunk_size, progress="none" if args.quiet else args.progress)
        # what is alive now (torch, transformers, the model) moves to the collector's permanent generation, so its
        # full passes during the runs do not walk it: a BBQ run's preparation 0.74 -> 0.39 s (side by side, 2026-12-02);
        # unfrozen after this model's runs, so the next model's load can collect what this one leaves
        gc.collect()
        gc.freeze()
        for spec in (s for s in specs if s.model == name):
            calls, hits = model.calls, model.hits
            model.label = spec.run_id
            out = execute(spec, model, results_dir=args.results_dir, n_resamples=args.n_resamples, seed=args.bootstrap_seed)
            stats = read_run(args.results_dir, spec.run_id).stats
            main = stats.metrics.get(stats.main_metric)
            shown = f"{main.mean:.3f} [{main.ci_low:.3f}, {main.ci_high:.3f}]" if main else "n/a"
            print(f"{spec.run_id}: {stats.main_metric} = {shown} (n={stats.n_instances}; model calls {model.calls - calls}, "
                  f"cache hits {model.hits - hits}) -> {out}", flush=True)
        gc.unfreeze()


def _writable_folder(path: str, option: str) -> None:
    """One :class:`UserError` naming the option and the path unless ``path`` is a writable folder or can be made one
    (its nearest existing ancestor is a writable folder); nothing is created here."""
    existing = Path(path)
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    if not existing.is_dir():
        reason = "a file is in the way" if existing == Path(path) else f"{existing} is a file, not a folder"
        raise UserError(f"{option} {path}: cannot be used as a folder ({reason})")
    if not os.access(existing, os.W_OK | os.X_OK):
        raise UserError(f"{option} {path}: {existing} is not writable")


def _prompts(args) -> None:
    from .instances import adapted_prompts
    from .runspec import RunSpec

    adapter = {"selection": args.adaptation, "seed": args.seed}
    if args.method:
        adapter["method"] = args.method
    spec = RunSpec.from_dict({"scenario": args.scenario, "model": "none", "max_instances": args.max_instances,
                              "data_seed": args.data_seed, "args": dict(_key_value(a) for a in args.arg or ()),
                              "adapter": adapter, "perturbations": [args.perturbation] if args.perturbation else []})
    for instance_id, prompt in adapted_prompts(spec, variant=args.perturbation or "identity"):
        sys.stdout.write(json.dumps({"id": instance_id, "prompt": prompt}, ensure_ascii=False) + "\n")


def _read_spec_file(path: str) -> object:
    """The parsed YAML of a ``--spec`` file; a missing, unreadable or malformed file is a :class:`UserError`."""
    import yaml

    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as error:
        raise UserError(f"--spec {path}: cannot read the run spec file ({error.strerror})") from None
    except UnicodeDecodeError:
        raise UserError(f"--spec {path}: not a UTF-8 text file") from None
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        raise UserError(f"--spec {path}: not valid YAML ({getattr(error, 'problem', None) or error}{where})") from None


def _key_value(text: str) -> tuple[str, object]:
    """``--arg key=value``: the value parsed as JSON when it is JSON (numbers, booleans), else the string."""
    key, sep, value = text.partition("=")
    if not sep:
        raise UserError(f"run: --arg expects key=value, got {text!r}")
    try:
        return key, json.loads(value)
    except json.JSONDecodeError:
        return key, value


def _leaderboard(args) -> None:
    from .analyses.helm_core.leaderboard import parse_columns
    from .analyses.helm_core.winrates import winrates_table

    table = winrates_table(args.table, args.group, args.scenarios, args.tie_rule, n_resamples=args.n_resamples,
                           seed=args.seed, columns=parse_columns(args.columns))
    if table.attrs["columns"]:  # which column played each role, so a misread table is seen at once
        print("helmlite: read columns " + ", ".join(f"{role}={column}" for role, column in table.attrs["columns"].items()),
              file=sys.stderr)
    sys.stdout.write(table.to_csv(index=False, float_format="%.4f", lineterminator="\n"))


def _import(args) -> None:
    from .imports import import_helm, import_inspect, import_lm_eval
    from .results import read_run

    boot = {"n_resamples": args.n_resamples, "seed": args.bootstrap_seed}
    written = []
    for source in args.paths:
        try:
            if args.action == "helm":
                folders = import_helm(source, args.results_dir, model=args.model, main_metric=args.main_metric,
                                      split=args.split, version=args.helm_version, **boot)
            elif args.action == "lm-eval":
                folders = [import_lm_eval(source, args.results_dir, model=args.model, filter_name=args.filter, **boot)]
            else:
                folders = [import_inspect(source, args.results_dir, model=args.model, scorer=args.scorer, **boot)]
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


def _compare(args) -> None:
    from .compare import compare_runs, differences, load_run, render

    runs = [load_run(run, args.results_dir) for run in args.runs]
    table = compare_runs(runs, args.metric, alpha=args.alpha, on_missing=args.on_missing, n_resamples=args.n_resamples,
                         seed=args.seed)
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


def _config(args) -> None:
    config = workflow.load_config(args.file)
    workflow.check_names(config, args.file)
    if args.runs:  # the run ids, one per line: what the workflow will run (compare with snakemake --summary, helmlite plan)
        sys.stdout.write("".join(f"{run_id}\n" for run_id in sorted(workflow.run_specs(config))))
        return
    print(f"{args.file}: valid; analyses: {', '.join(config['analyses'])}; {workflow.plan_summary(config)}")


def _plan(args) -> None:
    from ._io import write_csv
    from .planning import job_plan, plan, render

    config = workflow.load_config(args.configfile)
    workflow.check_names(config, args.configfile)
    cores = args.cores or os.cpu_count() or 1
    result = plan(config, rates_file=args.rates_file, recalibrate=args.recalibrate, cores=cores)
    write_csv(workflow.planned_jobs_file(args.configfile), job_plan(result))  # the workflow's cluster time and memory limits
    if args.format == "csv":
        table = {"runs": result.runs, "analyses": result.analyses, "claims": result.claims}[args.table]
        sys.stdout.write(table.to_csv(index=False))
    else:
        print(render(result, cores))


class NotebookError(HelmliteError):
    """An analysis notebook stopped with an error; the message is the notebook's own last error line."""


def _notebook(args) -> None:
    """Execute a notebook with papermill into ``out`` (a temp file renamed on success): the cell outputs go
    to stderr as papermill logs them, and a failing cell ends in one line — the exception the notebook
    raised (e.g. a results reader's message naming the file and the fix) — not its traceback."""
    import logging

    import papermill

    from ._io import atomic_path

    if not Path(args.notebook).is_file():
        raise UserError(f"notebook: {args.notebook} not found")
    try:
        parameters = json.loads(args.parameters_json) if args.parameters_json else {}
    except json.JSONDecodeError as error:
        raise UserError(f"notebook: --parameters-json is not valid JSON ({error})") from None
    if not isinstance(parameters, dict):
        raise UserError(f"notebook: --parameters-json must be a JSON object of notebook parameters, got {parameters!r}")
    _check_notebook_parameters(args.notebook, parameters)
    _check_kernel(args.kernel)
    logging.basicConfig(level=logging.INFO, format="%(message)s")  # papermill's log of each cell: the job's log
    try:
        with atomic_path(Path(args.out)) as tmp:
            executed = tmp.with_name(tmp.name + ".ipynb")  # papermill wants a notebook's extension
            try:
                # the kernel's own stderr (helmlite's log lines) goes to this process's stderr, the job's log, instead of
                # into the cells' outputs: IPython kernels capture file-descriptor output unless told not to
                papermill.execute_notebook(args.notebook, str(executed), parameters=parameters, kernel_name=args.kernel,
                                           cwd=".", log_output=True, progress_bar=False,
                                           extra_arguments=["--IPKernelApp.capture_fd_output=False"])
                executed.replace(tmp)
            finally:
                executed.unlink(missing_ok=True)
    except papermill.PapermillExecutionError as error:
        raise NotebookError(f"{args.notebook}: {error.ename}: {error.evalue}") from None


def _site_config(args) -> tuple[dict | None, str | None]:
    """The workflow config a page belongs to (``--config FILE`` or ``--config-json``) and the config file's name
    its header shows (``--configfile``, else FILE); (None, None) without one."""
    if args.config:
        return workflow.load_config(args.config), args.configfile or args.config
    if args.config_json:
        return workflow.parse_config(args.config_json, "--config-json"), args.configfile or "the config given as JSON"
    return None, None


def _check_notebook_parameters(notebook: str, parameters: dict) -> None:
    """Every given name is one of the notebook's parameters (its cell tagged ``parameters``, read by papermill's own
    ``inspect_notebook``): a misspelt one would be ignored and the notebook run on its defaults."""
    import papermill

    known = list(papermill.inspect_notebook(notebook))
    for name in parameters:
        if name not in known:
            raise UserError(f"notebook {notebook}: unknown parameter {name!r}; its parameters: {', '.join(known)}."
                            f"{did_you_mean(name, known)}")


def _check_kernel(name: str) -> None:
    from jupyter_client.kernelspec import KernelSpecManager

    kernels = sorted(KernelSpecManager().find_kernel_specs())
    if name not in kernels:
        raise UserError(f"notebook: no Jupyter kernel named {name!r}; installed: {', '.join(kernels) or 'none'} "
                        f"(`make venv` registers the helmlite kernel).{did_you_mean(name, kernels)}")


def _html(args) -> None:
    from .report import notebook_to_html, pages, run_facts

    if not Path(args.notebook).is_file():
        raise UserError(f"html: notebook {args.notebook} not found")
    config, configfile = _site_config(args)
    if config is None:
        notebook_to_html(args.notebook, args.out)
        return
    analysis = next((a for a in workflow.enabled(config) if a.notebook == Path(args.notebook).stem), None)
    here = Path(args.out).parent
    links = {"executed notebook": os.path.relpath(args.notebook, here)}
    if analysis is not None:
        links["provenance manifest"] = os.path.relpath(workflow.outputs(config, analysis)["manifest"], here)
    notebook_to_html(args.notebook, args.out, pages(config), run_facts(config, configfile, analysis), links)


def _index(args) -> None:
    from .report import index_page, pages, run_facts

    config, configfile = _site_config(args)
    entries = []
    for analysis in workflow.enabled(config):
        files = workflow.outputs(config, analysis)
        files["html"] = files["notebook"][: -len(".ipynb")] + ".html"
        entries.append((analysis, files))
    index_page(entries, args.out, pages(config), run_facts(config, configfile))


class _Parser(argparse.ArgumentParser):
    """An argument parser that raises :class:`UserError` on a usage mistake, so it is reported like any other error."""

    def error(self, message: str):
        """Raise ``UserError("<subcommand>: <message> (see `helmlite <subcommand> --help`)")``."""
        where = self.prog.removeprefix("helmlite").strip()
        raise UserError(f"{where + ': ' if where else ''}{message} (see `{self.prog} --help`)")


#: The fewest bootstrap resamples any command accepts (as the config schema's bootstrap.n_resamples).
MIN_RESAMPLES = 100


def _int_at_least(minimum: int):
    """An argparse type: a whole number >= ``minimum``, else the option's one-line error naming the bound."""
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number >= {minimum}, got {text!r}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"must be at least {minimum}, got {value}")
        return value
    return parse


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="helmlite", description=__doc__.splitlines()[0])
    parser.add_argument("--version", action="version", version=f"helmlite {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    fetch = sub.add_parser("fetch", help="fetch registered data files (cache → $HELMLITE_DATA_MIRROR → download)")
    fetch.add_argument("names", nargs="*", help="registry names, e.g. helmet/agg_results_128k.csv")
    fetch.add_argument("--all", action="store_true", help="every registered file")
    fetch.add_argument("--source", action="append", help="every file of one source id (repeatable)")
    fetch.add_argument("--for-config", metavar="FILE", help="every file the analyses enabled in a config need")
    fetch.add_argument("--list", action="store_true", help="list the registry")
    fetch.set_defaults(func=_fetch)
    models_cmd = sub.add_parser("models", help="list or prepare the embedded models")
    models_cmd.add_argument("action", choices=["list", "prepare"])
    models_cmd.add_argument("names", nargs="*")
    models_cmd.add_argument("--all", action="store_true", help="prepare every embedded model")
    models_cmd.set_defaults(func=_models)
    run = sub.add_parser("run", help="execute one run spec into results/runs/<run_id>/ (cached, resumable)")
    run.add_argument("--spec", help="a YAML file with one run spec, or a list of them")
    run.add_argument("--spec-json", help="a run spec, or a list of run specs, as JSON (what Snakemake passes); "
                                         "each model is loaded once for all its runs")
    run.add_argument("--scenario")
    run.add_argument("--model")
    run.add_argument("--arg", action="append", help="scenario argument key=value (repeatable)")
    run.add_argument("--method", help="adaptation method (default: the scenario's)")
    run.add_argument("--max-instances", type=_int_at_least(1))
    run.add_argument("--results-dir", default="results/runs")
    run.add_argument("--cache", help="request cache file (default $HELMLITE_REQUEST_CACHE or results/cache/requests.sqlite)")
    run.add_argument("--threads", type=_int_at_least(1), default=1, help="torch threads (Snakemake passes the rule's threads)")
    run.add_argument("--batch-size", type=_int_at_least(1), default=8,
                     help="one-row scoring requests (joint multiple-choice letters) per forward pass; changes no stored value (tested bit for bit: fp32, CPU, one thread)")
    run.add_argument("--chunk-size", type=_int_at_least(1), default=32, help="requests per cache commit (the unit of resumption)")
    run.add_argument("--n-resamples", type=_int_at_least(MIN_RESAMPLES), default=2000, help="bootstrap resamples of every interval in stats.json")
    run.add_argument("--bootstrap-seed", type=int, default=0, help="base seed of every bootstrap in stats.json")
    run.add_argument("--progress", choices=["bar", "lines", "none"], default="bar",
                     help="per-request progress with an ETA: a terminal bar, or a line every 30 s (what run jobs print)")
    run.add_argument("--quiet", action="store_true", help="no progress display (--progress none)")
    run.set_defaults(func=_run)
    prompts = sub.add_parser(
        "prompts", help="write a scenario's adapted prompts as JSONL on stdout without loading a model",
        description="Write the adapted prompt of every evaluation instance (after --max-instances subsampling) as JSON "
                    "lines {\"id\", \"prompt\"} on stdout, without loading a model: inspect prompts before spending "
                    "compute (HELM's dry run, lm-eval's --write_out). No tokenizer is loaded: a whitespace word count "
                    "stands in for token counts and the context is unbounded, so prompts are never truncated here (a "
                    "real run drops in-context examples, then cuts the input, when a prompt exceeds the model's context), "
                    "and scenarios that size their inputs in tokens count words. For separate multiple choice the prompt "
                    "is the text before each scored answer.")
    prompts.add_argument("--scenario", required=True)
    prompts.add_argument("--arg", action="append", help="scenario argument key=value (repeatable)")
    prompts.add_argument("--max-instances", type=_int_at_least(1), help="subsample this many evaluation instances (default: all)")
    prompts.add_argument("--method", help="adaptation method (default: the scenario's)")
    prompts.add_argument("--adaptation", default="helm_compat", choices=["helm_compat", "hashed"],
                         help="helm_compat: crfm-helm's example selection and test subsampling, byte-identical prompts; "
                              "hashed: helmlite's hashed, letter-balanced selection")
    prompts.add_argument("--seed", type=_int_at_least(0), default=0, help="in-context selection seed (HELM's train trial index)")
    prompts.add_argument("--data-seed", type=_int_at_least(0), default=0, help="test subsampling seed (HELM always uses 0)")
    prompts.add_argument("--perturbation", help="the prompts under this perturbation (e.g. robustness: HELM's MildMix, "
                                                "seeded as crfm-helm seeds it under helm_compat)")
    prompts.set_defaults(func=_prompts)
    leaderboard = sub.add_parser("leaderboard", help="statistics of a leaderboard table (HELM JSON/CSV export or long format)")
    board = leaderboard.add_subparsers(dest="action", required=True)
    winrates = board.add_parser("winrates", help="mean win rate per model with a bootstrap CI over scenarios (CSV on stdout)")
    winrates.add_argument("--table", required=True, help="HELM groups JSON, a wide CSV or a long table (model × scenario × metric)")
    winrates.add_argument("--group", default="Accuracy", help="metric group (tab), e.g. Accuracy, Calibration, Robustness")
    winrates.add_argument("--scenarios", help="comma-separated scenario names as the table spells them (default: all)")
    winrates.add_argument("--tie-rule", default="v0.4.0", choices=["v0.4.0", "half"],
                          help="v0.4.0: ties broken by row order (HELM v0.4.0); half: ties count half (HELM v0.5.4 and later)")
    winrates.add_argument("--columns", help="a long table's columns by role when its names are not the usual ones: "
                                            "model=COL,scenario=COL,metric=COL,score=COL[,lower_is_better=COL,group=COL]")
    winrates.add_argument("--n-resamples", type=_int_at_least(MIN_RESAMPLES), default=2000,
                          help="bootstrap resamples of each win rate's interval over scenarios")
    winrates.add_argument("--seed", type=int, default=0)
    winrates.set_defaults(func=_leaderboard)
    import_cmd = sub.add_parser("import", help="import runs made by crfm-helm, lm-eval or inspect_ai as helmlite runs "
                                               "(per-instance records, CIs)")
    sources = import_cmd.add_subparsers(dest="action", required=True)
    for action, paths_help in (("helm", "crfm-helm run folder(s): benchmark_output/runs/<suite>/<run>/"),
                               ("lm-eval", "lm-eval --log_samples file(s): samples_<task>_<date>.jsonl"),
                               ("inspect", "inspect_ai log file(s): logs/<date>_<task>_<id>.eval or .json")):
        source = sources.add_parser(action, help=f"import {paths_help}")
        source.add_argument("paths", nargs="+", metavar="PATH", help=paths_help)
        source.add_argument("--results-dir", default="results/runs")
        source.add_argument("--model", help="model name of the imported run (default: the one the tool recorded)")
        source.add_argument("--n-resamples", type=_int_at_least(MIN_RESAMPLES), default=2000, help="bootstrap resamples of every interval in stats.json")
        source.add_argument("--bootstrap-seed", type=int, default=0, help="base seed of every bootstrap in stats.json")
        if action == "helm":
            source.add_argument("--main-metric", help="main metric (default: exact_match, else HELM's first accuracy metric)")
            source.add_argument("--split", default="test", help="HELM evaluation split to import (HELM aggregates each apart)")
            source.add_argument("--helm-version", help="crfm-helm version to record (a HELM run folder does not record it)")
        elif action == "lm-eval":
            source.add_argument("--filter", help="lm-eval filter whose responses to import (default: none, else the first)")
        else:
            source.add_argument("--scorer", help="inspect scorer whose scores to import (default: the log's first)")
        source.set_defaults(func=_import)
    compare = sub.add_parser(
        "compare", help="is run A better than run B on the same items? the paired verdict for two or more runs",
        description="Pair two or more runs (native, or imported from crfm-helm, lm-eval or inspect_ai) on their instance "
                    "ids and give, per pair and metric: n, each run's mean with its interval, the difference with its "
                    "interval and p-value (0/1 scores: exact McNemar and Newcombe; continuous: paired bootstrap), the "
                    "minimum detectable effect, the n needed for the observed difference and the verdict on \"1st > "
                    "2nd\" (supported / contradicted / inconclusive), Holm-corrected over all pairs and metrics. Exit "
                    "status 0 whatever the verdict; 2 with one line on bad input.")
    compare.add_argument("runs", nargs="+", metavar="RUN", help="a run folder, or a run id under --results-dir")
    compare.add_argument("--results-dir", default="results/runs", help="where run ids are looked up (default: results/runs)")
    compare.add_argument("--metric", action="append", help="per-instance metric to compare (repeatable; default: the "
                                                           "runs' main metric)")
    compare.add_argument("--alpha", type=float, default=0.05, help="level of the tests; intervals at 1 − alpha (default 0.05)")
    compare.add_argument("--on-missing", choices=["error", "drop"], default="error",
                         help="an instance not in every run: an error (default), or drop it and say how many were dropped")
    compare.add_argument("--format", choices=["table", "csv", "json"], default="table")
    compare.add_argument("--n-resamples", type=_int_at_least(MIN_RESAMPLES), default=10_000, help="paired bootstrap resamples (continuous scores)")
    compare.add_argument("--seed", type=int, default=0, help="base seed of the bootstraps")
    compare.set_defaults(func=_compare)
    config = sub.add_parser("config", help="validate a workflow config against the schema shipped with helmlite")
    config.add_argument("file")
    config.add_argument("--runs", action="store_true", help="print the run ids the workflow will run, one per line")
    config.set_defaults(func=_config)
    plan_cmd = sub.add_parser("plan", help="what a config will run, cost and decide, without running a model",
                              description="Every run of a config with its instances, the prompt tokens the backend will "
                                          "encode (after prefix reuse) and generate, predicted seconds from this machine's "
                                          "measured rates (calibrated once per model, cached), sums per analysis, and each "
                                          "headline claim's n and minimum detectable effect.")
    plan_cmd.add_argument("--configfile", default="config/config.yaml", help="workflow config (default: config/config.yaml)")
    plan_cmd.add_argument("--format", choices=["table", "csv"], default="table")
    plan_cmd.add_argument("--table", choices=["runs", "analyses", "claims"], default="analyses",
                          help="which table --format csv prints (default: analyses)")
    plan_cmd.add_argument("--cores", type=_int_at_least(1), help="cores the workflow will use (default: this machine's)")
    plan_cmd.add_argument("--rates-file", default="results/planner/rates.json",
                          help="where measured rates are cached (keyed by machine, threads, library versions, weights)")
    plan_cmd.add_argument("--recalibrate", action="store_true", help="measure the rates once more; the plan uses each rate's median over the last five calibrations")
    plan_cmd.set_defaults(func=_plan)
    notebook = sub.add_parser("notebook", help="execute an analysis notebook with papermill (what the workflow runs)")
    notebook.add_argument("notebook")
    notebook.add_argument("out")
    notebook.add_argument("--parameters-json", help="the notebook parameters as a JSON object")
    notebook.add_argument("--kernel", default="helmlite", help="Jupyter kernel (default: helmlite)")
    notebook.set_defaults(func=_notebook)
    html = sub.add_parser("html", help="render an executed notebook as one self-contained page of the reports site")
    html.add_argument("notebook")
    html.add_argument("out")
    _site_options(html, required=False)
    html.set_defaults(func=_html)
    index = sub.add_parser("index", help=f"write the landing page linking every report ({', '.join(ANALYSES)})")
    _site_options(index, required=True)
    index.add_argument("--out", required=True)
    index.set_defaults(func=_index)
    return parser


def _site_options(command, required: bool) -> None:
    """The workflow config whose site a page belongs to (navigation, the run's facts)."""
    given = command.add_mutually_exclusive_group(required=required)
    given.add_argument("--config", help="a workflow config file")
    given.add_argument("--config-json", help="the workflow config as JSON (what Snakemake passes)")
    command.add_argument("--configfile", help="the config file's name shown in the header and used to find its plan "
                         "(default: --config's file)")


def _log_to_stderr() -> None:
    """helmlite's warnings (e.g. optional data that cannot be fetched) as "helmlite: …" lines on stderr, once."""
    import logging

    logger = logging.getLogger("helmlite")
    if not any(getattr(handler, "_helmlite_cli", False) for handler in logger.handlers):
        handler = logging.StreamHandler()
        handler.setFormatter(logging.Formatter("helmlite: %(message)s"))
        handler._helmlite_cli = True
        logger.addHandler(handler)


def main(argv: list[str] | None = None) -> int:
    """Run the command; 0 on success, 2 (with one line on stderr) on a usage mistake or any :class:`HelmliteError`.

    ``--help`` and ``--version`` print and exit through ``SystemExit(0)``, as with any argparse program.
    """
    _log_to_stderr()
    try:
        args = build_parser().parse_args(argv)
        with _interrupt_ends_quietly():
            args.func(args)
            sys.stdout.flush()  # a closed pipe shows here, inside the handlers below
    except HelmliteError as error:
        return _error_line(str(error))
    except KeyboardInterrupt:
        print(INTERRUPTED, file=sys.stderr)
        return 130
    except BrokenPipeError:  # `helmlite prompts … | head -1`: the reader has what it wanted
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # Python's own advice: no second error at exit
        return 0
    except OSError as error:  # a path the system refuses (unwritable, not a folder, a folder where a file goes)
        where = f"{error.filename}: " if error.filename else ""
        return _error_line(f"{where}{error.strerror or error}")
    return 0


#: The one line Ctrl-C leaves: every write is atomic and the request cache commits per chunk, so nothing is half
#: written and a rerun computes only what is missing.
INTERRUPTED = "helmlite: interrupted; rerun resumes from the cache"


def _error_line(message: str) -> int:
    """Print ``helmlite: error: <message>`` on one line (even for multi-line messages: YAML errors); return 2."""
    print(f"helmlite: error: {' '.join(message.split())}", file=sys.stderr)
    return 2


@contextlib.contextmanager
def _interrupt_ends_quietly():
    """Ctrl-C ends the command with :data:`INTERRUPTED` and exit status 130, even where Python would swallow the
    KeyboardInterrupt: raised inside a ``__del__`` (e.g. a thread pool's), it is only reported as "Exception ignored"
    and the run went on (seen once in 11 tries), so such an interrupt ends the process at once."""
    previous = sys.unraisablehook

    def hook(unraisable):
        if isinstance(unraisable.exc_value, KeyboardInterrupt):
            print(INTERRUPTED, file=sys.stderr, flush=True)
            os._exit(130)
        previous(unraisable)

    sys.unraisablehook = hook
    try:
        yield
    finally:
        sys.unraisablehook = previous


if __name__ == "__main__":
    sys.exit(main())
