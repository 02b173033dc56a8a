#!/usr/bin/env bash
# One rank of four dies (SIGKILL to that rank alone, as a failed node would end it): mpirun ends the job, and
# `flexadj gradient --restart` at np 4 resumes from the disk checkpoints and sweep restart files the run left, to
# the gradient of an uninterrupted run byte for byte. Once in the forward run, once in the backward sweep; the
# kills land at known points (the first new file of each kind) and the test asserts that they landed.
# Usage: test_rank_failure.sh PATH/TO/flexadj
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$HERE/cli_support.sh" "$1"
ROOT="$(cd "$HERE/../.." && pwd)"
MPIRUN="mpirun --oversubscribe -np 4"
# A rigid chain of 8 links over 1000 steps: two links per rank (the gathered KLU of `auto`: the same bits in every
# run, docs/performance.md "Reproducibility").
MODEL=("$ROOT/meshes/rigid_chain.yaml" --set chain.count=8 --set integrator.end_time=2)
DISK=(--checkpoints 10 --disk-checkpoints 20 --checkpoint-folder files)

# kill_rank_at_new GLOB ARGS...: starts flexadj at np 4 and, as soon as files/ holds a new file matching GLOB,
# kills the highest-numbered rank's process alone. Succeeds if that kill landed and mpirun then ended the job with
# an error.
kill_rank_at_new() {
  local pattern="$1"; shift
  local -A before=()
  local file landed=1 rank=""
  for file in files/$pattern; do [ -e "$file" ] && before[$file]=1; done
  setsid $MPIRUN "$FLEXADJ" "$@" >run.txt 2>&1 &
  local pid=$!
  for _ in $(seq 1 100000); do
    for file in files/$pattern; do
      if [ -e "$file" ] && [ -z "${before[$file]:-}" ]; then landed=0; break; fi
    done
    if [ $landed -eq 0 ]; then
      rank=$(pgrep -s "$pid" -x flexadj | sort -n | tail -1)
      [ -n "$rank" ] && kill -KILL "$rank"
      break
    fi
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.002
  done
  wait "$pid"
  local code=$?
  pkill -KILL -s "$pid" 2>/dev/null  # nothing of the job may outlive it
  if [ $landed -eq 0 ] && [ -n "$rank" ] && [ $code -ne 0 ]; then
    echo "     killed rank process $rank at a new '$pattern'; mpirun exited with $code"
    return 0
  fi
  echo "     the kill at a new file matching '$pattern' did not land (rank '$rank', exit code $code); the run printed:"
  sed 's/^/       | /' run.txt | tail -5
  return 1
}

pass_if "np 4 uninterrupted gradient in memory" $MPIRUN "$FLEXADJ" gradient "${MODEL[@]}" -o memory.csv -q
rm -rf files
pass_if "np 4: one rank killed in the forward run" kill_rank_at_new "checkpoint_[1-9]*.h5" gradient "${MODEL[@]}" \
  "${DISK[@]}" -o restarted.csv -q
pass_if "the failed run left its disk checkpoints" compgen -G "files/checkpoint_*.h5"
pass_if "np 4: the restart, one rank killed in the sweep" kill_rank_at_new "adjoint_*.h5" gradient "${MODEL[@]}" \
  "${DISK[@]}" -o restarted.csv --restart
pass_if "that restart resumed the forward run from a disk checkpoint" grep -q "resuming the forward run at step" run.txt
resumed() {
  $MPIRUN "$FLEXADJ" gradient "${MODEL[@]}" "${DISK[@]}" -o restarted.csv --restart >resumed.txt 2>&1 &&
    grep -h "^restart" resumed.txt | sed 's/^/     | /' && grep -q "resuming the backward sweep" resumed.txt
}
pass_if "np 4: the second restart resumes the sweep" resumed
pass_if "np 4: the same gradient byte for byte as the uninterrupted run" cmp -s memory.csv restarted.csv
finish
