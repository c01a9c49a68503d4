"""The workflow's view of a config: validation, each notebook's outputs and parameters, data to fetch.

The Snakefile and the ``helmlite`` CLI both go through here, so the two never disagree.
"""
from __future__ import annotations

import copy
import hashlib
import json
import math
import os
import re
import time
from importlib import resources
from pathlib import Path

import yaml

from .catalog import ANALYSES, Analysis
from .errors import UserError

SCHEMA = Path(str(resources.files("helmlite") / "schema.yaml"))  # shipped in the package (wheel installs validate too)


class ConfigError(UserError):
    """An invalid workflow config; the message names the file and the key."""


def validate_config(config: dict, source: str = "config") -> dict:
    """Validate against helmlite/schema.yaml (filling defaults) with Snakemake's own validator."""
    from snakemake.utils import validate

    config = copy.deepcopy(config)
    try:
        validate(config, str(SCHEMA))
    except Exception as error:  # snakemake raises WorkflowError wrapping jsonschema's multi-line message
        text = str(error)
        where = re.search(r"On instance((?:\[[^\]]+\])*)", text)
        what = re.search(r"ValidationError: (.+)", text)
        key = ".".join(re.findall(r"\['?([^\]']+)'?\]", where.group(1))) if where and where.group(1) else "top level"
        raise ConfigError(f"{source}: invalid configuration at {key}: {what.group(1) if what else text}"
                          f"{_schema_suggestion(config)}") from None
    return config


def _schema_suggestion(config: dict) -> str:
    """A did-you-mean for the schema's first error when it is an unknown key or a value outside an enum."""
    import jsonschema

    from ._names import did_you_mean

    schema = yaml.safe_load(SCHEMA.read_text())
    error = jsonschema.exceptions.best_match(jsonschema.validators.validator_for(schema)(schema).iter_errors(config))
    if error is None:
        return ""
    if error.validator == "additionalProperties" and isinstance(error.instance, dict):
        known = list(error.schema.get("properties", {}))
        return "".join(did_you_mean(str(key), known) for key in error.instance if key not in known)
    if error.validator == "enum":
        return did_you_mean(str(error.instance), [str(value) for value in error.validator_value])
    return ""


def parse_config(text: str, source: str) -> dict:
    """Parse YAML (or JSON) config text and validate it; errors name ``source``."""
    try:
        config = yaml.safe_load(text)
    except yaml.YAMLError as error:
        raise ConfigError(f"{source}: not valid YAML ({error})") from None
    if not isinstance(config, dict):
        raise ConfigError(f"{source}: expected a mapping of settings at the top level")
    return validate_config(config, source)


def check_names(config: dict, source: str = "config") -> None:
    """Every run the config asks for names a known scenario, method, metric family and model: one
    :class:`ConfigError` naming the source, the config section and the name (with a did-you-mean), before
    any job starts — the schema checks shapes, this checks the names the registries know."""
    from .models import unknown_model_message
    from .runspec import RunSpec

    sensitivity = config.get("sensitivity", {})
    for name in sensitivity.get("chat_models", []):
        if "sensitivity" in config.get("analyses", []) and name not in sensitivity.get("models", []):
            from ._names import did_you_mean

            raise ConfigError(f"{source}: sensitivity.chat_models: {name!r} is not one of sensitivity.models "
                              f"{sensitivity.get('models')}.{did_you_mean(name, sensitivity.get('models', []))}")
    sections = [("runs", [{"spec": run} for run in config.get("runs", [])])]
    sections += [(analysis.key, [{"spec": item.spec} for item in analysis.grid(config.get(analysis.key, {}))])
                 for analysis in enabled(config) if analysis.grid]
    for key, items in sections:
        for item in items:
            try:
                spec = RunSpec.from_dict(item["spec"])
            except UserError as error:
                raise ConfigError(f"{source}: {key}: {error}") from None
            problem = unknown_model_message(spec.model)
            if problem:
                raise ConfigError(f"{source}: {key}: {problem}")


def validated_for_snakemake(config: dict, configfiles=()) -> dict:
    """The Snakefile's check of the config it was given: the schema (defaults filled in place) and the
    names. A bad config stops Snakemake with one line on stderr and exit status 2, not a traceback with the
    schema dumped."""
    import sys

    source = "config from " + (", ".join(str(f) for f in configfiles) or "config/config.yaml")
    try:
        checked = validate_config(config, source)
        check_names(checked, source)
    except ConfigError as error:
        print(f"helmlite: error: {error}", file=sys.stderr)
        raise SystemExit(2) from None
    config.clear()
    config.update(checked)
    return config


def load_config(path: str | os.PathLike) -> dict:
    path = Path(path)
    if not path.is_file():
        raise ConfigError(f"{path}: config file not found")
    return parse_config(path.read_text(encoding="utf-8"), str(path))


def enabled(config: dict) -> list[Analysis]:
    return [ANALYSES[key] for key in config["analyses"]]


def output_dirs(config: dict) -> dict[str, str]:
    """figures/, tables/, reports/ under ``output_dir``; Snakemake logs, per-job benchmarks and tables of
    wall-clock measurements (``measured``: they differ between runs, unlike tables/) under its results/."""
    root = config["output_dir"]
    dirs = {kind: os.path.normpath(os.path.join(root, kind)) for kind in ("figures", "tables", "reports")}
    dirs.update({kind: os.path.normpath(os.path.join(root, "results", kind)) for kind in ("logs", "benchmarks", "measured")})
    return dirs


def outputs(config: dict, analysis: Analysis) -> dict[str, list[str] | str]:
    """Every file the notebook writes, by kind."""
    dirs = output_dirs(config)
    return {
        "notebook": f"{dirs['reports']}/{analysis.notebook}.ipynb",
        "figures": [f"{dirs['figures']}/{name}.{ext}" for name in analysis.figures for ext in ("png", "pdf")],
        "tables": [f"{dirs['tables']}/{name}.csv" for name in analysis.tables],
        "measured": [f"{dirs['measured']}/{name}.csv" for name in analysis.measured],
        "manifest": f"{dirs['tables']}/{analysis.manifest}.json",
    }


def notebook_parameters(config: dict, analysis: Analysis) -> dict:
    """The papermill parameters of one notebook, from the config: output folders, the bootstrap settings,
    the analysis's own section (less the keys that only build its runs) and, for analyses of model runs,
    ``results_dir``, ``run_ids`` and ``run_levels`` (run id → [[study, factor level], ...], where a grid labels them)."""
    dirs = output_dirs(config)
    boot = config["bootstrap"]
    params = {"figures_dir": dirs["figures"], "tables_dir": dirs["tables"], "n_resamples": boot["n_resamples"],
              **({"measured_dir": dirs["measured"]} if analysis.measured else {}), "seed": boot["seed"]}
    section = dict(config.get(analysis.key, {}))
    if analysis.grid:
        items = grid_runs(config, analysis)
        params["run_ids"] = list(dict.fromkeys(run_id for run_id, _ in items))
        params["results_dir"] = config["engine"]["results_dir"]
        levels: dict[str, list] = {}
        for run_id, item in items:
            if item.study is not None:
                levels.setdefault(run_id, []).append([item.study, item.level])
        if levels:
            params["run_levels"] = levels
        section = {k: v for k, v in section.items() if k not in GRID_KEYS}
    params.update(section)
    return params


# config keys that only say which runs to make (the notebook gets the runs themselves)
GRID_KEYS = ("models", "chat_models", "scenarios", "seeds", "perturbations", "max_instances", "lengths", "tasks", "methods",
             "shots", "formats", "seed_scenarios", "shot_scenarios", "format_scenarios", "method_scenarios")


def grid_runs(config: dict, analysis: Analysis) -> list[tuple[str, object]]:
    """(run id, :class:`~helmlite.grids.GridRun`) for every run of one analysis, in grid order."""
    from .runspec import RunSpec

    if analysis.key not in config.get("analyses", []) or not analysis.grid:
        return []
    return [(RunSpec.from_dict(item.spec).run_id, item) for item in analysis.grid(config.get(analysis.key, {}))]


def analysis_runs(config: dict, analysis: Analysis) -> dict:
    """The run specs one notebook analyses, by run id."""
    from .runspec import RunSpec

    return {run_id: RunSpec.from_dict(item.spec) for run_id, item in grid_runs(config, analysis)}


def runs_by_analysis(config: dict) -> dict[str, dict]:
    """Every run the config asks for, grouped by the analysis that asks first (``runs`` for the explicit
    ``runs:`` list, then the enabled analyses in config order): analysis key → {run id: spec}. A run
    two analyses share (the 5-shot MMLU run of several sensitivity studies) appears once."""
    from .runspec import RunSpec

    groups = {"runs": {s.run_id: s for s in (RunSpec.from_dict(run) for run in config.get("runs", []))}}
    seen = set(groups["runs"])
    for analysis in enabled(config):
        mine = {run_id: spec for run_id, spec in analysis_runs(config, analysis).items() if run_id not in seen}
        seen |= set(mine)
        groups[analysis.key] = mine
    return {key: runs for key, runs in groups.items() if runs}


def run_specs(config: dict) -> dict:
    """Every run the config asks for, by run id (explicit ``runs`` plus the notebooks' grids)."""
    return {run_id: spec for runs in runs_by_analysis(config).values() for run_id, spec in runs.items()}


def _bucket(run_id: str, n_buckets: int) -> int:
    """A run's job within its model and analysis: a hash of its id, so it never depends on the other runs."""
    return int(hashlib.sha256(run_id.encode()).hexdigest()[:12], 16) % n_buckets


def run_batches(config: dict) -> dict[str, list]:
    """The run specs grouped into Snakemake jobs, by job id ``<model>_<analysis>_<k>``: runs of one model
    for one analysis (the model is loaded once per job), spread over up to ``engine.jobs_per_analysis``
    jobs by a hash of the run id. A run's job depends on nothing but its own id, so adding or removing a
    run changes only the job it lands in, and Snakemake re-runs nothing else. Empty buckets make no job;
    runs within a job are in run-id order."""
    batches: dict[str, list] = {}
    for key, runs in runs_by_analysis(config).items():
        for run_id, spec in sorted(runs.items()):
            batches.setdefault(_job_id(config, key, spec), []).append(spec)
    return dict(sorted(batches.items()))


def _job_id(config: dict, analysis_key: str, spec) -> str:
    return re.sub(r"[^0-9A-Za-z]+", "_", f"{spec.model}_{analysis_key}_{_bucket(spec.run_id, config['engine']['jobs_per_analysis']) + 1}")


def _request_twin_key(spec) -> str:
    """What decides a run's requests but its perturbations and size: two runs with equal keys ask the model the
    same questions (the smaller run's, at least, where its items are the larger one's first ones)."""
    shared = {k: v for k, v in spec.as_dict().items() if k not in ("perturbations", "max_instances", "metrics")}
    return json.dumps(shared, sort_keys=True)


def shared_request_waits(config: dict) -> dict[str, list[str]]:
    """Run job id → the jobs of earlier analyses (same model) it waits for because a run of theirs asks the same
    requests as one of its own (notebook 02's base configuration is notebook 01's MMLU run without its
    perturbation). Two jobs computing the same requests at once both pay for them (the request cache keeps the
    first answer); one after the other, the second reads them from the cache. Only the order changes: the
    Snakefile passes each waited-on job's done-marker as an ``ancient`` input (:func:`run_job_waits`), so a re-run of
    one job never re-runs the other."""
    owner: dict[str, str] = {}  # twin key → the job of the earliest analysis that asks it
    waits: dict[str, set[str]] = {}
    for key, runs in runs_by_analysis(config).items():  # analyses in workflow order
        jobs = {run_id: _job_id(config, key, spec) for run_id, spec in runs.items()}
        for run_id, spec in sorted(runs.items()):
            first = owner.setdefault(_request_twin_key(spec), jobs[run_id])
            if first not in jobs.values():  # asked first by an earlier analysis's job
                waits.setdefault(jobs[run_id], set()).add(first)
    return {job: sorted(earlier) for job, earlier in sorted(waits.items())}


def run_job_marker(config: dict, job: str) -> str:
    """The file a run job touches when all its runs are written, beside its log: what a job that waits for it
    (:func:`shared_request_waits`) lists as input, a path of the job id alone."""
    return f"{output_dirs(config)['logs']}/runs/{job}.done"


def run_job_waits(config: dict) -> dict[str, list[str]]:
    """Run job id → the done-markers (:func:`run_job_marker`) of the jobs it waits for
    (:func:`shared_request_waits`): its ``after`` inputs in the Snakefile. Paths of job ids alone, so a run added
    to a waited-on job changes no input of the job that waits (Snakemake re-runs a job whose set of inputs changes,
    ``ancient`` or not)."""
    return {job: [run_job_marker(config, earlier) for earlier in waits] for job, waits in shared_request_waits(config).items()}


def plan_summary(config: dict) -> str:
    """'N runs in J run jobs (analysis n, ...)': what the workflow will run, as README and `helmlite config` say it."""
    counts = ", ".join(f"{a.key} {len(analysis_runs(config, a))}" for a in enabled(config) if a.grid)
    return f"{len(run_specs(config))} runs in {len(run_batches(config))} run jobs ({counts})"


def required_data(config: dict) -> list[str]:
    """Registry names every enabled notebook and every run needs (:func:`run_data`), in a stable order."""
    names = {name for analysis in enabled(config) for name in analysis.data}
    names |= {name for spec in run_specs(config).values() for name in run_data(spec)}
    return sorted(names)


def run_data(spec) -> list[str]:
    """Registry names one run reads: its scenario's files, its perturbations' word lists and its metric families'
    (HELM's bias word lists), so ``make data`` fetches them all before any run job starts."""
    from .metrics.families import data_files as metric_files
    from .perturbations import data_files as perturbation_files
    from .scenarios import scenario

    return list(dict.fromkeys([*scenario(spec.scenario).data, *perturbation_files(spec.perturbations), *metric_files(spec.metrics)]))


def _start_file(config: dict) -> Path:
    return Path(output_dirs(config)["logs"], "workflow-start.txt")


def record_start(config: dict) -> None:
    """Note when this Snakemake invocation started (the Snakefile's ``onstart``, which a dry run skips), for the
    index's wall time."""
    from ._io import write_text

    write_text(_start_file(config), f"{time.time():.3f}\n")


def workflow_start(config: dict) -> float | None:
    """When the last Snakemake invocation on ``config``'s outputs started (seconds since the epoch), or None."""
    try:
        return float(_start_file(config).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


PLANNED_JOBS_DIR = Path("results/planner")  # beside the planner's rates (results/planner/rates.json)
DEFAULT_RUNTIME_MIN = 60  # a run job's SLURM time limit when no plan was written
DEFAULT_MEM_MB = 4000  # a run job's memory request when no plan was written
MIN_MEM_MB = 1024  # the least a run job requests (Python, torch and a tokenizer alone take ~0.5 GB)


def planned_jobs_file(configfile: str | os.PathLike) -> Path:
    """Where ``helmlite plan --configfile F`` leaves each run job's predicted seconds for the workflow."""
    return PLANNED_JOBS_DIR / f"jobs-{Path(configfile).stem}.csv"


def _planned_column(configfile: str | os.PathLike, column: str) -> dict[str, float]:
    """Run job id → one column of :func:`planned_jobs_file`; empty when no plan was written (or the column is
    absent: a plan written before it existed), a job left out where its value is unknown."""
    import csv

    path = planned_jobs_file(configfile)
    if not path.is_file():
        return {}
    with open(path, encoding="utf-8", newline="") as handle:
        return {row["job"]: float(row[column]) for row in csv.DictReader(handle) if row.get(column) not in (None, "")}


def planned_job_seconds(configfile: str | os.PathLike) -> dict[str, float]:
    """Run job id → the planner's predicted seconds (runs plus start-up), from :func:`planned_jobs_file`;
    empty when no plan was written (or a job's prediction is unknown, e.g. an OpenAI-compatible model)."""
    return _planned_column(configfile, "predicted_s")


def planned_job_memory_mb(configfile: str | os.PathLike) -> dict[str, float]:
    """Run job id → the memory the planner reserves for it (MB; :mod:`helmlite.planning.memory`)."""
    return _planned_column(configfile, "predicted_mem_mb")


def run_job_priorities(config: dict, planned_s: dict[str, float]) -> dict[str, int]:
    """Run job id → its Snakemake ``priority``: the planner's predicted seconds of the job plus those of the
    longest chain of jobs that wait for it (:func:`shared_request_waits`), rounded — its critical path. Ready jobs
    then start longest path first (list scheduling's rule for a short makespan on few cores; notebook jobs keep
    priority 0 and fill the gaps). On the default config this ordering cut the simulated two-core cold run from
    959 s (Snakemake's own order) to 915 s with ten jobs, from the jobs' measured times of 2026-12-02. Without a
    full plan (``planned_s`` missing a job) a job's number of runs stands in for its seconds: a job that others wait
    for still starts first, then the jobs of more runs (with the default's five jobs, the order the plan gives)."""
    batches = run_batches(config)
    complete = all(job in planned_s and planned_s[job] == planned_s[job] for job in batches)
    seconds = planned_s if complete else {job: float(len(batch)) for job, batch in batches.items()}
    waiting: dict[str, list[str]] = {}
    for job, earlier in shared_request_waits(config).items():
        for first in earlier:
            waiting.setdefault(first, []).append(job)

    def path(job: str) -> float:
        return seconds[job] + max((path(later) for later in waiting.get(job, [])), default=0.0)

    return {job: round(path(job)) for job in batches}


def run_job_mem_mb(planned_mb: float | None) -> int:
    """A run job's memory request for a cluster scheduler (MB): the planner's reservation (its predicted peak with a
    margin), at least :data:`MIN_MEM_MB`; :data:`DEFAULT_MEM_MB` without one."""
    if planned_mb is None or not planned_mb == planned_mb:
        return DEFAULT_MEM_MB
    return max(MIN_MEM_MB, int(planned_mb))


def run_job_runtime_min(predicted_s: float | None) -> int:
    """A run job's time limit for a cluster scheduler (minutes): twice the planner's prediction for this machine
    plus 10 minutes (a compute node may be slower; a limit hit kills the job, a generous one only queues it
    later), at least 15; :data:`DEFAULT_RUNTIME_MIN` without a prediction."""
    if predicted_s is None or not predicted_s == predicted_s:
        return DEFAULT_RUNTIME_MIN
    return max(15, math.ceil(2 * predicted_s / 60) + 10)
