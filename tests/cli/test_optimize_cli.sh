#!/usr/bin/env bash
# Command-line behaviour of `flexadj optimize`: each bad optimization section or option gives a message naming
# the file, the key and what was expected, and exit code 2; --help documents every option; a good run writes
# its files and a design-values file that the model reads back. Usage: test_optimize_cli.sh PATH/TO/flexadj
source "$(dirname "${BASH_SOURCE[0]}")/cli_support.sh" "$1"

# The Bestle-Eberhard oscillator with the target x(t1) = 0.3 (optimum: z0 = 0.3 for c = 1).
model() {
  cat <<'YAML'
dimension: 2
integrator: {end_time: 1.5707963267948966, step_size: 0.015707963267948966}
bodies:
  - {name: mass, type: point_mass, mass: 1, position: [0, 0], velocity: [0.5, 0]}
forces:
  - {name: spring, type: spring_damper, bodies: [ground, mass], points: [[-1, 0], [0, 0]], stiffness: 1, free_length: 1}
joints:
  - {name: rail, type: prismatic, bodies: [ground, mass], axis: [1, 0]}
objective:
  - {type: final_square, coordinate: mass.x, target: 0.3}
design_variables:
  - initial_velocity: mass.x
YAML
  echo "optimization:"
  echo "$1"
}


model "  method: gradient" > good.yaml
expect "good run" 0 "stopped" "result" "iter" -- optimize good.yaml -o run
pass_if "good run: its result line prints J = VALUE" grep -qE '^result +J = [-+0-9.eE]+ ' stdout.txt stderr.txt
# Not converged: the iteration limit ends the run with exit 0 and says so (not a tolerance); a batch script reads the
# 'stopped' line or PREFIX_history.csv to tell the two apart.
expect "iteration limit" 0 "stopped     iteration limit 1 reached after 1 iteration(s)" -- optimize good.yaml \
  --max-iterations 1 --no-trajectory -o limited
pass_if "iteration limit: two history rows (start and one iterate)" test "$(grep -c . limited_history.csv)" -eq 3
for f in run_history.csv run_history.h5 run_design.yaml run_restart.txt run.h5 run.xmf; do
  if [ -s "$f" ]; then passed=$((passed + 1)); echo "ok   $f written"; else failed=$((failed + 1)); echo "FAIL $f missing"; fi
done
# J printed below 1e-12 on a line 'J = VALUE' of stdout.txt; no such line fails.
j_below_1e12() { awk '/^J = /{found = 1; small = ($3 < 1e-12)} END{exit !(found && small)}' stdout.txt; }
# The design-values file reads back: the gradient at the optimum is (close to) zero, J (close to) 0.
expect "start_from reads back" 0 "J = " -- gradient good.yaml --set optimization.start_from=run_design.yaml
if j_below_1e12; then passed=$((passed + 1)); echo "ok   J at the read-back optimum < 1e-12";
else failed=$((failed + 1)); echo "FAIL J at the read-back optimum: $(grep '^J = ' stdout.txt)"; fi
# A file named by --set is relative to the working directory, not to the model's folder.
mkdir -p elsewhere && cp good.yaml elsewhere/
expect "start_from from --set, model in another folder" 0 "J = " -- gradient elsewhere/good.yaml --set optimization.start_from=run_design.yaml
if j_below_1e12; then passed=$((passed + 1)); echo "ok   J at the optimum read from the working directory";
else failed=$((failed + 1)); echo "FAIL J with start_from from --set: $(grep '^J = ' stdout.txt)"; fi

model "  method: newton" > bad_method.yaml
expect "unknown method" 2 "bad_method.yaml" "optimization.method" "expected one of: lbfgs, trust_region, newton_krylov, gauss_newton, gradient, barzilai_borwein" "newton" -- optimize bad_method.yaml
model "  bounds: [{variable: spring.stiffness, lower: 0}]" > unknown_bound.yaml
expect "bound on a variable that is not a design variable" 2 "unknown_bound.yaml" "optimization.bounds[0].variable" "'spring.stiffness' is not a design variable" "initial_velocity:mass.x" -- optimize unknown_bound.yaml
model "  bounds: [{variable: initial_velocity:mass.x, lower: 1, upper: 0}]" > crossed.yaml
expect "lower > upper" 2 "crossed.yaml" "optimization.bounds[0].upper" "expected upper >= lower" -- optimize crossed.yaml
model "  bounds: [{variable: initial_velocity:mass.x}]" > empty_bound.yaml
expect "bound without limits" 2 "empty_bound.yaml" "optimization.bounds[0]" "needs 'lower', 'upper' or both" -- optimize empty_bound.yaml
model "  max_iteration: 3" > typo.yaml
expect "unknown key" 2 "typo.yaml" "optimization.max_iteration" "unknown key" "max_iterations" -- optimize typo.yaml
model "  max_iterations: -1" > negative.yaml
expect "negative iteration count" 2 "negative.yaml" "optimization.max_iterations" "expected an integer >= 0" -- optimize negative.yaml
model "  step_fraction: 0" > zero_fraction.yaml
expect "zero step fraction" 2 "zero_fraction.yaml" "optimization.step_fraction" "positive" -- optimize zero_fraction.yaml
model "  nonmonotone_memory: 0" > zero_memory.yaml
expect "non-monotone memory of 0" 2 "zero_memory.yaml" "optimization.nonmonotone_memory" "expected an integer >= 1" -- optimize zero_memory.yaml
model "  start_from: missing.yaml" > missing_start.yaml
expect "missing start_from file" 2 "missing_start.yaml" "optimization.start_from" "cannot be opened" -- optimize missing_start.yaml
printf 'design_values:\n  "spring.stifness": 2\n' > bad_values.yaml
model "  start_from: bad_values.yaml" > bad_start.yaml
expect "unknown name in a design-values file" 2 "bad_start.yaml" "optimization.start_from" "bad_values.yaml" "design_values.spring.stifness" "did you mean 'spring.stiffness'" -- optimize bad_start.yaml
printf 'design_values:\n  "initial_velocity:mass.x": [1, 2]\n' > wrong_size.yaml
model "  start_from: wrong_size.yaml" > size_start.yaml
expect "wrong number of values" 2 "design_values.initial_velocity:mass.x" "expected 1 value(s), got 2" -- optimize size_start.yaml
expect "unknown --method" 2 "--method" "expected one of" -- optimize good.yaml --method newton
expect "bad --max-iterations" 2 "--max-iterations" "expected an integer >= 0" -- optimize good.yaml --max-iterations many
expect "restart without a restart file" 2 "nothing_restart.txt" "--restart" "cannot open the restart file" -- optimize good.yaml -o nothing --restart
expect "restart with another method" 2 "run_restart.txt" "written by method 'gradient'" -- optimize good.yaml -o run --restart --method lbfgs
model "  method: gradient" | sed '/^objective:/,/^design_variables:/{/^objective:/d;/final_square/d}' > no_objective.yaml
expect "no objective" 2 "no_objective.yaml" "objective" "flexadj optimize" -- optimize no_objective.yaml
expect "help" 0 "--output PREFIX" "--method" "--max-iterations" "--restart" "--set" "--no-trajectory" "--quiet" "lbfgs" "trust_region" "barzilai_borwein" "(56)/(57)" -- optimize --help
expect "listed in the program help" 0 "optimize MODEL.yaml" -- --help

finish
