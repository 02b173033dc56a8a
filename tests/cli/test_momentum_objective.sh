#!/usr/bin/env bash
# Objective terms on a body's momentum and angular momentum (the end-momentum Mayer term of Schubert et al. 2024,
# eq. (10e)), with the mass and inertia as design variables: flexadj check (Taylor, central and extrapolated
# differences, and for the discrete adjoint the Hessian-vector product) passes for the discrete and the spacetime
# adjoint at np 1 and np 2 on the variational integrator and generalized-alpha; the paths where the term's parameter
# partials are not formed, and bodies without a mass of their own, are refused (exit 2). Usage: test_momentum_objective.sh PATH/TO/flexadj
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$HERE/cli_support.sh" "$1"
MPIRUN="mpirun --oversubscribe -np 2"

# The pendulum on a cart of data/pendulum_cart.yaml over 150 steps, with momentum terms and the pendulum's mass and
# moment of inertia among the design variables.
sed 's/end_time: 3,/end_time: 0.15,/; s/end: 3, count: 7/end: 0.15, count: 7/' "$HERE/data/pendulum_cart.yaml" |
  sed 's/^objective:$/objective:\
  - {type: final_square, sensor: {body: pendulum, component: x}, quantity: momentum, weight: 30, target: 0.1}\
  - {type: final_square, sensor: {body: pendulum, component: z}, quantity: angular_momentum, weight: 500}\
  - {type: tracking, sensor: {body: pendulum, component: y}, quantity: momentum, weight: 20}/' |
  sed 's/pendulum.mass,/pendulum.mass, pendulum.inertia_zz,/' > cart.yaml
grep -q "quantity: angular_momentum" cart.yaml && grep -q "pendulum.inertia_zz" cart.yaml || { echo "FAIL model"; exit 1; }
sed 's/integrator: {end_time: 0.15, step_size: 1e-3}/integrator: {end_time: 0.15, step_size: 1e-3, type: variational}/' \
  cart.yaml > cart_variational.yaml

checks() {  # checks LAUNCHER ARGS...: flexadj check passes (its report is shown when it fails)
  local launcher="$1"; shift
  $launcher "$FLEXADJ" check "$@" > check.txt 2>&1 && grep -q "^check passed" check.txt && return 0
  sed 's/^/     | /' check.txt | tail -30
  return 1
}
for model in cart cart_variational; do
  for adjoint in discrete spacetime; do
    pass_if "$model: check, $adjoint adjoint, np 1" checks "" $model.yaml --adjoint $adjoint
    pass_if "$model: check, $adjoint adjoint, np 2" checks "$MPIRUN" $model.yaml --adjoint $adjoint
    # The discrete adjoint's Hessian-vector product too (test (d)), the mass and inertia among its directions.
    [ "$adjoint" = discrete ] &&
      pass_if "$model: check (d) Hessian-vector product, np 2" grep -q "^check passed.*(d) Hessian-vector product" check.txt
  done
done
expect "the objective names the momenta" 0 "pendulum.momentum_x" "pendulum.angular_momentum_z" -- \
  gradient cart.yaml -o cart.csv

expect "continuous adjoint refused" 2 "cart.yaml" "objective" "--adjoint continuous" -- \
  gradient cart.yaml --adjoint continuous
sed 's/^objective:$/objective:\
  - {type: final_square, sensor: {body: cart, component: z}, quantity: angular_momentum}/' cart.yaml > point.yaml
expect "a point mass has no angular momentum" 2 "point.yaml" "objective[0].quantity" "use quantity: momentum" -- \
  gradient point.yaml
sed 's/sensor: {body: pendulum, component: x}, quantity: momentum/sensor: {body: pendulum, point: [0, 0], component: x}, quantity: momentum/' \
  cart.yaml > with_point.yaml
expect "a momentum sensor takes no point" 2 "with_point.yaml" "objective[0].sensor.point" "whole body" -- \
  gradient with_point.yaml
sed 's/integrator: {end_time: 0.15, step_size: 1e-3}/integrator: {end_time: 0.15, step_size: 1e-3, end_condition: {sensor: {body: pendulum, component: x}, quantity: momentum}}/' \
  cart.yaml > end.yaml
expect "no end condition on a momentum" 2 "end.yaml" "integrator.end_condition.quantity" -- gradient end.yaml
# A beam node has no mass of its own.
cat > beam.yaml <<'YAML'
dimension: 3
integrator: {end_time: 0.01, step_size: 1e-3}
sections:
  - {name: s, E: 1e6, G: 1e6, rho: 1, A: 1e-2, I2: 1e-5, I3: 1e-5, J: 2e-5}
beams:
  - {name: rod, section: s, elements: 2, line: {start: [0, 0, 0], end: [1, 0, 0]}}
objective:
  - {type: final_square, sensor: {body: rod.end, component: x}, quantity: momentum}
YAML
expect "a beam node has no mass of its own" 2 "beam.yaml" "objective[0].sensor.body" "no mass of its own" -- \
  gradient beam.yaml
finish
