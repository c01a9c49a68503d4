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

config = workflow.load_config(sys.argv[1])
batches = workflow.run_batches(config)
rows = []
for path in Path(workflow.output_dirs(config)["benchmarks"]).rglob("*.tsv"):
    seconds = pd.read_csv(path, sep="\t")["s"].iloc[-1]
    batch = batches.get(path.stem)
    rows.append({"kind": "run" if path.parent.name == "runs" else "notebook", "job": path.stem, "seconds": seconds,
                 "scenario": batch[0].scenario if batch else "", "runs": len(batch) if batch else 0})
frame = pd.DataFrame(rows)
print(frame.groupby("kind")["seconds"].agg(["count", "sum"]).rename(columns={"sum": "job_s"}).round(1).to_string())
print()
print("run jobs by scenario (job seconds summed over models and settings; each job loads its model once):")
runs = frame[frame.kind == "run"].groupby("scenario").agg(jobs=("job", "count"), runs=("runs", "sum"), job_s=("seconds", "sum"))
print(runs.sort_values("job_s", ascending=False).round(1).to_string())
print()
print(frame[frame.kind == "notebook"].sort_values("seconds", ascending=False)[["job", "seconds"]].round(1).to_string(index=False))
PY
