#!/usr/bin/env bash
# flexadj gradient --restart after SIGKILL: a gradient with disk checkpoints, killed at known points (after a given
# file appears; again while it resumes) and started again with --restart until it completes, gives the gradient of
# an uninterrupted run byte for byte, at np 1 and np 2 (with MUMPS to round-off); a kill during the forward run
# resumes the forward run from its last disk checkpoint, a kill during the backward sweep resumes the sweep from its
# last restart file; files of another run or a corrupt file are refused (exit 2), never used.
# Usage: test_restart.sh PATH/TO/flexadj
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$HERE/cli_support.sh" "$1"
MPIRUN="mpirun --oversubscribe -np 2"

# The pendulum on a cart over 30 000 steps (its step 1e-3 cut to 1e-4; about 1 s at np 1): the kills come at files
# the run writes, and a watcher that the scheduler holds back under load must still find most of the run left.
sed 's/step_size: 1e-3/step_size: 1e-4/' "$HERE/data/pendulum_cart.yaml" > cart.yaml
DISK=(--checkpoints 10 --disk-checkpoints 30 --checkpoint-folder files)
EARLY_SWEEP="adjoint_2[0-9][0-9][0-9][0-9].h5"  # a restart file of the sweep's first third (steps 20 000 .. 29 999)

# pause SECONDS: a sleep without a fork (a read that times out on a pipe nobody writes), for the watch loops.
exec {PAUSE_FD}<> <(:)
pause() { read -r -t "$1" -u "$PAUSE_FD" || true; }

# session_ended SID: waits (up to 30 s) until no process of session SID is left but zombies. A killed rank can
# outlive mpirun by a moment under load, and a restart started while it lives finds the folder locked by it.
session_ended() {
  local sid="$1"
  for _ in $(seq 1 3000); do
    ps -e -o sid=,stat= | awk -v sid="$sid" '$1 == sid && $2 !~ /^Z/ { found = 1 } END { exit !found }' || return 0
    pause 0.01
  done
  return 0
}

# run_killed LAUNCHER SECONDS ARGS...: runs flexadj in a process group of its own and kills the whole group with
# SIGKILL after SECONDS (mpirun and its ranks alike: the session of setsid, as the ranks have process groups of
# their own); returns flexadj's exit code, 137 if killed.
run_killed() {
  local launcher="$1" seconds="$2"; shift 2
  setsid $launcher "$FLEXADJ" "$@" >run.txt 2>&1 &
  local pid=$!
  ( sleep "$seconds"; pkill -KILL -s "$pid" 2>/dev/null ) &
  local killer=$!
  wait "$pid"
  local code=$?
  kill "$killer" 2>/dev/null
  wait "$killer" 2>/dev/null
  session_ended "$pid"
  return $code
}

# kill_when LAUNCHER FILE_GLOB ARGS...: starts flexadj, kills its process group as soon as a file matching the
# glob exists in files/.
kill_when() {
  local launcher="$1" pattern="$2"; shift 2
  setsid $launcher "$FLEXADJ" "$@" >run.txt 2>&1 &
  local pid=$!
  for _ in $(seq 1 20000); do
    if compgen -G "files/$pattern" >/dev/null; then pkill -KILL -s "$pid" 2>/dev/null; break; fi
    pause 0.005
  done
  wait "$pid"
  local code=$?
  session_ended "$pid"
  return $code
}

# kill_at_new LAUNCHER GLOB ARGS...: starts flexadj and kills its process group as soon as files/ holds a file
# matching GLOB that was not there when it started (a point of the run known by the file it writes there). The
# watch loop uses shell builtins only, so that it keeps up under load. Succeeds only if the kill landed there
# (exit 137 after the file appeared), not if the run ended first.
kill_at_new() {
  local launcher="$1" pattern="$2"; shift 2
  local -A before=()
  local file landed=1
  for file in files/$pattern; do [ -e "$file" ] && before[$file]=1; done
  setsid $launcher "$FLEXADJ" "$@" >run.txt 2>&1 &
  local pid=$!
  for _ in $(seq 1 50000); do  # at least 100 s: runs are slow under load
    for file in files/$pattern; do
      if [ -e "$file" ] && [ -z "${before[$file]:-}" ]; then landed=0; break; fi
    done
    if [ $landed -eq 0 ]; then pkill -KILL -s "$pid" 2>/dev/null; break; fi
    kill -0 "$pid" 2>/dev/null || break
    pause 0.002
  done
  wait "$pid"
  local code=$?
  session_ended "$pid"
  [ $landed -eq 0 ] && [ $code -eq 137 ] && return 0
  echo "     the kill at a new file matching '$pattern' did not land (exit code $code); the run printed:"
  sed 's/^/       | /' run.txt | tail -5
  return 1
}

# killed_at LAUNCHER REFERENCE.csv GLOB...: a gradient run with disk checkpoints killed at the first GLOB, each
# restart killed at the next one, then a last restart that completes; passes if every kill landed and the gradient
# equals the reference byte for byte.
killed_at() {
  local launcher="$1" reference="$2"; shift 2
  local restart=() pattern
  rm -rf files restarted.csv
  for pattern in "$@"; do
    kill_at_new "$launcher" "$pattern" gradient cart.yaml "${DISK[@]}" -o restarted.csv -q "${restart[@]}" || return 1
    restart=(--restart)
  done
  $launcher "$FLEXADJ" gradient cart.yaml "${DISK[@]}" -o restarted.csv --restart >run.txt 2>&1 || return 1
  grep -h "^restart" run.txt | sed 's/^/     | /'
  cmp -s "$reference" restarted.csv
}
# killed_at, tried up to eight times: under heavy load a kill can land so late in the forward run that the restart
# writes no new checkpoint before the sweep, and the next kill point never comes. A restart that gives another
# gradient fails every try.
killed_at_tries() {
  local attempt
  # A kill misses when other tests load every core for the whole short run: up to 8 attempts, 3 s apart.
  for attempt in 1 2 3 4 5 6 7 8; do
    killed_at "$@" && return 0
    echo "     attempt $attempt: a kill did not land where planned, or the gradient differs; trying again"
    sleep 3
  done
  return 1
}
# The kill points: the first disk checkpoint the run writes past step 0 (in the forward run), the first restart file
# it writes (in the sweep). Whatever the kill's delay under load, enough of the run is left to resume.
FORWARD="checkpoint_[1-9]*.h5" SWEEP="adjoint_*.h5"

expect "uninterrupted gradient in memory" 0 "spring.stiffness" -- gradient cart.yaml -o memory.csv
expect "uninterrupted gradient with disk checkpoints" 0 "30 on disk" "disk: 30 files written" -- \
  gradient cart.yaml "${DISK[@]}" -o disk.csv
pass_if "disk checkpoints give the memory gradient byte for byte" cmp -s memory.csv disk.csv
pass_if "the files are removed when the run completes" test -z "$(ls files)"

# A kill during the forward run: the restart continues it from its last disk checkpoint. The kill comes at the first
# disk checkpoint past step 0; under heavy load it can still land after the forward run has ended (the sweep's files
# are there then), so the killed run is tried up to three times.
for attempt in 1 2 3; do
  rm -rf files
  kill_when "" "checkpoint_[1-9]*.h5" gradient cart.yaml "${DISK[@]}" -o restarted.csv -q
  [ -z "$(ls files | grep adjoint_)" ] && break
  echo "     attempt $attempt: the kill landed after the forward run; trying again"
done
pass_if "killed during the forward run: no adjoint file yet" test -z "$(ls files | grep adjoint_)"
expect "restart resumes the forward run" 0 "resuming the forward run at step" -- gradient cart.yaml "${DISK[@]}" \
  -o restarted.csv --restart
pass_if "forward run resumed: the same gradient byte for byte" cmp -s memory.csv restarted.csv
# A kill during the backward sweep: the restart continues the sweep from its last restart file. (The kill comes when
# the sweep passes below step 30 000, in its first third: a kill at its very end would find a completed sweep.)
kill_when "" "$EARLY_SWEEP" gradient cart.yaml "${DISK[@]}" -o restarted.csv -q
expect "restart resumes the backward sweep" 0 "resuming the backward sweep below step" -- gradient cart.yaml \
  "${DISK[@]}" -o restarted.csv --restart
pass_if "sweep resumed: the same gradient byte for byte" cmp -s memory.csv restarted.csv
# A kill while a completed run removes its files (the last step's first): what is left, the states of steps 0 .. k,
# resumes the forward run at step k.
kill_when "" "$EARLY_SWEEP" gradient cart.yaml "${DISK[@]}" -o restarted.csv -q
rm -f files/adjoint_*.h5
kept=0
for file in files/checkpoint_*.h5; do
  n=${file#files/checkpoint_}; n=${n%.h5}
  if [ "$n" -gt 15000 ]; then rm -f "$file"; elif [ "$n" -gt "$kept" ]; then kept=$n; fi
done
expect "killed while removing its files: the restart resumes the forward run" 0 \
  "resuming the forward run at step $kept" -- gradient cart.yaml "${DISK[@]}" -o restarted.csv --restart
pass_if "files partly removed: the same gradient byte for byte" cmp -s memory.csv restarted.csv
# Kills at known points, repeated during the restarts.
pass_if "np 1, killed twice in the forward run, restarted to the same gradient" \
  killed_at_tries "" memory.csv "$FORWARD" "$FORWARD"
pass_if "np 1, killed in the forward run and twice in the sweep, restarted to the same gradient" \
  killed_at_tries "" memory.csv "$FORWARD" "$SWEEP" "$SWEEP"
pass_if "np 1, killed twice in the sweep, restarted to the same gradient" \
  killed_at_tries "" memory.csv "$SWEEP" "$SWEEP"

# np 2: the same, ranks and mpirun killed together. The cart's 8 unknowns are solved by the gathered KLU (`auto`),
# which gives the same bits in every run.
pass_if "np 2 uninterrupted in memory" $MPIRUN "$FLEXADJ" gradient cart.yaml -o memory_np2.csv -q
# resumed_np2 MODEL OPTIONS...: the restart at np 2 after a kill in the sweep; passes if it resumed the sweep and
# completed, prints its output if not.
resumed_np2() {
  local model="$1"; shift
  $MPIRUN "$FLEXADJ" gradient "$model" "${DISK[@]}" "$@" -o restarted.csv --restart >resumed.txt 2>&1 &&
    grep -q 'resuming the backward sweep' resumed.txt && return 0
  echo "     the restart printed:"
  sed 's/^/       | /' resumed.txt | tail -8
  return 1
}
rm -f restarted.csv
kill_when "$MPIRUN" "$EARLY_SWEEP" gradient cart.yaml "${DISK[@]}" -o restarted.csv -q
pass_if "np 2 restart resumes the sweep" resumed_np2 cart.yaml
pass_if "np 2 sweep resumed: the same gradient byte for byte" cmp -s memory_np2.csv restarted.csv
pass_if "np 2, killed in the forward run and twice in the sweep, restarted to the same gradient" \
  killed_at_tries "$MPIRUN" memory_np2.csv "$FORWARD" "$SWEEP" "$SWEEP"
# MUMPS and the iterative solver: the cart's own 3000 steps, as their steps cost more than KLU's and the kill comes
# in the sweep, the longer part of the run.
cp "$HERE/data/pendulum_cart.yaml" short.yaml
SHORT_EARLY_SWEEP="adjoint_2[0-9][0-9][0-9].h5"  # the sweep's first third (steps 2000 .. 2999)
# MUMPS (`direct`) assembles contribution blocks in the order they arrive: two runs can differ at round-off (seen
# under load, docs/performance.md), so its resumed gradient is compared to 1e-12 of the largest component.
# relative_difference A.csv B.csv: max |g_A - g_B| / max |g_A| of the gradient columns, printed; fails above 1e-12.
relative_difference() {
  /usr/bin/python3 - "$1" "$2" <<'PY'
import csv, sys
a, b = ([float(row["gradient"]) for row in csv.DictReader(open(name))] for name in sys.argv[1:3])
difference = max(abs(x - y) for x, y in zip(a, b)) / max(abs(x) for x in a)
print(f"     largest difference {difference:.2e} of max |g|")
sys.exit(0 if len(a) == len(b) and difference <= 1e-12 else 1)
PY
}
MUMPS=(--set integrator.linear_solver=direct)
pass_if "np 2 with MUMPS uninterrupted in memory" $MPIRUN "$FLEXADJ" gradient short.yaml "${MUMPS[@]}" \
  -o memory_mumps.csv -q
rm -rf files restarted.csv
kill_when "$MPIRUN" "$SHORT_EARLY_SWEEP" gradient short.yaml "${DISK[@]}" "${MUMPS[@]}" -o restarted.csv -q
mumps_resumed() { resumed_np2 short.yaml "${MUMPS[@]}" && relative_difference memory_mumps.csv restarted.csv; }
pass_if "np 2 with MUMPS: the resumed sweep gives the gradient to round-off" mumps_resumed
# The iterative solver with the interface Schur complement (what `auto` takes above 10^5 unknowns) is deterministic:
# the same bits in every run, so its resumed sweep gives the uninterrupted gradient byte for byte.
ITERATIVE=(--set integrator.linear_solver=iterative)
pass_if "np 2 iterative uninterrupted in memory" $MPIRUN "$FLEXADJ" gradient short.yaml "${ITERATIVE[@]}" \
  -o memory_iterative.csv -q
rm -rf files restarted.csv
kill_when "$MPIRUN" "$SHORT_EARLY_SWEEP" gradient short.yaml "${DISK[@]}" "${ITERATIVE[@]}" -o restarted.csv -q
pass_if "np 2 iterative restart resumes the sweep" resumed_np2 short.yaml "${ITERATIVE[@]}"
pass_if "np 2 iterative: the resumed sweep gives the same gradient byte for byte" cmp -s memory_iterative.csv \
  restarted.csv

# Files that are not this run's are refused, never used.
kill_when "" "$EARLY_SWEEP" gradient cart.yaml "${DISK[@]}" -o restarted.csv -q
cp cart.yaml original.yaml
sed 's/stiffness: 20/stiffness: 21/' original.yaml > cart.yaml
expect "another run's files (the model file changed) are refused" 2 "belongs to another run" -- gradient cart.yaml \
  "${DISK[@]}" --restart
mv original.yaml cart.yaml
expect "another run's files (a --set override) are refused" 2 "belongs to another run" -- gradient cart.yaml \
  "${DISK[@]}" --set forces[1].damping=0.6 --restart
expect "another run's files (another linear solver) are refused, naming the integrator" 2 "belongs to another run" \
  "integrator" -- gradient cart.yaml "${DISK[@]}" --set integrator.linear_solver=iterative --restart
expect "another run's files (another disk interval) are refused" 2 "belongs to another run" -- gradient cart.yaml \
  --checkpoints 10 --disk-checkpoints 29 --checkpoint-folder files --restart
pass_if "another rank count's files are refused (exit 2)" bash -c "$MPIRUN '$FLEXADJ' gradient cart.yaml ${DISK[*]} \
  --restart > np2.txt 2>&1; test \$? -eq 2 && grep -q 'belongs to another run' np2.txt"
latest=$(ls files | grep -E '^adjoint_[0-9]+\.h5$' | head -1)
# One bit of one value (the lowest bit of the first parameter sum), as bit rot on disk would flip it.
/usr/bin/python3 - "files/$latest" <<'PY'
import sys, h5py, numpy
with h5py.File(sys.argv[1], "r+") as f:
    values = f["parameters"][...]
    bits = values.view(numpy.uint64)
    bits[0, 0] ^= numpy.uint64(1)
    f["parameters"][...] = bits.view(numpy.float64)
PY
expect "a corrupt restart file is refused" 2 "$latest" -- gradient cart.yaml "${DISK[@]}" --restart
# flexadj optimize killed at random moments and started again with --restart (from its restart file, rewritten
# after every iterate) reaches the same final design byte for byte, for every method: the gradient method from its
# saved state, ROL's L-BFGS and trust region by replaying the recorded evaluations. An evaluation that was killed is
# not resumed (its design may be a line-search trial): it runs again, after removing its files.
sed 's/end_time: 3,/end_time: 0.6,/; s/end: 3, count: 7/end: 0.6, count: 7/' "$HERE/data/pendulum_cart.yaml" > opt.yaml
echo "optimization: {method: gradient, max_iterations: 8}" >> opt.yaml
OPT=(optimize opt.yaml --checkpoints 5 --disk-checkpoints 6 --checkpoint-folder files --no-trajectory -q)
# optimize_until_complete SEED: kills at random moments (the first four runs), then --restart until complete.
optimize_until_complete() {
  RANDOM=$1
  rm -f killed_*
  local code=137 kills=0
  for attempt in 1 2 3 4 5 6 7 8; do
    local restart=()
    [ -f killed_restart.txt ] && restart=(--restart)
    if [ $attempt -le 4 ]; then
      run_killed "" "0.$((RANDOM % 90 + 10))" "${OPT[@]}" -o killed "${restart[@]}"
    else
      "$FLEXADJ" "${OPT[@]}" -o killed "${restart[@]}" >run.txt 2>&1
    fi
    code=$?
    [ $code -eq 137 ] && kills=$((kills + 1))
    [ $code -eq 0 ] && break
  done
  echo "     seed $1: $kills kill(s)"
  echo $kills >> kills.txt
  if [ $code -eq 0 ] && cmp -s whole_design.yaml killed_design.yaml; then return 0; fi
  # What a failure looks like (it has been seen under load only, not reproduced): the last run's output and designs.
  echo "     last exit code $code; its output:"; sed 's/^/       /' run.txt | tail -20
  diff whole_design.yaml killed_design.yaml | head -10 | sed 's/^/       /'
  return 1
}
for method in gradient barzilai_borwein lbfgs trust_region; do
  sed -i "s/method: [a-z_]*,/method: $method,/" opt.yaml
  pass_if "optimize ($method) uninterrupted" "$FLEXADJ" "${OPT[@]}" -o whole
  rm -f kills.txt
  for seed in 3 13; do
    pass_if "optimize ($method), random kills (seed $seed), restarted to the same design" optimize_until_complete $seed
  done
  pass_if "optimize ($method): runs were killed" awk '{ s += $1 } END { exit !(s > 0) }' kills.txt
done

# A restart of ROL's methods with a changed model: the replay notices and stops (exit 2), it does not diverge.
sed -i "s/method: [a-z_]*,/method: lbfgs, max_iterations: 3,/; s/max_iterations: 8}/}/" opt.yaml
pass_if "optimize (lbfgs) 3 iterations" "$FLEXADJ" "${OPT[@]}" -o changed
sed -i 's/damping: 0.5/damping: 0.6/; s/max_iterations: 3,/max_iterations: 6,/' opt.yaml
expect "restart of lbfgs with a changed model is refused" 2 "changed_restart.txt" "belongs to another run" -- \
  "${OPT[@]}" -o changed --restart
expect "--restart without disk checkpoints is an input error" 2 "--restart" "needs disk checkpoints" -- \
  gradient cart.yaml --restart
finish
