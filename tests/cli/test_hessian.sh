#!/usr/bin/env bash
# `flexadj hessian`: the whole Hessian (row,column,value) and one product (name,value,product) of a two-mass model
# with parameters, initial values and control values; np 1 and np 2 from separate processes agree to 1e-12 (relative
# to max |H|), the Hessian is symmetric and its product with a direction file is the matrix times the direction;
# every trajectory storage gives the same bits; the same for the variational integrator (RATTLE), and with joints for
# directions of the given initial state (projected onto the joints) and of the joints' own parameters; flexadj
# check's test (d) on the two-mass, variational, jointed (initial state, joint parameters), beam (np 1 and 2),
# dual-quaternion beam and knife-edge (non-holonomic) models; refused inputs
# exit with 2 and name the integrator, the file and the entry.
# Usage: test_hessian.sh PATH/TO/flexadj
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$HERE/cli_support.sh" "$1"
command -v mpiexec > /dev/null || { echo "mpiexec not found: these tests need it"; exit 1; }

# products_agree LABEL NP1.csv NP2.csv COUNT: two product files (name,value,product) of COUNT entries agree to 1e-12
# relative to max |H v|.
products_agree() {
  /usr/bin/python3 - "$@" <<'PY'
import csv, sys
label, first, second, count = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
def product(path):
    return {r["name"]: float(r["product"]) for r in csv.DictReader(open(path))}
p1, p2 = product(first), product(second)
scale = max(abs(x) for x in p1.values())
ranks = max(abs(p1[k] - p2[k]) for k in p1) / scale
print(f"     | {label}: np1-np2 {ranks:.2e} (max |H v| {scale:.4g})")
raise SystemExit(not (ranks <= 1e-12 and len(p1) == count))
PY
}

cat > masses.yaml <<'YAML'
dimension: 2
gravity: [0, -9.81]
integrator: {end_time: 1.0, step_size: 0.005, spectral_radius: 0.8}
controls:
  - {name: F, times: [0, 0.5, 1.0], values: [1, -2, 0.5]}
bodies:
  - {name: mass, type: point_mass, mass: 1.3, position: [0.2, -0.9], velocity: [0.4, 0.3]}
  - {name: mass2, type: point_mass, mass: 0.7, position: [0.9, -1.2], velocity: [0, -0.5]}
forces:
  - {name: spring, type: spring_damper, bodies: [ground, mass], points: [[0, 0], [0.05, 0]], stiffness: 40, damping: 0.7, free_length: 0.8}
  - {name: link, type: spring_damper, bodies: [mass, mass2], points: [[0.2, -0.9], [0.9, -1.2]], stiffness: 25, free_length: 0.6}
  - {name: push, type: load, body: mass2, control: {name: F, force_direction: [1, 0.5]}}
objective:
  - {type: tracking, coordinate: mass.y, reference: "-1", weight: 3}
  - {type: final_square, coordinate: mass2.x, target: 0.3}
  - {type: control_effort, control: F, weight: 0.01}
design_variables: [mass.mass, spring.stiffness, link.free_length, {initial_position: mass.x}, {initial_velocity: mass2.y}, {control: F}]
YAML

expect "whole Hessian, np 1" 0 "8 design scalar(s), 8 product(s)" "symmetry" -- hessian masses.yaml -o H1.csv
mpiexec -n 2 "$FLEXADJ" hessian masses.yaml -o H2.csv > np2.txt 2>&1
pass_if "whole Hessian, np 2" grep -q "8 product(s)" np2.txt
cat > direction.csv <<'CSV'
name,value
mass.mass,0.5
spring.stiffness,-1
link.free_length,2
initial_position:mass.x,0.25
initial_velocity:mass2.y,-0.5
control:F[0],1
control:F[1],0.3
control:F[2],-2
CSV
expect "one product" 0 "control:F[2]" -- hessian masses.yaml --direction direction.csv -o Hv.csv
pass_if "product header" test "$(head -1 Hv.csv)" = "name,value,product"

# H1 = H2 (np 1, np 2) to 1e-12 of max |H|; H symmetric to 1e-10; Hv = H direction to 1e-10.
pass_if "np 1 = np 2, symmetric, H v = H times v" /usr/bin/python3 - <<'PY'
import csv
def matrix(path):
    rows = list(csv.DictReader(open(path)))
    names = list(dict.fromkeys(r["row"] for r in rows))
    return names, {(r["row"], r["column"]): float(r["value"]) for r in rows}
names, h1 = matrix("H1.csv")
_, h2 = matrix("H2.csv")
scale = max(abs(x) for x in h1.values())
ranks = max(abs(h1[k] - h2[k]) for k in h1) / scale
symmetry = max(abs(h1[(a, b)] - h1[(b, a)]) for a in names for b in names) / scale
v = {r["name"]: float(r["value"]) for r in csv.DictReader(open("direction.csv"))}
hv = {r["name"]: float(r["product"]) for r in csv.DictReader(open("Hv.csv"))}
product = max(abs(sum(h1[(a, b)] * v[b] for b in names) - hv[a]) for a in names) / scale
print(f"     | np1-np2 {ranks:.2e}, symmetry {symmetry:.2e}, Hv-H*v {product:.2e} (max |H| {scale:.4g})")
raise SystemExit(not (ranks <= 1e-12 and symmetry <= 1e-10 and product <= 1e-10 and len(h1) == 64))
PY

sed 's/spectral_radius: 0.8/type: variational/' masses.yaml > variational.yaml
sed 's/spectral_radius: 0.8/type: state_space/' masses.yaml > state_space.yaml
# With joints (a pendulum on a cart on a rail): the force elements' parameters and the control values.
cat > cart.yaml <<'YAML'
dimension: 2
gravity: [0, -9.81]
integrator: {end_time: 1.0, step_size: 0.005, spectral_radius: 0.8}
controls:
  - {name: F, times: [0, 0.5, 1.0], values: [1, -2, 3]}
bodies:
  - {name: cart, type: point_mass, mass: 2, position: [0, 0], velocity: [0.3, 0]}
  - {name: pendulum, type: rigid_body, mass: 0.5, inertia: 0.01, position: [0.3, -0.4], velocity: [0.3, 0]}
forces:
  - {name: push, type: load, body: cart, control: {name: F, force_direction: [1, 0]}}
  - {name: spring, type: spring_damper, bodies: [ground, cart], points: [[-1, 0], [0, 0]], stiffness: 10, damping: 0.5, free_length: 0.8}
joints:
  - {name: rail, type: prismatic, bodies: [ground, cart], axis: [1, 0]}
  - {name: hinge, type: revolute, bodies: [cart, pendulum], point: [0, 0]}
objective:
  - {type: tracking, coordinate: pendulum.x, reference: "0.3*cos(3*t)", weight: 2}
  - {type: final_square, coordinate: pendulum.y, target: -0.45}
design_variables: [cart.mass, pendulum.inertia_zz, spring.stiffness, {control: F}]
YAML
expect "joints, np 1" 0 "6 product(s)" -- hessian cart.yaml -o C1.csv
mpiexec -n 2 "$FLEXADJ" hessian cart.yaml -o C2.csv > np2_cart.txt 2>&1
pass_if "joints: np 1 = np 2, symmetric" /usr/bin/python3 - <<'PY'
import csv
def matrix(path):
    return {(r["row"], r["column"]): float(r["value"]) for r in csv.DictReader(open(path))}
h1, h2 = matrix("C1.csv"), matrix("C2.csv")
scale = max(abs(x) for x in h1.values())
ranks = max(abs(h1[k] - h2[k]) for k in h1) / scale
symmetry = max(abs(h1[(a, b)] - h1[(b, a)]) for (a, b) in h1) / scale
print(f"     | joints: np1-np2 {ranks:.2e}, symmetry {symmetry:.2e} (max |H| {scale:.4g})")
raise SystemExit(not (ranks <= 1e-12 and symmetry <= 1e-10 and len(h1) == 36))
PY
# Every trajectory storage gives the memory trajectory's product bit for bit, at np 1 and np 2 (the tangents kept in a
# second HDF5 file, or recomputed with the states from checkpoints that hold both, in memory and on disk); the
# tangents' file and checkpoint folder are removed afterwards.
printf 'name,value\ncart.mass,1\npendulum.inertia_zz,-2\nspring.stiffness,0.5\ncontrol:F[0],1\ncontrol:F[1],-1\ncontrol:F[2],0.3\n' > cart_direction.csv
storages=("--trajectory hdf5" "--checkpoints 5" "--checkpoints 3 --disk-checkpoints 4 --checkpoint-folder cf")
for model in masses cart; do
  directions=$([ "$model" = masses ] && echo direction.csv || echo cart_direction.csv)
  for ranks in 1 2; do
    mpiexec -n "$ranks" "$FLEXADJ" hessian "$model.yaml" -q --direction "$directions" -o "memory_$ranks.csv" > memory.txt 2>&1
    for storage in "${storages[@]}"; do
      # shellcheck disable=SC2086
      mpiexec -n "$ranks" "$FLEXADJ" hessian "$model.yaml" -q --direction "$directions" -o stored.csv $storage \
        > stored.txt 2>&1
      pass_if "$model, np $ranks, $storage: the memory product bit for bit" cmp -s stored.csv "memory_$ranks.csv"
    done
  done
done
# The variational integrator on the cart pendulum (joints, the velocity system and the impulses' tangents; half the
# horizon, for time) with one direction: np 1 = np 2, and at np 2 the product from disk checkpoints (recomputed
# states and tangents) equal to memory (every storage at np 1: test_hessian_vector).
sed 's/spectral_radius: 0.8/type: variational/' cart.yaml > cart_variational.yaml
for ranks in 1 2; do
  mpiexec -n "$ranks" "$FLEXADJ" hessian cart_variational.yaml -q --set integrator.end_time=0.5 \
    --direction cart_direction.csv -o "variational_memory_$ranks.csv" > memory.txt 2>&1
done
mpiexec -n 2 "$FLEXADJ" hessian cart_variational.yaml -q --set integrator.end_time=0.5 --direction cart_direction.csv \
  -o stored.csv --checkpoints 3 --disk-checkpoints 4 --checkpoint-folder cf > stored.txt 2>&1
pass_if "variational cart, np 2, disk checkpoints: the memory product bit for bit" \
  cmp -s stored.csv variational_memory_2.csv
pass_if "variational cart: np 1 = np 2 to 1e-12" \
  products_agree "variational cart" variational_memory_1.csv variational_memory_2.csv 6
pass_if "tangents' file removed" test ! -e masses.trajectory.tangents.h5 -a ! -e cart.trajectory.tangents.h5
pass_if "tangents' checkpoint folder removed" test ! -e cf/tangents
# With joints, directions of the given initial state: the tangents of the projections onto the constraints and of the
# consistent accelerations, and their adjoints differentiated. The given velocities miss the joints by a few mm/s
# (projected: the projections' multipliers are not zero), and a term on the pendulum's acceleration weights a_0.
python3 - <<'PY'
s = open("cart.yaml").read()
s = s.replace("velocity: [0.3, 0]}\n  - {name: pendulum, type: rigid_body, mass: 0.5, inertia: 0.01, position: [0.3, -0.4], "
              "velocity: [0.3, 0]}", "velocity: [0.3, 0.002]}\n  - {name: pendulum, type: rigid_body, mass: 0.5, "
              "inertia: 0.01, position: [0.3, -0.4], velocity: [0.503, 0.156], angular_velocity: 0.5}")
s = s.replace("  - {type: final_square, coordinate: pendulum.y, target: -0.45}\n", "  - {type: final_square, coordinate: "
              "pendulum.y, target: -0.45}\n  - {type: tracking, coordinate: pendulum.y, quantity: acceleration, reference: 0, "
              "weight: 0.1}\n")
s = s.replace("design_variables: [cart.mass", "design_variables: [{initial_position: cart.x}, {initial_velocity: cart.x}, "
              "{initial_position: pendulum.theta}, {initial_position: pendulum.x}, {initial_velocity: pendulum.y}, "
              "{initial_velocity: pendulum.theta}, cart.mass")
assert s.count("initial_position: cart.x") == 1 and s.count("0.503") == 1 and s.count("acceleration") == 1
open("cart_initial.yaml", "w").write(s)
open("cart_initial_variational.yaml", "w").write(
    s.replace("spectral_radius: 0.8", "type: variational").replace("quantity: acceleration", "quantity: velocity"))
PY
for ranks in 1 2; do
  mpiexec -n "$ranks" "$FLEXADJ" check cart_initial.yaml -q --directions 1 > "initial_$ranks.txt" 2>&1
  pass_if "joints, initial state: check (d), np $ranks" grep -q "check passed.*(d) Hessian-vector product" "initial_$ranks.txt"
  mpiexec -n "$ranks" "$FLEXADJ" check cart_initial_variational.yaml -q --directions 1 --set integrator.end_time=0.5 \
    > "initial_variational_$ranks.txt" 2>&1
  pass_if "joints, initial state, variational: check (d), np $ranks" \
    grep -q "check passed.*(d) Hessian-vector product" "initial_variational_$ranks.txt"
done
# (Steps of 4 mm and less: a given state farther off the joints is an input error, not projected.)
pass_if "joints, initial state: Taylor test of order 3 with the Hessian-vector product" taylor3 cart_initial.yaml 0.004
printf 'name,value\ninitial_position:cart.x,0.3\ninitial_velocity:cart.x,-1\ninitial_position:pendulum.theta,0.5\n' \
  > initial_direction.csv
printf 'initial_position:pendulum.x,-0.2\ninitial_velocity:pendulum.y,0.7\ninitial_velocity:pendulum.theta,1\n' \
  >> initial_direction.csv
tail -n +2 cart_direction.csv >> initial_direction.csv
for ranks in 1 2; do
  mpiexec -n "$ranks" "$FLEXADJ" hessian cart_initial.yaml -q --direction initial_direction.csv -o "initial_memory_$ranks.csv" \
    > memory.txt 2>&1
  for storage in "${storages[@]}"; do
    # shellcheck disable=SC2086
    mpiexec -n "$ranks" "$FLEXADJ" hessian cart_initial.yaml -q --direction initial_direction.csv -o stored.csv \
      $storage > stored.txt 2>&1
    pass_if "joints, initial state, np $ranks, $storage: the memory product bit for bit" \
      cmp -s stored.csv "initial_memory_$ranks.csv"
  done
done
pass_if "joints, initial state: np 1 = np 2 to 1e-12" \
  products_agree "joints, initial state" initial_memory_1.csv initial_memory_2.csv 12
# A joint's own parameters among the design variables: the hinge's point on the pendulum, the rail's normal and point,
# with the initial-state and force-element variables of cart_initial.yaml. Their derivatives enter the tangent
# (d/dp C_q^T lambda, C_p, C_acc's), both projections onto the joints, and the sweep's parameter terms
# differentiated. A rod's length on a pendulum with a spring besides.
sed 's/design_variables: \[/design_variables: [hinge.point_b_x, hinge.point_b_y, rail.normal_1_y, rail.point_a_y, /' \
  cart_initial.yaml > cart_joint.yaml
pass_if "cart_joint.yaml names the joints' parameters" grep -q "hinge.point_b_x, hinge.point_b_y" cart_joint.yaml
for ranks in 1 2; do
  mpiexec -n "$ranks" "$FLEXADJ" check cart_joint.yaml -q --directions 1 > "joint_$ranks.txt" 2>&1
  pass_if "joint parameters: check (d), np $ranks" grep -q "check passed.*(d) Hessian-vector product" "joint_$ranks.txt"
done
pass_if "joint parameters: Taylor test of order 3 with the Hessian-vector product" taylor3 cart_joint.yaml 0.004
{ printf 'name,value\nhinge.point_b_x,0.4\nhinge.point_b_y,-1\nrail.normal_1_y,0.3\nrail.point_a_y,0.7\n'
  tail -n +2 initial_direction.csv; } > joint_direction.csv
for ranks in 1 2; do
  mpiexec -n "$ranks" "$FLEXADJ" hessian cart_joint.yaml -q --direction joint_direction.csv -o "joint_memory_$ranks.csv" \
    > memory.txt 2>&1
done
mpiexec -n 2 "$FLEXADJ" hessian cart_joint.yaml -q --direction joint_direction.csv -o stored.csv --checkpoints 3 \
  --disk-checkpoints 4 --checkpoint-folder cf > stored.txt 2>&1
pass_if "joint parameters, np 2, disk checkpoints: the memory product bit for bit" cmp -s stored.csv joint_memory_2.csv
pass_if "joint parameters: np 1 = np 2 to 1e-12" \
  products_agree "joint parameters" joint_memory_1.csv joint_memory_2.csv 16
cat > rod.yaml <<'YAML'
dimension: 2
gravity: [0, -9.81]
integrator: {end_time: 1.0, step_size: 0.005, spectral_radius: 0.8}
controls:
  - {name: u, times: [0, 0.5, 1.0], values: [1, -2, 3]}
bodies:
  - {name: bob, type: point_mass, mass: 1, position: [0.6, -0.8], velocity: [0.4, 0.3]}
joints:
  - {name: rod, type: distance, bodies: [ground, bob], points: [[0, 0], [0.6, -0.8]], length: 1}
forces:
  - {name: drive, type: load, body: bob, control: {name: u, force_direction: [1, 0]}}
  - {name: spring, type: spring_damper, bodies: [ground, bob], points: [[1, 0], [0.6, -0.8]], stiffness: 3, damping: 0.2, free_length: 0.5}
objective:
  - {type: tracking, coordinate: bob.x, reference: "0.3*cos(3*t)", weight: 2}
  - {type: final_square, coordinate: bob.y, target: -0.45}
design_variables: [rod.length, rod.point_a_x, spring.stiffness, {initial_velocity: bob.x}, {control: u}]
YAML
expect "a rod's length: check (d)" 0 "(d) Hessian-vector product H dp" "check passed" -- check rod.yaml -q --directions 1
# The same with the variational integrator (half the horizon, for time): the impulses' equations E1-E4 with the
# parameters' direction, and their parameter terms differentiated.
sed 's/spectral_radius: 0.8/type: variational/; s/quantity: acceleration/quantity: velocity/' cart_joint.yaml \
  > cart_joint_variational.yaml
for ranks in 1 2; do
  mpiexec -n "$ranks" "$FLEXADJ" check cart_joint_variational.yaml -q --directions 1 --set integrator.end_time=0.5 \
    > "joint_variational_$ranks.txt" 2>&1
  pass_if "joint parameters, variational: check (d), np $ranks" \
    grep -q "check passed.*(d) Hessian-vector product" "joint_variational_$ranks.txt"
done
pass_if "joint parameters, variational: Taylor test of order 3 with the Hessian-vector product" \
  taylor3 cart_joint_variational.yaml 0.004
sed 's/spectral_radius: 0.8/type: variational/' rod.yaml > rod_variational.yaml
expect "a rod's length, variational: check (d)" 0 "(d) Hessian-vector product H dp" "check passed" -- \
  check rod_variational.yaml -q --directions 1 --set integrator.end_time=0.5
# Prescribed motion with the variational integrator (E4 = C_q v + C_t and its derivatives along the direction).
sed 's/spectral_radius: 0.8/type: variational/; s/{name: rail, type: prismatic, bodies: \[ground, cart\], axis: \[1, 0\]}/{name: rail, type: prescribed_coordinate, body: cart, coordinate: 1, value: "0.05*t*t"}/' \
  cart_initial.yaml | sed 's/quantity: acceleration/quantity: velocity/' > prescribed.yaml
pass_if "prescribed.yaml holds the prescribed motion" grep -q "prescribed_coordinate" prescribed.yaml
expect "prescribed motion, variational: check (d)" 0 "(d) Hessian-vector product H dp" "check passed" -- \
  check prescribed.yaml -q --directions 1 --set integrator.end_time=0.5
expect "joint coordinates: no second-order adjoint" 2 "integrator.coordinates" "coordinates joint" "absolute" -- \
  hessian "$HERE/../../meshes/pendulum_swing_up_null_space.yaml"

# flexadj check verifies H dp as its test (d) where the model has the second-order adjoint, and says why not where not.
expect "check (d)" 0 "(d) Hessian-vector product H dp" "check passed" ", (d) Hessian-vector product" -- check masses.yaml -q --directions 1
expect "check (d), variational" 0 "(d) Hessian-vector product H dp" "check passed" -- \
  check variational.yaml -q --directions 1 --set integrator.end_time=0.5
expect "check without (d)" 0 "(d) Hessian-vector product: not checked" "state-space" -- \
  check state_space.yaml -q --directions 1 --set integrator.end_time=0.5
# The geometrically exact beam's second-order products (its hand-written Jacobians in one-direction AD) along
# directions of its section, damping, reference-curvature and gravity parameters and of the control, np 1 and np 2.
BEAM_DESIGN="design_variables=[beam.element2.youngs_modulus, beam.element3.density, beam.element1.shear_viscosity, \
beam.element4.bulk_viscosity, beam.element5.curvature0_3, beam.element3.gravity_y, {control: torque}]"
expect "check (d), beam parameters and control" 0 "(d) Hessian-vector product H dp" "check passed" -- \
  check "$HERE/../../meshes/beam_swing_up.yaml" -q --directions 1 --set "$BEAM_DESIGN"
mpiexec -n 2 "$FLEXADJ" check "$HERE/../../meshes/beam_swing_up.yaml" -q --directions 1 --set "$BEAM_DESIGN" \
  > beam_np2.txt 2>&1
pass_if "check (d), beam parameters and control, np 2" grep -q "check passed.*(d) Hessian-vector product" beam_np2.txt
# The dual-quaternion beam with the variational integrator (its trapezoidal discrete Lagrangian's second derivatives).
DQ_DESIGN="design_variables=[beam.element2.youngs_modulus, beam.element3.density, beam.element1.shear_viscosity, \
beam.element4.bulk_viscosity, beam.element3.gravity_y, {control: torque}]"
expect "check (d), dual-quaternion beam parameters and control" 0 "(d) Hessian-vector product H dp" "check passed" -- \
  check "$HERE/../../meshes/beam_swing_up_dual_quaternion.yaml" -q --directions 1 --set "$DQ_DESIGN" \
  --set integrator.end_time=0.1
# Taylor tests of order 3 with the products of both beams (their torque's values as the direction).
sed 's/^integrator: {end_time: 0.5,/integrator: {end_time: 0.2,/' "$HERE/../../meshes/beam_swing_up.yaml" > ge.yaml
pass_if "beam: Taylor test of order 3 with the Hessian-vector product" taylor3 ge.yaml
sed 's/end_time: 0.5, step_size/end_time: 0.1, step_size/' "$HERE/../../meshes/beam_swing_up_dual_quaternion.yaml" \
  > dq.yaml
pass_if "dual-quaternion beam: Taylor test of order 3 with the Hessian-vector product" taylor3 dq.yaml

# Non-holonomic joints: the sleighs on knife edges of meshes/knife_edge.yaml with its design variables (the steering
# torque's values, an edge's point and direction, masses, an inertia, the hitch's stiffness, an initial velocity and
# heading) and its objective (final values, a velocity, tracking): check (d) at np 1 and np 2, the Taylor remainder of
# order 3, np 1 = np 2 to 1e-12 and every storage equal to memory bit for bit.
KNIFE="$HERE/../../meshes/knife_edge.yaml"
for ranks in 1 2; do
  mpiexec -n "$ranks" "$FLEXADJ" check "$KNIFE" -q --directions 1 > "knife_$ranks.txt" 2>&1
  pass_if "knife edges: check (d), np $ranks" grep -q "check passed.*(d) Hessian-vector product" "knife_$ranks.txt"
done
# (A first step of 0.01: the heading moved farther makes the given velocities miss the edges by more than is
# projected.)
pass_if "knife edges: Taylor test of order 3 with the Hessian-vector product" taylor3 "$KNIFE" 0.01
cp taylor_v.csv knife_direction.csv
for ranks in 1 2; do
  mpiexec -n "$ranks" "$FLEXADJ" hessian "$KNIFE" -q --direction knife_direction.csv -o "knife_memory_$ranks.csv" \
    > memory.txt 2>&1
  for storage in "${storages[@]}"; do
    # shellcheck disable=SC2086
    mpiexec -n "$ranks" "$FLEXADJ" hessian "$KNIFE" -q --direction knife_direction.csv -o stored.csv $storage \
      > stored.txt 2>&1
    pass_if "knife edges, np $ranks, $storage: the memory product bit for bit" cmp -s stored.csv "knife_memory_$ranks.csv"
  done
done
pass_if "knife edges: np 1 = np 2 to 1e-12" \
  products_agree "knife edges" knife_memory_1.csv knife_memory_2.csv "$(($(wc -l < knife_direction.csv) - 1))"
# Given velocities that miss the edges by a few mm/s (projected: the velocity projection's multipliers are not zero, so
# its tangent's d(A^T nu')/dq q0_dot counts; it is not symmetric), and HHT.
sed 's/velocity: \[0.7149058481867143, 0.3959944338833268\]/velocity: [0.718, 0.392]/; s/velocity: \[0.7015194825198915, 0.019885053879760972\]/velocity: [0.70, 0.024]/' \
  "$KNIFE" > knife_off.yaml
pass_if "knife edges, given velocities off the edges: changed" test "$(grep -c '0.718, 0.392\|0.70, 0.024' knife_off.yaml)" = 2
for ranks in 1 2; do
  mpiexec -n "$ranks" "$FLEXADJ" check knife_off.yaml -q --directions 1 > "knife_off_$ranks.txt" 2>&1
  pass_if "knife edges off the edges: check (d), np $ranks" grep -q "check passed.*(d) Hessian-vector product" \
    "knife_off_$ranks.txt"
done
expect "knife edges, HHT: check (d)" 0 "(d) Hessian-vector product H dp" "check passed" -- \
  check "$KNIFE" -q --directions 1 --set integrator.type=hht
# The spatial knife edge (Euler parameters): a sleigh held in the plane by prescribed coordinates, on a tether.
cat > spatial_knife.yaml <<'YAML'
title: Chaplygin sleigh in space
dimension: 3
gravity: [0, 0, 0]
integrator: {end_time: 0.5, step_size: 0.01, spectral_radius: 0.9}
bodies:
  - {name: sleigh, type: rigid_body, mass: 2, inertia: {principal: [0.5, 0.4, 0.3]}, position: [0.1, -0.2, 0],
     orientation: {axis: [0, 0, 1], angle: 0.4}, velocity: [0.3047633, 0.5631334, 0], angular_velocity: [0, 0, 1]}
forces:
  - {name: tether, type: spring_damper, bodies: [ground, sleigh], points: [[0, 0, 0], [0.1, -0.2, 0]], stiffness: 3,
     free_length: 0.1}
joints:
  - {type: prescribed_coordinate, body: sleigh, coordinate: 2, value: "0"}
  - {type: prescribed_coordinate, body: sleigh, coordinate: 4, value: "0"}
  - {type: prescribed_coordinate, body: sleigh, coordinate: 5, value: "0"}
  - {name: edge, type: knife_edge, body: sleigh, point: [-0.268424, -0.355767, 0], direction: [0.921061, 0.389418, 0]}
objective:
  - {type: final_square, coordinate: sleigh.x, target: 0.5}
  - {type: tracking, coordinate: sleigh.y, reference: "0.1*t"}
design_variables: [sleigh.mass, tether.stiffness, edge.point_x, {initial_velocity: sleigh.x}]
YAML
for ranks in 1 2; do
  mpiexec -n "$ranks" "$FLEXADJ" check spatial_knife.yaml -q --directions 1 > "spatial_knife_$ranks.txt" 2>&1
  pass_if "spatial knife edge: check (d), np $ranks" grep -q "check passed.*(d) Hessian-vector product" \
    "spatial_knife_$ranks.txt"
done

# Refused inputs: exit 2, naming what is refused.
expect "no second-order adjoint" 2 "state_space.yaml" "integrator.type" "flexadj hessian" "state-space" -- hessian state_space.yaml
grep -v "control:F\[2\]" direction.csv > short.csv
expect "direction: missing entry" 2 "short.csv" "control:F[2]" "missing" -- hessian masses.yaml --direction short.csv
sed 's/^spring.stiffness/spring.stifness/' direction.csv > misnamed.csv
expect "direction: unknown name" 2 "misnamed.csv" "spring.stifness" -- hessian masses.yaml --direction misnamed.csv
expect "direction: no file" 2 "no_such.csv" -- hessian masses.yaml --direction no_such.csv
expect "help" 0 "usage: flexadj hessian" "--direction" -- hessian --help
finish
