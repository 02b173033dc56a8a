#!/usr/bin/env bash
# Forward-dynamics scaling benchmark of the rigid chain (N = 10, 100, 1000, 10000 links) at np 1 and np 2,
# with the gathered direct solver and with the iterative one. Writes results/forward_chain_<solver>_np<k>.json
# and prints steps per second side by side with the np2/np1 speed ratio measured in this run.
# Extra arguments go to the benchmark program (e.g. --counts 10,100).
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x build/benchmarks/flexadj_benchmark_forward ] || cmake --build build -j 2 --target flexadj_benchmark_forward
mkdir -p results
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
for solver in direct iterative; do
  for np in 1 2; do
    echo "== $solver, np $np"
    mpirun -np "$np" build/benchmarks/flexadj_benchmark_forward --solver "$solver" \
      --json "results/forward_chain_${solver}_np$np.json" "$@"
  done
done
python3 scripts/benchmark_tables.py stamp results/forward_chain_{direct,iterative}_np{1,2}.json
echo
python3 scripts/benchmark_tables.py print forward
