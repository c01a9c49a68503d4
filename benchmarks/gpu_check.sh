#!/usr/bin/env bash
# The GPU check (benchmarks/gpu_check.py): SmolLM2 on MMLU, fp32 on CUDA and bf16 on CUDA against fp32 on the CPU —
# prediction agreement, largest log-probability difference, throughput. Skips cleanly (exit 0) without CUDA.
#   HELMLITE_DATA_MIRROR=../shared/data bash benchmarks/gpu_check.sh [--max-instances N] [--threads N]
set -euo pipefail
cd "$(dirname "$0")/.."
PY=python3
if [ -x .venv/bin/python ]; then PY=.venv/bin/python; fi
exec "$PY" benchmarks/gpu_check.py "$@"
