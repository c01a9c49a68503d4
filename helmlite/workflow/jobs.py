"""A config's runs and the jobs that run them: the grid of each analysis, the run specs, run jobs batched by a
stable hash of the run id, the waits between jobs that share requests, and each job's marker file."""
from __future__ import annotations

import hashlib
import json
import re

from ..catalog import Analysis
from .outputs import enabled, output_dirs

# config keys that only say which runs to make (the notebook gets the runs themselves)
GRID_KEYS = ("models", "chat_models", "scenarios", "seeds", "perturbations", "max_instances", "lengths", "tasks", "methods",
             "shots", "formats", "seed_scenarios", "shot_scenarios", "format_scenarios", "method_scenarios")


def grid_runs(config: dict, analysis: Analysis) -> list[tuple[str, object]]:
    """(run id, :class:`~helmlite.grids.GridRun`) for every run of one analysis, in grid order."""
    from ..evaluation import RunSpec

    if analysis.key not in config.get("analyses", []) or not analysis.grid:
        return []
    items = [item._replace(spec=with_precision(config, item.spec)) for item in analysis.grid(config.get(analysis.key, {}))]
    return [(RunSpec.from_dict(item.spec).run_id, item) for item in items]


def model_placement(config: dict, model: str) -> dict:
    """``{"device", "dtype"}`` of ``model`` in this config: ``engine.models[model]`` over ``engine.device`` and
    ``engine.dtype`` (schema defaults: auto, float32)."""
    engine = config.get("engine", {})
    own = engine.get("models", {}).get(model, {})
    return {"device": own.get("device", engine.get("device", "auto")), "dtype": own.get("dtype", engine.get("dtype", "float32"))}


def with_precision(config: dict, spec: dict) -> dict:
    """``spec`` with its model's dtype from the config (:func:`model_placement`), where it is not float32 (a float32
    spec stays as it was, so its run id does too) and the spec does not set one itself."""
    dtype = model_placement(config, spec["model"])["dtype"]
    return spec if dtype == "float32" or "dtype" in spec else {**spec, "dtype": dtype}


def analysis_runs(config: dict, analysis: Analysis) -> dict:
    """The run specs one notebook analyses, by run id."""
    from ..evaluation import RunSpec

    return {run_id: RunSpec.from_dict(item.spec) for run_id, item in grid_runs(config, analysis)}


def runs_by_analysis(config: dict) -> dict[str, dict]:
    """Every run the config asks for, grouped by the analysis that asks first (``runs`` for the explicit
    ``runs:`` list, then the enabled analyses in config order): analysis key → {run id: spec}. A run
    two analyses share (the 5-shot MMLU run of several sensitivity studies) appears once."""
    from ..evaluation import RunSpec

    groups = {"runs": {s.run_id: s for s in (RunSpec.from_dict(with_precision(config, run)) for run in config.get("runs", []))}}
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
    """'N runs in J run jobs (analysis n, ...)': what the workflow will run, as the time-budget page (docs/explanation/time-budget.md) and `helmlite config` say it."""
    counts = ", ".join(f"{a.key} {len(analysis_runs(config, a))}" for a in enabled(config) if a.grid)
    return f"{len(run_specs(config))} runs in {len(run_batches(config))} run jobs ({counts})"


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


def required_data(config: dict) -> list[str]:
    """Registry names every enabled notebook and every run needs (:func:`run_data`), in a stable order."""
    names = {name for analysis in enabled(config) for name in analysis.data}
    names |= {name for spec in run_specs(config).values() for name in run_data(spec)}
    return sorted(names)


def run_data(spec) -> list[str]:
    """Registry names one run reads: its scenario's files, its perturbations' word lists and its metric families'
    (HELM's bias word lists), so ``make data`` fetches them all before any run job starts."""
    from ..metrics.families import data_files as metric_files
    from ..evaluation import data_files as perturbation_files
    from ..scenarios import scenario

    return list(dict.fromkeys([*scenario(spec.scenario).data, *perturbation_files(spec.perturbations), *metric_files(spec.metrics)]))
