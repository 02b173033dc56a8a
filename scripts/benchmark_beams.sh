#!/usr/bin/env bash
# Scale benchmark of the geometrically exact beam (a cantilever of N elements under gravity; forward and
# discrete-adjoint time per step) at np 1 and np 2 with the default linear solver (auto: KLU on one rank, KLU on rank
# 0 of the gathered system on two at these sizes). Writes results/beams_np<k>.json and
# prints the two side by side. Extra arguments go to the benchmark program (e.g. --counts 100,1000 --steps 5).
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x build/benchmarks/flexadj_benchmark_beams ] || cmake --build build -j 2 --target flexadj_benchmark_beams
mkdir -p results
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
for np in 1 2; do
  echo "== np $np"
  mpirun -np "$np" build/benchmarks/flexadj_benchmark_beams --solver auto --json "results/beams_np$np.json" "$@"
done
python3 scripts/benchmark_tables.py stamp results/beams_np{1,2}.json
echo
python3 scripts/benchmark_tables.py print beams
