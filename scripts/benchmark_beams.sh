#!/usr/bin/env bash
# Scale benchmark of the geometrically exact beam (a cantilever of N elements under gravity; forward and
# discrete-adjoint time per step) at np 1 and np 2 with the direct solver. Writes results/beams_np<k>.json and
# prints the two side by side. Extra arguments go to the benchmark program (e.g. --counts 100,1000 --steps 5).
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x build/benchmarks/flexadj_benchmark_beams ] || cmake --build build -j 2 --target flexadj_benchmark_beams
mkdir -p results
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
for np in 1 2; do
  echo "== np $np"
  mpirun -np "$np" build/benchmarks/flexadj_benchmark_beams --solver direct --json "results/beams_np$np.json" "$@"
done
/usr/bin/python3 - <<'PY'
import json
one = {r["elements"]: r for r in json.load(open("results/beams_np1.json"))["runs"]}
two = {r["elements"]: r for r in json.load(open("results/beams_np2.json"))["runs"]}
print("\n%9s %9s %14s %14s %14s %14s %16s" % ("elements", "unknowns", "np1 fwd s/st", "np2 fwd s/st", "np1 adj s/st",
                                                "np2 adj s/st", "np1 fwd us/el/st"))
for n in sorted(one):
    a, b = one[n], two.get(n)
    if b is None:
        continue
    print("%9d %9d %14.5f %14.5f %14.5f %14.5f %16.1f" % (n, a["unknowns"], a["forward_seconds_per_step"],
          b["forward_seconds_per_step"], a["adjoint_seconds_per_step"], b["adjoint_seconds_per_step"],
          1e6 * a["forward_seconds_per_step"] / n))
PY
