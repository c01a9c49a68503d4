"""The run-folder contract: the only code that knows the layout of ``results/runs/<run_id>/``.

Modelled on HELM's fixed per-run files (``stats.json`` beside ``per_instance_stats.json``,
``src/helm/benchmark/runner.py``): every run folder holds

* ``instances.jsonl`` — one :class:`InstanceRecord` per test instance (prompt, completion or scores,
  prediction, references, per-instance metrics, tokens, perturbed variants): kept beside the
  aggregates because paired bootstrap and error analysis need them;
* ``stats.json`` — :class:`RunStats`: every metric's estimate with its interval and the interval's
  method, the metric families computed, the bootstrap settings;
* ``manifest.json`` — the run spec, model identity, versions, git commit, in-context example ids;
* ``timings.json`` — wall-clock latencies and cache counters (the one file that differs between runs).

Every file carries ``format_version``; a reader refuses a folder written in another version, a
truncated file or counts that disagree, with one message that names the file and how to rebuild it.
Writes are atomic (temp file + rename) and ``instances.jsonl`` is written first, ``stats.json`` —
what Snakemake waits for — after it.
"""
from . import provenance  # what produced a table or figure
from .folders import Run, present_runs, read_run, read_runs, read_stats, read_timings, scenario_label, write_run
from .records import (
                      FORMAT_VERSION,
                      INSTANCES,
                      MANIFEST,
                      STATS,
                      TIMINGS,
                      InstanceRecord,
                      Manifest,
                      MetricStat,
                      PerturbedOutcome,
                      RunResultsError,
                      RunStats,
                      SpecRecord,
                      Timings,
)

__all__ = ["provenance", "FORMAT_VERSION", "INSTANCES", "MANIFEST", "STATS", "TIMINGS", "InstanceRecord", "Manifest", "MetricStat",
           "PerturbedOutcome", "Run", "RunResultsError", "RunStats", "SpecRecord", "Timings", "present_runs", "read_run",
           "read_runs", "read_stats", "read_timings", "scenario_label", "write_run"]
