#!/usr/bin/env bash
# optimization.method newton_krylov on the two-mass model of test_hessian.sh (parameters, initial values and
# control values): it reaches the relative gradient tolerance 1e-8 in at most 80 iterations at the minimum that
# L-BFGS reaches independently after more than 200 (J equal to 1e-9 relative); L-BFGS is not converged after as many
# iterations; a run stopped at 30 iterations and resumed with --restart ends on the uninterrupted run's J digit for
# digit; an integrator without the second-order adjoint exits 2 naming it and the method.
# Usage: test_newton_krylov.sh PATH/TO/flexadj
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$HERE/cli_support.sh" "$1"

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

"$FLEXADJ" optimize masses.yaml --method newton_krylov -o nk > nk.txt 2>&1
"$FLEXADJ" optimize masses.yaml --method lbfgs --max-iterations 1000 -o lb > lb.txt 2>&1
result_J() { sed -n 's/^result *J = \([^ ]*\).*/\1/p' "$1"; }
iterations() { sed -n 's/^stopped.* after \([0-9]*\) iteration(s)/\1/p' "$1"; }
echo "newton_krylov: J $(result_J nk.txt) in $(iterations nk.txt); lbfgs: J $(result_J lb.txt) in $(iterations lb.txt)"
pass_if "newton_krylov converged" grep -q "relative_gradient_tolerance" nk.txt
pass_if "newton_krylov within 80 iterations" test "$(iterations nk.txt)" -le 80
pass_if "lbfgs needs more than 200" test "$(iterations lb.txt)" -gt 200
pass_if "same minimum as lbfgs to 1e-9" /usr/bin/python3 -c "import sys; a,b=float(sys.argv[1]),float(sys.argv[2]); sys.exit(abs(a-b)>1e-9*abs(b))" "$(result_J nk.txt)" "$(result_J lb.txt)"
"$FLEXADJ" optimize masses.yaml --method lbfgs --max-iterations "$(iterations nk.txt)" -o lbshort > lbshort.txt 2>&1
pass_if "lbfgs not converged in as many iterations" grep -q "iteration limit" lbshort.txt

"$FLEXADJ" optimize masses.yaml --method newton_krylov --max-iterations 30 -o half > /dev/null 2>&1
"$FLEXADJ" optimize masses.yaml --method newton_krylov --restart -o half > half.txt 2>&1
pass_if "restart: same iterations" test "$(iterations half.txt)" = "$(iterations nk.txt)"
pass_if "restart: same J digit for digit" test "$(result_J half.txt)" = "$(result_J nk.txt)"

sed 's/spectral_radius: 0.8/type: state_space/' masses.yaml > state_space.yaml
expect "no second-order adjoint" 2 "integrator.type" "optimization.method newton_krylov" "second-order adjoint" -- \
  optimize state_space.yaml --method newton_krylov -o refused
finish
