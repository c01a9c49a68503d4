"""The workflow's view of a config: validation (``config``, and the Snakefile's start-up check, ``startup``), each
notebook's outputs (``outputs``), the runs, run jobs and notebook parameters (``jobs``), what each run job asks a
scheduler for (``job_resources``), the claims the analyses will state for the runs (``claim_names``).

The Snakefile and the ``helmlite`` CLI both go through here, so the two never disagree.
"""
from .claim_names import check_primary_claims, primary_claims, run_rows
from .config import SCHEMA, ConfigError, check_names, load_config, parse_config, validate_config
from .startup import validated_for_snakemake
from .job_resources import (DEFAULT_MEM_MB, DEFAULT_RUNTIME_MIN, MIN_MEM_MB, PLANNED_JOBS_DIR, planned_job_memory_mb,
                            planned_job_seconds, planned_jobs_file, run_job_gpu_resources, run_job_mem_mb,
                            run_job_priorities, run_job_runtime_min)
from .jobs import (GRID_KEYS, analysis_runs, grid_runs, model_placement, notebook_parameters, plan_summary, required_data, run_batches,
                   run_data, run_job_marker, run_job_waits, run_specs, runs_by_analysis, shared_request_waits, with_precision)
from . import claim_names, config, job_resources, jobs
from .outputs import enabled, output_dirs, outputs, record_start, workflow_start

__all__ = ["DEFAULT_MEM_MB", "DEFAULT_RUNTIME_MIN", "GRID_KEYS", "MIN_MEM_MB", "PLANNED_JOBS_DIR", "SCHEMA", "ConfigError",
           "claim_names", "config", "job_resources", "jobs",
           "analysis_runs", "check_names", "check_primary_claims", "primary_claims", "run_rows", "enabled", "grid_runs", "load_config", "notebook_parameters", "output_dirs",
           "outputs", "parse_config", "plan_summary", "planned_job_memory_mb", "planned_job_seconds", "planned_jobs_file",
           "model_placement", "record_start", "required_data", "run_batches", "run_data", "run_job_gpu_resources",
           "run_job_marker", "run_job_mem_mb", "with_precision",
           "run_job_priorities", "run_job_runtime_min", "run_job_waits", "run_specs", "runs_by_analysis",
           "shared_request_waits", "validate_config", "validated_for_snakemake", "workflow_start"]
