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
/usr/bin/python3 - <<'PY'
import json
print("\n%7s %9s %10s %12s %12s %9s %12s" % ("links", "unknowns", "solver", "np1 steps/s", "np2 steps/s", "np2/np1",
                                             "Newton/step"))
for solver in ("direct", "iterative"):
    one = {r["links"]: r for r in json.load(open(f"results/forward_chain_{solver}_np1.json"))["runs"]}
    two = {r["links"]: r for r in json.load(open(f"results/forward_chain_{solver}_np2.json"))["runs"]}
    for links in sorted(one):
        a, b = one[links], two.get(links)
        if b is None:
            continue
        print("%7d %9d %10s %12.1f %12.1f %9.2f %12.2f" % (links, a["unknowns"], solver, a["steps_per_second"],
              b["steps_per_second"], b["steps_per_second"] / a["steps_per_second"], a["newton_iterations_per_step"]))
PY
