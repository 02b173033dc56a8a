#!/usr/bin/env bash
# Command-line behaviour of error-controlled steps (integrator.step_control): simulate writes the last step whatever
# --every says and reports the step sizes; gradient and check run with the steps held fixed (check passes on the
# manipulator, with its Hessian-vector product test (d) too); np 2 (its own mpiexec) gives the gradient of np 1;
# every setting that cannot go with it is an input error (exit 2) naming the key; a step that cannot meet the tolerance fails with the time (exit 3).
# Usage: test_step_control.sh PATH/TO/flexadj
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$HERE/cli_support.sh" "$1"
MESHES="$HERE/../../meshes"
ON=(--set integrator.step_control.tolerance=1e-5)

expect "simulate with step control" 0 "error-controlled steps" "step sizes" "rejected" -- \
  simulate "$MESHES/manipulator.yaml" "${ON[@]}" --every 7 -o steps.h5
last_step_written() {
  /usr/bin/python3 - steps.h5 <<'PY'
import sys, h5py
with h5py.File(sys.argv[1], "r") as f:
    t = f["time"][:]
print("     | %d steps written, the last at t = %.17g" % (len(t), t[-1]))
sys.exit(0 if t[-1] == 0.8 and len(t) > 2 else 1)
PY
}
pass_if "the last step is written at end_time" last_step_written
expect "gradient with step control" 0 "error-controlled steps" "holds the chosen steps fixed" -- \
  gradient "$MESHES/manipulator.yaml" "${ON[@]}" -o one.csv
expect "gradient with step control, 1 rank, direct solver" 0 "J = " -- gradient "$MESHES/manipulator.yaml" \
  "${ON[@]}" -o one_direct.csv --set integrator.linear_solver=direct
# np 2 from its own mpiexec: the gradients of the two rank counts differ at round-off, through the steps the
# controller chooses and the order of the ranks' sums (measured: 3e-11 discrete, 2.4e-10 continuous, relative to
# max |g|); a rank's lost contribution would differ at order one. 1e-9 is the bound both claims below state.
gradient_np2() {  # NAME FILE.csv ARGS...: flexadj gradient ARGS on two ranks into FILE.csv; exit code and J checked
  local name="$1" file="$2"; shift 2
  if ! command -v mpiexec > /dev/null; then failed=$((failed + 1)); echo "FAIL $name: mpiexec not found"; return; fi
  mpiexec --oversubscribe -n 2 "$FLEXADJ" gradient "$@" -o "$file" > "$file.txt" 2>&1
  local code=$?
  if [ $code -eq 0 ] && grep -q "J = " "$file.txt"; then passed=$((passed + 1)); echo "ok   $name"
  else failed=$((failed + 1)); echo "FAIL $name: exit code $code"; sed 's/^/     | /' "$file.txt" | tail -5; fi
}
gradient_np2 "gradient with step control, 2 ranks" two.csv "$MESHES/manipulator.yaml" "${ON[@]}" \
  --set integrator.linear_solver=direct
same_gradient() {  # FILE1.csv FILE2.csv
  /usr/bin/python3 - "$1" "$2" <<'PY'
import csv, sys
a, b = ([(r["name"], float(r["gradient"])) for r in csv.DictReader(open(p))] for p in sys.argv[1:3])
if not a or [n for n, _ in a] != [n for n, _ in b]:
    print("     | the files name different design variables (%d and %d rows)" % (len(a), len(b)))
    sys.exit(1)
scale = max(abs(x) for _, x in a)
difference = max(abs(x - y) for (_, x), (_, y) in zip(a, b)) / scale
print("     | largest difference %.1e relative to max |g|" % difference)
sys.exit(0 if difference < 1e-9 else 1)
PY
}
pass_if "np 2 gives the gradient of np 1 to 1e-9" same_gradient one_direct.csv two.csv
expect "check holds the steps fixed and passes" 0 "held fixed" "check passed" -- \
  check "$MESHES/manipulator.yaml" "${ON[@]}" -q
# The Hessian-vector product on the held steps as well (check's test (d); the direction in the force elements'
# parameters and a control: the manipulator's joint parameters are not among the second-order adjoint's yet).
SECOND_ORDER=(--set "design_variables=[upper_arm.mass, forearm.mass, gripper.mass, {control: u_shoulder}]")
expect "check (d) with step control" 0 "held fixed" "check passed" ", (d) Hessian-vector product" -- \
  check "$MESHES/manipulator.yaml" "${ON[@]}" "${SECOND_ORDER[@]}" -q
expect "check (d) with step control, HHT" 0 "check passed" ", (d) Hessian-vector product" -- \
  check "$MESHES/manipulator.yaml" "${ON[@]}" "${SECOND_ORDER[@]}" --set integrator.type=hht -q

expect "tolerance of 2" 2 "integrator.step_control.tolerance" "below 1" -- \
  simulate "$MESHES/manipulator.yaml" --set integrator.step_control.tolerance=2
expect "no tolerance" 2 "integrator.step_control" "tolerance" -- \
  simulate "$MESHES/manipulator.yaml" --set integrator.step_control.min_step=1e-6
expect "unknown key" 2 "integrator.step_control" "relative_tolerance" -- \
  simulate "$MESHES/manipulator.yaml" --set "integrator.step_control={tolerance: 1e-6, relative_tolerance: 1}"
expect "min_step above step_size" 2 "integrator.step_control.min_step" "at most step_size" -- \
  simulate "$MESHES/manipulator.yaml" "${ON[@]}" --set integrator.step_control.min_step=0.1
expect "variational integrator" 2 "integrator.step_control" "generalized_alpha or hht" -- \
  simulate "$MESHES/torsional_pendulum.yaml" --set integrator.type=variational "${ON[@]}"
expect "end condition" 2 "integrator.end_condition" "step_control" -- \
  simulate "$MESHES/oscillator_stopped.yaml" "${ON[@]}"
expect "free final time" 2 "design_variables" "step_control" -- \
  gradient "$MESHES/oscillator.yaml" "${ON[@]}" --set "design_variables=[integrator.end_time]"
expect "checkpoints" 2 "integrator.step_control" "--trajectory checkpoints" -- \
  gradient "$MESHES/manipulator.yaml" "${ON[@]}" --trajectory checkpoints
expect "spacetime adjoint" 2 "integrator.step_control" "--adjoint spacetime" -- \
  gradient "$MESHES/manipulator.yaml" "${ON[@]}" --adjoint spacetime
# The continuous adjoint on its own constant steps, the forward states interpolated (docs/adjoint.md, "Own grid"):
# Bestle and Eberhard's oscillator, dpsi/dc = -0.25, dpsi/dz0 = 1, on the forward run's step count and on 2000.
TIGHT=(--set integrator.step_control.tolerance=1e-9 --set integrator.newton_tolerance=1e-13)
oscillator_closed_form() {  # FILE.csv TOLERANCE
  /usr/bin/python3 - "$1" "$2" <<'PY'
import csv, sys
gradient = {row["name"]: float(row["gradient"]) for row in csv.DictReader(open(sys.argv[1]))}
error = max(abs(gradient["spring.stiffness"] + 0.25), abs(gradient["initial_velocity:mass.x"] - 1.0))
print("     | dpsi/dc = %.10f, dpsi/dz0 = %.10f, largest error %.1e" % (gradient["spring.stiffness"], gradient["initial_velocity:mass.x"], error))
sys.exit(0 if error <= float(sys.argv[2]) else 1)
PY
}
expect "continuous adjoint with step control" 0 "continuous (Nachbagauer" "constant steps of its own" -- \
  gradient "$MESHES/oscillator.yaml" "${TIGHT[@]}" --adjoint continuous -o continuous.csv
pass_if "continuous adjoint over controlled steps: closed form within 1e-4" oscillator_closed_form continuous.csv 1e-4
expect "continuous adjoint on 2000 steps of its own" 0 "BDF-2 on 2000 steps of its own" -- \
  gradient "$MESHES/oscillator.yaml" "${TIGHT[@]}" --adjoint continuous --adjoint-steps 2000 -o own.csv
pass_if "continuous adjoint on its own steps: closed form within 2e-5" oscillator_closed_form own.csv 2e-5
expect "continuous adjoint with step control, HDF5 trajectory" 0 "J = " -- gradient "$MESHES/oscillator.yaml" \
  "${TIGHT[@]}" --adjoint continuous --trajectory hdf5 --trajectory-file continuous.h5 -o continuous_h5.csv
pass_if "continuous adjoint with step control: HDF5 gives the memory gradient" same_gradient continuous.csv continuous_h5.csv
expect "continuous adjoint with step control, manipulator" 0 "J = " -- gradient "$MESHES/manipulator.yaml" \
  "${ON[@]}" --adjoint continuous --set integrator.linear_solver=direct -o continuous_one.csv
gradient_np2 "continuous adjoint with step control, manipulator, 2 ranks" continuous_two.csv \
  "$MESHES/manipulator.yaml" "${ON[@]}" --adjoint continuous --set integrator.linear_solver=direct
pass_if "continuous adjoint with step control: np 2 = np 1 to 1e-9" same_gradient continuous_one.csv continuous_two.csv
expect "adjoint steps without the continuous adjoint" 2 "--adjoint-steps" "--adjoint continuous" -- \
  gradient "$MESHES/oscillator.yaml" --adjoint-steps 100
expect "adjoint steps of 0" 2 "--adjoint-steps" "positive" -- \
  gradient "$MESHES/oscillator.yaml" --adjoint continuous --adjoint-steps 0
expect "check: adjoint steps of 0" 2 "--adjoint-steps" "positive" -- \
  check "$MESHES/oscillator.yaml" --adjoint continuous --adjoint-steps 0
expect "check: adjoint steps without the continuous adjoint" 2 "--adjoint-steps" "--adjoint continuous" -- \
  check "$MESHES/oscillator.yaml" --adjoint-steps 100
# A tolerance no step above min_step meets: exit 3 naming the time and the step control's settings.
expect "tolerance not met above min_step" 3 "at t = 0 s" "step control: tolerance 1e-12, min_step 0.0001" -- \
  simulate "$MESHES/manipulator.yaml" --set integrator.step_control.tolerance=1e-12 \
  --set integrator.step_control.min_step=1e-4
finish
