"""What each run job asks a scheduler for: its priority, memory and time limit from the plan's predicted seconds
and peak memory (``helmlite plan`` writes them under :data:`PLANNED_JOBS_DIR`), with defaults when no plan was
written."""
from __future__ import annotations

import math
import os
from pathlib import Path

from .jobs import model_placement, run_batches, shared_request_waits

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



def run_job_gpu_resources(config: dict, model: str) -> dict:
    """What a run job of ``model`` adds to its Snakemake ``resources`` for a GPU: where the config puts the model on
    ``cuda``/``cuda:N`` (``engine.models`` or ``engine.device``), ``gpu: 1`` (the SLURM executor plugin's resource,
    which it turns into ``--gpus``) and ``slurm_partition: engine.gpu_partition``; else ``gpu: 0`` and the profile's
    partition. ``auto`` asks for no GPU, since the submitting host cannot tell what a node has."""
    if not model_placement(config, model)["device"].startswith("cuda"):
        return {"gpu": 0}
    return {"gpu": 1, "slurm_partition": config.get("engine", {}).get("gpu_partition", "gpu")}
