#!/usr/bin/env bash
# flexadj optimize on the minimum-time transfer of a unit mass with |F| <= 1 (meshes/minimum_time_transfer.yaml):
# a free final time with a control on normalized time, constraints x(T) = 1, x'(T) = 0, objective T.
#  - The closed form is bang-bang with T* = 2 sqrt(d) = 2. The control's 21 piecewise-linear values on tau hold it
#    up to the ramp over [0.45, 0.55] around the switch, whose optimum (the odd control u = 1, ramp, -1) reaches
#    x(T) = T^2/4 - a^2/3 with a = 0.05 T, so T_grid = 1/sqrt(1/4 - 0.0025/3) = 2.0033417 in continuous time; the
#    100 steps add O(h^2) (measured T = 2.0034104, 6.9e-5 above). Asserted: |T - T_grid| <= 5e-4 and |T - 2| <= 5e-3.
#  - Bang-bang: the values before tau = 0.5 at least 0.99, after it at most -0.99, the one at 0.5 within 0.05 of 0.
#  - The constraints met to 1e-6.
#  - A control on absolute time with the free final time: exit 2 naming time: normalized.
# Usage: test_minimum_time.sh PATH/TO/flexadj
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$HERE/cli_support.sh" "$1"
MODEL="$HERE/../../meshes/minimum_time_transfer.yaml"

"$FLEXADJ" optimize "$MODEL" -o mt --no-trajectory > mt.txt 2>&1
echo "exit $?"
tail -4 mt.txt
pass_if "converged" grep -q "gradient norm" mt.txt
pass_if "constraints met to 1e-6" /usr/bin/python3 -c "
import re, sys
v = float(re.search(r'^constraints violation (\S+) at the result', open('mt.txt').read(), re.M).group(1))
sys.exit(not v <= 1e-6)"
pass_if "T within 5e-4 of the piecewise-linear optimum 2.0033417 and 5e-3 of T* = 2" /usr/bin/python3 -c "
import math, re, sys
text = open('mt_design.yaml').read()
T = float(re.search(r'\"integrator.end_time\": (\S+)', text).group(1))
grid = 1 / math.sqrt(0.25 - 0.0025 / 3)
print('T', T, 'T_grid', grid)
sys.exit(not (abs(T - grid) <= 5e-4 and abs(T - 2) <= 5e-3))"
pass_if "bang-bang: +1 before tau = 0.5, -1 after" /usr/bin/python3 -c "
import re, sys
u = [float(x) for x in re.search(r'\"control:F\": \[([^]]*)\]', open('mt_design.yaml').read()).group(1).split(',')]
print('F', u)
sys.exit(not (len(u) == 21 and min(u[:10]) >= 0.99 and max(u[11:]) <= -0.99 and abs(u[10]) <= 0.05))"

# A --restart with the control's time base changed is refused (another run), never continued.
cat > stretch.yaml <<'YAML'
dimension: 2
integrator: {end_time: 2.0, step_size: 0.02}
bodies:
  - {name: mass, type: point_mass, mass: 1, position: [0, 0], velocity: [0, 0]}
controls:
  - {name: F, time: normalized, times: [0, 0.5, 1], values: [1, 0, -1]}
forces:
  - {name: push, type: load, body: mass, control: {name: F, force_direction: [1, 0]}}
objective:
  - {type: final_square, coordinate: mass.x, target: 1, weight: 10}
  - {type: control_effort, control: F, weight: 0.01}
design_variables: [{control: F}]
YAML
"$FLEXADJ" optimize stretch.yaml --max-iterations 2 -o stretch --no-trajectory > /dev/null 2>&1
sed -i 's/time: normalized, //' stretch.yaml
expect "--restart with the time base changed refused" 2 "--restart" "another run: its controls differs" -- \
  optimize stretch.yaml --restart -o stretch --no-trajectory
sed 's/    time: normalized/    time: absolute/' "$MODEL" > absolute.yaml
expect "a control on absolute time with a free final time" 2 "absolute.yaml: design_variables" "give control 'F' time: normalized" -- optimize absolute.yaml --no-trajectory
finish
