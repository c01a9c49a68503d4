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
OUT=$(.venv/bin/python -c "import sys; from helmlite import workflow; c = workflow.load_config(sys.argv[1]); print(c['output_dir'])" "$CONFIG")
rm -rf results/runs results/cache "$OUT/results/benchmarks" "$OUT/reports" "$OUT/tables"
start=$(date +%s.%N)
snakemake --cores all --configfile "$CONFIG" --quiet all > /tmp/helmlite-workflow-cold.log 2>&1
cold=$(echo "$(date +%s.%N) - $start" | bc)
start=$(date +%s.%N)
snakemake --cores all --configfile "$CONFIG" --quiet all > /tmp/helmlite-workflow-noop.log 2>&1
noop=$(echo "$(date +%s.%N) - $start" | bc)
printf "cold run: %.0f s (budget 900 s)\nno-op re-run: %.1f s (budget 5 s)\n\n" "$cold" "$noop"
.venv/bin/python - "$OUT/results/benchmarks" <<'PY'
import sys
from pathlib import Path

import pandas as pd

rows = []
for path in Path(sys.argv[1]).rglob("*.tsv"):
    s = pd.read_csv(path, sep="\t")["s"].iloc[-1]
    name = path.stem
    kind = "run" if path.parent.name == "runs" else "notebook"
    rows.append({"kind": kind, "job": name, "seconds": s, "scenario": name.split("-")[0].split("_n_")[0]})
frame = pd.DataFrame(rows)
print(frame.groupby("kind")["seconds"].agg(["count", "sum"]).rename(columns={"sum": "total_s"}).round(1).to_string())
print()
print("run jobs by scenario (job seconds, summed over models and settings):")
print(frame[frame.kind == "run"].groupby("scenario")["seconds"].agg(["count", "sum"]).sort_values("sum", ascending=False).round(1).to_string())
print()
print(frame[frame.kind == "notebook"].sort_values("seconds", ascending=False).round(1).to_string(index=False))
PY
