#!/usr/bin/env bash
# Spacetime adjoint benchmark (benchmarks/spacetime_benchmark.cpp): GMRES iterations and adjoint steps against N
# and P (one rank, slab and two-level preconditioners, both integrators), then the wall time at np 1 and np 2
# against the sequential sweep of the same run. Writes results/spacetime_*.json (the table of docs/benchmarks.md: copy them to
# benchmarks/runs and run scripts/benchmark_tables.py readme).
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x build/benchmarks/flexadj_benchmark_spacetime ] || cmake --build build -j 2 --target flexadj_benchmark_spacetime
mkdir -p results
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
B=build/benchmarks/flexadj_benchmark_spacetime
for scheme in generalized_alpha variational; do
  $B --scheme $scheme --steps 100,1000 --json results/spacetime_iterations_${scheme}.json "$@"
  $B --scheme $scheme --steps 10000 --slabs 1,4,16,64 --json results/spacetime_iterations_${scheme}_10000.json "$@"
  $B --scheme $scheme --mode timing --steps 1000 --json results/spacetime_timing_${scheme}_np1.json "$@"
  mpirun --oversubscribe -np 2 $B --scheme $scheme --mode timing --steps 1000 \
    --json results/spacetime_timing_${scheme}_np2.json "$@"
done
python3 scripts/benchmark_tables.py stamp results/spacetime_*.json
python3 scripts/benchmark_tables.py print spacetime --results results
