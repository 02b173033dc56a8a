#!/usr/bin/env bash
# Gradient benchmark (discrete adjoint against the forward run and against central finite differences)
# at np 1 and np 2; writes results/gradient_np<k>.json.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x build/benchmarks/flexadj_benchmark_gradient ] || cmake --build build -j 2 --target flexadj_benchmark_gradient
mkdir -p results
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
for np in 1 2; do
  echo "== np $np"
  mpirun -np "$np" build/benchmarks/flexadj_benchmark_gradient --json "results/gradient_np$np.json"
done
python3 scripts/benchmark_tables.py stamp results/gradient_np{1,2}.json
echo
python3 scripts/benchmark_tables.py print gradient
