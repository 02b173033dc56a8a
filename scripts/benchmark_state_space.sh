#!/usr/bin/env bash
# State-space benchmark (docs/benchmarks.md): the state-space integrator (saddle-point path) against generalized-alpha,
# cost per forward step and per gradient step (forward + discrete adjoint), rigid chain of 10 .. 10^4 links, at np 1
# and np 2; writes results/state_space_np<k>.json and prints the table of docs/benchmarks.md (kind state_space). About 5 minutes on
# the quiet 2-core machine. Extra arguments go to the benchmark, e.g. --counts 10,100 for a smoke run.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x build/benchmarks/flexadj_benchmark_state_space ] || cmake --build build -j 2 --target flexadj_benchmark_state_space
mkdir -p results
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
for np in 1 2; do
  echo "== np $np"
  mpirun --oversubscribe -np "$np" build/benchmarks/flexadj_benchmark_state_space --json "results/state_space_np$np.json" "$@"
done
python3 scripts/benchmark_tables.py stamp results/state_space_np{1,2}.json
echo
python3 scripts/benchmark_tables.py print state_space
