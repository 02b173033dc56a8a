#!/usr/bin/env bash
# optimization.momentum_target_iteration (Schubert et al. 2024, Remark 1) through `flexadj optimize` on the swing-up
# of meshes/pendulum_swing_up_minimal.yaml with 50 steps: the printed targets follow p~ += p^N - p_N of the printed
# end momenta, the iteration ends within its tolerance, the files; bad values, an objective without an end-momentum
# term and --restart are refused (exit 2, naming the file and the key). Usage: test_momentum_target_iteration.sh
# PATH/TO/flexadj
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$HERE/cli_support.sh" "$1"

cp "$HERE/../../meshes/pendulum_swing_up_minimal.yaml" swing.yaml
FIFTY=(--set integrator.step_size=0.04 --set "controls[0].grid.end=1.96" --set "controls[0].grid.count=50")
ITERATE=(--set "optimization.momentum_target_iteration={iterations: 8, tolerance: 0.05}")

expect "iteration runs" 0 "target 1  " "momentum    |p_N - p^N| = " "tolerance 0.05 reached before the final one" -- \
  optimize swing.yaml "${FIFTY[@]}" "${ITERATE[@]}" -o it --no-trajectory
cp stdout.txt run.txt
# The 'target' lines: i, p~^N (x, y), p_N (x, y), |p_N - p^N|. p^N = 0: p~^(2) = 0 and p~^(i+1) = p~^(i) - p_N^(i) for
# i >= 2 (not after the S_p = 0 optimisation 1); the last (final) one has p~ = 0 and |p_N| <= 0.05.
sed -n 's/^target \([0-9]*\)  p~^N = \[\([^,]*\), \([^]]*\)\]  p_N = \[\([^,]*\), \([^]]*\)\]  |p_N - p^N| = \([^ ]*\) .*/\1 \2 \3 \4 \5 \6/p' \
  run.txt > targets.txt
cat targets.txt
pass_if "at least three optimisations" test "$(wc -l < targets.txt)" -ge 3
pass_if "targets follow p~ += p^N - p_N, distances |p_N|" awk '
  function close_to(a, b, relative) { d = a - b; if (d < 0) d = -d; return d <= relative * (1 + (a < 0 ? -a : a)) }
  { i = $1; tx[i] = $2; ty[i] = $3; px[i] = $4; py[i] = $5; dist[i] = $6; n = i }
  END {
    ok = (tx[1] == 0 && ty[1] == 0 && tx[2] == 0 && ty[2] == 0 && tx[n] == 0 && ty[n] == 0)
    for (i = 3; i < n; ++i) ok = ok && close_to(tx[i], tx[i-1] - px[i-1], 1e-8) && close_to(ty[i], ty[i-1] - py[i-1], 1e-8)
    for (i = 1; i <= n; ++i) ok = ok && close_to(dist[i], sqrt(px[i] * px[i] + py[i] * py[i]), 1e-6)  # printed %.6e
    ok = ok && dist[n] <= 0.05 && dist[1] > 1
    exit !ok
  }' targets.txt
pass_if "history has the column target_iteration" grep -q "^iteration,.*,target_iteration$" it_history.csv
pass_if "history rows of every optimisation" test "$(cut -d, -f8 it_history.csv | sort -u | grep -c '^[0-9]')" -eq \
  "$(wc -l < targets.txt)"
pass_if "design file written" test -s it_design.yaml
pass_if "no restart file" test ! -e it_restart.txt
expect "--help documents the key" 0 "optimization.momentum_target_iteration" -- optimize --help

# Refusals, before any optimisation.
refuse() {  # refuse NAME KEY TEXT -- ARGS...
  local name="$1" key="$2" text="$3"; shift 4
  expect "$name" 2 "swing.yaml" "$key" "$text" -- optimize swing.yaml "${FIFTY[@]}" "$@" -o refused --no-trajectory
  if [ -e refused_history.csv ]; then failed=$((failed + 1)); echo "FAIL $name: wrote refused_history.csv"; fi
}
refuse "no end-momentum term" "optimization.momentum_target_iteration" "no end-momentum term" -- "${ITERATE[@]}" \
  --set "objective=[{type: final_square, coordinate: pendulum.theta, target: 3.141592653589793, weight: 1e3}]"
refuse "end-momentum weight 0" "optimization.momentum_target_iteration" "no end-momentum term" -- "${ITERATE[@]}" \
  --set "objective[1].weight=0" --set "objective[2].weight=0"
refuse "negative end-momentum weight" "optimization.momentum_target_iteration" "S_p must be >= 0" -- "${ITERATE[@]}" \
  --set "objective[1].weight=-1"
refuse "iterations 0" "optimization.momentum_target_iteration.iterations" "expected an integer >= 1" -- \
  --set "optimization.momentum_target_iteration={iterations: 0, tolerance: 0.05}"
refuse "iterations 2.5" "optimization.momentum_target_iteration.iterations" "expected an integer >= 1" -- \
  --set "optimization.momentum_target_iteration={iterations: 2.5, tolerance: 0.05}"
refuse "tolerance 0" "optimization.momentum_target_iteration.tolerance" "expected a positive number" -- \
  --set "optimization.momentum_target_iteration={iterations: 3, tolerance: 0}"
refuse "tolerance -1" "optimization.momentum_target_iteration.tolerance" "expected a positive number" -- \
  --set "optimization.momentum_target_iteration={iterations: 3, tolerance: -1}"
refuse "tolerance missing" "optimization.momentum_target_iteration" "missing required key 'tolerance'" -- \
  --set "optimization.momentum_target_iteration={iterations: 3}"
refuse "unknown key" "optimization.momentum_target_iteration.tolerence" "unknown key" -- \
  --set "optimization.momentum_target_iteration={iterations: 3, tolerence: 0.1}"
refuse "not a map" "optimization.momentum_target_iteration" "expected a map" -- \
  --set "optimization.momentum_target_iteration=3"
refuse "--restart" "--restart" "momentum_target_iteration cannot restart" -- "${ITERATE[@]}" --restart
finish
