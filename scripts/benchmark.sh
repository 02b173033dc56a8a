#!/usr/bin/env bash
# Forward-dynamics scaling benchmark of the rigid chain (N = 10, 100, 1000, 10000) at np 1 and np 2.
# Writes results/forward_chain_np1.json and _np2.json and prints both side by side with the speed
# ratio np2/np1 measured in this run. Extra arguments go to the benchmark program (e.g. --counts 10,100).
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x build/benchmarks/flexadj_benchmark_forward ] || cmake --build build -j 2 --target flexadj_benchmark_forward
mkdir -p results
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
for np in 1 2; do
  echo "== np $np"
  mpirun -np "$np" build/benchmarks/flexadj_benchmark_forward --json "results/forward_chain_np$np.json" "$@"
done
/usr/bin/python3 - <<'PY'
import json
one = {r["links"]: r for r in json.load(open("results/forward_chain_np1.json"))["runs"]}
two = {r["links"]: r for r in json.load(open("results/forward_chain_np2.json"))["runs"]}
print("\n%7s %9s %12s %12s %14s %12s" % ("links", "unknowns", "np1 steps/s", "np2 steps/s", "np2/np1 speed", "Newton/step"))
for links in sorted(one):
    a, b = one[links], two.get(links)
    if b is None: continue
    print("%7d %9d %12.1f %12.1f %14.2f %12.2f" % (links, a["unknowns"], a["steps_per_second"], b["steps_per_second"],
          b["steps_per_second"] / a["steps_per_second"], a["newton_iterations_per_step"]))
PY
