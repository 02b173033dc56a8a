#!/usr/bin/env bash
# Gradients at np 1, 2, 4 and 8 (np 4 and 8 oversubscribed) agree to 1e-10 relative, with the distributed direct
# solver (MUMPS past one rank), with the gathered KLU and with the iterative solver (GMRES with the interface Schur
# complement), on a rigid chain, a branched tree and a geometrically exact beam (the ranks sum their contributions
# in another order: equal to round-off, not bit for bit).
# Each run is its own mpirun, so that np N is compared with np 1 from separate processes.
# Usage: test_rank_counts.sh PATH/TO/flexadj
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$HERE/cli_support.sh" "$1"
MESHES="$HERE/../../meshes"
command -v mpiexec > /dev/null || { echo "mpiexec not found: these tests need it"; exit 1; }

# run NAME NP SOLVER MODEL ARGS...: flexadj gradient at NP ranks into NAME.csv, exit code and J line checked.
run() {
  local name="$1" np="$2" solver="$3" model="$4"; shift 4
  local extra=""
  [ "$np" -gt 2 ] && extra="--oversubscribe"
  mpiexec -n "$np" $extra "$FLEXADJ" gradient "$model" --set integrator.linear_solver="$solver" "$@" \
    -o "$name.csv" > "$name.txt" 2>&1
  local code=$?
  if [ $code -ne 0 ] || ! grep -q "J = " "$name.txt"; then
    echo "FAIL $name: exit code $code"; sed 's/^/     | /' "$name.txt" | tail -5; failed=$((failed + 1)); return 1
  fi
  grep -q "MUMPS" "$name.txt" && echo "     | $name: MUMPS"
  return 0
}

# agree A.csv B.csv TOLERANCE: the largest difference relative to max |g| (and J's relative difference) below it.
agree() {
  /usr/bin/python3 - "$@" <<'PY'
import csv, sys
a, b = ([float(r["gradient"]) for r in csv.DictReader(open(p))] for p in sys.argv[1:3])
assert len(a) == len(b) and len(a) > 0, "gradient lengths differ"
scale = max(abs(x) for x in a)
difference = max(abs(x - y) for x, y in zip(a, b)) / scale
print("     | %s vs %s: largest difference %.1e relative to max |g| = %.3e" % (sys.argv[2], sys.argv[1], difference, scale))
sys.exit(0 if difference <= float(sys.argv[3]) else 1)
PY
}

check_model() {  # LABEL MODEL ARGS...
  local label="$1" model="$2"; shift 2
  run "${label}_np1" 1 direct "$model" "$@" || return
  for solver_np in direct:2 direct:4 direct:8 klu_gathered:2 klu_gathered:4 iterative:2 iterative:4 iterative:8; do
    local solver="${solver_np%:*}" np="${solver_np#*:}"
    run "${label}_${solver}_np$np" "$np" "$solver" "$model" "$@" || continue
    pass_if "$label: $solver at np $np = np 1 to 1e-10" agree "${label}_np1.csv" "${label}_${solver}_np$np.csv" 1e-10
  done
}

check_model chain "$MESHES/rigid_chain.yaml" --set chain.count=16 --set integrator.end_time=0.04
check_model tree "$HERE/data/branched_tree.yaml" --set integrator.end_time=0.04
check_model beam "$MESHES/beam_swing_up.yaml" --set integrator.end_time=0.01 --set beams[0].elements=16

# The run summary names the solver: at np 2 `auto` gathers the tree's 110 unknowns (at most 10^5), `direct` is
# MUMPS, klu_gathered the gathered KLU.
mpiexec -n 2 "$FLEXADJ" simulate "$HERE/data/branched_tree.yaml" --no-output > simulate.txt 2>&1
pass_if "np 2 simulate: auto gathers a small system" grep -q "linear solver direct (KLU2 on rank 0, gathered)" simulate.txt
mpiexec -n 2 "$FLEXADJ" simulate "$HERE/data/branched_tree.yaml" --no-output --solver direct > simulate.txt 2>&1
pass_if "np 2 simulate: direct is MUMPS" grep -q "linear solver direct (MUMPS, distributed)" simulate.txt
mpiexec -n 2 "$FLEXADJ" simulate "$HERE/data/branched_tree.yaml" --no-output --solver klu_gathered > simulate.txt 2>&1
pass_if "np 2 simulate: klu_gathered on rank 0" grep -q "linear solver direct (KLU2 on rank 0, gathered)" simulate.txt
finish
