#!/usr/bin/env bash
# Command-line behaviour of `flexadj simulate`, `gradient` and `check`: each bad input gives a message naming
# the file, the key and what was expected, and exit code 2; a solver failure gives exit code 3 and keeps the
# steps done; a good run gives exit code 0 and its files; the gradient of the Bestle-Eberhard oscillator
# matches its closed form. Usage: test_cli.sh PATH/TO/flexadj
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$HERE/cli_support.sh" "$1"

good_model() {
  cat <<'YAML'
dimension: 2
gravity: [0, -9.81]
integrator: {end_time: 0.1, step_size: 1e-3}
bodies:
  - {name: bob, type: point_mass, mass: 1, position: [1, 0]}
joints:
  - {name: rod, type: distance, bodies: [ground, bob], points: [[0, 0], [1, 0]]}
YAML
}


good_model > good.yaml
expect "good run" 0 "summary" "max |C(q)|" -- simulate good.yaml -o good.h5
for f in good.h5 good.xmf; do
  if [ -s "$f" ]; then passed=$((passed + 1)); echo "ok   $f written"; else failed=$((failed + 1)); echo "FAIL $f missing"; fi
done

good_model | sed 's/mass: 1,/mass: 1, colour: red,/' > unknown_key.yaml
expect "unknown key" 2 "unknown_key.yaml" "bodies[0]" "unknown key 'colour'" -- simulate unknown_key.yaml
good_model | sed 's/integrator: {end_time: 0.1, step_size: 1e-3}/integrator: {step_size: 1e-3}/' > missing_key.yaml
expect "missing key" 2 "missing_key.yaml" "integrator" "end_time" -- simulate missing_key.yaml
good_model | sed 's/mass: 1,/mass: heavy,/' > wrong_type.yaml
expect "wrong type" 2 "wrong_type.yaml" "bodies[0].mass" "heavy" -- simulate wrong_type.yaml
good_model | sed 's/mass: 1,/mass: -1,/' > negative_mass.yaml
expect "non-positive mass" 2 "negative_mass.yaml" "bodies[0].mass" "positive" -- simulate negative_mass.yaml
cat > singular_inertia.yaml <<'YAML'
dimension: 3
integrator: {end_time: 0.1, step_size: 1e-3}
bodies:
  - {name: plate, type: rigid_body, mass: 1, inertia: [1, 1, 0, 0, 0, 0], position: [0, 0, 0]}
YAML
expect "singular inertia" 2 "singular_inertia.yaml" "bodies[0].inertia" "positive definite" -- simulate singular_inertia.yaml
good_model | sed 's/bodies: \[ground, bob\]/bodies: [ground, bobb]/' > unknown_body.yaml
expect "unknown body in a joint" 2 "unknown_body.yaml" "joints[0].bodies[1]" "unknown body 'bobb'" -- simulate unknown_body.yaml
good_model | sed 's/step_size: 1e-3/step_size: 0/' > zero_step.yaml
expect "step size <= 0" 2 "zero_step.yaml" "integrator.step_size" "positive" -- simulate zero_step.yaml
printf 'dimension: 2\nbodies: [\n' > syntax.yaml
expect "YAML syntax error" 2 "syntax.yaml" "line" -- simulate syntax.yaml
expect "missing file" 2 "no_such_model.yaml" "cannot be opened" -- simulate no_such_model.yaml
expect "unknown option" 2 "--frobnicate" -- simulate good.yaml --frobnicate
expect "bad override" 2 "integrator.step_size" -- simulate good.yaml --set integrator.step_size=-1
expect "unknown command" 2 "unknown command 'simulat'" -- simulat good.yaml
expect "output folder missing" 2 "no_such_dir/out.h5" -- simulate good.yaml -o no_such_dir/out.h5
good_model | sed 's/position: \[1, 0\]/position: [1.5, 0]/' > inconsistent.yaml
expect "inconsistent initial positions" 2 "violate constraint 'rod'" -- simulate inconsistent.yaml
expect "help" 0 "usage: flexadj simulate" -- simulate --help
# The program's help only: Kokkos must not take --help as its own.
if grep -qi "kokkos" stdout.txt stderr.txt; then failed=$((failed + 1)); echo "FAIL help shows Kokkos' options"; else passed=$((passed + 1)); echo "ok   help is the program's own"; fi

# A Newton failure: exit code 3, the message says where, and the steps done so far stay readable.
good_model | sed 's/integrator: {end_time: 0.1, step_size: 1e-3}/integrator: {end_time: 0.1, step_size: 1e-3, max_newton_iterations: 1}/' > newton.yaml
expect "Newton failure" 3 "Newton iteration failed at step" "t = " -- simulate newton.yaml -o newton.h5
if [ -s newton.h5 ] && [ -s newton.xmf ]; then passed=$((passed + 1)); echo "ok   partial results kept"; else failed=$((failed + 1)); echo "FAIL partial results missing"; fi

# Damped Newton: at this iterate of the beam swing-up with 300 steps the plain iteration wandered (up to 19
# iterations per step) and failed for torques perturbed by 1e-6 (the central differences of flexadj check).
expect "check through large steps of a very flexible beam" 0 "check passed" -- \
  check "$HERE/../../meshes/beam_swing_up.yaml" --set integrator.step_size=0.0016666666666666668 \
  --set optimization.start_from="$HERE/data/beam_swing_up_300_steps_iterate.yaml"

# ---- flexadj gradient and flexadj check
# Bestle and Eberhard 1992: m = 1, c = 1 on a rail, spring from (-1, 0) with free length 1, x(0) = 0,
# x'(0) = z0 = 0.5, psi = x(pi/2) = 0.5, dpsi/dc = -0.25, dpsi/dz0 = 1 (400 steps).
oscillator_model() {
  cat <<'YAML'
dimension: 2
integrator: {end_time: 1.5707963267948966, step_size: 0.003926990816987241}
bodies:
  - {name: mass, type: point_mass, mass: 1, position: [0, 0], velocity: [0.5, 0]}
forces:
  - {name: spring, type: spring_damper, bodies: [ground, mass], points: [[-1, 0], [0, 0]], stiffness: 1, free_length: 1}
joints:
  - {name: rail, type: prismatic, bodies: [ground, mass], axis: [1, 0]}
objective:
  - {type: final_value, coordinate: mass.x}
design_variables:
  - spring.stiffness
  - initial_velocity: mass.x
YAML
}

oscillator_model > oscillator.yaml
expect "gradient" 0 "J = " "spring.stiffness" "initial_velocity:mass.x" "adjoint/forward" -- gradient oscillator.yaml -o grad.csv --h5 grad.h5
closed_form() {
  /usr/bin/python3 - stdout.txt grad.csv <<'PY'
import csv, sys
J = float(next(line for line in open(sys.argv[1]) if line.startswith("J = ")).split()[2])
gradient = {row["name"]: float(row["gradient"]) for row in csv.DictReader(open(sys.argv[2]))}
dc, dz0 = gradient["spring.stiffness"], gradient["initial_velocity:mass.x"]
error = max(abs(J - 0.5), abs(dc + 0.25), abs(dz0 - 1.0))
print("     | psi = %.10f, dpsi/dc = %.10f, dpsi/dz0 = %.10f, largest error %.1e" % (J, dc, dz0, error))
sys.exit(0 if error <= 1e-4 else 1)
PY
}
pass_if "gradient matches the closed form within 1e-4" closed_form
pass_if "gradient HDF5 written" test -s grad.h5
# The continuous adjoint (BDF-2) approximates the same closed form to the integration error; the trajectory
# read back from HDF5 gives the memory sweep's numbers exactly.
expect "gradient, continuous adjoint" 0 "continuous (Nachbagauer" "BDF-2" -- gradient oscillator.yaml --adjoint continuous -o grad.csv
pass_if "continuous adjoint matches the closed form within 1e-4" closed_form
expect "gradient, HDF5 trajectory" 0 "HDF5 file traj.h5" -- gradient oscillator.yaml --trajectory-file traj.h5 -o grad_h5.csv
expect "gradient, memory trajectory" 0 "trajectory  memory" -- gradient oscillator.yaml -o grad_memory.csv
pass_if "HDF5 trajectory gives the memory gradient exactly" cmp grad_h5.csv grad_memory.csv
# A sensor on the mass's centre (position x) is the coordinate mass.x: the same closed form.
oscillator_model | sed 's/{type: final_value, coordinate: mass.x}/{type: final_value, sensor: {body: mass, component: x}}/' > sensor.yaml
expect "gradient, sensor term" 0 "mass.position_x(t_end)" -- gradient sensor.yaml -o grad.csv
pass_if "sensor term matches the closed form within 1e-4" closed_form
oscillator_model | sed 's/{type: final_value, coordinate: mass.x}/{type: final_value, sensor: {body: mass, component: z}}/' > bad_sensor.yaml
expect "sensor component of a planar model" 2 "bad_sensor.yaml" "objective[0].sensor.component" "x, y" -- gradient bad_sensor.yaml
oscillator_model | sed 's/{type: final_value, coordinate: mass.x}/{type: final_value, coordinate: mass.x, sensor: {body: mass, component: x}}/' > both.yaml
expect "coordinate and sensor" 2 "objective[0].sensor" "either 'coordinate' or 'sensor'" -- gradient both.yaml
expect "bad adjoint mode" 2 "--adjoint" "expected discrete, continuous or spacetime" -- gradient oscillator.yaml --adjoint exact
expect "bad BDF order" 2 "--bdf-order" "from 1 to 4" -- gradient oscillator.yaml --adjoint continuous --bdf-order 5
expect "bad trajectory storage" 2 "--trajectory" "memory, hdf5 or checkpoints" -- gradient oscillator.yaml --trajectory disk
expect "check" 0 "order" "passed: second order" "relative error" "extrapolated FD" "check passed" -- check oscillator.yaml
expect "gradient without objective" 2 "good.yaml" "objective" "missing" -- gradient good.yaml
oscillator_model | sed 's/type: final_value/type: final_valu/' > bad_term.yaml
expect "unknown objective term" 2 "bad_term.yaml" "objective[0].type" "expected one of: final_value, final_square, tracking" -- gradient bad_term.yaml
oscillator_model | sed 's/coordinate: mass.x/coordinate: mass.theta/' > bad_coordinate.yaml
expect "unknown coordinate" 2 "objective[0].coordinate" "its coordinates are: x, y" -- gradient bad_coordinate.yaml
oscillator_model | sed 's/- spring.stiffness/- spring.stifness/' > bad_parameter.yaml
expect "unknown parameter" 2 "design_variables[0]" "did you mean 'spring.stiffness'" -- gradient bad_parameter.yaml
oscillator_model | sed 's/- initial_velocity: mass.x/- control: F/' > bad_control.yaml
expect "unknown control" 2 "design_variables[1].control" "unknown control 'F' (the model has no controls)" -- check bad_control.yaml
# The backward sweep solves with the forward run's linear solver, the iterative one too.
expect "gradient, iterative solver" 0 "J = " -- gradient oscillator.yaml --set integrator.linear_solver=iterative -o grad_iterative.csv
same_gradient() {
  /usr/bin/python3 - grad_iterative.csv grad_memory.csv <<'PY'
import csv, sys
a, b = ({r["name"]: float(r["gradient"]) for r in csv.DictReader(open(f))} for f in sys.argv[1:3])
worst = max(abs(a[k] - b[k]) / max(1.0, abs(b[k])) for k in b)
print("     | largest relative difference to the direct solver %.1e" % worst)
sys.exit(0 if worst <= 1e-7 else 1)
PY
}
pass_if "iterative solver gives the direct gradient within 1e-7" same_gradient
# A given initial position along a blocked direction is projected back onto the rail: the check passes.
expect "check: constrained initial position" 0 "check passed" -- check oscillator.yaml -q --set "design_variables=[{initial_position: mass.y}]"
expect "check: bad option value" 2 "--directions" "positive integer" -- check oscillator.yaml --directions two
# flexadj check must fail (exit 4) for a gradient that is not the derivative of the discrete J: the continuous
# adjoint at 40 steps is off by O(h^2) (about 1e-4 relative); the discrete one passes on the same model.
expect "check fails the continuous adjoint at coarse steps" 4 "FAILED" "check FAILED" -- \
  check oscillator.yaml -q --adjoint continuous --set integrator.step_size=0.039269908169872414
expect "check passes the discrete adjoint at coarse steps" 0 "check passed" -- \
  check oscillator.yaml -q --set integrator.step_size=0.039269908169872414
expect "check: bad adjoint mode" 2 "--adjoint" "expected discrete, continuous or spacetime" -- check oscillator.yaml --adjoint exact
# A spring between two fully parameterised ANCF nodes (24 coordinates) exceeds what its AD kernel holds.
cat > two_full_nodes.yaml <<'YAML'
dimension: 3
integrator: {end_time: 0.01, step_size: 1e-3}
ancf:
  - {name: bar, type: full, elements: 2, line: {start: [0, 0, 0], end: [1, 0, 0]},
     section: {E: 1e7, nu: 0.3, rho: 1000, A: 1e-4, I: 1e-9}}
forces:
  - {name: tie, type: spring_damper, bodies: [bar.start, bar.end], stiffness: 10}
YAML
expect "component on too many coordinates" 2 "two_full_nodes.yaml" "forces[0]" "24 coordinates" "at most 14" -- simulate two_full_nodes.yaml
# The variational integrator simulates (momentum form, HDF5 output as for generalized-alpha); its discrete adjoint
# passes flexadj check; the continuous adjoint is refused with an input error naming integrator.type.
oscillator_model | sed 's/integrator: {end_time/integrator: {type: variational, end_time/' > variational.yaml
expect "simulate, variational integrator" 0 "midpoint variational integrator" "max |C(q)|" -- simulate variational.yaml -o variational.h5
pass_if "variational: HDF5 and XDMF written" test -s variational.h5 -a -s variational.xmf
expect "check, variational integrator" 0 "passed: second order" "check passed" -- check variational.yaml
expect "continuous adjoint refuses the variational integrator" 2 "variational.yaml" "integrator.type" \
  "the continuous adjoint (--adjoint continuous) is not available with the variational integrator" \
  -- gradient variational.yaml --adjoint continuous
expect "variational with spectral_radius" 2 "variational.yaml: integrator.spectral_radius" "not used by type variational" \
  -- simulate variational.yaml --set integrator.spectral_radius=0.9
# The constrained Hamiltonian integrator (Maciag et al. 2022, eqs. (6a)/(6b)): simulates with the usual output,
# passes flexadj check; so does coordinates: joint (its joint-space equations, one joint coordinate here).
oscillator_model | sed 's/integrator: {end_time/integrator: {type: hamiltonian, end_time/' > hamiltonian.yaml
expect "simulate, hamiltonian integrator" 0 "constrained Hamiltonian" "max |C(q)|" -- simulate hamiltonian.yaml -o hamiltonian.h5
pass_if "hamiltonian: HDF5 and XDMF written" test -s hamiltonian.h5 -a -s hamiltonian.xmf
expect "check, hamiltonian integrator" 0 "passed: second order" "check passed" -- check hamiltonian.yaml
oscillator_model | sed 's/integrator: {end_time/integrator: {type: hamiltonian, coordinates: joint, end_time/' > joint.yaml
expect "simulate, hamiltonian in joint coordinates" 0 "joint-space Hamiltonian" "1 joint coordinates" \
  -- simulate joint.yaml -o joint.h5
expect "check, hamiltonian in joint coordinates" 0 "passed: second order" "check passed" -- check joint.yaml
# The state-space form's continuous adjoint (Held and Seifried's QR form, dense): runs on one rank and a small
# model; refused (exit 2 naming --adjoint) on two ranks and above 24 coordinates.
oscillator_model | sed 's/integrator: {end_time/integrator: {type: state_space, end_time/' > state_space.yaml
expect "continuous adjoint, state-space form" 0 "Held and Seifried" "spring.stiffness" \
  -- gradient state_space.yaml --adjoint continuous -o ss_memory.csv
expect "continuous adjoint, state-space form, 5 checkpoints" 0 "spring.stiffness" \
  -- gradient state_space.yaml --adjoint continuous --checkpoints 5 -o ss_checkpoints.csv
pass_if "state-space continuous adjoint: checkpoints give the memory gradient byte for byte" \
  cmp -s ss_memory.csv ss_checkpoints.csv
OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 mpirun --oversubscribe -np 2 "$FLEXADJ" gradient \
  state_space.yaml --adjoint continuous >np2.txt 2>&1
code=$?
if [ $code -ne 0 ] && grep -qF -- "--adjoint: the continuous adjoint of the state-space form" np2.txt && \
   grep -qF "it runs on one rank, this run has 2" np2.txt; then
  passed=$((passed + 1)); echo "ok   state-space continuous adjoint refused on two ranks"
else
  failed=$((failed + 1)); echo "FAIL state-space continuous adjoint on two ranks: exit $code"; sed 's/^/     | /' np2.txt
fi
{
  echo "dimension: 2"
  echo "integrator: {type: state_space, end_time: 0.01, step_size: 1e-3}"
  echo "bodies:"
  for i in $(seq 1 13); do echo "  - {name: m$i, type: point_mass, mass: 1, position: [$i, 0]}"; done
  echo "joints:"
  for i in $(seq 1 13); do echo "  - {name: rod$i, type: distance, bodies: [ground, m$i], points: [[0, 0], [$i, 0]]}"; done
  echo "objective:"
  echo "  - {type: final_value, coordinate: m1.y}"
} > thirteen_masses.yaml
expect "state-space continuous adjoint refused above 24 coordinates" 2 "thirteen_masses.yaml" "--adjoint" \
  "at most 24 coordinates" "the model has 26" -- gradient thirteen_masses.yaml --adjoint continuous
expect "state-space discrete adjoint on the same model" 0 "dJ/d" -- gradient thirteen_masses.yaml
expect "gradient help" 0 "usage: flexadj gradient" "--h5" -- gradient --help
expect "check help" 0 "usage: flexadj check" "--relative-step" "Exit codes" -- check --help

finish
