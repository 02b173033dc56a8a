#!/usr/bin/env bash
# Command-line behaviour of an implicit final time (integrator.end_condition) and of test (c) of `flexadj check`
# (extrapolated differences, judged): the stopped oscillator's gradient, the input errors (exit code 2), a condition
# not met by end_time (exit code 3), and (c) passing the discrete adjoint and failing a gradient that is not the
# derivative of the discrete J (exit code 4). Usage: test_final_time.sh PATH/TO/flexadj
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$HERE/cli_support.sh" "$1"
MODEL="$HERE/../../meshes/oscillator_stopped.yaml"

# Bestle and Eberhard 1992, the oscillator stopped at z = 0: psi = 0.5, dpsi/dc = -0.25, dpsi/dz0 = 1.
expect "gradient with an end condition" 0 "J = " "spring.stiffness" -- gradient "$MODEL" -o grad.csv
closed_form() {
  /usr/bin/python3 - stdout.txt grad.csv <<'PY'
import csv, sys
J = float(next(line for line in open(sys.argv[1]) if line.startswith("J = ")).split()[2])
gradient = {row["name"]: float(row["gradient"]) for row in csv.DictReader(open(sys.argv[2]))}
dc, dz0 = gradient["spring.stiffness"], gradient["initial_velocity:mass.x"]
error = max(abs(J - 0.5), abs(dc + 0.25), abs(dz0 - 1.0))
print("     | psi = %.10f, dpsi/dc = %.10f, dpsi/dz0 = %.10f, largest error %.1e" % (J, dc, dz0, error))
sys.exit(0 if error <= 1e-5 else 1)
PY
}
pass_if "stopped oscillator: gradient matches the closed form within 1e-5" closed_form
# dt1/dc = -pi/4 with the final time as the objective.
expect "final time as the objective" 0 "t_end" -- gradient "$MODEL" --set "objective=[{type: final_time}]" -o t1.csv
final_time() {
  /usr/bin/python3 - stdout.txt t1.csv <<'PY'
import csv, math, sys
J = float(next(line for line in open(sys.argv[1]) if line.startswith("J = ")).split()[2])
gradient = {row["name"]: float(row["gradient"]) for row in csv.DictReader(open(sys.argv[2]))}
error = max(abs(J - math.pi / 2), abs(gradient["spring.stiffness"] + math.pi / 4), abs(gradient["initial_velocity:mass.x"]))
print("     | t1 = %.10f, dt1/dc = %.10f, dt1/dz0 = %.1e, largest error %.1e" % (J, gradient["spring.stiffness"], gradient["initial_velocity:mass.x"], error))
sys.exit(0 if error <= 1e-5 else 1)
PY
}
pass_if "stopped oscillator: t1 and dt1/dp match the closed form within 1e-5" final_time
expect "end condition not met" 3 "integrator.end_condition" "was not met by end_time" -- \
  gradient "$MODEL" --set integrator.end_time=1.2
expect "end condition: bad direction" 2 "oscillator_stopped.yaml" "integrator.end_condition.direction" "falling" -- \
  gradient "$MODEL" --set "integrator.end_condition={coordinate: mass.x, quantity: velocity, direction: down}"
expect "end condition: unknown coordinate" 2 "integrator.end_condition.coordinate" -- \
  gradient "$MODEL" --set "integrator.end_condition={coordinate: mass.q}"
expect "end condition: no HDF5 trajectory yet" 2 "integrator.end_condition" "--trajectory memory" -- \
  gradient "$MODEL" --trajectory hdf5
# The continuous adjoint with Bestle and Eberhard's terminal terms of t1 (docs/adjoint.md, "The continuous form"):
# the same closed forms, to its integration error at the model file's step (1.6e-3: errors about 1e-6).
expect "continuous adjoint with an end condition" 0 "continuous (Nachbagauer" -- \
  gradient "$MODEL" --adjoint continuous -o grad.csv
pass_if "continuous adjoint, stopped oscillator: closed form within 1e-5" closed_form
expect "continuous adjoint, final time as the objective" 0 "t_end" -- \
  gradient "$MODEL" --adjoint continuous --adjoint-steps 2000 --set "objective=[{type: final_time}]" -o t1.csv
pass_if "continuous adjoint, stopped oscillator: dt1/dp match the closed form within 1e-5" final_time
expect "end condition: not with the spacetime adjoint" 2 "integrator.end_condition" "--adjoint spacetime" -- \
  gradient "$MODEL" --adjoint spacetime
# check judges the continuous gradient against differences of the discrete J: at the model file's step it is
# off by its integration error (1.8e-6 relative: (b) and (c) fail, exit 4); on 16000 steps of its own (b) passes
# (1e-8 .. 2.4e-8; the forward run's error remains) and only (c), which resolves 8.6e-8, fails.
expect "check --adjoint continuous with an end condition" 4 \
  "check FAILED: (b) central differences (c) extrapolated differences" -- check "$MODEL" -q --adjoint continuous
expect "check --adjoint continuous --adjoint-steps 16000 with an end condition" 4 \
  "check FAILED: (c) extrapolated differences" -- check "$MODEL" -q --adjoint continuous --adjoint-steps 16000
expect "end condition: not with a free final time" 2 "without integrator.end_condition" -- \
  gradient "$MODEL" --set "design_variables=[integrator.end_time]"
expect "simulate with an end condition" 0 "summary" -- simulate "$MODEL" -o stopped.h5

# (c) judged: passes the discrete adjoint, fails the continuous adjoint at coarse steps (its gradient is off the
# discrete J's derivative by the integration error, far above the extrapolation's estimate).
OSCILLATOR="$HERE/../../meshes/oscillator.yaml"
expect "check judges (c)" 0 "(c) extrapolated" "estimate" "check passed: (a) Taylor test, (b) central differences and (c) extrapolated differences" -- \
  check "$OSCILLATOR" -q
expect "check (c) fails a gradient that is not the discrete one" 4 "(c) extrapolated differences" "check FAILED" -- \
  check "$OSCILLATOR" -q --adjoint continuous --set integrator.step_size=0.039269908169872414
# The free final time's sweep reads generalized-alpha's aux, which an HDF5 trajectory does not keep: refused.
expect "free final time: no HDF5 trajectory yet" 2 "design_variables" "a free final time" "--trajectory memory" -- \
  gradient "$OSCILLATOR" --set "design_variables=[integrator.end_time]" --trajectory hdf5
expect "check with a free final time" 0 "check passed" -- \
  check "$OSCILLATOR" -q --set "design_variables=[spring.stiffness, integrator.end_time]"
# The continuous adjoint's dJ/dt1 of a free final time: psi = y(T) = z0 sin(T) at T = pi/2, dpsi/dT = z0 cos(T) = 0.
expect "continuous adjoint with a free final time" 0 "integrator.end_time" -- \
  gradient "$OSCILLATOR" --adjoint continuous --set "design_variables=[integrator.end_time]" -o free.csv
free_final_time() {
  /usr/bin/python3 - free.csv <<'PY'
import csv, sys
gradient = {row["name"]: float(row["gradient"]) for row in csv.DictReader(open(sys.argv[1]))}
value = gradient["integrator.end_time"]
print("     | dpsi/dT = %.3e (closed form 0)" % value)
sys.exit(0 if abs(value) <= 1e-5 else 1)
PY
}
pass_if "continuous adjoint, free final time: dpsi/dT within 1e-5 of 0" free_final_time
# check takes it too: at T = 1.2 its dJ/dT agrees with central differences of the discrete J to 6.3e-7 (relative,
# (b) passes), and the extrapolated differences resolve the integration error (1.2e-7): (c) fails, as for every
# continuous gradient (exit 4).
expect "check --adjoint continuous with a free final time" 4 "direction 3" "(b) central differences" "check FAILED: (c)" -- \
  check "$OSCILLATOR" -q --adjoint continuous --set integrator.end_time=1.2 --set "design_variables=[integrator.end_time]"
finish
