#!/usr/bin/env bash
# Objective and constraint terms on accelerations (quantity: acceleration): flexadj check passes with its defaults
# for generalized-alpha, HHT, and the variational, state-space and Hamiltonian integrators in absolute and joint
# coordinates (whose steps put out the consistent accelerations), the
# discrete and the spacetime adjoint, at np 1 and np 2, and the gradient is the same from every trajectory storage; flexadj check includes the Hessian-vector product, and the whole Hessian is
# symmetric, the same from every storage and at np 2; a sensor's acceleration passes check too, and its value is
# the point's acceleration a_r + alpha k x (R s) - omega^2 R s of the run's states; the integrators, adjoints and
# commands that do not differentiate a_n, and end conditions on an acceleration, are refused (exit 2) with the file
# and the key, and so is an optimize --restart whose objective's quantity changed.
# Usage: test_acceleration_terms.sh PATH/TO/flexadj
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$HERE/cli_support.sh" "$1"
MPIRUN="mpirun --oversubscribe -np 2"

# Two masses on rails coupled by a spring across the rails; a control force drives a.
cat > accel.yaml <<'YAML'
dimension: 2
gravity: [0, 0]
integrator: {end_time: 0.5, step_size: 0.01}
bodies:
  - {name: a, type: point_mass, mass: 1, position: [0, 0], velocity: [0.3, 0]}
  - {name: b, type: point_mass, mass: 1.3, position: [0.1, 1]}
controls:
  - {name: F, grid: {start: 0, end: 0.5, count: 6}, value: 0.5}
forces:
  - {name: drive, type: load, body: a, control: {name: F, force_direction: [1, 0]}}
  - {name: coupling, type: spring_damper, bodies: [a, b], stiffness: 2, damping: 0.1, free_length: 0.8}
joints:
  - {name: rail_a, type: prismatic, bodies: [ground, a], axis: [1, 0]}
  - {name: rail_b, type: prismatic, bodies: [ground, b], axis: [1, 0]}
objective:
  - {type: tracking, coordinate: b.x, quantity: acceleration, reference: "0.2*sin(3*t)", weight: 3}
  - {type: final_square, coordinate: b.x, quantity: acceleration, target: 0.1}
design_variables:
  - control: F
  - coupling.stiffness
YAML
sed 's/integrator: {end_time: 0.5, step_size: 0.01}/integrator: {type: hht, end_time: 0.5, step_size: 0.01}/' \
  accel.yaml > accel_hht.yaml
grep -q "type: hht" accel_hht.yaml || { echo "FAIL model"; exit 1; }

checks() {  # checks LAUNCHER ARGS...: flexadj check passes (its report is shown when it fails)
  local launcher="$1"; shift
  $launcher "$FLEXADJ" check "$@" > check.txt 2>&1 && grep -q "^check passed" check.txt && return 0
  sed 's/^/     | /' check.txt | tail -30
  return 1
}
hessian_checked() {  # hessian_checked LAUNCHER MODEL: check passes, its (d) among the checks
  checks "$@" && grep -q "^check passed.*(d) Hessian-vector product" check.txt && return 0
  grep "^check" check.txt | sed 's/^/     | /'
  return 1
}
for model in accel accel_hht; do
  for adjoint in discrete spacetime; do
    pass_if "$model: check, $adjoint adjoint, np 1" checks "" $model.yaml --adjoint $adjoint
    pass_if "$model: check, $adjoint adjoint, np 2" checks "$MPIRUN" $model.yaml --adjoint $adjoint
  done
done
expect "the objective names the acceleration" 0 "a(b.x)" -- gradient accel.yaml -o accel.csv
# The accelerations come back from every trajectory storage: the same gradient, bit for bit.
for storage in "hdf5" "checkpoints --checkpoints 3"; do
  expect "gradient, trajectory $storage" 0 "a(b.x)" -- gradient accel.yaml --trajectory $storage -o stored.csv
  pass_if "trajectory $storage: the gradient of memory" cmp -s accel.csv stored.csv
done

# A restart belongs to its run: the objective's quantity changed is another objective.
cp accel.yaml opt.yaml
echo "optimization: {method: lbfgs, max_iterations: 2}" >> opt.yaml
OPT=(optimize opt.yaml --no-trajectory -q -o run)
expect "optimize: two iterations on acceleration terms" 0 -- "${OPT[@]}"
expect "optimize --restart with the quantity changed to position is refused" 2 "run_restart.txt: --restart" \
  "belongs to another run: its objective differs" -- "${OPT[@]}" --restart --max-iterations 4 \
  --set "objective[0].quantity=position"
expect "optimize --restart of the same run continues" 0 -- "${OPT[@]}" --restart --max-iterations 4

# The variational integrator: a_k is the consistent acceleration of x_k, its adjoint one more solve with the
# velocity system's factorization per step; flexadj check's (d) verifies its Hessian-vector product too.
sed "s/integrator: {end_time: 0.5, step_size: 0.01}/integrator: {type: variational, end_time: 0.5, step_size: 0.01}/" \
  accel.yaml > variational.yaml
pass_if "variational: check with the Hessian-vector product, np 1" hessian_checked "" variational.yaml
pass_if "variational: check with the Hessian-vector product, np 2" hessian_checked "$MPIRUN" variational.yaml
pass_if "variational: check, spacetime adjoint, np 1" checks "" variational.yaml --adjoint spacetime
expect "variational: whole Hessian" 0 -- hessian variational.yaml -q -o H_variational.csv
for storage in "hdf5" "checkpoints --checkpoints 3"; do
  expect "variational: whole Hessian, trajectory $storage" 0 -- hessian variational.yaml -q --trajectory $storage \
    -o H_stored.csv
  pass_if "variational, trajectory $storage: the Hessian of memory bit for bit" cmp -s H_variational.csv H_stored.csv
done
expect "variational: gradient" 0 "a(b.x)" -- gradient variational.yaml -o variational.csv
for storage in "hdf5" "checkpoints --checkpoints 3"; do
  expect "variational: gradient, trajectory $storage" 0 "a(b.x)" -- gradient variational.yaml --trajectory $storage \
    -o stored.csv
  pass_if "variational, trajectory $storage: the gradient of memory" cmp -s variational.csv stored.csv
done
# With an implicit final time (the run ends where a.x reaches 0.12; the equations without explicit time, so a_k has
# no dependence on the step size of its own) and with a free one (the control on normalized time), variational and
# generalized-alpha alike.
python3 - <<'PY'
s = open("accel.yaml").read()
implicit = s.replace("end_time: 0.5, step_size: 0.01}",
                     "end_time: 2, step_size: 0.01, end_condition: {coordinate: a.x, value: 0.12, direction: rising}}")
implicit = implicit.replace("  - {name: drive, type: load, body: a, control: {name: F, force_direction: [1, 0]}}\n", "")
implicit = implicit.replace("controls:\n  - {name: F, grid: {start: 0, end: 0.5, count: 6}, value: 0.5}\n", "")
implicit = implicit.replace("  - control: F\n", "  - b.mass\n")
free = s.replace("{name: F, grid: {start: 0, end: 0.5, count: 6}, value: 0.5}",
                 "{name: F, time: normalized, grid: {start: 0, end: 1, count: 6}, value: 0.5}")
free = free.replace("design_variables:\n", "design_variables:\n  - integrator.end_time\n")
assert "end_condition" in implicit and "drive" not in implicit and "integrator.end_time" in free
for name, text in (("implicit", implicit), ("free", free)):
    open(name + ".yaml", "w").write(text)
    open(name + "_variational.yaml", "w").write(text.replace("integrator: {", "integrator: {type: variational, "))
PY
for model in implicit implicit_variational free free_variational; do
  pass_if "$model final time: check" checks "" $model.yaml
done
# The explicit integrators in absolute coordinates: a_n is the consistent acceleration of x_n (their output after each
# step), its adjoint one more factorization of [M C_q^T; C_q 0] at q_n; check at np 1 and np 2, the spacetime adjoint,
# every storage bit for bit. The joint-coordinate kinds below, with the sensor.
for type in state_space hamiltonian; do
  sed "s/integrator: {end_time: 0.5, step_size: 0.01}/integrator: {type: $type, end_time: 0.5, step_size: 0.01}/" \
    accel.yaml > $type.yaml
  pass_if "$type: check, np 1" checks "" $type.yaml
  pass_if "$type: check, np 2" checks "$MPIRUN" $type.yaml
  pass_if "$type: check, spacetime adjoint" checks "" $type.yaml --adjoint spacetime
  expect "$type: gradient" 0 "a(b.x)" -- gradient $type.yaml -o $type.csv
  for storage in "hdf5" "checkpoints --checkpoints 3"; do
    expect "$type: gradient, trajectory $storage" 0 "a(b.x)" -- gradient $type.yaml --trajectory $storage \
      -o stored.csv
    pass_if "$type, trajectory $storage: the gradient of memory bit for bit" cmp -s $type.csv stored.csv
  done
done
sed 's/integrator: {end_time: 0.5, step_size: 0.01}/integrator: {type: variational, end_time: 0.5, step_size: 0.01}/' \
  accel.yaml | sed '/quantity: acceleration/d' | sed 's/^objective:$/constraints:\
  - {type: path, coordinate: b.x, quantity: acceleration, upper: 1}\
objective:\
  - {type: final_value, coordinate: b.x}/' > constrained_variational.yaml
pass_if "a path constraint on accelerations with variational: check" checks "" constrained_variational.yaml
# Adjoints and commands that do not take dJ/da.
expect "continuous adjoint refused" 2 "accel.yaml" "objective[0].quantity" "--adjoint continuous" -- \
  gradient accel.yaml --adjoint continuous

# Second order: flexadj check's (d) verifies the Hessian-vector product (symmetry, central differences of gradients,
# Taylor order 3) of the acceleration terms above; the whole Hessian is symmetric.
for model in accel accel_hht; do
  pass_if "$model: check verifies the Hessian-vector product, np 1" hessian_checked "" $model.yaml
  pass_if "$model: check verifies the Hessian-vector product, np 2" hessian_checked "$MPIRUN" $model.yaml
done
expect "whole Hessian" 0 -- hessian accel.yaml -o H.csv
symmetric() {
  /usr/bin/python3 - H.csv <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
H = {(r["row"], r["column"]): float(r["value"]) for r in rows}
scale = max(abs(v) for v in H.values())
worst = max(abs(v - H[(c, r)]) for (r, c), v in H.items())
print("     %d entries, largest %.3e, asymmetry %.1e of it" % (len(H), scale, worst / scale))
sys.exit(not (scale > 0 and worst <= 1e-8 * scale))
PY
}
pass_if "whole Hessian symmetric to 1e-8" symmetric
for storage in "hdf5" "checkpoints --checkpoints 3"; do
  expect "whole Hessian, trajectory $storage" 0 -- hessian accel.yaml --trajectory $storage -o H_stored.csv
  pass_if "trajectory $storage: the Hessian of memory bit for bit" cmp -s H.csv H_stored.csv
done
pass_if "whole Hessian at np 2" $MPIRUN "$FLEXADJ" hessian accel.yaml -o H_np2.csv -q
pass_if "np 2: the Hessian of np 1 to 1e-12" /usr/bin/python3 -c "
import csv, sys
a = {(r['row'], r['column']): float(r['value']) for r in csv.DictReader(open('H.csv'))}
b = {(r['row'], r['column']): float(r['value']) for r in csv.DictReader(open('H_np2.csv'))}
scale = max(abs(v) for v in a.values())
sys.exit(not (a.keys() == b.keys() and max(abs(a[k] - b[k]) for k in a) <= 1e-12 * scale))"
# A sensor's acceleration: points of a rigid pendulum on a spring, tracked and at the end.
cat > sensor.yaml <<'YAML'
dimension: 2
gravity: [0, -9.81]
integrator: {end_time: 0.5, step_size: 0.005}
bodies:
  - {name: arm, type: rigid_body, mass: 1.2, inertia: 0.05, position: [0.3, 0]}
forces:
  - {name: spring, type: spring_damper, bodies: [ground, arm], points: [[0.2, 0.4], [0.5, 0]], stiffness: 30, damping: 0.3, free_length: 0.3}
joints:
  - {name: hinge, type: revolute, bodies: [ground, arm], point: [0, 0]}
objective:
  - {type: tracking, sensor: {body: arm, point: [0.5, 0.1], component: y}, quantity: acceleration, reference: "-2*t", weight: 0.5}
  - {type: final_square, sensor: {body: arm, point: [0.6, 0], component: x}, quantity: acceleration, target: 1}
design_variables: [arm.mass, spring.stiffness, spring.damping]
YAML
pass_if "sensor: check (with the Hessian-vector product), np 1" hessian_checked "" sensor.yaml
pass_if "sensor: check (with the Hessian-vector product), np 2" hessian_checked "$MPIRUN" sensor.yaml
pass_if "sensor: check, spacetime adjoint" checks "" sensor.yaml --adjoint spacetime
sed 's/integrator: {end_time: 0.5, step_size: 0.005}/integrator: {type: variational, end_time: 0.5, step_size: 0.005}/' \
  sensor.yaml > sensor_variational.yaml
pass_if "sensor, variational: check with the Hessian-vector product, np 1" hessian_checked "" sensor_variational.yaml
pass_if "sensor, variational: check with the Hessian-vector product, np 2" hessian_checked "$MPIRUN" \
  sensor_variational.yaml
pass_if "sensor, variational: Taylor test of order 3 with the Hessian-vector product" taylor3 sensor_variational.yaml
for type in state_space hamiltonian; do
  sed "s/integrator: {end_time: 0.5, step_size: 0.005}/integrator: {type: $type, end_time: 0.5, step_size: 0.005}/" \
    sensor.yaml > sensor_$type.yaml
  pass_if "sensor, $type: check, np 1" checks "" sensor_$type.yaml
  pass_if "sensor, $type: check, np 2" checks "$MPIRUN" sensor_$type.yaml
done
# The joint-coordinate kinds (one rank) carry dJ/d(q_n, v_n) too, and put out the consistent a_n of the absolute state.
for kind in "hamiltonian joint" "variational joint" "variational joint_midpoint"; do
  set -- $kind
  sed "s/integrator: {end_time: 0.5, step_size: 0.01}/integrator: {type: $1, coordinates: $2, end_time: 0.5, step_size: 0.01}/" \
    accel.yaml > joint.yaml
  sed "s/integrator: {end_time: 0.5, step_size: 0.005}/integrator: {type: $1, coordinates: $2, end_time: 0.5, step_size: 0.005}/" \
    sensor.yaml > sensor_joint.yaml
  pass_if "$1, coordinates $2: check" checks "" joint.yaml
  pass_if "$1, coordinates $2: check on a sensor's acceleration" checks "" sensor_joint.yaml
done
expect "joint coordinates: gradient" 0 "a(b.x)" -- gradient joint.yaml -o joint.csv
expect "joint coordinates: gradient, trajectory checkpoints" 0 "a(b.x)" -- gradient joint.yaml --trajectory checkpoints \
  --checkpoints 3 -o stored.csv
pass_if "joint coordinates, trajectory checkpoints: the gradient of memory bit for bit" cmp -s joint.csv stored.csv
# Taylor test of order 3 with the Hessian-vector product: taylor3 in cli_support.sh.
pass_if "accel: Taylor test of order 3 with the Hessian-vector product" taylor3 accel.yaml
pass_if "sensor: Taylor test of order 3 with the Hessian-vector product" taylor3 sensor.yaml

# The value: a_P = a_r + alpha k x (R s) - omega^2 R s from the run's last q, v, a, s = (0.3, 0.1) in the body.
sed -e '/^objective:/,$d' sensor.yaml > value.yaml
cat >> value.yaml <<'YAML'
objective:
  - {type: final_value, sensor: {body: arm, point: [0.6, 0.1], component: x}, quantity: acceleration}
  - {type: final_value, sensor: {body: arm, point: [0.6, 0.1], component: y}, quantity: acceleration, weight: 1000}
design_variables: [arm.mass]
YAML
expect "sensor: the final value" 0 "arm.acceleration_x" -- gradient value.yaml -o value.csv
expect "sensor: the run's states" 0 -- simulate value.yaml -o value.h5 --no-xdmf
point_acceleration() {
  /usr/bin/python3 - "$(sed -n 's/^J = \([^ ]*\).*/\1/p' out.txt | head -1)" <<'PY'
import h5py, math, sys
f = h5py.File("value.h5", "r")
names = [s.decode() for s in f["model/coordinate_names"][:]]
q, v, a = (f["state/" + k][-1] for k in "qva")
i = [names.index("arm." + c) for c in ("x", "y", "theta")]
theta, omega, alpha = q[i[2]], v[i[2]], a[i[2]]
s = (0.3, 0.1)
arm = (math.cos(theta) * s[0] - math.sin(theta) * s[1], math.sin(theta) * s[0] + math.cos(theta) * s[1])
ax = a[i[0]] - alpha * arm[1] - omega**2 * arm[0]
ay = a[i[1]] + alpha * arm[0] - omega**2 * arm[1]
J = float(sys.argv[1])
print("     J = %.15g, a_x + 1000 a_y from the states = %.15g" % (J, ax + 1000 * ay))
sys.exit(not abs(J - (ax + 1000 * ay)) <= 1e-12 * abs(J))
PY
}
"$FLEXADJ" gradient value.yaml -o value.csv > out.txt 2>&1
pass_if "sensor: the point's acceleration from q, v, a to 1e-12" point_acceleration
sed 's/integrator: {end_time: 0.5, step_size: 0.01}/integrator: {end_time: 0.5, step_size: 0.01, end_condition: {coordinate: b.x, quantity: acceleration}}/' \
  accel.yaml > end.yaml
expect "no end condition on an acceleration" 2 "end.yaml" "integrator.end_condition.quantity" -- gradient end.yaml
finish
