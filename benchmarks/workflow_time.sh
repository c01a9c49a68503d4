#!/usr/bin/env bash
# Time the default workflow: a cold run (fresh results/ and request cache; models prepared, data fetched
# beforehand) and a no-op re-run, then the per-rule times recorded by Snakemake's `benchmark:` directive.
#   HELMLITE_DATA_MIRROR=../shared/data bash benchmarks/workflow_time.sh [config/config.yaml]
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/.venv/bin:$PATH"
CONFIG=${1:-config/config.yaml}
helmlite models prepare --all > /dev/null
helmlite fetch --for-config "$CONFIG" > /dev/null
helmlite plan --configfile "$CONFIG" --format csv --table runs > /tmp/helmlite-plan-runs.csv  # before the run: a quiet machine
read -r OUT RUNS CACHE < <(.venv/bin/python -c "import sys; from helmlite import workflow; c = workflow.load_config(sys.argv[1]); print(c['output_dir'], c['engine']['results_dir'], c['engine']['cache'])" "$CONFIG")
rm -rf "$RUNS" "$(dirname "$CACHE")" "$OUT/results/benchmarks" "$OUT/reports" "$OUT/tables"
start=$(date +%s.%N)
snakemake --cores all --configfile "$CONFIG" --quiet all > /tmp/helmlite-workflow-cold.log 2>&1
cold=$(echo "$(date +%s.%N) - $start" | bc)
start=$(date +%s.%N)
snakemake --cores all --configfile "$CONFIG" --quiet all > /tmp/helmlite-workflow-noop.log 2>&1
noop=$(echo "$(date +%s.%N) - $start" | bc)
printf "cold run: %.0f s (budget 900 s)\nno-op re-run: %.1f s (budget 5 s)\n\n" "$cold" "$noop"
.venv/bin/python - "$CONFIG" <<'PY'
import sys
from pathlib import Path

import pandas as pd

from helmlite import workflow
from helmlite.results import read_run

config = workflow.load_config(sys.argv[1])
jobs = pd.DataFrame([{"kind": "run job" if path.parent.name == "runs" else "notebook", "job": path.stem,
                      "seconds": pd.read_csv(path, sep="\t")["s"].iloc[-1]}
                     for path in Path(workflow.output_dirs(config)["benchmarks"]).rglob("*.tsv")])
print(jobs.groupby("kind")["seconds"].agg(["count", "sum", "max"]).rename(columns={"sum": "total_s", "max": "longest_s"}).round(1).to_string())
print()
rss = pd.DataFrame([{"job": path.stem, "peak_rss_mib": pd.read_csv(path, sep="\t")["max_rss"].iloc[-1]}
                    for path in Path(workflow.output_dirs(config)["benchmarks"], "runs").glob("*.tsv")])
print("peak RSS per run job (Snakemake benchmark max_rss, MiB):")
print(rss.sort_values("job").round(0).to_string(index=False))
print()
runs = []
measured = {run_id: read_run(config["engine"]["results_dir"], run_id) for run_id in workflow.run_specs(config)}
for run_id, spec in workflow.run_specs(config).items():
    timings = measured[run_id].timings
    runs.append({"analysis_scenario": spec.scenario, "model": spec.model, "seconds": timings.wall_s,
                 "instances": measured[run_id].stats.n_instances,
                 "overhead_s": timings.overhead_s, "model_share": timings.model_s / timings.wall_s,
                 "model_calls": timings.model_calls or 0})
runs = pd.DataFrame(runs)
large = runs[(runs.instances >= 50) & (runs.model_calls > 0)]  # a run the request cache answered calls no model
slowest = runs.loc[runs.overhead_s.idxmax()]
print("per-run overhead (all but model calls, goal <= 0.5 s) and share of wall time in model calls (goal >= 80% for"
      f" runs of >= 50 instances that call the model): overhead median {runs.overhead_s.median():.2f} s, max "
      f"{slowest.overhead_s:.2f} s ({slowest.analysis_scenario}, {slowest.model}); "
      f"model share of runs >= 50 instances: min {large.model_share.min():.0%}, median {large.model_share.median():.0%}\n")
print("compute per scenario (each run's own wall time, summed over its settings; excludes each job's start-up):")
print(runs.pivot_table(index="analysis_scenario", columns="model", values="seconds", aggfunc=["count", "sum"]).round(1).to_string())
print(f"\nrun compute {runs.seconds.sum():.0f} s; job start-up and the rest {jobs[jobs.kind == 'run job'].seconds.sum() - runs.seconds.sum():.0f} s")
plan = pd.read_csv("/tmp/helmlite-plan-runs.csv")
plan["measured_s"] = [measured[r].timings.wall_s for r in plan.run_id]
by_analysis = plan.groupby("analysis")[["predicted_s", "measured_s"]].sum()
by_analysis["predicted/measured"] = by_analysis["predicted_s"] / by_analysis["measured_s"]
print("\nhelmlite plan vs measured run compute per analysis (goal: within ±25%):")
print(by_analysis.round(2).to_string())
print()
print(jobs[jobs.kind == "notebook"].sort_values("seconds", ascending=False)[["job", "seconds"]].round(1).to_string(index=False))
PY
