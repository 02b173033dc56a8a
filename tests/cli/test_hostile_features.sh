#!/usr/bin/env bash
# The checkpoint, restart, spacetime, integrator and output options tried as a hostile user would: a failed run
# leaves the results of an earlier run as they were, conflicting or impossible options are input errors (exit 2)
# naming the option and what was expected, and a restart never mixes two different runs.
# Usage: test_hostile_features.sh PATH/TO/flexadj
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$HERE/cli_support.sh" "$1"
MESHES="$HERE/../../meshes"

# A pendulum held by a spring; J is the bob's final height, the design variable the spring's stiffness.
cat > pendulum.yaml <<'YAML'
dimension: 2
gravity: [0, -9.81]
integrator: {end_time: 0.1, step_size: 1e-3}
bodies:
  - {name: bob, type: point_mass, mass: 1, position: [1, 0]}
joints:
  - {name: rod, type: distance, bodies: [ground, bob], points: [[0, 0], [1, 0]]}
forces:
  - {name: spring, type: spring_damper, bodies: [ground, bob], points: [[2, 0], [1, 0]], stiffness: 10, free_length: 1}
objective:
  - {type: final_value, coordinate: bob.y}
design_variables: [spring.stiffness]
optimization: {max_iterations: 2}
YAML
NEWTON_FAILS="integrator.max_newton_iterations=1"  # the forward run fails at step 4 (exit 3)

# keep FILE...: copies of the files as they are; unchanged NAME FILE...: each file still equals its copy and no
# temporary file is left beside it.
keep() { for f in "$@"; do cp "$f" "$f.kept"; done; }
unchanged() {
  local name="$1" ok=1; shift
  for f in "$@"; do
    if ! cmp -s "$f" "$f.kept"; then ok=0; echo "     | $f changed ($(stat -c %s "$f" 2>/dev/null || echo missing) bytes)"; fi
    if [ -e "$f.tmp" ]; then ok=0; echo "     | $f.tmp left behind"; fi
  done
  pass_if "$name" [ $ok -eq 1 ]
}

# ---- A failed run leaves earlier results as they were --------------------------------------------------------
# Before, gradient truncated -o and --h5 at its start (0 bytes after a failure) and optimize its history file.
expect "gradient: a good run" 0 "J = " -- gradient pendulum.yaml -o g.csv --h5 g.h5
keep g.csv g.h5
expect "gradient: bad input after the output files were named" 2 "--print-schedule" -- \
  gradient pendulum.yaml -o g.csv --h5 g.h5 --print-schedule
unchanged "gradient: an input error leaves the earlier CSV and HDF5 files" g.csv g.h5
expect "gradient: the forward run fails" 3 "Newton iteration failed" -- \
  gradient pendulum.yaml -o g.csv --h5 g.h5 --set "$NEWTON_FAILS"
unchanged "gradient: a solver failure leaves the earlier CSV and HDF5 files" g.csv g.h5
expect "gradient: a new good run replaces them" 0 "J = " -- \
  gradient pendulum.yaml -o g.csv --h5 g.h5 --set "forces[0].stiffness=20"
pass_if "gradient: the new result is in place" bash -c '! cmp -s g.csv g.csv.kept && [ ! -e g.csv.tmp ] && [ ! -e g.h5.tmp ]'

# A symbolic link stays a link: the file it points to is replaced.
ln -s g_target.csv g_link.csv
expect "gradient: -o through a symbolic link" 0 "J = " -- gradient pendulum.yaml -o g_link.csv
pass_if "gradient: the link stays a link to the new result" bash -c '[ -L g_link.csv ] && [ -s g_target.csv ]'

expect "optimize: a good run" 0 "stopped" -- optimize pendulum.yaml -o opt
keep opt_history.csv opt_history.h5 opt_design.yaml opt.h5 opt.xmf opt.xmf2
expect "optimize: the forward run fails" 3 "failed" -- optimize pendulum.yaml -o opt --set "$NEWTON_FAILS"
unchanged "optimize: a solver failure leaves the earlier history, design and trajectory" \
  opt_history.csv opt_history.h5 opt_design.yaml opt.h5 opt.xmf opt.xmf2

expect "simulate: a good run" 0 "summary" -- simulate pendulum.yaml -o sim.h5 --summary sim.json
keep sim.h5 sim.xmf sim.xmf2 sim.json
expect "simulate: bad input" 2 "--every" -- simulate pendulum.yaml -o sim.h5 --summary sim.json --every 0
unchanged "simulate: an input error leaves the earlier results" sim.h5 sim.xmf sim.xmf2 sim.json

# ---- Spacetime options -------------------------------------------------------------------------------------------
# A relative tolerance of 1 or more stopped GMRES before its first iteration: exit 0 with a wrong gradient.
for tolerance in 1 2 inf; do
  expect "--spacetime-tolerance $tolerance" 2 "--spacetime-tolerance: expected a relative residual in (0, 1)" -- \
    gradient "$MESHES/oscillator.yaml" --adjoint spacetime --spacetime-tolerance $tolerance
done
expect "--spacetime-tolerance 0.5 is accepted" 0 "J = " -- \
  gradient "$MESHES/oscillator.yaml" --adjoint spacetime --spacetime-tolerance 0.5
# Met after 3 of 8 iterations (residual 0.5): interface defect 0.25 and dJ/dk -0.062 instead of -0.250.
expect "a large interface defect is exit 3 with the attained residual" 3 \
  "interface defect 0.245" "exceeds 0.0001" "relative residual of 0.4999" "after 3 iterations" -- \
  gradient "$MESHES/oscillator.yaml" --adjoint spacetime --time-slabs 8 --spacetime-tolerance 0.5
expect "a loose tolerance the slabs meet is exit 0" 0 "interface defect 8.88e-16" -- \
  gradient "$MESHES/oscillator.yaml" --adjoint spacetime --time-slabs 8 --spacetime-tolerance 0.3
for option in "--time-slabs 2" "--spacetime-memory 1GB" "--spacetime-solver gmres" "--spacetime-coarsening 2"; do
  # shellcheck disable=SC2086
  expect "$option without the spacetime adjoint" 2 "${option%% *}: is an option of the spacetime adjoint" \
    "this run's adjoint is discrete" -- gradient "$MESHES/oscillator.yaml" $option
done
expect "--spacetime-solver lists every solver" 2 \
  "--spacetime-solver: expected gmres-slab, gmres-two-level, gmres-two-level-fcf, gmres or direct, got 'lu'" -- \
  gradient "$MESHES/oscillator.yaml" --adjoint spacetime --spacetime-solver lu

# ---- The trajectory file -------------------------------------------------------------------------------------------
# Before: exit 0 with the kept trajectory overwritten by the gradient file, or --trajectory-file silently ignored.
expect "--trajectory-file and --h5 on one file" 2 "same.h5: --h5: is also the file of --trajectory-file" -- \
  gradient pendulum.yaml --trajectory-file same.h5 --h5 same.h5
expect "--trajectory-file and -o on one file" 2 "./same.h5: -o: is also the file of --trajectory-file" -- \
  gradient pendulum.yaml --trajectory-file same.h5 -o ./same.h5
expect "optimize: --trajectory-file is the final trajectory" 2 "-o: is also the file of --trajectory-file" -- \
  optimize pendulum.yaml -o same --trajectory-file same.h5
for option in "--checkpoints 3" "--disk-checkpoints 2" "--memory-limit 1MB" "--checkpoint-folder cf" "--trajectory memory"; do
  expect "--trajectory-file with $option" 2 "--trajectory-file: is the file of --trajectory hdf5 and cannot be combined with ${option%% [0-9a-z]*}" -- \
    gradient pendulum.yaml $option --trajectory-file kept.h5
done
expect "--trajectory-file with --trajectory hdf5" 0 "J = " -- \
  gradient pendulum.yaml --trajectory hdf5 --trajectory-file kept.h5 --h5 g.h5
pass_if "the trajectory file is kept" test -s kept.h5

# ---- Output names checked before the work --------------------------------------------------------------------------
# Before: optimize ran the whole optimisation, then failed writing a:b.h5 with a message suggesting --no-xdmf, an
# option optimize lacks; no history file was left.
expect "optimize -o a:b" 2 "a:b.h5: -o: a ':' or '|' in the file name" "--no-trajectory" -- optimize pendulum.yaml -o a:b
pass_if "optimize -o a:b: refused before the first iteration" bash -c '! grep -q "^    0 " stdout.txt && ! grep -q -- "--no-xdmf" stderr.txt'
expect "optimize -o a:b --no-trajectory" 0 "stopped" -- optimize pendulum.yaml -o a:b --no-trajectory
expect "optimize -o a:b without XDMF files" 0 "stopped" -- optimize pendulum.yaml -o a:b --set output.xdmf=false

# ---- Sizes of memory ---------------------------------------------------------------------------------------------
# "4 GB" (with a space) was refused, and was an internal error (exit 1) in an earlier version; units in any case.
for size in "4 GB" "4GB" "4 GiB" "512MiB" "4G" "4 gb" " 2 mib " "1e9"; do
  expect "--memory-limit '$size'" 0 "checkpoints in memory" -- gradient pendulum.yaml --memory-limit "$size"
done
for size in "4 XB" "0x10MB" "inf" "nan" "4 G B" "GB" "-4GB" "1e400" ""; do
  expect "--memory-limit '$size' is refused" 2 "--memory-limit: expected a size such as 500MB, 4GB, 4 GB, 2GiB" -- \
    gradient pendulum.yaml --memory-limit "$size"
done
expect "trajectory.memory_limit '4 GB' in the model file" 0 "checkpoints in memory" -- \
  gradient pendulum.yaml --set "trajectory={storage: checkpoints, memory_limit: 4 GB}"

# ---- Restarts never mix two runs -----------------------------------------------------------------------------------
# Before, the run identity covered the model file's bytes, the values, the time grid and the ranks only: a restart
# with another objective or integrator setting (--set) used the old run's files, exit 0 with a gradient that was
# neither run's.
sed 's/end_time: 3,/end_time: 0.6,/; s/end: 3, count: 7/end: 0.6, count: 7/' "$HERE/data/pendulum_cart.yaml" > cart.yaml
DISK=(--checkpoints 5 --disk-checkpoints 12 --checkpoint-folder files)
# killed_in_sweep ARGS...: a gradient run killed as soon as its sweep wrote its first restart file.
killed_in_sweep() {
  rm -rf files
  setsid "$FLEXADJ" gradient cart.yaml "${DISK[@]}" -q "$@" >run.txt 2>&1 &
  local pid=$!
  for _ in $(seq 1 4000); do
    if compgen -G "files/adjoint_*.h5" >/dev/null; then kill -KILL -"$pid" 2>/dev/null; break; fi
    sleep 0.002
  done
  { wait "$pid"; } 2>/dev/null
  compgen -G "files/adjoint_*.h5" >/dev/null
}
expect "cart: uninterrupted gradient" 0 "J = " -- gradient cart.yaml -o whole.csv
for change in "objective[0].target=0.3" "integrator.spectral_radius=0.5" "design_variables=[spring.stiffness]"; do
  section=${change%%[.[=]*}
  pass_if "a run killed in its sweep left files (for: $change)" killed_in_sweep
  expect "--restart with --set $change is refused" 2 "belongs to another run: its $section differs" "files/" -- \
    gradient cart.yaml "${DISK[@]}" --restart --set "$change"
done
pass_if "a run killed in its sweep left files" killed_in_sweep
expect "--restart with --adjoint continuous is refused" 2 "belongs to another run: its adjoint differs" -- \
  gradient cart.yaml "${DISK[@]}" --restart --adjoint continuous
pass_if "a run killed in its sweep left files" killed_in_sweep
expect "--restart of the same run" 0 "resuming the backward sweep" -- gradient cart.yaml "${DISK[@]}" --restart -o resumed.csv
pass_if "--restart of the same run: the uninterrupted gradient" cmp -s whole.csv resumed.csv

# optimize --restart replayed the old evaluations under a changed objective or integrator (exit 0, a history
# jumping between two objectives); a hand-edited iteration -3 or design value inf was accepted, nan gave exit 3.
cp cart.yaml opt.yaml
echo "optimization: {method: lbfgs, max_iterations: 2}" >> opt.yaml
OPT=(optimize opt.yaml --no-trajectory -q -o run)
expect "optimize: two iterations" 0 -- "${OPT[@]}"
cp run_restart.txt restart.kept
for change in "objective[0].target=0.3" "integrator.spectral_radius=0.5"; do
  section=${change%%[.[=]*}
  expect "optimize --restart with --set $change is refused" 2 "run_restart.txt: --restart" \
    "belongs to another run: its $section differs" -- "${OPT[@]}" --restart --max-iterations 4 --set "$change"
done
expect "optimize --restart with more iterations (a stopping rule) is accepted" 0 -- \
  "${OPT[@]}" --restart --set optimization.max_iterations=3
cp restart.kept run_restart.txt
# The identity named the version only: a restart file of another build (another commit, same version) was accepted.
VERSION_LINE="$("$FLEXADJ" --version)"
pass_if "the run identity names the program as --version does ($VERSION_LINE)" \
  grep -qF "program=$VERSION_LINE;" run_restart.txt
if git -C "$HERE" rev-parse --short HEAD > head.txt 2> /dev/null; then
  pass_if "--version names the commit of the git checkout ($(cat head.txt))" grep -qF "$(cat head.txt)" <<< "$VERSION_LINE"
fi
OTHER="$(cut -d' ' -f1-2 <<< "$VERSION_LINE") (git 0000000)"  # the same version, another commit
sed -i "s/program=flexadj [^;]*;/program=$OTHER;/" run_restart.txt
expect "optimize --restart of another commit of the same version is refused" 2 "run_restart.txt: --restart" \
  "its program differs ($OTHER in the file, $VERSION_LINE in this run)" -- "${OPT[@]}" --restart
cp restart.kept run_restart.txt
sed -i 's/^iteration .*/iteration -3/' run_restart.txt
expect "optimize --restart from iteration -3" 2 "run_restart.txt: --restart" "iteration >= 0, got -3" -- "${OPT[@]}" --restart
for bad in inf nan; do
  cp restart.kept run_restart.txt
  sed -i "s/^x \([0-9]*\) [^ ]*/x \1 $bad/" run_restart.txt
  expect "optimize --restart with a design value $bad" 2 "run_restart.txt: --restart" "x[0] is $bad" -- "${OPT[@]}" --restart
done

# ---- A free final time ---------------------------------------------------------------------------------------------
# J = x(t1) of a mass moving at 1 m/s, over the free final time t1: before, the optimiser drove t1 through 0 to
# negative times (every forward run integrating backwards, exit 0), and its design file could not be read back.
cat > free_time.yaml <<'YAML'
dimension: 2
gravity: [0, 0]
integrator: {end_time: 1, step_size: 0.01}
bodies:
  - {name: mass, type: point_mass, mass: 1, position: [0, 0], velocity: [1, 0]}
joints:
  - {name: rail, type: prismatic, bodies: [ground, mass], axis: [1, 0]}
objective:
  - {type: final_value, coordinate: mass.x}
design_variables: [integrator.end_time]
optimization: {max_iterations: 5}
YAML
end_time_of() { sed -n 's/^ *"integrator.end_time": //p' "$1"; }
for method in lbfgs gradient barzilai_borwein trust_region; do
  expect "free final time ($method)" 0 "stopped" -- optimize free_time.yaml -o free --no-trajectory --method $method
  pass_if "free final time ($method): t1 stays after t0 (t1 = $(end_time_of free_design.yaml))" \
    awk -v t="$(end_time_of free_design.yaml)" 'BEGIN { exit !(t >= 0.001 * 0.999999) }'
done
expect "the design file of a free final time is read back by start_from" 0 "to t = 0.001 s" -- \
  simulate free_time.yaml --no-output --set optimization.start_from=free_design.yaml
printf 'design_values:\n  "integrator.end_time": -1\n' > negative_time.yaml
expect "a design file with t1 before t0" 2 "negative_time.yaml: design_values.integrator.end_time" \
  "expected an end time after integrator.start_time (0), got -1" -- \
  simulate free_time.yaml --no-output --set optimization.start_from=negative_time.yaml

# ---- One run per checkpoint folder -------------------------------------------------------------------------------
# Before, two runs sharing a folder removed and overwrote each other's files; the first died late with exit 2.
# 20000 steps (a few seconds): the second run starts while the first runs.
sed 's/end_time: 3,/end_time: 20,/; s/end: 3, count: 7/end: 20, count: 7/' "$HERE/data/pendulum_cart.yaml" > long_cart.yaml
LONG=(gradient long_cart.yaml --checkpoints 10 --disk-checkpoints 30 --checkpoint-folder shared)
expect "long cart: uninterrupted gradient in memory" 0 "J = " -- gradient long_cart.yaml -o long_memory.csv
rm -rf shared
"$FLEXADJ" "${LONG[@]}" -o first.csv -q >first.txt 2>&1 &
first=$!
for _ in $(seq 1 4000); do compgen -G "shared/checkpoint_*.h5" >/dev/null && break; sleep 0.002; done
expect "a second run on the folder is refused" 2 "shared: --checkpoint-folder: the folder is in use by another run" \
  "shared/flexadj.lock" -- "${LONG[@]}" -o second.csv
wait $first
first_code=$?
pass_if "the first run completes (exit 0) with its own gradient" bash -c "[ $first_code -eq 0 ] && cmp -s long_memory.csv first.csv"
pass_if "the lock is removed at the end" test ! -e shared/flexadj.lock
# A lock of a process that is gone (a killed run on this host) is taken over; another host's is respected.
mkdir -p shared
echo "999999999 $(hostname)" > shared/flexadj.lock
expect "a stale lock of this host is taken over" 0 "J = " -- "${LONG[@]}"
echo "1 another-host.example" > shared/flexadj.lock
expect "a lock of another host is respected" 2 "process 1 on host another-host.example" -- "${LONG[@]}"
rm -f shared/flexadj.lock

# ---- Long checkpoint schedules -------------------------------------------------------------------------------------
# 2 checkpoints over 10^6 steps: before, the schedule was built action by action before the header (nothing printed
# for minutes; --print-schedule never finished). Now the counts come at once, with a warning; the run is stopped.
timeout 15 "$FLEXADJ" gradient "$MESHES/oscillator.yaml" --checkpoints 2 --print-schedule \
  --set integrator.step_size=1.5707963267948966e-6 >million.txt 2>million_err.txt
pass_if "10^6 steps, 2 checkpoints: the recomputed steps are printed before the run" \
  grep -q "the sweep recomputes 940810658 steps" million.txt
pass_if "10^6 steps, 2 checkpoints: a warning (more than 10 times the forward run)" \
  grep -q "warning: the checkpoint schedule recomputes 940810658 steps, 940 times the 1000000 steps" million_err.txt
pass_if "10^6 steps, 2 checkpoints: --print-schedule summarises" \
  grep -q "the actions are listed for schedules of at most 100000 steps; this one has 1000000" million.txt
expect "a short schedule is listed, without a warning" 0 "restore 0" -- \
  gradient "$MESHES/oscillator.yaml" --checkpoints 30 --print-schedule
pass_if "a short schedule: no warning" bash -c '! grep -q "warning" stderr.txt'

finish
