#!/usr/bin/env bash
# Every integrator kind with an absolute-coordinate adjoint (generalized-alpha, HHT, variational, state space,
# hamiltonian) on the pendulum on a cart (data/pendulum_cart.yaml, 300
# steps): the discrete adjoint against central differences of J (Richardson, in the spring's stiffness and the
# pendulum's mass), the continuous adjoints (adjoint DAE: generalized-alpha, HHT, hamiltonian) against the same
# differences to their integration error; np 2 from its own mpiexec against np 1; an HDF5 trajectory equal to memory
# byte for byte (HHT, variational, state_space, hamiltonian, and HHT's and hamiltonian's continuous adjoint); HHT with disk
# checkpoints and the spacetime adjoint.
# Usage: test_integrator_kinds.sh PATH/TO/flexadj
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$HERE/cli_support.sh" "$1"
MPIRUN="mpiexec --oversubscribe -n 2"

sed 's/end_time: 3,/end_time: 0.3,/; s/end: 3, count: 7/end: 0.3, count: 7/' "$HERE/data/pendulum_cart.yaml" > cart.yaml
for kind in generalized_alpha hht variational state_space hamiltonian; do
  sed "s/integrator: {end_time: 0.3, step_size: 1e-3}/integrator: {end_time: 0.3, step_size: 1e-3, type: $kind}/" \
    cart.yaml > $kind.yaml
done

# fd KIND: FD.txt lines "name difference" for the stiffness (forces[1]) and the pendulum's mass (bodies[1]):
# D = (4 D(h) - D(2h)) / 3, h = 1e-3 relative (truncation O(h^4); J's 15 digits leave noise 1e-14 |J| / h).
fd() {
  local kind=$1; : > $kind.fd.txt
  for entry in "spring.stiffness forces[1].stiffness 20" "pendulum.mass bodies[1].mass 0.5"; do
    set -- $entry
    local values=()
    for s in 2 1 -1 -2; do
      values+=("$("$FLEXADJ" gradient $kind.yaml --set "$2=$(/usr/bin/python3 -c "print($3 * (1 + $s * 1e-3))")" \
        2>/dev/null | sed -n 's/^J = //p')")
    done
    /usr/bin/python3 -c "
import sys; p2, p1, m1, m2 = map(float, sys.argv[2:6]); h = $3 * 1e-3
print(sys.argv[1], (4 * (p1 - m1) / (2 * h) - (p2 - m2) / (4 * h)) / 3)" "$1" "${values[@]}" >> $kind.fd.txt
  done
}
# matches_fd KIND FILE.csv TOLERANCE: each differenced entry of FILE within TOLERANCE relative of the difference,
# and the difference resolved (noise 1.5e-14 |J| / h below 1e-4 |D|).
matches_fd() {
  /usr/bin/python3 - "$@" <<'PY'
import csv, sys
kind, path, tolerance = sys.argv[1], sys.argv[2], float(sys.argv[3])
grad = {r[0]: float(r[2]) for r in list(csv.reader(open(path)))[1:]}
ok = True
for line in open(kind + ".fd.txt"):
    name, d = line.split()[0], float(line.split()[1])
    error = abs(grad[name] - d) / abs(d)
    print(f"     {kind} {path} {name}: adjoint {grad[name]:.12e} difference {d:.12e} relative error {error:.1e}")
    ok = ok and error <= tolerance
sys.exit(0 if ok else 1)
PY
}
same_bytes() { cmp -s "$1" "$2"; }
same_to() {  # same_to A.csv B.csv TOLERANCE: every entry within TOLERANCE of the largest
  /usr/bin/python3 - "$@" <<'PY'
import csv, sys
a = list(csv.reader(open(sys.argv[1])))[1:]
b = list(csv.reader(open(sys.argv[2])))[1:]
scale = max(abs(float(r[2])) for r in b)
worst = max(abs(float(x[2]) - float(y[2])) for x, y in zip(a, b))
print(f"     {sys.argv[1]} vs {sys.argv[2]}: largest difference {worst / scale:.1e} of the largest entry")
sys.exit(0 if len(a) == len(b) and [x[0] for x in a] == [y[0] for y in b] and worst <= float(sys.argv[3]) * scale else 1)
PY
}
np2() {  # np2 OUT.csv ARGS...: a gradient at np 2 from its own mpiexec; its exit code counts
  local out=$1; shift
  $MPIRUN "$FLEXADJ" gradient "$@" -o $out > $out.txt 2>/dev/null && [ -s $out ] && grep -q "; 2 rank(s)" $out.txt
}

for kind in generalized_alpha hht variational state_space hamiltonian; do
  expect "$kind: discrete adjoint" 0 "J = " -- gradient $kind.yaml -o $kind.memory.csv
  if [ $kind != generalized_alpha ]; then  # generalized-alpha's: test_discrete_adjoint
    fd $kind
    pass_if "$kind: discrete adjoint = central differences to 1e-6" matches_fd $kind $kind.memory.csv 1e-6
  fi
  pass_if "$kind: np 2" np2 $kind.np2.csv $kind.yaml
  pass_if "$kind: np 2 = np 1 to 1e-9" same_to $kind.np2.csv $kind.memory.csv 1e-9
done
for kind in hht variational state_space hamiltonian; do
  expect "$kind: HDF5 trajectory" 0 "trajectory  HDF5 file" -- gradient $kind.yaml --trajectory hdf5 -o $kind.hdf5.csv
  pass_if "$kind: HDF5 = memory byte for byte" same_bytes $kind.hdf5.csv $kind.memory.csv
done
for kind in generalized_alpha hht hamiltonian; do
  expect "$kind: continuous adjoint" 0 "adjoint     continuous (Nachbagauer" -- gradient $kind.yaml --adjoint continuous \
    -o $kind.continuous.csv
  if [ $kind != generalized_alpha ]; then
    pass_if "$kind: continuous adjoint = central differences to 3e-4" matches_fd $kind $kind.continuous.csv 3e-4
  else
    pass_if "$kind: continuous adjoint = discrete adjoint to 3e-4" same_to $kind.continuous.csv $kind.memory.csv 3e-4
  fi
  pass_if "$kind: continuous adjoint at np 2" np2 $kind.continuous_np2.csv $kind.yaml --adjoint continuous
  pass_if "$kind: continuous adjoint np 2 = np 1 to 1e-9" same_to $kind.continuous_np2.csv $kind.continuous.csv 1e-9
done
expect "state_space: continuous adjoint" 0 "Held and Seifried" -- gradient state_space.yaml --adjoint continuous \
  -o state_space.continuous.csv
pass_if "state_space: continuous adjoint = central differences to 3e-4" matches_fd state_space \
  state_space.continuous.csv 3e-4
pass_if "state_space: its continuous adjoint (dense QR) at np 2 is exit 2" \
  test "$($MPIRUN "$FLEXADJ" gradient state_space.yaml --adjoint continuous > ss_np2.txt 2>&1; echo $?)" = 2
pass_if "state_space: the refusal names the one rank" grep -q "it runs on one rank, this run has 2" ss_np2.txt
for kind in hht hamiltonian; do
  expect "$kind: continuous adjoint from HDF5" 0 "trajectory  HDF5 file" -- gradient $kind.yaml --adjoint continuous \
    --trajectory hdf5 -o $kind.continuous_hdf5.csv
  pass_if "$kind: continuous adjoint, HDF5 = memory byte for byte" same_bytes $kind.continuous_hdf5.csv \
    $kind.continuous.csv
done
expect "hht: disk checkpoints" 0 "4 checkpoints in memory and 7 on disk" -- gradient hht.yaml --checkpoints 4 \
  --disk-checkpoints 7 --checkpoint-folder hht_files -o hht.disk.csv
pass_if "hht: disk checkpoints = memory byte for byte" same_bytes hht.disk.csv hht.memory.csv
expect "hht: continuous adjoint with disk checkpoints" 0 "7 on disk" -- gradient hht.yaml --adjoint continuous \
  --checkpoints 4 --disk-checkpoints 7 --checkpoint-folder hht_files -o hht.continuous_disk.csv
pass_if "hht: continuous adjoint, disk checkpoints = memory byte for byte" same_bytes hht.continuous_disk.csv \
  hht.continuous.csv
expect "hht: spacetime adjoint" 0 "spacetime  4 slabs in 1 time groups: 4 GMRES iterations" -- gradient hht.yaml \
  --adjoint spacetime --time-slabs 4 -o hht.spacetime.csv
pass_if "hht: spacetime = sequential sweep to 1e-10" same_to hht.spacetime.csv hht.memory.csv 1e-10
pass_if "hht: spacetime at np 2" np2 hht.spacetime_np2.csv hht.yaml --adjoint spacetime --time-slabs 4
pass_if "hht: spacetime np 2 = sequential sweep to 1e-10" same_to hht.spacetime_np2.csv hht.memory.csv 1e-10
finish
