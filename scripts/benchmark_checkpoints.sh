#!/usr/bin/env bash
# Checkpoint benchmark: the gradient of the rigid chain with every step in memory against binomial checkpointing
# (s = ceil(sqrt(N + 1)) unless --slots is given), each row in a process of its own for its peak RSS. Writes
# results/checkpoints_np1.json. Extra arguments go to the benchmark program (e.g. --links 100 --steps 100,1000).
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x build/benchmarks/flexadj_benchmark_checkpoints ] || cmake --build build -j 2 --target flexadj_benchmark_checkpoints
mkdir -p results
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
build/benchmarks/flexadj_benchmark_checkpoints --json results/checkpoints_np1.json "$@"
python3 scripts/benchmark_tables.py stamp results/checkpoints_np1.json
