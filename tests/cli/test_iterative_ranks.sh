#!/usr/bin/env bash
# The iterative solver on 2, 4 and 8 ranks (4 and 8 oversubscribed). With its default preconditioner, the exact
# Schur complement of the interface between the ranks (applied once as a direct solve), GMRES takes at most 2 iterations per solve at every rank count
# (the limit 2 leaves room for round-off) and the trajectory is the direct solver's to round-off. With the
# overlapping Schwarz preconditioner (overlap 2) the trajectory is the direct solver's to the Newton tolerance and
# the overlap takes no more iterations than block Jacobi (schwarz_overlap 0); on the beam its count stays at most
# 10 up to np 8, on the rigid chain and the branched tree it grows with the ranks (a one-level method: a chain's
# slowest mode spans every rank), so those limits are the measured counts with a margin, to catch a regression:
# np 2 / 4 / 8 at most 6 / 14 / 22 (chain) and 7 / 20 / 24 (tree). The summary and its JSON report the iterations
# per solve.
# Usage: test_iterative_ranks.sh PATH/TO/flexadj
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$HERE/cli_support.sh" "$1"
MESHES="$HERE/../../meshes"
command -v mpiexec > /dev/null || { echo "mpiexec not found: these tests need it"; exit 1; }

# simulate NAME NP MODEL ARGS...: flexadj simulate at NP ranks, result NAME.h5, summary NAME.json.
simulate() {
  local name="$1" np="$2" model="$3"; shift 3
  local extra=""
  [ "$np" -gt 2 ] && extra="--oversubscribe"
  mpiexec -n "$np" $extra "$FLEXADJ" simulate "$model" "$@" -o "$name.h5" --no-xdmf --summary "$name.json" \
    > "$name.txt" 2>&1 || { echo "FAIL $name: exit code $?"; tail -5 "$name.txt"; failed=$((failed + 1)); return 1; }
}

# iterations NAME LIMIT: GMRES iterations per solve (mean and largest) from the JSON, the largest at most LIMIT.
iterations() {
  /usr/bin/python3 - "$1.json" "$2" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
print("     | %s: %s, GMRES per solve mean %.2f, max %d over %d solves"
      % (sys.argv[1], s["linear_solver"], s["krylov_iterations_mean"], s["krylov_iterations_max"], s["linear_solves"]))
sys.exit(0 if s["krylov_iterations_max"] <= int(sys.argv[2]) else 1)
PY
}

# same_trajectory A B TOLERANCE: the final positions of A.h5 and B.h5 agree to TOLERANCE relative.
same_trajectory() {
  /usr/bin/python3 - "$1.h5" "$2.h5" "$3" <<'PY'
import sys, h5py, numpy as np
a, b = (h5py.File(p, "r")["state/q"][-1] for p in sys.argv[1:3])
d = np.max(np.abs(a - b)) / max(np.max(np.abs(a)), 1e-300)
print("     | final q of %s vs %s: %.1e relative" % (sys.argv[2], sys.argv[1], d))
sys.exit(0 if d <= float(sys.argv[3]) else 1)
PY
}

# fewer NAME OTHER: NAME.json took no more GMRES iterations per solve (mean) than OTHER.json.
fewer() {
  /usr/bin/python3 - "$1.json" "$2.json" <<'PY'
import json, sys
a, b = (json.load(open(p))["krylov_iterations_mean"] for p in sys.argv[1:3])
sys.exit(0 if a <= b else 1)
PY
}

check_model() {  # LABEL "SCHWARZ_LIMIT_NP2 NP4 NP8" MODEL ARGS...
  local label="$1" model="$3"
  read -r -a limits <<< "$2"
  shift 3
  simulate "${label}_direct" 1 "$model" "$@" || return
  local k=0
  for np in 2 4 8; do
    if simulate "${label}_np$np" "$np" "$model" --solver iterative "$@"; then
      pass_if "$label np $np, interface Schur complement: at most 2 GMRES iterations per solve" \
        iterations "${label}_np$np" 2
      pass_if "$label np $np, interface Schur complement: the direct solver's trajectory to 1e-12" \
        same_trajectory "${label}_direct" "${label}_np$np" 1e-12
    fi
    if simulate "${label}_schwarz_np$np" "$np" "$model" --solver iterative --set integrator.preconditioner=schwarz "$@"; then
      pass_if "$label np $np, Schwarz: at most ${limits[$k]} GMRES iterations per solve" \
        iterations "${label}_schwarz_np$np" "${limits[$k]}"
      pass_if "$label np $np, Schwarz: the direct solver's trajectory" \
        same_trajectory "${label}_direct" "${label}_schwarz_np$np" 1e-8
      simulate "${label}_jacobi_np$np" "$np" "$model" --solver iterative --set integrator.preconditioner=schwarz \
        --set integrator.schwarz_overlap=0 "$@" && iterations "${label}_jacobi_np$np" 1000000 &&
        pass_if "$label np $np: Schwarz takes no more iterations than block Jacobi" fewer "${label}_schwarz_np$np" \
          "${label}_jacobi_np$np"
    fi
    k=$((k + 1))
  done
  pass_if "$label: the summary reports GMRES iterations" grep -q "GMRES iterations per solve" "${label}_np2.txt"
  pass_if "$label: the summary names the interface" grep -q "interface Schur complement/KLU, [0-9]* interface rows" \
    "${label}_np2.txt"
}

check_model chain "6 14 22" "$MESHES/rigid_chain.yaml" --set chain.count=64 --set integrator.end_time=0.02
check_model tree "7 20 24" "$HERE/data/branched_tree.yaml" --set integrator.end_time=0.02
check_model beam "10 10 10" "$MESHES/beam_swing_up.yaml" --set beams[0].elements=64 --set integrator.step_size=1e-4 \
  --set integrator.end_time=0.001

expect "schwarz_overlap out of range" 2 "schwarz_overlap" -- simulate "$HERE/data/branched_tree.yaml" \
  --set integrator.schwarz_overlap=9 --no-output
expect "unknown preconditioner" 2 "preconditioner" -- simulate "$HERE/data/branched_tree.yaml" \
  --set integrator.preconditioner=ilu --no-output
finish
