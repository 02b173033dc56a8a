#!/usr/bin/env bash
# Command-line behaviour of `flexadj simulate`: each bad input gives a message naming the file, the
# key and what was expected, and exit code 2; a solver failure gives exit code 3 and keeps the steps
# done; a good run gives exit code 0 and its files. Usage: test_cli.sh PATH/TO/flexadj
set -u
FLEXADJ="$1"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
cd "$WORK"
passed=0
failed=0

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

# expect NAME EXIT_CODE "TEXT1" "TEXT2" ... -- ARGS...
expect() {
  local name="$1" code="$2"; shift 2
  local texts=()
  while [ "$1" != "--" ]; do texts+=("$1"); shift; done
  shift
  "$FLEXADJ" "$@" >stdout.txt 2>stderr.txt
  local actual=$?
  local ok=1
  if [ "$actual" -ne "$code" ]; then ok=0; echo "FAIL $name: exit code $actual, expected $code"; fi
  for text in "${texts[@]}"; do
    if ! grep -qF -- "$text" stderr.txt stdout.txt; then ok=0; echo "FAIL $name: output lacks '$text'"; fi
  done
  if [ $ok -eq 1 ]; then passed=$((passed + 1)); echo "ok   $name"; else failed=$((failed + 1)); sed 's/^/     | /' stderr.txt; fi
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

# A Newton failure: exit code 3, the message says where, and the steps done so far stay readable.
good_model | sed 's/integrator: {end_time: 0.1, step_size: 1e-3}/integrator: {end_time: 0.1, step_size: 1e-3, max_newton_iterations: 1}/' > newton.yaml
expect "Newton failure" 3 "Newton iteration failed at step" "t = " -- simulate newton.yaml -o newton.h5
if [ -s newton.h5 ] && [ -s newton.xmf ]; then passed=$((passed + 1)); echo "ok   partial results kept"; else failed=$((failed + 1)); echo "FAIL partial results missing"; fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
