#!/usr/bin/env bash
# Inputs a hostile or careless user writes are input errors (exit 2) naming the file, the key or line and what
# was expected, found before anything large is allocated: generator counts beyond the limit, Gmsh
# counts larger than the file, design values the model reader would refuse. Usage: test_hostile_inputs.sh PATH/TO/flexadj
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$HERE/cli_support.sh" "$1"
MESHES="$HERE/../../meshes"

# Generator counts: before, std::bad_alloc or a vector-size error (exit 1) after minutes of building.
limit="expected an integer in [1, 10000000] (the limit for generated items"
expect "chain count 2e9" 2 "rigid_chain.yaml: chain.count: $limit" "got 2e9" -- \
  simulate "$MESHES/rigid_chain.yaml" --no-output --set chain.count=2e9
expect "10^8 ANCF elements" 2 "ancf_pendulum.yaml: ancf[0].elements: $limit" -- \
  simulate "$MESHES/ancf_pendulum.yaml" --no-output --set "ancf[0].elements=1e8"
expect "10^8 beam elements" 2 "beam_swing_up.yaml: beams[0].elements: $limit" -- \
  simulate "$MESHES/beam_swing_up.yaml" --no-output --set "beams[0].elements=1e8"
expect "control grid count 2e9" 2 "beam_swing_up.yaml: controls[0].grid.count: expected an integer in [2, 10000000]" -- \
  simulate "$MESHES/beam_swing_up.yaml" --no-output --set "controls[0].grid.count=2e9"
expect "generators over the limit together" 2 \
  "beam_swing_up.yaml: beams[0].elements: expected at most 10000000 generated items in all" "the model has 12000000" -- \
  simulate "$MESHES/beam_swing_up.yaml" --no-output --set "controls[0].grid.count=6e6" --set "beams[0].elements=6e6"

# A Gmsh block count of 1e18 (before: a hang) and a duplicated element line (before: the last element dropped).
cat > wire.yaml <<'YAML'
dimension: 3
integrator: {end_time: 0.01, step_size: 0.01}
beams:
  - {name: wire, section: {E: 1, G: 1, rho: 1, A: 1, I2: 1, I3: 1}, gmsh: wire.msh}
joints:
  - {type: fixed, bodies: [ground, wire.start]}
YAML
mesh() {
  printf '$MeshFormat\n4.1 0 8\n$EndMeshFormat\n$Nodes\n1 3 10 12\n1 1 0 3\n10\n11\n12\n0 0 0\n1 0 0\n2 0 0\n'
  printf '$EndNodes\n$Elements\n1 2 1 2\n1 1 1 %s\n%s$EndElements\n' "$1" "$2"
}
mesh 2 $'1 10 11\n2 11 12\n' > wire.msh
expect "a good Gmsh mesh" 0 "summary" -- simulate wire.yaml --no-output
mesh 1000000000000000000 $'1 10 11\n2 11 12\n' > wire.msh
expect "Gmsh block count 1e18" 2 "wire.yaml: beams[0].gmsh" \
  "line 16 of 'wire.msh': expected at most 3 elements in the block" "got 1000000000000000000" -- \
  simulate wire.yaml --no-output
mesh 2 $'1 10 11\n1 10 11\n2 11 12\n' > wire.msh
expect "duplicated Gmsh element line" 2 "line 18 of 'wire.msh': element tag 1 appears twice (first on line 17)" -- \
  simulate wire.yaml --no-output

# A design-values file (optimization.start_from) is checked by the model reader's rules. Before, a negative
# stiffness was accepted (exit 0) and a zero mass failed in the solver (exit 3).
values() { printf 'design_values:\n'; printf '  %s\n' "$@"; }
start_from() { echo "--set"; echo "optimization.start_from=$WORK/$1"; }
values "spring.stiffness: -1" > negative_stiffness.yaml
expect "negative stiffness from design values" 2 "optimization.start_from" \
  "negative_stiffness.yaml: design_values.spring.stiffness: expected a number >= 0, got -1 (line 2)" -- \
  simulate "$MESHES/oscillator.yaml" --no-output $(start_from negative_stiffness.yaml)
values "spring.stiffness: 2" "mass.mass: 0" > zero_mass.yaml
expect "zero mass from design values" 2 "zero_mass.yaml: design_values.mass.mass: expected a positive number, got 0 (line 3)" -- \
  gradient "$MESHES/oscillator.yaml" $(start_from zero_mass.yaml)
values "link2.inertia_xy: 1" > indefinite.yaml
expect "indefinite inertia from design values" 2 \
  "indefinite.yaml: design_values.link2.inertia_xy: inertia tensor is not positive definite" -- \
  simulate "$MESHES/rigid_chain.yaml" --no-output $(start_from indefinite.yaml)
values "link1.inertia_zz: -0.01" > planar_inertia.yaml
expect "negative planar inertia from design values" 2 \
  "planar_inertia.yaml: design_values.link1.inertia_zz: expected a positive number, got -0.01" -- \
  simulate "$MESHES/double_pendulum_cart.yaml" --no-output $(start_from planar_inertia.yaml)
# What the rules allow still reads: a planar body's unused inertia_xx of 0, a positive stiffness, a new velocity.
values "link1.inertia_xx: 0" "link1.inertia_zz: 0.02" > planar_ok.yaml
expect "valid planar inertia from design values" 0 "summary" -- \
  simulate "$MESHES/double_pendulum_cart.yaml" --no-output $(start_from planar_ok.yaml)
values "spring.stiffness: 2" '"initial_velocity:mass.x": 0.25' > good_values.yaml
expect "valid design values" 0 "J = " -- gradient "$MESHES/oscillator.yaml" $(start_from good_values.yaml)
# Found by tests/fuzz/fuzz_model_yaml.cpp: a NUL byte in a key ended the message after the key path (nothing said
# what was wrong). Control characters now show as \xNN.
expect "a NUL in a key" 2 'nul_in_key.yaml: ancf[0].section.nu:\x00.3: unknown key '"'"'nu:\x00.3'"'"' (expected one of:' \
  "(line 15)" -- check "$HERE/../fuzz/regressions/model_yaml/nul_in_key.yaml"
# Non-holonomic joints (knife_edge): only generalized-alpha/HHT enforce them; the other integrators, the continuous
# adjoint and the static solver refuse them, as do bad joint entries.
for type in variational state_space hamiltonian; do
  expect "knife edge with integrator.type $type" 2 "knife_edge.yaml: joints[0].type" \
    "non-holonomic constraints (knife_edge) need integrator.type generalized_alpha or hht" -- \
    simulate "$MESHES/knife_edge.yaml" --no-output --set integrator.type=$type
done
expect "knife edge with the continuous adjoint" 2 "knife_edge.yaml: --adjoint" "does not treat non-holonomic" -- \
  gradient "$MESHES/knife_edge.yaml" --adjoint continuous
expect "knife edge in a static solve" 2 "knife_edge.yaml: joints" "a static solve cannot enforce velocity constraints" -- \
  static "$MESHES/knife_edge.yaml" --no-output
cat > skate.yaml <<'YAML'
dimension: 2
integrator: {end_time: 0.01, step_size: 0.01}
bodies:
  - {name: blade, type: rigid_body, mass: 1, inertia: 0.1, position: [0, 0], velocity: [1, 0]}
  - {name: dot, type: point_mass, mass: 1, position: [1, 0]}
joints:
  - {name: edge, type: knife_edge, body: blade, direction: [1, 0]}
YAML
expect "a good knife edge" 0 "summary" -- simulate skate.yaml --no-output
expect "knife edge on a point mass" 2 "skate.yaml: joints[0].body: expected a planar rigid body" -- \
  simulate skate.yaml --no-output --set joints[0].body=dot
expect "knife edge on ground" 2 "skate.yaml: joints[0].body" -- simulate skate.yaml --no-output --set joints[0].body=ground
expect "knife edge with a zero direction" 2 "skate.yaml: joints[0].direction: expected a non-zero direction" -- \
  simulate skate.yaml --no-output --set "joints[0].direction=[0, 0]"
expect "knife edge without a direction" 2 "skate.yaml: joints[0]: missing required key 'direction'" -- \
  simulate skate.yaml --no-output --set "joints[0]={name: edge, type: knife_edge, body: blade}"
expect "knife edge with an axis" 2 "skate.yaml: joints[0]" "unknown key 'axis'" -- \
  simulate skate.yaml --no-output --set "joints[0].axis=[0, 0, 1]"
expect "knife edge moving sideways at t = 0" 2 "skate.yaml" "initial velocities violate constraint 'edge' (knife_edge)" -- \
  simulate skate.yaml --no-output --set "bodies[0].velocity=[0, 1]"
expect "planar knife edge with a plane_normal" 2 "skate.yaml: joints[0].plane_normal" "not used by a planar knife edge" -- \
  simulate skate.yaml --no-output --set "joints[0].plane_normal=[0, 0, 1]"
cat > skate3.yaml <<'YAML'
dimension: 3
integrator: {end_time: 0.01, step_size: 0.01}
bodies:
  - {name: blade, type: rigid_body, mass: 1, inertia: {principal: [0.1, 0.1, 0.1]}, position: [0, 0, 0], velocity: [1, 0, 0]}
joints:
  - {name: edge, type: knife_edge, body: blade, direction: [1, 0, 0]}
YAML
expect "a good spatial knife edge" 0 "summary" -- simulate skate3.yaml --no-output
expect "spatial knife edge along its plane's normal" 2 "skate3.yaml: joints[0].direction: is parallel to the plane_normal" -- \
  simulate skate3.yaml --no-output --set "joints[0].direction=[0, 0, 2]"
# A model that is not a map, for every command (flexadj check adds an override of its own).
printf "" > empty.yaml
echo "[1, 2]" > list.yaml
for command in simulate gradient check optimize; do
  expect "$command: an empty model file" 2 "empty.yaml: the model is empty" -- $command empty.yaml
  expect "$command: a model that is a list" 2 "list.yaml: expected a map of model settings" -- $command list.yaml
done
expect "--set on a model that is a list" 2 "list.yaml: expected a map of model settings" -- \
  simulate list.yaml --set dimension=2
finish
